"""Level 6 on the GPU in one run: layout record, correctness, loaded resources/SASS, and benchmark vs cuBLAS HGEMM.

cuBLAS path compared (same run, same stream): cublasGemmEx with A, B CUDA_R_16F, C CUDA_R_32F, computeType
CUBLAS_COMPUTE_32F (f16 inputs, f32 accumulate and output: what mma_*.f32 kernels compute) for kernels with f32 C,
and cupy.matmul on f16 arrays (cublasGemmEx, f16 output, CUBLAS_COMPUTE_32F) for kernels with f16 C.
Run: python benchmarks/record_level6.py --out course/recorded/gpu_h200_level6.json --layout-out course/recorded/mma_layout_h200.json
"""
import argparse
import datetime
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from kernels_numba.infra import tc                # noqa: E402


def _timeit(fn, min_ms=150.0, groups=5):
    import cupy as cp
    fn()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn()
    end.record()
    end.synchronize()
    one = max(cp.cuda.get_elapsed_time(start, end), 1e-3)
    reps = max(3, int(min_ms / groups / one))
    times = []
    for _ in range(groups):
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / reps)
    return float(np.median(times))


def _cublas_f32out(A, B, C):
    """C = A @ B through cublasGemmEx: f16 A, B; f32 C; CUBLAS_COMPUTE_32F (row-major via C^T = B^T A^T)."""
    import cupy as cp
    from cupy_backends.cuda.libs import cublas
    M, K = A.shape
    N = B.shape[1]
    handle = cp.cuda.device.get_cublas_handle()
    one, zero = np.array(1.0, np.float32), np.array(0.0, np.float32)
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    cublas.gemmEx(handle, cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_N, N, M, K, one.ctypes.data, B.data.ptr, 2, N,
                  A.data.ptr, 2, K, zero.ctypes.data, C.data.ptr, 0, N, 68, -1)   # 2 = R_16F, 0 = R_32F, 68 = COMPUTE_32F


def correctness(specs):
    from numba import cuda
    out = {}
    for spec in specs:
        shapes = [(16, 8, 16)] if spec.name == "mma_simple" else [(16, 8, 16), (144, 136, 48), (512, 520, 272)]
        rows = []
        for M, N, K in shapes:
            rng = np.random.default_rng(M + N + K)
            A = rng.standard_normal((M, K)).astype(np.float16)
            B = rng.standard_normal((K, N)).astype(np.float16)
            cd = getattr(spec.module, "C_DTYPE", np.float32)
            C0 = rng.standard_normal((M, N)).astype(cd)
            C = C0.copy()
            spec.launch(A, B, C, 1.5, -0.5)
            acc = getattr(spec.module, "CONFIG", {}).get("acc", "f32")
            bound = tc.error_bound(A, B, 1.5, -0.5, C0, acc=acc, out="f16" if cd == np.float16 else "f32")
            err = np.abs(C.astype(np.float64) - tc.reference(A, B, 1.5, -0.5, C0))
            Ci = np.zeros((min(M, K), N), cd)
            spec.launch(np.eye(min(M, K), K, dtype=np.float16), B, Ci)
            rows.append({"shape": [M, N, K], "ok": bool((err <= bound).all()), "worst_err_over_bound": float((err / bound).max()),
                         "max_rel_err": float(err.max() / np.abs(tc.reference(A, B, 1.5, -0.5, C0)).max()),
                         "identity_exact": bool(np.array_equal(Ci, B[:min(M, K)].astype(cd)))})
        out[spec.name] = rows
        print(spec.name, rows, flush=True)
    cuda.synchronize()
    return out


def error_vs_k(Ks=(16, 64, 256, 1024, 4096)):
    """Max relative error (to max |C|) of mma_pipe (f32 acc) and mma_pipe_f16acc vs float64, growing K, on the GPU."""
    res = []
    for K in Ks:
        rng = np.random.default_rng(K)
        A = rng.uniform(0, 1, (128, K)).astype(np.float16)
        B = rng.uniform(0, 1, (K, 128)).astype(np.float16)
        ref = tc.reference(A, B)
        row = {"K": K}
        for name in ("mma_pipe", "mma_pipe_f16out", "mma_pipe_f16acc"):
            spec = kn.get(name)
            C = np.zeros((128, 128), getattr(spec.module, "C_DTYPE", np.float32))
            spec.launch(A, B, C)
            row[name] = float(np.abs(C.astype(np.float64) - ref).max() / np.abs(ref).max())
        res.append(row)
    return res


