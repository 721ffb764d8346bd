"""GPU benchmark: every registered kernel against cuBLAS SGEMM (CuPy) in the same run, reported as a ratio.

Usage (on a GPU machine): python benchmarks/bench_gpu.py [--sizes 1024 2048 4096] [--json out.json]
Correctness first: each kernel's result is compared with a float64 reference (relative Frobenius error)
on fresh random data, with C poisoned with NaN (beta=0 must ignore it) and once with alpha/beta != (1, 0).
Timing: CUDA events around a batch of back-to-back launches, median of several batches, after warm-up.
"""
import argparse
import json
import os
import platform
import sys
import time

if __name__ == "__main__":                       # a script of its own: settings before CuPy and Numba load
    os.environ.setdefault("CUPY_TF32", "0")      # plain FP32 cuBLAS, no TF32 tensor cores (CuPy's default too)
    os.environ.setdefault("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")   # no stream sync per launch while timing
# Imported by course/measure.py into a notebook, it changes no environment variable (a NUMBA_* one would change the
# offline compile cache's key for the rest of the session); the timed launches take Numba device arrays, wrapped
# once, so no per-launch CUDA-array-interface sync happens either way.

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                               # noqa: E402

import kernels_numba as kn                       # noqa: E402


def _timeit(fn, stream, min_ms=150.0, groups=5):
    """(median ms per call, ms per call of each group): `groups` batches of back-to-back calls, min_ms in all."""
    import cupy as cp
    fn()                                         # warm-up (compile, caches)
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record(stream)
    fn()
    end.record(stream)
    end.synchronize()
    one = max(cp.cuda.get_elapsed_time(start, end), 1e-3)
    reps = max(1, int(min_ms / groups / one))
    times = []
    for _ in range(groups):
        start.record(stream)
        for _ in range(reps):
            fn()
        end.record(stream)
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / reps)
    return float(np.median(times)), times


def _rel_err(C, ref):
    import cupy as cp
    C64 = C.astype(cp.float64)
    return float(cp.linalg.norm(C64 - ref) / cp.linalg.norm(ref))


def _resources(name):
    """Registers, shared/local memory and SASS opcode counts of kernel `name` as loaded on this GPU."""
    from kernels_numba.infra import resources
    from kernels_numba.infra.offline import sass_counts
    r = resources.report(name)                   # GPU mode: read from the loaded kernel
    out = {k: r[k] for k in ("registers", "shared_bytes", "local_bytes")}
    out["sass"] = {op: n for op, n in sass_counts(r["sass_text"]).items()
                   if op.split(".")[0] in ("FFMA", "FMUL", "FADD", "LDS", "STS", "LDG", "STG", "BAR", "LDL", "STL")}
    return out


