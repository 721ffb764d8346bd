"""course.ch08_double_buffering.lesson and the db bug demos: the analysis behind notebook 08 against hand-computed or recorded references."""
import pytest

import course
import kernels_numba as kn
from course import kit
from course.ch08_double_buffering import lesson as L8
from kernels_numba.registry import module_of
from sim import occupancy, pipeline
from fakes import live_run
from kernels_numba import occupancy as kocc

REC = course.recorded("gpu_h200_levels34")
sim_only = pytest.mark.skipif(not kn.device.SIMULATOR, reason="the simulator's thread order makes the race show every time")


def test_gantt_and_bars():
    g = L8.gantt(pipeline.schedule(3, 8, 2, stages=2))
    assert g.lines[0] == "  로드  |" + "0" * 8 + "1" * 8 + "2" * 8 + "  |" and g["total"] == 26
    b = L8.bars(pipeline.schedule(4, 80, 100, stages=2))
    assert b["load"] == [(0, 80), (80, 160), (180, 260), (280, 360)] and b["total"] == 480


def test_tile_compute_times():
    assert L8.tile_compute_times()["cycles"] == {"A100": 2048, "H100": 1024, "H200": 1024}
    assert L8.tile_compute_times(2)["cycles"] == {"A100": 4096, "H100": 2048, "H200": 2048}


def test_buffer_table_from_trace():
    bt = L8.buffer_table(4)
    assert bt["first"] == ("store", 0) and bt["table"] == [(0, 0, 1), (1, 1, 0), (2, 0, 1), (3, 1, None)]


@pytest.mark.parametrize("name,missing", [("db_no_loop_barrier", "barrier"), ("db_no_prologue", "prologue")])
def test_demo_modules(name, missing):
    mod = module_of(name)
    assert callable(mod.launch) and hasattr(mod, "kernel")
    assert missing in mod.__doc__ and "What is missing" in mod.__doc__ and "Why it breaks" in mod.__doc__
    assert name not in {s.name for s in kn.REGISTRY}


@sim_only
def test_broken_variants_fail_db_passes():
    bv = L8.broken_variants()
    assert bv["db"] == (True, False) and bv["db_no_loop_barrier"][0] is False and bv["db_no_prologue"] == (False, True)


def test_ldg_probe_ca_is_strong_sm():
    assert L8.ldg_opcodes("ld.global", (8, 0)) == ["LDG.E"]
    assert L8.ldg_opcodes("ld.global.ca", (8, 0)) == L8.ldg_opcodes("ld.relaxed.cta.global", (8, 0)) == ["LDG.E.STRONG.SM"]


def test_shared_and_occupancy_by_stages():
    assert L8.smem_per_stage() == 128 * 9 * 4 + 8 * 129 * 4 == 8736
    occ = L8.occupancy_by_stages({(8, 0): 126, (9, 0): 127})["occ"]
    assert {o.blocks_per_sm for o in occ.values()} == {2} and occ["A100", 2].limits["shared memory"] == 9


def test_ffma_between():
    order = [("LDG", 4), ("STS", 4), ("FFMA", 64), ("BAR", 1)]
    assert L8.ffma_between(order, "LDG", "STS") == 0
    assert L8.ffma_between([("LDG", 8), ("LDS", 4), ("FFMA", 512), ("STS", 8)], "LDG", "STS") == 512


