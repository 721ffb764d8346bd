"""Launch and resource limits of the simulated GPU (SGEMM_SIM_CC names it; an H100 without it): threads per block,
block and grid dimensions, 48 KiB of static shared memory, the dynamic shared memory a block may opt in to, registers
of a registered kernel, a launch_bounds promise. The GPU refuses each of these launches (or ptxas the kernel); the
simulator raises LaunchLimitError naming the limit and where it comes from."""
import contextlib

import numpy as np
from numba import cuda, float32, float64, int64

import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba.infra.simulator import LaunchLimitError as L

from . import Pair


@contextlib.contextmanager
def simulated_cc(cc):
    prev = device.SIM_CC
    device.SIM_CC = cc
    try:
        yield
    finally:
        device.SIM_CC = prev


@cuda.jit
def fill(out):
    i = (cuda.blockIdx.z * cuda.gridDim.y + cuda.blockIdx.y) * cuda.gridDim.x + cuda.blockIdx.x
    t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x
    if t == 0 and i < out.size:
        out[i] = 1.0


def _fill(grid, block, n=1):
    out = np.zeros(n, np.float32)
    fill[grid, block](out)
    return out, np.ones(n, np.float32)


@cuda.jit
def static_64k(out):
    S = cuda.shared.array((128, 128), float32)          # BUG: 64 KiB of static shared memory
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t]


@cuda.jit
def static_32k(out):
    S = cuda.shared.array((64, 128), float32)
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t]


@cuda.jit
def static_two_32k(out):
    S = cuda.shared.array((64, 128), float32)
    U = cuda.shared.array((64, 128), float32)           # BUG: together 64 KiB
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    U[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t] * U[0, t]


@cuda.jit
def static_f64(out):
    S = cuda.shared.array((80, 80), float64)            # BUG: 51,200 B
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t]


@cuda.jit
def static_i64(out):
    S = cuda.shared.array(7000, int64)                  # BUG: 56,000 B
    t = cuda.threadIdx.x
    S[t] = 1
    cuda.syncthreads()
    out[t] = S[t]


@cuda.jit
def static_three(out):
    S = cuda.shared.array((32, 128), float32)
    U = cuda.shared.array((32, 128), float32)
    V = cuda.shared.array((32, 128), float32)           # BUG: 48 KiB + 0 -> exactly at the limit with the others?
    W = cuda.shared.array(8, float32)                   # ... and 32 B more
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    U[0, t] = 1.0
    V[0, t] = 1.0
    W[0] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t] * U[0, t] * V[0, t] * W[0]


