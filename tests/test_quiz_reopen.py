"""Real browser: a notebook saved with the checkpoint's output, reopened in JupyterLab, tells the student to re-run it.

JupyterLab saves no widget state by default, so the reopened widget output reads "Error displaying widget: model not
found"; the note show_quiz puts below it must then be visible, and hidden again once the cell runs and the live
widget is back.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _live import CHROMIUM, CHROMIUM_FLAGS, ROOT, jupyter_lab, lab_settings, wait_for

BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"Chromium not found at {CHROMIUM}: install Debian's `chromium fonts-nanum` or set SGEMM_CHROMIUM")

RUN_FIRST = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.sessionContext || !w.sessionContext.session || !w.sessionContext.session.kernel) return false;
  if (w.sessionContext.session.kernel.status !== 'idle') return false;
  w.content.activeCellIndex = 0;
  window.jupyterapp.commands.execute('notebook:run-cell');
  return true;
}"""


def _saved_notebook(folder, env):
    """Run show_quiz("06") in a kernel and save the notebook as JupyterLab does by default (no widget state)."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('from course.quiz import show_quiz\nshow_quiz("06")')])
    old = dict(os.environ)
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    nb.metadata.pop("widgets", None)
    for name in ("untrusted.ipynb", "trusted.ipynb"):
        nb.metadata["title"] = name           # trust is by content: the two copies must differ
        nbformat.write(nb, folder / name)


def test_reopened_checkpoint_says_to_rerun_the_cell(tmp_path):
    """Untrusted (someone else's copy): the widget output falls back to its text/plain hint; trusted (the student's own
    signed notebook): JupyterLab's 'model not found' error. The note below says what to do in both."""
    from playwright.sync_api import sync_playwright
    work = tmp_path / "nb"
    work.mkdir()
    env = {"PYTHONPATH": str(ROOT), "SGEMM_DEVICE": "sim", "SGEMM_PROGRESS": str(tmp_path / "progress"),
           "SGEMM_STUDENT": "browser", "PYTHONDONTWRITEBYTECODE": "1"}
    _saved_notebook(work, env)
    lab_env = dict(os.environ, HOME=str(tmp_path / "home"),
                   JUPYTERLAB_SETTINGS_DIR=str(lab_settings(tmp_path, windowing=True)),
                   JUPYTER_CONFIG_DIR=str(tmp_path / "jcfg"), JUPYTER_DATA_DIR=str(tmp_path / "jdata"),
                   PATH=f"{BIN}:{os.environ.get('PATH', '')}", **env)
    subprocess.run([str(BIN / "jupyter"), "trust", str(work / "trusted.ipynb")], env=lab_env, check=True,
                   capture_output=True, timeout=120)
    with jupyter_lab(work, lab_env, tmp_path) as (url, token):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = None
                for name, shown in (("untrusted.ipynb", "다시 실행하세요"), ("trusted.ipynb", "model not found")):
                    if page is not None:
                        page.close()
                    page = browser.new_page(viewport={"width": 1280, "height": 1000}, locale="ko-KR")
                    page.goto(f"{url}/lab/tree/{name}?reset&token={token}")
                    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden):has(.jp-Notebook)")
                    note = panel.locator(".sgemm-quiz-note").first
                    note.wait_for(state="attached", timeout=120000)
                    out = panel.locator(".jp-OutputArea-child").first
                    wait_for(lambda: shown in out.inner_text(), 90, f"{shown!r} on the reopened output of {name}")
                    assert note.is_visible() and "다시 실행하세요" in note.inner_text(), name
                    assert panel.locator(".sgemm-quiz").count() == 0
                wait_for(lambda: page.evaluate(RUN_FIRST), 120, "the kernel, to run the cell again")
                panel.locator(".sgemm-quiz").first.wait_for(state="visible", timeout=120000)
                time.sleep(1)
                notes = panel.locator(".sgemm-quiz-note")
                assert notes.count() == 1 and not notes.first.is_visible()      # live widget: the note is hidden
                assert "model not found" not in panel.locator(".jp-OutputArea").first.inner_text()
            finally:
                browser.close()
