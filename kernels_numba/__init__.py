"""SGEMM kernels written in Numba, one module per variant, all launched as launch(A, B, C, alpha, beta) -> C.

Importing this package first picks the device (GPU, or Numba's CUDA simulator when there is none)
before numba is imported; see kernels_numba.infra.device.
"""
from .infra import device                      # must run before anything imports numba

if device.SIMULATOR:
    from numba import cuda as _cuda       # noqa: F401  (initialises the simulator)
    from .infra import simulator as _simulator
    _simulator.install()

from .infra import errors                       # noqa: E402
from .infra.errors import CourseInputError       # noqa: E402
from .registry import REGISTRY, get, by_level   # noqa: E402


def sgemm(name, A, B, C, alpha=1.0, beta=0.0):
    """Run registered kernel `name`: C = alpha*A@B + beta*C (in place); returns C."""
    return get(name).launch(A, B, C, alpha, beta)


__all__ = ["device", "REGISTRY", "get", "by_level", "sgemm", "CourseInputError"]
