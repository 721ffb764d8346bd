"""sim.cp_async (group semantics, pipeline trace) and its widget, headless."""
import pytest

from sim import cp_async
from sim.cp_async import AsyncCopyUnit, first_unsafe_tile, pipeline_trace


def test_wait_group_completes_oldest_first():
    u = AsyncCopyUnit()
    for g in range(3):
        u.issue(g)
        u.commit()
    assert u.pending_groups == [0, 1, 2]
    assert u.wait_group(2) == [0] and u.pending_groups == [1, 2]
    assert u.wait_group(2) == []                       # already at most 2 pending: returns at once
    assert u.wait_group(0) == [1, 2] and u.pending_groups == []


def test_uncommitted_copies_are_not_waited_for():
    u = AsyncCopyUnit()
    u.issue("x")
    assert u.wait_group(0) == [] and u.uncommitted == ["x"]
    assert u.wait_all() == ["x"]


def test_empty_group_counts():
    u = AsyncCopyUnit()
    u.commit()
    u.issue("a")
    u.commit()
    assert u.pending_groups == [0, 1] and u.wait_group(1) == []      # the empty group was the oldest


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("tiles", [1, 2, 3, 4, 5, 8])
def test_empty_commit_tail_is_safe_seed_tail_is_not(stages, tiles):
    assert pipeline_trace(stages, tiles, "empty_commit").ok
    assert pipeline_trace(stages, tiles, "wait_all_tail").ok
    # the seed commits nothing in its last NUM_STAGES-1 iterations: the first of them is unguarded
    assert first_unsafe_tile(stages, tiles, "seed") == max(0, tiles - (stages - 1))


def test_seed_six_iterations_match_the_text():
    """kt = 0..5 of the seed's 8-tile trace: wait_group(2) leaves {G(kt+1), G(kt+2)} pending, buffer kt%3 computed."""
    tr = pipeline_trace(3, 8, "seed")
    waits = [s for s in tr.steps if s.action.startswith("wait_group")]
    for kt in range(6):
        assert waits[kt].pending == [kt + 1, kt + 2]
    computes = [s for s in tr.steps if "계산" in s.action]
    assert [next(b for b, (st, _) in enumerate(s.buffers) if st == cp_async.COMPUTING) for s in computes] == \
        [kt % 3 for kt in range(8)]
    assert [s.kt for s in tr.errors] == [6, 7]


def test_bad_arguments():
    for args in [(1, 4), (3, 0), (3, 2.5)]:
        with pytest.raises(ValueError):
            pipeline_trace(*args)
    with pytest.raises(ValueError):
        pipeline_trace(3, 4, "nope")


def test_widget_headless():
    from course.widgets.cp_async import cp_async_stepper
    w = cp_async_stepper()
    assert "보장되지 않은 읽기 2번" in w.summary.value
    w.step.value = w.step.max
    w.tail.value = "empty_commit"
    assert "모든 타일" in w.summary.value
    w.num_stages.value, w.num_tiles.value = 4, 1
    assert w.trace.num_stages == 4 and w.trace.ok
    w.tail.value = "seed"
    errs = [i for i, s in enumerate(w.trace.steps) if s.error]
    w.step.value = errs[0]
    assert "#ff9a9a" in w.view.value and "color:#c00" in w.view.value
