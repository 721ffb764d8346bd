"""wgmma in the simulator: warpgroup-collective, asynchronous until its wait_group, operands read through descriptors.

On the GPU wgmma.fence / mma_async / commit_group / wait_group (and setmaxnreg) are `.sync.aligned` over a warpgroup:
the 128 threads of warps 4g .. 4g+3 execute each of them together. Here every thread parks at such an instruction
(like warp.py does for mma.sync) and the warpgroup runs it once when all 128 have arrived at the same line; a
warpgroup split between two instructions is an error that names the lines (`explain`).

wgmma.mma_async is modelled as the hardware allows at its latest:
* at issue it checks what the instruction reads: the descriptors must be the same in all 128 threads (PTX ISA: "the
  contents of a matrix descriptor must be same across all the warps in the warpgroup"); a wgmma.fence must have
  been executed since the warpgroup's last wgmma.wait_group; the shared memory it reads must be TMA data that has
  landed and been observed, or ordinary stores fenced with fence.proxy.async and followed by a barrier
  (async_proxy.check_async_read). From then on the operand bytes are read by an asynchronous unit: a thread's store
  or a TMA copy into them before the wait is ASYNC_WAR;
* the accumulator registers (the thread's 1-D local array) are *in flight*: reading or writing them before the
  wgmma.wait_group that covers the instruction's commit group is WGMMA_ACC (on the GPU, undefined: ptxas inserts a
  wait when it sees such a use — warning C7517 — which makes the GPU slow, not wrong, and hides the bug). A second
  mma_async on the same accumulators chains (the hardware orders it);
* the result lands at that wait_group, computed from shared memory as it is then: D = A*B + D with the f16/bf16
  products exact in float64, the 16 products and D summed in float64 and rounded once to f32 (the Tensor Core's
  own order and rounding differ by a few f32 ulps per instruction; benchmarks/record_wgmma_layout.py compares).
Operand addresses, swizzles and the accumulator layout come from sim/wgmma.py.
"""
import sys
from collections import deque

import numpy as np

from sim import wgmma as model

from . import async_proxy, racecheck
from .errors import SimulatorFault, WarpCollectiveError
from .memory import LocalArray
from .state import current, describe, where as where_

_pending = {}            # thread -> payload it brought to the instruction
_results = {}            # thread -> what the instruction returns to it
_sites = {}              # thread -> racecheck's site of the instruction it waits at
_units = {}              # warpgroup index -> _Unit (this block)
_ROWS_COLS = {}          # n -> (rows, cols) of every thread's accumulators (sim.wgmma.accumulator_index)


class DescriptorMismatchError(SimulatorFault):
    """The threads of a warpgroup passed different matrix descriptors to one wgmma.mma_async."""

    names_thread = True


class _Unit:
    """A warpgroup's wgmma state: fenced since its last wait, ops not yet committed, committed groups in order."""

    def __init__(self):
        self.fenced = False
        self.uncommitted = []
        self.groups = deque()


class _Op:
    __slots__ = ("n", "dtype", "site", "threads", "accs", "inputs", "a", "b", "result")


class PendingAccumulators(LocalArray):
    """The class of an accumulator array while a wgmma that writes it is in flight: any access is WGMMA_ACC."""

    def __getitem__(self, key):
        _acc_hazard(self, "acc_read")
        return np.float32(np.nan)                 # undefined on the hardware (in collect mode)

    def __setitem__(self, key, value):
        _acc_hazard(self, "acc_write")
        np.ndarray.__setitem__(self.view(np.ndarray), key, value)


def _acc_hazard(acc, what):
    op = acc.__dict__.get("_wg_op")
    site = async_proxy.site_of_caller(3)
    first = (op.threads[0] if op else None, op.site if op else None, "mma_async")
    kt = ""
    async_proxy.report(
        "WGMMA_ACC", "누산기(accumulators)", first, (current(), site, what),
        f"{_ln(first[1])}행의 wgmma 결과는 그 커밋 그룹을 덮는 wgmma_wait_group 뒤에야 레지스터에 있습니다: {_ln(site)}행 "
        "전에 ptx.wgmma_commit_group() 과 ptx.wgmma_wait_group_0() (또는 이 그룹을 덮는 N) 을 실행하세요." + kt,
        f"the wgmma issued at line {_ln(first[1])} writes the accumulators only when a wgmma_wait_group covers its "
        f"commit group: commit and wait (wgmma_wait_group_0) before line {_ln(site)}.", space="register")


