"""Watch what a student's function does while it runs, so checkers judge behaviour and never the source text.

`recording()` installs a profile hook (sys.setprofile; the simulator's CUDA threads are greenlets of one OS thread,
so one hook sees them all) and records, per simulated thread, the events the exercises care about: barriers,
cp.async issue/commit/wait, calls the student's code makes to device helpers (with their integer arguments),
shared-memory reads and writes, global reads, and reads of local (register) arrays before anything was written
there. It also records calls the student's code makes into plain Python functions (a course helper that builds a
dict, a model in sim/, a helper of the student's own that is not `@cuda.jit`): code a GPU cannot run, or an answer
taken from the model instead of computed. Each event carries the student's own line (the innermost frame of the
student's code) and the integer locals of that frame and of every student frame that called it, from which
`loop_iterations` finds the K-loop variable (also for events inside a helper the loop calls).
"""
import contextlib
import linecache
import os
import re
import sys
import sysconfig
from dataclasses import dataclass, field
from kernels_numba.infra.simulator import memory
from kernels_numba.infra.simulator.state import running
import numpy as np
from numba.cuda.simulator import kernelapi as api
from kernels_numba.infra import device
from kernels_numba.infra.simulator import racecheck
from numba.cuda.simulator.cudadrv import devicearray as da

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PROJECT = tuple(os.path.join(ROOT, d) + os.sep for d in ("course", "sim", "kernels_numba"))
_ALLOWED = tuple(os.path.join(ROOT, "kernels_numba", "infra", d) + os.sep for d in ("simulator", "ptx"))
_SYSTEM = tuple({p + os.sep for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                      sysconfig.get_paths()["platlib"], sys.prefix, sys.base_prefix)})


def is_user_file(filename):
    """True for code the student wrote: a notebook cell, a file of their own (not the course, numba or Python)."""
    if not filename or filename.startswith("<frozen") or filename.startswith(_PROJECT):
        return False
    return not filename.startswith(_SYSTEM)


def _is_project_helper(filename):
    """A plain Python function of the course (course/, sim/, kernels_numba/ outside the simulator's stand-ins)."""
    return filename.startswith(_PROJECT) and not filename.startswith(_ALLOWED)


@dataclass
class Event:
    """One thing a simulated thread did: kind ('bar', 'wait', 'commit', 'copy', 'call', 'sread', 'swrite', 'gread',
    'jump': a frame went back to an earlier line, recording(jumps=True)),
    what (array or function name, wait's N), args (index tuple or the call's integer arguments), the student's line
    (file, line) and the student's frame's integer locals at that moment."""
    kind: str
    what: object
    args: object
    site: tuple
    locals: dict = field(default_factory=dict)
    func: tuple = None               # (file, function name) of the student's frame the event was seen from
    frames: tuple = ()               # (func, site, integer locals) of every student frame on the stack, innermost first
    value: float = None              # the number a shared-memory store ('swrite') writes


@dataclass
class HostCall:
    """The student's code called a plain Python function `name` (defined in `file`) at `site`."""
    name: str
    file: str
    site: tuple


@dataclass
class UnwrittenRead:
    """A read of local array `array`[index] before this thread wrote it, at `site`."""
    array: str
    index: tuple
    site: tuple
    thread: tuple


