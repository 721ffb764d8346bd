"""Quiz 08 question 7, as runnable code: a double-buffered K loop whose main loop handles only whole BK tiles
(no bounds check on k) and whose epilogue handles the K % BK leftover columns.

This is a block-level numpy model of the kernel's structure (one "block" computes all of C), not a GPU kernel:
the shared buffers As[2], Bs[2] start as NaN like the course simulator's shared memory, so reading a buffer
nobody filled, or columns nobody wrote, shows up as NaN or a wrong sum.
"""
import numpy as np

BK = 8


def gemm_db(A, B, bk=BK, mistake=None):
    """A @ B through a 2-stage pipeline with a pipelined epilogue; `mistake` plants one bug for the tests.

    mistake: None | "forget_tail" (drop the K % BK columns) | "tail_width_bk" (compute a whole BK-wide tile
    in the epilogue) | "wrong_buffer" (epilogue reads the other buffer) | "no_prologue".
    """
    M, K = A.shape
    N = B.shape[1]
    As = np.full((2, M, bk), np.nan, np.float32)       # shared memory starts as garbage (NaN here)
    Bs = np.full((2, bk, N), np.nan, np.float32)
    acc = np.zeros((M, N), np.float64)                 # rC of every thread

    def load(buf, k0, width):
        # columns k0 .. k0+width-1 of A and rows of B: always inside the matrix, so no "k < K" check
        As[buf, :, :width] = A[:, k0:k0 + width]
        Bs[buf, :width, :] = B[k0:k0 + width, :]

    def compute(buf, width):
        nonlocal acc
        acc = acc + As[buf, :, :width].astype(np.float64) @ Bs[buf, :width, :]

    full = K // bk                   # whole tiles: the main loop never needs a bounds check on k
    rem = K % bk                     # leftover columns, 0 .. bk-1
    # prologue: the first tile (a whole one, or the leftover when K < bk)
    if mistake != "no_prologue":
        if full > 0:
            load(0, 0, bk)
        elif rem > 0:
            load(0, 0, rem)
    # (syncthreads)
    for kt in range(full):
        curr, nxt = kt % 2, (kt + 1) % 2
        if kt + 1 < full:
            load(nxt, (kt + 1) * bk, bk)          # prefetch the next whole tile
        elif rem > 0 and mistake != "forget_tail":
            load(nxt, full * bk, rem)             # last iteration: prefetch the leftover instead
        compute(curr, bk)
        # (syncthreads: everyone finished reading `curr` before the next iteration refills it)
    # epilogue: the leftover tile sits in buffer full % 2 (prefetched above, or by the prologue when full == 0)
    if rem > 0 and mistake != "forget_tail":
        buf = full % 2 if mistake != "wrong_buffer" else (full + 1) % 2
        compute(buf, bk if mistake == "tail_width_bk" else rem)
    return acc


def matches_numpy(A, B, bk=BK, mistake=None):
    """True when gemm_db(A, B) equals A @ B (finite and within float32 tolerance)."""
    C = gemm_db(A, B, bk, mistake)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    return bool(np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-5, atol=1e-5))


if __name__ == "__main__":
    rng = np.random.default_rng(7)
    for K in (1, 5, 8, 13, 16, 29):
        A = rng.standard_normal((6, K), dtype=np.float32)
        B = rng.standard_normal((K, 5), dtype=np.float32)
        print(f"K={K:2d} (full={K // BK}, rem={K % BK}):", "ok" if matches_numpy(A, B) else "WRONG",
              "| forget_tail:", "ok" if matches_numpy(A, B, mistake="forget_tail") else "WRONG")
