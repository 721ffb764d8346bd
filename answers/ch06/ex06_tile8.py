"""Solution, 06 직접 해보기 2: the tiled kernel with 8x8 tiles (64 threads per block), written with the notebook's helpers."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda, float32

from kernels_numba.common import launch_square, load_or_zero, store_c, thread_coords

T8 = 8


@cuda.jit
def tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        As[ty, tx] = load_or_zero(A, row, t * T8 + tx)     # this thread's element of the A tile (0 outside A)
        Bs[ty, tx] = load_or_zero(B, t * T8 + ty, col)     # this thread's element of the B tile (0 outside B)
        cuda.syncthreads()          # barrier 1: the k loop reads elements other threads stored; all must be there
        for k in range(T8):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()          # barrier 2: nobody stores the next tile until everyone has read this one
    store_c(C, row, col, acc, alpha, beta)


def run(A, B, C, alpha=1.0, beta=0.0):
    """Launch tiled8 on a grid covering C."""
    return launch_square(tiled8, A, B, C, T8, alpha, beta)
