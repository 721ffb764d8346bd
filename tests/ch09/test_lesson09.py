"""course.ch09_cp_async.lesson: the numbers notebook 09 prints come from ptxas, the models, the simulator and the recorded run."""
import re
import matplotlib

matplotlib.use("Agg", force=True)

import pytest  # noqa: E402

import kernels_numba as kn  # noqa: E402
from course.ch09_cp_async import lesson as L  # noqa: E402
from course import records  # noqa: E402
from kernels_numba import occupancy as kocc


def test_ptxas_verdicts():
    # 3.3's prose: .cg takes 16 bytes only (4 and 8 rejected, "expected to be 16"), .ca takes 4, 8 and 16
    v = L.ptxas_verdicts()
    assert L.SEED_CP_ASYNC_4 in L.CP_ASYNC_FORMS and L.LEGAL_CP_ASYNC_4 in L.CP_ASYNC_FORMS
    for arch in ("sm_80", "sm_90"):
        for op in ("ca", "cg"):
            for n in (4, 8, 16):
                ok, msg = v[(f"cp.async.{op}.shared.global [dst], [src], {n};", arch)]
                if op == "cg" and n != 16:
                    assert ok is False and "expected to be 16" in msg, (op, n, arch, msg)
                else:
                    assert (ok, msg) == (True, ""), (op, n, arch, msg)


def test_ptx_file_sass():
    got = L.ptx_file_sass()
    assert got["cp_async_cg_16.ptx"][1].startswith("LDGSTS.E.BYPASS.128")
    assert got["cp_async_ca_4.ptx"][1].startswith("LDGSTS.E ")
    assert got["cp_async_commit_group.ptx"][1] == "LDGDEPBAR"
    assert got["cp_async_wait_group_2.ptx"][1] == "DEPBAR.LE SB0, 0x2"


def test_smem_and_static_limit():
    assert (L.smem_bytes(2), L.smem_bytes(3), L.smem_bytes(4)) == (17472, 26208, 34944)
    assert L.smem_bytes(3, pad=0) == 24576 == kn.get("async_vec").module.NUM_STAGES * 128 * 8 * 4 * 2
    ok, msg = L.ptxas_static_shared(65536)
    assert not ok and "0xc000 max" in msg
    assert L.ptxas_static_shared(49152)[0]


def test_alignment():
    assert L.misaligned_copies(1, 1) == {"A": 192, "B": 192, "copies": 256}
    assert L.misaligned_copies(0, 0) == {"A": 0, "B": 0, "copies": 256}
    msg = L.misaligned_copy_error()
    assert "0x24" in msg and "(128, 9)" in msg and "16바이트" in msg


def test_bank_counts():
    r = L.compute_read_wavefronts()
    assert r["padded"] == {"A_requests": 64, "A_wavefronts": 64, "B_requests": 64, "B_wavefronts": 256}
    assert r["aligned"] == {"A_requests": 16, "A_wavefronts": 32, "B_requests": 16, "B_wavefronts": 32}
    assert L.compute_read_wavefronts("phases")["aligned"]["A_wavefronts"] == 64


def test_tail_table():
    rows = {(s, t): (seed, ours) for s, t, seed, ours in L.tail_table()}
    assert rows[(3, 8)] == (6, None) and rows[(3, 1)] == (0, None) and rows[(4, 5)] == (2, None)


@pytest.mark.skipif(not kn.device.SIMULATOR, reason="the demos' wrong answers are a simulator guarantee")
def test_check_and_demos():
    r = L.demo_results(("async_no_wait", "async_copy"), K=24)
    assert [x["ok"] for x in r] == [False, True] and r[0]["nan"] == 256 and r[1]["nan"] == 0


def test_recorded_and_plot():
    rec, ratios, cublas = L.recorded_ratios()
    assert rec.gpu == "NVIDIA H200" and set(cublas) == {1024, 2048, 4096}
    assert max(ratios, key=lambda n: ratios[n][4096]) == "async_wide"
    best, pct, at = L.best_at(4096)
    assert best == "async_wide" and pct == ratios["async_wide"][4096] and "db_overlap" in at and "db_overlap" != best
    assert pct >= 85 and at["async_bk16"] < pct
    assert all(all(r["ok"] for r in rows) for rows in rec["correctness"].values())
    fig = L.plot_sweep()
    assert "레벨 5" in fig.axes[0].get_title() and "cuBLAS" in fig.axes[0].get_ylabel()


