"""Shared memory of a simulated block: one array per declaration, NaN-filled, with its declared alignment.

Kernel code gets a ``SharedArray`` view: indexing it reads and writes the numpy buffer and tells the race detector
(racecheck) which thread touched which element at which line. PTX stand-ins take the buffer with ``host_array`` and
report their own accesses (cp.async writes, ldmatrix reads), so nothing is counted twice.
"""
import ast
import linecache
import re
import sys

import numpy as np

from . import racecheck
from .errors import MisalignedAddressError, SimulatorFault, StateSpaceError
from .racecheck import _epoch
from .state import _state, describe, running


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
    """One shared-memory declaration of a block: its buffer, name, declared alignment and race-detector shadow."""

    def __init__(self, raw, name, align, site, dynamic=False):
        self.raw, self.name, self.align, self.site, self.dynamic = raw, name, align, site, dynamic
        self.shape = raw.shape
        self.ix = np.arange(raw.size, dtype=np.intp).reshape(raw.shape)   # flat element number of each element
        racecheck.attach(self)
        self.view = SharedArray(raw, self.ix, self)      # what every thread's cuda.shared.array returns

    def index_of(self, flat):
        """The multi-index of flat element `flat`, as the kernel writes it."""
        return tuple(int(i) for i in np.unravel_index(flat, self.shape)) if self.shape else ()


def _is_basic(key):
    """True for keys numpy answers with a view (ints, slices, Ellipsis, None)."""
    if type(key) is not tuple:
        key = (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, np.integer, slice)) for k in key)


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
        for k, n in zip(parts, self._raw.shape):
            if k < 0:                  # numpy would wrap around; the GPU would address memory before the array
                raise IndexError(f"shared array {self._decl.name}: negative index {tuple(parts)} (shape "
                                 f"{self._raw.shape}): on the GPU this addresses memory outside the array")
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
                f = sys._getframe(1)
                racecheck.read_many(self._decl, self._ix[key].reshape(-1), (f.f_code.co_filename, f.f_lineno))
            return v
        if not racecheck.ON:
            return v
        # racecheck.read, inlined: this runs for every shared-memory load of every simulated thread
        d, t, ep = self._decl, _state["thread"], _epoch[0]
        if t is None:
            return v
        if d.pend and i in d.pend or d.w_ep[i] == ep and d.w_thr[i] is not t:
            f = sys._getframe(1)
            racecheck.read(d, i, (f.f_code.co_filename, f.f_lineno), t)
        elif d.r_ep[i] != ep:
            f = sys._getframe(1)
            d.r_ep[i], d.r_thr[i], d.r_site[i], d.r2_thr[i] = ep, t, (f.f_code.co_filename, f.f_lineno), None
        elif d.r2_thr[i] is None and d.r_thr[i] is not t:
            f = sys._getframe(1)
            d.r2_thr[i], d.r2_site[i] = t, (f.f_code.co_filename, f.f_lineno)
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
        f = sys._getframe(1)
        site = (f.f_code.co_filename, f.f_lineno)
        if i is None:
            ix = self._ix[key]
            if type(ix) is np.ndarray:
                racecheck.write_many(self._decl, ix.reshape(-1), site)
                return
            i = int(ix)
        racecheck.write(self._decl, i, site)

    def __array__(self, dtype=None, copy=None):
        if racecheck.ON:
            f = sys._getframe(1)
            racecheck.read_many(self._decl, self._ix.reshape(-1), (f.f_code.co_filename, f.f_lineno))
        return np.array(self._raw, dtype=dtype)

    def __len__(self):
        return len(self._raw)

    def __iter__(self):
        for i in range(len(self._raw)):
            yield self[i]

    def __getattr__(self, name):               # shape, dtype, size, ndim, strides, ...
        return getattr(self._raw, name)

    def __repr__(self):
        return f"SharedArray({self._decl.name}, shape={self._raw.shape}, dtype={self._raw.dtype})"


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


