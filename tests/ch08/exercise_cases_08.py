"""Typical wrong answers of notebook 08's exercises (edits of answers/ch08/ex08_*.py) and the diagnosis each must get."""
_LOOP_LOAD_A = "a = load_or_zero(A, row, (kt + 1) * T8 + tx)"
_LOOP_LOAD_B = "b = load_or_zero(B, (kt + 1) * T8 + ty, col)"
_STORE_A = "As[(kt + 1) % 2, ty, tx] = a"
_STORE_B = "Bs[(kt + 1) % 2, ty, tx] = b"
_LOOP_BARRIER = "        cuda.syncthreads()          # next iteration"
_LOOP = "    for kt in range(n_tiles - 1):"
_EPILOGUE = "    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)"
_COMPUTE = "        acc += tile_dot(As, Bs, kt % 2, ty, tx)       # 2. compute tile kt while the loads are on their way"
_KERNEL = "@cuda.jit\ndef db8("
_BS_DECL = "    Bs = cuda.shared.array((2, T8, T8), float32)      # [buffer][k][column]"
_K0_LOOP = "    for k0 in range(T8, n_tiles * T8, T8):"
_WHILE = "    kt = 0\n    while kt < n_tiles - 1:"
_UNROLLED_BY_TWO = """    for kt in range(0, n_tiles - 1, 2):
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, 0, ty, tx)            # tile kt (even) is in buffer 0
        As[1, ty, tx] = a
        Bs[1, ty, tx] = b
        cuda.syncthreads()
        if kt + 1 < n_tiles - 1:
            a = load_or_zero(A, row, (kt + 2) * T8 + tx)
            b = load_or_zero(B, (kt + 2) * T8 + ty, col)
            acc += tile_dot(As, Bs, 1, ty, tx)        # tile kt + 1 (odd) is in buffer 1
            As[0, ty, tx] = a
            Bs[0, ty, tx] = b
            cuda.syncthreads()
    for kt in range(0):
"""


def _helper(src):
    """An edit that puts a device function of the student's own above the kernel."""
    return (_KERNEL, "@cuda.jit(device=True)\n" + src.strip("\n") + "\n\n\n" + _KERNEL)


