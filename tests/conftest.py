"""Pick the device (GPU or simulator) before any test module imports numba, whatever order pytest collects them in,
and skip tests that only mean something on one device.

    @pytest.mark.sim_only("why it is a simulator-only fact")     skipped in GPU mode, with that reason
    @pytest.mark.gpu_only("why it needs real hardware")           skipped in simulator mode, with that reason

The reason is required: a skip that does not say why hides a missing test.

Offline compiles (kernels_numba.tools.offline) go through one fresh folder per run, $SGEMM_OFFLINE_CACHE, which
every process of the run inherits (pytest-xdist workers, notebook kernels, the browser's JupyterLab): each
(kernel, cc) is compiled once per run instead of once per process.
"""
import compileall
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

import kernels_numba  # noqa: F401  (device choice happens here, before numba)
from kernels_numba.infra import device
from kernels_numba.tools import offline

_OWN_CACHE = None
if not os.environ.get(offline.CACHE_ENV):           # set already: a worker of this run, or the developer's choice
    _OWN_CACHE = os.environ[offline.CACHE_ENV] = tempfile.mkdtemp(prefix="sgemm-offline-")

# The live tests (test_hub, test_browser) check that nothing new appears in the course folders while they run. Under
# pytest-xdist another worker (or a notebook kernel) runs at the same time and would write a module's __pycache__
# the first time it imports it: write them all before any test starts.
if not sys.dont_write_bytecode and not os.environ.get("PYTEST_XDIST_WORKER"):
    for _sub in ("course", "kernels_numba", "sim", "notebooks", "answers"):
        compileall.compile_dir(Path(__file__).resolve().parents[1] / _sub, quiet=2)

MARKERS = {"sim_only": "sim", "gpu_only": "gpu"}


def pytest_configure(config):
    config.addinivalue_line("markers", "sim_only(reason): the test checks a simulator-only behaviour; "
                                       "skipped in GPU mode with the reason given")
    config.addinivalue_line("markers", "gpu_only(reason): the test needs a real GPU; "
                                       "skipped in simulator mode with the reason given")


@pytest.hookimpl(optionalhook=True)           # a hook of pytest-xdist: nothing to check where it is not installed
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist (`make test` runs -n TEST_JOBS): tests go one by one to whichever worker is free, except that the cells
    of a notebook (nbval) share one kernel and must run in order, so a notebook goes to one worker whole, and the
    real-browser tests go to one worker together (one JupyterLab and one Chromium for all six notebooks). (This is
    `--dist loadgroup` keyed by file; xdist_group marks do not group under pytest 9.2 with xdist 3.8.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class NotebookScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return path if path.endswith((".ipynb", "test_browser.py")) else nodeid

    return NotebookScheduling(config, log)


def pytest_unconfigure(config):
    if _OWN_CACHE:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)


def skip_reason(item, mode=None):
    """The skip reason for `item` in device mode `mode` (default: the active one), or None to run it."""
    mode = mode or device.MODE
    for name, wants in MARKERS.items():
        mark = item.get_closest_marker(name)
        if mark is None:
            continue
        reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
        if not reason:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs a reason")
        if mode != wants:
            where = "시뮬레이터 전용 / simulator only" if wants == "sim" else "GPU 전용 / needs a GPU"
            return f"{where} (mode={mode}): {reason}"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = skip_reason(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
