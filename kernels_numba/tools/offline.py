"""Compile registered kernels for any target without a GPU: PTX (NVVM), cubin (nvJitLink), SASS (cuobjdump).

ARCHS (sm_80, sm_90) are the targets every lesson's SASS claim is checked on; TARGETS adds the GPUs students have
(sm_75 T4, sm_86 RTX 30xx, sm_89 RTX 40xx / L4, sm_120 RTX 50xx). target_row() describes one (kernel, target): what
compiled, its resources, or why the kernel cannot exist there (REQUIREMENTS: the PTX instruction and its target).

Runs in a subprocess with SGEMM_DEVICE=offline, so it works the same in simulator and GPU mode.
Results are cached on disk, one file per (kernel, cc, sources, toolchain), shared by every process (pytest workers,
notebook kernels): in $SGEMM_OFFLINE_CACHE if set (the test suite sets a fresh folder per run; empty or "off": no cache),
else in the user's cache folder ($XDG_CACHE_HOME or ~/.cache, sgemm-course/offline), so a notebook run again is instant.
What is not cached compiles in one long-lived worker process (started on first use), so a compile costs the compile,
not a Python and Numba start-up.
"""
import atexit
import contextlib
import functools
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
import importlib.metadata
import shutil

from ..infra import jitcache
from numba import cuda
from sim import occupancy as occ
from .. import registry
from filelock import FileLock, Timeout
from ..registry import module_of

