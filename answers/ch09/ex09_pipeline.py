"""Solution, 09 직접 해보기 1: the K loop of a small 3-stage cp.async kernel (8×8 tiles, one C element per thread).

Order of one iteration (one barrier per tile): wait_group(S-2), barrier, prefetch tile kt+S-1 into the buffer
computed in iteration kt-1, commit (always: an empty group in the tail), compute tile kt.
"""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda, float32

from kernels_numba.common import (S3, T8, compute_tile, issue_tile, prologue,   # 09-1's tile helpers
                                  store_c, thread_coords)                      # and 06-2's
from kernels_numba.infra import ptx


@cuda.jit
def pipeline3(A, B, C, alpha, beta):
    """3단 cp.async 파이프라인 (타일 8×8, BK = 8): K 루프를 채우세요."""
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)          # 타일 0, 1 발행, 각각 commit (타일이 모자라면 빈 그룹)
    acc = float32(0.0)
    for kt in range(n_tiles):
        ptx.cp_async_wait_group_1()          # S-2 = 1: S-1+kt groups committed, so groups 0..kt (tile kt) are mine
        cuda.syncthreads()                   # everyone's copies of tile kt landed; everyone finished tile kt-1
        if kt + S3 - 1 < n_tiles:            # its buffer (kt-1) % S3 was released by the barrier above
            issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3, kt + S3 - 1)
        ptx.cp_async_commit_group()          # every iteration, an empty group in the tail: the count above holds
        acc = compute_tile(As, Bs, kt % S3, acc)
    store_c(C, row, col, acc, alpha, beta)
