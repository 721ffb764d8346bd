"""On a GPU: how often do the kernels missing a barrier give a wrong result? (Run them many times on one input put on
the device once: the race shows up run to run through timing; the record says so in races.inputs.)

Usage: python benchmarks/gpu_races.py [--n 1024] [--runs 20] [--json out.json]
With --once: launch tiled, no_sync1, no_sync2 once each on a small problem (for compute-sanitizer racecheck).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                      # noqa: E402

import kernels_numba as kn              # noqa: E402
from kernels_numba.demos import races         # noqa: E402

CASES = (("tiled", kn.get("tiled").launch), ("no_sync1", races.launch_no_sync1), ("no_sync2", races.launch_no_sync2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    if a.once:
        A = rng.standard_normal((64, 64), dtype=np.float32)
        B = rng.standard_normal((64, 64), dtype=np.float32)
        for name, launch in CASES:
            launch(A, B, np.zeros((64, 64), np.float32))
        return 0
    from course.ch06_shared_tiling import lesson as lesson06          # the notebook's own runner: one definition of "wrong"
    out = {"n": a.n, "runs": a.runs, "inputs": "one", "cases": {}}     # lesson06.race_outcomes on a GPU: one upload
    for name, o in lesson06.race_outcomes(a.n, a.runs, seed=7, names=[n for n, _ in CASES]).items():
        out["cases"][name] = {"wrong_runs": int(o["wrong"]), "worst_rel_err": o["worst"]}
        print(f"{name:9s} wrong in {o['wrong']:2d}/{a.runs} runs, worst relative error {o['worst']:.2e}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
