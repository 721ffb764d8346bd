"""cp.async widgets, headless: the loop sandbox (presets fill the controls, every control re-runs
sim.cp_async.run_loop, bad compositions show their error in the widget) and the group stepper (each step shows the
model's event: code line, pending and landed groups, stage states, hazards)."""
import html

import ipywidgets as W
import pytest

from course.widgets.cp_async import (CUSTOM, CpAsyncSandbox, cp_async_sandbox, cp_async_stepper, describe_event,
                                     group_text)
from kernels_numba.infra.errors import CourseInputError
from sim import cp_async


def order(w):
    return tuple(s.value for s in w.slots if s.value)


@pytest.fixture
def box():
    return cp_async_sandbox()


def test_starts_from_the_seed_loop(box):
    assert isinstance(box, CpAsyncSandbox) and isinstance(box.widget, W.Box)
    assert box.spec == cp_async.PRESETS["common"].spec and box.run.num_tiles == 6
    assert "위험 2건" in box.summary.value and "꼬리에서 그룹이 모자람" in box.summary.value
    assert "kt=4, 5" in box.summary.value and "빈 그룹" in box.summary.value
    assert "kt=4 버퍼 1" in box.summary.value and "미리 읽기(kt=2)" in box.summary.value
    assert "cp_async_wait_group(2)" in box.code.value and box.table.value.count("<tr>") == 1 + 1 + 6
    assert box.table.value.count("#ffd6d6") == 2                   # the two computes of the tail in red
    assert "G0[t0] G1[t1]" in box.table.value                      # pending groups after the prologue


def test_presets_are_labelled_with_their_kernels(box):
    labels = dict((v, k) for k, v in box.preset.options)
    assert "async_common_tail" in labels["common"] and "async_copy" in labels["async_copy"]
    assert "async_vec" in labels["async_vec"] and CUSTOM in labels
    assert all("우리 커널" not in label for label in labels.values())
    for key in ("async_copy", "async_vec"):
        box.preset.value = key
        assert box.spec == cp_async.PRESETS[key].spec and box.preset.value == key
        assert "위험(hazard) 없음" in box.summary.value and "#ffd6d6" not in box.table.value
    assert order(box) == ("wait", "barrier", "prefetch", "commit", "compute")
    assert box.wait_n.value == 1 and "cp_async_wait_group(1)" in box.code.value


def test_controls_recompose_and_name_the_hazard(box, capsys):
    box.preset.value = "async_vec"
    box.wait_n.value = 2                                            # async_copy's N with async_vec's order
    assert box.preset.value == CUSTOM and box.spec.wait_n == 2
    assert "wait_group N 이 너무 큼" in box.summary.value and "wait_group 1 입니다" in box.summary.value
    box.wait_n.value = 1
    box.slots[1].value = "prefetch"                                 # prefetch before the barrier: WAR
    box.slots[2].value = "barrier"
    assert order(box)[:3] == ("wait", "prefetch", "barrier")
    assert "배리어 없이 읽는 중인 버퍼를 덮어씀" in box.summary.value and "[WAR]" in box.summary.value
    box.preset.value = "async_copy"
    box.slots[3].value = ""                                         # async_copy without the barrier after the wait
    assert "wait 뒤 배리어 없음" in box.summary.value and "__syncthreads()" in box.summary.value
    box.preset.value = "common"
    box.tail.value = "always"
    assert box.run.ok and box.preset.value == CUSTOM
    box.tail.value = "wait0_tail"
    assert box.run.ok and "if nxt &lt; num_k_tiles else 0" in box.code.value
    assert capsys.readouterr() == ("", "")                          # callbacks never print


def test_stages_carry_the_distance_and_tiles(box):
    box.stages.value = 4                                            # the seed loop, S = 4: N and D follow S
    assert (box.ahead.value, box.wait_n.value) == (3, 3) and box.run.causes() == {"tail": [3, 4, 5]}
    box.preset.value = "async_vec"
    box.stages.value = 2
    assert (box.ahead.value, box.wait_n.value) == (1, 0) and box.run.ok        # async_vec_s2
    box.preset.value = "async_copy"
    box.stages.value = 4
    assert box.ahead.value == 3 and box.spec.stages == 4 and box.run.ok and "최대 3개 타일" in box.summary.value
    box.wait_n.value = 2
    assert box.run.ok and "최대 2개 타일" in box.summary.value     # N = 2 < S-1 is safe, it just overlaps less
    box.wait_n.value = 3
    box.ahead.value = 4                                             # prefetching S tiles ahead
    assert "날아가는 중인 버퍼에 또 복사" in box.summary.value
    box.num_tiles.value = 12
    assert box.run.num_tiles == 12 and box.table.value.count("<tr>") == 1 + 1 + 12


def test_bad_composition_is_shown_not_raised(box):
    box.slots[4].value = ""                                         # no compute
    assert box.run is None and "compute" in box.summary.value and "해결" in box.summary.value
    box.slots[0].value = "compute"
    assert box.run is not None
    box.slots[1].value = "compute"
    assert box.run is None and "한 번까지만" in box.summary.value


