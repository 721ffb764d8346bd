"""Old name of the simulator's scheduler: kernels_numba.infra.simulator.scheduler (kept for existing imports)."""
from .simulator.scheduler import *  # noqa: F401,F403
from .simulator.scheduler import (BlockManager, _state, check_alignment as _check_alignment, get_schedule,  # noqa: F401
                                  install, set_schedule, shared_alloc)
from .simulator.errors import DivergentBarrierError  # noqa: F401
from .simulator.state import current as _current  # noqa: F401