def benchmark(specs, sizes):
    import cupy as cp
    from numba import cuda
    rows = []
    for n in sizes:
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        C32 = cp.zeros((n, n), cp.float32)
        C16 = cp.zeros((n, n), cp.float16)
        flops = 2.0 * n ** 3
        t32 = _timeit(lambda: _cublas_f32out(A, B, C32))
        t16 = _timeit(lambda: cp.matmul(A, B, out=C16))
        e32 = float(cp.abs(C32 - ref).max() / cp.abs(ref).max())
        base = {"f32": flops / t32 / 1e9, "f16": flops / t16 / 1e9}
        rows.append({"kernel": "cuBLAS", "n": n, "ms": t32, "tflops": base["f32"], "ratio": 1.0, "rel_err": e32,
                     "path": "cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F"})
        rows.append({"kernel": "cuBLAS_f16out", "n": n, "ms": t16, "tflops": base["f16"], "ratio": base["f16"] / base["f32"],
                     "path": "cupy.matmul f16 -> f16 (cublasGemmEx, CUBLAS_COMPUTE_32F)"})
        print(f"{n} cuBLAS f32out {base['f32']:.1f} TFLOP/s, f16out {base['f16']:.1f}", flush=True)
        dA, dB = cuda.as_cuda_array(A), cuda.as_cuda_array(B)
        for spec in specs:
            if spec.name == "mma_simple":
                continue
            cd = getattr(spec.module, "C_DTYPE", np.float32)
            C = C32 if cd == np.float32 else C16
            C.fill(0)
            dC = cuda.as_cuda_array(C)
            k = spec.kernel[spec.launch.grid_of(n, n), spec.launch.block]
            a, b = np.float32(1.0), np.float32(0.0)
            try:
                t = _timeit(lambda: k(dA, dB, dC, a, b))
            except Exception as e:                   # noqa: BLE001
                rows.append({"kernel": spec.name, "n": n, "error": repr(e)})
                continue
            err = float(cp.abs(C.astype(cp.float64) - ref).max() / cp.abs(ref).max())
            key = "f32" if cd == np.float32 else "f16"
            tf = flops / t / 1e9
            rows.append({"kernel": spec.name, "n": n, "ms": t, "tflops": tf, "ratio": tf / base["f32"],
                         "ratio_same_output": tf / base[key], "rel_err": err, "output": key})
            print(f"{n} {spec.name:16s} {tf:8.1f} TFLOP/s {100 * tf / base['f32']:5.1f}% err {err:.1e}", flush=True)
    return rows


EXPLORE = [dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2, MIN_BLOCKS=2),
           dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=3, MIN_BLOCKS=2, SWIZZLE=True),
           dict(BM=128, BN=128, BK=16, WARPS_M=2, WARPS_N=4, STAGES=4, MIN_BLOCKS=2, SWIZZLE=True),
           dict(BM=128, BN=128, BK=32, WARPS_M=4, WARPS_N=2, STAGES=2, MIN_BLOCKS=2, SWIZZLE=True)]
# mma_swizzle (128x128 BK32 S2 lb2, swizzled) beside: the same on padded rows, 3 stages (49 152 B, the static limit),
# BK16 S4 swizzled (= mma_pipe4_lb2 swizzled), and 4x2 warps of 32x64.
# Earlier runs: first exploration (course/recorded/gpu_h200_level6_explore.json): 128x128 BK32 S2 lb2, 128x128 BK16 S4
# lb2, 128x256 BK16 S3, 256x128 BK16 S2, 64x128 BK32 S3 lb3, 128x128 4 warps BK32 S2 / BK16 S4; the level-6 record
# before mma_swizzle: 128x128 BK16 S3 / S2 lb2, 128x64 BK32 S3 lb3 (padded); a swizzle trial run: BK16 S5 lb2 26 %,
# BK16 S4 lb2 31 %, BK32 S2 lb2 34 %, BK32 S3 lb2 31 % (registered then), BK32 S3 without the cap 23 % of cuBLAS.