def _ln(site):
    return racecheck.kernel_line(site)[1] if site else "?"


def reset():
    _pending.clear()
    _results.clear()
    _sites.clear()
    _units.clear()


def _unit(w):
    u = _units.get(w)
    if u is None:
        u = _units[w] = _Unit()
    return u


# ------------------------------------------------------------------------------------------ stand-ins

def arrive(name, payload):
    """Park the calling thread at warpgroup instruction `name` until its warpgroup has all arrived."""
    t = current()
    frame = sys._getframe(2)
    t.site = ("wg", name, frame.f_code.co_filename, frame.f_lineno)
    _sites[t] = racecheck.site_of(t, frame)          # for reports: a helper's line with the kernel line that called it
    _pending[t] = payload
    t.glet.parent.switch()
    return _results.pop(t, None)


def _simple(name, pins=False):
    def f(*args):
        if args and not pins:
            raise TypeError(f"{name}() takes no arguments")
        for k in range(0, len(args), 2):          # wgmma_fence / wait_group(acc, n, ...): the arrays they order
            acc = args[k]
            if not isinstance(acc, LocalArray) or k + 1 >= len(args) or int(args[k + 1]) > acc.size:
                raise TypeError(f"{name}(acc, n, ...): each 1-D accumulator array (cuda.local.array) is followed by "
                                "its length")
        return arrive(name, ())
    f.__name__ = name
    return f


def _mma(name, n, dtype):
    def f(acc, desc_a, desc_b):
        if not isinstance(acc, LocalArray):
            raise TypeError(f"{name}(acc, desc_a, desc_b): acc must be the thread's cuda.local.array of {n // 2} "
                            "float32 accumulators")
        if acc.ndim != 1 or acc.size < n // 2 or acc.dtype != np.float32:
            raise TypeError(f"{name}: acc must be a 1-D float32 array of at least {n // 2} elements, got "
                            f"{acc.shape} {acc.dtype}")
        return arrive(name, (acc, int(desc_a), int(desc_b)))
    f.__name__ = name
    return f


def stand_ins():
    out = {"wgmma_fence": _simple("wgmma_fence", True), "wgmma_commit_group": _simple("wgmma_commit_group"),
           "setmaxnreg_dec_40": _simple("setmaxnreg_dec_40"), "setmaxnreg_inc_232": _simple("setmaxnreg_inc_232")}
    for k in (0, 1):
        out[f"wgmma_wait_group_{k}"] = _simple(f"wgmma_wait_group_{k}", True)
    for dt in ("f16", "bf16"):
        for n in (64, 128, 256):
            name = f"wgmma_m64n{n}k16_f32_{dt}"
            out[name] = _mma(name, n, dt)
    return out


# ------------------------------------------------------------------------------------------ execution

def _operand(desc, rows, cols, major, what, dtype):
    """(declaration, element numbers (rows x cols), values float64) of an operand read through a descriptor."""
    addrs = model.operand_addresses(desc, rows, cols, major)
    f = model.decode(desc)
    decl, elems = async_proxy.elements_at(addrs.reshape(-1), 2, what)
    if f["swizzle"]:
        need = 8 * f["swizzle"]
        base = async_proxy.window_base(decl)
        async_proxy.check_declared_alignment(
            decl, (f["start"] - base) & ~(need - 1) if f["start"] >= base else 0, need, what,
            f"{f['swizzle']}바이트 스위즐은 {need}바이트마다 반복되므로 타일이 {need}바이트 경계에서 시작해야 합니다: "
            f"cuda.shared.array(..., alignment={need}) 로 선언하고 타일 오프셋을 {need} 의 배수로 하세요 / a "
            f"{f['swizzle']}-byte swizzle repeats every {need} bytes: declare alignment={need}.")
    raw = decl.raw.reshape(-1)
    bits = raw.view(np.uint16)[elems] if raw.itemsize == 2 else _halves(decl, addrs.reshape(-1))
    if dtype == "bf16":
        vals = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        vals = bits.view(np.float16).astype(np.float64)
    return decl, elems, vals.reshape(rows, cols)


def _halves(decl, addrs):
    base = async_proxy.window_base(decl)
    b = decl.raw.reshape(-1).view(np.uint8)
    off = addrs - base
    return (b[off].astype(np.uint16) | (b[off + 1].astype(np.uint16) << 8))


