"""course/ch11_hopper/lesson.py: the notebook's tables come from the .ptx files, offline compiles and the models; records are
optional and the helpers say so; bug demos report what the simulator found."""
import numpy as np
import pytest

from course.ch11_hopper import lesson as L
from sim import wgmma


def test_compare_rows_are_read_from_the_ptx_files():
    rows = {r[0]: r for r in L.compare_rows()}
    assert "128 스레드" in rows["실행 단위"][2] and "64개" in rows["누산기"][2] and "sm_90a" in rows["대상"][2]


def test_swizzle_grid_is_the_xor():
    g = L.swizzle_grid()
    assert all(g[r, c] == c ^ r for r in range(8) for c in range(8))


def test_layout_comparison_uses_the_record_when_there_is_one():
    assert L.compare_layout(None) is None
    assert L.LAYOUT is None or all(a == t for a, t in L.compare_layout(L.LAYOUT).values())
    fake = {"gpu": "x", "date": "y", "accumulators": {"64": [wgmma.accumulator_elements(t, 64) for t in range(128)]}}
    assert L.compare_layout(fake) == {"m64n64k16 누산기": (128 * 32, 128 * 32)}
    fake["accumulators"]["64"][5] = list(reversed(fake["accumulators"]["64"][5]))
    agree, total = L.compare_layout(fake)["m64n64k16 누산기"]
    assert agree < total


def _level7_record(folder):
    """A small level-7 record in the one schema, as benchmarks/bench_level7.py writes it (course.bench.run's rows),
    saved in `folder` and loaded back through the loader."""
    from course import bench, records
    n, ms = 2048, {"cuBLAS": 0.030, "wgmma_simple": 0.120, "wgmma_tma": 0.050, "wgmma_ws": 0.040, "mma_fast": 0.060}
    rows = [records.Row(kernel=k, n=m, ms=t * (m / n) ** 3, tflops=2 * m ** 3 / (t * (m / n) ** 3) / 1e9,
                        ratio=ms["cuBLAS"] / t, correct=True, host_us=30.0,
                        extra={"timed_by": "graph" if m == 2048 else "events"})
            for m in (2048, 4096) for k, t in ms.items()]
    run = records.Run(id="h100_test", gpu="NVIDIA H100 80GB HBM3", cc=(9, 0), date="2026-12-01", baseline=bench.HGEMM,
                      method=bench.method(), rows=tuple(rows))
    path = bench.save_run(folder / f"{L.PERF_RECORD}.json", run, "level 7 vs cuBLAS HGEMM (test)",
                          {"goal": {"4096": 0.75}})
    return records.load(L.PERF_RECORD, path.parent)


def test_perf_rows_read_a_schema_record(tmp_path):
    import dataclasses
    assert L.perf_rows(None) == []
    rec = _level7_record(tmp_path)
    rows = L.perf_rows(rec)
    assert len(rows) == 10 and len(L.PERF_COLUMNS) == len(rows[0])
    assert rows[3] == ("wgmma_ws", 2048, f"{2 * 2048 ** 3 / 0.040 / 1e9:.0f}", "75.0%", "-", "CUDA 그래프", "30")
    assert rows[8][3:6] == ("75.0%", "-", "CUDA 이벤트") and L.perf_rows(rec.run()) == rows      # a Run (live) alike
    spread = dataclasses.replace(rec.run(), rows=(dataclasses.replace(rec.rows[3], spread=(0.7, 0.8)),))
    assert L.perf_rows(spread)[0][4] == "70.0–80.0%"                      # the rounds' range where they were kept
    assert L.timing_note(rec) == "2048³ CUDA 그래프, 4096³ CUDA 이벤트"
    wrong = dataclasses.replace(rec.run(), rows=(dataclasses.replace(rec.rows[3], correct=False),))
    assert L.perf_rows(wrong) == [("wgmma_ws", 2048, "결과 틀림", "-", "-", "CUDA 그래프", "30")]   # no speed for it


def test_a_table_title_says_when_cublas_itself_moved(tmp_path):
    """Review r25 I-9: a run whose cuBLAS time moved more than 5 % between rounds says so in its table's title."""
    import dataclasses
    rec = _level7_record(tmp_path)
    run = rec.run()
    assert L.cublas_wobble(run) is None and "라운드 사이에" not in L.perf_tables(rec)[0][0]
    moved = tuple(dataclasses.replace(r, extra={**r.extra, "rounds_ms": [0.030, 0.033, 0.031]}) if r.kernel == "cuBLAS"
                  else r for r in run.rows)
    run = dataclasses.replace(run, rows=moved)
    assert abs(L.cublas_wobble(run) - 0.1) < 1e-9

    class _Rec:
        runs = [run]
    assert "최대 10 % 달랐습니다" in L.perf_tables(_Rec())[0][0]


