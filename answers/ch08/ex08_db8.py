"""Solution, 08 직접 해보기 08-2: the register-prefetch double-buffer loop of a small 8×8-tile kernel
(prologue: tile 0; loop: tile kt+1 -> registers, compute tile kt, registers -> the other buffer, barrier;
epilogue: the last tile)."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda, float32

from kernels_numba.common import launch_square, load_or_zero, store_c, thread_coords

T8 = 8


@cuda.jit(device=True)
def tile_dot(As, Bs, buf, ty, tx):
    """This thread's part of one K tile: row ty of As[buf] · column tx of Bs[buf]."""
    s = float32(0.0)
    for k in range(T8):
        s += As[buf, ty, k] * Bs[buf, k, tx]
    return s


@cuda.jit
def db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)      # [buffer][row][k]
    Bs = cuda.shared.array((2, T8, T8), float32)      # [buffer][k][column]
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)          # prologue: tile 0 -> buffer 0 (no math to overlap with)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()              # iteration 0 reads buffer 0, which other threads filled
    for kt in range(n_tiles - 1):
        a = load_or_zero(A, row, (kt + 1) * T8 + tx)  # 1. tile kt+1 -> registers (nothing waits for them yet)
        b = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)       # 2. compute tile kt while the loads are on their way
        As[(kt + 1) % 2, ty, tx] = a                  # 3. registers -> the other buffer (last read in kt-1,
        Bs[(kt + 1) % 2, ty, tx] = b                  #    before the barrier that ended kt-1)
        cuda.syncthreads()          # next iteration reads what others stored (RAW) and then overwrites
        #                             the buffer others read here (WAR): one barrier separates both
    acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)  # epilogue: the last tile, no prefetch left
    store_c(C, row, col, acc, alpha, beta)


def run(A, B, C, alpha=1.0, beta=0.0):
    """Launch db8 on a grid covering C."""
    return launch_square(db8, A, B, C, T8, alpha, beta)
