"""course.ch07_register_blocking.lesson: the analysis behind notebook 07, each function against a hand-computed or recorded reference."""
import sys
from collections import Counter
from pathlib import Path

import pytest

import course
import kernels_numba as kn
from course.ch07_register_blocking import lesson as L7
from kernels_numba.tools import resources
from sim import occupancy as occ
from sim import outer, roofline
from sim.korean import wrong_particles

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "answers" / "ch07"))
import ex07_asym  # noqa: E402
from fakes import live_run
from kernels_numba import occupancy as kocc

REC = course.recorded("gpu_h200_levels34")


def _notebook_text():
    """The markdown of notebooks/07_register_blocking.ipynb, the cells joined."""
    import json
    nb = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "07_register_blocking.ipynb")
                    .read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
RB = kn.get("regblock").module


def test_report_is_a_dict_that_prints_its_lines():
    r = L7.Report(["a", "b"], x=1)
    assert r["x"] == 1 and str(r) == "a\nb" and repr(r) == "a\nb"


def test_ai_by_trace_matches_model():
    ai = L7.ai_by_trace()
    assert ai["ai"] == ai["model"] == {"tiled": 0.25, "regblock": 2.0}


def test_intensity_levels():
    lv = L7.intensity_levels()
    assert lv["exact"] and lv["block"] == {(16, 16): 4.0, (128, 128): 32.0}


def test_shared_bound_table():
    b = L7.shared_bound_table()["bound"]
    assert b["A100"] == [0.25, 1.0] and b["H100"] == b["H200"] == [0.125, 1.0]


def test_roofline_position_uses_sim_roofline():
    r = L7.roofline_position()
    assert r["ridge"]["H200"] == roofline.ridge_point("H200") and r["ai"] == {"tiled": 4.0, "regblock": 32.0}
    assert 9 < r["ridge"]["A100"] < 10 and 13 < r["ridge"]["H200"] < 15 and 19 < r["ridge"]["H100"] < 21


def test_tile_hierarchy_and_order():
    assert L7.tile_hierarchy()["ok"]
    oc = L7.order_compare()
    assert (oc["outer"].loads, oc["dot"].loads, oc["outer"].fmas) == (128, 1024, 512)


def test_readers_per_element():
    recs = [("As", 1, "load", 0, t, 0, 4) for t in range(3)] + [("As", 1, "load", 0, 0, 4, 4), ("Bs", 1, "store", 0, 0, 0, 4)]
    assert L7.readers_per_element(recs) == {"As": Counter({3: 1, 1: 1})}


def test_register_steps_h100_256_threads():
    runs = L7.register_steps("H100", 256)["runs"]
    assert (81, 128, 2, 2, 25.0) in runs and runs[-1][1] == 255
    # 1-32 registers: one occupancy step (8 blocks, the warp limit) but four register limits (07-4 asks for these)
    assert [r[:4] for r in runs[:4]] == [(1, 8, 32, 8), (9, 16, 16, 8), (17, 24, 10, 8), (25, 32, 8, 8)]
    lines = L7.register_steps("H100", 256).lines
    assert "레지스터 한도 32블록 → SM당 8블록(워프 수 한도)" in lines[0] and "(" not in lines[3]


def test_register_steps_register_column_is_07_4s_answer():
    """The table's register column is what 07-4's checker wants (registers only), for every range and block size."""
    for t in (32, 33, 256, 1024):
        for lo, hi, reg_blocks, blocks, pct in L7.register_steps("H100", t)["runs"]:
            for regs in (lo, hi):
                assert occ.occupancy("H100", regs, t).limits["registers"] == reg_blocks >= blocks


def test_occupancy_model_agrees_with_recorded_api():
    assert all(L7.occupancy_vs_api(REC)["agree"].values())


@pytest.mark.parametrize("regs, threads, want", [
    (33, 256, (6, 7, 7, 6)),      # 33 -> 40 per thread: 1280 per warp, 12 warps per sub-partition, 48 // 8; 65536 // 33
    (40, 200, (6, 8, 6, 7)),      # 7 warps a block: 48 // 7 = 6; 1632 // 200 = 8; 65536 // 1280 = 51 warps // 7 = 7
    (128, 256, (2, 2, 2, 2)),     # regblock: every way gives 2
    (8, 256, (8, 8, 8, 8)),       # the warp limit cuts all four
])
def test_rule_variants_by_hand(regs, threads, want):
    v = L7.rule_variants(regs, threads)
    assert tuple(v[k] for k in ("모델", *L7.SHORTCUTS)) == want
    assert v["모델"] == occ.occupancy("H100", regs, threads).blocks_per_sm


