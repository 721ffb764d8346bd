"""Level 6: a 128x128 block tile, 8 warps (2 x 4), each warp 64x32 of C = 4 x 4 mma tiles; BK = 32, one buffer.

Per K step of 32 every warp issues 2 x 4 ldmatrix.x4 (A), 2 x 2 ldmatrix.x4.trans (B) and 2 x 16 mma: each A fragment
is reused for 4 mma and each B fragment for 4, where mma_large reloads both for every single mma.
STAGES = 1: load, wait, compute (the same template as mma_pipe*).

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_warps.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_warps", "블록 128×128, 워프 8개 × (4×4 mma 타일), BK=32, 단일 버퍼 cp.async",
             BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=1)
