"""Progress that never loses an attempt: an append-only JSON-lines log plus one file per attempt.

Every attempt gets an id and is written twice: a line appended to ``attempts.jsonl`` (under a
``filelock`` lock, fsync'ed) and a write-once ``attempts.d/<id>.json`` (temp file, fsync, rename).
Reading takes the union of both, deduplicated by id, so one corrupted or truncated file loses
nothing; a bad line or record is skipped and reported, never the whole file. The old single-file
``progress.json`` (and its ``.bak``) is read as well and copied into the log on the next save; it is
never moved, rewritten or deleted.
"""
import getpass
import hashlib
import json
import os
import re
import stat
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from kernels_numba.infra.errors import CourseInputError

PROGRESS_ENV = "SGEMM_PROGRESS"
STUDENT_ENV = "SGEMM_STUDENT"
SCHEMA = 2
LOG_NAME, COPIES_NAME, LEGACY_NAME = "attempts.jsonl", "attempts.d", "progress.json"
LOCK_TIMEOUT_S = 30.0
MAX_FILE_BYTES = 32 * 1024 * 1024     # a progress file larger than this is not a student's progress
MAX_LINE_BYTES = 256 * 1024
MAX_STUDENT_CHARS = 64
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
QUIZ_RE = re.compile(r"^\d{2}$")
ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")


# --- where ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Location:
    """The files of one learner's progress: the log, the per-attempt folder, the old single file."""
    log: Path
    copies: Path
    legacy: Path

    @property
    def lock(self):
        return self.log.with_name(self.log.name + ".lock")

    @property
    def folder(self):
        return self.log.parent


def _bad_progress(value, ko, en):
    return CourseInputError(
        f"환경 변수 {PROGRESS_ENV}={value!r}: {ko}",
        f"{PROGRESS_ENV}={value!r}: {en}",
        f"{PROGRESS_ENV} 를 쓸 수 있는 폴더(예: ~/.sgemm-course)나 .json/.jsonl 파일 경로로 바꾸거나 지우세요 "
        "(지우면 ~/.sgemm-course 를 씁니다)",
        f"set {PROGRESS_ENV} to a writable folder (e.g. ~/.sgemm-course) or a .json/.jsonl file path, "
        "or unset it (then ~/.sgemm-course is used)")


def locate(path=None):
    """Location for `path`, else $SGEMM_PROGRESS, else ~/.sgemm-course/ (raises CourseInputError on a bad value).

    A folder (existing, or a new path without suffix) holds attempts.jsonl, attempts.d/ and the old
    progress.json; ``X.json`` means the old file X.json with X.jsonl and X.d/ beside it; ``X.jsonl`` is the log.
    """
    raw = path if path is not None else os.environ.get(PROGRESS_ENV)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        folder = Path.home() / ".sgemm-course"
        return Location(folder / LOG_NAME, folder / COPIES_NAME, folder / LEGACY_NAME)
    text = str(raw)
    if "\x00" in text or any(ord(ch) < 32 for ch in text):
        raise _bad_progress(raw, "경로에 제어 문자가 있습니다", "the path contains control characters")
    p = Path(text.strip()).expanduser()
    try:
        st = p.stat()
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        return Location(p / LOG_NAME, p / COPIES_NAME, p / LEGACY_NAME)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _bad_progress(raw, "일반 파일도 폴더도 아닙니다 (장치·파이프 등)",
                            "it is neither a regular file nor a folder (a device, pipe, ...)")
    for parent in p.parents:
        if parent.exists() and not parent.is_dir():
            raise _bad_progress(raw, f"상위 경로 {parent} 가 폴더가 아니라 파일입니다",
                                f"{parent} is a file, not a folder")
    if p.suffix == ".jsonl":
        return Location(p, p.with_suffix(".d"), p.with_suffix(".json"))
    if p.suffix == ".json":
        return Location(p.with_suffix(".jsonl"), p.with_suffix(".d"), p)
    if st is not None:          # an existing regular file with another name: use it as the log
        return Location(p, p.with_name(p.name + ".d"), p.with_name(p.name + ".legacy.json"))
    return Location(p / LOG_NAME, p / COPIES_NAME, p / LEGACY_NAME)


def progress_path():
    """The attempt log in use ($SGEMM_PROGRESS, else ~/.sgemm-course/attempts.jsonl)."""
    return locate().log


def student_id():
    """$SGEMM_STUDENT (checked), else the login name."""
    env = os.environ.get(STUDENT_ENV)
    if env is not None and env.strip():
        return check_student(env, source=f"환경 변수 {STUDENT_ENV}")
    try:
        return getpass.getuser()
    except Exception:       # noqa: BLE001 - no login name in some containers
        return "student"


