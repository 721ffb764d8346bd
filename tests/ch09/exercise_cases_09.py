"""Typical wrong answers of notebook 09's exercises (format: tests/exercise_cases.py)."""
_WAIT = "        ptx.cp_async_wait_group_1()  "
_BAR = "        cuda.syncthreads()           "
_COMMIT = "        ptx.cp_async_commit_group()  "

# the whole loop body of answers/ch09/ex09_pipeline.py, to rewrite it in the other (two-barrier) order
_BODY = """        ptx.cp_async_wait_group_1()          # S-2 = 1: S-1+kt groups committed, so groups 0..kt (tile kt) are mine
        cuda.syncthreads()                   # everyone's copies of tile kt landed; everyone finished tile kt-1
        if kt + S3 - 1 < n_tiles:            # its buffer (kt-1) % S3 was released by the barrier above
            issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)
        ptx.cp_async_commit_group()          # every iteration, an empty group in the tail: the count above holds
        acc = compute_tile(As, Bs, kt % S3, acc)
"""


def _two_barrier(second_barrier=True, commit_in_if=False):
    """The seed's order: prefetch, commit, wait_group(S-1), barrier, compute, barrier."""
    commit = "            ptx.cp_async_commit_group()\n" if commit_in_if else ""
    return [(_BODY, "        if kt + S3 - 1 < n_tiles:\n"
                    "            issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)\n" + commit
             + ("" if commit_in_if else "        ptx.cp_async_commit_group()\n")
             + "        ptx.cp_async_wait_group_2()\n        cuda.syncthreads()\n"
             + "        acc = compute_tile(As, Bs, kt % S3, acc)\n"
             + ("        cuda.syncthreads()\n" if second_barrier else ""))]


