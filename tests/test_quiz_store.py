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
    assert store.student_id()


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
    s = store.save_attempt(attempt(score=8), pfile)
    monkeypatch.undo()
    assert not s.ok and "저장하지 못했습니다" in s.messages[-1] and "Could not save" in s.messages[-1]
    assert kept(pfile) == 2
    assert not [p for p in pfile.parent.rglob("*.tmp")]


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