def check_student(value, source="학생 ID"):
    """A usable student id (stripped), or CourseInputError saying what is wrong."""
    text = str(value).strip()
    problem = None
    if not text:
        problem = ("비어 있습니다", "it is empty")
    elif len(text) > MAX_STUDENT_CHARS:
        problem = (f"{MAX_STUDENT_CHARS}자보다 깁니다", f"it is longer than {MAX_STUDENT_CHARS} characters")
    elif any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        problem = ("줄바꿈·제어 문자가 있습니다", "it contains a newline or control character")
    if problem:
        raise CourseInputError(f"{source} {value!r}: {problem[0]}", f"student id {value!r}: {problem[1]}",
                               f"{STUDENT_ENV} 를 짧은 이름(예: kim01)으로 바꾸거나 지우세요 (지우면 로그인 이름)",
                               f"set {STUDENT_ENV} to a short name such as kim01, or unset it (login name)")
    return text


def utc_now():
    """UTC timestamp like 2026-11-21T05:31:07Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def make_attempt(result, student=None):
    """An attempt record (with a fresh id) from an engine.QuizResult."""
    return {"id": uuid.uuid4().hex, "quiz": result.quiz_id,
            "student": check_student(student) if student else student_id(), "time": utc_now(),
            "answers": result.answers, "correct": result.correct_map(), "score": result.score,
            "total": result.total, "pass_at": result.pass_at, "passed": result.passed}


# --- records ---------------------------------------------------------------------------------------

def content_id(rec):
    """Deterministic id of a record without one (old progress.json): the same attempt gets the same id."""
    body = {k: v for k, v in rec.items() if k != "id"}
    return "legacy-" + hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False,
                                                 default=str).encode()).hexdigest()[:20]


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_record(rec, quiz_info=None):
    """(record with an id, None) when `rec` is a sound attempt, else (None, reason).

    Checks types and ranges, that score = number of correct answers and passed = score >= pass_at;
    `quiz_info(quiz_id)` -> (total, pass_at, question ids) or None also checks against the shipped quiz.
    """
    if not isinstance(rec, dict):
        return None, f"기록이 객체가 아닙니다 / record is a {type(rec).__name__}"
    for k in ("quiz", "student", "time", "correct", "score", "passed"):
        if k not in rec:
            return None, f"'{k}' 없음 / missing '{k}'"
    quiz, student, t, correct, score = rec["quiz"], rec["student"], rec["time"], rec["correct"], rec["score"]
    if not (isinstance(quiz, str) and QUIZ_RE.match(quiz)):
        return None, f"quiz {quiz!r}: 두 자리 문자열이 아님 / not a two-digit string"
    if not (isinstance(student, str) and student.strip() and len(student) <= 200
            and not any(ord(ch) < 32 for ch in student)):
        return None, f"student {str(student)[:40]!r}: 이름이 아님 / not a usable name"
    if not (isinstance(t, str) and TIME_RE.match(t)):
        return None, f"time {str(t)[:40]!r}: YYYY-MM-DDTHH:MM:SSZ 형식이 아님 / not a UTC timestamp"
    try:
        time.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None, f"time {t!r}: 없는 날짜 / not a real date"
    if not (isinstance(correct, dict) and correct and len(correct) <= 100
            and all(isinstance(k, str) and len(k) <= 40 and isinstance(v, bool) for k, v in correct.items())):
        return None, "correct: {문항: true/false} 가 아님 / not a {question: bool} map"
    if not _is_int(score):
        return None, f"score {score!r}: 정수가 아님 / not an integer"
    total = rec.get("total", len(correct))
    pass_at = rec.get("pass_at")
    if not _is_int(total) or total != len(correct):
        return None, f"total {total!r}: 문항 수 {len(correct)} 와 다름 / does not match the answers"
    if not 0 <= score <= total or score != sum(correct.values()):
        return None, f"score {score}: 맞힌 문항 수 {sum(correct.values())} 와 다름 / does not match 'correct'"
    if not isinstance(rec["passed"], bool):
        return None, f"passed {rec['passed']!r}: true/false 가 아님 / not a boolean"
    if pass_at is not None and (not _is_int(pass_at) or not 1 <= pass_at <= total
                                or rec["passed"] != (score >= pass_at)):
        return None, f"pass_at {pass_at!r} / passed {rec['passed']!r}: 서로 맞지 않음 / inconsistent"
    if "answers" in rec and not isinstance(rec["answers"], dict):
        return None, "answers: 객체가 아님 / not an object"
    if "id" in rec and not (isinstance(rec["id"], str) and ID_RE.match(rec["id"])):
        return None, f"id {str(rec['id'])[:40]!r}: 올바른 id 가 아님 / not a valid id"
    if quiz_info is not None:
        info = quiz_info(quiz)
        if info is None:
            return None, f"quiz {quiz}: 없는 체크포인트 / unknown checkpoint"
        q_total, q_pass_at, qids = info
        if total != q_total or set(correct) != set(qids):
            return None, f"quiz {quiz}: 문항이 체크포인트와 다름 / questions do not match the checkpoint"
        if pass_at is not None and pass_at != q_pass_at or rec["passed"] != (score >= q_pass_at):
            return None, f"quiz {quiz}: 통과 기준이 체크포인트와 다름 / pass mark does not match the checkpoint"
    out = dict(rec)
    out.setdefault("id", content_id(rec))
    return out, None


@dataclass
class Read:
    """What reading progress found: good records (deduplicated by id) and what was skipped, with why."""
    records: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    ids: set = field(default_factory=set)

    def add(self, rec, where, quiz_info=None):
        good, why = check_record(rec, quiz_info)
        if good is None:
            self.problems.append(f"{where}: {why}")
        elif good["id"] not in self.ids:
            self.ids.add(good["id"])
            self.records.append(good)


def _read_bytes(path, limit=MAX_FILE_BYTES):
    """Bytes of a regular file (not following a symlink loop, not blocking on a pipe), or raise OSError/ValueError."""
    st = os.stat(path)                       # follows symlinks; a loop raises OSError (ELOOP)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("일반 파일이 아님 / not a regular file")
    if st.st_size > limit:
        raise ValueError(f"너무 큼 ({st.st_size} 바이트) / too large ({st.st_size} bytes > {limit})")
    with open(path, "rb") as f:
        return f.read(limit + 1)


def _loads(text):
    """json.loads that turns deep nesting (RecursionError) into ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON 이 너무 깊게 중첩됨 / JSON nested too deeply") from None


