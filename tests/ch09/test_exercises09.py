"""Messages of notebook 09's exercise checkers that the diagnosis code alone does not pin down."""
from pathlib import Path

import pytest

from course import exercises
from exercise_cases import import_source

ROOT = Path(__file__).resolve().parents[2]
sim_only = pytest.mark.sim_only("09-1's structure checks read the simulator's trace")


@sim_only
def test_09_1_a_loop_it_cannot_follow_is_said_not_passed(tmp_path, monkeypatch):
    # review round 18, W-2 (2): no loop found in the trace -> not a PASS that claims overlap it never checked
    from course.exercises import probe
    monkeypatch.setattr(probe, "loop_iterations", lambda events, min_iters=2: (events, [], []))
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert not res.ok and res.code == "loop_not_found", str(res)
    assert "K 루프를 찾지 못해" in res.message and "wait_group(N) → 배리어" in res.message, str(res)


@sim_only
def test_09_1_wait_all_is_named_as_written(tmp_path):
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    src = src.replace("ptx.cp_async_wait_group_1()", "ptx.cp_async_wait_all()")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_overlap" and "(cp_async_wait_all())" in res.message, str(res)
