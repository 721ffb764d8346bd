"""The root conftest deselects nbval's run of a notebook whose real-browser test runs in the same session (on the
simulator, with Chromium present), and only then: the browser's Run All is that notebook's execution."""
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROWSER = '''import pytest
@pytest.mark.parametrize("nb", ["06", "07"])
def test_notebook_in_a_real_browser(nb):
    pass
'''


def _setup(pytester):
    shutil.copy(ROOT / "conftest.py", pytester.path / "conftest.py")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_browser.py").write_text(BROWSER)
    cell = {"cell_type": "code", "metadata": {}, "source": "print(1)", "outputs": [], "execution_count": None}
    nb = {"metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    for name in ("06_a.ipynb", "07_b.ipynb", "08_c.ipynb"):
        (pytester.path / name).write_text(json.dumps(dict(nb, cells=[dict(cell, id=name[:2])])))


def _collected(pytester, *args):
    # importlib mode: this session has imported the real tests/test_browser.py already (same basename)
    res = pytester.runpytest("--collect-only", "-q", "-p", "no:xdist", "-p", "no:randomly", "--nbval-lax",
                             "--nbval-current-env", "--import-mode=importlib", *args)
    return [ln for ln in res.stdout.lines if "::" in ln]


@pytest.mark.sim_only("the browser test, and so the deselection, happens on the simulator only (this process picked "
                      "its device already)")
def test_nbval_of_a_browser_tested_notebook_is_deselected(pytester, monkeypatch):
    _setup(pytester)
    monkeypatch.setenv("SGEMM_CHROMIUM", sys.executable)          # "Chromium" is present
    monkeypatch.setenv("SGEMM_DEVICE", "sim")
    got = _collected(pytester, "tests", "06_a.ipynb", "07_b.ipynb", "08_c.ipynb")
    assert [g for g in got if "ipynb" in g] == ["08_c.ipynb::Cell 0"], got
    # 07's browser test does not run: its nbval does
    got = _collected(pytester, "tests", "06_a.ipynb", "-k", "not 07")
    assert "06_a.ipynb::Cell 0" not in got and "tests/test_browser.py::test_notebook_in_a_real_browser[06]" in got
    assert _collected(pytester, "06_a.ipynb") == ["06_a.ipynb::Cell 0"]    # a notebook alone: nbval runs it
    monkeypatch.setenv("SGEMM_CHROMIUM", str(pytester.path / "no-chromium"))
    assert "06_a.ipynb::Cell 0" in _collected(pytester, "tests", "06_a.ipynb")
