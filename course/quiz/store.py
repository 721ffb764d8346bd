"""Local progress file: attempts appended with atomic writes, a .bak copy, corrupt files moved aside."""
import getpass
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PROGRESS_ENV = "SGEMM_PROGRESS"
STUDENT_ENV = "SGEMM_STUDENT"
SCHEMA = 1
ATTEMPT_KEYS = ("quiz", "student", "time", "answers", "correct", "score", "passed")


def progress_path():
    """$SGEMM_PROGRESS, else ~/.sgemm-course/progress.json."""
    env = os.environ.get(PROGRESS_ENV)
    return Path(env).expanduser() if env else Path.home() / ".sgemm-course" / "progress.json"


def student_id():
    """$SGEMM_STUDENT, else the login name."""
    env = os.environ.get(STUDENT_ENV, "").strip()
    if env:
        return env
    try:
        return getpass.getuser()
    except Exception:       # noqa: BLE001 - no login name in some containers
        return "student"


def utc_now():
    """UTC timestamp like 2026-11-21T05:31:07Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def make_attempt(result, student=None):
    """An attempt record from an engine.QuizResult."""
    return {"quiz": result.quiz_id, "student": student or student_id(), "time": utc_now(),
            "answers": result.answers, "correct": result.correct_map(), "score": result.score,
            "total": result.total, "pass_at": result.pass_at, "passed": result.passed}


def valid(data):
    """True when `data` has the progress schema: {"schema": 1, "attempts": [attempt, ...]}."""
    return (isinstance(data, dict) and isinstance(data.get("attempts"), list)
            and all(isinstance(a, dict) and all(k in a for k in ATTEMPT_KEYS) for a in data["attempts"]))


def read_json(path):
    """(data, None) when `path` holds a valid progress file, else (None, reason)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return None, f"{type(e).__name__}: {e}"
    return (data, None) if valid(data) else (None, "진행 기록 형식이 아닙니다 / wrong schema")


@dataclass
class Loaded:
    """What load() found: the data plus messages for the student."""
    data: dict
    messages: list = field(default_factory=list)


def _move_aside(path):
    """Rename a corrupt file to <file>.corrupt-<timestamp> (never delete); return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    dest, n = path.with_name(f"{path.name}.corrupt-{stamp}"), 1
    while dest.exists():
        dest, n = path.with_name(f"{path.name}.corrupt-{stamp}-{n}"), n + 1
    os.replace(path, dest)
    return dest


def load(path=None):
    """Read the progress file; a corrupt one is moved aside and earlier attempts come back from .bak."""
    path = Path(path or progress_path())
    if not path.exists():
        return Loaded({"schema": SCHEMA, "attempts": []})
    data, why = read_json(path)
    if data is not None:
        return Loaded(data)
    try:
        dest = _move_aside(path)
        where = f"손상된 파일은 {dest} 로 옮겨 두었습니다 / the corrupt copy is at {dest}"
    except OSError as e:
        where = f"손상된 파일을 옮기지 못했습니다 / could not move it aside ({e})"
    bak, _ = read_json(path.with_name(path.name + ".bak"))
    if bak is not None:
        rec = (f"이전 백업(.bak)에서 시도 {len(bak['attempts'])}개를 복구했습니다 / "
               f"recovered {len(bak['attempts'])} attempt(s) from {path.name}.bak")
        try:                 # put the recovered attempts back in place so the next save builds on them
            atomic_write_json(path, bak)
        except OSError as e:
            rec += f" (다시 쓰지는 못했습니다 / could not restore the file: {e})"
    else:
        bak, rec = {"schema": SCHEMA, "attempts": []}, "복구할 백업이 없어 새 기록으로 시작합니다 / no valid backup: starting fresh"
    return Loaded(bak, [f"⚠ 진행 기록 파일이 손상되어 있었습니다 ({why}). {where}. {rec}.\n"
                        f"⚠ The progress file {path} was corrupt ({why}); {rec}."])


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
    try:                     # make the rename itself durable (POSIX; harmless to skip elsewhere)
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


@dataclass
class Saved:
    """Outcome of save_attempt: ok, where, and messages (Korean + English) for the student."""
    ok: bool
    path: Path
    messages: list = field(default_factory=list)
    attempts: int = 0


def save_attempt(attempt, path=None):
    """Append one attempt; keep the previous good file as <file>.bak. Never raises."""
    path = Path(path or progress_path())
    msgs = []
    try:
        loaded = load(path)
        msgs += loaded.messages
        data = loaded.data
        path.parent.mkdir(parents=True, exist_ok=True)
        if data["attempts"]:
            atomic_write_json(path.with_name(path.name + ".bak"), data)
        new = {"schema": SCHEMA, "attempts": data["attempts"] + [attempt]}
        atomic_write_json(path, new)
        return Saved(True, path, msgs, len(new["attempts"]))
    except Exception as e:      # noqa: BLE001 - a failed save must not lose the graded result
        msgs.append(f"⚠ 진행 기록을 저장하지 못했습니다: {path} ({type(e).__name__}: {e}). 채점 결과는 그대로 유효합니다. "
                    f"환경 변수 {PROGRESS_ENV} 로 쓸 수 있는 파일 경로를 지정하세요.\n"
                    f"⚠ Could not save progress to {path} ({type(e).__name__}: {e}). The grading below still stands; "
                    f"set {PROGRESS_ENV} to a writable file path.")
        return Saved(False, path, msgs)


def attempts(path=None, quiz_id=None):
    """The attempts in the progress file (optionally of one quiz); read-only, no repair."""
    data, _ = read_json(Path(path or progress_path()))
    items = data["attempts"] if data else []
    return [a for a in items if quiz_id is None or a["quiz"] == quiz_id]
