"""SGEMM kernels written in Numba, one module per variant, all launched as launch(A, B, C, alpha, beta) -> C.

Importing this package first picks the device (GPU, or Numba's CUDA simulator when there is none)
before numba is imported; see kernels_numba.infra.device and kernels_numba.infra.boot.
"""
from .infra import boot  # noqa: F401,I001     (first: the device choice, then numba, then the simulator patch)
from . import _moved  # noqa: F401             (answers the old kernels_numba.infra.<tool> names, one round)
from .infra import device, errors
from .tools import subsim  # noqa: F401        (installs the runner for kernels this device lacks instructions for)
from .infra.errors import CourseInputError
from .registry import REGISTRY, get, by_level


def sgemm(name, A, B, C, alpha=1.0, beta=0.0):
    """Run registered kernel `name`: C = alpha*A@B + beta*C (in place); returns C."""
    return get(name).launch(A, B, C, alpha, beta)


__all__ = ["device", "errors", "REGISTRY", "get", "by_level", "sgemm", "CourseInputError"]
