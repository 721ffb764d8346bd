"""The root conftest.py fails an nbval cell whose output shows a missing-glyph message or a matplotlib warning."""
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "conftest.py"


def _load_hook():
    import importlib.util
    spec = importlib.util.spec_from_file_location("root_conftest", HOOK)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _stderr(text):
    return [{"output_type": "stream", "name": "stderr", "text": text}]


@pytest.mark.parametrize("text", [
    "Font 'default' does not have a glyph for '\\u2212' [U+2212], substituting with a dummy symbol.\n",
    "/x/matplotlib/backends/backend_agg.py:211: UserWarning: Glyph 8594 (\\N{RIGHTWARDS ARROW}) missing from font(s) "
    "NanumGothic.\n",
    "/x/site-packages/matplotlib/axes/_base.py:12: UserWarning: Attempting to set identical low and high ylims\n",
])
def test_warning_lines_are_found(text):
    assert _load_hook().warning_lines(_stderr(text))


def test_ordinary_output_passes():
    hook = _load_hook()
    assert not hook.warning_lines([{"output_type": "stream", "name": "stdout", "text": "Glyph 8722 missing from x\n"}])
    assert not hook.warning_lines(_stderr("진행 중 ... 10%\n"))


def test_nbval_cell_with_a_glyph_warning_fails(pytester):
    """End to end: nbval on a two-cell notebook, with the root conftest in place; the cell that draws a glyph the font
    lacks fails, the plain one passes."""
    shutil.copy(HOOK, pytester.path / "conftest.py")
    cells = ["print('ok')",
             "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt, io\n"
             "plt.rcParams['font.family'] = ['NanumGothic']\nimport koreanize_matplotlib\n"
             "plt.rcParams['font.family'] = ['NanumGothic']\n"
             "f, ax = plt.subplots(); ax.set_title('a \\u2212 b'); f.savefig(io.BytesIO())"]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None, "id": f"c{i}"}
                    for i, c in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (pytester.path / "t.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    res = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:randomly", "--nbval-lax", "--nbval-current-env",
                                        "t.ipynb", timeout=300)
    res.assert_outcomes(passed=1, failed=1)
    assert "glyph" in res.stdout.str().lower()
