"""The one benchmark engine: the course's kernels and cuBLAS in one run, correctness first, timed the same way.

    run = bench.run(["regblock_vec", "async_wide"], sizes=(2048, 4096))      # a records.Run
    records.save(records.Record("gpu_h100_levels15", "...", (run,)))

Per size: fresh random inputs on the device, a float64 reference, and every entry (cuBLAS and each kernel) checked
against it with C poisoned by NaN (and alpha/beta once) before it is timed. Timing: every entry in every round, in a
rotated order, each a short burst then CUDA events around back-to-back calls through the course's own `launch`; the
median over rounds and its spread. Then the check that matters for Python: the host time of one call. Where it is
not well under the GPU time, the events measured Python, not the kernel: the row is then timed again from a CUDA
graph of raw dispatches (no Python between kernels), and both figures are kept. The SM clock and power are logged
(nvidia-smi, own process) and a busy GPU is detected (other processes, or a cuBLAS spread over the rounds).

Needs a GPU and CuPy (cuBLAS, random inputs); without them `available()` says why. cuBLAS is called through its own
handle with ctypes (cublasSgemm / cublasGemmEx), so it can be captured in a graph like the kernels.
"""
import argparse
import ctypes
import datetime
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path
import tempfile

import numpy as np

import kernels_numba as kn
from course import chapters, records
import numba
from numba import cuda
from kernels_numba.tools import resources
from kernels_numba.tools.offline import sass_counts
import dataclasses

ENGINE = "course.bench/1"           # a run's versions["engine"]: baselines are checked against runs of the same engine
SIZES = (1024, 2048, 4096)
ROUNDS = 5
MIN_MS = 20.0            # timed calls of one entry in one round take at least this long (3 groups)
BURST_MS = 20.0          # each timing starts with a burst of the same entry: the GPU settles at its clock
WARM_MS = 200.0          # a run starts with this much cuBLAS: the GPU leaves its idle clock (later sizes follow GPU
#                          work without a pause: the reference, the checks)
HOST_MS = 30.0           # host time per call is taken from about this much of back-to-back calls (100 at most)
HOST_AHEAD = 0.5         # host time per call over GPU time per call above which events would time Python
# relative Frobenius error against float64 of the same inputs: f32 inputs; f16 inputs (exact products, f32 sums);
# f16 output (TOL[float16]: rounding C to f16 alone gives ~3e-4, f16 accumulation more)
TOL_IN = {np.float32: 1e-5, np.float16: 1e-4}
TOL = {np.float16: 1e-2}
SGEMM = "cuBLAS SGEMM (cublasSgemm, FP32, TF32 off)"
HGEMM = "cuBLAS HGEMM (cublasGemmEx f16×f16→f32, CUBLAS_COMPUTE_32F)"
def method(rounds=ROUNDS, min_ms=MIN_MS, graphs=None, burst_every_round=True):
    """How a run of `rounds` rounds was timed, in words (a record's `method`); graphs, burst_every_round as in run()."""
    burst = (f"a {BURST_MS:g} ms burst where it is short" if burst_every_round
             else f"after every entry's {BURST_MS:g} ms probe burst, no burst in the rounds")
    if graphs:
        return (f"per size: correctness first; {rounds} rounds in rotated order, each entry ({burst}, then) timed "
                "from CUDA graphs of 20 raw dispatches replayed 5 times (median), cuBLAS too; median over rounds "
                "(host time per launch kept as its own column)")
    how = "" if graphs is None else " (never from graphs)"
    text = (f"per size: correctness first; {rounds} rounds in rotated order, each entry ({burst}, then) CUDA events "
            f"around >= {min_ms:g} ms of back-to-back calls through launch (3 groups, median); median over "
            f"rounds{how}.")
    if graphs is None:
        text += (f" Where some entry's host time per call exceeds {HOST_AHEAD:g} x its GPU time, every entry of that "
                 "size, cuBLAS too, is timed from CUDA graphs of 20 raw dispatches instead (host time per launch kept "
                 "as its own column)")
    return text


