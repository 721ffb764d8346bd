"""The fragment layouts of sim/mma.py (used by the simulator stand-ins and the widget) against the GPU's own record
(course/recorded/mma_layout_*.json, written by benchmarks/record_mma_layout.py), element by element, and the
stand-in's arithmetic against the GPU's results on the same inputs."""
import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kernels_numba.infra import _warp, tc
from sim import mma as layout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = sorted(glob.glob(os.path.join(ROOT, "course", "recorded", "mma_layout_*.json")))


def check_layout(rec):
    """Raise AssertionError at the first element where a record and sim/mma.py disagree."""
    for name, lanes in rec["ldmatrix"].items():
        num, trans = int(name[1]), name.endswith("trans")
        for lane, regs in enumerate(lanes):
            want = layout.ldmatrix_elements(lane, num, trans)
            assert [[tuple(h) for h in reg] for reg in regs] == want, (name, lane)
    m = rec["mma_m16n8k16"]
    addr = layout.ldmatrix_for_mma()
    assert m["A_addresses"].startswith("ldmatrix.x4") and addr["A"][17] == (1, 8)
    for lane in range(32):
        assert [tuple(e) for e in m["A"][lane]] == layout.a_elements(lane), ("A", lane)
        assert [tuple(e) for e in m["B"][lane]] == layout.b_elements(lane), ("B", lane)
        assert [tuple(e) for e in m["C"][lane]] == layout.c_elements(lane), ("C", lane)


def check_numerics(rec):
    """Stand-in vs GPU on the recorded inputs: f32 accumulation within 2 ulp-of-|A||B| bound, f16 within its bound."""
    worst = {"f32": 0.0, "f16": 0.0}
    for s in rec["numerics"]:
        A, B = np.array(s["A"]), np.array(s["B"])
        ops32 = [tuple(s["Aregs"][l]) + tuple(s["Bregs"][l]) + tuple(np.float32(x) for x in s["Cin"][l]) for l in range(32)]
        ops16 = [tuple(s["Aregs"][l]) + tuple(s["Bregs"][l]) + tuple(s["Cin16"][l]) for l in range(32)]
        sim32 = np.array(_warp.mma_warp(ops32, "f32"), np.float64)
        sim16 = np.array(_warp.mma_warp(ops16, "f16"), np.uint32).view(np.float16).astype(np.float64)
        gpu32 = np.array(s["D"], np.float64)
        gpu16 = np.array(s["D16"], np.uint32).view(np.float16).astype(np.float64)
        mag = (np.abs(A) @ np.abs(B)).reshape(-1)[_warp._C_IDX]          # per lane, per register
        for acc, sim, gpu in (("f32", sim32, gpu32), ("f16", sim16, gpu16)):
            u = tc.UNIT_ROUNDOFF[acc]
            cin = np.abs(np.array(s["Cin"])) if acc == "f32" else np.abs(
                np.array(s["Cin16"], np.uint32).view(np.float16).astype(np.float64))
            bound = 2 * 17 * u * (mag + cin + np.abs(gpu)) + 1e-30
            assert (np.abs(sim - gpu) <= bound).all(), (acc, float(np.abs(sim - gpu).max()))
            worst[acc] = max(worst[acc], float((np.abs(sim - gpu) / bound).max()))
    return worst


@pytest.mark.skipif(not RECORDS, reason="no GPU layout record yet (benchmarks/record_mma_layout.py)")
@pytest.mark.parametrize("path", RECORDS, ids=os.path.basename)
def test_recorded_gpu_layout_matches_model(path):
    rec = json.load(open(path))
    assert rec["gpu"] != "simulator" and tuple(rec["cc"]) >= (8, 0)
    check_layout(rec)
    check_numerics(rec)


def test_record_script_in_simulator_matches_model(tmp_path):
    """The recording script itself, run under the simulator, decodes to the model (so the GPU record is read right)."""
    out = tmp_path / "sim.json"
    env = dict(os.environ, SGEMM_DEVICE="sim", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "record_mma_layout.py"), "--out", str(out)],
                   check=True, env=env, capture_output=True)
    rec = json.load(open(out))
    check_layout(rec)
    worst = check_numerics(rec)
    assert worst["f32"] == 0.0 and worst["f16"] == 0.0          # the same stand-in on both sides: identical


def test_check_layout_would_catch_a_swap():
    rec = json.load(open(RECORDS[0])) if RECORDS else None
    if rec is None:
        pytest.skip("no record")
    rec["mma_m16n8k16"]["C"][0][0], rec["mma_m16n8k16"]["C"][0][1] = rec["mma_m16n8k16"]["C"][0][1], rec["mma_m16n8k16"]["C"][0][0]
    with pytest.raises(AssertionError):
        check_layout(rec)