def explore(sizes=(4096,)):
    """Other block/warp/stage configurations of the same kernel body (tc.build_tiled), checked and timed vs cuBLAS."""
    import cupy as cp
    from numba import cuda
    rows = []
    for n in sizes:
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        C = cp.zeros((n, n), cp.float32)
        base = 2.0 * n ** 3 / _timeit(lambda: _cublas_f32out(A, B, C)) / 1e9
        dA, dB, dC = cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)
        for cfg in EXPLORE:
            try:
                k = tc.build_tiled(**cfg)
                kk = k[(-(-n // cfg["BN"]), -(-n // cfg["BM"])), k.config["THREADS"]]
                C.fill(0)
                t = _timeit(lambda: kk(dA, dB, dC, np.float32(1), np.float32(0)))
                err = float(cp.abs(C - ref).max() / cp.abs(ref).max())
                ov = next(iter(k.overloads.values()))
                tf = 2.0 * n ** 3 / t / 1e9
                rows.append(dict(cfg, n=n, tflops=tf, ratio=tf / base, rel_err=err, registers=ov.regs_per_thread,
                                 local_bytes=ov.local_mem_per_thread, shared_bytes=ov.shared_mem_per_block))
            except Exception as e:                   # noqa: BLE001
                rows.append(dict(cfg, n=n, error=repr(e)[:500]))
            print(rows[-1], flush=True)
    return rows


def resources(specs):
    from numba import cuda
    from kernels_numba.infra.offline import sass_counts
    out = {}
    for spec in specs:
        try:
            ov = next(iter(spec.kernel.overloads.values()))     # the compiled _Kernel (launched above)
            sass = ov.inspect_sass()
            regs, shared, local = ov.regs_per_thread, ov.shared_mem_per_block, ov.local_mem_per_thread
            counts = {op: c for op, c in sass_counts(sass).items()
                      if op.split(".")[0] in ("HMMA", "LDSM", "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "CALL", "LDL", "STL", "RET")}
            func = ov._codelibrary.get_cufunc()
            threads = int(np.prod(spec.launch.block))
            blocks = int(cuda.current_context().get_active_blocks_per_multiprocessor(func, threads, 0))
            out[spec.name] = {"registers": regs, "shared_bytes": shared, "local_bytes": local, "sass": counts,
                              "threads": threads, "blocks_per_sm": blocks}
        except Exception as e:                       # noqa: BLE001
            out[spec.name] = {"error": repr(e)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--layout-out", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    ap.add_argument("--only-explore", action="store_true")
    args = ap.parse_args()
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    result = {"what": "benchmarks/record_level6.py (device tool)", "gpu": gpu, "cc": list(dev.compute_capability),
              "date": datetime.date.today().isoformat(),
              "baseline": "cuBLAS HGEMM: cublasGemmEx f16\u00d7f16\u2192f32, CUBLAS_COMPUTE_32F"}
    if args.only_explore:
        result["explore"] = explore()
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        return
    if args.layout_out:
        try:
            import record_mma_layout
            rec = record_mma_layout.record()
            with open(args.layout_out, "w") as f:
                json.dump(rec, f)
            print("layout recorded", flush=True)
        except Exception:                            # noqa: BLE001
            result["layout_error"] = traceback.format_exc()
            print(result["layout_error"], flush=True)
    specs = kn.by_level(6)
    for part, fn in (("correctness", lambda: correctness(specs)), ("error_vs_k", error_vs_k),
                     ("benchmark", lambda: benchmark(specs, args.sizes)), ("resources", lambda: resources(specs)),
                     ("explore", explore)):
        try:
            result[part] = fn()
        except Exception:                            # noqa: BLE001
            result[part + "_error"] = traceback.format_exc()
            print(result[part + "_error"], flush=True)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    import cupy
    import numba_cuda
    result.update(cupy=cupy.__version__, numba_cuda=getattr(numba_cuda, "__version__", "?"))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result.get("resources", {}), indent=0)[:3000])


if __name__ == "__main__":
    main()