class Recording:
    """What the hooked run did (see the module docstring)."""

    def __init__(self, calls=(), model_files=(), blocks=None, shared=True, globals_=False):
        self.events = {}                 # (blockIdx, threadIdx) -> [Event]
        self.host_calls = []             # HostCall, first of each (name, site)
        self.model_calls = []            # HostCall into one of model_files (at any depth)
        self.unwritten = []              # UnwrittenRead, first of each (array, site)
        self._calls, self._model = set(calls), tuple(model_files)
        self._blocks = None if blocks is None else {tuple(b) + (0,) * (3 - len(b)) for b in blocks}
        self._shared, self._globals = shared, globals_
        self._codes = {}
        self._last_line = {}             # id(student frame) -> the line it ran last (jumps)
        self.report = None               # the race detector's report of the recorded run (simulator)

    # ---------------------------------------------------------------- queries
    def thread(self, block=(0, 0, 0), thread=(0, 0, 0), jumps=False):
        """The events of one simulated thread (an empty list if it recorded nothing); jumps: with the backward jumps
        of its frames (recording(jumps=True); loop_iterations reads them), else without."""
        evs = self.events.get((tuple(block) + (0,) * (3 - len(block)), tuple(thread) + (0,) * (3 - len(thread))), [])
        return evs if jumps else [e for e in evs if e.kind != "jump"]

    def threads(self):
        return list(self.events)

    # ---------------------------------------------------------------- the hook
    def _classify(self, code):
        """What a called code object is to us: a tuple (kind, detail) or None (looked up once per code object)."""
        fn, name = code.co_filename, code.co_name
        if fn.endswith(os.path.join("simulator", "scheduler.py")) and name == "_syncthreads":
            return ("bar", None)
        if fn.endswith(os.path.join("simulator", "async_copy.py")):
            if name == "cp_async_commit_group":
                return ("commit", None)
            if name == "cp_async_wait_all":
                return ("wait", "all")
            if name == "stand_in":
                return ("async", None)                # a wait (free variable n) or a copy (free variable name)
            return None
        if fn.endswith(os.path.join("simulator", "memory.py")) and name in ("__getitem__", "__setitem__"):
            if code in (memory.SharedArray.__getitem__.__code__, memory.SharedArray.__setitem__.__code__):
                return ("shared", name) if self._shared else None
            if name == "__getitem__":                 # GlobalArray's: a kernel argument (global memory)
                return ("global", None) if self._globals else None
            return None
        if self._globals and fn.endswith(os.path.join("cudadrv", "devicearray.py")) and name == "__getitem__":
            return ("global", None)
        if name in self._calls:
            return ("call", name)
        if self._model and fn.startswith(self._model):
            return ("model", name)
        return ("other", None)

    def _student_frame(self, frame):
        while frame is not None and not is_user_file(frame.f_code.co_filename):
            frame = frame.f_back
        return frame

    def _thread_key(self):
        t = running()
        if t is None:
            return None
        b = tuple(t.blockIdx)
        if self._blocks is not None and b not in self._blocks:
            return False
        return (b, tuple(t.threadIdx))

    def _add(self, key, kind, what, args, frame, value=None):
        frames = []                      # the student's frames, innermost first (a helper and the loop calling it)
        f = self._student_frame(frame)
        while f is not None:
            frames.append(((f.f_code.co_filename, f.f_code.co_name), (f.f_code.co_filename, f.f_lineno),
                           {k: int(v) for k, v in f.f_locals.items() if _is_int(v)}))
            f = self._student_frame(f.f_back)
        func, site, loc = frames[0] if frames else (None, None, {})
        self.events.setdefault(key, []).append(Event(kind, what, args, site, loc, func, tuple(frames), value))

    def tracer(self, frame, event, arg):
        """sys.settrace's function (recording(jumps=True)): a student's frame gets `_lines`, others nothing."""
        if event == "call" and is_user_file(frame.f_code.co_filename):
            return self._lines
        return None

    def _lines(self, frame, event, arg):
        """A 'jump' event where a student's frame goes back to a line at or above the one it ran before: the head of a
        loop starting its next iteration (or finding it has none left), also when the iteration before did nothing
        the profile hook sees (CPython reports a line after every backward jump)."""
        try:
            if event == "line":
                prev = self._last_line.get(id(frame))
                self._last_line[id(frame)] = frame.f_lineno
                if prev is not None and frame.f_lineno <= prev:
                    key = self._thread_key()
                    if key:
                        self._add(key, "jump", None, None, frame)
            elif event == "return":
                self._last_line.pop(id(frame), None)
        except Exception:            # watching must never change what the student's code does
            pass
        return self._lines

    def hook(self, frame, event, arg):
        if event != "call":
            return
        try:
            self._hook(frame)
        except Exception:            # watching must never change what the student's code does
            pass

    def _hook(self, frame):
        code = frame.f_code
        c = self._codes.get(code)
        if c is None:
            c = self._codes[code] = self._classify(code) or ("skip", None)
        kind, detail = c
        if kind == "skip":
            return
        back = frame.f_back
        if kind == "model":
            self._note(self.model_calls, HostCall(code.co_name, code.co_filename, self._site(back)))
            return
        if kind == "other":
            if back is not None and is_user_file(back.f_code.co_filename) and not code.co_name.startswith("<") \
                    and (_is_project_helper(code.co_filename) or is_user_file(code.co_filename)) \
                    and self._thread_key() is not None:
                self._note(self.host_calls, HostCall(code.co_name, code.co_filename, self._site(back)))
            return
        key = self._thread_key()
        if not key:
            return
        loc = frame.f_locals
        if kind == "async":
            if "n" in loc:
                self._add(key, "wait", loc["n"], None, back)
            else:
                args = tuple(int(a) if _is_int(a) else None for a in loc.get("args", ()))
                self._add(key, "copy", loc.get("name"), args, back)
        elif kind in ("bar", "commit", "wait"):
            self._add(key, kind, detail, None, back)
        elif kind == "shared":
            k = loc.get("key")
            idx = tuple(int(i) for i in k) if isinstance(k, tuple) and all(_is_int(i) for i in k) else \
                ((int(k),) if _is_int(k) else None)
            if idx is not None:
                v = loc.get("value")
                v = float(v) if detail == "__setitem__" and isinstance(v, (int, float, np.number)) else None
                self._add(key, "sread" if detail == "__getitem__" else "swrite", loc["self"]._decl.name, idx, back, v)
        elif kind == "global":
            obj = loc.get("self")
            idx = loc.get("idx", loc.get("key"))          # numba's in-kernel array, or the simulator's GlobalArray
            idx = (idx,) if _is_int(idx) else idx
            if type(obj).__name__ in ("FakeWithinKernelCUDAArray", "GlobalArray") and isinstance(idx, tuple) \
                    and all(_is_int(i) for i in idx):
                shape = tuple(obj.__dict__["_item"].shape)
                if len(idx) == len(shape):                # one element (a row view A[i] is read when indexed)
                    self._add(key, "gread", shape, tuple(int(i) for i in idx), back)
        elif kind == "call":
            args = {k: int(v) for k, v in loc.items() if _is_int(v)}
            self._add(key, "call", detail, args, back)

    @staticmethod
    def _site(frame):
        while frame is not None and not is_user_file(frame.f_code.co_filename):
            frame = frame.f_back
        return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None

    @staticmethod
    def _note(found, call):
        if not any(c.name == call.name and c.site == call.site for c in found):
            found.append(call)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


