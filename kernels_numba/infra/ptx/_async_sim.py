"""Old name of the simulator's cp.async unit: kernels_numba.infra.simulator.async_copy (kept for existing imports)."""
from ..simulator.async_copy import *  # noqa: F401,F403
from ..simulator.async_copy import STAND_INS, reset, unit  # noqa: F401
from ..simulator.errors import AsyncCopyAlignmentError  # noqa: F401
