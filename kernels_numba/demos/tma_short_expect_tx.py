"""Bug demo: wgmma_tma whose producer announces only A's bytes on the stage's mbarrier (expect_tx of 16 KiB instead of
the stage's 32 KiB: A 16 KiB + two B boxes of 8 KiB). The phase completes as soon as A has landed, the consumers
start while B's boxes are still in flight (TMA_IN_FLIGHT), and later phases never balance (the late bytes count
against the next phase). The count must be the whole boxes' bytes, also where a box hangs over the matrix edge: the
TMA writes (and counts) the zeros too."""
from numba import cuda, float32, uint32, uint64
from numba.types import float16

from ..infra import hopper, ptx
from ..tc import make_tc_launch
from ..infra.tma import TmaLauncher
from ..wgmma_tma import (A_STEP, A_TILE, B_BOX, B_STEP, BK, BM, BN, MIN_CC, NACC, SIG, SMEM_BYTES, STAGE,  # noqa
                         STAGE_BYTES, STAGES, THREADS, WGMMA)
from . import collecting

NAME = "tma_short_expect_tx"
ARCH_SPECIFIC = True


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def issue_stage(smem, full, tmA, tmB, s, kt, bm, bn):
    # BUG: the bytes of A only; the stage is A_TILE + B_TILE elements (STAGE_BYTES)
    ptx.mbarrier_arrive_expect_tx(full, s, 2 * A_TILE)
    base = s * STAGE
    ptx.tma_load_2d(smem, base, tmA, 0, kt * BK, bm, full, s)
    for j in range(BN // hopper.ROW_ELEMS):
        ptx.tma_load_2d(smem, base + A_TILE + j * B_BOX, tmB, 0, bn + j * hopper.ROW_ELEMS, kt * BK, full, s)


@cuda.jit
def kernel(A, B, C, tmA, tmB, alpha, beta):
    smem = cuda.shared.array(0, float16, alignment=1024)
    full = cuda.shared.array(STAGES, uint64)
    acc = cuda.local.array(NACC, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    wg = tid // 128
    bm, bn = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
    ntiles = (K + BK - 1) // BK
    for i in range(NACC):
        acc[i] = float32(0.0)
    if tid == 0:
        for s in range(STAGES):
            ptx.mbarrier_init(full, s, 1)
        ptx.fence_proxy_async()
        ptx.fence_proxy_tensormap_acquire(tmA, 0)
        ptx.fence_proxy_tensormap_acquire(tmB, 0)
    cuda.syncthreads()
    if tid == 0:
        for s in range(STAGES):
            if s < ntiles:
                issue_stage(smem, full, tmA, tmB, s, s, bm, bn)
    base_a = ptx.shared_address(smem, 0) + uint32(wg * 64 * hopper.SWIZZLE)
    base_b = ptx.shared_address(smem, A_TILE)
    for kt in range(ntiles):
        s = kt % STAGES
        while not ptx.mbarrier_try_wait_parity(full, s, (kt // STAGES) & 1):
            pass
        off = uint32(s * STAGE_BYTES)
        desc_a = hopper.smem_desc(base_a + off, 16, 8 * hopper.SWIZZLE)
        desc_b = hopper.smem_desc(base_b + off, BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
        ptx.wgmma_fence(acc, NACC)
        for kk in range(BK // 16):
            WGMMA(acc, desc_a + uint64(kk * A_STEP), desc_b + uint64(kk * B_STEP))
        ptx.wgmma_commit_group()
        ptx.wgmma_wait_group_1(acc, NACC)
        cuda.syncthreads()
        nxt = kt - 1 + STAGES
        if tid == 0 and kt >= 1 and nxt < ntiles:
            issue_stage(smem, full, tmA, tmB, (kt - 1) % STAGES, nxt, bm, bn)
    ptx.wgmma_wait_group_0(acc, NACC)
    hopper.store_acc(C, acc, NACC, bm + wg * 64, bn, tid % 128, M, N, alpha, beta)


launcher = TmaLauncher(kernel, SIG, SMEM_BYTES, (BM, BK), (BK, hopper.ROW_ELEMS))
launch = collecting(make_tc_launch(launcher, lambda M, N: (-(-N // BN), -(-M // BM)), THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True))
