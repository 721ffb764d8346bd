"""Bug demo: wgmma_tma whose consumers always wait for parity 0. The first pass over the ring of stages is right;
from the second pass on (k-tile STAGES and later) the stage's barrier is already past a parity-0 phase, so the wait
returns at once and the warpgroups read a stage whose new TMA copies have not landed (TMA_IN_FLIGHT; on the GPU the
previous tile's data or a half-written one)."""
from numba import cuda, float32, uint32, uint64
from numba.types import float16

from ..infra import hopper, ptx
from ..tc import make_tc_launch
from ..infra.tma import TmaLauncher
from ..wgmma_tma import (A_STEP, A_TILE, B_STEP, BK, BM, BN, MIN_CC, NACC, SIG, SMEM_BYTES, STAGE_BYTES, STAGES,  # noqa
                         THREADS, WGMMA, issue_stage)
from . import collecting

NAME = "tma_wrong_parity"
ARCH_SPECIFIC = True


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
        # BUG: parity 0 every time; it must be (kt // STAGES) & 1, flipping each pass over the ring
        while not ptx.mbarrier_try_wait_parity(full, s, 0):
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
