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


def _operand(arr, idx, nbytes, role, name, shared, width=None):
    """(numpy array, index, width) of a cp.async operand, checked: `width` elements in bounds, nbytes-aligned."""
    from . import _element, _host_array
    a = _host_array(arr)
    width = max(1, nbytes // a.itemsize) if width is None else width
    a, i, addr = _element(arr, idx, width=width)
    off = sum(k * s for k, s in zip(i, a.strides))
    where = off if shared else addr       # shared: offset from the array's (aligned) base; global: real address
    if where % nbytes:
        space = "공유 메모리 오프셋 / shared offset" if shared else "전역 주소 / global address"
        raise AsyncCopyAlignmentError(
            f"{name}: {role} 원소 {tuple(i)} 의 {space} 0x{where:x} (배열 시작에서 {off} B) 가 {nbytes}바이트 정렬이 "
            f"아닙니다 — 배열 {_layout(a)}. GPU에서는 'misaligned address' 오류로 커널이 멈춥니다. 행 간격(stride)이 "
            f"{nbytes} B 의 배수인 레이아웃을 쓰거나 {nbytes}바이트 미만 복사로 바꾸세요. / {role} element {tuple(i)} at "
            f"0x{where:x} is not {nbytes}-byte aligned (array {_layout(a)}); the GPU faults with misaligned address.")
    return a, i, width


def _copy(name, cp_size, dst, src_arr, src_idx, src_size):
    """Issue one copy: read src now, write dst at the wait that guarantees it."""
    ndst = _host_array_ndim(dst[0])
    d_arr, d_idx = dst[0], dst[1:1 + ndst]
    da, di, width = _operand(d_arr, d_idx, cp_size, "목적지(dst, .shared)", name, shared=True)
    src_size = int(src_size)
    if not 0 <= src_size <= cp_size or src_size % da.itemsize:
        raise ValueError(f"{name}: src_size={src_size} must be a multiple of {da.itemsize} in 0..{cp_size}")
    values = np.zeros(width, da.dtype)
    nsrc = src_size // da.itemsize
    # only src_size bytes are read, so only they must lie inside the source; the address must be aligned anyway
    sa, si, _ = _operand(src_arr, src_idx, cp_size, "원본(src, .global)", name, shared=False, width=max(nsrc, 1))
    if nsrc:
        values[:nsrc] = sa[si[:-1] + (slice(si[-1], si[-1] + nsrc),)]
    target = (da, di[:-1] + (slice(di[-1], di[-1] + width),), values)
    unit().issue(target)


def _host_array_ndim(arr):
    from . import _host_array
    return _host_array(arr).ndim


def _split(args, name):
    """(dst array, *dst idx), src array, src idx, rest from the flat (array, i, j, ..., array, i, j, ...) arguments."""
    from . import _host_array
    nd = _host_array(args[0]).ndim
    dst = args[:1 + nd]
    rest = args[1 + nd:]
    if not rest:
        raise TypeError(f"{name}(dst_array, *dst_index, src_array, *src_index[, src_size])")
    ns = _host_array(rest[0]).ndim
    return dst, rest[0], rest[1:1 + ns], rest[1 + ns:]


def _make_copy(name, cp_size, zfill):
    def stand_in(*args):
        dst, src, sidx, extra = _split(args, name)
        if len(extra) != (1 if zfill else 0):
            raise TypeError(f"{name}: {'src_size is the last argument' if zfill else 'too many arguments'}")
        _copy(name, cp_size, dst, src, sidx, extra[0] if zfill else cp_size)
    stand_in.__name__ = name
    return stand_in


def _land(payloads):
    for a, idx, values in payloads:
        a[idx] = values


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
