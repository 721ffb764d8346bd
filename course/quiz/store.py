"""Progress that never loses an attempt: an append-only JSON-lines log plus one file per attempt.

Every attempt gets an id and is written twice: a line appended to ``attempts.jsonl`` (under a
``filelock`` lock, fsync'ed) and a write-once ``attempts.d/<id>.json`` (temp file, fsync, rename).
Reading takes the union of both, deduplicated by id, so one corrupted or truncated file loses
nothing; a bad line or record is skipped and reported, never the whole file. The old single-file
``progress.json`` (and its ``.bak``) is read as well and copied into the log on the next save; it is
never moved, rewritten or deleted.
"""
import errno
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

from .engine import grade

PROGRESS_ENV = "SGEMM_PROGRESS"
STUDENT_ENV = "SGEMM_STUDENT"
SHARED_ENV = "SGEMM_SHARED_LOGIN"     # instructor flag: 1 = this login is shared (ask for a student ID), 0 = not
REVEAL_ENV = "SGEMM_REVEAL_AFTER"     # instructor setting: show keys after N failed attempts of a checkpoint
CLASS_CONFIG_ENV = "SGEMM_CLASS_CONFIG"
SHARED_LOGINS = ("jovyan", "root")    # Jupyter docker images, Colab: one login, many students
SCHEMA = 2
LOG_NAME, COPIES_NAME, LEGACY_NAME = "attempts.jsonl", "attempts.d", "progress.json"
CLASS_NAME, STUDENT_NAME = "class.json", "student.json"
LOCK_TIMEOUT_S = 30.0
MAX_FILE_BYTES = 32 * 1024 * 1024     # a whole-JSON progress file (old format, one attempt) larger than this is not ours
MAX_LOG_BYTES = 1024 * 1024 * 1024    # a log is read line by line up to this size
MAX_LINE_BYTES = 256 * 1024
CHUNK_BYTES = 1024 * 1024
MAX_STUDENT_CHARS = 64
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
QUIZ_RE = re.compile(r"^\d{2}$")
EXERCISE_RE = re.compile(r"^\d{2}-\d{1,2}$")
KINDS = ("quiz", "exercise")
MAX_DIAGNOSIS_CHARS = 200
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
    An existing file of another kind (notes.txt, a notebook) is refused, never appended to.
    """
    raw = path if path is not None else os.environ.get(PROGRESS_ENV)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        folder = Path.home() / ".sgemm-course"
        problem = _link_problem(folder)
        if problem:
            raise CourseInputError(f"진행 기록 폴더 {folder}: {problem[0]}", f"progress folder {folder}: {problem[1]}",
                                   f"{folder} 링크를 지우거나 고치세요. 또는 {PROGRESS_ENV} 로 쓸 수 있는 폴더를 지정하세요",
                                   f"remove or fix the link {folder}, or set {PROGRESS_ENV} to a writable folder")
        return Location(folder / LOG_NAME, folder / COPIES_NAME, folder / LEGACY_NAME)
    text = str(raw)
    if "\x00" in text or any(ord(ch) < 32 for ch in text):
        raise _bad_progress(raw, "경로에 제어 문자가 있습니다", "the path contains control characters")
    p = Path(text.strip()).expanduser()
    problem = _link_problem(p)
    if problem:
        raise _bad_progress(raw, *problem)
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
    if st is not None:          # an existing file with another name: only a log of ours is used
        if not _looks_like_log(p):
            raise _bad_progress(raw, "이미 있는 다른 파일입니다 (진행 기록이 아님). 건드리지 않고 그대로 둡니다",
                                "it is an existing file that is not a progress log; it is left untouched")
        return Location(p, p.with_name(p.name + ".d"), p.with_name(p.name + ".legacy.json"))
    return Location(p / LOG_NAME, p / COPIES_NAME, p / LEGACY_NAME)


def _link_problem(p):
    """(ko, en) when `p` is a symbolic link loop or a link to nothing, else None."""
    try:
        p.stat()
    except OSError as e:
        if e.errno == errno.ELOOP:
            return ("심볼릭 링크가 돌고 돌아 자기 자신을 가리킵니다 (링크 순환)",
                    "it is a symbolic link loop (the link points back to itself)")
        if p.is_symlink():
            return "가리키는 곳이 없는 심볼릭 링크입니다", "it is a symbolic link to nothing"
    return None


def _looks_like_log(path):
    """True when the first non-blank line of `path` is one of our records (a notebook, notes.txt: False)."""
    try:
        with open(path, "rb") as f:
            head = f.read(MAX_LINE_BYTES)
    except OSError:
        return False
    for line in head.split(b"\n"):
        if line.strip():
            try:
                rec = json.loads(line.decode("utf-8-sig"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                return False
            return isinstance(rec, dict) and ("quiz" in rec or rec.get("kind") in KINDS)
    return False


def progress_path():
    """The attempt log in use ($SGEMM_PROGRESS, else ~/.sgemm-course/attempts.jsonl)."""
    return locate().log


def login_name():
    """The login name of this process ('student' when the container has none)."""
    try:
        return getpass.getuser()
    except Exception:       # noqa: BLE001 - no login name in some containers
        return "student"


@dataclass(frozen=True)
class Settings:
    """Instructor settings: reveal keys after N failed attempts (None: only after a pass); shared login."""
    reveal_after: int = None
    shared_login: bool = None
    source: str = ""


def _bad_setting(name, value, where, ko, en):
    return CourseInputError(
        f"강사 설정 {name}={value!r} ({where}): {ko}", f"instructor setting {name}={value!r} ({where}): {en}",
        f"{name} 를 고치거나 지우세요: {REVEAL_ENV} 는 1 이상의 정수, {SHARED_ENV} 는 1/0 (answers/README.md 참고)",
        f"fix or remove {name}: {REVEAL_ENV} is an integer >= 1, {SHARED_ENV} is 1/0 (see answers/README.md)")


def _setting_value(key, value, where):
    name = {"reveal_after": REVEAL_ENV, "shared_login": SHARED_ENV}[key]
    if key == "reveal_after":
        text = str(value).strip()
        if isinstance(value, bool) or not text.isdigit() or int(text) < 1:
            raise _bad_setting(name, value, where, "1 이상의 정수가 아닙니다", "not an integer >= 1")
        return int(text)
    text = str(value).strip().lower()
    if value is True or text in ("1", "true", "yes", "on"):
        return True
    if value is False or text in ("0", "false", "no", "off"):
        return False
    raise _bad_setting(name, value, where, "1/0 (true/false) 가 아닙니다", "not 1/0 (true/false)")


def class_settings(path=None):
    """Settings from the environment, then $SGEMM_CLASS_CONFIG, then class.json in the progress folder.

    Raises CourseInputError naming the bad value and where it came from.
    """
    found, sources = {}, []
    for key, env in (("reveal_after", REVEAL_ENV), ("shared_login", SHARED_ENV)):
        raw = os.environ.get(env)
        if raw is not None and raw.strip():
            found[key] = _setting_value(key, raw, f"환경 변수 / environment variable {env}")
            sources.append(env)
    files = []
    if os.environ.get(CLASS_CONFIG_ENV, "").strip():
        files.append(Path(os.environ[CLASS_CONFIG_ENV].strip()).expanduser())
    try:
        files.append(locate(path).folder / CLASS_NAME)
    except CourseInputError:
        pass
    for f in files:
        try:
            data = _loads(_read_bytes(f, MAX_LINE_BYTES).decode("utf-8-sig"))
        except FileNotFoundError:
            if f is files[0] and os.environ.get(CLASS_CONFIG_ENV, "").strip():
                raise _bad_setting(CLASS_CONFIG_ENV, str(f), "환경 변수", "파일이 없습니다", "no such file") from None
            continue
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise _bad_setting(CLASS_NAME, str(f), str(f), f"읽을 수 없는 JSON 입니다 ({type(e).__name__})",
                               f"not readable JSON ({type(e).__name__})") from None
        if not isinstance(data, dict):
            raise _bad_setting(CLASS_NAME, str(f), str(f), "JSON 객체가 아닙니다", "not a JSON object")
        for key in ("reveal_after", "shared_login"):
            if key in data and key not in found and data[key] is not None:
                found[key] = _setting_value(key, data[key], str(f))
                sources.append(str(f))
    return Settings(found.get("reveal_after"), found.get("shared_login"), ", ".join(dict.fromkeys(sources)))


def shared_login(settings=None):
    """True when several students may use this login (jovyan, root, or the instructor's flag)."""
    flag = (settings or class_settings()).shared_login
    return flag if flag is not None else login_name() in SHARED_LOGINS


def stored_student(path=None):
    """The student ID remembered in the progress folder (student.json), or None."""
    try:
        f = locate(path).folder / STUDENT_NAME
        data = _loads(_read_bytes(f, MAX_LINE_BYTES).decode("utf-8-sig"))
        return check_student(data["student"]) if isinstance(data, dict) else None
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError, CourseInputError):
        return None


