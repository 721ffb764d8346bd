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

# the ablation: the final configuration, each switch turned back alone, larger tiles, and the previous best
# (no_pipeline since 2026-11-26: runs 5/6 lack it, so the pipeline with lean and lean without the pipeline were not
# yet timed; barrier_at_tile_start is no_pipeline without lean, the kernel runs 5/6 timed under that name)
ABLATION = ["fast", "no_lean", "no_pipeline", "barrier_at_tile_start", "no_prefetch", "no_swizzle", "raster_g8",
            "stages2", "stages4_lean_dyn", "bk64_lean_dyn", "128x256_s4_dyn", "128x256x64_dyn", "no_launch_bounds",
            "mma_swizzle"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--variants", nargs="+", default=ABLATION)
    ap.add_argument("--graphs", action="store_true", help="also time every entry from CUDA graphs (no launch gaps)")
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
             ("ablation", lambda: explore_fast.sweep(args.variants, args.sizes, args.rounds,
                                                     explore_fast.ClockLog(args.out + ".clocks.csv"),
                                                     graphs=args.graphs)))
    for part, fn in parts:
        try:
            result[part] = fn()
        except Exception:                            # noqa: BLE001
            result[part + "_error"] = traceback.format_exc()
            print(result[part + "_error"], flush=True)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    rows = result.get("ablation", [])
    result["summary"] = {str(n): {r["variant"]: {k: round(r[k], 4) for k in ("tflops", "ratio", "graph_tflops",
                                                                          "graph_ratio") if k in r}
                                  for r in rows if r["n"] == n and r["variant"] in ("cuBLAS", "fast", "mma_swizzle")
                                  and "tflops" in r} for n in args.sizes}
    result["table"] = explore_fast.table(rows, args.sizes) if rows else ""
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result.get("resources", {}), indent=0)[:1500])
    print(json.dumps(result["summary"]))
    print(gpu, result["date"])
    print(result["table"])


def assemble(runs, ncu, sanitizer_logs, earlier, out, notes=None):
    """The record course/recorded/gpu_h100_level6_fast.json from the device runs' files (kept whole under "runs").

    runs / ncu: {run name: path} of this script's JSON and ncu_fast.py --summarize JSON; sanitizer_logs:
    {tool: path}; earlier: {run name: path} of explore_fast.py JSON made by earlier versions of the kernel."""
    import re

    def load(path):
        with open(path) as f:
            return json.load(f)
    raw = {name: load(path) for name, path in runs.items()}
    prof = {name: load(path) for name, path in ncu.items()}
    last = raw[list(raw)[-1]]
    rec = {"what": "mma_fast on the GPU: benchmarks/record_level6_fast.py + benchmarks/ncu_fast.py + "
                   "benchmarks/sanitize_fast.py (device tool), assembled by record_level6_fast.assemble",
           "gpu": last["gpu"], "cc": last["cc"], "date": last["date"], "baseline": last["baseline"],
           "kernel": "mma_fast", "config": last["config"], "goal": {"2048": 0.45, "4096": 0.50},
           "final": last["resources"]["mma_fast"], "previous_best": last["resources"]["mma_swizzle"],
           "correctness": last["correctness"], "ragged_nan_identity_ok": last["ragged_nan_identity_ok"]}
    rec.update(notes or {})
    rec["ncu"] = prof
    rec["ratio_from_ncu_durations_4096"] = {
        run: {k: round(p["cublas"]["duration_ns"] / p[k]["duration_ns"], 4) for k in ("mma_fast", "mma_swizzle")}
        for run, p in prof.items()}
    rec["sanitizer"] = {}
    for tool, path in sanitizer_logs.items():
        with open(path) as f:
            text = f.read()
        rec["sanitizer"][tool] = re.findall(r"(ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)", text)[-1:]
    rec["runs"] = raw
    rec["earlier_runs"] = {name: {k: v for k, v in load(path).items() if k != "rows"} | {
        "rows": [{k: r.get(k) for k in ("variant", "n", "tflops", "ratio", "registers", "local_bytes",
                                         "shared_bytes", "blocks_per_sm", "switches") if k in r}
                 for r in load(path)["rows"]]} for name, path in earlier.items()}
    with open(out, "w") as f:
        json.dump(rec, f, indent=1)
    return rec


if __name__ == "__main__":
    main()


def add_runs(record, runs, ncu, sanitizer_logs, notes, graphs=None):
    """Add device runs of the final kernel to the record (earlier runs and their keys stay as they are).

    runs / ncu: {run name: path} of this script's JSON and ncu_fast.py --summarize JSON; sanitizer_logs: {tool: path}
    (compute-sanitizer on benchmarks/sanitize_fast.py); notes: keys to set. Each run's fast rows become "results"
    entries (measured_as 'fast'); the last run gives config and final resources."""
    import re
    if os.path.exists(record):
        with open(record) as f:
            rec = json.load(f)
    else:                                     # a new record (another GPU): the skeleton the runs fill in
        rec = {"what": "mma_fast on the GPU: benchmarks/record_level6_fast.py (+ graph_fast.py), assembled by "
                       "record_level6_fast.add_runs", "kernel": "mma_fast", "goal": {"2048": 0.45, "4096": 0.50},
               "results": [], "runs": {}, "ncu": {}, "ratio_from_ncu_durations_4096": {}, "sanitizer": {}}
    for name, path in (graphs or {}).items():
        with open(path) as f:
            rec.setdefault("graphs", {})[name] = json.load(f)
    for name, path in runs.items():
        with open(path) as f:
            raw = json.load(f)
        rec["runs"][name] = raw
        rows = raw["ablation"]
        for n in sorted({r["n"] for r in rows}):
            row = next(r for r in rows if r["variant"] == "fast" and r["n"] == n)
            cub = next(r for r in rows if r["variant"] == "cuBLAS" and r["n"] == n)
            rec["results"].append({
                "run": name, "n": n, "measured_as": "fast", "tflops": round(row["tflops"], 1),
                "ratio": round(row["tflops"] / cub["tflops"], 4), "cublas_tflops": round(cub["tflops"], 1),
                "ratio_rounds": [round(a / b, 4) for a, b in zip(row["tflops_rounds"], cub["tflops_rounds"])],
                "host_us_per_launch": {k: round(r["host_us_per_launch"], 1) for k, r in (("fast", row), ("cuBLAS", cub))
                                       if isinstance(r.get("host_us_per_launch"), float)},
                "clock_mhz": {"fast": row.get("clock", {}).get("sm_mhz"), "cuBLAS": cub.get("clock", {}).get("sm_mhz")},
                "note": "the final kernel (lean addresses); 5 rotated rounds, median"})
        rec["config"], rec["final"] = raw["config"], raw["resources"]["mma_fast"]
        rec["previous_best"] = raw["resources"]["mma_swizzle"]
        for k in ("gpu", "cc", "date", "baseline"):
            rec[k] = raw[k]
        rec["correctness"], rec["ragged_nan_identity_ok"] = raw["correctness"], raw["ragged_nan_identity_ok"]
    for name, path in ncu.items():
        with open(path) as f:
            prof = json.load(f)
        rec["ncu"][name] = prof
        rec["ratio_from_ncu_durations_4096"][name] = {
            k: round(prof["cublas"]["duration_ns"] / prof[k]["duration_ns"], 4) for k in ("mma_fast", "mma_swizzle")}
    for tool, path in sanitizer_logs.items():
        with open(path) as f:
            rec["sanitizer"][tool] = re.findall(r"(ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)", f.read())[-1:]
    rec.update(notes)
    with open(record, "w") as f:
        json.dump(rec, f, indent=1)
    return rec
