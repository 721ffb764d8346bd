"""Level 6: mma_pipe with f16 output — f32 accumulation in registers, C stored as float16 (half the bytes written).

Only the epilogue differs: alpha * acc + beta * C is computed in f32 and rounded once to f16 on the store.

The kernel body: build_tiled in kernels_numba/tc.py (its inner `kernel`; load_tile and compute sit just
above it, with a comment at every barrier and wait_group), built for the configuration below;
course.show_source(mma_pipe_f16out.kernel) prints it with its file's line numbers.
"""
from .tc import tiled_module

tiled_module(globals(), "mma_pipe_f16out", "mma_pipe, C 를 f16 으로 저장 (누적은 f32)",
             BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2, acc="f32", out="f16")
