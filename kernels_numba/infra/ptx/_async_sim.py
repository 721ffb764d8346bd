"""Simulator stand-ins for cp.async, cp.async.commit_group, cp.async.wait_group N and cp.async.wait_all.

Each simulated CUDA thread gets its own sim.cp_async.AsyncCopyUnit. A copy reads its source bytes when it is
issued (as the hardware may) and writes shared memory only when a wait_group guarantees it (as late as PTX
allows), so every missing commit, wait or barrier leaves the NaN the simulator fills shared memory with.
"""
import numpy as np

from sim.cp_async import AsyncCopyUnit

from .. import _simfast

_units = {}                       # id(simulated thread) -> (thread, AsyncCopyUnit); None -> plain Python calls


class AsyncCopyAlignmentError(RuntimeError):
    """A cp.async operand is not aligned to the copy size (CUDA_ERROR_MISALIGNED_ADDRESS on the GPU)."""


def unit():
    """The AsyncCopyUnit of the simulated thread now running (a shared one outside a kernel)."""
    t = _simfast._state["thread"]
    key = id(t) if t is not None else None
    entry = _units.get(key)
    if entry is None or entry[0] is not t:
        if len(_units) > 4096:    # forget threads of finished blocks
            for k in [k for k, (th, _) in _units.items() if th is not None and th.done]:
                del _units[k]
        entry = _units[key] = (t, AsyncCopyUnit())
    return entry[1]


def reset():
    """Drop every thread's pending copies (tests calling the stand-ins directly)."""
    _units.clear()


def _layout(a):
    return f"shape {a.shape}, dtype {a.dtype}, strides {a.strides} B"


def _host(arr):
    inner = getattr(arr, "_item", arr)          # FakeWithinKernelCUDAArray -> FakeCUDAArray -> numpy
    return getattr(inner, "_ary", inner)


def _checked(a, idx, width, role, name):
    """(index tuple, byte offset from the array start) of a[idx] .. a[idx + width - 1 along the last axis]."""
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


def _misaligned(where, off, idx, a, nbytes, role, name, space):
    return AsyncCopyAlignmentError(
        f"{name}: {role} 원소 {idx} 의 {space} 0x{where:x} (배열 시작에서 {off} B) 가 {nbytes}바이트 정렬이 "
        f"아닙니다 — 배열 {_layout(a)}. GPU에서는 'misaligned address' 오류로 커널이 멈춥니다. 행 간격(stride)이 "
        f"{nbytes} B 의 배수인 레이아웃을 쓰거나 {nbytes}바이트 미만 복사로 바꾸세요. / {role} element {idx} at "
        f"{space} 0x{where:x} is not {nbytes}-byte aligned (array {_layout(a)}); the GPU faults with misaligned address.")


def _copy(name, cp_size, args, zfill):
    """Issue one copy: check both operands, read src now, write dst at the wait that guarantees it."""
    da = _host(args[0])
    nd = da.ndim
    di = tuple(int(i) for i in args[1:1 + nd])
    sa = _host(args[1 + nd])
    ns = sa.ndim
    si = tuple(int(i) for i in args[2 + nd:2 + nd + ns])
    extra = args[2 + nd + ns:]
    if len(extra) != (1 if zfill else 0) or len(args) < 2 + nd:
        raise TypeError(f"{name}(dst_array, *dst_index, src_array, *src_index{', src_size' if zfill else ''})")
    width = cp_size // da.itemsize
    src_size = int(extra[0]) if zfill else cp_size
    if not 0 <= src_size <= cp_size or src_size % da.itemsize:
        raise ValueError(f"{name}: src_size={src_size} must be a multiple of {da.itemsize} in 0..{cp_size}")
    off = _checked(da, di, width, "목적지(dst, .shared)", name)
    if off % cp_size:        # shared: offset from the array's base (declared alignment=16, so the base is aligned)
        raise _misaligned(off, off, di, da, cp_size, "목적지(dst, .shared)", name, "공유 메모리 오프셋 / shared offset")
    nsrc = src_size // da.itemsize      # only src_size bytes are read: only they must lie inside the source
    soff = _checked(sa, si, max(nsrc, 1), "원본(src, .global)", name)
    addr = sa.__array_interface__["data"][0] + soff
    if addr % cp_size:
        raise _misaligned(addr, soff, si, sa, cp_size, "원본(src, .global)", name, "전역 주소 / global address")
    if width == 1:
        values = sa[si] if nsrc else da.dtype.type(0)
        target = [da, di, values]
    else:
        values = np.zeros(width, da.dtype)
        if nsrc:
            values[:nsrc] = sa[si[:-1] + (slice(si[-1], si[-1] + nsrc),)]
        target = [da, di[:-1] + (slice(di[-1], di[-1] + width),), values]
    _issue(target, da, off, cp_size, name)


def _issue(target, da, off, nbytes, name):
    """Queue the copy; a destination byte that a pending copy of this thread will still write becomes undefined.

    PTX does not order cp.async operations before a wait covers them, so two pending copies to the same bytes
    may land in either order: the model makes both write NaN (undefined), which shows the hazard every time.
    """
    u = unit()
    dst = u.__dict__.setdefault("dst", {})          # (id(array), byte offset) -> pending payload
    keys = [(id(da), off + b) for b in range(0, nbytes, da.itemsize)]
    clash = {id(dst[k]): dst[k] for k in keys if k in dst}
    if clash:
        for other in clash.values():
            other[2] = _undefined(other[2], da)
        target[2] = _undefined(target[2], da)
    for k in keys:
        dst[k] = target
    target.append(keys)
    u.issue(target)


def _undefined(values, da):
    return np.full_like(values, np.nan) if isinstance(values, np.ndarray) else da.dtype.type(np.nan)


def _make_copy(name, cp_size, zfill):
    def stand_in(*args):
        _copy(name, cp_size, args, zfill)
    stand_in.__name__ = name
    return stand_in


def _land(payloads):
    if not payloads:
        return
    dst = unit().__dict__.get("dst", {})
    for a, idx, values, keys in payloads:
        a[idx] = values
        for k in keys:
            if dst.get(k) is not None and dst[k][3] is keys:
                del dst[k]


def cp_async_commit_group():
    unit().commit()


def _make_wait(n):
    def stand_in():
        _land(unit().wait_group(n))
    stand_in.__name__ = f"cp_async_wait_group_{n}"
    return stand_in


def cp_async_wait_all():
    _land(unit().wait_all())


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
