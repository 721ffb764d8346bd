"""Level 5, vectorized: 16-byte cp.async (one LDGSTS.128 per thread per matrix per tile), NUM_STAGES = 3, one barrier per tile.

What changes against async_copy (the seed's 4-byte kernel):
* each thread copies one float4 of A and one of B per tile with `cp.async.cg.shared.global ... 16` (L2 only);
  16-byte copies need 16-byte aligned source and destination, so the shared layout is unpadded:
  As[s][BM][BK] (rows of 32 B) and Bs[s][BK][BN] (rows of 512 B). The padded rows of the earlier levels
  (BK+1 = 36 B, BN+1 = 516 B) put most copies off a 16-byte boundary (course.ch09_cp_async.lesson shows which);
* at the edges the copy uses the src-size form: only the bytes inside the matrix are read, the rest of the
  16 bytes is written as zeros (no plain stores mixed into the pipeline); where a row of A or B does not start
  16-byte aligned (K or N not a multiple of 4) it falls back to four 4-byte copies with the same zero fill;
* the loop waits *before* it prefetches: wait_group(NUM_STAGES-2); barrier; prefetch into the buffer computed
  in the previous iteration; commit; compute. The barrier then serves both purposes (tile kt landed for every
  thread, and everyone finished reading the buffer about to be refilled): one barrier per tile instead of two;
* the micro-kernel reads A along k, 2 values of k per call (As[s][m][k..k+1], 8 contiguous bytes); the loop is
  unrolled and NVVM merges the reads of two calls (ld.shared.v4.f32 in the PTX), so the compiled loop reads A with LDS.128 too: 32 LDS.128
  per tile and no LDS.64 (offline SASS for sm_80/sm_90 and the SASS loaded on the H200; course.ch09_cp_async.lesson).

NUM_STAGES is a module constant; async_vec_s2 and async_vec_s4 are the same kernel built with 2 and 4 stages
(`make_kernel`), so each registered name is one module with one kernel.
"""
from numba import cuda, float32, uint32

from .async_copy import cp_async_wait_group  # noqa: F401  (async_bk16, async_wide take it from here too)
from .infra import device, ptx
from .launch import make_launch

NAME = "async_vec"
LEVEL = 5
MIN_CC = (8, 0)
MIN_BARRIERS = 1               # one barrier per K tile, none before the loop (its first barrier covers the prologue)
DESCRIPTION = "cp.async 16바이트(LDGSTS.128) + 3단 버퍼, 정렬된 배치, zero-fill 경계, 타일당 배리어 1번"
NUM_STAGES = 3
BM = 128
BN = 128
BK = 8
TM = 8
TN = 8
VEC = 4                        # floats per 16-byte copy / per LDS.128
KV = 2                         # k values of A per _outer_products call: As[s][m][k..k+1] (NVVM merges 2 calls: ld.shared.v4)
A_FRAG = TM * KV               # 8 rows x 2 k of the A tile per call
TN_HALF = TN // 2              # a thread's columns: 4 at tx*4 and 4 at BN/2 + tx*4
BLOCK = (BN // TN, BM // TM)   # (16, 16)
THREADS = BLOCK[0] * BLOCK[1]  # 256
TILE = (BM, BN)
A_VECS_PER_ROW = BK // VEC     # 2: thread tid copies A tile row tid // 2, columns (tid % 2) * 4 ..
B_VECS_PER_ROW = BN // VEC     # 32: thread tid copies B tile row tid // 32, columns (tid % 32) * 4 ..
# at most 128 registers, so 2 blocks of 256 threads fit an SM's 65536 (unbounded, ptxas takes more: lesson09.registers_unbounded); the
# simulator does not accept launch_bounds, and does not need it
JIT_OPTIONS = {} if device.SIMULATOR else {"launch_bounds": (THREADS, 2)}


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def copy_vec(S, stage, srow, scol, X, grow, gcol, rows, cols):
    """Issue S[stage, srow, scol:scol+4] <- X[grow, gcol:gcol+4] as cp.async; elements outside X arrive as 0."""
    n = uint32(0)                                                          # floats of this vector inside X
    if grow < rows and gcol < cols:
        n = min(uint32(VEC), cols - gcol)
    r = grow if n > 0 else uint32(0)                                       # a copy that reads nothing still
    c = gcol if n > 0 else uint32(0)                                       # needs an address of X's own
    aligned = ptx.element_address(X, r, c) % 16 == 0
    if n == VEC and aligned:
        ptx.cp_async_cg_16(S, stage, srow, scol, X, r, c)                 # 16 B, all inside X
    elif n == 0 and aligned:
        ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 0)        # src-size 0: reads nothing, writes 16 zeros
    else:
        # a partial vector (1-3 floats inside X) or a row start off 16 B: four 4-byte copies. A 16-byte copy with
        # src-size 4..12 is legal PTX too; the edge does not use one because this is the form the recorded
        # compute-sanitizer runs checked (course/ch09_cp_async/records/sanitize_level5_*.log), not because of a recorded error.
        for j in range(VEC):
            if j < n:
                ptx.cp_async_ca_4_zfill(S, stage, srow, scol + j, X, r, c + j, 4)
            else:
                ptx.cp_async_ca_4_zfill(S, stage, srow, scol + j, X, uint32(0), uint32(0), 0)


