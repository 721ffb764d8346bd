"""Course runtime: `import course; course.setup()` picks the device, shows the mode banner, shortens input errors."""
from course import preflight as _preflight  # noqa: F401,I001  (first: checks the install before numba is imported)
import importlib.util as _importlib_util
import inspect as _inspect
import os as _os
import subprocess as _subprocess
import sys as _sys
import threading as _threading
from pathlib import Path as _Path

import kernels_numba as _kn
from kernels_numba.tools import offline as _offline, warmup as _warmup
from kernels_numba.infra.simulator import racecheck as _racecheck
from course import chapters as _chapters, records as _records
from course.quiz import progress as _progress

RECORDED = _Path(__file__).parent / "recorded"


def setup(module=None):
    """First cell of every notebook: device banner + brief display of CourseInputError; returns device info.

    `module` ("06".."10") names the notebook; the progress banner (issue: class runs the course) reads it.
    """
    _kn.device.banner()
    _kn.errors.show_briefly_in_ipython()
    if module is not None and _kn.device.MODE == "gpu":
        _compile_ahead(module)
    if module is not None:
        text = _progress.banner(module)      # never raises, never blocks: a notice at most
        if text:
            print(text)
    return _kn.device.info()


def _compile_ahead(module):
    """On a GPU: start compiling, in other processes, the kernels this chapter launches (into the disk cache that
    kernels_numba.infra.jitcache keeps), so the cells that launch them find them ready; says so in one line."""
    try:
        ch = _chapters.get(module)
    except KeyError:
        return
    try:
        jit = set(_warmup.jit_names(ch.kernels))  # their offline entries come from the JIT's own compile
        procs = _warmup.warm(list(ch.kernels), ch.demos)
    except Exception:  # noqa: BLE001 — compiling ahead only saves time: without it each cell compiles its own kernel
        jit, procs = set(), []
    offline = [k for k in (*ch.kernels, *ch.offline) if not (procs and k in jit)]
    _offline_ahead([(k, cc) for k in offline for cc in reversed(_offline.ARCHS)])   # in the order cells use them
    _cupy_ahead()
    if procs:
        print(f"ℹ️ 이 노트북의 커널 가운데 디스크 캐시에 없는 것을 다른 프로세스 {len(procs)}개에서 미리 컴파일합니다 "
              "(다음 세션에는 바로 뜹니다) / compiling this notebook's kernels that are not cached yet, in the background.")


def _offline_ahead(pairs):
    """The offline compiles (PTX/SASS for sm_90 and sm_80, no GPU) the chapter's cells read, in background compile
    processes of their own (one per 4 CPU cores, at most 4, at least one) fed from daemon threads, in the order the
    chapter uses its kernels: a first run finds most of them done, a cell never waits behind the batch, and the disk
    cache keeps them for the next session. A kernel's targets stay in one process: one front-end pass makes them all
    (offline._compile_with_siblings); split over two processes, both would run the whole front end."""
    n = max(1, min(4, (_os.cpu_count() or 2) // 4))
    kernels = list(dict.fromkeys(k for k, _ in pairs))
    chunks = [[p for k in kernels[i::n] for p in pairs if p[0] == k] for i in range(n)]

    def run(chunk):
        try:
            _offline.prefetch(chunk)                  # a compile process of its own, one kernel at a time
        except Exception:  # noqa: BLE001 — the cell that needs it compiles it and shows any error there
            pass
    for i, chunk in enumerate(chunks):
        if chunk:
            _threading.Thread(target=run, args=(chunk,), daemon=True, name=f"sgemm-offline-ahead-{i}").start()


def _cupy_ahead():
    """CuPy compiles its own kernels (NVRTC) on first use: a background process runs the benchmark's CuPy operations
    once so that CuPy's disk cache has them when the first benchmark cell comes."""
    if _importlib_util.find_spec("cupy") is None:   # optional: only a GPU machine with CuPy has it (importing it here
        return                                       # would cost cell 0 about a second: find_spec only looks)
    _subprocess.Popen([_sys.executable, "-c", "from course import bench; bench.warm_cupy()"],
                      stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL, start_new_session=True)


def progress(path=None):
    """Your checkpoints at a glance (passed, best score, attempts) from any notebook: `course.progress()`."""
    return _progress.overview(path)


def race_report():
    """The simulator race detector's report that a message last pointed to (or the last one collected): call
    `.summary()` to see every hazard, `.hazards[i]` for one in full. Empty on a GPU (compute-sanitizer there)."""
    return _racecheck.last_report()


def recorded(name="gpu_h200_2026-11-21"):
    """A GPU measurement recorded with the device tool (<name>.json in course/recorded/ or a chapter's records/), as a records.Record."""
    return _records.load(name)


def source(obj, numbered=True):
    """Source text of a kernel (dispatcher, simulator kernel or function), with file line numbers."""
    fn = getattr(obj, "py_func", obj)
    lines, start = _inspect.getsourcelines(fn)
    if not numbered:
        return "".join(lines)
    return "".join(f"{start + i:4d}  {line}" for i, line in enumerate(lines))


def show_source(obj):
    """Print a kernel's source with line numbers (used by the code walkthroughs)."""
    print(source(obj))


def line_of(obj, needle, nth=1):
    """File line number of the nth line of obj's source containing `needle` (walkthroughs cite these)."""
    fn = getattr(obj, "py_func", obj)
    lines, start = _inspect.getsourcelines(fn)
    hits = [start + i for i, line in enumerate(lines) if needle in line]
    return hits[nth - 1]
