"""Compile registered kernels for sm_80/sm_90 without a GPU: PTX (NVVM), cubin (nvJitLink), SASS (cuobjdump).

Runs in a subprocess with SGEMM_DEVICE=offline, so it works the same in simulator and GPU mode.
With $SGEMM_OFFLINE_CACHE set to a folder (the test suite sets a fresh one per run), results are shared there by
every process (pytest workers, notebook kernels), so each (kernel, cc) is compiled once.
"""
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

SIG = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)"
ARCHS = ((8, 0), (9, 0))


class OfflineCompileError(RuntimeError):
    """The offline toolchain failed or is missing."""


def _tool(name):
    """Path of a CUDA binary shipped by the nvidia-cuda-* wheels (or on PATH)."""
    import shutil
    try:
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


def ptx_to_cubin(ptx, cc):
    """Assemble PTX to a cubin for sm_<cc> with nvJitLink (Numba's NVVM emits a PTX version the system ptxas may not know)."""
    from cuda.bindings import nvjitlink
    arch = f"-arch=sm_{cc[0]}{cc[1]}"
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
        return bytes(cubin)
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
    from ..registry import module_of
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
    from numba.cuda import api
    saved = api.current_context
    ctx = type("OfflineContext", (), {"device": _OfflineDevice(cc)})()
    api.current_context = lambda devnum=None: ctx
    try:
        yield ctx.device
    finally:
        api.current_context = saved


def _compile_here(name, cc):
    from numba import cuda
    kernel = _kernel_by_name(name)
    # a kernel's @cuda.jit(launch_bounds=...) caps its registers on the GPU: compile offline with the same cap
    bounds = getattr(kernel, "targetoptions", {}).get("launch_bounds")
    with offline_device(cc):           # device functions called by the kernel ask for the current device's cc
        from ..registry import module_of      # a module may name its own signature (f16 kernels: SIG)
        ptx, _ = cuda.compile_ptx(kernel.py_func, getattr(module_of(name), "SIG", SIG), cc=cc, launch_bounds=bounds)
    cubin = ptx_to_cubin(ptx, cc)
    sass, usage = cubin_report(cubin)
    return {"name": name, "cc": list(cc), "ptx": ptx, "sass": sass, "usage": usage}


CACHE_ENV = "SGEMM_OFFLINE_CACHE"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SOURCES = ("kernels_numba", "sim")         # what a compile subprocess imports from this checkout


@functools.lru_cache(maxsize=None)
def _toolchain_key():
    """Hash of everything a compile depends on: kernels_numba's and sim's sources and PTX, the compiler packages,
    NUMBA_* settings."""
    import importlib.metadata
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


def _cached(name, cc, compile_fn):
    """compile_fn() through the $SGEMM_OFFLINE_CACHE folder (one file per kernel, cc and toolchain); uncached if unset or unusable."""
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return compile_fn()
    from filelock import FileLock
    key = hashlib.sha256(f"{name}|{tuple(cc)}|{_toolchain_key()}".encode()).hexdigest()[:32]
    path = os.path.join(folder, f"{name}-sm_{cc[0]}{cc[1]}-{key}.json")
    try:
        os.makedirs(folder, exist_ok=True)
        lock = FileLock(path + ".lock")
        lock.acquire()
    except OSError:
        return compile_fn()                  # a read-only or missing place: compile as if there were no cache
    try:                                     # the lock: another process compiling the same kernel finishes first
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            pass
        result = compile_fn()
        tmp = f"{path}.{os.getpid()}.tmp"
        with contextlib.suppress(OSError):
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(result, f)
            os.replace(tmp, path)
        return result
    finally:
        lock.release()


@functools.lru_cache(maxsize=None)
def compile_kernel(name, cc=(8, 0)):
    """Compile kernel `name` (registered, or a module kernels_numba.demos.<name> with `kernel`) for cc without a GPU; dict with ptx, sass, usage."""
    return _cached(name, tuple(cc), lambda: _compile_subprocess(name, cc))


def _compile_subprocess(name, cc):
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0")
    env["PYTHONPATH"] = _ROOT + os.pathsep + env.get("PYTHONPATH", "")
    code = ("import json, sys; from kernels_numba.infra import offline; "
            f"json.dump(offline._compile_here({name!r}, {tuple(cc)!r}), sys.stdout)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise OfflineCompileError(f"{name} sm_{cc[0]}{cc[1]} 컴파일 실패 / compile failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)
