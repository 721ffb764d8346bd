"""Teaching demo (not registered): db_overlap with the bounds-checked loads only (no unchecked path for interior tiles).

Correct, launchable like every kernel, and the same source order as db_overlap (load tile kt+1 into registers,
compute tile kt, store the registers to shared memory). What differs is what ptxas makes of it: with every load
predicated it may schedule the LDGs after the FFMAs, next to the stores, and the overlap db_overlap is written for
is gone. Notebook 08 section 4.6 compiles both offline and prints the main-loop order (course lesson: L8.sunk_loads);
tests/test_db.py checks it.
"""
from numba import cuda, float32, uint32

from ..db_overlap import (BK, BLOCK, BM, BM_PAD, BN, LOADS, A_ROW_STRIDE, B_ROW_STRIDE, TILE, TM, TN, TN_HALF,
                          compute_tile, store_tile_to_shared)
from ..launch import make_launch

NAME = "db_overlap_checked_only"
LEVEL = 4
DESCRIPTION = "교육용 (레지스트리 밖): db_overlap 에서 검사 없는 빠른 길을 뺀 것 (모든 로드가 경계 검사) → ptxas 가 LDG 를 옮길 수 있음"


@cuda.jit(device=True, inline="always")
def load_checked_to_registers(A, B, ra, rb, k0, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K):
    """ra, rb <- this thread's 4 + 4 elements of the K tile at k0, every load checked (db_overlap's edge path only)."""
    for i in range(LOADS):
        gr = block_row + a_row + i * A_ROW_STRIDE
        gc = k0 + a_col
        ra[i] = A[uint32(gr), uint32(gc)] if gr < M and gc < K else float32(0.0)
        gr = k0 + b_row + i * B_ROW_STRIDE
        gc = block_col + b_col
        rb[i] = B[uint32(gr), uint32(gc)] if gr < K and gc < N else float32(0.0)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((2, BK, BM_PAD), float32, alignment=16)   # [buffer][k][m]: transposed A tile
    Bs = cuda.shared.array((2, BK, BN), float32, alignment=16)       # [buffer][k][n]
    rC = cuda.local.array((TM, TN), float32)
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    ra = cuda.local.array(LOADS, float32)     # the next tile on its way: global -> here -> shared
    rb = cuda.local.array(LOADS, float32)
    M = uint32(A.shape[0])                    # 32-bit sizes (a side of 2**32 floats cannot fit on a GPU)
    K = uint32(A.shape[1])
    N = uint32(B.shape[1])
    tx = uint32(cuda.threadIdx.x)             # unsigned: no negative-index wraparound code
    ty = uint32(cuda.threadIdx.y)
    tid = ty * BLOCK[0] + tx
    block_row = uint32(cuda.blockIdx.y) * BM
    block_col = uint32(cuda.blockIdx.x) * BN
    thread_row = ty * TM
    thread_col = tx * TN_HALF
    a_row, a_col = tid // BK, tid % BK
    b_row, b_col = tid // BN, tid % BN
    for m in range(TM):
        for n in range(TN):
            rC[m, n] = float32(0.0)
    num_k_tiles = (K + BK - 1) // BK          # >= 1: launch() rejects K == 0

    # prologue: tile 0 -> registers -> buffer 0
    load_checked_to_registers(A, B, ra, rb, 0, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
    store_tile_to_shared(As, Bs, 0, ra, rb, a_row, a_col, b_row, b_col)
    # barrier: iteration 0 computes on elements of buffer 0 that other threads stored
    cuda.syncthreads()

    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = 1 - curr_buf
        has_next = kt + 1 < num_k_tiles
        if has_next:      # 1. issue the loads of tile kt+1; nothing uses ra/rb until step 3
            load_checked_to_registers(A, B, ra, rb, (kt + 1) * BK, block_row, block_col,
                                   a_row, a_col, b_row, b_col, M, N, K)
        # 2. compute on the current buffer while those loads are in flight
        compute_tile(As, Bs, curr_buf, rA, rB, rC, thread_row, thread_col)
        if has_next:      # 3. only now does the warp need the loaded values
            store_tile_to_shared(As, Bs, next_buf, ra, rb, a_row, a_col, b_row, b_col)
        # ONE barrier per iteration, for the same two reasons as in db:
        #  - read after write: iteration kt+1 computes on next_buf, which other threads stored in step 3;
        #  - write after read: step 3 of iteration kt+1 stores into (kt+2)%2 == curr_buf, which other threads
        #    read in step 2 of iteration kt.
        # Step 3 of iteration kt writes next_buf == the buffer computed on in iteration kt-1; the barrier at
        # the end of kt-1 already separates those reads from these writes.
        cuda.syncthreads()

    for m in range(TM):
        gr = block_row + thread_row + m
        if gr < M:
            for h in range(2):
                for n in range(TN_HALF):
                    gc = block_col + h * (BN // 2) + thread_col + n
                    if gc < N:
                        if beta == 0:             # BLAS: with beta == 0, C is output only (may hold NaN)
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n]
                        else:
                            C[gr, gc] = alpha * rC[m, h * TN_HALF + n] + beta * C[gr, gc]


launch = make_launch(kernel, BLOCK, TILE)
