"""Quiz 08: the shipped data is build output, keys are hidden, and every key agrees with the course's models/kernels."""
import json
import re
from pathlib import Path

import pytest

import kernels_numba as kn
from course.quiz import build, checks
from course.quiz.engine import decode_key, grade, load_quiz, quiz_path

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = json.loads((ROOT / "answers" / "ch08" / "quiz08.json").read_text(encoding="utf-8"))
DATA_TEXT = (quiz_path("08")).read_text(encoding="utf-8")
DATA = json.loads(DATA_TEXT)
QS = {q["id"]: q for q in ANSWERS["questions"]}


def test_data_file_is_build_output():
    assert DATA_TEXT == build.dumps(build.build(ANSWERS)), \
        "course/ch08_double_buffering/quiz.json 이 낡았습니다: python -m course.quiz.build answers/ch08/quiz08.json"


def test_build_cli_check():
    assert build.main([str(ROOT / "answers" / "ch08" / "quiz08.json"), "--check"]) == 0


def test_shape_7_questions_pass_at_6():
    quiz = load_quiz("08")
    assert quiz.total == 7 and quiz.pass_at == 6
    assert [q.id for q in quiz.questions] == [f"q{i}" for i in range(1, 8)]
    assert {q.type for q in quiz.questions} == {"mc", "numeric", "code", "explain"}
    assert [q.bloom for q in quiz.questions] == ["Remember", "Understand", "Apply", "Analyze", "Analyze",
                                                 "Evaluate", "Create"]
    code = quiz.question("q7")
    assert code.free and code.blanks == 1 and code.checker == "course.quiz.checks:epilogue_code"
    assert code.starter == checks.EPILOGUE_STARTER


def test_every_key_decodes_to_readable_key():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert a["id"] == d["id"] and a["prompt"] == d["prompt"]
        if a["type"] == "explain":
            assert decode_key("08", a["id"], d["model_enc"], "model") == a["model_answer"]
        else:
            assert decode_key("08", a["id"], d["key_enc"]) == a["key"]


def test_no_readable_key_in_data_file():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert not {"key", "model_answer", "explanation"} & set(d)
        blob = d.get("key_enc") or d["model_enc"]
        for plain in (json.dumps(a.get("key")), str(a.get("key"))):
            assert len(plain) < 4 or plain not in blob      # a 1-letter mc key can occur in base64 by chance
        if isinstance(a.get("key"), list):
            for sep in (", ", ",", " "):
                assert sep.join(a["key"]) not in DATA_TEXT
        for long_text in (a.get("model_answer"), a.get("explanation")):
            if long_text:
                assert long_text[:25] not in DATA_TEXT and long_text[-25:] not in DATA_TEXT


def test_all_keys_pass_and_pass_at_6():
    quiz = load_quiz("08")
    answers = {q.id: (quiz.key(q.id) if q.type != "explain" else {"text": "답", "self_ok": True})
               for q in quiz.questions}
    r = grade(quiz, answers)
    assert r.score == 7 and r.passed
    answers["q1"] = "a"
    assert grade(quiz, answers).passed            # 6 / 7 passes
    answers["q2"] = "a"
    assert not grade(quiz, answers).passed        # 5 / 7 does not


def test_q3_table_is_the_kernels_buffer_rotation():
    db = kn.get("db").module
    assert db.BK == 8
    text = dict((c["id"], c["text"]) for c in QS["q3"]["choices"])[QS["q3"]["key"]]
    n_tiles = 4
    for kt in range(n_tiles):
        tile = f"타일 {kt + 1}" if kt + 1 < n_tiles else "미리 읽기 없음"
        assert f"kt={kt}: ({kt % 2}, {(kt + 1) % 2}) {tile}" in text


