"""Shared memory reached through a view: .T, transpose(), reshape(), ravel(), swapaxes(), squeeze(), row and column
slices, a stage of a 3-D buffer, view(dtype), and views handed to helpers, cp.async and ldmatrix. Every view carries
the race detector to the elements it touches, so a missing barrier is reported as for the array itself."""
import numpy as np
from numba import cuda, float32, int32
from numba.types import float16

from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import HazardError as H

from . import Pair, rng

T = 8
T1 = T + 1
X = rng(7).standard_normal((T, T)).astype(np.float32)


def _tile(k, want):
    out = np.zeros((T, T), np.float32)
    k[1, (T, T)](X, out)
    return out, want


def pair(name, bug, twin, want=None):
    w = X if want is None else want
    return Pair("views", name, lambda: _tile(bug, w), lambda: _tile(twin, w), H)


# 1. one thread fills the tile through .T, the others read without a barrier
@cuda.jit
def t_fill_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ST = S.T
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty == 0 and tx == 0:
        for a in range(T):
            for b in range(T):
                ST[b, a] = X[a, b]
    out[ty, tx] = S[ty, tx]                     # BUG: no barrier


@cuda.jit
def t_fill_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ST = S.T
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty == 0 and tx == 0:
        for a in range(T):
            for b in range(T):
                ST[b, a] = X[a, b]
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


# 2. every thread stores its element through .T, then reads a neighbour's
@cuda.jit
def t_store_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.T[tx, ty] = X[ty, tx]
    out[ty, tx] = S[ty, (tx + 1) % T]           # BUG


@cuda.jit
def t_store_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.T[tx, ty] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[ty, (tx + 1) % T]


ROLL = np.roll(X, -1, axis=1)


# 3. transpose()
@cuda.jit
def transpose_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.transpose()[tx, ty] = X[ty, tx]
    out[ty, tx] = S[(ty + 1) % T, tx]           # BUG


@cuda.jit
def transpose_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.transpose()[tx, ty] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[(ty + 1) % T, tx]


ROLL0 = np.roll(X, -1, axis=0)


# 4. reshape to 1-D
@cuda.jit
def reshape_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    flat = S.reshape(T * T)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    flat[ty * T + tx] = X[ty, tx]
    out[ty, tx] = S[ty, (tx + 1) % T]           # BUG


