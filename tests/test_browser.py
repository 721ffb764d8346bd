"""Real browser: JupyterLab on a local port, headless Debian Chromium through Playwright, notebooks 06-11 end to end.

For each notebook, as a student without a GPU would, in one JupyterLab per test worker:
1. Run All: every code cell runs, no error output, no matplotlib/missing-glyph warning (the root conftest's rule). In a
   run that has this test, it is the notebooks' execution: nbval's copy of it is deselected (root conftest.py).
2. Every slider has a usable track; each course widget is driven once and its view changes as its model says.
3. One exercise solved wrongly (the checker says what is wrong), then rightly (PASS).
4. The checkpoint failed (the wrong questions and where to reread, no key), then passed (the explanations).
5. The kernel restarted: every course widget on screen says it is dead.
6. Saved, closed with its kernel, reopened ("day two"): no "model not found" without the re-run note below it, and no
   progress-bar widget left behind; re-running a widget's cell brings it back and hides its note; an untrusted copy
   (09) shows each widget's text hint and the notes.
Screenshots go to artifacts/browser/ (docs/screenshots/ holds copies: the reopened 09 and 10, 09 after a restart).
"""
import importlib.util
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from course import chapters
from _live import CHROMIUM, CHROMIUM_FLAGS, ROOT, jupyter_lab, lab_settings, snapshot, wait_for

ARTIFACTS = ROOT / "artifacts" / "browser"
BIN = Path(sys.executable).parent
RUN_ALL_TIMEOUT_S = 900
NOTEBOOKS = {p.name[:2]: p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb"))}
COVERED = tuple(chapters.numbers())          # every chapter (course/chapters.py, the one list)
SLIDERLESS = ("11",)          # notebook 11's one course widget is its checkpoint

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"Chromium not found at {CHROMIUM}: install Debian's `chromium fonts-nanum` (.ci/run does) "
           "or set SGEMM_CHROMIUM; this test drives a real browser")

NB_STATE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model || !w.sessionContext.session) return null;
  const cells = Array.from(w.content.model.cells);
  const code = cells.filter(c => c.type === 'code');
  const errors = [], stderr = [];
  code.forEach((c, i) => c.outputs.toJSON().forEach(o => {
    if (o.output_type === 'error') errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
    if (o.output_type === 'stream' && o.name === 'stderr') stderr.push({output_type: 'stream', name: 'stderr',
                                                                        text: [].concat(o.text).join('')});
  }));
  const kernel = w.sessionContext.session.kernel;
  return {code: code.length, done: code.filter(c => c.executionCount !== null).length,
          pending: code.map((c, i) => c.executionCount === null ? i : -1).filter(i => i >= 0).slice(0, 5),
          errors, stderr, status: kernel ? kernel.status : 'none'};
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
# every output that shows a widget error, and whether the output right after it shows a visible re-run note
REOPENED = """() => {
  const out = [];
  document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-child').forEach(el => {
    const t = el.innerText;
    if (el.querySelector('.sgemm-widget-note') || !/model not found|Error displaying widget/.test(t)) return;
    const next = el.nextElementSibling;
    const note = next && next.querySelector('.sgemm-widget-note');
    out.push({text: t.slice(0, 120),
              note: !!note && note.offsetParent !== null && note.innerText.includes('다시 실행하세요')});
  });
  return out;
}"""
SLIDERS = """() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .widget-hslider, '
    + '.jp-NotebookPanel:not(.lm-mod-hidden) .jupyter-widget-hslider'))
  .filter(s => s.offsetParent !== null)
  .map(s => ({label: (s.querySelector('.widget-label') || {}).innerText || '',
              track: s.querySelector('.slider-container').getBoundingClientRect().width}))"""


def _warning_lines(outputs):
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.warning_lines(outputs)


def _state(page):
    return page.evaluate(NB_STATE) or {}