CASES = {
    "08-1": [
        ("prefetch_next_tile_always", [("nxt = kt + stages - 1", "nxt = kt + 1")], "prefetch_distance"),
        ("into_the_buffer_being_read", [("nxt % stages if nxt < n_tiles", "kt % stages if nxt < n_tiles")],
         "overwrite_in_use"),
        ("into_a_pending_buffer", [("nxt % stages if nxt < n_tiles", "(kt + 1) % stages if nxt < n_tiles")],
         "overwrite_pending"),
        ("prefetch_past_the_end", [("nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None",
                                    "nxt, nxt % stages")], "past_end"),
        ("compute_from_the_prefetch_buffer", [("rows.append((kt, kt % stages,", "rows.append((kt, nxt % stages,")],
         "compute_buffer"),
        # right shape, float values (review round 17, I-2): told the values must be integers, not the shape
        ("float_rows", [("rows.append((kt, kt % stages,", "rows.append((float(kt), kt % stages,")], "input"),
        # review r25 U7: -1 instead of None past the end: past_end, and the message says None marks 'no prefetch'
        ("minus_one_past_the_end", [("nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None",
                                     "nxt if nxt < n_tiles else -1, nxt % stages if nxt < n_tiles else -1")],
         "past_end"),
        ("stops_one_early", [("nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None",
                              "nxt if nxt < n_tiles - 1 else None, nxt % stages if nxt < n_tiles - 1 else None")],
         "missing_prefetch"),
    ],
    "08-2": [
        ("no_loop_barrier", [(_LOOP_BARRIER, "        pass  # next iteration")], "race"),
        ("barrier_before_store_only", [(_COMPUTE, _COMPUTE + "\n        cuda.syncthreads()"),
                                       (_LOOP_BARRIER, "        pass  # next iteration")], "race"),
        ("store_into_buffer_being_read", [(_STORE_A, "As[kt % 2, ty, tx] = a"), (_STORE_B, "Bs[kt % 2, ty, tx] = b")],
         "store_into_current"),
        ("store_into_current_after_a_barrier", [(_COMPUTE, _COMPUTE + "\n        cuda.syncthreads()"),
                                                (_STORE_A, "As[kt % 2, ty, tx] = a"), (_STORE_B, "Bs[kt % 2, ty, tx] = b")],
         "store_into_current"),
        ("prefetch_tile_kt", [(_LOOP_LOAD_A, "a = load_or_zero(A, row, kt * T8 + tx)"),
                              (_LOOP_LOAD_B, "b = load_or_zero(B, kt * T8 + ty, col)")], "prefetch_same_tile"),
        ("no_epilogue", [("    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)", "    pass")], "last_k_tile"),
        ("epilogue_wrong_buffer", [("tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)",
                                    "tile_dot(As, Bs, n_tiles % 2, ty, tx)")],
         "epilogue_buffer"),
        ("compute_the_other_buffer", [(_COMPUTE, "        acc += tile_dot(As, Bs, (kt + 1) % 2, ty, tx)")],
         "compute_buffer"),
        ("store_before_compute", [(_COMPUTE + "\n", "        pass\n"),
                                  (_LOOP_BARRIER, "        acc += tile_dot(As, Bs, kt % 2, ty, tx)\n" + _LOOP_BARRIER)],
         "store_before_compute"),
        ("load_after_compute", [(_COMPUTE + "\n", ""),
                                ("        " + _LOOP_LOAD_A, _COMPUTE + "\n        " + _LOOP_LOAD_A)], "load_after_compute"),
        # right values without the lesson's technique (review r08 M-1): one buffer and two barriers; a second barrier
        ("single_buffer_two_barriers", [(_COMPUTE, "        acc += tile_dot(As, Bs, 0, ty, tx)\n        cuda.syncthreads()"),
                                        (_STORE_A, "As[0, ty, tx] = a"), (_STORE_B, "Bs[0, ty, tx] = b"),
                                        ("tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)", "tile_dot(As, Bs, 0, ty, tx)")],
         "single_buffer"),
        ("barrier_after_compute_too", [(_COMPUTE, _COMPUTE + "\n        cuda.syncthreads()")], "two_barriers"),
        ("prefetch_two_ahead", [(_LOOP_LOAD_A, "a = load_or_zero(A, row, (kt + 2) * T8 + tx)"),
                                (_LOOP_LOAD_B, "b = load_or_zero(B, (kt + 2) * T8 + ty, col)")], "prefetch_tile"),
        # right values, n_tiles iterations (review round 16, M-1), told apart from the trace: db's guarded form (the
        # last iteration prefetches nothing and computes the last tile, no epilogue) is not the asked structure; an
        # unguarded loop's last iteration asks for tile n_tiles, outside the matrix (the message names it)
        ("db_guarded_loop_without_epilogue",
         [(_LOOP, "    for kt in range(n_tiles):"),
          ("        " + _LOOP_LOAD_A, "        if kt + 1 < n_tiles:\n            " + _LOOP_LOAD_A),
          ("        " + _LOOP_LOAD_B, "            " + _LOOP_LOAD_B),
          ("        " + _STORE_A, "        if kt + 1 < n_tiles:\n            " + _STORE_A),
          ("        " + _STORE_B, "            " + _STORE_B), (_EPILOGUE, "    pass")], "guarded_last_iteration"),
        ("empty_last_iteration", [(_LOOP, "    for kt in range(n_tiles):"),
                                  ("        " + _LOOP_LOAD_A, "        if kt + 1 == n_tiles:\n            continue\n"
                                   "        " + _LOOP_LOAD_A)], "guarded_last_iteration"),
        ("unguarded_loop_without_epilogue", [(_LOOP, "    for kt in range(n_tiles):"), (_EPILOGUE, "    pass")],
         "extra_iterations"),
        ("one_tile_too_many", [("(A.shape[1] + T8 - 1) // T8", "(A.shape[1] + T8 + 1) // T8")], "extra_iterations"),
        # review round 17 (W-2): every load of the next tile is judged, not only the first; the B load after the compute
        ("b_load_after_compute", [("        " + _LOOP_LOAD_B + "\n", ""),
                                  (_STORE_B, "Bs[(kt + 1) % 2, ty, tx] = load_or_zero(B, (kt + 1) * T8 + ty, col)")],
         "load_after_compute"),
        # ... also when a helper of the student's own holds the iteration (its events belong to the loop's kt)
        ("helper_computes_before_its_loads",
         [(_LOOP_LOAD_A, "pass"), ("        " + _LOOP_LOAD_B + "\n", ""),
          (_COMPUTE, "        acc += step(A, B, As, Bs, row, col, kt, ty, tx)"), (_STORE_A, "pass"), (_STORE_B, "pass"),
          _helper("""
def step(A, B, As, Bs, row, col, kt, ty, tx):
    s = tile_dot(As, Bs, kt % 2, ty, tx)
    a = load_or_zero(A, row, (kt + 1) * T8 + tx)
    b = load_or_zero(B, (kt + 1) * T8 + ty, col)
    As[(kt + 1) % 2, ty, tx] = a
    Bs[(kt + 1) % 2, ty, tx] = b
    return s""")], "load_after_compute"),
        # review round 17 (M-1): wrong indices or registers in the loop's loads and stores, invisible in thread (0, 0)
        # (tx = ty = row = col = 0): the stores of every thread are checked against the element their place must hold
        ("b_row_from_tx", [(_LOOP_LOAD_B, "b = load_or_zero(B, (kt + 1) * T8 + tx, col)")], "wrong_element"),
        ("a_row_from_col", [(_LOOP_LOAD_A, "a = load_or_zero(A, col, (kt + 1) * T8 + tx)")], "wrong_element"),
        ("a_and_b_swapped_in_the_stores", [(_STORE_A, "As[(kt + 1) % 2, ty, tx] = b"),
                                           (_STORE_B, "Bs[(kt + 1) % 2, ty, tx] = a")], "wrong_element"),
        # review round 18 (W-2): the loop counted by the K offset (`for k0 in range(T8, n_tiles * T8, T8)`, as mma_large
        # does): the loop is found by what the thread did, not by a counter that grows by 1, so the technique is judged
        ("k_offset_loop_single_buffer_two_barriers",
         [(_LOOP, _K0_LOOP), (_LOOP_LOAD_A, "a = load_or_zero(A, row, k0 + tx)"),
          (_LOOP_LOAD_B, "b = load_or_zero(B, k0 + ty, col)"),
          (_COMPUTE, "        acc += tile_dot(As, Bs, 0, ty, tx)\n        cuda.syncthreads()"),
          (_STORE_A, "As[0, ty, tx] = a"), (_STORE_B, "Bs[0, ty, tx] = b"),
          ("tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)", "tile_dot(As, Bs, 0, ty, tx)")], "single_buffer"),
        ("k_offset_loop_store_before_compute",
         [(_LOOP, _K0_LOOP), (_LOOP_LOAD_A, "As[(k0 // T8) % 2, ty, tx] = load_or_zero(A, row, k0 + tx)"),
          (_LOOP_LOAD_B, "Bs[(k0 // T8) % 2, ty, tx] = load_or_zero(B, k0 + ty, col)"),
          (_COMPUTE, "        acc += tile_dot(As, Bs, (k0 // T8 - 1) % 2, ty, tx)"), (_STORE_A, "pass"),
          (_STORE_B, "pass")], "store_before_compute"),
        # review round 19 (W-1): right values without shared memory: the loop computes tile kt from global memory, with
        # no shared memory at all (a) or while it stores the next tile into the other buffer (b): never a PASS
        ("computes_from_global_without_shared_memory",
         [(_LOOP_LOAD_A, "pass"), ("        " + _LOOP_LOAD_B + "\n", ""),
          (_COMPUTE, "        for kk in range(T8):\n"
                     "            acc += load_or_zero(A, row, kt * T8 + kk) * load_or_zero(B, kt * T8 + kk, col)"),
          (_STORE_A, "pass"), (_STORE_B, "pass"), (_LOOP_BARRIER, "        pass  # next iteration"),
          (_EPILOGUE, "    for kk in range(T8):\n        acc += load_or_zero(A, row, (n_tiles - 1) * T8 + kk) * "
                      "load_or_zero(B, (n_tiles - 1) * T8 + kk, col)")], "no_shared_compute"),
        ("stores_the_next_tile_but_computes_from_global",
         [(_COMPUTE, "        for kk in range(T8):\n"
                     "            acc += load_or_zero(A, row, kt * T8 + kk) * load_or_zero(B, kt * T8 + kk, col)")],
         "no_shared_compute"),
        # ... the loop right, the epilogue computing the last tile from global memory instead of its buffer
        ("epilogue_from_global",
         [(_EPILOGUE, "    for kk in range(T8):\n        acc += load_or_zero(A, row, (n_tiles - 1) * T8 + kk) * "
                      "load_or_zero(B, (n_tiles - 1) * T8 + kk, col)")], "no_shared_compute"),
        # ... the loop computing from shared memory and reading tile kt from global memory once more (wasted)
        ("rereads_the_current_tile_from_global",
         [(_COMPUTE, _COMPUTE + "\n        acc += load_or_zero(A, row, kt * T8 + tx) * float32(0.0)")],
         "prefetch_same_tile"),
    ],
    "08-3": [
        ("common_formula", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                             "return t_load + n_tiles * max(t_load, t_comp)")], "load_bound_overcount"),
        ("steady_state_only", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                                "return n_tiles * max(t_load, t_comp)")], "no_fill_drain"),
        ("compute_always_longer", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                                    "return t_load + n_tiles * t_comp")], "compute_bound_only"),
        # 3.1's "N·8 + 2" (load-bound) taken as the general rule (review round 17, I-1)
        ("load_always_longer", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                                 "return n_tiles * t_load + t_comp")], "load_bound_only"),
        ("min_instead_of_max", [("(n_tiles - 1) * max(t_load, t_comp)", "(n_tiles - 1) * min(t_load, t_comp)")],
         "min_not_max"),
        # review r25 U10: (double, single) returned: both right, the order is named
        ("swapped_pair", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                           "return double_total(t_load, t_comp, n_tiles), single_total(t_load, t_comp, n_tiles)")],
         "swapped"),
        ("single_with_max", [("return n_tiles * (t_load + t_comp)", "return n_tiles * max(t_load, t_comp)")], "single"),
        ("asks_the_model", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                             "from sim import pipeline\n"
                             "    return (pipeline.schedule(n_tiles, t_load, t_comp, 1).total,\n"
                             "            pipeline.schedule(n_tiles, t_load, t_comp, 2).total)")], "uses_model"),
        ("returns_speedup", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                              "return speedup(t_load, t_comp, n_tiles)")], "input"),
    ],
}


