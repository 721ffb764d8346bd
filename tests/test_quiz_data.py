"""The shipped quiz data is exactly what build makes from answers/, and hides every key."""
import json
from pathlib import Path

import pytest

from course.quiz import build
from course.quiz.engine import decode_key, load_quiz, quiz_path

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = json.loads((ROOT / "answers" / "ch06" / "quiz06.json").read_text(encoding="utf-8"))
DATA_TEXT = (quiz_path("06")).read_text(encoding="utf-8")
DATA = json.loads(DATA_TEXT)


def test_data_file_is_build_output():
    assert DATA_TEXT == build.dumps(build.build(ANSWERS)), \
        "course/ch06_shared_tiling/quiz.json 이 낡았습니다: python -m course.quiz.build answers/ch06/quiz06.json"


def test_build_cli_check(capsys):
    assert build.main([str(ROOT / "answers" / "ch06" / "quiz06.json"), "--check"]) == 0


def test_shape_8_questions_pass_at_6():
    quiz = load_quiz("06")
    assert quiz.total == 8 and quiz.pass_at == 6
    assert [q.id for q in quiz.questions] == [f"q{i}" for i in range(1, 9)]
    assert {q.type for q in quiz.questions} == {"mc", "numeric", "code", "explain"}
    assert all(q.bloom and q.prompt for q in quiz.questions)
    code = quiz.question("q4")
    assert code.blanks == 4 and code.checker == "course.quiz.checks:tiled_load_blanks"


def test_every_key_decodes_to_readable_key():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert a["id"] == d["id"] and a["prompt"] == d["prompt"]
        if a["type"] == "explain":
            assert decode_key("06", a["id"], d["model_enc"], "model") == a["model_answer"]
        else:
            assert decode_key("06", a["id"], d["key_enc"]) == a["key"]


def test_no_readable_key_in_data_file():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert not {"key", "model_answer", "explanation"} & set(d)
        blob = d.get("key_enc") or d["model_enc"]
        for plain in (json.dumps(a.get("key")), str(a.get("key"))):
            assert plain not in blob
        if isinstance(a.get("key"), list):
            for sep in (", ", ",", " "):
                assert sep.join(a["key"]) not in DATA_TEXT
        if isinstance(a.get("key"), int) and a["key"] >= 1000:
            assert str(a["key"]) not in DATA_TEXT
        for long_text in (a.get("model_answer"), a.get("explanation")):
            if long_text:
                assert long_text[:25] not in DATA_TEXT and long_text[-25:] not in DATA_TEXT


def test_mc_keys_are_choices():
    for a in ANSWERS["questions"]:
        if a["type"] == "mc":
            assert a["key"] in {c["id"] for c in a["choices"]}


@pytest.mark.parametrize("breakage", ["bad_type", "mc_key", "blank_count", "no_model", "pass_at"])
def test_build_rejects_malformed(breakage):
    a = json.loads(json.dumps(ANSWERS))
    qs = {q["id"]: q for q in a["questions"]}
    if breakage == "bad_type":
        qs["q1"]["type"] = "essay"
    elif breakage == "mc_key":
        qs["q6"]["key"] = "z"
    elif breakage == "blank_count":
        qs["q4"]["key"] = ["ty"]
    elif breakage == "no_model":
        del qs["q2"]["model_answer"]
    else:
        a["pass_at"] = 9
    with pytest.raises(ValueError):
        build.build(a)


@pytest.mark.parametrize("qid", ["06", "07", "08", "09", "10"])
def test_every_question_names_a_section_of_its_notebook(qid):
    """The section a failed attempt sends the student to is a heading of that notebook (shipped in the data)."""
    import re
    nb = json.loads(next((ROOT / "notebooks").glob(f"{qid}_*.ipynb")).read_text(encoding="utf-8"))
    heads = {line.lstrip("#").strip() for c in nb["cells"] if c["cell_type"] == "markdown"
             for line in "".join(c["source"]).splitlines() if re.match(r"^#{2,4} ", line)}
    quiz = load_quiz(qid)
    missing = [(q.id, q.section) for q in quiz.questions if q.section not in heads]
    assert not missing, f"quiz{qid}: 노트북에 없는 절 / sections not in the notebook: {missing}"
