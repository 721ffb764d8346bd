"""numba-cuda's own simulator tests run against our patch (tests/upstream, `make test`): the list of deliberate
differences is well formed and names real tests, CI runs the runner, and the debug-mode regression stays fixed."""
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from numba import cuda

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_numba_cuda_sim", ROOT / "tests" / "upstream" / "run_numba_cuda_sim.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)


def test_known_differences_name_real_tests_with_reasons():
    known = runner.known_differences()
    assert known, "the alignment differences are deliberate and must be listed"
    import numba.cuda.tests.cudapy as suite
    here = Path(suite.__file__).parent
    for test, reason in known.items():
        fname, cls, func = test.split("::")
        src = (here / fname).read_text()
        assert re.search(rf"^class {cls}\b", src, re.M) and re.search(rf"^\s+def {func}\(", src, re.M), test
        assert len(reason) > 40, f"{test}: say why"


def test_known_differences_file_rejects_entries_without_reason(tmp_path):
    bad = tmp_path / "k.txt"
    bad.write_text("test_x.py::C::t\n")
    with pytest.raises(ValueError, match="reason"):
        runner.known_differences(bad)


def test_short_ids():
    assert runner.UpstreamPlugin.short_id("a/b/test_x.py::C::t") == "test_x.py::C::t"
    assert runner.UpstreamPlugin.short_id("test_x.py::C::t") == "test_x.py::C::t"


def test_ci_runs_the_upstream_suite():
    make = (ROOT / "Makefile").read_text()
    test_target = make.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "tests/upstream/run_numba_cuda_sim.py" in test_target
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@cuda.jit(debug=True, opt=False)
def _divide(r, x):
    i = cuda.threadIdx.x
    cuda.syncthreads()              # the error state must survive a switch between simulated threads
    r[i] = 1.0 / x[i]


@cuda.jit
def _divide_plain(r, x):
    i = cuda.threadIdx.x
    r[i] = 1.0 / x[i]


@pytest.mark.sim_only("on the GPU debug=True raises ZeroDivisionError through Numba's error model")
@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning")
def test_debug_division_by_zero_raises_naming_the_thread():
    """numba-cuda's test_zero_division_error_in_debug, which our scheduler once broke (it returned inf)."""
    x = np.array([1.0, 2.0, 0.0, 4.0])
    with pytest.raises(FloatingPointError, match=r"tid=\[2, 0, 0\] ctaid=\[0, 0, 0\].*divide by zero"):
        _divide[1, 4](np.zeros(4), x)
    r = np.zeros(4)
    _divide_plain[1, 4](r, x)           # without debug: inf, as before, and the caller's state is untouched
    assert np.isinf(r[2]) and r[3] == 0.25
    assert np.geterr()["divide"] == "warn"


def test_subprocesses_of_the_upstream_suite_get_the_patch_too():
    """test_print.py runs kernels in `python -c`: the runner's sitecustomize must patch the simulator there too."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parent / "upstream" / "subprocess_patch"
    path = [str(here), str(ROOT), os.environ.get("PYTHONPATH")]      # the GPU machine finds packages through PYTHONPATH
    env = dict(os.environ, SGEMM_DEVICE="sim", SGEMM_UPSTREAM_PATCH="1", PYTHONPATH=os.pathsep.join(filter(None, path)))
    code = "from numba.cuda.simulator import kernel; print(getattr(kernel, '_sgemm_course_patched', False))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/")
    assert out.stdout.strip() == "True", out.stderr[-2000:]
