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


@sim_only
def test_09_1_a_global_memory_loop_is_told_to_use_the_tiles(tmp_path):
    # review round 19, I-1: the loop is there; what is missing is the tile computation from shared memory
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    body = src[src.index("        ptx.cp_async_wait_group_1()"):src.index("    store_c(")]
    src = src.replace(body, "        for k in range(T8):\n            kk = kt * T8 + k\n"
                            "            if row < A.shape[0] and col < B.shape[1] and kk < A.shape[1]:\n"
                            "                acc += A[row, kk] * B[kk, col]\n")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_tile_calls", str(res)
    assert "compute_tile 이 한 번도" in res.message and "for kt in range" not in res.message, str(res)


@sim_only
def test_09_1_no_wait_in_the_iteration_is_not_named_as_a_wait(tmp_path):
    # review round 19, I-2: a wait before the loop is not this iteration's "wait_group(0)"
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text("utf-8")
    # everything waited for before the loop; each iteration waits for its prefetch after computing
    src = src.replace("        ptx.cp_async_wait_group_1()", "        pass  # ")
    src = src.replace("    for kt in range(n_tiles):", "    ptx.cp_async_wait_all()\n    for kt in range(n_tiles):")
    src = src.replace("        acc = compute_tile(As, Bs, kt % S3, acc)\n",
                      "        acc = compute_tile(As, Bs, kt % S3, acc)\n        ptx.cp_async_wait_group_0()\n")
    res = exercises.check("09-1", import_source(src, tmp_path).pipeline3, save=False)
    assert res.code == "no_overlap", str(res)
    assert "이 반복에는 계산 앞에 wait 가 없고" in res.message and "wait_group(0))" not in res.message, str(res)
