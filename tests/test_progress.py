"""Learner side: the prerequisite banner of course.setup(module) and course.progress()."""
import pytest

import course
from course.quiz import progress, store


def attempt(quiz, score, time="2026-11-21T05:00:00Z"):
    from course.quiz.engine import load_quiz
    q = load_quiz(quiz)
    qids = [x.id for x in q.questions]
    correct = {x: i < score for i, x in enumerate(qids)}
    return {"quiz": quiz, "student": "kim", "time": time, "answers": {}, "correct": correct, "score": score,
            "total": q.total, "pass_at": q.pass_at, "passed": score >= q.pass_at}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "prog"))
    monkeypatch.delenv("SGEMM_STUDENT", raising=False)
    return tmp_path / "prog"


def test_first_module_has_no_prerequisite(home, capsys):
    assert progress.banner("06") == ""
    course.setup("06")
    assert "체크포인트" not in capsys.readouterr().out


def test_banner_when_previous_not_passed(home, capsys):
    text = progress.banner("07")
    assert "06" in text and "통과하지 않았습니다" in text and "06_shared_memory_tiling.ipynb" in text
    assert "아직 시도 기록이 없습니다" in text and "막지 않습니다" in text
    store.save_attempt(attempt("06", 3), home)
    text = progress.banner("07")
    assert "1번 시도" in text and "3/8" in text
    course.setup("07")                                  # printed, and setup still returns the device info
    assert "통과하지 않았습니다" in capsys.readouterr().out


def test_no_banner_once_passed(home):
    store.save_attempt(attempt("06", 3), home)
    store.save_attempt(attempt("06", 7, "2026-11-21T06:00:00Z"), home)
    assert progress.banner("07") == ""
    assert "07" in progress.banner("08") and "07_" in progress.banner("08")


@pytest.mark.parametrize("module, prev", [(7, "06"), ("8", "07"), ("09", "08"), ("10_tensor_core", "09")])
def test_module_names(home, module, prev):
    assert f"모듈 {prev}" in progress.banner(module)


def test_broken_progress_gives_a_notice_never_an_error(home, tmp_path, monkeypatch, capsys):
    home.mkdir()
    (home / "attempts.jsonl").write_bytes(b"\xff\xfe{{{\n")
    text = progress.banner("07")
    assert "건너뛰었습니다" in text and "통과하지 않았습니다" in text
    monkeypatch.setenv("SGEMM_PROGRESS", "/dev/null")        # not a file or folder: notice, no exception
    info = course.setup("08")
    assert info is not None and "SGEMM_PROGRESS" in capsys.readouterr().out
    assert "알 수 없어" in progress.banner("42")


def test_progress_overview(home):
    store.save_attempt(attempt("06", 5), home)
    store.save_attempt(attempt("06", 8, "2026-11-21T07:00:00Z"), home)
    store.save_attempt(attempt("07", 2), home)
    ov = course.progress()
    r6, r7, r8 = ov.row("06"), ov.row("07"), ov.row("08")
    assert (r6.passed, r6.best, r6.attempts) == (True, 8, 2)
    assert (r7.passed, r7.best, r7.attempts) == (False, 2, 1)
    assert (r8.attempts, r8.best) == (0, None)
    html = ov._repr_html_()
    assert "통과 ✅" in html and "8/8" in html and "아직 안 풂" in html and str(home) in html
    assert "06" in str(ov) and [r.quiz for r in ov.rows][:5] == ["06", "07", "08", "09", "10"]


def test_progress_shows_exercises_per_notebook(home):
    for ex_id, ok, diag in (("06-1", False, "race"), ("06-1", True, "pass"), ("06-2", False, "not_implemented"),
                            ("06-3", False, "edges_wrong"), ("06-3", False, "last_k_tile"), ("08-1", True, "pass")):
        assert store.save_exercise(ex_id, ok, diag, student="kim").ok
    store.save_attempt(attempt("06", 5), home)
    ov = course.progress()
    r6, r7, r8 = ov.row("06"), ov.row("07"), ov.row("08")
    assert (r6.ex_passed, r6.ex_tried) == (1, 3) and r6.attempts == 1          # exercises are not attempts
    assert r6.ex_failing == (("06-2", "not_implemented"), ("06-3", "last_k_tile"))
    assert (r7.ex_passed, r7.ex_tried) == (0, 0) and (r8.ex_passed, r8.ex_tried, r8.attempts) == (1, 1, 0)
    text = str(ov)
    assert "연습 통과/시도" in text and "1/3 (06-2: not_implemented, 06-3: last_k_tile)" in text
    assert "1/3" in ov._repr_html_() and progress.banner("07").startswith("📌")


def test_exercises_alone_do_not_break_the_overview_or_banner(home):
    assert store.save_exercise("11-1", True, "pass", student="kim").ok          # a notebook without a checkpoint
    ov = course.progress()
    assert [r.quiz for r in ov.rows] == ["06", "07", "08", "09", "10", "11"] and ov.row("11").ex_passed == 1
    assert "아직 시도 기록이 없습니다" in progress.banner("07")


def test_shared_login_overview_shows_only_this_students_rows(home, monkeypatch):
    monkeypatch.setattr(store, "login_name", lambda: "jovyan")
    other = dict(attempt("06", 8), student="s2")
    store.save_attempt(other, home)                                   # another student on the same login passed
    store.save_attempt(dict(attempt("06", 2), student="s1"), home)
    assert store.save_exercise("06-1", True, "pass", student="s2").ok
    assert store.remember_student("s1")
    r6 = course.progress().row("06")
    assert (r6.attempts, r6.best, r6.passed, r6.ex_tried) == (1, 2, False, 0)
    assert "통과하지 않았습니다" in progress.banner("07")