def _run_cell(page, needle, text=None):
    """Put `text` into the first cell whose source starts with `needle` (None: keep it), run it, return its index."""
    i = page.evaluate(CELL_BY_SOURCE, [needle, text])
    assert i >= 0, f"no cell starts with {needle!r}"
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-cell')")
    return i


def _solve_exercise(page, ex, source):
    """Replace the exercise's starter cell (or the answer put there before) by `source`, run it and the check cell;
    the check's printed result."""
    marker = f"# 직접 해보기 {ex.id}\n"
    first = page.evaluate(CELL_BY_SOURCE, [marker, None]) < 0
    _run_cell(page, "\n".join(ex.template.splitlines()[:2]) if first else marker, marker + source)
    time.sleep(1)
    needle = f'from course.exercises import check, hint\ncheck("{ex.id}"'
    before = page.evaluate(CELL_OUTPUT, page.evaluate(CELL_BY_SOURCE, [needle, None]))
    i = _run_cell(page, needle)
    out = {}
    wait_for(lambda: out.update(t=page.evaluate(CELL_OUTPUT, i)) or (f"[{ex.id}]" in out["t"] and out["t"] != before),
             180, f"the check of {ex.id}", interval=1)
    return out["t"]


OPEN = """async (path) => { const w = await window.jupyterapp.commands.execute('docmanager:open', {path});
  await w.context.ready; window.jupyterapp.shell.activateById(w.id); return w.id; }"""
# save, then close the tab (the kernel stays, as when a student closes a notebook tab; a reopened notebook reconnects)
CLOSE = """async (shutdown) => { const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.context) return; await w.context.save();
  if (shutdown) await w.sessionContext.shutdown(); w.dispose(); }"""


def _open(page, name):
    """Open notebook `name` in the running JupyterLab page (a new panel reading the file from disk)."""
    page.evaluate(OPEN, name)
    wait_for(lambda: page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path") == name
             and _state(page).get("status") == "idle", 180, f"the kernel of {name}")


def _panel(page):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def _shows(loc, want, what, timeout=30):
    """Wait until every string of `want` is in the widget's text (the model's prediction); the text."""
    wait_for(lambda: all(w in loc.inner_text() for w in want), timeout, what)
    return loc.inner_text()


def _set_slider(widget, label, value):
    """Type `value` into the readout of the slider whose label starts with `label` (as a student can)."""
    slider = widget.locator(".widget-hslider", has=widget.page.locator(".widget-label", has_text=label)).first
    readout = slider.locator(".widget-readout")
    readout.click()
    readout.press("Control+a")
    readout.type(str(value))
    readout.press("Enter")
    wait_for(lambda: readout.inner_text().strip() == str(value), 20, f"slider {label} at {value}")
    return slider


# ------------------------------------------------------------------------------------ per-notebook widget drivers

def bank_summary(index, shape, pad=0, warp=0):
    """sim.banks' verdict for one load of a 16x16 block (what the explorer's counts start with)."""
    from sim import banks
    return banks.analyze(banks.Layout(shape, pad=pad), index, (16, 16), kind="load")[warp].summary()


def drive_06(page):
    """The bank-conflict explorer: another access redraws the counts and the bank map as sim.banks says."""
    banks = _panel(page).locator(".sgemm-banks").first
    banks.scroll_into_view_if_needed()
    banks.locator("img").first.wait_for(timeout=30000)
    before, src = banks.inner_text(), banks.locator("img").first.get_attribute("src")
    banks.screenshot(path=str(ARTIFACTS / "banks_widget.png"))
    select = banks.locator("select").first
    target = next(o for o in select.locator("option").all_inner_texts() if o.startswith("As[ty][k]"))
    select.select_option(label=target)
    want = bank_summary(lambda tx, ty, tz: (ty, 5), (16, 16))           # As[ty][k] at the widget's k = 5, warp 0
    assert want not in before
    _shows(banks, [want], f"the model's counts: {want}")
    wait_for(lambda: banks.locator("img").first.get_attribute("src") != src, 30, "the bank map to redraw")


