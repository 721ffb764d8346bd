"""What the simulator's race detector costs each notebook: every notebook run under nbval on the simulator with the
detector on (SGEMM_RACECHECK unset: `raise`, what a student gets) and off (SGEMM_RACECHECK=off), one setting at a
time per notebook, alternating the order per notebook so that neither setting always runs first; the offline compile
cache is filled by a first, unrecorded run of each notebook. --jobs N runs N notebooks side by side (a host with many
cores: no notebook waits for a core).

Run (no GPU needed): python benchmarks/detector_cost.py [--notebooks 06 07 ...] [--jobs 6]
  -> course/recorded/detector_cost_sim.json (the one schema of course/records.py: a run without timing rows, the
  per-notebook walls and sums of cell times under extra). With the detector off, cells that show a race report fail
  (there is none to show): their count is kept beside the times, which still cover every cell."""
import argparse
import datetime
import glob
import os
import platform
import re
import runpy
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the one chapter list (course/chapters.py), read without importing the course package (that picks a device)
CHAPTERS = runpy.run_path(os.path.join(ROOT, "course", "chapters.py"))["numbers"]()
sys.path.insert(0, ROOT)
LINE = re.compile(r"^\s*([\d.]+)s call\s+\S+::Cell (\d+)")
METHOD = ("nbval (--nbval-lax) of each notebook in its own pytest process on the Numba CUDA simulator, detector on "
          "(default) and off (SGEMM_RACECHECK=off), one process at a time, after one unrecorded run per notebook "
          "(benchmarks/detector_cost.py)")


def run(nb, detector):
    env = {k: v for k, v in os.environ.items() if k != "SGEMM_RACECHECK"}
    env["SGEMM_DEVICE"] = "sim"
    if not detector:
        env["SGEMM_RACECHECK"] = "off"
    t0 = time.time()
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                        "-p", "no:randomly", "--nbval-lax", "--nbval-current-env", "--durations=0", nb],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    cells = sum(float(m.group(1)) for m in map(LINE.match, p.stdout.splitlines()) if m)
    failed = len(re.findall(r"^FAILED ", p.stdout, re.M))
    return {"wall_s": round(wall, 1), "cells_s": round(cells, 1), "failed_cells": failed}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebooks", nargs="+", default=CHAPTERS)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "course", "recorded"))
    ap.add_argument("--no-warm", action="store_true", help="skip the unrecorded first run")
    ap.add_argument("--jobs", type=int, default=1, help="notebooks run side by side (each on and off in turn)")
    a = ap.parse_args()
    def one(i, n):
        nb = glob.glob(os.path.join(ROOT, "notebooks", f"{n}_*.ipynb"))[0]
        if not a.no_warm:
            run(nb, True)
        order = (True, False) if i % 2 == 0 else (False, True)
        res = {("on" if d else "off"): run(nb, d) for d in order}
        res["ratio"] = round(res["on"]["cells_s"] / max(res["off"]["cells_s"], 1e-9), 2)
        print(n, res, flush=True)
        return n, res

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:       # --jobs > 1: notebooks side by side (many cores)
        out = dict(pool.map(lambda x: one(*x), enumerate(a.notebooks)))
    from course import records
    rec = {"what": "benchmarks/detector_cost.py: the race detector's cost per notebook on the simulator",
           "gpu": f"Numba CUDA simulator ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)",
           "cc": [9, 0], "date": datetime.date.today().isoformat(), "jobs": a.jobs, "notebooks": out}
    path = records.save(records.from_flat("detector_cost_sim", rec, f"sim_{rec['date']}", METHOD), a.out_dir)
    print("->", path)


if __name__ == "__main__":
    main()