def available():
    """'' when this process can benchmark (GPU mode, CuPy importable), else why not."""
    if kn.device.MODE != "gpu":
        return "GPU 가 없습니다 (시뮬레이터) / no GPU"
    try:
        import cupy  # noqa: F401  (local: is the optional cupy installed? asked only on a GPU)
    except ImportError:
        return "cuBLAS 와 비교하려면 CuPy 가 필요합니다 (pip install \".[gpu]\") / CuPy is needed for cuBLAS"
    return ""


def warm_cupy():
    """Run once, small, every CuPy operation a benchmark uses, so that CuPy compiles its kernels (NVRTC) into its disk
    cache: a notebook's first benchmark then starts at once (python -c "from course import bench; bench.warm_cupy()",
    started in the background by course.setup on a GPU)."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    for dtype in (cp.float32, cp.float16):
        A = cp.random.default_rng(0).standard_normal((64, 64), dtype=cp.float32).astype(dtype)
        ref = A.astype(cp.float64) @ A.astype(cp.float64)
        C = cp.full((64, 64), cp.nan, cp.float32)
        C.fill(cp.nan)
        C[...] = A
        _rel_err(C, 1.5 * ref - 0.5 * C.astype(cp.float64))
        bool(cp.isfinite(C).all())
    cp.cuda.Device().synchronize()


# ---- cuBLAS through its own handle --------------------------------------------------------------------------------

class Cublas:
    """C = A @ B (row-major) by cublasSgemm (f32) or cublasGemmEx (f16 x f16 -> f32, or -> f16 where C is f16: the
    baseline of kernels with f16 output), on a stream of our choosing."""

    def __init__(self):
        # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
        import cupy as cp
        cp.cuda.device.get_cublas_handle()          # CuPy loads libcublas: ctypes finds the same library by name
        for name in ("libcublas.so.13", "libcublas.so.12", "libcublas.so", "cublas64_13.dll", "cublas64_12.dll"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        else:
            raise OSError("libcublas not found")
        self.handle = ctypes.c_void_p()
        if self.lib.cublasCreate_v2(ctypes.byref(self.handle)) != 0:
            raise RuntimeError("cublasCreate failed")
        vp, i = ctypes.c_void_p, ctypes.c_int
        self.lib.cublasSetStream_v2.argtypes = [vp, vp]
        self.lib.cublasSgemm_v2.argtypes = [vp, i, i, i, i, i, vp, vp, i, vp, i, vp, vp, i]
        self.lib.cublasGemmEx.argtypes = [vp, i, i, i, i, i, vp, vp, i, i, vp, i, i, vp, vp, i, i, i, i]
        self.one, self.zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def call(self, A, B, C, stream_ptr=0):
        """fn() computing C = A @ B on the stream `stream_ptr` (0: the legacy default stream, as Numba launches)."""
        M, K = A.shape
        N = B.shape[1]
        lib, h, one, zero = self.lib, self.handle, ctypes.addressof(self.one), ctypes.addressof(self.zero)
        a, b, c = A.data.ptr, B.data.ptr, C.data.ptr
        f16 = A.dtype == np.float16
        c_type = 2 if C.dtype == np.float16 else 0

        def fn():
            lib.cublasSetStream_v2(h, ctypes.c_void_p(stream_ptr))
            if f16:           # C^T = B^T A^T in column-major; 2 = CUDA_R_16F, 0 = CUDA_R_32F, 68 = COMPUTE_32F
                rc = lib.cublasGemmEx(h, 0, 0, N, M, K, one, b, 2, N, a, 2, K, zero, c, c_type, N, 68, -1)
            else:
                rc = lib.cublasSgemm_v2(h, 0, 0, N, M, K, one, b, N, a, K, zero, c, N)
            if rc:
                raise RuntimeError(f"cuBLAS status {rc}")
        return fn


# ---- timing --------------------------------------------------------------------------------------------------------

def events_ms(fn, min_ms=MIN_MS, groups=3, stream=None):
    """Median ms per call of back-to-back fn() over `groups` batches of >= min_ms together (CUDA events)."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    stream = stream or cp.cuda.Stream.null
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record(stream)
    fn()
    end.record(stream)
    end.synchronize()
    one = max(cp.cuda.get_elapsed_time(start, end), 1e-3)
    if one >= min_ms:                      # a slow kernel: the probe call itself is the timing (a 100 ms naive)
        return float(one)
    reps = max(1, int(min_ms / groups / one))
    out = []
    for _ in range(groups):
        start.record(stream)
        for _ in range(reps):
            fn()
        end.record(stream)
        end.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, end) / reps)
    return float(np.median(out))


