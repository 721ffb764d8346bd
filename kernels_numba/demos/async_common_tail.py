"""The common loop as often taught (notebook 09's "흔한 루프"): commit_group only inside the load (prologue 's < num_k_tiles', loop 'if prefetch_tile < num_k_tiles'). In the last NUM_STAGES-1 iterations no group is committed, so wait_group(NUM_STAGES-1) no longer covers tile kt: those tiles are computed before PTX guarantees them (async_copy commits an empty group instead)."""
from numba import cuda, float32

from ..async_copy import (BK, BK_PAD, BLOCK, BM, BN, BN_PAD, NUM_STAGES, TILE, TM, TN, compute_tile,
                          cp_async_wait_group, issue_tile, store_C)
from ..infra import ptx
from . import demo_launch

NAME = "async_common_tail"
MIN_CC = (8, 0)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((NUM_STAGES, BM, BK_PAD), float32)
    Bs = cuda.shared.array((NUM_STAGES, BK, BN_PAD), float32)
    rC = cuda.local.array((TM, TN), float32)
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.y * BLOCK[0] + cuda.threadIdx.x
    block_row, block_col = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
    thread_row, thread_col = cuda.threadIdx.y * TM, cuda.threadIdx.x * TN
    a_row, a_col, b_row, b_col = tid // BK, tid % BK, tid // BN, tid % BN
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    num_k_tiles = (K + BK - 1) // BK

    for s in range(NUM_STAGES - 1):
        if s < num_k_tiles:
            issue_tile(A, B, As, Bs, s, s, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
            ptx.cp_async_commit_group()               # BUG: commit only with a load
    for kt in range(num_k_tiles):
        nxt = kt + NUM_STAGES - 1
        if nxt < num_k_tiles:
            issue_tile(A, B, As, Bs, nxt % NUM_STAGES, nxt, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
            ptx.cp_async_commit_group()               # BUG: no group in the last NUM_STAGES-1 iterations
        cp_async_wait_group(NUM_STAGES - 1)           # ... so this no longer covers tile kt there
        cuda.syncthreads()
        compute_tile(As, Bs, kt % NUM_STAGES, rA, rB, rC, thread_row, thread_col)
        cuda.syncthreads()
    store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta)


launch = demo_launch(kernel, BLOCK, TILE, min_cc=MIN_CC)