def drive_07(page):
    """Outer-product tracer: one step is one FMA with the model's loads; occupancy: another GPU, the model's blocks;
    the regblock bank explorer: rA's 2-way conflict, gone with one element of padding, as sim.banks says."""
    from sim import occupancy as occ
    from sim import outer
    tracer = _panel(page).locator(".sgemm-widget", has=page.locator("button", has_text="한 단계")).first
    tracer.scroll_into_view_if_needed()
    before = tracer.inner_text()
    tracer.locator("button", has_text="한 단계").click()
    s = outer.OuterProductTracer(4, 4, 1, "outer")
    s.step()
    s = s.state()
    want = [f"FMA {s.fmas}/{s.total_fmas}", f"로드 {s.loads}개"]
    assert want[0] not in before
    _shows(tracer, want, f"the tracer after one FMA: {want}")

    occ_w = _panel(page).locator(".sgemm-widget", has=page.locator(".widget-label", has_text="스레드당 레지스터")).first
    occ_w.scroll_into_view_if_needed()
    regs, threads = (int(occ_w.locator(".widget-hslider", has=page.locator(".widget-label", has_text=t))
                         .locator(".widget-readout").inner_text()) for t in ("스레드당 레지스터", "블록당 스레드"))
    smem = int(occ_w.locator("input[type=number]").input_value())
    occ_w.locator("select").first.select_option(label="T4")
    g = occ.GPUS["T4"]
    r = occ.occupancy(g, regs, threads, smem)
    want = [f"{g.name} ({g.arch}, SM {g.sm_count}개)", f"{r.active_warps}/{r.max_warps} 워프, 점유율 {r.percent:.1f}%"]
    _shows(occ_w, want, f"the T4's occupancy: {want}")

    rb = _panel(page).locator(".sgemm-banks").nth(0)         # rA's 2-way conflict, which one element of padding ends
    rb.scroll_into_view_if_needed()
    select = rb.locator("select").first
    access = next(o for o in select.locator("option").all_inner_texts() if o.startswith("rA:"))
    select.select_option(label=access)
    ra = lambda tx, ty, tz: (8 * ty, 0)                                 # noqa: E731  As[8·ty+m][k], m = k = 0
    want = bank_summary(ra, (128, 8))
    assert "2-way" in want
    _shows(rb, [want], f"rA's counts: {want}")
    _set_slider(rb, "패딩", 1)
    want = bank_summary(ra, (128, 8), pad=1)
    assert "충돌 없음" in want
    _shows(rb, [want], f"rA's counts with padding 1: {want}")


def drive_08(page):
    """Pipeline timeline: three buffers instead of two, the model's total."""
    from sim import pipeline
    tl = _panel(page).locator(".sgemm-pipeline").first
    tl.scroll_into_view_if_needed()
    before = tl.inner_text()
    _set_slider(tl, "버퍼 수", 3)
    total = pipeline.schedule(4, 100, 10, stages=3).total
    _shows(tl, [f"총 시간 (total): {total}"], f"the model's total for 3 buffers: {total}")
    assert tl.inner_text() != before


