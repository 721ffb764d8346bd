"""wgmma.mma_async (Hopper, sm_90a) as a pure model: matrix descriptors, the shared-memory layouts they describe
(swizzles included), and which thread of the warpgroup holds which accumulator element.

Source: PTX ISA 8.x/9.x, section 9.7.15.5.1 "Register Fragments and Shared Memory Matrix Layouts":

* Accumulator D of .m64nNk16 (f32): a warpgroup of 4 warps (128 threads) holds the 64 x N tile, N/2 registers per
  thread. Warp w owns rows 16w .. 16w+15; within a warp the layout is mma.m16n8's C fragment repeated every 8
  columns: register i of lane l is row 16w + l/4 + 8*((i/2) % 2), column 8*(i/4) + 2*(l % 4) + (i % 2)
  (Figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D").
* Matrix descriptor (64 bits): bits 13-0 start address, 29-16 leading dimension byte offset (LBO), 45-32 stride
  dimension byte offset (SBO), each encoded as (x & 0x3FFFF) >> 4; bits 51-49 base offset; bits 63-62 swizzle mode
  (0 none, 1 128-byte, 2 64-byte, 3 32-byte) ("Matrix Descriptor Format").
* Canonical layouts, in CuTe notation with T = 128 / element bits (8 for f16/bf16) and S = swizzle bytes / 16
  ("Canonical Layouts"):
    K-major,  swizzled:   ((8,m),(T,2k)):((S*T,SBO),(1,T))        (LBO unused)
    K-major,  none:       ((8,m),(T,2k)):((1T,SBO),(1,LBO))
    MN-major, swizzled:   ((T,S,m),(8,k)):((1,T,LBO),(S*T,SBO))
    MN-major, none:       ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
  and the swizzle Swizzle<B,4,3> (B = 3, 2, 1 for 128, 64, 32 bytes) XORs address bits [4, 4+B) with bits [7, 7+B):
  the 16-byte chunk of a 128-byte line is XORed with the line's number modulo 8. The pattern repeats every 1024 bytes
  (128-byte swizzle); this model computes it on the absolute shared address, as the TMA unit writes it, and supports
  base offset 0 only: swizzled tiles start at 1024-byte boundaries (what CUTLASS and DeepGEMM do).

A is K-major (imm-trans-a = 0) in this course: a row-major M x K tile, K contiguous. B is N-major (imm-trans-b = 1): a
row-major K x N tile, N contiguous, exactly how B is stored in global memory. With 128-byte swizzle and 16-bit
elements a swizzle atom is 8 rows of 64 elements (8 x 128 bytes = 1024 bytes).

Everything here is plain Python/numpy: the simulator's stand-ins (kernels_numba.infra.simulator.warpgroup), the
notebook's pictures and exercises, and the GPU record (benchmarks/record_wgmma_layout.py) use these functions.
"""
import numpy as np

WARPGROUP = 128
M, K = 64, 16                              # wgmma .m64nNk16
N_SIZES = tuple(range(8, 257, 8))          # valid N for f16/bf16 inputs with f32 accumulation
SWIZZLE_MODES = {0: 0, 1: 128, 2: 64, 3: 32}        # descriptor bits 63-62 -> swizzle bytes (0: none)
MODE_OF = {v: k for k, v in SWIZZLE_MODES.items()}
ELEM_BYTES = 2                             # f16 / bf16


class DescriptorError(ValueError):
    """A matrix descriptor or layout request the hardware (or this model) does not accept."""


# ------------------------------------------------------------------------------------------ accumulators

def _check_thread(t):
    if not 0 <= int(t) < WARPGROUP:
        raise ValueError(f"thread must be 0..127 within the warpgroup, not {t}")


def _check_n(n):
    if int(n) not in N_SIZES:
        raise ValueError(f"N must be a multiple of 8 in 8..256, not {n}")


