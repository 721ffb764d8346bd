"""Level 2: 16x16 outputs per block like `tiled`, but a K tile 32 deep: half the barriers and loop overhead per FMA."""
from numba import cuda, float32

from .launch import make_launch

NAME = "tiled_k32"
LEVEL = 2
DESCRIPTION = "tiled + K 방향 타일 32 (스레드당 A·B 2개씩 로드, 동기화 횟수 절반)"
TILE_SIZE = 16                 # outputs per block side (BM = BN = 16), threads per block side
BK = 32                        # depth of one K tile
BLOCK = (TILE_SIZE, TILE_SIZE)
TILE = (TILE_SIZE, TILE_SIZE)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16 B alignment lets the compiler read 4 consecutive As floats with one 128-bit LDS
    As = cuda.shared.array((TILE_SIZE, BK), float32, alignment=16)
    Bs = cuda.shared.array((BK, TILE_SIZE), float32, alignment=16)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE_SIZE + ty
    col = cuda.blockIdx.x * TILE_SIZE + tx
    acc = float32(0.0)
    for t in range((K + BK - 1) // BK):
        # cooperative load: 256 threads, 512 elements per tile -> two of A and two of B each
        for h in range(BK // TILE_SIZE):
            a_col = t * BK + h * TILE_SIZE + tx
            if row < M and a_col < K:
                As[ty, h * TILE_SIZE + tx] = A[row, a_col]
            else:
                As[ty, h * TILE_SIZE + tx] = float32(0.0)
            b_row = t * BK + h * TILE_SIZE + ty
            if b_row < K and col < N:
                Bs[h * TILE_SIZE + ty, tx] = B[b_row, col]
            else:
                Bs[h * TILE_SIZE + ty, tx] = float32(0.0)
        # barrier 1: the dot product below reads elements that *other* threads stored
        cuda.syncthreads()
        for k in range(BK):
            acc += As[ty, k] * Bs[k, tx]
        # barrier 2: nobody may overwrite As/Bs with the next tile while others still read this one
        cuda.syncthreads()
    if row < M and col < N:
        if beta == 0:                       # BLAS: with beta == 0, C is output only (may hold NaN)
            C[row, col] = alpha * acc
        else:
            C[row, col] = alpha * acc + beta * C[row, col]


launch = make_launch(kernel, BLOCK, TILE)
