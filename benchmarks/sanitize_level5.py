"""Run every level-5 kernel once on small ragged shapes (compute-sanitizer target, see sanitize_level5.sh)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402

from sanitize_common import name_the_gpu     # noqa: E402  (benchmarks/ is the script's folder)

name_the_gpu()

rng = np.random.default_rng(1)
bad = 0
for name in sys.argv[1:] or [s.name for s in kn.by_level(5)]:
    for M, N, K in [(130, 131, 13), (64, 64, 40), (33, 257, 9)]:   # edge tiles, 5 K tiles, unaligned rows
        A = rng.standard_normal((M, K), dtype=np.float32)
        B = rng.standard_normal((K, N), dtype=np.float32)
        C = np.full((M, N), np.nan, np.float32)
        kn.get(name).launch(A, B, C)
        ok = np.allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-3)
        bad += not ok
        print(name, (M, N, K), "OK" if ok else "WRONG", flush=True)
sys.exit(1 if bad else 0)
