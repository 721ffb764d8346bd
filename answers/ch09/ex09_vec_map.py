"""Solution, 09 직접 해보기 2: which float4 of the A and B tiles each of 64 threads copies with one 16-byte cp.async."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda

from kernels_numba.infra import ptx

BM, BN, BK, VEC = 32, 32, 8, 4          # block tile 32×32, K tile 8, 4 floats (16 B) per copy; 64 threads


@cuda.jit(device=True)
def issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    """스레드 tid(0..63)의 16바이트 cp.async 두 개: A 타일(BM×BK)의 float4 하나, B 타일(BK×BN)의 float4 하나."""
    a_row, a_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC      # 2 float4 per A row: columns 0 and 4
    ptx.cp_async_cg_16(As, stage, a_row, a_col, A, block_row + a_row, kt * BK + a_col)
    b_row, b_col = tid // (BN // VEC), (tid % (BN // VEC)) * VEC      # 8 float4 per B row: columns 0, 4, .., 28
    ptx.cp_async_cg_16(Bs, stage, b_row, b_col, B, kt * BK + b_row, block_col + b_col)
