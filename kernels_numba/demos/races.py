"""Deliberately broken copies of the `tiled` kernel, each missing one barrier (for the race demonstration; not registered)."""
from numba import cuda, float32

from . import demo_launch
from ..tiled import BLOCK, TILE, TILE_SIZE


@cuda.jit
def no_sync1(A, B, C, alpha, beta):
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
        a_col = t * TILE_SIZE + tx
        As[ty, tx] = A[row, a_col] if row < M and a_col < K else float32(0.0)
        b_row = t * TILE_SIZE + ty
        Bs[ty, tx] = B[b_row, col] if b_row < K and col < N else float32(0.0)
        # BUG: barrier 1 is missing -- the loop reads As/Bs elements other threads may not have stored yet
        for k in range(TILE_SIZE):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    if row < M and col < N:
        C[row, col] = alpha * acc + beta * C[row, col] if beta != 0 else alpha * acc


@cuda.jit
def no_sync2(A, B, C, alpha, beta):
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
        a_col = t * TILE_SIZE + tx
        As[ty, tx] = A[row, a_col] if row < M and a_col < K else float32(0.0)
        b_row = t * TILE_SIZE + ty
        Bs[ty, tx] = B[b_row, col] if b_row < K and col < N else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE_SIZE):
            acc += As[ty, k] * Bs[k, tx]
        # BUG: barrier 2 is missing -- a fast thread stores tile t+1 while slower ones still read tile t
    if row < M and col < N:
        C[row, col] = alpha * acc + beta * C[row, col] if beta != 0 else alpha * acc


launch_no_sync1 = demo_launch(no_sync1, BLOCK, TILE)
launch_no_sync2 = demo_launch(no_sync2, BLOCK, TILE)
