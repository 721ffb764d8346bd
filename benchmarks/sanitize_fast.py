"""Run mma_fast once per small ragged shape (compute-sanitizer target: memcheck, racecheck, synccheck).

Usage on a GPU machine: for t in memcheck racecheck synccheck; do compute-sanitizer --tool $t ... python3
benchmarks/sanitize_fast.py; done (memcheck with --report-api-errors no, as benchmarks/sanitize_level5.sh)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from kernels_numba import tc                # noqa: E402

from sanitize_common import name_the_gpu     # noqa: E402  (benchmarks/ is the script's folder)

name_the_gpu()

rng = np.random.default_rng(1)
bad = 0
for M, N, K in [(144, 136, 112), (16, 8, 16)]:      # edge blocks and the stage ring wrapping; one tile
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.full((M, N), np.nan, np.float32)
    kn.get("mma_fast").launch(A, B, C)
    ok = bool((np.abs(C - tc.reference(A, B)) <= tc.error_bound(A, B)).all())
    bad += not ok
    print("mma_fast", (M, N, K), "OK" if ok else "WRONG", flush=True)
sys.exit(1 if bad else 0)
