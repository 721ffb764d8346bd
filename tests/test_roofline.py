"""sim.roofline: ridge points from computed peaks and datasheet bandwidths."""
import pytest

from sim import roofline


def test_peaks_are_lanes_times_clock():
    assert roofline.peak_tflops("A100") == pytest.approx(108 * 64 * 2 * 1.41e9 / 1e12)
    assert roofline.peak_tflops("H100") == pytest.approx(132 * 128 * 2 * 1.98e9 / 1e12)


@pytest.mark.parametrize("gpu,ridge", [("A100", 9.6), ("A100-40GB", 12.5), ("H100", 20.0), ("H200", 13.9)])
def test_ridge_points(gpu, ridge):
    assert roofline.ridge_point(gpu) == pytest.approx(ridge, abs=0.05)


def test_attainable_is_min_of_roofs():
    r = roofline.ridge_point("H200")
    assert roofline.attainable_tflops(r / 2, "H200") == pytest.approx(roofline.peak_tflops("H200") / 2)
    assert roofline.attainable_tflops(10 * r, "H200") == pytest.approx(roofline.peak_tflops("H200"))
    with pytest.raises(ValueError):
        roofline.attainable_tflops(-1, "H200")