CASES = {
    "09-1": [
        # wait_group(S-1) in the one-barrier order: tile kt's group is still pending when it is computed
        ("wait_n_too_large", [(_WAIT, "        ptx.cp_async_wait_group_2()  ")], "wait_too_large"),
        ("no_wait", [(_WAIT, "        pass                         ")], "no_wait"),
        ("no_barrier_after_wait", [(_BAR, "        pass                         ")], "no_barrier_after_wait"),
        # the wait inside an if: iteration 0 computes without waiting (not a commit problem)
        ("wait_inside_if", [(_WAIT, "        if kt > 0:\n            ptx.cp_async_wait_group_1()\n        ")], "wait_skipped"),
        # the prefetch distance of a double buffer: the N is right, the distance is not
        ("prefetch_distance_one", [("issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)",
                                    "issue_tile(A, B, As, Bs, (kt + 1) % S3, kt + 1)"),
                                   ("if kt + S3 - 1 < n_tiles:", "if kt + 1 < n_tiles:")], "prefetch_distance"),
        # prefetch before the barrier: the buffer of tile kt-1 is refilled while slower threads still read it
        ("prefetch_before_barrier", [(_BAR, "        pass                         "),
                                     (_COMMIT, "        cuda.syncthreads()\n" + _COMMIT)], "overwrite_stage"),
        ("prefetch_into_current_stage", [("(kt + S3 - 1) % S3, kt + S3 - 1)", "kt % S3, kt + S3 - 1)")],
         "overwrite_stage"),
        # the seed's tail: commit only when a tile was issued
        ("commit_only_when_loading", [(_COMMIT, "            ptx.cp_async_commit_group()  ")], "tail_not_waited"),
        ("no_commit", [(_COMMIT, "        pass                         ")], "no_commit"),
        # commit before the issue: this iteration's copies join the next iteration's group, one group late
        ("commit_before_issue", [(_BODY, _BODY.replace(_COMMIT, "        pass                         ")
                                  .replace("        if kt + S3 - 1", "        ptx.cp_async_commit_group()\n        if kt + S3 - 1"))],
         "commit_before_issue"),
        ("compute_before_wait", [(_BODY, "        acc = compute_tile(As, Bs, kt % S3, acc)\n"
                                  + _BODY.replace("        acc = compute_tile(As, Bs, kt % S3, acc)\n", ""))],
         "compute_before_wait"),
        # the two-barrier order without its second barrier (WAR), and with the seed's tail
        ("two_barrier_order_missing_second", _two_barrier(second_barrier=False), "overwrite_stage"),
        ("two_barrier_order_seed_tail", _two_barrier(commit_in_if=True), "tail_not_waited"),
        # right values: the seed's two-barrier order, not the one barrier per tile this exercise asks for
        ("two_barrier_order", _two_barrier(), "two_barriers"),
        # review round 18 (W-2): the loop counted by the K offset; wait_group(0) leaves nothing in flight (no overlap)
        ("k_offset_loop_waits_for_everything",
         [("    for kt in range(n_tiles):", "    for k0 in range(0, n_tiles * T8, T8):\n        kt = k0 // T8"),
          (_WAIT, "        ptx.cp_async_wait_group_0()  ")], "no_overlap"),
        ("k_offset_loop_waits_for_everything_no_kt",
         [("    for kt in range(n_tiles):", "    for k0 in range(0, n_tiles * T8, T8):"),
          (_WAIT, "        ptx.cp_async_wait_group_0()  "),
          ("if kt + S3 - 1 < n_tiles:", "if k0 // T8 + S3 - 1 < n_tiles:"),
          ("issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)",
           "issue_tile(A, B, As, Bs, (k0 // T8 + S3 - 1) % S3, k0 // T8 + S3 - 1)"),
          ("compute_tile(As, Bs, kt % S3, acc)", "compute_tile(As, Bs, (k0 // T8) % S3, acc)")], "no_overlap"),
        # review round 19 (I-1): the template's loop, but the product read straight from global memory
        ("global_memory_loop", [(_BODY, "        for k in range(T8):\n"
                                        "            kk = kt * T8 + k\n"
                                        "            if row < A.shape[0] and col < B.shape[1] and kk < A.shape[1]:\n"
                                        "                acc += A[row, kk] * B[kk, col]\n")], "no_tile_calls"),
        # everything waited for before the loop, no wait inside it: tile 2 is read before it is waited for
        ("wait_all_before_loop", [(_WAIT, "        pass                         "),
                                  ("    for kt in range(n_tiles):",
                                   "    ptx.cp_async_wait_all()\n    for kt in range(n_tiles):")], "no_wait"),
        # review round 25 (B-5): tile kt + 2 prefetched with plain loads through registers (commits and waits around
        # empty groups): the right values, but no cp.async copy flies while the tile is computed
        ("sync_loads_for_prefetch", [("            issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)",
                                      "            nt = kt + S3 - 1\n"
                                      "            a_c, b_r = nt * T8 + tx, nt * T8 + ty\n"
                                      "            As[nt % S3, ty, tx] = A[row, a_c] if row < A.shape[0] and a_c < "
                                      "A.shape[1] else float32(0.0)\n"
                                      "            Bs[nt % S3, ty, tx] = B[b_r, col] if b_r < B.shape[0] and col < "
                                      "B.shape[1] else float32(0.0)")], "sync_prefetch"),
        # review round 25 (U-8): compute_tile's sum never kept: named as the discarded return value
        ("compute_result_dropped", [("        acc = compute_tile(As, Bs, kt % S3, acc)",
                                     "        compute_tile(As, Bs, kt % S3, acc)")], "result_unused"),
        # review round 25 (U-13): N passed as an argument to a wait_group that does not exist
        ("wait_group_with_argument", [(_WAIT, "        ptx.cp_async_wait_group(1)   ")], "ptx_name"),
        # review round 25 (section E): commits only where a tile is issued, the tail waits for everything
        ("tail_waits_for_all_without_empty_commits",
         [(_BODY, "        if kt + S3 - 1 < n_tiles:\n"
                  "            ptx.cp_async_wait_group_1()\n"
                  "            cuda.syncthreads()\n"
                  "            issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)\n"
                  "            ptx.cp_async_commit_group()\n"
                  "        else:\n"
                  "            ptx.cp_async_wait_group_0()\n"
                  "            cuda.syncthreads()\n"
                  "        acc = compute_tile(As, Bs, kt % S3, acc)\n")], "no_overlap"),
    ],
}

