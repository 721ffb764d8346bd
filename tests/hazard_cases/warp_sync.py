"""What the README used to say the simulator cannot see: warp-synchronous code (syncwarp, shfl_*_sync, votes),
atomics on shared memory, dynamic shared memory used with two dtypes. The twins are correct warp-synchronous code,
which now runs; the bugs race, use a wrong mask, or read a lane that does not take part."""
import numpy as np
from numba import cuda, float32, int32
from numba.types import float16

from kernels_numba.infra.simulator import HazardError as H, WarpCollectiveError as W

from . import Pair, rng

X = rng(8).standard_normal(64).astype(np.float32)
FULL = 0xFFFFFFFF


def _one(k, n=32, blocks=1, dyn=0, x=X):
    out = np.zeros(1, np.float32)
    if dyn:
        k[blocks, n, 0, dyn](x, out)
    else:
        k[blocks, n](x, out)
    return out


# 1. warp reduction through shared memory: syncwarp between the steps
@cuda.jit
def tree_bug(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    d = 16
    while d > 0:
        if l < d:
            s[l] += s[l + d]                    # BUG: no syncwarp between the steps
        d //= 2
    if l == 0:
        out[0] = s[0]


@cuda.jit
def tree_twin(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    cuda.syncwarp()
    d = 16
    while d > 0:
        if l < d:
            s[l] += s[l + d]
        cuda.syncwarp()
        d //= 2
    if l == 0:
        out[0] = s[0]


def _sum32(k):
    return _one(k), [X[:32].sum()]


# 2. syncwarp whose mask leaves out the lanes whose data is read
@cuda.jit
def mask_bug(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    if l < 16:
        cuda.syncwarp(0x0000FFFF)               # BUG: lanes 16..31 are not ordered before the reads below
        s[l] += s[l + 16]
    cuda.syncwarp()
    if l == 0:
        t = float32(0.0)
        for i in range(16):
            t += s[i]
        out[0] = t


@cuda.jit
def mask_twin(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    cuda.syncwarp()
    if l < 16:
        s[l] += s[l + 16]
    cuda.syncwarp()
    if l == 0:
        t = float32(0.0)
        for i in range(16):
            t += s[i]
        out[0] = t


# 3. shfl_down reduction
@cuda.jit
def shfl_mask_bug(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    d = 16
    while d > 0:
        v += cuda.shfl_down_sync(0x0000FFFF, v, d)   # BUG: lanes 16..31 run it without their bit in the mask
        d //= 2
    if l == 0:
        out[0] = v


@cuda.jit
def shfl_twin(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    d = 16
    while d > 0:
        v += cuda.shfl_down_sync(FULL, v, d)
        d //= 2
    if l == 0:
        out[0] = v


# 4. broadcast from a lane outside the mask
@cuda.jit
def bcast_bug(x, out):
    l = cuda.threadIdx.x
    if l < 16:
        v = cuda.shfl_sync(0x0000FFFF, x[l], 20)    # BUG: lane 20 is not in the mask: undefined value
        if l == 0:
            out[0] = v


@cuda.jit
def bcast_twin(x, out):
    l = cuda.threadIdx.x
    if l < 16:
        v = cuda.shfl_sync(0x0000FFFF, x[l], 5)
        if l == 0:
            out[0] = v


def _bcast(k):
    return _one(k), [X[5]]


# 5. butterfly with a lane mask outside the warp
@cuda.jit
def xor_bug(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    m = 32                                      # BUG: should start at 16 (lane ^ 32 is the lane itself)
    while m > 0:
        v += cuda.shfl_xor_sync(FULL, v, m)
        m //= 2
    if l == 0:
        out[0] = v


@cuda.jit
def xor_twin(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    m = 16
    while m > 0:
        v += cuda.shfl_xor_sync(FULL, v, m)
        m //= 2
    if l == 0:
        out[0] = v


# 6. inclusive scan with shfl_up without the lane >= d test
@cuda.jit
def scan_bug(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    d = 1
    while d < 32:
        n = cuda.shfl_up_sync(FULL, v, d)
        v += n                                  # BUG: lanes below d get their own value back and add it
        d *= 2
    out[l] = v


@cuda.jit
def scan_twin(x, out):
    l = cuda.threadIdx.x
    v = x[l]
    d = 1
    while d < 32:
        n = cuda.shfl_up_sync(FULL, v, d)
        if l >= d:
            v += n
        d *= 2
    out[l] = v


def _scan(k):
    out = np.zeros(32, np.float32)
    k[1, 32](X, out)
    return out, np.cumsum(X[:32])


# 7. ballot in a branch half the warp skips, with the full mask, then a barrier
@cuda.jit
def ballot_bug(x, out):
    l = cuda.threadIdx.x
    if l < 16:
        b = cuda.ballot_sync(FULL, x[l] > 0)    # BUG: the full mask names lanes 16..31, which wait at the barrier
        if l == 0:
            out[0] = cuda.popc(b)
    cuda.syncthreads()


@cuda.jit
def ballot_twin(x, out):
    l = cuda.threadIdx.x
    if l < 16:
        b = cuda.ballot_sync(0x0000FFFF, x[l] > 0)
        if l == 0:
            out[0] = cuda.popc(b)
    cuda.syncthreads()


def _ballot(k):
    return _one(k), [(X[:16] > 0).sum()]


# 8. two different votes in the two halves of a branch, both with the full mask
@cuda.jit
def vote_bug(x, out):
    l = cuda.threadIdx.x
    if l < 8:
        a = cuda.all_sync(FULL, x[l] < 100.0)   # BUG: lanes 8..31 run any_sync, not all_sync, with this mask
    else:
        a = cuda.any_sync(FULL, x[l] > 100.0)
    if l == 8:
        out[0] = a


@cuda.jit
def vote_twin(x, out):
    l = cuda.threadIdx.x
    a = cuda.all_sync(FULL, x[l] < 100.0)
    b = cuda.any_sync(FULL, x[l] > 100.0)
    if l == 8:
        out[0] = a + b


def _vote(k):
    return _one(k), [1.0]


# 9. shared histogram with +=
@cuda.jit
def shist_bug(x, out):
    h = cuda.shared.array(2, int32)
    l = cuda.threadIdx.x
    if l < 2:
        h[l] = 0
    cuda.syncthreads()
    h[int32(x[l] > 0)] += 1                     # BUG: plain read-modify-write by 32 threads
    cuda.syncthreads()
    if l == 0:
        out[0] = h[1]


@cuda.jit
def shist_twin(x, out):
    h = cuda.shared.array(2, int32)
    l = cuda.threadIdx.x
    if l < 2:
        h[l] = 0
    cuda.syncthreads()
    cuda.atomic.add(h, int32(x[l] > 0), 1)
    cuda.syncthreads()
    if l == 0:
        out[0] = h[1]


def _hist(k):
    return _one(k), [(X[:32] > 0).sum()]


# 10. atomics on shared memory, then a plain store to the same counter without a barrier
@cuda.jit
def atom_store_bug(x, out):
    c = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        c[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, x[l])
    if l == 31:
        c[0] = c[0] * 2.0                       # BUG: the other lanes' atomics may come after
    cuda.syncthreads()
    if l == 0:
        out[0] = c[0]


@cuda.jit
def atom_store_twin(x, out):
    c = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        c[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, x[l])
    cuda.syncthreads()
    if l == 31:
        c[0] = c[0] * 2.0
    cuda.syncthreads()
    if l == 0:
        out[0] = c[0]


def _atom2(k):
    return _one(k), [2 * X[:32].sum()]


# 11. atomics, then a plain read without a barrier
@cuda.jit
def atom_read_bug(x, out):
    c = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        c[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, x[l])
    if l == 0:
        out[0] = c[0]                           # BUG


@cuda.jit
def atom_read_twin(x, out):
    c = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        c[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(c, 0, x[l])
    cuda.syncthreads()
    if l == 0:
        out[0] = c[0]


# 12. the counter's initialisation races with the atomics
@cuda.jit
def atom_init_bug(x, out):
    c = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        c[0] = 0.0                              # BUG: no barrier before the atomics
    cuda.atomic.add(c, 0, x[l])
    cuda.syncthreads()
    if l == 0:
        out[0] = c[0]


# 13. dynamic shared memory: float32 written, read as int32 by another thread without a barrier
@cuda.jit
def dyn_bug(x, out):
    f = cuda.shared.array(0, float32)
    n = cuda.shared.array(0, int32)
    l = cuda.threadIdx.x
    f[l] = x[l]
    bits = n[(l + 1) % 32]                      # BUG: another thread's bytes, no barrier
    if l == 0:
        out[0] = float32(bits != 0)


@cuda.jit
def dyn_twin(x, out):
    f = cuda.shared.array(0, float32)
    n = cuda.shared.array(0, int32)
    l = cuda.threadIdx.x
    f[l] = x[l]
    cuda.syncthreads()
    bits = n[(l + 1) % 32]
    if l == 0:
        out[0] = float32(bits != 0)


def _dyn(k):
    return _one(k, dyn=128), [1.0]


# 14. dynamic shared memory reused as float16 for a second phase without a barrier between the phases
@cuda.jit
def phase_bug(x, out):
    f = cuda.shared.array(0, float32)
    h = cuda.shared.array(0, float16)
    l = cuda.threadIdx.x
    f[l] = x[l]
    cuda.syncthreads()
    v = f[31 - l]
    h[l] = float16(1.0)                         # BUG: overwrites bytes of f that lane 31 - l/2 may still read
    cuda.syncthreads()
    if l == 0:
        out[0] = v + float32(h[0]) - 1.0


@cuda.jit
def phase_twin(x, out):
    f = cuda.shared.array(0, float32)
    h = cuda.shared.array(0, float16)
    l = cuda.threadIdx.x
    f[l] = x[l]
    cuda.syncthreads()
    v = f[31 - l]
    cuda.syncthreads()
    h[l] = float16(1.0)
    cuda.syncthreads()
    if l == 0:
        out[0] = v + float32(h[0]) - 1.0


def _phase(k):
    return _one(k, dyn=128), [X[31]]


# 15. float16 and float32 views of dynamic memory written by different threads
@cuda.jit
def overlap_bug(x, out):
    f = cuda.shared.array(0, float32)
    h = cuda.shared.array(0, float16)
    l = cuda.threadIdx.x
    f[l] = x[l]
    h[2 * ((l + 1) % 32)] = float16(0.0)        # BUG: the low half of another lane's float, no barrier
    cuda.syncthreads()
    if l == 0:
        out[0] = float32(l == 0)


@cuda.jit
def overlap_twin(x, out):
    f = cuda.shared.array(0, float32)
    h = cuda.shared.array(0, float16)
    l = cuda.threadIdx.x
    f[l] = x[l]
    h[64 + 2 * l] = float16(0.0)                # past the 32 floats: no overlap
    cuda.syncthreads()
    if l == 0:
        out[0] = float32(l == 0)


def _overlap(k):
    return _one(k, dyn=256), [1.0]


# 16. syncwarp inside a branch half the warp never enters, with the full mask
@cuda.jit
def branch_bug(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    if l < 16:
        cuda.syncwarp()                         # BUG: names lanes 16..31, which wait at the syncthreads
        s[l] += s[l + 16]
    cuda.syncthreads()
    if l == 0:
        t = float32(0.0)
        for i in range(16):
            t += s[i]
        out[0] = t


# 17. a lane returns before the shuffle that reads it
@cuda.jit
def exit_bug(x, out):
    l = cuda.threadIdx.x
    if l == 16:
        return                                  # BUG: lane 16 exits; lane 0 reads it below
    v = x[l] + cuda.shfl_down_sync(FULL, x[l], 16)
    if l == 0:
        out[0] = v


@cuda.jit
def exit_twin(x, out):
    l = cuda.threadIdx.x
    v = x[l] + cuda.shfl_down_sync(FULL, x[l], 16)
    if l == 0:
        out[0] = v


def _exit(k):
    return _one(k), [X[0] + X[16]]


# 18. the legacy "warp-synchronous" idiom: a volatile-style reduction that relies on lockstep
@cuda.jit
def lockstep_bug(x, out):
    s = cuda.shared.array(64, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    s[l + 32] = 0.0
    cuda.syncthreads()
    s[l] += s[l + 16]                           # BUG: relies on the warp running in lockstep (no syncwarp)
    s[l] += s[l + 8]
    s[l] += s[l + 4]
    s[l] += s[l + 2]
    s[l] += s[l + 1]
    if l == 0:
        out[0] = s[0]


@cuda.jit
def lockstep_twin(x, out):
    s = cuda.shared.array(64, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    s[l + 32] = 0.0
    cuda.syncthreads()
    d = 16
    while d > 0:
        v = s[l] + s[l + d]
        cuda.syncwarp()
        s[l] = v
        cuda.syncwarp()
        d //= 2
    if l == 0:
        out[0] = s[0]


# 19. two warps exchange data with syncwarp only (syncwarp does not order other warps)
@cuda.jit
def twowarps_bug(x, out):
    s = cuda.shared.array(64, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    cuda.syncwarp()                             # BUG: orders this warp's lanes only
    v = s[63 - l]
    if l == 0:
        out[0] = v


@cuda.jit
def twowarps_twin(x, out):
    s = cuda.shared.array(64, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    cuda.syncthreads()
    v = s[63 - l]
    if l == 0:
        out[0] = v


def _twowarps(k):
    return _one(k, 64), [X[63]]


# 20. atomic max on shared memory whose plain initialisation is not behind a barrier
@cuda.jit
def amax_bug(x, out):
    m = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        m[0] = -1e30                            # BUG: no barrier before the atomics
    cuda.atomic.max(m, 0, x[l])
    cuda.syncthreads()
    if l == 0:
        out[0] = m[0]


@cuda.jit
def amax_twin(x, out):
    m = cuda.shared.array(1, float32)
    l = cuda.threadIdx.x
    if l == 0:
        m[0] = -1e30
    cuda.syncthreads()
    cuda.atomic.max(m, 0, x[l])
    cuda.syncthreads()
    if l == 0:
        out[0] = m[0]


def _amax(k):
    return _one(k), [X[:32].max()]


# 21. only half of the warp calls the full-mask syncwarp before reading the other half's data
@cuda.jit
def half_bug(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    if l >= 16:
        return                                  # BUG: lanes 16..31 exit; reading s[l + 16] is still fine, but
    cuda.syncwarp(0x0000FFFF)                   # the mask does not order their stores before the read
    v = s[l] + s[l + 16]
    if l == 0:
        out[0] = v


@cuda.jit
def half_twin(x, out):
    s = cuda.shared.array(32, float32)
    l = cuda.threadIdx.x
    s[l] = x[l]
    cuda.syncwarp()
    if l >= 16:
        return
    v = s[l] + s[l + 16]
    if l == 0:
        out[0] = v


def _half(k):
    return _one(k), [X[0] + X[16]]


PAIRS = [
    Pair("warp", "tree_reduction_no_syncwarp", lambda: _sum32(tree_bug), lambda: _sum32(tree_twin), H, 1e-3),
    Pair("warp", "syncwarp_mask_misses_writers", lambda: _sum32(mask_bug), lambda: _sum32(mask_twin), H, 1e-3),
    Pair("warp", "shfl_down_lane_not_in_mask", lambda: _sum32(shfl_mask_bug), lambda: _sum32(shfl_twin), W, 1e-3),
    Pair("warp", "shfl_from_lane_outside_mask", lambda: _bcast(bcast_bug), lambda: _bcast(bcast_twin)),
    Pair("warp", "shfl_xor_starts_at_32", lambda: _sum32(xor_bug), lambda: _sum32(xor_twin), tol=1e-3),
    Pair("warp", "shfl_up_scan_without_lane_test", lambda: _scan(scan_bug), lambda: _scan(scan_twin), tol=1e-3),
    Pair("warp", "ballot_full_mask_half_warp", lambda: _ballot(ballot_bug), lambda: _ballot(ballot_twin), W),
    Pair("warp", "vote_after_early_return", lambda: _vote(vote_bug), lambda: _vote(vote_twin), W),
    Pair("warp", "shared_histogram_plus_equals", lambda: _hist(shist_bug), lambda: _hist(shist_twin), H),
    Pair("warp", "atomics_then_plain_store", lambda: _atom2(atom_store_bug), lambda: _atom2(atom_store_twin), H,
         1e-3),
    Pair("warp", "atomics_then_plain_read", lambda: _sum32(atom_read_bug), lambda: _sum32(atom_read_twin), H, 1e-3),
    Pair("warp", "plain_init_races_atomics", lambda: _sum32(atom_init_bug), lambda: _sum32(atom_read_twin), H, 1e-3),
    Pair("warp", "dynamic_float_read_as_int", lambda: _dyn(dyn_bug), lambda: _dyn(dyn_twin), H),
    Pair("warp", "dynamic_reused_as_float16", lambda: _phase(phase_bug), lambda: _phase(phase_twin), H),
    Pair("warp", "dynamic_float16_overlaps_float32", lambda: _overlap(overlap_bug), lambda: _overlap(overlap_twin),
         H),
    Pair("warp", "syncwarp_in_half_warp_branch", lambda: _sum32(branch_bug), lambda: _sum32(mask_twin), W, 1e-3),
    Pair("warp", "shfl_reads_exited_lane", lambda: _exit(exit_bug), lambda: _exit(exit_twin)),
    Pair("warp", "lockstep_reduction", lambda: _sum32(lockstep_bug), lambda: _sum32(lockstep_twin), H, 1e-3),
    Pair("warp", "syncwarp_between_two_warps", lambda: _twowarps(twowarps_bug), lambda: _twowarps(twowarps_twin), H),
    Pair("warp", "atomic_max_init_races", lambda: _amax(amax_bug), lambda: _amax(amax_twin), H),
    Pair("warp", "half_warp_syncwarp_mask", lambda: _half(half_bug), lambda: _half(half_twin), H),
]
