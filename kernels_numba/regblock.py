"""Level 3: register blocking (seed §4) — a 128x128 block tile, each of 256 threads keeps an 8x8 tile of C in registers."""
from numba import cuda, float32

from .launch import make_launch

NAME = "regblock"
LEVEL = 3
DESCRIPTION = "128×128 블록 타일, 스레드당 8×8 출력(레지스터 rC), BK=8, 외적 마이크로커널, 패딩 없음"
BM = 128                       # rows of C per block
BN = 128                       # columns of C per block
BK = 8                         # depth of one K tile
TM = 8                         # rows of C per thread
TN = 8                         # columns of C per thread
BLOCK = (BN // TN, BM // TM)   # (16, 16) threads: x walks N, y walks M
THREADS = BLOCK[0] * BLOCK[1]  # 256
TILE = (BM, BN)
# cooperative loads: 256 threads fill a 128x8 A tile and an 8x128 B tile, 1024 floats each -> 4 loads per thread
A_TILE_ROW_STRIDE = THREADS // BK      # 32 rows of As per pass (8 threads per row)
B_TILE_ROW_STRIDE = THREADS // BN      # 2 rows of Bs per pass (128 threads per row)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    rC = cuda.local.array((TM, TN), float32)     # the accumulators: constant indexes only -> registers
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * BLOCK[0] + tx
    block_row = cuda.blockIdx.y * BM
    block_col = cuda.blockIdx.x * BN
    thread_row = ty * TM                          # this thread's 8x8 tile inside the block tile
    thread_col = tx * TN
    a_row = tid // BK                             # 0..31
    a_col = tid % BK                              # 0..7
    b_row = tid // BN                             # 0..1
    b_col = tid % BN                              # 0..127
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    for k0 in range(0, K, BK):
        for off in range(0, BM, A_TILE_ROW_STRIDE):
            r = a_row + off
            gr = block_row + r
            gc = k0 + a_col
            if gr < M and gc < K:
                As[r, a_col] = A[gr, gc]
            else:
                As[r, a_col] = float32(0.0)   # zeros outside the matrix add nothing to the sums
        for off in range(0, BK, B_TILE_ROW_STRIDE):
            r = b_row + off
            gr = k0 + r
            gc = block_col + b_col
            if gr < K and gc < N:
                Bs[r, b_col] = B[gr, gc]
            else:
                Bs[r, b_col] = float32(0.0)
        # barrier 1: each thread reads 8 rows of As and 8 columns of Bs that *other* threads stored
        cuda.syncthreads()
        for k in range(BK):
            for m in range(TM):
                rA[m] = As[thread_row + m, k]     # column k of this thread's 8 rows of the A tile
            for n in range(TN):
                rB[n] = Bs[k, thread_col + n]     # row k of this thread's 8 columns of the B tile
            for m in range(TM):                   # outer product: 16 loads feed 64 multiply-adds
                for n in range(TN):
                    rC[m, n] += rA[m] * rB[n]
        # barrier 2: the next pass overwrites As/Bs; nobody may do so while others still read this tile
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