_A_MAP = "a_row, a_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC"
_B_MAP = "b_row, b_col = tid // (BN // VEC), (tid % (BN // VEC)) * VEC"
CASES["09-2"] = [
    # the column counted in float4 instead of floats: a copy starts 4 B into a row
    ("column_not_times_vec", [(_A_MAP, "a_row, a_col = tid // (BK // VEC), tid % (BK // VEC)")], "misaligned"),
    # A divided by B's float4 per row: rows 0..7 only, every float4 there copied by four threads
    ("a_rows_with_b_count", [(_A_MAP, "a_row, a_col = tid // (BN // VEC), (tid % (BK // VEC)) * VEC")], "overlap"),
    ("no_k_offset", [("kt * BK + a_col)", "a_col)")], "no_k_offset"),
    ("no_block_row", [("A, block_row + a_row,", "A, a_row,")], "misplaced"),
    ("b_with_a_map", [(_B_MAP, "b_row, b_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC")], "out_of_bounds"),
    ("b_half_the_columns", [(_B_MAP, "b_row, b_col = tid // (BN // VEC), (tid % (BN // VEC)) * 2")], "misaligned"),
    # review round 17 (M-2): the right tiles from four 4-byte copies per float4 (no 16-byte copy, no alignment rule):
    # judged from the copies the simulator saw
    ("four_byte_copies", [("    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, kt * BK + a_col)",
                           "    for j in range(VEC):\n        ptx.cp_async_ca_4(As, stage, a_row, a_col + j, A, "
                           "block_row + a_row, kt * BK + a_col + j)")], "copy_size"),
    # review round 17 (I-4): the K tile number as the buffer index: named as the buffer index, not the tile mapping
    ("kt_as_the_buffer", [("ptx.cp_async_cg_16(As, stage,", "ptx.cp_async_cg_16(As, kt,")], "stage_out_of_range"),
    # review round 20 (W-1): the buffer computed from the K tile (kt % 3): buffers 0·1·2 get K tiles 3·0·4, so one
    # thread copies tiles 3 and 0 into buffer 0: the same thread's double copy, named as the buffer, not the tid map
    ("kt_mod_3_as_the_buffer", [("ptx.cp_async_cg_16(As, stage,", "ptx.cp_async_cg_16(As, kt % 3,")], "stage_twice"),
    # review round 21 (M-1): B's K offset on the column and the block offset on the row (the two swapped): the K
    # offset is there, on the wrong axis; not "missing" (block (0, 0) alone looks like K tile 0 everywhere)
    ("b_offsets_swapped", [("B, kt * BK + b_row, block_col + b_col)", "B, block_col + b_row, kt * BK + b_col)")],
     "k_offset_axis"),
    ("kt_mod_3_for_both", [("ptx.cp_async_cg_16(As, stage,", "ptx.cp_async_cg_16(As, kt % 3,"),
                           ("ptx.cp_async_cg_16(Bs, stage,", "ptx.cp_async_cg_16(Bs, kt % 3,")], "stage_twice"),
    # review round 25 (B-3): the tiles moved with plain loads and stores, no cp.async at all
    ("plain_loads", [("    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, kt * BK + a_col)",
                      "    for j in range(VEC):\n"
                      "        As[stage, a_row, a_col + j] = A[block_row + a_row, kt * BK + a_col + j]"),
                     ("    ptx.cp_async_cg_16(Bs, stage, b_row, b_col, B, kt * BK + b_row, block_col + b_col)",
                      "    for j in range(VEC):\n"
                      "        Bs[stage, b_row, b_col + j] = B[kt * BK + b_row, block_col + b_col + j]")],
     "no_copy"),
    # only B by cp.async: A's float4 goes through registers (one 16-byte copy per call instead of two)
    ("a_through_registers", [("    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, kt * BK + a_col)",
                              "    for j in range(VEC):\n"
                              "        As[stage, a_row, a_col + j] = A[block_row + a_row, kt * BK + a_col + j]")],
     "copy_count"),
    # review round 25 (B-6): A walked down its 32 rows first: right values, but a warp touches 32 half-used sectors
    ("a_column_major_uncoalesced", [(_A_MAP, "a_row, a_col = tid % BM, (tid // BM) * VEC")], "uncoalesced"),
]

