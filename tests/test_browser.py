"""Real browser: JupyterLab on a local port, headless Debian Chromium through Playwright, notebook 06 end to end.

Runs every cell, checks there are no error outputs, that the bank-conflict widget renders and reacts
to a control, solves exercise 06-2 wrongly (the checker names the race) then rightly (PASS), fails the checkpoint
without seeing a key, then passes it and sees the explanations. Screenshots go to artifacts/browser/.
"""
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from _live import CHROMIUM, CHROMIUM_FLAGS, ROOT, jupyter_lab, lab_settings, snapshot, wait_for

ARTIFACTS = ROOT / "artifacts" / "browser"
BIN = Path(sys.executable).parent
RUN_ALL_TIMEOUT_S = 900

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"Chromium not found at {CHROMIUM}: install Debian's `chromium fonts-nanum` (.ci/run does) "
           "or set SGEMM_CHROMIUM; this test drives a real browser")

NB_STATE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model || !w.sessionContext.session) return null;
  const cells = Array.from(w.content.model.cells);
  const code = cells.filter(c => c.type === 'code');
  const errors = [];
  code.forEach((c, i) => c.outputs.toJSON().forEach(o => {
    if (o.output_type === 'error') errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
  }));
  const kernel = w.sessionContext.session.kernel;
  return {code: code.length, done: code.filter(c => c.executionCount !== null).length,
          pending: code.map((c, i) => c.executionCount === null ? i : -1).filter(i => i >= 0).slice(0, 5),
          errors, status: kernel ? kernel.status : 'none'};
}"""


CELL_BY_SOURCE = """([needle, text]) => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = Array.from(w.content.model.cells);
  const i = cells.findIndex(c => c.sharedModel.getSource().startsWith(needle));
  if (i >= 0 && text !== null) cells[i].sharedModel.setSource(text);
  if (i >= 0) w.content.activeCellIndex = i;
  return i;
}"""
CELL_OUTPUT = """(i) => {
  const w = window.jupyterapp.shell.currentWidget;
  const c = w.content.model.cells.get(i);
  return c.outputs.toJSON().map(o => o.text || (o.data && o.data['text/plain']) || o.evalue || '').join('');
}"""


def _run_cell(page, needle, text=None):
    """Put `text` into the first cell whose source starts with `needle` (None: keep it), run it, return its index."""
    i = page.evaluate(CELL_BY_SOURCE, [needle, text])
    assert i >= 0, f"no cell starts with {needle!r}"
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-cell')")
    return i


def _solve_exercise(page, ex, source):
    """Replace the exercise's starter cell by `source`, run it and the check cell; the check's printed result."""
    _run_cell(page, ex.template.splitlines()[0] + "\n" + ex.template.splitlines()[1], source)
    time.sleep(1)
    needle = f'from course.exercises import check, hint\ncheck("{ex.id}"'
    before = page.evaluate(CELL_OUTPUT, page.evaluate(CELL_BY_SOURCE, [needle, None]))
    i = _run_cell(page, needle)
    out = {}
    wait_for(lambda: out.update(t=page.evaluate(CELL_OUTPUT, i)) or (f"[{ex.id}]" in out["t"] and out["t"] != before),
             120, f"the check of {ex.id}", interval=1)
    return out["t"]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab serving a copy of notebook 06 (nothing written into the course folder); stopped afterwards."""
    work = tmp_path / "nb"
    work.mkdir()
    nb = next((ROOT / "notebooks").glob("06_*.ipynb"))
    shutil.copy(nb, work / nb.name)
    env = dict(os.environ, HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), SGEMM_DEVICE="sim",
               SGEMM_PROGRESS=str(tmp_path / "progress"), SGEMM_STUDENT="browser", PYTHONDONTWRITEBYTECODE="1",
               JUPYTERLAB_SETTINGS_DIR=str(lab_settings(tmp_path)), JUPYTER_CONFIG_DIR=str(tmp_path / "jcfg"),
               PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    with jupyter_lab(work, env, tmp_path) as (url, token):
        yield {"url": url, "token": token, "nb": nb.name, "tmp": tmp_path}


