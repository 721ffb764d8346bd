"""Solutions of notebook 07's "직접 해보기" exercises (answers/ch07/ex07_*.py) are correct."""
import sys
from pathlib import Path

import pytest

import kernels_numba  # noqa: F401  (device choice before numba)
from kernels_numba import regblock
from sim import occupancy as occ

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "answers" / "ch07"))
import ex07_coop_load  # noqa: E402
import ex07_occupancy  # noqa: E402


def test_coop_load_reproduces_regblock_constants():
    m = ex07_coop_load.load_map(regblock.THREADS, regblock.BM, regblock.BK)
    assert ex07_coop_load.covers_once(m, regblock.BM, regblock.BK)
    assert set(ex07_coop_load.loads_per_thread(m).values()) == {regblock.BM * regblock.BK // regblock.THREADS}
    assert m[(13, 0)] == (13 // regblock.BK, 13 % regblock.BK)                           # tid 13: As[1][5]
    assert m[(13, 1)] == (13 // regblock.BK + regblock.A_TILE_ROW_STRIDE, 13 % regblock.BK)
    b = ex07_coop_load.load_map(regblock.THREADS, regblock.BK, regblock.BN)
    assert ex07_coop_load.covers_once(b, regblock.BK, regblock.BN)


@pytest.mark.parametrize("threads, rows, cols, per_thread", [
    (256, 128, 16, 8),      # the exercise: BK = 16 -> stride 16 rows, 8 passes
    (256, 16, 128, 8),      # its B tile: stride 2 rows, 8 passes
    (128, 128, 8, 8),       # 128 threads: stride 16
    (64, 64, 8, 8),
])
def test_coop_load_covers_other_shapes_once(threads, rows, cols, per_thread):
    m = ex07_coop_load.load_map(threads, rows, cols)
    assert ex07_coop_load.covers_once(m, rows, cols)
    assert set(ex07_coop_load.loads_per_thread(m).values()) == {per_thread}


def test_coop_load_rejects_impossible_and_detects_gaps():
    with pytest.raises(ValueError):
        ex07_coop_load.load_map(256, 128, 24)                  # 24 does not divide 256
    m = ex07_coop_load.load_map(256, 128, 8)
    m.pop((0, 0))
    assert not ex07_coop_load.covers_once(m, 128, 8)


@pytest.mark.parametrize("gpu", sorted(occ.GPUS))
@pytest.mark.parametrize("threads", [64, 128, 256, 384, 1024])
def test_register_limit_matches_model(gpu, threads):
    spec = occ.GPUS[gpu]
    for regs in range(1, 256):
        want = occ.occupancy(spec, regs, threads).limits["registers"]
        assert ex07_occupancy.register_limited_blocks(regs, threads) == want, (gpu, threads, regs)


def test_register_limited_occupancy_of_regblock_sizes():
    assert ex07_occupancy.register_limited_occupancy(120, 256) == 0.25
    assert ex07_occupancy.register_limited_occupancy(90, 256) == 0.25      # the seed's 90 registers: not 34.4 %
    assert ex07_occupancy.register_limited_occupancy(64, 256) == 0.5
