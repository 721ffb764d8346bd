"""Level 2: 16x16 shared-memory tiles loaded cooperatively, two barriers per tile (seed §4, no padding)."""
from numba import cuda, float32

from .launch import make_launch

NAME = "tiled"
LEVEL = 2
DESCRIPTION = "16×16 공유 메모리 타일, syncthreads 2회, 패딩 없음"
TILE_SIZE = 16
BLOCK = (TILE_SIZE, TILE_SIZE)
TILE = (TILE_SIZE, TILE_SIZE)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16 B alignment lets the compiler read 4 consecutive As floats with one 128-bit LDS
    As = cuda.shared.array((TILE_SIZE, TILE_SIZE), float32, alignment=16)
    Bs = cuda.shared.array((TILE_SIZE, TILE_SIZE), float32, alignment=16)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE_SIZE + ty
    col = cuda.blockIdx.x * TILE_SIZE + tx
    acc = float32(0.0)
    for t in range((K + TILE_SIZE - 1) // TILE_SIZE):
        # cooperative load: each of the 256 threads brings one element of each tile; zeros outside the matrix
        a_col = t * TILE_SIZE + tx
        if row < M and a_col < K:
            As[ty, tx] = A[row, a_col]
        else:
            As[ty, tx] = float32(0.0)
        b_row = t * TILE_SIZE + ty
        if b_row < K and col < N:
            Bs[ty, tx] = B[b_row, col]
        else:
            Bs[ty, tx] = float32(0.0)
        # barrier 1: the dot product below reads elements that *other* threads stored
        cuda.syncthreads()
        for k in range(TILE_SIZE):
            acc += As[ty, k] * Bs[k, tx]
        # barrier 2: nobody may overwrite As/Bs with the next tile while others still read this one
        cuda.syncthreads()
    if row < M and col < N:
        if beta == 0:                       # BLAS: with beta == 0, C is output only (may hold NaN)
            C[row, col] = alpha * acc
        else:
            C[row, col] = alpha * acc + beta * C[row, col]


launch = make_launch(kernel, BLOCK, TILE)
