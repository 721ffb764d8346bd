"""Bug demo: wgmma_simple without wgmma.wait_group. The wgmma are committed but never waited for: the next K tile's
stores overwrite shared memory the Tensor Cores may still read (ASYNC_WAR), and the epilogue reads accumulators
whose results have not landed (WGMMA_ACC). On the GPU ptxas hides the second half by inserting a wait where it sees
the accumulators used (warning C7517, shown by lesson11.no_wait_ptxas_log); the first half it cannot see."""
from numba import cuda, float32, uint64
from numba.types import float16

from ..infra import hopper, ptx
from ..wgmma_simple import (A_STEP, A_TILE, B_STEP, B_TILE, BK, BM, BN, MIN_CC, NACC, SIG, THREADS, WGMMA,  # noqa
                            load_tile)
from ..tc import make_tc_launch
from . import collecting

NAME = "wgmma_no_wait"
ARCH_SPECIFIC = True


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array(A_TILE, float16, alignment=1024)
    Bs = cuda.shared.array(B_TILE, float16, alignment=1024)
    acc = cuda.local.array(NACC, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    bm, bn = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
    for i in range(NACC):
        acc[i] = float32(0.0)
    desc_a = hopper.smem_desc(ptx.shared_address(As, 0), 16, 8 * hopper.SWIZZLE)
    desc_b = hopper.smem_desc(ptx.shared_address(Bs, 0), BK * hopper.SWIZZLE, 8 * hopper.SWIZZLE)
    for kt in range((K + BK - 1) // BK):
        load_tile(As, Bs, A, B, bm, bn, kt * BK, tid, M, N, K)
        ptx.fence_proxy_async()
        cuda.syncthreads()
        ptx.wgmma_fence(acc, NACC)
        for kk in range(BK // 16):
            WGMMA(acc, desc_a + uint64(kk * A_STEP), desc_b + uint64(kk * B_STEP))
        ptx.wgmma_commit_group()
        # BUG: no ptx.wgmma_wait_group_0(acc, NACC) here
    hopper.store_acc(C, acc, NACC, bm, bn, tid, M, N, alpha, beta)


launch = collecting(make_tc_launch(kernel, lambda M, N: (-(-N // BN), -(-M // BM)), THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True))