def test_pairs_stalls_and_issue_use_from_recording():
    pr = L8.pair_ratios(REC)
    assert abs(pr["pair"]["db"] - 1) < 0.05 and pr["pair"]["db_overlap"] > 1
    # issue 18 item 13: at 4096³ db_ptx also beats its single-buffer pair, and 70-85 % holds only from 2048³ up
    assert pr["pair"]["db_ptx"] > 1 and round(pr["pair"]["db_ptx"], 3) == 1.037 and round(pr["pair"]["db_overlap"], 3) == 1.05
    assert round(pr["by_n"][2048]["db_overlap"], 3) == 1.009
    assert pr["ratios"]["db_overlap", 1024] < 0.5 and all(0.7 <= pr["ratios"]["db_overlap", n] <= 0.85 for n in (2048, 4096))
    ss = L8.stall_shares(REC)
    m = REC["ncu_stalls"]["metrics"]
    assert ss["cpi"]["db"] == pytest.approx(sum(m["db"]["cycles_per_issue"].values()))
    iu = L8.issue_use(REC)
    use = iu["use"]
    # issue 27: 2048³ in 128 x 128 tiles = 256 blocks of 8 warps in 132 SMs x 2: 3.88 warps per scheduler, not 4
    assert REC["ncu_stalls"]["n"] == 2048 and iu["warps"]["db_overlap"] == pytest.approx(256 * 8 / (132 * 4))
    assert use["db_overlap"] == pytest.approx(iu["warps"]["db_overlap"] / ss["cpi"]["db_overlap"])
    # selected is 1 cycle per issue, so a warp's selected share is 1 / (sum of cycles per issue)
    assert m["db_overlap"]["percent"]["selected"] == pytest.approx(100 / ss["cpi"]["db_overlap"], rel=0.02)
    assert 0.78 < use["db_overlap"] < 0.86 and use["db"] < 0.7


def test_model_vs_formula():
    rows = L8.model_vs_formula()["rows"]
    r = rows[0]
    assert (r["L"], r["C"], r["single"], r["double"], r["formula"]) == (100, 10, 440, 410, 500)
    assert all(x["double"] == x["closed"] == x["L"] + x["C"] + (x["N"] - 1) * max(x["L"], x["C"]) for x in rows)


def test_hideable_latency_applies_only_to_overlapping_kernels():
    """Issue 18 item 12: the window is one warp's 512 FFMA issues (1 cycle each with 32 lanes per scheduler, 2 on A100)."""
    between = {("db", (8, 0)): 0, ("db", (9, 0)): 0, ("db_overlap", (8, 0)): 512, ("db_overlap", (9, 0)): 512}
    hl = L8.hideable_latency(between)
    assert hl["overlapping"] == ["db_overlap"] and hl["cycles"] == {"A100": 1024, "H100": 512, "H200": 512}

def test_h200_spec_matches_the_recorded_device():
    """Notebook 08 §3.1 takes SMs, lanes and clock from sim.occupancy: they are the recorded H200's."""
    f, h = REC["device_facts"], occupancy.GPUS["H200"]
    assert (h.sm_count, h.fp32_lanes_per_sm, h.boost_clock_mhz) == (f["sm_count"], f["fp32_lanes_per_sm"],
                                                                    f["max_sm_clock_mhz"])


def test_stall_claims_of_section_4_9():
    """What notebook 08 §4.9 says about the recorded WarpStateStats ratios (was asserted in the notebook)."""
    share = L8.stall_shares(REC)["share"]
    assert share["db"]["long_scoreboard"] > share["regblock_opt"]["long_scoreboard"]
    assert share["db_overlap"]["long_scoreboard"] < 0.1 * share["regblock_vec"]["long_scoreboard"]
    assert max(share[k].get("math_pipe_throttle", 0) for k in share) < 10
    assert max(share["db_overlap"], key=share["db_overlap"].get) == "not_selected"
    use = L8.issue_use(REC)["use"]
    assert use["db_overlap"] > max(use[k] for k in ("db", "db_ptx", "regblock_opt"))
    # the cycles the scheduler did not issue are not split by reason; barrier is a small share (issue 18 item 18)
    assert share["db_overlap"]["barrier"] < min(share["db_overlap"][k] for k in ("short_scoreboard", "dispatch_stall", "wait"))


def test_recorded_tables_line_up_on_a_monospace_screen():
    # Hangul takes two columns: labels are padded by display width, so every row of a table is equally wide
    import unicodedata
    cols = lambda t: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in t)   # noqa: E731
    for rep in (L8.pair_ratios(REC), L8.stall_shares(REC)):
        lines = [ln for ln in rep.lines if not ln.startswith("기록")]
        assert len({cols(ln) for ln in lines}) == 1, lines


