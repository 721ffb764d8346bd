"""kernels_numba.infra.simulator.warp: warp-collective stand-ins (mma.sync, ldmatrix) in the simulator."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import errors as _errors, warp as _warp
from sim import mma as layout

pytestmark = pytest.mark.skipif(not kn.device.SIMULATOR, reason="simulator stand-ins")


def _pack(tile_elements):
    """b32 registers from a flat list of f16 values (pairs, low half first)."""
    return [_warp.pack_halves(tile_elements[i], tile_elements[i + 1]) for i in range(0, len(tile_elements), 2)]


def _operands(A, B, C, acc):
    ops = []
    for lane in range(32):
        a = _pack([A[r, c] for r, c in layout.a_elements(lane)])
        b = _pack([B[r, c] for r, c in layout.b_elements(lane)])
        cs = [C[r, c] for r, c in layout.c_elements(lane)]
        ops.append(tuple(a + b + ([np.float32(x) for x in cs] if acc == "f32" else _pack(cs))))
    return ops


@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_mma_warp_matches_float64(acc):
    rng = np.random.default_rng(1)
    A = rng.standard_normal((16, 16)).astype(np.float16)
    B = rng.standard_normal((16, 8)).astype(np.float16)
    C = rng.standard_normal((16, 8)).astype(np.float16 if acc == "f16" else np.float32)
    out = _warp.mma_warp(_operands(A, B, C, acc), acc)
    D = np.zeros((16, 8))
    for lane in range(32):
        vals = (list(out[lane]) if acc == "f32"
                else [v for r in out[lane] for v in _warp._halves(r)])
        for (r, c), v in zip(layout.c_elements(lane), vals):
            D[r, c] = v
    ref = A.astype(np.float64) @ B.astype(np.float64) + C.astype(np.float64)
    dt = np.float32 if acc == "f32" else np.float16
    np.testing.assert_array_equal(D, ref.astype(dt))          # exact sum, rounded once to the accumulation type


def test_unpack_and_cvt():
    r = _warp.pack_halves(np.float16(1.5), np.float16(-2.0))
    lo, hi = ptx.STAND_INS["unpack_f16x2"](r)
    assert ptx.STAND_INS["cvt_f32_f16"](lo) == np.float32(1.5) and ptx.STAND_INS["cvt_f32_f16"](hi) == -2.0


def _inputs():
    rng = np.random.default_rng(2)
    return (rng.standard_normal((16, 16)).astype(np.float16), rng.standard_normal((16, 8)).astype(np.float16),
            np.zeros((16, 8), np.float32))


def test_ok_kernel_runs():
    from kernels_numba.demos import mma_divergent as d
    A, B, C = _inputs()
    d.launch(A, B, C, which="kernel_ok")
    ref = A.astype(np.float64) @ B.astype(np.float64)
    assert np.allclose(C[:4, ::2], ref[:4, ::2], rtol=1e-3)


@pytest.mark.parametrize("which,instr,lane", [("kernel", "mma_m16n8k16_f32", "lane 16"),
                                              ("kernel_early_return", "ldmatrix_x4", "lane 31")])
def test_split_warp_is_a_clear_error(which, instr, lane):
    from kernels_numba.demos import mma_divergent as d
    A, B, C = _inputs()
    with pytest.raises(_errors.WarpCollectiveError) as e:
        d.launch(A, B, C, which=which)
    msg = str(e.value)
    assert "워프 0" in msg and "warp 0" in msg and instr in msg and lane in msg


def test_ldmatrix_stand_in_outside_kernel_is_an_error():
    with pytest.raises(RuntimeError, match="outside a simulated kernel"):
        ptx.STAND_INS["ldmatrix_x1"](np.zeros((8, 8), np.float16), 0, 0)


def test_ldmatrix_misaligned_row_faults():
    rows = np.zeros((8, 16), np.float16)
    with pytest.raises(ptx.MisalignedAddressError, match="16-byte"):
        _warp._row_at("ldmatrix_x1", rows, (0, 3))
    assert _warp._row_at("ldmatrix_x1", rows, (1, 8)).shape == (8,)