_LOCAL_DECL = re.compile(r"^\s*([\w\s,]+?)\s*=\s*.*cuda\.local\.array")


def _local_name(frame):
    m = _LOCAL_DECL.match(linecache.getline(frame.f_code.co_filename, frame.f_lineno) or "")
    return m.group(1).split(",")[0].strip() if m else f"local@{frame.f_lineno}"


def _tracing_local_class():

    class TracingLocal(memory.LocalArray):
        """A local array that notes reads of elements its thread has not written yet."""

        def __array_finalize__(self, obj):
            if obj is not None and "_sgemm_written" not in self.__dict__:
                self.__dict__["_sgemm_written"] = None

        def __getitem__(self, key):
            w = self.__dict__.get("_sgemm_written")
            if w is not None and _RECORDING and not self.__dict__.get("_sgemm_full") and not np.all(w[key]):
                rec = _RECORDING[-1]
                f = sys._getframe(1)
                site = Recording._site(f) or (f.f_code.co_filename, f.f_lineno)
                name = self.__dict__.get("_sgemm_name", "local")
                if not any(u.array == name and u.site == site for u in rec.unwritten):
                    t = running()
                    idx = key if isinstance(key, tuple) else (key,)
                    rec.unwritten.append(UnwrittenRead(name, tuple(int(i) for i in idx if _is_int(i)), site,
                                                       tuple(t.threadIdx) if t is not None else ()))
            return np.ndarray.__getitem__(self, key)

        def __setitem__(self, key, value):
            np.ndarray.__setitem__(self, key, value)
            w = self.__dict__.get("_sgemm_written")
            if w is not None and not self.__dict__.get("_sgemm_full"):
                w[key] = True
                if w.all():                  # every element written: nothing left to watch
                    self.__dict__["_sgemm_full"] = True

    return TracingLocal


_RECORDING = []          # the active Recording (innermost last)


