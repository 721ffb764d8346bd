"""Level 7 (Hopper, sm_90a): each kernel against a float64 reference with the derived error bound on the simulator,
ragged shapes (M, N, K not tile multiples) included, alpha/beta, identity; the registry's facts; and the SASS the
kernels compile to offline (HGMMA, TMA, no local memory, no wgmma serialisation)."""
import os

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba import tc
from kernels_numba.tools import offline

L7 = kn.by_level(7)
# small shapes that still cover: ragged M/N/K, several blocks, the stage ring wrapping (K > STAGES * 64), and for the
# persistent kernel several tiles per block (the simulator's grid has 2 blocks)
SHAPES = {"wgmma_simple": [(70, 50, 100)],
          "wgmma_tma": [(64, 40, 300)],
          "wgmma_ws": [(40, 24, 24), (136, 264, 70)]}
# `make test-hopper` (SGEMM_FULL_SIM=1): larger shapes, several blocks in both dimensions, more tiles per block
if os.environ.get("SGEMM_FULL_SIM") == "1":
    SHAPES["wgmma_simple"] += [(128, 64, 64), (200, 130, 150)]
    SHAPES["wgmma_tma"] += [(130, 136, 64), (100, 72, 300), (260, 140, 300)]
    SHAPES["wgmma_ws"] += [(136, 264, 130), (300, 520, 70)]


def _run(spec, M, N, K, alpha=1.0, beta=0.0, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy() if beta != 0 else np.full((M, N), np.nan, np.float32)
    assert spec.launch(A, B, C, alpha, beta) is C
    return A, B, C, C0, tc.error_bound(A, B, alpha, beta, C0)


def test_level7_registered():
    assert [s.name for s in L7] == ["wgmma_simple", "wgmma_tma", "wgmma_ws"]
    for s in L7:
        assert s.min_cc == (9, 0) and s.arch_specific and s.dtype is np.float16
        assert "sm_90a" in s.module.NOTE


def test_only_cc_90_runs_sm90a_code(monkeypatch):
    """sm_90a instructions exist on CC 9.0 only: not on an A100, nor on a newer Blackwell GPU (CC 10.0 / 12.0)."""
    monkeypatch.setattr(device, "SIMULATOR", False)
    for cc, runs in (((8, 0), False), ((9, 0), True), ((10, 0), False), ((12, 0), False)):
        monkeypatch.setattr(device, "GPU", ("x", cc))
        assert [s.runs_here() for s in L7] == [runs] * 3, cc
        assert kn.get("mma_fast").runs_here() == (cc >= (8, 0))


@pytest.mark.parametrize("spec", L7, ids=lambda s: s.name)
def test_matches_float64_on_ragged_shapes(spec):
    for M, N, K in SHAPES[spec.name]:
        A, B, C, C0, bound = _run(spec, M, N, K)
        assert np.isfinite(C).all(), (M, N, K)
        err = np.abs(C.astype(np.float64) - tc.reference(A, B))
        assert (err <= bound).all(), (M, N, K, float((err / bound).max()))


@pytest.mark.parametrize("spec", L7, ids=lambda s: s.name)
def test_alpha_beta(spec):
    M, N, K = SHAPES[spec.name][0]
    A, B, C, C0, bound = _run(spec, M, N, K, alpha=1.5, beta=-0.5, seed=3)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, 1.5, -0.5, C0))
    assert (err <= bound).all()


def test_identity_is_exact():
    """A = I: C equals B exactly (each output is one product 1*b plus zeros), so a misplaced element cannot hide in
    the tolerance."""
    spec = kn.get("wgmma_tma")
    rng = np.random.default_rng(4)
    B = rng.standard_normal((72, 40)).astype(np.float16)
    C = np.zeros((72, 40), np.float32)
    spec.launch(np.eye(72, dtype=np.float16), B, C)
    assert np.array_equal(C, B.astype(np.float32))


@pytest.mark.parametrize("spec", L7, ids=lambda s: s.name)
def test_sass_offline(spec):
    """sm_90a: HGMMA in the SASS (one wgmma.fence per batch: not serialised), the copies are TMA (UTMALDG) where the
    kernel uses it, no local memory (the accumulators stay in registers), no subroutine call, and ptxas reports no
    serialisation (C7509/C7514/C7515) and no injected wait (C7517)."""
    r = offline.compile_kernel(spec.name, (9, 0))
    assert r.get("arch") == "sm_90a"
    counts = offline.sass_counts(r["sass"])
    hgmma = sum(v for k, v in counts.items() if k.startswith("HGMMA"))
    assert hgmma == {"wgmma_simple": 4, "wgmma_tma": 4, "wgmma_ws": 8}[spec.name], counts
    assert counts.get("WARPGROUP.ARRIVE") == 1, counts
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0, r["usage"]
    assert not any(k.startswith(("LDL", "STL", "CALL")) for k in counts), counts
    for code in ("C7509", "C7514", "C7515", "C7517"):
        assert code not in r.get("ptxas_log", ""), r["ptxas_log"]
    if spec.name != "wgmma_simple":
        assert counts.get("UTMALDG.2D", 0) >= 2 and any(k.startswith("SYNCS.PHASECHK") for k in counts)


def test_persistent_kernel_fits_one_block_per_sm():
    r = offline.compile_kernel("wgmma_ws", (9, 0))
    spec = kn.get("wgmma_ws")
    assert r["usage"]["registers"] * spec.threads <= 65536          # launch_bounds(384, 1)
    assert spec.dynamic_smem + r["usage"]["shared_bytes"] <= 227 * 1024
