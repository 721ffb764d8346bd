"""GPU time of cuBLAS HGEMM and mma_fast variants from CUDA-graph replays: no launch gaps on either side.

At 2048^3 one Numba launch costs ~60 us of host time against a ~50 us kernel (record run 6), so back-to-back event
timing there measures Python. Here every entry is captured as a graph of 20 calls on one stream and replayed; cuBLAS
is called through its own handle with ctypes (CuPy refuses cuBLAS calls during stream capture), the same
cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F as explore_fast. 5 rounds in rotated order, median.
Run (device tool): python benchmarks/graph_fast.py --out $OUT/graph_fast.json [--variants fast bk64_lean_dyn]
"""
import argparse
import ctypes
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

from kernels_numba import mma_fast               # noqa: E402
import explore_fast                               # noqa: E402


def cublas_gemm(A, B, C):
    """fn(stream): C = A @ B by cublasGemmEx on our own cuBLAS handle, bound to `stream` (row-major via C^T = B^T A^T)."""
    import cupy as cp
    cp.cuda.device.get_cublas_handle()            # CuPy loads libcublas: ctypes then finds the same library by name
    lib = None
    for name in ("libcublas.so.13", "libcublas.so.12", "libcublas.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            pass
    if lib is None:
        raise OSError("libcublas not found")
    handle = ctypes.c_void_p()
    assert lib.cublasCreate_v2(ctypes.byref(handle)) == 0
    vp, i = ctypes.c_void_p, ctypes.c_int
    lib.cublasGemmEx.argtypes = [vp, i, i, i, i, i, vp, vp, i, i, vp, i, i, vp, vp, i, i, i, i]
    lib.cublasSetStream_v2.argtypes = [vp, vp]
    M, K = A.shape
    N = B.shape[1]
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def fn(stream):
        assert lib.cublasSetStream_v2(handle, ctypes.c_void_p(stream.ptr)) == 0
        rc = lib.cublasGemmEx(handle, 0, 0, N, M, K, ctypes.addressof(one), B.data.ptr, 2, N, A.data.ptr, 2, K,
                              ctypes.addressof(zero), C.data.ptr, 0, N, 68, -1)   # 2 R_16F, 0 R_32F, 68 COMPUTE_32F
        assert rc == 0, f"cublasGemmEx status {rc}"
    return fn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--variants", nargs="+", default=["fast", "bk64_lean_dyn"])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import cupy as cp
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    out = {"what": "benchmarks/graph_fast.py (device tool)", "gpu": gpu, "date": datetime.date.today().isoformat(),
           "baseline": "cuBLAS HGEMM: cublasGemmEx f16\u00d7f16\u2192f32, CUBLAS_COMPUTE_32F (own handle, CUDA graph)",
           "method": "per entry and round: 50 ms plain burst, then a CUDA graph of 20 calls replayed 5 times "
                     "(median per call); 5 rounds in rotated order; median of rounds", "rows": []}
    built = {name: mma_fast.make_kernel(**explore_fast.VARIANTS[name]) for name in args.variants}
    stream = cp.cuda.Stream(non_blocking=True)
    for n in args.sizes:
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        C = cp.zeros((n, n), cp.float32)
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        dA, dB, dC = cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)
        on = {"cuBLAS": cublas_gemm(A, B, C)}
        for name, (k, launch, conf) in built.items():
            g, b, lr = launch.grid_of(n, n), launch.block, launch.launcher
            on[name] = (lambda st, g=g, b=b, lr=lr: lr[g, b, cuda.external_stream(st.ptr)](
                dA, dB, dC, np.float32(1), np.float32(0)))
        errs = {}
        for name, fn in on.items():                   # each entry's result checked before it is timed
            C.fill(cp.nan)
            fn(stream)
            stream.synchronize()
            errs[name] = float(cp.abs(C - ref).max() / cp.abs(ref).max())
        times = {name: [] for name in on}
        order = list(on)
        for r in range(args.rounds):
            shift = (r * len(order)) // max(args.rounds, 1)
            for name in order[shift:] + order[:shift]:
                explore_fast._timeit(lambda: on[name](stream), min_ms=50.0, groups=1)
                times[name].append(explore_fast.graph_ms(on[name], stream))
        med = {name: float(np.median(t)) for name, t in times.items()}
        for name in on:
            row = {"variant": name, "n": n, "graph_ms": med[name], "graph_ms_rounds": times[name],
                   "tflops": 2.0 * n ** 3 / med[name] / 1e9, "ratio": med["cuBLAS"] / med[name], "rel_err": errs[name]}
            out["rows"].append(row)
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items() if k != "graph_ms_rounds"},
                  flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    print(gpu, out["date"])


if __name__ == "__main__":
    main()
