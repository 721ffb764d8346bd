"""Some numba-cuda tests (test_print.py) run their kernels in a fresh `python -c` subprocess; with this folder on
PYTHONPATH and SGEMM_UPSTREAM_PATCH=1 that subprocess runs on the course's patched simulator too, not the stock one."""
import os

if os.environ.get("SGEMM_UPSTREAM_PATCH") == "1":
    import kernels_numba  # noqa: F401  (SGEMM_DEVICE=sim: chooses the simulator and installs infra.simulator)