def accumulator_elements(t, n):
    """[(row, col)] of the n/2 f32 accumulator registers d0, d1, ... that thread t (0..127) of the warpgroup holds."""
    _check_thread(t)
    _check_n(n)
    w, lane = divmod(int(t), 32)
    g, q = divmod(lane, 4)
    return [(16 * w + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * q + (i % 2)) for i in range(n // 2)]


def accumulator_index(n):
    """(rows, cols): two int arrays of shape (128, n/2), row and column of every thread's every register."""
    rc = np.array([accumulator_elements(t, n) for t in range(WARPGROUP)])
    return rc[..., 0], rc[..., 1]


def accumulator_owner(row, col, n):
    """(thread, register) holding element (row, col) of the 64 x n accumulator tile."""
    _check_n(n)
    if not (0 <= row < M and 0 <= col < n):
        raise ValueError(f"(row, col) = {(row, col)} is outside the 64 x {n} tile")
    w, r = divmod(row, 16)
    g, h = r % 8, r // 8
    j, c = divmod(col, 8)
    q, e = divmod(c, 2)
    return 32 * w + 4 * g + q, 4 * j + 2 * h + e


def fragments_from_tile(D):
    """(128, n/2) float32: each thread's registers for a 64 x n tile D (the inverse of tile_from_fragments)."""
    D = np.asarray(D)
    rows, cols = accumulator_index(D.shape[1])
    return D[rows, cols]


def tile_from_fragments(frags):
    """The 64 x n tile from (128, n/2) per-thread registers."""
    frags = np.asarray(frags)
    n = 2 * frags.shape[1]
    rows, cols = accumulator_index(n)
    D = np.full((M, n), np.nan, frags.dtype)
    D[rows, cols] = frags
    return D


# ------------------------------------------------------------------------------------------ descriptors

def encode(x):
    """matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4."""
    return (int(x) & 0x3FFFF) >> 4


def make_descriptor(start, lbo, sbo, swizzle=128, base_offset=0):
    """The 64-bit matrix descriptor (Python int) for a tile at shared address `start` with the byte offsets LBO and
    SBO and `swizzle` bytes (0, 32, 64, 128)."""
    if swizzle not in MODE_OF:
        raise DescriptorError(f"swizzle must be 0, 32, 64 or 128 bytes, not {swizzle}")
    for name, v in (("start", start), ("lbo", lbo), ("sbo", sbo)):
        if int(v) % 16:
            raise DescriptorError(f"{name} = {v} is not a multiple of 16 bytes: the descriptor drops the low 4 bits")
    return (encode(start) | (encode(lbo) << 16) | (encode(sbo) << 32) | ((int(base_offset) & 7) << 49)
            | (MODE_OF[swizzle] << 62))


def decode(desc):
    """{'start', 'lbo', 'sbo' (bytes), 'base_offset', 'swizzle' (bytes)} of a 64-bit descriptor."""
    d = int(desc) & 0xFFFFFFFFFFFFFFFF
    return {"start": (d & 0x3FFF) << 4, "lbo": ((d >> 16) & 0x3FFF) << 4, "sbo": ((d >> 32) & 0x3FFF) << 4,
            "base_offset": (d >> 49) & 7, "swizzle": SWIZZLE_MODES[(d >> 62) & 3]}


def swizzle(addr, swizzle_bytes):
    """Swizzle<B,4,3> on byte addresses (numpy arrays or ints): bits [4, 4+B) ^= bits [7, 7+B)."""
    if swizzle_bytes == 0:
        return addr
    b = {128: 7, 64: 3, 32: 1}[swizzle_bytes]
    return addr ^ (((addr >> 7) & b) << 4)


def layout_offsets(rows, cols, major, swizzle_bytes, lbo, sbo, elem_bytes=ELEM_BYTES):
    """Unswizzled byte offsets from the start address of a matrix operand, shape (rows, cols) as the instruction sees
    it: A is (M, K), B is (K, N). major = 'K' or 'MN' (K-major: K contiguous; MN-major: M or N contiguous)."""
    T = 16 // elem_bytes
    S = swizzle_bytes // 16
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    if major == "K":
        # A (M, K): the MN index is the row, K the column. B (K, N) K-major would be the transpose: not used here.
        mn, k = r, c
        row8, grp = mn % 8, mn // 8
        t, chunk = k % T, k // T
        if S:
            return row8 * (S * 16) + grp * sbo + t * elem_bytes + chunk * 16
        return row8 * 16 + grp * sbo + t * elem_bytes + chunk * lbo
    if major == "MN":
        # B (K, N) N-major: K is the row, N the column
        k, mn = r, c
        r8, q = k % 8, k // 8
        t = mn % T
        if S:
            chunk, j = (mn // T) % S, mn // (T * S)
            return t * elem_bytes + chunk * 16 + j * lbo + r8 * (S * 16) + q * sbo
        j = mn // T
        return t * elem_bytes + j * sbo + r8 * 16 + q * lbo
    raise DescriptorError(f"major must be 'K' or 'MN', not {major!r}")


def operand_addresses(desc, rows, cols, major, elem_bytes=ELEM_BYTES):
    """Shared byte address of every element (rows x cols int64 array) of an operand described by `desc`."""
    f = decode(desc)
    if f["base_offset"]:
        raise DescriptorError(
            f"이 모델은 base offset 0 만 다룹니다 (받은 값 {f['base_offset']}): 스위즐 타일을 1024바이트 경계에 두세요 / "
            "the model supports base offset 0 only: put swizzled tiles at 1024-byte boundaries")
    off = layout_offsets(rows, cols, major, f["swizzle"], f["lbo"], f["sbo"], elem_bytes).astype(np.int64)
    return swizzle(off + f["start"], f["swizzle"])


def k_major_tile_offset(row, col, swizzle_bytes=128, elem_bytes=ELEM_BYTES, row_bytes=None):
    """Byte offset inside a K-major tile stored the way TMA writes a box whose rows are `row_bytes` long (default: the
    swizzle span): element (row, col), col < row_bytes / elem_bytes, the tile starting on a 1024-byte boundary."""
    row_bytes = row_bytes or swizzle_bytes
    off = np.asarray(row) * row_bytes + np.asarray(col) * elem_bytes
    return swizzle(off, swizzle_bytes)


def descriptor_for_tile(start, major, rows, swizzle_bytes=128, elem_bytes=ELEM_BYTES):
    """The descriptor of a tile written as boxes of `swizzle_bytes`-long rows (TMA with that swizzle, or the same by
    hand), 8-row groups 8 * swizzle_bytes apart.

    K-major (A, M x BK with BK * elem_bytes == swizzle_bytes): SBO = 8 rows; LBO unused (1 by convention, 16 bytes).
    MN-major (B, BK x BN in boxes of swizzle_bytes / elem_bytes columns, each box `rows` rows deep, boxes one after
    another): SBO = 8 rows (1024 bytes at 128-byte swizzle), LBO = one box (rows * swizzle_bytes)."""
    if major == "K":
        return make_descriptor(start, 16, 8 * swizzle_bytes, swizzle_bytes)
    return make_descriptor(start, rows * swizzle_bytes, 8 * swizzle_bytes, swizzle_bytes)


def reference(A, B, C=None):
    """D = A @ B (+ C) for f16/bf16 tiles: the f16 products are exact in float64; the sum rounded once to float32."""
    D = np.asarray(A, np.float64) @ np.asarray(B, np.float64)
    if C is not None:
        D = D + np.asarray(C, np.float64)
    return D.astype(np.float32)
