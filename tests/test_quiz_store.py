"""Progress file (atomic writes, .bak, corrupt files moved aside) and the instructor class report."""
import csv
import json
import os

import pytest

from course.quiz import report, store


def attempt(student="kim", quiz="06", score=6, passed=True, time="2026-11-21T05:00:00Z", correct=None):
    correct = correct or {f"q{i}": i <= score for i in range(1, 9)}
    return {"quiz": quiz, "student": student, "time": time, "answers": {}, "correct": correct,
            "score": score, "total": 8, "pass_at": 6, "passed": passed}


@pytest.fixture
def pfile(tmp_path):
    return tmp_path / "sub" / "progress.json"


def test_locations(monkeypatch, tmp_path):
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "x.json"))
    assert store.progress_path() == tmp_path / "x.json"
    monkeypatch.delenv("SGEMM_PROGRESS")
    assert store.progress_path().parts[-2:] == (".sgemm-course", "progress.json")
    monkeypatch.setenv("SGEMM_STUDENT", "lee")
    assert store.student_id() == "lee"
    monkeypatch.delenv("SGEMM_STUDENT")
    assert store.student_id()


def test_save_appends_and_keeps_bak(pfile):
    for i in range(20):
        s = store.save_attempt(attempt(score=i % 9), pfile)
        assert s.ok and s.attempts == i + 1 and not s.messages
    data = json.loads(pfile.read_text(encoding="utf-8"))
    assert [a["score"] for a in data["attempts"]] == [i % 9 for i in range(20)]
    bak = json.loads(pfile.with_name("progress.json.bak").read_text(encoding="utf-8"))
    assert len(bak["attempts"]) == 19                 # the previous good version
    assert not [p for p in pfile.parent.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize("exc", [OSError("disk full"), RuntimeError("kernel killed")])
def test_crash_mid_write_keeps_old_file(pfile, monkeypatch, exc):
    store.save_attempt(attempt(score=3), pfile)
    store.save_attempt(attempt(score=4), pfile)
    before = pfile.read_bytes()

    def crash(src, dst):
        raise exc

    monkeypatch.setattr(os, "replace", crash)
    s = store.save_attempt(attempt(score=8), pfile)
    monkeypatch.undo()
    assert not s.ok and "저장하지 못했습니다" in s.messages[-1] and "Could not save" in s.messages[-1]
    assert pfile.read_bytes() == before
    assert [a["score"] for a in store.load(pfile).data["attempts"]] == [3, 4]
    assert not [p for p in pfile.parent.iterdir() if p.suffix == ".tmp"]


def test_atomic_write_leaves_target_untouched_on_failure(pfile, monkeypatch):
    pfile.parent.mkdir(parents=True)
    pfile.write_text('{"old": 1}')
    monkeypatch.setattr(os, "replace", lambda a, b: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        store.atomic_write_json(pfile, {"new": 2})
    assert pfile.read_text() == '{"old": 1}'


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2, 3]", '{"attempts": [{"quiz": "06"}]}', ""])
def test_corrupt_file_moved_aside_and_recovered_from_bak(pfile, garbage):
    store.save_attempt(attempt(score=5), pfile)
    store.save_attempt(attempt(score=7), pfile)       # .bak now holds [5]
    pfile.write_text(garbage, encoding="utf-8")
    loaded = store.load(pfile)
    aside = [p for p in pfile.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == garbage    # kept, never deleted
    assert [a["score"] for a in loaded.data["attempts"]] == [5]
    assert [a["score"] for a in store.load(pfile).data["attempts"]] == [5]      # restored in place
    msg = loaded.messages[0]
    assert "손상" in msg and "corrupt" in msg and str(aside[0]) in msg and ".bak" in msg
    s = store.save_attempt(attempt(score=8), pfile)
    assert s.ok and [a["score"] for a in store.load(pfile).data["attempts"]] == [5, 8]


def test_corrupt_without_bak_starts_fresh(pfile):
    pfile.parent.mkdir(parents=True)
    pfile.write_text("\x00\x01garbage")
    s = store.save_attempt(attempt(), pfile)
    assert s.ok and s.attempts == 1 and "손상" in s.messages[0]
    assert len([p for p in pfile.parent.iterdir() if ".corrupt-" in p.name]) == 1


def test_corrupt_twice_keeps_both_copies(pfile):
    store.save_attempt(attempt(), pfile)
    for text in ("bad1", "bad2"):
        pfile.write_text(text)
        store.load(pfile)
    aside = sorted(p.read_text() for p in pfile.parent.iterdir() if ".corrupt-" in p.name)
    assert aside == ["bad1", "bad2"]


def test_unwritable_location(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("I am a file, not a folder")
    s = store.save_attempt(attempt(), blocker / "progress.json")
    assert not s.ok and "SGEMM_PROGRESS" in s.messages[-1]
    assert blocker.read_text() == "I am a file, not a folder"


# --- instructor report ---

@pytest.fixture
def classdir(tmp_path):
    d = tmp_path / "class"
    (d / "kim").mkdir(parents=True)
    store.save_attempt(attempt("kim", score=4, passed=False, time="2026-11-20T10:00:00Z",
                               correct={f"q{i}": i <= 4 for i in range(1, 9)}), d / "kim" / "progress.json")
    store.save_attempt(attempt("kim", score=7, passed=True, time="2026-11-21T09:00:00Z",
                               correct={f"q{i}": i != 5 for i in range(1, 9)}), d / "kim" / "progress.json")
    store.save_attempt(attempt("lee", score=5, passed=False, time="2026-11-21T08:00:00Z",
                               correct={f"q{i}": i <= 5 for i in range(1, 9)}), d / "lee.json")
    (d / "broken.json").write_text("{oops")
    return d


def test_class_report_rows(classdir):
    problems = []
    rows = report.class_report([classdir], problems)
    assert rows == [
        {"quiz": "06", "student": "kim", "attempts": 2, "best_score": 7, "total": 8, "passed": True,
         "last_time": "2026-11-21T09:00:00Z"},
        {"quiz": "06", "student": "lee", "attempts": 1, "best_score": 5, "total": 8, "passed": False,
         "last_time": "2026-11-21T08:00:00Z"}]
    assert len(problems) == 1 and "broken.json" in problems[0]


def test_quiz_summary_rates(classdir):
    s = report.quiz_summary([classdir])["06"]
    assert (s["students"], s["passed"], s["pass_rate"]) == (2, 1, 0.5)
    assert s["question_rates"]["q1"] == 1.0 and s["question_rates"]["q5"] == 0.5
    assert s["question_rates"]["q6"] == 0.5 and s["question_rates"]["q8"] == 0.5


def test_report_cli(classdir, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert report.main([str(classdir), str(classdir / "lee.json"), str(tmp_path / "missing.json"),
                        "--csv", str(out)]) == 0
    cap = capsys.readouterr()
    assert "kim" in cap.out and "50%" in cap.out and "yes" in cap.out
    assert "broken.json" in cap.err and "missing.json" in cap.err
    with open(out, encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert [(r["student"], r["passed"], r["best_score"]) for r in rows] == [("kim", "yes", "7"), ("lee", "no", "5")]
