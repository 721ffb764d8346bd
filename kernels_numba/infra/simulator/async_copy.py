"""Simulator stand-ins for cp.async, cp.async.commit_group, cp.async.wait_group N and cp.async.wait_all.

Each simulated CUDA thread has its own sim.cp_async.AsyncCopyUnit. A copy reads its source bytes when it is issued
(as the hardware may) and writes shared memory only when a wait_group guarantees it (as late as PTX allows), so a
missing commit, wait or barrier leaves the NaN the simulator fills shared memory with; the race detector reports the
access to a destination still in flight, and a missing barrier after the wait. Copies move raw bytes, as the
hardware does: the destination gets the source's bytes whatever the two dtypes are.
"""
import sys

import numpy as np

from sim.cp_async import AsyncCopyUnit

from . import racecheck
from .errors import AsyncCopyAlignmentError
from .memory import (GlobalArray, SharedArray, bytes_at, check_shared_alignment, host_array, require_space,
                     shared_elements, standalone)
from sim.korean import josa

from .state import running, where

_outside = {}                      # the unit used when a stand-in is called outside a kernel (tests)


def unit():
    """The AsyncCopyUnit of the simulated thread now running (a shared one outside a kernel)."""
    t = running()
    if t is None:
        return _outside.setdefault("unit", AsyncCopyUnit())
    u = t.async_unit
    if u is None:
        u = t.async_unit = AsyncCopyUnit()
    return u


def reset():
    """Drop the pending copies of calls made outside a kernel (tests calling the stand-ins directly)."""
    _outside.clear()


def _layout(a):
    return f"shape {a.shape}, dtype {a.dtype}, strides {a.strides} B"


def _checked(a, idx, width, role, name):
    """Byte offset of a[idx] from the array start, after checking idx .. idx + width - 1 lie inside a."""
    if len(idx) != a.ndim:
        raise IndexError(f"{name}: {role}: {a.ndim}-D array needs {a.ndim} indexes, got {len(idx)}")
    off = 0
    for axis, (i, n, st) in enumerate(zip(idx, a.shape, a.strides)):
        last = i + width - 1 if axis == a.ndim - 1 else i
        if i < 0 or last >= n:
            raise IndexError(f"{name}: {role} 원소 {idx} (+{width - 1}) 가 배열 밖입니다 / element {idx} (+{width - 1} "
                             f"along the last axis) is outside an array of {_layout(a)}: on the GPU this copy "
                             "would read or write memory that is not the array's")
        off += i * st
    return off