def remember_student(student, path=None):
    """Keep `student` in the progress folder's student.json, unless one is there; True when it is there now."""
    try:
        folder = locate(path).folder
        if stored_student(path) is not None:
            return True
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(folder / STUDENT_NAME, {"student": check_student(student), "time": utc_now()})
        return True
    except (OSError, CourseInputError):
        return False


def ask_student_error(path=None):
    """The message a shared login gets before it has a student ID."""
    login = login_name()
    return CourseInputError(
        f"이 로그인({login})은 여러 학생이 함께 씁니다: 학생 ID 가 없어 기록을 저장하지 않았습니다",
        f"this login ({login}) is shared by several students: no student ID, so the attempt was not saved",
        "체크포인트 위의 '학생 ID' 칸에 학번(예: 2026123)을 쓰고 다시 제출하세요. 처음 한 번만 묻고, "
        f"진행 기록 폴더의 {STUDENT_NAME} 에 기억합니다 ({STUDENT_ENV} 로도 정할 수 있습니다)",
        f"type your student ID (e.g. 2026123) in the 'student ID' box above the checkpoint and submit again; "
        f"asked once, then remembered in {STUDENT_NAME} in the progress folder (or set {STUDENT_ENV})")


def student_id(path=None):
    """$SGEMM_STUDENT (checked), else on a shared login the remembered ID (CourseInputError asking for one), else the login."""
    env = os.environ.get(STUDENT_ENV)
    if env is not None and env.strip():
        return check_student(env, source=f"환경 변수 {STUDENT_ENV}")
    try:
        shared = shared_login(class_settings(path))
    except CourseInputError:
        shared = login_name() in SHARED_LOGINS
    if shared:
        remembered = stored_student(path)
        if remembered is None:
            raise ask_student_error(path)
        return remembered
    return login_name()


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


