"""Repository-wide pytest hook (here, not in tests/ or notebooks/, so it loads whether pytest is given `notebooks/NN.ipynb`
alone or `-n auto tests notebooks`, and is never copied to students with notebooks/): a notebook cell run by nbval fails
when its output shows a missing-glyph message or a matplotlib warning. A box in place of a character is a defect the
eye misses; this makes it a test failure (issue 18)."""
import os
import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]          # tests/test_nb_warnings.py runs nbval on a small notebook through it

WARNING_LINE = re.compile(r"does not have a glyph for|Glyph \d+ .*missing from|matplotlib\S*:\d+: \w*Warning|"
                          r"^\s*\w*Warning: .*(font|glyph|matplotlib)", re.IGNORECASE)


def warning_lines(outputs):
    """Lines of a cell's stderr (stream outputs) that are a missing-glyph message or a matplotlib warning."""
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr")
    return [ln for ln in text.splitlines() if WARNING_LINE.search(ln)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    outputs = getattr(item, "test_outputs", None)
    if type(item).__module__.startswith("nbval") and outputs:
        bad = warning_lines(outputs)
        if bad:
            raise AssertionError("노트북 셀이 matplotlib 경고/빠진 글리프를 출력했습니다 (a cell printed a matplotlib or "
                                 "missing-glyph warning; fix the plot text or course/plots.py):\n" + "\n".join(bad[:10]))
    return result


BROWSER_TEST = re.compile(r"tests/test_browser\.py::test_notebook_in_a_real_browser\[(\d\d)\]$")


@pytest.hookimpl(trylast=True)          # after -k/-m deselection: only browser tests that will really run count
def pytest_collection_modifyitems(config, items):
    """nbval and tests/test_browser.py both execute notebooks 06-11 from the first cell to the last. When the browser
    test of a notebook runs in this session on the simulator, its Run All is that notebook's execution, with nbval's
    checks (every cell runs, no error output, no matplotlib or missing-glyph warning): nbval's copy is deselected so
    that `make test` keeps its time budget. nbval still runs a notebook given alone (pytest notebooks/NN_x.ipynb),
    without Chromium, and on a GPU (the browser test always runs the simulator)."""
    from kernels_numba.infra import device
    chromium = os.environ.get("SGEMM_CHROMIUM", "/usr/bin/chromium")
    covered = {m.group(1) for it in items if (m := BROWSER_TEST.search(it.nodeid))}
    if not covered or not device.SIMULATOR or not Path(chromium).exists():
        return
    dropped = [it for it in items
               if type(it).__module__.startswith("nbval") and Path(str(it.fspath)).name[:2] in covered]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(dropped)
        items[:] = [it for it in items if it not in gone]