def host_us(fn, n=100, first=True):
    """Host microseconds of one fn() when n calls are queued without waiting (the GPU is kept busy meanwhile).
    first=False: fn ran just before (its first-call set-up is done), so no call ahead of the timed ones."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    if first:
        fn()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    us = (time.perf_counter() - t) / n * 1e6
    cp.cuda.Device().synchronize()
    return us


def graph_ms(fn, stream, per_graph=20, replays=5):
    """GPU ms per call of fn() (which must launch on `stream`) from a CUDA graph of per_graph calls, replayed."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    fn()                                   # lazy set-up outside the capture (module load, cuBLAS workspace)
    stream.synchronize()
    stream.begin_capture()
    try:
        for _ in range(per_graph):
            fn()
    finally:
        graph = stream.end_capture()
    graph.launch(stream)
    stream.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(replays):
        start.record(stream)
        graph.launch(stream)
        end.record(stream)
        end.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, end) / per_graph)
    return float(np.median(out))


class ClockLog:
    """nvidia-smi sampling the SM clock and power every 20 ms in its own process; window(t0, t1) -> medians."""

    def __init__(self):
        self.path = tempfile.mktemp(suffix=".csv")
        self.samples = []
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                 "--format=csv,noheader,nounits", "-lms", "20"], stdout=open(self.path, "w"),
                stderr=subprocess.DEVNULL)
        except OSError:
            self.proc = None

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()
        try:
            with open(self.path) as f:
                for line in f:
                    p = [x.strip() for x in line.split(",")]
                    try:
                        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                        self.samples.append((t, float(p[1]), float(p[2]), float(p[3])))
                    except (ValueError, IndexError):
                        pass
            os.unlink(self.path)
        except OSError:
            pass

    def window(self, spans):
        inside = [s for s in self.samples if any(a <= s[0] <= b for a, b in spans)]
        if not inside:
            return {}
        return {"sm_mhz": statistics.median(s[1] for s in inside), "power_w": statistics.median(s[2] for s in inside),
                "temp_c": statistics.median(s[3] for s in inside), "samples": len(inside)}


def other_processes():
    """PIDs of other processes computing on the GPU (nvidia-smi), or [] where it cannot tell."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [int(p) for p in out.split() if p.strip().isdigit() and int(p) != os.getpid()]


def versions():
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    out = {"engine": ENGINE, "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
           "numba_cuda": __import__("numba_cuda").__version__, "cupy": cp.__version__}
    try:
        out["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
        out["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
    except Exception:  # noqa: BLE001 — versions are a courtesy
        pass
    return out


def loaded_resources(name):
    """Registers, shared/local memory and SASS opcode counts of kernel `name` as loaded on this GPU."""
    r = resources.report(name)                   # GPU mode: read from the loaded kernel
    out = {k: r[k] for k in ("registers", "shared_bytes", "local_bytes")}
    out["sass"] = {op: n for op, n in sass_counts(r["sass_text"]).items()
                   if op.split(".")[0] in ("FFMA", "FMUL", "FADD", "LDS", "STS", "LDG", "STG", "BAR", "LDL", "STL")}
    return out


def save_run(path, run, what, extra=None):
    """Write `run` into the record at `path` (one schema): a new record, or the run added to (or replacing the run of
    the same id in) an existing one; `extra` sections are merged in."""
    path = Path(path)
    try:
        old = records.load(path.stem, path.parent)
        rec = records.Record(path.stem, old.what, tuple(r for r in old.runs if r.id != run.id) + (run,),
                             {**old.extra, **(extra or {})})
    except FileNotFoundError:
        rec = records.Record(path.stem, what, (run,), dict(extra or {}))
    return records.save(rec, path.parent)


# ---- one entry: checked, then timed -------------------------------------------------------------------------------

def _rel_err(C, ref):
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    d = C.astype(cp.float64) - ref
    return float(cp.linalg.norm(d) / cp.linalg.norm(ref))


class _Entry:
    """A kernel (or cuBLAS) at one size: its course call, its raw dispatch on a capture stream, its check, C's type."""

    def __init__(self, label, call, raw_on, check, c_dtype=np.float32):
        self.label, self.call, self.raw_on, self.check, self.c_dtype = label, call, raw_on, check, c_dtype