def drive_09(page):
    """Group stepper: next step and next wait show the model's events; §4.2 timeline: double buffering's total; sandbox:
    the prefetch distance slider clicked at its left end (a usable track), the model's verdict."""
    from course.widgets.cp_async import cp_async_sandbox, describe_event
    from sim import cp_async, pipeline
    st = _panel(page).locator(".sgemm-stepper").first
    st.scroll_into_view_if_needed()
    run = cp_async.run_loop(cp_async.PRESETS["common"].spec, 8)
    at = next(i for i, e in enumerate(run.events) if e.kt == 6 and e.step == "wait")
    head = st.locator(".sgemm-headline")
    assert describe_event(run, at) in head.inner_text()
    st.locator("button", has_text="다음 ▶").click()
    wait_for(lambda: describe_event(run, at + 1) in head.inner_text(), 20, "the stepper's next step")
    st.locator("button", has_text="다음 wait").click()
    nxt = next(i for i, e in enumerate(run.events) if i > at + 1 and e.step == "wait")
    wait_for(lambda: describe_event(run, nxt) in head.inner_text(), 20, "the stepper's next wait")
    st.locator("select").first.select_option(label=cp_async.PRESETS["async_copy"].label)
    run = cp_async.run_loop(cp_async.PRESETS["async_copy"].spec, 8)
    wait_for(lambda: describe_event(run, nxt) in head.inner_text(), 20, "async_copy at the same step")
    assert "도착(landed): G7[t7]" in head.inner_text()
    st.screenshot(path=str(ARTIFACTS / "nb09_stepper.png"))

    tl = _panel(page).locator(".sgemm-pipeline").first
    tl.scroll_into_view_if_needed()
    before = tl.inner_text()
    _set_slider(tl, "버퍼 수", 2)
    _set_slider(tl, "동시 로드 수", 1)
    total = pipeline.schedule(6, 6, 2, stages=2, loads_in_flight=1).total
    wait_for(lambda: f"총 시간 (total): {total}" in tl.inner_text(), 30, "double buffering's total")
    assert tl.inner_text() != before

    sb = _panel(page).locator(".sgemm-sandbox").first
    sb.scroll_into_view_if_needed()
    slider = sb.locator(".widget-hslider", has=page.locator(".widget-label", has_text="미리 읽기 거리 D")).first
    slider.scroll_into_view_if_needed()
    track = slider.locator(".slider-container")
    box = track.bounding_box()
    assert box["width"] >= 120, box
    before = sb.inner_text()
    page.mouse.click(box["x"] + 1, box["y"] + box["height"] / 2)       # the left end of the track: D = 0
    wait_for(lambda: slider.locator(".widget-readout").inner_text().strip() == "0", 20, "D = 0 from a click")
    model = cp_async_sandbox("async_copy", num_tiles=6)
    model.ahead.value = 0
    verdict = re.search(r"<b[^>]*>(.*?)</b>", model.summary.value).group(1)      # 위험 N건, or 위험(hazard) 없음
    _shows(sb, [verdict, "미리 읽기 거리 D = 0"], f"the sandbox's verdict for D = 0: {verdict}")
    assert sb.inner_text() != before


def drive_10(page):
    """Fragment view: lane 6 of C, its registers as the model says; ldmatrix: .trans, the model's line for lane 13."""
    from course.widgets.mma import describe, describe_ldmatrix
    fr = _panel(page).locator(".sgemm-fragment").first
    fr.scroll_into_view_if_needed()
    _set_slider(fr, "레인", 6)
    wait_for(lambda: describe("C", 6) in fr.inner_text(), 20, "lane 6's C elements")
    _set_slider(fr, "원소 행", 15)
    _set_slider(fr, "원소 열", 7)
    wait_for(lambda: "레인 31 의 c3" in fr.inner_text(), 20, "element (15, 7) named c3 of lane 31")
    ld = _panel(page).locator(".sgemm-ldmatrix").first
    ld.scroll_into_view_if_needed()
    ld.locator("input[type=checkbox]").first.check()
    wait_for(lambda: describe_ldmatrix(13, 4, True) in ld.inner_text(), 20, "ldmatrix .trans for lane 13")


def drive_11(page):
    """Notebook 11's one course widget is its checkpoint (driven by do_checkpoint); its progress bars must have become
    text. A new widget in 11 needs a driver here: this fails until it has one."""
    panel = _panel(page)
    assert panel.locator(".sgemm-widget").count() == panel.locator(".sgemm-quiz").count() == 1
    assert panel.locator(".widget-hprogress, .jupyter-widget-hprogress").count() == 0, "a progress-bar widget is left"


BAR_CELLS = ('from course.steps import Bar\nbar = Bar(4, "시뮬레이터에서 db 블록 하나 실행·기록", unit="실행")\nbar.update(1)',
             "bar.update(3)\nbar.close()")