def test_sub_partitions_never_matter_for_blocks_of_4k_warps():
    """3.5's prose: 256-thread blocks (8 warps) get the same count without the sub-partition rule."""
    for threads in (128, 256, 512):
        assert all(L7.rule_variants(r, threads)["서브파티션 없이"] == L7.rule_variants(r, threads)["모델"]
                   for r in range(1, 256))
    assert any(L7.rule_variants(r, 200)["서브파티션 없이"] != L7.rule_variants(r, 200)["모델"] for r in range(1, 256))


def test_division_differs_from_the_rules_only_where_the_allocation_unit_does_at_256_threads():
    runs = L7.shortcut_differs(256)
    assert runs == [(33, 36), (41, 42), (49, 51), (81, 85)]
    for r in range(1, 256):
        v = L7.rule_variants(r, 256)
        assert (v[L7.SHORTCUTS[0]] != v["모델"]) == (v["할당 단위 없이"] != v["모델"])
        if v[L7.SHORTCUTS[0]] != v["모델"]:
            assert r % 8                                   # "레지스터 수가 8의 배수가 아닌 몇 구간"


def test_the_recorded_api_points_cannot_tell_the_rules_from_the_shortcuts():
    """Review M-1: the PASS of 3.5 holds for the division shortcut too; the prose says so (if a discriminating point is
    recorded one day, this fails and the prose must change)."""
    cuts = L7.shortcuts_at_api(REC)
    assert set(cuts["same"]) == set(REC["occupancy_api"]) and all(cuts["same"].values())
    assert len(cuts.lines) == len(REC["occupancy_api"])


def test_no_record_measured_256_threads_where_division_and_rules_differ():
    chk = course.recorded("occupancy_check_h200")
    ex = L7.shortcut_example(33, 256, (REC, chk))
    assert ex["variants"][L7.SHORTCUTS[0]] != ex["variants"]["모델"] and ex["covered"] == set()
    assert "없음" in ex.lines[2] and "측정 아님" in ex.lines[0]
    assert {120, 128, 255} <= L7.recorded_register_counts(256, REC, chk) | L7.recorded_register_counts(64, REC)
    assert 40 in L7.recorded_register_counts(200, chk) and L7.recorded_register_counts(200, REC) == set()
    # a register count the records did measure where division and rules differ (200 threads) is reported as covered
    assert 40 in L7.shortcut_example(40, 200, (REC, chk))["covered"]


