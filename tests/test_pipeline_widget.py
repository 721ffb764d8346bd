"""Pipeline timeline explorer: sliders recompute the model and redraw, headless; errors stay in the widget."""
import base64

import matplotlib

matplotlib.use("Agg", force=True)

import ipywidgets as W  # noqa: E402
import pytest  # noqa: E402

from course.widgets import pipeline as widget  # noqa: E402
from course.widgets.pipeline import PipelineExplorer, pipeline_explorer  # noqa: E402
from kernels_numba.infra.errors import CourseInputError  # noqa: E402


@pytest.fixture
def ex():
    return pipeline_explorer()


def png(ex):
    """Bytes of the Gantt chart currently shown."""
    (out,) = ex.plot.outputs
    return base64.b64decode(out["data"]["image/png"])


def test_defaults_are_the_seed_example(ex):
    assert isinstance(ex, PipelineExplorer)
    assert [ex.t_load.value, ex.t_comp.value, ex.n_tiles.value, ex.stages.value, ex.t_sync.value] == [100, 10, 4, 2, 0]
    assert (ex.stages.min, ex.stages.max) == (1, 4) and ex.n_tiles.max >= 512
    assert isinstance(ex.widget, W.Box) and isinstance(ex.summary, W.HTML) and isinstance(ex.plot, W.Output)
    assert ex.timeline.total == 410 and ex.single.total == 440
    assert "410" in ex.summary.value and "440" in ex.summary.value and "1.073" in ex.summary.value
    assert "500" in ex.summary.value                      # the seed's formula, shown next to the model
    assert png(ex).startswith(b"\x89PNG")


def test_sliders_recompute_and_redraw(ex, capsys):
    before = png(ex)
    ex.t_load.value, ex.t_comp.value = 80, 100
    assert ex.timeline.total == 480 and ex.single.total == 720
    assert "1.500" in ex.summary.value and "83.3%" in ex.summary.value
    assert "모델과 같음" in ex.summary.value
    assert png(ex) != before
    ex.stages.value = 1
    assert ex.timeline.total == 720 and ex.timeline.stages == 1
    ex.stages.value = 3
    ex.t_sync.value = 20
    assert ex.timeline.total == 80 + 100 + 3 * 120 and len(ex.timeline.of("sync")) == 3
    assert "교재" not in ex.summary.value                 # the seed's formula has no sync term
    ex.n_tiles.value = 512
    assert ex.timeline.n_tiles == 512 and len(ex.timeline.of("load")) == 512
    assert capsys.readouterr() == ("", "")               # callbacks never print


def test_practice_tasks_and_loads_in_flight():
    ex = pipeline_explorer(t_load=400, t_comp=200, n_tiles=512)
    assert ex.timeline.total == 205_000 and ex.single.total == 307_200
    assert "로드 제한" in ex.summary.value and "모델보다 200 김" in ex.summary.value
    ex.t_comp.value = 2048
    assert ex.timeline.total == 1_048_976 and "연산 제한" in ex.summary.value
    ex.t_comp.value, ex.n_tiles.value, ex.stages.value = 200, 8, 3
    ex.loads_in_flight.value = 2
    assert ex.timeline.loads_in_flight == 2 and "일치" in ex.summary.value
    assert {e.lane for e in ex.timeline.of("load")} == {0, 1}


def test_model_errors_are_shown_not_raised(ex, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise CourseInputError("모델이 거부함", "model refused", "값을 고치세요", "fix the value")

    monkeypatch.setattr(widget.pipeline, "schedule", broken)
    ex.t_load.value = 50                                  # must not raise out of the callback
    assert ex.timeline is None and "모델이 거부함" in ex.error
    assert "입력 오류" in ex.summary.value and ex.plot.outputs == ()
    monkeypatch.undo()
    ex.t_load.value = 60
    assert ex.error is None and ex.timeline.t_load == 60 and png(ex).startswith(b"\x89PNG")
    assert capsys.readouterr() == ("", "")


def test_bad_constructor_arguments():
    with pytest.raises(CourseInputError):
        pipeline_explorer(t_load=-1)
    with pytest.raises(CourseInputError):
        pipeline_explorer(t_comp=2.5)                      # sliders hold whole cycles
    assert pipeline_explorer(t_load=100.0, t_comp=5000).t_comp.max == 5000


def test_long_timelines_zoom_on_the_first_tiles_with_readable_labels():
    """Issue 18: N = 512 drawn whole was a smear and the labels ~6 px; the chart now shows the first tiles, labelled."""
    from course.widgets import pipeline as widget
    ex = pipeline_explorer(t_load=400, t_comp=200, n_tiles=512)
    ax = ex.figure().axes[0]
    assert ax.get_xlim()[1] < 0.05 * float(ex.timeline.total)
    labels = [t for t in ax.texts if "|b" in t.get_text()]
    assert labels and min(t.get_fontsize() for t in labels) >= widget.FONT >= 10
    assert "확대" in ax.get_xlabel()
    small = pipeline_explorer(t_load=100, t_comp=10, n_tiles=4).figure().axes[0]
    assert small.get_xlim()[1] >= 410 and "확대" not in small.get_xlabel()
