"""Solution, 06 직접 해보기 2: the tiled kernel with 8x8 tiles (64 threads per block)."""
from numba import cuda, float32

T8 = 8


@cuda.jit
def tiled8(A, B, C, alpha, beta):
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    M, K = A.shape
    N = B.shape[1]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * T8 + ty
    col = cuda.blockIdx.x * T8 + tx
    acc = float32(0.0)
    for t in range((K + T8 - 1) // T8):
        a_col = t * T8 + tx
        As[ty, tx] = A[row, a_col] if row < M and a_col < K else float32(0.0)
        b_row = t * T8 + ty
        Bs[ty, tx] = B[b_row, col] if b_row < K and col < N else float32(0.0)
        cuda.syncthreads()          # all of the tile is stored before anyone reads it
        for k in range(T8):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()          # everyone is done reading before the next tile overwrites it
    if row < M and col < N:
        C[row, col] = alpha * acc + beta * C[row, col] if beta != 0 else alpha * acc


def run(A, B, C, alpha=1.0, beta=0.0):
    """Launch tiled8 on a grid covering C."""
    import numpy as np
    M, N = C.shape
    tiled8[((N + T8 - 1) // T8, (M + T8 - 1) // T8), (T8, T8)](A, B, C, np.float32(alpha), np.float32(beta))
    return C
