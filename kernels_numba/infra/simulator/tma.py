"""mbarrier and TMA (cp.async.bulk.tensor) in the simulator: copies land at the phase flip, waits park, hangs are errors.

* mbarrier_init / arrive / arrive_expect_tx / try_wait_parity keep an mbarrier (sim.tma.MBarrier) per shared uint64
  element and block. A barrier used before its mbarrier.init is an error (on the GPU: garbage, usually a hang).
* tma_load_2d checks the tensor map, the destination (shared, 128-byte aligned by declaration; 1024 for the 128-byte
  swizzle) and the mbarrier, reads nothing yet and queues the copy on the mbarrier's current phase. Its destination is
  in flight: a thread's access, or a wgmma reading it, is TMA_IN_FLIGHT (async_proxy).
* The copy lands as late as the hardware allows: when a thread waits on that mbarrier. Then the box is read from the
  tensor (zeros outside it) and written into shared memory with the map's swizzle, and its bytes count on the barrier
  (complete_tx). A phase completes when its arrivals and its transaction bytes are all in; try_wait_parity returns
  true once the phase of that parity has completed, else the thread parks until it does. Data that landed is
  guaranteed only to threads that observed the phase (or after a barrier): TMA_UNOBSERVED otherwise.
* A block whose threads all wait and no phase can complete (wrong parity, an expect_tx byte count that the copies
  never reach, an arrival count that is never met) hangs on the GPU; here it is an MBarrierDeadlockError naming the
  barrier, its phase, the arrivals and bytes it still awaits, and where every thread waits.
* The TMA unit reads the tensor map through the tensormap proxy: a map in global memory (ours: Numba cannot pass a
  128-byte struct by value) must be acquired with fence_proxy_tensormap_acquire in the block before it is used
  (CUDA C++ Programming Guide), else TENSORMAP_FENCE; an mbarrier the TMA completes must have been made visible to
  the async proxy with fence_proxy_async after its init, else MBARRIER_INIT_FENCE.

Tensor maps in the simulator are this module's own 16-word encoding of the same fields (`encode`); on the GPU they
are the driver's opaque 128 bytes (kernels_numba/infra/tma.py). Both are checked by the same rules (sim/tma.check).
"""
import sys
import weakref

import numpy as np

from sim import tma as model
from sim.korean import josa

from . import async_proxy, racecheck
from .errors import SimulatorFault, StateSpaceError
from .memory import LocalArray, SharedArray, element, host_array, require_space
from .state import current, describe, running

MAGIC = 0x31504D5441544D53          # b"SMTATMP1" little-endian: a simulator tensor map
_DTYPE_CODE = {"float16": 1, "bfloat16": 2, "float32": 3}
_CODE_DTYPE = {v: k for k, v in _DTYPE_CODE.items()}
_memory = {}                        # global address -> (weakref to the owning numpy array, its byte size)
_bars = {}                          # (id(decl), element) -> _Bar (this block)
_copies = {"next": 1}
_acquired = {}                      # tensor-map address -> [(thread, epoch)] of fence_proxy_tensormap_acquire


class MBarrierError(SimulatorFault):
    """An mbarrier used wrongly (before init, more arrivals than expected, more bytes than announced)."""

    names_thread = False


class MBarrierDeadlockError(SimulatorFault):
    """Every thread waits and no mbarrier phase can complete: the kernel would hang on the GPU."""

    names_thread = True


class TensorMapDecodeError(SimulatorFault):
    names_thread = False


# ------------------------------------------------------------------------------------------ tensor maps

def encode(X, box_rows, box_cols, swizzle=128, dtype=None, oob_nan=False, cols=None):
    """The simulator's tensor map (uint64[16]) of 2-D array X with a box of box_rows x box_cols elements (cols: the
    tensor's width when X is a zero-padded copy wider than the matrix)."""
    a = host_array(X)
    if a.ndim != 2:
        raise model.TensorMapError(f"2차원 배열만 됩니다 (받은 모양 {a.shape}).", f"2-D arrays only, got {a.shape}.")
    dt = dtype or a.dtype.name
    tm = model.TensorMap(a.__array_interface__["data"][0], dt, a.shape[0], cols or a.shape[1], a.strides[0], box_rows,
                         box_cols, swizzle, oob_nan)
    model.check(tm)
    base = a.base if isinstance(a.base, np.ndarray) else a
    _memory[tm.address] = (weakref.ref(base), a.shape[0] * a.strides[0])
    words = np.zeros(16, np.uint64)
    fields = [tm.address, _DTYPE_CODE[dt], tm.rows, tm.cols, tm.row_stride, tm.box_rows, tm.box_cols, tm.swizzle,
              int(oob_nan)]
    words[0] = MAGIC
    words[1:10] = fields
    words[10] = np.uint64(MAGIC ^ int(np.bitwise_xor.reduce(words[1:10])))
    return words


