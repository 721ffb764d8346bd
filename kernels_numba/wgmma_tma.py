"""Level 7, step 2: TMA feeds a multistage shared-memory pipeline, mbarriers say when a stage has landed.

A block of two warpgroups (256 threads) computes a 128 x 128 tile of C; warpgroup w owns rows 64w .. 64w+63 and
issues wgmma.mma_async.m64n128k16 (64 f32 accumulators per thread).
* STAGES shared-memory stages of A (128 x 64) and B (64 x 128, two 64-column boxes), written by the Tensor Memory
  Accelerator: thread 0 issues cp.async.bulk.tensor for a whole stage — three copies — after announcing its bytes on
  the stage's "full" mbarrier (arrive.expect_tx). No thread copies an element: the TMA unit does, swizzled as wgmma
  reads it, with zeros where the tile leaves the matrix (any M, N, K).
* The consumer side of stage s: every thread waits until full[s] completes its phase (try_wait.parity with the round's
  parity, which flips every time the ring of stages wraps), then the warpgroup issues four wgmma and commits them.
* wait_group(1) keeps this tile's wgmma in flight while guaranteeing the previous tile's are done; a barrier then tells
  thread 0 that every warpgroup has finished reading that previous stage, and it refills it with the tile STAGES
  ahead. The barrier is the price of this step: every k-tile all 8 warps meet. wgmma_ws (step 3) removes it.
"""
import numpy as np
from numba import cuda, float32, uint32, uint64
from numba.types import float16

from .infra import device, hopper, ptx
from . import tc
from .infra.tma import TmaLauncher

NAME = "wgmma_tma"
LEVEL = 7
MIN_CC = hopper.MIN_CC
ARCH_SPECIFIC = True
DTYPE = np.float16
C_DTYPE = np.float32
DESCRIPTION = "TMA(cp.async.bulk.tensor) 4단 파이프라인 + mbarrier, 워프그룹 2개 × wgmma.m64n128k16, 128×128×64 타일, sm_90a"
NOTE = "sm_90a 전용 (wgmma, TMA): CC 9.0 GPU(H100/H200)에서만 GPU 로, 그 밖에서는 시뮬레이터에서 실행"
BM, BN, BK, STAGES = 128, 128, 64, 4
WARPGROUPS = BM // 64
THREADS = 128 * WARPGROUPS
hopper.check_layout(BM, BN, BK)
A_TILE, B_TILE = BM * BK, BK * BN                  # f16 elements
B_BOX = BK * hopper.ROW_ELEMS                       # one 64-column box of B
STAGE = A_TILE + B_TILE
STAGE_BYTES = 2 * STAGE                             # what the three copies of a stage deliver (full boxes, always)
SMEM_BYTES = STAGES * STAGE_BYTES
NACC = BN // 2
WGMMA = hopper.wgmma_for(BN)
A_STEP, B_STEP = (16 * 2) >> 4, (16 * hopper.SWIZZLE) >> 4     # descriptor units per k16 step
SIG = hopper.TMA_SIG


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def issue_stage(smem, full, tmA, tmB, s, kt, bm, bn):
    """Thread 0: announce the stage's bytes on full[s], then let the TMA copy A and both boxes of B into stage s."""
    ptx.mbarrier_arrive_expect_tx(full, s, STAGE_BYTES)
    base = s * STAGE
    ptx.tma_load_2d(smem, base, tmA, 0, kt * BK, bm, full, s)
    for j in range(BN // hopper.ROW_ELEMS):
        ptx.tma_load_2d(smem, base + A_TILE + j * B_BOX, tmB, 0, bn + j * hopper.ROW_ELEMS, kt * BK, full, s)


@cuda.jit
def kernel(A, B, C, tmA, tmB, alpha, beta):
    # the stages: dynamic shared memory (128 KiB > the 48 KiB static limit), 1024-byte aligned for the swizzle
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
            ptx.mbarrier_init(full, s, 1)          # one arrival per phase: the producer's arrive.expect_tx
        # the init went through the generic proxy; the TMA completes on these barriers through the async proxy
        ptx.fence_proxy_async()
        # the tensor maps were copied to global memory by the host: acquire them for the tensormap proxy
        ptx.fence_proxy_tensormap_acquire(tmA, 0)
        ptx.fence_proxy_tensormap_acquire(tmB, 0)
    # barrier: the initialised barriers are visible to every thread before anyone waits on them
    cuda.syncthreads()
    if tid == 0:
        for s in range(STAGES):                     # prologue: the first STAGES tiles in flight
            if s < ntiles:
                issue_stage(smem, full, tmA, tmB, s, s, bm, bn)
    base_a = ptx.shared_address(smem, 0) + uint32(wg * 64 * hopper.SWIZZLE)   # this warpgroup's 64 rows of A
    base_b = ptx.shared_address(smem, A_TILE)
    for kt in range(ntiles):
        s = kt % STAGES
        # wait until the TMA copies of stage s have landed: the phase of this round (parity flips every STAGES tiles)
        while not ptx.mbarrier_try_wait_parity(full, s, (kt // STAGES) & 1):
            pass
        off = uint32(s * STAGE_BYTES)
        desc_a = hopper.smem_desc(base_a + off, 16, 8 * hopper.SWIZZLE)
        desc_b = hopper.smem_desc(base_b + off, BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
        # wgmma.fence: the accumulators' earlier accesses are ordered before these wgmma
        ptx.wgmma_fence(acc, NACC)
        for kk in range(BK // 16):
            WGMMA(acc, desc_a + uint64(kk * A_STEP), desc_b + uint64(kk * B_STEP))
        ptx.wgmma_commit_group()
        # wait_group 1: this tile's group may still run, the previous tile's is done (its stage is no longer read)
        ptx.wgmma_wait_group_1(acc, NACC)
        # barrier: both warpgroups are past that wait, so the previous tile's stage is free for the TMA
        cuda.syncthreads()
        nxt = kt - 1 + STAGES
        if tid == 0 and kt >= 1 and nxt < ntiles:
            issue_stage(smem, full, tmA, tmB, (kt - 1) % STAGES, nxt, bm, bn)
    # wait_group 0: the last tile's wgmma are done; the accumulators hold the sums
    ptx.wgmma_wait_group_0(acc, NACC)
    hopper.store_acc(C, acc, NACC, bm + wg * 64, bn, tid % 128, M, N, alpha, beta)


launcher = TmaLauncher(kernel, SIG, SMEM_BYTES, (BM, BK), (BK, hopper.ROW_ELEMS))
launch = tc.make_tc_launch(launcher, lambda M, N: (-(-N // BN), -(-M // BM)), THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True)
launch.kernel, launch.launcher = kernel, launcher
CONFIG = dict(BM=BM, BN=BN, BK=BK, STAGES=STAGES, THREADS=THREADS, SMEM_BYTES=SMEM_BYTES, DYNAMIC=True, acc="f32",
              out="f32")