def shared_elements(arr, idx, nbytes):
    """(declaration, flat element numbers, byte offset from the declaration's start) of nbytes at arr[idx]."""
    decl = arr._decl
    a, idx, addr = element(arr, idx, width=max(1, nbytes // arr._raw.itemsize))
    base = decl.raw.__array_interface__["data"][0]
    off = addr - base
    first = off // decl.raw.itemsize
    return decl, range(first, first + max(1, nbytes // decl.raw.itemsize)), off


def check_shared_alignment(arr, idx, nbytes, name, role="주소 / address", thread=None, site=None,
                           error=MisalignedAddressError):
    """MisalignedAddressError unless arr[idx] is nbytes-aligned *by declaration* (alignment=, offset in the array)."""
    decl, _, off = shared_elements(arr, idx, nbytes)
    if off % nbytes == 0 and decl.align >= nbytes:
        return
    t = thread or running()
    who = f" — {describe(t)}" if t is not None else ""
    where = f", {site[0]}:{site[1]}" if site else _kernel_line()
    if off % nbytes:
        why_ko = f"배열 시작에서 {off} B 떨어져 있어 {nbytes}의 배수가 아닙니다"
        why_en = f"it lies {off} B from the array's start, not a multiple of {nbytes}"
        fix = "행 간격(stride)이 {0} B 의 배수인 배치를 쓰세요 / use a layout whose row stride is a multiple of {0} B"
    else:
        decl_txt = f"alignment={decl.align}" if decl.align > decl.raw.itemsize else "alignment 없이 / without alignment="
        why_ko = (f"공유 배열 {decl.name} 가 {decl_txt} 로 선언되어 시작 주소가 {decl.align} B 정렬만 보장됩니다"
                  " (numpy 버퍼가 우연히 정렬된 것은 GPU와 상관없음)")
        why_en = (f"shared array {decl.name} is declared with alignment {decl.align}, so its start is only "
                  f"guaranteed {decl.align}-byte aligned on the GPU")
        fix = ("선언에 alignment={0} 을 주세요: cuda.shared.array(shape, dtype, alignment={0}) / "
               "declare it with alignment={0}")
    layout = f"shape {decl.raw.shape}, dtype {decl.raw.dtype}, strides {decl.raw.strides} B"
    raise error(
        f"{name}: {role} {decl.name}{decl.index_of(off // decl.raw.itemsize)} (공유 메모리 오프셋 0x{off:x}; 배열 "
        f"{layout}) 가 {nbytes}바이트 정렬이 아닐 수 "
        f"있습니다 — {why_ko}{who}{where}. GPU에서는 'misaligned address' 오류로 커널이 멈춥니다.\n"
        f"{name}: {decl.name}{decl.index_of(off // decl.raw.itemsize)} may not be {nbytes}-byte aligned: {why_en}"
        f"{where}; the GPU faults with misaligned address.\n  → " + fix.format(nbytes))


def _kernel_line():
    """', file:line' of the innermost frame outside the simulator package (the kernel line), for messages."""
    f = sys._getframe(1)
    here = __file__.rsplit("/", 1)[0]
    while f is not None and (f.f_code.co_filename.startswith(here) or "/infra/ptx/" in f.f_code.co_filename):
        f = f.f_back
    return f", {f.f_code.co_filename}:{f.f_lineno}" if f is not None else ""


def require_space(arr, want, name, role, thread=None, site=None):
    """StateSpaceError unless arr lives in state space `want` ('shared' or 'global')."""
    got = space_of(arr)
    if got == want:
        return
    t = thread or running()
    where = f", {site[0]}:{site[1]}" if site else _kernel_line()
    who = f" ({describe(t)}{where})" if t is not None else ""
    ko = {"shared": "공유 메모리(cuda.shared.array)", "global": "전역 메모리(커널 인자)",
          "local": "로컬 메모리(cuda.local.array)"}
    raise StateSpaceError(
        f"{name}: {role} 는 {ko[want]} 여야 하는데 {ko[got]} 배열이 들어왔습니다{who}. GPU에서는 주소 공간이 달라 "
        f"엉뚱한 메모리를 읽거나 쓰거나 오류로 멈춥니다.\n{name}: the {role.split('/')[-1].strip()} must be in "
        f".{want} memory, got a .{got} array{who}; on the GPU the address would point into another state space.")


# --------------------------------------------------------------------------------- declarations

_DECL_NAMES = re.compile(r"^\s*([\w\s,]+?)\s*=\s*.*cuda\.shared\.array")


def _decl_name(filename, lineno, nth):
    m = _DECL_NAMES.match(linecache.getline(filename, lineno) or "")
    if not m:
        return f"shared@{lineno}"
    names = [n.strip() for n in m.group(1).split(",")]
    return names[nth] if nth < len(names) else f"{names[0]}#{nth}"


class SharedShapeError(SimulatorFault, TypeError):
    """A shared array's shape is not made of compile-time constants (the GPU compiler rejects it)."""


def check_literal_shape(frame):
    """SharedShapeError if the declaration's shape computes something (arithmetic, a call, an index, an attribute):
    Numba on the GPU needs constants there — literals, module-level constants, a local assigned a literal — and
    does not fold `(BM, BK + 1)` (a TypingError on the GPU, measured on the H100)."""
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    try:
        tree = ast.parse(text if not text.endswith((",", "(")) else "")
    except SyntaxError:                        # a declaration over several lines: not checked
        return
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("shared.array")):
        if not call.args:
            continue
        shape = call.args[0]
        bad = [n for n in ast.walk(shape) if isinstance(n, (ast.BinOp, ast.Call, ast.Subscript, ast.Attribute))]
        if bad:
            what = ast.unparse(bad[0])
            raise SharedShapeError(
                f"{frame.f_code.co_filename}:{frame.f_lineno}: cuda.shared.array 의 모양 `{ast.unparse(shape)}` 에 "
                f"컴파일 시점 상수가 아닌 `{what}` 가 있습니다. GPU의 Numba 는 이 커널을 컴파일하지 못합니다 (TypingError). "
                f"모듈 수준 상수를 쓰세요, 예: `X_PAD = {what}` 를 모듈에 두고 그 이름을 쓰기.\n"
                f"the shape `{ast.unparse(shape)}` of cuda.shared.array uses `{what}`, which is not a compile-time "
                "constant: Numba on the GPU rejects it (TypingError). Use integer literals or module-level "
                f"constants, e.g. define `X_PAD = {what}` at module level and use X_PAD.")


def alloc(shared, shape, dtype, alignment, frame):
    """The block's shared array declared at `frame`'s call site: one per declaration, even two on one line."""
    site = (frame.f_code.co_filename, frame.f_code.co_firstlineno, frame.f_lineno, frame.f_lasti)
    decls = shared.__dict__.setdefault("_sgemm_decls", {})
    decl = decls.get(site)
    if decl is None:
        check_literal_shape(frame)
        raw = poison(np.empty(shape, dtype))
        nth = sum(1 for s in decls if s[:3] == site[:3])
        decl = SharedDecl(raw, _decl_name(site[0], site[2], nth), max(alignment or 1, raw.itemsize), site[::2])
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
        decls[key] = decl
    return decl.view


def standalone(arr, name="S", alignment=16):
    """A shared-memory view over numpy array `arr` outside any kernel (tests of the PTX stand-ins)."""
    return SharedDecl(arr, name, max(alignment, arr.itemsize), ("<standalone>", 0)).view
