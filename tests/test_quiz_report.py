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


# --- who the student is: the folder's account, the typed name beside it, clashes listed ---

def ex(student, exercise, ok, diagnosis, time):
    return {"kind": "exercise", "exercise": exercise, "ok": ok, "diagnosis": diagnosis, "student": student,
            "time": time}


def test_a_record_placed_in_another_students_folder_does_not_pass_that_student(tmp_path):
    d = tmp_path / "class"
    store.save_attempt(attempt("kim", 7, "2026-11-21T09:00:00Z"), d / "kim" / ".sgemm-course")
    store.save_attempt(attempt("lee", 2, "2026-11-21T09:00:00Z"), d / "lee" / ".sgemm-course")
    store.save_attempt(attempt("lee", 8, "2026-11-21T10:00:00Z"), d / "kim" / ".sgemm-course")   # "lee passed"
    records = report.collect([d])
    rows = report.class_report(records=records)
    assert [(r["account"], r["student"], r["best_score"], r["passed"]) for r in rows] == [
        ("kim", "kim, lee", 8, True), ("lee", "lee", 2, False)]            # before: lee passed
    (c,) = report.clashes(records)
    assert (c["account"], c["student"], c["item"]) == ("kim", "lee", "06") and "kim" in c["file"]


def test_a_copied_record_counts_for_its_own_student_once(tmp_path):
    d = tmp_path / "class"
    kim = d / "kim" / ".sgemm-course"
    store.save_attempt(attempt("kim", 8, "2026-11-21T09:00:00Z"), kim)
    shutil.copytree(kim, d / "mallory" / ".sgemm-course")                   # the same attempt (same id) copied
    records = report.collect([d])
    assert [(r["account"], r["passed"]) for r in report.class_report(records=records)] == [("kim", True)]
    assert report.clashes(records) == []
    alone = report.collect([d / "mallory"])                                 # without kim's folder: listed
    assert [r["account"] for r in report.class_report(records=alone)] == ["mallory"]
    assert [(c["account"], c["student"]) for c in report.clashes(alone)] == [("mallory", "kim")]


