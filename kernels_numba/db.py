"""Level 4: double buffering as the seed writes it (module 08 §4): two shared tiles, prefetch kt+1 while computing kt."""

from numba import cuda, float32

from .infra.sass import main_loop, parse_sass
from .launch import make_launch

NAME = "db"
LEVEL = 4
DESCRIPTION = "더블 버퍼링 (As[2][128][9], Bs[2][8][129]): 타일 kt+1 을 미리 읽으며 kt 계산, 반복당 syncthreads 1회"
BM = 128                       # rows of C per block
BN = 128                       # columns of C per block
BK = 8                         # depth of one K tile
TM = 8                         # rows of C per thread
TN = 8                         # columns of C per thread
BK_PAD = BK + 1                # the seed's +1 padding (As[2][BM][BK+1])
BN_PAD = BN + 1                # (Bs[2][BK][BN+1])
BLOCK = (BN // TN, BM // TM)   # (16, 16) = 256 threads: x walks N, y walks M
THREADS = BLOCK[0] * BLOCK[1]
TILE = (BM, BN)
A_ROW_STRIDE = THREADS // BK   # 32: 8 threads per As row, 32 rows per pass, 4 passes
B_ROW_STRIDE = THREADS // BN   # 2: 128 threads per Bs row, 2 rows per pass, 4 passes


@cuda.jit(device=True)
def load_A_tile(A, As, buf, k_tile, block_row, a_row, a_col, M, K):
    """As[buf] <- rows block_row.. of A, columns k_tile*BK..+BK (zeros outside A)."""
    gcol = k_tile * BK + a_col
    for i in range(0, BM, A_ROW_STRIDE):
        row = a_row + i
        grow = block_row + row
        if grow < M and gcol < K:
            As[buf, row, a_col] = A[grow, gcol]
        else:
            As[buf, row, a_col] = float32(0.0)     # zeros add nothing to the sums


@cuda.jit(device=True)
def load_B_tile(B, Bs, buf, k_tile, block_col, b_row, b_col, K, N):
    """Bs[buf] <- rows k_tile*BK..+BK of B, columns block_col..+BN (zeros outside B)."""
    gcol = block_col + b_col
    for i in range(0, BK, B_ROW_STRIDE):
        row = b_row + i
        grow = k_tile * BK + row
        if grow < K and gcol < N:
            Bs[buf, row, b_col] = B[grow, gcol]
        else:
            Bs[buf, row, b_col] = float32(0.0)


@cuda.jit(device=True)
def compute_tile(As, Bs, buf, rA, rB, rC, thread_row, thread_col):
    """rC += As[buf][thread rows, :] @ Bs[buf][:, thread cols]: BK outer products of 8 x 8."""
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[buf, thread_row + m, k]
        for n in range(TN):
            rB[n] = Bs[buf, k, thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((2, BM, BK_PAD), float32)    # [buffer][row][k]
    Bs = cuda.shared.array((2, BK, BN_PAD), float32)    # [buffer][k][column]
    rC = cuda.local.array((TM, TN), float32)            # constant indexes only -> registers
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
    num_k_tiles = (K + BK - 1) // BK                    # >= 1: launch() rejects K == 0

    # prologue: tile 0 -> buffer 0
    load_A_tile(A, As, 0, 0, block_row, a_row, a_col, M, K)
    load_B_tile(B, Bs, 0, 0, block_col, b_row, b_col, K, N)
    # barrier: iteration 0 computes on elements of buffer 0 that other threads stored
    cuda.syncthreads()

    for kt in range(num_k_tiles):
        curr_buf = kt % 2
        next_buf = (kt + 1) % 2
        if kt + 1 < num_k_tiles:                          # prefetch tile kt+1 into the other buffer
            load_A_tile(A, As, next_buf, kt + 1, block_row, a_row, a_col, M, K)
            load_B_tile(B, Bs, next_buf, kt + 1, block_col, b_row, b_col, K, N)
        compute_tile(As, Bs, curr_buf, rA, rB, rC, thread_row, thread_col)
        # ONE barrier per iteration is enough, because within an iteration the writes (next_buf) and the
        # reads (curr_buf) touch different buffers. This barrier separates iteration kt from kt+1 for both
        # cross-thread hazards that remain:
        #  - read after write: iteration kt+1 computes on next_buf, which other threads filled in iteration kt;
        #  - write after read: iteration kt+1 prefetches into buffer (kt+2)%2 == curr_buf, which other threads
        #    were still reading in iteration kt.
        cuda.syncthreads()

    # epilogue: C = alpha * rC + beta * C, inside the matrix only
    for m in range(TM):
        grow = block_row + thread_row + m
        if grow < M:
            for n in range(TN):
                gcol = block_col + thread_col + n
                if gcol < N:
                    if beta == 0:                         # BLAS: with beta == 0, C is output only (may hold NaN)
                        C[grow, gcol] = alpha * rC[m, n]
                    else:
                        C[grow, gcol] = alpha * rC[m, n] + beta * C[grow, gcol]


launch = make_launch(kernel, BLOCK, TILE)


# ------------------------------------------------------------------ what the warp really does (offline SASS)

def sass_instructions(sass):
    """[(address, opcode, operands)] of every SASS instruction in program order (cuobjdump or nvdisasm text),
    branch operands rewritten to the target address so backward branches can be found (see infra/sass.parse_sass)."""
    return [(i.addr, i.op, hex(i.target) if i.target is not None else i.operands) for i in parse_sass(sass)]


def sass_main_loop(sass):
    """(address, opcode, operands) of the main K-tile loop (the loop with a barrier and the most FFMAs; infra/sass.main_loop)."""
    return [(i.addr, i.op, i.operands) for i in main_loop(sass)]


def sass_order(sass, kinds=("LDG", "STS", "LDS", "FFMA", "BAR")):
    """Order of the memory and math instructions in the main loop, runs merged: [('LDG', 4), ('STS', 4), ('FFMA', 64), ...].

    An opcode counts as a kind when its first part equals it (LDG.E.STRONG.SM -> 'LDG', LDS.128 -> 'LDS').
    """
    out = []
    for _, op, _ in sass_main_loop(sass):
        kind = op.split(".")[0]
        if kind not in kinds:
            continue
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + 1)
        else:
            out.append((kind, 1))
    return out


def first_last(order, kind):
    """(index of the first, index of the last) instruction of `kind` in an order from sass_order, counting instructions."""
    pos, i = [], 0
    for k, n in order:
        if k == kind:
            pos += [i, i + n - 1]
        i += n
    return (min(pos), max(pos)) if pos else (None, None)