def _issue(op_name, lanes, payloads, site):
    n = int(op_name.split("n")[1].split("k")[0])
    dtype = op_name.rsplit("_", 1)[1]
    descs = {(p[1], p[2]) for p in payloads}
    if len(descs) != 1:
        bad = next(i for i, p in enumerate(payloads) if (p[1], p[2]) != (payloads[0][1], payloads[0][2]))
        raise DescriptorMismatchError(
            f"{op_name} ({racecheck._short(site)}): 워프그룹의 스레드들이 서로 다른 행렬 디스크립터를 넘겼습니다 "
            f"(스레드 {lanes[0].thread_id}: 0x{payloads[0][1]:x}/0x{payloads[0][2]:x}, 스레드 {lanes[bad].thread_id}: "
            f"0x{payloads[bad][1]:x}/0x{payloads[bad][2]:x}). PTX 는 128개 스레드 모두 같은 값을 요구합니다 (다르면 "
            "정의되지 않은 동작): 디스크립터를 스레드 번호가 아니라 워프그룹 번호·타일 위치로만 계산하세요.\n"
            f"{op_name}: the threads of the warpgroup passed different matrix descriptors; PTX requires the same value "
            "in all 128 threads.")
    desc_a, desc_b = next(iter(descs))
    w = lanes[0].thread_id // model.WARPGROUP
    u = _unit(w)
    if not u.fenced:
        async_proxy.report(
            "WGMMA_FENCE", f"워프그룹/warpgroup {w}", (lanes[0], site, "mma_async"), (lanes[0], site, "mma_async"),
            f"{_ln(site)}행의 wgmma.mma_async 전에 (이 워프그룹의 지난 wgmma_wait_group 뒤) ptx.wgmma_fence() 가 "
            "없습니다: 누산기 레지스터와 공유 메모리의 이전 접근이 wgmma 보다 먼저 끝난다는 보장이 없습니다 (정의되지 "
            "않은 동작). 각 mma_async 묶음 앞에 ptx.wgmma_fence() 를 두세요.",
            f"no wgmma_fence() before the wgmma.mma_async at line {_ln(site)} (since this warpgroup's last "
            "wgmma_wait_group): earlier accesses to the accumulators are not ordered before it (undefined). Put "
            "ptx.wgmma_fence() before each batch of mma_async.")
    a = _operand(desc_a, model.M, model.K, "K", f"{op_name} A", dtype)
    b = _operand(desc_b, model.K, n, "MN", f"{op_name} B", dtype)
    for decl, elems, _ in (a, b):
        async_proxy.check_async_read(decl, elems.reshape(-1), lanes, site)
    op = _Op()
    op.n, op.dtype, op.site, op.threads, op.a, op.b, op.result = n, dtype, site, lanes, a[:2], b[:2], None
    op.accs, op.inputs = [], []
    for t, p in zip(lanes, payloads):
        acc = p[0]
        prev = acc.__dict__.get("_wg_op")
        if prev is not None:                         # chained on an in-flight result: the hardware orders it
            op.inputs.append(prev)
        else:
            op.inputs.append(acc.view(np.ndarray)[:n // 2].copy())
            acc._wg_cls = type(acc)
            acc.__class__ = PendingAccumulators
        acc._wg_op = op
        op.accs.append(acc)
    for decl, elems in (op.a, op.b):
        async_proxy.wgmma_issue(decl, np.unique(elems.reshape(-1)), lanes[0], site)
    u.uncommitted.append(op)


def _land(op):
    A = _read_now(op.a, model.M, model.K, op.dtype)
    B = _read_now(op.b, model.K, op.n, op.dtype)
    P = A @ B
    rc = _ROWS_COLS.get(op.n)
    if rc is None:
        rc = _ROWS_COLS[op.n] = model.accumulator_index(op.n)
    frag = P[rc[0], rc[1]]                                    # (128, n/2)
    result = np.empty((len(op.threads), op.n // 2), np.float32)
    for k, inp in enumerate(op.inputs):
        prior = inp.result[k] if isinstance(inp, _Op) else inp
        result[k] = (prior.astype(np.float64) + frag[k]).astype(np.float32)
    op.result = result
    for k, acc in enumerate(op.accs):
        if acc.__dict__.get("_wg_op") is op:                 # the last wgmma on these registers: they hold it now
            raw = acc.view(np.ndarray)
            raw[:op.n // 2] = result[k]
            acc.__class__ = acc.__dict__.pop("_wg_cls")
            del acc._wg_op
    for decl, elems in (op.a, op.b):
        async_proxy.wgmma_done(decl, np.unique(elems.reshape(-1)))


def _read_now(operand, rows, cols, dtype):
    decl, elems = operand
    raw = decl.raw.reshape(-1)
    bits = raw.view(np.uint16)[elems.reshape(-1)] if raw.itemsize == 2 else None
    if bits is None:
        raise SimulatorFault(f"wgmma operands must be read from a 16-bit shared array view ({decl.name})")
    if dtype == "bf16":
        vals = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        vals = bits.view(np.float16).astype(np.float64)
    return vals.reshape(rows, cols)


def _execute(name, lanes, payloads, site):
    w = lanes[0].thread_id // model.WARPGROUP
    u = _unit(w)
    if name == "wgmma_fence":
        u.fenced = True
    elif name == "wgmma_commit_group":
        u.groups.append(u.uncommitted)
        u.uncommitted = []
    elif name.startswith("wgmma_wait_group_"):
        keep = int(name.rsplit("_", 1)[1])
        while len(u.groups) > keep:
            for op in u.groups.popleft():
                _land(op)
        u.fenced = False
    elif name.startswith("wgmma_m64"):
        _issue(name, lanes, payloads, site)
    # setmaxnreg_*: no effect on values; executing it together is what the simulator checks


def resolve(threads, grid_point):
    """Execute the instruction of ONE warpgroup whose 128 threads have all arrived at the same line (the lowest such
    warpgroup); True if one ran. One per round, on purpose: the released warpgroup runs ahead while the others stay
    parked with their wgmma in flight, so a warpgroup that overwrites shared memory another one still reads (a missing
    barrier or empty-mbarrier wait) is caught whatever the order, as the hardware may run it."""
    at = [t for t in threads if not t.done and t.site and t.site[0] == "wg"]
    if not at:
        return False
    for w in sorted({t.thread_id // model.WARPGROUP for t in at}):
        lanes = sorted((t for t in threads if t.thread_id // model.WARPGROUP == w), key=lambda t: t.thread_id)
        site = next(t.site for t in lanes if t in _pending)
        if len(lanes) != model.WARPGROUP or any(t.site != site or t.done for t in lanes):
            continue
        payloads = [_pending.pop(t) for t in lanes]
        full = [_sites.pop(t, None) for t in lanes][0] or (site[2], site[3])
        _execute(site[1], lanes, payloads, full)
        for t in lanes:
            t.site = None
        return True
    return False


def explain(threads, grid_point):
    """WarpCollectiveError for a warpgroup that can never complete its instruction."""
    at = [t for t in threads if not t.done and t.site and t.site[0] == "wg"]
    if not at:
        return
    w = at[0].thread_id // model.WARPGROUP
    lanes = sorted((t for t in threads if t.thread_id // model.WARPGROUP == w), key=lambda t: t.thread_id)
    site = at[0].site
    strays = [t for t in lanes if t.site != site or t.done]

    def where(t):
        if t.done:
            return "끝남(returned)"
        s = t.site
        return f"{s[1]} @ line {s[3]}" if s and s[0] in ("wg", "mbar", "warp") else (
            f"syncthreads @ line {s[1]}" if s else "?")
    ex = ", ".join(f"thread {t.thread_id}: {where(t)}" for t in strays[:4])
    raise WarpCollectiveError(
        f"블록 {tuple(grid_point)} 워프그룹 {w} (스레드 {128 * w}..{128 * w + 127}): {site[1]} ({where_(site[2], site[3])}) 에 "
        f"128개 스레드가 모두 오지 않았습니다 ({len(lanes) - len(strays)}/128; {ex or f'블록에 이 워프그룹 스레드가 {len(lanes)}개뿐'})."
        " wgmma·setmaxnreg 는 워프그룹(연속된 워프 4개) 전체가 같은 명령을 함께 실행해야 합니다: 블록 크기를 128의 "
        "배수로 하고, 조건문이 워프그룹 단위로 갈리게 하세요 (예: if warpgroup == 0: ...).\n"
        f"Block {tuple(grid_point)} warpgroup {w}: not all 128 threads reached {site[1]} at line {site[3]} "
        f"({len(lanes) - len(strays)}/128). wgmma and setmaxnreg are warpgroup-collective (.sync.aligned).")


async_proxy.register(reset, resolve, explain)
