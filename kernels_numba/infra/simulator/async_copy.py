"""Simulator stand-ins for cp.async, cp.async.commit_group, cp.async.wait_group N and cp.async.wait_all.

Each simulated CUDA thread has its own sim.cp_async.AsyncCopyUnit. A copy reads its source bytes when it is issued
(as the hardware may) and writes shared memory only when a wait_group guarantees it (as late as PTX allows), so a
missing commit, wait or barrier leaves the NaN the simulator fills shared memory with; the race detector reports the
access to a destination still in flight, and a missing barrier after the wait.
"""
import sys

import numpy as np

from sim.cp_async import AsyncCopyUnit

from . import racecheck
from .errors import AsyncCopyAlignmentError
from .memory import SharedArray, check_shared_alignment, standalone, host_array, require_space, shared_elements
from .state import running

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


class _Copy:
    """One pending cp.async: where it writes, what, and where it was issued."""

    __slots__ = ("a", "idx", "values", "decl", "elems", "site")

    def __init__(self, a, idx, values, decl, elems, site):
        self.a, self.idx, self.values, self.decl, self.elems, self.site = a, idx, values, decl, elems, site


def _copy(name, cp_size, args, zfill, site):
    """Issue one copy: check both operands, read src now, write dst at the wait that guarantees it."""
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
    width = cp_size // da.itemsize
    src_size = int(extra[0]) if zfill else cp_size
    if not 0 <= src_size <= cp_size or src_size % da.itemsize:
        raise ValueError(f"{name}: src_size={src_size} must be a multiple of {da.itemsize} in 0..{cp_size}")
    _checked(da, di, width, "목적지(dst, .shared)", name)
    check_shared_alignment(dst, di, cp_size, name, "목적지(dst, .shared)", site=site,
                           error=AsyncCopyAlignmentError)
    nsrc = src_size // da.itemsize      # only src_size bytes are read: only they must lie inside the source
    soff = _checked(sa, si, max(nsrc, 1), "원본(src, .global)", name)
    addr = sa.__array_interface__["data"][0] + soff
    if addr % cp_size:
        raise AsyncCopyAlignmentError(
            f"{name}: 원본(src, .global) 원소 {si} 의 전역 주소 0x{addr:x} (배열 시작에서 {soff} B) 가 {cp_size}바이트 "
            f"정렬이 아닙니다 — 배열 {_layout(sa)}, {site[0]}:{site[1]}. GPU에서는 'misaligned address' 오류로 커널이 "
            f"멈춥니다. 행 간격(stride)이 {cp_size} B 의 배수인 레이아웃을 쓰거나 {cp_size}바이트 미만 복사로 바꾸세요. / "
            f"source element {si} at global 0x{addr:x} is not {cp_size}-byte aligned (array {_layout(sa)}); the GPU "
            "faults with misaligned address.")
    if width == 1:
        values = sa[si] if nsrc else da.dtype.type(0)
        idx = di
    else:
        values = np.zeros(width, da.dtype)
        if nsrc:
            values[:nsrc] = sa[si[:-1] + (slice(si[-1], si[-1] + nsrc),)]
        idx = di[:-1] + (slice(di[-1], di[-1] + width),)
    decl, elems, _ = shared_elements(dst, di, cp_size)
    _issue(_Copy(da, idx, values, decl, elems, site))


def _issue(c):
    """Queue the copy. Two pending copies of this thread to the same bytes land in either order: identical data is
    still defined (it stays), different data is undefined (both become NaN, and the detector reports it)."""
    u = unit()
    mine = u.__dict__.setdefault("dst", {})          # (id(decl), element) -> pending _Copy of this thread
    keys = [(id(c.decl), e) for e in c.elems]
    for other in {id(mine[k]): mine[k] for k in keys if k in mine}.values():
        if not np.array_equal(np.asarray(other.values), np.asarray(c.values), equal_nan=True):
            other.values = _undefined(other.values, c.a)
            c.values = _undefined(c.values, c.a)
            if racecheck.ON and running() is not None:
                d = c.decl
                racecheck._hazard("WAW", d, c.elems[0], (running(), other.site, "cp.async", None),
                                  (running(), c.site, "cp.async", None))
    for k in keys:
        mine[k] = c
    u.issue(c)
    if racecheck.ON:
        racecheck.async_issue(c.decl, c.elems, c.site, c)


def _undefined(values, da):
    return np.full_like(values, np.nan) if isinstance(values, np.ndarray) else da.dtype.type(np.nan)


def _make_copy(name, cp_size, zfill):
    def stand_in(*args):
        f = sys._getframe(1)
        _copy(name, cp_size, args, zfill, (f.f_code.co_filename, f.f_lineno))
    stand_in.__name__ = name
    return stand_in


def _land(copies, wait_site):
    if not copies:
        return
    mine = unit().__dict__.get("dst", {})
    for c in copies:
        c.a[c.idx] = c.values
        for e in c.elems:
            k = (id(c.decl), e)
            if mine.get(k) is c:
                del mine[k]
        racecheck.async_land(c.decl, c.elems, c.site, wait_site, c)


def cp_async_commit_group():
    unit().commit()


def _make_wait(n):
    def stand_in():
        f = sys._getframe(1)
        _land(unit().wait_group(n), (f.f_code.co_filename, f.f_lineno))
    stand_in.__name__ = f"cp_async_wait_group_{n}"
    return stand_in


def cp_async_wait_all():
    f = sys._getframe(1)
    _land(unit().wait_all(), (f.f_code.co_filename, f.f_lineno))


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