def test_recorded_occupancy_check_rows_side_with_the_model_where_shortcuts_differ():
    """3.5's prose: in notebook 06's H200 record the division and no-sub-partition shortcuts differ from the model on
    some rows (blocks whose warps are not a multiple of 4) and the API gave the model's answer there; the allocation
    unit alone changes no recorded row."""
    chk = course.recorded("occupancy_check_h200")
    r = L7.check_rows_vs_shortcuts(chk)
    n_div, api_div = r["counts"][L7.SHORTCUTS[0]]
    n_sub, api_sub = r["counts"]["서브파티션 없이"]
    assert n_div > 0 and api_div == n_div and n_sub > 0 and api_sub == n_sub
    assert r["counts"]["할당 단위 없이"] == (0, 0)
    assert all((-(-b // 32)) % 4 for k in (L7.SHORTCUTS[0], "서브파티션 없이") for b in r["blocks"][k])


def test_the_block_division_and_the_division_percent_are_told_apart():
    """Review r21 M-1: the few ranges where division and rules differ are the block-floored division's; the division %
    of 3.5's first cell (and the widget's grey line) differs at most register counts, its two examples included."""
    assert L7.SHORTCUTS[0] == "블록 나눗셈"
    pct = L7.division_percent_differs(256)
    runs = {r for a, b in L7.shortcut_differs(256) for r in range(a, b + 1)}
    assert runs < set(pct) and set(L7.DIVISION_EXAMPLES) <= set(pct) and not set(L7.DIVISION_EXAMPLES) & runs
    for r in range(1, 256):
        d = occ.division_estimate(r)
        assert (r in pct) == (abs(100 * d.occupancy - occ.occupancy("H100", r, 256).percent) > 1e-9)
    ex = L7.shortcut_example(33, 256)
    assert ex["percent_differs"] == pct and f"{len(pct)}개" in ex.lines[3] and "90, 104 포함" in ex.lines[3]
    assert not wrong_particles("\n".join(ex.lines))
    nb = _notebook_text()
    assert "블록 나눗셈과 규칙의 차이는 할당 단위에서만" in nb.replace("**", "") and "나눗셈 %" in nb


def test_the_check_records_block_division_rows_split_into_partial_warps_and_sub_partitions():
    """Review r21 I-2: of the rows of notebook 06's check record where the block division differs from the model, those
    where the block's threads are not whole warps agree once whole warps are counted; the rest are exactly the rows
    where the rules without sub-partitions differ, and the prose's block size is the record's."""
    chk = course.recorded("occupancy_check_h200")
    r = L7.check_rows_vs_shortcuts(chk)
    n_threads, n_warps = r["split"]
    assert n_threads > 0 and n_threads + n_warps == r["counts"][L7.SHORTCUTS[0]][0]
    assert n_warps == r["counts"]["서브파티션 없이"][0] and r["warps_left_are_sub_rows"]
    assert all(b % 32 for b in r["split_blocks"]) and len(r["split_blocks"]) == 1
    b = next(iter(r["split_blocks"]))
    assert f"{b} 스레드 = 워프 {-(-b // 32)}개 = 스레드 자리 {-(-b // 32) * 32}개" in r.lines[-1]
    assert "'서브파티션 없이' 가 다른 줄" in r.lines[-1] and not wrong_particles("\n".join(r.lines))
    nb = _notebook_text()
    assert f"{b} 스레드 블록은 워프 {-(-b // 32)}개, 곧 스레드 자리 {-(-b // 32) * 32}개" in nb
    # counting whole warps changes nothing where a block's threads are whole warps
    assert all(L7.division_in_warps(g, t) == L7.rule_variants(g, t)[L7.SHORTCUTS[0]]
               for t in (64, 128, 256, 1024) for g in range(1, 256))


def test_shared_limits_rule_1kb_everywhere():
    """The 1 KB system reserve is on A100 too; the loaded kernel reports the declared bytes; only the sm_90 cubin adds 1 KiB."""
    sl = L7.shared_limits("regblock", REC)
    assert sl["cubin"][(8, 0)] == sl["loaded"] == 8192 and sl["cubin"][(9, 0)] == 9216
    assert sl["reserved"] == {"A100": 1024, "H100": 1024, "H200": 1024}


def test_loop_stats_chain():
    sass = """
        /*0000*/                   FFMA R1, R2, R3, R1 ;
.L_x_0:
        /*0010*/                   FFMA R4, R2, R3, R4 ;
        /*0020*/                   FFMA R4, R2, R3, R4 ;
        /*0030*/                   LDS R2, [R5] ;
        /*0040*/                   FFMA R6, R2, R3, R6 ;
        /*0050*/               @P0 BRA `(.L_x_0) ;
        /*0060*/                   EXIT ;
"""
    body = resources.parse_sass(sass)
    s = L7.loop_stats(body)
    assert (s["FFMA"], s["LDS"], s["chain"], s["n"]) == (4, 1, 2, 7)


def test_load_map_and_covers_once():
    m = L7.load_map(RB.THREADS, RB.BM, RB.BK, RB.A_TILE_ROW_STRIDE)
    assert [m[(13, p)] for p in range(4)] == [(1, 5), (33, 5), (65, 5), (97, 5)] and L7.covers_once(m, RB.BM, RB.BK)
    del m[(13, 0)]
    assert not L7.covers_once(m, RB.BM, RB.BK)


def test_store_sectors():
    assert L7.store_sectors(vector=1) == {"sectors": 32, "useful_bytes": 128, "efficiency": 0.125}
    assert L7.store_sectors(vector=4) == {"sectors": 32, "useful_bytes": 512, "efficiency": 0.5}
    assert L7.store_sectors(cols_per_thread=1, threads_x=32, threads_y=1)["efficiency"] == 1.0     # coalesced


def test_epilogue_check_small():
    assert L7.epilogue_check("regblock", M=20, N=9, K=5) == {"beta0": True, "beta1": True}


def test_request_banks():
    assert L7.request_banks(0) == {"rows": [0, 8], "banks": [0, 0]}
    assert L7.request_banks(1) == {"rows": [0, 8], "banks": [0, 8]}


def test_close_rejects_nan():
    import numpy as np
    assert not L7.close(np.array([[np.nan]], np.float32), np.zeros((1, 1)), 1)
    assert L7.close(np.ones((2, 2), np.float32), np.ones((2, 2)), 4)


def test_stall_table_shared_wait():
    st = L7.stall_table(REC, ["regblock_opt", "regblock_vec"])
    p = REC["ncu_stalls"]["metrics"]["regblock_opt"]["percent"]
    assert st["shared_wait"]["regblock_opt"] == p["short_scoreboard"] + p["mio_throttle"]


def test_bench_and_shared_bound():
    bt = L7.bench_table(L7.bench_rows(REC, course.recorded(), ("regblock", "regblock_vec")))
    want = {(r.kernel, r.n): (r.tflops, r.ratio) for r in REC.rows if r.kernel == "regblock"}
    assert all(bt["val"][k] == v for k, v in want.items()) and any(k[0] == "tiled" for k in bt["val"])
    sb = L7.shared_bound_vs_measured(REC, {"regblock": 0.5, "regblock_vec": 0.2}, bt["val"])
    assert sb["bound"]["regblock_vec"] == sb["peak"] and sb["bound"]["regblock"] == pytest.approx(sb["peak"] / 2)


def test_ai_figure_korean():
    ax = L7.ai_figure().axes[0]
    assert "산술 강도" in ax.get_title() and "레지스터" in ax.get_ylabel()


def test_asymmetric_answer():
    assert ex07_asym.asym_tile(4, 16) == {k: outer.intensity(4, 16)[k] for k in ("loads", "bytes", "fmas", "ai", "data_regs")}
    assert ex07_asym.asym_tile(4, 16)["ai"] == 1.6 and ex07_asym.best_split(64) == (8, 8)
    assert occ.GPUS["A100"].smem_reserved_per_block == 1024


# ---- what notebook 07 used to assert in its cells (issue 18: asserts belong in the tests) --------------------------

def test_order_compare_reuse_and_readers():
    from kernels_numba.tools import trace
    oc = L7.order_compare()
    assert oc["outer"].loads * 8 == oc["dot"].loads
    assert oc["outer"].a_uses[0] == (RB.TN,) * RB.TM and oc["outer"].b_uses[0] == (RB.TM,) * RB.TN
    # the printed line tells the orders apart by reads of one value (1 vs 8), not only by its uses (8 in both; r19 I-7)
    assert "값 A[m=0, k=0]: 읽기 1번 → FMA 8번" in oc.lines[0] and "값 A[m=0, k=0]: 읽기 8번 → FMA 8번" in oc.lines[1]
    t = trace.shared_accesses("regblock", M=RB.BM, N=RB.BN, K=RB.BK)
    assert all(set(c) == {RB.BLOCK[0]} for c in L7.readers_per_element(t["records"]).values())
    amap = L7.load_map(RB.THREADS, RB.BM, RB.BK, RB.A_TILE_ROW_STRIDE)
    assert L7.stored_map(t, "As") == amap
    tiles = L7.thread_tiles(t)                    # 4.3: each thread's part of the block tile, from what it reads
    assert len(tiles) == RB.THREADS and tiles[3, 5] == (list(range(40, 48)), list(range(24, 32)))
    owner = Counter((r, c) for rows, cols in tiles.values() for r in rows for c in cols)
    assert set(owner.values()) == {1} and len(owner) == RB.BM * RB.BN
    assert all(len(rows) == RB.TM and len(cols) == RB.TN for rows, cols in tiles.values())


def test_bank_rows_of_regblock_and_regblock_opt():
    from kernels_numba.tools import trace
    wf = {"regblock": L7.bank_rows(trace.shared_accesses("regblock", M=RB.BM, N=RB.BN, K=RB.BK)),
          "regblock_opt": L7.bank_rows(trace.shared_accesses("regblock_opt", M=RB.BM, N=RB.BN, K=RB.BK))}
    assert [wf["regblock"][(a, "load")]["max_wavefronts"] for a in ("As", "Bs")] == [2, 4]
    assert [wf["regblock_opt"][(a, "load")]["max_wavefronts"] for a in ("As", "Bs")] == [1, 4]
    assert wf["regblock"][("As", "store")]["max_wavefronts"] == 1 and wf["regblock_opt"][("As", "store")]["max_wavefronts"] == 2
    assert all(v > 0.25 for v in L7.wavefronts_per_ffma(wf).values())     # both bound by shared memory


def test_vec_wavefronts_count_stores_too():
    """Issue 18 item 16: one convention (loads + stores); with stores the 'phases' rule gives 0.266 > 0.25."""
    vw = L7.vec_wavefronts()
    assert vw["stores"] == pytest.approx(64 / L7.warp_ffma_per_tile())
    assert round(vw["per_ffma"]["regblock_vec (phases)"], 3) == 0.266
    assert vw["per_ffma"]["regblock_vec (words)"] < 0.25
    bt = L7.bench_table(L7.bench_rows(REC, course.recorded(), ("regblock_vec",)))
    sb = L7.shared_bound_vs_measured(REC, vw["per_ffma"], bt["val"])
    assert sb["bound"]["regblock_vec (words)"] == sb["peak"]
    assert 0.93 < sb["bound"]["regblock_vec (phases)"] / sb["peak"] < 0.95


def test_loaded_regblock_is_not_bound_by_shared_memory():
    """Issue 18 item 18: the H200's regblock has a shared-memory ceiling far above its measured 20 TFLOP/s."""
    from kernels_numba.tools import trace
    wf = L7.bank_rows(trace.shared_accesses("regblock", M=RB.BM, N=RB.BN, K=RB.BK))
    per = L7.loaded_regblock_wavefronts(wf)
    bt = L7.bench_table(L7.bench_rows(REC, course.recorded(), ("regblock",)))
    sb = L7.shared_bound_vs_measured(REC, per, bt["val"])
    measured = max(v[0] for (k, n), v in bt["val"].items() if k == "regblock")
    assert all(b > 1.5 * measured for b in sb["bound"].values())


def test_stall_claims_of_section_3_6():
    st = L7.stall_table(REC, ["regblock_opt", "regblock_vec"])
    w, p = st["shared_wait"], st["share"]["regblock_opt"]
    others = {k: v for k, v in p.items() if k not in ("selected", "not_selected", "short_scoreboard", "mio_throttle")}
    assert w["regblock_opt"] > max(others.values()) and w["regblock_opt"] > 2 * w["regblock_vec"]


def test_sizes_matter_for_the_performance_claims():
    """Issue 18 item 15: regblock is >2x tiled only from 2048³; regblock_vec is 74-77 % only from 2048³."""
    R = {(r.kernel, r.n): r for r in REC.rows}
    T6 = {(r.kernel, r.n): r for r in course.recorded().rows}
    assert R["regblock", 1024].tflops / T6["tiled", 1024].tflops < 1.2
    assert all(R["regblock", n].tflops / T6["tiled", n].tflops > 2 for n in (2048, 4096))
    assert R["regblock_vec", 1024].ratio < 0.5 and all(0.73 < R["regblock_vec", n].ratio < 0.78 for n in (2048, 4096))
    assert all(R["regblock_opt", n].ratio < R["regblock", n].ratio for n in (1024, 2048, 4096))


def test_regblock_vec_remaining_gap_of_section_4_10():
    """Notebook 07 4.10: not_selected is regblock_vec's largest share; 2 blocks/SM = 4 warps per scheduler issue on ~74 %."""
    v = REC["ncu_stalls"]["metrics"]["regblock_vec"]
    p = {k: x for k, x in v["percent"].items() if k != "selected"}
    assert max(p, key=p.get) == "not_selected"
    assert {"long_scoreboard", "barrier", "dispatch_stall"} <= set(sorted(p, key=p.get, reverse=True)[1:5])
    per_sched = REC["occupancy_api"]["regblock_vec"]["blocks_per_sm"] * RB.THREADS // 32 // 4
    assert per_sched == 4
    assert round(100 * per_sched / sum(v["cycles_per_issue"].values())) == 74


def test_shared_ceiling_formula_of_section_4_10_matches_the_helper():
    """The cell's peak x min(1, 1 / (wavefronts per FFMA x FFMA per clock)) is lesson07's shared_bound_vs_measured."""
    f = REC["device_facts"]
    per = {"a": 0.766, "b": 0.109}
    val = {("a", 4096): (1.0,), ("b", 4096): (1.0,), ("cuBLAS", 4096): (1.0,)}
    sb = L7.shared_bound_vs_measured(REC, per, val)
    ffma_clk = f["fp32_lanes_per_sm"] // 32
    for name, wpf in per.items():
        assert sb["bound"][name] == pytest.approx(sb["peak"] * min(1, 1 / (wpf * ffma_clk)))


# ---- this GPU: the helpers take a GpuSpec (None: the GPU in use; nothing without one) ------------------------------

@pytest.mark.parametrize("gpu", ["T4", "RTX 3060", "L4", "H100"])
def test_register_steps_for_a_gpu_spec_follow_the_occupancy_model(gpu):
    spec = occ.GPUS[gpu]
    here = L7.register_steps_here(RB.THREADS, 8192, gpu=spec)
    assert here.lines[0] == f"지금 이 GPU ({gpu}, CC {spec.cc[0]}.{spec.cc[1]}), 블록 {RB.THREADS} 스레드, 공유 8,192 B:"
    assert here["runs"] == L7.register_steps(gpu, RB.THREADS, 8192)["runs"]
    for lo, hi, reg_blocks, blocks, pct in here["runs"]:
        for regs in (lo, hi):
            o = occ.occupancy(spec, regs, RB.THREADS, 8192)
            assert (o.limits["registers"], o.blocks_per_sm, o.percent) == (reg_blocks, blocks, pct)


def test_register_steps_differ_between_t4_and_h100():
    """H100's '81-128 registers: 25%' is an H100 figure: a T4 (32 warps per SM) gives other steps."""
    assert L7.register_steps("H100", 256)["runs"] != L7.register_steps(occ.GPUS["T4"], 256)["runs"]


def test_here_helpers_are_empty_without_a_gpu():
    if not kn.device.SIMULATOR:
        pytest.skip("simulator only: on a GPU they describe it")
    assert L7.register_steps_here(256).lines == [] and L7.occupancy_here().lines == []
    assert L7.resources_here(("regblock",)).lines == []


@pytest.mark.parametrize("gpu", ["T4", "H100"])
def test_occupancy_here_of_regblock_is_the_model_of_its_compile(gpu):
    spec = occ.GPUS[gpu]
    (line,) = L7.occupancy_here(("regblock",), spec).lines
    o = kocc.kernel_occupancy("regblock", spec)
    assert line.startswith(f"지금 이 GPU ({gpu}") and f"SM당 {o.blocks_per_sm}블록" in line
    assert f"점유율 {o.percent:.0f}%" in line


def test_resources_here_for_a_spec_is_the_offline_compile_of_its_cc():
    spec = occ.GPUS["H100"]
    r = L7.resources_here(("regblock",), spec)
    want = resources.report("regblock", (9, 0))
    assert r["rows"]["regblock"]["registers"] == want["registers"]
    assert r.lines == [f"지금 이 GPU (H100, CC 9.0), 오프라인 sm_90: regblock 레지스터 {want['registers']}개, "
                       f"로컬(스필) {want['local_bytes']} B/스레드, 공유 {want['shared_bytes']:,} B"]


def test_shared_limits_adds_a_labelled_line_for_the_gpu():
    """The extra line is that GPU's own figures: registers and shared bytes of the kernel compiled for its CC (the
    kernel x target matrix), labelled as an offline compile; the recorded GPUs' lines stay as they were."""
    from kernels_numba.tools import table
    spec = occ.GPUS["RTX 3060"]
    base = L7.shared_limits("regblock", REC)
    sl = L7.shared_limits("regblock", REC, gpu=spec)
    assert sl.lines[:1 + len(L7.GPUS)] == base.lines[:1 + len(L7.GPUS)]        # cubin figures, A100, H100, H200
    t = next(r for r in table.load_targets()["rows"] if r["kernel"] == "regblock" and r["target"] == "sm_86")
    o = occ.occupancy(spec, t["registers"], t["threads"], t["smem_static"] + t["smem_dynamic"])
    assert sl.lines[-1].startswith("지금 이 GPU (RTX 3060, CC 8.6), 오프라인 sm_86 컴파일: SM당 공유 메모리 최대 100 KiB")
    assert f"블록당 할당 {o.smem_allocated_per_block:,} B (선언 {t['smem_static']:,} + 시스템 예약 1,024)" in sl.lines[-1]
    assert sl.lines[-1].endswith(f"공유 메모리만으로는 {o.limits['shared memory']}블록")
    if kn.device.SIMULATOR:
        assert len(base.lines) == 1 + len(L7.GPUS)                              # no GPU: no extra line


def test_live_bench_labels_the_gpu_and_computes_its_ratios():
    rows = [{"n": 2048, "kernel": k, "tflops": t, "ratio": t / 4.0}
            for k, t in (("cuBLAS", 4.0), ("tiled", 0.5), ("regblock", 1.0), ("regblock_opt", 0.9),
                         ("regblock_vec", 2.0))]
    lb = L7.live_bench(live_run(rows), ("regblock", "regblock_opt", "regblock_vec"))
    assert lb.lines[0].startswith("지금 이 GPU (Tesla T4, CC 7.5)") and lb["n"] == 2048
    assert lb.lines[-1] == ("2048³: regblock / tiled = 2.00배, regblock_opt / regblock = 0.900, "
                            "regblock_vec / regblock = 2.00배")
    assert lb["val"][("regblock_vec", 2048)] == (2.0, 0.5)


# ---- on a real GPU (the lead runs these on an H100) -----------------------------------------------------------------

@pytest.mark.gpu_only("reads regblock as loaded on this GPU and the device attributes")
def test_here_helpers_on_this_gpu_use_the_loaded_kernel():
    gpu = kocc.current_gpu()
    label = f"지금 이 GPU ({gpu.name}, CC {gpu.cc[0]}.{gpu.cc[1]})"
    o = kocc.occupancy_here("regblock")
    r = resources.report("regblock")                                  # GPU mode: the loaded kernel
    res = L7.resources_here(("regblock",))
    assert res["rows"]["regblock"]["registers"] == r["registers"] == o.regs_per_thread
    assert res.lines[0].startswith(f"{label}, 올라간 커널")
    (line,) = L7.occupancy_here(("regblock",)).lines
    assert line.startswith(label) and f"SM당 {o.blocks_per_sm}블록" in line
    steps = L7.register_steps_here(RB.THREADS, 8192)
    assert steps["runs"] == L7.register_steps(gpu, RB.THREADS, 8192)["runs"]
    sl = L7.shared_limits("regblock", REC)
    assert sl.lines[-1].startswith(f"{label}, 올라간 커널: ")
    assert f"(선언 {o.smem_per_block:,} + 시스템 예약 {gpu.smem_reserved_per_block:,})" in sl.lines[-1]
    assert sl.lines[-1].endswith(f"공유 메모리만으로는 {o.limits['shared memory']}블록")


def test_compile_error_shows_the_refusal_of_a_run_time_shape():
    """4.1's cell: a local array sized by A.shape[0] is refused (GPU: TypingError; simulator: the same refusal, with
    what is wrong and the fix); a literal shape runs, which the function reports as FAIL."""
    import numpy as np
    from numba import cuda

    import shape_cases
    bad = L7.compile_error(cuda.jit(shape_cases.local_from_input), np.ones(4, np.float32))
    want = "SharedShapeError" if kn.device.SIMULATOR else "TypingError"
    assert bad.lines[0] == f"PASS: 거부됨 ({want})"
    if kn.device.SIMULATOR:
        assert "`n = A.shape[0]`" in bad.lines[1] and "모듈 수준 상수" in bad.lines[1]
    good = L7.compile_error(cuda.jit(shape_cases.local_literal), np.ones(4, np.float32))
    assert good.lines[0].startswith("FAIL") and good["error"] is None
