"""Deterministic, fast thread scheduler for Numba's CUDA simulator (greenlets instead of polled OS threads).

The stock simulator starts one OS thread per CUDA thread and busy-polls them at every ``syncthreads`` while
holding the GIL. Here every CUDA thread of a block is a greenlet; the block manager runs them one after another,
each until it reaches a barrier or ends. That is

* fast: a barrier costs one greenlet switch per thread;
* deterministic: the same kernel and inputs give the same result every run;
* adversarial where it matters: a thread runs *alone* up to its next barrier, which is a legal schedule under
  Volta+ independent thread scheduling, so a missing ``syncthreads`` between a write and other threads' reads
  gives the wrong answer every time;
* strict about undefined memory: shared and local arrays start filled with NaN (ints: -1), as stale garbage would
  on hardware, so reading a value nobody wrote shows up in the result;
* watched by the race detector (racecheck): every shared-memory access is checked against the other threads'
  accesses of the same barrier interval, which finds the hazards no single schedule shows (a write-after-read,
  a cp.async still in flight, another warp's rows read by ldmatrix).

Barriers reached at different source lines, or while other threads of the block have already exited, are
undefined behaviour on hardware and raise ``DivergentBarrierError`` here.
"""
import random
import sys

import greenlet
import numpy as np

from numba.cuda.simulator import kernel as _kernel
from numba.cuda.simulator import kernelapi as _api

from .. import _fp
from . import async_proxy, memory, racecheck, tma, warp, warpgroup  # noqa: F401 (tma, warpgroup: resolvers)
from .errors import DivergentBarrierError
from .state import _state, current


def set_schedule(order="forward", seed=0):
    """Choose the order threads of a block run in: 'forward', 'reverse' or 'random' (seeded)."""
    if order not in ("forward", "reverse", "random"):
        raise ValueError(f"schedule must be 'forward', 'reverse' or 'random', not {order!r}")
    _state["schedule"], _state["seed"] = order, int(seed)


def get_schedule():
    return _state["schedule"], _state["seed"]


class _SimThread:
    __slots__ = ("blockIdx", "threadIdx", "thread_id", "glet", "site", "done", "async_unit")

    def __init__(self, block_idx, thread_idx, block_dim):
        self.blockIdx = _api.Dim3(*block_idx)
        self.threadIdx = _api.Dim3(*thread_idx)
        x, y, z = thread_idx
        self.thread_id = x + block_dim[0] * (y + block_dim[1] * z)
        self.site = None
        self.done = False
        self.async_unit = None


