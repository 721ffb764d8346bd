"""Level 6 on Turing (sm_75, T4): mma_simple with two mma.sync.m16n8k8 — C[16x8] = alpha * A[16x16] @ B[16x8] + beta*C.

m16n8k16 (sm_80) does not exist on compute capability 7.5; m16n8k8 (f16 in, f32 accumulate) and ldmatrix do. The
fragments mma_simple loads (A: ldmatrix.x4, B: ldmatrix.x2.trans) are two m16n8k8 fragments side by side in k
(sim/mma.py K16_AS_K8): a0, a1, b0 multiply k 0-7, a2, a3, b1 k 8-15, and the second mma accumulates onto the first.
Checked in the simulator, compiled offline for sm_75 (SASS HMMA.1688.F32) and run on an H100 (m16n8k8 exists on every
target since sm_75); no compute capability 7.5 GPU was available to us, so it has never run on a real Turing card.
"""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from .infra import device, ptx
from .infra.errors import CourseInputError
from .tc import check_multiples, sig
from .launch import check_inputs, run_kernel

NAME = "mma_simple_turing"
LEVEL = 6
MIN_CC = (7, 5)
DESCRIPTION = "Turing(sm_75, T4)용 mma_simple: mma.m16n8k8 두 번 = m16n8k16 한 번 (16×8×16 고정, f16 입력, f32 누적)"
DTYPE = np.float16
SHAPE = (16, 8, 16)


@cuda.jit
def kernel(A, B, C, alpha, beta):
    # 16-byte alignment: every ldmatrix row address must be a multiple of 16 bytes
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for i in range(8):                       # 256 elements of A, 8 per lane
        e = lane * 8 + i
        As[e // 16, e % 16] = A[e // 16, e % 16]
    for i in range(4):                       # 128 elements of B, 4 per lane
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[e // 8, e % 8]
    # barrier: ldmatrix reads rows that other lanes wrote
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k8_f32(a0, a1, b0, z, z, z, z)          # k 0..7
    d0, d1, d2, d3 = ptx.mma_m16n8k8_f32(a2, a3, b1, d0, d1, d2, d3)      # k 8..15, accumulated onto the first
    g, t = lane // 4, lane % 4               # groupID, threadID_in_group: d0,d1 -> row g; d2,d3 -> row g+8
    r0, c0 = g, 2 * t
    if beta != 0:
        d0 = alpha * d0 + beta * C[r0, c0]
        d1 = alpha * d1 + beta * C[r0, c0 + 1]
        d2 = alpha * d2 + beta * C[r0 + 8, c0]
        d3 = alpha * d3 + beta * C[r0 + 8, c0 + 1]
    else:
        d0, d1, d2, d3 = alpha * d0, alpha * d1, alpha * d2, alpha * d3
    C[r0, c0] = d0
    C[r0, c0 + 1] = d1
    C[r0 + 8, c0] = d2
    C[r0 + 8, c0 + 1] = d3


def make_turing_launch(kernel, grid_of, multiples, name, exact=None):
    """launch(A, B, C, alpha=1.0, beta=0.0) -> C for f16 A, B and f32 C; one warp per block; runs on CC >= 7.5
    (tc.make_tc_launch refuses below 8.0: its kernels need m16n8k16 and cp.async)."""

    def launch(A, B, C, alpha=1.0, beta=0.0):
        M, N, K, a32, b32, _ = check_inputs(A, B, C, alpha, beta, (np.float16, np.float16, np.float32))
        if exact is not None and (M, N, K) != exact:
            raise CourseInputError(
                f"{name} 커널은 (M, N, K) = {exact} 한 가지 크기만 계산합니다 (받은 크기 {(M, N, K)}).",
                f"kernel {name} computes only (M, N, K) = {exact}, got {(M, N, K)}.",
                "큰 행렬은 mma_large_turing 을 쓰세요.", "use mma_large_turing for other sizes.")
        check_multiples(M, N, K, *multiples, name)
        if not device.SIMULATOR and tuple(device.GPU[1]) < MIN_CC:
            raise CourseInputError(
                f"{name} 는 mma.m16n8k8·ldmatrix 를 쓰므로 compute capability 7.5(sm_75) 이상 GPU 가 필요합니다 "
                f"(이 GPU: {tuple(device.GPU[1])}).",
                f"{name} needs compute capability >= 7.5 (mma.m16n8k8, ldmatrix); this GPU is {tuple(device.GPU[1])}.",
                "SGEMM_DEVICE=sim 으로 시뮬레이터에서 실행하세요.", "run under the simulator (SGEMM_DEVICE=sim).")
        return run_kernel(kernel, grid_of(M, N), 32, A, B, C, a32, b32, away=False)

    launch.kernel, launch.block, launch.grid_of, launch.away = kernel, 32, grid_of, False
    return launch


launch = make_turing_launch(kernel, lambda M, N: (1, 1), (16, 8, 16), NAME, exact=SHAPE)
SIG = sig(np.float32)
SMEM_BYTES = 16 * 16 * 2 + 16 * 8 * 2
