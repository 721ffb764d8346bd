"""Pieces the level-7 (Hopper, sm_90a) kernels share: descriptors, the 128-byte swizzle, the accumulator epilogue.

Layout conventions of the course's wgmma kernels (sim/wgmma.py is the model they follow):
* A tiles are K-major: BM rows of BK = 64 f16 = 128 bytes, the 16-byte chunks of row r XOR-ed with r % 8 (the TMA's
  CU_TENSOR_MAP_SWIZZLE_128B, or the same written by hand). 8 rows = 1024 bytes: SBO = 1024; a k16 step is 32 bytes
  further along the row, so its descriptor is the tile's + 2 (the start address field counts 16-byte units).
* B tiles are N-major (imm-trans-b = 1): boxes of BK rows x 64 columns (128 bytes), one after another along N; rows
  swizzled the same way. SBO = 1024 (8 rows), LBO = one box = BK * 128 bytes; a k16 step is 16 rows = 2048 bytes.
* Every tile starts at a 1024-byte boundary (the swizzle pattern repeats every 1024 bytes): shared arrays are
  declared with alignment=1024 and tiles sit at multiples of 1024 bytes inside them.
* Accumulators: thread t of a warpgroup holds n/2 f32 of its 64 x n tile, register i at row 16*(t//32) + (t%32)//4 +
  8*((i//2)%2), column 8*(i//4) + 2*(t%4) + i%2 (sim.wgmma.accumulator_elements). The epilogue loops over i with a
  constant trip count, which NVVM unrolls, so acc stays in registers (tests/test_hopper_kernels.py checks the SASS).
"""
import numpy as np
from numba import cuda, float32, uint32, uint64

from . import device
from numba import types
from . import ptx
from sim import wgmma

SWIZZLE = 128                       # bytes: the span of a swizzled row
ROW_ELEMS = SWIZZLE // 2            # f16 elements in one swizzled row (= BK of A, box width of B)
ATOM = 8 * SWIZZLE                  # 1024 bytes: the swizzle pattern, and the alignment of every tile
MIN_CC = (9, 0)                     # wgmma exists on sm_90a only: CC 9.0 exactly (H100, H200, GH200)
ARCH = "sm_90a"

_LBO_SHIFT, _SBO_SHIFT, _SWZ128 = uint64(16), uint64(32), uint64(1) << uint64(62)


# inline="always": Numba-IR inlining, the SASS the records measured (forceinline reorders this kernel's SASS: tests compare it); slower to compile
@cuda.jit(device=True, inline="always")
def desc_encode(x):
    """matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, as uint64."""
    return uint64((uint32(x) & uint32(0x3FFFF)) >> uint32(4))


@cuda.jit(device=True, inline="always")
def smem_desc(addr, lbo, sbo):
    """64-bit wgmma matrix descriptor of a 128-byte-swizzled tile at shared address `addr` (bytes; base offset 0)."""
    return (desc_encode(addr) | (desc_encode(lbo) << _LBO_SHIFT) | (desc_encode(sbo) << _SBO_SHIFT)) | _SWZ128


@cuda.jit(device=True, inline="always")
def swizzled(r, c):
    """Element index, inside a 128-byte-swizzled tile, of row r, column c (f16; c < 64): the TMA's placement."""
    byte = r * SWIZZLE + c * 2
    return (byte ^ (((byte >> 7) & 7) << 4)) >> 1


@cuda.jit(device=True, inline="always")
def acc_row_col(t, i):
    """(row, column) in the warpgroup's 64 x n tile of accumulator register i of thread t (0..127)."""
    w, lane = t // 32, t % 32
    return 16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2


def _tma_sig():
    f16 = types.Array(types.float16, 2, "C")
    tmap = types.Array(types.uint64, 1, "C")
    return (f16, f16, types.Array(types.float32, 2, "C"), tmap, tmap, types.float32, types.float32)


TMA_SIG = _tma_sig()        # kernel(A, B, C, tmA, tmB, alpha, beta) of the TMA kernels (offline compiles)


_U1, _U2, _U8 = np.uint32(1), np.uint32(2), np.uint32(8)      # uint32 constants: uint32 op int64 would be int64


@cuda.jit(device=True, inline="always")
def store_acc(C, acc, nacc, row0, col0, t, M, N, alpha, beta):
    """C[row0:+64, col0:+2*nacc] = alpha * (the warpgroup's tile) + beta * C, inside C only; thread t of the warpgroup
    stores its nacc registers: register i is row 8*((i//2)%2), column 8*(i//4) + i%2 from the thread's first element
    (sim.wgmma.accumulator_elements). One loop over constant indexes with a small unsigned body, which NVVM unrolls
    fully, so acc stays in registers (a rolled loop would index acc at run time and put it in local memory)."""
    u = uint32
    r0 = u(row0 + 16 * (t // 32) + (t % 32) // 4)
    c0 = u(col0 + 2 * (t % 4))
    Mu, Nu = u(M), u(N)
    for i in range(nacc):
        ui = u(i)
        row = r0 + ((ui >> _U1) & _U1) * _U8
        col = c0 + (ui >> _U2) * _U8 + (ui & _U1)
        if row < Mu and col < Nu:
            v = alpha * acc[i]
            if beta != 0:
                v += beta * C[row, col]
            C[row, col] = v


def tile_bytes(rows, cols):
    return rows * cols * 2


def check_layout(BM, BN, BK):
    """The tile shapes these kernels support (asserted when a kernel is built)."""
    assert BK == ROW_ELEMS, "A tiles are one 128-byte swizzled row of K per row: BK = 64"
    assert BM % 64 == 0 and BN % 64 == 0 and BN in (64, 128, 256), (BM, BN)
    assert tile_bytes(BM, BK) % ATOM == 0 and tile_bytes(BK, BN) % ATOM == 0


def wgmma_for(n, dtype="f16"):
    """The PTX layer's wgmma.mma_async m64n{n}k16 intrinsic (f32 accumulators, B N-major)."""
    return getattr(ptx, f"wgmma_m64n{n}k16_f32_{dtype}")


def accumulator_cells(n):
    """(rows, cols) of every thread's registers: sim.wgmma.accumulator_index, for tests and pictures."""
    return wgmma.accumulator_index(n)


def lacks_hopper():
    """True where the level-7 kernels cannot run on this device (a GPU that is not CC 9.0)."""
    return device.lacks_exact(MIN_CC)


__all__ = ["desc_encode", "smem_desc", "swizzled", "acc_row_col", "check_layout", "wgmma_for", "SWIZZLE", "ROW_ELEMS",
           "ATOM", "MIN_CC", "ARCH", "np", "float32"]
