"""Deliberately broken kernels for the bug demonstrations (not registered).

Their launchers run the simulator's race detector in collect mode: the buggy kernel runs to the end and returns its
(wrong) C, as the GPU would, and `launch.last_report` holds what the detector found (threads, lines, fix), so a
lesson can show the wrong answer and the report side by side. On a GPU `last_report` is None.
"""
import os

from ..infra import device, jitcache
from ..launch import make_launch
from ..infra.simulator import racecheck


def demo_launch(kernel, block, tile, min_cc=None):
    """make_launch for a bug demo: the race detector collects instead of raising; the report is launch.last_report."""
    fn = getattr(kernel, "py_func", None)
    if fn is not None and fn.__closure__ is None:       # a module-level kernel: its module and name say what it is
        jitcache.enable(kernel, f"{fn.__module__}.{fn.__qualname__}")
    return collecting(make_launch(kernel, block, tile, min_cc=min_cc))


def collecting(inner):
    """A launch whose simulator runs collect races instead of raising them (the report is launch.last_report)."""

    def launch(A, B, C, alpha=1.0, beta=0.0):
        if not device.SIMULATOR:        # (below sm_80 the launch goes to a simulator process, which collects too)
            if inner.away:
                prev = os.environ.get("SGEMM_RACECHECK")
                os.environ["SGEMM_RACECHECK"] = "collect"
                try:
                    return inner(A, B, C, alpha, beta)
                finally:                # the student's own setting, if any, comes back
                    if prev is None:
                        os.environ.pop("SGEMM_RACECHECK", None)
                    else:
                        os.environ["SGEMM_RACECHECK"] = prev
            return inner(A, B, C, alpha, beta)
        with racecheck.collect() as report:
            out = inner(A, B, C, alpha, beta)
        launch.last_report = report
        return out

    launch.kernel, launch.block, launch.away = inner.kernel, inner.block, inner.away
    launch.tile = getattr(inner, "tile", None)
    launch.last_report = None
    return launch
