"""compute-sanitizer (memcheck, racecheck, synccheck) on every level-7 kernel, small ragged shapes.

`python benchmarks/sanitize_level7.py` runs this same file three times under compute-sanitizer (memcheck with
--report-api-errors no: the driver's start-up probes are not kernel errors, see NOTES), each run launching every
level-7 kernel once per shape and checking its result, and writes the three logs and a summary:
  -> course/ch11_hopper/records/sanitize_level7.json (a record in the one schema, course/records.py: a run without timing rows,
  the tools' verdicts under extra) and course/ch11_hopper/records/sanitize_level7_<tool>.log (or --out-dir DIR).
`--child` is the run the sanitizer watches. Note: racecheck checks shared-memory accesses of threads; the async
proxy (TMA writes, wgmma reads) is outside what it tracks, which is what the simulator's detector adds.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_LINE = "@@gpu "                # the child names the GPU it ran on: the record's run says where it was checked
SHAPES = [(70, 50, 100), (136, 264, 130), (64, 40, 300)]
METHOD = ("compute-sanitizer memcheck (--report-api-errors no), racecheck and synccheck, each over one process that "
          "launches every level-7 kernel once per shape of SHAPES and checks its result "
          "(benchmarks/sanitize_level7.py)")
TOOLS = {"memcheck": ["--tool", "memcheck", "--report-api-errors", "no"], "racecheck": ["--tool", "racecheck"],
         "synccheck": ["--tool", "synccheck"]}


def child():
    sys.path.insert(0, ROOT)
    import numpy as np
    import kernels_numba as kn
    from kernels_numba import tc
    from numba import cuda
    from kernels_numba.infra import device
    dev = cuda.get_current_device()
    name = getattr(dev, "name", "simulator")                 # the simulator's device has no name (a dry run)
    cc = getattr(dev, "compute_capability", None) or device.SIM_CC or (9, 0)
    print(f"{GPU_LINE}{name.decode() if isinstance(name, bytes) else name}|{cc[0]}.{cc[1]}", flush=True)
    rng = np.random.default_rng(1)
    bad = 0
    for spec in kn.by_level(7):
        for M, N, K in SHAPES:
            A = rng.standard_normal((M, K)).astype(np.float16)
            B = rng.standard_normal((K, N)).astype(np.float16)
            C = np.full((M, N), np.nan, np.float32)
            spec.launch(A, B, C)
            ok = bool(np.isfinite(C).all() and (np.abs(C - tc.reference(A, B)) <= tc.error_bound(A, B)).all())
            bad += not ok
            print(spec.name, (M, N, K), "OK" if ok else "WRONG", flush=True)
    sys.exit(1 if bad else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "course", "ch11_hopper", "records"))
    ap.add_argument("--sanitizer", default=shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer")
    args = ap.parse_args()
    if args.child:
        return child()
    rec = {"what": "benchmarks/sanitize_level7.py: compute-sanitizer on the level-7 kernels",
           "date": datetime.date.today().isoformat(), "shapes": SHAPES, "tools": {}, "gpu": "?", "cc": []}
    for tool, flags in TOOLS.items():
        p = subprocess.run([args.sanitizer, *flags, sys.executable, os.path.abspath(__file__), "--child"],
                           capture_output=True, text=True, cwd=ROOT)
        log = p.stdout + p.stderr
        where = re.search(re.escape(GPU_LINE) + r"(.*)\|(\d+)\.(\d+)", log)
        if where:
            rec["gpu"], rec["cc"] = where.group(1), [int(where.group(2)), int(where.group(3))]
        with open(os.path.join(args.out_dir, f"sanitize_level7_{tool}.log"), "w") as f:
            f.write(log)
        summary = re.findall(r"(ERROR SUMMARY: .*|RACECHECK SUMMARY: .*)", log)
        rec["tools"][tool] = {"exit": p.returncode, "summary": summary[-1:],
                              "results_ok": log.count(" OK") == len(SHAPES) * 3 and "WRONG" not in log,
                              "clean": p.returncode == 0 and all(" 0 " in s or s.endswith(" 0") or "0 hazards" in s
                                                                 or "0 errors" in s for s in summary[-1:])}
        print(tool, rec["tools"][tool], flush=True)
    sys.path.insert(0, ROOT)
    from course import records
    run_id = f"{records.gpu_class(rec['gpu']).lower()}_{rec['date']}"
    path = records.save(records.from_flat("sanitize_level7", rec, run_id, METHOD), args.out_dir)
    print("->", path)


if __name__ == "__main__":
    main()
