"""Level 6: mma_pipe with f16 accumulation (mma ... .f16.f16.f16.f16) and f16 output — the seed's `unsigned c_reg[2]`.

Each 16x8 accumulator tile is two .f16x2 registers per lane instead of four f32: half the accumulator registers, but
every addition rounds to 11 significant bits, so the error grows 8192 times faster with K than with f32 accumulation
(kernels_numba.tc.error_bound; notebook 10 plots it).

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_pipe_f16acc.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_pipe_f16acc", "mma_pipe, f16 누적 (mma .f16.f16.f16.f16) + f16 출력",
             BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2, acc="f16", out="f16")