def test_sass_main_loop():
    s = L.sass_main_loop("async_vec", (8, 0))
    assert s["registers"] <= 128 and s["main_loop"]["FFMA"] == 512
    assert "LDGSTS.E.BYPASS.128" in s["ldgsts_forms"]
    assert s["main_loop"]["LDGDEPBAR"] == 1 and s["main_loop"]["DEPBAR"] == 1 and s["main_loop"]["BAR"] == 1
    assert all("REL.NOINC" in c for c in s["calls"])


def test_recorded_stalls_and_explore():
    st = L.recorded_stalls()
    rec = L.recorded_ratios()[0]
    assert set(st) == {"async_vec", "async_bk16", "async_wide"}
    for name, top in st.items():
        vals = [v for _, v in top]
        assert len(top) == 4 and vals == sorted(vals, reverse=True) and "selected" not in dict(top)
        assert rec["ncu_stalls"]["kernels"][name]["cycles_per_issue"]["long_scoreboard"] < 0.1
    assert rec["explore_bk16"]["table"][0].startswith("size") and len(rec["explore_bk16"]["table"]) == 4
    assert rec["loaded"]["async_bk16"]["shared_bytes"] == 48 * 1024 and rec["loaded"]["async_bk16"]["blocks_per_sm"] == 2


def test_wide_swizzle_bank_model():
    """A rows of 64 B: rows r and r+2 share banks. Per warp and K tile, 64 LDS.64 requests; the whole-warp rule
    counts 2 wavefronts each without the swizzle and 1 with it; the half-warp rule counts 2 either way."""
    plain, sw = L.wide_a_wavefronts(False), L.wide_a_wavefronts(True)
    assert plain == {"requests": 64, "phases": 128, "words": 128}
    assert sw == {"requests": 64, "phases": 128, "words": 64}


def test_wide_recorded_ablation_and_first_use():
    table, regs = L.explore_wide()
    assert set(table) == {"async_bk16", "async_wide", "wide, no prefetch", "wide, no prefetch, no swizzle",
                          "wide, NUM_STAGES 2"}
    assert all(regs[k] <= 255 for k in regs) and regs["async_bk16"] <= 128
    for n in (2048, 4096):                  # what notebook 09 says: prefetch is the big step, swizzle a small one
        assert table["async_wide"][n] > table["wide, no prefetch"][n] > table["wide, no prefetch, no swizzle"][n]
        assert table["async_wide"][n] > table["async_bk16"][n]
    rec = L.recorded_ratios()[0]
    assert all(rec["explore_wide"]["correct"].values())
    fu = L.first_use_stalls()
    assert fu["ffma"] < 25 and fu["short_scoreboard"] > 90 and fu["dispatch"] > fu["ffma"] and fu["top10_first_use"] >= 8
    w = rec["loaded"]["async_wide"]
    assert w["threads"] == 128 and w["blocks_per_sm"] == 2 and w["local_bytes"] == 0 and w["shared_bytes"] == 48 * 1024


