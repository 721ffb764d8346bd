"""course.racereport: a bug demo's wrong answer and the detector's report side by side."""
import pytest

from course import racereport
from kernels_numba.demos import async_no_wait, races


@pytest.mark.sim_only("the race detector is the simulator's")
def test_demo_outcome_has_wrong_answer_and_report(capsys):
    out = racereport.run_demo(async_no_wait.launch, 32, 32, 24)
    assert not out["ok"] and out["report"] and "IN_FLIGHT" in out["report"].kinds
    racereport.show(out)
    text = capsys.readouterr().out
    assert "numpy 와 일치: False" in text and "threadIdx" in text and "해결" in text and "async_no_wait.py:" in text


@pytest.mark.sim_only("the race detector is the simulator's")
def test_no_sync2_is_right_by_luck_on_the_simulator_but_reported():
    out = racereport.run_demo(races.launch_no_sync2, 32, 32, 32)
    assert out["report"] and "WAR" in out["report"].kinds


@pytest.mark.sim_only("the race detector is the simulator's")
@pytest.mark.parametrize("which,kind", [("no_barrier_after_wait", "RAW"), ("no_trailing_barrier", "WAR")])
def test_mma_barrier_demos_are_reported(which, kind):
    import numpy as np
    from kernels_numba.demos import mma_barriers
    out = racereport.run_demo(getattr(mma_barriers, "launch_" + which), 32, 16, 48, dtype=np.float16)
    assert out["report"] and kind in out["report"].kinds, out["report"].summary() if out["report"] else None
    assert any("ldmatrix" in (h.second_what + h.first_what) or "LDSM" in h.ko or "ldmatrix" in h.ko
               for h in out["report"].hazards)
