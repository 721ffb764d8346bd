"""Typical wrong answers of notebook 07's exercises (edits of answers/ch07/ex07_*.py) and the diagnosis each must get."""
CASES = {
    "07-1": [
        ("no_stride", [("thread_row = ty * TM ", "thread_row = ty "), ("thread_col = tx * TN ", "thread_col = tx ")],
         "overlap"),
        ("swapped_xy", [("thread_row = ty * TM ", "thread_row = tx * TM "), ("thread_col = tx * TN ", "thread_col = ty * TN ")],
         "swapped_xy"),
        ("tm_tn_mixed", [("thread_row = ty * TM ", "thread_row = ty * TN "), ("thread_col = tx * TN ", "thread_col = tx * TM ")],
         "tm_tn_mixed"),
        ("block_offset_added", [("thread_row = ty * TM ", "thread_row = cuda.blockIdx.y * 32 + ty * TM ")], "block_offset"),
        ("rows_only_stride", [("thread_col = tx * TN ", "thread_col = tx ")], "overlap"),
        ("column_first", [("return thread_row, thread_col", "return thread_col, thread_row")], "return_order"),
    ],
    "07-2": [
        ("stride_by_rows", [("stride = THREADS // cols ", "stride = THREADS // rows ")], "out_of_tile"),
        ("p_without_stride", [("return tid // cols + p * stride, tid % cols", "return tid // cols + p, tid % cols")],
         "overlap"),
        ("no_pass_offset", [("return tid // cols + p * stride, tid % cols", "return tid // cols, tid % cols")],
         "pass_repeat"),
        ("row_col_swapped", [("return tid // cols + p * stride, tid % cols", "return tid % cols + p * stride, tid // cols")],
         "out_of_tile"),
        ("calls_load_map", [("from course.ch07_register_blocking.exercises import THREADS",
                             "from course.ch07_register_blocking.exercises import THREADS\nimport course.ch07_register_blocking.lesson as L7"),
                            ("return tid // cols + p * stride, tid % cols",
                             "return L7.load_map(THREADS, rows, cols, stride)[(tid, p)]")], "host_helper"),
        ("divides_by_rows", [("return tid // cols + p * stride, tid % cols", "return tid // rows + p * stride, tid % rows")],
         "out_of_tile"),
        # a column of the tile per run of consecutive threads: right values, scattered global reads
        ("column_major", [("return tid // cols + p * stride, tid % cols",
                           "return tid % rows, tid // rows + p * (THREADS // rows)")], "uncoalesced"),
    ],
    "07-3": [
        ("ra_no_m", [("rA[m] = As[thread_row + m, k]", "rA[m] = As[thread_row, k]")], "ra_index"),
        ("rb_no_n", [("rB[n] = Bs[k, thread_col + n]", "rB[n] = Bs[k, thread_col]")], "rb_index"),
        ("overwrite", [("rC[m, n] += rA[m] * rB[n]", "rC[m, n] = rA[m] * rB[n]")], "overwrite"),
        ("no_k_loop", [("    for k in range(BK):\n", "    for k in range(1):\n")], "one_k_per_tile"),
        # half the k of each tile (review r18 I-3): the missing k are named, not the indices
        ("every_other_k", [("    for k in range(BK):\n", "    for k in range(0, BK, 2):\n")], "missing_k"),
        ("first_half_of_k", [("    for k in range(BK):\n", "    for k in range(BK // 2):\n")], "missing_k"),
        ("reset_rc", [("    for k in range(BK):\n", "    for m in range(TM):\n        for n in range(TN):\n"
                       "            rC[m, n] = 0.0\n    for k in range(BK):\n")], "acc_reset"),
        ("rb_transposed", [("rB[n] = Bs[k, thread_col + n]", "rB[n] = Bs[thread_col + n, k]")], "out_of_bounds"),
        # review r25 U1: rA[n] for rA[m] (a typo in the product): a pattern in every thread tile, named as the
        # micro-kernel's indices (the checker's kernel maps the threads), not as threadIdx
        ("ra_uses_n", [("rC[m, n] += rA[m] * rB[n]", "rC[m, n] += rA[n] * rB[n]")], "micro_index"),
        # review r25 U3: the m and n loops over TN and TM: rC overruns its second axis, and the message names rC
        ("rc_loops_swapped", [("        for m in range(TM):                    # TM + TN loads feed TM * TN multiply-adds\n"
                               "            for n in range(TN):\n                rC[m, n] += rA[m] * rB[n]",
                               "        for m in range(TN):\n            for n in range(TM):\n"
                               "                rC[m, n] += rA[n] * rB[m]")], "out_of_bounds"),
        # review r25 U2: the right body without @cuda.jit(device=True): named, not a raw AttributeError of cuda.local
        ("no_device_decorator", [("@cuda.jit(device=True)\n", "")], "not_device_function"),
        # rB never filled: the NaN comes from a register array, not from shared memory
        ("rb_never_filled", [("            rB[n] = Bs[k, thread_col + n]      # row k of this thread's TN columns of the B tile\n",
                              "            pass\n")], "register_unfilled"),
        ("inner_product", [("    for k in range(BK):\n        for m in range(TM):\n            rA[m]",
                            "    for m in range(TM):\n        for n in range(TN):\n            for k in range(BK):\n"
                            "                rC[m, n] += As[thread_row + m, k] * Bs[k, thread_col + n]\n"
                            "    for k in range(0):\n        for m in range(TM):\n            rA[m]")], "no_register_reuse"),
        # k outermost but the product reads As/Bs directly (NVVM may merge the repeated loads on the GPU; the task asks
        # for the reuse written out in rA/rB, and the message says both)
        ("outer_no_registers", [("            rA[m] = As[thread_row + m, k]      # column k of this thread's TM rows of the A tile\n"
                                 "        for n in range(TN):\n"
                                 "            rB[n] = Bs[k, thread_col + n]      # row k of this thread's TN columns of the B tile\n"
                                 "        for m in range(TM):                    # TM + TN loads feed TM * TN multiply-adds\n"
                                 "            for n in range(TN):\n"
                                 "                rC[m, n] += rA[m] * rB[n]",
                                 "            for n in range(TN):\n"
                                 "                rC[m, n] += As[thread_row + m, k] * Bs[k, thread_col + n]")],
         "no_register_reuse"),
    ],
    "07-4": [
        ("no_alloc_unit", [("per_warp = -(-regs * WARP // alloc_unit) * alloc_unit", "per_warp = regs * WARP")],
         "no_alloc_unit"),
        ("no_subpartition", [("warps_per_sm = (regs_per_sm // sub_partitions // per_warp) * sub_partitions",
                              "warps_per_sm = regs_per_sm // per_warp")], "no_subpartition"),
        ("float_blocks", [("return warps_per_sm // warps", "return warps_per_sm / warps")], "not_whole_blocks"),
        # a mistake of no known kind: the diagnosis shows an example against the model
        ("one_block_too_many", [("return warps_per_sm // warps", "return warps_per_sm // warps + 1")], "mismatch"),
        # review r19 M-1: the SM's other limits added (the §3.5 table's 'SM당 … 블록'), not the register limit asked
        ("capped_by_warp_slots", [("return warps_per_sm // warps", "return min(warps_per_sm // warps, 64 // warps)")],
         "other_limits"),
        ("capped_by_block_slots", [("return warps_per_sm // warps", "return min(warps_per_sm // warps, 32)")],
         "other_limits"),
        ("capped_by_both", [("return warps_per_sm // warps", "return min(warps_per_sm // warps, 64 // warps, 32)")],
         "other_limits"),
        ("division", [("    warps = -(-threads // WARP)\n    per_warp", "    return regs_per_sm // (regs * threads)\n    per_warp")],
         "division"),
        # review r25 U9: the whole block's registers rounded up to 256 (no per-warp unit, no sub-partitions)
        ("block_rounding", [("    warps = -(-threads // WARP)\n    per_warp",
                             "    return regs_per_sm // ((regs * threads + 255) // 256 * 256)\n    per_warp")],
         "block_alloc"),
        # the occupancy model asked for the answer (review r18 I-8): right values, nothing computed
        ("asks_the_model", [("    warps = -(-threads // WARP)\n    per_warp",
                             "    from sim import occupancy as occ\n"
                             "    return occ.occupancy(\"H100\", regs, threads).limits[\"registers\"]\n    per_warp")],
         "uses_model"),
    ],
}
