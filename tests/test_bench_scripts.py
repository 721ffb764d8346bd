"""The GPU record scripts are thin command lines over course.bench and write the one schema: run here on the simulator
with CuPy on numpy (tests/test_measure.py's stand-in), tiny sizes, before a GPU spends time on them."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from course import records
from course.ch10_tensor_core import lesson as lesson10
from course.ch11_hopper import lesson as lesson11
from test_measure import stand_in  # noqa: F401  (the fixture: simulator as the 'GPU', CuPy on numpy)

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name):
    sys.path.insert(0, str(BENCH))                        # the scripts import each other (explore_fast, record_level6)
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


@pytest.mark.sim_only("a numpy stand-in replaces CuPy and the simulator the GPU")
def test_bench_level7_writes_a_level7_record_notebook_11_reads(stand_in, tmp_path, monkeypatch):  # noqa: F811
    from kernels_numba.infra import tma
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    b7 = _script("bench_level7")
    monkeypatch.setattr(b7, "why_not_here", lambda: "")                 # the simulator plays the H100
    unwrap = lambda f: (lambda X: f(np.asarray(X) if isinstance(X, FakeCUDAArray) else X))     # noqa: E731
    monkeypatch.setattr(tma, "_row_stride", unwrap(tma._row_stride))   # the stand-in's device arrays have no CAI
    monkeypatch.setattr(tma, "_address", unwrap(tma._address))
    rc = b7.main(["--out", str(tmp_path / "gpu_h100_level7.json"), "--sizes", "64", "--rounds", "1",
                  "--kernels", "wgmma_simple", "--run-id", "t"])
    rec = records.load("gpu_h100_level7", tmp_path)
    assert rc == 0 and [r.label for r in rec.run("t").rows] == ["cuBLAS", "wgmma_simple"]
    assert all(r.correct and r.host_us > 0 for r in rec.rows) and rec.run().baseline.startswith("cuBLAS HGEMM")
    assert rec["goal"] == b7.GOAL and "wgmma_simple" in rec["configs"] and "wgmma_simple" in rec["resources"]
    assert [row[:2] for row in lesson11.perf_rows(rec)] == [("cuBLAS", 64), ("wgmma_simple", 64)]


@pytest.mark.sim_only("a numpy stand-in replaces CuPy and the simulator the GPU")
def test_explore_fast_rows_keep_what_notebook_10_reads(stand_in, tmp_path, monkeypatch):  # noqa: F811
    ef = _script("explore_fast")
    real = ef.check_ragged
    monkeypatch.setattr(ef, "check_ragged", lambda launch: real(launch, 48, 24, 48))
    rc = ef.main(["--out", str(tmp_path / "sweep.json"), "--sizes", "16", "--rounds", "1",
                  "--variants", "fast", "no_lean", "nonexistent", "--run-id", "t"])
    run = records.load("sweep", tmp_path).run("t")
    rows = lesson10.ablation(run)                                   # the ablation names notebook 10 reads
    assert rc == 1 and list(run.extra["failed"]) == ["nonexistent"]     # a variant that did not build fails the run
    assert set(rows) == {("cuBLAS", 16), ("fast", 16), ("no_lean", 16)} and all(r.correct for r in run.rows)
    assert rows[("no_lean", 16)].extra["switches"] == {"lean": False} and rows[("fast", 16)].extra["ragged_ok"]
    assert run.extra["config"]["BM"] == 128 and "no_lean" in ef.table(run)
