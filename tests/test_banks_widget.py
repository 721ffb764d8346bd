"""The bank-conflict widget, driven headless by setting control values."""
import matplotlib

matplotlib.use("Agg", force=True)

from course.widgets.banks import EXERCISE, bank_explorer  # noqa: E402


def test_controls_drive_the_model():
    ex = bank_explorer()
    c = ex.controls
    c["access"].value = "As[ty][tx] 쓰기 (협력 로드)"
    c["warp"].value = 0
    c["padding"].value = 1
    assert ex.report.wavefronts == 2 and ex.report.conflict_degree == 2
    assert "2" in ex.counts.value
    c["padding"].value = 0
    assert ex.report.wavefronts == 1
    c["access"].value = EXERCISE
    c["column"].value = 5
    assert ex.report.wavefronts == 8
    c["padding"].value = 1
    assert ex.report.wavefronts == 1


def test_loads_of_real_warps_are_conflict_free():
    ex = bank_explorer(access="As[ty][k] 읽기 (내적)")
    for warp in range(8):
        ex.controls["warp"].value = warp
        assert ex.report.wavefronts == 1 and ex.report.distinct_words == 2
