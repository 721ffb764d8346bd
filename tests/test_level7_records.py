"""The level-7 GPU records that are not timings (one schema, course.records): benchmarks/check_level7.py's cases on
the H100 all correct, for every level-7 kernel and every shape the script checks; the layout record's summary as
notebook 11 states it."""
import importlib.util
from pathlib import Path

import pytest

import kernels_numba as kn
from course import records
from course.ch11_hopper import lesson as lesson11

ROOT = Path(__file__).resolve().parents[1]
CHECK = "gpu_h100_level7_check"


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(CHECK not in records.names(), reason="no GPU record yet: run benchmarks/check_level7.py on an H100")
def test_every_level7_case_was_correct_on_the_gpu():
    rec = records.load(CHECK)
    shapes = _script("check_level7").SHAPES
    assert rec["all_ok"] and rec.run().cc == (9, 0) and not rec.run().rows
    assert set(rec["results"]) == {s.name for s in kn.by_level(7)}
    for name, cases in rec["results"].items():
        assert len(cases) == 3 * len(shapes) and all(c["ok"] for c in cases), name     # 2 alpha/beta + identity
        assert {(c["M"], c["N"], c["K"]) for c in cases} == set(shapes)
        assert all(c["worst_err_over_bound"] <= 1 and c["nan"] == 0 for c in cases if "worst_err_over_bound" in c)


@pytest.mark.skipif(lesson11.LAYOUT is None, reason="no GPU record yet: run benchmarks/record_wgmma_layout.py")
def test_layout_summary_counts_every_layout_probe():
    n, agree, aligned = lesson11.layout_probes(lesson11.LAYOUT)
    assert n == agree == 2 * 2 * 4 * 2 and aligned          # N 64/128, stores/TMA, kk 0..3, patterns rc/k
    assert lesson11.LAYOUT["all_layout_probes_agree"] and lesson11.LAYOUT.run().id.startswith("h100_")