class BlockManager:
    """Runs the threads of one block as greenlets, barrier phase by barrier phase."""

    def __init__(self, f, grid_dim, block_dim, debug):
        self._f = f
        self._block_dim = tuple(block_dim)
        self._debug = debug

    def run(self, grid_point, *args):
        ctx = _kernel._get_kernel_context()
        if ctx is not None:            # a new block sees undefined shared memory, not the last block's
            for arr in ctx._shared._allocations.values():
                memory.poison(arr)
            ctx._shared._dynshared[:] = -1
        racecheck.begin_block()
        async_proxy.begin_block()                          # Hopper: shared window, wgmma units, mbarriers
        bx, by, bz = self._block_dim
        threads = [_SimThread(grid_point, (x, y, z), self._block_dim)
                   for z in range(bz) for y in range(by) for x in range(bx)]
        f = self._f
        main = greenlet.getcurrent()
        for t in threads:
            t.glet = greenlet.greenlet(self._body(f, t, args, self._debug), parent=main)
        order = list(threads)
        schedule, seed = _state["schedule"], _state["seed"]
        if schedule == "reverse":
            order.reverse()
        rng = random.Random(seed * 1000003 + hash(tuple(grid_point)) % 1000003)
        try:
            while True:
                if schedule == "random":
                    rng.shuffle(order)
                for t in order:
                    if not t.done and t.site is None:      # runnable: not parked at a barrier or warp instruction
                        _state["thread"] = t
                        t.glet.switch()
                _state["thread"] = None
                if warp.resolve(threads, grid_point):      # warps complete at mma/ldmatrix ran it: go on
                    continue
                if async_proxy.resolve(threads, grid_point):   # warpgroups at wgmma, mbarrier waits released
                    continue
                waiting = [t for t in threads if not t.done]
                if not waiting:
                    return
                sites = {t.site for t in waiting}
                if len(sites) > 1 or len(waiting) != len(threads):
                    raise DivergentBarrierError(self._divergence_message(grid_point, threads, waiting))
                for t in waiting:                          # every thread is at the same barrier: release it
                    t.site = None
                racecheck.barrier()                        # a new barrier interval begins
        finally:
            # A launch that stops early (an error in one thread) leaves the other threads suspended, some inside a
            # device function whose `with swapped_cuda_module(...)` still holds this launch's fake `cuda` in the
            # module's globals: unwind them now, or the next launch of a kernel from that module would see this
            # launch's shared arrays.
            for t in threads:
                if not t.done and t.glet is not None and not t.glet.dead:
                    try:
                        t.glet.throw()
                    except greenlet.GreenletExit:
                        pass
            _state["thread"] = None
            warp.reset()
            warpgroup.reset()

    @staticmethod
    def _body(f, t, args, debug=False):
        def body():
            try:
                if debug:
                    # As the stock simulator does for @cuda.jit(debug=True): a float division by zero raises
                    # FloatingPointError (re-raised below naming the thread) instead of giving inf. np.errstate
                    # lives in a context variable and every greenlet starts in its own empty context, so this
                    # covers exactly this CUDA thread, and no other thread or the caller.
                    with np.errstate(divide="raise"):
                        f(*args)
                else:
                    f(*args)
            except Exception as e:
                if getattr(e, "names_thread", False):      # the report already names the threads and lines
                    raise
                tid, ctaid = list(t.threadIdx), list(t.blockIdx)
                msg = f"tid={tid} ctaid={ctaid}: {e}" if str(e) else f"tid={tid} ctaid={ctaid}"
                try:
                    err = type(e)(msg)
                except Exception:
                    err = RuntimeError(msg)
                raise err.with_traceback(e.__traceback__) from None
            finally:
                t.done = True
        return body

    @staticmethod
    def _divergence_message(grid_point, threads, waiting):
        done = [t for t in threads if t.done]
        by_site = {}
        for t in waiting:
            by_site.setdefault(t.site, []).append(tuple(t.threadIdx))
        lines = [f"  {fn}:{ln} 에서 대기 / waiting at: 스레드 {len(ts)}개, 예: {ts[0]}"
                 for (fn, ln, *_), ts in ((s[-2:] if s[0] == "warp" else s, ts) for s, ts in by_site.items())]
        if done:
            lines.append(f"  이미 끝난 스레드 / already exited: {len(done)}개, 예: {tuple(done[0].threadIdx)}")
        return ("블록 {} 의 스레드들이 서로 다른 syncthreads 에 도착했습니다 (하드웨어에서는 정의되지 않은 동작: "
                "멈추거나 틀린 결과). syncthreads 를 모든 스레드가 지나는 곳(조건문·early return 밖)에 두세요.\n"
                "Threads of block {} reached different barriers (undefined behaviour on hardware). "
                "Put syncthreads where every thread of the block passes.\n").format(
                    tuple(grid_point), tuple(grid_point)) + "\n".join(lines)


def _syncthreads(self):
    t = current()
    frame = sys._getframe(1)
    t.site = (frame.f_code.co_filename, frame.f_lineno)
    t.glet.parent.switch()


def _sync_reduce(op):
    def method(self, value):
        t = current()
        ctx = _kernel._get_kernel_context()
        store = ctx.__dict__.setdefault("_reduce_values", {})
        store[t.thread_id] = value
        _syncthreads(self)
        result = op(list(store.values()))
        _syncthreads(self)
        store.clear()
        return result
    return method


