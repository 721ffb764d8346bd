"""Old name of the simulator's warp-collective module: kernels_numba.infra.simulator.warp (kept for existing imports)."""
from .simulator.warp import *  # noqa: F401,F403
from .simulator.warp import _C_IDX, _halves, _row_at, mma_warp, pack_halves, ldmatrix_warp  # noqa: F401
from .simulator.errors import WarpCollectiveError  # noqa: F401
