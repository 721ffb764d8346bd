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

A launch is checked before it runs as the GPU checks it: the launch limits of the simulated GPU (limits.py), and a
kernel that writes a module-level numpy array (the GPU's Numba freezes those as read-only constants and refuses to
compile the write: ModuleArrayWriteError). During the launch such arrays are read-only copies, as on the GPU.
"""
import ast
import dis
import inspect
import types
import random
import sys
import textwrap
import functools

import greenlet
import numpy as np

from numba.cuda.simulator import kernel as _kernel
from numba.cuda.simulator import kernelapi as _api

from .. import _fp
from . import async_proxy, limits, memory, racecheck, stand_ins, tma, warp, warpgroup  # noqa: F401 (tma)
from .errors import DivergentBarrierError, ModuleArrayWriteError, NotCompilableError
from .state import _state, current, where
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray
from numba.cuda.simulator import api as _sim_api
from numba.np import numpy_support
from numba.cuda.errors import normalize_kernel_dimensions
from numba.cuda.simulator.args import ArgHint, InOut
from numba.core.types import scalars
import numba.cuda as _cuda


def set_schedule(order="forward", seed=0):
    """Choose the order the blocks of a launch and the threads of a block run in: 'forward', 'reverse' or 'random'
    (seeded; threads are shuffled again at every barrier)."""
    if order not in ("forward", "reverse", "random"):
        raise ValueError(f"schedule must be 'forward', 'reverse' or 'random', not {order!r}")
    _state["schedule"], _state["seed"] = order, int(seed)


def get_schedule():
    return _state["schedule"], _state["seed"]


_NO_LASTI = frozenset()


class _SimThread:
    __slots__ = ("blockIdx", "threadIdx", "thread_id", "glet", "site", "done", "async_unit",
                 # race detector: the block, the kernel's code, the lines passed in this barrier interval (program
                 # order), the last frame and line, the current access record, syncwarps passed (lanes, position)
                 "block", "kcode", "trace", "tix", "lf", "lln", "lset", "acc", "wev", "__weakref__")

    def __init__(self, block_idx, thread_idx, block_dim, block=None, kcode=None):
        self.blockIdx = _api.Dim3(*block_idx)
        self.threadIdx = _api.Dim3(*thread_idx)
        x, y, z = thread_idx
        self.thread_id = x + block_dim[0] * (y + block_dim[1] * z)
        self.site = None
        self.done = False
        self.async_unit = None
        self.block, self.kcode = block, kcode
        self.new_interval()

    def new_interval(self):
        self.trace, self.tix, self.lf, self.lln, self.lset, self.acc, self.wev = [], 0, None, 0, _NO_LASTI, None, []


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
            cached = ctx.__dict__.get("_sgemm_args")
            if cached is None or len(cached[0]) != len(args) or any(a is not b for a, b in zip(cached[0], args)):
                cached = ctx.__dict__["_sgemm_args"] = (args, memory.wrap_arguments(self._f, args))
            args = cached[1]           # the kernel's arrays as global memory the race detector watches
        racecheck.begin_block()
        async_proxy.begin_block()                          # Hopper: shared window, wgmma units, mbarriers
        bx, by, bz = self._block_dim
        block, kcode = object(), getattr(self._f, "__code__", None)
        threads = [_SimThread(grid_point, (x, y, z), self._block_dim, block, kcode)
                   for z in range(bz) for y in range(by) for x in range(bx)]
        warp.BLOCK["threads"] = threads
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
                    racecheck.end_interval()               # the block's last interval: its unwritten reads
                    return
                sites = {t.site for t in waiting}
                if len(sites) > 1 or len(waiting) != len(threads):
                    raise DivergentBarrierError(self._divergence_message(grid_point, threads, waiting))
                for t in waiting:                          # every thread is at the same barrier: release it
                    t.site = None
                    t.new_interval()
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
            warp.BLOCK["threads"] = ()

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
                if isinstance(e, ValueError) and "read-only" in str(e) and _FROZEN:
                    raise ModuleArrayWriteError(_frozen_message(t, e)).with_traceback(e.__traceback__) from None
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
        lines = [f"  {where(fn, ln)} 에서 대기 / waiting at: 스레드 {len(ts)}개, 예: {ts[0]}"
                 for (fn, ln, *_), ts in ((s[2:4] if s[0] == "warp" else s, ts) for s, ts in by_site.items())]
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
    memory.check_literal_shape(sys._getframe(1), "local")   # the GPU needs a compile-time shape here too
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


def _atomic(method):
    """An atomic on the numpy buffer of a shared or global array, told to the race detector as an atomic access
    (atomic against atomic is fine, atomic against a plain access is a hazard)."""
    name = method.__name__

    def f(self, array, *args):
        key = (0,) * memory.host_array(array).ndim if name == "compare_and_swap" else args[0]
        t = _state["thread"]
        if type(array) is memory.SharedArray:
            if racecheck.ON and t is not None:
                i = array._element_number(key)
                acc = racecheck.here(t)
                if i is not None:
                    racecheck.atomic(array._decl, i, t, acc)
            return method(self, array._raw, *args)
        if isinstance(array, memory.GlobalArray):
            if racecheck.ON and t is not None:
                addr = array._address(key)
                if addr is not None:
                    racecheck.gatomic(array._name, addr, key if type(key) is tuple else (key,), t,
                                      racecheck.here(t))
            return method(self, array._a, *args)
        return method(self, array, *args)
    f.__name__ = name
    return f


# ------------------------------------------------------------------------- launches: limits, module-level arrays

_FROZEN = {}                     # name -> module-level array frozen for the running launch


def _functions(fn):
    """fn and the device functions it calls (through its globals and closure cells), each once."""
    return _device_functions(fn)


def _source_tree(fn):
    """(ast of fn's source, its first line), or (None, None) where the source cannot be read or parsed."""
    try:
        lines, start = inspect.getsourcelines(fn)
        return ast.parse(textwrap.dedent("".join(lines))), start
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None, None


def _names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if inspect.iscode(c):
            names |= _names(c)
    return names


def _module_arrays(fn):
    """{name: array} of the module-level numpy arrays fn's code uses (fn's own globals)."""
    g = fn.__globals__
    return {n: g[n] for n in _names(fn.__code__) if type(g.get(n)) is np.ndarray}


_checked_writes = {}


def _static_writes(fn, arrays):
    """(name, line) of a store into one of `arrays` in fn's source (a subscript assignment or an atomic), or None:
    the GPU's compiler refuses those whether or not the line runs."""
    key = (id(fn.__code__), tuple(sorted(arrays)))
    if key in _checked_writes:
        return _checked_writes[key]
    found = None
    tree, start = _source_tree(fn)
    if tree is not None:
        local = {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
        local |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(tree):
            target = None
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
                target = n.value
            elif isinstance(n, ast.Call) and ast.unparse(n.func).startswith("cuda.atomic.") and n.args:
                target = n.args[0]
            if isinstance(target, ast.Name) and target.id in arrays and target.id not in local:
                found = (target.id, start + n.lineno - 1)
                break
    _checked_writes[key] = found
    return found


def _refuse_module_array_writes(fn):
    """ModuleArrayWriteError if the kernel (or a device function it calls) writes a module-level numpy array."""
    for f in _functions(fn).values():
        arrays = _module_arrays(f)
        hit = _static_writes(f, arrays) if arrays else None
        if hit:
            name, line = hit
            a = arrays[name]
            raise ModuleArrayWriteError(
                f"{where(f.__code__.co_filename, line)}: 커널이 모듈 수준 numpy 배열 `{name}` (모양 {a.shape}, dtype "
                f"{a.dtype})에 씁니다. GPU 의 Numba 는 커널이 쓰는 전역 numpy 배열을 읽기 전용 상수로 굳혀 넣으므로 이 "
                "커널을 컴파일하지 못합니다 (TypingError: Cannot modify readonly array). 결과는 커널 인자로 넘긴 배열에 "
                f"쓰세요 (예: 커널에 `{name}` 를 인자로 추가).\n"
                f"{where(f.__code__.co_filename, line)}: the kernel writes the module-level numpy array `{name}` "
                f"(shape {a.shape}, dtype {a.dtype}); Numba on the GPU freezes global arrays into the kernel as "
                "read-only constants and refuses to compile this (TypingError: Cannot modify readonly array). Pass "
                "the array as a kernel argument and write that instead.")


# A kernel may call Numba's and the course's functions (the stand-ins of kernels_numba, numpy/math functions Numba
# types); a plain Python function from anywhere else (a notebook cell, a test) is what the GPU's Numba cannot call.
_COMPILABLE_HOMES = (__name__.split(".")[0], "numba", "numba_cuda", "numpy", "math", "cmath", "operator", "course",
                     "sim")                 # this package (its stand-ins), Numba's, and the checkers' probes
_compile_checked = {}           # kernel function -> (kind, refusal message), or None


def _loads(code):
    """(kind, name, line) of every global or closure-cell name the code (and code nested in it) loads."""
    out = []
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        if ins.starts_line is not None:
            line = ins.starts_line
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            out.append(("global", ins.argval, line))
        elif ins.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF") and ins.argval in code.co_freevars:
            out.append(("cell", ins.argval, line))
    for c in code.co_consts:
        if inspect.iscode(c):
            out += _loads(c)
    return out


def _resolve(fn, kind, name):
    """The object a loaded name refers to in fn (its globals or its closure cell), or None."""
    if kind == "global":
        return fn.__globals__.get(name)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    try:
        return cells[name].cell_contents
    except (KeyError, ValueError):
        return None


def _device_functions(fn, seen=None):
    """{id(code): function} of fn and every device function it reaches through its globals and closure cells."""
    seen = {} if seen is None else seen
    code = getattr(fn, "__code__", None)
    if code is None or id(code) in seen:
        return seen
    seen[id(code)] = fn
    for kind, name, _ in _loads(code):
        v = _resolve(fn, kind, name)
        if type(v) is _kernel.FakeCUDAKernel and getattr(v, "fn", None) is not None:
            _device_functions(v.fn, seen)
    return seen


def _try_line(fn):
    """The line of the first try statement in fn's source (None if none, or no source: then its bytecode's handler)."""
    tree, start = _source_tree(fn)
    if tree is not None:
        tries = [n.lineno for n in ast.walk(tree) if type(n).__name__ in ("Try", "TryStar")]
        return start + min(tries) - 1 if tries else None
    line = None
    for ins in dis.get_instructions(fn.__code__):
        line = ins.starts_line or line
        if ins.opname in ("CHECK_EXC_MATCH", "PUSH_EXC_INFO", "SETUP_FINALLY"):
            return line
    return None


def _refuse_uncompilable(fn):
    """NotCompilableError where the kernel, or a device function it calls, holds code the GPU's Numba refuses: a
    try/except (no exception handling in CUDA kernels: an out-of-bounds read raises nothing there), or a call of a
    plain Python function (TypingError: Untyped global name). Checked once per kernel code."""
    if fn not in _compile_checked:
        _compile_checked[fn] = _uncompilable(fn)
    hit = _compile_checked[fn]
    if hit:
        raise NotCompilableError(hit[1], kind=hit[0])


def _uncompilable(fn):
    for f in _device_functions(fn).values():
        file = f.__code__.co_filename
        line = _try_line(f)
        if line is not None:
            return "try_except", (f"{where(file, line)}: {'커널' if f is fn else f'커널이 부르는 장치 함수(`{f.__name__}`)'}에 try/except 가 "
                    "있습니다. GPU 의 Numba 는 커널 안의 예외 처리를 컴파일하지 못합니다 (TypingError). 시뮬레이터에서는 배열 밖을 "
                    "읽으면 IndexError 가 나지만, GPU 에서는 예외 없이 배열 밖의 메모리를 읽습니다: 예외를 잡지 말고 읽기 전에 "
                    "인덱스가 배열 안인지 if 로 확인하세요.\n"
                    f"{where(file, line)}: a try/except in the kernel: Numba on the GPU cannot compile exception handling "
                    "in a kernel, and there an out-of-bounds read raises nothing. Check the index with an if instead.")
        for kind, name, ln in _loads(f.__code__):
            v = _resolve(f, kind, name)
            if type(v) is types.FunctionType and (v.__module__ or "").split(".")[0] not in _COMPILABLE_HOMES:
                own = v.__name__
                defined = where(v.__code__.co_filename, v.__code__.co_firstlineno)
                return "plain_function", (f"{where(file, ln)}: {'커널이' if f is fn else f'커널의 장치 함수(`{f.__name__}`)가'} 부르는 "
                        f"함수(`{own}`, {defined})는 @cuda.jit(device=True) 가 없는 보통 파이썬 함수입니다. GPU 의 Numba "
                        f"는 커널에서 보통 파이썬 함수를 부르지 못합니다 (TypingError: Untyped global name '{name}'): "
                        f"`def {own}` 위에 @cuda.jit(device=True) 를 붙이세요.\n"
                        f"{where(file, ln)}: the kernel calls `{own}` ({defined}), a plain Python function: Numba on the "
                        f"GPU cannot (Untyped global name '{name}'). Decorate it with @cuda.jit(device=True).")
    return None


class _frozen_globals:
    """During a launch, the module-level numpy arrays the kernel's code uses are read-only copies (the GPU's Numba
    copies them into the kernel as constants): a write raises, and nothing leaks into the next launch."""

    def __init__(self, fn):
        self.fn = fn
        self.swapped = []

    def __enter__(self):
        for f in _functions(self.fn).values():
            g = f.__globals__
            for name, a in _module_arrays(f).items():
                frozen = a.copy()
                frozen.flags.writeable = False
                self.swapped.append((g, name, a))
                g[name] = frozen
                _FROZEN[name] = a
        return self

    def __exit__(self, *exc):
        for g, name, a in reversed(self.swapped):
            g[name] = a
            _FROZEN.pop(name, None)
        return False


def _frozen_message(t, e):
    names = ", ".join(f"`{n}`" for n in _FROZEN)
    return (f"tid={list(t.threadIdx)} ctaid={list(t.blockIdx)}: 커널이 모듈 수준 numpy 배열({names})에 쓰려 했습니다. "
            "GPU 의 Numba 는 전역 numpy 배열을 읽기 전용 상수로 굳히므로 이 커널을 컴파일하지 못합니다 (Cannot modify "
            "readonly array): 결과는 커널 인자로 넘긴 배열에 쓰세요.\nthe kernel tried to write a module-level numpy "
            f"array ({names}); Numba on the GPU freezes those as read-only constants and refuses to compile the write. "
            f"Write to an array passed as an argument. ({e})")


_stock_call = _kernel.FakeCUDAKernel.__call__


def _launch(self, *args):
    """FakeCUDAKernel.__call__: a launch is checked as the GPU checks it, then runs with module arrays frozen."""
    if self._device or _kernel._get_kernel_context() is not None or self.grid_dim is None:
        return _stock_call(self, *args)
    grid, block = normalize_kernel_dimensions(self.grid_dim, self.block_dim)
    limits.check_launch(self.fn, grid, block, self.dynshared_size)
    _refuse_module_array_writes(self.fn)
    _refuse_uncompilable(self.fn)
    racecheck.begin_launch()
    try:
        with _frozen_globals(self.fn):
            return _run_grid(self, grid, block, args)
    finally:
        racecheck.begin_launch()                 # no global history kept after the launch


def block_order(grid):
    """The grid's blocks in the order the schedule runs them: forward (numpy order), reverse, or random (seeded). The
    GPU runs blocks in any order, even at once: a result that depends on the order is a race between blocks."""
    points = list(np.ndindex(*grid))
    schedule, seed = _state["schedule"], _state["seed"]
    if schedule == "reverse":
        points.reverse()
    elif schedule == "random":
        random.Random(seed * 7919 + len(points)).shuffle(points)
    return points


def _run_grid(kernel, grid, block, args):
    """numba's FakeCUDAKernel.__call__ with the blocks in the schedule's order."""
    fake_cuda_module = _api.FakeCUDAModule(grid, block, kernel.dynshared_size)
    with _kernel._push_kernel_context(fake_cuda_module):
        retr = []

        def fake_arg(arg):
            _, arg = functools.reduce(lambda ty_val, extension: extension.prepare_args(*ty_val, stream=0, retr=retr),
                                      kernel.extensions, (None, arg))
            if isinstance(arg, np.ndarray) and arg.ndim > 0:
                ret = InOut(arg).to_device(retr)
            elif isinstance(arg, ArgHint):
                ret = arg.to_device(retr)
            elif isinstance(arg, np.void):
                ret = FakeCUDAArray(arg)
            else:
                ret = arg
            if isinstance(ret, FakeCUDAArray):
                return FakeWithinKernelCUDAArray(ret)
            return ret

        fake_args = [fake_arg(arg) for arg in args]
        with _api.swapped_cuda_module(kernel.fn, fake_cuda_module):
            for grid_point in block_order(grid):
                _kernel.BlockManager(kernel.fn, grid, block, kernel._debug).run(grid_point, *fake_args)
        for wb in retr:
            wb()


_stock_jit = None


def _jit(func_or_sig=None, device=False, launch_bounds=None, lineinfo=False, forceinline=False, **kw):
    """cuda.jit of the simulator, accepting launch_bounds (enforced at launch), lineinfo and forceinline (NVVM-level
    inlining: nothing to do where Python runs the function) as the GPU's does."""
    out = _stock_jit(func_or_sig, device=device, **kw)

    def mark(k):
        if launch_bounds is not None and isinstance(k, _kernel.FakeCUDAKernel):
            b = launch_bounds if isinstance(launch_bounds, tuple) else (launch_bounds,)
            k.fn._sgemm_launch_bounds = tuple(int(x) for x in b)
        return k
    if isinstance(out, _kernel.FakeCUDAKernel):
        return mark(out)
    return lambda fn: mark(out(fn))


_stock_shared_array = _api.FakeCUDAShared.array
_stock_local_array = _api.FakeCUDALocal.array


def _fast_scalar_casts():
    """`uint32(x)`, `float32(x)` in kernel code: numba's Type.__call__ imports its typing module and runs an ABC
    isinstance on every call (~15 us, most of a simulated epilogue's time); a plain scalar goes straight to the same
    numpy cast (Integer/Float.cast_python_value), anything else (a signature such as float32(float32)) as before."""
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
            setattr(_api.FakeCUDAAtomic, name, _atomic(m))
    for name, m in {**warp.stand_ins_warp_sync(), **stand_ins.cache_hints()}.items():
        setattr(FakeMod, name, m)
    _kernel.FakeCUDAKernel.__call__ = _launch
    global _stock_jit
    _stock_jit = _sim_api.jit
    _sim_api.jit = _jit
    if getattr(_cuda, "jit", None) is _stock_jit:
        _cuda.jit = _jit
    _kernel._sgemm_course_patched = True
