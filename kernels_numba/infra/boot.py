"""The first thing kernels_numba imports: pick GPU or Numba's CUDA simulator (device), only then import numba, and on
the simulator install the course's patch (deterministic scheduler, race detector, stand-ins) before any kernel is
defined."""
from . import device                            # must run before anything imports numba
from numba import cuda  # noqa: E402,F401,I001  (after device: initialises the simulator or the driver binding)
from . import simulator  # noqa: E402

if device.SIMULATOR:
    simulator.install()
