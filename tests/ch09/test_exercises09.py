"""Messages of notebook 09's exercise checkers that the diagnosis code alone does not pin down."""
from pathlib import Path

import pytest

from course import exercises
from exercise_cases import import_source

ROOT = Path(__file__).resolve().parents[2]
sim_only = pytest.mark.sim_only("09-1's structure checks read the simulator's trace")


@sim_only
def test_09_1_a_loop_it_cannot_follow_is_said_not_passed(tmp_path, monkeypatch):
    # review round 18, W-2 (2): no loop found in the trace -> not a PASS that claims overlap it never checked
    from course.exercises import probe
    monkeypatch.setattr(probe, "loop_iterations", lambda events, min_iters=2: (events, [], []))
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert not res.ok and res.code == "loop_not_found", str(res)
    assert "K 루프를 찾지 못해" in res.message and "wait_group(N) → 배리어" in res.message, str(res)


@sim_only
def test_09_1_wait_all_is_named_as_written(tmp_path):
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    src = src.replace("ptx.cp_async_wait_group_1()", "ptx.cp_async_wait_all()")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_overlap" and "(cp_async_wait_all())" in res.message, str(res)


@sim_only
def test_09_1_a_global_memory_loop_is_told_to_use_the_tiles(tmp_path):
    # review round 19, I-1: the loop is there; what is missing is the tile computation from shared memory
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    body = src[src.index("        ptx.cp_async_wait_group_1()"):src.index("    store_c(")]
    src = src.replace(body, "        for k in range(T8):\n            kk = kt * T8 + k\n"
                            "            if row < A.shape[0] and col < B.shape[1] and kk < A.shape[1]:\n"
                            "                acc += A[row, kk] * B[kk, col]\n")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_tile_calls", str(res)
    assert "compute_tile 이 한 번도" in res.message and "for kt in range" not in res.message, str(res)


@sim_only
def test_09_1_no_wait_in_the_iteration_is_not_named_as_a_wait(tmp_path):
    # review round 19, I-2: a wait before the loop is not this iteration's "wait_group(0)"
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    # everything waited for before the loop; each iteration waits for its prefetch after computing
    src = src.replace("        ptx.cp_async_wait_group_1()", "        pass  # ")
    src = src.replace("    for kt in range(n_tiles):", "    ptx.cp_async_wait_all()\n    for kt in range(n_tiles):")
    src = src.replace("        acc = compute_tile(As, Bs, kt % S3, acc)\n",
                      "        acc = compute_tile(As, Bs, kt % S3, acc)\n        ptx.cp_async_wait_group_0()\n")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_overlap", str(res)
    assert "이 반복에는 계산 앞에 wait 가 없고" in res.message and "wait_group(0))" not in res.message, str(res)


def _vec_src(*edits):
    src = (ROOT / "answers" / "ch09" / "ex09_vec_map.py").read_text("utf-8")
    for old, new in edits:
        assert old in src
        src = src.replace(old, new)
    return src


def test_09_2_k_offset_on_the_wrong_axis_is_not_called_missing(tmp_path):
    # review round 21, M-1: kt * BK is in the student's B address, on the column; the message says where it went
    src = _vec_src(("B, kt * BK + b_row, block_col + b_col)", "B, block_col + b_row, kt * BK + b_col)"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.code == "k_offset_axis", str(res)
    assert "빠졌습니다" not in res.message and "행에 block_col을, 열에 kt·BK를" in res.message, str(res)
    # the offset really missing still says so
    src = _vec_src(("B, kt * BK + b_row, block_col + b_col)", "B, b_row, block_col + b_col)"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.code == "no_k_offset" and "빠졌습니다" in res.message, str(res)


@sim_only
def test_09_2_source_out_of_bounds_points_at_the_global_offsets(tmp_path):
    # review round 21, I-2: the K offset in BM units reads past A's columns: the advice is the global address
    src = _vec_src(("A, block_row + a_row, kt * BK + a_col)", "A, block_row + a_row, kt * BM + a_col)"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.code == "out_of_bounds" and "원본" in res.message, str(res)
    assert "블록 오프셋과 K 타일 오프셋" in res.message and "모양으로 나눴는지" not in res.message, str(res)


@sim_only
def test_09_2_a_column_major_mapping_passes_with_its_sector_count(tmp_path):
    # review round 21, I-3: right values, but a warp's A copies touch 32 half-used sectors instead of 16
    src = _vec_src(("a_row, a_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC",
                    "a_row, a_col = tid % BM, (tid // BM) * VEC"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.ok and any("섹터 32개" in d and "섹터 16개" in d and "50 %" in d for d in res.details), str(res)
    ref = exercises.check("09-2", import_source(_vec_src(), tmp_path).issue_vec, save=False)
    assert ref.ok and not any("섹터" in d for d in ref.details), str(ref)


@sim_only
def test_09_1_two_barriers_message_follows_the_order(tmp_path):
    # review round 21, I-4: in the prefetch-before-wait order the second barrier is needed; in the exercise's order not
    from exercise_cases_09 import _BODY, _two_barrier
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    res = exercises.check("09-1", import_source(src.replace(*_two_barrier()[0]), tmp_path).pipeline3, save=False)
    assert res.code == "two_barriers" and "계산 뒤의 배리어가 필요합니다" in res.message, str(res)
    assert "한 번 더 세울 뿐" not in res.message, str(res)
    extra = src.replace(_BODY, _BODY + "        cuda.syncthreads()\n")
    res = exercises.check("09-1", import_source(extra, tmp_path).pipeline3, save=False)
    assert res.code == "two_barriers" and "한 번 더 세울 뿐" in res.message, str(res)


@sim_only
def test_09_1_a_global_memory_loop_with_wrong_values_gets_a_value_diagnosis(tmp_path):
    # the no_tile_calls verdict says "맞는 값이지만": it belongs to the technique check only; on wrong values the
    # loop findings used to hand that Result to a caller expecting (code, message, site): a TypeError to the student
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    body = src[src.index("        ptx.cp_async_wait_group_1()"):src.index("    store_c(")]
    src = src.replace(body, "        for k in range(T8):\n            kk = kt * T8 + k\n"
                            "            if row < A.shape[0] and col < B.shape[1] and kk < A.shape[1]:\n"
                            "                acc += 2 * A[row, kk] * B[kk, col]\n")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert not res.ok and res.code not in ("error", "no_tile_calls") and "TypeError" not in res.message, str(res)
