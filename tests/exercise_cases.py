"""Typical wrong answers of every exercise: edits of the solution's source and the diagnosis each must get.

Each case is (label, [(old, new), ...], expected diagnosis code). The test applies the edits to the solution file
named by the exercise (answers/...), imports it from a temporary folder, and runs course.exercises.check on it.
"""
import importlib
import importlib.util
import sys
import uuid
from pathlib import Path

from course import chapters as _chapters

_TESTS = Path(__file__).resolve().parent
CASES = {
    "06-1": [
        ("keeps_p1", [("if wavefronts(p) == (1, 1)]", "if wavefronts(p)[1] == 1]")], "extra_pad"),
        ("store_only", [("if wavefronts(p) == (1, 1)]", "if wavefronts(p)[0] == 1 and p > 0]")], "missing_pad"),
        # the read never counted: the same list as the solution in this block, seen from the banks.analyze calls
        ("read_never_counted", [('    load = banks.analyze(layout, lambda x, y, z: (y, k), BLOCK, kind="load")',
                                 "    load = store")], "extra_pad"),
        # review r25 U8: the read counted (kind="load") with the store's index As[ty][tx]: the read index is named
        ("read_with_store_index", [('    load = banks.analyze(layout, lambda x, y, z: (y, k), BLOCK, kind="load")',
                                    '    load = banks.analyze(layout, lambda x, y, z: (y, x), BLOCK, kind="load")')],
         "read_index"),
        ("off_by_one_range", [("range(max_pad + 1)", "range(max_pad + 2)"),
                              ("if wavefronts(p) == (1, 1)]", "if p > max_pad or wavefronts(p) == (1, 1)]")], "range"),
        ("not_a_list", [("return [p for", "return {p: 1 for"), ("if wavefronts(p) == (1, 1)]", "if wavefronts(p) == (1, 1)}")],
         "input"),
        # a True/False per p instead of the p values (review round 10, I-5): rejected as input, not read as p = 0, 1
        ("bool_list", [("return [p for p in range(max_pad + 1) if wavefronts(p) == (1, 1)]",
                        "return [wavefronts(p) == (1, 1) for p in range(max_pad + 1)]")], "input"),
        # max_pad itself left out: the message names it (test_exercises.py::test_06_1_names_max_pad)
        ("range_without_max_pad", [("range(max_pad + 1)", "range(max_pad)")], "missing_pad"),
    ],
    "06-2": [
        ("no_barrier_1", [("        cuda.syncthreads()          # barrier 1", "        pass  # barrier 1")], "race"),
        ("no_barrier_2", [("        cuda.syncthreads()          # barrier 2", "        pass  # barrier 2")], "race"),
        ("k_loop_rounds_down", [("range((A.shape[1] + T8 - 1) // T8)", "range(A.shape[1] // T8)")], "last_k_tile"),
        # one all-zero tile too many when K % 8 == 0 (review r18 I-1): cooperative and right, the loop count is named
        ("one_k_tile_too_many", [("range((A.shape[1] + T8 - 1) // T8)", "range(A.shape[1] // T8 + 1)")], "extra_k_tiles"),
        ("a_k_tile_per_column", [("range((A.shape[1] + T8 - 1) // T8)", "range(A.shape[1])")], "extra_k_tiles"),
        ("swapped_b_index", [("load_or_zero(B, t * T8 + ty, col)", "load_or_zero(B, t * T8 + tx, col)")], "all_wrong"),
        # review r25 U4: the input A written after the store (a global race): the message says to delete the write
        ("writes_input_a", [("    store_c(C, row, col, acc, alpha, beta)",
                             "    if row < A.shape[0] and col < A.shape[1]:\n        A[row, col] = float32(0.0)\n"
                             "    store_c(C, row, col, acc, alpha, beta)")], "race"),
        ("acc_reset_in_loop", [("        As[ty, tx] = load_or_zero", "        acc = float32(0.0)\n        As[ty, tx] = load_or_zero")],
         "acc_reset"),
        # right values without the lesson's technique
        ("no_shared_tile", [("            acc += As[ty, k] * Bs[k, tx]",
                             "            acc += load_or_zero(A, row, t * T8 + k) * load_or_zero(B, t * T8 + k, col)")],
         "no_shared_tile"),
        # the tiles are stored cooperatively, but the k loop multiplies an operand read from global memory
        ("k_loop_reads_a_from_global", [("            acc += As[ty, k] * Bs[k, tx]",
                                         "            acc += load_or_zero(A, row, t * T8 + k) * Bs[k, tx]")],
         "no_shared_tile"),
        ("k_loop_reads_b_from_global", [("            acc += As[ty, k] * Bs[k, tx]",
                                         "            acc += As[ty, k] * (B[t * T8 + k, col] if t * T8 + k < B.shape[0] "
                                         "and col < B.shape[1] else float32(0.0))")], "no_shared_tile"),
        ("one_thread_per_row_loads", [("        As[ty, tx] = load_or_zero(A, row, t * T8 + tx)",
                                       "        if tx == 0:\n            for j in range(T8):\n"
                                       "                As[ty, j] = load_or_zero(A, row, t * T8 + j)")], "not_cooperative"),
    ],
    "06-3": [
        ("no_check", [("    if r < X.shape[0] and c < X.shape[1]:\n        return X[r, c]", "    return X[r, c]")],
         "out_of_bounds"),
        ("less_equal", [("r < X.shape[0] and c < X.shape[1]", "r <= X.shape[0] and c <= X.shape[1]")], "out_of_bounds"),
        ("rows_only", [("if r < X.shape[0] and c < X.shape[1]:", "if r < X.shape[0] and c < X.shape[0] + 100:")],
         "out_of_bounds"),
        ("one_outside", [("return float32(0.0)", "return float32(1.0)")], "outside_not_zero"),
        ("inside_doubled", [("        return X[r, c]", "        return X[r, c] * 2")], "inside_wrong"),
        # the two axes of the check swapped (review r18 I-4): 0 inside the matrix, the condition is asked about
        ("axes_swapped", [("r < X.shape[0] and c < X.shape[1]", "r < X.shape[1] and c < X.shape[0]")], "inside_zero"),
        # the shipped helper of 06-2 does the check (review r18 M-1): right values, but not written by the student
        ("calls_shipped_helper", [("from numba import cuda, float32",
                                   "from numba import cuda, float32\nfrom kernels_numba.common import load_or_zero as given"),
                                  ("    if r < X.shape[0] and c < X.shape[1]:\n        return X[r, c]\n    return float32(0.0)",
                                   "    return given(X, r, c)")], "shipped_helper"),
        # review r25 (students 06-08): an IndexError caught in place of the bounds check ran on the simulator; the
        # GPU's Numba compiles no try/except (and an out-of-bounds read raises nothing there)
        ("try_except", [("    if r < X.shape[0] and c < X.shape[1]:\n        return X[r, c]\n    return float32(0.0)",
                         "    try:\n        return X[r, c]\n    except IndexError:\n        return float32(0.0)")],
         "try_except"),
        ("no_device_decorator", [("@cuda.jit(device=True)\n", "")], "not_device_function"),
    ],
}

# Notebooks 07–11 keep their cases in their own chapter's folder, tests/chNN/exercise_cases_NN.py (one engineer per
# notebook); every chapter with exercises after 06 must have one (a missing file is an error, not an empty list).
for _nb in _chapters.numbers():
    if _nb != "06":
        _dir = str(_TESTS / f"ch{_nb}")
        if _dir not in sys.path:
            sys.path.insert(0, _dir)
        CASES.update(importlib.import_module(f"exercise_cases_{_nb}").CASES)


def import_source(src, folder, name=None):
    """Import source text as a module from a file in `folder` (the checkers and the simulator's race reports read
    real source lines), registered in sys.modules under `name` (default: a fresh ex_<hex> name)."""
    name = name or f"ex_{uuid.uuid4().hex[:8]}"
    f = Path(folder) / f"{name}.py"
    f.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, f)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
