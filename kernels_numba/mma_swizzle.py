"""Level 6: mma_pipe4_lb2's block and warp tiles with BK = 32, 2 stages and an XOR-swizzled (unpadded) shared layout.

Instead of padding each row by 16 bytes (mma_pipe, mma_pipe4), the rows are stored unpadded and the 16-byte chunks of
a row are permuted by XOR with bits of the row index (kernels_numba.tc.swizzle_params), so the 8 rows of one
ldmatrix phase still fall in 8 different bank groups. The swizzle repeats every 8 rows, so a lane's ldmatrix columns
do not depend on the mma tile: fewer addresses stay live across the K loop. Shared memory 2 x (128 x 32 + 32 x 128)
x 2 B = 32 768 B; launch_bounds(256, 2) for 2 blocks (16 warps) per SM. The recorded run compares it with the same
configuration on padded rows and with other stage counts (benchmarks/record_level6.py EXPLORE).

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_swizzle.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_swizzle", "BK=32·2단 + XOR 스위즐(swizzle) 공유 메모리 + launch_bounds(256, 2)",
             BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2, MIN_BLOCKS=2, SWIZZLE=True)

# on purpose: launch_bounds(256, 2) caps registers at 128; the epilogue's 64 accumulators spill ~520 B (test_compile checks)
SPILLS = "launch_bounds(256, 2) caps registers at 128; the 64 accumulators of the epilogue spill about 520 B per thread"
