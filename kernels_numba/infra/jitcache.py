"""The course's kernels compiled once per GPU and toolchain, kept on disk: a second session starts without JIT.

Numba's own `cache=True` keys an entry by the kernel function's bytecode and, for a kernel made by a factory
(tc.build_tiled, mma_fast.make_kernel), by a pickle of its closure, which differs from process to process: such
kernels missed the cache every time (measured on an H100: mma_fast 5.1 s -> 4.3 s). Here every registered kernel
gets Numba's CUDA cache with two changes:
* one folder for all of them, whose entries are stamped with a hash of every source file of kernels_numba (any edit
  to a kernel, a device function or a .ptx file makes every entry stale: no wrong code from an old cache);
* the index key is the signature, Numba's codegen magic (target and compute capability), the versions of numba-cuda,
  NVVM and nvJitLink, and the kernel's configuration (its module, and CONFIG for a factory-made kernel).

SGEMM_JIT_CACHE=off turns it off; a path puts the folder there (default: the user's cache folder). The simulator
compiles nothing: there it does nothing.
"""
import functools
import hashlib
import os
import sys
import time
from pathlib import Path
import importlib.metadata as md

from . import device

ENV = "SGEMM_JIT_CACHE"
PACKAGE = Path(__file__).resolve().parents[1]


def folder():
    """The cache folder (created), or None when caching is off or not possible here."""
    raw = os.environ.get(ENV, "").strip()
    if raw.lower() in ("off", "0", "no", "false"):
        return None
    if raw:
        path = Path(raw).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.environ.get("LOCALAPPDATA", ""), "")
                                                     if sys.platform == "win32" else "~/.cache")
        path = Path(base).expanduser() / "sgemm-course" / "jit"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError:
        return None
    return path


_STAMP = []


def sources_stamp():
    """sha256 of every .py and .ptx file of kernels_numba (names and contents): the entries' freshness stamp."""
    if not _STAMP:
        h = hashlib.sha256()
        for p in sorted(PACKAGE.rglob("*")):
            if p.suffix in (".py", ".ptx") and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(PACKAGE)).encode())
                h.update(p.read_bytes())
        _STAMP.append(h.hexdigest())
    return _STAMP[0]


@functools.lru_cache(maxsize=None)
def _toolchain():
    out = []
    for dist in ("numba-cuda", "nvidia-nvvm", "nvidia-nvjitlink", "cuda-bindings"):
        try:
            out.append(f"{dist}={md.version(dist)}")
        except md.PackageNotFoundError:
            out.append(f"{dist}=?")
    return tuple(out)


def _classes():
    """The Numba cache classes with the course's folder, stamp and key (made once, on first use, in GPU mode)."""
    # local: GPU mode only: numba-cuda's real dispatcher and cache classes (the simulator has neither)
    from numba.cuda import dispatcher
    from numba.cuda.core import caching, sigutils

    where = folder()

    class Locator(caching._CacheLocator):
        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            self._sub = caching._CacheLocator.get_suitable_cache_subpath(py_file)

        def get_cache_path(self):
            return str(where / self._sub)

        def get_source_stamp(self):
            return sources_stamp()

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            return cls(py_func, py_file)

    class Impl(dispatcher.CUDACacheImpl):
        _locator_classes = [Locator]

    tools = _toolchain()

    class KeyedCache(dispatcher.CUDACache):
        _impl_class = Impl

        def __init__(self, py_func, key):
            self._course_key = key
            super().__init__(py_func)

        def _index_key(self, sig, codegen):
            # the argument types, however the signature came: warmup compiles kernel.compile(SIG) with SIG a string,
            # a launch compiles the tuple of its arguments' types. Keyed by the raw `sig` (as Numba's own cache is),
            # the string's entry never matched a launch: every notebook compiled its kernels again in-process
            # (H200, 09's live table: 105 s after the background compiles had finished)
            key = (sigutils.normalize_signature(sig)[0], codegen.magic_tuple(), tools, self._course_key)
            lc = self._launch_config_key            # Numba's launch-config-sensitive kernels: as CUDACache does
            return key if lc is None else key + (("launch_config", lc),)

    return where, KeyedCache


_CLASSES = []


def enable(kernel, key):
    """Give a Numba CUDA dispatcher the course's disk cache under `key` (its configuration); True if enabled."""
    if device.MODE != "gpu" or not hasattr(kernel, "py_func") or not hasattr(kernel, "_cache"):
        return False
    if not _CLASSES:
        _CLASSES.append(_classes())
    where, KeyedCache = _CLASSES[0]
    if where is None:
        return False
    kernel._cache = KeyedCache(kernel.py_func, key)
    return True


# ---- compiling ahead, in other processes ---------------------------------------------------------------------------
# A notebook's first cell starts processes that compile the kernels it will launch (into the folder above) while the
# student reads. Each compile holds a file lock named after the kernel's key; a launch in the notebook that comes
# first waits on that lock and then loads the finished kernel instead of compiling it a second time.

def _lock(key):
    # local: only when a GPU compile writes an entry (never on the simulator)
    from filelock import FileLock
    where = folder()
    return FileLock(str(where / f"{hashlib.sha1(key.encode()).hexdigest()[:16]}.lock"))


def key_of(kernel):
    """The course key of a dispatcher with the course's cache, else None."""
    return getattr(getattr(kernel, "_cache", None), "_course_key", None)


def _ready_path(key, sig):
    """The marker a finished compile of (key, sig) leaves for this GPU's compute capability, kernel sources and
    toolchain: a later session sees the entry is on disk without loading it (the load is the expensive part)."""
    # local: numba.cuda.core is loaded only when a marker is asked for (never on the simulator's launch path)
    from numba.cuda.core import sigutils
    cc = device.compute_capability()
    sig = sigutils.normalize_signature(sig)[0]    # as the index key: "void(float32[:, :], ...)" and a tuple agree
    h = hashlib.sha1(f"{key}|{sig}|{cc}|{sources_stamp()}|{_toolchain()}".encode()).hexdigest()[:16]
    return folder() / f"{h}.ready"


def is_ready(kernel, sig):
    """True if an earlier compile_locked of this kernel and signature finished for this GPU with these sources."""
    key = key_of(kernel)
    return key is not None and folder() is not None and _ready_path(key, sig).exists()


def compile_locked(kernel, sig):
    """kernel.compile(sig) under the kernel's file lock: loads from the disk cache when another process made it.
    Leaves the ready marker (is_ready) once the entry is on disk."""
    key = key_of(kernel)
    if key is None:
        return kernel.compile(sig)
    with _lock(key):
        out = kernel.compile(sig)
        _ready_path(key, sig).touch()
        return out


def wait_ready(kernel):
    """Before a kernel's first launch in this process: wait while another process of ours is compiling it."""
    key = key_of(kernel)
    if key is None or not _WARMING:
        return
    t0 = time.time()
    with _lock(key):
        pass
    log("wait-jit", key.replace(" ", ""), t0)


_WARMING = []          # the background processes this process started

LOG_ENV = "SGEMM_COMPILE_LOG"


def log(role, what, t0):
    """With $SGEMM_COMPILE_LOG set (benchmarks/nb_times.py): append one line `end seconds pid role what` — how long a
    compile took, or how long a cell waited for one — so a first run shows which compile each slow cell waited on."""
    path = os.environ.get(LOG_ENV)
    if path:
        t1 = time.time()
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{t1:.3f} {t1 - t0:.3f} {os.getpid()} {role} {what}\n")