def decode(words):
    """(TensorMap, numpy view of the tensor) from a simulator tensor map's 16 words."""
    w = np.asarray(words, np.uint64)
    if w.size < 16 or int(w[0]) != MAGIC or int(w[10]) != MAGIC ^ int(np.bitwise_xor.reduce(w[1:10])):
        raise TensorMapDecodeError(
            "TMA: 텐서 맵이 아닙니다 (kernels_numba.infra.tma.tensor_map 이 만든 배열을 넘기세요; 커널 안에서 고쳐 쓰면 "
            "안 됩니다) / not a tensor map: pass the array made by kernels_numba.infra.tma.tensor_map, unmodified.")
    addr, code, rows, cols, stride, brows, bcols, swz, nan = (int(x) for x in w[1:10])
    tm = model.TensorMap(addr, _CODE_DTYPE[code], rows, cols, stride, brows, bcols, swz, bool(nan))
    ref = _memory.get(addr)
    owner = ref[0]() if ref else None
    if owner is None:
        raise TensorMapDecodeError(
            f"TMA: 텐서 맵이 가리키는 전역 메모리 0x{addr:x} 가 더 이상 없습니다 (배열이 해제됨): 커널이 끝날 때까지 그 배열을 "
            "살려 두세요 / the tensor map points to memory that was freed: keep the array alive.")
    np_dt = np.float16 if tm.dtype == "float16" else (np.uint16 if tm.dtype == "bfloat16" else np.float32)
    buf = owner.reshape(-1).view(np.uint8)
    start = addr - owner.__array_interface__["data"][0]
    view = np.ndarray((rows, cols), np_dt, buffer=buf, offset=start, strides=(stride, tm.elem_bytes))
    return tm, view


# ------------------------------------------------------------------------------------------ per block

class _Bar:
    def __init__(self, decl, elem, count, t, site):
        self.decl, self.elem, self.model = decl, elem, model.MBarrier(count)
        self.key = id(decl) * 4096 + elem
        self.name = f"{decl.name}{list(decl.index_of(elem))}"
        self.init_thread, self.init_site, self.init_epoch = t, site, racecheck.epoch()
        self.copies = []                 # queued copies, not landed yet: (id, decl, elems, tm, tensor, c0, c1, phase)
        self.delivered = 0               # bytes landed on the current phase
        self.announced = {}              # phase -> bytes announced by arrive_expect_tx in it
        self.issued = {}                 # phase -> [bytes, copies] queued on it by tma_load_2d


def reset():
    _bars.clear()
    _acquired.clear()


def _split(args, names):
    """Split a stand-in's flat arguments: an array is followed by one index per dimension; other names are scalars."""
    out, k = [], 0
    for n in names:
        if n.startswith("*"):
            arr = args[k]
            nd = host_array(arr).ndim
            out.append((arr, tuple(int(i) for i in args[k + 1:k + 1 + nd])))
            k += 1 + nd
        else:
            out.append(args[k])
            k += 1
    if k != len(args):
        raise TypeError(f"expected arguments {names}, got {len(args)} values")
    return out


def _site(depth=2):
    """The site of the kernel line `depth` frames up, as racecheck names sites (a helper's line with its caller's)."""
    f = sys._getframe(depth)
    t = running()
    return racecheck.site_of(t, f) if t is not None else (f.f_code.co_filename, f.f_lineno)


_BAR, _TMAP, _DST = "mbarrier(bar) / mbarrier", "텐서 맵(tmap) / tensor map", "목적지(dst) / destination"


