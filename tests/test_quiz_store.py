"""Progress store: every data-loss case found by trying it, asserted as the number of attempts kept."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from course.quiz import store
from kernels_numba.infra.errors import CourseInputError

ROOT = Path(__file__).resolve().parents[1]


def attempt(student="kim", quiz="06", score=6, time="2026-11-21T05:00:00Z", **kw):
    correct = {f"q{i}": i <= int(score) for i in range(1, 9)}
    rec = {"quiz": quiz, "student": student, "time": time, "answers": {}, "correct": correct,
           "score": score, "total": 8, "pass_at": 6, "passed": int(score) >= 6}
    rec.update(kw)
    return rec


def kept(path):
    """How many attempts the learner gets back."""
    return len(store.attempts(path))


def main_file(pfile):
    """The file that holds the attempts (the log today; progress.json in the old single-file store)."""
    log = pfile.with_suffix(".jsonl")
    return log if log.exists() else pfile


@pytest.fixture
def pfile(tmp_path):
    return tmp_path / "sub" / "progress.json"


def save_n(pfile, n, start=0):
    for i in range(start, start + n):
        s = store.save_attempt(attempt(score=i % 9, time=f"2026-11-21T05:00:{i % 60:02d}Z"), pfile)
        assert s.ok, s.messages


# --- where progress lives ---

def test_locations(monkeypatch, tmp_path):
    monkeypatch.delenv("SGEMM_PROGRESS", raising=False)
    assert store.progress_path().parts[-2:] == (".sgemm-course", "attempts.jsonl")
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "x.json"))
    loc = store.locate()
    assert (loc.legacy, loc.log, loc.copies) == (tmp_path / "x.json", tmp_path / "x.jsonl", tmp_path / "x.d")
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "newdir"))
    assert store.locate().log == tmp_path / "newdir" / "attempts.jsonl"
    monkeypatch.setenv("SGEMM_STUDENT", "lee")
    assert store.student_id() == "lee"
    monkeypatch.delenv("SGEMM_STUDENT")
    monkeypatch.setenv("SGEMM_SHARED_LOGIN", "0")             # a personal login: the login name is the student
    assert store.student_id() == store.login_name()


def test_progress_env_pointing_at_a_folder_uses_it_and_moves_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "my-work"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    monkeypatch.setenv("SGEMM_PROGRESS", str(folder))
    for i in range(3):
        assert store.save_attempt(attempt(score=i)).ok
    assert folder.is_dir() and (folder / "notes.txt").read_text() == "mine"
    assert not [p for p in tmp_path.iterdir() if ".corrupt" in p.name]
    assert kept(None) == 3
    assert kept(folder) == 3


@pytest.mark.parametrize("value, what", [("/dev/null", "장치"), ("{file}/progress.json", "파일입니다"),
                                         ("bad\nname", "제어 문자")])
def test_bad_progress_env_is_a_clear_error(tmp_path, monkeypatch, value, what):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("SGEMM_PROGRESS", value.format(file=blocker))
    with pytest.raises(CourseInputError) as e:
        store.locate()
    assert what in str(e.value) and "SGEMM_PROGRESS" in str(e.value) and "Fix" in str(e.value)
    s = store.save_attempt(attempt())                        # saving says so, never raises
    assert not s.ok and "SGEMM_PROGRESS" in s.messages[-1]
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("value", ["a\nb", "x" * 65, "tab\there"])
def test_bad_student_env_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("SGEMM_STUDENT", value)
    with pytest.raises(CourseInputError) as e:
        store.student_id()
    assert "SGEMM_STUDENT" in str(e.value) and "[Input error]" in str(e.value)


# --- the data-loss cases, count of attempts kept ---

def test_truncated_file_then_save_keeps_every_attempt(pfile):
    save_n(pfile, 5)
    f = main_file(pfile)
    f.write_bytes(f.read_bytes()[:-25])                      # a torn last record
    assert store.save_attempt(attempt(score=8), pfile).ok
    assert kept(pfile) == 6                                  # old store: 5 (latest lost, .bak one save deep)


def test_file_and_backup_both_corrupt_keeps_every_attempt(pfile):
    save_n(pfile, 5)
    f = main_file(pfile)
    f.write_text("{garbage")
    bak = f.with_name(f.name + ".bak")
    if bak.exists():
        bak.write_text("{garbage too")
    r = store.save_attempt(attempt(score=8), pfile)
    assert r.ok and kept(pfile) == 6                         # old store: 1
    assert any("건너뛰" in m for m in r.messages)              # the bad entry is reported, not hidden


def test_one_bad_record_next_to_good_ones_keeps_the_good_ones(pfile):
    pfile.parent.mkdir(parents=True)
    good = [attempt(score=s, time=f"2026-11-20T10:00:0{s}Z") for s in (3, 6, 7)]
    bad = attempt(score=5)
    del bad["score"]
    pfile.write_text(json.dumps({"schema": 1, "attempts": good[:2] + [bad] + good[2:]}), encoding="utf-8")
    assert kept(pfile) == 3                                  # old store: 0 (whole file "corrupt")
    assert store.save_attempt(attempt(score=8), pfile).ok
    assert kept(pfile) == 4                                  # old store: 1
    assert "'score'" in store.load(pfile).messages[0]


def test_bad_line_in_the_log_skips_only_that_line(pfile):
    save_n(pfile, 3)
    log = pfile.with_suffix(".jsonl")
    with open(log, "ab") as f:
        f.write(b'{"quiz": "06", "score": "7", "time": "x"}\n\xff\xfe binary\n')
    save_n(pfile, 2, start=3)
    r = store.load(pfile)
    assert len(r.data["attempts"]) == 5 and "건너뛰" in r.messages[0]


def test_every_copy_corrupt_but_log_fine_keeps_every_attempt(pfile):
    save_n(pfile, 4)
    for c in pfile.with_suffix(".d").iterdir():
        c.write_text("")
    assert kept(pfile) == 4


def test_log_truncated_and_one_copy_corrupt_keeps_every_attempt(pfile):
    save_n(pfile, 4)
    log = pfile.with_suffix(".jsonl")
    log.write_bytes(log.read_bytes()[:-10])                  # last line torn
    first = sorted(pfile.with_suffix(".d").iterdir())[0]     # a different attempt's copy damaged
    first.write_text("{")
    assert kept(pfile) == 4


def test_crash_mid_write_reports_not_saved_and_keeps_old(pfile, monkeypatch):
    save_n(pfile, 2)

    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store, "_append_line", crash)
    monkeypatch.setattr(store, "atomic_write_json", crash)
    s = store.save_attempt(attempt(score=8), pfile)
    monkeypatch.undo()
    assert not s.ok and s.copies == 0
    assert "저장하지 못했습니다" in s.messages[-1] and "Could not save" in s.messages[-1]
    assert kept(pfile) == 2
    assert not [p for p in pfile.parent.rglob("*.tmp")]


@pytest.mark.parametrize("broken", ["_append_line", "atomic_write_json"])
def test_a_save_that_lands_in_one_place_says_which(pfile, monkeypatch, broken):
    save_n(pfile, 2)

    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store, broken, crash)
    s = store.save_attempt(attempt(score=8), pfile)
    monkeypatch.undo()
    assert s.ok and s.copies == 1 and len(s.messages) == 1
    failed, landed = ((pfile.with_suffix(".jsonl"), pfile.with_suffix(".d")) if broken == "_append_line"
                      else (pfile.with_suffix(".d"), pfile.with_suffix(".jsonl")))
    msg = s.messages[0]
    assert "한 곳에만" in msg and "one place only" in msg and "disk full" in msg
    assert f"{landed} 에는 저장했지만 {failed} 에는 쓰지 못했습니다" in msg     # says which, truthfully
    assert kept(pfile) == 3                                  # and it really reads back


def test_copies_folder_that_is_a_file_is_reported(pfile):
    pfile.parent.mkdir(parents=True)
    pfile.with_suffix(".d").write_text("in the way")
    s = store.save_attempt(attempt(), pfile)
    assert s.ok and s.copies == 1 and "progress.d" in s.messages[0]
    assert kept(pfile) == 1 and pfile.with_suffix(".d").read_text() == "in the way"


WRITER = textwrap.dedent("""
    import sys
    from course.quiz import store
    path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        rec = {"quiz": "06", "student": who, "time": "2026-11-21T05:00:00Z", "answers": {"i": i},
               "correct": {f"q{j}": j <= i % 9 for j in range(1, 9)}, "score": i % 9, "total": 8,
               "pass_at": 6, "passed": i % 9 >= 6}
        s = store.save_attempt(rec, path)
        if s.ok:
            print("saved", who, i, flush=True)
