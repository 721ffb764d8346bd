"""Level-3 register-blocking kernels in the simulator: several 128x128 blocks, edges that are not tile multiples."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.demos import regblock_t16
from kernels_numba import regblock, regblock_opt, regblock_vec

LEVEL3 = [kn.get(n) for n in ("regblock", "regblock_opt", "regblock_vec")]
# > one block in M and N, K not a multiple of BK; the first has full interior tiles (regblock_vec's fast path) too
SHAPES = [(130, 136, 12), (129, 257, 9)]


def _ref(A, B, C0, alpha, beta):
    return alpha * (A.astype(np.float64) @ B.astype(np.float64)) + beta * C0.astype(np.float64)


def _problem(M, N, K, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, K), dtype=np.float32), rng.standard_normal((K, N), dtype=np.float32)


@pytest.mark.parametrize("launch", [s.launch for s in LEVEL3] + [regblock_t16.launch],
                         ids=[s.name for s in LEVEL3] + ["regblock_t16"])
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_multi_block_edges(launch, M, N, K):
    A, B = _problem(M, N, K, M + N + K)
    C = np.full((M, N), np.nan, np.float32)          # beta=0: C must not be read
    assert launch(A, B, C) is C
    assert np.isfinite(C).all(), "unwritten or NaN outputs"
    np.testing.assert_allclose(C, _ref(A, B, C, 1.0, 0.0), rtol=1e-4, atol=1e-4 * np.sqrt(K))


@pytest.mark.parametrize("launch", [regblock_vec.launch, regblock_t16.launch], ids=["regblock_vec", "regblock_t16"])
def test_alpha_beta_multi_block(launch):
    A, B = _problem(130, 136, 12, 7)
    C0 = np.random.default_rng(8).standard_normal((130, 136), dtype=np.float32)
    C = C0.copy()
    launch(A, B, C, alpha=0.5, beta=2.0)
    np.testing.assert_allclose(C, _ref(A, B, C0, 0.5, 2.0), rtol=1e-4, atol=1e-3)


def test_tiles_and_threads():
    for m in (regblock, regblock_opt, regblock_vec):
        assert (m.BM, m.BN, m.BK, m.TM, m.TN) == (128, 128, 8, 8, 8) and m.BLOCK == (16, 16)
        assert m.launch.block == m.BLOCK and m.launch.tile == (m.BM, m.BN)
    assert (regblock.A_TILE_ROW_STRIDE, regblock.B_TILE_ROW_STRIDE) == (32, 2)
    assert (regblock_t16.TM, regblock_t16.TN, regblock_t16.BLOCK) == (16, 16, (8, 8))
    assert "regblock_t16" not in {s.name for s in kn.REGISTRY}    # a spilling demo, not a kernel to compare


def test_level3_registered_after_level2():
    names = [s.name for s in kn.REGISTRY]
    assert names.index("regblock") == names.index("tiled_k32") + 1
    assert names[names.index("regblock"):names.index("regblock") + 3] == ["regblock", "regblock_opt", "regblock_vec"]
    assert all(kn.get(n).level == 3 for n in ("regblock", "regblock_opt", "regblock_vec"))
