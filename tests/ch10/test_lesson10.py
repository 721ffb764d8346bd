"""course.ch10_tensor_core.lesson: ptxas shape table, GPU layout comparison, padded launch, occupancy rows, plots."""
import numpy as np
import pytest

import kernels_numba as kn
from course.ch10_tensor_core import lesson as lesson10
from kernels_numba import tc
from kernels_numba import occupancy as kocc


def test_shape_table_facts():
    try:
        rows = {(r["shape"], r["types"]): r for r in lesson10.mma_shape_table()}
    except Exception as e:                     # noqa: BLE001
        pytest.skip(f"ptxas not available: {e}")
    ok = lambda s, t: rows[(s, t)]["sm_80"] == rows[(s, t)]["sm_90"] == "✅"
    assert ok("m16n8k16", "f32.f16.f16.f32") and ok("m16n8k16", "f16.f16.f16.f16") and ok("m16n8k8", "f32.f16.f16.f32")
    assert ok("m16n8k8", "f32.tf32.tf32.f32") and ok("m16n8k4", "f32.tf32.tf32.f32")
    assert ok("m8n8k4", "f64.f64.f64.f64") and ok("m8n8k4", "f32.f16.f16.f32")
    bad = rows[("m8n8k4", "f32.tf32.tf32.f32")]           # not in the ISA for tf32: ptxas accepts it and emits nothing
    assert bad["sm_80"] == bad["sm_90"] == "✅" and bad["SASS"].startswith("MMA 명령 없음") and "FFMA 0" in bad["SASS"]
    assert rows[("m8n8k4", "f64.f64.f64.f64")]["SASS"] == "DMMA.884"
    assert rows[("m16n8k16", "f32.f16.f16.f32")]["SASS"] == "HMMA.16816.F32"


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
    assert len(fig.axes[0].lines) == 6 and "2026" in fig.axes[0].get_title()


def test_check_kernel_and_helpers():
    r = lesson10.check_kernel("mma_large", 32, 16, 32)
    assert r["ok"] and r["identity"] and r["worst"] < 1
    assert "워프 0" in lesson10.divergence_message()      # simulator: the error names the warp; GPU: why it is not run
    assert lesson10.ptx_text("mma_m16n8k16_f32").startswith("mma_m16n8k16_f32.ptx:  mma.sync.aligned.m16n8k16")
    p = lesson10.copy_pattern()
    assert (p["A 복사 수"], p["B 복사 수"], p["B 행당 16B 복사"]) == (32, 16, 1)
    assert any(r["커널"] == "mma_pipe4_lb2" and r["로컬 B"] > 0 for r in lesson10.resource_rows())
    assert len(lesson10.explore_rows()) >= 8 and {r["배치"] for r in lesson10.explore_rows()} == {"스위즐", "패딩"}
    best = lesson10.best_kernel(4096)
    ours = [r for r in lesson10.H200_LEVEL6.run().select(n=4096) if not r.kernel.startswith("cuBLAS")]
    assert best["tflops"] == round(max(r.tflops for r in ours), 1) and 0 < best["ratio"] < 1


def test_feature_table_sm75():
    """Issue 18 I21: ldmatrix and m16n8k8 f16 assemble for sm_75; only m16n8k16 and cp.async need sm_80."""
    rows = {r["명령"]: r for r in lesson10.feature_table()}
    assert rows["ldmatrix.x4"]["sm_75"] == "LDSM.16.M88.4" and rows["mma m16n8k8 f16→f32"]["sm_75"] == "HMMA.1688.F32"
    assert rows["mma m16n8k16 f16→f32"]["sm_75"].startswith("❌") and rows["cp.async.cg 16 B"]["sm_75"].startswith("❌")
    assert all(not r["sm_80"].startswith("❌") and not r["sm_90"].startswith("❌") for r in rows.values())


def test_one_warp_occupancy_per_cc_and_header():
    import re
    from pathlib import Path
    import nvidia
    occ = {cc: o for cc, o in lesson10.one_warp_occupancy()}
    assert {cc: round(o.percent, 1) for cc, o in occ.items()} == {(8, 0): 50.0, (8, 6): 33.3, (8, 9): 50.0, (9, 0): 50.0}
    assert all(o.limiter == "blocks" for o in occ.values())
    header = next(h for p in nvidia.__path__ for h in Path(p).rglob("cuda_occupancy.h"))
    text = header.read_text()
    body = text[text.index("cudaOccMaxBlocksPerMultiprocessor("):][:1200]
    assert re.search(r"computeMinor == 0\)\s*{\s*value = 32", body) and re.search(r"computeMinor == 9\)\s*{\s*value = 24", body)
    assert re.search(r"else\s*{\s*value = 16", body) and re.search(r"case 9:\s*value = 32", body)


def test_mma_large_sass_and_error_growth_and_explore_runs():
    per_loop, total = lesson10.loop_mma("mma_large")
    assert per_loop == [(4, 8), (1, 2)] and total == 5          # K loop unrolled 4x + a remainder loop
    it = lesson10.sass_iteration()
    assert "HMMA.16816.F32" in it and "LDSM.16.M88.4" in it and "DEPBAR.LE" in it
    g, K, ratio = lesson10.error_growth_summary()
    assert K == 4096 and 250 < ratio < 320 and 0.9 < g["mma_pipe"][1] < 1.2 and 0.4 < g["mma_pipe_f16acc"][1] < 0.7
    rows = lesson10.explore_rows()
    assert {r["실행"] for r in rows} == {"탐색 실행", "기록 실행"} and len({r["cuBLAS TFLOP/s"] for r in rows}) == 2
    assert {r["단"] for r in rows} == {2, 3, 4} and {"2×4", "4×2"} <= {r["워프 (M×N)"] for r in rows}


