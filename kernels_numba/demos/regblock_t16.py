"""Teaching demo (not registered): regblock with a 16x16 tile per thread -> 256 accumulators > 255 registers -> spills.

Same 128x128 block tile, so only 8x8 = 64 threads per block. Correct, launchable like every kernel, but the compiler
must keep part of rC in local memory (LDL/STL in SASS): see kernels_numba.tools.resources.report("regblock_t16").
"""
from numba import cuda, float32

from ..launch import make_launch

NAME = "regblock_t16"
LEVEL = 3
DESCRIPTION = "교육용 (레지스트리 밖): 스레드당 16×16 출력 → 누산기 256개 > 레지스터 255개 → 스필(LDL/STL)"
BM = 128
BN = 128
BK = 8
TM = 16
TN = 16
BLOCK = (BN // TN, BM // TM)   # (8, 8) = 64 threads
THREADS = BLOCK[0] * BLOCK[1]
TILE = (BM, BN)
A_LOADS = BM * BK // THREADS   # 16 A elements per thread per K tile
B_LOADS = BK * BN // THREADS   # 16 B elements per thread per K tile


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    rC = cuda.local.array((TM, TN), float32)     # 256 accumulators: more than a thread's 255 registers
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * BLOCK[0] + tx
    block_row = cuda.blockIdx.y * BM
    block_col = cuda.blockIdx.x * BN
    thread_row = ty * TM
    thread_col = tx * TN
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    for k0 in range(0, K, BK):
        # 64 threads < 128 columns of Bs, so the seed's row/stride split does not fit: walk the tile linearly
        for i in range(A_LOADS):
            e = tid + i * THREADS
            r = e // BK
            c = e % BK
            if block_row + r < M and k0 + c < K:
                As[r, c] = A[block_row + r, k0 + c]
            else:
                As[r, c] = float32(0.0)
        for i in range(B_LOADS):
            e = tid + i * THREADS
            r = e // BN
            c = e % BN
            if k0 + r < K and block_col + c < N:
                Bs[r, c] = B[k0 + r, block_col + c]
            else:
                Bs[r, c] = float32(0.0)
        # barrier 1: the outer products read As/Bs entries that *other* threads stored
        cuda.syncthreads()
        for k in range(BK):
            for m in range(TM):
                rA[m] = As[thread_row + m, k]
            for n in range(TN):
                rB[n] = Bs[k, thread_col + n]
            for m in range(TM):
                for n in range(TN):
                    rC[m, n] += rA[m] * rB[n]
        # barrier 2: the next K tile overwrites As/Bs; nobody may do so while others still read this one
        cuda.syncthreads()
    for m in range(TM):
        gr = block_row + thread_row + m
        if gr < M:
            for n in range(TN):
                gc = block_col + thread_col + n
                if gc < N:
                    if beta == 0:                 # BLAS: with beta == 0, C is output only (may hold NaN)
                        C[gr, gc] = alpha * rC[m, n]
                    else:
                        C[gr, gc] = alpha * rC[m, n] + beta * C[gr, gc]


launch = make_launch(kernel, BLOCK, TILE)
