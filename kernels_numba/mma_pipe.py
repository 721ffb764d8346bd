"""Level 6: mma_warps plus a multi-stage cp.async pipeline — 128x128 block, 8 warps of 64x32, BK = 32, 2 stages.

While the warps compute tile k from one buffer, the copies of tile k+1 are already in flight into the other
(prologue: STAGES-1 tiles; per iteration wait_group(STAGES-2), one barrier, issue the next tile, compute).
Shared memory: 2 x (128 x 40 + 32 x 136) x 2 B = 37 888 B (static limit 48 KB; 3 stages of BK = 32 would need 56 832 B).

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_pipe.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_pipe", "mma_warps + 2단 cp.async 파이프라인 (BK=32): 다음 타일 복사와 현재 타일 mma 를 겹침",
             BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2)
