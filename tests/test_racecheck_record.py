"""compute-sanitizer racecheck on an H100 (course/recorded/racecheck_h100.json, benchmarks/racecheck_gpu.py) against
the simulator's race detector: every kernel racecheck flags, the simulator flags too, on the same pairs of lines."""
import json
from pathlib import Path

import numpy as np
import pytest

from kernels_numba.infra.simulator import racecheck
from course import records

import racecases
from racecases import build

REC = records.load("racecheck_h100")
CASES = {c.name: c for c in racecases.CASES}
pytestmark = pytest.mark.sim_only("compares the simulator's detector with the recorded GPU racecheck")


def test_record_is_from_a_gpu_and_covers_the_cases():
    assert REC.gpu.startswith("NVIDIA") and REC["tool"].startswith("compute-sanitizer --tool racecheck")
    missing = [c.name for c in racecases.CASES if not c.error and c.name not in REC["cases"]]
    assert not missing, f"re-record with benchmarks/racecheck_gpu.py: {missing}"


def test_racecheck_flags_every_buggy_case_and_no_correct_one():
    for name, case in CASES.items():
        if case.error or name not in REC["cases"]:
            continue
        flagged = REC["cases"][name]["race_reports"] > 0
        assert flagged == bool(case.expect), (name, REC["cases"][name])


@pytest.mark.parametrize("name", [n for n, r in REC["cases"].items() if n in CASES and r["race_reports"]])
def test_simulator_finds_every_line_pair_racecheck_reports(name, tmp_path):
    launch, lines = build(CASES[name], tmp_path)
    with racecheck.collect() as report:
        launch(np.random.default_rng(0))
    sim_pairs = {frozenset((h.first_site[1], h.second_site[1])) for h in report.hazards}
    gpu_pairs = {frozenset((h["first"][1], h["second"][1])) for h in REC["cases"][name]["hazards"]}
    assert gpu_pairs, REC["cases"][name]
    missed = gpu_pairs - sim_pairs
    assert not missed, (f"{name}: racecheck reports line pairs {sorted(map(sorted, missed))} the simulator does not "
                        f"(simulator: {sorted(map(sorted, sim_pairs))})\n{report.summary()}")


def test_readme_figures_come_from_the_record():
    import re
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    buggy = [n for n, r in REC["cases"].items() if n in CASES and r["race_reports"]]
    lucky = [n for n in buggy if REC["cases"][n]["wrong_runs"] == 0]
    figs = dict(re.findall(r"<!-- racecheck:(\w+) -->(\d+)<!-- /racecheck -->", readme))
    assert figs == {"buggy": str(len(buggy)), "lucky": str(len(lucky))}, figs


DEMOS = {"demo_no_sync1": ("races", "launch_no_sync1"), "demo_no_sync2": ("races", "launch_no_sync2"),
         "demo_db_no_loop_barrier": ("db_no_loop_barrier", "launch"), "demo_db_no_prologue": ("db_no_prologue", "launch"),
         **{f"demo_{m}": (m, "launch") for m in ("async_no_barrier_after_wait", "async_no_commit", "async_no_wait",
                                                  "async_overwrite_pending", "async_wait_too_little")},
         # recorded before the common loop's demo was renamed (async_seed_tail -> async_common_tail)
         "demo_async_seed_tail": ("async_common_tail", "launch")}


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_bug_demos_flagged_on_the_gpu_are_flagged_here(name):
    """Every demo racecheck flags, the detector flags; the one it does not (a missing prologue is no race: tile 0 is
    never loaded) is still a wrong answer here, as it was in 20 of 20 GPU runs, and the detector reports its reads of
    the never-written tile (UNINIT), which racecheck does not look for."""
    import importlib
    from course import racereport
    mod, attr = DEMOS[name]
    launch = getattr(importlib.import_module(f"kernels_numba.demos.{mod}"), attr)
    rec = REC["cases"][name]
    M = 128 if "db_" in name else 64
    out = racereport.run_demo(launch, M, M, 64)
    if rec["race_reports"]:
        assert out["report"], f"{name}: racecheck reported {rec['race_reports']} races, the simulator none"
    else:
        rep = out["report"]
        assert not rep.races and rep.kinds == ["UNINIT"] and not out["ok"] and rec["wrong_runs"] == REC["runs"], \
            rep.summary()


@pytest.mark.parametrize("warps", [1, 2])
def test_racecheck_reports_bs_only_when_another_warp_copies_it(warps, tmp_path):
    """Notebook 10 4.4 and the banner: where each lane gives ldmatrix the address of a Bs row it copied itself (one
    warp), racecheck reported no Bs line, as the simulator's detector; with two warps (another warp copies Bs) it did."""
    for name in (f"mma_w{warps}_no_barrier_after_wait", f"mma_w{warps}_no_trailing_barrier"):
        _, lines = build(CASES[name], tmp_path)
        b_lines = {lines["ISSUE_B"], lines["LDSM_B"]}
        reported = {h[k][1] for h in REC["cases"][name]["hazards"] for k in ("first", "second")}
        assert bool(reported & b_lines) == (warps == 2), (name, sorted(reported), sorted(b_lines))
