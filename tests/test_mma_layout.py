"""The fragment layouts of sim/mma.py (used by the simulator stand-ins and the widget) against the GPU's own record
(course/recorded/mma_layout_*.json, written by benchmarks/record_mma_layout.py), element by element, and the
stand-in's arithmetic against the GPU's results on the same inputs."""
import glob
from pathlib import Path
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kernels_numba import tc
from course import records
from kernels_numba.infra.simulator import warp as _warp
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


from course.ch10_tensor_core.lesson import check_numerics  # noqa: E402  (stand-in vs GPU, shared with notebook 10)


@pytest.mark.skipif(not RECORDS, reason="no GPU layout record yet (benchmarks/record_mma_layout.py)")
@pytest.mark.parametrize("path", RECORDS, ids=os.path.basename)
def test_recorded_gpu_layout_matches_model(path):
    rec = records.load(Path(path).stem, Path(path).parent)
    assert rec.gpu != "simulator" and tuple(rec.cc) >= (8, 0)
    check_layout(rec)
    check_numerics(rec)


def test_record_script_in_simulator_matches_model(tmp_path):
    """The recording script itself, run under the simulator, decodes to the model (so the GPU record is read right)."""
    out = tmp_path / "sim.json"
    env = dict(os.environ, SGEMM_DEVICE="sim", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "record_mma_layout.py"), "--out", str(out)],
                   check=True, env=env, capture_output=True)
    rec = records.load("sim", tmp_path)
    check_layout(rec)
    worst = check_numerics(rec)
    assert worst["f32"] == 0.0 and worst["f16"] == 0.0          # the same stand-in on both sides: identical


def test_check_layout_would_catch_a_swap():
    rec = records.load(Path(RECORDS[0]).stem, Path(RECORDS[0]).parent) if RECORDS else None
    if rec is None:
        pytest.skip("no record")
    rec["mma_m16n8k16"]["C"][0][0], rec["mma_m16n8k16"]["C"][0][1] = rec["mma_m16n8k16"]["C"][0][1], rec["mma_m16n8k16"]["C"][0][0]
    with pytest.raises(AssertionError):
        check_layout(rec)