# the label and the counts of a running bar: how many lines each takes (one: no wrap inside a word)
BAR_LINES = """(cell) => Array.from(cell.querySelectorAll('.widget-hbox > .widget-html')).map(el => {
  const line = parseFloat(getComputedStyle(el.querySelector('.widget-html-content') || el).lineHeight) || 20;
  return Math.round(el.getBoundingClientRect().height / line);
})"""
APPEND = """async (src) => { const app = window.jupyterapp; const w = app.shell.currentWidget;
  w.content.activeCellIndex = w.content.model.cells.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  w.content.activeCell.model.sharedModel.setSource(src);
  await app.commands.execute('notebook:run-cell');
  return w.content.model.cells.length - 1; }"""


def check_progress_bar(page, nb):
    """A running bar in a narrow window: its label and counts stay on one line each; closed, it is one line of text."""
    page.set_viewport_size({"width": 1000, "height": 1000})
    try:
        cell = _panel(page).locator(".jp-Notebook .jp-Cell").nth(page.evaluate(APPEND, BAR_CELLS[0]))
        cell.locator(".widget-hbox").first.wait_for(timeout=30000)
        cell.scroll_into_view_if_needed()
        lines = cell.evaluate(BAR_LINES)
        cell.screenshot(path=str(ARTIFACTS / f"nb{nb}_progress_bar.png"))
        assert lines == [1, 1], f"the bar's label and counts take {lines} lines"
        page.evaluate(APPEND, BAR_CELLS[1])
        wait_for(lambda: cell.locator(".widget-hbox").count() == 0 and "✔" in cell.inner_text(), 30,
                 "the closed bar to become text")
        assert "시뮬레이터에서 db 블록 하나 실행·기록: 100%" in cell.inner_text()
    finally:
        page.set_viewport_size({"width": 1280, "height": 1000})


DRIVERS = {"06": drive_06, "07": drive_07, "08": drive_08, "09": drive_09, "10": drive_10, "11": drive_11}
# one exercise per notebook, solved with its first typical wrong answer (tests/exercise_cases*.py), then rightly
EXERCISES = {"06": ("06-2", "no_barrier_2"), "07": ("07-1", "no_stride"), "08": ("08-3", "common_formula"),
             "09": ("09-1", "commit_only_when_loading"), "10": ("10-2", "a1_a2_swapped"),
             "11": ("11-1", "no_warp_rows")}


def exercise_sources(ex_id, label):
    """(wrong, right) cell sources: the solution file with the case's edits, then as is; the template's name bound."""
    from course.exercises import core
    from exercise_cases import CASES
    ex = core.get(ex_id)
    right = (ROOT / ex.solution_file).read_text(encoding="utf-8") + f"\n{ex.name} = {ex.solution_name}\n"
    wrong = right
    for old, new in dict((c[0], c[1]) for c in CASES[ex_id])[label]:
        assert old in wrong, f"{ex_id}/{label}: the edit no longer matches"
        wrong = wrong.replace(old, new)
    return ex, wrong, right


def do_exercise(page, nb):
    ex, wrong, right = exercise_sources(*EXERCISES[nb])
    first = _solve_exercise(page, ex, wrong)
    assert "아직입니다" in first and "힌트" in first and "PASS" not in first, first
    second = _solve_exercise(page, ex, right)
    assert "PASS" in second, second