@contextlib.contextmanager
def recording(calls=(), model_files=(), blocks=None, shared=True, globals_=False, local_arrays=False, jumps=False):
    """with recording(...) as rec: run the student's code; rec holds what it did (see Recording).

    calls: names of device functions whose calls (with integer arguments) become 'call' events; model_files: files
    (absolute paths) whose functions the student must not call at any depth; blocks: only these blocks' threads are
    recorded (None: all); local_arrays: watch cuda.local.array for reads of unwritten elements (simulator only);
    jumps: also note every backward jump of a student's frame (a loop's next iteration: loop_iterations reads them
    with rec.thread(..., jumps=True))."""
    rec = Recording(calls, model_files, blocks, shared, globals_)
    prev = sys.getprofile()
    prev_trace = sys.gettrace()
    patched = None
    if local_arrays:
        cls = _tracing_local_class()
        stock = api.FakeCUDALocal.array

        def traced(self, shape, dtype, alignment=None):
            arr = stock(self, shape, dtype, alignment)
            t = running()
            if t is None or tuple(t.threadIdx) != (0, 0, 0) or (rec._blocks is not None and tuple(t.blockIdx)
                                                                 not in rec._blocks):
                return arr                   # one thread is enough to name the array nobody filled
            arr = arr.view(cls)
            arr.__dict__["_sgemm_written"] = np.zeros(arr.shape, bool)
            arr.__dict__["_sgemm_name"] = _local_name(sys._getframe(1))
            return arr
        api.FakeCUDALocal.array, patched = traced, (api, stock)
    _RECORDING.append(rec)
    collecting = contextlib.nullcontext(None)
    if device.SIMULATOR:                # a race is noted (rec.report), never raised: the trace runs to the end
        collecting = racecheck.collect()
    sys.setprofile(rec.hook)
    if jumps:
        sys.settrace(rec.tracer)
    try:
        with collecting as report:
            rec.report = report
            yield rec
    finally:
        sys.setprofile(prev)
        if jumps:
            sys.settrace(prev_trace)
        _RECORDING.remove(rec)
        if patched:
            patched[0].FakeCUDALocal.array = patched[1]


@contextlib.contextmanager
def strict_global_indexing():
    """Inside: a negative index into a kernel's global array raises IndexError. Numba on the GPU wraps a negative
    (signed) index as Python does, so it silently reads the far end of that axis (below -n: memory before the
    array); in a GEMM kernel that is an index bug, which the checkers name at its line instead of a wrong answer."""
    if not device.SIMULATOR:
        yield
        return

    def check(shape, idx):
        for k in (idx if isinstance(idx, tuple) else (idx,)):
            if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k < 0:
                raise IndexError(f"전역 배열(모양 {tuple(shape)})의 음수 인덱스 {idx}: GPU 의 Numba 는 음수 인덱스를 "
                                 "파이썬처럼 감아 그 축의 끝쪽 원소를 읽고 씁니다 (-n 보다 작으면 배열 앞의 메모리) — "
                                 "대개 인덱스 계산의 실수입니다 / negative index into a global array: Numba on the GPU "
                                 "wraps it as Python does (the far end of that axis; below -n, memory before the "
                                 "array), almost always an index bug")

    class _Strict(np.ndarray):
        """The numpy array under a GlobalArray: indexing it checks for negative indexes. The check lives here, not in
        a wrapper around GlobalArray.__getitem__, so the frame the race detector reads as 'the line that touched
        the array' stays the kernel's line (a wrapper frame would be shown as a helper `getitem` in probe.py)."""

        def __getitem__(self, idx):
            check(self.shape, idx)
            v = np.ndarray.__getitem__(self, idx)
            return v.view(np.ndarray) if isinstance(v, np.ndarray) else v

        def __setitem__(self, idx, val):
            check(self.shape, idx)
            np.ndarray.__setitem__(self, idx, val)

    init = memory.GlobalArray.__init__

    def strict_init(self, item, name, _init=init):
        _init(self, item, name)
        if type(self.__dict__["_a"]) is np.ndarray:
            self.__dict__["_a"] = self.__dict__["_a"].view(_Strict)

    # FakeCUDAArray (the race detector off): no site is read there, so a plain wrapper is fine
    get, put = da.FakeCUDAArray.__getitem__, da.FakeCUDAArray.__setitem__

    def getitem(self, idx, _get=get):
        check(self._ary.shape, idx)
        return _get(self, idx)

    def setitem(self, idx, val, _put=put):
        check(self._ary.shape, idx)
        return _put(self, idx, val)
    da.FakeCUDAArray.__getitem__, da.FakeCUDAArray.__setitem__ = getitem, setitem
    memory.GlobalArray.__init__ = strict_init
    try:
        yield
    finally:
        da.FakeCUDAArray.__getitem__, da.FakeCUDAArray.__setitem__ = get, put
        memory.GlobalArray.__init__ = init