def run(sizes=(1024, 2048, 4096), kernels=None, on_row=None, resources=True, log=print, min_ms=150.0):
    """Measure `kernels` (names; None: every registered FP32 kernel) against cuBLAS at each size; the result dict.

    Runs in the calling process (course/measure.py calls it from a notebook, so kernels the notebook already compiled
    for this GPU are reused); data stay on the device: inputs, the float64 reference and C are CuPy arrays.
    on_row(row) is called after each (size, kernel) row, cuBLAS included (a progress bar); log(text) gets one line per
    row (None: silent). resources=False skips reading each loaded kernel's SASS at the end."""
    import cupy as cp
    from numba import cuda
    log = log or (lambda *_: None)
    specs = [s for s in kn.REGISTRY if kernels is None or s.name in kernels]
    # cuBLAS SGEMM is the yardstick here: FP32 kernels only (f16 Tensor Core kernels: record_level6.py),
    # and only those this GPU can run (cp.async kernels need sm_80)
    skipped = [s.name for s in specs if s.dtype != np.float32 or not s.runs_here()]
    if skipped:
        log("# 건너뜀 / skipped (not FP32 or needs a newer GPU): " + ", ".join(skipped))
    specs = [s for s in specs if s.name not in skipped]
    stream = cp.cuda.get_current_stream()
    dev = cuda.get_current_device()
    result = {"gpu": dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name),
              "cc": list(dev.compute_capability), "date": time.strftime("%Y-%m-%d"),
              "python": platform.python_version(), "cupy": cp.__version__,
              "numba_cuda": __import__("numba_cuda").__version__, "tf32": os.environ.get("CUPY_TF32", "0"),
              "rows": [], "resources": {}, "skipped": skipped}
    log(f"# {result['gpu']} sm_{dev.compute_capability[0]}{dev.compute_capability[1]}  {result['date']}")
    rng = cp.random.default_rng(12345)
    for n in sizes:
        M = N = K = n
        A = rng.standard_normal((M, K), dtype=cp.float32)
        B = rng.standard_normal((K, N), dtype=cp.float32)
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        Cb = cp.empty((M, N), cp.float32)
        t_cublas, _ = _timeit(lambda: cp.matmul(A, B, out=Cb), stream, min_ms)
        err_cublas = _rel_err(Cb, ref)
        flops = 2.0 * M * N * K
        tf_cublas = flops / t_cublas / 1e9
        row = {"kernel": "cuBLAS", "n": n, "ms": t_cublas, "tflops": tf_cublas, "ratio": 1.0, "rel_err": err_cublas}
        result["rows"].append(row)
        log(f"{n:5d} cuBLAS        {t_cublas:9.3f} ms {tf_cublas:7.2f} TFLOP/s  100.0%  err {err_cublas:.1e}")
        if on_row:
            on_row(row)
        dA, dB = cuda.as_cuda_array(A), cuda.as_cuda_array(B)        # wrap once, outside the timed loops
        for spec in specs:
            C = cp.full((M, N), cp.nan, cp.float32)       # poison: beta=0 must not read C
            dC = cuda.as_cuda_array(C)
            spec.launch(dA, dB, dC, 1.0, 0.0)             # the first launch of a kernel compiles it (once per process)
            cp.cuda.Device().synchronize()
            err = _rel_err(C, ref)
            ok = bool(cp.isfinite(C).all()) and err < 1e-5
            if n == sizes[0]:                             # BLAS alpha/beta check once per kernel
                C0 = rng.standard_normal((M, N), dtype=cp.float32)
                C1 = C0.copy()
                spec.launch(dA, dB, cuda.as_cuda_array(C1), 1.5, -0.5)
                cp.cuda.Device().synchronize()
                err_ab = _rel_err(C1, 1.5 * ref - 0.5 * C0.astype(cp.float64))
                ok = ok and err_ab < 1e-5
                del C0, C1
            t, _ = _timeit(lambda: spec.launch(dA, dB, dC, 1.0, 0.0), stream, min_ms)
            tf = flops / t / 1e9
            row = {"kernel": spec.name, "level": spec.level, "n": n, "ms": t, "tflops": tf,
                   "ratio": tf / tf_cublas, "rel_err": err, "correct": ok}
            result["rows"].append(row)
            log(f"{n:5d} {spec.name:13s} {t:9.3f} ms {tf:7.2f} TFLOP/s {100*tf/tf_cublas:6.1f}%  "
                f"err {err:.1e} {'OK' if ok else 'WRONG'}")
            if on_row:
                on_row(row)
            del C, dC
        del A, B, dA, dB, ref, Cb
        cp.get_default_memory_pool().free_all_blocks()
    if resources:
        for spec in specs:
            result["resources"][spec.name] = _resources(spec.name)
            log(f"# {spec.name}: {result['resources'][spec.name]}")
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    ap.add_argument("--kernels", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-resources", action="store_true", help="skip reading each loaded kernel's SASS")
    args = ap.parse_args()
    if kn.device.SIMULATOR:
        sys.exit("bench_gpu.py needs a GPU (the simulator gives no meaningful timings).")
    result = run(args.sizes, args.kernels, resources=not args.no_resources,
                 log=lambda text: print(text, flush=True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if all(r.get("correct", True) for r in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
