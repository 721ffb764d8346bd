"""Level 6 on Turing (sm_75, T4): mma_large without cp.async — any M, N, K (multiples of 16, 8, 16), grid M/16 x N/8.

One warp per block, one 16x8 tile of C each. K loop in steps of 16: the lanes copy A[tile_m:+16, k0:+16] and
B[k0:+16, tile_n:+8] to shared memory with plain loads and stores (cp.async needs sm_80), a barrier, ldmatrix as in
mma_large, and two mma.sync.m16n8k8 (a0, a1, b0: k 0-7; a2, a3, b1: k 8-15; sim/mma.py K16_AS_K8); the four
accumulators per lane stay in registers for the whole K loop. Shared memory per block: 768 bytes (SMEM_BYTES).
Checked in the simulator, compiled offline for sm_75 (SASS HMMA.1688.F32, LDSM) and run on an H100; no compute
capability 7.5 GPU was available to us, so it has never run on a real Turing card.
"""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from .infra import ptx
from .tc import sig
from .mma_simple_turing import make_turing_launch

NAME = "mma_large_turing"
LEVEL = 6
MIN_CC = (7, 5)
DTYPE = np.float16
DESCRIPTION = "Turing(sm_75, T4)용 mma_large: 블록당 워프 1개가 16×8 타일, K 16마다 일반 복사 → ldmatrix → m16n8k8 ×2"
SIG = sig(np.float32)
SMEM_BYTES = 16 * 16 * 2 + 16 * 8 * 2          # 768


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16-byte alignment: ldmatrix row addresses
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    K = A.shape[1]
    lane = cuda.threadIdx.x
    tile_m = cuda.blockIdx.x * 16
    tile_n = cuda.blockIdx.y * 8
    c0 = float32(0.0)
    c1 = float32(0.0)
    c2 = float32(0.0)
    c3 = float32(0.0)
    for k0 in range(0, K, 16):
        for i in range(8):                   # A tile: 8 halves per lane, a lane's 8 are one 16-byte row chunk
            As[lane // 2, 8 * (lane % 2) + i] = A[tile_m + lane // 2, k0 + 8 * (lane % 2) + i]
        for i in range(4):                   # B tile: 4 halves per lane
            Bs[lane // 2, 4 * (lane % 2) + i] = B[k0 + lane // 2, tile_n + 4 * (lane % 2) + i]
        # barrier: ldmatrix reads rows that other lanes wrote
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k8_f32(a0, a1, b0, c0, c1, c2, c3)      # k0 .. k0+7
        c0, c1, c2, c3 = ptx.mma_m16n8k8_f32(a2, a3, b1, c0, c1, c2, c3)      # k0+8 .. k0+15
        # barrier: every lane has read As/Bs (ldmatrix) before the next iteration's stores overwrite them
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


launch = make_turing_launch(kernel, lambda M, N: (M // 16, N // 8), (16, 8, 16), NAME)
