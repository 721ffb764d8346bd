"""Quiz 07: the shipped data is build's output, keys are hidden, and the code question runs the taught kernel."""
import json
from pathlib import Path

import pytest

from course.quiz import build, checks
from course.quiz.engine import decode_key, grade, load_quiz, quiz_path

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = json.loads((ROOT / "answers" / "ch07" / "quiz07.json").read_text(encoding="utf-8"))
DATA_TEXT = (quiz_path("07")).read_text(encoding="utf-8")
DATA = json.loads(DATA_TEXT)
QS = {q["id"]: q for q in ANSWERS["questions"]}


def test_data_file_is_build_output():
    assert DATA_TEXT == build.dumps(build.build(ANSWERS)), \
        "course/ch07_register_blocking/quiz.json 이 낡았습니다: python -m course.quiz.build answers/ch07/quiz07.json"


def test_build_cli_check():
    assert build.main([str(ROOT / "answers" / "ch07" / "quiz07.json"), "--check"]) == 0


def test_shape_8_questions_pass_at_6():
    quiz = load_quiz("07")
    assert quiz.total == 8 and quiz.pass_at == 6
    assert [q.id for q in quiz.questions] == [f"q{i}" for i in range(1, 9)]
    assert {q.type for q in quiz.questions} == {"mc", "numeric", "code", "explain"}
    assert all(q.bloom and q.prompt for q in quiz.questions)
    code = quiz.question("q4")
    assert code.blanks == 3 and code.checker == "course.quiz.checks:regblock_load_blanks"


def test_every_key_decodes_and_none_is_readable():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert a["id"] == d["id"] and a["prompt"] == d["prompt"]
        assert not {"key", "model_answer", "explanation"} & set(d)
        if a["type"] == "explain":
            assert decode_key("07", a["id"], d["model_enc"], "model") == a["model_answer"]
            assert a["model_answer"][:25] not in DATA_TEXT
        else:
            assert decode_key("07", a["id"], d["key_enc"]) == a["key"]
        if a.get("explanation"):
            assert a["explanation"][:25] not in DATA_TEXT


def test_code_template_shows_the_kernels_lines():
    """The template the student sees is regblock.py's load loop with the three blanks in place."""
    from kernels_numba import regblock
    import inspect
    src = inspect.getsource(regblock.kernel.py_func)
    tmpl = QS["q4"]["template"]
    for frag, filled in zip(checks.REGBLOCK_BLANKS, ("a_row = ___", "a_col = ___", "for off in range(0, BM, ___):")):
        assert frag in src and filled in tmpl
    for line in tmpl.splitlines()[3:]:
        assert line.strip() in src, line


def test_code_key_passes():
    ok, msg = checks.regblock_load_blanks(QS["q4"]["key"])
    assert ok, msg


@pytest.mark.parametrize("blanks, needle", [
    (["tid // BK", "tid % BK", "16"], "범위 초과"),              # stride too small: rows past 127
    (["tid // BK", "tid % BK", "64"], "아무도 채우지 않는"),      # stride too large: rows 32..63 never loaded
    (["tid % BK", "tid // BK", "32"], "범위 초과"),              # row and column swapped
    (["ty", "tx % BK", "16"], "두 번 이상"),                     # duplicates
    (["tid // BK", "tid % BK", "0"], "양수"),
    (["tid // (tid % 32)", "0", "32"], "ZeroDivisionError"),
    (["__import__('os')", "0", "32"], "허용되지 않는"),
    (["tid // BK", "tid % BK"], "3개"),
])
def test_code_wrong_answers_fail_with_a_message(blanks, needle):
    ok, msg = checks.regblock_load_blanks(blanks)
    assert not ok and needle in msg, msg


def test_another_bijection_is_accepted():
    ok, msg = checks.regblock_load_blanks(["tid % 32", "tid // 32", "THREADS // BK"])
    assert ok, msg


def test_grading_the_keys_passes():
    quiz = load_quiz("07")
    answers = {}
    for q in ANSWERS["questions"]:
        answers[q["id"]] = {"text": q["model_answer"], "self_ok": True} if q["type"] == "explain" \
            else (str(q["key"]) if q["type"] == "numeric" else q["key"])
    res = grade(quiz, answers)
    assert res.score == 8 and res.passed, [(r.qid, r.feedback) for r in res.results]


def test_notebook07_is_its_generator_output():
    """notebooks/07_register_blocking.ipynb is exactly what course/ch07_register_blocking/notebook.py writes (edit the generator, not the ipynb)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("nb07_generator", ROOT / "course" / "ch07_register_blocking" / "notebook.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = (ROOT / "notebooks" / "07_register_blocking.ipynb").read_text(encoding="utf-8")
    assert text == gen.text(), "python -m course.ch07_register_blocking.notebook 로 노트북을 다시 만드세요"
    assert 'show_quiz(\\"07\\")' in text          # the checkpoint of this quiz is shown at the end