def do_checkpoint(page, nb, records):
    """Every auto-graded answer wrong: the wrong questions and where to reread, no key, no explanation, no raw
    backticks; then the keyed answers: passed, explanations shown."""
    from course.quiz.engine import load_answers, load_quiz
    quiz = _panel(page).locator(".sgemm-quiz").first
    quiz.scroll_into_view_if_needed()
    q, keys = load_quiz(nb), load_answers(nb)
    secrets = [re.findall(r"[가-힣][가-힣 ]{10,}[가-힣]", keys[x.id].get("explanation", "")) for x in q.questions
               if x.type != "explain"]
    secrets = [max(x, key=len) for x in secrets if x]        # plain Korean text of each explanation

    def answer(right):
        values, choices, areas = ["browser"], [], []          # text inputs: student id first
        for x in q.questions:
            key = keys[x.id].get("key")
            if x.type == "numeric":
                values.append(str(key) if right else "-1")
            elif x.type == "code" and x.free:                 # a wrong attempt leaves code empty: no kernel to run
                areas.append(str(key[0]) if right else "")
            elif x.type == "code":
                values += [str(v) if right else "" for v in key]
            elif x.type == "mc":
                choices.append(key if right else next(c[0] for c in x.choices if c[0] != key))
        texts = quiz.locator("input[type=text]")
        assert texts.count() == len(values)
        for i, value in enumerate(values):
            texts.nth(i).fill(value)
        code_areas = quiz.locator(".sgemm-quiz-code textarea")
        for i, value in enumerate(areas):
            code_areas.nth(i).fill(value)
        radios = quiz.locator(".widget-radio-box")
        for i, key in enumerate(choices):
            radios.nth(i).locator("label", has_text=f"({key})").first.click()
        quiz.locator("button", has_text="제출").click()

    answer(False)
    quiz.locator("text=미통과").first.wait_for(timeout=240000)
    failed = quiz.inner_text()
    assert "점수: 0/" in failed and "다시 읽을 곳" in failed, failed[-800:]
    assert not [x for x in secrets if x in failed], "a failed attempt showed explanations"
    assert not [ln for ln in failed.splitlines() if "다시 읽을 곳" in ln and "`" in ln], "raw backticks in a reread line"
    answer(True)
    expected = sum(x.type != "explain" for x in q.questions)
    quiz.locator(f"text=점수: {expected}/{q.total}").first.wait_for(timeout=240000)
    result = quiz.inner_text()
    assert any(x in result for x in secrets), "the explanations appear after a pass"
    assert ("미통과" not in result) == (expected >= q.pass_at)
    records += [0, expected]
    if nb == "06":
        button = quiz.locator("button", has_text="제출")
        button.evaluate("b => b.scrollIntoView({block: 'start'})")
        box = button.bounding_box()
        page.screenshot(path=str(ARTIFACTS / "quiz_result.png"),
                        clip={"x": max(0, box["x"] - 8), "y": box["y"] - 8, "width": 900, "height": 560})


def check_restart(page, nb):
    """Restart the kernel: every course widget on screen shows its dead-kernel line."""
    panel = _panel(page)
    roots = panel.locator(".sgemm-widget")
    n = roots.count()
    assert n >= 1
    assert panel.locator(".sgemm-dead").evaluate_all("els => els.filter(e => e.offsetParent !== null).length") == 0
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
    wait_for(lambda: panel.locator(".sgemm-widget .jupyter-widgets-disconnected").count() > 0, 60,
             "ipywidgets to mark the widgets disconnected")
    dead = panel.locator(".sgemm-dead")
    wait_for(lambda: dead.evaluate_all("els => els.filter(e => e.offsetParent !== null).length") >= n, 30,
             "every widget's dead-kernel line")
    first = roots.first
    first.scroll_into_view_if_needed()
    assert "이 셀을 다시 실행하세요" in first.inner_text() and "re-run this cell" in first.inner_text()
    first.screenshot(path=str(ARTIFACTS / f"nb{nb}_after_restart.png"))
    wait_for(lambda: _state(page).get("status") == "idle", 120, "the restarted kernel")


