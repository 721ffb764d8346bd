"""Level 3, best variant: regblock's tiles (128x128x8, 8x8 per thread) with 128-bit shared loads and no per-iteration overhead.

Same tile sizes and thread count as regblock; what changes (each checked in SASS, see tests/test_compile.py):
* As is stored transposed, As[k][m], so a thread's 8 values of A for one k are contiguous -> two LDS.128.
* A thread's 8 columns are two groups of 4, 64 apart (tx*4 and 64 + tx*4): its B values are two aligned float4
  -> two LDS.128, and the 16 threads of a half-warp read 256 contiguous bytes (no bank conflict; tx*8 has one).
* the k loop is unrolled by calling an inlined device function 8 times with a constant k: Numba has no
  `#pragma unroll`, and NVVM leaves regblock's `for k in range(BK)` rolled (resources.inner_loops shows it).
* thread and block indexes are unsigned: Numba then emits no negative-index wraparound code (Python's a[-1]),
  which otherwise costs instructions and, with signed indexes, kept the B reads scalar (32-bit LDS).
* blocks entirely inside the matrices skip the bounds checks of the tile loads (one uniform branch per K tile).
"""
from numba import cuda, float32, uint32

from .launch import make_launch

NAME = "regblock_vec"
LEVEL = 3
DESCRIPTION = "regblock 타일 그대로 + As 전치·128비트 공유 메모리 로드(LDS.128), k 루프 완전 펼침, 부호 없는 인덱스"
BM = 128
BN = 128
BK = 8
TM = 8
TN = 8
TN_HALF = TN // 2              # a thread's columns: 4 at tx*4 and 4 at BN/2 + tx*4
BLOCK = (BN // TN, BM // TM)   # (16, 16)
THREADS = BLOCK[0] * BLOCK[1]  # 256
TILE = (BM, BN)
BM_PAD = BM + 4                # As[k] row pitch 132 floats: transposed stores conflict-free, rows stay 16-B aligned
A_TILE_ROW_STRIDE = THREADS // BK      # 32
B_TILE_ROW_STRIDE = THREADS // BN      # 2


# forceinline: NVVM inlines these (same SASS as Numba-IR inlining, offline sm_80/sm_90 of every kernel) and the front end runs ~2x faster (mma_pipe_f16acc 20 -> 9 s)
@cuda.jit(device=True, forceinline=True)
def _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, k):
    """rC += (column k of A tile, this thread's 8 rows) x (row k of B tile, this thread's 8 columns): 64 FMAs."""
    for m in range(TM):
        rA[m] = As[k, thread_row + m]                     # 8 contiguous floats: 2x LDS.128
    for n in range(TN_HALF):
        rB[n] = Bs[k, thread_col + n]                     # 4 contiguous floats: LDS.128
    for n in range(TN_HALF):
        rB[TN_HALF + n] = Bs[k, BN // 2 + thread_col + n]  # the other 4, 64 columns on: LDS.128
    for m in range(TM):
        for n in range(TN):
            rC[m, n] += rA[m] * rB[n]


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((BK, BM_PAD), float32, alignment=16)   # transposed: As[k, m] = A tile[m, k]
    Bs = cuda.shared.array((BK, BN), float32, alignment=16)
    rC = cuda.local.array((TM, TN), float32)
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tx = uint32(cuda.threadIdx.x)         # unsigned: indexes built from these are known >= 0
    ty = uint32(cuda.threadIdx.y)
    tid = ty * BLOCK[0] + tx
    block_row = uint32(cuda.blockIdx.y) * BM
    block_col = uint32(cuda.blockIdx.x) * BN
    thread_row = ty * TM
    thread_col = tx * TN_HALF
    a_row = tid // BK
    a_col = tid % BK
    b_row = tid // BN
    b_col = tid % BN
    interior = block_row + BM <= M and block_col + BN <= N
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    for k0 in range(0, K, BK):
        if interior and k0 + BK <= K:     # whole tile inside A and B: no bounds checks needed
            for off in range(0, BM, A_TILE_ROW_STRIDE):
                As[a_col, a_row + off] = A[uint32(block_row + a_row + off), uint32(k0 + a_col)]
            for off in range(0, BK, B_TILE_ROW_STRIDE):
                Bs[b_row + off, b_col] = B[uint32(k0 + b_row + off), uint32(block_col + b_col)]
        else:                             # edge tile: zeros outside the matrix add nothing to the sums
            for off in range(0, BM, A_TILE_ROW_STRIDE):
                gr = block_row + a_row + off
                gc = k0 + a_col
                if gr < M and gc < K:
                    As[a_col, a_row + off] = A[uint32(gr), uint32(gc)]
                else:
                    As[a_col, a_row + off] = float32(0.0)
            for off in range(0, BK, B_TILE_ROW_STRIDE):
                gr = k0 + b_row + off
                gc = block_col + b_col
                if gr < K and gc < N:
                    Bs[b_row + off, b_col] = B[uint32(gr), uint32(gc)]
                else:
                    Bs[b_row + off, b_col] = float32(0.0)
        # barrier 1: the outer products read As/Bs entries that *other* threads stored
        cuda.syncthreads()
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 0)   # k written out: constant indexes,
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 1)   # fully unrolled, rC stays in registers
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 2)
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 3)
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 4)
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 5)
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 6)
        _outer_product(As, Bs, rA, rB, rC, thread_row, thread_col, 7)
        # barrier 2: the next K tile overwrites As/Bs; nobody may do so while others still read this one
        cuda.syncthreads()
    for m in range(TM):
        gr = block_row + thread_row + m
        if gr < M:
            for h in range(2):
                for n in range(TN_HALF):
                    gc = block_col + h * (BN // 2) + thread_col + n
                    if gc < N:
                        if beta == 0:             # BLAS: with beta == 0, C is output only (may hold NaN)
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n]
                        else:
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n] + beta * C[gr, gc]


launch = make_launch(kernel, BLOCK, TILE)
