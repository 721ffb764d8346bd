"""Memory of a simulated kernel as the race detector sees it: shared arrays, the kernel's global arrays, bytes.

Shared memory: one NaN-filled array per declaration, with its declared alignment. Kernel code gets a ``SharedArray``
view: indexing it reads and writes the numpy buffer and tells the race detector (racecheck) which thread touched which
element at which line. Every view of it (slices, ``.T``, ``transpose``, ``reshape``, ``ravel``, ``swapaxes``,
``squeeze``) is a ``SharedArray`` of the same declaration, so the detector follows the elements wherever they are
reached from; ``.view(dtype)`` and dynamic shared memory declared with two dtypes are views of the same bytes, which
the detector checks against each other.

Global memory: the kernel's array arguments become ``GlobalArray`` (numba's in-kernel array wrapper plus the detector);
an element is known by its byte address, so views and aliases of one buffer meet.

PTX stand-ins take the buffers with ``host_array`` and report their own accesses (cp.async writes, ldmatrix reads),
so nothing is counted twice; the hardware moves bytes, so they use ``bytes_at``.
"""
import ast
import ctypes
import inspect
import linecache
import os
import re
import sys
import textwrap

import numpy as np
import numba.cuda.simulator as _numba_simulator
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray

from . import limits, racecheck
from .errors import MisalignedAddressError, SimulatorFault, StateSpaceError
from .racecheck import _blk0, _epoch, _global
from sim.korean import josa

from .state import _state, describe, running, where
from numba.np import numpy_support


_getframe = sys._getframe


def _thread():
    return _state["thread"]

DYNAMIC_ALIGN = 16      # dynamic shared memory: the runtime places it at a 16-byte aligned offset at least


def poison(arr):
    """Fill an array with a value that makes reads of unwritten memory visible (NaN; ints: -1 or the max)."""
    if arr.dtype.kind in "fc":
        arr.fill(np.nan)
    elif arr.dtype.kind in "iu":
        arr.fill(-1 if arr.dtype.kind == "i" else np.iinfo(arr.dtype).max)
    return arr


class SharedDecl:
    """One shared-memory declaration of a block: its buffer, name, declared alignment and race-detector shadow.
    `offset`: where its bytes start in the block's buffer they share with other declarations (views of one memory)."""

    def __init__(self, raw, name, align, site, dynamic=False, offset=0):
        self.raw, self.name, self.align, self.site, self.dynamic = raw, name, align, site, dynamic
        self.offset = offset
        self.shape = raw.shape
        self.ix = np.arange(raw.size, dtype=np.intp).reshape(raw.shape)   # flat element number of each element
        self.group = [self]                              # declarations over the same bytes
        self.views = {}                                  # dtype -> declaration of .view(dtype)
        racecheck.attach(self)
        self.view = SharedArray(raw, self.ix, self)      # what every thread's cuda.shared.array returns

    def index_of(self, flat):
        """The multi-index of flat element `flat`, as the kernel writes it."""
        return tuple(int(i) for i in np.unravel_index(flat, self.shape)) if self.shape else ()

    def link(self, other):
        """`other` covers the same bytes (another dtype): each is checked against the other's accesses."""
        if other in self.group:
            return
        self.group.append(other)
        other.group = self.group
        for d in self.group:
            d.alias = tuple(x for x in self.group if x is not d)

    def base_address(self):
        return self.raw.__array_interface__["data"][0]


def _is_basic(key):
    """True for keys numpy answers with a view (ints, slices, Ellipsis, None)."""
    if type(key) is not tuple:
        key = (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, np.integer, slice)) for k in key)


class SharedViewError(SimulatorFault, TypeError):
    """A view of a shared array that the GPU's Numba cannot make either (e.g. reshape of a non-contiguous view)."""


def negative_index_message(name, parts, shape):
    """What a negative index does on the GPU (Numba wraps it, as Python does), and why the simulator stops there."""
    wrapped = tuple(int(k) + n if int(k) < 0 else int(k) for k, n in zip(parts, shape))
    return (f"공유 배열 {name}: 음수 인덱스 {tuple(int(k) for k in parts)} (모양 {tuple(shape)}). GPU 의 Numba 는 음수 "
            f"인덱스를 파이썬처럼 감아서(wrap-around) {josa(f'{name}{list(wrapped)}', '을/를')} 읽고 씁니다 — 배열 밖이 아니라 "
            "같은 축의 끝쪽 원소입니다. 대개 `k - 1` 같은 인덱스 계산의 실수이므로 시뮬레이터는 여기서 멈춥니다. 정말 "
            f"끝 원소를 뜻했다면 {name}{list(wrapped)} 처럼 양수 인덱스로 쓰세요.\n"
            f"shared array {name}: negative index {tuple(int(k) for k in parts)} (shape {tuple(shape)}). On the GPU "
            f"Numba wraps negative indexes as Python does, so this reads/writes {name}{list(wrapped)} (the far end of "
            f"that axis, not memory outside the array). The simulator stops because it is usually an index bug; if "
            f"you meant that element, write {name}{list(wrapped)}.")


