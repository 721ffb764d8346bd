"""Level 6: mma_pipe4 with launch_bounds(256, 2) — ptxas must fit 2 blocks (16 warps) per SM, so at most 128 registers.

mma_pipe4 uses ~209 registers: 1 block of 8 warps per SM (12.5 % occupancy). Capping at 128 doubles the warps that can
hide ldmatrix/mma latency, at the price of spilling part of the state to local memory (the GPU run records the loaded
kernel's local bytes). Same body as mma_pipe4 (kernels_numba.tc.build_tiled); the simulator ignores launch bounds.

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_pipe4_lb2.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_pipe4_lb2", "mma_pipe4 + launch_bounds(256, 2): SM당 2블록(레지스터 ≤128, 일부 스필)",
             BM=128, BN=128, BK=16, WARPS_M=2, WARPS_N=4, STAGES=4, MIN_BLOCKS=2)

# on purpose: the register cap trades a few hundred bytes of local memory per thread for 2 blocks per SM
SPILLS = "launch_bounds(256, 2) caps registers at 128; mma_pipe4 needs ~209, so ptxas spills (test_compile checks)"
