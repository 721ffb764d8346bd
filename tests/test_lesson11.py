"""course/lesson11.py: the notebook's tables come from the .ptx files, offline compiles and the models; records are
optional and the helpers say so; bug demos report what the simulator found."""
import numpy as np
import pytest

from course import lesson11 as L
from sim import wgmma


def test_compare_rows_are_read_from_the_ptx_files():
    rows = {r[0]: r for r in L.compare_rows()}
    assert "128 스레드" in rows["실행 단위"][2] and "64개" in rows["누산기"][2] and "sm_90a" in rows["대상"][2]


def test_swizzle_grid_is_the_xor():
    g = L.swizzle_grid()
    assert all(g[r, c] == c ^ r for r in range(8) for c in range(8))


def test_layout_comparison_uses_the_record_when_there_is_one(tmp_path, monkeypatch):
    assert L.compare_layout() is None or all(a == t for a, t in L.compare_layout().values())
    fake = {"gpu": "x", "date": "y", "accumulators": {"64": [wgmma.accumulator_elements(t, 64) for t in range(128)]}}
    assert L.compare_layout(fake) == {"m64n64k16 누산기": (128 * 32, 128 * 32)}
    fake["accumulators"]["64"][5] = list(reversed(fake["accumulators"]["64"][5]))
    agree, total = L.compare_layout(fake)["m64n64k16 누산기"]
    assert agree < total


def test_perf_rows_empty_without_a_record(monkeypatch):
    monkeypatch.setattr(L, "perf_record", lambda: None)
    assert L.perf_rows() == []
    rec = {"benchmark": [{"kernel": "wgmma_ws", "n": 4096, "tflops": 500.0, "ratio": 0.7}]}
    assert L.perf_rows(rec) == [("wgmma_ws", 4096, "500", "70.0%")]


def test_offline_facts():
    rows = {r[0]: r for r in L.compiled_rows()}
    assert rows["wgmma_ws"][1] == "sm_90a" and rows["wgmma_ws"][3] == 0 and rows["wgmma_ws"][7] == "없음"
    assert any("C7517" in line for line in L.no_wait_ptxas_log())
    linked, whole, rc = L.setmaxnreg_evidence()
    assert any("C7504" in line for line in linked) and not any("C7504" in line for line in whole) and rc == 0


@pytest.mark.sim_only("the detector's reports exist on the simulator (on a GPU bug_report runs it in a subprocess)")
def test_bug_report():
    r = L.bug_report("wgmma_no_proxy_fence", (64, 64, 64))
    assert r["kinds"] == ["PROXY_FENCE"] and r["right"]


def test_ring_demo():
    log, done = L.ring_demo(stages=2, tiles=1, k_tiles=3)
    assert done == [0, 1, 2] and log[2].endswith("단계 0")


def test_live_benchmark_is_none_without_hopper():
    from kernels_numba.infra import device, hopper
    if device.SIMULATOR or hopper.lacks_hopper():
        assert L.live_benchmark() is None


def test_the_mma_fast_runs_quoted_are_notebook_10s():
    from course import lesson10
    assert tuple(lesson10.FINAL_RUNS) == L.FAST_FINAL_RUNS