@cuda.jit(device=True, inline="always")
def _outer_products(As, Bs, stage, a, rB, rC, thread_row, thread_col, k2):
    """rC += 2 outer products, k = k2, k2+1: A read along k (2 floats per row; NVVM merges 2 unrolled calls into one
    ld.shared.v4.f32 in the PTX, which ptxas emits as LDS.128), B as 2x LDS.128."""
    for m in range(TM):
        for j in range(KV):
            a[m * KV + j] = As[stage, thread_row + m, k2 + j]
    for j in range(KV):
        for n in range(TN_HALF):
            rB[n] = Bs[stage, k2 + j, thread_col + n]
        for n in range(TN_HALF):
            rB[TN_HALF + n] = Bs[stage, k2 + j, BN // 2 + thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += a[m * KV + j] * rB[n]


@cuda.jit(device=True, inline="always")
def store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta):
    """C = alpha * rC + beta * C for this thread's elements inside C (beta == 0: C is output only, may hold NaN)."""
    for m in range(TM):
        gr = block_row + thread_row + m
        if gr < M:
            for h in range(2):
                for n in range(TN_HALF):
                    gc = block_col + h * (BN // 2) + thread_col + n
                    if gc < N:
                        if beta == 0:
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n]
                        else:
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n] + beta * C[gr, gc]


def make_kernel(NUM_STAGES):
    """The kernel and its launch for a given number of shared-memory stages (2, 3 or 4: wait_group takes 0..2)."""
    if NUM_STAGES not in (2, 3, 4):
        raise ValueError(f"NUM_STAGES must be 2, 3 or 4, not {NUM_STAGES!r}")
    WAIT_N = NUM_STAGES - 2

    @cuda.jit(**JIT_OPTIONS)
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((NUM_STAGES, BM, BK), float32, alignment=16)   # [stage][m][k]: 32-B rows
        Bs = cuda.shared.array((NUM_STAGES, BK, BN), float32, alignment=16)   # [stage][k][n]: 512-B rows
        rC = cuda.local.array((TM, TN), float32)
        a = cuda.local.array(A_FRAG, float32)
        rB = cuda.local.array(TN, float32)
        M = uint32(A.shape[0])
        K = uint32(A.shape[1])
        N = uint32(B.shape[1])
        tx = uint32(cuda.threadIdx.x)
        ty = uint32(cuda.threadIdx.y)
        tid = ty * BLOCK[0] + tx
        block_row = uint32(cuda.blockIdx.y) * BM
        block_col = uint32(cuda.blockIdx.x) * BN
        thread_row = ty * TM
        thread_col = tx * TN_HALF
        a_row, a_col = tid // A_VECS_PER_ROW, (tid % A_VECS_PER_ROW) * VEC
        b_row, b_col = tid // B_VECS_PER_ROW, (tid % B_VECS_PER_ROW) * VEC
        for m in range(TM):
            for n in range(TN):
                rC[m, n] = float32(0.0)
        num_k_tiles = (K + BK - 1) // BK          # >= 1: launch() rejects K == 0
        # the block's tiles lie inside A and B and every row starts 16-B aligned: plain 16-byte copies only
        interior = (block_row + BM <= M and block_col + BN <= N and K % VEC == 0 and N % VEC == 0
                    and ptx.element_address(A, uint32(0), uint32(0)) % 16 == 0
                    and ptx.element_address(B, uint32(0), uint32(0)) % 16 == 0)

        # prologue: tiles 0 .. NUM_STAGES-2 in flight, one group each (empty when K has fewer tiles)
        for s in range(NUM_STAGES - 1):
            if s < num_k_tiles:
                copy_vec(As, s, a_row, a_col, A, block_row + a_row, s * BK + a_col, M, K)
                copy_vec(Bs, s, b_row, b_col, B, s * BK + b_row, block_col + b_col, K, N)
            ptx.cp_async_commit_group()

        cur = uint32(0)                            # == kt % NUM_STAGES: the buffer computed in iteration kt
        nxt_stage = uint32(NUM_STAGES - 1)         # == (kt + NUM_STAGES - 1) % NUM_STAGES: the buffer refilled
        for kt in range(num_k_tiles):
            # wait: NUM_STAGES-1+kt groups are committed; at most NUM_STAGES-2 pending => groups 0..kt done,
            # i.e. THIS thread's copies of tile kt have landed
            cp_async_wait_group(WAIT_N)
            # barrier: (1) every thread's copies of tile kt have landed; (2) every thread finished computing
            # tile kt-1, so its buffer (kt-1) % NUM_STAGES may be refilled just below
            cuda.syncthreads()
            nxt = kt + NUM_STAGES - 1
            if nxt < num_k_tiles:                  # nxt_stage == (kt - 1) % NUM_STAGES, released by the barrier above
                if interior and (nxt + 1) * BK <= K:   # same for the whole block: no per-copy checks
                    ptx.cp_async_cg_16(As, nxt_stage, a_row, a_col, A, block_row + a_row, nxt * BK + a_col)
                    ptx.cp_async_cg_16(Bs, nxt_stage, b_row, b_col, B, nxt * BK + b_row, block_col + b_col)
                else:
                    copy_vec(As, nxt_stage, a_row, a_col, A, block_row + a_row, nxt * BK + a_col, M, K)
                    copy_vec(Bs, nxt_stage, b_row, b_col, B, nxt * BK + b_row, block_col + b_col, K, N)
            # commit every iteration, an empty group in the tail, so the count above holds to the last tile
            ptx.cp_async_commit_group()
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 0)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 2)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 4)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 6)
            # ring-buffer indexes advance by one, wrapping at NUM_STAGES (kt % NUM_STAGES with a constant NUM_STAGES
            # would cost no division either: async_copy's PTX has no div/rem, only a multiply-high and shifts)
            cur = cur + 1 if cur + 1 < NUM_STAGES else uint32(0)
            nxt_stage = nxt_stage + 1 if nxt_stage + 1 < NUM_STAGES else uint32(0)

        store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta)

    return kernel, make_launch(kernel, BLOCK, TILE, min_cc=MIN_CC)


kernel, launch = make_kernel(NUM_STAGES)
