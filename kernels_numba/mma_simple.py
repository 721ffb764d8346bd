"""Level 6: one warp, one mma.sync.m16n8k16 — C[16x8] = alpha * A[16x16] @ B[16x8] + beta * C, f16 in, f32 accumulate.

The warp copies A and B into shared memory, loads its fragments with ldmatrix (A: .x4, B: .x2.trans, since B is stored
row-major K x N and mma wants it column-major) and issues one mma. Which lane holds what: sim/mma.py.
"""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from .infra import ptx
from .tc import make_tc_launch, sig

NAME = "mma_simple"
LEVEL = 6
MIN_CC = (8, 0)
DESCRIPTION = "Tensor Core 입문: 워프 1개가 mma.m16n8k16 한 번 (16×8×16 고정, f16 입력, f32 누적)"
DTYPE = np.float16
SHAPE = (16, 8, 16)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16-byte alignment: every ldmatrix row address must be a multiple of 16 bytes
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for i in range(8):                       # 256 elements of A, 8 per lane
        e = lane * 8 + i
        As[e // 16, e % 16] = A[e // 16, e % 16]
    for i in range(4):                       # 128 elements of B, 4 per lane
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[e // 8, e % 8]
    # barrier: ldmatrix reads rows that other lanes wrote
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
    g, t = lane // 4, lane % 4               # groupID, threadID_in_group: d0,d1 -> row g; d2,d3 -> row g+8
    r0, c0 = g, 2 * t
    if beta != 0:
        d0 = alpha * d0 + beta * C[r0, c0]
        d1 = alpha * d1 + beta * C[r0, c0 + 1]
        d2 = alpha * d2 + beta * C[r0 + 8, c0]
        d3 = alpha * d3 + beta * C[r0 + 8, c0 + 1]
    else:
        d0, d1, d2, d3 = alpha * d0, alpha * d1, alpha * d2, alpha * d3
    C[r0, c0] = d0
    C[r0, c0 + 1] = d1
    C[r0 + 8, c0] = d2
    C[r0 + 8, c0 + 1] = d3


launch = make_tc_launch(kernel, lambda M, N: (1, 1), 32, (16, 8, 16), NAME, np.float32, exact=SHAPE)
SIG = sig(np.float32)
SMEM_BYTES = 16 * 16 * 2 + 16 * 8 * 2
