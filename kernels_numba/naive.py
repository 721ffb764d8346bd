"""Level 1 baseline: one thread per element of C, every operand read straight from global memory."""
from numba import cuda, float32

from .launch import make_launch

NAME = "naive"
LEVEL = 1
DESCRIPTION = "스레드 하나가 C 원소 하나; 공유 메모리 없음 (비교 기준)"
BLOCK = (16, 16)          # (x: columns, y: rows) threads per block
TILE = (16, 16)           # (BM, BN) elements of C per block


@cuda.jit
def kernel(A, B, C, alpha, beta):
    M, K = A.shape
    N = B.shape[1]
    col = cuda.blockIdx.x * BLOCK[0] + cuda.threadIdx.x
    row = cuda.blockIdx.y * BLOCK[1] + cuda.threadIdx.y
    if row < M and col < N:
        acc = float32(0.0)
        for k in range(K):
            # each thread walks a row of A and a column of B in global memory: no reuse at all
            acc += A[row, k] * B[k, col]
        if beta == 0:                       # BLAS: with beta == 0, C is output only (may hold NaN)
            C[row, col] = alpha * acc
        else:
            C[row, col] = alpha * acc + beta * C[row, col]


launch = make_launch(kernel, BLOCK, TILE)
