"""The Tensor Memory Accelerator (TMA) and mbarrier as pure models: tensor-map rules, where a 2-D box lands in shared
memory, and an mbarrier's phases.

Sources: CUDA Driver API, cuTensorMapEncodeTiled (the parameter rules below); PTX ISA 9.7.9.25
"cp.async.bulk.tensor" (a box of the tensor goes to shared memory; elements outside the tensor are filled with zeros,
and the whole box's bytes are counted on the mbarrier with complete_tx) and 9.7.13.15 "mbarrier" (phases, pending
arrival count, transaction count, try_wait.parity).

* A 2-D tensor map describes a row-major tensor of `rows` x `cols` elements whose rows are `row_stride` bytes apart,
  and a box of `box_rows` x `box_cols` elements. Dimension 0 is the contiguous one (columns): coordinates are given
  as (c0, c1) = (column, row).
* In shared memory the box is row-major, each row box_cols * element bytes long; with a swizzle of S bytes the 16-byte
  chunks of each S-byte line are XORed with the line number (sim.wgmma.swizzle on the absolute address).
* An mbarrier counts arrivals and transaction bytes per phase: a phase completes when every expected arrival has
  happened and the transaction count is back to 0; then the phase number goes up by one. try_wait.parity(p) is true
  once the phase of parity p has completed, i.e. while the current phase's parity differs from p. A fresh barrier is
  in phase 0, so waiting for parity 1 returns at once ("the phase before 0 is complete"), the producer's first wait.
"""
from dataclasses import dataclass

import numpy as np

from .korean import josa
from .wgmma import swizzle

DTYPES = {"float16": 2, "bfloat16": 2, "float32": 4}
SWIZZLES = (0, 32, 64, 128)
MAX_BOX = 256


class TensorMapError(ValueError):
    """cuTensorMapEncodeTiled would return CUDA_ERROR_INVALID_VALUE: the message says which rule and what to do."""

    def __init__(self, ko, en):
        self.ko, self.en = ko, en
        super().__init__(f"{ko}\n{en}")


@dataclass(frozen=True)
class TensorMap:
    """The fields of a 2-D tiled tensor map (what cuTensorMapEncodeTiled receives)."""
    address: int               # global address of element (0, 0)
    dtype: str                 # 'float16', 'bfloat16' or 'float32'
    rows: int                  # globalDim[1]
    cols: int                  # globalDim[0] (contiguous)
    row_stride: int            # globalStrides[0], bytes between rows
    box_rows: int              # boxDim[1]
    box_cols: int              # boxDim[0]
    swizzle: int = 128         # bytes: 0, 32, 64, 128
    oob_nan: bool = False      # CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA instead of zeros

    @property
    def elem_bytes(self):
        return DTYPES[self.dtype]

    @property
    def box_bytes(self):
        """Bytes one copy writes to shared memory (and counts on the mbarrier), inside the tensor or not."""
        return self.box_rows * self.box_cols * self.elem_bytes

    @property
    def row_bytes(self):
        return self.box_cols * self.elem_bytes


