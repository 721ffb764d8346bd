"""Solution, 07 직접 해보기 07-3: the outer-product micro-kernel of one K tile (rA, rB, rC in registers)."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda, float32

from course.ch07_register_blocking.exercises import BK, TM, TN


@cuda.jit(device=True)
def micro_kernel(As, Bs, rC, thread_row, thread_col):
    """rC[m, n] += As[thread_row + m, k] * Bs[k, thread_col + n] for k < BK, in outer-product order."""
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[thread_row + m, k]      # column k of this thread's TM rows of the A tile
        for n in range(TN):
            rB[n] = Bs[k, thread_col + n]      # row k of this thread's TN columns of the B tile
        for m in range(TM):                    # TM + TN loads feed TM * TN multiply-adds
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]
