"""Level 4: the seed's PTX variant of `db` — ld.global.ca loads, explicit fma.rn.f32, 128-bit st.global.v4.f32 stores of C.

Same tiles, layout and barriers as db; only three instructions differ, each written once in kernels_numba/infra/ptx/*.ptx
and inlined by kernels_numba.infra.ptx (no CALL in the SASS):
* ld.global.ca.f32 for the tile loads (SASS LDG.E.STRONG.SM instead of db's LDG.E: see tests/test_db.py);
* fma.rn.f32 for rC += rA * rB (the compiler already fuses db's multiply-add into the same FFMA);
* st.global.v4.f32 for 4 consecutive elements of C when they lie inside the row and their address is a
  multiple of 16 bytes; otherwise (N % 4 != 0, the right edge, an unaligned C) one scalar store per element.
"""
from numba import cuda, float32

from .infra import ptx
from .launch import make_launch

NAME = "db_ptx"
LEVEL = 4
DESCRIPTION = "db + 인라인 PTX (.ptx 파일): ld.global.ca 로드, fma.rn.f32, 정렬된 C 4개를 st.global.v4.f32 로 저장"
BM = 128
BN = 128
BK = 8
TM = 8
TN = 8
VEC = 4                        # floats per st.global.v4.f32
BK_PAD = BK + 1
BN_PAD = BN + 1
BLOCK = (BN // TN, BM // TM)   # (16, 16)
THREADS = BLOCK[0] * BLOCK[1]
TILE = (BM, BN)
A_ROW_STRIDE = THREADS // BK   # 32
B_ROW_STRIDE = THREADS // BN   # 2


@cuda.jit(device=True)
def load_A_tile(A, As, buf, k_tile, block_row, a_row, a_col, M, K):
    """As[buf] <- A tile (ld.global.ca), zeros outside A."""
    gcol = k_tile * BK + a_col
    for i in range(0, BM, A_ROW_STRIDE):
        row = a_row + i
        grow = block_row + row
        if grow < M and gcol < K:
            As[buf, row, a_col] = ptx.ld_global_ca_f32(A, grow, gcol)
        else:
            As[buf, row, a_col] = float32(0.0)


@cuda.jit(device=True)
def load_B_tile(B, Bs, buf, k_tile, block_col, b_row, b_col, K, N):
    """Bs[buf] <- B tile (ld.global.ca), zeros outside B."""
    gcol = block_col + b_col
    for i in range(0, BK, B_ROW_STRIDE):
        row = b_row + i
        grow = k_tile * BK + row
        if grow < K and gcol < N:
            Bs[buf, row, b_col] = ptx.ld_global_ca_f32(B, grow, gcol)
        else:
            Bs[buf, row, b_col] = float32(0.0)


@cuda.jit(device=True)
def compute_tile(As, Bs, buf, rA, rB, rC, thread_row, thread_col):
    """rC = fma.rn.f32(rA, rB, rC) over the BK outer products of buffer buf."""
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[buf, thread_row + m, k]
        for n in range(TN):
            rB[n] = Bs[buf, k, thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] = ptx.fma_rn_f32(rA[m], rB[n], rC[m, n])


# forceinline: NVVM inlines these (same SASS as Numba-IR inlining, offline sm_80/sm_90 of every kernel) and the front end runs ~2x faster (mma_pipe_f16acc 20 -> 9 s)
@cuda.jit(device=True, forceinline=True)
def store_C_row(C, rC, m, grow, gcol0, M, N, alpha, beta):
    """C[grow, gcol0 .. gcol0+TN) = alpha * rC[m, :] + beta * C (if grow < M), as 16-byte vectors where allowed."""
    if grow >= M:
        return
    for h in range(0, TN, VEC):
        gcol = gcol0 + h
        v0 = alpha * rC[m, h]
        v1 = alpha * rC[m, h + 1]
        v2 = alpha * rC[m, h + 2]
        v3 = alpha * rC[m, h + 3]
        if gcol + VEC <= N and ptx.element_address(C, grow, gcol) % 16 == 0:
            if beta != 0:                              # beta == 0: C is output only, never read
                v0 += beta * C[grow, gcol]
                v1 += beta * C[grow, gcol + 1]
                v2 += beta * C[grow, gcol + 2]
                v3 += beta * C[grow, gcol + 3]
            ptx.st_global_v4_f32(C, grow, gcol, v0, v1, v2, v3)
        else:                                          # right edge, N % 4 != 0 or unaligned C: one by one
            for n in range(VEC):
                if gcol + n < N:
                    v = alpha * rC[m, h + n]
                    if beta != 0:
                        v += beta * C[grow, gcol + n]
                    C[grow, gcol + n] = v


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
    # barrier: iteration 0 computes on elements of buffer 0 that other threads stored
    cuda.syncthreads()

    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = (kt + 1) % 2
        if kt + 1 < num_k_tiles:
            load_A_tile(A, As, next_buf, kt + 1, block_row, a_row, a_col, M, K)
            load_B_tile(B, Bs, next_buf, kt + 1, block_col, b_row, b_col, K, N)
        compute_tile(As, Bs, curr_buf, rA, rB, rC, thread_row, thread_col)
        # one barrier per iteration, as in db: it orders this iteration's stores into next_buf before the next
        # iteration's reads of it, and this iteration's reads of curr_buf before the next iteration refills it
        cuda.syncthreads()

    # rows written out, not `for m in range(TM)`: NVVM leaves that loop rolled here, and rC[m, ...] with a
    # variable m would move rC to local memory (checked offline: a 256-byte stack and STL.128 spills)
    gcol0 = block_col + thread_col
    row0 = block_row + thread_row
    store_C_row(C, rC, 0, row0 + 0, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 1, row0 + 1, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 2, row0 + 2, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 3, row0 + 3, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 4, row0 + 4, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 5, row0 + 5, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 6, row0 + 6, gcol0, M, N, alpha, beta)
    store_C_row(C, rC, 7, row0 + 7, gcol0, M, N, alpha, beta)


launch = make_launch(kernel, BLOCK, TILE)