def read_file(path, into=None, quiz_info=None):
    """Read one progress file of any format (log lines, one attempt, or the old {"attempts": [...]})."""
    out = into if into is not None else Read()
    try:
        raw = _read_bytes(path)
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as e:
        out.problems.append(f"{path}: 읽을 수 없음 / unreadable ({type(e).__name__}: {e})")
        return out
    try:
        whole = _loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        whole = None
    if isinstance(whole, dict) and "attempts" in whole:          # the old single-file format
        items = whole["attempts"]
        if not isinstance(items, list):
            out.problems.append(f"{path}: 'attempts' 가 목록이 아님 / 'attempts' is not a list")
            return out
        for i, rec in enumerate(items[:100000]):
            out.add(rec, f"{path} [attempt {i + 1}]", quiz_info)
        return out
    if isinstance(whole, dict) and "quiz" in whole:              # one attempt (attempts.d/<id>.json)
        out.add(whole, str(path), quiz_info)
        return out
    bad = []
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        if len(line) > MAX_LINE_BYTES:
            bad.append(f"{where}: 줄이 너무 김 / line too long")
            continue
        try:
            rec = _loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            bad.append(f"{where}: JSON 이 아님 (잘린 줄?) / not JSON, truncated line? ({type(e).__name__})")
            continue
        out.add(rec, where, quiz_info)
    if len(bad) > 3:                      # a binary or foreign file: a few examples, then the count
        bad = bad[:2] + [f"{path}: 그 밖에 JSON 이 아닌 줄 {len(bad) - 2}개 / {len(bad) - 2} more non-JSON lines"]
    out.problems += bad
    return out


