"""Record mma_fast on the GPU in one run: correctness, loaded resources, and the ablation sweep vs cuBLAS HGEMM.

cuBLAS (cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F) is timed in every round of the same run
(benchmarks/explore_fast.sweep: warm-up, then 3 interleaved rounds, median). The record of several runs is
course/recorded/gpu_h100_level6_fast.json (its "runs" list); ncu figures come from benchmarks/ncu_fast.py.
Run (device tool): python benchmarks/record_level6_fast.py --out $OUT/level6_fast.json
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

import kernels_numba as kn                        # noqa: E402
import explore_fast                               # noqa: E402
import record_level6                              # noqa: E402

# the ablation: the final configuration, each switch turned back alone, and the previous best
ABLATION = ["fast", "barrier_at_tile_start", "barrier_start_early_copy", "no_prefetch", "no_swizzle", "raster_g8",
            "stages2", "stages4_dyn", "no_launch_bounds", "warp64x32_lb2", "128x256_dyn", "mma_swizzle"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import cupy
    import numba_cuda
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    result = {"what": "benchmarks/record_level6_fast.py (device tool)", "gpu": gpu, "cc": list(dev.compute_capability),
              "date": datetime.date.today().isoformat(), "cupy": cupy.__version__,
              "numba_cuda": getattr(numba_cuda, "__version__", "?"),
              "baseline": "cuBLAS HGEMM: cublasGemmEx f16\u00d7f16\u2192f32, CUBLAS_COMPUTE_32F",
              "config": kn.get("mma_fast").module.CONFIG}
    specs = [kn.get("mma_fast"), kn.get("mma_swizzle")]
    parts = (("correctness", lambda: record_level6.correctness(specs)),
             ("ragged_nan_identity_ok", lambda: explore_fast.check_ragged(specs[0].launch)),
             ("resources", lambda: record_level6.resources(specs)),
             ("ablation", lambda: explore_fast.sweep(ABLATION, args.sizes, args.rounds)))
    for part, fn in parts:
        try:
            result[part] = fn()
        except Exception:                            # noqa: BLE001
            result[part + "_error"] = traceback.format_exc()
            print(result[part + "_error"], flush=True)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    rows = result.get("ablation", [])
    result["summary"] = {str(n): {r["variant"]: {"tflops": round(r["tflops"], 1), "ratio": round(r["ratio"], 4)}
                                  for r in rows if r["n"] == n and r["variant"] in ("cuBLAS", "fast", "mma_swizzle")
                                  and "tflops" in r} for n in args.sizes}
    result["table"] = explore_fast.table(rows, args.sizes) if rows else ""
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result.get("resources", {}), indent=0)[:1500])
    print(json.dumps(result["summary"]))
    print(gpu, result["date"])
    print(result["table"])


if __name__ == "__main__":
    main()
