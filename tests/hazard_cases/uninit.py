"""Uninitialised shared reads (reported even when the NaN poison is absorbed, by max() or a comparison) and kernels
that write a module-level numpy array (the GPU's Numba freezes those as read-only constants: it refuses to compile)."""
import numpy as np
from numba import cuda, float32, int32
from numba.types import float16

from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import UninitializedReadError as U
from kernels_numba.infra.simulator import ModuleArrayWriteError as MW

from . import Pair, rng

T = 8
T1 = T + 1
X = rng(9).standard_normal((T, T)).astype(np.float32)
Y = rng(10).standard_normal(64).astype(np.float32)


def _rowmax(k, x=X):
    out = np.zeros(T, np.float32)
    k[1, (T, T)](x, out)
    return out, x.max(1)


# 1. a max over a tile with one element never loaded: NaN is absorbed by max()
@cuda.jit
def max_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if tx < T - 1:
        S[ty, tx] = X[ty, tx]                   # BUG: the last column is never loaded
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, T - 1]
        for j in range(T):
            m = max(m, S[ty, j])
        out[ty] = m


@cuda.jit
def max_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, T - 1]
        for j in range(T):
            m = max(m, S[ty, j])
        out[ty] = m


# 2. a bounds-checked load without the zero in the else branch
@cuda.jit
def bounds_bug(A, out, n):
    S = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    if t < n:
        S[t] = A[t]                             # BUG: S[t] for t >= n is never written
    cuda.syncthreads()
    if t == 0:
        s = float32(0.0)
        for i in range(32):
            s += S[i] if i < n else 0.0 * S[i]
        out[0] = s


@cuda.jit
def bounds_twin(A, out, n):
    S = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    S[t] = A[t] if t < n else 0.0
    cuda.syncthreads()
    if t == 0:
        s = float32(0.0)
        for i in range(32):
            s += S[i] if i < n else 0.0 * S[i]
        out[0] = s


def _bounds(k):
    out = np.zeros(1, np.float32)
    k[1, 32](Y, out, np.int32(20))
    return out, [Y[:20].sum()]


# 3. a padded tile whose padding column is read
@cuda.jit
def pad_bug(X, out):
    S = cuda.shared.array((T, T1), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T1):                     # BUG: runs into the padding column
            m = max(m, S[ty, j])
        out[ty] = m


@cuda.jit
def pad_twin(X, out):
    S = cuda.shared.array((T, T1), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, S[ty, j])
        out[ty] = m


# 4. a stencil whose halo is never loaded
@cuda.jit
def halo_bug(A, out):
    S = cuda.shared.array(34, float32)
    t = cuda.threadIdx.x
    S[t + 1] = A[t + 1]                         # BUG: S[0] and S[33] (the halo) are never loaded
    cuda.syncthreads()
    out[t] = min(S[t], S[t + 1]) + min(S[t + 2], S[t + 1]) * 0


@cuda.jit
def halo_twin(A, out):
    S = cuda.shared.array(34, float32)
    t = cuda.threadIdx.x
    S[t + 1] = A[t + 1]
    if t == 0:
        S[0] = A[0]
        S[33] = A[33]
    cuda.syncthreads()
    out[t] = min(S[t], S[t + 1]) + min(S[t + 2], S[t + 1]) * 0


def _halo(k):
    out = np.zeros(32, np.float32)
    k[1, 32](Y, out)
    return out, np.minimum(Y[:32], Y[1:33])


# 5. a tree reduction that starts past what was written
@cuda.jit
def tree_bug(A, out):
    S = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    S[t] = A[t]                                 # 32 threads fill 32 elements
    cuda.syncthreads()
    d = 32                                      # BUG: should start at 16 (S[32..63] was never written)
    while d > 0:
        if t < d and t + d < 64:
            S[t] = max(S[t], S[t + d])
        cuda.syncthreads()
        d //= 2
    if t == 0:
        out[0] = S[0]


@cuda.jit
def tree_twin(A, out):
    S = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    S[t] = A[t]
    cuda.syncthreads()
    d = 16
    while d > 0:
        if t < d:
            S[t] = max(S[t], S[t + d])
        cuda.syncthreads()
        d //= 2
    if t == 0:
        out[0] = S[0]


def _tree(k):
    out = np.zeros(1, np.float32)
    k[1, 32](Y, out)
    return out, [Y[:32].max()]


# 6. dynamic shared memory read before anyone wrote it
@cuda.jit
def dyn_bug(A, out):
    S = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    if t < 31:
        S[t] = A[t]                             # BUG: S[31] never written
    cuda.syncthreads()
    if t == 0:
        m = A[0]
        for i in range(32):
            m = max(m, S[i])
        out[0] = m