def _nb11(monkeypatch, perf):
    import importlib.util
    from pathlib import Path
    monkeypatch.setattr(L, "PERF", perf)
    path = Path(__file__).resolve().parents[2] / "course" / "ch11_hopper" / "notebook.py"
    spec = importlib.util.spec_from_file_location("_gen_nb11", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def test_nb11_fills_the_performance_section_from_a_schema_record(tmp_path, monkeypatch):
    """Without the level-7 record the notebook says so; with one (here a test record in the schema) the generator
    fills section 8 from it: GPU, date, how each size was timed, every kernel's share of cuBLAS."""
    gen = _nb11(monkeypatch, None)
    text = gen.NB.text()
    assert "GPU 측정 기록은 아직 없습니다" in text and "{{" not in text and "gpu" not in gen.FIG
    gen = _nb11(monkeypatch, _level7_record(tmp_path))
    text = gen.NB.text()
    assert "아직 없습니다** (`course/ch11_hopper/records/gpu_h100_level7.json`" not in text and "{{" not in text
    assert "기록된 측정(NVIDIA H100 80GB HBM3, 2026-12-01;" in text and "2048³ CUDA 그래프, 4096³ CUDA 이벤트" in text
    assert gen.FIG["wgmma_ws_4096"] == "75.0" and gen.FIG["cub_2048"] == f"{2 * 2048 ** 3 / 0.030 / 1e9:.0f}"


def test_offline_facts():
    rows = {r[0]: r for r in L.compiled_rows()}
    assert rows["wgmma_ws"][1] == "sm_90a" and rows["wgmma_ws"][3] == 0 and rows["wgmma_ws"][7] == "없음"
    assert any("C7517" in line for line in L.no_wait_ptxas_log())
    linked, whole, rc = L.setmaxnreg_evidence()
    assert any("C7504" in line for line in linked) and not any("C7504" in line for line in whole) and rc == 0


def test_where_the_injected_wait_sits():
    """Review r25 W-1: 4.2 compares the loop tails (last HGMMA .. back edge) of wgmma_no_wait and wgmma_simple. Each
    tail ends in the K loop's back edge; the correct kernel waits there; the verdict line follows the comparison."""
    sites = {n: L.wait_site(n) for n in ("wgmma_no_wait", "wgmma_simple")}
    for s in sites.values():
        assert s["tail_ops"][0].startswith("HGMMA") and s["tail_ops"][-1] == "BRA" and s["sts_before_mma"] > 0
    assert any(op.startswith("WARPGROUP.DEPBAR") for op in sites["wgmma_simple"]["tail_ops"])
    lines, same = L.compare_wait_sites()
    assert same == (sites["wgmma_no_wait"]["tail_ops"] == sites["wgmma_simple"]["tail_ops"]
                    and sites["wgmma_no_wait"]["sts_after_mma"] == 0)
    assert lines[-1].endswith("분기 앞)") == same and "HGMMA.64x64x16.F32" in "\n".join(lines)


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
    from course.ch10_tensor_core import lesson as lesson10
    assert tuple(lesson10.FINAL_RUNS) == L.FAST_FINAL_RUNS
    assert L.fast_ratios(4096) == [lesson10.fast_rows(r)[("fast", 4096)].ratio for r in lesson10.FINAL_RUNS]


def test_perf_tables_name_each_unflagged_run_and_never_mix_them():
    import dataclasses
    runs = [r for r in L.PERF.runs if not r.flagged]
    tables = L.perf_tables(L.PERF)
    assert len(tables) == len(runs) and all(f"`{r.id}`" in t and r.gpu in t for (t, _), r in zip(tables, runs))
    assert [rows for _, rows in tables] == [L.perf_rows(r) for r in runs]
    flagged = dataclasses.replace(runs[0], id="x_flagged", flagged="busy GPU")
    rec = dataclasses.replace(L.PERF, runs=(*L.PERF.runs, flagged))
    assert len(L.perf_tables(rec)) == len(tables) and "x_flagged" not in [i for i, _ in L.goal_runs(rec)]


def test_gpu_checks_count_cases_and_tools_from_the_records():
    g = L.gpu_checks()
    assert g["check"]["cases"] == sum(len(v) for v in L.CHECK["results"].values()) > 0
    assert set(g["sanitize"]["tools"]) == {"memcheck", "racecheck", "synccheck"}
    assert g["check"]["gpu"].startswith("NVIDIA H100")
