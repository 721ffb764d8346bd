"""Level 7, step 3: warp-specialised producer and consumers on a persistent grid.

A block of three warpgroups (384 threads) owns 128 x 256 tiles of C, one after another (tile = blockIdx.x,
blockIdx.x + gridDim.x, ...; the grid has one block per SM, so blocks stay resident and no tile waits for a launch):
* warpgroup 0 is the producer: one of its threads only moves data —
  for every k-tile of every tile it waits until the stage is empty, announces the stage's bytes on its "full"
  mbarrier and issues the TMA copies (A: 128 x 64, B: four 64 x 64 boxes);
* warpgroups 1 and 2 are the consumers: each owns 64 rows of the tile and two 64 x 128
  accumulator arrays (128 f32 per thread) fed by wgmma.m64n128k16, waits on "full", issues 8 wgmma per k-tile and,
  once wait_group(1) says the previous k-tile's wgmma are done, arrives on that stage's "empty" mbarrier — so the
  producer refills a stage as soon as both consumers are done with it, and no block-wide barrier remains in the loop;
* while the consumers store a finished tile (the epilogue), the producer is already loading the next tile's stages.
The ring of STAGES stages runs on across tiles: the k-iteration counter `it` gives the stage (it % STAGES) and the
phase parity ((it // STAGES) & 1); the producer waits for the opposite parity, so its first pass over the ring does
not wait (a fresh mbarrier's "previous phase" counts as complete).

Registers: launch_bounds(384, 1) caps every thread at 168 registers (65536 / 384), enough for a consumer's 128
accumulators without spilling (offline sm_90a: 0 bytes of local memory, tests/test_hopper_kernels.py). CUTLASS
moves registers from the producer to the consumers with setmaxnreg; from Numba that instruction is ignored: numba-cuda
links the kernel's PTX with nvJitLink as relocatable code, and ptxas then drops setmaxnreg "to maintain compatibility
across compilation units" (warning C7504; tests/test_hopper_ptx.py shows the warning, and that ptxas compiling the same
PTX as a whole program keeps it). So this kernel does not use it.
"""
import numpy as np
from numba import cuda, float32, uint32, uint64
from numba.types import float16

from .infra import device, hopper, ptx
from . import tc
from .infra.tma import TmaLauncher

NAME = "wgmma_ws"
LEVEL = 7
MIN_CC = hopper.MIN_CC
ARCH_SPECIFIC = True
DTYPE = np.float16
C_DTYPE = np.float32
DESCRIPTION = ("워프 특화: 생산자 워프그룹(TMA) + 소비자 워프그룹 2개(wgmma.m64n128k16 ×2), empty/full mbarrier, "
               "128×256×64 타일 4단, 영속(persistent) 격자, sm_90a")
NOTE = "sm_90a 전용 (wgmma, TMA): CC 9.0 GPU(H100/H200)에서만 GPU 로, 그 밖에서는 시뮬레이터에서 실행"
BM, BN, BK, STAGES = 128, 256, 64, 4
CONSUMERS = BM // 64
THREADS = 128 * (1 + CONSUMERS)
GROUP_M = 8                                        # tiles walked in groups of 8 tile-rows (L2 reuse of B)
SIM_BLOCKS = 2                                     # the simulator's "SM count": each block walks several tiles
hopper.check_layout(BM, BN, BK)
HALF = 128                                          # columns per accumulator array (wgmma n = 128)
NACC = HALF // 2                                    # registers per accumulator array
A_TILE, B_TILE = BM * BK, BK * BN
B_BOX = BK * hopper.ROW_ELEMS
STAGE = A_TILE + B_TILE
STAGE_BYTES = 2 * STAGE
SMEM_BYTES = STAGES * STAGE_BYTES                   # 192 KiB of the H100's 227 KiB per block
WGMMA = hopper.wgmma_for(HALF)
A_STEP, B_STEP = (16 * 2) >> 4, (16 * hopper.SWIZZLE) >> 4
SIG = hopper.TMA_SIG


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def tile_origin(tile, tiles_m, tiles_n):
    """(bm, bn) of persistent tile number `tile`: groups of GROUP_M tile-rows, column-major inside a group, so that
    the tiles resident at one time share B's columns in L2."""
    # 32-bit division (ptx.div_u32): Numba's own // is 64-bit, and a 64-bit division by a run-time value is a
    # subroutine call in SASS, which makes ptxas serialise every wgmma of the kernel (warning C7509)
    per_group = uint32(GROUP_M * tiles_n)
    group, inside = ptx.div_u32(tile, per_group), ptx.rem_u32(tile, per_group)
    first_m = group * uint32(GROUP_M)
    rows = min(uint32(tiles_m) - first_m, uint32(GROUP_M))
    pid_m = first_m + ptx.rem_u32(inside, rows)
    pid_n = ptx.div_u32(inside, rows)
    return pid_m * uint32(BM), pid_n * uint32(BN)


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
            # wait_group 1: the previous k-tile's wgmma are done, so its stage may be refilled
            ptx.wgmma_wait_group_1(acc0, NACC, acc1, NACC)
            if kt > 0 and t == 0:
                ptx.mbarrier_arrive(empty, (it - 1) % STAGES)
            it += 1
        # wait_group 0: this tile's last wgmma are done: release their stage, the accumulators are final
        ptx.wgmma_wait_group_0(acc0, NACC, acc1, NACC)
        if t == 0:
            ptx.mbarrier_arrive(empty, (it - 1) % STAGES)
        hopper.store_acc(C, acc0, NACC, bm + w * 64, bn, t, M, N, alpha, beta)
        hopper.store_acc(C, acc1, NACC, bm + w * 64, bn + HALF, t, M, N, alpha, beta)
        tile += cuda.gridDim.x


MIN_BARRIERS = 1                   # one barrier before the roles split; the loop has none
_jit = cuda.jit if device.SIMULATOR else cuda.jit(launch_bounds=(THREADS, 1))   # at most 168 registers a thread


@_jit
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


def grid_of(M, N):
    """One block per SM (never more than the tiles): the persistent grid."""
    tiles = -(-M // BM) * -(-N // BN)
    if device.SIMULATOR:
        return (min(tiles, SIM_BLOCKS),)
    return (min(tiles, cuda.get_current_device().MULTIPROCESSOR_COUNT),)


launcher = TmaLauncher(kernel, SIG, SMEM_BYTES, (BM, BK), (BK, hopper.ROW_ELEMS))
launch = tc.make_tc_launch(launcher, grid_of, THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True)
launch.kernel, launch.launcher = kernel, launcher
CONFIG = dict(BM=BM, BN=BN, BK=BK, STAGES=STAGES, THREADS=THREADS, SMEM_BYTES=SMEM_BYTES, DYNAMIC=True, acc="f32",
              out="f32", GROUP_M=GROUP_M, CONSUMERS=CONSUMERS)