@cuda.jit
def dyn_twin(A, out):
    S = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    S[t] = A[t]
    cuda.syncthreads()
    if t == 0:
        m = A[0]
        for i in range(32):
            m = max(m, S[i])
        out[0] = m


def _dyn(k):
    out = np.zeros(1, np.float32)
    k[1, 32, 0, 128](Y, out)
    return out, [Y[:32].max()]


# 7. a prefetch that skips the second stage, computed anyway
@cuda.jit
def stage_bug(X, out):
    S = cuda.shared.array((2, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[0, ty, tx] = X[ty, tx]                    # BUG: stage 1 is never filled
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, max(S[0, ty, j], S[1, ty, j]))
        out[ty] = m


@cuda.jit
def stage_twin(X, out):
    S = cuda.shared.array((2, T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[0, ty, tx] = X[ty, tx]
    S[1, ty, tx] = X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, max(S[0, ty, j], S[1, ty, j]))
        out[ty] = m


# 8. an off-by-one load loop
@cuda.jit
def offbyone_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty = cuda.threadIdx.x
    for j in range(T - 1):                      # BUG: range(T)
        S[ty, j] = X[ty, j]
    cuda.syncthreads()
    m = X[ty, 0]
    for j in range(T):
        m = max(m, S[ty, j])
    out[ty] = m


@cuda.jit
def offbyone_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty = cuda.threadIdx.x
    for j in range(T):
        S[ty, j] = X[ty, j]
    cuda.syncthreads()
    m = X[ty, 0]
    for j in range(T):
        m = max(m, S[ty, j])
    out[ty] = m


def _rows(k):
    out = np.zeros(T, np.float32)
    k[1, T](X, out)
    return out, X.max(1)


# 9. min absorbs the NaN too
@cuda.jit
def min_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty > 0:
        S[ty, tx] = -X[ty, tx]                  # BUG: row 0 never loaded
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, -min(-X[ty, j], S[ty, j]))
        out[ty] = m


@cuda.jit
def min_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = -X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, -min(-X[ty, j], S[ty, j]))
        out[ty] = m


# 10. only even threads write, all read their neighbour
@cuda.jit
def even_bug(A, out):
    S = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    if t % 2 == 0:
        S[t] = A[t]                             # BUG: odd elements never written
    cuda.syncthreads()
    out[t] = max(S[t ^ 1], A[t ^ 1])


@cuda.jit
def even_twin(A, out):
    S = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    S[t] = A[t]
    cuda.syncthreads()
    out[t] = max(S[t ^ 1], A[t ^ 1])


def _even(k):
    out = np.zeros(32, np.float32)
    k[1, 32](Y, out)
    return out, Y[:32][np.arange(32) ^ 1]


# 11. ldmatrix reads rows nobody stored
@cuda.jit
def ldsm_bug(X16, out):
    S = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    if lane < 8:
        for j in range(8):
            S[lane, j] = X16[lane, j]           # BUG: rows 8..15 are never stored, ldmatrix_x2 reads them
    cuda.syncthreads()
    r0, r1 = ptx.ldmatrix_x2(S, lane % 16, 0)
    if lane < 8:
        out[lane] = r0 & 0xFFFF


@cuda.jit
def ldsm_twin(X16, out):
    S = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    if lane < 16:
        for j in range(8):
            S[lane, j] = X16[lane % 8, j]
    cuda.syncthreads()
    r0, r1 = ptx.ldmatrix_x2(S, lane % 16, 0)
    if lane < 8:
        out[lane] = r0 & 0xFFFF