class SharedArray:
    """What `cuda.shared.array` returns in the simulator: numpy indexing, every element access checked for races."""

    __slots__ = ("_raw", "_ix", "_decl", "_flat")

    def __init__(self, raw, ix, decl):
        self._raw, self._ix, self._decl = raw, ix, decl
        self._flat = {}                # index tuple -> flat element number (filled on first use)

    def _element_number(self, key):
        """Flat element number of a full integer index, or None for views and fancy indexes; cached."""
        ix = self._ix[key]
        if type(ix) is np.ndarray:
            return None
        parts = key if type(key) is tuple else (key,)
        for k in parts:
            if k < 0:                  # Numba on the GPU wraps it (as numpy would): almost always an index bug
                raise IndexError(negative_index_message(self._decl.name, parts, self._raw.shape))
        self._flat[key] = i = int(ix)
        return i

    def __getitem__(self, key):
        try:
            i = self._flat[key]
        except KeyError:
            i = self._element_number(key)
        except TypeError:              # unhashable: a slice inside the key
            i = None
        v = self._raw[key]
        if i is None:
            if type(v) is np.ndarray and _is_basic(key):     # a view: no element is read yet
                return SharedArray(v, self._ix[key], self._decl)
            if racecheck.ON:
                t = _state["thread"]
                if t is not None:
                    acc = racecheck.at(t, sys._getframe(1))
                    racecheck.read_many(self._decl, np.asarray(self._ix[key]).reshape(-1), t, acc)
            return v
        if not racecheck.ON:
            return v
        t = _state["thread"]
        if t is None:
            return v
        f = _getframe(1)
        if f is not t.lf or f.f_lasti not in t.lset:    # a new line of this thread? (program order: racecheck.step)
            racecheck.step(t, f)
        # racecheck.read, inlined for the common case: this runs for every shared-memory load of every thread
        d, ep = self._decl, _epoch[0]
        if d.w_ep[i] == ep and d.w_acc[i][0] is not t or d.alias or d.atomics or d.pend and i in d.pend:
            racecheck.read(d, i, t, t.acc)
        elif d.r_ep[i] != ep:                           # the element's first read in this interval
            if d.w_ep[i] < _blk0[0]:                    # nobody in the block wrote it yet: judged at the barrier
                racecheck.read(d, i, t, t.acc)
            else:
                d.r_ep[i], d.r_acc[i], d.r2[i] = ep, t.acc, None
        elif d.r2[i] is None and d.r_acc[i][0] is not t:
            d.r2[i] = t.acc
        return v

    def __setitem__(self, key, value):
        try:
            i = self._flat[key]
        except KeyError:
            i = self._element_number(key)
        except TypeError:
            i = None
        self._raw[key] = value
        if not racecheck.ON:
            return
        t = _state["thread"]
        if t is None:
            return
        f = _getframe(1)
        if f is not t.lf or f.f_lasti not in t.lset:
            racecheck.step(t, f)
        if i is None:
            ix = self._ix[key]
            if type(ix) is np.ndarray:
                racecheck.write_many(self._decl, ix.reshape(-1), t, t.acc)
                return
            i = int(ix)
        racecheck.write(self._decl, i, t, t.acc)

    # ---- views: the same declaration's elements, reached another way (on the GPU: the same addresses)
    def _derived(self, v, decl=None, what="view"):
        """A SharedArray for numpy view `v` of this array's memory (decl: of another dtype over the same bytes)."""
        decl = decl or self._decl
        base, it = decl.base_address(), decl.raw.itemsize
        addr = v.__array_interface__["data"][0]
        end = base + decl.raw.nbytes
        if v.size and not (base <= addr < end and np.may_share_memory(v, decl.raw)):
            raise SharedViewError(
                f"공유 배열 {self._decl.name} 의 {josa(what, '이/가')} 원래 메모리의 뷰(view)가 아니라 복사본입니다 (연속이 아닌 배열의 "
                "reshape 등). GPU 의 Numba 도 연속이 아닌 배열은 reshape 하지 못하고, 복사본에 쓴 값은 공유 메모리에 "
                f"남지 않습니다: 인덱스로 직접 접근하세요.\n{what} of shared array {self._decl.name} would be a copy, "
                "not a view of the same memory (e.g. reshape of a non-contiguous view); Numba on the GPU cannot reshape "
                "a non-contiguous array either. Index the array directly instead.")
        off = addr - base
        if off % it or any(s % it for s in v.strides):
            raise SharedViewError(f"{what} of shared array {self._decl.name}: strides {v.strides} are not whole "
                                  f"elements of {decl.raw.dtype}")
        flat = decl.ix.reshape(-1)
        ix = np.ndarray(v.shape, np.intp, buffer=flat, offset=off // it * flat.itemsize,
                        strides=tuple(s // it * flat.itemsize for s in v.strides))
        return SharedArray(v, ix, decl)

    @property
    def T(self):
        return self._derived(self._raw.T, what=".T")

    def transpose(self, *axes):
        return self._derived(self._raw.transpose(*axes), what="transpose()")

    def reshape(self, *shape, **kw):
        return self._derived(self._raw.reshape(*shape, **kw), what="reshape()")

    def ravel(self, *a, **kw):
        return self._derived(self._raw.ravel(*a, **kw), what="ravel()")

    def swapaxes(self, a, b):
        return self._derived(self._raw.swapaxes(a, b), what="swapaxes()")

    def squeeze(self, *a, **kw):
        return self._derived(self._raw.squeeze(*a, **kw), what="squeeze()")

    def view(self, dtype=None, *a, **kw):
        """The same bytes as another dtype (the detector checks accesses through both views against each other)."""
        if dtype is None:
            return self
        dt = _as_dtype(dtype)
        if dt == self._raw.dtype:
            return self
        v = self._raw.view(dt)
        root = self._decl.group[0] if self._decl.dynamic else self._decl
        alias = root.views.get(dt.str) or next((d for d in root.group if d.raw.dtype == dt), None)
        if alias is None:
            whole = root.raw.reshape(-1).view(np.uint8)[:root.raw.nbytes // dt.itemsize * dt.itemsize].view(dt)
            alias = SharedDecl(whole, f"{root.name}.view({dt.name})", root.align, root.site, root.dynamic,
                               root.offset)
            root.views[dt.str] = alias
            root.link(alias)
        return self._derived(v, alias, what=f".view({dt.name})")

    def __array__(self, dtype=None, copy=None):
        self._read_all(2)
        return np.array(self._raw, dtype=dtype)

    def _read_all(self, depth):
        """Every element of this view is read (a copy of it, np.sum(view), ...)."""
        if racecheck.ON:
            t = _state["thread"]
            if t is not None:
                acc = racecheck.at(t, sys._getframe(depth))
                racecheck.read_many(self._decl, self._ix.reshape(-1), t, acc)

    def copy(self, *a, **kw):
        self._read_all(2)
        return self._raw.copy(*a, **kw)

    def flatten(self, *a, **kw):
        self._read_all(2)
        return self._raw.flatten(*a, **kw)

    def __len__(self):
        return len(self._raw)

    def __iter__(self):
        for i in range(len(self._raw)):
            yield self[i]

    def __getattr__(self, name):               # shape, dtype, size, ndim, strides, ...
        return getattr(self._raw, name)

    def __repr__(self):
        return f"SharedArray({self._decl.name}, shape={self._raw.shape}, dtype={self._raw.dtype})"


def _as_dtype(dtype):
    try:
        return np.dtype(dtype)
    except TypeError:
        return numpy_support.as_dtype(dtype)


# ------------------------------------------------------------------------------------ global memory

class GlobalArray(FakeWithinKernelCUDAArray):
    """A kernel's array argument (global memory) as the kernel sees it: numba's in-kernel array, every element access
    told to the race detector by byte address (views of the array are GlobalArrays too)."""

    def __init__(self, item, name):
        d = self.__dict__
        d["_item"] = item
        a = item._ary
        d["_a"], d["_name"], d["_addr"], d["_offs"] = a, name, {}, None
        d["_base"] = a.__array_interface__["data"][0] if a.ndim else 0

    def _address(self, key):
        """Byte address of element `key` (None for keys that are not one element)."""
        a = self._a
        parts = key if type(key) is tuple else (key,)
        if len(parts) != a.ndim:
            return None
        addr = self._base
        for k, n, s in zip(parts, a.shape, a.strides):
            if not isinstance(k, (int, np.integer)):
                return None
            k = int(k)
            addr += (k + n if k < 0 else k) * s
        try:
            self._addr[key] = addr
        except TypeError:
            pass
        return addr

    def _offsets(self):
        o = self._offs
        if o is None:
            a = self._a
            o = np.full(a.shape, self._base, np.int64)
            for ax, (n, s) in enumerate(zip(a.shape, a.strides)):
                shape = [1] * a.ndim
                shape[ax] = n
                o = o + (np.arange(n, dtype=np.int64) * s).reshape(shape)
            self.__dict__["_offs"] = o
        return o

    def __getitem__(self, key):
        v = self._a[key]
        tv = type(v)
        if tv is np.ndarray:
            if _is_basic(key):                       # a view: its elements are checked when it is indexed
                return GlobalArray(FakeCUDAArray(v), self._name)
            self._touch_many(key, False)
            return FakeWithinKernelCUDAArray(FakeCUDAArray(v))
        if tv is np.void:
            return FakeWithinKernelCUDAArray(FakeCUDAArray(v))
        if not racecheck.ON:
            return v
        t = _state["thread"]
        if t is None:
            return v
        try:
            addr = self._addr[key]
        except KeyError:
            addr = self._address(key)
            if addr is None:
                return v
        f = _getframe(1)
        if f is not t.lf or f.f_lasti not in t.lset:
            racecheck.step(t, f)
        # racecheck.gread, inlined for the common case (an input read by many threads and blocks, never written)
        acc = t.acc
        rec = _global.get(addr)
        if rec is None:
            _global[addr] = [-1, None, _epoch[0], acc, None, acc, None, None, None]
            return v
        w = rec[1]
        if w is not None and w[0] is not t or rec[7] is not None:
            racecheck.gread(self._name, addr, key, t, acc)
            return v
        ep = _epoch[0]
        if rec[2] != ep:
            rec[2], rec[3], rec[4] = ep, acc, None
        elif rec[4] is None and rec[3][0] is not t:
            rec[4] = acc
        r0 = rec[5]
        if r0 is None:
            rec[5] = acc
        elif rec[6] is None and r0[0].block is not t.block:
            rec[6] = acc
        return v

    def __setitem__(self, key, val):
        self._a[key] = val
        if not racecheck.ON or _state["thread"] is None:
            return
        try:
            addr = self._addr.get(key)
        except TypeError:
            addr = None
        if addr is None:
            addr = self._address(key)
            if addr is None:
                self._touch_many(key, True, 2)
                return
        t = _state["thread"]
        f = sys._getframe(1)
        if f is not t.lf or f.f_lasti not in t.lset:
            racecheck.step(t, f)
        racecheck.gwrite(self._name, addr, key, t, t.acc)

    def _touch_many(self, key, is_write, depth=2):
        """A slice or fancy index: every element it covers is read (or written)."""
        t = _state["thread"]
        if not racecheck.ON or t is None:
            return
        acc = racecheck.at(t, sys._getframe(depth))
        offs = np.asarray(self._offsets()[key]).reshape(-1)
        idx = np.asarray(np.indices(self._a.shape)[(slice(None),) + (key if type(key) is tuple else (key,))])
        idx = idx.reshape(self._a.ndim, -1).T
        for addr, ix in zip(offs.tolist(), idx.tolist()):
            (racecheck.gwrite if is_write else racecheck.gread)(self._name, addr, tuple(ix), t, acc)

    def touch(self, idx, nbytes, is_write, acc, t):
        """A PTX stand-in reads or writes nbytes from element idx: every element those bytes cover."""
        a = self._a
        addr = self._address(tuple(idx))
        it = a.itemsize
        for k in range(max(1, -(-nbytes // it))):
            ix = tuple(idx[:-1]) + (idx[-1] + k,) if a.ndim else ()
            (racecheck.gwrite if is_write else racecheck.gread)(self._name, addr + k * a.strides[-1], ix, t, acc)

    def __array__(self, dtype=None, copy=None):
        self._touch_many(Ellipsis, False, 2)
        return np.array(self._a, dtype=dtype)

    def __repr__(self):
        return f"GlobalArray({self._name}, shape={self._a.shape}, dtype={self._a.dtype})"


def wrap_arguments(f, args):
    """The kernel's arguments with every array argument as a GlobalArray named as the kernel names it."""
    code = getattr(f, "__code__", None)
    names = code.co_varnames[:code.co_argcount] if code is not None else ()
    out = []
    for k, a in enumerate(args):
        if type(a) is FakeWithinKernelCUDAArray and isinstance(getattr(a._item, "_ary", None), np.ndarray) \
                and type(a._item._ary) is np.ndarray and a._item._ary.dtype.names is None:
            a = GlobalArray(a._item, names[k] if k < len(names) else f"arg{k}")
        out.append(a)
    return tuple(out)


def host_array(arr):
    """The numpy buffer behind an array argument as a simulated kernel sees it (shared view, kernel arg or numpy)."""
    if type(arr) is SharedArray:
        return arr._raw
    inner = getattr(arr, "_item", arr)          # FakeWithinKernelCUDAArray -> FakeCUDAArray
    return getattr(inner, "_ary", inner)         # FakeCUDAArray -> numpy


class LocalArray(np.ndarray):
    """What `cuda.local.array` returns in the simulator: a numpy array that knows it is per-thread local memory."""


def space_of(arr):
    """'shared' for a shared-memory view, 'local' for a cuda.local.array, else 'global'."""
    if type(arr) is SharedArray:
        return "shared"
    if isinstance(arr, LocalArray):
        return "local"
    return "global"


def element(arr, idx, width=1):
    """(numpy array, index tuple, byte address) of arr[idx]; raises IndexError like a fault for bad indexes."""
    a = host_array(arr)
    idx = tuple(int(i) for i in idx)
    if len(idx) != a.ndim:
        raise IndexError(f"{a.ndim}-D array needs {a.ndim} indexes, got {len(idx)}")
    for axis, (i, n) in enumerate(zip(idx, a.shape)):
        last = i + (width - 1 if axis == a.ndim - 1 else 0)
        if i < 0 or last >= n:
            raise IndexError(f"element {idx} (+{width - 1} along the last axis) is outside an array of shape "
                             f"{a.shape}: on the GPU this reads/writes memory that is not the array's")
    addr = a.__array_interface__["data"][0] + sum(i * s for i, s in zip(idx, a.strides))
    return a, idx, addr


def bytes_at(arr, idx, nbytes, name="", role=""):
    """A writable uint8 view of the nbytes of memory starting at element idx of arr, as the hardware moves bytes,
    whatever the array's dtype. The bytes must lie in the row of idx (the last axis), else IndexError."""
    a = host_array(arr)
    idx = tuple(int(i) for i in idx)
    if len(idx) != a.ndim:
        raise IndexError(f"{name}: {role}: {a.ndim}-D array needs {a.ndim} indexes, got {len(idx)}")
    count = max(1, -(-nbytes // a.itemsize))
    for axis, (i, n) in enumerate(zip(idx, a.shape)):
        last = i + (count - 1 if axis == a.ndim - 1 else 0)
        if i < 0 or last >= n:
            raise IndexError(f"{name}: {role} 원소 {idx} 부터 {nbytes} 바이트가 배열 밖입니다 / the {nbytes} bytes from "
                             f"element {idx} run outside an array of shape {a.shape}, dtype {a.dtype}: on the GPU "
                             "this reads or writes memory that is not the array's")
    if a.ndim and count > 1 and a.strides[-1] != a.itemsize:
        raise IndexError(f"{name}: {role}: the array's last axis is not contiguous (strides {a.strides}): the "
                         f"{nbytes} bytes at element {idx} are not that row's elements")
    addr = a.__array_interface__["data"][0] + sum(i * s for i, s in zip(idx, a.strides))
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(addr)), addr


def shared_elements(arr, idx, nbytes):
    """(declaration, flat element numbers, byte offset from the declaration's start) of nbytes at arr[idx]."""
    decl = arr._decl
    a, idx, addr = element(arr, idx, width=max(1, nbytes // arr._raw.itemsize))
    base = decl.raw.__array_interface__["data"][0]
    off = addr - base
    it = decl.raw.itemsize
    first = off // it
    return decl, range(first, (off + max(nbytes, 1) - 1) // it + 1), off


def check_shared_alignment(arr, idx, nbytes, name, role="주소 / address", thread=None, site=None,
                           error=MisalignedAddressError):
    """MisalignedAddressError unless arr[idx] is nbytes-aligned *by declaration* (alignment=, offset in the array)."""
    decl, _, off = shared_elements(arr, idx, nbytes)
    if off % nbytes == 0 and decl.align >= nbytes:
        return
    t = thread or running()
    who = f" — {describe(t)}" if t is not None else ""
    where_ = f", {where(site[0], site[1])}" if site else _kernel_line()
    if off % nbytes:
        why_ko = f"배열 시작에서 {off} B 떨어져 있어 {nbytes}의 배수가 아닙니다"
        why_en = f"it lies {off} B from the array's start, not a multiple of {nbytes}"
        row_strides = decl.raw.strides[:-1]
        if all(st % nbytes == 0 for st in row_strides):
            # every row starts aligned: the index along the last axis (the column) is what is off
            per = max(1, nbytes // decl.raw.itemsize)
            fix = (f"행은 모두 {{0}} B 정렬이니 열 인덱스가 원소 {per}개({{0}} B)의 배수인지 보세요 / every row is "
                   f"{{0}}-byte aligned: make the column index a multiple of {per} elements")
        else:
            fix = ("행 간격(stride)이 {0} B 의 배수인 배치를 쓰세요 / use a layout whose row stride is a multiple of "
                   "{0} B")
    else:
        decl_txt = f"alignment={decl.align}" if decl.align > decl.raw.itemsize else "alignment 없이 / without alignment="
        why_ko = (f"공유 배열 {josa(decl.name, '이/가')} {decl_txt} 로 선언되어 시작 주소가 {decl.align} B 정렬만 보장됩니다"
                  " (numpy 버퍼가 우연히 정렬된 것은 GPU와 상관없음)")
        why_en = (f"shared array {decl.name} is declared with alignment {decl.align}, so its start is only "
                  f"guaranteed {decl.align}-byte aligned on the GPU")
        fix = (f"선언에 {josa(f'alignment={nbytes}', '을/를')} 주세요: cuda.shared.array(shape, dtype, alignment={{0}}) / "
               "declare it with alignment={0}")
    layout = f"shape {decl.raw.shape}, dtype {decl.raw.dtype}, strides {decl.raw.strides} B"
    raise error(
        f"{name}: {role} {decl.name}{decl.index_of(off // decl.raw.itemsize)} (공유 메모리 오프셋 0x{off:x}; 배열 "
        f"{layout}) 가 {nbytes}바이트 정렬이 아닐 수 "
        f"있습니다 — {why_ko}{who}{where_}. GPU에서는 'misaligned address' 오류로 커널이 멈춥니다.\n"
        f"{name}: {decl.name}{decl.index_of(off // decl.raw.itemsize)} may not be {nbytes}-byte aligned: {why_en}"
        f"{where_}; the GPU faults with misaligned address.\n  → " + fix.format(nbytes))


def _kernel_line():
    """', file:line' of the innermost frame outside the simulator package (the kernel line), for messages."""
    f = sys._getframe(1)
    here = __file__.rsplit("/", 1)[0]
    while f is not None and (f.f_code.co_filename.startswith(here) or "/infra/ptx/" in f.f_code.co_filename):
        f = f.f_back
    return f", {where(f.f_code.co_filename, f.f_lineno)}" if f is not None else ""


def require_space(arr, want, name, role, thread=None, site=None):
    """StateSpaceError unless arr lives in state space `want` ('shared' or 'global')."""
    got = space_of(arr)
    if got == want:
        return
    t = thread or running()
    where_ = f", {where(site[0], site[1])}" if site else _kernel_line()
    who = f" ({describe(t)}{where_})" if t is not None else ""
    ko = {"shared": "공유 메모리(cuda.shared.array)", "global": "전역 메모리(커널 인자)",
          "local": "로컬 메모리(cuda.local.array)"}
    arr_name = getattr(arr, "_name", None) or (arr._decl.name if type(arr) is SharedArray else None)
    what = f" `{arr_name}`" if arr_name else ""
    role_ko = role.split(" / ")[0]
    raise StateSpaceError(
        f"{name}: {role_ko} 자리에는 {josa(ko[want], '이/가')} 와야 하는데 {ko[got]} 배열"
        f"{josa(what, '이/가') if what else '이'} 들어왔습니다{who}. GPU에서는 주소 공간이 달라 "
        f"엉뚱한 메모리를 읽거나 쓰거나 오류로 멈춥니다 (CUDA_ERROR_INVALID_ADDRESS_SPACE 등).\n{name}: the "
        f"{role.split('/')[-1].strip()} must be in .{want} memory, got the .{got} array{what}{who}; on the GPU the "
        "address points into another state space (CUDA_ERROR_INVALID_ADDRESS_SPACE or wrong memory).")


# --------------------------------------------------------------------------------- declarations

_DECL_NAMES = re.compile(r"^\s*([\w\s,]+?)\s*=\s*.*cuda\.shared\.array")


def _decl_name(filename, lineno, nth):
    m = _DECL_NAMES.match(linecache.getline(filename, lineno) or "")
    if not m:
        return f"shared@{lineno}"
    names = [n.strip() for n in m.group(1).split(",")]
    return names[nth] if nth < len(names) else f"{names[0]}#{nth}"


class SharedShapeError(SimulatorFault, TypeError):
    """A shared or local array's shape is not made of compile-time constants (the GPU compiler rejects it)."""


_SHAPE_CHECKED = {}     # declaration site -> None (fine) or the error message: each site is judged once
_FUNC_TREES = {}        # code object -> (FunctionDef, first line) or None when the source is not available


def _function_tree(code):
    """The kernel's (or device function's) FunctionDef parsed from its source, and the line its source starts on."""
    if code not in _FUNC_TREES:
        try:
            lines, first = inspect.getsourcelines(code)
            tree = ast.parse(textwrap.dedent("".join(lines)))
            fn = next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            _FUNC_TREES[code] = (fn, first)
        except (OSError, TypeError, SyntaxError, StopIteration):
            _FUNC_TREES[code] = None
    return _FUNC_TREES[code]


def _constant_only(node):
    """True if `node` is arithmetic on literals only (Python folds it to one constant before Numba sees it)."""
    return all(isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Tuple, ast.Load))
               for n in ast.walk(node))


def _bindings(fn, name):
    """Every statement of function `fn` that binds `name`: (value or None, statement)."""
    out = []
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign):
            for tgt in st.targets:
                if isinstance(tgt, ast.Name) and tgt.id == name:
                    out.append((st.value, st))
                elif isinstance(tgt, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Name) and e.id == name for e in ast.walk(tgt)):
                    pairs = (zip(tgt.elts, st.value.elts) if isinstance(st.value, ast.Tuple)
                             and len(st.value.elts) == len(tgt.elts) else ())
                    value = next((v for t, v in pairs if isinstance(t, ast.Name) and t.id == name), None)
                    out.append((value, st))
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr, ast.comprehension)):
            targets = [st.target] if not isinstance(st, ast.With) else [i.optional_vars for i in st.items]
            if any(isinstance(e, ast.Name) and e.id == name for t in targets if t is not None for e in ast.walk(t)):
                value = st.value if isinstance(st, ast.AnnAssign) else None
                out.append((value, st))
    return out


_NUMBA_SIM = os.path.dirname(_numba_simulator.__file__)     # numba's simulator (its device-function wrapper)
_HERE = os.path.dirname(__file__)                             # the course's simulator (the scheduler starts kernels)


def _caller(frame):
    """The user frame that called device function `frame` (numba's device-function wrapper skipped), or None when
    `frame` is the kernel itself (the course's scheduler started it)."""
    f = frame.f_back if frame is not None else None
    while f is not None and (f.f_code.co_filename.startswith(_NUMBA_SIM)     # the device function's __call__
                             or (f.f_code.co_name == "_launch" and f.f_code.co_filename.startswith(_HERE))):
        f = f.f_back
    return None if f is None or f.f_code.co_filename.startswith(_HERE) else f


def _argument_at_call(frame, fn, name):
    """(expression, caller frame, caller FunctionDef) that the caller of device function `frame` passed for its
    parameter `name`; None when the call cannot be found (then the argument is trusted)."""
    caller = _caller(frame)
    found = _function_tree(caller.f_code) if caller is not None else None
    if found is None:
        return None
    cfn, first = found
    line, callee = caller.f_lineno, frame.f_code.co_name
    calls = [n for n in ast.walk(cfn) if isinstance(n, ast.Call)
             and n.lineno + first - 1 <= line <= n.end_lineno + first - 1]
    named = [c for c in calls if ast.unparse(c.func).split(".")[-1] == callee]
    calls = named or (calls if len(calls) == 1 else [])
    if len(calls) != 1 or any(isinstance(a, ast.Starred) for a in calls[0].args):
        return None
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    call = calls[0]
    i = params.index(name) if name in params else None
    if i is not None and i < len(call.args):
        return call.args[i], caller, cfn
    kw = next((k.value for k in call.keywords if k.arg == name), None)
    return (kw, caller, cfn) if kw is not None else None        # left out: its default, a constant


def _runtime_part(node, fn, depth=0, frame=None, used=None):
    """None if shape expression `node` is a compile-time constant for Numba on the GPU, else (expression, why_ko,
    why_en): integer literals, arithmetic on literals only, names of module-level (or closure) constants, and local
    names assigned one such value are constants; a kernel argument, an attribute (`A.shape[0]`, `cfg.TILE`), an
    index, a call and arithmetic on names are not (each measured with numba-cuda's compiler)."""
    if isinstance(node, ast.Tuple):
        return next((r for r in (_runtime_part(e, fn, depth, frame, used) for e in node.elts) if r), None)
    if _constant_only(node):
        return None
    text = ast.unparse(node)
    if isinstance(node, ast.Name) and fn is not None:
        if node.id in {a.arg for a in fn.args.args + fn.args.posonlyargs + fn.args.kwonlyargs}:
            if used is not None:
                used.append(True)              # the verdict depends on who called: cached per call chain
            if _caller(frame) is None:         # the kernel's own argument: always a run-time value
                return (text, f"{josa(f'`{text}`', '은/는')} 커널 인자라 실행할 때 정해지는 값입니다",
                        f"`{text}` is a kernel argument, a run-time value")
            # a device function's parameter: Numba specializes it on what the caller passes (a literal stays one)
            at = _argument_at_call(frame, fn, node.id) if depth < 8 else None
            if at is None:
                return None
            expr, caller, cfn = at
            inner = _runtime_part(expr, cfn, depth + 1, caller, used)
            if inner:
                call = frame.f_code.co_name
                return (text, f"{josa(f'`{text}`', '은/는')} 장치 함수 인자인데, {josa(f'`{call}`', '을/를')} 부르는 "
                        f"곳에서 {josa(f'`{ast.unparse(expr)}`', '이/가')} 넘어옵니다: {inner[1]}",
                        f"`{text}` is a device-function parameter; the call of `{call}` passes `{ast.unparse(expr)}`: "
                        f"{inner[2]}")
            return None
        binds = _bindings(fn, node.id)
        if not binds:                           # a module-level or closure constant: Numba freezes it
            return None
        values = {ast.unparse(v) if v is not None else None for v, _ in binds}
        stmt = ast.unparse(binds[-1][1]).splitlines()[0]
        if None in values or len(values) > 1:
            stmt = "; ".join(dict.fromkeys(ast.unparse(s).splitlines()[0] for _, s in binds))
            return (text, f"{josa(f'`{text}`', '은/는')} 한 값으로 정해지지 않습니다(`{stmt}`)",
                    f"`{text}` is not bound to one constant (`{stmt}`)")
        inner = _runtime_part(binds[0][0], fn, depth + 1, frame, used) if depth < 8 else None
        if inner:
            return (text, f"{josa(f'`{text}`', '은/는')} {josa(f'`{stmt}`', '으로/로')} 정해지는데 {inner[1]}",
                    f"`{text}` comes from `{stmt}`; {inner[2]}")
        return None
    if isinstance(node, ast.Name):              # no source to look into: a name is taken as a constant
        return None
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return (text, f"{josa(f'`{text}`', '은/는')} 이름이 들어간 계산식이라 Numba 가 상수로 접지 않습니다",
                f"`{text}` is arithmetic on names, which Numba does not fold into a constant")
    return (text, f"{josa(f'`{text}`', '은/는')} 실행할 때 계산되는 값입니다(속성·인덱스·함수 호출)",
            f"`{text}` is computed at run time (an attribute, an index or a call)")


def _shape_problem(frame, kind, used=None):
    """The error message if the `cuda.<kind>.array` declaration at `frame`'s line has a shape that is not a
    compile-time constant, else None; appends to `used` when the verdict looked at the caller (a device function's
    parameter)."""
    code, line = frame.f_code, frame.f_lineno
    found = _function_tree(code)
    if found is not None:
        fn, first = found
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(f"{kind}.array")
                 and n.lineno + first - 1 <= line <= n.end_lineno + first - 1]
    else:                                       # no source (e.g. exec'd text): the line alone, names trusted
        fn, text = None, linecache.getline(code.co_filename, line).strip()
        try:
            tree = ast.parse(text if not text.endswith((",", "(")) else "")
        except SyntaxError:                     # a declaration over several lines: not checked
            return None
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(f"{kind}.array")]
    for call in calls:
        shape = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "shape"), None)
        bad = _runtime_part(shape, fn, 0, frame, used) if shape is not None else None
        if bad:
            what, why_ko, why_en = bad
            shp = ast.unparse(shape)
            return (f"{code.co_filename}:{line}: cuda.{kind}.array 의 모양 `{shp}` 에 컴파일 시점 상수가 아닌 "
                    f"{josa(f'`{what}`', '이/가')} 있습니다: {why_ko}. GPU 의 Numba 는 이 커널을 컴파일하지 못합니다 "
                    f"(TypingError). 모양은 정수 리터럴이나 모듈 수준 상수로 쓰세요, 예: 모듈 맨 위에 `TILE = 16`, "
                    f"`TILE_PAD = TILE + 1` 을 두고 `cuda.{kind}.array((TILE, TILE_PAD), float32)`. 크기가 입력마다 "
                    "다르면 가장 큰 크기를 상수로 잡고 인덱스를 검사하세요.\n"
                    f"the shape `{shp}` of cuda.{kind}.array uses `{what}`, which is not a compile-time constant "
                    f"({why_en}): Numba on the GPU rejects it (TypingError). Use integer literals or module-level "
                    f"constants, e.g. `TILE = 16` and `TILE_PAD = TILE + 1` at module level and "
                    f"`cuda.{kind}.array((TILE, TILE_PAD), float32)`.")
    return None


def check_literal_shape(frame, kind="shared"):
    """SharedShapeError if the shape of the `cuda.shared.array` (kind 'shared') or `cuda.local.array` ('local')
    declared at `frame`'s line is not a compile-time constant, as Numba on the GPU requires: literals, arithmetic on
    literals, module-level constants, a local assigned one such value, a device function's parameter given one of
    those by its caller are fine; `(BM, BK + 1)`, `A.shape[0]`, a kernel argument are a TypingError on the GPU (`TILE + 1` measured on the H100, the rest with numba-cuda's
    compiler)."""
    site = (frame.f_code, frame.f_lineno, kind)
    if site not in _SHAPE_CHECKED:
        used = []
        msg = _shape_problem(frame, kind, used)
        _SHAPE_CHECKED[site] = (msg, bool(used))
    msg, per_call = _SHAPE_CHECKED[site]
    if per_call:                               # a device function's parameter: judged per chain of call sites
        chain, f = [], frame
        while f is not None:
            chain.append((f.f_code, f.f_lineno))
            f = _caller(f)
        key = tuple(chain) + (kind,)
        if key not in _SHAPE_CHECKED:
            _SHAPE_CHECKED[key] = (_shape_problem(frame, kind), False)
        msg = _SHAPE_CHECKED[key][0]
    if msg:
        raise SharedShapeError(msg)


def alloc(shared, shape, dtype, alignment, frame):
    """The block's shared array declared at `frame`'s call site: one per declaration, even two on one line."""
    site = (frame.f_code.co_filename, frame.f_code.co_firstlineno, frame.f_lineno, frame.f_lasti)
    decls = shared.__dict__.setdefault("_sgemm_decls", {})
    decl = decls.get(site)
    if decl is None:
        check_literal_shape(frame)
        raw = poison(np.empty(shape, dtype))
        nth = sum(1 for s in decls if s[:3] == site[:3] and s[0] != "dynamic")
        decl = SharedDecl(raw, _decl_name(site[0], site[2], nth), max(alignment or 1, raw.itemsize), site[::2])
        limits.check_static_shared([d for k, d in decls.items() if k[0] != "dynamic"] + [decl], frame,
                                    shared._dynshared_size)
        decls[site] = decl
        shared._allocations[site] = raw        # the stock simulator's list (poisoned per block by the scheduler)
    return decl.view


def alloc_dynamic(shared, dtype, frame, alignment=None):
    """A view of the block's dynamic shared memory (all `cuda.shared.array(0, ...)` alias it, as on the GPU); its start
    is aligned to the largest of 16 B and the declared `alignment=` (the extern declaration's .align)."""
    count = shared._dynshared_size // dtype.itemsize
    raw = np.frombuffer(shared._dynshared.data, dtype=dtype, count=count)
    key = ("dynamic", dtype.str)
    decls = shared.__dict__.setdefault("_sgemm_decls", {})
    decl = decls.get(key)
    if decl is None or decl.raw.size != count:
        decl = SharedDecl(raw, _decl_name(frame.f_code.co_filename, frame.f_lineno, 0) + "(dynamic)",
                          max(DYNAMIC_ALIGN, dtype.itemsize, alignment or 1), (frame.f_code.co_filename, frame.f_lineno),
                          True)
        for k, other in decls.items():          # one byte array: every dtype's view is checked against the others
            if k[0] == "dynamic" and other.raw.size:
                other.link(decl)
        decls[key] = decl
    return decl.view


def standalone(arr, name="S", alignment=16):
    """A shared-memory view over numpy array `arr` outside any kernel (tests of the PTX stand-ins)."""
    return SharedDecl(arr, name, max(alignment, arr.itemsize), ("<standalone>", 0)).view