def save_close_reopen(lab, page, nb):
    """Save (outputs, no widget state: JupyterLab's default), close the tab, open the file again: a new panel and widget
    manager that find no widget models (the restarted kernel has none, a new kernel on day two neither)."""
    page.evaluate(CLOSE, False)
    saved = json.loads((lab["work"] / NOTEBOOKS[nb]).read_text(encoding="utf-8"))
    widgets, alone = 0, []
    for c in saved["cells"]:
        outs = c.get("outputs", []) if c["cell_type"] == "code" else []
        for i, o in enumerate(outs):
            if "application/vnd.jupyter.widget-view+json" not in o.get("data", {}):
                continue
            widgets += 1
            note = outs[i + 1].get("data", {}).get("text/html", "") if i + 1 < len(outs) else ""
            if "sgemm-widget-note" not in "".join(note):        # a widget with no note after it (a progress bar?)
                alone.append(("".join(c["source"])[:60], o["data"].get("text/plain", "")[:80]))
    assert widgets and not alone, f"saved widget outputs without a re-run note below: {alone}"
    _open(page, NOTEBOOKS[nb])
    panel = _panel(page)
    panel.locator(".sgemm-widget-note").first.wait_for(state="attached", timeout=60000)
    wait_for(lambda: len(page.evaluate(REOPENED)) >= widgets, 60, f"{widgets} reopened widget outputs")
    shown = page.evaluate(REOPENED)
    assert len(shown) == widgets and all(x["note"] for x in shown), [x for x in shown if not x["note"]]
    assert panel.locator(".sgemm-widget").count() == 0
    return len(shown)


RUN_NOTE_CELL = """(k) => {
  const notes = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .sgemm-widget-note');
  const cell = notes[k].closest('.jp-Cell'); const w = window.jupyterapp.shell.currentWidget;
  w.content.activeCellIndex = Array.from(w.content.widgets).findIndex(c => c.node === cell);
  window.jupyterapp.commands.execute('notebook:run-cell'); return w.content.activeCellIndex; }"""


def check_rerun(page, k):
    """Re-running the cell of the k-th note brings the live widget back and hides that note."""
    i = page.evaluate(RUN_NOTE_CELL, k)
    cell = _panel(page).locator(".jp-Notebook .jp-Cell").nth(i)
    cell.locator(".sgemm-widget").first.wait_for(state="visible", timeout=120000)
    wait_for(lambda: not cell.locator(".sgemm-widget-note").first.is_visible(), 20, "the note to hide")
    assert "model not found" not in cell.inner_text()


def check_untrusted(lab, page, nb):
    """Someone else's copy (not trusted): each widget output falls back to its text/plain hint, the notes show."""
    name = "untrusted_" + NOTEBOOKS[nb]
    data = json.loads((lab["work"] / NOTEBOOKS[nb]).read_text(encoding="utf-8"))
    data["metadata"]["title"] = "someone else's copy"          # trust is by content: a changed copy is not signed
    (lab["work"] / name).write_text(json.dumps(data), encoding="utf-8")
    page.evaluate(CLOSE, True)
    _open(page, name)
    try:
        panel = _panel(page)
        panel.locator(".sgemm-widget-note").first.wait_for(state="attached", timeout=60000)
        text = panel.inner_text()
        assert "model not found" not in text and "이 셀을 실행하면 나타납니다" in text
        notes = panel.locator(".sgemm-widget-note")
        assert notes.count() >= 2 and all(notes.nth(k).is_visible() for k in range(notes.count()))
    finally:
        page.evaluate(CLOSE, True)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One JupyterLab (per test worker) serving copies of notebooks 06-11; stopped afterwards."""
    tmp = tmp_path_factory.mktemp("browser")
    work = tmp / "nb"
    work.mkdir()
    for nb in COVERED:
        shutil.copy(ROOT / "notebooks" / NOTEBOOKS[nb], work / NOTEBOOKS[nb])
    env = dict(os.environ, HOME=str(tmp / "home"), PYTHONPATH=str(ROOT), SGEMM_DEVICE="sim",
               SGEMM_PROGRESS=str(tmp / "progress"), SGEMM_STUDENT="browser", PYTHONDONTWRITEBYTECODE="1",
               JUPYTERLAB_SETTINGS_DIR=str(lab_settings(tmp)), JUPYTER_CONFIG_DIR=str(tmp / "jcfg"),
               PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    with jupyter_lab(work, env, tmp) as (url, token):
        yield {"url": url, "token": token, "work": work, "tmp": tmp}


@pytest.fixture(scope="module")
def page(lab):
    """One Chromium page on that JupyterLab (per worker): each test opens its notebook in it and closes it at the end
    (loading JupyterLab's application once, not once per notebook, is most of what a browser adds to nbval's run)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            pg = b.new_page(viewport={"width": 1280, "height": 1000}, locale="ko-KR")
            pg.goto(f"{lab['url']}/lab?reset&token={lab['token']}")
            wait_for(lambda: pg.evaluate("() => !!(window.jupyterapp && window.jupyterapp.commands"
                                         " .hasCommand('docmanager:open'))"), 180, "JupyterLab in Chromium")
            yield pg
        finally:
            b.close()


