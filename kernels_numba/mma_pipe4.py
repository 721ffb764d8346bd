"""Level 6: the same block and warp tiles as mma_pipe with BK = 16 and 4 stages (3 tiles in flight while one is used).

Shared memory: 4 x (128 x 24 + 16 x 136) x 2 B = 41 984 B. More tiles in flight hide more latency; each stage carries
half the mma work of a BK = 32 stage, so there is one barrier per 16 mma per warp instead of per 32.

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_pipe4.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_pipe4", "mma_pipe 의 4단 파이프라인 변형 (BK=16, 타일 3개를 미리 복사)",
             BM=128, BN=128, BK=16, WARPS_M=2, WARPS_N=4, STAGES=4)
