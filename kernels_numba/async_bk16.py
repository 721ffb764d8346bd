"""Level 5, BK = 16: async_vec's kernel with K tiles twice as deep (16), NUM_STAGES = 3, one barrier per tile.

What changes against async_vec (BK = 8):
* a K tile is 128x16 of A and 16x128 of B, so each thread issues two 16-byte cp.async per matrix per tile
  (vectors tid and tid + 256) and the block computes 16 outer products between barriers instead of 8:
  half as many barriers, wait_groups and loop overheads per FMA;
* shared memory: 3 stages x (128x16 + 16x128) x 4 B = 48 KiB, exactly the 48 KiB a block may declare
  statically (ptxas rejects more; a 4th stage would need dynamic shared memory);
* the micro-kernel, the copy with zero fill at the edges and the store of C are async_vec's own functions.
"""
from numba import cuda, float32, uint32

from . import async_vec
from .async_vec import BM, BN, TM, TN, TN_HALF, VEC, BLOCK, THREADS, TILE, JIT_OPTIONS  # noqa: F401
from .async_vec import copy_vec, store_C, cp_async_wait_group, _outer_products
from .infra import ptx
from .launch import make_launch

NAME = "async_bk16"
LEVEL = 5
MIN_CC = (8, 0)
MIN_BARRIERS = 1               # one barrier per K tile, none before the loop (its first barrier covers the prologue)
DESCRIPTION = "async_vec 에서 BK=16 (타일당 cp.async 2번씩, 배리어 절반), 3단 버퍼 = 공유 메모리 48 KiB"
NUM_STAGES = 3
BK = 16
KV = async_vec.KV              # k values per A read in the source; NVVM merges the reads into ld.shared.v4 (LDS.128, no LDS.64)
A_FRAG = async_vec.A_FRAG      # a thread holds 8 rows x 2 k of the A tile at a time
A_VECS_PER_ROW = BK // VEC     # 4: vector v of the A tile is row v // 4, columns (v % 4) * 4 ..
B_VECS_PER_ROW = BN // VEC     # 32: vector v of the B tile is row v // 32, columns (v % 32) * 4 ..
A_ROWS_PER_PASS = THREADS // A_VECS_PER_ROW   # 64: the second copy of a thread is 64 rows further down
B_ROWS_PER_PASS = THREADS // B_VECS_PER_ROW   # 8:  ... and 8 rows of B further down
assert BM * BK == 2 * THREADS * VEC and BK * BN == 2 * THREADS * VEC    # two vectors per thread per matrix


def make_kernel(NUM_STAGES, jit_options=JIT_OPTIONS):
    """The kernel and its launch for NUM_STAGES shared-memory stages (2 or 3: 4 would exceed 48 KiB static)."""
    if NUM_STAGES not in (2, 3):
        raise ValueError(f"NUM_STAGES must be 2 or 3 with BK=16, not {NUM_STAGES!r}")
    WAIT_N = NUM_STAGES - 2

    @cuda.jit(**jit_options)
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((NUM_STAGES, BM, BK), float32, alignment=16)   # [stage][m][k]: 64-B rows
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
        a_row2 = a_row + A_ROWS_PER_PASS
        b_row2 = b_row + B_ROWS_PER_PASS
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
                copy_vec(As, s, a_row2, a_col, A, block_row + a_row2, s * BK + a_col, M, K)
                copy_vec(Bs, s, b_row, b_col, B, s * BK + b_row, block_col + b_col, K, N)
                copy_vec(Bs, s, b_row2, b_col, B, s * BK + b_row2, block_col + b_col, K, N)
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
                k0 = nxt * BK
                if interior and k0 + BK <= K:      # same for the whole block: no per-copy checks
                    ptx.cp_async_cg_16(As, nxt_stage, a_row, a_col, A, block_row + a_row, k0 + a_col)
                    ptx.cp_async_cg_16(As, nxt_stage, a_row2, a_col, A, block_row + a_row2, k0 + a_col)
                    ptx.cp_async_cg_16(Bs, nxt_stage, b_row, b_col, B, k0 + b_row, block_col + b_col)
                    ptx.cp_async_cg_16(Bs, nxt_stage, b_row2, b_col, B, k0 + b_row2, block_col + b_col)
                else:
                    copy_vec(As, nxt_stage, a_row, a_col, A, block_row + a_row, k0 + a_col, M, K)
                    copy_vec(As, nxt_stage, a_row2, a_col, A, block_row + a_row2, k0 + a_col, M, K)
                    copy_vec(Bs, nxt_stage, b_row, b_col, B, k0 + b_row, block_col + b_col, K, N)
                    copy_vec(Bs, nxt_stage, b_row2, b_col, B, k0 + b_row2, block_col + b_col, K, N)
            # commit every iteration, an empty group in the tail, so the count above holds to the last tile
            ptx.cp_async_commit_group()
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 0)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 2)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 4)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 6)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 8)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 10)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 12)
            _outer_products(As, Bs, cur, a, rB, rC, thread_row, thread_col, 14)
            # ring-buffer indexes advance by one, wrapping at NUM_STAGES (kt % NUM_STAGES would work too: with a
            # constant NUM_STAGES it compiles to a multiply and shift, not a division; async_copy's PTX has no rem/div)
            cur = cur + 1 if cur + 1 < NUM_STAGES else uint32(0)
            nxt_stage = nxt_stage + 1 if nxt_stage + 1 < NUM_STAGES else uint32(0)

        store_C(C, rC, block_row, block_col, thread_row, thread_col, M, N, alpha, beta)

    return kernel, make_launch(kernel, BLOCK, TILE, min_cc=MIN_CC)


kernel, launch = make_kernel(NUM_STAGES)
