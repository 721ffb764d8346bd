"""sim.mma: the fragment layouts are a bijection onto each tile, match the PTX ISA formulas, and ldmatrix feeds mma."""
import json
from pathlib import Path

import numpy as np
import pytest

from sim import mma
from course import records

RECORD = Path(__file__).resolve().parents[1] / "course" / "recorded" / "mma_layout_h200.json"


@pytest.mark.parametrize("matrix,count", [("A", 8), ("B", 4), ("C", 4)])
def test_each_element_has_exactly_one_owner(matrix, count):
    seen = {}
    for lane in range(32):
        els = mma.ELEMENTS[matrix](lane)
        assert len(els) == count
        for e in els:
            assert e not in seen
            seen[e] = lane
    rows, cols = mma.SHAPES[matrix]
    assert set(seen) == {(r, c) for r in range(rows) for c in range(cols)}


def test_ptx_isa_examples():
    # lane 0: groupID 0, threadID_in_group 0; lane 5: groupID 1, tid 1; lane 31: groupID 7, tid 3
    assert mma.a_elements(0) == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    assert mma.a_elements(5)[:2] == [(1, 2), (1, 3)]
    assert mma.b_elements(31) == [(6, 7), (7, 7), (14, 7), (15, 7)]
    assert mma.c_elements(31) == [(7, 6), (7, 7), (15, 6), (15, 7)]
    assert mma.owner("C", 15, 7) == (31, 3)
    assert mma.owner("A", 8, 9) == (0, 7)
    with pytest.raises(ValueError):
        mma.owner("B", 16, 0)
    with pytest.raises(ValueError):
        mma.group(32)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_each_element_received_once(num, trans):
    for j in range(num):
        for r in range(8):
            for c in range(8):
                assert len(mma.ldmatrix_receivers(num, j, r, c, trans)) == 1
    with pytest.raises(ValueError):
        mma.ldmatrix_elements(0, 3)


def test_ldmatrix_address_lanes_follow_ptx_rule():
    """PTX ISA: threads 0-7 give the rows of matrix 0, 8-15 of matrix 1, ... (.x1 uses lanes 0-7, .x2 lanes 0-15)."""
    assert mma.ldmatrix_address_lane(4, 1, 5) == 13
    for num in (1, 2, 4):
        lanes = mma.ldmatrix_address_lanes(num)
        for j in range(num):
            for r in range(8):
                lane = mma.ldmatrix_address_lane(num, j, r)
                assert lane < 8 * num and lanes[lane] == (j, r)
        assert sum(x is not None for x in lanes) == 8 * num
    for bad in ((2, 2, 0), (4, 0, 8), (3, 0, 0)):
        with pytest.raises(ValueError):
            mma.ldmatrix_address_lane(*bad)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_lane_map_inverts_elements(num, trans):
    """Each stored element's receiver, and the PTX rule: row r col c goes to lane 4r + c//2 (.trans: 4c + r//2)."""
    m = mma.ldmatrix_lane_map(num, trans)
    for j in range(num):
        for r in range(8):
            for c in range(8):
                assert [m[j][r][c]] == mma.ldmatrix_receivers(num, j, r, c, trans)
                lane, reg, half = m[j][r][c]
                want = (4 * c + r // 2, j, r % 2) if trans else (4 * r + c // 2, j, c % 2)
                assert (lane, reg, half) == want


def _record():
    if not RECORD.exists():
        pytest.skip("no GPU layout record")
    return records.load(RECORD.stem, RECORD.parent)


@pytest.mark.parametrize("name", ["x1", "x1.trans", "x2", "x2.trans", "x4", "x4.trans"])
def test_ldmatrix_maps_match_gpu_record(name):
    """On the H200, lane L gave S row L (x1: L % 8, x2: L % 16) and S[row][col] held code 8*row + col, recorded as
    (j, r, c) = (row // 8, row % 8, col): so the S row that reached a register names the lane(s) whose address was
    used for it, and the lane map says where each element went."""
    rec = _record()
    num, trans = int(name[1]), name.endswith("trans")
    m = mma.ldmatrix_lane_map(num, trans)
    gave = {lane: lane % (8 * num) for lane in range(32)}            # S row given by each lane in the recording
    for lane, regs in enumerate(rec["ldmatrix"][name]):
        for reg, halves in enumerate(regs):
            for half, (j, r, c) in enumerate(halves):
                assert m[j][r][c] == (lane, reg, half)
                assert reg == j and gave[mma.ldmatrix_address_lane(num, j, r)] == 8 * j + r


def test_ldmatrix_feeds_mma():
    """ldmatrix.x4 of As and .x2.trans of Bs with the course's lane addresses give exactly mma's A and B fragments."""
    A = np.arange(256).reshape(16, 16)
    B = np.arange(128).reshape(16, 8) + 1000
    addr = mma.ldmatrix_for_mma()
    rowsA = [list(A[r, c:c + 8]) for r, c in addr["A"]]
    rowsB = [list(B[r, c:c + 8]) for r, c in addr["B"]]
    gotA = mma.ldmatrix_gather(rowsA, 4)
    gotB = mma.ldmatrix_gather(rowsB, 2, trans=True)
    for lane in range(32):
        want_a = [A[r, c] for r, c in mma.a_elements(lane)]
        want_b = [B[r, c] for r, c in mma.b_elements(lane)]
        assert [v for reg in gotA[lane] for v in reg] == want_a
        assert [v for reg in gotB[lane] for v in reg] == want_b


def test_tiles_roundtrip():
    A, B, C = (np.arange(np.prod(s)).reshape(s) for s in (mma.SHAPES["A"], mma.SHAPES["B"], mma.SHAPES["C"]))
    frags = mma.fragments_from_tiles(A, B, C)
    for k, (name, T) in enumerate((("A", A), ("B", B), ("C", C))):
        assert np.array_equal(np.array(mma.tiles_from_fragments([f[k] for f in frags], name)), T)
