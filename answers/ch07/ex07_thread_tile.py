"""Solution, 07 직접 해보기 07-1: the C sub-tile a thread owns inside the block tile (register blocking)."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda

from course.ch07_register_blocking.exercises import TM, TN


@cuda.jit(device=True)
def thread_tile(tx, ty):
    """Top-left (thread_row, thread_col) of thread (tx, ty)'s TM x TN sub-tile: y walks rows, x walks columns."""
    thread_row = ty * TM          # neighbouring threads in y are TM rows apart: no gap, no overlap
    thread_col = tx * TN          # neighbouring threads in x are TN columns apart
    return thread_row, thread_col
