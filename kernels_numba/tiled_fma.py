"""Level 2: the padded tiled kernel with an explicit fused multiply-add (seed §3.5; cuda.fma -> fma.rn.f32)."""
from numba import cuda, float32

from .launch import make_launch

NAME = "tiled_fma"
LEVEL = 2
DESCRIPTION = "tiled_pad + 명시적 cuda.fma (PTX fma.rn.f32)"
TILE_SIZE = 16
TILE_PAD = TILE_SIZE + 1
BLOCK = (TILE_SIZE, TILE_SIZE)
TILE = (TILE_SIZE, TILE_SIZE)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((TILE_SIZE, TILE_PAD), float32, alignment=16)
    Bs = cuda.shared.array((TILE_SIZE, TILE_PAD), float32, alignment=16)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE_SIZE + ty
    col = cuda.blockIdx.x * TILE_SIZE + tx
    acc = float32(0.0)
    for t in range((K + TILE_SIZE - 1) // TILE_SIZE):
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
            # one rounding per step: acc = As*Bs + acc, exactly PTX fma.rn.f32 d, a, b, c
            acc = cuda.fma(As[ty, k], Bs[k, tx], acc)
        # barrier 2: nobody may overwrite As/Bs with the next tile while others still read this one
        cuda.syncthreads()
    if row < M and col < N:
        if beta == 0:                       # BLAS: with beta == 0, C is output only (may hold NaN)
            C[row, col] = alpha * acc
        else:
            C[row, col] = alpha * acc + beta * C[row, col]


launch = make_launch(kernel, BLOCK, TILE)
