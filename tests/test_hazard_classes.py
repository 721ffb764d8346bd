"""Issue 25's classes of bugs (tests/hazard_cases): every student-style buggy kernel errs or comes out wrong, and its
correct twin comes out right, under the forward, reverse and random schedules (blocks and threads).

`make test` runs a sample (SAMPLE per class); `make test-hazards` runs every pair (HAZARDS_ALL=1)."""
import os

import numpy as np
import pytest

from kernels_numba.infra.errors import CourseInputError
from kernels_numba.infra.simulator import SimulatorFault
from kernels_numba.infra.simulator.scheduler import get_schedule, set_schedule

from hazard_cases import all_pairs, close

pytestmark = pytest.mark.sim_only("the simulator's own guarantees (on a GPU: benchmarks/gpu_hazards.py)")

PAIRS = all_pairs()
# `make test` runs three pairs of each class (a few seconds); the registered kernels' byte cases take ~10 s each
SAMPLE = {"global-splitk_plus_equals", "global-producer_no_barrier", "global-plain_init_then_atomics",
          "bytes-copy4_float64_source", "bytes-mma_A_float32", "bytes-launch_mma_large_float32",
          "space-st_global_v4_shared", "space-cp_async_src_local", "space-ldcg_shared",
          "limits-block_4096_threads", "limits-static_shared_two_32k", "limits-dynamic_shared_80k_t4",
          "views-T_filled_by_one_thread", "views-reshape_1d", "views-cp_async_into_stage_view",
          "warp-tree_reduction_no_syncwarp", "warp-shfl_from_lane_outside_mask", "warp-dynamic_reused_as_float16",
          "uninit-max_absorbs_nan", "uninit-atomic_counter_never_zeroed", "uninit-module_array_in_dead_branch"}
SCHEDULES = [("forward", 0), ("reverse", 0), ("random", 11)]


def _chosen():
    if os.environ.get("HAZARDS_ALL"):
        return PAIRS
    return [p for p in PAIRS if p.id in SAMPLE]


def test_the_sample_names_real_pairs():
    assert SAMPLE <= {p.id for p in PAIRS}


def _run(fn, order, seed):
    prev = get_schedule()
    set_schedule(order, seed)
    try:
        return fn()
    finally:
        set_schedule(*prev)


def test_every_class_has_twenty_pairs():
    classes = {}
    for p in PAIRS:
        classes[p.cls] = classes.get(p.cls, 0) + 1
    assert set(classes) == {"global", "bytes", "space", "limits", "views", "warp", "uninit"}, classes
    assert min(classes.values()) >= 20, classes
    assert len({p.id for p in PAIRS}) == len(PAIRS)


@pytest.mark.parametrize("pair", _chosen(), ids=lambda p: p.id)
def test_bug_errs_or_is_wrong_and_twin_is_right(pair):
    for order, seed in SCHEDULES:
        try:
            got, want = _run(pair.bug, order, seed)
        except (SimulatorFault, CourseInputError, IndexError) as e:
            if pair.expect is not None:
                assert isinstance(e, pair.expect), (order, type(e).__name__, str(e)[:600])
        else:
            assert pair.expect is None, (order, f"{pair.id}: expected {pair.expect.__name__}, the kernel ran")
            assert not close(got, want, pair.tol), (order, f"{pair.id}: the bug came out right")
        got, want = _run(pair.twin, order, seed)
        assert close(got, want, pair.tol), (order, f"{pair.id}: the twin is wrong", np.asarray(got), np.asarray(want))
