"""Simulator speed figures, with the race detector on (the default) and off, per kernel.

Usage: python benchmarks/bench_sim.py [--sizes 64 128] [--json out.json]   (forces the simulator)
Goal (issue of the fast scheduler): 16x16 tiled SGEMM 64^3 <= 2 s, 128^3 <= 15 s on a 2-core machine, detector on.
Times are CPU seconds of this process (time.process_time), so other load on the machine changes them less.
"""
import argparse
import json
import os
import sys
import time

os.environ["SGEMM_DEVICE"] = "sim"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                      # noqa: E402

import kernels_numba as kn              # noqa: E402
from kernels_numba.infra.simulator import racecheck  # noqa: E402

GOALS = {("tiled", 64): 2.0, ("tiled", 128): 15.0}


def _inputs(spec, n, rng):
    if spec.level == 6:
        n = max(n, 128) if spec.name != "mma_simple" else 16
        shape = (16, 8, 16) if spec.name == "mma_simple" else (n, n, n)
        A = rng.standard_normal(shape[::2]).astype(np.float16)
        B = rng.standard_normal(shape[2:0:-1]).astype(np.float16)
        C = np.zeros(shape[:2], getattr(spec.module, "C_DTYPE", np.float32))
        return A, B, C
    return (rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32),
            np.zeros((n, n), np.float32))


def timed(spec, n, mode):
    A, B, C = _inputs(spec, n, np.random.default_rng(0))
    with racecheck.mode(mode):
        t = time.process_time()
        spec.launch(A, B, C)
        dt = time.process_time() - t
    ref = A.astype(np.float64) @ B.astype(np.float64)
    return dt, bool(np.allclose(C, ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[64])
    ap.add_argument("--kernels", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    print(f"# simulator, {os.cpu_count()} CPU cores; CPU seconds with the race detector on / off")
    rows = []
    for spec in kn.REGISTRY:
        if a.kernels and spec.name not in a.kernels:
            continue
        for n in a.sizes:
            on, ok = timed(spec, n, "raise")
            off, _ = timed(spec, n, "off")
            goal = GOALS.get((spec.name, n))
            note = f"  (goal <= {goal:.0f} s: {'met' if on <= goal else 'MISSED'})" if goal else ""
            print(f"{spec.name:16s} {n:4d}  on {on:6.2f} s  off {off:6.2f} s  x{on / off:4.2f}  "
                  f"{'OK' if ok else 'WRONG'}{note}", flush=True)
            rows.append({"kernel": spec.name, "n": n, "on_s": on, "off_s": off, "ok": ok})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
