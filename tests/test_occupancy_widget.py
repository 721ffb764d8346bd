"""Occupancy explorer: controls recompute the model and redraw, errors are shown not raised, headless."""
import base64
from dataclasses import replace

import matplotlib

matplotlib.use("Agg", force=True)

import ipywidgets as W  # noqa: E402
import pytest  # noqa: E402

from course.widgets.occupancy import CURRENT, OccupancyExplorer, occupancy_explorer  # noqa: E402
from sim.occupancy import GPUS  # noqa: E402


@pytest.fixture
def ex():
    return occupancy_explorer()


def shown(ex):
    """(html or plain text of the table/error, PNG bytes or None) currently in the Output."""
    outs = ex.out.outputs
    text = outs[0]["data"].get("text/html", outs[0]["data"]["text/plain"])
    png = base64.b64decode(outs[1]["data"]["image/png"]) if len(outs) > 1 else None
    return text, png


def test_controls_and_defaults(ex):
    assert list(ex.gpu.options)[:3] == ["A100", "H100", "H200"]
    assert (ex.gpu.value, ex.regs.value, ex.threads.value, ex.smem.value) == ("H100", 128, 256, 8192)
    assert (ex.regs.min, ex.regs.max, ex.threads.min, ex.threads.max, ex.threads.step) == (1, 255, 32, 1024, 32)
    assert ex.smem.max == 227 * 1024
    assert isinstance(ex.widget, W.Box) and isinstance(ex.out, W.Output)
    assert ex.result.blocks_per_sm == 2 and ex.result.percent == 25.0 and ex.error is None
    text, png = shown(ex)
    assert "25.0%" in text and "레지스터" in text and png.startswith(b"\x89PNG")


def test_controls_recompute_and_redraw(ex, capsys):
    _, before = shown(ex)
    ex.regs.value = 32
    assert ex.result.percent == 100.0 and ex.result.limiter == "warps"
    _, after = shown(ex)
    assert after != before
    ex.smem.value = 48 * 1024
    assert ex.result.blocks_per_sm == 4 and ex.result.limiter == "shared memory"
    ex.gpu.value = "A100"
    assert ex.result.blocks_per_sm == 3 and ex.result.gpu == "A100"
    ex.threads.value = 1024
    assert ex.result.warps_per_block == 32
    assert capsys.readouterr() == ("", "")       # callbacks never print


def test_model_error_is_shown_in_korean_not_raised(ex, capsys):
    ex.smem.value = 200 * 1024                   # fine on H100 (227 KB per block) ...
    assert ex.result.blocks_per_sm == 1
    ex.gpu.value = "A100"                        # ... too much for A100 (163 KB): shown, not raised
    assert ex.result is None and ex.error is not None
    text, png = shown(ex)
    assert "입력 오류" in text and "163 KiB" in text and png is None
    assert "Input error" not in text
    ex.smem.value = 8192                         # recovers
    assert ex.error is None and ex.result.gpu == "A100"
    assert shown(ex)[1].startswith(b"\x89PNG")
    assert capsys.readouterr() == ("", "")


def test_unlaunchable_configuration_is_a_result():
    ex = occupancy_explorer(gpu="A100", regs=255, threads=512, smem=0)
    assert ex.result.blocks_per_sm == 0 and not ex.result.launchable
    assert "실행 불가" in shown(ex)[0]


def test_current_gpu_option():
    fake = replace(GPUS["H200"], name="NVIDIA H200")
    ex = OccupancyExplorer(gpu=CURRENT, current=fake)
    assert CURRENT in ex.gpu.options and ex.spec is fake and ex.result.gpu == "NVIDIA H200"
    assert "NVIDIA H200" in shown(ex)[0]
    from kernels_numba.infra import device
    if device.MODE != "gpu":                     # no GPU in CI: no such option, and asking for it is a clear error
        assert CURRENT not in occupancy_explorer().gpu.options
        from kernels_numba.infra.errors import CourseInputError
        with pytest.raises(CourseInputError):
            occupancy_explorer(gpu=CURRENT)
