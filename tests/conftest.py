"""Pick the device (GPU or simulator) before any test module imports numba, whatever order pytest collects them in."""
import kernels_numba  # noqa: F401
