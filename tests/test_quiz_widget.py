"""The quiz widget driven headless: set .value on its inputs, submit, read .result and the HTML."""
import re

import ipywidgets as W
import pytest

from course.quiz import QuizWidget, show_quiz, store
from course.quiz.engine import NO_ANSWERS_NOTE

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]

RIGHT = {"q1": "32", "q3": "8192", "q6": "c", "q7": "b", "q8": "16", "q4": ["ty", "tx", "row", "a_col"]}
WRONG = {"q1": "16", "q3": "4096", "q6": "b", "q7": "c", "q8": "2", "q4": ["tx", "ty", "row", "a_col"]}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setenv("SGEMM_STUDENT", "tester")
    monkeypatch.delenv("SGEMM_ANSWERS_DIR", raising=False)
    return tmp_path


def fill(w, values, explain_ok):
    for qid, v in values.items():
        if isinstance(v, list):
            for box, text in zip(w.inputs[qid], v):
                box.value = text
        else:
            w.inputs[qid].value = v
    for qid in ("q2", "q5"):
        w.inputs[qid]["text"].value = "타일을 한 번 읽고 여러 번 재사용한다"
        w.reveal(qid)
        w.inputs[qid]["self_ok"].value = explain_ok


def test_widget_kinds(env):
    w = QuizWidget("06")
    assert isinstance(w.inputs["q6"], W.RadioButtons) and w.inputs["q6"].value is None
    assert isinstance(w.inputs["q1"], W.Text)
    assert len(w.inputs["q4"]) == 4 and all(isinstance(t, W.Text) for t in w.inputs["q4"])
    assert isinstance(w.inputs["q2"]["text"], W.Textarea) and isinstance(w.inputs["q2"]["self_ok"], W.Checkbox)
    assert w.submit_button.description == "제출"
    assert isinstance(w.widget, W.VBox)
    html = "".join(c.value for c in w.widget.children if isinstance(c, W.HTML))
    assert "As[[1], [2]] = A[[3], [4]]" in "".join(
        c.value for box in w.widget.children if isinstance(box, W.VBox) for c in box.children
        if isinstance(c, W.HTML))
    assert "ty, tx, row, a_col" not in html


def test_all_correct_passes_and_saves(env, capsys):
    w = QuizWidget("06")
    fill(w, RIGHT, True)
    r = w.submit()
    assert r is w.result and (r.score, r.total, r.passed) == (8, 8, True)
    html = w.output.value
    assert "8/8" in html and "통과" in html and "미통과" not in html and "6/8" in html
    assert html.count("✔") == 8 and "정답 예" in html          # answers/ present: explanations shown
    (a,) = store.attempts()
    assert a["student"] == "tester" and a["score"] == 8 and a["passed"] and a["quiz"] == "06"
    assert a["answers"]["q4"] == ["ty", "tx", "row", "a_col"] and all(a["correct"].values())
    assert capsys.readouterr().out == ""                        # nothing printed from the callback


def test_wrong_set_fails(env):
    w = QuizWidget("06")
    fill(w, WRONG, False)
    w.submit_button.click()                                     # the real button path
    r = w.result
    assert r.score == 0 and not r.passed
    assert "미통과" in w.output.value and "0/8" in w.output.value
    assert not r.results[3].correct and "결과가" in r.results[3].feedback   # judged by running the kernel


def test_five_of_eight_fails_six_passes(env):
    w = QuizWidget("06")
    fill(w, dict(RIGHT, q1="1", q3="2", q8="3"), True)
    assert (w.submit().score, w.result.passed) == (5, False)
    w.inputs["q8"].value = "16"
    assert (w.submit().score, w.result.passed) == (6, True)
    assert len(store.attempts()) == 2


def test_without_answers_dir(env, tmp_path, monkeypatch):
    empty = tmp_path / "no-answers"
    empty.mkdir()
    monkeypatch.setenv("SGEMM_ANSWERS_DIR", str(empty))
    w = QuizWidget("06")
    fill(w, RIGHT, True)
    r = w.submit()
    assert r.score == 8 and r.passed and not r.has_explanations
    assert all(x.explanation is None for x in r.results)
    assert NO_ANSWERS_NOTE in w.output.value and "정답 예" not in w.output.value


