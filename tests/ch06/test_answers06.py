"""Solutions of the notebooks' "직접 해보기" exercises (answers/) are correct."""
import sys
from pathlib import Path

import numpy as np

import kernels_numba  # noqa: F401  (device choice before numba)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "answers" / "ch06"))
import ex06_padding  # noqa: E402
import ex06_tile8  # noqa: E402


def test_ex06_padding_only_zero_is_conflict_free():
    assert ex06_padding.wavefronts(0) == (1, 1)
    assert ex06_padding.wavefronts(1) == (2, 1)          # +1 padding: 2-way conflict on the store
    assert ex06_padding.conflict_free_pads(4) == [0]


def test_ex06_tile8_matches_numpy():
    rng = np.random.default_rng(8)
    for M, N, K in ((1, 1, 1), (20, 11, 13), (33, 17, 9)):
        A = rng.standard_normal((M, K), dtype=np.float32)
        B = rng.standard_normal((K, N), dtype=np.float32)
        C = np.full((M, N), np.nan, np.float32)
        ex06_tile8.run(A, B, C)
        np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)
