"""Review round 25 (students 09-11): what the simulator's warp stand-ins tell a student of 10-5, and 10-5's technique
verdicts read from the record of the warp instructions (kernels_numba/infra/simulator/warp.py)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exercise_cases import import_source  # noqa: E402
from test_korean_prose import wrong_particles  # noqa: E402

from course.exercises import core  # noqa: E402
from course.exercises.core import Foreign  # noqa: E402
from kernels_numba.infra import device, ptx  # noqa: E402
from kernels_numba.infra.simulator import warp  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "answers/ch10/ex10_kloop.py").read_text(encoding="utf-8")
sim_only = pytest.mark.skipif(not device.SIMULATOR, reason="the simulator's stand-ins")


def _check(tmp_path, edits):
    src = SOLUTION
    for old, new in edits:
        assert old in src, old
        src = src.replace(old, new)
    return core.check("10-5", import_source(src, tmp_path).kloop, save=False)


def _own(res):
    return "\n".join([res.message, res.where] + [d for d in res.details if not isinstance(d, Foreign)])


@pytest.mark.parametrize("name", sorted(warp.MMA_OPERANDS))
def test_mma_operand_names_are_the_ptx_files(name):
    f, = ptx.parse_file(ROOT / "kernels_numba/infra/ptx" / f"{name}.ptx")
    assert tuple((p.name, p.type) for p in f.operands) == warp.MMA_OPERANDS[name]


@sim_only
def test_ldmatrix_outside_the_tile_names_the_lane_the_array_and_the_line(tmp_path):
    res = _check(tmp_path, [("ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))",
                             "ptx.ldmatrix_x4(As, lane % 8, 8 * (lane // 8))")])
    assert res.code == "out_of_bounds"
    assert "레인 16의 행 주소 As[0, 16]" in res.message and "배열 밖을 가리키는 레인: 16–31" in res.message
    assert "ldmatrix_x4(As, lane % 8" in res.where and any(d.startswith("  위치:") for d in res.details)
    assert "아래 위치" not in str(res) and "IndexError" not in res.message
    assert not wrong_particles(_own(res))


@sim_only
@pytest.mark.parametrize("edits, says", [
    ([("b0, b1, c0, c1, c2, c3)", "b0, b1)")], "누적할 C 값"),
    ([("a0, a1, a2, a3 = ptx.ldmatrix_x4(", "a = ptx.ldmatrix_x4("), ("b0, b1 = ptx.ldmatrix_x2_trans(", "b = ptx.ldmatrix_x2_trans("),
      ("mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0", "mma_m16n8k16_f32(a, b, c0")], "튜플을 그대로"),
])
def test_mma_with_wrong_operands_says_what_it_takes(tmp_path, edits, says):
    res = _check(tmp_path, edits)
    assert res.code == "mma_operands", str(res)
    assert "인자 10개 (a0..a3, b0, b1, c0..c3" in res.message and says in res.message
    assert "mma_m16n8k16_f32(" in res.where and "ValueError" not in str(res)
    assert not wrong_particles(_own(res))


@sim_only
def test_the_record_holds_what_each_warp_executed(tmp_path):
    """One block, K = 32: per K step an ldmatrix_x4, an ldmatrix_x2_trans and an mma whose products sum to A·B."""
    import numpy as np
    kernel = import_source(SOLUTION, tmp_path).kloop
    rng = np.random.default_rng(1)
    A = rng.standard_normal((16, 32)).astype(np.float16)
    B = rng.standard_normal((32, 8)).astype(np.float16)
    C = np.zeros((16, 8), np.float32)
    with warp.recording() as log:
        kernel[(1, 1), 32](A, B, C, np.float32(1.0), np.float32(0.0))
    assert [e.name for e in log] == ["ldmatrix_x4", "ldmatrix_x2_trans", "mma_m16n8k16_f32"] * 2
    assert [e.matrices for e in log if e.name.startswith("ldmatrix")] == [4, 2, 4, 2]
    assert set(log[0].arrays) == {"As"} and set(log[1].arrays) == {"Bs"}
    got = sum(e.product for e in log if e.k)
    assert np.allclose(got, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-12, atol=1e-12)
    assert not warp._LOG                     # the recording is closed


@sim_only
def test_technique_messages_read_right(tmp_path):
    fma = ("        g, t = lane // 4, lane % 4\n        for k in range(16):\n"
           "            c0 += float32(As[g, k]) * float32(Bs[k, 2 * t])\n"
           "            c1 += float32(As[g, k]) * float32(Bs[k, 2 * t + 1])\n"
           "            c2 += float32(As[g + 8, k]) * float32(Bs[k, 2 * t])\n"
           "            c3 += float32(As[g + 8, k]) * float32(Bs[k, 2 * t + 1])\n")
    res = _check(tmp_path, [("        c0, c1, c2, c3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)\n", fma)])
    assert res.code == "no_mma" and res.message.startswith("맞는 값이지만")
    assert not wrong_particles(_own(res))