def test_ptx_counts_are_what_nb08_says_the_source_writes():
    # nb08 3.4: one PTX instruction per place in the source; the k loop is not unrolled before ptxas
    DB = kn.get("db").module
    e, tile_loads = DB.TM * DB.TN, 2 * (DB.BM * DB.BK + DB.BK * DB.BN) // DB.THREADS    # prologue + prefetch
    pv = L8.ptx_vs_db()
    assert pv["ptx"]["db"] == {"fma.rn.f32": 2 * e, "ld.global.f32": tile_loads + e, "ld.global.ca.f32": 0}
    assert pv["ptx"]["db_ptx"] == {"fma.rn.f32": 3 * e, "ld.global.f32": 2 * e, "ld.global.ca.f32": tile_loads}
    for cc in ((8, 0), (9, 0)):                      # C stores: db's two beta paths; db_ptx's 16-byte path per row half
        assert pv["loop"]["db", cc][1] == {"STG.E": 2 * e}
        assert pv["loop"]["db_ptx", cc][1]["STG.E.128"] == DB.TM * DB.TN // 4


# ------------------------------------------------------------------ "on your GPU" figures (issue 17)

HERE_GPUS = ("T4", "RTX 3060", "A100", "H100")


@pytest.mark.parametrize("g", HERE_GPUS)
def test_here_figures_match_the_occupancy_model(g):
    """Each "지금 이 GPU" figure of notebook 08, computed for a GpuSpec, against sim.occupancy computed here."""
    spec, DB = occupancy.GPUS[g], kn.get("db").module
    label = f"지금 이 GPU ({spec.name}, CC {spec.cc[0]}.{spec.cc[1]})"
    t = L8.tile_time_here(spec)
    assert t["cycles"] == DB.BM * DB.BN * DB.BK // spec.fp32_lanes_per_sm and str(t).startswith(label)
    assert t["ns"] == pytest.approx(t["cycles"] / spec.boost_clock_mhz * 1e3)
    w = L8.issue_window_here(spec)
    assert w["cycles"] == DB.BK * DB.TM * DB.TN * 32 // (spec.fp32_lanes_per_sm // 4)
    names = ("db", "db_overlap", "db_ptx")
    kh = L8.kernels_here(names, spec)
    for name in names:                         # offline matrix: registers and shared bytes compiled for spec's cc
        ref = kocc.kernel_occupancy(name, spec)
        assert kh["occ"][name].blocks_per_sm == ref.blocks_per_sm and kh["occ"][name] == ref
    assert len(kh.lines) == 3 and all(line.startswith(label) for line in kh.lines)
    regs = kocc.kernel_occupancy("db", spec).regs_per_thread
    ob = L8.occupancy_by_stages({(8, 0): 126, (9, 0): 127}, gpu=spec)
    for S in (1, 2, 3):
        assert ob["occ_here"][S] == occupancy.occupancy(spec, regs, DB.THREADS, S * L8.smem_per_stage())
    assert sum(line.startswith(label) for line in ob.lines) == 3
    ov = L8.overlap_resources(gpu=spec)
    assert ov.lines[-1].startswith(label) and ov["here"]["occ"]["db_overlap"] == kocc.kernel_occupancy("db_overlap", spec)


def test_here_figures_differ_where_the_gpus_do():
    """The point of computing them: a T4 (32 warps per SM, 64 lanes) is not an H100."""
    t4, h100 = (L8.kernels_here(("db",), g)["occ"]["db"] for g in ("T4", "H100"))
    assert t4.blocks_per_sm == h100.blocks_per_sm == 2 and (t4.percent, h100.percent) == (50.0, 25.0)
    assert L8.tile_time_here("T4")["cycles"] == 2 * L8.tile_time_here("H100")["cycles"]


@pytest.mark.skipif(not kn.device.SIMULATOR, reason="without a GPU there is no 'this GPU' to report")
def test_no_here_figures_without_a_gpu():
    assert L8.tile_time_here() is None and L8.kernels_here(("db",)) is None and L8.issue_window_here() is None
    assert L8.occupancy_by_stages({(8, 0): 126, (9, 0): 127})["occ_here"] == {}
    assert "지금 이 GPU" not in str(L8.overlap_resources())


