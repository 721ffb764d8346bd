"""Probe (not a GEMM): the warp-specialised shape CUTLASS uses setmaxnreg in — launch_bounds(384, 1), warpgroup 0
gives registers back (setmaxnreg.dec 40), the others ask for more (setmaxnreg.inc 232), each role one branch. Compiled
offline (lesson11.setmaxnreg_evidence) to show what ptxas does with it when Numba's toolchain links the PTX."""
import numpy as np
from numba import cuda, float32

from ..infra import device, hopper, ptx
from .. import tc

NAME = "setmaxnreg_probe"
MIN_CC = hopper.MIN_CC
ARCH_SPECIFIC = True
SIG = tc.sig(np.float32)
_jit = cuda.jit if device.SIMULATOR else cuda.jit(launch_bounds=(384, 1))


@_jit
def kernel(A, B, C, alpha, beta):
    acc = cuda.local.array(64, float32)
    wg = cuda.threadIdx.x // 128
    if wg == 0:
        ptx.setmaxnreg_dec_40()
    else:
        ptx.setmaxnreg_inc_232()
        for i in range(64):
            acc[i] = float32(A[cuda.threadIdx.x % 64, i % A.shape[1]])
        for i in range(64):
            C[cuda.threadIdx.x % 64, i % C.shape[1]] = alpha * acc[i]
