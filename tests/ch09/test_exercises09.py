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
def test_09_2_a_column_major_mapping_is_a_coalescing_verdict_with_its_sector_count(tmp_path):
    # review round 21, I-3 gave it a note; round 25, B-6: right values, but a warp's A copies touch 32 half-used
    # sectors instead of 16 and the other warp asks for the rest again: the exercise's subject, so not a PASS
    src = _vec_src(("a_row, a_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC",
                    "a_row, a_col = tid % BM, (tid // BM) * VEC"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.code == "uncoalesced" and "섹터 32개" in res.message and "섹터 16개" in res.message, str(res)
    assert "50 %" in res.message and "BK / VEC = 2" in res.message, str(res)
    # a mapping that walks B down its columns keeps whole sectors per warp (the same count as 6절's): it passes
    src = _vec_src(("b_row, b_col = tid // (BN // VEC), (tid % (BN // VEC)) * VEC",
                    "b_row, b_col = tid % (BK), (tid // BK) * VEC"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.ok, str(res)
    ref = exercises.check("09-2", import_source(_vec_src(), tmp_path).issue_vec, save=False)
    assert ref.ok and not any("섹터" in d for d in ref.details), str(ref)


@sim_only
def test_09_2_plain_loads_are_not_a_pass(tmp_path):
    # review round 25, B-3: no copy at all used to read as "no copy other than 16 bytes"
    src = _vec_src(("    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, kt * BK + a_col)",
                    "    for j in range(VEC):\n"
                    "        As[stage, a_row, a_col + j] = A[block_row + a_row, kt * BK + a_col + j]"),
                   ("    ptx.cp_async_cg_16(Bs, stage, b_row, b_col, B, kt * BK + b_row, block_col + b_col)",
                    "    for j in range(VEC):\n"
                    "        Bs[stage, b_row, b_col + j] = B[kt * BK + b_row, block_col + b_col + j]"))
    res = exercises.check("09-2", import_source(src, tmp_path).issue_vec, save=False)
    assert res.code == "no_copy" and "cp.async 복사가 하나도 없습니다" in res.message, str(res)


def _zfill_src(*edits):
    src = (ROOT / "answers" / "ch09" / "ex09_zfill.py").read_text("utf-8")
    for old, new in edits:
        assert old in src
        src = src.replace(old, new)
    return src


@sim_only
def test_09_3_edge_sizes_are_named_per_thread(tmp_path):
    # review round 25, B-1 and U-7: an edge float4 with 3 floats inside is tested; a count one short, 12 bytes
    # rounded down to 8 and an all-or-nothing size are told apart, with the thread and its src-size
    count = "        n = min(4, cols - gcol)"

    def then(line):
        return count + "\n        " + line
    cases = [(count, "        n = min(4, cols - gcol - 1)", "하나 적게 셌습니다", "src-size 가 4 바이트"),
             (count, then("if n == 3:\n            n = 2"), "12 바이트를 8 로 내렸나요", "src-size 가 8 바이트"),
             (count, then("if n < 4:\n            n = 0"), "통째로 밖처럼 다뤘습니다", "src-size 가 0 바이트"),
             (count, then("if n == 3:\n            n = 4"), "12 바이트를 16 으로 올렸나요", "src-size 가 16 바이트")]
    for old, new, why, size in cases:
        res = exercises.check("09-3", import_source(_zfill_src((old, new)), tmp_path).copy16, save=False)
        assert not res.ok and why in res.message and size in res.message and "스레드 1" in res.message, str(res)
        assert res.where and "cp_async_cg_16_zfill" in res.where, str(res)


@sim_only
def test_09_3_one_16_byte_copy_per_thread(tmp_path):
    # review round 25, B-2: right values from 4-byte copies or plain stores are told what the exercise practises
    src = _zfill_src(("    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)",
                      "    for j in range(4):\n        ok = j < n\n"
                      "        ptx.cp_async_ca_4_zfill(S, stage, srow, scol + j, X, r if ok else 0, "
                      "c + j if ok else 0, 4 if ok else 0)"))
    res = exercises.check("09-3", import_source(src, tmp_path).copy16, save=False)
    assert res.code == "copy_size" and "4바이트 4번" in res.message and "cp_async_ca_4_zfill" in res.where, str(res)
    # 16 bytes for the full vectors (no zfill) and the zero-fill form at the edge: one copy each, a PASS
    src = _zfill_src(("    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)",
                      "    if n == 4:\n        ptx.cp_async_cg_16(S, stage, srow, scol, X, r, c)\n"
                      "    else:\n        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)"))
    res = exercises.check("09-3", import_source(src, tmp_path).copy16, save=False)
    assert res.ok and "16바이트 cp.async 하나" in res.message, str(res)


@sim_only
def test_09_3_a_shifted_start_is_not_told_to_use_smaller_copies(tmp_path):
    # review round 25, U-9: the simulator's advice for a start column off a 16-byte boundary in an aligned layout
    src = _zfill_src(("c = gcol if n > 0 else 0", "c = min(gcol, cols - 4) if n > 0 else 0"))
    res = exercises.check("09-3", import_source(src, tmp_path).copy16, save=False)
    text = str(res)
    assert res.code == "misaligned" and "미만 복사" not in text and "레이아웃을 쓰거나" not in text, text
    assert "마지막 축의 시작 인덱스" in text and "src-size" in text, text


@sim_only
def test_09_1_messages_of_round_25(tmp_path):
    from exercise_cases_09 import CASES
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    cases = {label: edits for label, edits, _ in CASES["09-1"]}

    def run(label):
        s = src
        for old, new in cases[label]:
            s = s.replace(old, new)
        return exercises.check("09-1", import_source(s, tmp_path).pipeline3, save=False)
    res = run("sync_loads_for_prefetch")          # B-5: the plain store is named at its line
    assert res.code == "sync_prefetch" and "As[" in res.message and res.where.count("As[nt % S3, ty, tx]"), str(res)
    res = run("compute_result_dropped")           # U-8: the return value, at the compute_tile line
    assert "돌려줍니다" in res.message and "acc = compute_tile(" in res.message, str(res)
    assert res.where and "compute_tile(As, Bs, kt % S3, acc)" in res.where, str(res)
    res = run("wait_group_with_argument")         # U-13: the functions that exist
    assert "cp_async_wait_group_0()" in res.message and "cp_async_wait_group_3()" in res.message, str(res)
    res = run("tail_waits_for_all_without_empty_commits")      # section E: why N had to change in the tail
    assert "commit 을 하지 않아" in res.message and "빈 그룹" in res.message, str(res)
    res = run("k_offset_loop_waits_for_everything")            # a commit in every iteration: nothing to add
    assert res.code == "no_overlap" and "commit 을 하지 않아" not in res.message, str(res)


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