def make_attempt(result, student=None, path=None):
    """An attempt record (with a fresh id) from an engine.QuizResult."""
    return {"id": uuid.uuid4().hex, "quiz": result.quiz_id,
            "student": check_student(student) if student else student_id(path), "time": utc_now(),
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


def is_exercise(rec):
    """True for an exercise result (kind "exercise"), False for a checkpoint attempt."""
    return rec.get("kind") == "exercise"


def _common(rec, keys):
    """Reason the shared fields (keys present, student, time, id) are bad, or None."""
    for k in keys:
        if k not in rec:
            return f"'{k}' 없음 / missing '{k}'"
    student, t = rec["student"], rec["time"]
    if not (isinstance(student, str) and student.strip() and len(student) <= 200
            and not any(ord(ch) < 32 for ch in student)):
        return f"student {str(student)[:40]!r}: 이름이 아님 / not a usable name"
    if not (isinstance(t, str) and TIME_RE.match(t)):
        return f"time {str(t)[:40]!r}: YYYY-MM-DDTHH:MM:SSZ 형식이 아님 / not a UTC timestamp"
    try:
        time.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return f"time {t!r}: 없는 날짜 / not a real date"
    if "id" in rec and not (isinstance(rec["id"], str) and ID_RE.match(rec["id"])):
        return f"id {str(rec['id'])[:40]!r}: 올바른 id 가 아님 / not a valid id"
    return None


def check_exercise(rec):
    """(record with an id, None) when `rec` is a sound exercise result, else (None, reason)."""
    why = _common(rec, ("kind", "exercise", "ok", "diagnosis", "student", "time"))
    if why:
        return None, why
    ex, ok, diag = rec["exercise"], rec["ok"], rec["diagnosis"]
    if not (isinstance(ex, str) and EXERCISE_RE.match(ex)):
        return None, f"exercise {str(ex)[:40]!r}: '06-2' 같은 연습 문제 번호가 아님 / not an exercise id like '06-2'"
    if not isinstance(ok, bool):
        return None, f"ok {ok!r}: true/false 가 아님 / not a boolean"
    if not (isinstance(diag, str) and len(diag) <= MAX_DIAGNOSIS_CHARS and not any(ord(ch) < 32 for ch in diag)):
        return None, f"diagnosis {str(diag)[:40]!r}: 짧은 진단 코드 문자열이 아님 / not a short diagnosis code"
    out = dict(rec)
    out.setdefault("id", content_id(rec))
    return out, None


def check_record(rec, quiz_info=None):
    """(record with an id, None) when `rec` is a sound attempt or exercise result, else (None, reason).

    Checks types and ranges, that score = number of correct answers and passed = score >= pass_at;
    `quiz_info(quiz_id)` -> (total, pass_at, question ids) or None also checks against the shipped quiz.
    """
    if not isinstance(rec, dict):
        return None, f"기록이 객체가 아닙니다 / record is a {type(rec).__name__}"
    if "kind" in rec and rec["kind"] not in KINDS:
        return None, f"kind {str(rec['kind'])[:40]!r}: quiz/exercise 가 아님 / unknown kind"
    if is_exercise(rec):
        return check_exercise(rec)
    for k in ("quiz", "student", "time", "correct", "score", "passed"):
        if k not in rec:
            return None, f"'{k}' 없음 / missing '{k}'"
    quiz, correct, score = rec["quiz"], rec["correct"], rec["score"]
    if not (isinstance(quiz, str) and QUIZ_RE.match(quiz)):
        return None, f"quiz {quiz!r}: 두 자리 문자열이 아님 / not a two-digit string"
    why = _common(rec, ())
    if why:
        return None, why
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
    unreadable: list = field(default_factory=list)     # files that could not be read at all
    log_ids: set = None                                # ids in the log (read_all); None: the log was unreadable

    def add(self, rec, where, quiz_info=None):
        good, why = check_record(rec, quiz_info)
        if good is None:
            self.problems.append(f"{where}: {why}")
        elif good["id"] not in self.ids:
            self.ids.add(good["id"])
            self.records.append(good)

    @property
    def attempts(self):
        """The checkpoint attempts (no exercise results)."""
        return [r for r in self.records if not is_exercise(r)]

    @property
    def exercises(self):
        """The exercise results."""
        return [r for r in self.records if is_exercise(r)]


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


def _stream_lines(f):
    """(line number, bytes) of a binary file read in chunks; a line over MAX_LINE_BYTES comes as None, unbuffered."""
    n, part, too_long = 0, b"", False
    while True:
        chunk = f.read(CHUNK_BYTES)
        if not chunk:
            break
        pieces = chunk.split(b"\n")
        for piece in pieces[:-1]:
            n += 1
            yield n, None if too_long or len(part) + len(piece) > MAX_LINE_BYTES else part + piece
            part, too_long = b"", False
        if not too_long:
            part += pieces[-1]
            if len(part) > MAX_LINE_BYTES:
                part, too_long = b"", True
    if part or too_long:
        yield n + 1, None if too_long else part


def _add_lines(out, path, lines, quiz_info):
    bad = []
    for n, line in lines:
        where = f"{path}:{n}"
        if line is None:
            bad.append(f"{where}: 줄이 너무 김 / line too long")
            continue
        if not line.strip():
            continue
        try:
            rec = _loads(line.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError) as e:
            bad.append(f"{where}: JSON 이 아님 (잘린 줄?) / not JSON, truncated line? ({type(e).__name__})")
            continue
        out.add(rec, where, quiz_info)
    if len(bad) > 3:                      # a binary or foreign file: a few examples, then the count
        bad = bad[:2] + [f"{path}: 그 밖에 읽을 수 없는 줄 {len(bad) - 2}개 / {len(bad) - 2} more unreadable lines"]
    out.problems += bad


def read_file(path, into=None, quiz_info=None):
    """Read one progress file of any format (log lines, one attempt, or the old {"attempts": [...]}).

    A log larger than MAX_FILE_BYTES is read line by line (up to MAX_LOG_BYTES); a UTF-8 BOM is ignored.
    """
    out = into if into is not None else Read()
    try:
        st = os.stat(path)                   # follows symlinks; a loop raises OSError (ELOOP)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("일반 파일이 아님 / not a regular file")
        if st.st_size > MAX_LOG_BYTES:
            raise ValueError(f"너무 큼 ({st.st_size} 바이트) / too large ({st.st_size} bytes > {MAX_LOG_BYTES})")
        if st.st_size > MAX_FILE_BYTES:      # only a log grows this large: stream it
            with open(path, "rb") as f:
                _add_lines(out, path, _stream_lines(f), quiz_info)
            return out
        raw = _read_bytes(path)
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as e:
        out.problems.append(f"{path}: 읽을 수 없음 / unreadable ({type(e).__name__}: {e})")
        out.unreadable.append(str(path))
        return out
    try:
        whole = _loads(raw.decode("utf-8-sig"))
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
    if isinstance(whole, dict) and ("quiz" in whole or "kind" in whole):   # one record (attempts.d/<id>.json)
        out.add(whole, str(path), quiz_info)
        return out
    _add_lines(out, path, enumerate(raw.split(b"\n"), 1), quiz_info)
    return out


def _copy_files(folder):
    try:
        return sorted(p for p in Path(folder).iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        return []


def read_all(loc=None, quiz_info=None):
    """Every record of one learner: the log, the per-attempt copies and the old files, each once.

    `.log_ids` holds the ids found in the log, None when the log itself could not be read.
    """
    loc = loc if isinstance(loc, Location) else locate(loc)
    out = Read()
    read_file(loc.log, out, quiz_info)
    out.log_ids = None if str(loc.log) in out.unreadable else set(out.ids)
    for f in _copy_files(loc.copies):
        read_file(f, out, quiz_info)
    for f in (loc.legacy, loc.legacy.with_name(loc.legacy.name + ".bak")):
        read_file(f, out, quiz_info)
    out.records.sort(key=lambda r: r["time"])     # stable: within one second, the log's (append) order
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
    """Outcome of a save: ok (on disk at least once), where, messages (Korean + English), and counts.

    attempts: this student's attempts of this checkpoint (or results of this exercise) including this one;
    copies: in how many of the two places (log, attempts.d/) it landed.
    """
    ok: bool
    path: Path
    messages: list = field(default_factory=list)
    attempts: int = 0
    copies: int = 0


def _line(rec):
    return (json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _same(rec, other):
    """Same checkpoint (or exercise) and same student."""
    if is_exercise(rec) != is_exercise(other) or rec["student"] != other["student"]:
        return False
    return rec["exercise"] == other["exercise"] if is_exercise(rec) else rec["quiz"] == other["quiz"]


def _save(rec, path):
    """Record one attempt or exercise result in the log and as its own file; never raises."""
    msgs = []
    where = path if path is not None else os.environ.get(PROGRESS_ENV, "~/.sgemm-course")
    try:
        loc = locate(path)
        where = loc.log
        rec = dict(rec)
        rec.setdefault("id", uuid.uuid4().hex)
        good, why = check_record(rec)
        if good is None:
            return Saved(False, loc.log, msgs + [f"⚠ 진행 기록을 저장하지 못했습니다: 기록이 올바르지 않습니다 ({why}).\n"
                                                 f"⚠ Could not save progress: the record is invalid ({why})."])
        loc.folder.mkdir(parents=True, exist_ok=True)
        failed = {}
        with FileLock(str(loc.lock), timeout=LOCK_TIMEOUT_S):
            before = read_all(loc)
            msgs += _notices(before, loc)
            try:
                known = before.log_ids        # None: the log is unreadable, so its history is not appended again
                for old in before.records if known is not None else ():
                    if old["id"] not in known:        # migrate: old progress.json / lost log lines back into the log
                        _append_line(loc.log, _line(old))
                        known.add(old["id"])
                _append_line(loc.log, _line(good))
            except OSError as e:
                failed[loc.log] = e
        try:
            loc.copies.mkdir(exist_ok=True)
            copy = loc.copies / f"{good['time'].replace(':', '')}-{good['id']}.json"
            if not copy.exists():
                atomic_write_json(copy, good)
        except OSError as e:
            failed[loc.copies] = e
        n = sum(_same(good, r) for r in before.records if r["id"] != good["id"]) + 1
        if len(failed) == 2:
            raise OSError("; ".join(f"{p.name}: {e}" for p, e in failed.items()))
        if failed:
            ((bad, e),) = failed.items()
            landed = loc.copies if bad == loc.log else loc.log
            msgs.append(f"⚠ 한 곳에만 저장했습니다: {landed} 에는 저장했지만 {bad} 에는 쓰지 못했습니다 "
                        f"({type(e).__name__}: {e}). 기록은 남아 있고 다시 읽힙니다. 다음 제출 전에 {bad} 를 확인하세요.\n"
                        f"⚠ Saved in one place only: written to {landed}, but not to {bad} ({type(e).__name__}: {e}). "
                        f"The record is kept and reads back; check {bad} before the next submission.")
        return Saved(True, loc.log, msgs, n, 2 - len(failed))
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


def save_attempt(attempt, path=None):
    """Record one checkpoint attempt durably (log line + its own file). Never raises; see Saved."""
    return _save(attempt, path)


def save_exercise(exercise_id, ok, diagnosis, student=None, path=None):
    """Record one exercise check (e.g. "06-2", passed or not, the checker's diagnosis code) like an attempt.

    Never raises: a bad id, an unknown student or an unwritable folder comes back as Saved(ok=False, messages).
    """
    notes = []
    try:
        if type(ok).__module__ == "numpy" and type(ok).__name__ in ("bool", "bool_"):   # a checker's numpy bool
            ok = bool(ok)
        if student:
            who = check_student(student)
        else:
            try:
                who = student_id(path)
            except CourseInputError:
                if os.environ.get(STUDENT_ENV, "").strip():
                    raise                       # a bad $SGEMM_STUDENT: say what to fix
                who = login_name()              # a shared login before its first checkpoint: keep the result
                notes.append(f"ℹ 학생 ID 가 아직 없어 로그인 이름({who})으로 저장했습니다. 체크포인트에서 학생 ID 를 "
                             f"한 번 쓰면 그다음부터 그 ID 로 저장합니다.\nℹ No student ID yet: saved under the login "
                             f"name {who!r}; once you give your ID at a checkpoint, results are saved under it.")
        rec = {"id": uuid.uuid4().hex, "kind": "exercise", "exercise": str(exercise_id), "ok": ok,
               "diagnosis": "" if diagnosis is None else diagnosis, "student": who, "time": utc_now()}
    except CourseInputError as e:
        return Saved(False, Path(str(path or os.environ.get(PROGRESS_ENV, "~/.sgemm-course"))), [str(e)])
    except Exception as e:      # noqa: BLE001 - an exercise check must never fail on saving
        return Saved(False, Path(str(path or "")), [f"⚠ 연습 결과를 저장하지 못했습니다 / could not save the "
                                                    f"exercise result ({type(e).__name__}: {e})"])
    saved = _save(rec, path)
    if saved.ok:
        saved.messages += notes
    return saved


def grade_and_save(quiz, answers, student=None, path=None):
    """Grade and record one submission (the widget's 제출 without widgets): (QuizResult, Saved); never raises on saving.

    Keys and explanations come back only after a pass (this one or an earlier one of the same student), or after
    the instructor's N failed attempts ($SGEMM_REVEAL_AFTER / class.json); a shared login must give a student ID.
    """
    msgs, settings = [], Settings()
    try:
        settings = class_settings(path)
    except CourseInputError as e:
        msgs.append(str(e))
    who, problem = None, None
    try:
        who = check_student(student) if student else student_id(path)
    except CourseInputError as e:
        problem = e
    mine = [a for a in attempts(path, quiz.id) if a["student"] == who] if who else []
    result = grade(quiz, answers, failed_before=sum(not a["passed"] for a in mine),
                   passed_before=any(a["passed"] for a in mine), reveal_after=settings.reveal_after)
    if problem is not None:          # a bad or missing student id: the grade stands, the message says what to fix
        return result, Saved(False, Path(str(path or "")), msgs + [str(problem)])
    saved = save_attempt(make_attempt(result, who, path), path)
    saved.messages[:0] = msgs
    if saved.ok and student and not os.environ.get(STUDENT_ENV, "").strip():
        try:
            if shared_login(settings):
                remember_student(who, path)
        except CourseInputError:
            pass
    return result, saved


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
    """Read-only view {"schema": 2, "attempts": [...], "exercises": [...]} plus notices about skipped entries; never raises."""
    try:
        loc = locate(path)
        r = read_all(loc)
        return Loaded({"schema": SCHEMA, "attempts": r.attempts, "exercises": r.exercises}, _notices(r, loc))
    except CourseInputError as e:
        return Loaded({"schema": SCHEMA, "attempts": [], "exercises": []}, [str(e)])


def attempts(path=None, quiz_id=None):
    """The learner's checkpoint attempts (optionally of one quiz), oldest first; read-only."""
    items = load(path).data["attempts"]
    return [a for a in items if quiz_id is None or a["quiz"] == quiz_id]


def exercises(path=None, exercise_id=None):
    """The learner's exercise results (optionally of one exercise, e.g. "06-2"), oldest first; read-only."""
    items = load(path).data["exercises"]
    return [a for a in items if exercise_id is None or a["exercise"] == exercise_id]