SIG = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)"
ARCHS = ((8, 0), (9, 0))
# T4 (7.5), A100 (8.0), RTX 30xx (8.6), RTX 40xx and L4 (8.9), H100/H200 (9.0), RTX 50xx (12.0)
TARGETS = ((7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (12, 0))


class OfflineCompileError(RuntimeError):
    """The offline toolchain failed or is missing."""


def _tool(name):
    """Path of a CUDA binary shipped by the nvidia-cuda-* wheels (or on PATH)."""
    try:
        # local: the CUDA toolchain wheels: only on the offline compile path
        import nvidia
        for root in nvidia.__path__:
            hits = glob.glob(os.path.join(root, "**", "bin", name), recursive=True)
            if hits:
                return hits[0]
    except ImportError:
        pass
    found = shutil.which(name)
    if not found:
        raise OfflineCompileError(f"{name} 를 찾을 수 없습니다 / {name} not found: pip install nvidia-cuda-{name}")
    return found


def arch_name(cc):
    """'sm_90' for (9, 0), 'sm_90a' for (9, 0, 'a') (the arch-specific target of wgmma, setmaxnreg)."""
    return f"sm_{cc[0]}{cc[1]}{cc[2] if len(cc) > 2 else ''}"


def ptx_to_cubin(ptx, cc, with_log=False):
    """Assemble PTX to a cubin for sm_<cc> with nvJitLink (Numba's NVVM emits a PTX version the system ptxas may not
    know); cc may carry the arch-specific suffix, (9, 0, 'a'). with_log: (cubin, ptxas's info log) — its warnings
    (e.g. C7515, wgmma serialized; C7517, a wgmma.wait_group injected) are performance facts."""
    # local: the CUDA driver/toolchain bindings: only on a GPU or the offline compile path
    from cuda.bindings import nvjitlink
    arch = f"-arch={arch_name(cc)}"
    h = nvjitlink.create(2, [arch, "-O3"])
    try:
        data = ptx.encode()
        try:
            nvjitlink.add_data(h, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
            nvjitlink.complete(h)
        except Exception as e:
            size = nvjitlink.get_error_log_size(h)
            log = bytearray(size)
            nvjitlink.get_error_log(h, log)
            raise OfflineCompileError(f"nvJitLink {arch}: {e}\n{log.decode(errors='replace')}") from None
        n = nvjitlink.get_linked_cubin_size(h)
        cubin = bytearray(n)
        nvjitlink.get_linked_cubin(h, cubin)
        if not with_log:
            return bytes(cubin)
        size = nvjitlink.get_info_log_size(h)
        log = bytearray(size)
        nvjitlink.get_info_log(h, log)
        return bytes(cubin), log.decode(errors="replace").strip("\x00")
    finally:
        nvjitlink.destroy(h)


def cubin_report(cubin):
    """SASS text and resource usage (registers, shared, local, stack bytes) of a single-kernel cubin."""
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
        path = f.name
    try:
        tool = _tool("cuobjdump")
        sass = subprocess.run([tool, "-sass", path], capture_output=True, text=True, check=True).stdout
        res = subprocess.run([tool, "-res-usage", path], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)
    usage = dict(re.findall(r"(REG|STACK|SHARED|LOCAL):(\d+)", res))
    return sass, {"registers": int(usage.get("REG", 0)), "shared_bytes": int(usage.get("SHARED", 0)),
                  "local_bytes": int(usage.get("LOCAL", 0)), "stack_bytes": int(usage.get("STACK", 0))}


def sass_counts(sass):
    """Count SASS opcodes (with their width suffixes), e.g. {'FFMA': 17, 'LDS.128': 4, 'BAR.SYNC.DEFER_BLOCKING': 2}."""
    counts = {}
    for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)", sass):
        op = m.group(1)
        counts[op] = counts.get(op, 0) + 1
    return counts


def ptx_counts(ptx, ops=("fma.rn.f32", "mul.rn.f32", "add.rn.f32", "mul.f32", "add.f32", "ld.shared.f32",
                         "ld.shared.v4.f32", "st.shared.f32", "ld.global.f32", "bar.sync", "call")):
    """How often each PTX instruction text occurs (as a word) in the PTX."""
    return {op: len(re.findall(r"(?<![\w.])" + re.escape(op) + r"(?![\w.])", ptx)) for op in ops}


def _kernel_by_name(name):
    """The kernel of registered kernel `name`, else of module kernels_numba.demos.<name> (teaching demos not in the registry)."""
    return module_of(name).kernel


class _OfflineDevice:
    """Stand-in for the current GPU while compiling offline (compute capability only)."""

    def __init__(self, cc):
        self.compute_capability = tuple(cc)
        self.name = f"offline sm_{cc[0]}{cc[1]}"
        self.supports_bfloat16 = self.supports_fp8 = tuple(cc) >= (8, 0)


@contextlib.contextmanager
def offline_device(cc):
    """Make numba's current-device lookup answer a device of compute capability cc, without a GPU.

    Numba compiles a @cuda.jit(device=True) function for get_current_device().compute_capability
    (dispatcher.compile_device), which needs a driver; without one the kernel that calls it cannot compile.
    """
    # local: numba-cuda's compiler internals: only in the compile process (SGEMM_DEVICE=offline), never on the simulator
    from numba.cuda import api
    saved = api.current_context
    ctx = type("OfflineContext", (), {"device": _OfflineDevice(cc)})()
    api.current_context = lambda devnum=None: ctx
    try:
        yield ctx.device
    finally:
        api.current_context = saved


def compile_cc(module, cc):
    """The cc to compile a kernel module for on target cc: (9, 0, 'a') for an ARCH_SPECIFIC (sm_90a) module on its
    own MIN_CC, as numba-cuda does on such a GPU (codegen._ensure_cc); else cc itself."""
    cc = tuple(cc)
    if getattr(module, "ARCH_SPECIFIC", False) and cc == tuple(getattr(module, "MIN_CC", ()))[:2]:
        return (*cc, "a")
    return cc


def _compile_here(name, cc):
    return _compile_here_many(name, [cc])[0]


def _ptx_per_target(kernel, sig, ccs, bounds):
    """{cc: PTX} of `kernel` for every compile cc of `ccs` from ONE pass of Numba's front end (typing and lowering to
    LLVM IR: about 90 % of an offline compile, e.g. async_vec 15 of 16.6 s). Only NVVM runs per target; Numba's
    lowering reads the target only below CC 6.0 (float64 atomics, some math), which no offline target is (ARCHS,
    TARGETS >= 7.5), so the IR is the one a compile for each target makes (tests/test_compile.py compares the PTX).
    An older or newer numba-cuda without these internals: one numba.cuda.compile_ptx per target."""
    try:
        # local: numba-cuda's compiler internals: only in the compile process (SGEMM_DEVICE=offline), never on the simulator
        from numba.cuda.compiler import _compile_pyfunc_with_fixup
        from numba.cuda.core.compiler_lock import global_compiler_lock
    except ImportError:
        _compile_pyfunc_with_fixup = None
    if _compile_pyfunc_with_fixup is None or len(ccs) == 1 or min(tuple(c[:2]) for c in ccs) < (6, 0):
        out = {}
        for ccc in ccs:
            with offline_device(ccc[:2]):   # device functions called by the kernel ask for the current device's cc
                out[ccc] = cuda.compile_ptx(kernel.py_func, sig, cc=ccc, launch_bounds=bounds)[0]
        return out
    with offline_device(ccs[0][:2]), global_compiler_lock:
        lib, _ = _compile_pyfunc_with_fixup(kernel.py_func, sig, device=False, abi="numba", cc=ccs[0],
                                            launch_bounds=bounds)
        out = {}
        for ccc in ccs:
            codes = lib.get_asm_strs(cc=ccc)
            if len(codes) != 1:
                raise RuntimeError(f"{len(codes)} PTX files for one kernel")
            out[ccc] = codes[0]
        return out


def _compile_here_many(name, ccs):
    """[_compile_here(name, cc) for cc in ccs]: PTX (one front-end pass for all, _ptx_per_target), then ptxas and
    the SASS report per target."""
    from ..registry import module_of      # a module may name its own signature (f16 kernels: SIG)
    kernel = _kernel_by_name(name)
    # a kernel's @cuda.jit(launch_bounds=...) caps its registers on the GPU: compile offline with the same cap
    bounds = getattr(kernel, "targetoptions", {}).get("launch_bounds")
    cccs = [compile_cc(module_of(name), cc) for cc in ccs]
    ptxs = _ptx_per_target(kernel, getattr(module_of(name), "SIG", SIG), cccs, bounds)
    return [_entry(name, cc, ccc, ptxs[ccc], bounds) for cc, ccc in zip(ccs, cccs)]


def _entry(name, cc, ccc, ptx, bounds):
    """One cache entry: the PTX of `name` for compile cc `ccc` (cc with its arch suffix), assembled by ptxas, with its
    SASS and resources; or the PTX and ptxas's words where the target lacks one of its instructions."""
    out = {"name": name, "cc": list(cc), "ptx": ptx, "launch_bounds": list(bounds) if bounds else None}
    if len(ccc) > 2:
        out["arch"] = arch_name(ccc)
    try:
        cubin, log = ptx_to_cubin(ptx, ccc, with_log=True)
    except OfflineCompileError as e:         # the target lacks an instruction: keep the PTX and ptxas's words
        return {**out, "error": str(e)}
    sass, usage = cubin_report(cubin)
    if len(ccc) > 2:
        out["ptxas_log"] = log               # sm_90a: ptxas says here when it serialised wgmma (C7515) or added waits
    return {**out, "sass": sass, "usage": usage}


# NVVM options of an offline compile (numba.cuda.compile_ptx's defaults, _ptx_per_target): a GPU compile with the same
# ones lowered the same IR, so its library can give the offline entries (entries_from_jit)
_OFFLINE_NVVM = {"fastmath": False, "opt": 3}
_LOWERING_OPTIONS = ("debug", "lineinfo", "fastmath", "max_registers", "forceinline", "extensions")   # not lto: it
#                                                 changes how the GPU binary is linked, not the IR nor its PTX


def same_lowering(name):
    """True if the JIT compile of registered kernel `name` lowers the IR an offline compile lowers (no debug, lineinfo,
    fastmath or other lowering option on the kernel): entries_from_jit can then stand in for the offline compile."""
    options = getattr(_kernel_by_name(name), "targetoptions", {})
    return not any(options.get(k) for k in _LOWERING_OPTIONS) and options.get("opt", True) is not False


@contextlib.contextmanager
def entries_from_jit(name):
    """On a GPU, around the JIT compile of registered kernel `name` (warmup): `with entries_from_jit(name) as write:
    compile; write(kernel.library)` writes the kernel's offline entries for ARCHS from that compile's own LLVM IR
    (NVVM per target, then ptxas) instead of a second front-end pass in an offline process (about half of a first
    run's compile work). The entries' locks are held from the start, so a cell asking for one meanwhile waits for
    this compile rather than starting its own; an entry on disk or locked by another process is left alone. write()
    does nothing unless the JIT used the offline compile's NVVM options (the same IR), and returns the ccs written."""
    folder = cache_folder()
    held = []
    for cc in ARCHS if folder else ():
        path = _cache_path(folder, name, cc)
        lock = FileLock(path + ".lock", timeout=0)
        try:
            lock.acquire()
        except (Timeout, OSError):
            continue                                 # another process compiles it: its entry will land
        if os.path.exists(path):
            lock.release()
        else:
            held.append((cc, path, lock))

    def write(library):
        opts = {k: v for k, v in getattr(library, "_nvvm_options", {}).items() if k != "arch"}
        if opts != _OFFLINE_NVVM or not same_lowering(name):
            return []
        bounds = getattr(_kernel_by_name(name), "targetoptions", {}).get("launch_bounds")
        written = []
        for cc, path, _ in held:
            t0 = time.time()
            ccc = compile_cc(module_of(name), cc)
            ptxs = library.get_asm_strs(cc=ccc)
            if len(ptxs) != 1:
                break
            with contextlib.suppress(OSError):
                _write_entry(path, _entry(name, cc, ccc, ptxs[0], bounds))
                written.append(cc)
            jitcache.log("offline-from-jit", f"{name}@sm_{cc[0]}{cc[1]}", t0)
        return written
    try:
        yield write
    finally:
        for _, _, lock in held:
            lock.release()


CACHE_ENV = "SGEMM_OFFLINE_CACHE"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SOURCES = ("kernels_numba", "sim")         # what a compile subprocess imports from this checkout


@functools.lru_cache(maxsize=None)
def _toolchain_key():
    """Hash of everything a compile depends on: kernels_numba's and sim's sources and PTX, the compiler packages,
    NUMBA_* settings."""
    h = hashlib.sha256(sys.version.encode())
    for top in _SOURCES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(_ROOT, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")     # os.walk visits in this order
            for fn in sorted(filenames):
                if fn.endswith((".py", ".ptx")):
                    path = os.path.join(dirpath, fn)
                    h.update(os.path.relpath(path, _ROOT).encode() + b"\0")
                    with open(path, "rb") as f:
                        h.update(hashlib.sha256(f.read()).digest())
    dists = sorted({(d.metadata["Name"] or "").lower(): d.version for d in importlib.metadata.distributions()
                    if (d.metadata["Name"] or "").lower().startswith(("numba", "llvmlite", "nvidia-", "cuda-"))}.items())
    h.update(repr(dists).encode())
    h.update(repr(sorted((k, v) for k, v in os.environ.items()
                         if k.startswith("NUMBA_") and k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_CACHE_DIR"))).encode())
    return h.hexdigest()


def cache_folder():
    """The folder of the offline compile cache, or None for no cache ($SGEMM_OFFLINE_CACHE empty or "off")."""
    folder = os.environ.get(CACHE_ENV)
    if folder is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return os.path.join(base, "sgemm-course", "offline")
    return None if folder.strip().lower() in ("", "off", "0", "none") else folder


def _cache_path(folder, name, cc):
    key = hashlib.sha256(f"{name}|{tuple(cc)}|{_toolchain_key()}".encode()).hexdigest()[:32]
    return os.path.join(folder, f"{name}-sm_{cc[0]}{cc[1]}-{key}.json")


def _cached(name, cc, compile_fn):
    """compile_fn() through the $SGEMM_OFFLINE_CACHE folder (one file per kernel, cc and toolchain); uncached if unset or unusable."""
    folder = cache_folder()
    if not folder:
        return compile_fn()
    path = _cache_path(folder, name, cc)
    t_wait = time.time()
    try:
        os.makedirs(folder, exist_ok=True)
        lock = FileLock(path + ".lock")
        lock.acquire()
    except OSError:
        return compile_fn()                  # a read-only or missing place: compile as if there were no cache
    if time.time() - t_wait > 0.05:
        jitcache.log("wait-offline", f"{name}@sm_{cc[0]}{cc[1]}", t_wait)
    try:                                     # the lock: another process compiling the same kernel finishes first
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            pass
        t0 = time.time()
        result = compile_fn()
        jitcache.log("offline", f"{name}@sm_{cc[0]}{cc[1]}", t0)
        with contextlib.suppress(OSError):
            _write_entry(path, result)
        return result
    finally:
        lock.release()


def _write_entry(path, result):
    """Write a cache entry whole or not at all (a reader never sees half a file): a temporary file, then a rename."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f)
    os.replace(tmp, path)


@functools.lru_cache(maxsize=None)
def try_compile(name, cc=(8, 0)):
    """Compile kernel `name` for cc without a GPU: dict with ptx, sass, usage; or with ptx and 'error' (ptxas's log)
    where the target lacks one of its instructions."""
    return _cached(name, tuple(cc), lambda: _compile_subprocess(name, cc))


def compile_kernel(name, cc=(8, 0)):
    """Compile kernel `name` (registered, or a module kernels_numba.demos.<name> with `kernel`) for cc without a GPU; dict with ptx, sass, usage."""
    r = try_compile(name, tuple(cc))
    if "error" in r:
        raise OfflineCompileError(f"{name} sm_{cc[0]}{cc[1]} 컴파일 실패 / compile failed:\n{r['error']}")
    return r


def try_compile_many(pairs):
    """try_compile for many (name, cc) pairs; those not cached yet compile in one subprocess (one Python start-up)."""
    pairs = [(n, tuple(cc)) for n, cc in pairs]
    folder = cache_folder()
    todo = [p for p in pairs if not (folder and os.path.exists(_cache_path(folder, *p)))]
    first = {}
    for n, _ in todo:
        first.setdefault(n, len(first))
    todo.sort(key=lambda p: first[p[0]])     # a kernel's targets side by side: one front-end pass for them
    done = {}
    if len(todo) > 1:
        for (n, cc), r in zip(todo, _compile_subprocess_many(todo)):
            done[(n, cc)] = _cached(n, cc, lambda r=r: r)     # into the cache (an entry written meanwhile wins)
    return {p: done[p] if p in done else try_compile(*p) for p in pairs}


def _compile_pairs(pairs):
    """[_compile_here(n, cc) for n, cc in pairs], each run of consecutive pairs of one kernel compiled from one
    front-end pass (_compile_here_many): what the worker process answers."""
    out, i = [], 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        out += _compile_here_many(pairs[i][0], [tuple(cc) for _, cc in pairs[i:j]])
        i = j
    return out


def _store(name, cc, result):
    """Put a result compiled alongside another into the disk cache, unless it is there already or another process
    holds its lock (that process is compiling it: its own result will land)."""
    folder = cache_folder()
    if not folder:
        return
    path = _cache_path(folder, name, cc)
    try:
        with FileLock(path + ".lock", timeout=0):
            if not os.path.exists(path):
                _write_entry(path, result)
    except (Timeout, OSError):
        pass


def _compile_with_siblings(worker, name, cc):
    """Compile (name, cc) on `worker` together with the other ARCHS targets of that kernel the disk cache lacks: one
    front-end pass serves them all (_ptx_per_target), and a lesson or test asking for sm_80 asks for sm_90 soon after.
    The siblings go into the cache; returns the result for cc."""
    folder = cache_folder()
    extra = [a for a in ARCHS if tuple(a) != tuple(cc) and folder
             and not os.path.exists(_cache_path(folder, name, a))] if tuple(cc) in ARCHS else []
    results = worker.compile([(name, tuple(cc)), *[(name, tuple(a)) for a in extra]])
    for a, r in zip(extra, results[1:]):
        _store(name, a, r)
    return results[0]


class _Worker:
    """One long-lived compile process (SGEMM_DEVICE=offline) answering one JSON line per request on stdin/stdout."""

    CODE = ("import json, os, sys, traceback\n"
            "out = os.fdopen(os.dup(1), 'w'); os.dup2(2, 1)   # compilers' prints must not mix with the answers\n"
            "from kernels_numba.tools import offline\n"
            "for line in sys.stdin:\n"
            "    try:\n"
            "        ans = offline._compile_pairs(json.loads(line))\n"
            "    except Exception:\n"
            "        ans = {'failed': traceback.format_exc()[-3000:]}\n"
            "    out.write(json.dumps(ans) + '\\n'); out.flush()\n")

    def __init__(self):
        self.proc = None
        self.closed = False                      # set at interpreter exit: never start a worker after that
        self.lock = threading.Lock()

    def _start(self):
        env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0")
        env["PYTHONPATH"] = _ROOT + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([sys.executable, "-c", self.CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env, cwd=_ROOT)

    def compile(self, pairs):
        """[_compile_here(n, cc) for n, cc in pairs], computed in the worker (started, or restarted once, as needed)."""
        request = json.dumps([[n, list(cc)] for n, cc in pairs]) + "\n"
        with self.lock:
            for attempt in (1, 2):
                if self.closed:
                    raise OfflineCompileError("Python 이 끝나는 중이라 컴파일하지 않습니다 / exiting: no compile")
                if self.proc is None or self.proc.poll() is not None:
                    self._start()
                try:
                    self.proc.stdin.write(request)
                    self.proc.stdin.flush()
                    line = self.proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    line = ""
                if line:
                    break
                self.stop()                      # the worker died (e.g. out of memory): one fresh start, then give up
            if not line:
                raise OfflineCompileError(f"{pairs} 컴파일 작업 프로세스가 멈췄습니다 / the compile worker died")
        ans = json.loads(line)
        if isinstance(ans, dict):
            names = ", ".join(f"{n} sm_{cc[0]}{cc[1]}" for n, cc in pairs)
            raise OfflineCompileError(f"{names} 컴파일 실패 / compile failed:\n{ans['failed']}")
        return ans

    def stop(self):
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None


def _close_worker():
    for w in [_WORKER, *_PREFETCHERS]:
        w.closed = True
        w.stop()


_WORKER = _Worker()
_PREFETCHERS = []                    # background workers of prefetch(): never the one the cells' compiles use
atexit.register(_close_worker)


def prefetch(pairs):
    """Compile (name, cc) pairs into the disk cache in a worker process of its own, one pair at a time, in order.

    Each compile holds that cache entry's file lock, so a cell asking for the same pair meanwhile waits for this
    compile rather than repeating it, and a cell asking for another pair goes to the cells' own worker at once (a
    batch on the shared worker would hold every cell's compile until the whole batch was done: 114 s and 182 s first
    cells on the H100 host). Without a disk cache there is nothing to fill: returns at once."""
    if not cache_folder():
        return
    w = _Worker()
    _PREFETCHERS.append(w)
    try:
        for n, cc in pairs:
            if w.closed:
                return
            if os.path.exists(_cache_path(cache_folder(), n, tuple(cc))):
                continue
            try:
                _cached(n, tuple(cc), lambda n=n, cc=cc: _compile_with_siblings(w, n, cc))
            except OfflineCompileError:
                pass                          # the cell that needs it compiles it and shows the error there
    finally:
        w.stop()
        _PREFETCHERS.remove(w)


def _compile_subprocess(name, cc):
    return _compile_with_siblings(_WORKER, name, cc)


def _compile_subprocess_many(pairs):
    return _WORKER.compile(pairs)


# ------------------------------------------------------------------------------------------ targets
@dataclass(frozen=True)
class Requirement:
    """A PTX instruction of the course's intrinsic layer that not every target has (PTX ISA, the instruction's
    "PTX ISA Notes" / "Target ISA Notes"); checked against ptxas by tests/test_targets.py with `example`."""
    name: str                  # as the lessons name it
    pattern: str               # regex on the instruction text in a kernel's PTX
    min_cc: tuple              # oldest target that has it
    ptx_isa: str               # PTX ISA version that introduced it
    sass: str                  # the SASS opcode it becomes (what the lesson shows)
    example: str               # one instruction of the family, for the ptxas check
    example_regs: tuple = ()   # its registers: ((type, name), ...)
    arch_specific: bool = False    # exists on exactly min_cc, with the 'a' target (sm_90a: wgmma), no later target
    advisory: bool = False     # assembles on every target >= min_cc, but ptxas warns 'Advisory: ... should be used
                               # on .target sm_90a ...' there (not on the 'a' target): .multicast::cluster

    @property
    def target(self):
        """'sm_80', or 'sm_90a' for an arch-specific instruction."""
        return f"sm_{self.min_cc[0]}{self.min_cc[1]}{'a' if self.arch_specific else ''}"

    def available(self, cc):
        """True where the instruction exists: cc >= min_cc, and exactly min_cc if it is arch-specific."""
        cc = tuple(cc)[:2]
        return cc >= self.min_cc and (not self.arch_specific or cc == self.min_cc)

    def check_cc(self, cc):
        """The cc to ask ptxas with on target cc: (9, 0, 'a') for an arch-specific instruction on its own target."""
        cc = tuple(cc)[:2]
        return (*cc, "a") if self.arch_specific and cc == self.min_cc else cc

    @property
    def why(self):
        return f"{self.name} requires {self.target} (PTX ISA {self.ptx_isa})"


_F4 = (("f32", "d0"), ("f32", "d1"), ("f32", "d2"), ("f32", "d3"))
REQUIREMENTS = (
    Requirement("cp.async", r"cp\.async\.c[ag]\.shared\.global", (8, 0), "7.0", "LDGSTS",
                "cp.async.cg.shared.global [dst], [src], 16;", (("u32", "dst"), ("u64", "src"))),
    Requirement("cp.async.commit_group", r"cp\.async\.commit_group", (8, 0), "7.0", "LDGDEPBAR",
                "cp.async.commit_group;"),
    Requirement("cp.async.wait_group", r"cp\.async\.wait_(?:group|all)", (8, 0), "7.0", "DEPBAR",
                "cp.async.wait_group 0;"),
    Requirement("ldmatrix", r"ldmatrix\.sync\.aligned\.m8n8", (7, 5), "6.5", "LDSM",
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0, r1, r2, r3}, [addr];",
                (("b32", "r0"), ("b32", "r1"), ("b32", "r2"), ("b32", "r3"), ("u64", "addr"))),
    Requirement("mma.m16n8k16 (f16)", r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f(?:16|32)\.f16\.f16", (8, 0), "7.0",
                "HMMA", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0, d1, d2, d3}, {a0, a1, a2, a3}, "
                        "{b0, b1}, {d0, d1, d2, d3};",
                _F4 + tuple(("b32", n) for n in ("a0", "a1", "a2", "a3", "b0", "b1"))),
    Requirement("mma.m16n8k8 (f16)", r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f(?:16|32)\.f16\.f16", (7, 5), "6.5",
                "HMMA", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {d0, d1, d2, d3}, {a0, a1}, {b0}, "
                        "{d0, d1, d2, d3};", _F4 + tuple(("b32", n) for n in ("a0", "a1", "b0"))),
    # Hopper (notebook 11, level 7)
    Requirement("mbarrier", r"mbarrier\.(?:init|arrive)\.shared", (8, 0), "7.8", "SYNCS",
                "mbarrier.init.shared::cta.b64 [bar], count;", (("u32", "bar"), ("u32", "count"))),
    Requirement("mbarrier.try_wait/expect_tx", r"mbarrier\.(?:try_wait|arrive\.expect_tx)", (9, 0), "7.8", "SYNCS",
                "mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity;",
                (("pred", "p"), ("u32", "bar"), ("u32", "parity"))),
    Requirement("cp.async.bulk.tensor", r"cp\.async\.bulk\.tensor", (9, 0), "8.0", "UTMALDG",
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [tmap, {c0, c1}], "
                "[bar];", (("u32", "dst"), ("u64", "tmap"), ("s32", "c0"), ("s32", "c1"), ("u32", "bar"))),
    # the cluster multicast form (PTX ISA 8.0): ptxas 13 assembles it for sm_90 and sm_120 with only an advisory
    # warning that it belongs on sm_90a (tests/test_targets.py checks both, on every target)
    Requirement("cp.async.bulk.tensor .multicast::cluster", r"cp\.async\.bulk\.tensor[^;]*\.multicast::cluster", (9, 0),
                "8.0", "UTMALDG",
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dst], "
                "[tmap, {c0, c1}], [bar], mask;",
                (("u32", "dst"), ("u64", "tmap"), ("s32", "c0"), ("s32", "c1"), ("u32", "bar"), ("b16", "mask")),
                advisory=True),
    Requirement("fence.proxy.async", r"fence\.proxy\.async", (9, 0), "8.0", "FENCE", "fence.proxy.async.shared::cta;"),
    Requirement("fence.proxy.tensormap", r"fence\.proxy\.tensormap", (9, 0), "8.3", "UTMACCTL",
                "fence.proxy.tensormap::generic.acquire.sys [tmap], 128;", (("u64", "tmap"),)),
    Requirement("wgmma", r"wgmma\.", (9, 0), "8.0", "HGMMA", "wgmma.fence.sync.aligned;", arch_specific=True),
    Requirement("setmaxnreg", r"setmaxnreg\.", (9, 0), "8.0", "SETMAXNREG", "setmaxnreg.dec.sync.aligned.u32 40;",
                arch_specific=True),      # also on sm_100a/sm_120a, targets the matrix does not list
)
CHECK_PTX_VERSION = "8.7"       # the first PTX ISA version with .target sm_120: a wrapper for every target


def uses(ptx):
    """The REQUIREMENTS whose instruction occurs in the PTX text (the kernel's own PTX, not a list kept by hand)."""
    return [q for q in REQUIREMENTS if re.search(q.pattern, ptx)]


def entry_for(instruction, regs, cc):
    """A one-instruction .entry module for sm_<cc> (regs: [(type, name)]), for asking ptxas whether the target has it."""
    decl = "".join(f"    .reg .{t} {n};\n" for t, n in regs)
    return (f".version {CHECK_PTX_VERSION}\n.target {arch_name(cc)}\n.address_size 64\n\n"
            f".visible .entry check()\n{{\n{decl}    {instruction}\n    ret;\n}}\n")


def instruction_accepted(instruction, regs, cc):
    """(True, its advisory warnings) if ptxas (nvJitLink) assembles the instruction for sm_<cc>, else (False, its error
    lines); each joined with '; ' ('' if none)."""
    try:
        _, log = ptx_to_cubin(entry_for(instruction, regs, cc), cc, with_log=True)
        return True, "; ".join(ptxas_advisories(log))
    except OfflineCompileError as e:
        return False, "; ".join(ptxas_errors(str(e)))


def ptxas_advisories(log):
    """The distinct 'warning : Advisory: ...' lines of a ptxas info log (e.g. "'.multicast::cluster' modifier ... should
    be used on .target 'sm_90a/...' instead of .target 'sm_90'")."""
    seen = []
    for m in re.finditer(r"warning\s*:\s*(Advisory:.+)", log):
        if m.group(1).strip() not in seen:
            seen.append(m.group(1).strip())
    return seen


def ptxas_errors(log):
    """The distinct 'error : ...' lines of a ptxas log, in order (e.g. "Feature 'cp.async' requires .target sm_80
    or higher")."""
    seen = []
    for m in re.finditer(r"error\s*:\s*(.+)", log):
        if m.group(1).strip() not in seen:
            seen.append(m.group(1).strip())
    return seen or [log.strip().splitlines()[-1] if log.strip() else "?"]


_WIDTH = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4, "u32": 4, "s32": 4, "f32": 4,
          "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def static_shared_bytes(ptx):
    """Bytes of the .shared arrays the PTX declares (what the kernel asks for, without any reservation)."""
    total = 0
    for m in re.finditer(r"^\s*(?:\.visible\s+|\.extern\s+)?\.shared\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+[\w$]+((?:\[\d+\])+)\s*;", ptx, re.M):
        n = 1
        for d in re.findall(r"\d+", m.group(2)):
            n *= int(d)
        total += _WIDTH[m.group(1)] * n
    return total


def dynamic_shared_align(ptx):
    """The .align of the kernel's dynamic shared memory (its .extern .shared array), or None without one: ptxas places
    the static shared arrays first and rounds them up to it, so the cubin's shared size grows by that padding."""
    m = re.search(r"\.extern\s+\.shared\s+\.align\s+(\d+)", ptx)
    return int(m.group(1)) if m else None


def target_row(spec, cc, compiled=None):
    """One cell of the kernel x target matrix (a JSON-ready dict): compiles, resources, limits, SASS claims, why not."""
    r = compiled or try_compile(spec.name, tuple(cc))
    used = uses(r["ptx"])
    newest = max(used, key=lambda q: (q.min_cc, q.arch_specific), default=None)
    lacking = [q for q in used if not q.available(cc)]
    row = {"kernel": spec.name, "target": f"sm_{cc[0]}{cc[1]}", "compiles": "error" not in r,
           "uses": [q.name for q in used], "needs": newest.target if newest else None,
           "threads": spec.threads, "smem_static": static_shared_bytes(r["ptx"]), "smem_dynamic": spec.dynamic_smem,
           "launch_bounds": r.get("launch_bounds")}
    if r.get("arch"):
        row["arch"] = r["arch"]              # compiled for sm_90a
    align = dynamic_shared_align(r["ptx"])
    if align:
        row["dynamic_align"] = align
    if not row["compiles"]:
        row["why_not"] = "; ".join(q.why for q in lacking) or "?"
        row["ptxas"] = ptxas_errors(r["error"])
        return row
    u, counts = r["usage"], sass_counts(r["sass"])
    arch = occ.arch_spec(cc)
    smem = row["smem_static"] + row["smem_dynamic"]
    # a spill is local memory: ptxas puts it in the stack frame (STACK) or in local arrays (LOCAL); SASS LDL/STL
    row.update(registers=u["registers"], local_bytes=u["local_bytes"], stack_bytes=u["stack_bytes"],
               spills=bool(u["local_bytes"] + u["stack_bytes"]) or any(k.startswith(("LDL", "STL")) for k in counts),
               smem_cubin=u["shared_bytes"],
               sass={q.sass: sum(v for k, v in counts.items() if k.split(".")[0] == q.sass) for q in used})
    broken = []
    if u["registers"] > arch.max_regs_per_thread:
        broken.append(f"registers {u['registers']} > {arch.max_regs_per_thread}")
    if row["smem_static"] > arch.smem_per_block_default:
        broken.append(f"static shared {row['smem_static']} B > {arch.smem_per_block_default} B")
    if smem > arch.smem_per_block_optin:
        broken.append(f"shared {smem} B > {arch.smem_per_block_optin} B per block")
    else:
        o = occ.occupancy(arch, u["registers"], spec.threads, smem)
        row["blocks_per_sm"] = o.blocks_per_sm
        if not o.launchable:
            broken.append(f"{u['registers']} registers x {spec.threads} threads exceed the register file")
    row["fits"], row["limits_broken"] = not broken, broken
    return row


def target_matrix(specs=None, targets=TARGETS):
    """[target_row] for every (kernel, target), compiling what the cache lacks in one subprocess."""
    specs = registry.REGISTRY if specs is None else specs
    compiled = try_compile_many([(s.name, cc) for s in specs for cc in targets])
    return [target_row(s, cc, compiled[(s.name, tuple(cc))]) for s in specs for cc in targets]