def _kernel_entry(spec, A, B, ref, first, launch=None, variant=""):
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    launch = launch or spec.launch
    c_dtype = getattr(spec.module, "C_DTYPE", np.float32)
    C = cp.full((A.shape[0], B.shape[1]), cp.nan, c_dtype)
    dA, dB, dC = cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)    # wrapped once
    tol = TOL[c_dtype] if c_dtype == np.float16 else TOL_IN[A.dtype.type]

    def check():
        C.fill(cp.nan)
        launch(dA, dB, dC, 1.0, 0.0)
        cp.cuda.Device().synchronize()
        err = _rel_err(C, ref)
        ok = bool(cp.isfinite(C).all()) and err < tol
        if first:                       # BLAS alpha/beta once per kernel
            C0 = cp.random.default_rng(1).standard_normal(C.shape, dtype=cp.float32).astype(c_dtype)
            C[...] = C0
            launch(dA, dB, dC, 1.5, -0.5)
            cp.cuda.Device().synchronize()
            ok = ok and _rel_err(C, 1.5 * ref - 0.5 * C0.astype(cp.float64)) < tol
        return ok, err

    def raw_on(stream_ptr):
        return launch.bind(dA, dB, dC, 1.0, 0.0, stream=cuda.external_stream(stream_ptr) if stream_ptr else 0)

    return _Entry(spec.name if not variant else f"{spec.name}[{variant}]",
                  lambda: launch(dA, dB, dC, 1.0, 0.0), raw_on, check, c_dtype)


