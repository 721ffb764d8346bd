"""Level 6, the fast Tensor Core kernel: 64x64 of C per warp, 3-stage cp.async, ldmatrix.x4, no local memory.

Read it top to bottom; every choice is a switch of make_kernel so each one can be measured alone
(benchmarks/explore_fast.py):
* block tile BM x BN = 128 x 128, BK = 32; 4 warps (128 threads), each owning WM x WN = 64 x 64 of C as
  MI x NI = 4 x 8 mma tiles of 16 x 8: 128 f32 accumulators rC per thread. Per k16 step a warp issues 4 ldmatrix.x4
  for A, 4 ldmatrix.x4.trans for B and 32 mma: 4 mma per shared-memory load (mma_swizzle's 64 x 32 warps: 2.7);
* STAGES = 3 shared buffers of As[BM][BK] + Bs[BK][BN] f16 = 3 x 16 KiB = 48 KiB, the static limit;
  launch_bounds(128, 2) caps nothing here (65536 / (128 x 2) = 256 >= the 255 a thread may have): 2 blocks
  (8 warps) fit per SM because ptxas gives the kernel 240 registers (sm_90), 30720 per block;
* rows unpadded, their 16-byte chunks XOR-swizzled by the row (tc.swizzle_params): every ldmatrix phase reads
  8 different bank groups, and the swizzle of a lane does not depend on the mma tile (computed once);
* fragments double-buffered in registers (PREFETCH): the ldmatrix of k step kk+1 is issued before the mma of kk;
* PIPELINED main loop (as CUTLASS's multistage GEMM): the wait and the barrier for tile kt+1 come before the mma of
  tile kt's last k step, and tile kt+1's first fragments are loaded there too, so the tensor pipe still holds the
  earlier mma while a warp waits at the barrier; the next tile's cp.async (LATE) follow the mma they must not delay;
* blocks in row-major order (GROUP_M = 0). Rasterizing them in groups of GROUP_M block rows, so that blocks
  resident together share A and B tiles in L2, made no measurable difference on the H100 at 2048^3 and 4096^3
  (recorded: the same kernel with GROUP_M = 8 ran within 1.4 % in isolated ncu launches, L2 hit rate 86-87 % either
  way): the 50 MB L2 holds all of B and the rows of A that 2 x 132 resident blocks read;
* LEAN addresses: every address the K loop needs is computed once, before it. A thread's cp.async sources are
  flat element offsets of tile 0 (A[0, f] on the GPU; the simulator checks f against the whole matrix, see `flat`),
  and a tile adds kt * BK (A) or kt * BK * N (B); a copy's shared index, and a lane's ldmatrix index, is a
  per-thread offset in stage 0 plus the stage and a constant (ptxas folds the constant into the instruction:
  LDSM [R + 0x400]). Indexing A and B by (row, column) in every tile recomputed (k0 + r) * N in 64 bits for every B
  copy: ~110 instructions per tile for 8 copies, ~45 now; the main loop has 357 SASS instructions for its 64 HMMA
  instead of 440 (offline sm_90, benchmarks/offline_fast.py), and ran 1.06-1.09x faster at 4096^3 (H100 record,
  runs 5 and 6: 'no_lean' vs 'fast');
* all indexes are uint32: a signed (int64) index makes Numba add a negative-index wrap-around (setp.lt.s64 /
  selp.b64 in the PTX) to every array access. Every term must stay unsigned, constants too (u(16)): Numba types
  uint64 + int64 as int64 (signed again), and a comparison or min() of uint64 with int64 as float64 — one such
  mix put I2F.F64 / DADD / F2I into the loop's address arithmetic.

Why mma_swizzle spills (SASS of build_tiled at sm_90, offline: 128 registers, 528 B stack, 351 LDL/STL) and this
kernel does not. The PTX of mma_swizzle has no local memory at all (no .local, no __local_depot): NVVM promoted aF,
bF and acc to registers. The spill is made by ptxas, and 338 of the 351 LDL/STL lie after the K loop, in the
epilogue. Its `for q in literal_unroll(EPI_T)` over a tuple of 32 equal-typed ints is NOT unrolled: it compiles to
a run-time loop whose body is a chain of `setp.eq.s64 %rd1407, q; @%p bra` (one case per tuple element, SASS:
ISETP.NE ... 0x3 / BRA repeated). LLVM hoists the loop-invariant work of all 32 cases in front of that loop:
64 products alpha * acc (mul.f32 %f193 ..), 64 C addresses as 64-bit registers (%rd122 ..) with their negative-index
wrap-around selects, and 64 predicates, all live at once across the loop. Under the 128-register cap ptxas stores
all 64 accumulators right after the last HMMA (64 STL [R1+0x130 .. 0x20c]) and reloads them case by case (LDL.LU).
Here the epilogue indexes rC only with constants: store_C calls store_rows once per mma row tile mi, and the
loops over ni and h inside are small enough for NVVM to unroll. A plain `for mi in range(MI)` around them is left
rolled (its body is over NVVM's unroll threshold): rC is then indexed at run time and all of it goes to local memory
(measured: a 512-byte __local_depot and ld.local.v2.f32 in the epilogue). Its indexes are uint32, so no wrap-around
code either. tests/test_mma_fast.py checks both kernels' PTX and SASS.
"""
import numpy as np
from numba import cuda, float32, int64, uint32
from numba.types import float16