@cuda.jit
def static_48k(out):
    S = cuda.shared.array((32, 128), float32)
    U = cuda.shared.array((32, 128), float32)
    V = cuda.shared.array((32, 128), float32)           # exactly 48 KiB: allowed
    t = cuda.threadIdx.x
    S[0, t] = 1.0
    U[0, t] = 1.0
    V[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[0, t] * U[0, t] * V[0, t]


def _static(k):
    out = np.zeros(8, np.float32)
    k[1, 8](out)
    return out, np.ones(8, np.float32)


@cuda.jit
def dynamic(out):
    S = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    S[t] = 1.0
    cuda.syncthreads()
    out[t] = S[t]


@cuda.jit
def dynamic_plus_static(out):
    S = cuda.shared.array(0, float32)
    U = cuda.shared.array((32, 128), float32)           # 16 KiB static on top of the dynamic part
    t = cuda.threadIdx.x
    S[t] = 1.0
    U[0, t] = 1.0
    cuda.syncthreads()
    out[t] = S[t] * U[0, t]


def _dynamic(k, nbytes, cc=None):
    out = np.zeros(8, np.float32)
    with simulated_cc(cc):
        k[1, 8, 0, nbytes](out)
    return out, np.ones(8, np.float32)


def _registered(threads_xy):
    spec = kn.get("regblock")
    A = np.ones((64, 64), np.float32)
    C = np.zeros((64, 64), np.float32)
    spec.kernel[(1, 1), threads_xy](A, A, C, np.float32(1), np.float32(0))
    return C[:8, :8], np.full((8, 8), 64.0, np.float32)


@cuda.jit(launch_bounds=128)
def bounded(out):
    t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    if t == 0:
        out[0] = 1.0


@cuda.jit(launch_bounds=(64, 2))
def bounded64(out):
    t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    if t == 0:
        out[0] = 1.0


def _bounded(k, block):
    out = np.zeros(1, np.float32)
    k[1, block](out)
    return out, np.ones(1, np.float32)


KB = 1024

PAIRS = [
    Pair("limits", "block_4096_threads", lambda: _fill(1, 4096), lambda: _fill(1, 1024), L),
    Pair("limits", "block_32x64", lambda: _fill(1, (32, 64)), lambda: _fill(1, (32, 32)), L),
    Pair("limits", "block_16x16x8", lambda: _fill(1, (16, 16, 8)), lambda: _fill(1, (16, 16, 4)), L),
    Pair("limits", "block_z_128", lambda: _fill(1, (1, 1, 128)), lambda: _fill(1, (1, 1, 64)), L),
    Pair("limits", "block_x_2048", lambda: _fill(1, 2048), lambda: _fill(1, 512), L),
    Pair("limits", "block_1025", lambda: _fill(1, 1025), lambda: _fill(1, 1024), L),
    Pair("limits", "grid_y_65536", lambda: _fill((1, 65536), 1, 1), lambda: _fill((1, 4), 1, 4), L),
    Pair("limits", "grid_z_70000", lambda: _fill((1, 1, 70000), 1, 1), lambda: _fill((1, 1, 4), 1, 4), L),
    Pair("limits", "static_shared_64k", lambda: _static(static_64k), lambda: _static(static_32k), L),
    Pair("limits", "static_shared_two_32k", lambda: _static(static_two_32k), lambda: _static(static_32k), L),
    Pair("limits", "static_shared_float64_tile", lambda: _static(static_f64), lambda: _static(static_32k), L),
    Pair("limits", "static_shared_int64_array", lambda: _static(static_i64), lambda: _static(static_32k), L),
    Pair("limits", "static_shared_48k_plus_32b", lambda: _static(static_three), lambda: _static(static_48k), L),
    Pair("limits", "dynamic_shared_300k_h100", lambda: _dynamic(dynamic, 300 * KB), lambda: _dynamic(dynamic, 200 * KB),
         L),
    Pair("limits", "dynamic_plus_static_h100", lambda: _dynamic(dynamic_plus_static, 220 * KB),
         lambda: _dynamic(dynamic_plus_static, 200 * KB), L),
    Pair("limits", "dynamic_shared_80k_t4", lambda: _dynamic(dynamic, 80 * KB, (7, 5)),
         lambda: _dynamic(dynamic, 60 * KB, (7, 5)), L),
    Pair("limits", "dynamic_plus_static_t4", lambda: _dynamic(dynamic_plus_static, 56 * KB, (7, 5)),
         lambda: _dynamic(dynamic_plus_static, 40 * KB, (7, 5)), L),
    Pair("limits", "dynamic_shared_200k_a100", lambda: _dynamic(dynamic, 200 * KB, (8, 0)),
         lambda: _dynamic(dynamic, 160 * KB, (8, 0)), L),
    Pair("limits", "registered_kernel_1024_threads", lambda: _registered((32, 32)), lambda: _registered((16, 16)), L),
    Pair("limits", "launch_bounds_128_given_256", lambda: _bounded(bounded, 256), lambda: _bounded(bounded, 128), L),
    Pair("limits", "launch_bounds_64_given_8x16", lambda: _bounded(bounded64, (8, 16)),
         lambda: _bounded(bounded64, (8, 8)), L),
]