def test_bad_input_messages(env):
    w = QuizWidget("06")
    w.inputs["q1"].value = "서른둘"
    w.inputs["q4"][0].value = "__import__('os')"
    r = w.submit()
    assert r.score == 0
    html = w.output.value
    assert "숫자를 입력하세요" in html and "코드 오류" in html and "미응답" in html


def test_reveal_needs_an_answer_first(env):
    w = QuizWidget("06")
    w.reveal_buttons["q5"].click()
    assert "먼저" in w.model_views["q5"].value and w.inputs["q5"]["self_ok"].disabled
    w.inputs["q5"]["text"].value = "다음 타일이 덮어쓴다"
    w.reveal_buttons["q5"].click()
    assert "모범 답안" in w.model_views["q5"].value and not w.inputs["q5"]["self_ok"].disabled


def test_unwritable_progress_still_grades(env, monkeypatch):
    blocker = env / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("SGEMM_PROGRESS", str(blocker / "progress.json"))
    w = QuizWidget("06")
    fill(w, RIGHT, True)
    r = w.submit()
    assert r.score == 8 and not w.saved.ok
    assert "저장하지 못했습니다" in w.output.value and "8/8" in w.output.value


def test_student_id_settable_and_history(env):
    w = QuizWidget("06", student="park")
    fill(w, RIGHT, True)
    w.submit()
    assert store.attempts()[0]["student"] == "park"
    assert "이전 시도 1회" in QuizWidget("06", student="park").output.value


def test_show_quiz_runs(env, capsys):
    assert show_quiz("06") is None


def test_bad_student_env_shows_the_fix_and_keeps_the_grade(env, monkeypatch):
    monkeypatch.setenv("SGEMM_STUDENT", "two\nlines")
    w = QuizWidget("06")                                        # builds; the student box starts empty
    fill(w, RIGHT, True)
    r = w.submit()
    assert r.score == 8 and not w.saved.ok
    assert "SGEMM_STUDENT" in w.output.value and "8/8" in w.output.value


# --- a failed attempt keeps the keys; where to reread instead ---

def _readable():
    import json
    from course.quiz.engine import answers_file
    return json.loads((answers_file("06")).read_text(encoding="utf-8"))["questions"]


def _leaks(html):
    """Pieces of keys or explanations of quiz 06 found in `html`."""
    found = []
    for q in _readable():
        for text in (q.get("explanation"), q.get("model_answer")):
            if text and text[:30] in html:
                found.append(q["id"])
    return found + [m for m in ("정답 예", "정답:", "모범 답안:") if m in html]


def test_failed_attempt_shows_wrong_questions_and_sections_not_keys(env):
    w = QuizWidget("06")
    fill(w, dict(RIGHT, q1="1", q3="2", q8="3"), True)           # 5/8: fails, with answers/ present
    r = w.submit()
    html = w.output.value
    assert not r.passed and not r.revealed and r.has_explanations
    assert all(x.explanation is None for x in r.results)
    assert _leaks(html) == []
    sections = {q["id"]: q["section"] for q in _readable()}
    for qid in ("q1", "q3", "q8"):
        # a section title's `code` is set as code, never shown as raw backticks
        shown = re.sub(r"`([^`]+)`", r"<code>\1</code>", sections[qid])
        assert f"다시 읽을 곳 / reread: 노트북 06 §{shown}" in html.replace("&#x27;", "'")
    assert all("`" not in line.split("</small>")[0] for line in html.split("다시 읽을 곳")[1:])
    assert html.count("다시 읽을 곳 / reread") == 3 and "통과한 뒤에 보입니다" in html and "appear after you pass" in html
    assert "체크포인트 06 시도 1회" in html
    w.inputs["q8"].value = "16"
    w.submit()                                                     # 6/8: passed, now the keys
    assert w.result.revealed and "정답 예" in w.output.value and "통과한 뒤에" not in w.output.value
    w.inputs["q8"].value = "3"
    w.submit()                                                     # failing again after a pass: keys already seen
    assert w.result.revealed and "정답 예" in w.output.value
    assert "체크포인트 06 시도 3회" in w.output.value