# Right answers written differently from the solution (edits of it, as in CASES): each must pass. Review round 17 (W-1):
# the prefetch through a device function of the student's own, as db_overlap's load_tile_to_registers does (4.6).
RIGHT = {
    "08-2": [
        ("prefetch_through_a_helper_into_local_arrays",
         [(_BS_DECL, _BS_DECL + "\n    ra = cuda.local.array(1, float32)\n    rb = cuda.local.array(1, float32)"),
          (_LOOP_LOAD_A, "load_next(A, B, ra, rb, row, col, kt + 1, ty, tx)"), ("        " + _LOOP_LOAD_B + "\n", ""),
          (_STORE_A, "As[(kt + 1) % 2, ty, tx] = ra[0]"), (_STORE_B, "Bs[(kt + 1) % 2, ty, tx] = rb[0]"),
          _helper("""
def load_next(A, B, ra, rb, row, col, t, ty, tx):
    ra[0] = load_or_zero(A, row, t * T8 + tx)
    rb[0] = load_or_zero(B, t * T8 + ty, col)""")]),
        ("prefetch_through_a_helper_returning_a_pair",
         [(_LOOP_LOAD_A, "a, b = fetch(A, B, row, col, kt + 1, ty, tx)"), ("        " + _LOOP_LOAD_B + "\n", ""),
          _helper("""
def fetch(A, B, row, col, t, ty, tx):
    return load_or_zero(A, row, t * T8 + tx), load_or_zero(B, t * T8 + ty, col)""")]),
        ("stores_through_a_helper",
         [(_STORE_A, "put(As, Bs, (kt + 1) % 2, ty, tx, a, b)"), (_STORE_B, "pass"),
          _helper("""
def put(As, Bs, buf, ty, tx, a, b):
    As[buf, ty, tx] = a
    Bs[buf, ty, tx] = b""")]),
        ("whole_iteration_in_a_helper",
         [(_LOOP_LOAD_A, "pass"), ("        " + _LOOP_LOAD_B + "\n", ""),
          (_COMPUTE, "        acc += step(A, B, As, Bs, row, col, kt, ty, tx)"), (_STORE_A, "pass"), (_STORE_B, "pass"),
          (_LOOP_BARRIER, "        pass  # next iteration"),
          _helper("""
def step(A, B, As, Bs, row, col, kt, ty, tx):
    a = load_or_zero(A, row, (kt + 1) * T8 + tx)
    b = load_or_zero(B, (kt + 1) * T8 + ty, col)
    s = tile_dot(As, Bs, kt % 2, ty, tx)
    As[(kt + 1) % 2, ty, tx] = a
    Bs[(kt + 1) % 2, ty, tx] = b
    cuda.syncthreads()              # the next iteration reads what others stored and overwrites what they read
    return s""")]),
        ("main_loop_in_a_helper",
         [(_LOOP, "    acc += main_loop(A, B, As, Bs, row, col, n_tiles, ty, tx)\n    for kt in range(0):"),
          _helper("""
def main_loop(A, B, As, Bs, row, col, n_tiles, ty, tx):
    acc = float32(0.0)
    for kt in range(n_tiles - 1):
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        As[(kt + 1) % 2, ty, tx] = a
        Bs[(kt + 1) % 2, ty, tx] = b
        cuda.syncthreads()          # RAW for the next iteration's reads, WAR for its stores
    return acc""")]),
        # review round 18 (W-1, W-2): other loop shapes. The last tile named kt after the loop (the counter's value
        # after the loop is no iteration), a while loop (counting up at the end or in the middle of its body, the
        # epilogue reusing kt), a loop over the K offset, with that offset also set in the prologue
        ("kt_reused_for_the_epilogue", [(_EPILOGUE, "    kt = n_tiles - 1\n    acc += tile_dot(As, Bs, kt % 2, ty, tx)")]),
        ("while_loop", [(_LOOP, _WHILE), (_EPILOGUE, "        kt += 1\n" + _EPILOGUE)]),
        ("while_loop_epilogue_reuses_kt", [(_LOOP, _WHILE), (_EPILOGUE, "        kt += 1\n" + _EPILOGUE),
                                           (_EPILOGUE, "    acc += tile_dot(As, Bs, kt % 2, ty, tx)")]),
        ("while_loop_counting_mid_body", [(_LOOP, _WHILE), (_COMPUTE, _COMPUTE + "\n        kt += 1"),
                                          (_STORE_A, "As[kt % 2, ty, tx] = a"), (_STORE_B, "Bs[kt % 2, ty, tx] = b")]),
        ("k_offset_loop", [(_LOOP, _K0_LOOP), (_LOOP_LOAD_A, "a = load_or_zero(A, row, k0 + tx)"),
                           (_LOOP_LOAD_B, "b = load_or_zero(B, k0 + ty, col)"),
                           (_COMPUTE, "        acc += tile_dot(As, Bs, (k0 // T8 - 1) % 2, ty, tx)"),
                           (_STORE_A, "As[(k0 // T8) % 2, ty, tx] = a"), (_STORE_B, "Bs[(k0 // T8) % 2, ty, tx] = b")]),
        ("k_offset_set_in_the_prologue",
         [("    As[0, ty, tx] = load_or_zero(A, row, tx)", "    k0 = 0\n    As[0, ty, tx] = load_or_zero(A, row, k0 + tx)"),
          ("    Bs[0, ty, tx] = load_or_zero(B, ty, col)", "    Bs[0, ty, tx] = load_or_zero(B, k0 + ty, col)"),
          (_LOOP, _K0_LOOP), (_LOOP_LOAD_A, "a = load_or_zero(A, row, k0 + tx)"),
          (_LOOP_LOAD_B, "b = load_or_zero(B, k0 + ty, col)"),
          (_COMPUTE, "        acc += tile_dot(As, Bs, (k0 // T8 - 1) % 2, ty, tx)"),
          (_STORE_A, "As[(k0 // T8) % 2, ty, tx] = a"), (_STORE_B, "Bs[(k0 // T8) % 2, ty, tx] = b")]),
        # review round 19 (W-2): the loop unrolled by two (constant buffer numbers, as 4.4 suggests for the SASS): one
        # barrier per tile, each tile computed from its buffer while the next goes into the other one
        # (the solution's loop body stays below it, in a loop that never runs)
        ("unrolled_by_two", [(_LOOP + "\n", _UNROLLED_BY_TWO)]),
        # ... a barrier at the top of the iteration (it ends the previous tile's reads and stores), one before the epilogue
        ("barrier_at_the_top", [(_LOOP, _LOOP + "\n        cuda.syncthreads()          # previous stores and reads done"),
                                (_LOOP_BARRIER, "        pass  # next iteration"),
                                (_EPILOGUE, "    cuda.syncthreads()\n" + _EPILOGUE)]),
    ],
}
