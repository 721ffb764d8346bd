"""Printable checkpoint sheets: without answers, and with answers + explanations, for every shipped quiz."""
import json
import re

import pytest

from course.quiz import export
from course.quiz.engine import answers_file, load_quiz

QUIZZES = export.all_quiz_ids()


def test_the_shipped_quizzes_are_found():
    assert {"06", "07", "08"} <= set(QUIZZES)


@pytest.mark.parametrize("qid", QUIZZES)
def test_sheet_has_every_question_and_no_answer(qid):
    quiz = load_quiz(qid)
    readable = json.loads((answers_file(qid)).read_text(encoding="utf-8"))
    for text in (export.markdown(qid), export.html_sheet(qid)):
        assert quiz.title in text.replace("&amp;", "&") or quiz.title in text
        assert len(re.findall(r"문제 \d+", text)) == quiz.total
        assert "정답" not in text.replace("정답률", "") or "맞히면" in text    # no key section
        assert "해설:" not in text and "모범 답안" not in text
        for q in readable["questions"]:
            if q.get("explanation"):
                assert q["explanation"][:40] not in text
            if q.get("model_answer"):
                assert q["model_answer"][:30] not in text


@pytest.mark.parametrize("qid", QUIZZES)
def test_answer_sheet_has_keys_and_explanations(qid):
    readable = json.loads((answers_file(qid)).read_text(encoding="utf-8"))
    md = export.markdown(qid, with_answers=True)
    htm = export.html_sheet(qid, with_answers=True)
    for q in readable["questions"]:
        if q["type"] in ("mc", "numeric"):
            assert f"**정답: {q['key']}" in md or f"**정답: ({q['key']})" in md
        if q.get("explanation"):
            assert q["explanation"].strip()[:20] in md
    assert md.count("**해설:**") == sum(bool(q.get("explanation")) for q in readable["questions"])
    assert htm.count('class="answer"') == len(readable["questions"])


@pytest.mark.parametrize("qid", QUIZZES)
def test_code_questions_print_as_code_with_blanks(qid):
    quiz = load_quiz(qid)
    md = export.markdown(qid)
    ans = export.markdown(qid, with_answers=True)
    for q in (q for q in quiz.questions if q.type == "code" and not q.free):          # free code: the test below
        shown = export.blanks_template(q.template)
        assert "```python\n" + shown in md
        assert all(f"____({n})____" in shown for n in range(1, q.blanks + 1)) and "___" not in shown.replace(
            "____(", "").replace(")____", "")
        assert export.filled_template(q.template, quiz.key(q.id)) in ans.replace("\n> ", "\n")


def test_without_answers_dir_keys_come_from_data(tmp_path, monkeypatch):
    monkeypatch.setenv("SGEMM_ANSWERS_DIR", str(tmp_path))
    md = export.markdown("06", with_answers=True)
    assert "answers/ 폴더가 없어" in md and "**정답: 32**" in md and "**해설:**" not in md


def test_cli_writes_four_files(tmp_path, capsys):
    assert export.main(["06", "7", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(f"quiz{q}_{k}.{e}" for q in ("06", "07") for k in ("sheet", "answers")
                           for e in ("md", "html"))
    page = (tmp_path / "quiz06_sheet.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'charset="utf-8"' in page and "@media print" in page
    assert export.main(["99", "--out", str(tmp_path)]) == 2
    assert "없는 체크포인트" in capsys.readouterr().err


def test_free_code_question_prints_a_writing_box_and_the_whole_model_answer():
    from course.quiz import export
    sheet = export.markdown("08")
    q7 = sheet[sheet.index("(창조, 코드 작성)"):]
    assert "여기에 코드를 쓰세요" in q7 and "____(1)____" not in q7.split("## 문제")[0]
    key = export.markdown("08", with_answers=True)
    model = key[key.index("모범 답안** (채점기"):]
    assert "        if beta == 0:\n>             C[row, col] = alpha * acc" in model    # every line at the blank's indent
