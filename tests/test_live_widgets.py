"""Every course widget survives a reopen and a restart, headless: a root marked sgemm-widget carrying the line that
shows once its kernel is gone, a display that puts the re-run note right below it, sliders with a usable track; progress
bars leave plain text, no widget, in the saved notebook (a real kernel through nbclient)."""
import html

import ipywidgets as W
import pytest

from course.quiz import QuizWidget
from course.widgets import live
from course.widgets.banks import bank_explorer
from course.widgets.controls import READOUT_PX, fit, text_px, track_px
from course.widgets.cp_async import cp_async_sandbox, cp_async_stepper
from course.widgets.mma import fragment_view, ldmatrix_view
from course.widgets.occupancy import occupancy_explorer
from course.widgets.outer import outer_tracer
from course.widgets.pipeline import pipeline_explorer

VIEWS = {"banks": bank_explorer, "outer": outer_tracer, "occupancy": lambda: occupancy_explorer(current=False),
         "pipeline": pipeline_explorer, "sandbox": cp_async_sandbox, "stepper": cp_async_stepper,
         "fragment": fragment_view, "ldmatrix": ldmatrix_view}


def _all(box):
    """Every widget under `box`, depth first."""
    out = [box]
    for child in getattr(box, "children", ()):
        out += _all(child)
    return out


@pytest.fixture
def quiz(tmp_path, monkeypatch):
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "progress"))
    return QuizWidget("09", student="kim")


@pytest.mark.parametrize("name", VIEWS)
def test_widget_says_when_its_kernel_is_gone(name):
    view = VIEWS[name]()
    root = view.widget
    assert live.ROOT_CLASS in root._dom_classes
    first = root.children[0]
    assert isinstance(first, W.HTML) and live.DEAD_CLASS in first._dom_classes
    # hidden while live, shown once ipywidgets marks the view disconnected (kernel restarted or gone)
    assert f".{live.DEAD_CLASS}{{display:none !important}}" in first.value
    assert f".{live.DEAD_CLASS}.{live.DISCONNECTED}{{display:block !important}}" in first.value
    assert "다시 실행하세요" in first.value and "re-run this cell" in first.value


def test_quiz_says_it_too_next_to_its_button(quiz):
    dead = [w for w in _all(quiz.widget) if live.DEAD_CLASS in getattr(w, "_dom_classes", ())]
    assert len(dead) == 2 and quiz.widget.children[0] is dead[0]
    kids = list(quiz.widget.children)
    assert kids[kids.index(quiz.submit_button) - 1] is dead[1]


@pytest.mark.parametrize("name", VIEWS)
def test_display_puts_the_rerun_note_below(name, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **kw: shown.append((a, kw)))
    view = VIEWS[name]()
    view._ipython_display_()
    (bundle,), kw = shown[0]
    assert kw == {"raw": True}
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == view.widget.model_id
    assert view.NAME_KO in bundle["text/plain"] and "run this cell" in bundle["text/plain"]
    note = shown[1][0][0].data
    assert f'class="{live.NOTE_CLASS}"' in note and html.escape(view.NAME_KO) in note and view.NAME_EN in note
    assert "Error displaying widget" in note and "다시 실행하세요" in note
    # the CSS hides the note only when the output right above holds a live course widget
    assert f".jp-OutputArea-child:has(.{live.ROOT_CLASS}) + .jp-OutputArea-child .{live.NOTE_CLASS}" in note
    assert view._repr_mimebundle_()["text/plain"] == bundle["text/plain"]


@pytest.mark.parametrize("name", [*VIEWS, "quiz"])
def test_every_slider_has_a_usable_track(name, quiz):
    root = quiz.widget if name == "quiz" else VIEWS[name]().widget
    sliders = [w for w in _all(root) if isinstance(w, (W.IntSlider, W.FloatSlider))]
    assert sliders or name in ("quiz", "outer")
    for s in sliders:
        label = int(s.style.description_width.removesuffix("px"))
        assert label >= text_px(s.description) - 8 and track_px(s) >= 120, (s.description, s.layout.width)


def test_fit_estimates_korean_wider_than_latin():
    assert text_px("미리 읽기 거리 D") > text_px("abcdefghij") and text_px("") == 8
    s = fit(W.IntSlider(description="미리 읽기 거리 D (prefetch distance)"), 200)
    assert track_px(s) == 200 and s.layout.width == f"{text_px(s.description) + 200 + READOUT_PX}px"


NOTEBOOK_BARS = r'''
from course.steps import Bar, Progress, steps, NotebookBar, tqdm
assert tqdm is NotebookBar
for _ in steps(range(3), "이 GPU 용 컴파일(JIT, 처음 한 번)", unit="커널"):
    pass
with Bar(2, "멈추는 일") as b:
    b.update(1)
with Progress(1, "긴 한 단계") as p:
    p.update(1)
print("closed:", all(w.comm is None for x in (b.bar, p.bar) for w in (x.container, *x.container.children)))
'''


def test_a_saved_notebook_keeps_text_and_notes(tmp_path, monkeypatch):
    """In a real Jupyter kernel (nbclient), saved as JupyterLab saves (no widget state): each progress bar is a widget
    while it runs and its final line of text once it closes (no widget output left; ✔ when done, a stopped mark
    otherwise; its models closed); a course widget and the checkpoint quiz each leave a widget output with a readable
    text/plain for viewers without widgets, and the re-run note right below it."""
    import nbformat
    from nbclient import NotebookClient
    monkeypatch.setenv("SGEMM_PROGRESS", str(tmp_path / "progress"))
    cells = [NOTEBOOK_BARS, "from course.widgets.cp_async import cp_async_stepper\ncp_async_stepper()",
             'from course.quiz import show_quiz\nshow_quiz("06")']
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.write(nb, tmp_path / "saved.ipynb")
    nb = nbformat.read(tmp_path / "saved.ipynb", as_version=4)
    for cell, note in ((nb.cells[1], 'class="sgemm-widget-note"'), (nb.cells[2], "sgemm-quiz-note sgemm-widget-note")):
        widget, below = cell.outputs
        assert "application/vnd.jupyter.widget-view+json" in widget["data"], cell.outputs
        assert "다시 실행하세요" in widget["data"]["text/plain"] or "이 셀을 실행하면 나타납니다" in widget["data"]["text/plain"]
        assert note in below["data"]["text/html"] and "Error displaying widget" in below["data"]["text/html"]
    outs = nb.cells[0].outputs
    assert not [o for o in outs if o.output_type == "error"], outs
    data = [o for o in outs if o.output_type == "display_data"]
    assert len(data) == 3 and all(set(o.data) == {"text/plain"} for o in data), data
    done, stopped, one = (o.data["text/plain"] for o in data)
    assert done.startswith("이 GPU 용 컴파일(JIT, 처음 한 번): 100%") and "3/3" in done and done.endswith("✔")
    assert stopped.startswith("멈추는 일:  50%") and "1/2" in stopped and "중단됨 / stopped" in stopped
    assert one.startswith("긴 한 단계: 100%") and one.endswith("✔")
    assert "closed: True" in "".join(o.get("text", "") for o in outs if o.output_type == "stream")