def _ldsm(k):
    X16 = X.astype(np.float16)
    out = np.zeros(8, np.float32)
    k[1, 32](X16, out)
    return out, np.array([X16[l // 4, 2 * (l % 4)].view(np.uint16) for l in range(8)], np.float32)


# 12. a counter atomically incremented but never zeroed
@cuda.jit
def counter_bug(A, out):
    c = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    cuda.atomic.add(c, 0, 1)                    # BUG: c[0] starts as whatever the memory holds
    cuda.syncthreads()
    if t == 0:
        out[0] = c[0]


@cuda.jit
def counter_twin(A, out):
    c = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        c[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, 1)
    cuda.syncthreads()
    if t == 0:
        out[0] = c[0]


def _counter(k):
    out = np.zeros(1, np.float32)
    k[1, 32](Y, out)
    return out, [32]


# 13. the tile read through .T, with its last row never loaded
@cuda.jit
def t_bug(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    if ty < T - 1:
        S[ty, tx] = X[ty, tx]                   # BUG: row T - 1 never loaded
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, S.T[j, ty])
        out[ty] = m


@cuda.jit
def t_twin(X, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = X[ty, tx]
    cuda.syncthreads()
    if tx == 0:
        m = X[ty, 0]
        for j in range(T):
            m = max(m, S.T[j, ty])
        out[ty] = m


# ---- module-level arrays written by a kernel (the GPU's Numba refuses to compile these)
TABLE = np.zeros(32, np.float32)
TABLE2 = np.zeros((4, 8), np.float32)
COUNTS = np.zeros(1, np.int32)
SCALE = np.full(32, 2.0, np.float32)


@cuda.jit
def table_bug(A, out):
    t = cuda.threadIdx.x
    TABLE[t] = A[t] * 2                         # BUG: writes a module-level array
    out[t] = A[t] * 2


@cuda.jit
def table_twin(A, out):
    t = cuda.threadIdx.x
    out[t] = A[t] * SCALE[t]                    # reading a module-level array is fine (a constant on the GPU)


def _table(k):
    out = np.zeros(32, np.float32)
    k[1, 32](Y, out)
    return out, Y[:32] * 2


@cuda.jit
def atomic_table_bug(A, out):
    t = cuda.threadIdx.x
    cuda.atomic.add(COUNTS, 0, 1)               # BUG
    out[t] = A[t] * 2


@cuda.jit(device=True)
def remember(i, v):
    TABLE[i] = v                                # BUG: a device function writes a module-level array


@cuda.jit
def device_fn_bug(A, out):
    t = cuda.threadIdx.x
    remember(t, A[t])
    out[t] = A[t] * 2


@cuda.jit
def alias_bug(A, out):
    t = cuda.threadIdx.x
    G = TABLE
    G[t] = A[t]                                 # BUG: the same array through a local name
    out[t] = A[t] * 2


@cuda.jit
def dead_branch_bug(A, out):
    t = cuda.threadIdx.x
    if t > 1000:
        TABLE[0] = 1.0                          # BUG: never runs, but the GPU's compiler refuses it anyway
    out[t] = A[t] * 2


@cuda.jit
def augmented_bug(A, out):
    t = cuda.threadIdx.x
    TABLE[t] += A[t]                            # BUG
    out[t] = A[t] * 2


@cuda.jit
def table2d_bug(A, out):
    t = cuda.threadIdx.x
    TABLE2[t // 8, t % 8] = A[t]                # BUG
    out[t] = A[t] * 2


PAIRS = [
    Pair("uninit", "max_absorbs_nan", lambda: _rowmax(max_bug), lambda: _rowmax(max_twin), U),
    Pair("uninit", "bounds_check_without_zero", lambda: _bounds(bounds_bug), lambda: _bounds(bounds_twin), U, 1e-3),
    Pair("uninit", "padding_column_read", lambda: _rowmax(pad_bug), lambda: _rowmax(pad_twin), U),
    Pair("uninit", "halo_not_loaded", lambda: _halo(halo_bug), lambda: _halo(halo_twin), U),
    Pair("uninit", "tree_starts_past_the_data", lambda: _tree(tree_bug), lambda: _tree(tree_twin), U),
    Pair("uninit", "dynamic_not_written", lambda: _dyn(dyn_bug), lambda: _dyn(dyn_twin), U),
    Pair("uninit", "second_stage_never_filled", lambda: _rowmax(stage_bug), lambda: _rowmax(stage_twin), U),
    Pair("uninit", "load_loop_off_by_one", lambda: _rows(offbyone_bug), lambda: _rows(offbyone_twin), U),
    Pair("uninit", "min_absorbs_nan", lambda: _rowmax(min_bug), lambda: _rowmax(min_twin), U),
    Pair("uninit", "even_threads_only", lambda: _even(even_bug), lambda: _even(even_twin), U),
    Pair("uninit", "ldmatrix_rows_never_stored", lambda: _ldsm(ldsm_bug), lambda: _ldsm(ldsm_twin), U),
    Pair("uninit", "atomic_counter_never_zeroed", lambda: _counter(counter_bug), lambda: _counter(counter_twin), U),
    Pair("uninit", "read_through_T_row_missing", lambda: _rowmax(t_bug), lambda: _rowmax(t_twin), U),
    Pair("uninit", "module_array_written", lambda: _table(table_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_atomic", lambda: _table(atomic_table_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_in_device_function", lambda: _table(device_fn_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_through_alias", lambda: _table(alias_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_in_dead_branch", lambda: _table(dead_branch_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_augmented", lambda: _table(augmented_bug), lambda: _table(table_twin), MW),
    Pair("uninit", "module_array_2d", lambda: _table(table2d_bug), lambda: _table(table_twin), MW),
]