from .infra import device, ptx
from . import tc
from .infra.simulator.memory import host_array

NAME = "mma_fast"
LEVEL = 6
MIN_CC = (8, 0)
DTYPE = np.float16
C_DTYPE = np.float32
SIG = tc.sig(np.float32)
DESCRIPTION = "워프당 64x64 (누산기 128개), 128x128x32 블록, 3단 cp.async, ldmatrix.x4, 레지스터 이중 버퍼, 스위즐, 배리어 파이프라인"
STATIC_SMEM_LIMIT = 48 * 1024      # above it: dynamic shared memory and the function attribute (set_max_dynamic_smem)


set_max_dynamic_smem = device.set_max_dynamic_smem   # notebook 10 §5.6 names it here


if device.SIMULATOR:
    def flat(X):
        """The simulator's view of X as one row of M * K elements: the same flat offset, bounds-checked against
        the whole matrix (the simulator checks each index against its own axis)."""
        return host_array(X).reshape(1, -1)
else:
    # inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
    @cuda.jit(device=True, inline="always")
    def flat(X):
        """X itself: on the GPU X[0, f] is the element at flat offset f of a C-contiguous X (no bounds check)."""
        return X


def make_kernel(BM=128, BN=128, BK=32, WM=64, WN=64, STAGES=3, swizzle=True, prefetch=True, GROUP_M=0,
                min_blocks=2, late_copy=True, pipelined=True, lean=True):
    """(kernel, launch, config) for one configuration. swizzle=False: unpadded rows, no XOR (ldmatrix bank conflicts);
    prefetch=False: fragments loaded right before their mma; GROUP_M=g > 0: blocks rasterized in groups of g block
    rows (default 0: plain row-major order);
    min_blocks=None: no launch_bounds (no register cap); late_copy=False: the next tile's copies are issued right
    after the barrier, before the first mma of the tile; lean=False: every cp.async and ldmatrix address computed
    from its (row, column) in every tile. Each switch changes one thing: lean applies with or without the pipeline
    (until 2026-11-26 lean=True did nothing when pipelined=False; the recorded kernels named in VARIANTS below say
    lean=False where they had it off)."""
    WARPS_M, WARPS_N = BM // WM, BN // WN
    THREADS = 32 * WARPS_M * WARPS_N
    MI, NI = WM // 16, WN // 8                # mma tiles (16 x 8) per warp
    KSTEPS = BK // 16                         # mma k steps per shared tile
    NJ = NI // 2                              # ldmatrix.x4.trans per k step (two 16 x 8 B tiles each)
    A_STAGE, B_STAGE = BM * BK, BK * BN       # f16 elements of one stage
    SMEM_ELEMS = STAGES * (A_STAGE + B_STAGE)
    SMEM_BYTES = 2 * SMEM_ELEMS
    A_CPR, B_CPR = BK // 8, BN // 8           # 16-byte chunks (8 f16) per row of As / Bs
    A_COPIES, B_COPIES = BM * A_CPR // THREADS, BK * B_CPR // THREADS   # cp.async per thread per tile
    A_ROWS_STEP, B_ROWS_STEP = THREADS // A_CPR, THREADS // B_CPR       # rows between a thread's copies
    A_SH, A_MASK = tc.swizzle_params(A_CPR)
    B_SH, B_MASK = tc.swizzle_params(B_CPR)
    assert A_COPIES * THREADS == BM * A_CPR and B_COPIES * THREADS == BK * B_CPR, "copies must divide evenly"
    # the swizzle repeats every 8 rows: a thread's copies, 8k rows apart, share one swizzled column
    assert A_ROWS_STEP % 8 == 0 and B_ROWS_STEP % 8 == 0 and NI % 2 == 0 and MI in (1, 2, 3, 4, 8) and STAGES >= 2
    WAIT = tc.WAIT_GROUP[STAGES - 2]          # the immediate of wait_group is in the function's name
    DYNAMIC = SMEM_BYTES > STATIC_SMEM_LIMIT
    SW, PF, GM, LATE, PIPE = bool(swizzle), bool(prefetch), int(GROUP_M), bool(late_copy), bool(pipelined)
    LEAN = bool(lean)
    assert not PIPE or (PF and KSTEPS % 2 == 0), "pipelined needs prefetch and an even number of k steps per tile"
    WAIT_FIRST = tc.WAIT_GROUP[STAGES - 1]
    jit_options = {} if device.SIMULATOR or min_blocks is None else {"launch_bounds": (THREADS, min_blocks)}

    @cuda.jit(device=True, inline="always")
    def a_at(stage, r, chunk):
        """Index in smem of As[stage][r][8 * chunk]: the chunk XORed with bits of the row."""
        if SW:
            chunk ^= (r >> A_SH) & A_MASK
        return stage * A_STAGE + r * BK + chunk * 8

    @cuda.jit(device=True, inline="always")
    def b_at(stage, r, chunk):
        """Index in smem of Bs[stage][r][8 * chunk] (Bs follows all STAGES As)."""
        if SW:
            chunk ^= (r >> B_SH) & B_MASK
        return STAGES * A_STAGE + stage * B_STAGE + r * BN + chunk * 8

    @cuda.jit(device=True, inline="always")
    def copy_16(smem, dst, X, row, col, rows, cols):
        """smem[dst:dst+8] <- X[row, col:col+8] by cp.async (16 B, bypassing L1); a chunk outside X arrives as
        zeros: src-size 0 reads nothing (its address, X[0, 0], is only a valid placeholder)."""
        if row < rows and col < cols:
            ptx.cp_async_cg_16(smem, dst, X, row, col)
        else:
            ptx.cp_async_cg_16_zfill(smem, dst, X, uint32(0), uint32(0), uint32(0))

    @cuda.jit(device=True, inline="always")
    def load_tile(smem, A, B, stage, k0, bm, bn, tid, M, N, K, inside):
        """Stage `stage` <- A[bm:+BM, k0:+BK] and B[k0:+BK, bn:+BN]: A_COPIES + B_COPIES cp.async per thread.
        inside: the whole tile lies in A and B, so no copy needs a bounds check (every tile but the edges)."""
        ar, ac = tid // A_CPR, tid % A_CPR
        br, bc = tid // B_CPR, tid % B_CPR
        if inside:
            for i in range(A_COPIES):
                r = ar + i * A_ROWS_STEP
                ptx.cp_async_cg_16(smem, a_at(stage, r, ac), A, bm + r, k0 + ac * 8)
            for i in range(B_COPIES):
                r = br + i * B_ROWS_STEP
                ptx.cp_async_cg_16(smem, b_at(stage, r, bc), B, k0 + r, bn + bc * 8)
        else:
            for i in range(A_COPIES):
                r = ar + i * A_ROWS_STEP
                copy_16(smem, a_at(stage, r, ac), A, bm + r, k0 + ac * 8, M, K)
            for i in range(B_COPIES):
                r = br + i * B_ROWS_STEP
                copy_16(smem, b_at(stage, r, bc), B, k0 + r, bn + bc * 8, K, N)

    @cuda.jit(device=True, inline="always")
    def load_frags(smem, rA, rB, buf, stage, kk, wm, wn, lane):
        """rA[buf], rB[buf] <- the warp's fragments of k step kk: MI ldmatrix.x4 (A, 16 x 16 each) and NI / 2
        ldmatrix.x4.trans (B, 16 k x 16 n each = two 16 x 8 mma tiles). Lane l gives the address of row l % 16,
        chunk l // 16 of its 16 x 16 piece."""
        for mi in range(MI):
            rA[buf, mi, 0], rA[buf, mi, 1], rA[buf, mi, 2], rA[buf, mi, 3] = ptx.ldmatrix_x4(
                smem, a_at(stage, wm + mi * 16 + lane % 16, kk * 2 + lane // 16))
        for nj in range(NI // 2):
            rB[buf, 2 * nj, 0], rB[buf, 2 * nj, 1], rB[buf, 2 * nj + 1, 0], rB[buf, 2 * nj + 1, 1] = \
                ptx.ldmatrix_x4_trans(smem, b_at(stage, kk * 16 + lane % 16, (wn // 8) + nj * 2 + lane // 16))

    @cuda.jit(device=True, inline="always")
    def mma_all(rA, rB, rC, buf):
        """rC += the warp's MI x NI mma tiles for the fragments in buffer buf."""
        for mi in range(MI):
            for ni in range(NI):
                rC[mi, ni, 0], rC[mi, ni, 1], rC[mi, ni, 2], rC[mi, ni, 3] = ptx.mma_m16n8k16_f32(
                    rA[buf, mi, 0], rA[buf, mi, 1], rA[buf, mi, 2], rA[buf, mi, 3], rB[buf, ni, 0], rB[buf, ni, 1],
                    rC[mi, ni, 0], rC[mi, ni, 1], rC[mi, ni, 2], rC[mi, ni, 3])

    @cuda.jit(device=True, inline="always")
    def refill(smem, A, B, nxt, stage, ntiles, bm, bn, tid, M, N, K, block_inside):
        """Issue the copies of tile nxt into `stage` and commit them as one group; past the last tile the group is
        empty, so that the wait_group count of the main loop holds to the end."""
        if nxt < ntiles:
            load_tile(smem, A, B, stage, nxt * BK, bm, bn, tid, M, N, K, block_inside and (nxt + 1) * BK <= K)
        ptx.cp_async_commit_group()

    @cuda.jit(device=True, inline="always")
    def load_tile_lean(smem, Af, Bf, stage, kt, a_src, b_src, a_dst, b_dst, K, N):
        """LEAN, a tile wholly inside A and B: each copy's source is the thread's flat offset of tile 0 plus
        kt * BK (A) or kt * BK * N (B) plus a per-copy constant times K or N; its destination the thread's
        offset in stage 0 plus the stage and a constant (the swizzle of a thread's copies is the same, 8k rows
        apart). About 3 instructions a copy instead of ~11 (see the module docstring)."""
        u = uint32      # every term unsigned 32-bit: uint64 with int64 is int64 (+) or float64 (<, min): I2F/DADD in the SASS
        sa = u(stage * u(A_STAGE) + a_dst)
        sb = u(stage * u(B_STAGE) + b_dst)
        ka = u(a_src + kt * u(BK))
        kb = u(b_src + kt * u(BK) * N)
        for i in range(A_COPIES):
            # shared index as int64 (zero-extended) + constant: ptxas folds the constant into the address
            ptx.cp_async_cg_16(smem, int64(sa) + i * A_ROWS_STEP * BK, Af, u(0), u(ka + u(i * A_ROWS_STEP) * K))
        for i in range(B_COPIES):
            ptx.cp_async_cg_16(smem, int64(sb) + i * B_ROWS_STEP * BN, Bf, u(0), u(kb + u(i * B_ROWS_STEP) * N))

    @cuda.jit(device=True, inline="always")
    def load_frags_lean(smem, rA, rB, buf, stage, kk, la, lb):
        """LEAN load_frags: la[kk] / lb[nj] are the lane's ldmatrix offsets in stage 0 (swizzle included); a
        stage, a k step's rows of B and an mma row tile of A only add constants."""
        u = uint32
        oa = int64(u(stage * u(A_STAGE) + la[kk]))      # int64 + constant: [R + imm] in the SASS
        for mi in range(MI):
            rA[buf, mi, 0], rA[buf, mi, 1], rA[buf, mi, 2], rA[buf, mi, 3] = ptx.ldmatrix_x4(
                smem, oa + mi * 16 * BK)
        for nj in range(NJ):
            rB[buf, 2 * nj, 0], rB[buf, 2 * nj, 1], rB[buf, 2 * nj + 1, 0], rB[buf, 2 * nj + 1, 1] = \
                ptx.ldmatrix_x4_trans(smem, int64(u(stage * u(B_STAGE) + lb[nj])) + kk * 16 * BN)

    @cuda.jit(device=True, inline="always")
    def lean_offsets(la, lb, tid, lane, bm, bn, wm, wn, K, N):
        """LEAN: every address the loop needs, computed once. Returns the thread's copy offsets in A, B (flat, tile 0)
        and in stage 0 of As, Bs; fills la[kk] / lb[nj], the lane's ldmatrix offsets in stage 0 (la per k step: the
        swizzle XOR changes with the chunk; lb per pair of B tiles). The loop adds only the stage and constants."""
        u = uint32
        ar, ac = u(tid // u(A_CPR)), u(tid % u(A_CPR))
        br, bc = u(tid // u(B_CPR)), u(tid % u(B_CPR))
        a_src = u(u(bm + ar) * K + ac * u(8))
        b_src = u(br * N + u(bn) + bc * u(8))
        a_dst = u(a_at(u(0), ar, ac))
        b_dst = u(b_at(u(0), br, bc))
        for kk in range(KSTEPS):
            la[kk] = u(a_at(u(0), u(u(wm) + lane % u(16)), u(u(kk * 2) + lane // u(16))))
        for nj in range(NJ):
            lb[nj] = u(b_at(u(0), u(lane % u(16)), u(u(wn // 8) + u(nj * 2) + lane // u(16))))
        return a_src, b_src, a_dst, b_dst

    @cuda.jit(device=True, inline="always")
    def refill_lean(smem, A, B, Af, Bf, nxt, stage, ntiles, bm, bn, tid, M, N, K, block_inside,
                    a_src, b_src, a_dst, b_dst):
        """refill with load_tile_lean where the tile lies inside A and B (every tile but the edges)."""
        if nxt < ntiles:
            if block_inside and (nxt + 1) * BK <= K:
                load_tile_lean(smem, Af, Bf, stage, nxt, a_src, b_src, a_dst, b_dst, K, N)
            else:
                load_tile(smem, A, B, stage, nxt * BK, bm, bn, tid, M, N, K, False)
        ptx.cp_async_commit_group()

    @cuda.jit(device=True, inline="always")
    def block_origin(pid, M, N):
        """(bm, bn): the C tile of block pid. GROUP_M > 0: pids run down GROUP_M block rows before moving right,
        so the blocks resident together read GROUP_M tiles of A and few tiles of B (L2 reuse)."""
        u = uint32                      # unsigned 32-bit throughout: a signed 64-bit division is a subroutine call
        grid_m = (M + u(BM - 1)) // u(BM)
        grid_n = (N + u(BN - 1)) // u(BN)
        if GM == 0:
            return (pid // grid_n) * u(BM), (pid % grid_n) * u(BN)
        per_group = u(GM) * grid_n
        first_m = (pid // per_group) * u(GM)
        rows = min(grid_m - first_m, u(GM))            # the last group may have fewer block rows
        pm = first_m + (pid % per_group) % rows
        pn = (pid % per_group) // rows
        return pm * u(BM), pn * u(BN)

    @cuda.jit(device=True, inline="always")
    def store_rows(C, rC, mi, r0, c0, M, N, alpha, beta):
        """C = alpha * rC + beta * C for mma row tile mi (a constant) of the warp (beta == 0: C is output only and
        may hold NaN). Lane (g, t) = (lane / 4, lane % 4) holds rows g, g + 8 and columns 2t, 2t + 1 of each
        16 x 8 tile; r0, c0 are the lane's first row and column in C."""
        for ni in range(NI):
            for h in range(2):
                r = uint32(r0 + mi * 16 + h * 8)       # unsigned: no negative-index wrap-around code
                c = uint32(c0 + ni * 8)
                if r < M and c < N:                  # N % 8 == 0, so c + 1 < N too
                    v0 = alpha * rC[mi, ni, 2 * h]
                    v1 = alpha * rC[mi, ni, 2 * h + 1]
                    if beta != 0:
                        v0 += beta * C[r, c]
                        v1 += beta * C[r, c + 1]
                    C[r, c] = v0
                    C[r, c + 1] = v1

    @cuda.jit(device=True, inline="always")
    def store_C(C, rC, r0, c0, M, N, alpha, beta):
        """The MI row tiles one call each, mi a constant: NVVM leaves a loop over mi rolled (its body, 2 NI
        stores with their checks, is over the unroll threshold), then rC is indexed at run time and all 128
        accumulators go to local memory (measured: 512-byte __local_depot, ld.local.v2.f32 in the epilogue)."""
        store_rows(C, rC, 0, r0, c0, M, N, alpha, beta)
        if MI > 1:
            store_rows(C, rC, 1, r0, c0, M, N, alpha, beta)
        if MI > 2:
            store_rows(C, rC, 2, r0, c0, M, N, alpha, beta)
        if MI > 3:
            store_rows(C, rC, 3, r0, c0, M, N, alpha, beta)
        if MI > 4:
            store_rows(C, rC, 4, r0, c0, M, N, alpha, beta)
            store_rows(C, rC, 5, r0, c0, M, N, alpha, beta)
            store_rows(C, rC, 6, r0, c0, M, N, alpha, beta)
            store_rows(C, rC, 7, r0, c0, M, N, alpha, beta)

    @cuda.jit(**jit_options)
    def kernel(A, B, C, alpha, beta):
        # one flat f16 array: STAGES As tiles, then STAGES Bs tiles; 16-byte aligned for cp.async and ldmatrix
        if DYNAMIC:
            smem = cuda.shared.array(0, float16, alignment=16)
        else:
            smem = cuda.shared.array(SMEM_ELEMS, float16, alignment=16)
        rA = cuda.local.array((2, MI, 4), uint32)     # [buffer][mi]: 8 f16 of A per lane, as 4 x b32
        rB = cuda.local.array((2, NI, 2), uint32)     # [buffer][ni]: 4 f16 of B per lane
        rC = cuda.local.array((MI, NI, 4), float32)   # 4 f32 accumulators per 16 x 8 tile
        M, K, N = uint32(A.shape[0]), uint32(A.shape[1]), uint32(B.shape[1])
        tid = uint32(cuda.threadIdx.x)
        lane, warp = tid % 32, tid // 32
        wm, wn = (warp // WARPS_N) * WM, (warp % WARPS_N) * WN
        bm, bn = block_origin(uint32(cuda.blockIdx.x), M, N)
        for mi in range(MI):
            for ni in range(NI):
                for e in range(4):
                    rC[mi, ni, e] = float32(0.0)
        ntiles = (K + BK - 1) // BK
        block_inside = bm + BM <= M and bn + BN <= N      # only the K edge can still need zero-filled copies

        # prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty when K has fewer tiles)
        for s in range(0 if LEAN else STAGES - 1):
            if s < ntiles:
                load_tile(smem, A, B, uint32(s), uint32(s * BK), bm, bn, tid, M, N, K,
                          block_inside and (s + 1) * BK <= K)
            ptx.cp_async_commit_group()

        cur = uint32(0)                     # == kt % STAGES: the stage computed now
        if LEAN and PIPE:
            u = uint32
            nt = u(ntiles)                      # ntiles is int64 (K + int): int64 vs uint64 compares as float64
            Af, Bf = flat(A), flat(B)
            la = cuda.local.array((KSTEPS,), uint32)
            lb = cuda.local.array((NJ,), uint32)
            a_src, b_src, a_dst, b_dst = lean_offsets(la, lb, tid, lane, bm, bn, wm, wn, K, N)
            # tiles 0 .. STAGES-1 in flight, one commit group each (empty past the last tile)
            for s in range(STAGES):
                refill_lean(smem, A, B, Af, Bf, uint32(s), uint32(s), nt, bm, bn, tid, M, N, K, block_inside,
                            a_src, b_src, a_dst, b_dst)
            # wait: STAGES groups committed, at most STAGES-1 pending => tile 0 (this thread's copies) has landed
            WAIT_FIRST()
            # barrier: every thread's copies of tile 0 are visible before the first ldmatrix
            cuda.syncthreads()
            load_frags_lean(smem, rA, rB, 0, cur, 0, la, lb)
            for kt in range(nt):
                kt = u(kt)                          # range() over a uint32 counts in uint64; uint64 + int64 is int64 again
                nxt_stage = u(cur + u(1)) if cur + u(1) < u(STAGES) else u(0)     # the stage of tile kt+1
                for kk in range(KSTEPS):
                    if kk + 1 < KSTEPS:
                        load_frags_lean(smem, rA, rB, (kk + 1) % 2, cur, kk + 1, la, lb)
                    else:
                        # wait + barrier as in the PIPE branch below: tile kt+1 has landed for every thread, and
                        # every warp has issued its last ldmatrix of tile kt, so stage cur may be refilled
                        WAIT()
                        cuda.syncthreads()
                        if kt + u(1) < nt:          # the next tile's first fragments, before this step's mma
                            load_frags_lean(smem, rA, rB, 0, nxt_stage, 0, la, lb)
                    mma_all(rA, rB, rC, kk % 2)
                # tile kt+STAGES into the stage tile kt leaves (free since the barrier above)
                refill_lean(smem, A, B, Af, Bf, u(kt + u(STAGES)), cur, nt, bm, bn, tid, M, N, K,
                            block_inside, a_src, b_src, a_dst, b_dst)
                cur = nxt_stage
        elif PIPE:
            # one more tile in flight: tiles 0 .. STAGES-1 fill every stage (empty groups past the last tile)
            refill(smem, A, B, uint32(STAGES - 1), uint32(STAGES - 1), ntiles, bm, bn, tid, M, N, K, block_inside)
            # wait: STAGES groups committed, at most STAGES-1 pending => tile 0 (this thread's copies) has landed
            WAIT_FIRST()
            # barrier: every thread's copies of tile 0 are visible before the first ldmatrix
            cuda.syncthreads()
            load_frags(smem, rA, rB, 0, cur, 0, wm, wn, lane)
            for kt in range(ntiles):
                nxt_stage = cur + 1 if cur + 1 < STAGES else uint32(0)      # the stage of tile kt+1
                for kk in range(KSTEPS):
                    if kk + 1 < KSTEPS:
                        load_frags(smem, rA, rB, (kk + 1) % 2, cur, kk + 1, wm, wn, lane)
                    else:
                        # wait: STAGES+kt groups committed, at most STAGES-2 pending => tile kt+1 has landed
                        WAIT()
                        # barrier: (1) every thread's copies of tile kt+1 are visible; (2) every warp has issued
                        # its last ldmatrix of tile kt (its fragments for this k step came one step earlier), so
                        # stage cur may be refilled below. The mma of the steps before are still in the tensor
                        # pipe while the warp waits here.
                        cuda.syncthreads()
                        if kt + 1 < ntiles:          # the next tile's first fragments, before this step's mma
                            load_frags(smem, rA, rB, 0, nxt_stage, 0, wm, wn, lane)
                    mma_all(rA, rB, rC, kk % 2)
                # tile kt+STAGES into the stage tile kt leaves (free since the barrier above)
                refill(smem, A, B, kt + STAGES, cur, ntiles, bm, bn, tid, M, N, K, block_inside)
                cur = nxt_stage
        elif LEAN:
            # the branch below (wait and barrier at the start of each tile) with the lean addresses
            u = uint32
            nt = u(ntiles)
            Af, Bf = flat(A), flat(B)
            la = cuda.local.array((KSTEPS,), uint32)
            lb = cuda.local.array((NJ,), uint32)
            a_src, b_src, a_dst, b_dst = lean_offsets(la, lb, tid, lane, bm, bn, wm, wn, K, N)
            # prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty when K has fewer tiles)
            for s in range(STAGES - 1):
                refill_lean(smem, A, B, Af, Bf, u(s), u(s), nt, bm, bn, tid, M, N, K, block_inside,
                            a_src, b_src, a_dst, b_dst)
            nxt_stage = u(STAGES - 1)           # == (kt + STAGES - 1) % STAGES: the stage refilled now
            for kt in range(nt):
                kt = u(kt)
                # wait: STAGES-1+kt groups are committed; at most STAGES-2 still pending => tile kt (this thread's
                # copies) has landed
                WAIT()
                # barrier: (1) every thread's copies of tile kt have landed; (2) every warp has finished its
                # ldmatrix of tile kt-1, whose stage (== nxt_stage) the copies below overwrite
                cuda.syncthreads()
                nxt = u(kt + u(STAGES - 1))
                if not LATE:
                    refill_lean(smem, A, B, Af, Bf, nxt, nxt_stage, nt, bm, bn, tid, M, N, K, block_inside,
                                a_src, b_src, a_dst, b_dst)
                if PF:
                    load_frags_lean(smem, rA, rB, 0, cur, 0, la, lb)
                for kk in range(KSTEPS):
                    if PF:
                        if kk + 1 < KSTEPS:
                            load_frags_lean(smem, rA, rB, (kk + 1) % 2, cur, kk + 1, la, lb)
                        mma_all(rA, rB, rC, kk % 2)
                    else:
                        load_frags_lean(smem, rA, rB, 0, cur, kk, la, lb)
                        mma_all(rA, rB, rC, 0)
                    if LATE and kk == 0:
                        # nxt_stage is free since the barrier (as in the branch below)
                        refill_lean(smem, A, B, Af, Bf, nxt, nxt_stage, nt, bm, bn, tid, M, N, K, block_inside,
                                    a_src, b_src, a_dst, b_dst)
                cur = u(cur + u(1)) if cur + u(1) < u(STAGES) else u(0)
                nxt_stage = u(nxt_stage + u(1)) if nxt_stage + u(1) < u(STAGES) else u(0)
        else:
            nxt_stage = uint32(STAGES - 1)      # == (kt + STAGES - 1) % STAGES: the stage refilled now
            for kt in range(ntiles):
                # wait: STAGES-1+kt groups are committed; at most STAGES-2 still pending => tile kt (this thread's
                # copies) has landed
                WAIT()
                # barrier: (1) every thread's copies of tile kt have landed; (2) every warp has finished its
                # ldmatrix of tile kt-1, whose stage (== nxt_stage) the copies below overwrite
                cuda.syncthreads()
                nxt = kt + STAGES - 1
                if not LATE:
                    refill(smem, A, B, nxt, nxt_stage, ntiles, bm, bn, tid, M, N, K, block_inside)
                # the KSTEPS k steps of tile kt; PREFETCH: the fragments of kk+1 go into the other register buffer
                # before the mma of kk
                if PF:
                    load_frags(smem, rA, rB, 0, cur, 0, wm, wn, lane)
                for kk in range(KSTEPS):
                    if PF:
                        if kk + 1 < KSTEPS:
                            load_frags(smem, rA, rB, (kk + 1) % 2, cur, kk + 1, wm, wn, lane)
                        mma_all(rA, rB, rC, kk % 2)
                    else:
                        load_frags(smem, rA, rB, 0, cur, kk, wm, wn, lane)
                        mma_all(rA, rB, rC, 0)
                    if LATE and kk == 0:
                        # LATE: the copies go out after the first MI x NI mma are issued, so the tensor pipe has
                        # work while their address arithmetic issues; nxt_stage is free since the barrier
                        refill(smem, A, B, nxt, nxt_stage, ntiles, bm, bn, tid, M, N, K, block_inside)
                # ring indexes advance by one, wrapping at STAGES (no % : STAGES = 3 would cost a division)
                cur = cur + 1 if cur + 1 < STAGES else uint32(0)
                nxt_stage = nxt_stage + 1 if nxt_stage + 1 < STAGES else uint32(0)

        store_C(C, rC, bm + wm + lane // 4, bn + wn + (lane % 4) * 2, M, N, alpha, beta)

    config = dict(BM=BM, BN=BN, BK=BK, WM=WM, WN=WN, STAGES=STAGES, swizzle=SW, prefetch=PF, GROUP_M=GM,
                  min_blocks=min_blocks, late_copy=LATE, pipelined=PIPE, lean=LEAN,
                  THREADS=THREADS, MI=MI, NI=NI, SMEM_BYTES=SMEM_BYTES, DYNAMIC=DYNAMIC)

    def grid_of(M, N):
        return (-(-M // BM) * -(-N // BN),)        # 1-D: block_origin maps the block index to its tile

    launcher = _DynamicSmem(kernel, SMEM_BYTES) if DYNAMIC else kernel
    launch = tc.make_tc_launch(launcher, grid_of, THREADS, (tc.MMA_M, tc.MMA_N, tc.MMA_K), NAME)
    launch.kernel, launch.launcher = kernel, launcher      # launcher[grid, block]: with the dynamic shared bytes
    return kernel, launch, config


class _DynamicSmem:
    """kernel[grid, block(, stream)] that launches with SMEM_BYTES of dynamic shared memory, raising the kernel's
    limit first."""

    def __init__(self, kernel, nbytes):
        self.kernel, self.nbytes, self.ready = kernel, nbytes, False

    def __getitem__(self, cfg):
        grid, block, stream = cfg if len(cfg) == 3 else (*cfg, 0)
        if not device.SIMULATOR and not self.ready:
            set_max_dynamic_smem(self.kernel.compile(SIG), self.nbytes)
            self.ready = True
        return self.kernel[grid, block, stream, self.nbytes]


kernel, launch, CONFIG = make_kernel()
SMEM_BYTES = CONFIG["SMEM_BYTES"]

# The measured variants: name -> make_kernel switches (benchmarks/explore_fast.py times them; notebook 10's ablation
# reads the records by these names). Every switch a recorded kernel had off is spelled out: until 2026-11-26
# make_kernel ignored lean=True without the pipeline, so the recorded barrier_at_tile_start, no_prefetch, ... were
# built without lean addresses, and say lean=False here (the same SASS: tests/test_mma_fast.py). 'fast' minus one
# switch is named no_<switch>; runs 2 and 3 of the H100 record had GROUP_M=8 as the default ('no_raster' there).
VARIANTS = {
    "fast": {},                                                   # lean addresses, pipelined, 3 stages, GROUP_M 0
    "no_lean": dict(lean=False),                                  # addresses from (row, col) in every tile
    "no_pipeline": dict(pipelined=False),                         # lean, wait + barrier at the tile's start
    "bk64_lean_dyn": dict(BK=64),                                 # 3 x 32 KiB stages, 4 k steps per barrier
    "stages4_lean_dyn": dict(STAGES=4),
    "128x256_s4_dyn": dict(BN=256, STAGES=4, min_blocks=1),       # 8 warps of 64 x 64, 96 KiB
    "128x256x64_dyn": dict(BN=256, BK=64, min_blocks=1),          # Triton's usual f16 tile, 144 KiB
    "barrier_at_tile_start": dict(pipelined=False, lean=False),   # no_pipeline without lean: the recorded kernel
    "barrier_start_early_copy": dict(pipelined=False, late_copy=False, lean=False),   # = the first measured mma_fast
    "no_prefetch": dict(prefetch=False, pipelined=False, lean=False),   # vs barrier_at_tile_start: prefetch alone
    "no_swizzle": dict(swizzle=False),
    "raster_g4": dict(GROUP_M=4),
    "raster_g8": dict(GROUP_M=8),
    "raster_g16": dict(GROUP_M=16),
    "stages2": dict(STAGES=2),
    "stages4_dyn": dict(STAGES=4),
    "no_launch_bounds": dict(min_blocks=None),
    "warp64x32_lb2": dict(WN=32, pipelined=False, lean=False),   # mma_swizzle's warp tile, 8 warps
    "bk64_s2_dyn": dict(BK=64, STAGES=2),
    "bk64_s3_dyn": dict(BK=64, pipelined=False, lean=False),
    "128x256_dyn": dict(BN=256, min_blocks=1),
}
