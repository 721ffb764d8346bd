"""Level 5, the seed's kernel: cp.async 4-byte copies global -> shared, NUM_STAGES = 3 shared buffers, db's math.

Tiles, thread mapping, padded layout (As[s][BM][BK+1], Bs[s][BK][BN+1]) and the 8x8 micro-kernel are those of
db_ptx; only the way a tile reaches shared memory differs: every element is one `cp.async.ca.shared.global ... 4`
(SASS LDGSTS.E), issued by the thread, landing later without passing through a register. Elements outside A or
B are stored as 0 directly, as in the seed. The pipeline is the seed's (prefetch, wait_group(NUM_STAGES-1),
barrier, compute, barrier) with one fix: a group is committed in *every* prologue step and iteration, empty when
no tile is left, so wait_group(NUM_STAGES-1) covers the current tile to the last iteration (sim/cp_async.py shows
the seed's loop does not).
"""
from numba import cuda, float32

from .infra import ptx
from .launch import make_launch

NAME = "async_copy"
LEVEL = 5
MIN_CC = (8, 0)                # cp.async: Ampere and later
DESCRIPTION = "cp.async 4바이트 복사(LDGSTS) + 3단 버퍼(NUM_STAGES=3), 패딩 배치, 꼬리에서도 빈 그룹 commit"
NUM_STAGES = 3
BM = 128
BN = 128
BK = 8
TM = 8
TN = 8
BK_PAD = BK + 1
BN_PAD = BN + 1
BLOCK = (BN // TN, BM // TM)   # (16, 16)
THREADS = BLOCK[0] * BLOCK[1]
TILE = (BM, BN)
A_ROW_STRIDE = THREADS // BK   # 32
B_ROW_STRIDE = THREADS // BN   # 2


# forceinline: NVVM inlines these (same SASS as Numba-IR inlining, offline sm_80/sm_90 of every kernel) and the front end runs ~2x faster (mma_pipe_f16acc 20 -> 9 s)
@cuda.jit(device=True, forceinline=True)
def cp_async_wait_group(n):
    """cp.async.wait_group n for a compile-time n (PTX takes an immediate only, one .ptx file per n); every level-5
    kernel uses this one."""
    if n == 0:
        ptx.cp_async_wait_group_0()
    elif n == 1:
        ptx.cp_async_wait_group_1()
    elif n == 2:
        ptx.cp_async_wait_group_2()
    elif n == 3:
        ptx.cp_async_wait_group_3()
    else:
        ptx.cp_async_wait_all()


@cuda.jit(device=True)
def issue_tile(A, B, As, Bs, stage, k_tile, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K):
    """Issue this thread's 4 + 4 cp.async copies of K tile k_tile into buffer `stage` (no commit here)."""
    gcol = k_tile * BK + a_col
    for i in range(0, BM, A_ROW_STRIDE):
        row = a_row + i
        grow = block_row + row
        if grow < M and gcol < K:
            ptx.cp_async_ca_4(As, stage, row, a_col, A, grow, gcol)
        else:                          # outside A: no address to copy from, store the 0 directly (as the seed)
            As[stage, row, a_col] = float32(0.0)
    gcol = block_col + b_col
    for i in range(0, BK, B_ROW_STRIDE):
        row = b_row + i
        grow = k_tile * BK + row
        if grow < K and gcol < N:
            ptx.cp_async_ca_4(Bs, stage, row, b_col, B, grow, gcol)
        else:
            Bs[stage, row, b_col] = float32(0.0)


@cuda.jit(device=True)
def compute_tile(As, Bs, stage, rA, rB, rC, thread_row, thread_col):
    """rC += the BK outer products of buffer `stage` (db's micro-kernel)."""
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[stage, thread_row + m, k]
        for n in range(TN):
            rB[n] = Bs[stage, k, thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]          # one FFMA on the GPU (the compiler fuses it)


@cuda.jit(device=True)
def store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta):
    """C = alpha * rC + beta * C for this thread's 8x8 elements inside C (beta == 0: C is not read)."""
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

    # prologue: tiles 0 .. NUM_STAGES-2 in flight, one group each; an EMPTY group when K has fewer tiles,
    # so that before iteration kt exactly NUM_STAGES-1+kt groups were committed, whatever num_k_tiles is
    for s in range(NUM_STAGES - 1):
        if s < num_k_tiles:
            issue_tile(A, B, As, Bs, s, s, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
        ptx.cp_async_commit_group()

    for kt in range(num_k_tiles):
        stage = kt % NUM_STAGES
        nxt = kt + NUM_STAGES - 1
        if nxt < num_k_tiles:          # its buffer was computed in iteration kt-1, released by that iteration's last barrier
            issue_tile(A, B, As, Bs, nxt % NUM_STAGES, nxt, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
        # commit every iteration, empty in the tail: NUM_STAGES + kt groups are now committed, so the wait below
        # (at most NUM_STAGES-1 pending) completes groups 0..kt, i.e. tile kt. The seed commits only when it loads:
        # in its last NUM_STAGES-1 iterations the same wait no longer covers tile kt.
        ptx.cp_async_commit_group()
        # wait: THIS thread's copies of tile kt have landed ...
        cp_async_wait_group(NUM_STAGES - 1)
        # ... barrier: and so have every other thread's copies (and their direct zero stores) of tile kt
        cuda.syncthreads()
        compute_tile(As, Bs, stage, rA, rB, rC, thread_row, thread_col)
        # barrier: nobody refills buffer `stage` (iteration kt+1 prefetches into it) while others still read it
        cuda.syncthreads()

    store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta)


launch = make_launch(kernel, BLOCK, TILE, min_cc=MIN_CC)
