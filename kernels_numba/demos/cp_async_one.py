"""Probe (not a GEMM): one 16-byte cp.async per thread, written as async_vec writes its copies
(`ptx.cp_async_cg_16(As, stage, row, col, A, grow, gcol)`), then commit, wait and a barrier. Compiled offline
(lesson09.ptx_inline_excerpt) to show where the `.ptx` file's instruction lands in a kernel's PTX: the same call
lowers the same way in any kernel, and this one compiles in about a second instead of a whole GEMM's front end."""
from numba import cuda, float32

from ..infra import ptx

NAME = "cp_async_one"
MIN_CC = (8, 0)
STAGES, ROWS, COLS, VEC = 2, 8, 32, 4


@cuda.jit
def kernel(A, B, C, alpha, beta):
    As = cuda.shared.array((STAGES, ROWS, COLS), float32)
    tid = cuda.threadIdx.x
    row, col = tid // (COLS // VEC), (tid % (COLS // VEC)) * VEC        # one float4 of the tile per thread
    stage = cuda.blockIdx.x % STAGES
    if row < ROWS and row < A.shape[0] and col + VEC <= A.shape[1]:
        ptx.cp_async_cg_16(As, stage, row, col, A, row, col)          # 16 B, global -> shared, no register
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_group_0()      # my copy has landed
    cuda.syncthreads()               # everyone's copies have landed: any thread may read any element
    if row < ROWS and row < C.shape[0] and col + VEC <= C.shape[1]:
        for v in range(VEC):
            C[row, col + v] = alpha * As[stage, row, col + v]
