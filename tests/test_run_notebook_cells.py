"""benchmarks/run_notebook_cells.py without ipywidgets/IPython (as on the GPU machine): only what needs a widget
is skipped, plain plots in the same cell still run, and any other error fails the run."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# block ipywidgets and IPython as if they were not installed, then run the script on the given notebook
NO_JUPYTER = ("import runpy, sys; sys.modules['ipywidgets'] = sys.modules['IPython'] = None; "
              "sys.argv = ['run_notebook_cells.py', sys.argv[1]]; "
              "runpy.run_path('benchmarks/run_notebook_cells.py', run_name='__main__')")


def _run(tmp_path, *cells):
    nb = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
                    for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "t.ipynb"
    path.write_text(json.dumps(nb))
    env = dict(os.environ, SGEMM_DEVICE="sim",
               PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-c", NO_JUPYTER, str(path)], cwd=ROOT, capture_output=True,
                          text=True, env=env)


def test_plot_sharing_a_cell_with_a_widget_still_runs(tmp_path):
    out = _run(tmp_path,
               "from course.widgets.outer import ai_plot, outer_tracer\n"
               "tracer_view = outer_tracer(TM=4, TN=4)\n"
               "tracer_view.widget",
               "fig = ai_plot()\nprint('plot ok', type(fig).__name__, len(fig.axes))\nprint(tracer_view)",
               "from IPython.display import HTML, display\ndisplay(HTML('<b>x</b>'))\n6 * 7")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "stubs: IPython.display (text), ipywidgets (widgets skipped)" in out.stdout
    assert "plot ok Figure" in out.stdout
    skipped = [l.strip() for l in out.stdout.splitlines() if "skipped (needs ipywidgets)" in l]
    assert skipped == ["skipped (needs ipywidgets): tracer_view = outer_tracer(TM=4, TN=4)",
                       "skipped (needs ipywidgets): tracer_view.widget",
                       "skipped (needs ipywidgets): print(tracer_view)"]
    assert "<HTML: <b>x</b>>" in out.stdout and "\n42\n" in out.stdout      # display stub; last expression shown
    assert "ALL CELLS RAN" in out.stdout and "(3 statement(s) skipped" in out.stdout


def test_other_errors_fail_the_run(tmp_path):
    for bad, err in (("print(undefined_name)", "NameError"), ("import no_such_module_xyz", "ModuleNotFoundError"),
                     ("1 / 0", "ZeroDivisionError")):
        out = _run(tmp_path, "x = 1", bad)
        assert out.returncode != 0 and err in out.stderr and "ALL CELLS RAN" not in out.stdout, bad
