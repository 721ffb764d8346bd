"""The level-6 Tensor Core template and its shared pieces (beside the kernel modules it builds): size rules, launch,
the fragment coordinates of a lane, and build_tiled, whose inner `kernel` is the body of mma_warps ... mma_swizzle."""
import numpy as np
from numba import cuda, float32, uint32
from numba.types import float16
try:                                            # numba-cuda has its own (numba.literal_unroll is not typed there)
    from numba.cuda.misc.special import literal_unroll
except ImportError:  # pragma: no cover
    from numba import literal_unroll

from .infra import device, jitcache, ptx
from .infra.errors import CourseInputError
from .launch import _Repeat, bound, check_inputs, run_kernel
from numba import types

MMA_M, MMA_N, MMA_K = 16, 8, 16


def check_multiples(M, N, K, bm, bn, bk, name):
    """CourseInputError unless M % bm == N % bn == K % bk == 0 (the kernel has no edge handling)."""
    dims = [(d, v, m) for d, v, m in (("M", M, bm), ("N", N, bn), ("K", K, bk)) if v % m]
    if dims:
        bad_ko = ", ".join(f"{d}={v} ({m}의 배수가 아님)" for d, v, m in dims)
        bad_en = ", ".join(f"{d}={v} (not a multiple of {m})" for d, v, m in dims)
        pad = (-(-M // bm) * bm, -(-N // bn) * bn, -(-K // bk) * bk)
        raise CourseInputError(
            f"{name} 커널은 M 이 {bm}, N 이 {bn}, K 가 {bk} 의 배수여야 합니다: {bad_ko}.",
            f"kernel {name} needs M % {bm} == 0, N % {bn} == 0, K % {bk} == 0: {bad_en}.",
            f"0으로 채워(pad) 크기를 {pad} 로 맞추거나 course.ch10_tensor_core.lesson.padded_launch 를 쓰세요.",
            f"zero-pad to {pad} (course.ch10_tensor_core.lesson.padded_launch does it) or use another shape.")


def make_tc_launch(kernel, grid_of, threads, multiples, name, c_dtype=np.float32, exact=None,
                   min_cc=device.ASYNC_MIN_CC, arch_specific=False):
    """launch(A, B, C, alpha=1.0, beta=0.0) -> C for f16 A, B and C of c_dtype; grid_of(M, N) -> grid.
    min_cc: the kernel's MIN_CC (m16n8k16 and cp.async: 8.0); arch_specific: it runs on that CC only (sm_90a code,
    level 7). Where it runs (here, or the simulator in a subprocess) is decided here, once."""
    away = device.lacks(min_cc, arch_specific)
    ready = [device.MODE != "gpu"]
    repeat = _Repeat()

    def checked(A, B, C, alpha, beta):
        M, N, K, a32, b32, _ = check_inputs(A, B, C, alpha, beta, (np.float16, np.float16, c_dtype))
        if exact is not None and (M, N, K) != exact:
            raise CourseInputError(
                f"{name} 커널은 (M, N, K) = {exact} 한 가지 크기만 계산합니다 (받은 크기 {(M, N, K)}).",
                f"kernel {name} computes only (M, N, K) = {exact}, got {(M, N, K)}.",
                "큰 행렬은 mma_large 이후의 커널을 쓰세요.", "use mma_large or a later kernel for other sizes.")
        check_multiples(M, N, K, *multiples, name)
        return grid_of(M, N), a32, b32

    def launch(A, B, C, alpha=1.0, beta=0.0):
        again = repeat.get(A, B, C, alpha, beta)
        if again is not None:               # the same device arrays and scalars as the last call: checked then
            again[0](A, B, C, again[1], again[2])
            return C
        if not ready[0]:                    # first launch: another process may be compiling it (jitcache.warm)
            jitcache.wait_ready(getattr(kernel, "kernel", kernel))
            ready[0] = True
        grid, a32, b32 = checked(A, B, C, alpha, beta)
        # below sm_80 (no m16n8k16 / cp.async) run_kernel sends the launch to a simulator subprocess (subsim)
        out = run_kernel(kernel, grid, threads, A, B, C, a32, b32, away=away)
        if not away and device.MODE == "gpu":
            repeat.put(A, B, C, alpha, beta, kernel[grid, threads], a32, b32)
        return out

    def bind(A, B, C, alpha=1.0, beta=0.0, stream=0):
        grid, a32, b32 = checked(A, B, C, alpha, beta)
        return bound(kernel, grid, threads, A, B, C, a32, b32, stream, away)

    launch.bind = bind
    launch.kernel, launch.block, launch.grid_of, launch.away = kernel, threads, grid_of, away
    return launch


def sig(c_dtype):
    """Numba signature of a level-6 kernel (A, B f16 row-major; C f32 or f16; alpha, beta f32) for offline compiles."""
    c = types.float32 if np.dtype(c_dtype) == np.float32 else types.float16
    return (types.Array(types.float16, 2, "C"), types.Array(types.float16, 2, "C"), types.Array(c, 2, "C"),
            types.float32, types.float32)


# unit roundoff of the accumulation / output types
UNIT_ROUNDOFF = {"f32": 2.0 ** -24, "f16": 2.0 ** -11}
TINY = {"f32": 2.0 ** -150, "f16": 2.0 ** -25}     # half the spacing of the subnormals


def error_bound(A, B, alpha=1.0, beta=0.0, C0=None, acc="f32", out="f32", safety=2.0):
    """Elementwise bound |C - C_exact| for C = alpha*A@B + beta*C0 from f16 A, B (exact inputs, float64 reference).

    Recursive summation of K terms with a relative error of at most v per addition errs by at most
    gamma_K(v) * sum_k |a_ik b_kj|, gamma_K(v) = K v / (1 - K v), defined for K v < 1 (Higham, Accuracy and Stability
    of Numerical Algorithms, 3.1); the products of two f16 are exact in f32. Inside the Tensor Core the order and
    rounding of the additions are undocumented, so each may err by `safety` (2) units of the accumulator's u:
    v = 2u, and gamma_K(2u) > 2 gamma_K(u) (the bound exists only for 2 K u < 1: f16 accumulation K < 1024).
    With M = |alpha| |A| @ |B| + |beta| |C0|: + u_f32 M for the f32 epilogue alpha*acc + beta*C, + u_out |C_exact|
    for the result's rounding to the output type (f16 output: + u_f32 |C_exact| more, the f32 sum's own rounding
    before it), + half the spacing of that type's subnormals (absolute). So the
    tolerance grows linearly with K, 8192 times faster for f16 than for f32 accumulation (2^-11 / 2^-24)."""
    A64, B64 = np.asarray(A, np.float64), np.asarray(B, np.float64)
    K = A64.shape[1]
    u = UNIT_ROUNDOFF[acc]
    v = safety * u                   # one addition's relative error inside the Tensor Core
    if K * v >= 1:          # gamma_K(v) is defined only for K*v < 1; beyond it there is no bound
        k_max = int(np.ceil(1 / v)) - 1
        raise CourseInputError(
            f"K = {K} 에서는 {acc} 누적의 오차 한계가 성립하지 않습니다 (K·{safety:g}u = {K * v:g} ≥ 1; {acc} 의 u = {u:g}).",
            f"no error bound for {acc} accumulation at K = {K}: K*{safety:g}u = {K * v:g} >= 1 (u = {u:g}).",
            f"f32 누적 커널을 쓰거나 K 를 {k_max} 이하의 조각으로 나눠 확인하세요.",
            f"use an f32-accumulating kernel, or check K in pieces of at most {k_max}.")
    gamma = K * v / (1 - K * v)
    mag = abs(alpha) * (np.abs(A64) @ np.abs(B64))
    exact = alpha * (A64 @ B64)
    if C0 is not None and beta != 0:
        mag = mag + abs(beta) * np.abs(np.asarray(C0, np.float64))
        exact = exact + beta * np.asarray(C0, np.float64)
    # + half the spacing of the output type's subnormals (f16: 2^-25), where relative rounding does not apply
    tiny = TINY[out]
    # the epilogue's sum is an f32 value: for f32 output its rounding is u_out |C|; f16 output rounds it once more
    u_result = UNIT_ROUNDOFF[out] + (UNIT_ROUNDOFF["f32"] if out != "f32" else 0.0)
    return gamma * mag + u_result * np.abs(exact) + UNIT_ROUNDOFF["f32"] * mag + tiny


def bound_k_max(acc="f32", safety=2.0):
    """The largest K for which error_bound exists: K * safety * u < 1."""
    return int(np.ceil(1 / (safety * UNIT_ROUNDOFF[acc]))) - 1


def reference(A, B, alpha=1.0, beta=0.0, C0=None):
    """float64 reference alpha * A @ B + beta * C0."""
    ref = alpha * (np.asarray(A, np.float64) @ np.asarray(B, np.float64))
    if C0 is not None and beta != 0:
        ref = ref + beta * np.asarray(C0, np.float64)
    return ref


# ------------------------------------------------------------------------------------- cp.async (notebook 09)
# cp.async from notebook 09 (kernels_numba/infra/ptx/cp_async_*.ptx): 16-byte global -> shared copies that bypass L1
cp_async_16 = ptx.cp_async_cg_16
cp_async_commit = ptx.cp_async_commit_group
WAIT_GROUP = {n: getattr(ptx, f"cp_async_wait_group_{n}") for n in range(4)}     # the immediate N is in the name


# forceinline: NVVM inlines these (same SASS as Numba-IR inlining, offline sm_80/sm_90 of every kernel) and the front end runs ~2x faster (mma_pipe_f16acc 20 -> 9 s)
@cuda.jit(device=True, forceinline=True)
def zero_16(dst, s, i, j):
    """8 f16 zeros where a 16-byte chunk lies outside the matrix (edge tiles)."""
    for e in range(8):
        dst[s, i, j + e] = float16(0.0)


def smem_bytes(BM, BN, BK, STAGES, pad=8):
    """Shared memory of a tiled kernel: STAGES x (As[BM][BK+pad] + Bs[BK][BN+pad]) f16."""
    return STAGES * (BM * (BK + pad) + BK * (BN + pad)) * 2


def swizzle_params(cpr):
    """(shift, mask) of the XOR swizzle for rows of `cpr` 16-byte chunks: chunk' = chunk ^ ((row >> shift) & mask).

    8 consecutive rows read at one logical chunk (one ldmatrix phase) then land in 8 different 16-byte bank groups:
    a row of cpr < 8 chunks shares its 128 bytes of banks with 8 // cpr - 1 other rows, so the XOR changes every
    8 // cpr rows; a row of cpr >= 8 chunks starts at bank 0, so the XOR is row % 8."""
    assert cpr >= 1 and cpr & (cpr - 1) == 0, "XOR stays inside the row only for a power-of-two chunk count"
    shift = max(0, 3 - (cpr.bit_length() - 1))
    return shift, min(cpr, 8) - 1


def build_tiled(BM, BN, BK, WARPS_M, WARPS_N, STAGES, acc="f32", out="f32", PAD=8, MIN_BLOCKS=None, SWIZZLE=False):
    """Kernel for a BM x BN block tile: WARPS_M x WARPS_N warps, each (BM/WARPS_M) x (BN/WARPS_N) of C as a grid of
    16x8 mma tiles; K in steps of BK through STAGES shared-memory buffers filled by cp.async (STAGES=1: load, wait,
    compute, no overlap). Rows of As/Bs are padded by PAD halves (16 B) so the 8 row addresses of one ldmatrix phase
    fall in different banks, and stay 16-byte aligned for cp.async and ldmatrix; SWIZZLE: unpadded rows whose 16-byte
    chunks are XOR-permuted by the row (swizzle_params) instead, the same effect without the padding.
    MIN_BLOCKS: on the GPU, launch_bounds=(THREADS, MIN_BLOCKS) asks ptxas to fit that many blocks per SM (caps
    registers per thread)."""
    WM, WN = BM // WARPS_M, BN // WARPS_N
    MI, NI = WM // 16, WN // 8                 # mma tiles per warp
    KSTEPS = BK // 16
    THREADS = 32 * WARPS_M * WARPS_N
    A_CHUNKS = BM * BK // 8                    # 16-byte chunks per stage
    B_CHUNKS = BK * BN // 8
    A_PER, B_PER = A_CHUNKS // THREADS, B_CHUNKS // THREADS
    A_CPR, B_CPR = BK // 8, BN // 8            # chunks per row
    if SWIZZLE:                                # unpadded rows, 16-byte chunks XOR-permuted within a row instead
        PAD = 0
    BKP, BNP = BK + PAD, BN + PAD
    A_SH, A_MASK = swizzle_params(A_CPR)
    B_SH, B_MASK = swizzle_params(B_CPR)
    assert A_PER * THREADS == A_CHUNKS and B_PER * THREADS == B_CHUNKS and NI % 2 == 0 and STAGES >= 1
    WAIT = WAIT_GROUP[max(STAGES - 2, 0)]
    F16ACC = acc == "f16"
    NACC = 2 if F16ACC else 4
    mma = ptx.mma_m16n8k16_f16 if F16ACC else ptx.mma_m16n8k16_f32
    ldsm_a, ldsm_b = ptx.ldmatrix_x4, ptx.ldmatrix_x4_trans
    EPI_T = tuple(range(MI * NI * 2))

    @cuda.jit(device=True, forceinline=True)
    def a_col(r, c):
        """Stored column of As[r, c] (c a multiple of 8): c itself, or its chunk XOR-swizzled by the row."""
        if SWIZZLE:
            return c ^ (((r >> A_SH) & A_MASK) << 3)
        return c

    @cuda.jit(device=True, forceinline=True)
    def b_col(r, c):
        """Stored column of Bs[r, c] (c a multiple of 8)."""
        if SWIZZLE:
            return c ^ (((r >> B_SH) & B_MASK) << 3)
        return c

    @cuda.jit(device=True, forceinline=True)
    def load_tile(A, B, As, Bs, s, kt, bm, bn, tid, M, N, K):
        """Stage s <- A[bm:+BM, kt*BK:+BK] and B[kt*BK:+BK, bn:+BN] as 16-byte cp.async; zeros outside."""
        k0 = kt * BK
        for i in range(A_PER):
            ch = tid + i * THREADS
            r, c = ch // A_CPR, (ch % A_CPR) * 8
            if bm + r < M and k0 + c < K:
                cp_async_16(As, s, r, a_col(r, c), A, bm + r, k0 + c)
            else:
                zero_16(As, s, r, a_col(r, c))
        for i in range(B_PER):
            ch = tid + i * THREADS
            r, c = ch // B_CPR, (ch % B_CPR) * 8
            if k0 + r < K and bn + c < N:
                cp_async_16(Bs, s, r, b_col(r, c), B, k0 + r, bn + c)
            else:
                zero_16(Bs, s, r, b_col(r, c))

    @cuda.jit(device=True, forceinline=True)
    def compute(As, Bs, s, acc, aF, bF, wm, wn, lane):
        for kk in range(KSTEPS):
            for mi in range(MI):
                # the swizzle repeats every 8 rows and wm + mi * 16 is a multiple of 8: the lane's row within the
                # 16 picks it, so the column does not depend on mi (fewer distinct addresses live across the loop)
                aF[mi, 0], aF[mi, 1], aF[mi, 2], aF[mi, 3] = ldsm_a(As, s, wm + mi * 16 + lane % 16,
                                                                    a_col(lane % 16, kk * 16 + 8 * (lane // 16)))
            for nj in range(NI // 2):
                bF[2 * nj, 0], bF[2 * nj, 1], bF[2 * nj + 1, 0], bF[2 * nj + 1, 1] = ldsm_b(
                    Bs, s, kk * 16 + lane % 16, b_col(lane % 16, wn + nj * 16 + 8 * (lane // 16)))
            for mi in range(MI):
                for ni in range(NI):
                    if F16ACC:
                        acc[mi, ni, 0], acc[mi, ni, 1] = mma(aF[mi, 0], aF[mi, 1], aF[mi, 2], aF[mi, 3],
                                                             bF[ni, 0], bF[ni, 1], acc[mi, ni, 0], acc[mi, ni, 1])
                    else:
                        acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3] = mma(
                            aF[mi, 0], aF[mi, 1], aF[mi, 2], aF[mi, 3], bF[ni, 0], bF[ni, 1],
                            acc[mi, ni, 0], acc[mi, ni, 1], acc[mi, ni, 2], acc[mi, ni, 3])

    @cuda.jit(device=True, forceinline=True)
    def value(acc, mi, ni, e):
        """Accumulator element e (0..3) of tile (mi, ni) as f32."""
        if F16ACC:
            lo, hi = ptx.unpack_f16x2(acc[mi, ni, e // 2])
            return ptx.cvt_f32_f16(lo if e % 2 == 0 else hi)
        return acc[mi, ni, e]

    jit = cuda.jit if MIN_BLOCKS is None or device.SIMULATOR else cuda.jit(launch_bounds=(THREADS, MIN_BLOCKS))

    @jit
    def kernel(A, B, C, alpha, beta):
        # 16-byte alignment: cp.async 16-byte destinations and ldmatrix row addresses
        As = cuda.shared.array((STAGES, BM, BKP), float16, alignment=16)
        Bs = cuda.shared.array((STAGES, BK, BNP), float16, alignment=16)
        aF = cuda.local.array((MI, 4), uint32)
        bF = cuda.local.array((NI, 2), uint32)
        acc = cuda.local.array((MI, NI, NACC), uint32 if F16ACC else float32)
        M, K = A.shape
        N = B.shape[1]
        tid = cuda.threadIdx.x
        lane, warp = tid % 32, tid // 32
        wm, wn = (warp // WARPS_N) * WM, (warp % WARPS_N) * WN
        bm, bn = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
        for mi in range(MI):
            for ni in range(NI):
                for e in range(NACC):
                    acc[mi, ni, e] = 0            # f32 0.0, or two f16 +0.0 in one b32
        ntiles = (K + BK - 1) // BK
        if STAGES == 1:
            for kt in range(ntiles):
                load_tile(A, B, As, Bs, 0, kt, bm, bn, tid, M, N, K)
                cp_async_commit()
                # wait: this thread's copies have landed; barrier: every thread's have
                WAIT()
                cuda.syncthreads()
                compute(As, Bs, 0, acc, aF, bF, wm, wn, lane)
                # barrier: all warps have read the tile before the next copies overwrite it
                cuda.syncthreads()
        else:
            for s in range(STAGES - 1):               # prologue: tiles 0 .. STAGES-2 in flight
                if s < ntiles:
                    load_tile(A, B, As, Bs, s, s, bm, bn, tid, M, N, K)
                cp_async_commit()                     # commit even when empty: one group per tile keeps the count
            for kt in range(ntiles):
                # wait_group(STAGES-2): of the STAGES-1+kt groups committed, all but the newest STAGES-2 are complete,
                # i.e. tile kt has landed (for this thread's copies)
                WAIT()
                # barrier: (1) every thread's copies of tile kt are visible; (2) every warp has finished computing
                # tile kt-1, whose buffer the load below refills
                cuda.syncthreads()
                nxt = kt + STAGES - 1
                if nxt < ntiles:
                    load_tile(A, B, As, Bs, nxt % STAGES, nxt, bm, bn, tid, M, N, K)
                cp_async_commit()
                compute(As, Bs, kt % STAGES, acc, aF, bF, wm, wn, lane)
        g, t = lane // 4, lane % 4
        # literal_unroll (one level: numba cannot nest it): the indexes into acc must be compile-time constants,
        # or acc moves to local memory (checked in the SASS test: no local memory, no stack)
        for q in literal_unroll(EPI_T):
            mi, ni, h = q // (2 * NI), (q // 2) % NI, q % 2     # h = 0: row g (c0, c1); h = 1: row g + 8 (c2, c3)
            r = bm + wm + mi * 16 + g + 8 * h
            c = bn + wn + ni * 8 + 2 * t
            if r < M and c < N:
                v0 = alpha * value(acc, mi, ni, 2 * h)
                v1 = alpha * value(acc, mi, ni, 2 * h + 1)
                if beta != 0:
                    v0 += beta * float32(C[r, c])
                    v1 += beta * float32(C[r, c + 1])
                C[r, c] = v0
                C[r, c + 1] = v1

    kernel.config = dict(BM=BM, BN=BN, BK=BK, WARPS_M=WARPS_M, WARPS_N=WARPS_N, STAGES=STAGES, acc=acc, out=out,
                         MIN_BLOCKS=MIN_BLOCKS, SWIZZLE=SWIZZLE,
                         THREADS=THREADS, MI=MI, NI=NI, SMEM_BYTES=smem_bytes(BM, BN, BK, STAGES, PAD))
    return kernel


def tiled_module(ns, name, description, BM, BN, BK, WARPS_M, WARPS_N, STAGES, acc="f32", out="f32", MIN_BLOCKS=None,
                 SWIZZLE=False):
    """Fill a level-6 kernel module's namespace (NAME, LEVEL, kernel, launch, ...) for one build_tiled configuration."""
    k = build_tiled(BM, BN, BK, WARPS_M, WARPS_N, STAGES, acc, out, MIN_BLOCKS=MIN_BLOCKS, SWIZZLE=SWIZZLE)
    c_dtype = np.float32 if out == "f32" else np.float16
    ns.update(NAME=name, LEVEL=6, MIN_CC=(8, 0), DTYPE=np.float16, DESCRIPTION=description, SIG=sig(c_dtype),
              kernel=k, CONFIG=k.config, SMEM_BYTES=k.config["SMEM_BYTES"], C_DTYPE=c_dtype,
              launch=make_tc_launch(k, lambda M, N: (-(-N // BN), -(-M // BM)), k.config["THREADS"],
                                    (MMA_M, MMA_N, MMA_K), name, c_dtype))