def test_prose_figures_are_filled_from_the_record():
    """nb10's prose states measured figures only through FIG (filled from course/recorded), none left unfilled."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "course" / "ch10_tensor_core" / "notebook.py"
    spec = importlib.util.spec_from_file_location("_gen_nb10", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    growth, K, ratio = lesson10.error_growth_summary()
    assert gen.FIG["err_ratio"] == f"{ratio:.0f}" and gen.FIG["best"] == lesson10.best_kernel(4096)["kernel"]
    text = gen.NB.text()
    assert "{{" not in text and "8192 배 빨리" not in text and "5단을 비교" not in text
    import re
    heads = set(re.findall(r"#{2,4} (\d+(?:\.\d+)?)[ .]", text))          # every section a cell refers to exists
    own = re.sub(r"노트북 \d+ 의 [\d.]+절", "", text)                    # another notebook's section
    refs = set(re.findall(r"(\d+(?:\.\d+)?)절", own)) - {"3.1"}        # Higham's 3.1절 is a book's section
    assert refs <= heads, sorted(refs - heads)


def test_fast_steps_follow_the_record():
    """5.4's ablation: runs 3/4 take the final kernel's twin outside the slot after cuBLAS; runs 5/6 (rotated rounds)
    time the final lean kernel itself."""
    rec = lesson10.FAST
    for run, ref in lesson10.FAST_REF.items():
        config = rec.run(run).extra["config"]
        rows = lesson10.fast_rows(run)
        if run in lesson10.FINAL_RUNS:
            assert ref == "fast" and config == rec["config"] and config["lean"]
            assert rows[("fast", 4096)].extra["registers"] == rec["final"]["registers"]
            continue
        # run 3's default was GROUP_M=8 (no_raster = the final GROUP_M=0); run 4's default is the final kernel
        assert config["GROUP_M"] == (8 if ref == "no_raster" else 0) and rec["config"]["GROUP_M"] == 0
        for n in (2048, 4096):
            assert rows[("fast", n)].tflops < rows[(ref, n)].tflops     # the slot right after cuBLAS
            assert rows[(ref, n)].extra["registers"] > 0 and rows[(ref, n)].extra["local_bytes"] == 0
    steps = lesson10.fast_steps("run4")
    assert len(steps) == len(lesson10.FAST_STEPS) and all(r["4096³ 배"].startswith("×") for r in steps)
    assert lesson10.largest_step(2048, "run4")[0].startswith("스위즐")


def test_final_steps_one_run_per_column():
    """5.4 (runs 5/6): every cell divides two figures of one run; what the prose says of the steps holds in both."""
    rows = lesson10.final_steps()
    assert len(rows) == len(lesson10.FINAL_STEPS)
    for run in lesson10.FINAL_RUNS:
        tf = lesson10.fast_tflops(run)
        measured = lesson10.steps_measured(run)
        for row, step in zip(rows, lesson10.FINAL_STEPS):
            _, w, v = step
            if step in measured:
                assert row[f"{run} 4096³"].startswith(f"×{tf[(v, 4096)] / tf[(w, 4096)]:.2f} ")
            else:                                                    # no_pipeline: not in runs 5/6
                assert row[f"{run} 4096³"] == lesson10.MISSING and "no_pipeline" in (w, v)
        assert {s[1] for s in lesson10.FINAL_STEPS if s not in measured} | {
            s[2] for s in lesson10.FINAL_STEPS if s not in measured} >= {"no_pipeline"}
        g = lambda w, v=lesson10.REF: lesson10.fast_gain(w, v, 4096, run)      # noqa: E731
        assert lesson10.largest_step(4096, run)[0].startswith("스위즐")
        # 5.4's prose: 3 stages and prefetch, then lean, then the pipeline alone (without lean); all below 1.2
        pipe, lean = g("barrier_at_tile_start", "no_lean"), g("no_lean")
        mid = [g("stages2"), g("no_prefetch", "barrier_at_tile_start")]
        assert pipe < lean < min(mid) and max(mid) < 1.2 and g("no_swizzle") > 2
        # the old 'pipeline' row (barrier_at_tile_start -> fast) was both switches: the product of the two rows
        assert g("barrier_at_tile_start") == pytest.approx(pipe * lean)
        assert abs(g(lesson10.REF, "raster_g8") - 1) < 0.02               # rasterization: no measurable effect
    lb = [lesson10.fast_gain("no_launch_bounds", lesson10.REF, 4096, r) for r in lesson10.FINAL_RUNS]
    assert min(lb) < 1 < max(lb)                                     # the two runs disagree: not measurable
    lo, hi = lesson10.round_spread("fast", 4096, "run6")
    assert lo < lesson10.fast_tflops("run6")[("fast", 4096)] < hi
    for run in lesson10.FINAL_RUNS:
        cub = lesson10.cublas_tflops(run)
        assert all(f"{cub[n]:.0f}" in lesson10.run_label(run) for n in (2048, 4096))


def test_the_pipeline_with_lean_is_read_from_run8():
    """Review r20 M-1: the pipeline with lean (no_pipeline -> fast) and lean without the pipeline were timed in run 8
    alone; 5.4's table has its column (every run that ablated the final kernel) and the prose gives its figures."""
    assert lesson10.ABLATION_RUNS == ("run5", "run6", "run8")
    rows = {r["없는 변형 → 있는 변형"]: r for r in lesson10.final_steps(lesson10.ABLATION_RUNS)}
    tf = lesson10.fast_tflops("run8")
    for w, v in (("no_pipeline", "fast"), ("barrier_at_tile_start", "no_pipeline")):
        for n in (2048, 4096):
            assert rows[f"{w} → {v}"][f"run8 {n}³"].startswith(f"×{tf[(v, n)] / tf[(w, n)]:.2f} ")
        assert all(rows[f"{w} → {v}"][f"{r} 4096³"] == lesson10.MISSING for r in lesson10.FINAL_RUNS)
    assert rows["no_swizzle → fast"]["run8 4096³"] == lesson10.MISSING          # run 8 timed five variants only
    assert tf[("fast", 4096)] < tf[("no_pipeline", 4096)] and tf[("fast", 2048)] > tf[("no_pipeline", 2048)]
    assert "⚑" in lesson10.ablation_label("run8") and "⚑" not in lesson10.ablation_label("run6")
    text = (lesson10.ROOT / "notebooks" / "10_tensor_core_mma.ipynb").read_text(encoding="utf-8")
    assert "이 기록으로 말할 수 없습니다 (`no_pipeline`" not in text
    assert f"×{tf[('fast', 4096)] / tf[('no_pipeline', 4096)]:.2f}" in text[text.index("## 10. 요약"):]


