"""Simulator speed figures (issue goal: 16x16 tiled SGEMM 64^3 <= 2 s, 128^3 <= 15 s on a 2-core machine).

Usage: python benchmarks/bench_sim.py   (forces the simulator; prints seconds per kernel and size)
"""
import os
import sys
import time

os.environ["SGEMM_DEVICE"] = "sim"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                      # noqa: E402

import kernels_numba as kn              # noqa: E402

GOALS = {("tiled", 64): 2.0, ("tiled", 128): 15.0}

if __name__ == "__main__":
    print(f"# simulator, {os.cpu_count()} CPU cores")
    rng = np.random.default_rng(0)
    for spec in kn.REGISTRY:
        for n in (64, 128):
            A = rng.standard_normal((n, n), dtype=np.float32)
            B = rng.standard_normal((n, n), dtype=np.float32)
            C = np.zeros((n, n), np.float32)
            t = time.perf_counter()
            spec.launch(A, B, C)
            dt = time.perf_counter() - t
            ok = np.allclose(C, A @ B, rtol=1e-4, atol=1e-3)
            goal = GOALS.get((spec.name, n))
            note = f"  (goal <= {goal:.0f} s: {'met' if dt <= goal else 'MISSED'})" if goal else ""
            print(f"{spec.name:10s} {n:4d}^3 {dt:6.2f} s {'OK' if ok else 'WRONG'}{note}")