def _other_entry(label, make, A, B, ref):
    """A GEMM that is not the course's (a Triton kernel: benchmarks/triton_gemm.py) timed in the same rounds:
    make(A, B, C) -> (call(), raw_on(stream_ptr) -> fn launching on that stream) for CuPy arrays, C = A @ B in f32."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    C = cp.full((A.shape[0], B.shape[1]), cp.nan, np.float32)
    call, raw_on = make(A, B, C)
    return _Entry(label, call, raw_on, _plain_check(C, call, ref, TOL_IN[A.dtype.type]))


def _plain_check(C, call, ref, tol):
    """check() -> (ok, relative error) of one call() writing C (NaN first, so a C left unwritten fails)."""
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp

    def check():
        C.fill(cp.nan)
        call()
        cp.cuda.Device().synchronize()
        err = _rel_err(C, ref)
        return bool(cp.isfinite(C).all()) and err < tol, err
    return check


F16OUT = "cuBLAS_f16out"          # cuBLAS with f16 output: the same-output baseline of kernels that write f16


def _cublas_entry(cublas, A, B, ref, c_dtype=np.float32):
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    C = cp.full((A.shape[0], B.shape[1]), cp.nan, c_dtype)
    call = cublas.call(A, B, C)
    tol = TOL[c_dtype] if c_dtype == np.float16 else TOL_IN[A.dtype.type]
    return _Entry(F16OUT if c_dtype == np.float16 else "cuBLAS", call, lambda ptr: cublas.call(A, B, C, ptr),
                  _plain_check(C, call, ref, tol), c_dtype)


# ---- the run -------------------------------------------------------------------------------------------------------

def run(kernels=None, sizes=SIZES, rounds=ROUNDS, run_id=None, variants=None, on_row=None, log=None, clocks=True,
        min_ms=MIN_MS, graphs=None, burst_every_round=True, others=None, host_ms=HOST_MS):
    """Benchmark registered kernels (names; None: every FP32 kernel this GPU runs) against cuBLAS: a records.Run.

    All kernels of one run share one input dtype (FP32 kernels against SGEMM, f16 Tensor Core kernels against HGEMM).
    Where some kernel writes f16, cuBLAS with f16 output (F16OUT) is timed in the same rounds too: each kernel row
    then says its output type and its ratio to the cuBLAS of the same output (extra output, ratio_same_output).
    variants: {label: (registry name, launch)} of other configurations timed in the same rounds (ablations).
    others: {label: make(A, B, C) -> (call, raw_on)} of GEMMs that are not the course's (Triton where it is installed:
    benchmarks/triton_gemm.py), same inputs, same rounds, same timing method; their rows are named by the label.
    graphs: None (CUDA graphs where some entry's host time per call is not well under its GPU time), True (every size
    from CUDA graphs), False (events through launch everywhere).
    burst_every_round: a short entry gets a burst before each of its rounds (records), or none in the rounds (a live
    table: every entry's probe, a burst of BURST_MS, has just run, and the rotation keeps the GPU busy from there on).
    host_ms: host µs per call is measured over about this much of back-to-back calls (a live table: less).
    on_row(row) after each row (a progress bar); log(text) gets one line per row."""
    why = available()
    if why:
        raise RuntimeError(why)
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    log = log or (lambda *_: None)
    specs = [s for s in kn.REGISTRY if (kernels is None and s.dtype == np.float32) or (kernels and s.name in kernels)]
    specs = [s for s in specs if s.runs_here()]
    dtypes = {s.dtype for s in specs} | {kn.get(v[0]).dtype for v in (variants or {}).values()}
    if len(dtypes) > 1:
        raise ValueError(f"one run times one input dtype (SGEMM or HGEMM baseline), got {sorted(map(str, dtypes))}")
    dtype = dtypes.pop() if dtypes else np.float32
    baseline = HGEMM if dtype == np.float16 else SGEMM
    busy = other_processes()
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    cc = tuple(dev.compute_capability)
    cublas = Cublas()
    clock = ClockLog() if clocks else None
    capture = cp.cuda.Stream(non_blocking=True)
    rows, spans_of, host_of = [], {}, {}
    try:
        for si, n in enumerate(sizes):
            rng = cp.random.default_rng(1000 + n)
            A = rng.standard_normal((n, n), dtype=cp.float32).astype(dtype)
            B = rng.standard_normal((n, n), dtype=cp.float32).astype(dtype)
            ref = A.astype(cp.float64) @ B.astype(cp.float64)
            entries = [_cublas_entry(cublas, A, B, ref)]
            entries += [_kernel_entry(s, A, B, ref, si == 0) for s in specs]
            for label, (name, launch) in (variants or {}).items():
                entries.append(_kernel_entry(kn.get(name), A, B, ref, si == 0, launch, label))
            entries += [_other_entry(label, make, A, B, ref) for label, make in (others or {}).items()]
            if any(e.c_dtype == np.float16 for e in entries):
                entries.insert(1, _cublas_entry(cublas, A, B, ref, np.float16))
            checked = {e.label: e.check() for e in entries}              # correctness first (and the JIT)
            if si == 0:                     # warm the GPU once, before the first round of the run
                events_ms(entries[0].call, min_ms=WARM_MS, groups=1)
            # how this size is timed: events around back-to-back calls through launch, unless Python's host time per
            # call of some entry is not well under its GPU time (its events would time Python, not the GPU): then
            # every entry of this size, cuBLAS too, from CUDA graphs of raw dispatches, so all are timed one way
            probe = {e.label: events_ms(e.call, min_ms=BURST_MS, groups=1) for e in entries}
            # host time per call: ~host_ms of calls (3 at least; 1 for a kernel over 10 ms: its host time is no question)
            host = {e.label: host_us(e.call, n=int(min(100, max(3 if probe[e.label] < 10 else 1, host_ms / probe[e.label]))),
                                     first=False) for e in entries}
            by_graph = graphs if graphs is not None else any(host[k] / 1e3 > HOST_AHEAD * probe[k] for k in probe)
            timers = {e.label: (lambda e=e: graph_ms(e.raw_on(capture.ptr), capture)) if by_graph
                      else (lambda e=e: events_ms(e.call, min_ms=min_ms)) for e in entries}
            times = {k: [] for k in timers}
            spans = {k: [] for k in timers}
            order = list(timers)
            for r in range(rounds):
                shift = (r * len(order)) // max(rounds, 1)
                for k in order[shift:] + order[:shift]:
                    done = times[k]
                    # a short kernel: a burst first, so the GPU is at its clock (a live table: the probes above were
                    # the bursts, and the rotation keeps the GPU busy from there on)
                    if burst_every_round and (not done or done[-1] < BURST_MS):
                        events_ms(next(e for e in entries if e.label == k).call, min_ms=BURST_MS, groups=1)
                    t0 = time.time()
                    times[k].append(timers[k]())
                    spans[k].append((t0, time.time()))
            med = {k: statistics.median(v) for k, v in times.items()}
            flops = 2.0 * n ** 3
            for e in entries:
                ms = med[e.label]
                per_round = [times["cuBLAS"][i] / t for i, t in enumerate(times[e.label])]
                ok, err = checked[e.label]
                name, _, variant = e.label.partition("[")
                extra = {"rounds_ms": times[e.label], "timed_by": "graph" if by_graph else "events"}
                if F16OUT in med and not e.label.startswith("cuBLAS"):
                    f16 = e.c_dtype == np.float16
                    extra.update(output="f16" if f16 else "f32",
                                 ratio_same_output=med[F16OUT if f16 else "cuBLAS"] / ms)
                row = records.Row(kernel=name, n=n, ms=ms, tflops=flops / ms / 1e9, ratio=med["cuBLAS"] / ms,
                                  correct=ok, variant=variant.rstrip("]"), rel_err=err,
                                  spread=(min(per_round), max(per_round)) if e.label != "cuBLAS" else None,
                                  host_us=host[e.label], extra=extra)
                rows.append(row)
                spans_of[(e.label, n)] = spans[e.label]
                log(f"{n:5d} {e.label:22s} {ms:9.4f} ms {row.tflops:8.2f} TFLOP/s {100 * row.ratio:6.1f}% "
                    f"host {host[e.label]:6.1f} us {extra['timed_by']:6s} {'OK' if ok else 'WRONG'} err {err:.1e}")
                if on_row:
                    on_row(row)
            host_of[n] = host
            del A, B, ref, entries
            cp.get_default_memory_pool().free_all_blocks()
    finally:
        if clock is not None:
            clock.stop()
    clocks_info = {}
    if clock is not None and clock.samples:
        per = {f"{lab}@{n}": clock.window(sp) for (lab, n), sp in spans_of.items()}
        clocks_info = {"per_row": {k: v for k, v in per.items() if v},
                       "sm_mhz_median": statistics.median(s[1] for s in clock.samples),
                       "power_w_median": statistics.median(s[2] for s in clock.samples)}
    notes = []
    spread = [max(r.extra["rounds_ms"]) / min(r.extra["rounds_ms"]) - 1 for r in rows if r.kernel == "cuBLAS"]
    if busy:
        notes.append(f"other processes were computing on this GPU (pid {', '.join(map(str, busy))}): the figures "
                     "may be low")
    if spread and max(spread) > 0.05:
        notes.append(f"cuBLAS varied by up to {100 * max(spread):.0f} % between rounds: a busy or throttling GPU")
    run_ = records.Run(id=run_id or f"{records.gpu_class(gpu).lower()}_{datetime.date.today().isoformat()}",
                       gpu=gpu, cc=cc, date=datetime.date.today().isoformat(), baseline=baseline,
                       method=method(rounds, min_ms, graphs, burst_every_round),
                       rows=tuple(rows), versions=versions(), clocks=clocks_info, note="; ".join(notes))
    flag = records.baseline_check(run_, baseline.split(" (")[0])
    if flag or busy:
        run_ = dataclasses.replace(run_, flagged="; ".join(x for x in (flag, notes[0] if busy else "") if x))
    return run_


# ---- one chapter's record: the command line of course/chNN_<slug>/record.py ---------------------------------------

def chapter_parser(number):
    """The command line of chapter `number`'s record script (`python -m course.chNN_<slug>.record --out FILE`)."""
    ch = chapters.get(number)
    ap = argparse.ArgumentParser(
        prog=f"python -m {ch.module('record')}",
        description=f"노트북 {ch.number} ({ch.title}) 의 커널을 같은 실행에서 cuBLAS 와 나란히 잽니다 (GPU 필요) / "
                    f"chapter {ch.number}'s kernels ({', '.join(ch.kernels)}) timed beside cuBLAS in the same run by "
                    "course.bench.run, written with bench.save_run in the one record schema (course/records.py).")
    ap.add_argument("--out", required=True, help="the record to write, or to add this run to (…/name.json)")
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help=f"M = N = K (default {SIZES})")
    ap.add_argument("--rounds", type=int, default=ROUNDS, help=f"rotated rounds per size (default {ROUNDS})")
    ap.add_argument("--only", nargs="+", choices=ch.kernels, metavar="KERNEL",
                    help=f"a subset of the chapter's kernels ({', '.join(ch.kernels)})")
    ap.add_argument("--run-id", default=f"ch{ch.number}", help=f"the run's id in the record (default ch{ch.number})")
    return ap