def test_bad_arguments():
    with pytest.raises(CourseInputError):
        cp_async_sandbox("ours")
    with pytest.raises(CourseInputError):
        cp_async_sandbox(num_tiles=0)


# ------------------------------------------------------------------------------------------ the group stepper

def _event_index(run, kt, step):
    return next(i for i, e in enumerate(run.events) if e.kt == kt and e.step == step)


def test_stepper_steps_through_the_model():
    """Every step of the seed loop: the headline, the pending groups and the stages are the model's event."""
    w = cp_async_stepper("common", num_tiles=8)
    run = cp_async.run_loop(cp_async.PRESETS["common"].spec, 8)
    assert w.step.max == len(run.events) == 2 + 8 * 6 and w.step.min == 1    # prologue (S-1 copies), 6 steps a tile
    for i, e in enumerate(run.events):
        w.step.value = i + 1                                           # the slider counts from 1, as the headline
        assert w.position == i
        assert w.describe() == describe_event(run, i) and f"단계 {i + 1}/{len(run.events)}" in w.headline.value
        for g, tiles in e.pending:                                     # every pending group in the queue
            assert html.escape(group_text(g, tiles)) in w.queue.value
        for s, (state, tile) in enumerate(e.stages):
            assert html.escape(cp_async.STATE_KO[state]) in w.stages.value.split(f"버퍼 {s}")[1]
    # commit -> a new group; wait_group(2) with 3 pending lands the oldest; the barrier makes it visible
    w.go(_event_index(run, 0, "commit"))
    assert "G2[t2]로 묶습니다" in w.describe() and "outline:2px" in w.queue.value
    w.go(_event_index(run, 0, "wait"))
    assert "도착(landed): G0[t0]" in w.describe() and "G0[t0] 도착" in w.queue.value
    assert run.events[w.position].stages[0] == (cp_async.LANDED, 0)
    w.next.click()
    assert run.events[w.position].stages[0] == (cp_async.VISIBLE, 0) and "__syncthreads" in w.describe()


def test_stepper_shows_the_tail_hazard_and_the_fix():
    w = cp_async_stepper("common", num_tiles=8, at=(6, "wait"))
    assert "아무것도 기다리지 않고" in w.describe() and "G6[t6]" in w.queue.value and "도착</span>" not in w.queue.value
    assert "cp_async_wait_group(2)" in w.code.value.split("▶ ")[1]     # the highlighted line is the wait
    assert "위험 2건" in w.summary.value and "kt=6, 7" in w.summary.value
    w.next_wait.click()                                                # kt = 7's wait
    assert w.run.events[w.position].kt == 7 and w.run.events[w.position].step == "wait"
    w.go(w.index(6, "compute"))
    assert "꼬리에서 그룹이 모자람" in w.hazards.value and "#ff9a9a" in w.stages.value
    w.loop.value = "async_copy"                                         # the fix: an empty group every iteration
    assert w.run.ok and "위험이 없습니다" in w.summary.value and not w.hazards.value
    w.go(w.index(6, "wait"))
    assert "도착(landed): G6[t6]" in w.describe()
    w.go(w.index(6, "commit"))
    assert "빈 그룹 G8[빈]" in w.describe()


def test_stepper_buttons_and_other_loops():
    w = cp_async_stepper("async_vec", num_tiles=4)
    assert w.back.disabled and not w.next.disabled
    w.next.click()
    w.next.click()
    w.back.click()
    assert w.position == 1 and w.step.value == 2
    w.go(10 ** 6)
    assert w.step.value == w.step.max and w.next.disabled and w.next_wait.disabled
    w.num_tiles.value = 2                                              # fewer events: the step is clamped
    assert w.step.value == w.step.max == len(w.run.events) and w.position == len(w.run.events) - 1 and w.run.ok
    spec = cp_async.LoopSpec(("wait", "prefetch", "commit", "compute"), 1, 3)   # a composed loop: no barrier
    g = cp_async_stepper(spec, num_tiles=4)
    assert g.loop.value == "given" and g.spec == spec and not g.run.ok
    bad = [i for i in range(len(g.run.events)) if g.hazards_at(i)]
    g.go(bad[0])
    assert "[RAW]" in g.hazards.value or "[WAR]" in g.hazards.value


def test_stepper_bad_arguments():
    for args in (("ours",), ("seed", 0), ("seed", 13), ("async_vec", 4, ("seed",))):
        with pytest.raises(CourseInputError):
            cp_async_stepper(*args)
    with pytest.raises(CourseInputError):
        cp_async_stepper("common", 8, at=(9, "wait"))


def test_the_old_name_of_the_common_loop_opens_the_same_stepper():
    old, new = cp_async_stepper("seed", num_tiles=8, loops=("seed", "async_copy")), cp_async_stepper("common", num_tiles=8)
    assert old.loop.value == new.loop.value == "common" and old.describe() == new.describe()