def test_attempt_count_per_checkpoint_in_the_result(env):
    from course.quiz import submit
    submit("07", {}, student="tester")
    submit("07", {}, student="tester")
    w = QuizWidget("06")
    fill(w, WRONG, False)
    w.submit()
    assert "체크포인트 06 시도 1회" in w.output.value                 # before: 시도 3회 (all checkpoints)


@pytest.mark.parametrize("where", ["env", "class.json"])
def test_instructor_may_show_keys_after_n_failed_attempts(env, monkeypatch, where):
    if where == "env":
        monkeypatch.setenv("SGEMM_REVEAL_AFTER", "2")
    else:
        (env / "progress.d").mkdir(exist_ok=True)
        (env / "class.json").write_text('{"reveal_after": 2}', encoding="utf-8")
    w = QuizWidget("06")
    fill(w, WRONG, False)
    w.submit()
    assert not w.result.revealed and _leaks(w.output.value) == []
    w.submit()                                                     # the 2nd failed attempt
    assert w.result.revealed and "정답 예" in w.output.value and not w.result.passed


def test_bad_instructor_setting_is_shown_and_keys_stay_hidden(env, monkeypatch):
    monkeypatch.setenv("SGEMM_REVEAL_AFTER", "-1")
    w = QuizWidget("06")
    fill(w, WRONG, False)
    w.submit()
    html = w.output.value
    assert "SGEMM_REVEAL_AFTER" in html and "integer &gt;= 1" in html and _leaks(html) == []
    assert w.saved.ok                                              # the attempt is still saved


def test_shared_login_widget_asks_for_the_id_once(env, monkeypatch):
    monkeypatch.delenv("SGEMM_STUDENT")
    monkeypatch.setattr(store, "login_name", lambda: "jovyan")
    w = QuizWidget("06")
    assert w.student.value == "" and "학번" in "".join(c.value for c in w.widget.children if isinstance(c, W.HTML))
    fill(w, RIGHT, True)
    w.submit()
    assert not w.saved.ok and "student ID" in w.output.value and "8/8" in w.output.value
    w.student.value = "2026123"
    w.submit()
    assert w.saved.ok
    again = QuizWidget("06")
    assert again.student.value == "2026123" and "이전 시도 1회" in again.output.value


# --- reopening a saved notebook ---

def test_show_quiz_displays_the_widget_and_a_rerun_note(env, monkeypatch):
    import IPython.display
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    show_quiz("06")
    widget, note = shown
    bundle = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "다시 실행하세요" in bundle["text/plain"] and "re-run this cell" in bundle["text/plain"]
    html = note._repr_html_()
    assert 'class="sgemm-quiz-note sgemm-widget-note"' in html
    assert "Error displaying widget" in html and "다시 실행하세요" in html
    assert ":has(.sgemm-quiz) + .jp-OutputArea-child .sgemm-quiz-note" in html      # hidden while the widget lives


def test_free_code_question_is_a_text_area_run_by_its_checker(env):
    import sys
    sys.path.insert(0, str(ROOT / "answers" / "ch08"))
    try:
        import q7_epilogue
    finally:
        sys.path.remove(str(ROOT / "answers" / "ch08"))
    w = QuizWidget("08")
    (area,) = w.inputs["q7"]
    assert isinstance(area, W.Textarea) and area.value == w.quiz.question("q7").starter
    box = next(c for c in w.widget.children if isinstance(c, W.VBox) and area in c.children)
    assert "▶ 여러분의 코드" in box.children[0].value and "def quiz_db8" in box.children[0].value  # the kernel above
    area.value = q7_epilogue.EPILOGUE
    w.submit()
    assert w.result.correct_map()["q7"] and w.answers()["q7"] == [q7_epilogue.EPILOGUE]
    area.value = q7_epilogue.WRONG["no_last_tile"][0]
    w.submit()
    assert not w.result.correct_map()["q7"] and "마지막 K 타일" in w.output.value
