"""Exploration (GPU): what each step of async_wide gives, against async_bk16 and cuBLAS in one run.

Run on a GPU:  python benchmarks/explore_wide.py [--sizes 2048 4096] [--json OUT]
Variants are async_wide's make_kernel with one switch off at a time. cuBLAS (TF32 off) is timed before and after
the kernels of each size; the ratio uses the faster of the two.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402  (the course's one timer)
from kernels_numba import async_wide              # noqa: E402


def variants():
    """{label: launch}: the registered kernels and async_wide with one step undone."""
    return {"async_bk16": kn.get("async_bk16").launch,
            "async_wide": kn.get("async_wide").launch,
            "wide, no prefetch": async_wide.make_kernel(prefetch=False)[1],
            "wide, no prefetch, no swizzle": async_wide.make_kernel(prefetch=False, swizzle=False)[1],
            "wide, NUM_STAGES 2": async_wide.make_kernel(2)[1]}


def main():
    import cupy as cp
    from numba import cuda
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = cp.random.default_rng(3)
    vs = variants()
    out = {"what": "benchmarks/explore_wide.py: % of cuBLAS SGEMM (TF32 off, faster of before/after) per variant",
           "correct": {}, "registers": {}, "rows": []}
    for name, launch in vs.items():            # correctness first, ragged shapes and 1..5 tiles, C poisoned
        worst, finite = 0.0, True
        for M, N, K in [(333, 270, 77), (64, 64, 16), (64, 64, 80), (1000, 1001, 999), (256, 256, 48)]:
            A = rng.standard_normal((M, K), dtype=cp.float32)
            B = rng.standard_normal((K, N), dtype=cp.float32)
            C = cp.full((M, N), cp.nan, cp.float32)
            launch(A, B, C)
            finite = finite and bool(cp.isfinite(C).all())
            worst = max(worst, bench._rel_err(C, A.astype(cp.float64) @ B.astype(cp.float64)))
        regs = list(launch.kernel.get_regs_per_thread().values())[0]
        out["correct"][name] = bool(finite and worst < 1e-5)
        out["registers"][name] = int(regs)
        print(f"{name:30s} max rel err {worst:.2e} finite {finite} registers {regs}", flush=True)
    stream = cp.cuda.get_current_stream()
    for n in args.sizes:
        A = rng.standard_normal((n, n), dtype=cp.float32)
        B = rng.standard_normal((n, n), dtype=cp.float32)
        C = cp.zeros((n, n), cp.float32)
        dA, dB, dC = (cuda.as_cuda_array(X) for X in (A, B, C))     # numba views: no conversion per launch
        t_before, _ = (bench.events_ms(lambda: cp.matmul(A, B, out=C), min_ms=150.0), None)
        ts = {name: (bench.events_ms(lambda: launch(dA, dB, dC, 1.0, 0.0), min_ms=150.0), None)[0] for name, launch in vs.items()}
        t_after, _ = (bench.events_ms(lambda: cp.matmul(A, B, out=C), min_ms=150.0), None)
        t_cub = min(t_before, t_after)
        row = {"n": n, "cublas_tflops": 2 * n ** 3 / t_cub / 1e9,
               "percent": {name: 100 * t_cub / t for name, t in ts.items()}}
        out["rows"].append(row)
        print(n, f"cuBLAS {row['cublas_tflops']:.1f} TF", {k: round(v, 1) for k, v in row["percent"].items()},
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
