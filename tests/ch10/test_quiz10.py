"""Quiz 10: the shipped data is build output, keys are hidden, and every key agrees with the course's models/records."""
import json
from pathlib import Path

import pytest

from course.ch10_tensor_core import lesson as lesson10
from course.quiz import build
from course.quiz.engine import decode_key, grade, load_quiz, quiz_path
from kernels_numba import tc
from sim import mma, occupancy

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = json.loads((ROOT / "answers" / "ch10" / "quiz10.json").read_text(encoding="utf-8"))
DATA_TEXT = (quiz_path("10")).read_text(encoding="utf-8")
DATA = json.loads(DATA_TEXT)
QS = {q["id"]: q for q in ANSWERS["questions"]}


def _choice(qid):
    q = QS[qid]
    return next(c["text"] for c in q["choices"] if c["id"] == q["key"])


def test_data_file_is_build_output():
    assert DATA_TEXT == build.dumps(build.build(ANSWERS)), \
        "course/ch10_tensor_core/quiz.json 이 낡았습니다: python -m course.quiz.build answers/ch10/quiz10.json"


def test_shape_9_questions_pass_at_7():
    quiz = load_quiz("10")
    assert quiz.total == 9 and quiz.pass_at == 7 and "9문항 중 7문항" in ANSWERS["intro"]
    assert [q.id for q in quiz.questions] == [f"q{i}" for i in range(1, 10)]
    assert {q.type for q in quiz.questions} == {"mc", "numeric", "explain"}


def test_keys_hidden_and_decodable():
    for a, d in zip(ANSWERS["questions"], DATA["questions"]):
        assert not {"key", "model_answer", "explanation"} & set(d)
        if a["type"] == "explain":
            assert decode_key("10", a["id"], d["model_enc"], "model") == a["model_answer"]
        else:
            assert decode_key("10", a["id"], d["key_enc"]) == a["key"]


def test_keys_agree_with_models():
    assert _choice("q2") == ", ".join(f"({r},{c})" for r, c in mma.c_elements(5))
    assert QS["q3"]["key"] == kn_smem("mma_large")
    o = occupancy.occupancy("H200", 32, 32, 768)
    assert "50 %" in _choice("q4") and o.percent == 50.0 and o.limiter == "blocks"
    growth, K, ratio = lesson10.error_growth_summary()                   # q7: the recorded errors, not the bounds
    assert K == 4096 and QS["q7"]["key"] == round(ratio) and "8192" in QS["q7"]["prompt"]
    assert tc.UNIT_ROUNDOFF["f16"] / tc.UNIT_ROUNDOFF["f32"] == 8192
    run = lesson10.H200_LEVEL6.run()
    assert run.tflops("mma_pipe", 4096) > run.tflops("mma_warps", 4096)      # q5: the 2-stage pipeline overlaps


def kn_smem(name):
    import kernels_numba as kn
    return kn.get(name).module.SMEM_BYTES


def test_grading_passes_with_keys():
    quiz = load_quiz("10")
    answers = {q["id"]: q.get("key", q.get("model_answer")) for q in ANSWERS["questions"]}
    res = grade(quiz, answers)
    assert res is not None


def test_numeric_answers_may_carry_a_byte_unit():
    """quiz10 q3 (768 B): '768 B', '768 bytes', '768바이트' are right; KB is not guessed (a unit not read); 'b' is a bit."""
    from course.quiz.engine import NOT_A_NUMBER, grade_question, parse_number
    quiz = load_quiz("10")
    q3 = quiz.question("q3")
    for text in ("768", "768 B", "768B", " 768 bytes", "768바이트", "768 Bytes"):
        assert grade_question(quiz, q3, text) == (True, "정답"), text
    ok, msg = grade_question(quiz, q3, "0.75 KB")          # KB is not guessed: told it is not read, not 'a number'
    assert not ok and msg.startswith("'KB'는 읽을 수 없는 단위") and msg != NOT_A_NUMBER, msg
    assert parse_number("768 b") is None and parse_number("B") is None and parse_number("1e3") == 1000.0


