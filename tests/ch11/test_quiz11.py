"""Quiz 11: the shipped data is build output, keys are hidden, and every key agrees with the course's models."""
import json
from pathlib import Path

from course.quiz import build
from course.quiz.engine import decode_key, load_quiz, quiz_path
from sim import wgmma, ws_ring

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = json.loads((ROOT / "answers" / "ch11" / "quiz11.json").read_text(encoding="utf-8"))
DATA_TEXT = (quiz_path("11")).read_text(encoding="utf-8")
DATA = json.loads(DATA_TEXT)
QS = {q["id"]: q for q in ANSWERS["questions"]}


def _choice(qid):
    q = QS[qid]
    return next(c["text"] for c in q["choices"] if c["id"] == q["key"])


def test_data_file_is_build_output():
    assert DATA_TEXT == build.dumps(build.build(ANSWERS)), \
        "course/ch11_hopper/quiz.json 이 낡았습니다: python -m course.quiz.build answers/ch11/quiz11.json"


def test_shape_8_questions_pass_at_6():
    quiz = load_quiz("11")
    assert quiz.total == 8 and quiz.pass_at == 6 and "8문항 중 6문항" in ANSWERS["intro"]
    assert {q.type for q in quiz.questions} == {"mc", "numeric", "explain"}


def test_keys_hidden_and_decodable():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert not {"key", "model_answer", "explanation"} & set(d)
        if a["type"] == "explain":
            assert decode_key("11", a["id"], d["model_enc"], "model") == a["model_answer"]
        else:
            assert decode_key("11", a["id"], d["key_enc"]) == a["key"]


def test_keys_agree_with_models():
    assert wgmma.WARPGROUP == 128 and "128 스레드" in _choice("q1")
    assert _choice("q2") == "({}, {})".format(*wgmma.accumulator_elements(37, 64)[0])
    assert QS["q3"]["key"] == wgmma.decode(wgmma.descriptor_for_tile(0, "MN", 64))["lbo"]
    s, pf, pe = ws_ring.course_parities(5, 4)
    assert pe == pf ^ 1 and "반대" in _choice("q6")
    # q6's wrong choice (the consumers' parity) is the hang the model reports
    import pytest
    with pytest.raises(ws_ring.ProtocolError, match="DEADLOCK"):
        ws_ring.run(parities=lambda it, S: (it % S, (it // S) & 1, (it // S) & 1))