def _bar(arr, idx, what, create=None):
    require_space(arr, "shared", what, _BAR)          # mbarrier.*.shared::cta: a shared uint64 element
    a, i, addr = element(arr, idx)
    decl = arr._decl
    if decl.raw.itemsize != 8:
        raise StateSpaceError(f"{what}: mbarrier 는 64비트 원소(uint64)입니다 / an mbarrier is a 64-bit (uint64) element")
    off = addr - decl.raw.__array_interface__["data"][0]
    async_proxy.check_declared_alignment(decl, off, 8, what, "cuda.shared.array(n, uint64) 로 선언하세요")
    elem = off // 8
    key = (id(decl), elem)
    if create is not None:
        _bars[key] = b = _Bar(decl, elem, *create)
        return b
    b = _bars.get(key)
    if b is None:
        raise MBarrierError(
            f"{what}: mbarrier {decl.name}{list(decl.index_of(elem))} 가 이 블록에서 mbarrier_init 되지 않았습니다 "
            f"({racecheck._short(_site(3))}). GPU에서는 쓰레기 값이라 멈추거나 틀립니다: 한 스레드가 mbarrier_init 하고 "
            "fence_proxy_async 와 cuda.syncthreads() 뒤에 쓰세요.\n"
            f"{what}: mbarrier {decl.name}{list(decl.index_of(elem))} was not initialised in this block "
            "(mbarrier_init, then fence_proxy_async and cuda.syncthreads(), before any use).")
    return b


# ------------------------------------------------------------------------------------------ stand-ins

def mbarrier_init(*args):
    (arr, idx), count = _split(args, ["*bar", "count"])
    _bar(arr, idx, "mbarrier_init", create=(int(count), running(), _site()))


def mbarrier_arrive(*args):
    ((arr, idx),) = _split(args, ["*bar"])
    b = _bar(arr, idx, "mbarrier_arrive")
    return np.uint64(_arrive(b, "mbarrier_arrive"))


def mbarrier_arrive_expect_tx(*args):
    (arr, idx), tx = _split(args, ["*bar", "tx"])
    b = _bar(arr, idx, "mbarrier_arrive_expect_tx")
    b.announced[b.model.phase] = b.announced.get(b.model.phase, 0) + int(tx)
    b.model.expect_tx(int(tx))
    return np.uint64(_arrive(b, "mbarrier_arrive_expect_tx"))


def _arrive(b, what):
    if b.model.pending < 1:
        raise MBarrierError(f"{what}: mbarrier {b.name} 의 이번 단계에 도착(arrive)이 이미 모두 왔습니다 (init count "
                            f"{b.model.expected}) / more arrivals than the phase expects ({b.model.expected}).")
    phase = b.model.phase
    b.model.arrive()
    if b.model.phase != phase:
        b.delivered = 0
    return phase


def mbarrier_try_wait_parity(*args):
    (arr, idx), parity = _split(args, ["*bar", "parity"])
    b = _bar(arr, idx, "mbarrier_try_wait_parity")
    t = current()
    if not b.model.test_wait(parity):
        _land_all(b)            # only a thread that has to wait makes copies land (as late as possible)
    if not b.model.test_wait(parity):
        f = sys._getframe(1)
        t.site = ("mbar", "mbarrier_try_wait_parity", f.f_code.co_filename, f.f_lineno, b, int(parity) & 1)
        t.glet.parent.switch()           # resolve() releases it once the phase has completed
    async_proxy.observe(t, b.key, b.model.phase - 1)
    return True


def fence_proxy_tensormap_acquire(*args):
    ((arr, idx),) = _split(args, ["*tmap"])
    require_space(arr, "global", "fence_proxy_tensormap_acquire", _TMAP)   # a tensor map lives in global memory
    t = current()
    _acquired.setdefault(_tmap_address(arr, idx), []).append((t, racecheck.epoch()))


def _tmap_address(arr, idx):
    return element(arr, idx)[2]


def _tmap_words(arr, idx, what):
    if type(arr) is SharedArray or isinstance(arr, LocalArray):
        raise StateSpaceError(f"{what}: 텐서 맵은 전역 메모리(커널 인자)에 있어야 합니다 / the tensor map must be in "
                              "global memory (a kernel argument)")
    a, i, addr = element(arr, idx)
    if a.dtype != np.uint64:
        raise TensorMapDecodeError(f"{what}: 텐서 맵 배열은 uint64[16] 입니다 / a tensor map array is uint64[16]")
    flat = int(np.ravel_multi_index(i, a.shape))
    # the map must be 64-byte aligned: a device allocation always is (256 bytes); the simulator's copy of a kernel
    # argument need not be, so that is not checked here
    return a.reshape(-1)[flat:flat + 16], addr


