"""Level 4, best variant: double buffering whose prefetch really overlaps the math inside each warp.

`db` (the seed's kernel) stores the prefetched tile to shared memory *before* computing, and a store needs
its data: every warp waits for the global load right there (see db.sass_order). Here the next tile goes
global -> registers before the 512 FMAs of the current tile and registers -> shared memory after them, so
the load's latency passes while the warp computes. Tile shapes and the shared-memory layout are those of
regblock_vec (As stored transposed, 128-bit shared loads, k loop written out, unsigned indexes), so
regblock_vec vs db_overlap measures double buffering alone.

Two details decide whether the overlap survives compilation (sm_90 SASS, offline and as loaded on an H200):
* ptxas schedules a load where it likes. With a single bounds-checked (predicated) load path it sank all
  8 LDG below the FFMAs, next to the stores (order FFMA.. LDG STS: no overlap; 68 % of cuBLAS at 4096^3).
  Here blocks whose tile lies inside the matrices take a path with no checks, and the LDGs stay in front
  of the FFMAs (LDG.. FFMA.. STS; 77 % measured in the same run). tests/test_db.py checks the order.
* registers: M, N, K are taken as 32-bit, so the kernel fits in 128 registers (2 blocks of 256 threads
  per SM); two variants that came out at 129 registers on the H200 (one block per SM) measured 46 %.
"""
from numba import cuda, float32, uint32

from .launch import make_launch

NAME = "db_overlap"
LEVEL = 4
DESCRIPTION = "더블 버퍼링 + 레지스터 경유 프리페치: 다음 타일을 계산 전에 레지스터로 읽고 계산 후 공유 메모리에 저장 (regblock_vec 배치)"
BM = 128
BN = 128
BK = 8
TM = 8
TN = 8
TN_HALF = TN // 2              # a thread's columns: 4 at tx*4 and 4 at BN/2 + tx*4
BLOCK = (BN // TN, BM // TM)   # (16, 16)
THREADS = BLOCK[0] * BLOCK[1]  # 256
TILE = (BM, BN)
BM_PAD = BM + 4                # As[k] row pitch 132 floats: transposed stores conflict-free, rows stay 16-B aligned
A_ROW_STRIDE = THREADS // BK   # 32: a thread loads A rows a_row, +32, +64, +96
B_ROW_STRIDE = THREADS // BN   # 2: a thread loads B rows b_row, +2, +4, +6
LOADS = BM // A_ROW_STRIDE     # 4 floats of A and 4 of B per thread per tile (BK // B_ROW_STRIDE == 4 too)


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def load_tile_to_registers(A, B, ra, rb, k0, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K):
    """ra, rb <- this thread's 4 + 4 elements of the K tile starting at k0 (zeros outside the matrices)."""
    if block_row + BM <= M and block_col + BN <= N and k0 + BK <= K:
        # whole tile inside A and B (uniform per block): unconditional loads, which ptxas issues early
        for i in range(LOADS):
            ra[i] = A[uint32(block_row + a_row + i * A_ROW_STRIDE), uint32(k0 + a_col)]
            rb[i] = B[uint32(k0 + b_row + i * B_ROW_STRIDE), uint32(block_col + b_col)]
    else:                                     # edge tile: zeros outside the matrices add nothing to the sums
        for i in range(LOADS):
            gr = block_row + a_row + i * A_ROW_STRIDE
            gc = k0 + a_col
            ra[i] = A[uint32(gr), uint32(gc)] if gr < M and gc < K else float32(0.0)
            gr = k0 + b_row + i * B_ROW_STRIDE
            gc = block_col + b_col
            rb[i] = B[uint32(gr), uint32(gc)] if gr < K and gc < N else float32(0.0)


@cuda.jit(device=True, inline="always")
def store_tile_to_shared(As, Bs, buf, ra, rb, a_row, a_col, b_row, b_col):
    """As[buf] (transposed), Bs[buf] <- the elements load_tile_to_registers fetched."""
    for i in range(LOADS):
        As[buf, a_col, a_row + i * A_ROW_STRIDE] = ra[i]
        Bs[buf, b_row + i * B_ROW_STRIDE, b_col] = rb[i]


@cuda.jit(device=True, inline="always")
def _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, k):
    """rC += (column k of the A tile, this thread's 8 rows) x (row k of the B tile, its 8 columns): 64 FMAs."""
    for m in range(TM):
        rA[m] = As[buf, k, thread_row + m]                      # 8 contiguous floats: 2x LDS.128
    for n in range(TN_HALF):
        rB[n] = Bs[buf, k, thread_col + n]                      # LDS.128
    for n in range(TN_HALF):
        rB[TN_HALF + n] = Bs[buf, k, BN // 2 + thread_col + n]  # LDS.128, 64 columns on
    for m in range(TM):
        for n in range(TN):
            rC[m, n] += rA[m] * rB[n]


@cuda.jit(device=True, inline="always")
def compute_tile(As, Bs, buf, rA, rB, rC, thread_row, thread_col):
    """rC += tile in buffer buf; k written out (Numba has no #pragma unroll): constant shared offsets."""
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 0)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 1)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 2)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 3)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 4)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 5)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 6)
    _outer_product(As, Bs, buf, rA, rB, rC, thread_row, thread_col, 7)


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
    load_tile_to_registers(A, B, ra, rb, 0, block_row, block_col, a_row, a_col, b_row, b_col, M, N, K)
    store_tile_to_shared(As, Bs, 0, ra, rb, a_row, a_col, b_row, b_col)
    # barrier: iteration 0 computes on elements of buffer 0 that other threads stored
    cuda.syncthreads()

    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = 1 - curr_buf
        has_next = kt + 1 < num_k_tiles
        if has_next:      # 1. issue the loads of tile kt+1; nothing uses ra/rb until step 3
            load_tile_to_registers(A, B, ra, rb, (kt + 1) * BK, block_row, block_col,
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