def _effective(switches):
    """make_kernel's switches with its defaults filled in."""
    import inspect
    from kernels_numba import mma_fast
    defaults = {k: p.default for k, p in inspect.signature(mma_fast.make_kernel).parameters.items()}
    return {**defaults, **switches}


def test_every_ablation_row_is_one_switch():
    """Issue 27: each row of 5.4's table turns back exactly one switch of make_kernel (the last row, the whole way
    from mma_swizzle, is not a switch and says so)."""
    from kernels_numba import mma_fast
    name = lambda v: "fast" if v == lesson10.REF else v          # noqa: E731
    for step, w, v in lesson10.FINAL_STEPS:
        if w == lesson10.WHOLE_WAY:
            assert "전체" in step
            continue
        a, b = _effective(mma_fast.VARIANTS[name(w)]), _effective(mma_fast.VARIANTS[name(v)])
        diff = {k for k in a if a[k] != b[k]}
        assert len(diff) == 1, (step, diff)


def test_recorded_variant_names_are_the_kernels_of_variants():
    """The record names its variants with the switches make_kernel got then; until 2026-11-26 lean=True did nothing
    without the pipeline, so the kernel a recorded row timed is its switches with lean = lean and pipelined. That
    kernel is what mma_fast.VARIANTS builds under the same name now (e.g. barrier_at_tile_start: lean=False)."""
    from kernels_numba import mma_fast
    seen = set()
    for run in lesson10.FINAL_RUNS:
        for (variant, _), r in lesson10.fast_rows(run).items():
            if "switches" not in r.extra:
                continue
            then = _effective(r.extra["switches"])
            then["lean"] = then["lean"] and then["pipelined"]
            assert _effective(mma_fast.VARIANTS[variant]) == then, variant
            seen.add(variant)
    assert {"barrier_at_tile_start", "no_prefetch", "no_lean", "fast"} <= seen


def test_results_and_launch_cost_rows():
    """5.6: one row per run and timing method, each with its own cuBLAS; the goal holds in both final runs; the
    2048^3 launch-cost table comes from run 6 alone (plain and graph figures of that run)."""
    rec = lesson10.FAST
    rows = {r["실행"]: r for r in lesson10.final_results_rows()}
    # every run of both records that timed the final kernel (review r20 W-2: run8 was left out), flagged ones too
    final = [r.id for h in (rec, lesson10.FAST_H200) for r in h.runs
             if r.extra.get("config") == h["config"] or r.id in lesson10.GRAPH_RUNS]
    assert list(rows) == final == ["run5", "run6", "run7_graph", "run8", "h200_run1", "h200_graph"]
    assert [rows[k]["시간 재기"] for k in rows] == ["일반 (실행마다 호출)"] * 2 + ["CUDA 그래프", "2048³ CUDA 그래프, 4096³ 일반",
                                                                        "일반 (실행마다 호출)", "CUDA 그래프"]
    for k, row in rows.items():                                      # a flagged run is shown, marked, with its reason
        run = (rec if k in [r.id for r in rec.runs] else lesson10.FAST_H200).run(k)
        assert bool(row["표시"]) == bool(run.flagged) and (not run.flagged or row["표시"].startswith("⚑"))
    r8 = rec.run("run8")
    assert r8.flagged and all(x in rows["run8"]["표시"] for x in lesson10.flag_figures(r8)[0][1:4])
    assert rec.run("run8").row("mma_fast", 4096).ratio < rec["goal"]["4096"]          # the goal does not hold there
    for run in lesson10.FINAL_RUNS:
        for n in (2048, 4096):
            r = rec.run(run).row("mma_fast", n)
            assert r.ratio >= rec["goal"][str(n)] and f"({100 * r.ratio:.1f} %)" in rows[run][f"mma_fast {n}³"]
    cost = {r["커널"]: r for r in lesson10.launch_cost_rows("run6", 2048)}
    assert cost["cuBLAS"]["그래프 TFLOP/s"] == "-"                 # run 6 could not graph cuBLAS (CuPy)
    assert float(cost["bk64_lean_dyn"]["그래프 ÷ 일반"][1:]) > 1.3 > float(cost["fast"]["그래프 ÷ 일반"][1:]) > 1
    # the 4096^3 control of 5.6: kernels far longer than any recorded host time, graph ÷ plain still off 1 by a few %
    ctrl = lesson10.graph_over_plain("run6", 4096)
    assert set(ctrl) == set(lesson10.LAUNCH_COST_VARIANTS) - {"cuBLAS"} and all(0.9 < x < 1.1 for x in ctrl.values())
    assert {r["커널"]: r["그래프 ÷ 일반"] for r in lesson10.launch_cost_rows("run6", 4096)}["fast"] == f"×{ctrl['fast']:.2f}"


def test_dynamic_rows_against_the_final_kernel():
    """5.6: bk64_lean_dyn is the fastest configuration at 4096^3 in both final runs (not the default)."""
    for run in lesson10.FINAL_RUNS:
        tf = lesson10.fast_tflops(run)
        best = max(lesson10.DYNAMIC, key=lambda v: tf[(v, 4096)])
        assert best == "bk64_lean_dyn" and tf[(best, 4096)] > tf[(lesson10.REF, 4096)]
    import kernels_numba.mma_fast as mf
    assert mf.CONFIG["BK"] == 32 and not mf.CONFIG["DYNAMIC"]