def check(tm):
    """TensorMapError unless cuTensorMapEncodeTiled accepts tm (the rules of its documentation, for 2-D tiled maps)."""
    if tm.dtype not in DTYPES:
        raise TensorMapError(f"자료형 {josa(tm.dtype, '은/는')} 지원하지 않습니다 (float16, bfloat16, float32).",
                             f"dtype {tm.dtype} not supported here (float16, bfloat16, float32).")
    if tm.address % 16:
        raise TensorMapError(
            f"텐서 시작 주소 {josa(hex(tm.address), '이/가')} 16바이트 정렬이 아닙니다: TMA 는 16바이트 정렬된 전역 주소만 받습니다.",
            f"globalAddress 0x{tm.address:x} is not 16-byte aligned (cuTensorMapEncodeTiled rule).")
    for name, v in (("rows", tm.rows), ("cols", tm.cols)):
        if not 1 <= v <= 2 ** 32:
            raise TensorMapError(f"{name} = {v}: 텐서 크기는 1 ~ 2^32 이어야 합니다.",
                                 f"globalDim {name} = {v} must be in 1 .. 2^32.")
    if tm.row_stride % 16 or not 0 < tm.row_stride < 2 ** 40:
        per = 16 // tm.elem_bytes
        raise TensorMapError(
            f"행 간격(stride) {tm.row_stride} B 가 16의 배수가 아닙니다: {tm.dtype} 행렬의 열 수가 {per} 의 배수여야 "
            f"TMA 가 읽을 수 있습니다 (열 {tm.row_stride // tm.elem_bytes}개). 열을 {per} 의 배수로 0-패딩한 복사본을 쓰세요.",
            f"globalStrides[0] = {tm.row_stride} bytes is not a multiple of 16: a {tm.dtype} matrix needs a column "
            f"count that is a multiple of {per} for TMA. Zero-pad the columns to a multiple of {per}.")
    for name, v in (("box_rows", tm.box_rows), ("box_cols", tm.box_cols)):
        if not 1 <= v <= MAX_BOX:
            raise TensorMapError(f"{name} = {v}: 박스 크기는 1 ~ {MAX_BOX} 이어야 합니다.",
                                 f"boxDim {name} = {v} must be in 1 .. {MAX_BOX}.")
    if tm.row_bytes % 16:
        raise TensorMapError(f"박스 한 행이 {tm.row_bytes} B 로 16의 배수가 아닙니다.",
                             f"boxDim[0] * element size = {tm.row_bytes} bytes is not a multiple of 16.")
    if tm.swizzle not in SWIZZLES:
        raise TensorMapError(f"스위즐은 0, 32, 64, 128 바이트 중 하나입니다 (받은 값 {tm.swizzle}).",
                             f"swizzle must be 0, 32, 64 or 128 bytes, not {tm.swizzle}.")
    if tm.swizzle and tm.row_bytes > tm.swizzle:
        raise TensorMapError(
            f"박스 한 행({tm.row_bytes} B)이 스위즐 폭 {tm.swizzle} B 보다 깁니다: box_cols 를 {tm.swizzle // tm.elem_bytes} "
            "이하로 하세요.",
            f"the box's inner dimension ({tm.row_bytes} bytes) exceeds the swizzle span {tm.swizzle} bytes.")


def box_offsets(tm):
    """(box_rows, box_cols) int64 array: unswizzled byte offset of each box element from the destination address."""
    r = np.arange(tm.box_rows, dtype=np.int64)[:, None]
    c = np.arange(tm.box_cols, dtype=np.int64)[None, :]
    return r * tm.row_bytes + c * tm.elem_bytes


def box_addresses(tm, dst):
    """Shared address of each box element for a copy to shared address `dst` (swizzled on the absolute address)."""
    if tm.swizzle and tm.row_bytes != tm.swizzle:
        raise TensorMapError(
            f"시뮬레이터는 스위즐이 있을 때 박스 한 행이 스위즐 폭과 같은 경우({tm.swizzle} B)만 다룹니다 (받은 값 "
            f"{tm.row_bytes} B).",
            f"the simulator models a swizzled box only when its rows are exactly the swizzle span "
            f"({tm.swizzle} bytes; got {tm.row_bytes}).")
    return swizzle(box_offsets(tm) + int(dst), tm.swizzle)


def box_values(tm, tensor, c0, c1):
    """The box at coordinates (c0, c1) = (column, row) of `tensor` (a 2-D numpy array of tm's shape): values outside
    the tensor are 0 (or NaN with oob_nan), as the TMA unit fills them."""
    out = np.full((tm.box_rows, tm.box_cols), np.nan if tm.oob_nan else 0, dtype=tensor.dtype)
    r0, r1 = max(c1, 0), min(c1 + tm.box_rows, tm.rows)
    k0, k1 = max(c0, 0), min(c0 + tm.box_cols, tm.cols)
    if r0 < r1 and k0 < k1:
        out[r0 - c1:r1 - c1, k0 - c0:k1 - c0] = tensor[r0:r1, k0:k1]
    return out


class MBarrier:
    """One mbarrier object: expected arrivals per phase, pending arrivals, transaction count, phase number."""

    def __init__(self, count):
        if not 1 <= int(count) < 2 ** 20:
            raise ValueError(f"mbarrier.init count must be in 1 .. 2^20 - 1, not {count}")
        self.expected = self.pending = int(count)
        self.tx = 0
        self.phase = 0

    def _maybe_complete(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.expected
            return True
        return False

    def arrive(self, count=1):
        """One arrival (returns the phase it arrived on); completes the phase when it was the last one needed."""
        if self.pending < count:
            raise ValueError("more arrivals than the phase expects")
        phase = self.phase
        self.pending -= count
        self._maybe_complete()
        return phase

    def expect_tx(self, nbytes):
        self.tx += int(nbytes)

    def complete_tx(self, nbytes):
        """Bytes delivered by a bulk copy; completes the phase when nothing else is awaited."""
        self.tx -= int(nbytes)
        return self._maybe_complete()

    def test_wait(self, parity):
        """True once the phase of parity `parity` has completed (the current phase's parity differs from it)."""
        return (self.phase & 1) != (int(parity) & 1)