def test_notebook_06_in_a_real_browser(lab):
    from playwright.sync_api import sync_playwright
    t0 = time.time()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    before = snapshot(ROOT)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000}, locale="ko-KR")
            page.goto(f"{lab['url']}/lab/tree/{lab['nb']}?token={lab['token']}")
            wait_for(lambda: (page.evaluate(NB_STATE) or {}).get("status") == "idle", 120, "the notebook's kernel")
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            state = {}

            def finished():
                state.update(page.evaluate(NB_STATE) or {})
                return state.get("errors") or (state.get("done") == state.get("code") and state["status"] == "idle")

            try:
                wait_for(finished, RUN_ALL_TIMEOUT_S, "all cells to run", interval=2)
            except AssertionError as e:        # say where it stopped: which code cells never ran, kernel status
                page.screenshot(path=str(ARTIFACTS / "notebook06_timeout.png"))
                raise AssertionError(f"{e}; state: {state}") from None
            page.screenshot(path=str(ARTIFACTS / "notebook06_after_run_all.png"))
            assert not state["errors"], state["errors"]
            assert state["done"] == state["code"] > 10
            t_run = time.time() - t0

            # the bank-conflict explorer rendered, and a control changes its output
            banks = page.locator(".sgemm-banks").first
            banks.scroll_into_view_if_needed()
            banks.locator("img, svg, canvas").first.wait_for(timeout=30000)
            text_before = banks.inner_text()
            img = banks.locator("img").first
            src_before = img.get_attribute("src")
            banks.screenshot(path=str(ARTIFACTS / "banks_widget.png"))
            select = banks.locator("select").first
            options = select.locator("option").all_inner_texts()
            target = next(o for o in options if o.startswith("As[ty][k]"))
            select.select_option(label=target)
            wait_for(lambda: banks.inner_text() != text_before, 30, "the widget's counts to change")
            wait_for(lambda: banks.locator("img").first.get_attribute("src") != src_before, 30,
                     "the widget's bank map to redraw")
            banks.screenshot(path=str(ARTIFACTS / "banks_widget_changed.png"))

            # an exercise, solved wrongly (barrier 2 missing), then rightly: the checker explains, then passes
            from course.exercises import core
            ex = core.get("06-2")
            sol = (ROOT / ex.solution_file).read_text(encoding="utf-8")
            body = sol[sol.index("@cuda.jit"):sol.index("\n\n\ndef run")].replace("def tiled8", "def my_tiled8")
            wrong = body.replace("        cuda.syncthreads()          # barrier 2", "        pass  # barrier 2")
            assert wrong != body
            first = _solve_exercise(page, ex, wrong)
            assert "아직입니다" in first and "race" in first and "해결" in first, first
            page.screenshot(path=str(ARTIFACTS / "exercise_wrong.png"))
            second = _solve_exercise(page, ex, body)
            assert "PASS" in second, second
            t_ex = time.time() - t0

            # the checkpoint: answer, submit, see the score
            quiz = page.locator(".sgemm-quiz").first
            quiz.scroll_into_view_if_needed()
            # first a failing attempt (every auto-graded answer wrong): the wrong questions and where to reread, no
            # key and no explanation; then the keyed answers pass and the explanations appear
            from course.quiz.engine import load_answers, load_quiz
            q06, keys = load_quiz("06"), load_answers("06")
            secrets = [re.findall(r"[가-힣][가-힣 ]{10,}[가-힣]", keys[q.id].get("explanation", "")) for q in q06.questions
                       if q.type != "explain"]
            secrets = [max(x, key=len) for x in secrets if x]        # plain Korean text of each explanation

            def answer(right):
                values, choices = ["browser"], []          # text inputs: student id first
                for q in q06.questions:
                    if q.type == "numeric":
                        values.append(str(keys[q.id]["key"]) if right else "-1")
                    elif q.type == "code":
                        values += [str(v) if right else "0" for v in keys[q.id]["key"]]
                    elif q.type == "mc":
                        choices.append(keys[q.id]["key"] if right else
                                       next(c[0] for c in q.choices if c[0] != keys[q.id]["key"]))
                texts = quiz.locator("input[type=text]")
                assert texts.count() == len(values)
                for i, value in enumerate(values):
                    texts.nth(i).fill(value)
                radios = quiz.locator(".widget-radio-box")
                for i, key in enumerate(choices):
                    radios.nth(i).locator("label", has_text=f"({key})").first.click()
                quiz.locator("button", has_text="제출").click()

            answer(False)
            quiz.locator("text=미통과").first.wait_for(timeout=240000)
            failed = quiz.inner_text()
            assert "점수: 0/" in failed and "다시 읽을 곳" in failed, failed[-800:]
            leaked = [x for x in secrets if x in failed]
            assert not leaked, f"a failed attempt showed explanations: {leaked[:2]}"
            quiz.screenshot(path=str(ARTIFACTS / "quiz_failed.png"))
            answer(True)
            expected = sum(q.type != "explain" for q in q06.questions)
            quiz.locator(f"text=점수: {expected}/{q06.total}").first.wait_for(timeout=240000)
            result = quiz.inner_text()
            button = quiz.locator("button", has_text="제출")
            button.evaluate("b => b.scrollIntoView({block: 'start'})")
            box = button.bounding_box()
            page.screenshot(path=str(ARTIFACTS / "quiz_result.png"),
                            clip={"x": max(0, box["x"] - 8), "y": box["y"] - 8, "width": 900, "height": 560})
            assert f"점수: {expected}/{q06.total}" in result, result[-800:]
            assert any(x in result for x in secrets), "the explanations appear after a pass"
            assert ("미통과" not in result) == (expected >= q06.pass_at)
        finally:
            browser.close()
    records = [json.loads(x) for x in (lab["tmp"] / "progress" / "attempts.jsonl").read_text().splitlines()]
    assert [r["score"] for r in records if r.get("kind") != "exercise"] == [0, expected]
    assert [(r["exercise"], r["ok"]) for r in records if r.get("kind") == "exercise"][-2:] == [("06-2", False),
                                                                                              ("06-2", True)]
    assert snapshot(ROOT) == before
    print(f"browser test: run-all {t_run:.0f}s, exercise done at {t_ex:.0f}s, total {time.time() - t0:.0f}s",
          file=sys.stderr)
