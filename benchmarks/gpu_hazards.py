"""On a GPU: do issue 25's classes of bugs go wrong there, or does compute-sanitizer flag them? One or two
representative student-style bugs of each class (tests/hazard_cases, the kernels the simulator's tests run) and their
correct twins, each run --runs times with fresh data (how often the result is wrong, or the error the launch or
compile raises), then once under `compute-sanitizer --tool racecheck` and once under `--tool memcheck` (when
compute-sanitizer is on PATH). Writes gpu_hazards_<gpu class>.json (e.g. gpu_hazards_h100.json) in the one
schema of course/records.py: a run without timing rows, the cases under extra.

Usage on a GPU machine with numba-cuda and numpy<2.5 (a few seconds per process; split by --classes to keep each
command short: a run of some classes adds its cases to the record an earlier run on the same GPU wrote):
    python benchmarks/gpu_hazards.py --out OUT [--runs 20] [--classes global,bytes,space] [--no-sanitizer]
Each case runs in its own process (a bug that faults, e.g. a shared address given to ld.global, leaves the CUDA
context unusable): `python benchmarks/gpu_hazards.py --child CASE --side bug --runs 20` prints one JSON line, and runs
the same way under `compute-sanitizer --tool racecheck|memcheck --report-api-errors no python ... --child ...`.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

# the representative pairs: one or two of each class (ids as in tests/hazard_cases, "class-name")
CASES = [
    "global-splitk_plus_equals",             # blocks read-modify-write C without atomics (split-K)
    "global-producer_no_barrier",            # threads of a block pass a value through global memory, no barrier
    "bytes-async_copy_A_float64",            # a float64 matrix given to the FP32 cp.async kernel (astype forgotten)
    "bytes-mma_A_float32",                   # a float32 matrix given to the f16 cp.async + ldmatrix + mma kernel
    "space-ld_global_ca_shared",             # ld.global.ca.f32 given a shared array
    "space-st_global_v4_shared",             # st.global.v4.f32 into a shared array
    "limits-block_4096_threads",             # 4,096 threads in one block
    "limits-static_shared_64k",              # 64 KiB of static shared memory
    "views-T_filled_by_one_thread",          # one thread fills the tile through .T, nobody waits at a barrier
    "views-reshape_1d",                      # stores through reshape(), neighbours read without a barrier
    "warp-tree_reduction_no_syncwarp",       # warp reduction through shared memory without syncwarp
    "warp-shared_histogram_plus_equals",     # += on a shared counter instead of an atomic
    "warp-dynamic_reused_as_float16",        # dynamic shared memory reused with another dtype, no barrier
    "uninit-max_absorbs_nan",                # an unloaded shared element whose garbage max() may keep
    "uninit-module_array_written",           # a kernel writes a module-level numpy array
]


WHAT = ("benchmarks/gpu_hazards.py: issue 25's classes of student bugs (tests/hazard_cases) on a GPU: how often each "
        "bug and its correct twin give a wrong result, the error a launch or compile raises, and what "
        "compute-sanitizer racecheck / memcheck report")
METHOD = ("each side of each case in its own process: --runs launches with fresh data (stopping at the first error), "
          "then one run under compute-sanitizer --tool racecheck and one under --tool memcheck "
          "(--report-api-errors no)")


def _pair(case_id):
    from hazard_cases import all_pairs
    for p in all_pairs():
        if p.id == case_id:
            return p
    raise SystemExit(f"no case {case_id!r}")


def child(case_id, side, runs):
    """Run one side of one case `runs` times: {"wrong_runs", "runs", "error"} as one JSON line."""
    import kernels_numba  # noqa: F401  (picks the device before numba is imported)
    from hazard_cases import close
    from numba import cuda
    p = _pair(case_id)
    fn = p.bug if side == "bug" else p.twin
    wrong, error, done = 0, None, 0
    for _ in range(runs):
        try:
            got, want = fn()
            cuda.synchronize()
        except Exception as e:                  # a refused launch, a compile error, a fault: that is the outcome
            error = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
            break
        done += 1
        wrong += not close(got, want, p.tol)
    print("@@RESULT " + json.dumps({"wrong_runs": wrong, "runs": done, "error": error}, ensure_ascii=False), flush=True)
    return 0


def _run_child(case_id, side, runs, tool=None):
    cmd = [sys.executable, __file__, "--child", case_id, "--side", side, "--runs", str(runs)]
    if tool:
        cmd = ["compute-sanitizer", "--tool", tool, "--report-api-errors", "no", "--print-limit", "200"] + cmd
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    line = next((l for l in r.stdout.splitlines() if l.startswith("@@RESULT ")), None)
    out = json.loads(line[len("@@RESULT "):]) if line else {"wrong_runs": None, "runs": 0,
                                                               "error": f"child failed rc={r.returncode}"}
    out["seconds"] = round(time.time() - t, 1)
    if tool:
        text = r.stdout + r.stderr
        summary = re.findall(r"(RACECHECK SUMMARY: .*|ERROR SUMMARY: .*)", text)
        kinds = sorted(set(re.findall(r"(Race reported between \w+ access|Invalid __\w+__ \w+ of size \d+ bytes|"
                                      r"Misaligned \w+|Address 0x[0-9a-f]+ is out of bounds|"
                                      r"Warp \w+ Address|Invalid \w+ Address|Illegal \w+)", text)))
        out = {"summary": summary[-1] if summary else None, "race_reports": text.count("Race reported"),
               "errors": kinds[:10], "rc": r.returncode, "result": out}
    elif r.returncode and not line:
        out["stderr"] = r.stderr[-1500:]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=".")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--classes", default="", help="comma-separated classes (global,bytes,space,limits,views,warp,"
                                                   "uninit); default: all")
    ap.add_argument("--no-sanitizer", action="store_true")
    ap.add_argument("--child")
    ap.add_argument("--side", choices=["bug", "twin"], default="bug")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.side, a.runs)
    import kernels_numba  # noqa: F401  (picks the device before numba is imported)
    from kernels_numba.infra import device
    if device.SIMULATOR:
        raise SystemExit("gpu_hazards.py needs a GPU (the simulator's own results are tests/test_hazard_classes.py)")
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    classes = set(filter(None, a.classes.split(",")))
    cases = [c for c in CASES if not classes or c.split("-")[0] in classes]
    sanitizer = shutil.which("compute-sanitizer") and not a.no_sanitizer
    rec = {"what": WHAT, "gpu": gpu, "cc": list(dev.compute_capability), "date": datetime.date.today().isoformat(),
           "runs": a.runs, "tools": (["compute-sanitizer --tool racecheck --report-api-errors no",
                                      "compute-sanitizer --tool memcheck --report-api-errors no"] if sanitizer else []),
           "numba_cuda": _version("numba-cuda"), "numpy": _version("numpy"), "cases": {}}
    for c in cases:
        entry = {"class": c.split("-")[0]}
        for side in ("bug", "twin"):
            res = _run_child(c, side, a.runs)
            if sanitizer:
                res["racecheck"] = _run_child(c, side, 1, "racecheck")
                res["memcheck"] = _run_child(c, side, 1, "memcheck")
            entry[side] = res
        rec["cases"][c] = entry
        b, t = entry["bug"], entry["twin"]
        rc = b.get("racecheck", {}).get("race_reports", "-")
        mc = b.get("memcheck", {}).get("errors", "-")
        print(f"{c:40s} bug: wrong {b['wrong_runs']}/{b['runs']} {b['error'] or ''} | racecheck {rc} | memcheck {mc}"
              f" || twin: wrong {t['wrong_runs']}/{t['runs']} {t['error'] or ''}", flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from course import records
    name = "gpu_hazards_" + records.gpu_class(gpu).lower()
    if (out / f"{name}.json").exists():           # a run of other classes on the same GPU: keep its cases
        old = records.load(name, out)
        if old.run().gpu == gpu and old.get("runs_per_case") == a.runs:
            rec["cases"] = {**old["cases"], **rec["cases"]}
    rec["runs_per_case"] = rec.pop("runs")
    run_id = f"{records.gpu_class(gpu).lower()}_hazards_{rec['date']}"
    path = records.save(records.from_flat(name, rec, run_id, METHOD), out)
    print(path)
    return 0


def _version(dist):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:
        return None


if __name__ == "__main__":
    os.environ.setdefault("SGEMM_DEVICE", "gpu")
    sys.exit(main())