def tma_load_2d(*args):
    (dst, didx), (tarr, tidx), c0, c1, (barr, bidx) = _split(args, ["*dst", "*tmap", "c0", "c1", "*bar"])
    for arr, space, role in ((dst, "shared", _DST), (tarr, "global", _TMAP), (barr, "shared", _BAR)):
        require_space(arr, space, "tma_load_2d", role)    # every operand first, as the opcode names its spaces
    t, site = current(), _site()
    words, taddr = _tmap_words(tarr, tidx, "tma_load_2d")
    tm, tensor = decode(words)
    if type(dst) is not SharedArray:
        raise StateSpaceError("tma_load_2d: 목적지(dst)는 공유 메모리여야 합니다 / the destination must be shared memory")
    _check_acquired(t, taddr, site)
    b = _bar(barr, bidx, "tma_load_2d")
    if racecheck.ON and not (async_proxy.init_fenced(b.init_thread) and b.init_epoch < racecheck.epoch()):
        init_line = racecheck.kernel_line(b.init_site)[1]
        async_proxy.report(
            "MBARRIER_INIT_FENCE", b.name, (b.init_thread, b.init_site, "init"), (t, site, "tma"),
            f"{init_line}행의 mbarrier_init 은 일반 프록시의 쓰기입니다: TMA(비동기 프록시)가 그 mbarrier 에 "
            "complete_tx 하려면 초기화한 스레드가 ptx.fence_proxy_async() 를 실행하고, 그 뒤 cuda.syncthreads() 를 지나야 "
            "합니다.",
            f"mbarrier_init (line {init_line}) is a generic-proxy write: before a TMA copy completes on it, the "
            "initialising thread must execute ptx.fence_proxy_async(), followed by cuda.syncthreads().")
    dsh = int(async_proxy.shared_address(dst, *didx))
    ddecl = dst._decl
    doff = dsh - async_proxy.window_base(ddecl)
    need = 8 * tm.swizzle if tm.swizzle else 128
    async_proxy.check_declared_alignment(
        ddecl, doff, need, "tma_load_2d",
        f"TMA 목적지는 128바이트 정렬, {tm.swizzle}바이트 스위즐이면 {need}바이트 정렬이어야 합니다: "
        f"cuda.shared.array(..., alignment={need}) 로 선언하고 오프셋을 {need} 의 배수로 하세요 / the destination must be "
        f"{need}-byte aligned (alignment={need}).")
    addrs = model.box_addresses(tm, dsh)
    decl, elems = async_proxy.elements_at(addrs.reshape(-1), tm.elem_bytes, "tma_load_2d")
    cid = _copies["next"]
    _copies["next"] += 1
    async_proxy.tma_issue(decl, elems, cid, t, site)
    b.copies.append((cid, decl, elems, tm, tensor, int(c0), int(c1), b.model.phase))
    issued = b.issued.setdefault(b.model.phase, [0, 0])
    issued[0] += tm.box_bytes
    issued[1] += 1


def _check_acquired(t, taddr, site):
    if not racecheck.ON:
        return
    ok = any(th is t or ep < racecheck.epoch() for th, ep in _acquired.get(taddr, []))
    if not ok:
        async_proxy.report(
            "TENSORMAP_FENCE", "tensor map", (t, site, "tma"), (t, site, "tma"),
            "전역 메모리에 둔 텐서 맵은 블록마다 한 번, 쓰기 전에 ptx.fence_proxy_tensormap_acquire(tmap, 0) 로 가져와야"
            " (acquire) 합니다 (그 스레드가 쓰거나, 뒤에 cuda.syncthreads() 를 두고 다른 스레드가 씀).",
            "a tensor map in global memory must be acquired once per block before use: "
            "ptx.fence_proxy_tensormap_acquire(tmap, 0) in the using thread (or before a cuda.syncthreads()).")