def test_first_use_summary_is_the_recorded_listing():
    """The record's first-use figures come from the raw ncu listing kept beside it (benchmarks/ncu_first_use.py)."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("ncu_first_use", root / "benchmarks" / "ncu_first_use.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    s = mod.summarize(mod.read(str(records.find("ncu_source_wide_no_prefetch.csv.gz"))))
    assert s == L.recorded_ratios()[0]["ncu_source_no_prefetch"]
    assert 0 < s["ffma_first_use"] < s["ffma"] and s["short_scoreboard_samples_ffma_first_use"] <= s["short_scoreboard_samples_ffma"]


def test_lds_placeholders_and_real_ratio():
    """Issue 18 W1/W2: the loop's LDS count includes ptxas's never-executed '@!PT LDS'; async_vec reads A by LDS.128."""
    rows = {r["name"]: r for r in L.lds_ratio_rows()}
    for name, (real, ph) in {"async_vec": (32, 21), "async_bk16": (64, 39), "async_wide": (112, 21)}.items():
        r = rows[name]
        assert (r["real_lds"], r["placeholders"]) == (real, ph) and r["recorded_lds"] == real + ph
    assert rows["async_vec"]["forms"] == {"LDS.128": 32} and rows["async_bk16"]["ratio"] == 16.0
    assert round(rows["async_wide"]["ratio"], 1) == 18.3
    for cc in ((8, 0), (9, 0)):
        assert "LDS.64" not in L.sass_main_loop("async_vec", cc)["forms"]


def test_ncu_listing_executed_ratio_and_words_rule():
    nl = L.ncu_listing()
    assert nl["@!PT LDS"]["thread_executed"] == 0 and nl["@!PT LDS"]["wavefronts"] == 0
    real = [k for k in nl if k.startswith("LDS")]
    ratio = nl["FFMA"]["executed"] / sum(nl[k]["executed"] for k in real)
    assert abs(ratio - 2048 / 112) < 1e-9
    assert nl["LDS.64"]["wavefronts"] == nl["LDS.64"]["executed"]        # 1.00 per LDS.64: the 'words' rule
    assert L.wide_a_wavefronts(True)["words"] == L.wide_a_wavefronts(True)["requests"]


def test_no_division_for_constant_modulo_and_inner_loop():
    assert L.ptx_division_ops("async_copy") == {"rem": 0, "div": 0, "mul.hi": 2}
    s = L.sass_main_loop("async_copy")
    assert s["inner_loops"] == [{"FFMA": 64, "LDS": 16}] and s["main_loop"]["FFMA"] == 64


def test_copy_requests_bk16_runs_and_unbounded_registers():
    w = L.warp_requests_per_tile()
    assert w[4]["sectors"] == w[16]["sectors"] and w[4]["warp_instructions"] == 4 * w[16]["warp_instructions"]
    runs = L.bk16_runs()
    assert [round(p, 1) for _, p, _ in runs] == [82.6, 81.4, 80.9]
    cols, rows = L.bk16_table()
    assert len(cols) == 4 and [n for n, _, _ in rows] == [1024, 2048, 4096]
    assert L.registers_unbounded("async_vec", (8, 0)) > 128
    assert "cp.async.cg.shared.global" in L.ptx_inline_excerpt() and "smem" in L.ptx_inline_excerpt()


def test_the_small_kernels_inline_ptx_is_the_gemms():
    """§3.2 shows cp_async_one's PTX (a second's compile) and says the call lowers the same way in async_vec: in
    both, the shared symbol's address is cut to 32 bits (cvt.u32.u64) into the instruction's [%r..] operand, the
    global one stays a 64-bit [%rd..], the instruction sits between the inline-asm markers, and no call is made."""
    shape = re.compile(r"mov\.u64\s+(%rd\d+), _cudapy_smem_\d+;\n.*?cvt\.u32\.u64\s+(%r\d+), %rd\d+;\n.*?"
                       r"// begin inline asm\ncp\.async\.cg\.shared\.global \[(%r\d+)\], \[%rd\d+\], 16;\n"
                       r"// end inline asm", re.S)
    for name in ("cp_async_one", "async_vec"):
        m = shape.search(L.ptx_inline_excerpt(name))
        assert m and m.group(2) == m.group(3), (name, L.ptx_inline_excerpt(name))
    assert "call" not in L.compiled([("cp_async_one", (8, 0))])["cp_async_one", (8, 0)]["ptx"].split(".entry")[1]
    # review r21 I-5: §3.2 says the addrspacecast was folded (mov of the .shared symbol gives its window address):
    # no cvta.to.shared in either kernel, and the cell's last line (every cvta) shows only the global one
    for name in ("cp_async_one", "async_vec"):
        cvta = L.ptx_lines(name, "cvta")
        assert cvta and all(c.startswith("cvta.to.global") for c in cvta), (name, cvta)
        assert not L.ptx_lines(name, "cvta.to.shared") and not any(".shared" in c for c in cvta)


def _generator(name):
    import importlib.util
    from pathlib import Path
    from course import chapters
    path = chapters.get(name[2:]).generator            # "nb09" -> course/ch09_cp_async/notebook.py
    spec = importlib.util.spec_from_file_location(f"_gen_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_prose_figures_are_filled_from_the_record():
    """nb09's prose states measured figures only through FIG (filled from course/recorded), none left unfilled."""
    gen = _generator("nb09")
    rec, ratios, cublas = L.recorded_ratios()
    assert gen.FIG["regs_db"] == rec["loaded"]["db_overlap"]["registers"] and gen.FIG["vec_4096"] == f"{ratios['async_vec'][4096]:.1f}"
    assert gen.FIG["cublas_4096"] == f"{cublas[4096]:.1f}"
    text = gen.NB.text()
    assert "{{" not in text and "130~141" not in text and "나눗셈 서브루틴" not in text and "최종" not in text


