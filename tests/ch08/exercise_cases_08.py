"""Typical wrong answers of notebook 08's exercises (edits of answers/ch08/ex08_*.py) and the diagnosis each must get."""
_LOOP_LOAD_A = "a = load_or_zero(A, row, (kt + 1) * T8 + tx)"
_LOOP_LOAD_B = "b = load_or_zero(B, (kt + 1) * T8 + ty, col)"
_STORE_A = "As[(kt + 1) % 2, ty, tx] = a"
_STORE_B = "Bs[(kt + 1) % 2, ty, tx] = b"
_LOOP_BARRIER = "        cuda.syncthreads()          # next iteration"
_LOOP = "    for kt in range(n_tiles - 1):"
_EPILOGUE = "    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)"
_COMPUTE = "        acc += tile_dot(As, Bs, kt % 2, ty, tx)       # 2. compute tile kt while the loads are on their way"

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
    ],
    "08-3": [
        ("common_formula", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                             "return t_load + n_tiles * max(t_load, t_comp)")], "load_bound_overcount"),
        ("steady_state_only", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                                "return n_tiles * max(t_load, t_comp)")], "no_fill_drain"),
        ("compute_always_longer", [("return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)",
                                    "return t_load + n_tiles * t_comp")], "compute_bound_only"),
        ("min_instead_of_max", [("(n_tiles - 1) * max(t_load, t_comp)", "(n_tiles - 1) * min(t_load, t_comp)")],
         "min_not_max"),
        ("single_with_max", [("return n_tiles * (t_load + t_comp)", "return n_tiles * max(t_load, t_comp)")], "single"),
        ("asks_the_model", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                             "from sim import pipeline\n"
                             "    return (pipeline.schedule(n_tiles, t_load, t_comp, 1).total,\n"
                             "            pipeline.schedule(n_tiles, t_load, t_comp, 2).total)")], "uses_model"),
        ("returns_speedup", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                              "return speedup(t_load, t_comp, n_tiles)")], "input"),
    ],
}
