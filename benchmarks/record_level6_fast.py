"""Record mma_fast on the GPU in one run: correctness, loaded resources, and the ablation sweep vs cuBLAS HGEMM.

The sweep is benchmarks/explore_fast.sweep over course.bench.run: cuBLAS (cublasGemmEx f16 x f16 -> f32,
CUBLAS_COMPUTE_32F) and every variant checked first, then timed in the same rotated rounds through `launch` (CUDA
graphs where Python's launch cost would be timed, or everywhere with --graphs). The run is written in the one schema
(course/records.py) into the record --out: added to it (or replacing the run of the same --run-id), with this run's
own findings under the run's extra (config, correctness, ragged_nan_identity_ok, resources), as the runs of
course/recorded/gpu_h100_level6_fast.json have them. The record's own sections (goal, final, notes) are left alone:
they say which runs the lesson reads. ncu summaries (benchmarks/ncu_fast.py --summarize) and compute-sanitizer logs
(benchmarks/sanitize_fast.py) go into the record with add_findings().
Run (GPU): python benchmarks/record_level6_fast.py --out course/recorded/gpu_h100_level6_fast.json --run-id run8
"""
import argparse
import dataclasses
import json
import os
import re
import sys
import traceback
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernels_numba as kn                        # noqa: E402
from course import bench, records                 # noqa: E402
import explore_fast                               # noqa: E402
import record_level6                              # noqa: E402

# the ablation: the final configuration, each switch turned back alone, larger tiles, and the previous best
# (no_pipeline since 2026-11-26: runs 5/6 lack it, so the pipeline with lean and lean without the pipeline were not
# yet timed; barrier_at_tile_start is no_pipeline without lean, the kernel runs 5/6 timed under that name)
ABLATION = ["fast", "no_lean", "no_pipeline", "barrier_at_tile_start", "no_prefetch", "no_swizzle", "raster_g8",
            "stages2", "stages4_lean_dyn", "bk64_lean_dyn", "128x256_s4_dyn", "128x256x64_dyn", "no_launch_bounds",
            "mma_swizzle"]
WHAT = "mma_fast on the GPU: benchmarks/record_level6_fast.py (course.bench), ablation vs cuBLAS HGEMM, same run"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="the record to write the run into (created if missing)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--variants", nargs="+", default=ABLATION)
    ap.add_argument("--graphs", action="store_true", help="time every size from CUDA graphs (else where launch-bound)")
    ap.add_argument("--run-id", default=None, help="default: <gpu class>_<date>")
    args = ap.parse_args(argv)
    why = bench.available()
    if why:
        sys.exit(f"record_level6_fast: {why}")
    specs = [kn.get("mma_fast"), kn.get("mma_swizzle")]
    found = {"what": "benchmarks/record_level6_fast.py (course.bench)", "config": specs[0].module.CONFIG}
    for part, fn in (("correctness", lambda: record_level6.correctness(specs)),
                     ("ragged_nan_identity_ok", lambda: explore_fast.check_ragged(specs[0].launch))):
        try:
            found[part] = fn()
        except Exception:                            # noqa: BLE001
            found[part + "_error"] = traceback.format_exc()
            print(found[part + "_error"], flush=True)
    run = explore_fast.sweep(args.variants, args.sizes, args.rounds, graphs=True if args.graphs else None,
                             run_id=args.run_id)
    found["resources"] = record_level6.resources(specs)     # as loaded: both have run by now
    run = dataclasses.replace(run, extra={**run.extra, **found})
    path = bench.save_run(args.out, run, WHAT)
    print(json.dumps(found["resources"], indent=0)[:1500])
    print(run.name)
    print(explore_fast.table(run))
    if run.flagged:
        print("# FLAGGED:", run.flagged, flush=True)
    print("->", path)
    return 0 if explore_fast.ok(run) else 1


def add_findings(record, ncu=None, sanitizer_logs=None, notes=None):
    """Add what ncu and compute-sanitizer found to the record at path `record` (its extra; the runs stay as they are).

    ncu: {run id: path} of benchmarks/ncu_fast.py --summarize JSON (extra ncu[run], and the isolated-duration ratios
    extra ratio_from_ncu_durations_4096[run]); sanitizer_logs: {tool: path} of compute-sanitizer logs of
    benchmarks/sanitize_fast.py (extra sanitizer[tool]: the summary line); notes: extra keys to set."""
    path = Path(record)
    rec = records.load(path.stem, path.parent)
    extra = dict(rec.extra)
    for name, p in (ncu or {}).items():
        with open(p) as f:
            prof = json.load(f)
        extra.setdefault("ncu", {})[name] = prof
        extra.setdefault("ratio_from_ncu_durations_4096", {})[name] = {
            k: round(prof["cublas"]["duration_ns"] / prof[k]["duration_ns"], 4) for k in ("mma_fast", "mma_swizzle")}
    for tool, p in (sanitizer_logs or {}).items():
        with open(p) as f:
            extra.setdefault("sanitizer", {})[tool] = re.findall(r"(ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)",
                                                                  f.read())[-1:]
    extra.update(notes or {})
    return records.save(dataclasses.replace(rec, extra=extra), path.parent)


if __name__ == "__main__":
    sys.exit(main())
