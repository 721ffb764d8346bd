"""answers/ch10/ex10_fragment.py (notebook 10's exercise) agrees with sim.mma and the kernels' computed shared memory."""
import importlib.util
from pathlib import Path

import pytest

import kernels_numba as kn
from sim import mma

spec = importlib.util.spec_from_file_location("ex10", Path(__file__).resolve().parents[2] / "answers" / "ch10" / "ex10_fragment.py")
ex10 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex10)


def test_c_owner_matches_model():
    for r in range(16):
        for c in range(8):
            assert ex10.c_owner(r, c) == mma.owner("C", r, c)
    with pytest.raises(ValueError):
        ex10.c_owner(16, 0)


def test_smem_bytes_matches_modules():
    for name in ("mma_warps", "mma_pipe", "mma_pipe4"):
        cfg = kn.get(name).module.CONFIG
        assert ex10.smem_bytes(cfg["BM"], cfg["BN"], cfg["BK"], cfg["STAGES"]) == kn.get(name).module.SMEM_BYTES