def _copy_files(folder):
    try:
        return sorted(p for p in Path(folder).iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        return []


def read_all(loc=None, quiz_info=None):
    """Every attempt of one learner: the log, the per-attempt copies and the old files, each once."""
    loc = loc if isinstance(loc, Location) else locate(loc)
    out = Read()
    read_file(loc.log, out, quiz_info)
    for f in _copy_files(loc.copies):
        read_file(f, out, quiz_info)
    for f in (loc.legacy, loc.legacy.with_name(loc.legacy.name + ".bak")):
        read_file(f, out, quiz_info)
    out.records.sort(key=lambda r: (r["time"], r["id"]))
    return out


# --- writing ---------------------------------------------------------------------------------------

def _fsync_dir(folder):
    try:                     # make a new directory entry durable (POSIX; harmless to skip elsewhere)
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def atomic_write_json(path, data):
    """Write JSON to a temp file in the same folder, flush + fsync, then os.replace onto `path`."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _append_line(log, line):
    """Append one line with a single write; first end a torn last line so it stays one bad line."""
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(log, "rb") as f:
                f.seek(size - 1)
                torn = f.read(1) != b"\n"
        else:
            torn = False
        data = (b"\n" if torn else b"") + line
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class Saved:
    """Outcome of save_attempt: ok, where, and messages (Korean + English) for the student."""
    ok: bool
    path: Path
    messages: list = field(default_factory=list)
    attempts: int = 0


def _line(rec):
    return (json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def save_attempt(attempt, path=None):
    """Record one attempt durably (log line + its own file); ok only once both are on disk. Never raises."""
    msgs = []
    where = path if path is not None else os.environ.get(PROGRESS_ENV, "~/.sgemm-course")
    try:
        loc = locate(path)
        where = loc.log
        rec = dict(attempt)
        rec.setdefault("id", uuid.uuid4().hex)
        good, why = check_record(rec)
        if good is None:
            raise ValueError(f"기록이 올바르지 않습니다 / invalid attempt: {why}")
        loc.folder.mkdir(parents=True, exist_ok=True)
        loc.copies.mkdir(exist_ok=True)
        with FileLock(str(loc.lock), timeout=LOCK_TIMEOUT_S):
            before = read_all(loc)
            msgs += _notices(before, loc)
            known = _ids_in_log(loc.log)
            for old in before.records:       # migrate: old progress.json / lost log lines back into the log
                if old["id"] not in known:
                    _append_line(loc.log, _line(old))
                    known.add(old["id"])
            _append_line(loc.log, _line(good))
        copy = loc.copies / f"{good['time'].replace(':', '')}-{good['id']}.json"
        if not copy.exists():
            atomic_write_json(copy, good)
        n = len({r["id"] for r in before.records} | {good["id"]})
        return Saved(True, loc.log, msgs, n)
    except Timeout:
        msgs.append(f"⚠ 진행 기록이 다른 곳에서 잠겨 있어 저장하지 못했습니다: {where}. 채점 결과는 그대로 유효합니다. "
                    f"잠시 뒤 다시 제출하세요.\n⚠ Progress at {where} is locked by another process; "
                    "not saved. The grading below still stands; submit again in a moment.")
    except Exception as e:      # noqa: BLE001 - a failed save must not lose the graded result
        msgs.append(f"⚠ 진행 기록을 저장하지 못했습니다: {where} ({type(e).__name__}: {e}). 채점 결과는 그대로 유효합니다. "
                    f"환경 변수 {PROGRESS_ENV} 로 쓸 수 있는 폴더를 지정하세요.\n"
                    f"⚠ Could not save progress to {where} ({type(e).__name__}: {e}). The grading below still stands; "
                    f"set {PROGRESS_ENV} to a writable folder.")
    return Saved(False, Path(str(where)), msgs)


def grade_and_save(quiz, answers, student=None, path=None):
    """Grade and record one submission (the widget's 제출 without widgets): (QuizResult, Saved); never raises on saving."""
    from .engine import grade
    result = grade(quiz, answers)
    try:
        saved = save_attempt(make_attempt(result, student), path)
    except CourseInputError as e:        # a bad student id: the grade stands, the message says what to fix
        saved = Saved(False, Path(str(path or "")), [str(e)])
    return result, saved


def _ids_in_log(log):
    r = Read()
    read_file(log, r)
    return set(r.ids)


def _notices(read, loc):
    if not read.problems:
        return []
    shown = "; ".join(read.problems[:3]) + (" …" if len(read.problems) > 3 else "")
    return [f"⚠ 진행 기록에서 읽을 수 없는 항목 {len(read.problems)}개를 건너뛰었습니다 (지우지 않고 그대로 둡니다): {shown}. "
            f"나머지 시도 {len(read.records)}개는 그대로입니다.\n"
            f"⚠ Skipped {len(read.problems)} unreadable entr(ies) in {loc.folder} (left in place); "
            f"the other {len(read.records)} attempt(s) are intact."]


@dataclass
class Loaded:
    """What load() found: the data plus messages for the student."""
    data: dict
    messages: list = field(default_factory=list)


def load(path=None):
    """Read-only view {"schema": 2, "attempts": [...]} plus notices about skipped entries; never raises."""
    try:
        loc = locate(path)
        r = read_all(loc)
        return Loaded({"schema": SCHEMA, "attempts": r.records}, _notices(r, loc))
    except CourseInputError as e:
        return Loaded({"schema": SCHEMA, "attempts": []}, [str(e)])


def attempts(path=None, quiz_id=None):
    """The learner's attempts (optionally of one quiz), oldest first; read-only."""
    items = load(path).data["attempts"]
    return [a for a in items if quiz_id is None or a["quiz"] == quiz_id]
