"""Instructor report over a folder of good, malformed, duplicate and hostile progress files."""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course.quiz import report, store

ROOT = Path(__file__).resolve().parents[1]


def attempt(student, score, time, wrong=(), **kw):
    """A sound quiz-06 attempt: `score` right answers (the first ones unless `wrong` names the misses)."""
    qs = [f"q{i}" for i in range(1, 9)]
    misses = set(wrong) or set(qs[score:])
    correct = {q: q not in misses for q in qs}
    rec = {"quiz": "06", "student": student, "time": time, "answers": {}, "correct": correct,
           "score": sum(correct.values()), "total": 8, "pass_at": 6, "passed": sum(correct.values()) >= 6}
    rec.update(kw)
    return rec


@pytest.fixture
def classdir(tmp_path):
    d = tmp_path / "class"
    kim, lee = d / "kim" / ".sgemm-course", d / "lee" / ".sgemm-course"
    store.save_attempt(attempt("kim", 4, "2026-11-20T10:00:00Z"), kim)
    store.save_attempt(attempt("kim", 7, "2026-11-21T09:00:00Z", wrong=["q5"]), kim)
    store.save_attempt(attempt("lee", 5, "2026-11-21T08:00:00Z"), lee)
    # an old-format file of a third student, and the same file collected twice
    old = {"schema": 1, "attempts": [attempt("park", 8, "2026-11-19T07:00:00Z")]}
    (d / "park").mkdir()
    (d / "park" / "progress.json").write_text(json.dumps(old), encoding="utf-8")
    (d / "collected-again").mkdir()
    shutil.copy(d / "park" / "progress.json", d / "collected-again" / "park-copy.json")
    shutil.copytree(kim, d / "collected-again" / "kim-copy")
    return d


def hostile(d):
    """Files a report must survive: malformed records, huge, binary, deep JSON, symlink loops, a pipe."""
    h = d / "hostile"
    h.mkdir()
    bad = [dict(attempt("mal", 7, "x"), score="7"),                              # score "7", time "x": accepted before
           dict(attempt("mal", 6, "2026-11-21T01:00:00Z"), correct=["q1", "q2"]),   # crashed the old report
           dict(attempt("mal", 2, "2026-11-21T01:00:01Z"), pass_at=1, passed=True),  # forged pass mark
           dict(attempt("mal", 2, "2026-11-21T01:00:02Z"), quiz="99"),
           dict(attempt("mal", 2, "2026-11-21T01:00:03Z"), score=True),
           ["not", "a", "record"], None, "string"]
    (h / "malformed.json").write_text(json.dumps({"attempts": bad}), encoding="utf-8")
    (h / "lines.jsonl").write_text("\n".join(json.dumps(b) for b in bad) + "\n{torn", encoding="utf-8")
    (h / "attempts-not-list.json").write_text('{"attempts": {"a": 1}}')
    (h / "binary.json").write_bytes(bytes(range(256)) * 64)
    (h / "deep.json").write_text("[" * 200000 + "]" * 200000)
    (h / "deep-line.jsonl").write_text('{"a":' * 50000 + "1" + "}" * 50000 + "\n")
    with open(h / "huge.jsonl", "wb") as f:                                 # sparse: 40 MB on paper
        f.truncate(40 * 1024 * 1024)
    (h / "loop-a.json").symlink_to(h / "loop-b.json")
    (h / "loop-b.json").symlink_to(h / "loop-a.json")
    (h / "dirloop").mkdir()
    (h / "dirloop" / "back").symlink_to(h, target_is_directory=True)
    os.mkfifo(h / "pipe.json")
    (h / "empty.json").write_text("")
    return h


def test_rows_count_each_attempt_once(classdir):
    problems = []
    rows = report.class_report([classdir], problems)
    assert [(r["student"], r["attempts"], r["best_score"], r["passed"]) for r in rows] == [
        ("kim", 2, 7, True), ("lee", 1, 5, False), ("park", 1, 8, True)]
    assert problems == []


def test_summary_rates(classdir):
    s = report.quiz_summary([classdir])["06"]
    assert (s["students"], s["passed"]) == (3, 2) and abs(s["pass_rate"] - 2 / 3) < 1e-9
    assert list(s["question_rates"]) == [f"q{i}" for i in range(1, 9)]
    assert s["question_rates"]["q1"] == 1.0 and abs(s["question_rates"]["q5"] - 2 / 3) < 1e-9
    assert abs(s["question_rates"]["q6"] - 2 / 3) < 1e-9 and abs(s["question_rates"]["q8"] - 2 / 3) < 1e-9


