"""Races through global memory: blocks of one launch that read-modify-write the same elements without atomics, and
threads of one block that pass values through global memory without a barrier. Each bug has a correct twin."""
import numpy as np
from numba import cuda, float32, int32

from kernels_numba.infra.simulator import GlobalMemoryRaceError as G

from . import Pair, rng

A = rng(1).standard_normal((8, 16)).astype(np.float32)
B = rng(2).standard_normal((16, 8)).astype(np.float32)
X = rng(3).standard_normal(64).astype(np.float32)


# 1. split-K: each block adds its K slice into C
@cuda.jit
def splitk_bug(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.x
    acc = float32(0.0)
    for k in range(kb * 4, kb * 4 + 4):
        acc += A[i, k] * B[k, j]
    C[i, j] += acc                              # BUG: four blocks read-modify-write C[i, j]


@cuda.jit
def splitk_twin(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.x
    acc = float32(0.0)
    for k in range(kb * 4, kb * 4 + 4):
        acc += A[i, k] * B[k, j]
    cuda.atomic.add(C, (i, j), acc)


def _splitk(k):
    C = np.zeros((8, 8), np.float32)
    k[4, (8, 8)](A, B, C)
    return C, A @ B


# 2. split-K into C with '=' (the last block wins) vs one slice per block, reduced after the launch
@cuda.jit
def splitk_assign_bug(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.x
    acc = float32(0.0)
    for k in range(kb * 4, kb * 4 + 4):
        acc += A[i, k] * B[k, j]
    C[0, i, j] = acc                            # BUG: every block writes the same slice


@cuda.jit
def splitk_assign_twin(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.x
    acc = float32(0.0)
    for k in range(kb * 4, kb * 4 + 4):
        acc += A[i, k] * B[k, j]
    C[kb, i, j] = acc


def _splitk_slices(k):
    P = np.zeros((4, 8, 8), np.float32)
    k[4, (8, 8)](A, B, P)
    return P.sum(0), A @ B


# 3. histogram with += in global memory
@cuda.jit
def hist_bug(x, H):
    i = cuda.grid(1)
    b = int32(x[i] > 0)
    H[b] += 1                                   # BUG: many threads, no atomic


@cuda.jit
def hist_twin(x, H):
    i = cuda.grid(1)
    b = int32(x[i] > 0)
    cuda.atomic.add(H, b, 1)


def _hist(k):
    H = np.zeros(2, np.int32)
    k[2, 32](X, H)
    return H, np.array([(X <= 0).sum(), (X > 0).sum()])


# 4. sum reduction: every thread adds into out[0]
@cuda.jit
def sum_bug(x, out):
    out[0] += x[cuda.grid(1)]                   # BUG


@cuda.jit
def sum_twin(x, out):
    cuda.atomic.add(out, 0, x[cuda.grid(1)])


def _sum(k):
    out = np.zeros(1, np.float32)
    k[2, 32](X, out)
    return out, [X.sum()]


# 5. one thread produces through global memory, the others read it without a barrier
@cuda.jit
def produce_bug(x, tmp, out):
    t = cuda.threadIdx.x
    if t == 0:
        tmp[0] = x[0] * 2
    out[t] = tmp[0] + t                         # BUG: no barrier after the write


@cuda.jit
def produce_twin(x, tmp, out):
    t = cuda.threadIdx.x
    if t == 0:
        tmp[0] = x[0] * 2
    cuda.syncthreads()
    out[t] = tmp[0] + t


def _produce(k):
    tmp, out = np.zeros(1, np.float32), np.zeros(32, np.float32)
    k[1, 32](X, tmp, out)
    return out, X[0] * 2 + np.arange(32)


# 6. neighbour exchange through a global scratch array
@cuda.jit
def neighbour_bug(x, scratch, out):
    t = cuda.threadIdx.x
    scratch[t] = x[t] * 3
    out[t] = scratch[(t + 1) % 32]              # BUG: the neighbour may not have written yet


@cuda.jit
def neighbour_twin(x, scratch, out):
    t = cuda.threadIdx.x
    scratch[t] = x[t] * 3
    cuda.syncthreads()
    out[t] = scratch[(t + 1) % 32]


def _neighbour(k):
    s, out = np.zeros(32, np.float32), np.zeros(32, np.float32)
    k[1, 32](X, s, out)
    return out, np.roll(X[:32] * 3, -1)


# 7. shift in place within a block
@cuda.jit
def shift_bug(a):
    t = cuda.threadIdx.x
    if t < 31:
        a[t] = a[t + 1]                         # BUG: thread t+1 may overwrite a[t+1] first


@cuda.jit
def shift_twin(a):
    t = cuda.threadIdx.x
    v = a[t + 1] if t < 31 else a[t]
    cuda.syncthreads()
    if t < 31:
        a[t] = v


def _shift(k):
    a = X[:32].copy()
    k[1, 32](a)
    want = X[:32].copy()
    want[:31] = X[1:32]
    return a, want


# 8. stencil in place across blocks
@cuda.jit
def stencil_bug(a):
    i = cuda.grid(1)
    if 0 < i < 63:
        a[i] = (a[i - 1] + a[i + 1]) * 0.5      # BUG: neighbours (other blocks too) read and write in place


@cuda.jit
def stencil_twin(a, out):
    i = cuda.grid(1)
    if 0 < i < 63:
        out[i] = (a[i - 1] + a[i + 1]) * 0.5
    else:
        out[i] = a[i]


def _stencil_bug(k):
    a = X.copy()
    k[2, 32](a)
    return a, _stencil_ref()


def _stencil_twin(k):
    out = np.zeros(64, np.float32)
    k[2, 32](X, out)
    return out, _stencil_ref()


def _stencil_ref():
    want = X.copy()
    want[1:63] = (X[:62] + X[2:]) * 0.5
    return want


# 9. block 0 zeroes C while the other blocks accumulate
@cuda.jit
def zero_bug(x, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = 0.0                            # BUG: other blocks may have added already
    cuda.atomic.add(out, 0, x[i])


@cuda.jit
def zero_twin(x, out):
    i = cuda.grid(1)
    cuda.atomic.add(out, 0, x[i])               # the host zeroes out before the launch


def _zero(k):
    out = np.zeros(1, np.float32)
    k[2, 32](X, out)
    return out, [X.sum()]


# 10. a counter bumped by thread 0 of every block
@cuda.jit
def counter_bug(count):
    if cuda.threadIdx.x == 0:
        count[0] = count[0] + 1                 # BUG


@cuda.jit
def counter_twin(count):
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, 1)


def _counter(k):
    c = np.zeros(1, np.int32)
    k[4, 8](c)
    return c, [4]


# 11. max with a compare-and-store
@cuda.jit
def max_bug(x, m):
    v = x[cuda.grid(1)]
    if v > m[0]:
        m[0] = v                                # BUG


@cuda.jit
def max_twin(x, m):
    cuda.atomic.max(m, 0, x[cuda.grid(1)])


def _max(k):
    m = np.full(1, -1e30, np.float32)
    k[2, 32](X, m)
    return m, [X.max()]


# 12. transpose in place
@cuda.jit
def transpose_bug(a):
    i, j = cuda.grid(2)
    a[j, i] = a[i, j]                           # BUG: a[i, j] may already be overwritten


@cuda.jit
def transpose_twin(a, out):
    i, j = cuda.grid(2)
    out[j, i] = a[i, j]


def _transpose_bug(k):
    a = X.reshape(8, 8).copy()
    k[(2, 2), (4, 4)](a)
    return a, X.reshape(8, 8).T


def _transpose_twin(k):
    out = np.zeros((8, 8), np.float32)
    k[(2, 2), (4, 4)](X.reshape(8, 8), out)
    return out, X.reshape(8, 8).T


# 13. block 1 uses a value block 0 computes in the same launch
@cuda.jit
def handoff_bug(x, tmp, out):
    b, t = cuda.blockIdx.x, cuda.threadIdx.x
    if b == 0 and t == 0:
        tmp[0] = x[0] + x[1]
    if b == 1:
        out[t] = tmp[0]                         # BUG: no order between blocks


@cuda.jit
def handoff_twin(x, tmp, out):
    b, t = cuda.blockIdx.x, cuda.threadIdx.x
    if b == 1:
        out[t] = x[0] + x[1]                    # each block computes what it needs


def _handoff(k):
    tmp, out = np.zeros(1, np.float32), np.zeros(8, np.float32)
    k[2, 8](X, tmp, out)
    return out, np.full(8, X[0] + X[1], np.float32)


# 14. two threads map to one C element
@cuda.jit
def mapping_bug(x, out):
    t = cuda.threadIdx.x
    out[t // 2] = x[t]                          # BUG: threads 2m and 2m+1 write out[m]


@cuda.jit
def mapping_twin(x, out):
    t = cuda.threadIdx.x
    if t % 2 == 1:
        out[t // 2] = x[t]


def _mapping(k):
    out = np.zeros(16, np.float32)
    k[1, 32](X, out)
    return out, X[1:32:2]


# 15. a grid-stride loop whose stride leaves blocks overlapping (same values: right answer, still a race)
@cuda.jit
def stride_bug(x, out):
    i = cuda.grid(1)
    while i < 64:
        out[i] = x[i] * 2
        i += cuda.blockDim.x                    # BUG: stride must be blockDim.x * gridDim.x


@cuda.jit
def stride_twin(x, out):
    i = cuda.grid(1)
    while i < 64:
        out[i] = x[i] * 2
        i += cuda.blockDim.x * cuda.gridDim.x


def _stride(k):
    out = np.zeros(64, np.float32)
    k[2, 16](X, out)
    return out, X * 2


# 16. epilogue of two blocks on one C tile (a wrong tile index)
@cuda.jit
def tile_bug(A, B, C, beta):
    i, j = cuda.threadIdx.y, cuda.threadIdx.x
    acc = float32(0.0)
    for k in range(16):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc + beta * C[i, j]              # BUG: both blocks (blockIdx ignored) update the same tile


@cuda.jit
def tile_twin(A, B, C, beta):
    i, j = cuda.threadIdx.y, cuda.threadIdx.x + 4 * cuda.blockIdx.x
    acc = float32(0.0)
    for k in range(16):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc + beta * C[i, j]


def _tile(k):
    C = np.ones((8, 8), np.float32)
    k[2, (4, 8)](A, B, C, np.float32(0.5))
    return C, A @ B + 0.5


# 17. atomics into an element, then a plain read of it without a barrier
@cuda.jit
def atomic_read_bug(x, acc, out):
    t = cuda.threadIdx.x
    cuda.atomic.add(acc, 0, x[t])
    if t == 0:
        out[0] = acc[0]                         # BUG: the other threads' atomics may still come


@cuda.jit
def atomic_read_twin(x, acc, out):
    t = cuda.threadIdx.x
    cuda.atomic.add(acc, 0, x[t])
    cuda.syncthreads()
    if t == 0:
        out[0] = acc[0]


def _atomic_read(k):
    acc, out = np.zeros(1, np.float32), np.zeros(1, np.float32)
    k[1, 32](X, acc, out)
    return out, [X[:32].sum()]


# 18. a plain initialisation and the atomics that follow it, no barrier
@cuda.jit
def init_atomic_bug(x, acc):
    t = cuda.threadIdx.x
    if t == 0:
        acc[0] = 0.0                            # BUG: other threads' atomics may come first
    cuda.atomic.add(acc, 0, x[t])


@cuda.jit
def init_atomic_twin(x, acc):
    t = cuda.threadIdx.x
    if t == 0:
        acc[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(acc, 0, x[t])


def _init_atomic(k):
    acc = np.full(1, 7.0, np.float32)
    k[1, 32](X, acc)
    return acc, [X[:32].sum()]


# 19. prefix sum in place in global memory without barriers
@cuda.jit
def scan_bug(a):
    t = cuda.threadIdx.x
    d = 1
    while d < 32:
        if t >= d:
            a[t] += a[t - d]                    # BUG: reads a[t - d] another thread updates in the same step
        d *= 2


@cuda.jit
def scan_twin(a, b):
    t = cuda.threadIdx.x
    d = 1
    while d < 32:
        v = a[t] + (a[t - d] if t >= d else 0.0)
        cuda.syncthreads()
        b[t] = v
        cuda.syncthreads()
        a[t] = b[t]
        cuda.syncthreads()
        d *= 2


def _scan_bug(k):
    a = X[:32].copy()
    k[1, 32](a)
    return a, np.cumsum(X[:32])


def _scan_twin(k):
    a, b = X[:32].copy(), np.zeros(32, np.float32)
    k[1, 32](a, b)
    return a, np.cumsum(X[:32])


# 20. scratch pairs exchanged by xor
@cuda.jit
def xor_bug(x, w, out):
    t = cuda.threadIdx.x
    w[t] = x[t] + 1
    out[t] = w[t ^ 1] * 2                       # BUG: the partner may not have written


@cuda.jit
def xor_twin(x, w, out):
    t = cuda.threadIdx.x
    w[t] = x[t] + 1
    cuda.syncthreads()
    out[t] = w[t ^ 1] * 2


def _xor(k):
    w, out = np.zeros(32, np.float32), np.zeros(32, np.float32)
    k[1, 32](X, w, out)
    return out, (X[:32][np.arange(32) ^ 1] + 1) * 2


# 21. split-K along blockIdx.y writing C with '=' (the last K slice wins)
@cuda.jit
def splitk_y_bug(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.y
    acc = float32(0.0)
    for k in range(kb * 8, kb * 8 + 8):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc                               # BUG


@cuda.jit
def splitk_y_twin(A, B, C):
    i, j, kb = cuda.threadIdx.y, cuda.threadIdx.x, cuda.blockIdx.y
    acc = float32(0.0)
    for k in range(kb * 8, kb * 8 + 8):
        acc += A[i, k] * B[k, j]
    cuda.atomic.add(C, (i, j), acc)


def _splitk_y(k):
    C = np.zeros((8, 8), np.float32)
    k[(1, 2), (8, 8)](A, B, C)
    return C, A @ B


PAIRS = [
    Pair("global", "splitk_plus_equals", lambda: _splitk(splitk_bug), lambda: _splitk(splitk_twin), G, 1e-3),
    Pair("global", "splitk_one_slice", lambda: _splitk_slices(splitk_assign_bug),
         lambda: _splitk_slices(splitk_assign_twin), G, 1e-3),
    Pair("global", "histogram", lambda: _hist(hist_bug), lambda: _hist(hist_twin), G),
    Pair("global", "sum_plus_equals", lambda: _sum(sum_bug), lambda: _sum(sum_twin), G, 1e-3),
    Pair("global", "producer_no_barrier", lambda: _produce(produce_bug), lambda: _produce(produce_twin), G),
    Pair("global", "neighbour_exchange", lambda: _neighbour(neighbour_bug), lambda: _neighbour(neighbour_twin), G),
    Pair("global", "shift_in_place", lambda: _shift(shift_bug), lambda: _shift(shift_twin), G),
    Pair("global", "stencil_in_place", lambda: _stencil_bug(stencil_bug), lambda: _stencil_twin(stencil_twin), G),
    Pair("global", "block0_zeroes", lambda: _zero(zero_bug), lambda: _zero(zero_twin), G, 1e-3),
    Pair("global", "block_counter", lambda: _counter(counter_bug), lambda: _counter(counter_twin), G),
    Pair("global", "max_compare_store", lambda: _max(max_bug), lambda: _max(max_twin), G),
    Pair("global", "transpose_in_place", lambda: _transpose_bug(transpose_bug),
         lambda: _transpose_twin(transpose_twin), G),
    Pair("global", "block_handoff", lambda: _handoff(handoff_bug), lambda: _handoff(handoff_twin), G),
    Pair("global", "two_threads_one_element", lambda: _mapping(mapping_bug), lambda: _mapping(mapping_twin), G),
    Pair("global", "grid_stride_overlap", lambda: _stride(stride_bug), lambda: _stride(stride_twin), G),
    Pair("global", "tile_index_ignores_block", lambda: _tile(tile_bug), lambda: _tile(tile_twin), G, 1e-3),
    Pair("global", "atomics_then_plain_read", lambda: _atomic_read(atomic_read_bug),
         lambda: _atomic_read(atomic_read_twin), G, 1e-3),
    Pair("global", "plain_init_then_atomics", lambda: _init_atomic(init_atomic_bug),
         lambda: _init_atomic(init_atomic_twin), G, 1e-3),
    Pair("global", "scan_in_place", lambda: _scan_bug(scan_bug), lambda: _scan_twin(scan_twin), G, 1e-3),
    Pair("global", "xor_partner", lambda: _xor(xor_bug), lambda: _xor(xor_twin), G),
    Pair("global", "splitk_y_assign", lambda: _splitk_y(splitk_y_bug), lambda: _splitk_y(splitk_y_twin), G, 1e-3),
]
