"""Bytes where the hardware copies bytes: a matrix of the wrong dtype given to a cp.async / ldmatrix / mma kernel, a
shared array of the wrong dtype, a byte count given in elements. The GPU copies raw bytes, so the simulator's answer
is wrong as the GPU's is; through the course's launch the wrong dtype is a clear error before the launch."""
import numpy as np
from numba import cuda, float32, float64, int32
from numba.types import float16

import kernels_numba as kn
from kernels_numba.infra import ptx

from . import Pair, rng

M = N = K = 32
A32 = rng(4).standard_normal((M, K)).astype(np.float32)
B32 = rng(5).standard_normal((K, N)).astype(np.float32)
A16, B16 = A32.astype(np.float16), B32.astype(np.float16)
REF = A32.astype(np.float64) @ B32.astype(np.float64)
REF16 = A16.astype(np.float64) @ B16.astype(np.float64)


def _course(name, A, B, direct):
    """Run a registered kernel: through its launch (checks dtypes) or straight (kernel[grid, block], as a student
    calling the kernel object does)."""
    spec = kn.get(name)
    C = np.zeros((M, N), np.float32)
    if not direct:
        spec.launch(A, B, C)
        return C
    launch = spec.launch
    if hasattr(launch, "tile"):
        BM, BN = launch.tile
        grid = ((N + BN - 1) // BN, (M + BM - 1) // BM)
    else:
        grid = launch.grid_of(M, N)
    launch.kernel[grid, launch.block](A, B, C, np.float32(1.0), np.float32(0.0))
    return C


def _c(name, A, B, direct, ref=REF):
    return lambda: (_course(name, A, B, direct), ref)


# small kernels of our own: 4-byte and 16-byte cp.async of one tile row per thread, then C = tile (a copy kernel)
T = 8


@cuda.jit
def copy4(A, C):
    S = cuda.shared.array((T, T), float32, alignment=16)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    ptx.cp_async_ca_4(S, ty, tx, A, ty, tx)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    C[ty, tx] = S[ty, tx]


@cuda.jit
def copy16(A, C):
    S = cuda.shared.array((T, T), float32, alignment=16)
    t = cuda.threadIdx.x
    if t < 16:
        ptx.cp_async_cg_16(S, t // 2, (t % 2) * 4, A, t // 2, (t % 2) * 4)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    for j in range(T):
        if t < T:
            C[t, j] = S[t, j]


@cuda.jit
def copy16_f64_tile(A, C):
    S = cuda.shared.array((T, T), float64, alignment=16)      # BUG: the tile is float64, A is float32
    t = cuda.threadIdx.x
    if t < 16:
        ptx.cp_async_cg_16(S, t // 2, (t % 2) * 4, A, t // 2, (t % 2) * 4)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    for j in range(T):
        if t < T:
            C[t, j] = S[t, j]


@cuda.jit
def zfill_elems(A, C, valid):
    S = cuda.shared.array((T, T), float32, alignment=16)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx % 4 == 0:
        n = min(max(valid - tx, 0), 4)
        ptx.cp_async_cg_16_zfill(S, ty, tx, A, ty, tx, n)        # BUG: src_size counts bytes, not elements
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    C[ty, tx] = S[ty, tx]


@cuda.jit
def zfill_bytes(A, C, valid):
    S = cuda.shared.array((T, T), float32, alignment=16)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx % 4 == 0:
        n = min(max(valid - tx, 0), 4)
        ptx.cp_async_cg_16_zfill(S, ty, tx, A, ty, tx, 4 * n)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    C[ty, tx] = S[ty, tx]


def _zfill(k):
    C = np.zeros((T, T), np.float32)
    k[1, (T, T)](A32, C, np.int32(6))
    want = A32[:T, :T].copy()
    want[:, 6:] = 0
    return C, want


def _copy(k, A, grid_block=(1, (T, T))):
    C = np.zeros((T, T), np.float32)
    k[grid_block](A, C)
    return C, A32[:T, :T]


@cuda.jit
def vstore(X, C):
    t = cuda.threadIdx.x
    ptx.st_global_v4_f32(C, t, 0, X[t, 0], X[t, 1], X[t, 2], X[t, 3])


def _vstore(C):
    vstore[1, 8](A32, C)
    return C, A32[:8, :4]


@cuda.jit
def ldca(X, out):
    t = cuda.threadIdx.x
    out[t] = ptx.ld_global_ca_f32(X, t, 0)


def _ldca(X):
    out = np.zeros(8, np.float32)
    ldca[1, 8](X, out)
    return out, A32[:8, 0]


# one warp: A tile 16x16 and B tile 16x8 through ldmatrix into one mma (the tiles' dtype is the bug's)
@cuda.jit
def mma_tile(A, B, C):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    ptx.cp_async_cg_16(As, lane // 2, (lane % 2) * 8, A, lane // 2, (lane % 2) * 8)
    if lane < 16:
        ptx.cp_async_cg_16(Bs, lane, 0, B, lane, 0)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
    r, c = lane // 4, 2 * (lane % 4)
    C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = d0, d1, d2, d3


@cuda.jit
def mma_tile_f32_shared(A, B, C):
    As = cuda.shared.array((16, 16), float32, alignment=16)     # BUG: f16 tiles declared float32
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for e in range(8):
        As[lane // 2, (lane % 2) * 8 + e] = A[lane // 2, (lane % 2) * 8 + e]
    if lane < 16:
        for e in range(8):
            Bs[lane, e] = B[lane, e]
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
    r, c = lane // 4, 2 * (lane % 4)
    C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = d0, d1, d2, d3


@cuda.jit
def mma_tile_stores(A, B, C):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for e in range(8):
        As[lane // 2, (lane % 2) * 8 + e] = A[lane // 2, (lane % 2) * 8 + e]
    if lane < 16:
        for e in range(8):
            Bs[lane, e] = B[lane, e]
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    z = float32(0.0)
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, z, z, z, z)
    r, c = lane // 4, 2 * (lane % 4)
    C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = d0, d1, d2, d3


def _mma(k, A, B):
    C = np.zeros((16, 8), np.float32)
    k[1, 32](A, B, C)
    return C, (A16[:16, :16].astype(np.float64) @ B16[:16, :8].astype(np.float64))


@cuda.jit
def copy4_int(A, C):
    S = cuda.shared.array((T, T), int32, alignment=16)         # BUG: an int tile for float data
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    ptx.cp_async_ca_4(S, ty, tx, A, ty, tx)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    C[ty, tx] = S[ty, tx]


@cuda.jit
def copy16_stride_bytes(A, C):
    S = cuda.shared.array((T, T), float32, alignment=16)
    t = cuda.threadIdx.x
    if t < 16:
        # BUG: the 16 bytes are 4 floats; the column step is given in bytes (16) instead of elements (4)
        ptx.cp_async_cg_16(S, t // 2, 0, A, t // 2, (t % 2) * 16)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    for j in range(T):
        if t < T:
            C[t, j] = S[t, j]


TOL16 = 2e-2

PAIRS = [
    # registered kernels given float64 / float32 where they expect float32 / float16: straight -> wrong answer
    Pair("bytes", "async_copy_A_float64", _c("async_copy", A32.astype(np.float64), B32, True),
         _c("async_copy", A32, B32, True), tol=1e-3),
    Pair("bytes", "async_copy_B_float64", _c("async_copy", A32, B32.astype(np.float64), True),
         _c("async_copy", A32, B32, True), tol=1e-3),
    Pair("bytes", "async_vec_A_float64", _c("async_vec", A32.astype(np.float64), B32, True),
         _c("async_vec", A32, B32, True), tol=1e-3),
    Pair("bytes", "db_ptx_A_float64", _c("db_ptx", A32.astype(np.float64), B32, True),
         _c("db_ptx", A32, B32, True), tol=1e-3),
    Pair("bytes", "mma_large_A_float32", _c("mma_large", A32, B16, True, REF16),
         _c("mma_large", A16, B16, True, REF16), tol=TOL16),
    Pair("bytes", "mma_large_B_float32", _c("mma_large", A16, B32, True, REF16),
         _c("mma_large", A16, B16, True, REF16), tol=TOL16),
    # the same through the course's launch: a clear error naming the array and its dtype, before the launch
    Pair("bytes", "launch_async_copy_float64", _c("async_copy", A32.astype(np.float64), B32, False),
         _c("async_copy", A32, B32, False), kn.CourseInputError, 1e-3),
    Pair("bytes", "launch_async_vec_B_float64", _c("async_vec", A32, B32.astype(np.float64), False),
         _c("async_vec", A32, B32, False), kn.CourseInputError, 1e-3),
    Pair("bytes", "launch_mma_large_float32", _c("mma_large", A32, B32, False, REF16),
         _c("mma_large", A16, B16, False, REF16), kn.CourseInputError, TOL16),
    Pair("bytes", "launch_mma_pipe_A_float32", _c("mma_pipe", A32, B16, False, REF16),
         _c("mma_pipe", A16, B16, False, REF16), kn.CourseInputError, TOL16),
    # our own small kernels
    Pair("bytes", "copy4_float64_source", lambda: _copy(copy4, A32.astype(np.float64)),
         lambda: _copy(copy4, A32)),
    Pair("bytes", "copy16_float64_source", lambda: _copy(copy16, A32.astype(np.float64), (1, 32)),
         lambda: _copy(copy16, A32, (1, 32))),
    Pair("bytes", "copy4_int32_source", lambda: _copy(copy4, (A32 * 100).astype(np.int32)),
         lambda: _copy(copy4, A32)),
    Pair("bytes", "copy16_float16_source", lambda: _copy(copy16, A16, (1, 32)),
         lambda: _copy(copy16, A32, (1, 32))),
    Pair("bytes", "copy16_into_float64_tile", lambda: _copy(copy16_f64_tile, A32, (1, 32)),
         lambda: _copy(copy16, A32, (1, 32))),
    Pair("bytes", "copy4_into_int32_tile", lambda: _copy(copy4_int, A32), lambda: _copy(copy4, A32)),
    Pair("bytes", "zfill_size_in_elements", lambda: _zfill(zfill_elems), lambda: _zfill(zfill_bytes)),
    Pair("bytes", "copy16_column_step_in_bytes", lambda: _copy(copy16_stride_bytes, A32, (1, 32)),
         lambda: _copy(copy16, A32, (1, 32))),
    Pair("bytes", "st_global_v4_into_float64", lambda: _vstore(np.zeros((8, 4), np.float64)),
         lambda: _vstore(np.zeros((8, 4), np.float32))),
    Pair("bytes", "st_global_v4_into_int32", lambda: _vstore(np.zeros((8, 4), np.int32)),
         lambda: _vstore(np.zeros((8, 4), np.float32))),
    Pair("bytes", "ld_global_ca_from_float64", lambda: _ldca(A32.astype(np.float64)), lambda: _ldca(A32)),
    Pair("bytes", "mma_A_float32", lambda: _mma(mma_tile, A32, B16), lambda: _mma(mma_tile, A16, B16), tol=TOL16),
    Pair("bytes", "mma_B_float32", lambda: _mma(mma_tile, A16, B32), lambda: _mma(mma_tile, A16, B16), tol=TOL16),
    Pair("bytes", "mma_tile_declared_float32", lambda: _mma(mma_tile_f32_shared, A16, B16),
         lambda: _mma(mma_tile_stores, A16, B16), tol=TOL16),
]