@pytest.mark.parametrize("nb", COVERED)
def test_notebook_in_a_real_browser(nb, lab, page):
    t0 = time.time()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    before = snapshot(ROOT)
    _open(page, NOTEBOOKS[nb])
    try:
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        state = {}

        def finished():
            state.update(_state(page))
            return state.get("errors") or (state.get("done") == state.get("code") and state["status"] == "idle")

        try:
            wait_for(finished, RUN_ALL_TIMEOUT_S, "all cells to run", interval=2)
        except AssertionError as e:        # say where it stopped: which code cells never ran, kernel status
            page.screenshot(path=str(ARTIFACTS / f"nb{nb}_timeout.png"))
            raise AssertionError(f"{e}; state: { {k: v for k, v in state.items() if k != 'stderr'} }") from None
        assert not state["errors"], state["errors"]
        assert state["done"] == state["code"] > 10
        bad = _warning_lines(state["stderr"])
        assert not bad, f"matplotlib or missing-glyph warnings: {bad[:5]}"
        t_run = time.time() - t0

        tracks = page.evaluate(SLIDERS)
        assert all(s["track"] >= 100 for s in tracks), [s for s in tracks if s["track"] < 100]
        assert tracks or nb in SLIDERLESS, "no slider found: did the notebook's widgets render?"
        DRIVERS[nb](page)
        if nb == "08":
            check_progress_bar(page, nb)
        do_exercise(page, nb)
        records = []
        do_checkpoint(page, nb, records)
        check_restart(page, nb)
        notes = save_close_reopen(lab, page, nb)
        target = _panel(page).locator(".jp-Notebook .jp-Cell", has=page.locator(".sgemm-widget-note")).nth(
            1 if nb == "09" else 0)                      # 09: the group stepper; the others: their first widget
        target.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        target.screenshot(path=str(ARTIFACTS / f"nb{nb}_reopened.png"))      # the cell alone: no exercise answer
        if nb == "09":          # re-run the group stepper's cell (it needs no earlier cell; 09's first widget uses L)
            check_rerun(page, 1)
            check_untrusted(lab, page, nb)
        if nb == "06":          # and the checkpoint's, last in the notebook
            check_rerun(page, _panel(page).locator(".sgemm-widget-note").count() - 1)
    except BaseException:
        page.screenshot(path=str(ARTIFACTS / f"nb{nb}_failure.png"))
        raise
    finally:
        page.evaluate(CLOSE, True)          # save, shut the kernel down, close the tab: the next notebook starts clean
    attempts = [json.loads(x) for x in (lab["tmp"] / "progress" / "attempts.jsonl").read_text().splitlines()]
    mine = [r for r in attempts if r.get("quiz") == nb or r.get("exercise", "").startswith(nb + "-")]
    assert [r["score"] for r in mine if r.get("kind") != "exercise"] == records
    assert [(r["exercise"], r["ok"]) for r in mine if r.get("kind") == "exercise"][-2:] == [
        (EXERCISES[nb][0], False), (EXERCISES[nb][0], True)]
    assert snapshot(ROOT) == before
    print(f"browser test {nb}: run-all {t_run:.0f}s, total {time.time() - t0:.0f}s, {len(tracks)} sliders, "
          f"{notes} reopened widget outputs with notes", file=sys.stderr)