def test_ncu_run6_from_the_raw_export():
    """5.5/5.6: run 6's raw ncu export: cuBLAS runs wgmma (ours do not), the clocks differ, the cycle ratio."""
    raw = lesson10.ncu_csv("run6")
    rec = lesson10.FAST["ncu"]["run6"]
    assert raw["cublas"]["kernel_name"] == rec["cublas"]["kernel_name"] and raw["cublas"]["gmma_pct"] > 0
    assert raw["mma_fast"]["gmma_pct"] == raw["mma_swizzle"]["gmma_pct"] == 0
    for k in ("mma_fast", "cublas"):
        assert raw[k]["duration_ns"] == rec[k]["duration_ns"]
    t, cyc = lesson10.ncu_ratio("run6")
    assert abs(t - lesson10.FAST["ratio_from_ncu_durations_4096"]["run6"]["mma_fast"]) < 1e-3
    assert raw["mma_fast"]["clock_ghz"] > raw["cublas"]["clock_ghz"] and cyc < t
    rows = {r["커널"]: r for r in lesson10.ncu_rows("run6")}
    for s in ("short_scoreboard", "barrier", "wait"):                  # 5.5: the stalls that went down
        assert rows["mma_fast"][f"스톨 {s}"] < rows["mma_swizzle"][f"스톨 {s}"]
    assert rows["mma_fast"]["스톨 long_scoreboard"] >= rows["mma_swizzle"]["스톨 long_scoreboard"]


def test_promotion_rows():
    """5.4.1: Numba's typing of mixed integers (the reason for uint32 everywhere)."""
    rows = {r["피연산자"]: r for r in lesson10.promotion_rows()}
    assert rows["uint64 , int64"]["a < b"].startswith("float64") and rows["uint64 , int64"]["min(a, b)"] == "float64"
    assert rows["uint64 , int64"]["a + b"] == "int64" and rows["uint32 , uint32"]["a + b"] == "uint64"


def test_promotion_rows_match_the_cuda_target():
    """The CUDA target types these operands as the CPU typing context the notebook shows (checked in a subprocess:
    the test process may run the simulator)."""
    import os
    import subprocess
    import sys
    code = ("import operator; from numba import types; from numba.cuda.descriptor import cuda_target; "
            "c = cuda_target.typing_context; c.refresh(); "
            "print(c.resolve_function_type(operator.lt, (types.uint64, types.int64), {}).args[0], "
            "c.resolve_function_type(operator.add, (types.uint64, types.int64), {}).return_type, "
            "c.resolve_function_type(min, (types.uint64, types.int64), {}).return_type)")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["float64", "int64", "float64"]


def test_lean_rows_offline():
    """5.4.1: the lean K loop has the same HMMA/LDGSTS/LDSM and fewer other instructions than no_lean (sm_90)."""
    rows = {r["변형"]: r for r in lesson10.lean_rows((9, 0))}
    lean, plain = rows["fast (lean)"], rows["no_lean"]
    for k in ("HMMA", "LDGSTS", "LDSM"):
        assert lean[k] == plain[k] > 0
    assert lean["K 루프 SASS 명령"] < plain["K 루프 SASS 명령"] and lean["레지스터"] <= plain["레지스터"]


def test_swizzle_demo_a_and_b():
    """5.2/5.4: unpadded ldmatrix phases conflict 8-way on B (rows of 128 f16) and 4-way on A (rows of 32 f16)."""
    assert lesson10.swizzle_demo(tile="B")["패딩 없음"] == (8, 8) and lesson10.swizzle_demo(tile="A")["패딩 없음"] == (4, 4)
    for t in "AB":
        assert lesson10.swizzle_demo(tile=t)["스위즐"] == (1, 1)


def test_ncu_and_race_rows():
    rows = {r["커널"]: r for r in lesson10.ncu_rows("run6")}
    assert rows["mma_fast"]["텐서 파이프 %"] > rows["mma_swizzle"]["텐서 파이프 %"]
    assert rows["cuBLAS"]["스톨 gmma"] > 0 == rows["mma_fast"]["스톨 gmma"] == rows["mma_swizzle"]["스톨 gmma"]
    for s in ("short_scoreboard", "barrier", "wait"):                  # 5.5: the stalls that went down
        assert rows["mma_fast"][f"스톨 {s}"] < rows["mma_swizzle"][f"스톨 {s}"]
    race = {r["경우"]: r for r in lesson10.race_gpu()}
    assert all(r["racecheck 보고"] > 0 for r in race.values())
    # 4.4: the one-warp cases are Warnings only, the two-warp cases hold Errors
    assert all(r["심각도"] == "Warning" for n, r in race.items() if r["워프"] == 1)
    assert all("Error" in r["심각도"] for n, r in race.items() if r["워프"] == 2)
    # 4.4 says: one warp right in every plain run; two warps without the barrier after the wait wrong
    assert race["mma_w1_no_barrier_after_wait"]["검사 없이 틀린 실행"].startswith("0/")
    assert race["mma_w1_no_trailing_barrier"]["검사 없이 틀린 실행"].startswith("0/")
    assert not race["mma_w2_no_barrier_after_wait"]["검사 없이 틀린 실행"].startswith("0/")


def test_spill_rows_offline():
    """5.3: mma_swizzle spills in ptxas (no .local in its PTX), nearly all after the last HMMA; mma_fast not at all."""
    rows = {r["커널"]: r for r in lesson10.spill_rows((9, 0))}
    s, f = rows["mma_swizzle"], rows["mma_fast"]
    assert not s["PTX 의 .local"] and s["스택+로컬 B"] > 0 and s["그중 마지막 HMMA 뒤"] >= 0.9 * s["LDL/STL"] > 0
    assert s["에필로그 setp.eq.s64"] >= 16 and s["레지스터"] <= 128
    assert f["스택+로컬 B"] == f["LDL/STL"] == f["에필로그 setp.eq.s64"] == 0 and f["레지스터"] <= 255


