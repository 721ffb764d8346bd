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
