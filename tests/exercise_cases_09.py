"""Typical wrong answers of notebook 09's exercises (format: tests/exercise_cases.py)."""
_WAIT = "        ptx.cp_async_wait_group_1()  "
_BAR = "        cuda.syncthreads()           "
_COMMIT = "        ptx.cp_async_commit_group()  "
_LOOP = _WAIT + "        # S-2"          # placeholder, replaced below by the loop body of the solution

# the whole loop body of answers/ex09_pipeline.py, to rewrite it in the other (two-barrier) order
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
        ("no_wait", [(_WAIT, "        pass                         ")], "wait_too_large"),
        ("no_barrier_after_wait", [(_BAR, "        pass                         ")], "no_barrier_after_wait"),
        # prefetch before the barrier: the buffer of tile kt-1 is refilled while slower threads still read it
        ("prefetch_before_barrier", [(_BAR, "        pass                         "),
                                     (_COMMIT, "        cuda.syncthreads()\n" + _COMMIT)], "overwrite_stage"),
        ("prefetch_into_current_stage", [("(kt + S3 - 1) % S3, kt + S3 - 1)", "kt % S3, kt + S3 - 1)")],
         "overwrite_stage"),
        # the seed's tail: commit only when a tile was issued
        ("commit_only_when_loading", [(_COMMIT, "            ptx.cp_async_commit_group()  ")], "tail_not_waited"),
        ("no_commit", [(_COMMIT, "        pass                         ")], "no_commit"),
        # the two-barrier order without its second barrier (WAR), and with the seed's tail
        ("two_barrier_order_missing_second", _two_barrier(second_barrier=False), "overwrite_stage"),
        ("two_barrier_order_seed_tail", _two_barrier(commit_in_if=True), "tail_not_waited"),
    ],
}
