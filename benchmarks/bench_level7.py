"""Level 7 (Hopper wgmma + TMA) on the GPU against cuBLAS HGEMM in the same run, through the course's `launch`.

Each kernel is called exactly as a student calls it: spec.launch(A, B, C) with device arrays (CuPy, f16 A and B, f32
C), so the measurement includes what `launch` adds per call (input checks, the cached tensor maps). cuBLAS is
cublasGemmEx f16 x f16 -> f32 with CUBLAS_COMPUTE_32F (benchmarks/record_level6._cublas_f32out), timed on the same
stream in every round. Each round times every entry with CUDA events (a warm-up burst, then the median of groups of
back-to-back calls: benchmarks/record_level6._timeit); entries are rotated between rounds; the ratio is the kernel's
median over rounds / cuBLAS's median over rounds of the same run. Host time per call (launches queued without waiting)
is recorded beside it: where it is larger than the GPU time, the kernel is launch-bound, not slow. mma_fast (the best
mma.sync kernel, notebook 10) runs in the same rounds as the step before level 7.

Before timing, every kernel is checked against cuBLAS's own result at each size (C within a bound proportional to
K * 2^-24 * |A| |B|; NaN-poisoned C) and the record says so; a wrong kernel's speed is not recorded.

Run on the GPU machine (one command): python benchmarks/bench_level7.py
  -> course/recorded/gpu_h100_level7.json (or --out PATH), the figures notebook 11's section 8 is generated from.
From notebook 11 (a Hopper GPU), course.lesson11.live_benchmark calls run() on smaller settings.
"""
import argparse
import datetime
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from record_level6 import _cublas_f32out, _timeit  # noqa: E402

KERNELS = ("wgmma_simple", "wgmma_tma", "wgmma_ws", "mma_fast")


def _host_us(fn, n=100):
    import time
    import cupy as cp
    fn()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    us = (time.perf_counter() - t) / n * 1e6
    cp.cuda.Device().synchronize()
    return us


def _loaded(name):
    """Registers and shared memory of the kernel as loaded on this GPU (after its first launch)."""
    spec = kn.get(name)
    sig = getattr(spec.module, "SIG", None)
    try:
        k = spec.kernel.compile(sig) if sig is not None else None
        return {"registers": int(k.regs_per_thread), "static_shared_bytes": int(k.shared_mem_per_block),
                "dynamic_shared_bytes": int(spec.dynamic_smem), "local_bytes": int(k.local_mem_per_thread),
                "threads": int(spec.threads)}
    except Exception as e:                               # noqa: BLE001
        return {"error": str(e)}


def check_against_cublas(name, A, B, C, Cref):
    """Run kernel `name` once on NaN-poisoned C and compare with cuBLAS's C: (ok, max |err| / bound)."""
    import cupy as cp
    C.fill(cp.nan)
    kn.get(name).launch(A, B, C)
    cp.cuda.Device().synchronize()
    K = A.shape[1]
    mag = cp.abs(A.astype(cp.float32)) @ cp.abs(B.astype(cp.float32))
    bound = 2 * K * 2.0 ** -24 * mag + 2.0 ** -24 * cp.abs(Cref) + 1e-30
    ratio = float(cp.max(cp.abs(C - Cref) / bound))
    return bool(cp.isfinite(C).all()) and ratio <= 1.0, ratio


def run(sizes=(2048, 4096), reps=5, kernels=KERNELS, min_ms=150.0, log=print):
    """[(kernel, n, TFLOP/s as text, % of cuBLAS as text)] for notebook 11, and the full rows in run.rows."""
    import cupy as cp
    rows = []
    for n in sizes:
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        C = cp.empty((n, n), cp.float32)
        Cref = cp.empty((n, n), cp.float32)
        _cublas_f32out(A, B, Cref)
        calls = {"cuBLAS": lambda: _cublas_f32out(A, B, C)}
        checked = {}
        for name in kernels:
            try:
                ok, worst = check_against_cublas(name, A, B, C, Cref)
            except Exception:                           # noqa: BLE001
                ok, worst = False, traceback.format_exc()[-800:]
            checked[name] = {"ok": ok, "worst_err_over_bound": worst}
            log(f"{name} n={n}: {'correct' if ok else 'WRONG'} ({worst if isinstance(worst, str) else f'{worst:.3f}'})")
            if ok:
                calls[name] = (lambda nm: lambda: kn.get(nm).launch(A, B, C))(name)
        times = {k: [] for k in calls}
        order = list(calls)
        for r in range(reps):
            for k in order[r % len(order):] + order[:r % len(order)]:
                times[k].append(_timeit(calls[k], min_ms=min_ms))
        cub = float(np.median(times["cuBLAS"]))
        flop = 2.0 * n ** 3
        for k, ts in times.items():
            ms = float(np.median(ts))
            rows.append({"kernel": k, "n": n, "ms": ms, "tflops": flop / ms / 1e9, "ratio": cub / ms,
                         "ms_rounds": ts, "ratio_rounds": [c / t for c, t in zip(times["cuBLAS"], ts)],
                         "host_us_per_launch": _host_us(calls[k]),
                         **({"check": checked[k]} if k in checked else {})})
            log(f"{k:14s} n={n}: {flop / ms / 1e9:7.1f} TFLOP/s, {100 * cub / ms:5.1f}% of cuBLAS")
        for k in kernels:
            if k not in calls:
                rows.append({"kernel": k, "n": n, "check": checked[k], "note": "wrong result: not timed"})
    run.rows = rows
    return [(r["kernel"], r["n"], f"{r['tflops']:.0f}", f"{100 * r['ratio']:.1f}%") for r in rows if "tflops" in r]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "course", "recorded", "gpu_h100_level7.json"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS))
    args = ap.parse_args()
    from kernels_numba.infra import device, hopper
    if device.SIMULATOR or hopper.lacks_hopper():
        sys.exit("bench_level7 needs a CC 9.0 GPU (H100/H200): wgmma and TMA are sm_90a")
    import cupy
    import numba_cuda
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    rec = {"what": "benchmarks/bench_level7.py: level-7 kernels through launch vs cuBLAS HGEMM, same run",
           "gpu": gpu, "cc": list(dev.compute_capability), "date": datetime.date.today().isoformat(),
           "cupy": cupy.__version__, "numba_cuda": getattr(numba_cuda, "__version__", "?"),
           "baseline": "cuBLAS HGEMM: cublasGemmEx f16\u00d7f16\u2192f32, CUBLAS_COMPUTE_32F",
           "goal": {"4096": 0.75}, "rounds": args.rounds,
           "configs": {k: kn.get(k).module.CONFIG for k in args.kernels}}
    try:
        run(args.sizes, args.rounds, args.kernels)
        rec["benchmark"] = run.rows
    except Exception:                                   # noqa: BLE001
        rec["benchmark_error"] = traceback.format_exc()
        print(rec["benchmark_error"], flush=True)
    rec["resources"] = {k: _loaded(k) for k in args.kernels}
    rows = {(r["kernel"], r["n"]): r for r in rec.get("benchmark", []) if "tflops" in r}
    best = max((r for (k, n), r in rows.items() if k != "cuBLAS" and n == 4096), key=lambda r: r["ratio"],
               default=None)
    rec["goal_met_4096"] = bool(best and best["ratio"] >= 0.75)
    with open(args.out, "w") as f:
        json.dump(rec, f, indent=1)
    print(json.dumps(rec["resources"]))
    print("best at 4096:", best and (best["kernel"], round(best["ratio"], 4)), "goal 0.75 met:", rec["goal_met_4096"],
          "->", args.out)


if __name__ == "__main__":
    main()