def test_two_accounts_typing_the_same_name_are_two_students(tmp_path, capsys):
    d = tmp_path / "homes"
    store.save_attempt(attempt("kim", 8, "2026-11-21T09:00:00Z"), d / "alice" / ".sgemm-course")
    store.save_attempt(attempt("kim", 2, "2026-11-21T09:05:00Z"), d / "bob" / ".sgemm-course")
    out = tmp_path / "r"
    assert report.main(["--all-homes", "--homes-glob", str(d / "*" / ".sgemm-course"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "학생 2명" in text and "통과율 pass rate 50%" in text                # before: 1 student, passed
    assert "계정 account 'alice' 의 폴더에 이름 name 'kim'" in text and "'bob'" in text
    with open(out / "results.csv", encoding="utf-8-sig") as f:
        assert [(r["account"], r["student"], r["passed"]) for r in csv.DictReader(f)] == [
            ("alice", "kim", "yes"), ("bob", "kim", "no")]
    with open(out / "clashes.csv", encoding="utf-8-sig") as f:
        assert sorted((r["account"], r["student"]) for r in csv.DictReader(f)) == [("alice", "kim"), ("bob", "kim")]


def test_shared_login_students_are_told_apart_by_their_id(tmp_path, capsys):
    d = tmp_path / "homes"
    store.save_attempt(attempt("s1", 8, "2026-11-21T09:00:00Z"), d / "jovyan" / ".sgemm-course")
    store.save_attempt(attempt("s2", 3, "2026-11-21T09:01:00Z"), d / "jovyan" / ".sgemm-course")
    store.save_attempt(attempt("s3", 7, "2026-11-21T09:02:00Z"), d / "lab" / ".sgemm-course")
    store.save_attempt(attempt("s4", 7, "2026-11-21T09:03:00Z"), d / "lab" / ".sgemm-course")
    records = report.collect([d])
    assert [r["account"] for r in report.class_report(records=records)] == ["jovyan:s1", "jovyan:s2", "lab"]
    assert [c["account"] for c in report.clashes(records)] == ["lab", "lab"]
    rows = report.class_report(records=records, shared=store.SHARED_LOGINS + ("lab",))
    assert [r["account"] for r in rows] == ["jovyan:s1", "jovyan:s2", "lab:s3", "lab:s4"]
    assert report.main([str(d), "--shared", "lab", "--out", str(tmp_path / "r")]) == 0
    assert "학생 4명" in capsys.readouterr().out


def test_account_from_the_file_owner(tmp_path):
    """Read in place (not collected): the owner of the files is the student, whatever the folder is called."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give files to another account")
    import pwd
    nobody = pwd.getpwnam("nobody")
    d = tmp_path / "srv"
    store.save_attempt(attempt("kim", 8, "2026-11-21T09:00:00Z"), d / "whatever")
    for p in [d / "whatever", *(d / "whatever").rglob("*")]:
        os.chown(p, nobody.pw_uid, nobody.pw_gid)
    records = report.collect([d])
    assert {r["_account"] for r in records} == {"nobody"} and report.clashes(records)[0]["student"] == "kim"
    problems = []
    report.collect([d / "whatever"], problems, homes={str(d / "whatever"): "kim"})   # --all-homes: kim's home
    assert any("owned by nobody in kim's home" in p for p in problems)


def test_first_attempt_and_best_per_question(tmp_path, capsys):
    d = tmp_path / "class"
    store.save_attempt(attempt("kim", 3, "2026-11-21T09:00:00Z"), d / "kim")              # missed q4..q8 first
    store.save_attempt(attempt("kim", 8, "2026-11-21T10:00:00Z"), d / "kim")
    store.save_attempt(attempt("lee", 8, "2026-11-21T10:00:00Z"), d / "lee")
    s = report.quiz_summary([d])["06"]
    assert s["question_rates"]["q5"] == 1.0 and s["first_rates"]["q5"] == 0.5      # before: only the 100 %
    assert s["first_rates"]["q1"] == 1.0
    out = tmp_path / "r"
    assert report.main([str(d), "--out", str(out)]) == 0
    assert "q5: 50%→100%" in capsys.readouterr().out
    with open(out / "results.csv", encoding="utf-8-sig") as f:
        assert [(r["account"], r["first_score"], r["best_score"]) for r in csv.DictReader(f)] == [
            ("kim", "3", "8"), ("lee", "8", "8")]
    with open(out / "questions.csv", encoding="utf-8-sig") as f:
        q5 = next(r for r in csv.DictReader(f) if r["question"] == "q5")
    assert (q5["first_rate"], q5["best_rate"]) == ("0.500", "1.000") and q5["section"]


def test_exercise_results_per_student(tmp_path, capsys):
    d = tmp_path / "class"
    for rec in (ex("kim", "06-1", False, "race", "2026-11-21T09:00:00Z"), ex("kim", "06-1", True, "pass",
                "2026-11-21T09:05:00Z"), ex("kim", "06-2", False, "not_implemented", "2026-11-21T09:06:00Z"),
                ex("lee", "06-1", False, "edges_wrong", "2026-11-21T09:07:00Z")):
        assert store._save(rec, d / rec["student"]).ok
    store.save_attempt(attempt("kim", 8, "2026-11-21T10:00:00Z"), d / "kim")
    records = report.collect([d])
    rows = report.exercise_report(records)
    assert [(r["account"], r["exercise"], r["tries"], r["passed"], r["last_diagnosis"]) for r in rows] == [
        ("kim", "06-1", 2, True, "pass"), ("lee", "06-1", 1, False, "edges_wrong"),
        ("kim", "06-2", 1, False, "not_implemented")]
    assert [r["attempts"] for r in report.class_report(records=records)] == [1]        # exercises are not attempts
    out = tmp_path / "r"
    assert report.main([str(d), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "연습 문제 / exercises" in text and "06-1 ✔(2회)  06-2 ✘ not_implemented(1회)" in text
    with open(out / "exercises.csv", encoding="utf-8-sig") as f:
        assert len(list(csv.DictReader(f))) == 3


def test_a_folder_tree_1000_levels_deep_is_read(tmp_path, capsys):
    d = tmp_path / "deep"
    p = str(d)
    os.mkdir(p)
    for _ in range(1000):                         # os.makedirs itself recurses: one level at a time
        p = os.path.join(p, "d")
        os.mkdir(p)
    try:
        store.save_attempt(attempt("kim", 8, "2026-11-21T09:00:00Z"), Path(p) / "kim.jsonl")
        problems = []
        records = report.collect([d], problems)       # before: RecursionError, no output
        assert len(records) == 1 and problems == []
        assert report.main([str(d), "--out", str(tmp_path / "r")]) == 0
        assert "학생 1명" in capsys.readouterr().out
    finally:                                          # shutil.rmtree (pytest's cleanup) recurses too: bottom up
        _remove_deep(d)


def _remove_deep(top):
    for root, dirs, files in list(_walk_bottom_up(str(top))):
        for f in files:
            os.unlink(os.path.join(root, f))
        os.rmdir(root)


def _walk_bottom_up(top):
    order, stack = [], [top]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            entries = list(it)
        dirs = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        order.append((d, dirs, [e.name for e in entries if not e.is_dir(follow_symlinks=False)]))
        stack.extend(dirs)
    return reversed(order)
