"""Solution, 10 직접 해보기 5: the K loop of the one-warp kernel (ldmatrix fragments, mma, f32 accumulators)."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda, float32
from numba.types import float16

from kernels_numba.common import copy_tiles, store_fragment
from kernels_numba.infra import ptx


@cuda.jit
def kloop(A, B, C, alpha, beta):
    """One warp per 16x8 tile of C; K in steps of 16 through shared memory; f16 inputs, f32 accumulation."""
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)
        cuda.syncthreads()                  # ldmatrix reads rows that other lanes copied
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
        cuda.syncthreads()                  # every lane has read As/Bs before the next copy overwrites them
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
