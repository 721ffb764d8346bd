"""Pick the device (GPU or simulator) before any test module imports numba, whatever order pytest collects them in,
and skip tests that only mean something on one device.

    @pytest.mark.sim_only("why it is a simulator-only fact")     skipped in GPU mode, with that reason
    @pytest.mark.gpu_only("why it needs real hardware")           skipped in simulator mode, with that reason

The reason is required: a skip that does not say why hides a missing test.
"""
import pytest

import kernels_numba  # noqa: F401  (device choice happens here, before numba)
from kernels_numba.infra import device

MARKERS = {"sim_only": "sim", "gpu_only": "gpu"}


def pytest_configure(config):
    config.addinivalue_line("markers", "sim_only(reason): the test checks a simulator-only behaviour; "
                                       "skipped in GPU mode with the reason given")
    config.addinivalue_line("markers", "gpu_only(reason): the test needs a real GPU; "
                                       "skipped in simulator mode with the reason given")


def skip_reason(item, mode=None):
    """The skip reason for `item` in device mode `mode` (default: the active one), or None to run it."""
    mode = mode or device.MODE
    for name, wants in MARKERS.items():
        mark = item.get_closest_marker(name)
        if mark is None:
            continue
        reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
        if not reason:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs a reason")
        if mode != wants:
            where = "시뮬레이터 전용 / simulator only" if wants == "sim" else "GPU 전용 / needs a GPU"
            return f"{where} (mode={mode}): {reason}"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = skip_reason(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
