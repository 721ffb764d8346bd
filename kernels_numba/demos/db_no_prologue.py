"""Teaching demo (not registered): `db` without the prologue that loads tile 0 into buffer 0. Wrong results.

What is missing: the two loads before the main loop. Why it breaks: the main loop only prefetches tile kt+1, so
nobody ever stores tile 0; iteration 0 computes on buffer 0 as it was before the kernel wrote anything. On a GPU that
is whatever the shared memory held; the course's simulator starts shared memory as NaN, so every C element is NaN.
Unlike a missing barrier this does not depend on timing: tile 0 is never loaded, so no ordering of threads fixes it.
"""
from numba import cuda, float32

from ..db import (BK, BLOCK, BM, BN, BK_PAD, BN_PAD, TILE, TM, TN, compute_tile, load_A_tile, load_B_tile)
from . import demo_launch

NAME = "db_no_prologue"
LEVEL = 4
DESCRIPTION = "교육용 (레지스트리 밖): db 에서 프롤로그(타일 0 → 버퍼 0)를 뺀 것 → 첫 반복이 빈 버퍼로 계산 (틀림)"


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((2, BM, BK_PAD), float32)
    Bs = cuda.shared.array((2, BK, BN_PAD), float32)
    rC = cuda.local.array((TM, TN), float32)
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.y * BLOCK[0] + cuda.threadIdx.x
    block_row = cuda.blockIdx.y * BM
    block_col = cuda.blockIdx.x * BN
    thread_row = cuda.threadIdx.y * TM
    thread_col = cuda.threadIdx.x * TN
    a_row, a_col = tid // BK, tid % BK
    b_row, b_col = tid // BN, tid % BN
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    num_k_tiles = (K + BK - 1) // BK
    # MISSING: the prologue (load_A_tile / load_B_tile of tile 0 into buffer 0); its barrier is kept
    cuda.syncthreads()
    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = (kt + 1) % 2
        if kt + 1 < num_k_tiles:
            load_A_tile(A, As, next_buf, kt + 1, block_row, a_row, a_col, M, K)
            load_B_tile(B, Bs, next_buf, kt + 1, block_col, b_row, b_col, K, N)
        compute_tile(As, Bs, curr_buf, rA, rB, rC, thread_row, thread_col)
        # barrier: separates iteration kt from kt+1 (read after write and write after read across threads)
        cuda.syncthreads()
    for m in range(TM):
        grow = block_row + thread_row + m
        if grow < M:
            for n in range(TN):
                gcol = block_col + thread_col + n
                if gcol < N:
                    if beta == 0:
                        C[grow, gcol] = alpha * rC[m, n]
                    else:
                        C[grow, gcol] = alpha * rC[m, n] + beta * C[grow, gcol]


launch = demo_launch(kernel, BLOCK, TILE)