def test_bench_table_keeps_the_record_next_to_a_live_run():
    live = live_run([{"kernel": "cuBLAS", "n": 1024, "tflops": 4.0, "ratio": 1.0},
                     {"kernel": "db", "n": 1024, "tflops": 2.0, "ratio": 0.5}])
    bt = L8.bench_table(REC, live)
    text = str(bt)
    assert text.startswith(f"기록(recorded) — {REC.gpu} {REC.date}")
    assert "지금 이 GPU (Tesla T4, CC 7.5) — 2026-11-25" in text and bt["live_ratio"]["db", 1024] == 0.5
    assert bt["ratio"] == L8.bench_table(REC)["ratio"] and "지금 이 GPU" not in str(L8.bench_table(REC))


def test_ldg_probe_in_one_module_is_the_one_kernel_probe():
    """ldg_probe compiles all load forms as entries of one module; each entry is PROBE, so the opcodes are the same."""
    many = L8.ldg_opcodes_many(("ld.global.nc", "ld.global", "ld.global.cg"), (9, 0))
    assert many == {"ld.global.nc": ["LDG.E.CONSTANT"], "ld.global": ["LDG.E"], "ld.global.cg": ["LDG.E.STRONG.GPU"]}
    assert all(L8.ldg_opcodes(ld, (9, 0)) == ops for ld, ops in many.items())


def test_compiled_compiles_each_pair_once(monkeypatch):
    from kernels_numba.tools import offline
    calls = []
    real = offline.try_compile_many
    monkeypatch.setattr(kit, "_COMPILED", {})       # one cache: course/kit.py
    monkeypatch.setattr(offline, "try_compile_many", lambda pairs: calls.append(list(pairs)) or real(pairs))
    a = L8.compiled([("db", (8, 0)), ("db", (9, 0))])
    b = L8.compiled([("db", (9, 0)), ("db", (8, 0))])
    assert calls == [[("db", (8, 0)), ("db", (9, 0))]] and a == b
    assert a["db", (8, 0)]["usage"]["registers"] == offline.compile_kernel("db", (8, 0))["usage"]["registers"]


# ------------------------------------------------------------------ progress bars, unknown GPUs, labels (review of 9a40c97)