def _source_fix(sa, si, cp_size, zfill):
    """(Korean, English) advice for a misaligned source, for the cause that applies: the array's start, a row stride
    that is not a multiple of cp_size (an aligned layout, or smaller copies), or, with both aligned, the start index
    on the last axis (start on a cp_size boundary; a smaller copy would not be the fix there: review r25 U-9)."""
    base = sa.__array_interface__["data"][0]
    if base % cp_size:
        return (f"배열의 시작 주소가 {cp_size} B 정렬이 아닙니다: {cp_size} B 경계에서 시작하는 배열을 넘기거나 "
                f"{cp_size}바이트 미만 복사로 바꾸세요.",
                f"The array does not start on a {cp_size}-byte boundary: pass one that does, or use smaller copies.")
    if any(st % cp_size for st in sa.strides[:-1]):
        return (f"행 간격(stride)이 {cp_size} B 의 배수가 아니라 행마다 시작이 어긋납니다: 행 간격이 {cp_size} B 의 배수인 "
                f"레이아웃을 쓰거나(패딩으로 행을 늘림) {cp_size}바이트 미만 복사로 바꾸세요.",
                f"A row stride is not a multiple of {cp_size} B: use a layout whose rows are (pad them), or use "
                "smaller copies.")
    k = max(1, cp_size // sa.itemsize)
    shifted = ("행렬 경계에서 덜 읽어야 한다면 시작 열은 옮기지 말고 src-size 로 읽는 바이트만 줄이세요." if zfill else
               "행렬 경계에서 덜 읽어야 한다면 src-size 형태(…_zfill)로 읽는 바이트를 줄이세요.")
    return (f"배열 시작과 행 간격은 {cp_size} B 정렬이라, 어긋난 것은 마지막 축의 시작 인덱스 {si[-1]} 입니다: "
            f"{cp_size}바이트 복사는 {k} 원소({cp_size} B)의 배수인 열에서 시작해야 합니다. " + shifted,
            f"The array and its rows are {cp_size}-byte aligned, so the start index {si[-1]} on the last axis is what "
            f"is off: start a {cp_size}-byte copy on a multiple of {k} elements"
            + (" (to read less at an edge, keep the start and lower src-size)." if zfill else "."))


class _Copy:
    """One pending cp.async: the destination bytes it writes, the bytes it carries, and where it was issued."""

    __slots__ = ("dst", "values", "decl", "elems", "acc", "site")

    def __init__(self, dst, values, decl, elems, acc, site):
        self.dst, self.values, self.decl, self.elems, self.acc, self.site = dst, values, decl, elems, acc, site


def _copy(name, cp_size, args, zfill, site, acc):
    """Issue one copy: check both operands, read the source bytes now, write them at the wait that guarantees it.

    The hardware copies `cp_size` raw bytes (the first `src_size` from the source, zeros after them), whatever the
    dtypes of the two arrays: a float64 source under a float32 destination gives the bytes of float64 values, read as
    float32 (wrong numbers), as on the GPU."""
    if not args:
        raise TypeError(f"{name}(dst_array, *dst_index, src_array, *src_index{', src_size' if zfill else ''})")
    dst = args[0]
    inside = running() is not None
    if not inside and type(dst) is not SharedArray:     # a test calling the stand-in with a numpy array
        dst = _outside.setdefault(("shared", id(dst)), (dst, standalone(dst)))[1]
    require_space(dst, "shared", name, "목적지(dst) / destination")
    da = host_array(dst)
    nd = da.ndim
    di = tuple(int(i) for i in args[1:1 + nd])
    if len(args) < 2 + nd:
        raise TypeError(f"{name}(dst_array, *dst_index, src_array, *src_index{', src_size' if zfill else ''})")
    src = args[1 + nd]
    if inside:
        require_space(src, "global", name, "원본(src) / source")
    sa = host_array(src)
    ns = sa.ndim
    si = tuple(int(i) for i in args[2 + nd:2 + nd + ns])
    extra = args[2 + nd + ns:]
    if len(extra) != (1 if zfill else 0) or len(si) != ns:
        raise TypeError(f"{name}(dst_array, *dst_index, src_array, *src_index{', src_size' if zfill else ''})")
    src_size = int(extra[0]) if zfill else cp_size
    if not 0 <= src_size <= cp_size:
        raise ValueError(f"{name}: src_size={src_size} must be in 0..{cp_size} bytes")
    width = max(1, cp_size // da.itemsize)
    _checked(da, di, width, "목적지(dst, .shared)", name)
    check_shared_alignment(dst, di, cp_size, name, "목적지(dst, .shared)", site=site,
                           error=AsyncCopyAlignmentError)
    values = np.zeros(cp_size, np.uint8)
    # the source address must lie in the array and be aligned even when src_size is 0 (nothing is read; the course
    # keeps such an address inside the matrix, as async_vec does), and the src_size bytes read must lie in its row
    nsrc = max(1, -(-src_size // sa.itemsize))
    soff = _checked(sa, si, nsrc, "원본(src, .global)", name)
    addr = sa.__array_interface__["data"][0] + soff
    if addr % cp_size:
        fix_ko, fix_en = _source_fix(sa, si, cp_size, zfill)
        raise AsyncCopyAlignmentError(
            f"{name}: 원본(src, .global) 원소 {si} 의 전역 주소 0x{addr:x} (배열 시작에서 {soff} B) 가 {cp_size}바이트 "
            f"정렬이 아닙니다 — 배열 {_layout(sa)}, {where(site[0], site[1])}. GPU에서는 'misaligned address' "
            f"오류로 커널이 멈춥니다. {fix_ko} / source element {si} at global 0x{addr:x} is not {cp_size}-byte aligned "
            f"(array {_layout(sa)}); the GPU faults with misaligned address. {fix_en}")
    if src_size:
        values[:src_size] = bytes_at(sa, si, src_size, name, "원본(src, .global)")[0]
        if inside and racecheck.ON and isinstance(src, GlobalArray):
            src.touch(si, src_size, False, acc, running())
        if inside and src_size % da.itemsize:
            racecheck.note(("src_size", site[:2], src_size),
                           f"{where(site[0], site[1])} 의 {josa(name, '이/가')} src-size {src_size} B 로 복사합니다: {da.dtype} "
                           f"원소({da.itemsize} B)의 일부 바이트만 오고 나머지는 0 이라 값이 깨집니다. src-size 는 원소 수가 "
                           f"아니라 바이트 수입니다 (원소 n 개면 {da.itemsize}·n). / {name} copies src-size = {src_size} "
                           f"bytes, part of a {da.itemsize}-byte {da.dtype} element: src-size counts bytes, not elements.")
        if sa.dtype != da.dtype and inside:
            sname = getattr(src, "_name", "원본")
            racecheck.note(("dtype", sname, getattr(dst, "_decl", None) and dst._decl.name, str(sa.dtype)),
                           f"{where(site[0], site[1])} 의 {josa(name, '이/가')} {sa.dtype} 배열 {sname} 의 바이트를 {da.dtype} 공유 배열 "
                           f"{dst._decl.name} 에 복사합니다. cp.async 는 값이 아니라 바이트를 옮기므로 {da.dtype} 로 읽으면 "
                           f"다른 수가 됩니다 (GPU 와 같음): {josa(sname, '을/를')} {da.dtype} 로 바꿔(astype) 넘기세요. / {name} copies "
                           f"the bytes of the {sa.dtype} array {sname} into the {da.dtype} shared array "
                           f"{dst._decl.name}; read as {da.dtype} they are other numbers (as on the GPU): pass "
                           f"{sname}.astype({da.dtype}).")
    decl, elems, off = shared_elements(dst, di, cp_size)
    _issue(_Copy((decl, off), values, decl, elems, acc, site))


def _issue(c):
    """Queue the copy. Two pending copies of this thread to the same bytes land in either order: identical data is
    still defined (it stays), different data is undefined (both become NaN, and the detector reports it)."""
    u = unit()
    mine = u.__dict__.setdefault("dst", {})          # (id(decl), element) -> pending _Copy of this thread
    keys = [(id(c.decl), e) for e in c.elems]
    for other in {id(mine[k]): mine[k] for k in keys if k in mine}.values():
        if not np.array_equal(other.values, c.values):
            other.values = _undefined(other)
            c.values = _undefined(c)
            if racecheck.ON and running() is not None:
                racecheck._hazard("WAW", c.decl, c.elems[0], (other.acc, "cp.async"), (c.acc, "cp.async"))
    for k in keys:
        mine[k] = c
    u.issue(c)
    if racecheck.ON and running() is not None:
        racecheck.async_issue(c.decl, c.elems, running(), c.acc, c)


def _undefined(c):
    """The bytes of a copy whose result is undefined: the destination's poison (NaN for floats)."""
    decl = c.decl
    it = decl.raw.itemsize
    poison = np.empty(1, decl.raw.dtype)
    if decl.raw.dtype.kind in "fc":
        poison.fill(np.nan)
    else:
        poison.fill(-1)
    pattern = poison.view(np.uint8)
    start = c.dst[1] % it
    return np.array([pattern[(start + k) % it] for k in range(len(c.values))], np.uint8)


def _make_copy(name, cp_size, zfill):
    def stand_in(*args):
        t = running()
        f = sys._getframe(1)
        acc = racecheck.here(t) if t is not None and racecheck.ON else None
        _copy(name, cp_size, args, zfill, (f.f_code.co_filename, f.f_lineno), acc)
    stand_in.__name__ = name
    return stand_in


def _land(copies, wait_acc):
    if not copies:
        return
    mine = unit().__dict__.get("dst", {})
    for c in copies:
        decl, off = c.dst
        decl.raw.reshape(-1).view(np.uint8)[off:off + len(c.values)] = c.values
        for e in c.elems:
            k = (id(c.decl), e)
            if mine.get(k) is c:
                del mine[k]
        if c.acc is not None and wait_acc is not None:
            racecheck.async_land(c.decl, c.elems, c.acc, wait_acc, c)
        else:
            for e in c.elems:
                p = c.decl.pend.get(e)
                if p is not None and p[1] is c:
                    del c.decl.pend[e]


def cp_async_commit_group():
    unit().commit()


def _wait_acc():
    t = running()
    if t is None or not racecheck.ON:
        return None
    acc = racecheck.here(t, 3)
    racecheck.WAIT_SITES.add(acc[1])
    return acc


def _make_wait(n):
    def stand_in():
        _land(unit().wait_group(n), _wait_acc())
    stand_in.__name__ = f"cp_async_wait_group_{n}"
    return stand_in


def cp_async_wait_all():
    _land(unit().wait_all(), _wait_acc())


STAND_INS = {
    "cp_async_ca_4": _make_copy("cp_async_ca_4", 4, False),
    "cp_async_ca_4_zfill": _make_copy("cp_async_ca_4_zfill", 4, True),
    "cp_async_ca_16": _make_copy("cp_async_ca_16", 16, False),
    "cp_async_cg_16": _make_copy("cp_async_cg_16", 16, False),
    "cp_async_cg_16_zfill": _make_copy("cp_async_cg_16_zfill", 16, True),
    "cp_async_commit_group": cp_async_commit_group,
    "cp_async_wait_all": cp_async_wait_all,
    **{f"cp_async_wait_group_{n}": _make_wait(n) for n in range(4)},
}
