"""course/recorded/gpu_hazards_h100.json (benchmarks/gpu_hazards.py): issue 25's representative bugs on an H100.
Every bug the record holds is one the simulator turns into an error or a wrong answer (tests/test_hazard_classes.py
runs all of them); here: the record's cases are the script's, each twin was right on the GPU, and the README's
figures are the record's."""
import re
import sys
from pathlib import Path

import pytest

from course import records

ROOT = Path(__file__).resolve().parents[1]
REC = records.load("gpu_hazards_h100")


def gpu_outcome(case):
    """How the H100 showed the bug: 'wrong' (a wrong result in some of the runs), 'refused' (the launch or the
    compile failed), 'sanitizer' (right results, but compute-sanitizer reported it), or 'unseen'."""
    b = case["bug"]
    if b["error"]:
        return "refused"
    if b["wrong_runs"]:
        return "wrong"
    if b.get("racecheck", {}).get("race_reports") or b.get("memcheck", {}).get("errors"):
        return "sanitizer"
    return "unseen"


def _pairs():
    sys.path.insert(0, str(ROOT / "tests"))
    from hazard_cases import all_pairs
    return {p.id for p in all_pairs()}


def test_cases_are_the_scripts_and_exist_in_the_simulators_set():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import gpu_hazards
    assert list(REC["cases"]) == gpu_hazards.CASES
    assert set(gpu_hazards.CASES) <= _pairs()


@pytest.mark.parametrize("name", list(REC["cases"]))
def test_every_twin_was_right_on_the_gpu(name):
    t = REC["cases"][name]["twin"]
    assert t["error"] is None and t["wrong_runs"] == 0 and t["runs"] == REC["runs_per_case"], t


def test_readme_figures_come_from_the_record():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    figs = dict(re.findall(r"<!-- hazards:(\w+) -->([^<]*)<!-- /hazards -->", readme))
    by = {}
    for name, case in REC["cases"].items():
        by.setdefault(gpu_outcome(case), []).append(name)
    want = {"total": str(len(REC["cases"])), "runs": str(REC["runs_per_case"]),
            **{k: str(len(by.get(k, []))) for k in ("wrong", "refused", "sanitizer", "unseen")},
            "unseen_names": ", ".join(f"`{n}`" for n in by.get("unseen", []))}
    assert figs == want, figs


def test_readme_detector_cost_comes_from_its_record():
    cost = records.load("detector_cost_sim")["notebooks"]
    ratios = {n: v["ratio"] for n, v in cost.items()}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    figs = dict(re.findall(r"<!-- detector:(\w+) -->([^<]*)<!-- /detector -->", readme))
    extra = [v["on"]["wall_s"] - v["off"]["wall_s"] for v in cost.values()]
    assert figs == {"min": f"{min(ratios.values()):.2f}", "max": f"{max(ratios.values()):.2f}",
                    "worst": max(ratios, key=ratios.get), "dmin": f"{min(extra):.1f}", "dmax": f"{max(extra):.1f}"}, figs
    assert not any(v["off"]["failed_cells"] or v["on"]["failed_cells"] for v in cost.values())