def watching(**kw):
    """recording(**kw) on the simulator; on a GPU nothing to watch (the simulator subprocess already did), so a
    Recording that stays empty."""
    return recording(**kw) if device.SIMULATOR else contextlib.nullcontext(Recording())


def model_file(module):
    """The source file of a module (for recording(model_files=...))."""
    return os.path.abspath(module.__file__)


def _frame_of(e, func):
    """(site, integer locals) of the event's frame in function `func` (the event's own or a caller's), or None."""
    for f, site, loc in e.frames or ((e.func, e.site, e.locals),):
        if f == func:
            return site, loc
    return None


def _stretch(vals):
    """(start, end) indexes into vals (a variable's values, consecutive repeats removed) of the longest run whose steps
    are one and the same positive number (a loop's counter: `range` with any start, stop and step, or a `while` loop's
    `+= step`), or None."""
    best, i = None, 0
    while i < len(vals) - 1:
        step, j = vals[i + 1] - vals[i], i + 1
        if step <= 0:
            i += 1
            continue
        while j + 1 < len(vals) and vals[j + 1] - vals[j] == step:
            j += 1
        if best is None or j - i > best[1] - best[0]:
            best = (i, j)
        i = j
    return best


def _counters(events, min_iters):
    """(func, name, first, last, depth, values) of every integer local of a student's function whose values count up
    in equal steps through at least min_iters values: first/last are the indexes of the first event that sees the
    first value of that run and of the last event that still sees its last value (its span); depth 0 is the
    outermost function."""
    out = []
    funcs = list(dict.fromkeys(f for e in events for f, _, _ in reversed(e.frames or ((e.func, e.site, e.locals),))
                               if f))                                  # outermost (first seen) first
    for depth, func in enumerate(funcs):
        at = [_frame_of(e, func) for e in events]
        for name in sorted({n for fr in at if fr is not None for n in fr[1]}):
            vals, where = [], []                                       # values without repeats, with their events
            for i, fr in enumerate(at):
                if fr is None or name not in fr[1]:
                    continue
                if not vals or vals[-1] != fr[1][name]:
                    vals.append(fr[1][name])
                    where.append([i, i])
                else:
                    where[-1][1] = i
            run = _stretch(vals)
            if run is not None and run[1] - run[0] + 1 >= min_iters:
                out.append((func, name, where[run[0]][0], where[run[1]][1], depth, vals[run[0]:run[1] + 1]))
    return out