# ------------------------------------------------------------------ "on your GPU" figures (issue 17)

def test_unbounded_blocks_from_the_occupancy_model():
    """Cell 5's blocks per SM without launch_bounds: sim.occupancy per named GPU (was 65536 // (256 * regs))."""
    from sim import occupancy
    smem = L.smem_bytes(3, pad=0)
    r = L.unbounded_blocks("async_vec", gpu="RTX 3060")
    assert set(r["regs"]) == {(8, 0), (9, 0), (8, 6)} and all(n > 128 for n in r["regs"].values())
    for g, cc in (("A100", (8, 0)), ("H100", (9, 0)), ("H200", (9, 0)), ("RTX 3060", (8, 6))):
        assert r["blocks"][g] == occupancy.occupancy(g, r["regs"][cc], 256, smem).blocks_per_sm == 1
    assert r["bounded"]["RTX 3060"] == kocc.kernel_occupancy("async_vec", "RTX 3060").blocks_per_sm == 2
    assert r["here"].startswith("지금 이 GPU (RTX 3060, CC 8.6)") and r.lines[-1] == r["here"]
    t4 = L.unbounded_blocks("async_vec", gpu="T4")
    assert set(t4["regs"]) == {(8, 0), (9, 0)} and "돌지 않습니다" in t4["here"] and "CC 8.0" in t4["here"]
    assert L.registers_unbounded("async_vec", (9, 0)) == r["regs"][(9, 0)]


@pytest.mark.parametrize("g", ("T4", "RTX 3060", "A100", "H100"))
def test_stage_limits_and_loaded_here(g):
    from sim import occupancy
    spec = occupancy.GPUS[g]
    st = L.stage_limits_here(gpu=spec)
    if spec.cc < (8, 0):                 # no cp.async: one line, no figures
        assert st["occ"] == {} and len(st.lines) == 1 and "돌지 않습니다" in st.lines[0] and "CC 8.0" in st.lines[0]
    else:
        for S in (2, 3, 4):
            assert st["occ"][S] == occupancy.occupancy(spec, 128, 256, L.smem_bytes(S))
    lh = L.loaded_here(("async_vec", "async_bk16", "async_wide"), spec)
    for name in ("async_vec", "async_bk16", "async_wide"):
        assert lh["occ"][name] == kocc.kernel_occupancy(name, spec)      # None below CC 8.0 (no cp.async)
    assert all(line.startswith(f"지금 이 GPU ({spec.name}, CC {spec.cc[0]}.{spec.cc[1]})") for line in lh.lines + st.lines)


def test_stage_limiters_say_what_the_model_computes():
    """4.2's prose (filled in by nb09.py from stage_limiters): on every GPU of the table that runs cp.async, the
    padded 2-4 stage layouts with 128 registers are register-limited; a T4 (CC 7.5) is not in it and gets one line."""
    from sim import occupancy
    lim = L.stage_limiters("async_copy")
    assert "T4" not in lim and {"RTX 3060", "L4", "RTX 5090", "A100", "H100", "H200"} <= set(lim)
    for g in ("A100", "H100", "H200"):                  # registers alone at every stage count
        assert all(lim[g][S] == ("registers",) for S in (2, 3, 4))
    for g in ("RTX 3060", "L4", "RTX 5090"):
        occ = [occupancy.occupancy(g, 128, 256, L.smem_bytes(S)) for S in (2, 3, 4)]
        assert L.stage_limits(g) == dict(zip((2, 3, 4), occ))
        # issue 27: 100 KiB of shared memory per SM: at 4 stages shared memory allows 2 blocks too, a tie
        assert lim[g][2] == lim[g][3] == ("registers",) and set(lim[g][4]) == {"registers", "shared memory"}
        assert occ[2].limits["shared memory"] == occ[2].limits["registers"] == occ[2].blocks_per_sm
    t4 = L.stage_limits_here(gpu="T4")
    assert len(t4.lines) == 1 and t4["occ"] == {} and t4["runs"] is False
    assert "돌지 않습니다" in str(L.loaded_here(("async_vec",), "T4"))


