"""Level 5, wide thread tile: async_bk16's pipeline with 128 threads, each computing 8x16 of C (128 accumulators).

What changes against async_bk16 (256 threads, 8x8 per thread):
* the block tile stays 128x128x16, but 128 threads share it, so a thread does 8 x 16 = 128 FFMAs per k for
  8 + 16 shared-memory values (4 LDS.64 of A for 2 k's each, 4 LDS.128 of B): 16 FFMAs per shared load
  instead of 10.7. The price is registers (up to 255 with launch_bounds (128, 2)) and 8 warps per SM
  (2 blocks) instead of 16: with 2 warps per scheduler, a shared load's latency must be hidden inside a warp;
* so the fragments are double-buffered in registers: the loads for k+1 are issued before the 128 FFMAs of k
  (PREFETCH). Without it, ncu puts the largest stalls (short scoreboard, dispatch) on the first FFMA that
  uses a freshly loaded value;
* a thread owns rows ty + 16 m (m < 8) and columns 32 g + 4 tx .. +3 (g < 4): the 8 threads of a quarter warp
  read 128 contiguous bytes of a B row, and the 4 thread rows of a warp read 4 neighbouring rows of A;
* A rows are 64 B (BK = 16 floats), so rows r and r + 2 start in the same bank: with SWIZZLE the two 32-byte
  halves of every row with bit 1 set are swapped (k ^ 8), which puts the 4 rows a warp reads at banks
  0, 16, 8, 24 (+k): conflict-free, and every 16-byte cp.async stays 16-byte aligned;
* the FFMAs of one k go row by row, odd rows backwards (zigzag), so consecutive FFMAs share an operand;
* each thread issues four 16-byte cp.async per matrix per tile (512 vectors of 4 floats / 128 threads).
"""
from numba import cuda, float32, uint32

from .async_vec import VEC, copy_vec, cp_async_wait_group
from .infra import device, ptx
from .launch import make_launch

NAME = "async_wide"
LEVEL = 5
MIN_CC = (8, 0)
MIN_BARRIERS = 1               # one barrier per K tile, none before the loop (its first barrier covers the prologue)
DESCRIPTION = "스레드당 8x16 (누산기 128개), 128 스레드, BK=16, 3단 cp.async, 레지스터 이중 버퍼, A 행 swizzle"
NUM_STAGES = 3
BM = 128
BN = 128
BK = 16
TM = 8                         # rows per thread: ty + 16 m
TN = 16                        # columns per thread: 4 groups of 4 at 32 g + 4 tx
GROUPS = TN // VEC             # 4
KV = 2                         # k values of A read at once: As[s][m][k..k+1] is one LDS.64
A_FRAG = TM * KV               # a thread holds 8 rows x 2 k of the A tile at a time
BLOCK = (8, 16)                # (tx, ty): 8 x 16 = 128 threads
THREADS = BLOCK[0] * BLOCK[1]
TILE = (BM, BN)
ROW_STEP = BLOCK[1]            # 16: a thread's rows are 16 apart
COL_STEP = BLOCK[0] * VEC      # 32: a thread's column groups are 32 apart
A_VECS_PER_ROW = BK // VEC     # 4
B_VECS_PER_ROW = BN // VEC     # 32
COPIES = BM * BK // (THREADS * VEC)      # 4 vectors of A (and of B) per thread per tile
assert COPIES * THREADS * VEC == BK * BN
SWIZZLE = True
PREFETCH = True
A_BUF = 2 * A_FRAG            # register double buffers (buffer 1 unused without PREFETCH)
B_BUF = 2 * TN
# 255 registers at most: 2 blocks of 128 threads fit an SM's 65536 (the simulator accepts no launch_bounds)
JIT_OPTIONS = {} if device.SIMULATOR else {"launch_bounds": (THREADS, 2)}


# forceinline: NVVM inlines these. Against Numba-IR inlining (inline="always") the sm_90 SASS has the same instructions
# (255 registers, the same count of every opcode) in another order, and the front end runs 25.8 -> 11.2 s here (30-40 s
# on the GPU hosts: the longest compile of notebook 09); the H100 live table checks it against the record
@cuda.jit(device=True, forceinline=True)
def swz(row, swizzle):
    """The k offset XORed into row `row` of an A tile: 8 (swap the 32-byte halves) where bit 1 of row is set."""
    return uint32(8) if swizzle and (row & 2) != 0 else uint32(0)