def test_q6_numbers_come_from_the_compiled_kernel_and_the_occupancy_model():
    from kernels_numba.tools import resources
    from sim import occupancy
    db = kn.get("db").module
    regs = resources.report("db", (8, 0))["registers"]
    smem = 2 * db.BM * db.BK_PAD * 4 + 2 * db.BK * db.BN_PAD * 4
    assert resources.report("db", (8, 0))["shared_bytes"] == smem          # sm_80 cubin: the declared arrays
    prompt = QS["q6"]["prompt"]
    assert f"레지스터 **{regs}**개" in prompt and f"**{smem:,}** 바이트" in prompt
    occ = occupancy.occupancy("A100", regs, db.THREADS, smem)
    assert QS["q6"]["key"] == occ.blocks_per_sm and occ.limiter == "registers"
    expl = QS["q6"]["explanation"]
    assert f"**{occ.limits['shared memory']}개**" in expl and f"**{occ.limits['registers']}개**" in expl
    assert f"{occ.smem_allocated_per_block:,} B" in expl
    assert f"레지스터: {regs} → 8의 배수로 올려 {-(-regs // 8) * 8}개" in expl, expl   # the explanation's count too


def test_q7_template_is_the_checkers_template_and_the_key_passes():
    assert QS["q7"]["template"] == checks.EPILOGUE_TEMPLATE and QS["q7"]["form"] == "free"
    ok, msg = checks.epilogue_code(QS["q7"]["key"])
    assert ok, msg
    tiles = [-(-k // checks.T8) for _, _, k, _, _ in checks.EPILOGUE_CASES]
    assert "K 타일이 " + "·".join(map(str, tiles)) + "개인" in QS["q7"]["prompt"]
    assert "·".join(map(str, tiles)) in msg


def test_q7_template_does_not_ship_08_2_solved(tmp_path):
    # the quiz kernel has 08-2's prologue (answers/ch08/ex08_db8.py) and db's loop order; with the key's epilogue it
    # computes the right values, and 08-2's checker says that loop is not the register prefetch 08-2 asks for
    import inspect
    import sys
    from course import exercises
    sys.path.insert(0, str(ROOT / "answers" / "ch08"))
    try:
        import ex08_db8
    finally:
        sys.path.remove(str(ROOT / "answers" / "ch08"))
    src = inspect.getsource(ex08_db8.db8.py_func)
    code = lambda t: [ln.split("#")[0].strip() for ln in t.splitlines() if ln.split("#")[0].strip()]   # noqa: E731
    body, tmpl = code(src)[2:], code(checks.EPILOGUE_TEMPLATE)[2:]    # drop the decorator and the def line
    loop = body.index("for kt in range(n_tiles - 1):")
    assert tmpl[:loop + 1] == body[:loop + 1] and tmpl[-1] == "___"
    f = tmp_path / "quiz08_q7_kernel.py"
    f.write_text("from numba import cuda, float32\nfrom course.ch06_shared_tiling.lesson import load_or_zero, store_c, thread_coords\n"
                 "from ex08_db8 import tile_dot, T8\n\n" + checks.epilogue_source(QS["q7"]["key"][0]), encoding="utf-8")
    sys.path[:0] = [str(tmp_path), str(ROOT / "answers" / "ch08")]
    try:
        import quiz08_q7_kernel
    finally:
        del sys.path[:2]
    res = exercises.check("08-2", quiz08_q7_kernel.quiz_db8, save=False)
    assert not res.ok and res.code == "store_before_compute", str(res)


def test_q7_free_form_grades_through_the_engine():
    quiz = load_quiz("08")
    q = quiz.question("q7")
    from course.quiz.engine import grade_question
    assert grade_question(quiz, q, [quiz.key("q7")[0]])[0]
    assert grade_question(quiz, q, [q.starter]) == (False, "코드 오류: 코드가 없습니다")
    assert grade_question(quiz, q, [""])[1] == "미응답"


@pytest.mark.parametrize("qid", ["q1", "q2", "q3", "q4"])
def test_mc_keys_are_choices(qid):
    assert QS[qid]["key"] in {c["id"] for c in QS[qid]["choices"]}