def test_hostile_folder_is_survived_and_listed(classdir):
    h = hostile(classdir)
    problems = []
    rows = report.class_report([classdir, h / "malformed.json", classdir / "missing"], problems)
    assert [(r["student"], r["attempts"]) for r in rows] == [("kim", 2), ("lee", 1), ("park", 1)]
    text = "\n".join(problems)
    for name in ("malformed.json", "lines.jsonl", "binary.json", "deep.json", "deep-line.jsonl", "huge.jsonl",
                 "loop-a.json", "pipe.json", "attempts-not-list.json", "missing"):
        assert name in text, name
    assert "score" in text and "time" in text and "correct" in text and "통과 기준" in text
    assert sum("malformed.json [attempt" in p for p in problems) == 8       # listed once, not twice


def test_cli_writes_csv_rates_plot_and_summary(classdir, tmp_path, capsys):
    hostile(classdir)
    out = tmp_path / "rep"
    assert report.main([str(classdir), "--out", str(out), "--csv", str(tmp_path / "extra.csv")]) == 0
    cap = capsys.readouterr()
    assert "체크포인트 06" in cap.out and "67%" in cap.out and "kim" in cap.out and "건너뛴 항목" in cap.out
    assert "skipped" in cap.err and "malformed.json" in (out / "skipped.txt").read_text(encoding="utf-8")
    with open(out / "results.csv", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert [(r["student"], r["attempts"], r["best_score"], r["passed"]) for r in rows] == [
        ("kim", "2", "7", "yes"), ("lee", "1", "5", "no"), ("park", "1", "8", "yes")]
    with open(out / "pass_rates.csv", encoding="utf-8-sig") as f:
        assert list(csv.DictReader(f)) == [{"quiz": "06", "students": "3", "passed": "2", "pass_rate": "0.667"}]
    png = (out / "questions_06.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert "binary.json" in (out / "skipped.txt").read_text(encoding="utf-8")
    assert (tmp_path / "extra.csv").exists()


def test_all_homes(classdir, tmp_path, capsys):
    (classdir / "mallory").mkdir()
    (classdir / "mallory" / ".sgemm-course").symlink_to(classdir / "kim" / ".sgemm-course")
    (classdir / "kim" / ".sgemm-course" / "link.json").symlink_to(classdir / "park" / "progress.json")
    assert report.main(["--all-homes", "--homes-glob", str(classdir / "*" / ".sgemm-course"),
                        "--out", str(tmp_path / "r")]) == 0
    cap = capsys.readouterr()
    assert "2개" in cap.out and "kim" in cap.out and "lee" in cap.out and "park" not in cap.out
    skipped = (tmp_path / "r" / "skipped.txt").read_text(encoding="utf-8")
    assert "mallory" in skipped and "link.json" in skipped and "symlink" in skipped


def test_no_paths_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        report.main([])
    assert e.value.code == 2


def test_csv_cells_are_not_formulas(tmp_path):
    d = tmp_path / "evil"
    store.save_attempt(attempt("=HYPERLINK(1)", 8, "2026-11-21T01:00:00Z"), d)
    report.write_csv(report.class_report([d]), tmp_path / "e.csv")
    assert "'=HYPERLINK" in (tmp_path / "e.csv").read_text(encoding="utf-8-sig")


def test_unreadable_file_is_skipped(classdir, tmp_path):
    """chmod 000; as root (who reads anything) the CLI runs without CAP_DAC_OVERRIDE via setpriv."""
    secret = classdir / "secret.json"
    secret.write_text(json.dumps({"attempts": [attempt("sec", 8, "2026-11-21T01:00:00Z")]}))
    secret.chmod(0)
    cmd = [sys.executable, "-m", "course.quiz.report", str(classdir), "--out", str(tmp_path / "out")]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root without setpriv (util-linux): cannot make a file unreadable for the test")
        cmd = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps=-all", "--"] + cmd
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), SGEMM_DEVICE="sim", PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "secret.json" in r.stderr and "PermissionError" in r.stderr
    assert "kim" in r.stdout and "sec " not in r.stdout
