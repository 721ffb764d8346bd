"""Device functions (and one launcher) that the exercises, their solutions and the lessons share, defined once here
on the kernels side so that no chapter imports another chapter's lesson module for them.

Notebook 06 (직접 해보기 06-2, used again by 08-1 and 09-1): thread_coords, load_or_zero, store_c, launch_square.
Notebook 09 (직접 해보기 09-1): the 3-stage 8×8 cp.async kernel's S3, T8, issue_tile, prologue, compute_tile.
Notebook 10 (직접 해보기 10-5): the one-warp kernel's copy_tiles and store_fragment.
The old names (course.ch06_shared_tiling.lesson.load_or_zero, course.ch09_cp_async.lesson.issue_tile, course.ch10_tensor_core.lesson.copy_tiles, ...) still work.
"""
import numpy as np
from numba import cuda, float32

from .infra import device, ptx
from .infra.simulator import racecheck
from .launch import check_inputs


# ---- 06: the device helpers of the 8×8 exercise (06-2; 08-1 and 09-1 use them again) ----------------------------

@cuda.jit(device=True)
def thread_coords(tile):
    """(tx, ty, row, col) of this thread for square tiles of side `tile`."""
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    return tx, ty, cuda.blockIdx.y * tile + ty, cuda.blockIdx.x * tile + tx


@cuda.jit(device=True)
def load_or_zero(X, r, c):
    """X[r, c] inside the matrix, 0 outside (the bounds check of a cooperative load)."""
    if r < X.shape[0] and c < X.shape[1]:
        return X[r, c]
    return float32(0.0)


@cuda.jit(device=True)
def store_c(C, row, col, acc, alpha, beta):
    """C[row, col] = alpha·acc + beta·C[row, col] inside C; C is not read when beta == 0 (BLAS)."""
    if row < C.shape[0] and col < C.shape[1]:
        if beta == 0:
            C[row, col] = alpha * acc
        else:
            C[row, col] = alpha * acc + beta * C[row, col]


LAST_RACES = []          # what the race detector found in the last launch_square (simulator), for race_hint()


def launch_square(kernel, A, B, C, tile, alpha=1.0, beta=0.0):
    """Launch a square-tile kernel on a grid that covers C; returns C. On the simulator the race detector collects
    (an unfinished exercise runs to its end and gives a wrong C) and race_hint() says what it found. A, B, C must be
    2-D float32 matrices of matching shapes (checked before the launch, as the course's launch does)."""
    check_inputs(A, B, C, alpha, beta, np.float32)      # the kernel computes in float32: another dtype is a clear error
    M, N = C.shape
    grid = ((N + tile - 1) // tile, (M + tile - 1) // tile)
    LAST_RACES.clear()
    if not device.SIMULATOR:
        kernel[grid, (tile, tile)](A, B, C, np.float32(alpha), np.float32(beta))
        return C
    with racecheck.collect() as report:
        kernel[grid, (tile, tile)](A, B, C, np.float32(alpha), np.float32(beta))
    LAST_RACES.extend(report.hazards)
    return C


# ---- 09: the small 3-stage kernel of 직접 해보기 09-1 -------------------------------------------------------------
# 8×8 threads, one C element each, BK = 8, two 4-byte cp.async per thread per K tile. Device functions, so the
# student's kernel calls them on the GPU and in the simulator alike.

S3 = 3                                  # stages of the exercise kernel
T8 = 8                                  # its tile side (BM = BN = BK = 8)


@cuda.jit(device=True)
def issue_tile(A, B, As, Bs, stage, tile_no):
    """This thread's two 4-byte cp.async of K tile `tile_no` into buffer `stage` (0 outside A, B); no commit."""
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r, c = cuda.blockIdx.y * T8 + ty, tile_no * T8 + tx
    ok = r < A.shape[0] and c < A.shape[1]          # outside: read nothing (src-size 0) from an address inside A
    ptx.cp_async_ca_4_zfill(As, stage, ty, tx, A, r if ok else 0, c if ok else 0, 4 if ok else 0)
    r, c = tile_no * T8 + ty, cuda.blockIdx.x * T8 + tx
    ok = r < B.shape[0] and c < B.shape[1]
    ptx.cp_async_ca_4_zfill(Bs, stage, ty, tx, B, r if ok else 0, c if ok else 0, 4 if ok else 0)


@cuda.jit(device=True)
def prologue(A, B, As, Bs, n_tiles):
    """Tiles 0 .. S3-2 into buffers 0 .. S3-2, one group each (an empty group when K has fewer tiles)."""
    for s in range(S3 - 1):
        if s < n_tiles:
            issue_tile(A, B, As, Bs, s, s)
        ptx.cp_async_commit_group()


@cuda.jit(device=True)
def compute_tile(As, Bs, stage, acc):
    """acc + the BK products of buffer `stage` for this thread's C element (row ty, column tx of the tile)."""
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    for k in range(T8):
        acc += As[stage, ty, k] * Bs[stage, k, tx]
    return acc


# ---- 10: the one-warp kernel's copy and store (직접 해보기 10-5) -----------------------------------------------------

@cuda.jit(device=True)
def copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane):
    """As <- A[tile_m:+16, k0:+16], Bs <- B[k0:+16, tile_n:+8]: each of the 32 lanes copies 8 A and 4 B elements."""
    for i in range(8):
        e = lane * 8 + i
        As[e // 16, e % 16] = A[tile_m + e // 16, k0 + e % 16]
    for i in range(4):
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[k0 + e // 8, tile_n + e % 8]


@cuda.jit(device=True)
def store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta):
    """C <- alpha·D + beta·C for the lane's four D elements (c0, c1: row g; c2, c3: row g + 8; columns 2t, 2t + 1)."""
    g, t = lane // 4, lane % 4
    r, c = tile_m + g, tile_n + 2 * t
    if beta == 0:                            # C is not read when beta == 0 (BLAS)
        C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = alpha * c0, alpha * c1, alpha * c2, alpha * c3
    else:
        C[r, c] = alpha * c0 + beta * C[r, c]
        C[r, c + 1] = alpha * c1 + beta * C[r, c + 1]
        C[r + 8, c] = alpha * c2 + beta * C[r + 8, c]
        C[r + 8, c + 1] = alpha * c3 + beta * C[r + 8, c + 1]
