"""Bug demo: wgmma_simple without fence.proxy.async. The tiles are written with ordinary stores (the generic proxy)
and read by wgmma through the async proxy: without the fence nothing orders the two, so the Tensor Cores may read
stale shared memory. The simulator reports PROXY_FENCE at the first wgmma (the result may even be right: on the GPU
too a missing fence shows only sometimes)."""
from numba import cuda, float32, uint64
from numba.types import float16

from ..infra import hopper, ptx
from ..wgmma_simple import (A_STEP, A_TILE, B_STEP, B_TILE, BK, BM, BN, MIN_CC, NACC, SIG, THREADS, WGMMA,  # noqa
                            load_tile)
from ..tc import make_tc_launch
from . import collecting

NAME = "wgmma_no_proxy_fence"
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
        # BUG: no ptx.fence_proxy_async() here: the stores above are not ordered before the async proxy's reads
        cuda.syncthreads()
        ptx.wgmma_fence(acc, NACC)
        for kk in range(BK // 16):
            WGMMA(acc, desc_a + uint64(kk * A_STEP), desc_b + uint64(kk * B_STEP))
        ptx.wgmma_commit_group()
        ptx.wgmma_wait_group_0(acc, NACC)
    hopper.store_acc(C, acc, NACC, bm, bn, tid, M, N, alpha, beta)


launch = collecting(make_tc_launch(kernel, lambda M, N: (-(-N // BN), -(-M // BM)), THREADS, (1, 1, 1), NAME,
                            min_cc=MIN_CC, arch_specific=True))
