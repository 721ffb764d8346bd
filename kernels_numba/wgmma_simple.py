"""Level 7, step 1: one warpgroup, one wgmma per k16 step — the smallest kernel that uses Hopper's Tensor Core path.

A block is one warpgroup (128 threads = 4 warps) computing a 64 x 64 tile of C with wgmma.mma_async.m64n64k16:
* per K tile of 64, the 128 threads copy A[bm:+64, k0:+64] and B[k0:+64, bn:+64] into shared memory with ordinary
  stores, already in the layout wgmma reads: rows of 128 bytes, their 16-byte chunks swizzled (hopper.swizzled), zeros
  outside the matrix (so M, N, K need not be multiples of anything);
* fence.proxy.async: the stores went through the generic proxy, wgmma reads through the async proxy;
  cuda.syncthreads(): every thread's stores are in;
* wgmma.fence, then four wgmma.mma_async (k = 0, 16, 32, 48: the descriptors advance by 32 bytes in A and 2048 bytes
  in B), one commit_group, wait_group 0: the accumulators hold the tile's product, and the tile is no longer read,
  so the next tile's stores may begin (the block is one warpgroup: its wait is every warp's).
No asynchronous copies and no overlap: what step 2 (wgmma_tma) adds.
"""
import numpy as np
from numba import cuda, float32, uint64
from numba.types import float16

from .infra import device, hopper, ptx
from . import tc

NAME = "wgmma_simple"
LEVEL = 7
MIN_CC = hopper.MIN_CC
ARCH_SPECIFIC = True                  # sm_90a: wgmma exists on CC 9.0 only
DTYPE = np.float16
C_DTYPE = np.float32
SIG = tc.sig(np.float32)
DESCRIPTION = "워프그룹 1개(128 스레드)가 64×64 타일을 wgmma.m64n64k16 으로 — 일반 저장으로 스위즐 배치, fence.proxy.async, sm_90a"
NOTE = "sm_90a 전용 (wgmma): CC 9.0 GPU(H100/H200)에서만 GPU 로, 그 밖에서는 시뮬레이터에서 실행"
BM, BN, BK = 64, 64, 64
THREADS = 128
A_TILE, B_TILE = BM * BK, BK * BN         # f16 elements
NACC = BN // 2                            # accumulators per thread
hopper.check_layout(BM, BN, BK)
WGMMA = hopper.wgmma_for(BN)
A_STEP = (16 * 2) >> 4                    # descriptor units (16 B) per k16 step: 32 bytes along A's rows
B_STEP = (16 * hopper.SWIZZLE) >> 4       # 16 rows of 128 bytes in B


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def load_tile(As, Bs, A, B, bm, bn, k0, tid, M, N, K):
    """As <- A[bm:+64, k0:+64], Bs <- B[k0:+64, bn:+64] (zeros outside) by ordinary stores, each row of 128 bytes
    with its 16-byte chunks XOR-ed with the row number mod 8 (the 128-byte swizzle: byte ^ ((byte >> 7) & 7) << 4)."""
    for e in range(A_TILE // THREADS):
        f = tid + e * THREADS
        r, c = f // BK, f % BK
        v = float16(0.0)
        if bm + r < M and k0 + c < K:
            v = A[bm + r, k0 + c]
        byte = r * 128 + c * 2
        As[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = v
    for e in range(B_TILE // THREADS):
        f = tid + e * THREADS
        r, c = f // BN, f % BN
        v = float16(0.0)
        if k0 + r < K and bn + c < N:
            v = B[k0 + r, bn + c]
        byte = r * 128 + c * 2
        Bs[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = v


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 1024-byte alignment: the 128-byte swizzle pattern repeats every 1024 bytes and wgmma's descriptors (base offset
    # 0) assume the tile starts on such a boundary
    As = cuda.shared.array(A_TILE, float16, alignment=1024)
    Bs = cuda.shared.array(B_TILE, float16, alignment=1024)
    acc = cuda.local.array(NACC, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    bm, bn = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
    for i in range(NACC):
        acc[i] = float32(0.0)
    # A K-major (SBO: 8 rows of 128 B), B N-major (LBO: one 64-column box of BK rows; SBO: 8 rows)
    desc_a = hopper.smem_desc(ptx.shared_address(As, 0), 16, 8 * hopper.SWIZZLE)
    desc_b = hopper.smem_desc(ptx.shared_address(Bs, 0), BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
    for kt in range((K + BK - 1) // BK):
        load_tile(As, Bs, A, B, bm, bn, kt * BK, tid, M, N, K)
        # the stores above went through the generic proxy; wgmma reads through the async proxy: fence, then barrier
        ptx.fence_proxy_async()
        cuda.syncthreads()
        # wgmma.fence: the accumulators' earlier accesses come before the wgmma that reads them
        ptx.wgmma_fence(acc, NACC)
        for kk in range(BK // 16):
            WGMMA(acc, desc_a + uint64(kk * A_STEP), desc_b + uint64(kk * B_STEP))
        ptx.wgmma_commit_group()
        # wait_group 0: all four wgmma are done — acc holds the sums, and As/Bs are no longer read. The block is this
        # one warpgroup, whose four warps all pass this wait only once the wgmma (issued by all four) are complete:
        # the next tile's stores need no barrier here (with two warpgroups they would: see wgmma_tma)
        ptx.wgmma_wait_group_0(acc, NACC)
    # the epilogue: register i of thread tid is element hopper.acc_row_col(tid, i) of the 64 x 64 tile
    hopper.store_acc(C, acc, NACC, bm, bn, tid, M, N, alpha, beta)


launch = tc.make_tc_launch(kernel, lambda M, N: (-(-N // BN), -(-M // BM)), THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True)
CONFIG = dict(BM=BM, BN=BN, BK=BK, THREADS=THREADS, SMEM_BYTES=2 * (A_TILE + B_TILE), acc="f32", out="f32")
SMEM_BYTES = CONFIG["SMEM_BYTES"]
