"""Every registered kernel against numpy in the simulator, incl. shapes that are not tile multiples."""
import numpy as np
import pytest

import kernels_numba as kn

SHAPES = [(1, 1, 1), (17, 33, 5), (100, 70, 50), (32, 48, 40)]
# float32 kernels here; the float16 Tensor Core kernels (level 6) have their own sizes and tolerance: tests/test_tc_kernels.py
F32 = [s for s in kn.REGISTRY if s.dtype is np.float32]


def _ref(A, B, C0, alpha, beta):
    return (alpha * (A.astype(np.float64) @ B.astype(np.float64)) + beta * C0.astype(np.float64))


@pytest.mark.parametrize("spec", F32, ids=lambda s: s.name)
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_matches_numpy(spec, M, N, K):
    rng = np.random.default_rng(M * 1000 + N * 10 + K)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = np.full((M, N), np.nan, np.float32)          # beta=0: C is output only, NaN must not leak in
    out = spec.launch(A, B, C)
    assert out is C
    assert np.isfinite(C).all(), "unwritten or NaN outputs"
    np.testing.assert_allclose(C, _ref(A, B, C, 1.0, 0.0), rtol=1e-4, atol=1e-4 * np.sqrt(K))


@pytest.mark.parametrize("spec", F32, ids=lambda s: s.name)
def test_alpha_beta(spec):
    rng = np.random.default_rng(3)
    M, N, K = 19, 21, 23
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32)
    C = C0.copy()
    spec.launch(A, B, C, alpha=1.5, beta=-0.5)
    np.testing.assert_allclose(C, _ref(A, B, C0, 1.5, -0.5), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("spec", F32, ids=lambda s: s.name)
def test_wrong_kernel_would_fail(spec, monkeypatch):
    """The check above is not vacuous: a result off by one K term fails it."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((17, 5), dtype=np.float32)
    B = rng.standard_normal((5, 33), dtype=np.float32)
    C = np.zeros((17, 33), np.float32)
    spec.launch(A, B, C)
    wrong = C - np.outer(A[:, -1], B[-1, :])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(wrong, _ref(A, B, C, 1.0, 0.0), rtol=1e-4, atol=1e-4)


def test_registry_is_the_one_list():
    names = [s.name for s in kn.REGISTRY]
    assert len(names) == len(set(names))
    assert {"naive", "tiled", "tiled_pad", "tiled_fma"} <= set(names)
    for s in kn.REGISTRY:
        assert s.level in (1, 2, 3, 4, 5, 6, 7) and s.description and s.dtype in (np.float32, np.float16)
        assert (s.dtype is np.float16) == (s.level >= 6)          # Tensor Cores: mma.sync (6), wgmma (7)
        assert kn.get(s.name) is s
    assert kn.get("naive").level == 1


def test_sgemm_by_name():
    A = np.ones((3, 4), np.float32)
    B = np.ones((4, 5), np.float32)
    C = kn.sgemm("tiled", A, B, np.zeros((3, 5), np.float32))
    assert (C == 4).all()
