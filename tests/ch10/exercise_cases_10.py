"""Typical wrong answers of notebook 10's exercises (format: tests/exercise_cases.py)."""
MMA = "        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)\n"


def FMA(k_from):
    """10-5's K step from k = k_from on as plain FMAs of the shared tiles (lane's c0..c3: rows g, g + 8, cols 2t, 2t+1)."""
    return ("        g, t = lane // 4, lane % 4\n"
            f"        for k in range({k_from}, 16):\n"
            "            c0 += float32(As[g, k]) * float32(Bs[k, 2 * t])\n"
            "            c1 += float32(As[g, k]) * float32(Bs[k, 2 * t + 1])\n"
            "            c2 += float32(As[g + 8, k]) * float32(Bs[k, 2 * t])\n"
            "            c3 += float32(As[g + 8, k]) * float32(Bs[k, 2 * t + 1])\n")


CASES = {
    "10-1": [
        ("g_t_swapped", [("g, t = lane >> 2, lane % 4", "g, t = lane % 4, lane >> 2")], "lane_groups"),
        ("rows_first", [("return [(g, 2 * t), (g, 2 * t + 1),     # c0, c1: row g\n            (g + 8, 2 * t), (g + 8, 2 * t + 1)]",
                         "return [(g, 2 * t), (g + 8, 2 * t),\n            (g, 2 * t + 1), (g + 8, 2 * t + 1)]")],
         "register_order"),
        ("no_plus_8", [("(g + 8, 2 * t), (g + 8, 2 * t + 1)]", "(g, 2 * t), (g, 2 * t + 1)]")], "row_offset"),
        ("transposed", [("return [(g, 2 * t), (g, 2 * t + 1),     # c0, c1: row g\n            (g + 8, 2 * t), (g + 8, 2 * t + 1)]",
                         "return [(2 * t, g), (2 * t + 1, g),\n            (2 * t, g + 8), (2 * t + 1, g + 8)]")],
         "transposed"),
        ("groups_of_8", [("g, t = lane >> 2, lane % 4", "g, t = lane >> 3, lane % 8")], "lane_groups"),
        ("t_mod_8", [("g, t = lane >> 2, lane % 4", "g, t = lane >> 2, lane % 8")], "out_of_range"),
        # neighbouring groups exchanged: every element once, but at the wrong lane
        ("groups_exchanged", [("g, t = lane >> 2, lane % 4", "g, t = (lane >> 2) ^ 1, lane % 4")], "wrong_elements"),
        ("calls_model", [('"""Solutions, notebook 10', 'from sim import mma\n"""Solutions, notebook 10'),
                         ("    g, t = lane >> 2, lane % 4              # groupID", "    return mma.c_elements(lane)\n    g, t = 0, 0  # groupID")],
         "uses_model"),
    ],
    "10-2": [
        ("a1_a2_swapped", [("row = g + 8 * (reg % 2)", "row = g + 8 * (reg // 2)"),
                           ("col = 2 * t + 8 * (reg // 2)", "col = 2 * t + 8 * (reg % 2)")], "register_order"),
        ("halves_swapped", [("out += [(row, col), (row, col + 1)]", "out += [(row, col + 1), (row, col)]")],
         "register_order"),
        ("transposed", [("out += [(row, col), (row, col + 1)]", "out += [(col, row), (col + 1, row)]")], "transposed"),
        ("g_t_swapped", [("g, t = lane >> 2, lane % 4", "g, t = lane % 4, lane >> 2")], "lane_groups"),
        ("no_col_plus_8", [("col = 2 * t + 8 * (reg // 2)", "col = 2 * t")], "col_offset"),
    ],
    "10-3": [
        ("row_major_b", [("out += [(k, g), (k + 1, g)]", "out += [(g, k), (g, k + 1)]")], "transposed"),
        ("g_t_swapped", [("g, t = lane >> 2, lane % 4", "g, t = lane % 4, lane >> 2")], "lane_groups"),
        ("b0_b1_swapped", [("for reg in range(2):", "for reg in (1, 0):")], "register_order"),
        ("no_k_plus_8", [("k = 2 * t + 8 * reg", "k = 2 * t")], "row_offset"),
        ("adjacent_cols", [("out += [(k, g), (k + 1, g)]", "out += [(k, g), (k, g + 1)]")], "half_axis"),
        # C's pattern copied (the row-major reading of B): every register's halves are neighbouring n of one k
        ("c_pattern_copied", [("out += [(k, g), (k + 1, g)]", "out += [(g + 8 * reg, 2 * t), (g + 8 * reg, 2 * t + 1)]")],
         "half_axis"),
    ],
    "10-4": [
        ("a1_a2_swapped", [("a = (lane % 16, 8 * (lane // 16))", "a = (lane % 8 + 8 * (lane // 16), 8 * (lane // 8 % 2))")],
         "a_register_order"),
        ("element_not_row", [("a = (lane % 16, 8 * (lane // 16))", "a = (lane % 16, lane // 16)")], "misaligned"),
        ("copy_pattern", [("a = (lane % 16, 8 * (lane // 16))", "a = (lane // 2, 8 * (lane % 2))")], "a_rows"),
        ("b_rows_0_7_twice", [("b = (lane % 16, 0)", "b = (lane % 8, 0)")], "b_rows"),
        ("b_two_columns", [("b = (lane % 16, 0)", "b = (lane % 8 + 8 * (lane // 16), 8 * (lane // 8 % 2))")],
         "out_of_range"),
        ("b_halves_swapped", [("b = (lane % 16, 0)", "b = ((lane + 8) % 16, 0)")], "b_register_order"),
        ("calls_model", [('"""Solution, 10', 'from sim import mma\n"""Solution, 10'),
                         ("a = (lane % 16, 8 * (lane // 16))", "a = mma.ldmatrix_for_mma()['A'][lane]")], "uses_model"),
    ],
    "10-5": [
        ("acc_reset", [("b0, b1, c0, c1, c2, c3)", "b0, b1, float32(0.0), float32(0.0), float32(0.0), float32(0.0))")],
         "acc_reset"),
        # the mma after the loop (review round 18, I-4): the same observation (the last K step alone), another cause
        ("mma_after_the_loop", [("        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)\n", ""),
                                ("    store_fragment(C,", "    c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, "
                                 "c2, c3)\n    store_fragment(C,")], "acc_reset"),
        ("no_trailing_barrier", [("        cuda.syncthreads()                  # every lane", "        pass  # every lane")],
         "race"),
        ("no_trans_for_b", [("ptx.ldmatrix_x2_trans(Bs", "ptx.ldmatrix_x2(Bs")], "b_not_transposed"),
        ("a1_a2_swapped", [("a0, a1, a2, a3, b0, b1, c0", "a0, a2, a1, a3, b0, b1, c0")], "a_halves_swapped"),
        ("b0_b1_swapped", [("a3, b0, b1, c0", "a3, b1, b0, c0")], "b_halves_swapped"),
        ("trans_for_a", [("ptx.ldmatrix_x4(As", "ptx.ldmatrix_x4_trans(As")], "a_transposed"),
        # row addresses of lane % 8 (review round 10, I-5): the k / row half read twice is named, with 10-4's rule
        ("bs_rows_lane_mod_8", [("ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)", "ptx.ldmatrix_x2_trans(Bs, lane % 8, 0)")],
         "b_rows"),
        ("as_rows_lane_mod_8", [("ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))",
                                 "ptx.ldmatrix_x4(As, lane % 8, 8 * (lane // 16))")], "a_rows"),
        # review round 25 (students 09-11), U-12: A's columns 0-7 read twice (every lane at column 0), one k8 mma
        ("as_cols_all_0", [("ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))", "ptx.ldmatrix_x4(As, lane % 16, 0)")],
         "a_cols"),
        ("one_k8_mma_per_step", [("ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)",
                                  "ptx.mma_m16n8k8_f32(a0, a1, b0, c0, c1, c2, c3)")], "half_k"),
        # U-11: the mma line twice; the detail counts the mma of block (0, 0) per K step and names both lines
        ("mma_twice", [(MMA, MMA + MMA)], "k_tile_counts"),
        # U-1: a column address past the tile (lanes 16-31 at As[.., 16]): the lane, the array and the line named
        ("as_col_lane_div8", [("ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))",
                               "ptx.ldmatrix_x4(As, lane % 8, 8 * (lane // 8))")], "out_of_bounds"),
        # U-2: the mma stand-in names the ten operands it takes (was numpy's broadcasting error)
        ("mma_without_c", [("b0, b1, c0, c1, c2, c3)", "b0, b1)")], "mma_operands"),
        ("mma_given_tuples", [("a0, a1, a2, a3 = ptx.ldmatrix_x4(", "a = ptx.ldmatrix_x4("),
                              ("b0, b1 = ptx.ldmatrix_x2_trans(", "b = ptx.ldmatrix_x2_trans("),
                              ("mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0", "mma_m16n8k16_f32(a, b, c0")], "mma_operands"),
        # B-4: right values without Tensor Cores (scalar FMAs of the tile in shared memory), or with mma for half of K
        ("scalar_fma_no_mma", [(MMA, FMA(0))], "no_mma"),
        ("mma_for_half_of_k", [(MMA, "        c0, c1, c2, c3 = ptx.mma_m16n8k8_f32(a0, a1, b0, c0, c1, c2, c3)\n" + FMA(8))],
         "partial_mma"),
        # B-4: B's fragment packed by hand from Bs (the simulator's pack helper: no ldmatrix for B)
        ("b_fragment_by_hand", [("from kernels_numba.infra import ptx", "from kernels_numba.infra import ptx\n"
                                 "from kernels_numba.infra.simulator.warp import pack_halves"),
                                ("b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)",
                                 "n, q = lane // 4, 2 * (lane % 4)\n"
                                 "        b0 = pack_halves(Bs[q, n], Bs[q + 1, n])\n"
                                 "        b1 = pack_halves(Bs[q + 8, n], Bs[q + 9, n])")], "no_ldmatrix"),
    ],
}

# an alias of the model's function is caught too (not only `mma.c_elements`)
CASES["10-2"].append(("alias_of_model", [('"""Solution, 10', 'from sim.mma import a_elements as frag_a\n"""Solution, 10'),
                                         ("    out = []\n", "    return frag_a(lane)\n")], "uses_model"))
