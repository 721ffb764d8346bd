"""Demo (bug): mma.sync inside `if lane < 16` — half a warp reaches the warp-collective instruction.

On hardware this is undefined behaviour (a hang or garbage); the simulator stops with WarpCollectiveError naming the
block, the warp, the instruction and a lane that did not arrive. `kernel_early_return` does the same with an early
return, `kernel_ok` is the correct version (every lane executes the mma; only the store is conditional).
"""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from ..infra import ptx
from ..tc import sig

SIG = sig(np.float32)


@cuda.jit(device=True)
def _tiles(A, B, As, Bs, lane):
    for i in range(8):
        e = lane * 8 + i
        As[e // 16, e % 16] = A[e // 16, e % 16]
    for i in range(4):
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[e // 8, e % 8]


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    _tiles(A, B, As, Bs, lane)
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    if lane < 16:                                      # BUG: only half the warp issues the mma
        z = float32(0.0)
        d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
        C[lane // 4, 2 * (lane % 4)] = d0


@cuda.jit
def kernel_early_return(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    _tiles(A, B, As, Bs, lane)
    cuda.syncthreads()
    if lane == 31:                                     # BUG: lane 31 leaves before the warp-collective load
        return
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))


@cuda.jit
def kernel_ok(A, B, C, alpha, beta):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    _tiles(A, B, As, Bs, lane)
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
    if lane < 16:                                      # fine: divergence after the collective instruction
        C[lane // 4, 2 * (lane % 4)] = d0


def launch(A, B, C, alpha=1.0, beta=0.0, which="kernel"):
    """Run one of the three kernels on a 16x16 A, 16x8 B (simulator or GPU) with one warp."""
    k = {"kernel": kernel, "kernel_early_return": kernel_early_return, "kernel_ok": kernel_ok}[which]
    k[1, 32](A, B, C, np.float32(alpha), np.float32(beta))
    return C