@cuda.jit(device=True, forceinline=True)
def _load_b(Bs, stage, rB, buf, tx, k):
    """rB[buf] <- this thread's 16 B values of row k: 4 LDS.128."""
    for g in range(GROUPS):
        for v in range(VEC):
            rB[buf * TN + g * VEC + v] = Bs[stage, k, COL_STEP * g + VEC * tx + v]


@cuda.jit(device=True, forceinline=True)
def _store_row(C, rC, m, block_row, block_col, ty, tx, M, N, alpha, beta):
    """C = alpha * rC + beta * C on this thread's row m inside C (beta == 0: C is output only, may hold NaN)."""
    gr = block_row + ty + ROW_STEP * m
    if gr < M:
        for g in range(GROUPS):
            for v in range(VEC):
                gc = block_col + COL_STEP * g + VEC * tx + v
                if gc < N:
                    if beta == 0:
                        C[gr, gc] = alpha * rC[m, g * VEC + v]
                    else:
                        C[gr, gc] = alpha * rC[m, g * VEC + v] + beta * C[gr, gc]


@cuda.jit(device=True, forceinline=True)
def _store_C(C, rC, block_row, block_col, ty, tx, M, N, alpha, beta):
    """The 8 rows one call each, m a constant: a loop over m that NVVM leaves rolled would index rC at run time
    and keep all 128 accumulators in local memory (measured: 32 STL.128 per K tile in the main loop)."""
    _store_row(C, rC, 0, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 1, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 2, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 3, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 4, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 5, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 6, block_row, block_col, ty, tx, M, N, alpha, beta)
    _store_row(C, rC, 7, block_row, block_col, ty, tx, M, N, alpha, beta)


