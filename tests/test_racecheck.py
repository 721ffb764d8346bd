"""The simulator's shared-memory race detector: every buggy kernel of tests/racecases.py is caught with the right
hazard and both source lines, whatever order the threads run in; the correct kernels and every registered kernel
run hazard-free; the report names threads, lines and a fix; collect mode and the off switch work."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra.simulator import errors as sim_errors, racecheck
from kernels_numba.infra.simulator.scheduler import get_schedule, set_schedule

import racecases
from racecases import CASES, build, tag_lines

pytestmark = pytest.mark.sim_only("the race detector is part of the simulator; on a GPU compute-sanitizer does this")

BUGGY = [c for c in CASES if c.expect or c.error]
GOOD = [c for c in CASES if not (c.expect or c.error)]


def test_there_are_enough_buggy_kernels():
    assert len([c for c in BUGGY if c.expect]) >= 20
    kinds = {c.expect[0] for c in BUGGY if c.expect}
    assert kinds == {"RAW", "WAR", "IN_FLIGHT"}


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c.name)
def test_correct_kernels_are_hazard_free_and_right(case, tmp_path):
    launch, _ = build(case, tmp_path)
    C, ref = launch(np.random.default_rng(0))
    tol = 1e-2 if case.template == "mma" else 1e-4
    assert np.allclose(C, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", BUGGY, ids=lambda c: c.name)
def test_buggy_kernel_is_caught_with_kind_and_lines(case, tmp_path):
    launch, lines = build(case, tmp_path)
    if case.error:
        with pytest.raises(getattr(sim_errors, case.error)) as e:
            launch(np.random.default_rng(0))
        assert "alignment=16" in str(e.value) and "As" in str(e.value)
        assert f"race_{case.name}.py:" in str(e.value)            # the kernel line
        return
    with pytest.raises(racecheck.SharedMemoryRaceError) as e:
        launch(np.random.default_rng(0))
    h = e.value.hazard
    kind, first, second = case.expect
    assert h.kind == kind, str(e.value)
    assert h.first_site[1] in tag_lines(lines, first), (first, str(e.value))
    assert h.second_site[1] in tag_lines(lines, second), (second, str(e.value))
    if case.via:                           # the copy landed at that wait, or was caught still on its way there
        assert h.first_what == "cp.async" and (h.first_via is None or h.first_via[1] == lines[case.via]), str(e.value)
        assert "wait" in h.fix_en, h.fix_en
    if kind != "IN_FLIGHT":
        assert h.first_thread is not h.second_thread
    text = str(e.value)
    for needle in ("threadIdx", "warp", "lane", "blockIdx", f"race_{case.name}.py:{h.first_site[1]}",
                   f"race_{case.name}.py:{h.second_site[1]}", "해결", "Fix"):
        assert needle in text, (needle, text)
    assert "kt=" in text                                            # the K tile where the second access happened


@pytest.mark.parametrize("order", ["reverse", "random"])
@pytest.mark.parametrize("case", [c for c in BUGGY if c.expect], ids=lambda c: c.name)
def test_no_schedule_hides_a_hazard(case, order, tmp_path):
    """The same lines are reported whatever order the threads run in (the kind may flip RAW <-> WAR)."""
    launch, lines = build(case, tmp_path)
    prev = get_schedule()
    set_schedule(order, seed=7)
    try:
        with pytest.raises(racecheck.SharedMemoryRaceError) as e:
            launch(np.random.default_rng(0))
    finally:
        set_schedule(*prev)
    h = e.value.hazard
    _, first, second = case.expect
    allowed = tag_lines(lines, first) | tag_lines(lines, second)
    assert {h.first_site[1], h.second_site[1]} <= allowed, str(e.value)


@pytest.mark.parametrize("case", [c for c in BUGGY if c.expect][:6], ids=lambda c: c.name)
def test_collect_mode_runs_to_the_end_and_summarises(case, tmp_path):
    launch, lines = build(case, tmp_path)
    with racecheck.collect() as report:
        C, ref = launch(np.random.default_rng(0))
    assert report and case.expect[0] in report.kinds
    assert all(h.count >= 1 for h in report.hazards)
    assert "해결" not in report.summary() or case.expect[0] in report.summary()
    assert C.shape == ref.shape                                    # the kernel ran to its end


def test_off_switch(tmp_path):
    case = next(c for c in BUGGY if c.name == "tiled_no_barrier_after_compute")
    launch, _ = build(case, tmp_path)
    with racecheck.mode("off"):
        launch(np.random.default_rng(0))                            # no error: the detector is off
    assert racecheck.MODE == "raise"


def test_bad_mode_is_a_clear_error():
    with pytest.raises(kn.CourseInputError, match="raise, collect"):
        racecheck.set_mode("loud")


@pytest.mark.parametrize("spec", kn.REGISTRY, ids=lambda s: s.name)
def test_every_registered_kernel_is_hazard_free(spec):
    """Collect mode, so a hazard is listed rather than stopping at the first (raise is the default everywhere else)."""
    rng = np.random.default_rng(1)
    with racecheck.collect() as report:
        if spec.level == 7:
            from test_hopper_kernels import SHAPES, _run as _run7
            _run7(spec, *SHAPES[spec.name][0])
        elif spec.level == 6:
            from test_tc_kernels import _run, _shapes
            _run(spec, *_shapes(spec)[0])
        else:
            M, N, K = 33, 37, 40
            A = rng.standard_normal((M, K)).astype(np.float32)
            B = rng.standard_normal((K, N)).astype(np.float32)
            spec.launch(A, B, np.zeros((M, N), np.float32))
    assert not report, report.summary()
