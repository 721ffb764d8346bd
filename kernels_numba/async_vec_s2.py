"""Level 5: async_vec built with NUM_STAGES = 2 (same kernel source, kernels_numba/async_vec.py; wait_group(0) in the loop).

The kernel body: make_kernel in kernels_numba/async_vec.py (its inner `kernel`), built for the configuration below;
course.show_source(async_vec_s2.kernel) prints it with its file's line numbers.
"""
from . import async_vec
from .async_vec import BLOCK, BM, BN, BK, TILE  # noqa: F401  (tile shape, as every kernel module exposes)

NAME = "async_vec_s2"
LEVEL = 5
MIN_CC = (8, 0)
MIN_BARRIERS = 1               # one barrier per K tile, none before the loop (its first barrier covers the prologue)
DESCRIPTION = "async_vec 와 같은 커널, NUM_STAGES=2 (공유 메모리 16 KiB)"
NUM_STAGES = 2
kernel, launch = async_vec.make_kernel(NUM_STAGES)
