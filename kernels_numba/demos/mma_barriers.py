"""Bug demos: mma_large with one of its two barriers deleted. On the GPU both are wrong only sometimes (racecheck
flags them every time); the simulator's race detector reports them every time (launch.last_report)."""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from ..infra import ptx
from ..tc import WAIT_GROUP, cp_async_16, cp_async_commit, make_tc_launch
from . import collecting

MIN_CC = (8, 0)
wait_all = WAIT_GROUP[0]


@cuda.jit
def no_barrier_after_wait(A, B, C, alpha, beta):
    As = cuda.shared.array((1, 16, 16), float16, alignment=16)
    Bs = cuda.shared.array((1, 16, 8), float16, alignment=16)
    K = A.shape[1]
    lane = cuda.threadIdx.x
    tile_m = cuda.blockIdx.x * 16
    tile_n = cuda.blockIdx.y * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, K, 16):
        cp_async_16(As, 0, lane // 2, 8 * (lane % 2), A, tile_m + lane // 2, k0 + 8 * (lane % 2))
        if lane < 16:
            cp_async_16(Bs, 0, lane, 0, B, k0 + lane, tile_n)
        cp_async_commit()
        wait_all()
        # BUG: no barrier here -- wait_all covers this lane's copies only; ldmatrix reads rows other lanes copied
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, 0, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, 0, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        cuda.syncthreads()
    r, c = tile_m + lane // 4, tile_n + 2 * (lane % 4)
    C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = alpha * c0, alpha * c1, alpha * c2, alpha * c3


@cuda.jit
def no_trailing_barrier(A, B, C, alpha, beta):
    As = cuda.shared.array((1, 16, 16), float16, alignment=16)
    Bs = cuda.shared.array((1, 16, 8), float16, alignment=16)
    K = A.shape[1]
    lane = cuda.threadIdx.x
    tile_m = cuda.blockIdx.x * 16
    tile_n = cuda.blockIdx.y * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, K, 16):
        cp_async_16(As, 0, lane // 2, 8 * (lane % 2), A, tile_m + lane // 2, k0 + 8 * (lane % 2))
        if lane < 16:
            cp_async_16(Bs, 0, lane, 0, B, k0 + lane, tile_n)
        cp_async_commit()
        wait_all()
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, 0, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, 0, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        # BUG: no barrier here -- the next iteration's cp.async overwrites rows other lanes' ldmatrix still read
    r, c = tile_m + lane // 4, tile_n + 2 * (lane % 4)
    C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = alpha * c0, alpha * c1, alpha * c2, alpha * c3


def _launch(kernel, name):
    return collecting(make_tc_launch(kernel, lambda M, N: (M // 16, N // 8), 32, (16, 8, 16), name, np.float32))


launch_no_barrier_after_wait = _launch(no_barrier_after_wait, "mma_no_barrier_after_wait")
launch_no_trailing_barrier = _launch(no_trailing_barrier, "mma_no_trailing_barrier")