def loop_iterations(events, min_iters=2):
    """Split one thread's events into (before, [(kt, events) ...], after) by the thread's main loop, found by what the
    thread did, never by the loop's source text; kt is the iteration's place (0, 1, 2, ...), whatever the loop counts.

    The main loop is the one whose counter spans most of the run: an integer local of a student's function that counts
    up in equal steps (`for kt in range(...)` with any start, stop and step, `for k0 in range(T8, K, T8)`, a `while`
    loop's `kt += 1`). An event seen from a deeper function (a helper the loop calls, at any depth) belongs to the
    iteration of the loop's frame that called it: each event carries every student frame on its stack. The
    iterations are then set by that frame's backward jumps (recording(jumps=True)): an iteration runs from one return
    to the loop's head to the next, wherever the counter changes (a `while` loop may count up in the middle of its
    body), an iteration that did nothing still counts (`continue`), and what runs after the last return to the head
    (the exit) is the code after the loop, also when it reuses the counter (`kt = n_tiles - 1`). Without jumps the
    counter's changes cut the iterations. Either way the events on lines above every line of the later iterations are
    code before the loop (a prologue that already set the counter's first value), those below every line of the
    earlier ones code after it, and so is everything after the loop's function returned (a loop inside a helper).
    No counter: (events without the jumps, [], [])."""
    plain = [i for i, e in enumerate(events) if e.kind != "jump"]
    found = _counters([events[i] for i in plain], min_iters)
    if not found:
        return [events[i] for i in plain], [], []
    func, name, first, _, _, run = max(found, key=lambda c: (c[3] - c[2], -c[4], -c[2]))
    first = plain[first]
    at = [_frame_of(e, func) for e in events]
    line = lambda i: at[i][0][1] if at[i] is not None and at[i][0] else None          # noqa: E731
    last = max(i for i in plain if at[i] is not None)                  # the loop's function returns after this
    jumps = [i for i in range(first, last + 1) if events[i].kind == "jump" and events[i].frames
             and events[i].frames[0][0] == func]
    groups = []
    if jumps:
        head = min(line(i) for i in jumps)                             # the loop's head: the highest line jumped to
        starts = [i for i in jumps if line(i) == head]
        start0 = starts[0]                     # iteration 0: the events just before the first jump, on lines below the
        while start0 > 0 and (events[start0 - 1].kind == "jump" or     # head (a prologue's lines are above it)
                              (line(start0 - 1) is not None and line(start0 - 1) > head)):
            start0 -= 1
        bounds = [start0] + starts
        keep = set(plain)
        groups = [[i for i in range(x, y) if i in keep] for x, y in zip(bounds, bounds[1:])]
        tail = [i for i in range(starts[-1], last + 1) if i in keep]   # after the last return to the head: the exit
        body = [line(i) for g in groups for i in g if line(i) is not None]
        inside = [k for k, i in enumerate(tail) if line(i) is not None and body and line(i) <= max(body)]
        if inside:                                     # the loop left by a break: its last iteration ran after the head
            groups.append(tail[:inside[-1] + 1])
            tail = tail[inside[-1] + 1:]
        before, after = [i for i in plain if i < start0], tail
    else:
        cur = None
        for i in plain:
            if i < first or i > last:
                continue
            v = at[i][1].get(name) if at[i] is not None else None
            if v in run and v != cur and (cur is None or run.index(v) > run.index(cur)):
                groups.append([])
                cur = v
            groups[-1].append(i)
        before, after = [i for i in plain if i < first], []
        if len(groups) > 1:
            later = [line(i) for g in groups[1:] for i in g if line(i) is not None]
            while groups[0] and line(groups[0][0]) is not None and line(groups[0][0]) < min(later, default=0):
                before.append(groups[0].pop(0))
            earlier = [line(i) for g in groups[:-1] for i in g if line(i) is not None]
            cut = next((k for k, i in enumerate(groups[-1]) if line(i) is not None and earlier
                        and line(i) > max(earlier)), None)
            if cut is not None:
                after, groups[-1] = groups[-1][cut:], groups[-1][:cut]
        while groups and not groups[0]:
            groups.pop(0)
        while groups and not groups[-1]:
            groups.pop()
    after += [i for i in plain if i > last]
    return ([events[i] for i in before], [(kt, [events[i] for i in g]) for kt, g in enumerate(groups)],
            [events[i] for i in after])


def line_text(site):
    """'12행 `code`' for a (file, line) site of the student's code ('' when unknown)."""
    if not site:
        return ""
    text = (linecache.getline(site[0], site[1]) or "").strip()
    return f"{site[1]}행" + (f" `{text}`" if text else "")


# ------------------------------------------------------------------------------------ plain functions: which line

@dataclass
class ValueTrace:
    """One call of a student's plain Python function, watched line by line: its result, every integer value a line of
    the student's code gave a local variable or returned from a helper of the student's own (value, site, whether the
    line is in the called function itself), the site of the outermost return, and for each helper's return in
    `produced` (by its index there) the integers the helper was handed and the line that called it (HelperCall)."""
    result: object
    produced: list
    return_site: tuple = None
    helpers: dict = field(default_factory=dict)


@dataclass
class HelperCall:
    """A helper of the student's own was called with the integer arguments `args` from `site` (in the called function
    itself when `own`)."""
    args: frozenset
    site: tuple
    own: bool


def _int_value(v):
    return _is_int(v) and not isinstance(v, bool)


def _is_loop_header(filename, lineno):
    return (linecache.getline(filename, lineno) or "").lstrip().startswith(("for ", "async for "))