def make_kernel(NUM_STAGES=NUM_STAGES, swizzle=SWIZZLE, prefetch=PREFETCH, jit_options=JIT_OPTIONS, kv=KV):
    """The kernel and its launch: NUM_STAGES 2 or 3 (4 would exceed 48 KiB of static shared memory); swizzle and
    prefetch switch the A-row swizzle and the register double buffering off, to measure what each gives; kv: k values
    of A per shared load (2: LDS.64; 4: LDS.128, 6 shared loads per k instead of 8, 32 more registers)."""
    if NUM_STAGES not in (2, 3):
        raise ValueError(f"NUM_STAGES must be 2 or 3, not {NUM_STAGES!r}")
    if kv not in (2, 4):
        raise ValueError(f"kv must be 2 or 4, not {kv!r}")
    WAIT_N = NUM_STAGES - 2
    SW = bool(swizzle)
    PF = bool(prefetch)
    KV_ = int(kv)
    A_FRAG_ = TM * KV_                     # a thread holds 8 rows x KV k of the A tile at a time
    A_BUF_ = 2 * A_FRAG_                   # register double buffers (buffer 1 unused without PREFETCH)

    @cuda.jit(device=True, forceinline=True)
    def _load_a(As, stage, a, buf, ty, ka):
        """a[buf] <- this thread's 8 A rows at k = ka .. ka+KV-1 (swizzled column): 8 LDS.64 (KV 2) or LDS.128 (KV 4)."""
        for m in range(TM):
            for j in range(KV_):
                a[buf * A_FRAG_ + m * KV_ + j] = As[stage, ty + ROW_STEP * m, ka + j]

    @cuda.jit(device=True, forceinline=True)
    def _k_step(As, Bs, stage, a, rB, rC, ty, tx, kx, k):
        """The 128 FFMAs of k (a constant). PF: first issue the loads k+1 needs, into the other register buffers
        (the kernel loads k = 0 at the tile start); else load what k needs right here, into buffer 0."""
        if PF:
            if k + 1 < BK:
                _load_b(Bs, stage, rB, (k + 1) % 2, tx, k + 1)                 # B row k+1 into the other rB buffer
                if k % KV_ == KV_ - 1:                                          # A for k+1 .. k+KV: the other a buffer
                    _load_a(As, stage, a, ((k + 1) // KV_) % 2, ty, (k + 1) ^ kx)
            ab = ((k // KV_) % 2) * A_FRAG_ + k % KV_
            bb = (k % 2) * TN
        else:
            if k % KV_ == 0:
                _load_a(As, stage, a, 0, ty, k ^ kx)
            _load_b(Bs, stage, rB, 0, tx, k)
            ab = k % KV_
            bb = 0
        for m in range(TM):
            for nn in range(TN):
                n = nn if m % 2 == 0 else TN - 1 - nn                           # zigzag: a row change keeps rB[n]
                rC[m, n] += a[ab + m * KV_] * rB[bb + n]

    @cuda.jit(**jit_options)
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((NUM_STAGES, BM, BK), float32, alignment=16)   # [stage][m][k ^ swz(m)]
        Bs = cuda.shared.array((NUM_STAGES, BK, BN), float32, alignment=16)   # [stage][k][n]
        rC = cuda.local.array((TM, TN), float32)
        a = cuda.local.array(A_BUF_, float32)    # 2 buffers of 8 rows x KV k
        rB = cuda.local.array(B_BUF, float32)   # 2 buffers of 16 columns
        M = uint32(A.shape[0])
        K = uint32(A.shape[1])
        N = uint32(B.shape[1])
        tx = uint32(cuda.threadIdx.x)
        ty = uint32(cuda.threadIdx.y)
        tid = ty * BLOCK[0] + tx
        block_row = uint32(cuda.blockIdx.y) * BM
        block_col = uint32(cuda.blockIdx.x) * BN
        kx = swz(ty, SW)                           # rows ty + 16 m all share bit 1 with ty
        # copy i of a thread: A vector tid + 128 i is row tid // 4 + 32 i, columns (tid % 4) * 4 (swizzled);
        # B vector tid + 128 i is row tid // 32 + 4 i, columns (tid % 32) * 4
        a_row = tid // A_VECS_PER_ROW
        a_col = (tid % A_VECS_PER_ROW) * VEC
        a_scol = a_col ^ swz(a_row, SW)            # rows a_row + 32 i share bit 1 with a_row
        b_row = tid // B_VECS_PER_ROW
        b_col = (tid % B_VECS_PER_ROW) * VEC
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
                for i in range(COPIES):
                    copy_vec(As, s, a_row + 32 * i, a_scol, A, block_row + a_row + 32 * i, s * BK + a_col, M, K)
                    copy_vec(Bs, s, b_row + 4 * i, b_col, B, s * BK + b_row + 4 * i, block_col + b_col, K, N)
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
                    for i in range(COPIES):
                        ptx.cp_async_cg_16(As, nxt_stage, a_row + 32 * i, a_scol, A, block_row + a_row + 32 * i,
                                           k0 + a_col)
                        ptx.cp_async_cg_16(Bs, nxt_stage, b_row + 4 * i, b_col, B, k0 + b_row + 4 * i,
                                           block_col + b_col)
                else:
                    for i in range(COPIES):
                        copy_vec(As, nxt_stage, a_row + 32 * i, a_scol, A, block_row + a_row + 32 * i, k0 + a_col,
                                 M, K)
                        copy_vec(Bs, nxt_stage, b_row + 4 * i, b_col, B, k0 + b_row + 4 * i, block_col + b_col,
                                 K, N)
            # commit every iteration, an empty group in the tail, so the count above holds to the last tile
            ptx.cp_async_commit_group()
            if PF:                                 # the fragments of k = 0 (and 1 for A): _k_step prefetches the rest
                _load_a(As, cur, a, 0, ty, kx)
                _load_b(Bs, cur, rB, 0, tx, 0)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 0)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 1)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 2)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 3)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 4)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 5)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 6)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 7)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 8)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 9)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 10)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 11)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 12)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 13)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 14)
            _k_step(As, Bs, cur, a, rB, rC, ty, tx, kx, 15)
            # ring-buffer indexes advance by one, wrapping at NUM_STAGES (kt % NUM_STAGES would work too: with a
            # constant NUM_STAGES it compiles to a multiply and shift, not a division; async_copy's PTX has no rem/div)
            cur = cur + 1 if cur + 1 < NUM_STAGES else uint32(0)
            nxt_stage = nxt_stage + 1 if nxt_stage + 1 < NUM_STAGES else uint32(0)

        _store_C(C, rC, block_row, block_col, ty, tx, M, N, alpha, beta)

    return kernel, make_launch(kernel, BLOCK, TILE, min_cc=MIN_CC)


kernel, launch = make_kernel()