CASES["09-3"] = [
    ("always_16_bytes", [("X, r, c, 4 * n)", "X, r, c, 16)")], "edge_overread"),
    ("src_size_in_floats", [("X, r, c, 4 * n)", "X, r, c, n)")], "src_size_units"),
    ("no_address_clamp", [("r = grow if n > 0 else 0", "r = grow"), ("c = gcol if n > 0 else 0", "c = gcol")],
     "out_of_bounds"),
    ("partial_vector_dropped", [("n = min(4, cols - gcol)", "n = 4 if gcol + 4 <= cols else 0")], "edge_zeroed"),
    # "fit the float4 inside the matrix" by moving its start: the source is then off a 16-byte boundary
    ("shift_start_to_fit", [("c = gcol if n > 0 else 0", "c = min(gcol, cols - 4) if n > 0 else 0")], "misaligned"),
    # the count of floats inside, not clamped at 0: past the last column it is negative
    ("negative_size", [("if grow < rows and gcol < cols:\n        n = min(4, cols - gcol)",
                        "if grow < rows:\n        n = min(4, cols - gcol)")], "negative_size"),
    ("bounds_from_x_shape", [("if grow < rows and gcol < cols:\n        n = min(4, cols - gcol)",
                              "if grow < X.shape[0] and gcol < X.shape[1]:\n        n = min(4, X.shape[1] - gcol)")],
     "edge_overread"),
    # rows checked against rows, columns against X's padded row length (review round 10, I-2): a column message
    ("cols_from_x_shape", [("if grow < rows and gcol < cols:\n        n = min(4, cols - gcol)",
                            "if grow < rows and gcol < X.shape[1]:\n        n = min(4, X.shape[1] - gcol)")],
     "edge_overread"),
    # no row check, an out-of-matrix row clamped to row 0: 16 bytes of row 0 arrive where 0 belongs (values, not PAD)
    ("no_row_check_clamped", [("if grow < rows and gcol < cols:\n        n = min(4, cols - gcol)",
                               "if gcol < cols:\n        n = min(4, cols - gcol)"),
                              ("r = grow if n > 0 else 0", "r = grow if grow < rows else 0")], "edge_overread"),
    # review round 25 (B-1): 12 bytes rounded to a copy size; no tested shape had 3 floats inside an edge float4
    ("three_inside_rounded_up", [("        n = min(4, cols - gcol)", "        n = min(4, cols - gcol)\n"
                                  "        if n == 3:\n            n = 4")], "edge_overread"),
    ("three_inside_rounded_down", [("        n = min(4, cols - gcol)", "        n = min(4, cols - gcol)\n"
                                    "        if n == 3:\n            n = 2")], "edge_zeroed"),
    # review round 25 (U-7): the count inside one short: named per thread with its src-size
    ("count_one_short", [("n = min(4, cols - gcol)", "n = min(4, cols - gcol - 1)")], "edge_zeroed"),
    # review round 25 (B-2): right values without the one 16-byte copy: four 4-byte zero-fill copies, plain loads
    ("four_4_byte_copies", [("    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)",
                             "    for j in range(4):\n"
                             "        ok = j < n\n"
                             "        ptx.cp_async_ca_4_zfill(S, stage, srow, scol + j, X, r if ok else 0, "
                             "c + j if ok else 0, 4 if ok else 0)")], "copy_size"),
    ("plain_loads", [("    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)",
                      "    for j in range(4):\n"
                      "        S[stage, srow, scol + j] = X[grow, gcol + j] if j < n else 0.0")], "no_copy"),
]