def trace_values(fn, *args):
    """Call fn(*args) under a line tracer limited to the student's own code (notebook cells and their files): which
    line produced which integer (ValueTrace). Exceptions propagate; the previous tracer is restored."""
    fn = getattr(fn, "py_func", fn)
    outer = getattr(fn, "__code__", None)
    produced, state, top, entered, helpers = [], {}, [], {}, {}

    def local(frame, event, arg):
        key = id(frame)
        snap, prev = state.get(key, (None, None))
        now = {k: v for k, v in frame.f_locals.items() if _int_value(v)}
        if snap is not None and prev is not None and not _is_loop_header(frame.f_code.co_filename, prev):
            for k, v in now.items():           # (a for line only hands out the next value: not a computation)
                if k not in snap or snap[k] != v:
                    produced.append((int(v), (frame.f_code.co_filename, prev), frame.f_code is outer))
        if event == "line":
            state[key] = (now, frame.f_lineno)
        elif event == "return":
            state.pop(key, None)
            called = entered.pop(key, None)
            site = (frame.f_code.co_filename, frame.f_lineno)
            if frame.f_code is outer and not top:
                top.append(site)
            elif _int_value(arg):
                produced.append((int(arg), site, False))   # a helper of the student's own returned it here
                if called is not None:
                    helpers[len(produced) - 1] = called
        return local

    def glob(frame, event, arg):
        if event == "call" and is_user_file(frame.f_code.co_filename):
            back = frame.f_back
            if frame.f_code is not outer and back is not None and is_user_file(back.f_code.co_filename):
                entered[id(frame)] = HelperCall(frozenset(int(v) for v in frame.f_locals.values() if _int_value(v)),
                                                (back.f_code.co_filename, back.f_lineno), back.f_code is outer)
            return local
        return None

    prev = sys.gettrace()
    sys.settrace(glob)
    try:
        result = fn(*args)
    finally:
        sys.settrace(prev)
    return ValueTrace(result, produced, top[0] if top else None, helpers)


def _value_sites(tr, values, follow):
    """{(site, own)} of the lines that gave one of `values` in one traced call. follow: a helper that was handed one
    of the values and returned one of them made nothing; the line that made it is the one that computed the argument:
    an earlier line (already among the sites) or, when none did, the line that called the helper (the argument was
    written in the call, e.g. `enc(addr + kk * 32)` with a right `enc`)."""
    out = set()
    for n, (v, site, own) in enumerate(tr.produced):
        if v not in values:
            continue
        called = tr.helpers.get(n) if follow else None
        handed = called.args & values if called is not None else set()
        if not handed:
            out.add((site, own))
        elif not any(u in handed for u, _, _ in tr.produced[:n]) and called.site is not None:
            out.add((called.site, called.own))
    return out


def value_site(fn, calls, wanted, limit=8):
    """'12행 `code`': the student's line that produced the wrong value in every one of the calls (up to `limit`):
    wanted(args, result) -> the set of integers that count as that value (e.g. a field in bytes and encoded; an empty
    set: nothing to look for in that call). A helper of the student's own that was handed the wrong value only passed
    it on: the line that computed its argument is blamed, not the (right) helper (_value_sites); when no line is found
    that way in every call, the helper's own lines count as well. Several lines did: of those in the called function
    itself (a helper's return only passes the value on), the last one to give it. None: the line of the return (''
    when the function cannot be traced)."""
    traced, ret = [], None
    try:
        for args in list(calls)[:limit]:
            tr = trace_values(fn, *args)
            ret = ret or tr.return_site
            values = wanted(args, tr.result)
            if values:                   # (an empty set: nothing to look for in this call; the value is right there)
                traced.append((tr, values))
    except Exception:                    # noqa: BLE001  (watching must never change the verdict)
        return ""
    for follow in (True, False):
        sites = None
        for tr, values in traced:
            here = _value_sites(tr, values, follow)
            sites = here if sites is None else sites & here
        if sites or not follow:
            break
    order = {}
    if traced:                           # the order in which the first call's lines gave the value
        tr, values = traced[0]
        for n, (v, site, own) in enumerate(tr.produced):
            if v in values:
                order.setdefault(site, n)
                called = tr.helpers.get(n)
                if called is not None and called.site is not None:
                    order.setdefault(called.site, n)
    every = {site for site, _ in sites or ()}
    own = {site for site, o in sites or () if o}
    if len(every) == 1:
        return line_text(next(iter(every)))
    if own:                              # lines of the function itself (a helper's return only passed it on): the
        return line_text(max(own, key=lambda site: order.get(site, -1)))      # last one to give the value
    return line_text(ret)


def caller_site():
    """(file, line) of the innermost frame of the student's code on the current stack (None outside it)."""
    f = sys._getframe(1)
    while f is not None and not is_user_file(f.f_code.co_filename):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else None
