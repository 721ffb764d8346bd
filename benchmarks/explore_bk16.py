"""Exploration (GPU): BK=16 level-5 variants against async_vec and cuBLAS in one run; prints a table.

Run on a GPU:  python benchmarks/explore_bk16.py [--sizes 1024 2048 4096]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402  (the course's one timer)
from kernels_numba import async_bk16              # noqa: E402


def variants():
    v = {"async_vec": kn.get("async_vec").launch, "async_bk16 (s3, lb 256x2)": kn.get("async_bk16").launch}
    v["bk16 s2, lb 256x2"] = async_bk16.make_kernel(2)[1]
    v["bk16 s3, lb 256x1"] = async_bk16.make_kernel(3, {"launch_bounds": (256, 1)})[1]
    return v


def main():
    import cupy as cp
    from numba import cuda
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    args = ap.parse_args()
    rng = cp.random.default_rng(3)
    vs = variants()
    for name, launch in vs.items():            # correctness first, ragged shape and 1..5 tiles, C poisoned
        worst = 0.0
        for M, N, K in [(333, 270, 77), (64, 64, 16), (64, 64, 80), (1000, 1001, 999)]:
            A = rng.standard_normal((M, K), dtype=cp.float32)
            B = rng.standard_normal((K, N), dtype=cp.float32)
            C = cp.full((M, N), cp.nan, cp.float32)
            launch(A, B, C)
            worst = max(worst, bench._rel_err(C, A.astype(cp.float64) @ B.astype(cp.float64)))
        k = launch.kernel if hasattr(launch, "kernel") else None
        regs = None
        try:
            regs = k.get_regs_per_thread()        # {signature: registers} for the one compiled signature
        except Exception as e:                 # noqa: BLE001  (only a label in the table)
            regs = repr(e)[:60]
        print(f"{name:28s} max rel err {worst:.2e} registers {regs}", flush=True)
    stream = cp.cuda.get_current_stream()
    print("size  " + "  ".join(f"{n:>26s}" for n in vs) + "   cuBLAS TFLOP/s")
    for n in args.sizes:
        A = rng.standard_normal((n, n), dtype=cp.float32)
        B = rng.standard_normal((n, n), dtype=cp.float32)
        C = cp.zeros((n, n), cp.float32)
        dA, dB, dC = (cuda.as_cuda_array(X) for X in (A, B, C))
        t_cub, _ = (bench.events_ms(lambda: cp.matmul(A, B, out=C), min_ms=150.0), None)
        cells = []
        for name, launch in vs.items():
            t, _ = (bench.events_ms(lambda: launch(dA, dB, dC, 1.0, 0.0), min_ms=150.0), None)
            cells.append(f"{100 * t_cub / t:5.1f}% ({2 * n ** 3 / t / 1e9:5.1f} TF)")
        print(f"{n:5d} " + "  ".join(f"{c:>26s}" for c in cells) + f"   {2 * n ** 3 / t_cub / 1e9:.1f}", flush=True)


if __name__ == "__main__":
    main()
