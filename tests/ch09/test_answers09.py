"""Notebook 09's exercise solutions agree with the course's own kernels: the checkers accept the kernels' pieces, and
the seed's loop order (with its tail fixed) is as right as the one-barrier order of the solution."""
from pathlib import Path

import pytest

from course import exercises
from exercise_cases import import_source
from exercise_cases_09 import _two_barrier
from kernels_numba import async_vec

ROOT = Path(__file__).resolve().parents[2]


def _module(src, tmp_path, name):
    return import_source(src, tmp_path, name)


@pytest.mark.sim_only("the copies each thread made are seen on the simulator")
def test_async_vec_copy_gets_the_values_right_and_the_technique_verdict():
    # its edge path: 16-byte copies inside, src-size 0 outside, four 4-byte copies where a float4 straddles the edge.
    # Every value is right; 09-3 asks for the other way (one 16-byte copy with src-size 4-12 at the edge, review r25
    # B-2), so the verdict is the technique's own, and it says async_vec's way is right too
    res = exercises.check("09-3", async_vec.copy_vec, save=False)
    assert not res.ok and res.code == "copy_size" and res.message.startswith("맞는 값이지만"), str(res)
    assert "async_vec 처럼" in res.message and "4바이트 4번" in res.message and "src-size 8" in res.message, str(res)


def test_two_barrier_order_is_right_but_not_the_one_barrier_loop_asked_for(tmp_path):
    # the seed's order (with its tail fixed) computes the right values with no race; 09-1 asks for one barrier per
    # tile, so the verdict is the technique's own, naming the second barrier, not PASS
    (old, new), = _two_barrier()
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text(encoding="utf-8")
    assert old in src
    mod = _module(src.replace(old, new), tmp_path, "ex09_two_barrier")
    res = exercises.check("09-1", mod.pipeline3, save=False)
    assert not res.ok and res.code == "two_barriers", str(res)
    assert res.message.startswith("맞는 값이지만") and "배리어" in res.message


def test_wait_group_2_in_the_one_barrier_order_is_told_the_n_that_fits_that_order(tmp_path):
    # N = S - 1 carried over from the two-barrier order: before this order's wait only the S - 1 groups of the
    # earlier iterations are committed (this iteration's commit comes after it), so the checker and the detector's
    # line both say wait_group(1), never the wait_group(2) just rejected
    src = (ROOT / "answers" / "ch09" / "ex09_pipeline.py").read_text(encoding="utf-8")
    assert src.count("ptx.cp_async_wait_group_1()") == 1
    mod = _module(src.replace("ptx.cp_async_wait_group_1()", "ptx.cp_async_wait_group_2()"), tmp_path, "ex09_wait2")
    res = exercises.check("09-1", mod.pipeline3, save=False)
    assert not res.ok and res.code == "wait_too_large", str(res)
    assert "commit 한 그룹이 2개" in res.message and "(wait_group(1) 이하)" in res.message, res.message
    text = str(res)
    assert "wait_group(1) 이하" in text and "wait_group(2) 이하" not in text, text


def test_column_bound_from_x_shape_is_told_it_is_the_column(tmp_path):
    # rows checked against rows but columns against X.shape[1] (X's rows are padded past cols): the verdict names the
    # column bound and X.shape[1], never "do the row check" the answer already did
    src = (ROOT / "answers" / "ch09" / "ex09_zfill.py").read_text(encoding="utf-8")
    old = "if grow < rows and gcol < cols:\n        n = min(4, cols - gcol)"
    assert old in src
    mod = _module(src.replace(old, "if grow < rows and gcol < X.shape[1]:\n        n = min(4, X.shape[1] - gcol)"),
                  tmp_path, "ex09_cols_from_shape")
    res = exercises.check("09-3", mod.copy16, save=False)
    assert not res.ok and res.code == "edge_overread", str(res)
    assert "열 경계" in res.message and "X.shape[1] = " in res.message and "행 검사" not in res.message, res.message
    # a missing row check is still told to do the row check
    mod = _module(src.replace(old, "if gcol < cols:\n        n = min(4, cols - gcol)").replace(
        "r = grow if n > 0 else 0", "r = grow if grow < rows else 0"), tmp_path, "ex09_no_row_check")
    res = exercises.check("09-3", mod.copy16, save=False)
    assert not res.ok and res.code == "edge_overread" and "행 검사(grow < rows)" in res.message, res.message