def _recording(monkeypatch, where):
    """Replace `where`.Progress by a subclass that remembers every bar it makes."""
    from course import steps
    bars = []

    class Rec(steps.Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(where, "Progress", Rec)
    return bars


def test_finished_bars_reach_their_total():
    """Jupyter's tqdm paints a bar red when it closes short of its total: a bar whose work succeeded must not."""
    from course.steps import Bar, Progress, steps
    with Progress(1, "한 단계") as p:
        p.note("일하는 중")
        p.update(1)
    with Bar(3, "세 단계") as b:
        for i in range(3):
            b.update(1, i)
    it = steps(["a", "b"], "둘")
    for _ in it:
        pass
    assert (p.bar.n, b.bar.n, it.n) == (p.bar.total, b.bar.total, it.total) == (1, 3, 2)
    assert not p._thread.is_alive()                 # the redraw thread stops with the bar


def test_buffer_table_bar_reaches_its_total(monkeypatch):
    """On a GPU buffer_table wraps the simulator trace in a one-step bar; it ends at 1/1 and the table is the same."""
    bars = _recording(monkeypatch, L8)
    sim_table = L8.buffer_table()["table"]
    bars.clear()                                                  # on a real GPU the first call had its bar too
    monkeypatch.setattr(kn.device, "SIMULATOR", False)          # take the GPU branch; the trace runs the same way
    assert L8.buffer_table()["table"] == sim_table
    assert len(bars) == 1 and bars[0].bar.n == bars[0].bar.total == 1


def test_compiled_bar_reaches_its_total(monkeypatch):
    bars = _recording(monkeypatch, kit)
    monkeypatch.setattr(kit, "_COMPILED", {})       # one cache: course/kit.py
    L8.compiled([("db", (8, 0)), ("db_overlap", (8, 0))], "컴파일")
    assert len(bars) == 1 and bars[0].bar.n == bars[0].bar.total == 2


def test_gpu_without_fp32_lanes_in_the_table():
    """spec_from_attributes gives fp32_lanes_per_sm = 0 for a CC the per-CC table lacks (8.7, 10.x, 12.1): the
    figures built on the lanes say 'unknown' instead of dividing by zero."""
    import dataclasses
    spec = dataclasses.replace(occupancy.GPUS["A100"], name="Jetson AGX Orin", cc=(8, 7), fp32_lanes_per_sm=0)
    for rep in (L8.tile_time_here(spec), L8.issue_window_here(spec)):
        assert rep.lines == [f"지금 이 GPU (Jetson AGX Orin, CC 8.7): {L8.LANES_UNKNOWN}"] and rep["cycles"] is None
    assert L8.LANES_UNKNOWN == "모름 (이 GPU 의 FP32 유닛 수를 표에서 찾지 못함)"


def test_here_label_takes_a_gpu_like_the_other_lessons():
    from course.ch06_shared_tiling import lesson as lesson06
    spec = occupancy.GPUS["RTX 3060"]
    assert L8.here_label(spec) == L8.here_label("RTX 3060") == lesson06.here_label(spec) == "지금 이 GPU (RTX 3060, CC 8.6)"
    if kn.device.SIMULATOR:
        assert L8.here_label() is None


def test_prose_register_counts_are_the_offline_compile():
    """nb08 3.5 fills its offline register counts of db from the committed kernel x target matrix: the same numbers
    as the cell's offline compile (compiled(), what shared_by_stages prints)."""
    from kernels_numba.tools import table
    if why := table.toolchain_difference():
        pytest.skip(f"registers depend on the compiler version: {why}")
    rows = {r["target"]: r for r in table.load_targets()["rows"] if r["kernel"] == "db"}
    sb = L8.shared_by_stages(REC)
    assert sb["regs"] == {(8, 0): rows["sm_80"]["registers"], (9, 0): rows["sm_90"]["registers"]}


# ------------------------------------------------------------------ on a real GPU (the lead runs these on an H100)

@pytest.mark.gpu_only("compares the figures of the GPU in use with the kernels loaded on it")
def test_here_figures_on_this_gpu():
    spec = kocc.current_gpu()
    names = ("db", "db_overlap", "db_ptx")
    kh = L8.kernels_here(names)
    assert kh["source"] == "loaded" and kh["gpu"] == spec.name
    for name in names:
        assert kh["occ"][name] == kocc.occupancy_here(name)
    assert all(line.startswith(L8.here_label()) for line in kh.lines)
    t = L8.tile_time_here()
    assert t["gpu"] == spec.name and (t["cycles"] is None) == (spec.fp32_lanes_per_sm == 0)
    ob = L8.occupancy_by_stages({(8, 0): 126, (9, 0): 127})
    regs = kocc.occupancy_here("db").regs_per_thread
    assert ob["occ_here"][2] == occupancy.occupancy(spec, regs, kn.get("db").module.THREADS, 2 * L8.smem_per_stage())


@pytest.mark.gpu_only("measures db against cuBLAS on the GPU (needs CuPy)")
def test_bench_table_with_a_live_run():
    from course import measure
    live = measure.benchmark(sizes=(256,), kernels=["db"])
    if live is None:
        pytest.skip("measure.benchmark gave no result (no CuPy, or bench_gpu missing): nothing live to show")
    bt = L8.bench_table(REC, live)
    cc = live.cc
    assert f"지금 이 GPU ({live.gpu}, CC {cc[0]}.{cc[1]}) — {live.date}" in str(bt)
    assert bt["live_sizes"] == [256] and 0 < bt["live_ratio"]["db", 256] and bt["live_ratio"]["cuBLAS", 256] == 1.0
    assert bt["ratio"] == L8.bench_table(REC)["ratio"]