def _shared_array(self, shape, dtype, alignment=None):
    check_alignment(alignment, dtype)
    dtype = _as_dtype(dtype)
    if shape == 0:
        return memory.alloc_dynamic(self, dtype, sys._getframe(1), alignment)
    return memory.alloc(self, shape, dtype, alignment, sys._getframe(1))


def _as_dtype(dtype):
    try:
        return np.dtype(dtype)
    except TypeError:
        from numba.np import numpy_support
        return numpy_support.as_dtype(dtype)


def shared_alloc(shared, shape, dtype, site):
    """The block's raw shared array declared at `site` (for the tracer, which does its own bookkeeping)."""
    res = shared._allocations.get(site)
    if res is None:
        res = memory.poison(_stock_local_array(_api.FakeCUDALocal(), shape, dtype))
        shared._allocations[site] = res
    return res


def _local_array(self, shape, dtype, alignment=None):
    check_alignment(alignment, dtype)
    return memory.poison(_stock_local_array(self, shape, dtype)).view(memory.LocalArray)


def check_alignment(alignment, dtype):
    """Accept `alignment=` as the GPU does (a power of two); the simulator needs no alignment."""
    if alignment is None:
        return
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a positive power of two, not {alignment!r}")


def _fma(self, a, b, c):
    """Fused multiply-add with one rounding, as fma.rn.f32 does (see _fp.fma_rn_f32 for the tie case)."""
    if type(a) is np.float32 or type(b) is np.float32 or type(c) is np.float32:
        return _fp.fma_rn_f32(a, b, c)
    return a * b + c


def _unwrapping(method):
    """An atomic that works on the numpy buffer of a shared view (atomics are not race-checked)."""
    def f(self, array, *args):
        return method(self, memory.host_array(array) if type(array) is memory.SharedArray else array, *args)
    f.__name__ = method.__name__
    return f


_stock_shared_array = _api.FakeCUDAShared.array
_stock_local_array = _api.FakeCUDALocal.array


def _fast_scalar_casts():
    """`uint32(x)`, `float32(x)` in kernel code: numba's Type.__call__ imports its typing module and runs an ABC
    isinstance on every call (~15 us, most of a simulated epilogue's time); a plain scalar goes straight to the same
    numpy cast (Integer/Float.cast_python_value), anything else (a signature such as float32(float32)) as before."""
    from numba.core.types import scalars
    stock = scalars.Integer.__call__

    def call(self, *args):
        if len(args) == 1 and isinstance(args[0], (int, float, np.generic)):
            return self.cast_python_value(args[0])
        return stock(self, *args)
    for cls in (scalars.Integer, scalars.Float):
        cls.__call__ = call


def install():
    """Patch the simulator in place (idempotent)."""
    if getattr(_kernel, "_sgemm_course_patched", False):
        return
    _fast_scalar_casts()
    _kernel.BlockManager = BlockManager
    FakeMod = _api.FakeCUDAModule
    FakeMod.threadIdx = property(lambda self: current().threadIdx)
    FakeMod.blockIdx = property(lambda self: current().blockIdx)
    FakeMod.laneid = property(lambda self: current().thread_id % 32)
    FakeMod.syncthreads = _syncthreads
    FakeMod.syncthreads_count = _sync_reduce(lambda vs: sum(1 for v in vs if v))
    FakeMod.syncthreads_and = _sync_reduce(lambda vs: int(all(vs)))
    FakeMod.syncthreads_or = _sync_reduce(lambda vs: int(any(vs)))
    FakeMod.fma = _fma
    _api.GridGroup.sync = lambda self: _syncthreads(None)
    _api.FakeCUDAShared.array = _shared_array
    _api.FakeCUDALocal.array = _local_array
    for name, m in list(vars(_api.FakeCUDAAtomic).items()):
        if callable(m) and not name.startswith("__"):
            setattr(_api.FakeCUDAAtomic, name, _unwrapping(m))
    _kernel._sgemm_course_patched = True