def _land_all(b):
    """Land the copies queued on b, in order, until the barrier's phase completes: the copies after that one stay in
    flight (the hardware may deliver them later), so a phase whose expect_tx is too small shows as a tile read in
    flight, not as a lucky complete one."""
    start = b.model.phase
    while b.copies and b.model.phase == start:
        cid, decl, elems, tm, tensor, c0, c1, phase = b.copies.pop(0)
        vals = model.box_values(tm, tensor, c0, c1).reshape(-1)
        raw = decl.raw.reshape(-1)
        if raw.itemsize == vals.itemsize:
            raw.view(vals.dtype)[elems] = vals
        else:
            raise SimulatorFault(f"tma_load_2d: {decl.name} ({raw.dtype}) is not a {tm.dtype} view of shared memory")
        async_proxy.tma_land(decl, elems, cid, b.key, phase)
        b.delivered += tm.box_bytes
        before = b.model.phase
        b.model.complete_tx(tm.box_bytes)
        if b.model.phase != before:
            b.delivered = 0
    for cid, *_, phase in b.copies:
        if phase < b.model.phase:        # its phase completed without it: fewer bytes announced than copied
            nbytes, ncopies = b.issued.get(phase, (0, 0))
            async_proxy.note_overdue(cid, b.name, b.announced.get(phase, 0), nbytes, ncopies)


def resolve(threads, grid_point):
    """Release the threads waiting on an mbarrier phase that has completed (landing the copies it awaits)."""
    progressed = False
    for t in threads:
        s = t.site
        if t.done or not s or s[0] != "mbar":
            continue
        b, parity = s[4], s[5]
        _land_all(b)
        if b.model.test_wait(parity):
            t.site = None
            progressed = True
    return progressed


def explain(threads, grid_point):
    waiting = [t for t in threads if not t.done and t.site and t.site[0] == "mbar"]
    if not waiting:
        return
    lines, seen = [], set()
    for t in waiting:
        b, parity = t.site[4], t.site[5]
        if (b.key, parity) in seen:
            continue
        seen.add((b.key, parity))
        m = b.model
        n = sum(1 for u in waiting if u.site[4] is b and u.site[5] == parity)
        lines.append(
            f"  mbarrier {b.name}: 스레드 {n}개가 parity {josa(parity, '을/를')} 기다림 (예: {describe(t)}, {t.site[2]}:{t.site[3]}); "
            f"현재 단계 {m.phase} (parity {m.phase & 1}), 남은 도착 {m.pending}/{m.expected}, 남은 트랜잭션 바이트 {m.tx}"
            f" / waiting for parity {parity}: phase {m.phase}, arrivals still expected {m.pending}/{m.expected}, "
            f"transaction bytes still expected {m.tx}")
    others = {}
    for t in threads:
        if t in waiting:
            continue
        s = t.site
        where = "끝남(exited)" if t.done else (f"{s[1]} @ line {s[3]}" if s and s[0] in ("wg", "warp") else
                                              f"syncthreads @ line {s[1]}" if s else "?")
        others.setdefault(where, []).append(t.thread_id)
    for where, ids in others.items():
        lines.append(f"  그 밖의 스레드 {len(ids)}개 / other threads: {where} (예: 스레드 {ids[0]})")
    hint_ko = ("흔한 원인: 기다리는 parity 가 틀림 (단계마다 0, 1 이 번갈아야 함; 생산자는 빈 슬롯을 parity 1 부터 기다림), "
               "arrive_expect_tx 의 바이트 수가 실제 복사량(박스 전체: 행렬 밖 부분 포함)과 다름, init 의 도착 수를 "
               "채우지 못함, 도착해야 할 스레드가 이미 끝났거나 syncthreads 에서 기다림.")
    raise MBarrierDeadlockError(
        f"블록 {tuple(grid_point)}: 모든 스레드가 기다리는데 어떤 mbarrier 단계도 끝날 수 없습니다 — GPU에서는 커널이 "
        "멈춥니다(hang).\n" + "\n".join(lines) + f"\n  → {hint_ko}\n"
        f"Block {tuple(grid_point)}: every thread waits and no mbarrier phase can complete (a hang on the GPU). Usual "
        "causes: the wrong parity, an expect_tx byte count the copies never reach (a box always counts in full), "
        "an arrival count never met.")


STAND_INS = {"mbarrier_init": mbarrier_init, "mbarrier_arrive": mbarrier_arrive,
             "mbarrier_arrive_expect_tx": mbarrier_arrive_expect_tx,
             "mbarrier_try_wait_parity": mbarrier_try_wait_parity, "tma_load_2d": tma_load_2d,
             "fence_proxy_tensormap_acquire": fence_proxy_tensormap_acquire,
             "fence_proxy_async": async_proxy.fence_proxy_async}

async_proxy.register(reset, resolve, explain)