def test_stage_limiter_report_prints_what_the_prose_fills_in():
    """4.2's cell prints the per-GPU lines the prose is filled from (review round 16, I-3): one line per GPU of
    stage_limiters, each stage's blocks per SM and its limiters (a tie names both)."""
    lim = L.stage_limiters("async_copy")
    rep = L.stage_limiter_report("async_copy")
    assert rep["limiters"] == lim and len(rep.lines) == 1 + len(lim)
    for g, line in zip(lim, rep.lines[1:]):
        assert line.split()[0] == g.split()[0]
        for S, occ in L.stage_limits(g).items():
            assert f"{S}단 {occ.blocks_per_sm}블록" in line
        assert ("레지스터·공유 메모리" in line) == any("shared memory" in v for v in lim[g].values())


def _recording(monkeypatch):
    """Replace course.steps.Progress by a subclass that remembers every bar it makes."""
    from course import steps
    bars = []

    class Rec(steps.Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(steps, "Progress", Rec)
    return bars


def test_unbounded_registers_show_one_bar_step_per_cc(monkeypatch):
    """A compile the process has not done yet shows a bar, one step per compute capability, that ends at its total."""
    bars = _recording(monkeypatch)
    monkeypatch.setattr(L, "_UNBOUNDED", {})
    regs = L.registers_unbounded_many("async_vec", ((8, 0), (9, 0)))
    assert len(bars) == 1 and bars[0].bar.total == 2 and bars[0].bar.n == 2
    assert regs == L.registers_unbounded_many("async_vec", ((9, 0), (8, 0))) and len(bars) == 1   # known: no bar


def test_check_bar_reaches_its_total(monkeypatch):
    """check() outside the simulator wraps the first launch in a one-step bar: it must end at 1/1 (not red)."""
    bars = _recording(monkeypatch)
    monkeypatch.setattr(kn.device, "SIMULATOR", False)        # the GPU branch; the launch itself is unchanged
    r = L.check("async_copy", 16, 16, 40)
    assert r["ok"] and len(bars) == 1 and bars[0].bar.n == bars[0].bar.total == 1


@pytest.mark.skipif(not kn.device.SIMULATOR, reason="without a GPU there is no 'this GPU' to report")
def test_no_here_figures_without_a_gpu():
    assert L.stage_limits_here() is None and L.loaded_here(("async_vec",)) is None
    assert L.unbounded_blocks("async_vec")["here"] is None


# ------------------------------------------------------------------ on a real GPU (the lead runs these on an H100)

@pytest.mark.gpu_only("compares the figures of the GPU in use with the kernels loaded on it")
def test_here_figures_on_this_gpu():
    from sim import occupancy
    spec = kocc.current_gpu()
    names = ("db_overlap", "async_copy", "async_vec", "async_bk16", "async_wide")
    lh = L.loaded_here(names)
    for name in names:
        assert lh["occ"][name] == kocc.occupancy_here(name), name     # None where it cannot run here
    assert lh["source"] == "loaded" and all(line.startswith(f"지금 이 GPU ({spec.name}, CC ") for line in lh.lines)
    st = L.stage_limits_here()
    if spec.cc < (8, 0):
        assert st["occ"] == {} and len(st.lines) == 1
    else:
        assert st["occ"] == L.stage_limits(spec)
        ub = L.unbounded_blocks("async_vec")
        assert ub["bounded"][spec.name] == kocc.occupancy_here("async_vec").blocks_per_sm
        assert spec.cc in ub["regs"] and ub["here"].startswith(f"지금 이 GPU ({spec.name}")


@pytest.mark.gpu_only("runs the cp.async kernel on the GPU (below CC 8.0: on the simulator in a subprocess)")
def test_check_async_vec_on_this_gpu():
    r = L.check("async_vec", 133, 70, 37)
    assert r["ok"] and r["nan"] == 0, r
