"""Outer-product tracer view and AI plot: buttons and controls drive sim.outer, headless."""
import base64

import matplotlib

matplotlib.use("Agg", force=True)

import ipywidgets as W  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from course.widgets.outer import OuterTracerView, ai_plot, outer_tracer  # noqa: E402
from sim import outer  # noqa: E402


@pytest.fixture
def view():
    return outer_tracer()


def png(view):
    (out,) = view.plot.outputs
    return base64.b64decode(out["data"]["image/png"])


def test_layout(view):
    assert isinstance(view, OuterTracerView) and isinstance(view.widget, W.Box)
    assert [b.description for b in (view.step_button, view.run_button, view.reset_button)] == \
        ["한 단계", "끝까지", "처음으로"]
    assert set(view.controls) == {"order", "TM", "TN", "BK"}
    assert isinstance(view.tracer, outer.OuterProductTracer)
    assert (view.tracer.TM, view.tracer.TN, view.tracer.BK, view.tracer.order) == (4, 4, 1, "outer")
    assert png(view).startswith(b"\x89PNG") and "FMA 0/16" in view.counts.value
    assert "외적 로드 8개" in view.counts.value and "내적 로드 32개" in view.counts.value


def test_step_run_reset(view, capsys):
    before = png(view)
    view.step_button.click()
    s = view.tracer.state()
    assert (s.fmas, s.loads, s.current) == (1, 2, (0, 0, 0))
    assert "FMA 1/16" in view.counts.value and "로드/FMA 2.000" in view.counts.value
    assert png(view) != before
    view.step_button.click()
    assert view.tracer.state().loads == 3          # rA[0] already held: only rB[1] is loaded
    view.run_button.click()
    s = view.tracer.state()
    assert (s.fmas, s.loads, s.done) == (16, 8, True) and view.step_button.disabled
    assert "로드/FMA 0.500" in view.counts.value
    view.step_button.click()                       # a click on a finished trace changes nothing
    assert view.tracer.state().fmas == 16
    view.reset_button.click()
    assert view.tracer.state().fmas == 0 and not view.step_button.disabled
    assert capsys.readouterr() == ("", "")        # callbacks never print


def test_switch_order(view):
    view.controls["order"].value = "dot"
    assert view.tracer.order == "dot"
    view.run_button.click()
    s = view.tracer.state()
    assert (s.fmas, s.loads, s.loads_per_fma) == (16, 32, 2.0)
    view.controls["order"].value = "outer"         # a new model, from the start
    assert view.tracer.order == "outer" and view.tracer.state().fmas == 0


def test_change_tile_and_bk(view):
    c = view.controls
    c["TM"].value, c["TN"].value, c["BK"].value = 8, 2, 4
    t = view.tracer
    assert (t.TM, t.TN, t.BK, t.total_fmas) == (8, 2, 4, 64)
    view.run_button.click()
    assert view.tracer.state().loads == 4 * (8 + 2)
    assert "외적 로드 40개" in view.counts.value and "내적 로드 128개" in view.counts.value
    assert view.figure().axes[0].get_title().startswith("외적 (outer product), TM=8 TN=2 BK=4")


def test_ai_plot_points():
    fig = ai_plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    (line,) = [ln for ln in ax.lines if ln.get_gid() == "square"]
    assert line.get_xydata().tolist() == [[t, t / 4] for t in (1, 2, 4, 8, 16)]
    (dots,) = [c for c in ax.collections if c.get_gid() == "asymmetric"]
    want = [[np.sqrt(m * n), outer.intensity(m, n)["ai"]] for m, n in outer.ASYMMETRIC]
    assert np.allclose(dots.get_offsets(), want)
    labels = [t.get_text() for t in ax.texts]
    assert "4x16, 16x4: AI 1.6, 레지스터 84" in labels and "8x8: AI 2, 레지스터 80" in labels
    assert "8x4, 4x8: AI 1.33, 레지스터 44" in labels and "2x32: AI 0.941, 레지스터 98" in labels
    assert "16x16: AI 4, 레지스터 288 > 255!" in labels and "1x1: AI 0.25, 레지스터 3" in labels


def test_ai_plot_custom_configs():
    ax = ai_plot([(2, 2), (8, 8)]).axes[0]
    assert [c for c in ax.collections if c.get_gid() == "asymmetric"] == []
    assert ax.lines[0].get_xydata().tolist() == [[2, 0.5], [8, 2.0]]