""")


def _writer(pfile, who, n):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), SGEMM_DEVICE="sim", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.Popen([sys.executable, "-c", WRITER, str(pfile), who, str(n)], env=env,
                            stdout=subprocess.PIPE, text=True)


def test_two_processes_saving_at_once_keep_all_80(pfile):
    procs = [_writer(pfile, who, 40) for who in ("a", "b")]
    outs = [p.communicate(timeout=240)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(o.count("saved") for o in outs) == 80
    assert kept(pfile) == 80                                 # old store: 43 of 80 (no lock)
    assert len(pfile.with_suffix(".jsonl").read_text().splitlines()) == 80


def test_kernel_killed_mid_save_loses_no_reported_attempt(pfile):
    p = _writer(pfile, "k", 100000)
    reported = 0
    deadline = time.time() + 60
    while reported < 15 and time.time() < deadline:
        line = p.stdout.readline()
        reported += line.startswith("saved")
    os.kill(p.pid, signal.SIGKILL)
    rest = p.stdout.read()
    p.wait()
    reported += rest.count("saved")
    assert reported >= 15
    assert kept(pfile) >= reported                           # every attempt reported saved is there
    assert store.save_attempt(attempt(), pfile).ok           # the lock of the killed process is not stuck


def test_old_progress_json_is_migrated_and_never_lost(pfile):
    pfile.parent.mkdir(parents=True)
    old = {"schema": 1, "attempts": [attempt(score=s, time=f"2026-11-19T10:00:0{s}Z") for s in (2, 5, 7)]}
    pfile.write_text(json.dumps(old), encoding="utf-8")
    before = pfile.read_bytes()
    assert kept(pfile) == 3
    assert store.save_attempt(attempt(score=8), pfile).ok
    assert store.save_attempt(attempt(score=4), pfile).ok
    assert kept(pfile) == 5 and pfile.read_bytes() == before          # read, copied into the log, untouched
    assert len(pfile.with_suffix(".jsonl").read_text().splitlines()) == 5
    pfile.unlink()                                                     # even without the old file now
    assert kept(pfile) == 5


def test_saved_attempts_carry_unique_ids(pfile):
    save_n(pfile, 5)
    ids = [a["id"] for a in store.attempts(pfile)]
    assert len(set(ids)) == 5


@pytest.mark.parametrize("bad", [dict(score="7", time="x"), dict(score=9), dict(passed="yes"),
                                 dict(correct=["q1"]), dict(quiz=6), dict(student=""),
                                 dict(time="2026-13-45T99:00:00Z"), dict(score=7, passed=False)])
def test_check_record_rejects(bad):
    assert store.check_record(attempt(**bad))[0] is None


def test_check_record_accepts_and_adds_id():
    rec, why = store.check_record(attempt())
    assert why is None and rec["id"].startswith("legacy-")
    assert store.check_record(attempt())[0]["id"] == rec["id"]         # deterministic for the same attempt


def test_bad_student_env_still_grades_and_says_what_to_fix(tmp_path, monkeypatch):
    from course.quiz import submit
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "p"))
    monkeypatch.setenv("SGEMM_STUDENT", "x" * 100)
    result, saved = submit("06", {"q1": "32"})
    assert result.score == 1 and not saved.ok
    assert "SGEMM_STUDENT" in saved.messages[0] and "해결" in saved.messages[0] and "Fix" in saved.messages[0]
    assert kept(tmp_path / "p") == 0
    monkeypatch.setenv("SGEMM_STUDENT", "kim01")
    assert submit("06", {"q1": "32"})[1].ok and kept(tmp_path / "p") == 1


# --- what the progress path may name ---

@pytest.mark.parametrize("name, content", [("notes.txt", "my notes\n"), ("06_shared_memory_tiling.ipynb", None),
                                           ("empty-file", "")])
def test_progress_path_naming_a_file_that_is_not_ours_is_refused(tmp_path, monkeypatch, name, content):
    f = tmp_path / name
    if content is None:
        content = (ROOT / "notebooks" / "06_shared_memory_tiling.ipynb").read_text(encoding="utf-8")
    f.write_text(content, encoding="utf-8")
    with pytest.raises(CourseInputError) as e:
        store.locate(f)
    msg = str(e.value)
    assert "진행 기록이 아님" in msg and "not a progress log" in msg and "left untouched" in msg and "Fix" in msg
    monkeypatch.setenv("SGEMM_PROGRESS", str(f))
    s = store.save_attempt(attempt())                        # the save says so; the file is not touched
    assert not s.ok and "진행 기록이 아님" in s.messages[-1]
    assert f.read_text(encoding="utf-8") == content and not list(tmp_path.glob(name + ".*"))


def test_an_existing_log_of_ours_without_suffix_is_still_used(tmp_path):
    f = tmp_path / "my-progress"
    f.write_text(json.dumps(attempt(score=3)) + "\n", encoding="utf-8")
    assert store.locate(f).log == f
    assert store.save_attempt(attempt(score=7), f).ok and kept(f) == 2


def test_symlink_loop_and_dangling_link_are_named(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(CourseInputError) as e:
        store.locate(a)
    assert "순환" in str(e.value) and "symbolic link loop" in str(e.value)
    s = store.save_attempt(attempt(), a)
    assert not s.ok and "symbolic link loop" in s.messages[-1] and "File exists" not in s.messages[-1]
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(CourseInputError, match="symbolic link to nothing"):
        store.locate(dangling)


# --- reading: BOM, a log over 32 MiB ---

def test_old_progress_json_with_a_bom_reads_its_attempts(pfile):
    pfile.parent.mkdir(parents=True)
    old = {"schema": 1, "attempts": [attempt(score=s, time=f"2026-11-19T10:00:0{s}Z") for s in (2, 5, 7)]}
    pfile.write_bytes(b"\xef\xbb\xbf" + json.dumps(old, ensure_ascii=False).encode("utf-8"))
    assert kept(pfile) == 3                                  # before: 0 (the BOM made it "not JSON")
    log = pfile.with_suffix(".jsonl")
    log.write_bytes(b"\xef\xbb\xbf" + json.dumps(attempt(score=1)).encode() + b"\n")
    assert kept(pfile) == 4 and store.load(pfile).messages == []


def test_a_log_over_32_mib_stays_readable_and_saves_append_one_line(tmp_path):
    folder = tmp_path / "big"
    folder.mkdir()
    log = folder / "attempts.jsonl"
    pad = "x" * (200 * 1024)
    n = store.MAX_FILE_BYTES // len(pad) + 8
    with open(log, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps(attempt(score=i % 9, answers={"pad": pad}, id=f"big{i}")) + "\n")
    assert log.stat().st_size > store.MAX_FILE_BYTES
    r = store.load(folder)
    assert len(r.data["attempts"]) == n and r.messages == []          # before: 0 and "too large"
    lines_before = log.read_bytes().count(b"\n")
    s = store.save_attempt(attempt(score=8), folder)
    assert s.ok and s.messages == []
    assert log.read_bytes().count(b"\n") == lines_before + 1           # the history is not appended again
    assert kept(folder) == n + 1


def test_a_log_too_large_to_read_is_not_copied_again(tmp_path, monkeypatch):
    folder = tmp_path / "p"
    for i in range(3):
        assert store.save_attempt(attempt(score=i), folder).ok
    monkeypatch.setattr(store, "MAX_LOG_BYTES", 10)                   # the log now counts as unreadable
    monkeypatch.setattr(store, "MAX_FILE_BYTES", 5)
    before = (folder / "attempts.jsonl").read_bytes().count(b"\n")
    s = store.save_attempt(attempt(score=8), folder)
    assert s.ok and "too large" in s.messages[0]
    assert (folder / "attempts.jsonl").read_bytes().count(b"\n") == before + 1


def test_stream_lines_skips_an_overlong_line_without_keeping_it(tmp_path, monkeypatch):
    import io
    monkeypatch.setattr(store, "CHUNK_BYTES", 7)
    data = b"ab\n" + b"y" * (store.MAX_LINE_BYTES + 50) + b"\ncd\nef"
    assert list(store._stream_lines(io.BytesIO(data))) == [(1, b"ab"), (2, None), (3, b"cd"), (4, b"ef")]


# --- exercise results ---

def test_save_exercise_records_and_reads_back(tmp_path):
    import numpy as np
    p = tmp_path / "p"
    s = store.save_exercise("06-2", False, "race", student="kim", path=p)
    assert s.ok and s.attempts == 1 and s.copies == 2
    assert store.save_exercise("06-2", np.bool_(True), "pass", student="kim", path=p).attempts == 2
    assert store.save_exercise("07-1", True, "pass", student="kim", path=p).attempts == 1
    recs = sorted(store.exercises(p), key=lambda r: (r["exercise"], r["ok"]))      # same second: order by content
    assert [(r["kind"], r["exercise"], r["ok"], r["diagnosis"], r["student"]) for r in recs] == [
        ("exercise", "06-2", False, "race", "kim"), ("exercise", "06-2", True, "pass", "kim"),
        ("exercise", "07-1", True, "pass", "kim")]
    assert store.TIME_RE.match(recs[0]["time"]) and len({r["id"] for r in recs}) == 3
    assert store.attempts(p) == [] and store.exercises(p, "07-1")[0]["ok"] is True
    assert store.save_attempt(attempt(), p).attempts == 1               # exercises are not checkpoint attempts


@pytest.mark.parametrize("args", [("6-2", True, "pass"), ("06-2", "yes", "pass"), ("06-2", True, "a\nb"),
                                  ("06-2", True, "x" * 300), ("06_2", True, "pass")])
def test_save_exercise_never_raises_on_bad_input(tmp_path, args):
    s = store.save_exercise(*args, student="kim", path=tmp_path / "p")
    assert not s.ok and isinstance(s, store.Saved) and "저장하지 못했습니다" in s.messages[-1]
    assert store.exercises(tmp_path / "p") == []


def test_save_exercise_unwritable_or_no_student_never_raises(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    s = store.save_exercise("06-1", True, "pass", student="kim", path=blocker / "p")
    assert not s.ok and "Could not save" in s.messages[-1]
    monkeypatch.setenv("SGEMM_STUDENT", "a\nb")
    s = store.save_exercise("06-1", True, "pass", path=tmp_path / "q")
    assert not s.ok and "SGEMM_STUDENT" in s.messages[-1]


def test_exercise_on_a_shared_login_before_any_id_is_kept_under_the_login(tmp_path, monkeypatch):
    monkeypatch.delenv("SGEMM_STUDENT", raising=False)
    monkeypatch.delenv("SGEMM_SHARED_LOGIN", raising=False)
    monkeypatch.setattr(store, "login_name", lambda: "jovyan")
    p = tmp_path / "q"
    s = store.save_exercise("06-1", True, "pass", path=p)
    assert s.ok and "No student ID yet" in s.messages[-1]
    assert store.remember_student("2026123", p)
    s = store.save_exercise("06-2", False, "race", path=p)
    assert s.ok and s.messages == []
    assert [e["student"] for e in store.exercises(p)] == ["jovyan", "2026123"]


@pytest.mark.parametrize("bad", [dict(exercise="6-1"), dict(ok=1), dict(diagnosis=None), dict(kind="grade"),
                                 dict(time="yesterday"), dict(student="")])
def test_exercise_records_are_checked_on_read(tmp_path, bad):
    rec = dict({"kind": "exercise", "exercise": "06-1", "ok": True, "diagnosis": "pass", "student": "kim",
                "time": "2026-11-21T05:00:00Z"}, **bad)
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "attempts.jsonl").write_text(json.dumps(rec) + "\n")
    r = store.load(folder)
    assert r.data["exercises"] == [] and "건너뛰" in r.messages[0]


# --- counts per checkpoint, shared logins ---

def test_attempt_count_is_per_checkpoint(tmp_path):
    p = tmp_path / "p"
    assert store.save_attempt(attempt(quiz="06", score=3), p).attempts == 1
    assert store.save_attempt(attempt(quiz="06", score=4), p).attempts == 2
    assert store.save_attempt(attempt(quiz="07", score=4), p).attempts == 1        # before: 3
    assert store.save_attempt(attempt(quiz="06", score=4, student="lee"), p).attempts == 1


@pytest.fixture
def shared(tmp_path, monkeypatch):
    monkeypatch.delenv("SGEMM_STUDENT", raising=False)
    monkeypatch.delenv("SGEMM_SHARED_LOGIN", raising=False)
    monkeypatch.setattr(store, "login_name", lambda: "jovyan")
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "p"))
    return tmp_path / "p"


def test_shared_login_asks_once_for_a_student_id_and_reuses_it(shared):
    from course.quiz import submit
    r, s = submit("06", {"q1": "32"})
    assert r.score == 1 and not s.ok                          # graded, not saved without an ID
    assert "학생 ID" in s.messages[-1] and "student ID" in s.messages[-1] and "jovyan" in s.messages[-1]
    assert kept(shared) == 0
    r, s = submit("06", {"q1": "32"}, student="2026123")
    assert s.ok and json.loads((shared / "student.json").read_text())["student"] == "2026123"
    r, s = submit("06", {"q1": "16"})                       # asked once: the remembered ID is used
    assert s.ok and [a["student"] for a in store.attempts()] == ["2026123", "2026123"]
    assert store.student_id() == "2026123"


@pytest.mark.parametrize("login, flag, asks", [("root", None, True), ("jovyan", "0", False), ("kim", "1", True),
                                               ("kim", None, False)])
def test_which_logins_are_shared(shared, monkeypatch, login, flag, asks):
    monkeypatch.setattr(store, "login_name", lambda: login)
    if flag is not None:
        monkeypatch.setenv("SGEMM_SHARED_LOGIN", flag)
    if asks:
        with pytest.raises(CourseInputError, match="shared by several students"):
            store.student_id()
    else:
        assert store.student_id() == login


def test_shared_login_flag_in_class_json_and_bad_values(shared, monkeypatch):
    monkeypatch.setattr(store, "login_name", lambda: "kim")
    shared.mkdir()
    (shared / "class.json").write_text('{"shared_login": true, "reveal_after": 3}')
    assert store.class_settings() == store.Settings(3, True, str(shared / "class.json"))
    assert store.shared_login()
    monkeypatch.setenv("SGEMM_REVEAL_AFTER", "zero")
    with pytest.raises(CourseInputError) as e:
        store.class_settings()
    assert "SGEMM_REVEAL_AFTER" in str(e.value) and "integer >= 1" in str(e.value) and "해결" in str(e.value)
    monkeypatch.delenv("SGEMM_REVEAL_AFTER")
    (shared / "class.json").write_text("{not json")
    with pytest.raises(CourseInputError, match="class.json"):
        store.class_settings()


def test_default_progress_folder_that_is_a_link_loop_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("SGEMM_PROGRESS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".sgemm-course").symlink_to(tmp_path / ".sgemm-course")
    with pytest.raises(CourseInputError) as e:
        store.locate()
    assert "symbolic link loop" in str(e.value) and "SGEMM_PROGRESS" in str(e.value)
    s = store.save_attempt(attempt())
    assert not s.ok and "순환" in s.messages[-1]


def test_class_config_file_from_the_environment(shared, tmp_path, monkeypatch):
    cfg = tmp_path / "class-wide.json"
    cfg.write_text('{"reveal_after": 2, "shared_login": false}', encoding="utf-8")
    monkeypatch.setenv("SGEMM_CLASS_CONFIG", str(cfg))
    shared.mkdir()
    (shared / "class.json").write_text('{"reveal_after": 9}')        # the class-wide file comes first
    assert store.class_settings().reveal_after == 2 and not store.shared_login()
    monkeypatch.setenv("SGEMM_REVEAL_AFTER", "4")                      # the environment comes before both
    assert store.class_settings().reveal_after == 4
    monkeypatch.setenv("SGEMM_CLASS_CONFIG", str(tmp_path / "missing.json"))
    with pytest.raises(CourseInputError, match="SGEMM_CLASS_CONFIG"):
        store.class_settings()
