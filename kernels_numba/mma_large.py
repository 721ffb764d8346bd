"""Level 6: any M, N, K (multiples of 16, 8, 16) — grid (M/16) x (N/8), one warp per block, one 16x8 tile of C each.

K loop in steps of 16: the warp copies A[tile_m:+16, k0:+16] (32 chunks of 16 B, one per lane) and
B[k0:+16, tile_n:+8] (16 chunks, lanes 0-15) to shared memory with cp.async, waits, loads fragments with ldmatrix and
accumulates with one mma; the four accumulators per lane stay in registers for the whole K loop.
Shared memory per block: 16*16*2 + 16*8*2 = 768 bytes (computed in SMEM_BYTES, checked against ptxas in the tests).
"""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from .infra import ptx
from .tc import WAIT_GROUP, cp_async_16, cp_async_commit, make_tc_launch, sig

NAME = "mma_large"
LEVEL = 6
MIN_CC = (8, 0)
DTYPE = np.float16
DESCRIPTION = "임의 크기: 블록당 워프 1개가 16×8 타일, K 를 16씩 cp.async → ldmatrix → mma (단일 버퍼)"
SIG = sig(np.float32)
SMEM_BYTES = 16 * 16 * 2 + 16 * 8 * 2          # 768
wait_all = WAIT_GROUP[0]


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16-byte alignment: cp.async 16-byte destinations and ldmatrix row addresses
    As = cuda.shared.array((1, 16, 16), float16, alignment=16)
    Bs = cuda.shared.array((1, 16, 8), float16, alignment=16)
    K = A.shape[1]
    lane = cuda.threadIdx.x
    tile_m = cuda.blockIdx.x * 16
    tile_n = cuda.blockIdx.y * 8
    c0 = float32(0.0)
    c1 = float32(0.0)
    c2 = float32(0.0)
    c3 = float32(0.0)
    for k0 in range(0, K, 16):
        cp_async_16(As, 0, lane // 2, 8 * (lane % 2), A, tile_m + lane // 2, k0 + 8 * (lane % 2))
        if lane < 16:
            cp_async_16(Bs, 0, lane, 0, B, k0 + lane, tile_n)
        cp_async_commit()
        # wait: this lane's copies have landed; barrier: so have every other lane's
        wait_all()
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, 0, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, 0, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        # barrier: every lane has read As/Bs (ldmatrix) before the next iteration's copies overwrite them
        cuda.syncthreads()
    g, t = lane // 4, lane % 4
    r, c = tile_m + g, tile_n + 2 * t
    if beta != 0:
        c0 = alpha * c0 + beta * C[r, c]
        c1 = alpha * c1 + beta * C[r, c + 1]
        c2 = alpha * c2 + beta * C[r + 8, c]
        c3 = alpha * c3 + beta * C[r + 8, c + 1]
    else:
        c0, c1, c2, c3 = alpha * c0, alpha * c1, alpha * c2, alpha * c3
    C[r, c] = c0
    C[r, c + 1] = c1
    C[r + 8, c] = c2
    C[r + 8, c + 1] = c3


launch = make_tc_launch(kernel, lambda M, N: (M // 16, N // 8), 32, (16, 8, 16), NAME, np.float32)
