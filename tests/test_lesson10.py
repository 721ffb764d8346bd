"""course.lesson10: ptxas shape table, GPU layout comparison, padded launch, occupancy rows, plots."""
import numpy as np
import pytest

import kernels_numba as kn
from course import lesson10
from kernels_numba.infra import tc


def test_shape_table_facts():
    try:
        rows = {(r["shape"], r["types"]): r for r in lesson10.mma_shape_table()}
    except Exception as e:                     # noqa: BLE001
        pytest.skip(f"ptxas not available: {e}")
    ok = lambda s, t: rows[(s, t)]["sm_80"] == rows[(s, t)]["sm_90"] == "✅"
    assert ok("m16n8k16", "f32.f16.f16.f32") and ok("m16n8k16", "f16.f16.f16.f16") and ok("m16n8k8", "f32.f16.f16.f32")
    assert ok("m16n8k8", "f32.tf32.tf32.f32") and ok("m16n8k4", "f32.tf32.tf32.f32")
    assert ok("m8n8k4", "f64.f64.f64.f64") and ok("m8n8k4", "f32.f16.f16.f32")
    bad = rows[("m8n8k4", "f32.tf32.tf32.f32")]           # the seed's 'm8n8k4 for TF32' does not exist
    assert bad["sm_80"] == bad["sm_90"] == "❌" and bad["error"]


def test_layout_agrees_everywhere():
    res = lesson10.compare_layout()
    assert set(res) >= {"ldmatrix.x4.trans", "mma A", "mma C"}
    assert all(a == n and n > 0 for a, n in res.values())
    assert res["mma A"] == (256, 256) and res["ldmatrix.x4"] == (256, 256)


@pytest.mark.parametrize("shape", [(20, 10, 20), (16, 8, 16), (3, 5, 7)])
def test_padded_launch(shape):
    M, N, K = shape
    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.full((M, N), 0.5, np.float32)
    C0 = C.copy()
    lesson10.padded_launch(kn.get("mma_large"), A, B, C, 2.0, 1.0)
    err = np.abs(C - tc.reference(A, B, 2.0, 1.0, C0))
    assert (err <= tc.error_bound(A, B, 2.0, 1.0, C0)).all()


def test_bench_and_occupancy_rows():
    rows = lesson10.bench_rows(n=4096)
    assert any(r["커널"] == "cuBLAS" for r in rows) and any(r["커널"] == "mma_pipe" for r in rows)
    occ = lesson10.occupancy_rows()
    assert "32블록 × 1워프" in occ[0]["결과"] and "블록 수" in occ[0]["결과"]
    assert "| a |" in lesson10.markdown([{"a": 1}], ["a"]) or lesson10.markdown([{"a": 1}], ["a"]).startswith("| a |")


def test_error_plot():
    fig = lesson10.error_growth_plot()
    assert len(fig.axes[0].lines) == 5


def test_check_kernel_and_helpers():
    r = lesson10.check_kernel("mma_large", 32, 16, 32)
    assert r["ok"] and r["identity"] and r["worst"] < 1
    assert "워프 0" in lesson10.divergence_message()      # simulator: the error names the warp; GPU: why it is not run
    assert lesson10.ptx_text("mma_m16n8k16_f32").startswith("mma_m16n8k16_f32.ptx:  mma.sync.aligned.m16n8k16")
    p = lesson10.copy_pattern()
    assert (p["A 복사 수"], p["B 복사 수"], p["B 행당 16B 복사"]) == (32, 16, 1)
    assert any(r["커널"] == "mma_pipe4_lb2" and r["로컬 B"] > 0 for r in lesson10.resource_rows())
    assert len(lesson10.explore_rows()) >= 8 and {r["배치"] for r in lesson10.explore_rows()} == {"스위즐", "패딩"}
    run = lesson10.level6_run()
    best = lesson10.best_kernel(4096)
    ours = [r for r in run["benchmark"] if r["n"] == 4096 and not r["kernel"].startswith("cuBLAS") and "tflops" in r]
    assert best["tflops"] == round(max(r["tflops"] for r in ours), 1) and 0 < best["ratio"] < 1