def fixed_shape(name):
    """True for a kernel that computes one shape only (its module's SHAPE): it cannot be timed at n³."""
    return getattr(kn.get(name).module, "SHAPE", None) is not None


def chapter_kernels(number, only=None):
    """[[names of one input dtype], ...]: chapter `number`'s kernels (course/chapters.py), in its order, split where
    the input dtype changes kind (one run times one kind: FP32 against SGEMM, f16 against HGEMM). A kernel of one
    fixed shape (its module's SHAPE, e.g. mma_simple's 16x8x16) has no n³ to time and is left out."""
    names = [n for n in chapters.get(number).kernels if (not only or n in only) and not fixed_shape(n)]
    groups = {}
    for n in names:
        groups.setdefault(np.dtype(kn.get(n).dtype).name, []).append(n)
    return list(groups.values())


def record_chapter(number, argv=None):
    """Record chapter `number`'s kernels at --sizes beside cuBLAS (course.bench.run) into --out (bench.save_run)."""
    ch = chapters.get(number)
    args = chapter_parser(number).parse_args(argv)
    why = available()
    if why:
        raise SystemExit(f"{ch.module('record')}: {why}")
    groups = chapter_kernels(number, args.only)
    for names in groups:
        run_id = args.run_id if len(groups) == 1 else f"{args.run_id}_{np.dtype(kn.get(names[0]).dtype).name}"
        run_ = run(names, tuple(args.sizes), rounds=args.rounds, run_id=run_id, log=lambda t: print(t, flush=True))
        path = save_run(args.out, run_, f"{ch.module('record')}: chapter {ch.number}'s kernels beside cuBLAS "
                        "(course.bench)", {"chapter": ch.number, "kernels": list(ch.kernels)})
        print(f"{run_id}: {len(run_.rows)} rows -> {path}", flush=True)
