"""Bug demo: wgmma_ws whose consumers arrive on a stage's "empty" mbarrier right after committing their wgmma, before
any wait_group. The producer may then refill the stage while the Tensor Cores still read it (ASYNC_WAR): on the GPU a
tile computed partly from the next k-tile's data, now and then."""
from numba import cuda, float32, uint32, uint64
from numba.types import float16

from ..infra import device, hopper, ptx
from ..tc import make_tc_launch
from ..infra.tma import TmaLauncher
from ..wgmma_ws import (A_STEP, A_TILE, B_BOX, B_STEP, BK, BM, BN, CONSUMERS, HALF, MIN_CC, NACC, SIG,  # noqa
                        SMEM_BYTES, STAGE, STAGE_BYTES, STAGES, THREADS, WGMMA, grid_of, tile_origin)
from . import collecting

ARCH_SPECIFIC = True

NAME = "ws_release_before_wait"


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def produce(smem, full, empty, tmA, tmB, tiles_m, tiles_n, nk):
    """The producer thread: every k-tile of every tile of this block, into the ring of stages."""
    it = 0
    tile = cuda.blockIdx.x
    while tile < tiles_m * tiles_n:          # (a range with a run-time step divides to count its trips)
        bm, bn = tile_origin(tile, tiles_m, tiles_n)
        for kt in range(nk):
            s = it % STAGES
            # wait until both consumers released stage s (the opposite parity: the first pass does not wait)
            while not ptx.mbarrier_try_wait_parity(empty, s, ((it // STAGES) & 1) ^ 1):
                pass
            ptx.mbarrier_arrive_expect_tx(full, s, STAGE_BYTES)
            base = s * STAGE
            ptx.tma_load_2d(smem, base, tmA, 0, kt * BK, bm, full, s)
            for j in range(BN // hopper.ROW_ELEMS):
                ptx.tma_load_2d(smem, base + A_TILE + j * B_BOX, tmB, 0, bn + j * hopper.ROW_ELEMS, kt * BK, full, s)
            it += 1
        tile += cuda.gridDim.x


@cuda.jit(device=True, inline="always")
def consume(smem, full, empty, acc0, acc1, C, w, t, tiles_m, tiles_n, nk, M, N, alpha, beta):
    """Consumer warpgroup w (0 or 1), thread t (0..127) of it: rows 64w .. 64w+63 of every tile of this block."""
    base_a = ptx.shared_address(smem, 0) + uint32(w * 64 * hopper.SWIZZLE)
    base_b = ptx.shared_address(smem, A_TILE)
    it = 0
    tile = cuda.blockIdx.x
    while tile < tiles_m * tiles_n:
        bm, bn = tile_origin(tile, tiles_m, tiles_n)
        for i in range(NACC):
            acc0[i] = float32(0.0)
            acc1[i] = float32(0.0)
        for kt in range(nk):
            s = it % STAGES
            # wait until the TMA copies of stage s have landed (this round's parity)
            while not ptx.mbarrier_try_wait_parity(full, s, (it // STAGES) & 1):
                pass
            off = uint32(s * STAGE_BYTES)
            desc_a = hopper.smem_desc(base_a + off, 16, 8 * hopper.SWIZZLE)
            desc_b0 = hopper.smem_desc(base_b + off, BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
            desc_b1 = hopper.smem_desc(base_b + off + uint32(4 * B_BOX), BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
            ptx.wgmma_fence(acc0, NACC, acc1, NACC)
            for kk in range(BK // 16):
                WGMMA(acc0, desc_a + uint64(kk * A_STEP), desc_b0 + uint64(kk * B_STEP))
                WGMMA(acc1, desc_a + uint64(kk * A_STEP), desc_b1 + uint64(kk * B_STEP))
            ptx.wgmma_commit_group()
            # BUG: the stage is released right after the commit, while these wgmma may still read it; the arrive must
            # come after a wgmma_wait_group that covers them (wait_group 1 releases the previous k-tile's stage)
            if t == 0:
                ptx.mbarrier_arrive(empty, s)
            ptx.wgmma_wait_group_1(acc0, NACC, acc1, NACC)
            it += 1
        # wait_group 0: this tile's last wgmma are done: release their stage, the accumulators are final
        ptx.wgmma_wait_group_0(acc0, NACC, acc1, NACC)
        hopper.store_acc(C, acc0, NACC, bm + w * 64, bn, t, M, N, alpha, beta)
        hopper.store_acc(C, acc1, NACC, bm + w * 64, bn + HALF, t, M, N, alpha, beta)
        tile += cuda.gridDim.x


@cuda.jit
def kernel(A, B, C, tmA, tmB, alpha, beta):
    smem = cuda.shared.array(0, float16, alignment=1024)
    full = cuda.shared.array(STAGES, uint64)
    empty = cuda.shared.array(STAGES, uint64)
    acc0 = cuda.local.array(NACC, float32)
    acc1 = cuda.local.array(NACC, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    wg = tid // 128
    tiles_m, tiles_n = (M + BM - 1) // BM, (N + BN - 1) // BN
    nk = (K + BK - 1) // BK
    if tid == 0:
        for s in range(STAGES):
            ptx.mbarrier_init(full, s, 1)                # the producer's arrive.expect_tx
            ptx.mbarrier_init(empty, s, CONSUMERS)       # one arrival per consumer warpgroup
        # the inits went through the generic proxy; the TMA completes on "full" through the async proxy
        ptx.fence_proxy_async()
        ptx.fence_proxy_tensormap_acquire(tmA, 0)
        ptx.fence_proxy_tensormap_acquire(tmB, 0)
    # barrier: every thread sees initialised barriers (the last block-wide barrier: the roles split below)
    cuda.syncthreads()
    if wg == 0:
        if tid == 0:
            produce(smem, full, empty, tmA, tmB, tiles_m, tiles_n, nk)
    else:
        consume(smem, full, empty, acc0, acc1, C, wg - 1, tid % 128, tiles_m, tiles_n, nk, M, N, alpha, beta)



launcher = TmaLauncher(kernel, SIG, SMEM_BYTES, (BM, BK), (BK, hopper.ROW_ELEMS))
launch = collecting(make_tc_launch(launcher, grid_of, THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True))