@cuda.jit
def reshape_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    flat = S.reshape(T * T)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    flat[ty * T + tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[ty, (tx + 1) % T]


# 5. ravel
@cuda.jit
def ravel_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    out[ty, tx] = S.ravel()[(ty * T + tx + 1) % (T * T)]    # BUG


@cuda.jit
def ravel_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S.ravel()[(ty * T + tx + 1) % (T * T)]


RAVEL = np.roll(X.reshape(-1), -1).reshape(T, T)


# 6. swapaxes
@cuda.jit
def swap_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.swapaxes(0, 1)[tx, ty] = X[ty, tx]
    out[ty, tx] = S[(ty + 1) % T, tx]           # BUG


@cuda.jit
def swap_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.swapaxes(0, 1)[tx, ty] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[(ty + 1) % T, tx]


# 7. squeeze of a (1, T, T) buffer
@cuda.jit
def squeeze_bug(X, out):
    S = cuda.shared.array((1, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.squeeze()[ty, tx] = X[ty, tx]
    out[ty, tx] = S[0, ty, (tx + 1) % T]        # BUG


@cuda.jit
def squeeze_twin(X, out):
    S = cuda.shared.array((1, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S.squeeze()[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[0, ty, (tx + 1) % T]


# 8. a row slice filled by one thread
@cuda.jit
def row_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx == 0:
        row = S[ty]
        for j in range(T):
            row[j] = X[ty, j]
    out[ty, tx] = S[ty, tx]                     # BUG


@cuda.jit
def row_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx == 0:
        row = S[ty]
        for j in range(T):
            row[j] = X[ty, j]
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


# 9. a column slice
@cuda.jit
def col_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty == 0:
        col = S[:, tx]
        for i in range(T):
            col[i] = X[i, tx]
    out[ty, tx] = S[ty, tx]                     # BUG


@cuda.jit
def col_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty == 0:
        col = S[:, tx]
        for i in range(T):
            col[i] = X[i, tx]
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


# 10. a stage of a double buffer
@cuda.jit
def stage_bug(X, out):
    S = cuda.shared.array((2, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    st = S[1]
    st[ty, tx] = X[ty, tx]
    out[ty, tx] = S[1, ty, (tx + 1) % T]        # BUG


@cuda.jit
def stage_twin(X, out):
    S = cuda.shared.array((2, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    st = S[1]
    st[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[1, ty, (tx + 1) % T]


# 11. a view of a view
@cuda.jit
def nested_bug(X, out):
    S = cuda.shared.array((T1, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[1:][ty][tx] = X[ty, tx]
    out[ty, tx] = S[1 + ty, (tx + 1) % T]       # BUG


@cuda.jit
def nested_twin(X, out):
    S = cuda.shared.array((T1, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[1:][ty][tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[1 + ty, (tx + 1) % T]


# 12. write-after-read: read through .T, overwrite through the array, no barrier in between
@cuda.jit
def war_t_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    v = S.T[tx, (ty + 1) % T]
    S[ty, tx] = 0.0                             # BUG: another thread may still read it through .T
    out[ty, tx] = v


@cuda.jit
def war_t_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    v = S.T[tx, (ty + 1) % T]
    cuda.syncthreads()
    S[ty, tx] = 0.0
    out[ty, tx] = v


# 13. view(int32): the bits written as ints, read as floats by another thread
@cuda.jit
def bits_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    Si = S.view(int32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    Si[ty, tx] = cuda.selp(True, 0, 0)
    S[ty, tx] = X[ty, tx]
    out[ty, tx] = S[ty, (tx + 1) % T] + Si[ty, (tx + 2) % T] * 0   # BUG: other threads' elements, no barrier


@cuda.jit
def bits_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    Si = S.view(int32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    Si[ty, tx] = cuda.selp(True, 0, 0)
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[ty, (tx + 1) % T] + Si[ty, (tx + 2) % T] * 0


# 14. a helper that fills the tile through .T
@cuda.jit(device=True)
def fill_transposed(S, X, ty, tx):
    S.T[tx, ty] = X[ty, tx]


@cuda.jit
def helper_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    fill_transposed(S, X, ty, tx)
    out[ty, tx] = S[ty, (tx + 1) % T]           # BUG


@cuda.jit
def helper_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    fill_transposed(S, X, ty, tx)
    cuda.syncthreads()
    out[ty, tx] = S[ty, (tx + 1) % T]


# 15. reshape to (T*T/2, 2) pairs
@cuda.jit
def pairs_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    P = S.reshape(T * T // 2, 2)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    k = ty * T + tx
    P[k // 2, k % 2] = X[ty, tx]
    out[ty, tx] = S[ty, (tx + 1) % T]           # BUG


@cuda.jit
def pairs_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    P = S.reshape(T * T // 2, 2)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    k = ty * T + tx
    P[k // 2, k % 2] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[ty, (tx + 1) % T]


# 16. a reversed slice
@cuda.jit
def reversed_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[::-1][T - 1 - ty, tx] = X[ty, tx]
    out[ty, tx] = S[(ty + 1) % T, tx]           # BUG


@cuda.jit
def reversed_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[::-1][T - 1 - ty, tx] = X[ty, tx]
    cuda.syncthreads()
    out[ty, tx] = S[(ty + 1) % T, tx]


# 17. cp.async into a stage view, read without waiting
@cuda.jit
def cp_view_bug(X, out):
    S = cuda.shared.array((2, T, T), float32, alignment=16)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    st = S[0]
    ptx.cp_async_ca_4(st, ty, tx, X, ty, tx)
    ptx.cp_async_commit_group()
    cuda.syncthreads()                          # BUG: no wait_group before the barrier
    out[ty, tx] = S[0, ty, (tx + 1) % T]


@cuda.jit
def cp_view_twin(X, out):
    S = cuda.shared.array((2, T, T), float32, alignment=16)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    st = S[0]
    ptx.cp_async_ca_4(st, ty, tx, X, ty, tx)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[ty, tx] = S[0, ty, (tx + 1) % T]


# 18. an atomic on a view element against a plain store to the array
@cuda.jit
def atomic_view_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    row = S[0]
    cuda.atomic.add(row, tx, 1.0)
    if ty == 1:
        S[0, tx] = X[0, tx] + T                 # BUG: a plain store races with the atomics
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


@cuda.jit
def atomic_view_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    row = S[0]
    cuda.atomic.add(row, tx, 1.0)
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


ATOM = X.copy()
ATOM[0] += T


# 19. ldmatrix through a stage view whose rows another warp stored
@cuda.jit
def ldsm_view_bug(X16, out):
    S = cuda.shared.array((2, 8, 8), float16, alignment=16)
    t = cuda.threadIdx.x
    lane = t % 32
    if t >= 32 and t < 40:
        for j in range(8):
            S[1, t - 32, j] = X16[t - 32, j]
    r = ptx.ldmatrix_x1(S[1], lane % 8, 0)      # BUG: warp 0 reads rows warp 1 stored, no barrier
    if t < 8:
        out[t] = r & 0xFFFF


@cuda.jit
def ldsm_view_twin(X16, out):
    S = cuda.shared.array((2, 8, 8), float16, alignment=16)
    t = cuda.threadIdx.x
    lane = t % 32
    if t >= 32 and t < 40:
        for j in range(8):
            S[1, t - 32, j] = X16[t - 32, j]
    cuda.syncthreads()
    r = ptx.ldmatrix_x1(S[1], lane % 8, 0)
    if t < 8:
        out[t] = r & 0xFFFF


def _ldsm(k):
    X16 = X.astype(np.float16)
    out = np.zeros(8, np.float32)
    k[1, 64](X16, out)
    return out, np.array([X16[l // 4, 2 * (l % 4)].view(np.uint16) for l in range(8)], np.float32)


# 20. a row assigned from a global slice, other rows read without a barrier
@cuda.jit
def rowslice_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx == 0:
        S[ty, :] = X[ty, :]
    out[ty, tx] = S[ty, tx]                     # BUG


@cuda.jit
def rowslice_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx == 0:
        S[ty, :] = X[ty, :]
    cuda.syncthreads()
    out[ty, tx] = S[ty, tx]


PAIRS = [
    pair("T_filled_by_one_thread", t_fill_bug, t_fill_twin),
    pair("T_store_then_neighbour", t_store_bug, t_store_twin, ROLL),
    pair("transpose_store", transpose_bug, transpose_twin, ROLL0),
    pair("reshape_1d", reshape_bug, reshape_twin, ROLL),
    pair("ravel_read", ravel_bug, ravel_twin, RAVEL),
    pair("swapaxes_store", swap_bug, swap_twin, ROLL0),
    pair("squeeze_store", squeeze_bug, squeeze_twin, ROLL),
    pair("row_slice_fill", row_bug, row_twin),
    pair("column_slice_fill", col_bug, col_twin),
    pair("stage_view", stage_bug, stage_twin, ROLL),
    pair("view_of_a_view", nested_bug, nested_twin, ROLL),
    pair("war_through_T", war_t_bug, war_t_twin, ROLL0),
    pair("view_int32_bits", bits_bug, bits_twin, ROLL),
    pair("helper_fills_through_T", helper_bug, helper_twin, ROLL),
    pair("reshape_pairs", pairs_bug, pairs_twin, ROLL),
    pair("reversed_slice", reversed_bug, reversed_twin, ROLL0),
    pair("cp_async_into_stage_view", cp_view_bug, cp_view_twin, ROLL),
    pair("atomic_on_row_view", atomic_view_bug, atomic_view_twin, ATOM),
    Pair("views", "ldmatrix_from_stage_view", lambda: _ldsm(ldsm_view_bug), lambda: _ldsm(ldsm_view_twin), H),
    pair("row_assigned_from_global_slice", rowslice_bug, rowslice_twin),
]
