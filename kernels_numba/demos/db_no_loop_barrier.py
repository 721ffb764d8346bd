"""Teaching demo (not registered): `db` without the barrier at the end of each main-loop iteration. Wrong results.

What is missing: the one `cuda.syncthreads()` per iteration. Why it breaks: it was the only thing separating
iteration kt from kt+1 across threads. Without it a fast thread starts iteration kt+1 and (read after write)
computes on buffer (kt+1)%2 before the other threads have stored tile kt+1 there, or (write after read) prefetches
tile kt+2 into buffer kt%2 while slower threads still read tile kt from it. The simulator runs each thread up to the
next barrier before the next thread starts, so here the first case shows every time; on a GPU it depends on timing.
"""
from numba import cuda, float32

from ..db import (BK, BLOCK, BM, BN, BK_PAD, BN_PAD, TILE, TM, TN, compute_tile, load_A_tile, load_B_tile)
from . import demo_launch

NAME = "db_no_loop_barrier"
LEVEL = 4
DESCRIPTION = "교육용 (레지스트리 밖): db 에서 반복당 배리어를 뺀 것 → 다른 스레드가 아직 채우지 않은 버퍼로 계산 (틀림)"


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
    load_A_tile(A, As, 0, 0, block_row, a_row, a_col, M, K)
    load_B_tile(B, Bs, 0, 0, block_col, b_row, b_col, K, N)
    cuda.syncthreads()                                    # the prologue's barrier is still here
    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = (kt + 1) % 2
        if kt + 1 < num_k_tiles:
            load_A_tile(A, As, next_buf, kt + 1, block_row, a_row, a_col, M, K)
            load_B_tile(B, Bs, next_buf, kt + 1, block_col, b_row, b_col, K, N)
        compute_tile(As, Bs, curr_buf, rA, rB, rC, thread_row, thread_col)
        # MISSING: cuda.syncthreads() -- nothing stops this thread from racing into iteration kt+1
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