def test_race_demos_right_answer_but_reported():
    """4.4: on the simulator both barrier demos give the right C and the detector reports the race."""
    from course.racereport import run_demo
    from kernels_numba.demos import mma_barriers
    from kernels_numba.infra import device
    if not device.SIMULATOR:
        pytest.skip("the race detector is the simulator's")
    for launch, kind in ((mma_barriers.launch_no_barrier_after_wait, "RAW"),
                         (mma_barriers.launch_no_trailing_barrier, "WAR")):
        out = run_demo(launch, 32, 16, 64, dtype=np.float16)
        assert out["ok"] and not out["nan"] and out["report"] is not None and out["report"].hazards
        assert kind in out["report"].summary(5)


def _gen():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "course" / "ch10_tensor_core" / "notebook.py"
    spec = importlib.util.spec_from_file_location("_gen_nb10b", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen, path.read_text(encoding="utf-8")


def test_fast_section_figures_are_filled_not_typed():
    """5.3-5.6 and 4.4 state H100/H200 figures only through FIG: none of them appears typed in the generator's cells."""
    import re
    gen, src = _gen()
    assert gen._REF == lesson10.FAST_REF
    cells = "\n".join(re.findall(r'md\(r"""(.*?)"""\)', src[src.index("NB = Notebook("):], re.S))    # the prose
    assert "5.4 단계마다" in cells and "{{swz_gain_r6_4096}}" in cells and "{{lean_gain_r6_4096}}" in cells
    keys = [k for k in gen.FIG if k.startswith(("r4_", "r5_", "r6_", "best", "swz_gain", "spill_gain", "pipe_gain",
                                                 "warp_gain", "late_gain", "lean_", "pre_gain", "st_gain", "lb_gain",
                                                 "all_gain", "both_gain", "bk64_", "g_", "h2", "drop_", "goal_", "steady_",
                                                 "early_cub", "host_", "gpu_", "graph_gain",
                                                 "spread_", "ncu_", "clk_", "gmma", "tp_", "wait_", "ssb_", "bar_",
                                                 "lsb_", "mpt_", "occ_", "fast_", "swz_", "w1_", "w2_", "nolean_",
                                                 "f16", "ratio_k0", "cub1024"))
            and k not in ("fast_smem", "fast_threads", "swz_regs", "h200_gpu", "h200_date", "steady_first",
                          "steady_early_runs")]   # configuration, names
    assert len(keys) > 60
    for k in keys:
        v = str(gen.FIG[k])
        if any(ch.isdigit() for ch in v) and (len(v) >= 3 or "." in v):
            hits = re.findall(r"(?<![\d.])" + re.escape(v) + r"(?![\d.])", cells)
            assert not hits, (k, v)
    text = gen.NB.text()
    assert "{{" not in text and gen.FIG["cublas_kernel"] in text
    rec = lesson10.FAST
    for run in lesson10.FINAL_RUNS:                                   # 'met in both runs' holds
        for n in ("2048", "4096"):
            assert float(gen.FIG[f"best{run[-1]}_{n}"]) >= 100 * rec["goal"][n]
    assert "목표와 그 단서" in text and "같은 클록" in text          # met in runs 5/6, with the baseline's caveat
    assert "run 5" in text and "run 6" in text and gen.FIG["h200_gpu"] in text


# ---- issue 17: "지금 이 GPU" figures, checks on a GPU without sm_80, background offline work ----
def _matrix_row(name, spec):
    from kernels_numba.tools import table
    return next(r for r in table.load_targets()["rows"] if r["kernel"] == name and r["target"] == spec.arch)


@pytest.mark.parametrize("gpu", ["T4", "RTX 4090", "A100", "RTX 3060"])
def test_here_rows_match_the_occupancy_model(gpu):
    """here_rows(gpu=GpuSpec): the offline matrix's registers and shared memory for that CC through sim.occupancy;
    on CC 7.5 mma_large is replaced by mma_large_turing and the sm_80 kernels run nowhere."""
    from sim import occupancy
    spec = occupancy.GPUS[gpu]
    names = ("mma_simple", "mma_large", "mma_pipe", "mma_swizzle", "mma_fast")
    rows = {r["kernel"]: r for r in lesson10.here_rows(names, gpu=spec)}
    assert list(rows) == list(names)
    for name, r in rows.items():
        if spec.cc < (8, 0):
            assert r["runs"] == lesson10.TURING.get(name)          # None for the kernels without a Turing version
        else:
            assert r["runs"] == name
        if r["runs"] is None:
            assert "registers" not in r
            continue
        m = _matrix_row(r["runs"], spec)
        want = occupancy.occupancy(spec, m["registers"], m["threads"], m["smem_static"] + m["smem_dynamic"])
        assert (r["registers"], r["smem"], r["blocks"], r["warps"], r["percent"]) == (
            want.regs_per_thread, want.smem_per_block, want.blocks_per_sm, want.active_warps, want.percent)
        assert r["source"] == f"오프라인 컴파일 {spec.arch}" and r["max_warps"] == spec.max_warps_per_sm


def test_here_lines_name_the_gpu_and_say_what_runs():
    from sim import occupancy
    t4 = occupancy.GPUS["T4"]
    lines = lesson10.here_lines(("mma_large", "mma_fast"), gpu=t4)
    assert all(l.startswith("지금 이 GPU (T4, CC 7.5): ") for l in lines)
    assert "mma_large 대신 mma_large_turing" in lines[0] and "돌지 않습니다" in lines[1]
    a100 = lesson10.here_lines(("mma_fast",), gpu=occupancy.GPUS["A100"])[0]
    o = kocc.kernel_occupancy("mma_fast", "A100")
    assert f"SM당 {o.blocks_per_sm}블록" in a100 and f"레지스터 {o.regs_per_thread}개" in a100
    table = lesson10.here_table(("mma_large", "mma_fast"), gpu=t4)
    assert table[0]["커널"] == "mma_large → mma_large_turing" and table[1]["점유율"] == "이 GPU 에서 돌지 않음"


@pytest.mark.skipif(not kn.device.SIMULATOR, reason="without a GPU the 'this GPU' lines are empty; on a GPU they are not")
def test_here_lines_empty_without_gpu():
    assert lesson10.here_lines(("mma_large", "mma_fast")) == [] and lesson10.here_table(("mma_fast",)) == []
    assert lesson10.here_label() is None


def test_fast_recorded_line_reads_the_h100_record():
    rec = lesson10.FAST
    line = lesson10.fast_recorded_line()
    assert line.startswith(rec.run("run6").gpu) and f"(기록, {rec.run('run6').date})" in line
    assert f"레지스터 {rec['final']['registers']}개" in line and f"SM당 {rec['previous_best']['blocks_per_sm']}블록" in line


def test_check_kernels_on_a_cc75_device_use_one_simulator_process():
    """A device without sm_80 (here the simulator as a CC 7.5 GPU): the sm_80 kernels of a check cell are checked
    together in one simulator subprocess, and say so once."""
    import json
    import os
    import subprocess
    import sys
    code = ("import json; from course.ch10_tensor_core import lesson as L\n"
            "r = L.check_kernels([('mma_warps', (48, 40, 48)), ('mma_fast', (48, 24, 48))], alpha=1.5, beta=-0.5)\n"
            "print('RESULT', json.dumps(r))\n")
    env = dict(os.environ, SGEMM_DEVICE="sim", SGEMM_SIM_CC="7.5")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.count("별도 프로세스의 시뮬레이터에서 검사합니다") == 1
    res = json.loads(p.stdout.split("RESULT ", 1)[1])
    assert all(r["ok"] and r["identity"] for r in res.values()) and list(res) == ["mma_warps", "mma_fast"]


def test_prefetch_and_cells_share_one_result():
    """prefetch() submits each offline compile and ptxas probe once; the cells' helpers wait for the same futures."""
    lesson10.prefetch()
    key = ("compile", "mma_large", (9, 0))
    f = lesson10._TASKS[key]
    lesson10.prefetch()                                  # a second call submits nothing new
    assert lesson10._TASKS[key] is f
    assert lesson10.compiled([("mma_large", (9, 0))])[("mma_large", (9, 0))] is f.result()
    ins = lesson10.FEATURES[0][1]
    assert lesson10._probe(ins, "sm_80") is lesson10._TASKS[("probe", ins, "sm_80")].result()


# ---- review of the GPU path: CPU share of background work, exit, progress bars, live GPU figures ----
def test_side_workers_one_on_two_cores():
    assert lesson10.side_workers(1) == lesson10.side_workers(2) == 1
    assert lesson10.side_workers(16) == 2 and lesson10.side_workers(None) in (1, 2)


@pytest.mark.skipif(not hasattr(__import__("os"), "getpriority"), reason="nice values are a POSIX feature")
def test_background_subprocesses_run_at_lower_priority():
    import os
    import sys
    r = lesson10._run_low([sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"])
    here = os.getpriority(os.PRIO_PROCESS, 0)
    assert r.returncode == 0 and int(r.stdout) == min(19, here + lesson10.NICE)
    assert all(q.args != r.args for q in set(lesson10._PROCS))     # the finished child is no longer tracked


def test_exit_does_not_wait_for_the_prefetch_queue(tmp_path):
    """A fresh process that starts prefetch (empty compile cache: minutes of queued work) and exits at once ends in a
    few seconds: daemon threads, the queue dropped, the running side subprocess killed."""
    import os
    import subprocess
    import sys
    import time
    env = dict(os.environ, SGEMM_DEVICE="sim", SGEMM_OFFLINE_CACHE=str(tmp_path))
    code = "from course.ch10_tensor_core import lesson as L; L.prefetch(); import time; time.sleep(1.0)"
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert p.returncode == 0, p.stderr[-2000:]
    assert time.perf_counter() - t < 30, "exit waited for the background queue"   # minutes if it did; 30 s: a loaded 2-core host


class _Bars:
    """Stands in for tqdm in course.steps: records each bar's n and total when it closes."""

    def __init__(self):
        self.closed = []
        rec = self

        class Fake:
            def __init__(self, iterable=None, total=None, **kw):
                self.iterable, self.total, self.n = iterable, total, 0

            def __iter__(self):
                for x in self.iterable:
                    yield x
                    self.n += 1
                self.close()

            def update(self, n=1):
                self.n += n

            def set_postfix_str(self, *a, **kw):
                pass

            def close(self):
                rec.closed.append((self.n, self.total))

        self.cls = Fake


def test_progress_bars_end_at_their_total(monkeypatch):
    """A bar closed short of its total turns red in Jupyter: every bar check_kernels and the waits open ends full
    when the work succeeds (here: two kernels checked in this process, and a wait on futures still running)."""
    import threading
    from concurrent.futures import Future
    from course import steps
    bars = _Bars()
    monkeypatch.setattr(steps, "tqdm", bars.cls)
    res = lesson10.check_kernels([("mma_simple", (16, 8, 16)), ("mma_large", (32, 16, 32))])
    assert all(r["ok"] and r["identity"] for r in res.values())
    futures = [Future() for _ in range(3)]
    for f in futures:
        f.set_running_or_notify_cancel()
    threading.Timer(0.3, lambda: [f.set_result(k) for k, f in enumerate(futures)]).start()
    assert lesson10._wait([(str(k), f) for k, f in enumerate(futures)], "기다림") == [0, 1, 2]
    assert bars.closed == [(2, 2), (3, 3)]


def test_the_simulator_process_moves_the_bar(monkeypatch):
    """_check_in_simulator (kernels this device cannot run): the child reports each kernel, the bar reaches its total."""
    class Bar:
        n = 0

        def update(self, k=1, note=None):
            self.n += k
    bar = Bar()
    res = lesson10._check_in_simulator([("mma_simple", (16, 8, 16)), ("mma_large", (32, 16, 32))], 1.0, 0.0, 0, bar)
    assert bar.n == 2 and all(r["ok"] for r in res.values())


# GPU-only: the live paths (the lead runs these on an H100)
def _large_here():
    """mma_large, or on CC 7.5 the kernel that runs there instead (mma_large_turing)."""
    return "mma_large" if kn.get("mma_large").runs_here() else lesson10.TURING["mma_large"]


@pytest.mark.gpu_only("here_rows(gpu=None) reads the GPU in use and the kernel loaded on it")
def test_here_rows_of_a_launched_kernel_are_the_loaded_kernels():
    from sim import occupancy
    run = _large_here()
    assert lesson10._check_here(run, 32, 16, 32)["ok"]                  # now compiled and loaded in this process
    row = lesson10.here_rows(["mma_large"])[0]
    o = kocc.occupancy_here(run)
    assert row["runs"] == run and row["source"] == "올라간 커널"
    assert (row["registers"], row["smem"], row["blocks"], row["warps"], row["max_warps"], row["percent"]) == (
        o.regs_per_thread, o.smem_per_block, o.blocks_per_sm, o.active_warps, o.max_warps, o.percent)
    gpu = kocc.current_gpu()
    line = lesson10.here_lines(["mma_large"])[0]
    assert line.startswith(f"지금 이 GPU ({gpu.name}, CC {gpu.cc[0]}.{gpu.cc[1]}): ")
    assert f"SM당 {o.blocks_per_sm}블록" in line and "올라간 커널" in line


@pytest.mark.gpu_only("check_kernels compiles and launches on the GPU (or, below CC 8.0, in the simulator process)")
def test_check_kernels_on_the_gpu():
    res = lesson10.check_kernels([(_large_here(), (48, 40, 48)), ("mma_warps", (48, 40, 48))], alpha=1.5, beta=-0.5)
    assert all(r["ok"] and r["identity"] for r in res.values()), res


def _unnamed(x):
    """x with Numba's mangled function names blanked: each compile in a process gets a new ABI tag (…B2v7…)."""
    import re
    if isinstance(x, dict):
        return {k: _unnamed(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_unnamed(v) for v in x)
    return re.sub(r"_ZN\w+", "_Z", x) if isinstance(x, str) else x


@pytest.mark.gpu_only("in a GPU process the background compiles must leave numba's current context alone")
def test_prefetch_equals_direct_compiles_and_keeps_the_gpu():
    from numba import cuda
    from kernels_numba.tools import offline
    ctx = cuda.current_context()
    lesson10.prefetch()
    got = lesson10.compiled(lesson10.PREFETCH_COMPILES)
    for name, cc in lesson10.PREFETCH_COMPILES:
        direct = offline._compile_subprocess(name, cc)                   # the worker, bypassing the disk cache
        assert (_unnamed(got[(name, cc)]["sass"]), got[(name, cc)]["usage"]) == \
            (_unnamed(direct["sass"]), direct["usage"]), name
    plain = lesson10._compile_fast_variant({"lean": False}, (9, 0)).result()
    assert _unnamed(plain) == _unnamed(lesson10._compile_fast_variant_now({"lean": False}, (9, 0)))
    ins = lesson10.FEATURES[0][1]
    assert lesson10._probe(ins, "sm_80")[:2] == lesson10._probe_now(ins, "sm_80")[:2]
    assert cuda.current_context() is ctx and not kn.device.SIMULATOR
    assert lesson10._check_here(_large_here(), 32, 16, 32)["ok"]       # the GPU still runs kernels afterwards


def test_goal_caveat_follows_the_record():
    """Issue 27: 5.6 and the summary show the baselines behind 55-57 % (every cuBLAS figure at 4096³ in the H100
    record beside one unchanged kernel) and the same-clock ratio, all from the record."""
    rec = lesson10.FAST
    ev = lesson10.goal_evidence(4096)
    for run in lesson10.BASELINE_RUNS:
        rows = lesson10.fast_rows(run)
        assert ev["cublas"][run] == rows[("cuBLAS", 4096)].tflops
    # the steady kernel is the same kernel in those runs: same switches, default block order, registers
    steady = lesson10.steady_runs()
    assert steady == ("run4", "run5", "run6", "run8") and rec.run("run3").extra["config"]["GROUP_M"] != rec["config"]["GROUP_M"]
    def kernel(r):           # the switches in effect (until 2026-11-26 lean did nothing without the pipeline)
        row = lesson10.fast_rows(r)[(lesson10.STEADY, 4096)]
        then = _effective(row.extra["switches"])
        then["lean"] = then["lean"] and then["pipelined"]
        return str(sorted(then.items())), row.extra["registers"]
    assert len({kernel(r) for r in steady}) == 1
    for run in steady:
        rows = lesson10.fast_rows(run)
        assert ev["steady"][run] == pytest.approx(rows[(lesson10.STEADY, 4096)].tflops / rows[("cuBLAS", 4096)].tflops)
    # the unchanged kernel moves within a few %, its share of cuBLAS by much more: the baseline moved
    st = [lesson10.fast_rows(r)[(lesson10.STEADY, 4096)].tflops for r in steady]
    assert max(st) / min(st) < 1.05 and max(ev["steady"].values()) - min(ev["steady"].values()) > 0.05
    assert 0.1 < ev["drop_lo"] < ev["drop_hi"] < 0.2
    assert (ev["ncu_time"], ev["ncu_clock"]) == lesson10.ncu_ratio("run6") and ev["ncu_clock"] < ev["goal"]
    assert min(ev["final"].values()) >= ev["goal"]
    # every run of the final kernel, its own cuBLAS each: run8 (flagged) is below the goal, and said so
    assert set(ev["every"]) == set(lesson10.final_kernel_runs(rec)) and ev["below"] == ("run8",)
    assert set(ev["flagged"]) == {"run8"}
    rows = lesson10.baseline_rows(4096)                  # every cuBLAS 4096³ of the record (review r20 W-2: run1/2/8)
    assert [r["실행"] for r in rows] == [r.id for r in rec.runs if r.select("cuBLAS", 4096)] + ["run6 ncu"]
    assert [r["실행"] for r in rows][:-1] == ["run1", "run2", "run3", "run4", "run5", "run6", "run7_graph", "run8"]
    assert f"{100 * ev['ncu_clock']:.1f} %" in rows[-1]["mma_fast (cuBLAS 대비)"]
    r8 = next(r for r in rows if r["실행"] == "run8")
    assert r8["표시"].startswith("⚑") and f"({100 * ev['every']['run8']:.1f} %)" in r8["mma_fast (cuBLAS 대비)"]
    assert all(not r["표시"] for r in rows if r["실행"] != "run8")
    assert len(lesson10.baseline_rows(2048)) == len(rows) - 1                          # ncu profiled 4096³ only
    text = (lesson10.ROOT / "notebooks" / "10_tensor_core_mma.ipynb").read_text(encoding="utf-8")
    summary = text[text.index("## 10. 요약"):]
    lo = min(ev["ncu_clock"], ev["ncu_time"], *ev["every"].values())
    hi = max(ev["ncu_clock"], ev["ncu_time"], *ev["every"].values())
    assert lo == ev["every"]["run8"]
    assert "단서" in summary and f"{100 * ev['ncu_clock']:.1f} %" in summary and f"{100 * lo:.1f}–{100 * hi:.1f} %" in summary
    assert "run 8" in summary and f"{100 * ev['every']['run8']:.1f} %" in summary and "목표 아래" in summary
    assert "어느 쪽으로 재도" not in text and "모든 기록입니다" not in text
    assert "L.baseline_rows(4096)" in text


def test_wgmma_needs_sm_90a():
    """Issue 27: wgmma assembles for the arch-specific target sm_90a only; ptxas refuses it for .target sm_90."""
    t = lesson10.wgmma_targets()
    # ptxas versions word the refusal differently: the fact is that sm_90 refuses and names the target or the
    # instruction, and that sm_90a assembles it into HGMMA
    assert t["sm_90"].startswith("❌") and ("sm_90" in t["sm_90"] or "wgmma" in t["sm_90"]), t
    assert "HGMMA" in t["sm_90a"], t


def test_launch_bounds_128_2_caps_nothing():
    """Issue 27: 65,536 / (128 x 2) = 256 >= 255, so launch_bounds(128, 2) sets no register cap; in both final runs the
    variant without it has the same blocks per SM (5.3 and 5.4 say so, from these figures)."""
    from sim import occupancy
    rec = lesson10.FAST
    h100 = occupancy.GPUS["H100"]
    assert h100.regs_per_sm // (rec["final"]["threads"] * 2) >= h100.max_regs_per_thread
    for run in lesson10.FINAL_RUNS:
        rows = lesson10.fast_rows(run)
        assert rows[("no_launch_bounds", 4096)].extra["blocks_per_sm"] == rows[("fast", 4096)].extra["blocks_per_sm"] == 2


def test_bound_check_prints_the_prose_formula():
    """Section 8's cell: the formula as the prose writes it equals tc.error_bound; the largest K per accumulator."""
    from kernels_numba import tc
    r = lesson10.bound_check()
    vals = list(r.values())
    assert vals[0] < 1e-12 and vals[1] > 1 and vals[2] == (tc.bound_k_max("f32"), tc.bound_k_max("f16")) and vals[2][1] == 1023


def test_run8_flag_basis_and_the_record_spread():
    """Review r21 M-2: 5.6 names what run 8's flag compared against (the same engine's earlier runs, other records:
    the set whose median the record wrote) and applies the same rule inside the H100 record, where run 6 is outside
    too; the summary states the goal per run (held in runs 5/6, not in run 8) and the baseline's spread."""
    import statistics
    rec = lesson10.FAST
    basis = lesson10.flag_basis("run8")
    (n, (tf, dev, med, runs)), = basis.items()
    assert n == 4096 and tf == pytest.approx(rec.run("run8").row("cuBLAS", 4096).tflops, abs=0.05)
    assert f"{statistics.median(x for *_, x in runs):.1f}" == f"{med:.1f}" and len(runs) == 2
    assert all(run not in [r.id for r in rec.runs] for _, run, _, _ in runs)           # other records
    spread = {r["run"]: r for r in lesson10.record_spread(4096)}
    assert list(spread) == [r.id for r in rec.runs if r.select("cuBLAS", 4096)]
    for run, r in spread.items():
        others = [v["cublas"] for k, v in spread.items() if k != run]
        assert r["median"] == statistics.median(others) and r["outside"] == (abs(r["cublas"] / r["median"] - 1) > 0.05)
    assert spread["run6"]["outside"] and spread["run8"]["outside"]
    text = (lesson10.ROOT / "notebooks" / "10_tensor_core_mma.ipynb").read_text(encoding="utf-8")
    assert "표시된 실행이라 이 값으로 목표를 판정하지는 않지만" not in text and "높게 재서" not in text
    assert "L.flag_basis(\\\"run8\\\")" in text and "L.record_spread_rows(4096)" in text
    summary = text[text.index("## 10. 요약"):]
    lo, hi = min(r["cublas"] for r in spread.values()), max(r["cublas"] for r in spread.values())
    assert f"{lo:.0f}–{hi:.0f} TFLOP/s" in summary and "run 5·6 에서 넘었고 run 8 에서는" in summary
    assert "앞선 실행보다" not in summary and "run 3·4 보다" in summary