def test_q6_matches_ptxas_and_q8_names_the_measured_kernel():
    rows = {(r["shape"], r["types"]): r for r in lesson10.mma_shape_table()}
    tf32 = rows[("m8n8k4", "f32.tf32.tf32.f32")]
    assert tf32["sm_80"] == "✅" and tf32["SASS"].startswith("MMA 명령 없음")      # accepted, no MMA: key b says so
    assert "받아들이지만" in _choice("q6") and "MMA 명령이 없다" in _choice("q6")
    res = lesson10.loaded_resources()
    assert "mma_pipe4_lb2" in QS["q8"]["model_answer"] and str(res["mma_pipe4_lb2"]["local_bytes"]) in QS["q8"]["model_answer"]


def test_q9_is_the_largest_step_of_the_final_ablation():
    """q9: in the final runs 5 and 6 at 4096^3 the swizzle is the largest step; key and explanation figures from the
    H100 record, each with its own run's cuBLAS; the steps new in mma_fast are each far smaller."""
    step, gain = lesson10.largest_step(4096, "run6")
    assert step.startswith("스위즐") and QS["q9"]["key"] == round(gain, 1)
    assert lesson10.largest_step(4096, "run5")[0] == step
    assert "run 5" in QS["q9"]["prompt"] and "run 6" in QS["q9"]["prompt"]
    expl = QS["q9"]["explanation"]
    for run in lesson10.FINAL_RUNS:
        assert f"cuBLAS {lesson10.cublas_tflops(run)[4096]:.0f} TFLOP/s" in expl, run
        assert f"{lesson10.fast_gain('no_swizzle', n=4096, run=run):.1f} 배" in expl, run
    tf = lesson10.fast_tflops("run6")
    assert f" {tf[('no_swizzle', 4096)]:.0f} TFLOP/s" in expl and f" {tf[(lesson10.REF, 4096)]:.0f} TFLOP/s" in expl
    new = [(w, v) for _, w, v in lesson10.steps_measured("run6")
           if w not in ("no_swizzle", lesson10.WHOLE_WAY) and v != "raster_g8"]
    for w, v in new:
        assert f"×{lesson10.fast_gain(w, v, 4096, 'run6'):.2f}" in expl, (w, v)
        assert all(lesson10.fast_gain(w, v, 4096, r) < 1.2 for r in lesson10.FINAL_RUNS)
    # the pipeline row is the pipeline alone; pipeline and lean together is their product, and named so
    both = lesson10.fast_gain("barrier_at_tile_start", n=4096, run="run6")
    assert f"×{both:.2f} 로 두 스위치의 곱" in expl
    assert both == pytest.approx(lesson10.fast_gain("barrier_at_tile_start", "no_lean", 4096, "run6")
                                 * lesson10.fast_gain("no_lean", n=4096, run="run6"))
    lb = [lesson10.fast_gain("no_launch_bounds", lesson10.REF, 4096, r) for r in lesson10.FINAL_RUNS]
    assert min(lb) < 1 < max(lb) and "방향이 달라" in expl                # the two runs disagree
    # review r20 M-1: the pipeline with lean was timed in run 8 alone (flagged): its figure, its run, no gain at 4096³
    r8 = lesson10.fast_tflops("run8")
    with_lean = r8[("fast", 4096)] / r8[("no_pipeline", 4096)]
    assert with_lean < 1 and f"4096³ ×{with_lean:.2f}" in expl and lesson10.FAST.run("run8").flagged
    assert f"cuBLAS {lesson10.cublas_tflops('run8')[4096]:.0f} TFLOP/s" in expl and lesson10.FAST.run("run8").date in expl


def test_q7_and_q3_explanations_follow_the_record():
    rows = lesson10.H200_LEVEL6["error_vs_k"]
    expl = QS["q7"]["explanation"]
    assert f"약 {rows[0]['mma_pipe_f16acc'] / rows[0]['mma_pipe']:.0f} 배" in expl and f"K = {rows[0]['K']}" in expl
    assert rows[0]["mma_pipe_f16acc"] == rows[0]["mma_pipe_f16out"]     # K = 16: the output rounding alone
    assert "32 × (768 B + 1 KiB)" in QS["q3"]["explanation"] and "KB" not in QS["q3"]["explanation"]
