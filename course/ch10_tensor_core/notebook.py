"""Generate notebooks/10_tensor_core_mma.ipynb (no outputs, fixed cell ids): python -m course.ch10_tensor_core.notebook [--out PATH]."""
import argparse
import json
import re
import sys
from pathlib import Path
from course.nbgen import Notebook
from course import figures as _records
from course.ch10_tensor_core import lesson as L10  #  (record readers shared with the notebook)
from course import records
from sim import occupancy as _occ
from kernels_numba import tc as _tc
from kernels_numba.tools import offline as _off
from sim.korean import josa as _josa
import kernels_numba as _kn


ROOT = Path(__file__).resolve().parents[2]
REC = L10.H200_LEVEL6                   # the records through the one loader, as course.ch10_tensor_core.lesson reads them
EXP = L10.H200_EXPLORE
_B = {(r.kernel, r.n): r for r in REC.run().select(variant="")}      # the registered kernels and cuBLAS
_OURS = [r for (k, n), r in _B.items() if n == 4096 and not k.startswith("cuBLAS")]
_BEST = max(_OURS, key=lambda r: r.tflops)
_ERR = REC["error_vs_k"][-1]
_EXPANDED = ("mma_warps", "mma_pipe", "mma_pipe4", "mma_pipe_f16out", "mma_pipe_f16acc")
_F32OUT = ("mma_simple", "mma_large", "mma_warps", "mma_pipe", "mma_pipe4", "mma_pipe4_lb2", "mma_swizzle")
H100 = L10.FAST
_NCU = H100["ncu"]["run6"]
_SMS = _occ.GPUS["H200"].sm_count
_CUB = {"탐색": EXP["explore"][0]["tflops"] / EXP["explore"][0]["ratio"], "기록": REC["explore"][0]["tflops"] / REC["explore"][0]["ratio"]}
# figures stated in prose: filled in from the records here, never typed
FIG = {
    "gpu": REC.gpu, "date": REC.date,
    "large_tf": f"{_B[('mma_large', 4096)].tflops:.0f}", "large_pct": f"{100 * _B[('mma_large', 4096)].ratio:.1f}",
    "best": _BEST.kernel, "best_x": f"{_BEST.tflops / _B[('mma_large', 4096)].tflops:.0f}",
    "err32": f"{_ERR['mma_pipe']:.2e}", "err16": f"{_ERR['mma_pipe_f16acc']:.2e}", "err_k": _ERR["K"],
    "slope32": f"{L10.error_growth_summary()[0]['mma_pipe'][1]:.2f}",
    "slope16": f"{L10.error_growth_summary()[0]['mma_pipe_f16acc'][1]:.2f}",
    "err_ratio": f"{_ERR['mma_pipe_f16acc'] / _ERR['mma_pipe']:.0f}",
    "regs_min": min(REC["resources"][k]["registers"] for k in _EXPANDED),
    "expanded_names": ", ".join(f"`{k}`" for k in _EXPANDED),
    "f32_bound_pct": f"{100 * max(c['worst_err_over_bound'] for k in _F32OUT for c in REC['correctness'][k]):.0f}",
    "f16out_bound_pct": f"{100 * max(c['worst_err_over_bound'] for c in REC['correctness']['mma_pipe_f16out']):.0f}",
    "f16acc_bound_pct": f"{100 * max(c['worst_err_over_bound'] for c in REC['correctness']['mma_pipe_f16acc']):.0f}",
    "k0": REC["error_vs_k"][0]["K"],
    "ratio_k0": f"{REC['error_vs_k'][0]['mma_pipe_f16acc'] / REC['error_vs_k'][0]['mma_pipe']:.0f}",
    "cub1024_us": f"{1000 * _B[('cuBLAS', 1024)].ms:.0f}", "cub1024_tf": f"{_B[('cuBLAS', 1024)].tflops:.0f}",
    "blocks1024": (1024 // 128) ** 2, "sms": _SMS,
    "cub_explore": f"{_CUB['탐색']:.0f}", "cub_record": f"{_CUB['기록']:.0f}",
    "cub_bench": f"{_B[('cuBLAS', 4096)].tflops:.0f}",
    "swz_tf": f"{_B[('mma_swizzle', 4096)].tflops:.0f}", "swz_pct": f"{100 * _B[('mma_swizzle', 4096)].ratio:.1f}",
    "pad_tf": f"{REC['explore'][0]['tflops']:.0f}", "pad_pct": f"{100 * REC['explore'][0]['ratio']:.1f}",
    "pad_explore_pct": f"{100 * EXP['explore'][0]['ratio']:.1f}",
    "best_cfg": (lambda r: f"{r['BM']}×{r['BN']}×{r['BK']}, 워프 {r['WARPS_M']}×{r['WARPS_N']}, {r['STAGES']}단, "
                 f"{'스위즐' if r.get('SWIZZLE') else '패딩'}")(max((r for r in REC["explore"] if "tflops" in r),
                                                                   key=lambda r: r["ratio"])),
    "best_pct": f"{100 * max(r['ratio'] for r in REC['explore'] if 'tflops' in r):.1f}",
    "h100_gpu": H100.gpu, "h100_date": "·".join(sorted({H100.run(r).date for r in L10.FINAL_RUNS})), "cublas_kernel": _NCU["cublas"]["kernel_name"],
    "gmma": f"{_NCU['cublas']['stalls_per_issue']['gmma']:.2f}",
    "swz_gmma": f"{_NCU['mma_swizzle']['stalls_per_issue'].get('gmma', 0):.0f}",
    "large_hmma": REC["resources"]["mma_large"]["sass"]["HMMA.16816.F32"],
    "lb2_tf": f"{_B[('mma_pipe4_lb2', 4096)].tflops:.0f}", "lb2_local": REC["resources"]["mma_pipe4_lb2"]["local_bytes"],
}
# mma_swizzle -> mma_fast on the H100 (5.3-5.6): every figure from gpu_h100_level6_fast.json (final runs 5 and 6,
# run 4 only for the spill step, which runs 5/6 did not time) and gpu_h200_level6_fast.json
RACE = records.load("racecheck_h100")
H200F = L10.FAST_H200
_RUNS = ("run4", "run5", "run6")
_R = {run: L10.fast_rows(run) for run in _RUNS}          # {(variant, n): records.Row}
_REF = L10.FAST_REF
_G = L10.ablation(H100.run(L10.GRAPH_RUN))
_H2 = L10.ablation(H200F.run("h200_run1"))
_H2G = L10.ablation(H200F.run("h200_graph"))
_NCU6 = H100["ncu"]["run6"]


def _gain(run, without, n, with_=None):
    return f"{_R[run][(with_ or _REF[run], n)].tflops / _R[run][(without, n)].tflops:.2f}"


def _pct(x):
    return f"{100 * x:.1f}"


def _note(key, pattern, group=1):
    """A figure quoted inside one of the record's notes (the record states it only there)."""
    return re.search(pattern, H100[key]).group(group)


_NCU_CSV = L10.ncu_csv("run6")
_NCU_T, _NCU_CYC = L10.ncu_ratio("run6")
FIG.update({
    "fast_regs": H100["final"]["registers"], "fast_local": H100["final"]["local_bytes"],
    "fast_smem": f"{H100['final']['shared_bytes']:,}", "fast_blocks": H100["final"]["blocks_per_sm"],
    "fast_threads": H100["final"]["threads"],
    "swz_regs": H100["previous_best"]["registers"], "swz_local": H100["previous_best"]["local_bytes"],
    "swz_stl": H100["previous_best"]["sass"]["STL"] + H100["previous_best"]["sass"]["STL.64"],
    "swz_blocks": H100["previous_best"]["blocks_per_sm"],
    "nolean_regs": _R["run6"][("no_lean", 4096)].extra["registers"],
    "nolb_regs": _R["run6"][("no_launch_bounds", 4096)].extra["registers"],
    "sm_regs": f"{_occ.GPUS['H100'].regs_per_sm:,}", "max_regs": _occ.GPUS["H100"].max_regs_per_thread,
    "lb_cap": _occ.GPUS["H100"].regs_per_sm // (H100["final"]["threads"] * 2),
    "fast_block_regs": f"{H100['final']['registers'] * H100['final']['threads']:,}",
    "goal4096": _pct(H100["goal"]["4096"])[:-2], "goal2048": _pct(H100["goal"]["2048"])[:-2],
    "r4_cub2048": f"{_R['run4'][('cuBLAS', 2048)].tflops:.0f}", "r4_cub4096": f"{_R['run4'][('cuBLAS', 4096)].tflops:.0f}",
    "spill_gain_4096": _gain("run4", "mma_swizzle", 4096, "warp64x32_lb2"),
    "spill_gain_2048": _gain("run4", "mma_swizzle", 2048, "warp64x32_lb2"),
    "warp_gain_4096": _gain("run4", "warp64x32_lb2", 4096, "barrier_at_tile_start"),
    "warp_gain_2048": _gain("run4", "warp64x32_lb2", 2048, "barrier_at_tile_start"),
    "late_gain_4096": _gain("run4", "barrier_start_early_copy", 4096, "barrier_at_tile_start"),
    "lean_loop_rec": _note("kernel_change", r"Main loop (\d+) -> (\d+)"),
    "lean_loop_rec2": _note("kernel_change", r"Main loop (\d+) -> (\d+)", 2),
    "g_cub2048": f"{_G[('cuBLAS', 2048)].tflops:.0f}", "g_cub4096": f"{_G[('cuBLAS', 4096)].tflops:.0f}",
    "g_fast2048": _pct(_G[("fast", 2048)].ratio), "g_fast4096": _pct(_G[("fast", 4096)].ratio),
    "g_lean2048": f"{_G[('fast', 2048)].tflops / _G[('no_lean', 2048)].tflops:.2f}",
    "g_lean4096": f"{_G[('fast', 4096)].tflops / _G[('no_lean', 4096)].tflops:.2f}",
    "g_bk64_2048": _pct(_G[("bk64_lean_dyn", 2048)].ratio), "g_bk64_4096": _pct(_G[("bk64_lean_dyn", 4096)].ratio),
    "h2_cub2048": f"{_H2[('cuBLAS', 2048)].tflops:.0f}", "h2_cub4096": f"{_H2[('cuBLAS', 4096)].tflops:.0f}",
    "h2_fast2048": _pct(_H2[("fast", 2048)].ratio), "h2_fast4096": _pct(_H2[("fast", 4096)].ratio),
    "h2g_fast2048": _pct(_H2G[("fast", 2048)].ratio), "h2g_fast4096": _pct(_H2G[("fast", 4096)].ratio),
    "h2_lean4096": f"{_H2[('fast', 4096)].tflops / _H2[('no_lean', 4096)].tflops:.2f}",
    "h200_gpu": H200F.gpu, "h200_date": H200F.date,
    "host_fast": f"{_R['run6'][('fast', 2048)].host_us:.0f}",
    "host_cub": f"{_R['run6'][('cuBLAS', 2048)].host_us:.0f}",
    "gpu_fast": f"{1000 * _R['run6'][('fast', 2048)].ms:.0f}",
    "graph_gain_fast": f"{H100['graph_tflops_run6']['2048']['fast'] / _R['run6'][('fast', 2048)].tflops:.2f}",
    "graph_gain_bk64": f"{H100['graph_tflops_run6']['2048']['bk64_lean_dyn'] / _R['run6'][('bk64_lean_dyn', 2048)].tflops:.2f}", "gpu_cub": f"{1000 * _R['run6'][('cuBLAS', 2048)].ms:.0f}",
    "bk64_r5_2048": _pct(_R["run5"][("bk64_lean_dyn", 2048)].ratio), "bk64_r6_2048": _pct(_R["run6"][("bk64_lean_dyn", 2048)].ratio),
    "spread_lo": f"{L10.round_spread('fast', 4096, 'run6')[0]:.0f}",
    "spread_hi": f"{L10.round_spread('fast', 4096, 'run6')[1]:.0f}",
    "ncu_ratio6": _pct(H100["ratio_from_ncu_durations_4096"]["run6"]["mma_fast"]),
    "ncu_cyc6": _pct(_NCU_CYC),
    "clk_fast": f"{_NCU_CSV['mma_fast']['clock_ghz']:.2f}", "clk_cub": f"{_NCU_CSV['cublas']['clock_ghz']:.2f}",
    "gmma_pct": f"{_NCU_CSV['cublas']['gmma_pct']:.2f}", "gmma6": f"{_NCU6['cublas']['stalls_per_issue']['gmma']:.2f}",
    "tp_fast": f"{_NCU6['mma_fast']['tensor_pipe_pct']:.0f}", "tp_swz": f"{_NCU6['mma_swizzle']['tensor_pipe_pct']:.0f}",
    "tp_cub": f"{_NCU6['cublas']['tensor_pipe_pct']:.0f}",
    "tp_fast4": f"{H100['ncu']['run4']['mma_fast']['tensor_pipe_pct']:.0f}",
    "wait_swz": _NCU_CSV["mma_swizzle"]["stalls"]["wait"], "wait_fast": _NCU_CSV["mma_fast"]["stalls"]["wait"],
    "ssb_swz": _NCU_CSV["mma_swizzle"]["stalls"]["short_scoreboard"],
    "ssb_fast": _NCU_CSV["mma_fast"]["stalls"]["short_scoreboard"],
    "bar_swz": _NCU_CSV["mma_swizzle"]["stalls"]["barrier"], "bar_fast": _NCU_CSV["mma_fast"]["stalls"]["barrier"],
    "lsb_swz": _NCU_CSV["mma_swizzle"]["stalls"]["long_scoreboard"], "lsb_fast": _NCU_CSV["mma_fast"]["stalls"]["long_scoreboard"],
    "mpt_fast": _NCU_CSV["mma_fast"]["stalls"]["math_pipe_throttle"],
    "bar_cub": _NCU_CSV["cublas"]["stalls"]["barrier"], "lsb_cub": _NCU_CSV["cublas"]["stalls"]["long_scoreboard"],
    "occ_fast": f"{_NCU6['mma_fast']['achieved_occupancy_pct']:.1f}", "occ_swz": f"{_NCU6['mma_swizzle']['achieved_occupancy_pct']:.1f}",
    "swz_warps": H100["previous_best"]["threads"] // 32 * H100["previous_best"]["blocks_per_sm"],
    "fast_warps": H100["final"]["threads"] // 32 * H100["final"]["blocks_per_sm"],
    "race_gpu": RACE.gpu, "race_date": RACE.date, "race_runs": RACE["runs"],
    "w1_wait_wrong": RACE["cases"]["mma_w1_no_barrier_after_wait"]["wrong_runs"],
    "w1_trail_wrong": RACE["cases"]["mma_w1_no_trailing_barrier"]["wrong_runs"],
    "w2_wait_wrong": RACE["cases"]["mma_w2_no_barrier_after_wait"]["wrong_runs"],
    "w2_trail_wrong": RACE["cases"]["mma_w2_no_trailing_barrier"]["wrong_runs"],
})
# 5.6 launch cost: graph ÷ plain at 2048³ against the same run's 4096³ (kernels far longer than any host time)
_GP = {n: L10.graph_over_plain("run6", n) for n in (2048, 4096)}
_SMALL = {v: x for v, x in _GP[2048].items() if v != "bk64_lean_dyn"}
_HOSTS = [_R["run6"][(v, n)].host_us for v in L10.LAUNCH_COST_VARIANTS for n in (2048, 4096)]
_GPU4096 = min(1000 * _R["run6"][(v, 4096)].ms for v in _GP[4096])


def _dev(xs):
    return max(abs(x - 1) for x in xs)


assert _R["run6"][("fast", 2048)].host_us > 1000 * _R["run6"][("fast", 2048)].ms, "5.6: host > GPU for mma_fast"
assert _dev(_SMALL.values()) <= 2 * _dev(_GP[4096].values()) < _dev([_GP[2048]["bk64_lean_dyn"]]) / 4, \
    "5.6 says: at 2048³ only bk64_lean_dyn's graph ÷ plain stands out of the 4096³ control"
_SP = {run: L10.round_spread("fast", 2048, run) for run in ("run5", "run6")}
assert all(hi / lo - 1 > _dev([float(_gain(r, "no_lean", 2048))]) for r, (lo, hi) in _SP.items()), \
    "5.4.1 says: at 2048³ the round spread is larger than the lean gain"
FIG.update({
    "host_fast4096": f"{_R['run6'][('fast', 4096)].host_us:.0f}",
    "host_nolean": f"{_R['run6'][('no_lean', 2048)].host_us:.0f}",
    "host_nolean4096": f"{_R['run6'][('no_lean', 4096)].host_us:.0f}",
    "host_max": f"{max(_HOSTS):.0f}", "gpu4096_lo": f"{_GPU4096:.0f}", "gpu_cub4096": f"{1000 * _R['run6'][('cuBLAS', 4096)].ms:.0f}", "gpu_over_host": int(_GPU4096 // max(_HOSTS)),
    "ctrl_lo": f"{min(_GP[4096].values()):.2f}", "ctrl_hi": f"{max(_GP[4096].values()):.2f}",
    "small_names": "·".join(f"`{v}`" for v in _SMALL),
    "small_lo": f"{min(_SMALL.values()):.2f}", "small_hi": f"{max(_SMALL.values()):.2f}",
    "bk64_ctrl": f"{_GP[4096]['bk64_lean_dyn']:.2f}",
    "graph_calls": re.search(r"(\d+)-launch CUDA graph", H100["graph_tflops_run6"]["note"]).group(1),
    "graph_replays": re.search(r"(\d+) replays", H100["graph_tflops_run6"]["note"]).group(1),
    **{f"sp{r[-1]}_2048_{k}": f"{v:.0f}" for r, lohi in _SP.items() for k, v in zip(("lo", "hi"), lohi)},
})
# 8: where the f16-accumulation bound stops (2·K·u < 1), and the recorded errors beyond it
_K16 = _tc.bound_k_max("f16") + 1
_BEYOND = [r for r in REC["error_vs_k"] if r["K"] >= _K16]
assert _BEYOND, "8 says the figure has f16-accumulation points beyond the bound's range"
FIG.update({
    "k16_lim": _K16, "k_nobound": ", ".join(str(r["K"]) for r in _BEYOND),
    "err16_nobound": f"{max(r['mma_pipe_f16acc'] for r in _BEYOND):.2e}",
    "ratio_k0_frac": f"{REC['error_vs_k'][0]['mma_pipe_f16acc'] / REC['error_vs_k'][0]['mma_pipe'] / 2 ** 13:.2f}",
})
# 12: the targets of the instruction table (kernels_numba/tools/offline.py) where TMA multicast assembles
_MC = next(q for q in _off.REQUIREMENTS if ".multicast::cluster" in q.example)
assert _MC.advisory and not _MC.arch_specific, "12 says: multicast assembles on sm_90 with an advisory warning"
_MC_T = [_off.arch_name(cc) for cc in _off.TARGETS if _MC.available(cc)]
FIG.update({"mc_targets": "".join(_josa(t, "과/와") + " " for t in _MC_T[:-1]) + _MC_T[-1],
            "t_all": ", ".join(_off.arch_name(t) for t in _off.TARGETS)})
_GOAL = L10.goal_evidence(4096)
# every 4096^3 ratio of the final kernel: each H100 run that timed it (flagged ones too) and run 6's ncu launches
_RANGE = {**{r.replace("run", "run ") if r[3:].isdigit() else f"`{r}`": x for r, x in _GOAL["every"].items()},
          "ncu 단독 실행의 시간 비": _GOAL["ncu_time"], "ncu 의 같은 클록 비율": _GOAL["ncu_clock"]}
_BELOW = [(k, x) for k, x in _RANGE.items() if x < _GOAL["goal"]]
_FLAGGED = [r for r in L10.final_kernel_runs(H100) if H100.run(r).flagged]
assert _FLAGGED == ["run8"] and set(_GOAL["below"]) == {"run8"}, "5.6 and 10 say: run 8 is the flagged run, below the goal"
_R8 = L10.ablation(H100.run("run8"))
_F8 = L10.flag_figures(H100.run("run8"))[0]              # (size, cuBLAS, deviation %, median, earlier runs)
_EARLY12 = [r.id for r in H100.runs if r.id in ("run1", "run2")]
_G8 = {(w, v, n): _R8[(v, n)].tflops / _R8[(w, n)].tflops
       for w, v in (("no_pipeline", "fast"), ("barrier_at_tile_start", "no_pipeline"), ("barrier_at_tile_start", "no_lean"),
                    ("no_lean", "fast")) for n in (2048, 4096)}
assert _G8[("no_pipeline", "fast", 4096)] < 1 < _G8[("no_pipeline", "fast", 2048)], \
    "5.4 says: with lean, the pipeline was slower at 4096^3 and faster at 2048^3 in run 8"
_SP8 = L10.round_spread("fast", 4096, "run8")
# 5.6: what run 8's flag compared against (other records' runs of its engine) and the same rule inside this record
_B8 = L10.flag_basis("run8")[4096]                       # (cuBLAS, deviation %, median, [(record, run, date, TFLOP/s)])
_SPR = L10.record_spread(4096)
_CUB = {r["run"]: r["cublas"] for r in _SPR}
_OUT = [r["run"] for r in _SPR if r["outside"]]
_NEAR8 = min((r for r in _CUB if r != "run8"), key=lambda r: abs(_CUB["run8"] / _CUB[r] - 1))
assert all(H100.run(r).versions.get("engine") != H100.run("run8").versions.get("engine") for r in _CUB if r != "run8"), \
    "5.6 says: no other run of this record was timed by run 8's engine, so none entered its flag"
assert "run6" in _OUT and "run8" in _OUT and max(_CUB, key=_CUB.get) == "run8", "5.6 says: run 6 is outside too; run 8 is the highest"
assert abs(_CUB["run8"] / _CUB[_NEAR8] - 1) < L10.records.BASELINE_SPREAD, "5.6 says: run 8 is within the spread of its nearest run"
_RN = lambda r: r.replace("run", "run ") if r[3:].isdigit() else f"`{r}`"      # noqa: E731
_STEADY_EARLY = [r for r in L10.steady_runs() if r in L10.BASELINE_RUNS and r not in L10.FINAL_RUNS]   # before 5/6
FIG.update({
    "drop_lo": f"{100 * _GOAL['drop_lo']:.0f}", "drop_hi": f"{100 * _GOAL['drop_hi']:.0f}",
    "early_runs": "·".join(r[3:] for r in L10.BASELINE_RUNS if r not in L10.FINAL_RUNS),
    "early_cub_lo": f"{min(v for r, v in _GOAL['cublas'].items() if r not in L10.FINAL_RUNS):.0f}",
    "early_cub_hi": f"{max(v for r, v in _GOAL['cublas'].items() if r not in L10.FINAL_RUNS):.0f}",
    "steady": L10.STEADY,
    "steady_early": "–".join(f"{100 * _GOAL['steady'][r]:.1f}" for r in _STEADY_EARLY),
    "steady_early_runs": "·".join(r[3:] for r in _STEADY_EARLY),
    "steady_first": L10.steady_runs()[0].replace("run", "run "),
    "steady_final": "–".join(f"{100 * _GOAL['steady'][r]:.1f}" for r in L10.FINAL_RUNS),
    "goal_lo": f"{100 * min(_RANGE.values()):.1f}", "goal_hi": f"{100 * max(_RANGE.values()):.1f}",
    "below_list": ", ".join(f"{k} ({100 * x:.1f} %)" for k, x in _BELOW),
    "steady_names": "·".join(r[3:] for r in L10.steady_runs()),
    "r8_date": H100.run("run8").date, "r8_timing": L10.timing_label(H100.run("run8")),
    "r8_engine": H100.run("run8").versions["engine"].split("/")[0],
    "r8_cub": f"{_R8[('cuBLAS', 4096)].tflops:.0f}", "r8_cub2048": f"{_R8[('cuBLAS', 2048)].tflops:.0f}",
    "r8_flag_n": _F8[0], "r8_dev": _F8[2], "r8_med": _F8[3], "r8_nmed": _F8[4],
    "r8_basis": ", ".join(f"`{run}` ({name}.json, {date}) {tf:.1f}" for name, run, date, tf in _B8[3]),
    "r8_class": H100.run("run8").gpu_class, "flag_spread": f"{100 * L10.records.BASELINE_SPREAD:.0f}",
    "cub_lo": f"{min(_CUB.values()):.0f}", "cub_hi": f"{max(_CUB.values()):.0f}",
    "cub_x": f"{max(_CUB.values()) / min(_CUB.values()):.2f}", "cub_n": len(_CUB),
    "out_n": len(_OUT), "out_list": ", ".join(_RN(r) for r in _OUT),
    "r6_spread_dev": next(f"{100 * r['dev']:+.1f}" for r in _SPR if r["run"] == "run6"),
    "r8_near": _RN(_NEAR8), "r8_near_cub": f"{_CUB[_NEAR8]:.0f}", "r8_near_dev": f"{100 * abs(_CUB['run8'] / _CUB[_NEAR8] - 1):.1f}",
    "r8_steady_tf": f"{_R8[(L10.STEADY, 4096)].tflops:.0f}", "r8_steady": _pct(_GOAL["steady"]["run8"]),
    "best8_4096": _pct(_R8[("fast", 4096)].ratio), "best8_2048": _pct(_R8[("fast", 2048)].ratio),
    "r8_pipe_lean_4096": f"{_G8[('no_pipeline', 'fast', 4096)]:.2f}", "r8_pipe_lean_2048": f"{_G8[('no_pipeline', 'fast', 2048)]:.2f}",
    "r8_lean_nopipe_4096": f"{_G8[('barrier_at_tile_start', 'no_pipeline', 4096)]:.2f}",
    "r8_lean_nopipe_2048": f"{_G8[('barrier_at_tile_start', 'no_pipeline', 2048)]:.2f}",
    "r8_pipe_4096": f"{_G8[('barrier_at_tile_start', 'no_lean', 4096)]:.2f}",
    "r8_lean_4096": f"{_G8[('no_lean', 'fast', 4096)]:.2f}",
    "r8_sp_lo": f"{_SP8[0]:.0f}", "r8_sp_hi": f"{_SP8[1]:.0f}",
    "r12_runs": "·".join(r[3:] for r in _EARLY12),
    "r12_cub": "/".join(f"{L10.cublas_tflops(r)[4096]:.0f}" for r in _EARLY12),
    "burst_ms": _note("measurement_note", r"each timing a (\d+) ms burst"),
    "power_w": _note("measurement_note", r"the (\d+) W power limit"),
})


_wrong = _records.wrong_clause            # '한 번도 틀리지 않았습니다' / '20번 중 3번 틀렸습니다' (shared with nb09)


_W1 = (RACE["cases"]["mma_w1_no_barrier_after_wait"]["wrong_runs"], RACE["cases"]["mma_w1_no_trailing_barrier"]["wrong_runs"])
FIG.update({
    "w1_wrong": ("두 경우 모두 " + _wrong(_W1[0], RACE["runs"]) if _W1[0] == _W1[1] else
                 f"wait 뒤 배리어가 없는 경우가 {_wrong(_W1[0], RACE['runs'], False)}, 뒤 배리어가 없는 경우는 "
                 + _wrong(_W1[1], RACE["runs"])),
    "w2_wait": _wrong(RACE["cases"]["mma_w2_no_barrier_after_wait"]["wrong_runs"], RACE["runs"], False),
    "w2_trail": _wrong(RACE["cases"]["mma_w2_no_trailing_barrier"]["wrong_runs"], RACE["runs"]),
})
for _run in ("run5", "run6"):
    _k = _run[-1]
    FIG.update({
        f"r{_k}_cub2048": f"{_R[_run][('cuBLAS', 2048)].tflops:.0f}", f"r{_k}_cub4096": f"{_R[_run][('cuBLAS', 4096)].tflops:.0f}",
        f"r{_k}_swz_pct": _pct(_R[_run][("mma_swizzle", 4096)].ratio),
        f"best{_k}_4096": _pct(_R[_run][("fast", 4096)].ratio), f"best{_k}_2048": _pct(_R[_run][("fast", 2048)].ratio),
        f"best{_k}_tf": f"{_R[_run][('fast', 4096)].tflops:.0f}",
        f"swz_gain_r{_k}_2048": _gain(_run, "no_swizzle", 2048), f"swz_gain_r{_k}_4096": _gain(_run, "no_swizzle", 4096),
        f"lean_gain_r{_k}_2048": _gain(_run, "no_lean", 2048), f"lean_gain_r{_k}_4096": _gain(_run, "no_lean", 4096),
        f"pipe_gain_r{_k}_4096": _gain(_run, "barrier_at_tile_start", 4096, "no_lean"),   # the pipeline alone
        f"both_gain_r{_k}_4096": _gain(_run, "barrier_at_tile_start", 4096),   # pipeline and lean together
        f"pre_gain_r{_k}_4096": _gain(_run, "no_prefetch", 4096, "barrier_at_tile_start"),
        f"st_gain_r{_k}_4096": _gain(_run, "stages2", 4096),
        f"lb_gain_r{_k}_4096": _gain(_run, "no_launch_bounds", 4096),
        f"all_gain_r{_k}_4096": _gain(_run, "mma_swizzle", 4096),
        f"bk64_gain_r{_k}": _gain(_run, "fast", 4096, "bk64_lean_dyn"),
    })
assert all(float(FIG[f"{_g}_gain_r{_k}_4096"]) > 1 for _g in ("pipe", "lean") for _k in "56") and \
    (float(FIG["lb_gain_r5_4096"]) - 1) * (float(FIG["lb_gain_r6_4096"]) - 1) < 0, \
    "5.4 says the pipeline and lean steps point the same way in runs 5 and 6 and launch_bounds does not"
# which level-6 kernels a CC 7.5 GPU (T4) runs: the registry's min_cc (the module's MIN_CC), never a typed list
_L6 = _kn.by_level(6)
_CC75 = [s.name for s in _L6 if s.min_cc is not None and tuple(s.min_cc) < (8, 0)]
_CC80 = [s.name for s in _L6 if s.min_cc is not None and tuple(s.min_cc) >= (8, 0)]
assert _CC75 and len(_CC75) + len(_CC80) == len(_L6) and {tuple(s.min_cc) for s in _L6} == {(7, 5), (8, 0)}, \
    "the prose below says level 6 needs CC 8.0 except the Turing kernels, which need 7.5"
_TARGETS = json.loads((ROOT / "kernels_numba/infra/targets.json").read_text(encoding="utf-8"))["rows"]
_T75 = {r["kernel"]: r for r in _TARGETS if r["kernel"] in _CC75 and r["target"] == "sm_75"}     # offline sm_75
assert set(_T75) == set(_CC75)
assert all(r["compiles"] for r in _T75.values()) and len({r["sass"]["HMMA"] for r in _T75.values()}) == 1
FIG.update({
    "t75_uses": "·".join(f"`{u.split()[0]}`" for u in sorted({u for r in _T75.values() for u in r["uses"]})),
    "t75_hmma": next(iter(_T75.values()))["sass"]["HMMA"],
    "cc75_kernels": "·".join(f"`{n}`" for n in _CC75), "cc75_n": len(_CC75),
    "cc80_n": len(_CC80), "l6_n": len(_L6),
})


def fill(text):
    """Replace each {{name}} by FIG[name], {{name|pair}} by it and its particle (an unknown name is an error)."""
    return _records.fill(text, FIG)



OUT = Path(__file__).resolve().parents[2] / "notebooks" / "10_tensor_core_mma.ipynb"
NB = Notebook("nb10", OUT)
cells, code = NB.cells, NB.code


def md(text):
    NB.md(fill(text))

md(r"""
# 10. Level 6 — Tensor Core 로 행렬곱: `mma.sync m16n8k16` 워프 하나에서 확장된 커널까지

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 9문항 중 **7문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | 텐서 코어(Tensor Core)와 워프 단위 행렬곱-누적 명령 `mma.sync.aligned.m16n8k16`, 레인(lane)마다 어떤 원소를 맡는지 정하는 프래그먼트 레이아웃(fragment layout), 공유 메모리에서 프래그먼트를 읽는 `ldmatrix`, 고정 크기 `simple` → 임의 크기 `large` → 여러 워프·여러 타일·다단 cp.async 로 확장, f16/f32 누적의 오차가 K 에 따라 자라는 모습, 점유율과 성능의 한계 |
| **실행 환경** | GPU 없이 실행됩니다 (Numba CUDA 시뮬레이터가 자동 선택됨). 시뮬레이터는 워프의 32레인이 `mma`/`ldmatrix` 에 모두 모였을 때 워프 전체의 결과를 한 번에 계산해 각 레인에 하드웨어와 같은 배치(레이아웃)로 나눠 줍니다 (값은 정확한 합을 한 번 반올림한 것이라 하드웨어와 마지막 비트까지 같지는 않습니다: 8절). 이 노트북의 커널 대부분은 `mma.m16n8k16` 이나 `cp.async` 를 쓰므로 compute capability 8.0(sm_80, Ampere) 이상이 필요합니다 (`ldmatrix` 와 `mma.m16n8k8` 은 7.5(Turing)용으로도 어셈블됩니다: 6절 표). 8.0 이상의 GPU 가 있으면 같은 커널이 GPU 에서 돌고, 7.5 GPU(예: T4)에서는 이 명령이 없으므로 그런 커널(레벨 6 커널 {{l6_n}}개 중 {{cc80_n}}개)의 실행을 **별도 프로세스의 시뮬레이터**로 보내고 그렇다고 알립니다 (`kernels_numba/tools/subsim.py`: 결과는 같고, 시간은 재지 않으며, 시뮬레이터의 크기 한도가 적용됩니다). 나머지 {{cc75_n}}개({{cc75_kernels}})는 `mma.m16n8k8` 과 `ldmatrix` 만 쓰는 Turing 용 커널이라 7.5 GPU 에서도 GPU 에서 돕니다 (6절). 그래서 노트북은 7.5 GPU 에서도 끝까지 실행됩니다. GPU 성능 수치는 {{gpu}} 에서 **기록한 값**({{date}})이고, 4.4절의 racecheck 와 5.3–5.6절은 {{h100_gpu}} 의 기록이고, 5.4.1절과 5.6절에는 {{h200_gpu}} 의 기록도 나란히 있습니다. |
| **선수 노트북** | 06(공유 메모리 타일링), 07(레지스터 블로킹), 08(더블 버퍼링), 09(cp.async 와 다단 버퍼링). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 10절 참고. |

이 노트북의 모든 수치는 노트북 안에서 계산하거나(모델, `ptxas`), 시뮬레이터로 실행하거나, H200·H100 에서 기록한 값입니다. 흔히 하는 설명이 측정과 다른 곳은 그 자리에서 ⚠️ 로 밝힙니다.
""")
code(r"""
import course; course.setup("10")
import numpy as np
from IPython.display import Markdown, display
import kernels_numba as kn
from course.ch10_tensor_core import lesson as L
from sim import mma
L.prefetch()   # 4.3·5.3·5.4.1·6절의 오프라인 컴파일과 ptxas 검사를 지금 백그라운드에서 시작 (그 셀들이 덜 기다림)
print("모드:", "시뮬레이터" if kn.device.SIMULATOR else "GPU", "| 레벨 6 커널:", [s.name for s in kn.by_level(6)])
""")
md(r"""
## 1. 개요: 텐서 코어와 `mma.sync`

지금까지의 커널은 스레드 하나가 FMA 명령으로 곱셈-덧셈을 하나씩 했습니다. 텐서 코어(Tensor Core)는 SM 안의 행렬 전용 연산기로, **워프(warp) 전체가 함께** 작은 행렬곱 하나를 한 명령으로 계산합니다. PTX 에서는

```
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32  {d0,d1,d2,d3}, {a0,a1,a2,a3}, {b0,b1}, {c0,c1,c2,c3};
```

이 한 줄이 **D[16×8] = A[16×16] · B[16×8] + C[16×8]** 입니다. 이름의 뜻:

* `m16n8k16`: M=16, N=8, K=16 (곱셈-덧셈 16·8·16 = 2048번, FLOP 로는 4096).
* `.row.col`: A 는 행 우선(row-major), B 는 열 우선(column-major) 배치로 **레지스터에** 들어 있다고 봅니다.
* `.f32.f16.f16.f32`: D, A, B, C 의 타입. 입력은 반정밀도(f16), 누적과 출력은 f32. `.f16.f16.f16.f16` 이면 누적도 f16 입니다.
* `.sync.aligned`: 워프의 32레인이 **모두 같은 명령을 함께** 실행해야 합니다. 일부 레인만 도착하면 하드웨어에서는 정의되지 않은 동작(멈춤이나 쓰레기 값)입니다.

각 레인은 A 원소 8개(32비트 레지스터 4개에 f16 두 개씩), B 원소 4개(레지스터 2개), C/D 원소 4개(f32 레지스터 4개)를 레지스터에 가집니다. 어느 레인이 어느 원소를 맡는지가 **프래그먼트 레이아웃**이고, 이것을 틀리면 결과가 조용히 틀립니다. 그래서 먼저 레이아웃을 확실히 합니다.

이 강좌의 PTX 는 명령마다 `.ptx` 파일 하나에 한 번만 쓰여 있고, 커널은 거기서 명령 텍스트를 가져와 인라인으로 넣습니다 (노트북 09 의 3.2절; 함수 호출이 없다는 것은 4.3절의 SASS 로 확인).
""")
code(r"""
for name in ("mma_m16n8k16_f32", "mma_m16n8k16_f16", "ldmatrix_x4", "ldmatrix_x2_trans"):
    print(L.ptx_text(name))
""")
md(r"""
## 2. 프래그먼트 레이아웃: 어느 레인이 무엇을 맡는가

PTX ISA("Matrix Fragments for mma.m16n8k16 with floating point type")의 규칙은 레인 번호를 두 부분으로 나눕니다: `groupID = laneid >> 2` (0–7, 아래에서 g), `threadID_in_group = laneid % 4` (0–3, 아래에서 t). 레인 32개가 넷씩 여덟 묶음이고, g 는 묶음 번호, t 는 묶음 안의 번호입니다.

* **C/D** (16×8)는 레인마다 원소 c0..c3 네 개(f32 레지스터 네 개)입니다.
* **A** (16×16, row)는 레인마다 원소 a_0..a_7 여덟 개, **B** (16×8, col)는 b_0..b_3 네 개입니다.

세 행렬 모두 같은 g, t 로 규칙이 쓰이지만, 어느 번호가 어느 자리인지는 직접 해보기 10-1–10-3 에서 아래 위젯으로 찾아 여러분이 씁니다 (정리된 규칙은 각 문제 뒤에 "푼 뒤에 여세요" 로 접어 두었습니다).

정답으로 쓰는 규칙은 `sim/mma.py` 한 곳에만 있고, 시뮬레이터의 `mma`/`ldmatrix` 대체 함수와 아래 위젯이 **같은 코드**를 씁니다 (직접 해보기의 확인 함수는 흔한 실수, 예를 들어 g 와 t 가 바뀐 답을 알아보려고 규칙의 변형을 따로 만듭니다).
""")
md(r"""
### 2.1 직접 눌러 보기: 레인 ↔ 원소

행렬(A, B, C/D)을 고르고 **레인** 슬라이더를 움직이면 그 레인이 맡은 원소가 주황색으로 칠해집니다 (칸의 숫자는 그 원소를 맡은 레인, 아래 첨자는 그 원소가 든 레지스터: C 는 `c0`..`c3`, A·B 는 레지스터 하나에 f16 두 개라 `a3.lo` 처럼 레지스터와 그 아래(lo)·위(hi) 절반). 반대로 **원소 행·열**을 고르면 그 원소를 맡은 레인으로 슬라이더가 옮겨 갑니다. 확인해 볼 것: C 에서 같은 묶음(g)의 네 레인은 어느 행들을 나눠 갖나요? 레인 하나의 c0 과 c1 은 어떻게 이웃하나요? A 에서 레인 0 이 맡은 8개 원소는 어떤 두 행, 어떤 네 열에 있나요? B 에서 같은 열(n)을 맡는 레인들은 어떤 공통점이 있나요?
""")
code(r"""
from course.widgets.mma import fragment_view
fragment_view("C", 5)
""")
NB.exercise("10-1", r"""
커널의 마지막 단계(레인마다 c0..c3 을 C 에 쓰기)는 C/D 의 규칙 하나에 달려 있습니다. 레인 번호 `lane` 을 받아 c0, c1, c2, c3 이 담는 C/D 원소의 `(행, 열)` 네 개를 **그 순서대로** 돌려주는 함수를 쓰세요. 위젯에서 C/D 를 고르고 몇 레인의 네 칸을 보며 규칙을 찾은 뒤, `mma.c_elements` 를 부르지 말고 `lane >> 2`, `lane % 4` 로 직접 계산하세요 (확인 셀은 함수를 실행하며 `sim/mma.py` 를 부르는지 지켜봅니다). 확인 셀은 32개 레인을 모두 비교하고, 틀리면 어느 레인의 어느 레지스터가 틀렸는지와 그것이 어떤 실수의 모양인지(행·열이 바뀜, c1·c2 순서, 레인 4개 묶음을 잘못 나눔, +8 이 빠짐, ...)를 알려 줍니다.
""")
md(r"""
<details><summary>정리: C/D 의 규칙 (10-1 을 푼 뒤에 여세요)</summary>

* **C/D** (16×8): 원소 c_i 의 행은 g (i < 2) 또는 g + 8 (i ≥ 2), 열은 `t·2 + (i & 1)`. 즉 네 레인이 한 그룹이 되어 두 행(g, g+8)을 나눠 갖고, 레인마다 붙어 있는 두 열을 갖습니다.
</details>

10-1 을 푼 뒤에 아래 셀로 `sim/mma.py` 의 모델과 비교해 보세요: 레인 5 가 맡는 C 원소와, 원소 D[15][7] 의 주인입니다.
""")
code(r"""
print("레인 5 의 C/D 원소:", mma.c_elements(5))
print("D[15][7] 의 주인 (레인, c 번호):", mma.owner("C", 15, 7))
# 예상 출력: 레인 5 의 C/D 원소: [(1, 2), (1, 3), (9, 2), (9, 3)] ... D[15][7] 의 주인 (레인, c 번호): (31, 3)
""")
NB.exercise("10-2", r"""
이제 A 입니다. 레인마다 원소 8개가 32비트 레지스터 네 개(a0..a3)에 f16 두 개씩 들어갑니다: 레지스터 a_r 의 **하위** 16비트가 원소 a_2r, **상위** 16비트가 a_2r+1 입니다. 함수는 a_0..a_7 의 `(행, 열)` 여덟 개를 그 순서대로 돌려줍니다. 위젯에서 행렬 A 를 고르고 레인 0 의 여덟 칸을 먼저 보세요: 네 레지스터가 두 행(g, g+8)과 두 열 절반(0–7 쪽, 8–15 쪽)을 어떤 **순서**로 나누는지가 이 문제의 핵심입니다 (다음 절의 `ldmatrix.x4` 가 네 레지스터를 같은 순서로 채웁니다).
""")
NB.exercise("10-3", r"""
B 는 메모리에 행 우선(K×N)으로 있지만 mma 는 `.col`, 곧 열 우선으로 레지스터에 받습니다. 레인의 원소 b_0..b_3 (레지스터 b0, b1 에 둘씩, 하위 절반 먼저)의 `(k, n)` 을 순서대로 돌려주세요. 한 레지스터의 두 f16 은 B 의 어느 방향으로 이웃한 두 원소일까요? 확인 셀은 방향을 거꾸로 잡은 답(행 우선으로 생각한 답)을 따로 알아봅니다.
""")
md(r"""
<details><summary>정리: A, B 의 규칙 (10-2, 10-3 을 푼 뒤에 여세요)</summary>

* **A** (16×16, row): 원소 a_0..a_7. 행은 i 가 2, 3, 6, 7 이면 g+8, 나머지(0, 1, 4, 5)는 g, 곧 `g + 8·((i >> 1) & 1)`; 열은 `t·2 + (i & 1)` 에 i ≥ 4 이면 +8.
* **B** (16×8, col): 원소 b_0..b_3. 행(k)은 `t·2 + (i & 1)` 에 i ≥ 2 이면 +8, 열은 g.
</details>
""")
md(r"""
### 2.2 하드웨어가 정답: GPU 에서 기록한 레이아웃과 비교

문서만 믿지 않고 H200 에서 직접 기록했습니다 (`benchmarks/record_mma_layout.py`). 공유 메모리에 원소마다 다른 번호를 써 넣고 `ldmatrix` 여섯 가지(.x1/.x2/.x4, 각각 .trans 유무)로 읽은 뒤, 모든 레인이 자기 레지스터에 들어온 번호를 적어 냅니다. `mma` 는 모든 결과가 서로 다른 정수 행렬로 계산해, 레인의 d0..d3 이 D 의 어느 원소인지 값으로 알아냅니다. 아래 셀은 그 기록을 `sim/mma.py` 와 **원소 하나하나** 비교합니다 (CI 테스트 `tests/test_mma_layout.py` 도 같은 비교를 합니다).
""")
code(r"""
res = L.compare_layout("h200")
for what, (agree, total) in res.items():
    print(f"{what:20s} {agree}/{total} 일치")
assert all(a == t for a, t in res.values())
print("PASS: GPU 기록 = sim/mma.py 레이아웃")
# 예상 출력: ldmatrix.x1 64/64 일치 ... mma C 128/128 일치 / PASS: GPU 기록 = sim/mma.py 레이아웃
""")
md(r"""
## 3. 출발점 `simple`: 워프 하나, mma 한 번

`kernels_numba/mma_simple.py` 는 C[16×8] = A[16×16]·B[16×8] 를 워프 하나(32 스레드)로 계산합니다. 순서:

1. 32레인이 A(256원소), B(128원소)를 공유 메모리 `As`, `Bs` 로 나눠 복사합니다 (레인당 A 8개, B 4개).
2. `syncthreads()`: 다른 레인이 쓴 행을 읽기 전에 기다립니다.
3. `ldmatrix.x4` 로 A 의 프래그먼트를, `ldmatrix.x2.trans` 로 B 의 프래그먼트를 읽습니다. B 는 메모리에 행 우선(K×N)으로 있지만 mma 는 열 우선 B 를 원하므로, 읽으면서 전치(`.trans`)합니다.
4. `mma` 한 번, 그리고 레인마다 자기 c0..c3 네 원소를 C 에 씁니다.

`ldmatrix.x4` 는 8×8 행렬 네 개를 읽어 레인마다 레지스터 네 개를 채웁니다. 각 레인이 A 타일의 **어느 행**의 주소를 주어야 그 네 레지스터가 정확히 mma 의 a0..a3 이 될까요? 아래에서 `ldmatrix` 의 규칙을 익힌 뒤 직접 해보기 10-4 에서 정합니다 (강좌 커널의 주소는 `tests/test_mma_model.py` 가 모든 레인에 대해 확인합니다).
""")
md(r"""
**직접 눌러 보기: `ldmatrix` 의 두 방향.** `ldmatrix` 에서는 주소를 주는 레인과 데이터를 받는 레인이 다릅니다. 주소 쪽: 레인 `8·j + r` 이 8×8 행렬 j 의 행 r (16바이트) 주소를 줍니다. `.x1` 은 레인 0–7, `.x2` 는 레인 0–15 의 주소만 쓰고 나머지 레인의 주소는 무시합니다. 데이터 쪽: 레인 l 은 행렬마다 32비트 레지스터 하나에, 저장된 행 `l // 4` 의 열 `2·(l % 4)` 와 그다음 열, 두 원소를 받습니다. `.trans` 이면 행과 열이 바뀌어, 열 `l // 4` 의 행 `2·(l % 4)` 와 그다음 행을 받습니다.

아래 위젯에서 변형(.x1/.x2/.x4)과 `.trans` 를 고르고 **레인**을 움직이면 주황색이 두 곳에 칠해집니다: 위 표에서는 그 레인이 주소를 준 행, 아래 행렬들에서는 그 레인이 받는 원소(레지스터 r0..r3, 아래 절반 lo / 위 절반 hi)입니다. 반대로 **원소**(행렬 j, 행, 열)를 고르면 그 원소를 받는 레인으로 슬라이더가 옮겨 가고, 그 원소가 있는 행의 주소를 준 레인이 파란색이 됩니다. 확인해 볼 것: `.x4` 에서 레인 13 은 어느 행의 주소를 주고, 어느 행의 원소를 받나요? `.trans` 를 켜면 레인 5 가 받는 원소는 어떻게 바뀌나요? 칸의 숫자는 2.2절에서 GPU 기록과 원소 하나하나 비교한 `sim/mma.py` 의 같은 규칙(`ldmatrix_lane_map`)에서 나옵니다.
""")
code(r"""
from course.widgets.mma import ldmatrix_view
print("x4 레인 13 이 주소를 주는 (행렬, 행):", mma.ldmatrix_address_lanes(4)[13])
print("x4 레인 13 이 r1 에 받는 (행렬, 행, 열):", mma.ldmatrix_elements(13, 4)[1])
# 예상 출력: ... (1, 5) / ... [(1, 3, 2), (1, 3, 3)]
ldmatrix_view(4, trans=False, lane=13)
""")
NB.exercise("10-4", r"""
레인 `lane` 이 주는 행 주소 두 개를 돌려주세요: `ldmatrix.x4` 로 A 타일 `As[16][16]` 을 읽을 때의 `(행, 열)` 과, `ldmatrix.x2.trans` 로 B 타일 `Bs[16][8]` 을 읽을 때의 `(행, 열)`. 주소는 16바이트 한 행(f16 8개)의 시작이고, `.x2` 는 레인 16–31 의 주소를 무시합니다(그 레인들의 B 주소는 아무 정수 쌍이어도 됩니다). 규칙: 레인 `8·j + r` 이 행렬 j 의 행 r 을 가리키고, 행렬 j 는 레지스터 j 가 됩니다. 그러니 먼저 a0..a3 (10-2) 과 b0, b1 (10-3) 이 타일의 어느 8×8 조각인지 정하세요. 확인 셀은 여러분의 주소로 `ldmatrix` 가 레인마다 배달할 원소를 `sim/mma.py` 의 모델로 계산해 mma 의 레이아웃과 비교하고, 정렬·범위 위반, 8×8 조각의 순서가 바뀐 경우(a1 ↔ a2 처럼), 틀린 행을 가리키는 레인을 각각 알려 줍니다.
""")
md(r"""
다 풀었으면 강좌 커널의 주소와 비교해 보세요. 아래는 `mma_simple` 의 전체 소스입니다.
""")
code(r"""
print(course.source(kn.get("mma_simple").kernel))
""")
md(r"""
시뮬레이터에서 실행하고 float64 기준값과 비교합니다. 허용 오차는 고정값이 아니라 8절에서 유도하는 한계(K 와 누적 타입에 비례)입니다. 단위행렬 검사(A = I 이면 C 는 B 와 **정확히** 같아야 함)도 함께 합니다: 곱 하나에 0 만 더해지므로 반올림이 일어나지 않습니다. 결과의 키: `ok` (모든 원소가 한계 안이고 NaN 이 없음), `worst` (원소마다 오차 ÷ 한계의 최댓값: 1 이하면 한계 안, 0 에 가까울수록 여유가 큼), `max_err` (가장 큰 절대 오차), `identity` (단위행렬 검사).
""")
code(r"""
r = L.check_kernel("mma_simple", 16, 8, 16)
print(r)
assert r["ok"] and r["identity"]
print("PASS: mma_simple = float64 기준값 (한계 이내), 단위행렬 검사 정확")
# 예상 출력: {'ok': True, 'worst': 0.0..., 'max_err': ..., 'identity': True} / PASS: ...
""")
md(r"""
### 3.1 워프가 갈라지면: 시뮬레이터가 이름을 대고 멈춥니다

`mma.sync`·`ldmatrix.sync` 는 워프의 32레인이 모두 와야 합니다. `kernels_numba/demos/mma_divergent.py` 의 버그 커널은 `if lane < 16:` 안에서 mma 를 부릅니다. 하드웨어에서는 멈추거나 쓰레기 값이 나오는 정의되지 않은 동작이지만, 우리 시뮬레이터는 각 레인을 그 명령 앞에서 기다리게 하고(랑데부, rendezvous), 한 라운드가 끝났을 때 워프가 다 모이지 않았으면 **블록·워프·명령·안 온 레인**을 밝힌 오류를 냅니다. 같은 데모의 `kernel_ok` 는 mma 는 모두가 실행하고 저장만 조건문 안에 둡니다 — 이것이 올바른 형태입니다.
""")
code(r"""
print(L.divergence_message("kernel"))
print(L.divergence_message("kernel_early_return"))
""")
md(r"""
## 4. `simple` → `large`: 임의 크기로

`kernels_numba/mma_large.py` 는 두 방향으로 확장합니다.

**M, N (공간 병렬화)**: 그리드를 (M/16) × (N/8) 블록으로 만들고, 블록 하나(워프 하나)가 C 의 16×8 타일 하나를 맡습니다: `tile_m = blockIdx.x·16`, `tile_n = blockIdx.y·8`.

**K (반복 누적)**: mma 의 K 는 16 으로 고정이므로 K 를 16 씩 나눠 반복하고, 누산기(accumulator) c0..c3 는 루프 내내 레지스터에 둡니다. 반복마다: (1) cp.async 로 A[tile_m:+16, k0:+16] 와 B[k0:+16, tile_n:+8] 를 공유 메모리로, (2) `wait_group 0` (아래 `mma_large` 의 소스에서는 `wait_all()`) 과 배리어(barrier), (3) `ldmatrix`, (4) mma, (5) 다음 복사가 덮어쓰기 전에 모두 읽었음을 보장하는 배리어.

""")
NB.exercise("10-5", r"""
이 루프를 직접 써 봅니다. 복사는 cp.async 대신 평범한 복사 도우미 `copy_tiles` (레인마다 A 8개, B 4개; `kernels_numba/common.py`)로, 결과 쓰기는 10-1 의 레이아웃으로 c0..c3 을 쓰는 `store_fragment` 로 주어집니다. 여러분이 채울 것은 K 스텝 한 번의 나머지입니다: `ptx.ldmatrix_x4` 와 `ptx.ldmatrix_x2_trans` 로 프래그먼트를 읽고(10-4 의 주소), `ptx.mma_m16n8k16_f32` 로 c0..c3 에 **누적**하고, 다음 스텝의 복사가 As/Bs 를 덮어쓰기 전에 필요한 것을 넣습니다. 확인 셀은 세 모양(K 스텝 1·2·3개, alpha/beta 포함)을 실행해 (GPU 가 없으면 시뮬레이터에서, 경쟁 검출기와 함께) 8절에서 유도하는 f16 입력·f32 누적의 허용 오차 `tc.error_bound` 로 판정하고, 틀리면 경쟁 검출기의 보고나 틀린 원소의 지도와 함께, 결과가 어떤 프래그먼트 실수(B 를 전치하지 않음, a1·a2 또는 b0·b1 이 바뀜, 누적이 매 스텝 0 에서 다시 시작함 ...)의 곱과 일치하는지 알려 줍니다.
""")
md(r"""
풀었으면 강좌의 커널과 비교해 보세요. 아래 셀이 `mma_large` 전체입니다: 복사를 cp.async 로 하고(그래서 `wait_group 0` 이 배리어 앞에 있음: 소스의 `wait_all()` 은 `kernels_numba/mma_large.py` 가 `WAIT_GROUP[0]`, 곧 `cp_async_wait_group_0` 에 붙인 이름입니다), 루프 한 바퀴가 위의 (1)~(5) 입니다. 블록 격자의 x·y 는 서로 반대입니다: 10-5 의 템플릿은 06–09 의 커널처럼 격자가 (N/8, M/16) 이라 `tile_m = blockIdx.y·16` 이고, `mma_large` 는 위의 설명대로 (M/16, N/8) 이라 `tile_m = blockIdx.x·16` 입니다. 어느 쪽이든 블록 하나가 C 의 16×8 타일 하나를 맡는 것은 같습니다.
""")
code(r"""
print(course.source(kn.get("mma_large").kernel))
""")
md(r"""
크기 제약: M 은 16, N 은 8, K 는 16 의 배수여야 합니다. 어긋나면 무엇이 틀렸고 어떻게 고치는지 알려 주는 `CourseInputError` 가 나고, 0 으로 채워(padding) 계산하는 `course.ch10_tensor_core.lesson.padded_launch` 도 있습니다 (0 인 행·열은 내적에 정확한 0 만 더하므로 결과가 같습니다; 테스트됨).
""")
code(r"""
r = L.check_kernel("mma_large", 32, 16, 48)
print(r)
assert r["ok"] and r["identity"]
print("PASS: mma_large 32×16×48 (블록 2×2, K 반복 3번)")
# 예상 출력: {'ok': True, ...} / PASS: mma_large 32×16×48 (블록 2×2, K 반복 3번)
""")
code(r"""
from kernels_numba.infra.errors import CourseInputError
try:
    kn.get("mma_large").launch(np.zeros((20, 16), np.float16), np.zeros((16, 8), np.float16), np.zeros((20, 8), np.float32))
except CourseInputError as e:
    print(str(e).splitlines()[0])
""")
md(r"""
### 4.1 메모리 접근 패턴과 공유 메모리 크기

K 스텝 하나에서 A 타일은 16행 × 16원소(f16) = 행마다 32바이트라 16바이트 cp.async 두 번, 모두 32번(레인마다 한 번)입니다. B 타일은 16행 × 8원소 = 행마다 16바이트, 각 행이 글로벌 메모리에서 N 만큼 떨어져 있으므로 행마다 따로 cp.async 한 번, 모두 16번(레인 0–15)입니다. 공유 메모리는 16·16·2 + 16·8·2 = **768바이트**로 흔히 말하는 값이 맞고, H200 에 로드된 커널도 768 B 를 보고합니다. 16바이트 복사와 `ldmatrix` 는 주소가 16바이트 정렬이어야 해서 공유 배열을 `alignment=16` 으로 선언합니다.
""")
code(r"""
print(L.copy_pattern())
print("계산:", kn.get("mma_large").module.SMEM_BYTES, "B | H200 에 로드된 커널:", L.loaded_resources()["mma_large"]["shared_bytes"], "B")
for line in L.here_lines(["mma_large"]):     # GPU 가 있을 때만: 지금 이 GPU 에서의 값
    print(line)
# 예상 출력: {'A 행 바이트': 32, 'A 행당 16B 복사': 2, 'A 복사 수': 32, 'B 행 바이트': 16, 'B 행당 16B 복사': 1, 'B 복사 수': 16} / 계산: 768 B | ... 768 B
""")
md(r"""
### 4.2 성능 고려사항과 한계: 점유율, 그리고 '지연시간 숨김'

**점유율**: 블록당 워프가 하나뿐이면 SM 에 올라갈 수 있는 블록 수 한도가 먼저 걸립니다. 레지스터(32개)나 공유 메모리(768 B + 예약 1 KiB)는 한도에 한참 못 미칩니다. 블록 수 한도와 SM 의 최대 워프 수는 compute capability 마다 다릅니다. 아래 셀은 점유율 모델(`sim/occupancy.py`)에 CUDA 13 의 `cuda_occupancy.h` 가 정한 SM당 블록 한도(8.0·9.0: 32, 8.9: 24, 8.6: 16)와 프로그래밍 가이드의 SM당 최대 워프(8.0·9.0: 64, 8.6·8.9: 48)를 넣어 계산합니다.
""")
code(r"""
for cc, o in L.one_warp_occupancy():
    print(o.summary())
""")
md(r"""
H200(9.0)과 A100(8.0)에서는 64워프 중 32워프, **50 %** 입니다. 8.6 에서는 블록 한도가 16 이라 더 낮습니다.

⚠️ **'cp.async 로 지연시간을 숨긴다'** 는 흔한 설명은 `large` 의 루프에는 맞지 않습니다: 복사를 내자마자 `wait_group 0` 으로 기다리므로 한 워프 안에서는 복사와 계산이 겹치지 않습니다. 겹침은 SM 의 다른 블록들이 번갈아 실행되며 생길 뿐입니다. 한 워프 안에서 겹치려면 다음 타일을 **먼저** 발행하는 다단 파이프라인이 필요합니다(5절). 측정: `mma_large` 는 {{gpu}} 에서 4096³ 에 {{large_tf}} TFLOP/s 로 같은 실행의 cuBLAS 의 {{large_pct}} % 입니다. 이 노트북에서 **cuBLAS** 는 `cublasGemmEx` 의 f16 × f16 → f32 (`CUBLAS_COMPUTE_32F`: 입력 f16, 누적·출력 f32) 입니다. 출력까지 f16 인 HGEMM(`cublasHgemm`)이 아니라 우리 f32 출력 커널과 같은 계산이고, 이 뒤의 'cuBLAS' 는 모두 이것입니다 (5.1절).
""")
code(r"""
display(Markdown(L.markdown(L.occupancy_rows(), ["커널", "스레드/블록", "레지스터", "공유 메모리 B", "결과"])))
for line in L.here_lines(("mma_large", "mma_pipe")):     # GPU 가 있을 때만
    print(line)
""")
md(r"""
### 4.3 SASS: 명령이 그대로 들어갔는가

GPU 없이 sm_90 용으로 컴파일한 `mma_large` 의 SASS 에서 K 스텝 하나를 잘라 봅니다 (복사부터 mma 뒤의 배리어까지, 관련 명령만; 거르는 목록에 `CALL` 도 넣었으므로 이 구간에 함수 호출이 있으면 보입니다).
""")
code(r"""
print(L.sass_iteration("mma_large"))
per_loop, total = L.loop_mma("mma_large")
print("루프마다 (HMMA, BAR):", per_loop, "| 커널 전체 HMMA:", total)
print(L.iteration_facts("mma_large")[0])      # 위 출력에서 읽은 것 (컴파일러마다 다를 수 있음)
""")
md(r"""
위 구간에는 `LDGSTS.E.BYPASS.128` (cp.async 16 B: A 와 B), `LDGDEPBAR` (commit), `DEPBAR.LE SB0, 0x0` (`wait_group 0`), 배리어, `LDSM.16.M88.4` (`ldmatrix.x4`), `LDSM.16.MT88.2` (`ldmatrix.x2.trans`), `HMMA.16816.F32` (mma) 가 들어 있고 `CALL` 이 없습니다. 각각 몇 개인지, 두 `ldmatrix` 가 소스와 같은 순서인지는 컴파일러가 정하므로 셀의 마지막 줄이 이 컴파일에서 읽어 보여 줍니다 (K 스텝마다 실행되는 `ldmatrix` 는 두 개, HMMA 는 하나로 소스가 정합니다). 커널 전체의 HMMA 수도 같은 줄에 있습니다: 컴파일러가 K 루프를 몇 번씩 펼친 루프와, 남은 K 스텝을 하나씩 도는 루프로 나누면 HMMA 가 그 합만큼 보입니다. 기록된 {{gpu}} 커널의 SASS 에도 HMMA 가 {{large_hmma}}개 있습니다.
""")
md(r"""
### 4.4 배리어 하나를 빼면: 답은 맞는데 경쟁(race)이 있다

`mma_large` 의 K 루프에는 배리어가 두 개 있습니다. `kernels_numba/demos/mma_barriers.py` 는 그중 하나씩을 지운 버그 커널입니다:

* `no_barrier_after_wait`: `wait_group 0` 뒤의 배리어가 없습니다. `wait` 는 **자기 레인이 낸** 복사의 도착만 보장하므로, 다른 레인이 복사한 행을 `ldmatrix` 로 읽는 것은 쓰기 후 읽기(RAW) 경쟁입니다.
* `no_trailing_barrier`: mma 뒤의 배리어가 없습니다. 다음 반복의 cp.async 가 다른 레인이 아직 `ldmatrix` 로 읽는 행을 덮어쓸 수 있습니다: 읽기 후 쓰기(WAR) 경쟁입니다.

아래 셀은 각 데모를 시뮬레이터에서 실행해 **결과**(numpy 와 일치하는가)와 **경쟁 검출기(race detector)의 보고**를 나란히 보여 줍니다. 검출기는 GPU 의 `compute-sanitizer --tool racecheck` 에 해당합니다. GPU 에서 실행하면 검출기가 없으므로 보고 대신 안내 한 줄이 나옵니다.
""")
code(r"""
from course.racereport import run_demo, show
from kernels_numba.demos import mma_barriers
show(run_demo(mma_barriers.launch_no_barrier_after_wait, 32, 16, 64, dtype=np.float16))
""")
code(r"""
show(run_demo(mma_barriers.launch_no_trailing_barrier, 32, 16, 64, dtype=np.float16))
""")
md(r"""
두 데모 모두 시뮬레이터에서는 **답이 맞습니다** (`numpy 와 일치: True`). 그런데도 경쟁입니다. 왜 답이 맞는지 정확히 보면:

* 시뮬레이터는 정해진 한 가지 순서(결정적 스케줄, deterministic schedule)로 스레드를 돌립니다. `ldmatrix`·`mma` 같은 워프 단위 명령(warp-collective)은 워프의 32레인이 모두 그 명령 앞에 모였을 때 한 번에 실행됩니다. 그때 블록의 실행 가능한 다른 스레드는 모두 멈춰(parked) 있고, 각 레인은 이미 자기 `wait_group` 을 지나 자기 복사를 도착시켰습니다. 그래서 `ldmatrix` 는 늘 모든 복사가 끝난 공유 메모리를 읽고, 다음 반복의 복사는 늘 `ldmatrix` 뒤에 발행됩니다.
* 하드웨어에서도 워프 단위 명령은 워프의 레인이 모두 모여야 실행되지만, `cp.async.wait_group` 은 **그 스레드가 낸** 복사가 끝났다는 것을 **그 스레드에게만** 보장합니다. 배리어 없이는 다른 레인의 복사가 보인다는 약속이 없고(PTX 메모리 모델), 다른 워프의 복사는 아직 도착하지 않았을 수도 있습니다. 다음 타일의 복사가 앞선 읽기보다 먼저 도착하지 않는다는 약속도 없습니다. 실제로 어떻게 되었는지는 아래의 GPU 기록입니다.

한 가지 실행 순서로는 모든 경쟁을 드러낼 수 없습니다. 그래서 검출기는 스레드를 어떤 순서로 돌렸는지와 상관없이 판정합니다: 원소마다 배리어 구간의 마지막 쓰기 하나와 읽은 스레드 둘을 기억하고, 새 접근이 다른 스레드의 그 접근과 같은 구간에서 만나고 하나가 쓰기이면 경쟁이며, cp.async 의 쓰기는 발행부터 그것을 보장하는 wait 까지 '날아가는 중'으로 봅니다 (`ldmatrix` 의 16바이트 행은 그 행의 주소를 준 레인이 읽는 것으로 셉니다. 행의 값은 다른 레인들의 레지스터로 가지만, 검출기는 주소를 준 레인만 봅니다. 그래서 주소를 준 레인이 그 행을 복사한 레인이기도 하면 경쟁이 보고되지 않습니다: 이 커널에서는 `Bs` 의 모든 행과 `As` 의 일부 원소가 그렇고, 위 두 데모가 `As` 만 보고하는 까닭입니다. `Bs` 에도 배리어를 그대로 둡니다: 배리어 없이 다른 레인이 쓴 값이 보인다는 약속은 PTX 메모리 모델에 없습니다(위). GPU 의 racecheck 도 이 모양은 보고하지 않았습니다: 아래 표의 워프 1개 두 경우는 각 레인이 자기가 주소를 줄 `Bs` 행을 복사하는데, 보고된 것은 `As` 의 줄(복사 ↔ `ldmatrix_x4`)뿐이고, `Bs` 의 줄은 다른 워프가 `Bs` 를 복사하는 워프 2개 경우에만 나옵니다. 조용한 검출기는 배리어가 필요 없다는 증거가 아닙니다). 그래서 주소를 준 레인을 기준으로 경쟁이 있는 원소는 반드시 보고되지만, 모든 접근의 쌍이 보고되는 것은 아닙니다: 같은 종류·같은 두 줄의 경쟁은 한 번(횟수와 함께) 나오고, 종류(RAW 인지 WAR 인지)와 두 줄의 순서는 각 레인이 실제로 지난 줄로 정합니다. 그래서 위 두 데모는 각각 한 종류만 보고합니다 (wait 뒤 배리어 없음: RAW, 뒤 배리어 없음: 다음 반복의 cp.async 가 덮어쓰는 WAR). 보고는 원소, 블록 안의 배리어 구간 번호, `k0`, 두 커널 줄과 고치는 법을 말합니다.

GPU 에서는 어떨까요? {{race_gpu}} 에서({{race_date}}) 같은 모양의 커널(워프 1개, 그리고 A 타일을 나눠 쓰는 워프 2개)을 `compute-sanitizer --tool racecheck` 로 돌린 기록(`course/recorded/racecheck_h100.json`)입니다. racecheck 는 네 경우 모두 경쟁을 보고했지만 (보고의 심각도는 워프 1개의 두 경우가 Warning 뿐이고, 워프 2개의 두 경우에는 Error 가 있습니다: 표의 '심각도' 열), 검사 없이 {{race_runs}}번씩 실행한 결과는 이렇습니다: 워프 1개에서는 {{w1_wrong}}. 워프 2개에서는 wait 뒤 배리어가 없는 경우가 {{w2_wait}}, 뒤 배리어가 없는 경우는 {{w2_trail}}. 맞는 답은 경쟁이 없다는 증거가 아닙니다.
""")
code(r"""
display(Markdown(L.markdown(L.race_gpu(), ["경우", "워프", "racecheck 보고", "심각도", "검사 없이 틀린 실행"])))
""")
md(r"""
## 5. 더 큰 확장: 여러 워프, 여러 타일, 다단 cp.async

`large` 는 mma 한 번마다 A 프래그먼트 하나(레지스터 4개: `ldmatrix.x4` 한 번)와 B 프래그먼트 하나(레지스터 2개: `ldmatrix.x2.trans` 한 번)를 새로 읽고, 그 프래그먼트를 mma 한 번에만 씁니다 (4.3절의 SASS: K 스텝마다 LDSM 두 개에 HMMA 하나): 읽은 데이터의 재사용이 없습니다. 07·08 에서 한 것처럼 **한 스레드(여기서는 한 워프)가 더 큰 출력 타일**을 맡으면 재사용이 생깁니다.

**워프 하나에서 워프 여럿으로.** 한 걸음씩 키워 봅니다. 먼저 블록 타일 32×16 을 워프 2개가 위아래로 나누면, 워프마다 16×16 = mma 타일(16×8) 2개를 맡습니다: A 프래그먼트 하나를 읽어 mma 두 번에 씁니다. 같은 생각을 128×128 블록 타일로 넓히면, 워프 8개를 2행 × 4열로 놓고 워프마다 64×32 = mma 타일 4×4개를 맡깁니다. 그림에서 색이 워프, 점선 칸이 mma 타일 하나입니다.
""")
code(r"""
fig = L.warp_tiling_plot()
""")
md(r"""
`build_tiled` 의 코드에서는 블록 안의 스레드 번호 `tid` (= `threadIdx.x`) 로 정한 워프 번호 `warp = tid // 32` 가 워프 타일의 시작 `(wm, wn)` 을 정하고, `compute` 가 K 스텝(16)마다 A 프래그먼트 MI개와 B 프래그먼트 NI개를 `ldmatrix` 로 읽은 뒤 mma 를 MI × NI번 합니다 (`MI, NI` = 워프 타일 안의 mma 타일 수).
""")
code(r"""
print(L.tiling_source())
""")
md(r"""
`kernels_numba/tc.py` 의 `build_tiled` 로 만든 커널들:

* `mma_warps`: 블록 타일 128×128, 워프 8개(2×4), 워프마다 64×32 = 16×8 mma 타일 4×4개. K 스텝(16)마다 A 프래그먼트 4개(레지스터 4개씩: `ldmatrix.x4` 4번)와 B 프래그먼트 4개(레지스터 2개씩, 모두 8개: `ldmatrix.x4.trans` 2번)로 mma 16번: A 하나를 4번, B 하나를 4번 씁니다. 단일 버퍼.
* `mma_pipe`: 같은 타일에 2단 cp.async 파이프라인 (BK=32). 프롤로그(prologue)에서 타일 0 을 발행하고, 반복마다 `wait_group(단 수 - 2)`, 배리어, 다음 타일 발행, 계산 순서입니다.
* `mma_pipe4`: BK=16, 4단 (타일 3개를 미리 발행). 공유 메모리 4·(128·24 + 16·136)·2 = 41 984 B 로 정적 한도 48 KiB 안입니다 (BK=32 로 3단이면 56 832 B 라 동적 공유 메모리가 필요).
* `mma_pipe_f16out` (f32 누적, f16 출력), `mma_pipe_f16acc` (f16 누적 + f16 출력: 누산기가 `.f16x2` 레지스터 2개).
* `mma_pipe4_lb2`: `launch_bounds(256, 2)` 로 레지스터를 128개로 묶어 SM 에 블록 2개를 올립니다.
* `mma_swizzle`: 같은 타일·같은 `launch_bounds(256, 2)` 에 BK=32, 2단, 그리고 패딩 대신 **스위즐(swizzle)** 배치 (아래 5.2절).

행 끝에 8원소(16 B) 패딩을 둬서 `ldmatrix` 한 번의 여덟 행 주소가 서로 다른 뱅크에 떨어지고, 행 시작은 16 B 정렬을 유지합니다. 가장자리 블록의 범위 밖 16바이트 조각은 cp.async 대신 0 을 씁니다.

아래 셀은 세 커널을 가장자리가 잘린 블록(48×40×48)과 alpha/beta, 단위행렬로 검사합니다. GPU 에서는 커널마다 처음 실행할 때 Numba 가 컴파일하므로(대부분 Numba 의 파이썬 쪽 작업: 펼치기, 인라인, 타입 추론) 시간이 걸리고, 그동안 진행 막대가 나옵니다. 7.5 GPU 에서는 세 커널을 시뮬레이터 프로세스 하나에서 함께 검사합니다.
""")
code(r"""
cases = [(name, (48, 40, 48)) for name in ("mma_warps", "mma_pipe", "mma_pipe_f16acc")]
for name, r in L.check_kernels(cases, alpha=1.5, beta=-0.5).items():
    print(name, r)
    assert r["ok"] and r["identity"]
print("PASS: 확장 커널 3개 (가장자리 블록, alpha/beta, 단위행렬)")
# 예상 출력: mma_warps {'ok': True, ...} ... PASS: 확장 커널 3개 (가장자리 블록, alpha/beta, 단위행렬)
""")
md(r"""
### 5.1 H200 에서 잰 결과 (기록)

한 번의 실행({{gpu}}, {{date}})에서 cuBLAS 와 나란히 쟀습니다 (`benchmarks/record_level6.py`). 비교 대상 `cuBLAS` 는 `cublasGemmEx` 의 f16 × f16 → f32, `CUBLAS_COMPUTE_32F` 입니다: 입력 f16, 누적·출력 f32 로 우리 f32 출력 커널과 같은 계산입니다. `cuBLAS_f16out` 행은 같은 실행에서 출력만 f16 인 cuBLAS(`cupy.matmul` f16 → f16, 누적은 f32)로, f16 으로 출력하는 `mma_pipe_f16out`·`mma_pipe_f16acc` 의 비교 대상입니다 ('같은 출력 cuBLAS 대비' 열). 비율은 모두 같은 실행의 cuBLAS 대비입니다.
""")
code(r"""
display(Markdown(L.markdown(L.bench_rows(n=4096), ["커널", "n", "출력", "TFLOP/s", "cuBLAS 대비", "같은 출력 cuBLAS 대비"])))
""")
md(r"""
{{gpu}} 에 로드된 커널의 자원(레지스터, 공유·로컬 메모리, SM당 블록 수는 CUDA 점유율 API)과 SASS 의 텐서 코어 명령 수입니다. {{gpu}} 에서 `launch_bounds` 가 없는 확장 커널들({{expanded_names}})은 스레드당 레지스터가 {{regs_min}}개 이상이라 SM당 한 블록(8워프, 점유율 12.5 %)만 올라갑니다. GPU 가 있으면 아래에 지금 이 GPU 의 값도 나옵니다: 앞 셀에서 이미 올린 커널은 그 커널의 값, 나머지는 이 GPU 의 compute capability 용 오프라인 컴파일 표(`kernels_numba/infra/targets.json`)의 값입니다 (새로 컴파일하지 않음). `launch_bounds` 로 128개에 묶으면 두 블록이 올라가 4096³ 에서 빨라지지만, 일부 값이 로컬 메모리로 스필(spill)됩니다. SASS 를 읽어 보면 스필의 대부분은 K 루프가 아니라 루프가 끝난 뒤의 에필로그(epilogue), 누산기 64개를 32번에 나눠 C 에 저장하는 곳에 있습니다: `mma_pipe4_lb2` 의 K 루프에는 로컬 메모리 접근이 없고 `mma_swizzle` 은 몇 개뿐입니다 (`tests/test_tc_kernels.py` 가 sm_90 SASS 로 확인).
""")
code(r"""
display(Markdown(L.markdown(L.resource_rows(), ["커널", "레지스터", "공유 B", "로컬 B", "블록/SM", "HMMA", "LDSM"])))
here = L.here_table([r["커널"] for r in L.resource_rows()])     # GPU 가 없으면 빈 목록
if here:
    print(L.here_label())
    display(Markdown(L.markdown(here, ["커널", "레지스터", "공유 B", "블록/SM", "점유율", "출처"])))
""")
md(r"""
다른 블록·워프·단 구성도 같은 커널 본문으로 시험했습니다 (4096³). 표에는 **두 실행**이 있습니다: 기록 전의 탐색 실행과 기록 실행의 탐색 부분이고, 실행마다 cuBLAS 를 따로 쟀습니다 (cuBLAS {{cub_explore}} 대 {{cub_record}} TFLOP/s). 그래서 같은 구성(128×128×32, 워프 2×4, 2단, `launch_bounds(256, 2)`, 패딩)이 {{pad_explore_pct}} % 와 {{pad_pct}} % 로 두 번 나옵니다: % 는 같은 실행 안에서만 비교하세요. '워프' 열은 워프 배치(M 방향 × N 방향), '단' 은 NUM_STAGES, '배치' 는 공유 메모리의 행을 패딩했는지 스위즐했는지입니다.
""")
code(r"""
cols = ["실행", "cuBLAS TFLOP/s", "BM×BN×BK", "워프 (M×N)", "단", "launch_bounds", "배치", "레지스터", "로컬 B", "TFLOP/s", "cuBLAS 대비"]
display(Markdown(L.markdown(L.explore_rows(), cols)))
""")
md(r"""
이 표로 말할 수 있는 것과 없는 것: 워프당 64×64 인 행들(128×256 의 2×4, 256×128 의 4×2, 128×128 의 2×2)은 레지스터가 255개에서 넘쳐 로컬 메모리를 많이 쓰고('로컬 B' 열) 느렸습니다. 그러나 같은 64×64 워프 타일의 `mma_fast` 는 스필이 없으므로(5.3절), 이 스필은 워프 타일 크기 자체가 아니라 `build_tiled` 의 코드, 5.3절에서 보는 에필로그 탓으로 읽어야 합니다 (해석). 또 같은 실행 안에서 단(stage) 수**만** 다른 두 행은 없습니다: 단이 바뀐 행은 BK 나 배치도 함께 바뀌었습니다. 그래서 이 표로는 단 수의 효과를 따로 말할 수 없고, 2단과 3단만 다른 변형은 5.4절의 절제 실험(ablation)에 있습니다. 기록 실행의 탐색 부분에서 가장 빠른 구성은 {{best_cfg}} 였습니다 ({{best_pct}} %). 등록 커널 `mma_swizzle` (128×128×32, 워프 2×4, 2단, 스위즐)은 같은 실행의 위 벤치 표에서 {{swz_pct}} % 입니다. 그 구성은 이 실행에서 한 번만 재었으므로 이 차이가 워프 배치 때문인지 흔들림인지 이 기록으로는 가릴 수 없고, 그래서 등록 커널의 배치는 바꾸지 않았습니다. 5.3절부터의 `mma_fast` 는 워프 4개를 2×2 로 놓습니다.
""")
md(r"""
### 5.2 패딩 대신 스위즐(swizzle)

뱅크 모델은 `ldmatrix` 의 한 페이즈(phase)가 레인 8개가 준 **여덟 행**의 16바이트씩을 읽는다고 **가정**합니다 (NVIDIA 가 문서화하지 않은 규칙이라 모델의 가정이고, 5.4절에서 스위즐을 뺀 `no_swizzle` 이 느려진 측정과 맞습니다). 행을 패딩 없이 두면 B 타일의 한 행은 128 원소 = 256바이트라, 여덟 행의 같은 열이 모두 같은 뱅크 묶음에 떨어져 8-way 충돌이 납니다. A 타일의 한 행은 BK = 32 원소 = 64바이트라 여덟 행이 뱅크 묶음 둘에 나뉘어 4-way 입니다. 패딩(행마다 +16 B)은 행 시작을 한 칸씩 밀어 충돌을 없애지만 공유 메모리를 더 씁니다. 스위즐은 크기를 그대로 두고, 한 행 안의 16바이트 조각 순서를 행 번호의 비트로 XOR 해서 바꿉니다: `조각' = 조각 ^ ((행 >> shift) & mask)`. 쓰는 쪽(cp.async)과 읽는 쪽(ldmatrix)이 같은 식을 쓰면 값은 그대로이고, 여덟 행은 서로 다른 뱅크 묶음에 떨어집니다. 아래 셀은 `sim/banks.py` 모델로 두 배치를 비교합니다.
""")
code(r"""
print("B 타일:", L.swizzle_demo(tile="B"))
print("A 타일:", L.swizzle_demo(tile="A"))
# 예상 출력: B 타일: {'패딩 없음': (8, 8), '패딩 +16 B': (1, 1), '스위즐': (1, 1)} / A 타일: {'패딩 없음': (4, 4), ...}  (웨이브프론트, 충돌 정도)
""")
md(r"""
XOR 는 행마다 조각의 순열이라 조각이 행 밖으로 나가거나 겹치지 않습니다 (`tests/test_tc_kernels.py` 가 확인). 또 8행마다 되풀이되므로 한 레인의 `ldmatrix` 열은 mma 타일 번호와 무관하고, 타일마다 주소가 상수만큼만 다릅니다. 속도는 어떨까요? 5.1절 표의 `mma_swizzle` 은 {{swz_tf}} TFLOP/s, 탐색 표의 기록 실행에서 같은 구성을 패딩으로 둔 행은 {{pad_tf}} TFLOP/s 로 TFLOP/s 는 다릅니다. 그러나 둘은 cuBLAS 를 따로 잰 측정이고(5.1절 표 {{cub_bench}}, 탐색 {{cub_record}} TFLOP/s), 각자의 cuBLAS 대비로는 {{swz_pct}} % 와 {{pad_pct}} % 로 같은 수준입니다. TFLOP/s 의 차이가 cuBLAS 자신의 흔들림과 비슷한 크기라, 이 기록으로는 스위즐과 패딩의 속도 차이를 말할 수 없습니다. 두 배치 모두 모델에서 충돌이 없다는 것과 맞습니다. 기록된 실행에서 가장 빠른 커널과 cuBLAS 대비 비율은 아래 셀이 기록 파일에서 읽습니다.
""")
code(r"""
best = L.best_kernel(4096)
print(best)
r = L.check_kernel(best["kernel"], 144, 136, 80)      # 블록 2×2 (가장자리 잘림), K 타일 3개 (마지막은 절반)
assert r["ok"] and r["identity"]
print("PASS: 기록된 최고 커널", best["kernel"], "— 이 장치(GPU 또는 시뮬레이터)에서도 맞음 (가장자리 블록)")
# 예상 출력: {'kernel': 'mma_swizzle', 'n': 4096, 'tflops': ..., 'ratio': 0.3..., ...} / PASS: 기록된 최고 커널 mma_swizzle — 이 장치…
""")
md(r"""
### 5.3 `mma_swizzle` → `mma_fast`: 스필부터 없앤다

여기부터는 {{h100_gpu}} 에서 기록한 값입니다 ({{h100_date}}, `course/recorded/gpu_h100_level6_fast.json`; 비교 대상은 5.1절과 같은 `cublasGemmEx` f16 × f16 → f32). 최종 커널을 잰 실행은 **run 5** 와 **run 6** 두 번이고, 실행마다 cuBLAS 를 같은 실행 안에서 따로 쟀습니다 (run 5: {{r5_cub2048}} / {{r5_cub4096}} TFLOP/s, run 6: {{r6_cub2048}} / {{r6_cub4096}} TFLOP/s @2048³ / 4096³). 같은 실행에서 `mma_swizzle` 은 4096³ 에 cuBLAS 의 {{r5_swz_pct}} % (run 5) 와 {{r6_swz_pct}} % (run 6) 였습니다. 목표는 **4096³ 에서 {{goal4096}} %, 2048³ 에서 {{goal2048}} %** 였습니다.

새 커널 `kernels_numba/mma_fast.py` 는 위에서 아래로 읽는 한 모듈이고, 모든 선택이 `make_kernel` 의 스위치라 하나씩 따로 잴 수 있습니다. 출발점은 5.1절 자원 표에서 본 스필입니다: `mma_swizzle` 은 `launch_bounds(256, 2)` 때문에 레지스터가 128개로 묶이고, 이 H100 에 로드된 커널은 스레드당 로컬 메모리(local memory) {{swz_local}} B 를 썼습니다. 레지스터에 다 들어가지 못한 값을 로컬 메모리(실제로는 L1/L2 를 거치는 글로벌 메모리)로 내보내는 것이 **스필(spill)** 입니다.

어디서 스필하는지는 GPU 없이 알 수 있습니다. 아래 셀은 두 커널을 sm_90 용으로 오프라인 컴파일해(NVVM → PTX → nvJitLink → SASS) 레지스터, 스택 바이트, SASS 의 로컬 메모리 명령(`LDL`/`STL`)과 그중 마지막 `HMMA` 뒤, 곧 K 루프가 끝난 뒤의 에필로그(epilogue)에 있는 수를 셉니다. 이 컴파일은 첫 셀의 `L.prefetch()` 가 백그라운드에서 시작해 두었습니다: 아직 끝나지 않았으면 진행 막대가 나오고 기다립니다.
""")
code(r"""
cols = ["커널", "레지스터", "스택+로컬 B", "LDL/STL", "그중 마지막 HMMA 뒤", "PTX 의 .local", "에필로그 setp.eq.s64"]
display(Markdown(L.markdown(L.spill_rows((9, 0)), cols)))
""")
md(r"""
표가 말하는 것:

1. `mma_swizzle` 의 PTX 에는 `.local` 이 없습니다. NVVM(LLVM)은 프래그먼트와 누산기 배열을 모두 레지스터로 바꿨습니다. 스필은 레지스터를 128개 안에 맞추려는 `ptxas` 가 만든 것입니다.
2. 로컬 메모리 명령의 거의 전부가 마지막 `HMMA` 뒤, 곧 **에필로그**에 있습니다. K 루프가 아니라 결과를 C 에 쓰는 곳입니다.
3. 원인은 에필로그의 `for q in literal_unroll(EPI_T)` 입니다. 같은 타입 정수 32개의 튜플에 대한 이 루프는 펼쳐지지 **않고**, 반복마다 `setp.eq.s64 ..., q` 비교 32개로 '지금이 몇 번째 경우인가'를 고르는 실행 시간 루프가 됩니다 (표의 마지막 열). LLVM 은 32가지 경우의 일(alpha × 누산기 64개, C 주소 64개, 조건 64개)을 루프 앞으로 끌어내고, 그 값이 루프 내내 살아 있으니 `ptxas` 는 마지막 HMMA 직후 누산기 64개를 로컬 메모리에 저장(`STL`)했다가 경우마다 다시 읽습니다(`LDL.LU`).

`mma_fast` 의 에필로그는 누산기 배열 `rC` 를 **상수 인덱스로만** 읽습니다: mma 행 타일 `mi` 마다 `store_rows` 를 한 번씩 따로 부르고, 그 안의 작은 루프는 NVVM 이 펼칩니다. `for mi in range(MI)` 로 감싸면 펼쳐지지 않아 `rC` 가 실행 시간 인덱스로 읽히고, 그러면 `rC` 전체가 로컬 메모리로 갑니다 (`store_C` 의 docstring 에 적은 측정). GPU 에 로드된 커널의 기록도 같습니다: `mma_swizzle` 레지스터 {{swz_regs}}개·로컬 {{swz_local}} B·저장 명령 STL 과 STL.64 합쳐 {{swz_stl}}개, `mma_fast` 레지스터 {{fast_regs}}개·로컬 {{fast_local}} B (위 표는 이 컴퓨터의 컴파일러로 만든 값이라 수가 조금 다를 수 있습니다).

`mma_fast` 의 나머지 구성: 블록 타일 128×128×32 에 워프 4개({{fast_threads}} 스레드), 워프마다 64×64 = mma 타일 4×8개 (누산기 128개). K 스텝마다 A 프래그먼트 4개(레지스터 4개씩: `ldmatrix.x4` 4번)와 B 프래그먼트 8개(레지스터 2개씩, 모두 16개: `ldmatrix.x4.trans` 4번)를 읽고 mma 를 4 × 8 = 32번 합니다: `ldmatrix` 한 번에 mma 4번 (`mma_swizzle` 의 64×32 워프는 `ldmatrix` 6번에 mma 16번, 약 2.7번). 3단 cp.async 로 공유 메모리 {{fast_smem}} B (정적 한도 48 KiB). `launch_bounds(128, 2)` 는 이 커널에서 레지스터를 묶지 않습니다: SM 의 레지스터 {{sm_regs}}개를 (128 스레드 × 2블록) 으로 나누면 {{lb_cap}}개로, 스레드당 최대치 {{max_regs}}개보다 크기 때문입니다. SM 에 블록이 {{fast_blocks}}개 올라가는 것은 컴파일러가 실제로 쓴 레지스터({{fast_regs}}개, 128 스레드면 블록당 {{fast_block_regs}}개)가 SM 의 절반 안에 들어서입니다.

먼저 맞는지부터 봅니다. 시뮬레이터에서 가장자리가 잘린 블록 하나(48×24)와 K 타일 4개(마지막은 절반, 3단 링이 한 바퀴 돎)로, 3절과 같은 float64 기준값과 유도한 한계로 검사합니다 (몇 초).
""")
code(r"""
r = L.check_kernel("mma_fast", 48, 24, 112, alpha=1.5, beta=-0.5)
print(r)
assert r["ok"] and r["identity"]
print("PASS: mma_fast = float64 기준값 (한계 이내, 가장자리·alpha/beta·단위행렬)")
# 예상 출력: {'ok': True, 'worst': 0.00..., 'max_err': ..., 'identity': True} / PASS: mma_fast = float64 기준값 ...
""")
md(r"""
두 커널이 {{h100_gpu}} 에 올라갔을 때의 자원(기록)입니다. GPU 가 있으면 지금 이 GPU 에서의 값이 아래에 나옵니다 (앞의 두 검사 셀이 이미 올린 커널이라 새로 컴파일하지 않습니다; CC 8.0 미만에서는 두 커널이 돌지 않는다고 나옵니다). 블록 수가 다르면 5.4절의 `launch_bounds(128, 2)` 같은 설명은 {{h100_gpu}} 에 대한 것입니다.
""")
code(r"""
print(L.fast_recorded_line())
for line in L.here_lines(("mma_swizzle", "mma_fast")):     # GPU 가 있을 때만
    print(line)
""")
md(r"""
### 5.4 단계마다 얼마나: 절제 실험(ablation), run 5·6 과 run 8

`benchmarks/record_level6_fast.py` 는 `mma_fast.make_kernel` 의 스위치를 바꾼 변형들(`kernels_numba/mma_fast.py` 의 `VARIANTS`)을 cuBLAS 와 같은 실행에서 잽니다. 라운드 5번, 라운드마다 모든 변형(cuBLAS 포함)을 돌아가며 다른 순서로 한 번씩 재고, 라운드의 중앙값을 씁니다. 아래 표의 행마다 두 변형은 **스위치 하나만** 다릅니다 (마지막 행 `mma_swizzle` → `mma_fast` 전체만 예외; `tests/ch10/test_lesson10.py` 가 확인). 칸은 **한 실행 안의** (그 단계가 있는 변형 ÷ 없는 변형) TFLOP/s 비이고, 괄호는 두 변형의 TFLOP/s 입니다. 실행들을 나란히 두었을 뿐 서로 나누지 않습니다. '기록 없음' 칸은 그 실행이 재지 않은 변형이 필요한 행입니다. 열은 H100 기록에서 최종 커널의 절제 실험을 한 실행 가운데 CUDA 그래프로만 잰 `run7_graph` 를 뺀 전부입니다 (셀이 기록의 실행을 모두 훑어 고릅니다; `run7_graph` 에서 잰 lean(K 루프에 필요한 주소를 루프 앞에서 한 번만 계산하기) 배수는 5.4.1절). run 5·6 은 같은 날({{h100_date}}) 잰 두 실행이고, run 8 ({{r8_date}}) 은 다른 측정 엔진(`{{r8_engine}}`)으로 최종 커널과 파이프라인·lean·이중 버퍼의 변형만 잰 실행입니다: 시간 재기는 {{r8_timing}} 입니다. 그리고 기록이 이 실행을 **표시(flag)** 했습니다 ({{r8_flag_n}}³ 의 cuBLAS 가 같은 엔진으로 앞서 잰 실행들의 중앙값에서 {{r8_dev}} % 벗어남; 5.6절). 배수는 한 실행 안의 두 커널의 비라 cuBLAS 를 나누지 않지만, run 8 은 한 번의 실행입니다. 셀이 먼저 각 실행의 GPU, 날짜, cuBLAS, 시간 재기와 표시를 기록에서 읽어 찍습니다.
""")
code(r"""
for run in L.ABLATION_RUNS:                   # 최종 커널의 절제 실험을 한 H100 실행 (CUDA 그래프 실행 제외) (⚑: 기록이 표시한 실행)
    print(L.ablation_label(run))
cols = ["단계", "없는 변형 → 있는 변형"] + [f"{run} {n}³" for run in L.ABLATION_RUNS for n in (2048, 4096)]
display(Markdown(L.markdown(L.final_steps(L.ABLATION_RUNS), cols)))
print("4096³ 에서 가장 큰 단계:", {run: L.largest_step(4096, run) for run in L.FINAL_RUNS})
print("run 6 의 최종 커널, 라운드 5번의 4096³ TFLOP/s 범위:", L.round_spread("fast", 4096, "run6"))
""")
md(r"""
읽는 법 (4096³ 부터; 2048³ 는 커널이 짧아 라운드 사이의 흔들림이 크므로 따로 봅니다: 5.4.1절, 5.6절):

* **스위즐이 가장 큰 단계입니다**: 최종 커널은 행을 패딩도 스위즐도 없이 둔 변형(`no_swizzle`)보다 run 5 에서 ×{{swz_gain_r5_4096}}, run 6 에서 ×{{swz_gain_r6_4096}} 빠릅니다. 5.2절의 모델에서 패딩 없는 배치는 `ldmatrix` 한 페이즈가 B 에서 8-way, A 에서 4-way 뱅크 충돌입니다. 5.2절에서 스위즐과 패딩이 같은 수준이었던 것과 모순되지 않습니다: 그때의 비교 상대는 패딩(충돌 없음), 여기는 아무것도 안 한 배치입니다. 스위즐은 이미 `mma_swizzle` 에 있었으므로, 이 배수는 `mma_swizzle` → `mma_fast` 에서 얻은 것이 아닙니다.
* 그다음은 **3단** (2단 대신) ×{{st_gain_r5_4096}} / ×{{st_gain_r6_4096|과/와}} **프래그먼트 이중 버퍼** ×{{pre_gain_r5_4096}} / ×{{pre_gain_r6_4096}} 입니다 (run 5 / run 6). 파이프라인은 이중 버퍼를 전제로 하므로 `no_prefetch` 는 파이프라인 없이만 만들 수 있고, 그래서 이중 버퍼의 행은 파이프라인도 lean 도 없는 두 변형(`no_prefetch` → `barrier_at_tile_start`)의 비입니다.
* **배리어 파이프라인**과 **주소를 한 번만 계산하기(lean)** 는 서로 다른 두 스위치이고, 표는 각각을 다른 스위치가 꺼진 상태와 켜진 상태에서 따로 둡니다 (네 행). run 5·6 은 둘 다 없는 `barrier_at_tile_start`, 파이프라인만 있는 `no_lean`, 둘 다 있는 `fast` 를 쟀고 lean 만 있는 `no_pipeline` 은 재지 않았으므로, 그 두 실행에서는 네 행 중 두 행만 값이 있습니다: 파이프라인(lean 없이) ×{{pipe_gain_r5_4096}} / ×{{pipe_gain_r6_4096}} (같은 `no_lean` 은 run 3·4 에서 `fast` 라는 이름으로 `barrier_at_tile_start` 보다 느리게 나왔지만, 그 실행들은 목록 순서가 고정이라 이 커널이 늘 cuBLAS 바로 뒤에 재졌고, 기록의 측정 방법 설명이 그 자리의 항목은 느리게 나왔다고 적습니다: 그래서 파이프라인 비교에는 순서를 돌려 가며 잰 run 5·6 만 씁니다), lean(파이프라인과 함께) ×{{lean_gain_r5_4096}} / ×{{lean_gain_r6_4096}}. 둘을 함께 되돌린 `barrier_at_tile_start` → `fast` 는 ×{{both_gain_r5_4096}} / ×{{both_gain_r6_4096|으로/로}} 이 두 배수의 곱이고, 파이프라인 하나의 몫이 아닙니다. 나머지 두 행은 `no_pipeline` 을 넣은 run 8 에만 있고, 한 번의 실행입니다: **lean 과 함께인 파이프라인**은 4096³ 에서 ×{{r8_pipe_lean_4096}}, 2048³ (CUDA 그래프) 에서 ×{{r8_pipe_lean_2048|으로/로}} 4096³ 에서는 이득이 보이지 않았습니다 (그 실행에서 최종 커널 자신의 4096³ 라운드가 {{r8_sp_lo}}–{{r8_sp_hi}} TFLOP/s 로 흔들렸으므로, 느려졌다고도 말할 수 없습니다). lean(파이프라인 없이)은 ×{{r8_lean_nopipe_4096}} / ×{{r8_lean_nopipe_2048}} (4096³ / 2048³) 입니다. 같은 run 8 에서 파이프라인(lean 없이)은 4096³ ×{{r8_pipe_4096}}, lean(파이프라인과 함께)은 ×{{r8_lean_4096|이었/였}}습니다. 그래서 run 5·6 의 배리어 파이프라인 이득은 lean 이 없는 커널에서 잰 것이고, lean 이 있는 최종 커널에서는 run 8 한 번의 측정뿐이며 그 4096³ 에서 이득이 보이지 않았습니다. 배리어 파이프라인은 다음 타일의 wait 와 배리어를 타일의 마지막 mma 앞에 두고, 그 사이에 다음 타일의 첫 프래그먼트를 읽습니다. 의도는 워프가 배리어에서 기다리는 동안에도 텐서 파이프에 앞선 mma 가 남아 있게 하는 것입니다 (설계 의도; 파이프의 상태를 따로 재지는 않았습니다). lean 으로 무엇이 바뀌었는지는 5.4.1절에서 SASS 로 봅니다.
* 이름에 대해: `barrier_at_tile_start` 는 기록 당시의 이름 그대로이고, 파이프라인도 lean 도 없는 커널입니다. 그때의 `make_kernel` 은 파이프라인이 없으면 lean 스위치를 무시했습니다. 지금은 두 스위치가 따로이고, `VARIANTS` 는 그 커널을 `pipelined=False, lean=False` 로 적습니다 (오프라인 sm_90 SASS 가 바이트까지 같음).
* **`launch_bounds(128, 2)`** 는 run 5 에서 ×{{lb_gain_r5_4096}}, run 6 에서 ×{{lb_gain_r6_4096|으로/로}} 두 실행의 방향이 다릅니다. 이 스위치는 레지스터 상한을 만들지 않으므로 (5.3절: {{lb_cap}} ≥ {{max_regs}}) 두 변형은 SM당 블록 수가 같고, 다른 것은 컴파일러의 선택뿐입니다 (GPU 에 로드된 레지스터 {{fast_regs}} 대 {{nolb_regs}}개). run 5 와 run 6 에서 방향이 같은 파이프라인·lean 과 달리, 이 스위치의 효과는 이 측정으로 말할 수 없습니다 (같은 실행 안에서 최종 커널 자신도 라운드마다 {{spread_lo}}–{{spread_hi}} TFLOP/s 로 흔들립니다: 위 셀의 마지막 줄). 블록 래스터화(rasterization; 블록을 8행씩 묶어 도는 순서, `raster_g8`)도 두 실행 모두 ×1 근처라 효과가 보이지 않았고, 그래서 최종 커널은 행 우선 순서(`GROUP_M = 0`)입니다.
* 마지막 행이 `mma_swizzle` → `mma_fast` 전체: ×{{all_gain_r5_4096}} / ×{{all_gain_r6_4096}} 입니다.

run 5/6 에 없는 단계도 있습니다. **스필 없는 본문**(같은 64×32 워프 타일)과 **워프 타일 64×32 → 64×64** 는 그보다 앞선 **run 4** (같은 H100·같은 날, lean 이전의 커널, cuBLAS {{r4_cub2048}} / {{r4_cub4096}} TFLOP/s)에서만 쟀습니다: 4096³ 에서 ×{{spill_gain_4096}} 와 ×{{warp_gain_4096}} (2048³ ×{{spill_gain_2048}}, ×{{warp_gain_2048}}). 이 `warp64x32_lb2` 는 `mma_fast` 의 본문이라 3단·이중 버퍼·`uint32` 인덱스도 함께 다릅니다: 스필만의 효과로 읽지 마세요. 다음 타일의 복사를 어디서 낼지도 run 4 에서 파이프라인이 없는 변형으로만 쟀고(첫 mma 뒤로 옮긴 쪽이 ×{{late_gain_4096}}), 최종 커널에서 복사가 타일의 mma 뒤에 있는 것은 재서 고른 것이 아닙니다: 파이프라인에서 그 단(stage)은 다음 배리어를 지나야 비고, 그 위치를 옮긴 변형은 없습니다.
""")
md(r"""
### 5.4.1 주소를 루프 앞에서 한 번만 (lean)

run 4 까지의 커널은 타일마다 cp.async 의 원본 주소를 `(k0 + r) * N + c` 처럼 (행, 열)에서 새로 계산했습니다. `mma_fast` 의 `lean` 경로는 스레드마다 타일 0 의 원본 오프셋과 공유 메모리 오프셋, 레인마다 `ldmatrix` 오프셋을 **K 루프 앞에서 한 번** 계산하고, 루프에서는 `kt * BK` (A), `kt * BK * N` (B), 단(stage) 오프셋과 상수만 더합니다 (상수는 `ptxas` 가 명령 안에 넣습니다: 셀의 마지막 줄이 그런 `LDSM` 하나를 찍습니다). 아래 셀은 두 변형의 K 루프를 sm_90 용으로 오프라인 컴파일해 SASS 명령을 셉니다 (`no_lean` 의 컴파일도 첫 셀에서 백그라운드로 시작했습니다).
""")
code(r"""
cols = ["변형", "레지스터", "K 루프 SASS 명령", "HMMA", "LDGSTS", "LDSM", "그 밖 (주소 계산·분기 등)"]
rows = L.lean_rows((9, 0))
display(Markdown(L.markdown(rows, cols)))
print("fast (lean) 의 K 루프에서 상수 오프셋이 명령 안에 든 LDSM 하나:", rows[0]["ldsm_imm"])
""")
md(r"""
HMMA·LDGSTS·LDSM 의 수는 같고, 줄어든 것은 '그 밖', 곧 주소 계산입니다. 기록을 만들 때의 오프라인 컴파일도 K 루프 {{lean_loop_rec}} → {{lean_loop_rec2}} 명령이었습니다 (`benchmarks/offline_fast.py`). 같은 일을 하는 명령 수가 줄자, 파이프라인이 있는 커널에서 4096³ 에 run 5 는 ×{{lean_gain_r5_4096}}, run 6 은 ×{{lean_gain_r6_4096}} 빨라졌고, 실행 비용(launch overhead: 커널 하나를 띄우는 호스트 쪽 시간, 노트북 07 의 심화와 5.6절)을 뺀 CUDA 그래프 측정(5.6절의 `run7_graph`)에서도 ×{{g_lean4096}}, {{h200_gpu}} 에서는 ×{{h2_lean4096|이었/였}}습니다. 2048³ 의 일반 측정에서는 run 5 가 ×{{lean_gain_r5_2048}}, run 6 이 ×{{lean_gain_r6_2048|으로/로}} 방향이 엇갈립니다: 그 크기에서는 라운드 사이의 흔들림이 이 차이보다 큽니다 (`mma_fast` 의 라운드별 값이 run 5 에서 {{sp5_2048_lo}}–{{sp5_2048_hi}}, run 6 에서 {{sp6_2048_lo}}–{{sp6_2048_hi}} TFLOP/s; 재는 방법에 따른 차이는 5.6절).

모든 인덱스를 `uint32` 로 두는 이유도 여기 있습니다. 부호 있는 `int64` 인덱스면 Numba 가 배열 접근마다 음수 인덱스 처리(PTX 의 `setp.lt.s64` / `selp.b64`)를 넣고, 부호 없는 값과 섞으면 타입이 바뀝니다. 아래 셀은 Numba 의 타입 규칙이 섞인 피연산자에 주는 결과 타입입니다.
""")
code(r"""
display(Markdown(L.markdown(L.promotion_rows(), ["피연산자", "a + b", "a < b", "min(a, b)"])))
""")
md(r"""
`uint64` 와 `int64` 를 비교하거나 `min` 에 넣으면 둘 다 `float64` 로 바뀌고(GPU 에서는 정수 ↔ 실수 변환과 배정밀도 연산), 더하면 부호 있는 `int64` 가 됩니다. `uint32` 끼리 더하면 `uint64` 가 되므로, `range()` 의 카운터나 합이 다시 `int64` 와 만나지 않게 `mma_fast` 는 상수까지 `u(16)` 처럼 `uint32` 로 씁니다.
""")
md(r"""
### 5.5 ncu 가 본 것: 텐서 파이프와 스톨 (run 6)

run 6 과 같은 날 Nsight Compute(ncu)로 4096³ 를 커널마다 한 번씩 단독 실행해 프로파일했습니다 (최종 커널, `course/ch10_tensor_core/records/ncu_fast_h100_run6.csv.gz`). **텐서 파이프(tensor pipe) 활성률**은 SM 의 텐서 코어가 일한 시간의 비율, **스톨(stall)** 열은 워프가 명령 하나를 내는 데 평균 몇 사이클을 그 이유로 기다렸는지(issue-stall reasons)입니다. ncu 는 클록을 고정하지 않고(`--clock-control none`) 쟀으므로 SM 클록 열이 커널마다 다릅니다.
""")
code(r"""
cols = ["커널", "텐서 파이프 %", "점유율 %", "L2 적중 %", "시간 µs", "SM 클록 GHz"] + [f"스톨 {s}" for s in L.NCU_STALLS]
display(Markdown(L.markdown(L.ncu_rows("run6"), cols)))
""")
md(r"""
* 텐서 파이프는 `mma_swizzle` {{tp_swz}} % → `mma_fast` {{tp_fast}} % 입니다 (run 4 의 lean 이전 커널은 {{tp_fast4}} %). cuBLAS 는 {{tp_cub}} % 입니다.
* 줄어든 스톨: `short_scoreboard` (공유 메모리 같은 MIO 명령의 결과를 기다림; 해석: K 루프에서 결과를 레지스터로 받는 공유 메모리 명령은 `ldmatrix` 가 대부분이라(cp.async 는 결과를 레지스터로 받지 않음) 주로 그 결과) {{ssb_swz}} → {{ssb_fast}}, 배리어 {{bar_swz}} → {{bar_fast}}, `wait` (고정 지연) {{wait_swz}} → {{wait_fast}} 사이클. L1TEX(글로벌·로컬 메모리)의 결과를 기다리는 `long_scoreboard` 는 {{lsb_swz}} → {{lsb_fast}} 로 줄지 않았습니다. 해석: 프래그먼트 이중 버퍼가 `ldmatrix` 결과를 한 K 스텝 먼저 받아 두고 배리어 파이프라인이 배리어 대기를 mma 뒤로 가렸습니다; 에필로그의 스필 재로드는 이 평균에서 큰 몫이 아니었습니다. 남은 큰 항목 중 `math_pipe_throttle` ({{mpt_fast}}) 은 실행 파이프가 바빠서 기다린 것입니다 (어느 파이프인지는 재지 않았습니다; 텐서 파이프라는 것은 해석).
* 점유율은 오히려 낮습니다 ({{occ_swz}} % → {{occ_fast}} %: SM 에 워프 {{swz_warps}}개 → {{fast_warps}}개). 해석: 워프 수 대신 워프마다 서로 독립인 mma 가 많아져(누산기 128개) 지연이 가려졌습니다.
""")
md(r"""
### 5.6 목표, 재는 방법, 그리고 cuBLAS 와 남은 차이

**목표와 그 단서.** 4096³ 에서 `mma_fast` 는 run 5 에서 cuBLAS 의 {{best5_4096}} %, run 6 에서 {{best6_4096}} % ({{best6_tf}} TFLOP/s) 로 {{goal4096}} % 를 넘었고, 2048³ 에서는 {{best5_2048}} % 와 {{best6_2048}} % 로 {{goal2048}} % 를 넘었습니다. 그러나 {{r8_date}} 의 run 8 에서는 4096³ 이 {{best8_4096}} % 로 목표 아래였습니다 (2048³ 은 CUDA 그래프로 {{best8_2048}} %). 이 비율은 **기준(같은 실행의 cuBLAS)**, **재는 방법**, 그리고 재는 날에 따라 달라집니다. 아래 첫 표는 두 기록 파일(H100 `gpu_h100_level6_fast.json`, H200 `gpu_h200_level6_fast.json`)에서 최종 커널을 잰 모든 실행입니다: 셀이 기록의 실행을 모두 훑어, 설정이 최종 커널과 같은 실행과 그 커널을 CUDA 그래프로 잰 실행을 고릅니다. 기록이 표시(⚑)한 실행도 빼지 않고 '표시' 열에 그 이유와 함께 둡니다. 행마다 그 실행에서 잰 cuBLAS 가 있고, % 는 그 행의 cuBLAS 대비입니다. {{h200_gpu}} 의 두 행은 다른 GPU({{h200_date}})에서 한 번씩 잰 두 실행(일반, CUDA 그래프)이고, 목표는 H100 에 대해 세운 것입니다.
""")
code(r"""
rows = L.final_results_rows()           # 두 기록에서 최종 커널을 잰 실행 전부 (⚑ 표시된 실행 포함)
display(Markdown(L.markdown(rows, list(rows[0]))))
""")
md(r"""
**기준이 움직였습니다.** 아래 표는 같은 H100 기록에서 4096³ 의 cuBLAS 를 잰 모든 곳입니다: 기록의 실행 전부(셀이 기록을 처음부터 훑습니다)와, run 6 과 같은 날 ncu 로 한 번씩 단독 실행한 값. 옆 열의 `{{steady}}` 는 run {{steady_names}} 에서 바뀌지 않은 커널이라(같은 스위치, 레지스터도 같음), 그 % 가 움직인 만큼은 기준이 움직인 것입니다.
""")
code(r"""
rows = L.baseline_rows(4096)      # 같은 H100 기록의 cuBLAS 4096³ 전부(모든 실행), 같은 실행의 두 커널과 함께
display(Markdown(L.markdown(rows, list(rows[0]))))
""")
md(r"""
* run 5·6 의 측정 방법(잴 때마다 그 커널만 {{burst_ms}} ms 먼저 돌려 클록이 자리 잡게 한 뒤 잼)으로 잰 cuBLAS 는 같은 종류의 H100 에서 잰 run {{early_runs}} ({{early_cub_lo}}–{{early_cub_hi}} TFLOP/s) 보다 {{drop_lo}}–{{drop_hi}} % 낮았고, ncu 의 단독 실행 한 번보다도 낮았습니다. 기록의 클록 로그로는 run 5·6 의 4096³ 에서 모든 커널이 전력 한도({{power_w}} W)에 걸려 클록이 내려갔습니다. 해석: 연달아 오래 돌 때의 cuBLAS 는 전력에 묶이고, 측정 방법이 그것을 얼마나 잡느냐에 따라 기준이 달라집니다.
* run {{r12_runs|은/는}} 그보다 앞서 다른 방법(cuBLAS 다음에 변형마다 목록 순서로 한 번씩)으로 잰 실행으로, cuBLAS 가 {{r12_cub}} TFLOP/s 였고 그 `mma_fast` 는 lean 이전의 커널입니다.
* 그동안 `{{steady}}` 의 TFLOP/s 는 거의 그대로인데 cuBLAS 대비로는 {{steady_early}} % (run {{steady_early_runs}}) 에서 {{steady_final}} % (run 5·6) 가 되었습니다. 기준이 낮아진 것만으로 몇 %p 가 생긴 것이고, run 5·6 의 {{best5_4096}}·{{best6_4096}} % 에도 같은 몫이 들어 있습니다.
* 반대 방향도 있습니다. {{r8_date}} 에 다른 측정 엔진(`{{r8_engine}}`)으로 잰 run 8 은 4096³ 의 cuBLAS 를 {{r8_cub}} TFLOP/s 로 쟀습니다. 같은 실행의 `{{steady}}` 는 {{r8_steady_tf}} TFLOP/s 로 거의 같은데 cuBLAS 대비 {{r8_steady}} %, `mma_fast` 는 {{best8_4096}} % 로 목표 아래입니다. 기록은 이 실행을 **표시**했습니다 ('표시' 열). 그 표시가 무엇과 비교한 것인지는 아래에서 봅니다.
* 재는 방법을 바꾸면: CUDA 그래프로 양쪽을 잰 `run7_graph` 는 {{g_fast4096}} %, ncu 단독 실행의 시간 비는 {{ncu_ratio6}} %, 두 커널의 클록 차이를 뺀 같은 클록 비율(사이클 수의 비)은 {{ncu_cyc6}} % 입니다. 마지막 것은 목표 아래입니다.

**run 8 의 표시는 무엇과 비교한 것인가.** 기록은 실행을 저장할 때, 그 실행의 cuBLAS 가 같은 GPU 종류({{r8_class}})에서 **같은 측정 엔진**으로 그날까지 잰 (표시되지 않은) 실행들의 중앙값에서 ±{{flag_spread}} % 보다 벗어나면 표시합니다 (`course/records.py` 의 `baseline_check`). run 8 의 4096³ 에서 그 실행들은 이 기록이 아니라 다른 기록의 실행 {{r8_nmed}}개, {{r8_basis}} TFLOP/s 였고, 그 중앙값 {{r8_med}} 에서 {{r8_dev}} % 벗어났습니다. 이 기록의 다른 실행들은 그 엔진 이전의 방법으로 재서 비교에 들어가지 않았습니다. 아래 셀은 기록의 이유와 그 비교 대상을 찍고, 같은 ±{{flag_spread}} % 규칙을 이 기록의 cuBLAS 4096³ 전부에 적용합니다: 실행마다 나머지 실행들의 중앙값과 비교합니다.
""")
code(r"""
print(L.flag_ko(L.FAST.run("run8")))                 # 기록이 적은 표시의 이유
for n, (tf, dev, med, runs) in L.flag_basis("run8").items():   # 그 중앙값을 낸 앞선 실행들 (다른 기록)
    print(f"{n}³ 비교 대상:", ", ".join(f"{run} ({name}.json, {date}) {x:.1f}" for name, run, date, x in runs))
rows = L.record_spread_rows(4096)      # 같은 규칙을 이 기록의 cuBLAS 4096³ 전부에: 나머지 실행의 중앙값과 비교
display(Markdown(L.markdown(rows, list(rows[0]))))
""")
md(r"""
* 이 기록의 cuBLAS 4096³ {{cub_n}}개는 {{cub_lo}}–{{cub_hi}} TFLOP/s (최대 ÷ 최소 ×{{cub_x}}) 에 퍼져 있고, 같은 규칙으로는 {{out_n}}개({{out_list}})가 ±{{flag_spread}} % 밖입니다. 목표를 넘은 run 6 도 그중 하나입니다 ({{r6_spread_dev}} %). run 8 의 {{r8_cub|은/는}} 가장 높은 값이지만 가장 가까운 {{r8_near}} 의 {{r8_near_cub}} 에서 {{r8_near_dev}} % 떨어져 있을 뿐이라, 이 기록 안에서 혼자 떨어진 값이 아닙니다.
* 그러니 표시가 말하는 것은 'run 8 의 cuBLAS 가 같은 엔진의 앞선 {{r8_nmed}}개 실행보다 높았다'는 것까지입니다. 기준이 잘못 재졌다는 증거도, run 8 을 빼고 목표를 판정할 근거도 아닙니다.

그래서 4096³ 의 목표는 run 5·6 에서 넘었고 (CUDA 그래프로 잰 `run7_graph` 도 {{g_fast4096}} %), run 8 에서는 넘지 못했습니다 ({{best8_4096}} %). 기준과 재는 방법·날에 따라 4096³ 의 비율은 {{goal_lo}}–{{goal_hi}} % 이고, 그중 목표 아래인 것은 {{below_list}} 입니다. 기준인 cuBLAS 자체가 한 기록 안에서 {{cub_lo}}–{{cub_hi}} TFLOP/s 로 움직이므로, cuBLAS 대비 비율의 목표는 실행 하나로 판정할 수 없고 여러 실행을 나란히 봐야 합니다. 한 방법에서 나온 % 를 다른 방법의 % 와 나란히 놓지 마세요.
""")
md(r"""
**2048³ 에서는 재는 방법이 값을 바꿉니다.** 일반 측정은 파이썬에서 커널을 연달아 부르고 GPU 이벤트로 잽니다. 커널 하나를 띄우는 호스트 시간이 커널의 GPU 시간보다 길면 GPU 가 다음 커널을 기다리고, 측정은 커널이 아니라 파이썬을 재게 됩니다 (실행 비용). 아래 셀은 run 6 의 2048³ 와, 대조군으로 같은 실행의 4096³ 에서 실행 한 번의 호스트 시간, 일반 측정의 호출당 GPU 시간, 그리고 같은 실행에서 CUDA 그래프(CUDA graph: 호출 {{graph_calls}}번을 한 번에 GPU 에 넘겨 그 사이의 파이썬 비용을 없앰)로 잰 값입니다. run 6 의 그래프 측정에는 Numba 커널만 있습니다 (CuPy 가 스트림 캡처 중의 cuBLAS 호출을 거부).
""")
code(r"""
print(L.run_label("run6"))
cols = ["커널", "호스트 시간/실행 µs", "GPU 시간/호출 µs", "일반 TFLOP/s", "그래프 TFLOP/s", "그래프 ÷ 일반"]
for n in (2048, 4096):                     # 4096³: the control (kernels far longer than any host time)
    display(Markdown(f"**{n}³**\n\n" + L.markdown(L.launch_cost_rows("run6", n), cols)))
""")
md(r"""
두 시간 열은 **따로 잰 두 측정**입니다: 호스트 시간은 GPU 를 기다리지 않고 호출을 연달아 줄 세울 때 호출 하나에 든 호스트 시간(`course.bench.host_us`)이고, GPU 시간은 이 실행의 방법대로 연달아 부른 호출 묶음을 CUDA 이벤트로 재어 호출 수로 나눈 값(라운드의 중앙값)입니다. 그래서 한 호출의 시간을 둘로 나눈 것으로 읽지는 마세요. 호스트 열로 실행 비용을 가늠할 수도 없습니다. 2048³ 의 `mma_fast` 는 호스트 {{host_fast}} µs 가 GPU {{gpu_fast}} µs 보다 깁니다. 일반 측정 동안에도 호출마다 호스트가 그만큼 걸렸다면 GPU 시간은 호출당 {{host_fast}} µs 이상이었어야 합니다. 또 같은 커널을 같은 방법으로 띄워도 호스트 시간은 잴 때마다 다릅니다 (`fast` {{host_fast}} / {{host_fast4096}} µs, `no_lean` {{host_nolean}} / {{host_nolean4096}} µs: 2048³ / 4096³).

실행 비용은 마지막 열(그래프 ÷ 일반)로 봅니다. 대조군은 4096³ 입니다. 그 크기의 우리 커널은 호출당 {{gpu4096_lo}} µs 이상으로(그래프로 재지 않은 cuBLAS 는 {{gpu_cub4096}} µs), 두 표의 어느 호스트 시간({{host_max}} µs 이하)보다도 {{gpu_over_host}}배 넘게 깁니다. 그런데도 두 방법의 비는 ×{{ctrl_lo}}–×{{ctrl_hi}} 로 흔들립니다. 실행 비용이 아닌 차이도 이만큼은 된다는 뜻입니다. 두 방법은 재는 묶음부터 다르고(일반 측정은 {{burst_ms}} ms 동안 먼저 돌린 뒤 재고, 그래프 측정은 {{graph_calls}}번 호출의 그래프를 {{graph_replays}}번 되풀이), 같은 방법 안에서도 `fast` 의 라운드별 값이 4096³ 에서 {{spread_lo}}–{{spread_hi}} TFLOP/s 로 움직입니다. 2048³ 에서 {{small_names}} 의 비도 ×{{small_lo}}–×{{small_hi|으로/로}} 이 대조군의 흔들림과 같은 크기라, 이 기록으로는 실행 비용이 섞였는지 가릴 수 없습니다. 분명히 드러나는 것은 동적 공유 메모리를 쓰는 `bk64_lean_dyn` 입니다: 2048³ 에서 ×{{graph_gain_bk64}}, 4096³ 에서 ×{{bk64_ctrl}}. 2048³ 의 일반 측정은 이 커널의 속도가 아닙니다. cuBLAS 는 호스트 {{host_cub}} µs 대 GPU {{gpu_cub}} µs 입니다. cuBLAS 까지 양쪽을 모두 그래프로 잰 것은 `run7_graph` (같은 종류의 H100, 뒤의 다른 대여; cuBLAS 는 자체 핸들로) 로, 최종 커널은 2048³ 에 {{g_fast2048}} %, 4096³ 에 {{g_fast4096}} % 였고 (cuBLAS {{g_cub2048}} / {{g_cub4096}} TFLOP/s), {{h200_gpu}} 의 그래프 측정은 {{h2g_fast2048}} % 와 {{h2g_fast4096}} % 였습니다. 그래프 측정은 한 번씩이라 목표의 세 번째 실행이 아니라 두 실행 옆의 참고 수치입니다.

**단독 실행(ncu)의 비율.** 5.5절의 ncu 시간으로는 run 6 의 최종 커널이 cuBLAS 의 {{ncu_ratio6}} % 입니다. 다만 두 커널의 클록이 달랐습니다 (cuBLAS {{clk_cub}} GHz, `mma_fast` {{clk_fast}} GHz: ncu 는 클록을 고정하지 않았음). 같은 클록으로 환산하면(사이클 수의 비) {{ncu_cyc6}} % 입니다. 연달아 돌 때는 두 커널 모두 전력 한도에 걸려 클록이 내려가므로(기록의 클록 로그), 비율은 실행마다, 재는 방법마다 따로 읽어야 합니다.

**cuBLAS 는 다른 명령을 씁니다.** run 6 의 프로파일에 찍힌 cuBLAS 의 커널 이름은 `{{cublas_kernel}}` 입니다. 이 커널은 워프그룹(warpgroup) 행렬곱 `wgmma` 명령을 실행했고 (ncu 의 `sm__inst_executed_pipe_tensor_op_gmma`: 최대치의 {{gmma_pct}} %; 우리 두 커널은 0), 그 워프는 `gmma` 스톨(`wgmma` 의 완료를 기다림)에 명령당 {{gmma6}} 사이클을 썼습니다. `wgmma` 는 Hopper 의 아키텍처 전용 대상 `sm_90a` 에서만 쓸 수 있는 명령으로 (`ptxas` 는 `.target sm_90` 의 `wgmma` 를 거부합니다: 6절의 셀), 워프 4개(워프그룹, 128 스레드)가 함께 더 큰 타일을 계산하고 B 를 레지스터가 아니라 **공유 메모리에서 바로** 읽습니다 (A 는 레지스터나 공유 메모리). 그래서 B 를 `ldmatrix` 로 레지스터에 채우는 일이 없고, 명령 하나가 비동기로 돌아 워프가 다른 일을 할 수 있습니다. 텐서 파이프 활성률은 cuBLAS {{tp_cub}} % 대 `mma_fast` {{tp_fast}} % 입니다. cuBLAS 의 배리어({{bar_cub}})·`long_scoreboard`({{lsb_cub}}) 스톨이 우리보다 큰데도 빠른 것은, 명령 하나가 하는 일이 훨씬 큰 `wgmma` 에서는 '명령당 스톨'을 우리 커널과 같은 눈금으로 비교할 수 없기 때문입니다 (해석). 이 노트북에서는 차이 중 정확히 얼마가 `wgmma` 때문인지 재지 않았습니다: `wgmma` 커널은 다음 노트북(11)에서 numba-cuda 로 직접 쓰고, 그 8절이 같은 실행의 cuBLAS 와 나란히 잽니다.

**48 KiB 를 넘는 구성.** 동적 공유 메모리(48 KiB 초과; numba-cuda 에는 API 가 없어 `mma_fast.set_max_dynamic_smem` 이 드라이버의 함수 속성을 직접 설정)로 더 큰 구성도 같은 실행에서 쟀습니다. 칸은 같은 실행의 최종 커널 대비 배수입니다.
""")
code(r"""
for run in L.FINAL_RUNS:
    print(L.run_label(run))
display(Markdown(L.markdown(L.dynamic_rows(), ["변형", "공유 B", "블록/SM", "레지스터"] + [f"{run} 4096³" for run in L.FINAL_RUNS])))
""")
md(r"""
가장 빠른 것은 BK = 64 (3단 × 32 KiB = 96 KiB) 의 `bk64_lean_dyn` 으로 4096³ 에서 run 5 는 ×{{bk64_gain_r5}}, run 6 은 ×{{bk64_gain_r6|이었/였}}고, CUDA 그래프 측정(`run7_graph`)에서는 cuBLAS 의 {{g_bk64_2048}} % (2048³) 와 {{g_bk64_4096}} % (4096³) 였습니다. 그래도 기본 커널은 아닙니다: 기본으로 삼으려면 그 구성 자체로 두 번의 기록 실행과 compute-sanitizer 검사가 필요한데 아직 없습니다. 일반 측정의 2048³ 에서는 {{bk64_r5_2048}} % 와 {{bk64_r6_2048}} % 였지만, 위에서 본 대로 그 크기의 일반 측정은 이 커널의 속도가 아닙니다.
""")
md(r"""
## 6. 다른 mma 모양: `ptxas` 에게 물어보기

`m16n8k8` 과 `m8n8k4` 는 m16n8k16 보다 **작은** 명령입니다 (곱셈-덧셈 수 16·8·8, 8·8·4). PTX ISA 의 mma 모양 표에서 TF32 입력의 모양은 `m16n8k4` 와 `m16n8k8` 이고, `m8n8k4` 는 f16(sm_70 시절 형식)과 f64 에만 있습니다. 아래 표는 이 셀이 지금 `ptxas -arch=sm_80 / sm_90` 을 돌려서 만듭니다 (모듈은 둘 다 `.target sm_80` 이고, 그 PTX 를 두 아키텍처용으로 어셈블합니다: `.target` 을 바꾸는 것은 뒤의 wgmma 셀입니다). 결과를 모두 저장하는 커널에 명령을 넣어 어셈블하고, sm_80 용 SASS 에서 텐서 코어 명령(HMMA, DMMA)을 찾습니다.
""")
code(r"""
rows = L.mma_shape_table()
cols = ["shape", "types", "sm_80", "sm_90", "SASS"] + (["error"] if any("error" in r for r in rows) else [])
display(Markdown(L.markdown(rows, cols)))
""")
md(r"""
`ptxas` 가 받아들였다고 그 명령이 있는 것은 아닙니다. 표의 `m8n8k4` · `f32.tf32.tf32.f32` 행은 PTX ISA 의 모양 표에 없는 조합입니다. `ptxas` 13 은 이것을 오류 없이 받지만, SASS 에 텐서 코어 명령도 계산 명령(FFMA 등)도 없습니다. 그래서 "m8n8k4 는 TF32 용이 아니다"의 근거는 ptxas 의 오류가 아니라 ISA 의 모양 표와 이 SASS 입니다. f16 의 `m8n8k4` 는 sm_80 에서 HMMA 가 아니라 SHFL·FFMA 로 흉내 내는 서브루틴 호출이 되어, 역시 텐서 코어를 쓰지 않습니다. 표의 나머지 모양은 각자의 HMMA/DMMA 명령 하나가 됩니다.

**어느 compute capability 가 필요한가.** 같은 방법으로 이 노트북의 커널이 쓰는 명령을 sm_75(Turing)용으로도 어셈블해 봅니다.
""")
code(r"""
display(Markdown(L.markdown(L.feature_table(), ["명령", "sm_75", "sm_80", "sm_90"])))
""")
md(r"""
`ldmatrix` 와 `mma.m16n8k8` (f16) 은 sm_75 에서도 LDSM·HMMA 가 되고, sm_80 이 필요한 것은 `mma.m16n8k16` 과 `cp.async` 입니다. `mma_simple`·`mma_large` 와 5절의 확장 커널은 이 둘 중 하나 이상을 쓰므로(레벨 6 커널 {{l6_n}}개 중 {{cc80_n}}개) GPU 에서는 8.0 이상에서만 실행됩니다 (7.5 GPU 에서는 시뮬레이터 프로세스에서 실행).

**Turing(7.5)용 커널.** 레지스트리의 나머지 {{cc75_n}}개({{cc75_kernels}})는 `mma.m16n8k16` 한 번 대신 K = 16 마다 `mma.m16n8k8` 을 **두 번** 씁니다. 2절의 m16n8k16 프래그먼트는 k 방향으로 m16n8k8 프래그먼트 두 개를 나란히 놓은 것이기 때문입니다: A 의 레지스터 a0·a1 과 B 의 b0 이 k 0–7 의 m16n8k8 피연산자이고, a2·a3 과 b1 이 k 8–15 의 피연산자입니다 (`sim/mma.py` 의 `K16_AS_K8`). 그래서 `ldmatrix` 로 읽는 것은 `mma_simple`·`mma_large` 와 같고, 두 번째 mma 가 첫 번째의 결과 위에 누적합니다. `mma_large_turing` 은 cp.async 대신 평범한 로드·저장으로 타일을 공유 메모리에 옮깁니다. sm_75 용 오프라인 컴파일(`kernels_numba/infra/targets.json`)에서 이 커널들이 쓰는 명령은 {{t75_uses}}뿐이고, SASS 에는 커널마다 HMMA 가 {{t75_hmma}}개 있습니다. 모듈의 `MIN_CC` 가 (7, 5) 이므로 7.5 GPU 에서는 이 커널들이 GPU 에서 돕니다. 다만 우리에게는 7.5 GPU 가 없어서 실제 Turing 카드에서 돌려 본 기록은 없습니다 (GPU 기록은 H100 의 것: `tests/test_turing_mma.py`). 아래 셀은 이 커널들의 `min_cc` 를 레지스트리에서 읽고, 5절의 셀처럼 float64 기준값과 단위행렬로 검사합니다 (GPU 가 없으면 시뮬레이터에서).
""")
code(r"""
shapes = {"mma_simple_turing": (16, 8, 16), "mma_large_turing": (32, 16, 48)}   # simple 은 16×8×16 한 가지만
print({name: kn.get(name).min_cc for name in shapes})      # 레지스트리: 이 커널이 도는 가장 오래된 compute capability
for name, r in L.check_kernels(list(shapes.items()), alpha=1.5, beta=-0.5).items():
    print(name, r)
    assert r["ok"] and r["identity"]
print("PASS: Turing 용 커널 2개 = float64 기준값 (한계 이내), 단위행렬 검사 정확")
# 예상 출력: {'mma_simple_turing': (7, 5), 'mma_large_turing': (7, 5)} / mma_simple_turing {'ok': True, ...} / PASS: ...
""")
md(r"""
5.6절의 cuBLAS 가 쓴 `wgmma` 는 한 단계 더 좁습니다. 같은 방법으로, 모듈의 `.target` 만 다른 두 PTX 를 어셈블합니다 (PTX ISA 8.0).
""")
code(r"""
print(L.wgmma_targets())      # {대상: SASS 의 wgmma 명령, 또는 ❌ ptxas 의 오류}
# 예상 출력: {'sm_90': "❌ Instruction 'wgmma.fence' not supported on .target 'sm_90'", 'sm_90a': 'HGMMA.64x8x16.F32, …'}
""")
md(r"""
`wgmma` 는 `.target sm_90` 에서는 오류이고, 아키텍처 전용 대상 `sm_90a` 에서만 `HGMMA` 가 됩니다. `a` 가 붙은 대상의 코드는 그 아키텍처(CC 9.0)에서만 돌고 다음 세대와 호환되지 않습니다. numba-cuda 0.30 은 CC 9.0 이상의 GPU 에서 커널을 `a` 가 붙은 대상(CC 9.0 이면 `sm_90a`)으로 컴파일합니다 (`numba_cuda` 의 `codegen._ensure_cc` 가 `a` 를 붙임). `wgmma` 로 커널을 쓰는 것은 노트북 11 의 일입니다 (`kernels_numba/wgmma_simple.py`, `wgmma_tma.py`, `wgmma_ws.py`).
""")
md(r"""
## 7. 컴파일과 실행

`make` 나 `nvcc` 는 필요 없습니다: 커널은 Numba 로 쓰여 있고, `launch(A, B, C, alpha, beta)` 를 부르면 GPU(레지스트리의 `min_cc` 이상: Turing 용 {{cc75_n}}개는 7.5, 나머지는 8.0)에서는 Numba 가 컴파일하고, 그 밖에는 시뮬레이터가 실행합니다. PTX 명령은 `.ptx` 파일에서 읽어 llvmlite InlineAsm 으로 커널 안에 직접 넣으므로, SASS 에 명령 하나당 함수 호출이 생기지 않습니다. CI 는 GPU 없이 sm_80·sm_90 용으로 컴파일해 SASS 를 읽고 `HMMA.16816`, `LDSM`, `LDGSTS` 가 있음을 확인합니다 (`tests/test_tc_kernels.py`). 로컬 메모리가 없음은 레지스터 상한이 없는 커널에서만 확인합니다: `launch_bounds` 로 128개에 묶은 `mma_pipe4_lb2`·`mma_swizzle` 은 일부러 스필하므로, K 루프 안의 로컬 메모리 접근이 없거나(`mma_pipe4_lb2`) 몇 개 이하인지(`mma_swizzle`)를 봅니다. 일부 커널의 SASS(예: sm_80 용 `mma_pipe`)에 보이는 `CALL.REL.NOINC` 는 함수 호출이 아닙니다: `ptxas` 는 루프 출구에 `CALL.REL.NOINC <주소>` 와 루프 머리로 돌아가는 `BRA` 를 차례로 두고, 그 주소는 바로 그 `BRA` 다음 명령입니다. 곧 `BRA` 를 건너뛰어 루프를 빠져나가는 점프이고, 커널에는 돌아올 `RET` 도 없습니다 (`tests/test_tc_kernels.py` 가 모든 커널의 `CALL` 에서 이것을 확인합니다; `L.call_sites("mma_pipe", (8, 0))` 로 직접 볼 수 있습니다).

```python
import numpy as np, kernels_numba as kn
A = np.random.rand(256, 128).astype(np.float16); B = np.random.rand(128, 64).astype(np.float16)
C = kn.get("mma_pipe").launch(A, B, np.zeros((256, 64), np.float32))
```
""")
md(r"""
## 8. 검증: 허용 오차를 유도하기

⚠️ "허용 오차 1e-2 (FP16 정밀도)" 라는 고정값은 두 가지를 무시합니다: K 가 커질수록 반올림이 쌓이고, 그 크기가 누적 타입(f16 이냐 f32 냐)에 따라 크게 다릅니다.

입력은 f16 으로 **정확히** 주어지고(기준값도 같은 f16 값을 float64 로 계산), f16 두 개의 곱은 f32 에서 정확합니다. 누적의 오차는 더하기에서만 생깁니다. K개를 차례로 더하면서 덧셈마다 상대 오차가 v 이하이면, 오차는 γ_K(v)·Σ|a_ik·b_kj|, γ_K(v) = K·v/(1−K·v) 이하입니다 (Higham, 3.1절; K·v < 1 일 때만 성립). 보통의 반올림이면 v 는 누적 타입의 단위 반올림 u 입니다. 텐서 코어 안의 덧셈 순서와 반올림 방식은 문서에 나와 있지 않으므로, 덧셈마다 오차가 2u 까지 될 수 있다고 보고 v = 2u 로 둡니다. γ_K(2u) 는 2·γ_K(u) 보다 크고(K·u 가 작으면 거의 같음), 한계는 2·K·u < 1 일 때만 있습니다: f16 누적이면 K 가 {{k16_lim}} 보다 작아야 합니다 (아래 셀). 그 너머에서 오차가 끝없이 커진다는 뜻이 아니라 이 식이 아무것도 말하지 못한다는 뜻입니다: 아래 그림의 f16 누적은 K = {{k_nobound}} 에서도 오차가 {{err16_nobound}} 이하였습니다. 여기에 두 항이 더해집니다: 에필로그(alpha·누산기 + beta·C)의 두 f32 곱의 반올림 u_f32·M 과, 그 합을 출력 타입으로 반올림하는 u_out·|C| 입니다. f32 출력이면 f32 합의 반올림이 바로 이것이고, f16 출력이면 f32 합의 반올림 u_f32·|C| 가 그 앞에 하나 더 있습니다 (아래 식의 `[f16 출력]` 항). 그래서 한계는

`|C − C_정확| ≤ γ_K(2·u_acc)·M + u_f32·M + u_out·|C_정확| + [f16 출력] u_f32·|C_정확| + t`,  `M = |α|·(|A|·|B|) + |β|·|C₀|`

이고, t 는 출력 타입의 서브노멀(subnormal) 간격의 절반인 아주 작은 절댓값 항입니다 (f32 2⁻¹⁵⁰, f16 2⁻²⁵). 이것이 `kernels_numba/tc.py` 의 `error_bound` 입니다. 아래 셀은 이 식을 항마다 계산해(`L.bound_formula`) `error_bound` 와 비교하고, K = 272 의 f16 누적에서 γ_K(2u) 와 2·γ_K(u) 의 비, 누적 타입마다 한계가 있는 가장 큰 K 를 보여 줍니다.
""")
code(r"""
print(L.bound_check())
# 예상 출력: {'식과 tc.error_bound 의 최대 상대 차이': 4e-16 정도, 'K=272, f16 누적: γ_K(2u) ÷ 2·γ_K(u)': 1.181, '한계가 있는 가장 큰 K (f32 누적, f16 누적)': (8388607, 1023)}
""")
md(r"""
H200 에서 f32 누적·f32 출력 커널의 오차는 기록 당시의 한계의 {{f32_bound_pct}} % 이하였습니다. f32 누적·f16 출력 `mma_pipe_f16out` 은 결과 반올림 항이 거의 전부라 한계의 {{f16out_bound_pct}} % 까지 갔고, f16 누적 `mma_pipe_f16acc` 는 {{f16acc_bound_pct}} % 이하였습니다 (기록 당시의 한계는 γ_K(2u) 대신 2·γ_K(u) 를 썼고, 지금 한계는 그보다 조금 크므로 지금 한계 대비로는 이 비율보다 작습니다).

모든 커널 테스트가 이 한계로 검사하며, K 스텝 하나(16)를 빠뜨린 결과는 이 한계를 넘는다는 것도 테스트로 확인합니다. K·u 가 작을 때 두 누적 타입의 **한계**의 주된 항의 비는 u_f16 / u_f32 = 2⁻¹¹ / 2⁻²⁴ = 8192 입니다. 실제 오차도 그만큼 다를까요? 아래 그림과 셀은 H200 에서 K 를 늘리며 잰 최대 상대 오차와, log-log 기울기(오차 ∝ K^기울기)입니다.
""")
code(r"""
fig = L.error_growth_plot()
growth, K, ratio = L.error_growth_summary()
for name, (err, slope) in growth.items():
    print(f"{name:16s} K={K} 오차 {err:.2e}  기울기 {slope:.2f}")
print(f"K={K} 에서 f16 누적 / f32 누적 = {ratio:.0f} 배 (한계의 비는 8192)")
""")
md(r"""
f32 누적의 오차는 K 에 거의 비례해(기울기 {{slope32}}) 자라지만 K={{err_k}} 에서도 {{err32}} 로 작고, f16 누적은 {{err16}} 까지 자랍니다. f16 누적의 오차는 √K 에 가깝게(기울기 {{slope16}}, √K 면 0.5) 자라므로 두 오차의 비는 K 가 커질수록 줄어듭니다: K={{k0}} 에서는 {{ratio_k0}} 배로 한계의 비 8192 와 같은 자릿수(그 {{ratio_k0_frac}}배)이고 (이 K 에서 f16 누적과 f16 출력의 오차는 같은 값, 곧 결과를 f16 으로 한 번 반올림한 오차입니다), K={{err_k}} 에서는 {{err_ratio}} 배입니다. f16 곡선은 반올림 오차의 부호가 섞여 서로 일부 상쇄된다고 보면 설명됩니다 (해석). 이 설명은 f32 곡선에는 맞지 않습니다: f32 누적 오차는 한계처럼 K 에 비례해 자랐고, 그 이유는 이 기록으로 가릴 수 없습니다. 가능한 설명 하나는 발표된 측정에 있습니다: Fasi·Higham·Mikaitis·Pranesh ("Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science, 2021)는 V100·T4·A100 의 텐서 코어가 f32 누적에서 0 쪽으로 버리는(truncation, round toward zero) 반올림을 쓴다고 보고합니다. 반올림이 한쪽으로 치우치면 오차가 같은 부호로 쌓여 K 에 비례해 자랍니다 (해석: 이 기록의 GPU 에서 반올림 방향을 잰 것은 아닙니다). 한계는 가장 나쁜 경우라 K 에 비례합니다. f32 누적 후 f16 으로 출력하면 오차는 f16 한 번 반올림(약 2⁻¹¹ 수준)에서 거의 멈춥니다 (기울기 0 에 가까움).
""")
md(r"""
시뮬레이터의 mma 대체 함수는 곱을 정확히 더한 뒤 누적 타입으로 한 번 반올림합니다. 아래 셀은 H200 에 기록된 mma 한 번의 입력과 결과를 대체 함수로 다시 계산해 비교합니다 (`tests/test_mma_layout.py` 도 같은 비교). 여기서의 한계는 위의 `error_bound` 가 아니라, mma 한 번(K = 16 개 곱과 C 하나, 17개 항)에서 두 결과가 **서로** 얼마나 다를 수 있는가입니다: 원소마다 `2·17·u_acc·(|A|·|B| + |C_in| + |D_GPU|)`, u_acc 는 f32 또는 f16 누적의 단위 반올림.
""")
code(r"""
worst = L.check_numerics(L.layout_record("h200"))
print("시뮬레이터 대 GPU, 한계 대비 최대 비율:", {k: round(v, 3) for k, v in worst.items()})
assert max(worst.values()) <= 1
print("PASS: mma 대체 함수 = H200 결과 (한계 이내)")
# 예상 출력: 시뮬레이터 대 GPU, 한계 대비 최대 비율: {'f32': 0.0..., 'f16': 0.0...} / PASS: ...
""")
md(r"""
## 9. 직접 해보기: 다시 보기

이 노트북의 직접 해보기는 그 생각을 배우는 자리에 있습니다: 10-1–10-3 (2절, C/D·A·B 프래그먼트), 10-4 (3절, `ldmatrix` 의 행 주소), 10-5 (4절, 워프 하나의 K 루프). 아직 PASS 가 아닌 것이 있으면 그 절로 돌아가세요. 확인 셀의 진단은 무엇이 틀렸는지를 말하고, `hint("10-2")` 처럼 부르면 힌트가 한 단계씩 나옵니다.
""")
md(r"""
## 10. 요약

* `mma.sync.m16n8k16` 은 워프 단위 명령이고, 레인마다 A 8·B 4·C/D 4 원소를 정해진 레이아웃으로 맡습니다. 레이아웃은 H200 에서 기록한 값과 원소마다 일치합니다.
* `ldmatrix.x4` / `.x2.trans` 는 공유 메모리의 행 주소 32개(또는 16개)로 그 레이아웃을 한 명령에 채웁니다.
* `simple`(워프 하나) → `large`(그리드로 M·N, 루프로 K) 는 맞지만 느립니다(4096³ 에서 cuBLAS 의 {{large_pct}} %): 재사용이 없고, 단일 버퍼라 한 워프 안에서 복사와 계산이 겹치지 않으며, 점유율은 블록 수 한도로 H200 에서 50 % 입니다 (8.6 에서는 더 낮음).
* 여러 워프(워프당 64×32 타일)·다단 cp.async·launch bounds·스위즐로 4096³ 에서 `large` 보다 약 {{best_x}}배 빨라졌습니다 (H200 의 최고 커널 `{{best}}`, cuBLAS 대비 비율은 5.2절 셀이 기록에서 읽음). 그다음 눈에 띈 것은 레지스터 상한({{swz_regs}}개)의 스필이었지만, 5.5절의 ncu 로는 스필 재로드가 스톨의 큰 몫이 아니었습니다: `mma_swizzle` 에서 그것이 들어가는 `long_scoreboard` 는 명령당 {{lsb_swz}} 사이클이었고, 큰 몫은 고정 지연(`wait` {{wait_swz}})과 공유 메모리 명령의 결과 대기(`short_scoreboard` {{ssb_swz}}, 해석: 주로 `ldmatrix`)였습니다. `mma_fast` 는 에필로그의 스필을 없애고(누산기를 상수 인덱스로만 읽음) 워프당 64×64·3단·프래그먼트 이중 버퍼·배리어 파이프라인·주소를 한 번만 계산하기를 더한 커널이고, {{h100_gpu}} 의 run 5·6 에서 4096³ 에 cuBLAS 의 {{best5_4096}} % 와 {{best6_4096}} %, 2048³ 에 {{best5_2048}} % 와 {{best6_2048}} % 로 목표({{goal4096}} %, {{goal2048}} %)를 넘었습니다 (5.6절; 2048³ 에서 그래프로 잰 값과의 차이 ×{{graph_gain_fast}} 는 커널이 긴 4096³ 에서도 보이는 두 방법의 차이 ×{{ctrl_lo}}–×{{ctrl_hi}} 와 같은 크기). **단서**: 그 두 실행의 cuBLAS 는 run {{early_runs}} 보다 {{drop_lo}}–{{drop_hi}} % 낮게 재졌고 (그보다 앞서 다른 방법으로 잰 run {{r12_runs|은/는}} {{r12_cub}} TFLOP/s), 바뀌지 않은 커널의 % 도 그만큼 올랐습니다. 두 커널을 같은 클록으로 환산한 ncu 비율은 {{ncu_cyc6}} % 로 목표 아래입니다. {{r8_date}} 에 다른 측정 엔진으로 잰 run 8 은 cuBLAS 가 {{r8_cub}} TFLOP/s 로 같은 엔진의 앞선 {{r8_nmed}}개 실행(다른 기록)의 중앙값보다 {{r8_dev}} % 높아 기록이 표시한 실행이지만, 이 기록의 cuBLAS 4096³ 이 {{cub_lo}}–{{cub_hi}} TFLOP/s 에 퍼져 있어 혼자 떨어진 값은 아닙니다 (5.6절). 4096³ 목표는 run 5·6 에서 넘었고 run 8 에서는 {{best8_4096}} % 로 넘지 못했습니다. 4096³ 의 비율은 기준과 재는 방법·날에 따라 {{goal_lo}}–{{goal_hi}} % 이고(목표 아래: {{below_list}}), 기준이 이만큼 움직이므로 비율 목표는 여러 실행으로 봐야 합니다. 최종 절제 실험에서 되돌렸을 때 가장 크게 느려지는 것은 스위즐(4096³ 에서 ×{{swz_gain_r5_4096}}, ×{{swz_gain_r6_4096}})이지만, 이 배수는 패딩도 스위즐도 없는 배치와의 비교이고 스위즐은 이미 `mma_swizzle` 에 있었습니다. `mma_swizzle` → `mma_fast` 에서 새로 더해 run 5/6 에서 잰 단계들(이중 버퍼, 배리어 파이프라인, 3단, 주소 한 번 계산)은 각각 ×1.2 보다 작았고, 그중 배리어 파이프라인은 lean 이 없는 커널에서만 잰 이득입니다 (lean 과 함께인 파이프라인은 run 8 한 번의 측정에서 4096³ ×{{r8_pipe_lean_4096}}, 2048³ ×{{r8_pipe_lean_2048|으로/로}} 4096³ 에서 이득이 보이지 않았습니다). run 4 에서만 잰 스필 없는 본문은 4096³ 에서 ×{{spill_gain_4096}} 였습니다 (5.4절; 3단·이중 버퍼·`uint32` 인덱스도 함께 바뀐 단계라 스필만의 효과가 아님). cuBLAS 는 `mma.sync` 가 아니라 `wgmma` 를 썼습니다 (5.6절).
* 배리어를 빼먹은 커널이 맞는 답을 내도 경쟁은 있습니다: 시뮬레이터의 경쟁 검출기가 스레드 실행 순서와 상관없이 보고하고(`ldmatrix` 는 주소를 준 레인 기준으로, 경쟁이 있는 원소를 모두 세고, 보고는 종류와 두 줄의 쌍마다 한 번, 횟수와 함께), GPU 에서는 racecheck 가 보고합니다 (4.4절). 다만 주소를 준 레인이 그 행을 복사한 레인이기도 하면 시뮬레이터의 검출기도 GPU 의 racecheck 도 보고하지 않았으므로(4.4절의 `Bs`), 검출기가 조용하다고 배리어가 필요 없는 것은 아닙니다 (PTX 는 그 순서를 보장하지 않습니다).
* 허용 오차는 K·u 에 비례하게 유도해야 합니다 (한계 γ_K(2u)·M + …; f16 누적이면 이 식은 K < {{k16_lim}} 에서만 성립하고, 그 너머는 오차가 무한하다는 뜻이 아니라 식이 말하지 못하는 범위). 한계의 주된 항의 비는 f16 누적이 f32 누적의 8192배이지만, 기록된 오차의 비는 K={{k0}} 에서 {{ratio_k0}} 배, K={{err_k}} 에서 {{err_ratio}} 배였습니다: f32 누적 오차는 K 에 비례해, f16 누적 오차는 √K 에 가깝게 자랐습니다.

## 11. 체크포인트 퀴즈
""")
code(r"""
from course.quiz import show_quiz
show_quiz("10")
""")
md(r"""
## 12. 다음 단계

* **다음 노트북(11)**: 워프그룹 `wgmma`, TMA(`cp.async.bulk.tensor`)와 mbarrier, 워프 특화(`wgmma_ws`)로 `mma.sync` 의 천장 너머를 봅니다. 아래의 Hopper 명령들을 numba-cuda 커널로 직접 씁니다.
* **더 큰 행렬과 벤치마크**: `benchmarks/record_level6.py` 가 1024³–4096³ 에서 cuBLAS 와 나란히 잽니다. 1024³ 에서는 비교가 어렵습니다: {{gpu}} 의 기록에서 cuBLAS 는 호출 한 번이 {{cub1024_us}} µs ({{cub1024_tf}} TFLOP/s) 로 5.6절 표의 호스트 시간(실행 한 번)과 같은 크기이고, 128×128 블록 타일의 커널은 블록이 (1024/128)² = {{blocks1024}}개뿐이라 SM {{sms}}개를 다 채우지 못합니다. 비교는 4096³ 에서 하세요 (`L.bench_rows(n=1024)` 로 직접 확인).
* **최적화**: 5.6절의 `bk64_lean_dyn` (BK = 64, 동적 공유 메모리 96 KiB)이 기록에서 가장 빨랐습니다. 기본 커널로 삼으려면 그 구성으로 두 번의 기록 실행과 sanitizer 검사가 필요합니다. 그 밖의 후보는 워프 특화(warp specialization)와, Hopper 에서는 `wgmma` 입니다 (둘 다 노트북 11).
* **Hopper 의 새 명령**: 워프그룹(128 스레드) 단위의 `wgmma` 는 아키텍처 전용 대상 sm_90a 에만 있고 (6절: `wgmma` 는 sm_90 으로는 어셈블되지 않음), TMA 비동기 복사(`cp.async.bulk.tensor`, PTX ISA 8.0)는 sm_90 부터 있습니다. 클러스터 멀티캐스트 형태(`.multicast::cluster`)도 {{mc_targets|으로/로}} 어셈블되지만, ptxas 가 sm_90a 를 쓰라는 권고(Advisory) 경고를 냅니다 (ptxas 가 밝힌 이유: 앞으로의 일부 아키텍처에서는 이 기능의 성능이 크게 떨어질 수 있음). `kernels_numba/tools/offline.py` 의 명령 표에 두 형태가 다 있고, `tests/test_targets.py` 가 표의 대상 {{t_all}} 모두에서 ptxas 가 받아들이는지와 그 경고를 확인합니다. 이 노트북의 H200 기록에는 cuBLAS 의 프로파일이 없고, {{h100_gpu}} 의 프로파일(run 6)에서 cuBLAS 는 `wgmma` 를 썼습니다 (5.6절). 우리 `mma.sync` 커널과의 차이 중 얼마가 여기서 오는지는 재지 않았습니다.
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(OUT))
    print(NB.write(ap.parse_args().out))


if __name__ == "__main__":
    main()
