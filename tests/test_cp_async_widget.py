"""cp.async loop sandbox widget, headless: presets fill the controls, every control re-runs sim.cp_async.run_loop,
bad compositions show their error in the widget; the older stepper still works for nb09's cells."""
import ipywidgets as W
import pytest

from course.widgets.cp_async import CUSTOM, CpAsyncSandbox, cp_async_sandbox, cp_async_stepper
from kernels_numba.infra.errors import CourseInputError
from sim import cp_async


def order(w):
    return tuple(s.value for s in w.slots if s.value)


@pytest.fixture
def box():
    return cp_async_sandbox()


def test_starts_from_the_seed_loop(box):
    assert isinstance(box, CpAsyncSandbox) and isinstance(box.widget, W.Box)
    assert box.spec == cp_async.PRESETS["seed"].spec and box.run.num_tiles == 6
    assert "위험 2건" in box.summary.value and "꼬리에서 그룹이 모자람" in box.summary.value
    assert "kt=4, 5" in box.summary.value and "빈 그룹" in box.summary.value
    assert "kt=4 버퍼 1" in box.summary.value and "미리 읽기(kt=2)" in box.summary.value
    assert "cp_async_wait_group(2)" in box.code.value and box.table.value.count("<tr>") == 1 + 1 + 6
    assert box.table.value.count("#ffd6d6") == 2                   # the two computes of the tail in red
    assert "G0[t0] G1[t1]" in box.table.value                      # pending groups after the prologue


def test_presets_are_labelled_with_their_kernels(box):
    labels = dict((v, k) for k, v in box.preset.options)
    assert "async_seed_tail" in labels["seed"] and "async_copy" in labels["async_copy"]
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
    box.preset.value = "seed"
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


def test_old_stepper_still_works():
    w = cp_async_stepper()
    assert "보장되지 않은 읽기 2번" in w.summary.value and len(w.trace.errors) == 2
    assert dict((v, k) for k, v in w.tail.options)["empty_commit"].endswith("(async_copy, async_vec)")
    w.step.value = w.step.max
    w.tail.value = "empty_commit"
    assert "모든 타일" in w.summary.value
    w.num_stages.value, w.num_tiles.value = 4, 1
    assert w.trace.num_stages == 4 and w.trace.ok
    w.tail.value = "seed"
    errs = [i for i, s in enumerate(w.trace.steps) if s.error]
    w.step.value = errs[0]
    assert "#ff9a9a" in w.view.value and "color:#c00" in w.view.value
