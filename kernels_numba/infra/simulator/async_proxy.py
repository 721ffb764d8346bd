"""Shared memory as Hopper's asynchronous units see it: shared addresses, the async proxy, and its hazards.

On Hopper two units besides the threads touch shared memory: the Tensor Memory Accelerator (TMA, cp.async.bulk.tensor)
writes tiles into it and the Tensor Cores (wgmma.mma_async) read operands from it. Both go through the *async proxy*;
ordinary loads and stores go through the *generic proxy*. The PTX memory model orders the two only through
fence.proxy.async (generic writes that the async proxy reads next), mbarrier phases (TMA writes that threads or wgmma
read next) and wgmma.wait_group (wgmma reads that writes must not overtake).

This module keeps what the simulator needs for that, per shared declaration and block:
* a shared window: `shared_address` gives each declaration an address (aligned to exactly its declared alignment,
  not more, so code that assumes more alignment than it declared reads the wrong bytes here too); matrix
  descriptors and TMA destinations are decoded back to (declaration, byte offset) by `locate`;
* a shadow of the async accesses: elements an in-flight wgmma reads, elements a TMA copy will write (and, once
  landed, through which mbarrier phase a thread must have observed them), and the generic writes each thread has
  fenced with fence.proxy.async;
* the hazards between them, reported through the race detector's own path (racecheck.report: the same Report,
  raise or collect, per-block interval numbers, notebook cells by their In [n] label):
    TMA_IN_FLIGHT   a thread or a wgmma reads a TMA destination before the copy's mbarrier phase completed;
    TMA_UNOBSERVED  a thread reads landed TMA data without having waited on that mbarrier phase (and no barrier since);
    PROXY_FENCE     a wgmma (async proxy) reads what a thread wrote with ordinary stores, without that thread's
                    fence.proxy.async after the write;
    RAW             a wgmma reads what another thread wrote in the same barrier interval (no syncthreads between);
    ASYNC_WAR       a thread's store or a TMA copy overwrites shared memory that an in-flight wgmma still reads;
    WGMMA_ACC       accumulator registers read or written between wgmma.mma_async and the wgmma.wait_group that
                    guarantees it (warpgroup.py);
    WGMMA_FENCE, MBARRIER_INIT_FENCE, TENSORMAP_FENCE: a missing wgmma.fence / fence after mbarrier.init / tensor-map
                    acquire fence (warpgroup.py, tma.py).
Hooks into the older modules are small on purpose (racecheck.report, racecheck._in_flight's `on_access`,
racecheck.unit_wrote, the scheduler's begin_block/resolve calls): the elements in flight are entries of the
declaration's `pend` map, (issue access, token, epoch) as racecheck keeps cp.async copies, whose token is this module's
`_Token`, so the generic accesses that racecheck already checks reach `_Token.on_access`. A wgmma reading shared memory
that nobody in the block wrote (no thread, no TMA copy) is racecheck's UNINIT.
"""
import sys
from itertools import compress, repeat
from operator import is_

import numpy as np

from . import racecheck, warp
from .errors import MisalignedAddressError, SimulatorFault
from .memory import SharedArray, element
from .state import describe, running

_block = {"epoch0": 0, "next": 1024, "windows": [], "by_key": {}, "observed": {}, "fenced_mbar": set(),
          "fenced_at": {}, "overdue": {}}
_reset_hooks = []            # other modules' per-block resets (warpgroup, tma)
_resolvers = []              # other modules' scheduler resolvers: f(threads, grid_point) -> bool


class AsyncAddressError(SimulatorFault):
    """A descriptor or TMA address that points outside every shared array, or is badly aligned for its use."""

    names_thread = False


# ------------------------------------------------------------------------------------------ block state

def begin_block():
    """A new block: fresh shared windows, shadows and per-thread observations (called by the scheduler)."""
    _block.update(epoch0=racecheck.epoch(), next=1024, windows=[], by_key={}, observed={}, fenced_mbar=set(),
                  fenced_at={}, overdue={})
    for f in _reset_hooks:
        f()


def register(reset, resolve, explain):
    """warpgroup.py and tma.py plug in their per-block reset, their scheduler resolver and the error for a block
    that cannot go on."""
    if reset not in _reset_hooks:
        _reset_hooks.append(reset)
    if (resolve, explain) not in _resolvers:
        _resolvers.append((resolve, explain))


def resolve(threads, grid_point):
    """Run every resolver (wgmma rendezvous, mbarrier waits); True if any released a thread (called by the scheduler).
    When none could and some thread still waits at one of them, the block can never go on (on the GPU: a hang):
    the resolvers' `explain` raises the error that says why."""
    progressed = False
    for f, _ in _resolvers:
        progressed = f(threads, grid_point) or progressed
    if progressed or not any(not t.done and parked(t) for t in threads):
        return progressed
    for _, explain in _resolvers:
        explain(threads, grid_point)
    raise SimulatorFault("블록이 더 진행할 수 없습니다 (GPU에서는 멈춤) / the block cannot make progress (a hang on the GPU)")


def parked(t):
    """True if thread t waits at one of this package's rendezvous or waits (not at a barrier or mma.sync)."""
    return bool(t.site) and t.site[0] in ("wg", "mbar")


# ------------------------------------------------------------------------------------------ shared window

def _key(decl):
    """One window per memory: dynamic shared memory, or a static declaration with its .view(dtype) aliases."""
    return "dynamic" if decl.dynamic else id(decl.group[0])


def _bytes_of(decl):
    return decl.raw.reshape(-1).view(np.uint8)


def window_base(decl):
    """The shared address of the declaration's first byte in this block (allocated on first use)."""
    k = _key(decl)
    w = _block["by_key"].get(k)
    if w is None:
        align = max(int(decl.align), 16)
        base = -(-_block["next"] // align) * align
        if base % (2 * align) == 0:          # exactly `align`-aligned, never more: no accidental 1024 alignment
            base += align
        nbytes = _bytes_of(decl).size
        w = [base, nbytes, [decl]]
        _block["by_key"][k] = w
        _block["windows"].append(w)
        _block["next"] = base + nbytes
        if base + nbytes > 1 << 18:
            raise AsyncAddressError(f"shared memory of this block exceeds 256 KiB at {decl.name}")
    elif decl not in w[2]:
        w[2].append(decl)                    # another dtype view of dynamic shared memory
    return w[0]


def shared_address(arr, *idx):
    """Stand-in of ptx.shared_address: the 32-bit .shared address of a shared element (this block's window)."""
    if type(arr) is not SharedArray:
        raise AsyncAddressError("shared_address: 공유 메모리 배열(cuda.shared.array)의 원소가 아닙니다 / "
                                "not an element of a shared array (cuda.shared.array)")
    decl = arr._decl
    a, i, addr = element(arr, idx)
    return np.uint32(window_base(decl) + addr - decl.raw.__array_interface__["data"][0])


def locate(addr, nbytes, itemsize, what):
    """(declaration, byte offset) of the shared bytes [addr, addr + nbytes): a view of element size `itemsize` when
    dynamic shared memory has several; AsyncAddressError if they lie outside every declaration of this block."""
    for base, size, decls in _block["windows"]:
        if base <= addr and addr + nbytes <= base + size:
            decl = next((d for d in decls if d.raw.itemsize == itemsize), decls[0])
            return decl, addr - base
    known = ", ".join(f"{w[2][0].name} 0x{w[0]:x}..0x{w[0] + w[1]:x}" for w in _block["windows"]) or "없음/none"
    raise AsyncAddressError(
        f"{what}: 공유 메모리 주소 0x{addr:x} (+{nbytes} B) 가 이 블록의 어떤 공유 배열에도 들지 않습니다 (배열: {known}). "
        "GPU에서는 엉뚱한 공유 메모리를 읽거나 씁니다. 주소는 ptx.shared_address(배열, ...) 로 만드세요.\n"
        f"{what}: shared address 0x{addr:x} (+{nbytes} bytes) lies outside every shared array of this block "
        f"({known}); build addresses with ptx.shared_address(array, ...).")


def elements_at(addrs, itemsize, what):
    """(declaration, flat element numbers) for shared byte addresses `addrs` (one declaration, element-aligned)."""
    addrs = np.asarray(addrs, np.int64)
    lo, hi = int(addrs.min()), int(addrs.max()) + itemsize
    decl, off0 = locate(lo, hi - lo, itemsize, what)
    offs = addrs - (lo - off0)
    if (offs % decl.raw.itemsize).any():
        raise AsyncAddressError(f"{what}: an address is not aligned to the {decl.raw.itemsize}-byte elements of "
                                f"{decl.name}")
    return decl, offs // decl.raw.itemsize


def check_declared_alignment(decl, offset, need, what, fix):
    """MisalignedAddressError unless byte `offset` of decl is `need`-aligned by its declaration (alignment=)."""
    if offset % need == 0 and decl.align >= need:
        return
    why = (f"배열 시작에서 {offset} B, {need} 의 배수가 아님" if offset % need else
           f"{decl.name} 가 alignment={decl.align} 로 선언되어 시작 주소가 {need} B 정렬이라는 보장이 없음")
    raise MisalignedAddressError(
        f"{what}: {decl.name} 의 바이트 {offset} 가 {need}바이트 정렬이 아닙니다 ({why}). {fix}\n"
        f"{what}: byte {offset} of {decl.name} is not {need}-byte aligned (declared alignment {decl.align}).")


# ------------------------------------------------------------------------------------------ shadows

class _Shadow:
    """Async accesses of one declaration in this block, per element."""

    def __init__(self, decl):
        n = decl.raw.size
        self.readers = np.zeros(n, np.int32)              # in-flight wgmma reading it
        self.reader_site = {}                             # element -> (thread, site) of the latest such wgmma
        self.tma = np.zeros(n, np.int64)                  # id of the TMA copy that will write it (0: none)
        self.tma_origin = {}                              # copy id -> (issuing thread, issue site)
        self.landed_bar = np.full(n, -1, np.int64)        # mbarrier key of the copy that landed it (-1: none)
        self.landed_phase = np.full(n, -1, np.int64)      # phase that copy completed
        self.landed_ep = np.full(n, -1, np.int64)         # barrier interval it landed in
        self.token = _Token(decl)


def shadow(decl):
    s = decl.__dict__.get("_async_shadow")
    if s is None or s[0] is not _block["windows"]:
        s = (_block["windows"], _Shadow(decl))
        decl._async_shadow = s
    return s[1]


def _pend(decl, elems, t, site, sh):
    entry = ((t, site, 0, None), sh.token, racecheck.epoch())     # racecheck's (issue access, token, epoch)
    for e in elems:
        decl.pend[int(e)] = entry


def _unpend(decl, elems, sh):
    for e in elems:
        e = int(e)
        p = decl.pend.get(e)
        if p is not None and p[1] is sh.token and not sh.readers[e] and not sh.tma[e] \
                and not (sh.landed_bar[e] >= 0 and sh.landed_ep[e] == racecheck.epoch()):
            del decl.pend[e]


# ---- wgmma reads (warpgroup.py)

def wgmma_issue(decl, elems, t, site):
    """An in-flight wgmma of thread t's warpgroup reads elements `elems` until its wait_group."""
    sh = shadow(decl)
    np.add.at(sh.readers, elems, 1)
    for e in elems:
        sh.reader_site[int(e)] = (t, site)
    _pend(decl, elems, t, site, sh)


def wgmma_done(decl, elems):
    sh = shadow(decl)
    np.add.at(sh.readers, elems, -1)
    _unpend(decl, elems, sh)


# ---- TMA writes (tma.py)

def tma_issue(decl, elems, copy_id, t, site):
    """A TMA copy will write `elems`: they are in flight until it lands. Overwriting what an in-flight wgmma reads
    is ASYNC_WAR."""
    sh = shadow(decl)
    if racecheck.ON:
        busy = elems[sh.readers[elems] > 0]
        if busy.size:
            e = int(busy[0])
            rt, rsite = sh.reader_site.get(e, (t, site))
            _report("ASYNC_WAR", decl, e, (rt, rsite, "wgmma"), (t, site, "tma"))
    sh.tma[elems] = copy_id
    sh.tma_origin[copy_id] = (t, site)
    _pend(decl, elems, t, site, sh)


def note_overdue(copy_id, bar_name, announced, issued, copies):
    """TMA copy `copy_id` is still in flight although the mbarrier phase it was queued on has completed: that phase
    announced fewer bytes (expect_tx) than its copies carry (tma.py). A read of its tile then names that cause."""
    _block["overdue"][copy_id] = (bar_name, announced, issued, copies)


def tma_land(decl, elems, copy_id, bar_key, phase):
    """The copy `copy_id` landed (its data is in shared memory): readable by threads that observe (bar_key, phase)."""
    sh = shadow(decl)
    mine = elems[sh.tma[elems] == copy_id]
    sh.tma[mine] = 0
    sh.landed_bar[mine] = bar_key
    sh.landed_phase[mine] = phase
    sh.landed_ep[mine] = racecheck.epoch()
    racecheck.unit_wrote(decl, mine.tolist())

def tma_drop(decl, elems, copy_id):
    """A copy that never landed (block ended)."""
    sh = shadow(decl)
    sh.tma[elems[sh.tma[elems] == copy_id]] = 0


def observe(t, bar_key, phase):
    """Thread t saw phase `phase` of barrier `bar_key` complete (try_wait returned true)."""
    obs = _block["observed"].setdefault(t, {})
    if obs.get(bar_key, -1) < phase:
        obs[bar_key] = phase


def observed(t, bar_key):
    return _block["observed"].get(t, {}).get(bar_key, -1)


def _share_observed(members):
    """Lanes that passed a syncwarp together: what one of them observed before it (an mbarrier phase it waited for)
    is ordered before the others' accesses after it, as the syncwarp's memory ordering makes it on the GPU."""
    obs = _block["observed"]
    seen = {}
    for t in members:
        for k, p in obs.get(t, {}).items():
            if seen.get(k, -1) < p:
                seen[k] = p
    if seen:
        for t in members:
            mine = obs.setdefault(t, {})
            for k, p in seen.items():
                if mine.get(k, -1) < p:
                    mine[k] = p


warp.SYNCWARP_HOOKS.append(_share_observed)


# ---- generic-proxy fence

def fence_proxy_async():
    """Stand-in of fence.proxy.async.shared::cta: this thread's generic writes so far become visible to the async
    proxy (wgmma, TMA), and so does its mbarrier.init (for TMA complete_tx). Kept as the thread's place in program
    order (barrier interval, position in it: racecheck's access records), so a write is fenced when its writer's
    last fence comes after it."""
    t = running()
    if t is None:
        return
    _block["fenced_mbar"].add(t)
    if not racecheck.ON:
        return
    acc = racecheck.here(t)
    _block["fenced_at"][t] = (racecheck.epoch(), acc[2])


def _fenced_after(w, w_ep):
    """True when the writer of access record w (made in interval w_ep) executed fence.proxy.async after it."""
    f = _block["fenced_at"].get(w[0])
    return f is not None and f > (w_ep, w[2])


def init_fenced(t):
    """True if thread t executed fence.proxy.async (since the block began)."""
    return t in _block["fenced_mbar"]


# ---- checks of an async read (wgmma operands)

def check_async_read(decl, elems, threads, site, what="wgmma"):
    """A wgmma issued at `site` by the warpgroup `threads` reads `elems` of decl: TMA data must have landed and been
    observed, generic writes must be fenced by their writer and separated by a barrier from other threads."""
    if not racecheck.ON:
        return
    sh = shadow(decl)
    t0 = threads[0]
    pend = elems[sh.tma[elems] != 0]
    if pend.size:
        e = int(pend[0])
        owner, isite = sh.tma_origin[int(sh.tma[e])]
        _report("TMA_IN_FLIGHT", decl, e, (owner, isite, "tma"), (t0, site, what),
                overdue=_block["overdue"].get(int(sh.tma[e])))
        return
    ep = racecheck.epoch()
    landed = elems[(sh.landed_bar[elems] >= 0) & (sh.landed_ep[elems] == ep)]
    if landed.size:
        pairs = {(int(b), int(p)) for b, p in zip(sh.landed_bar[landed], sh.landed_phase[landed])}
        for b, p in sorted(pairs):
            lazy = [t for t in threads if observed(t, b) < p]
            if lazy:
                e = int(landed[(sh.landed_bar[landed] == b) & (sh.landed_phase[landed] == p)][0])
                _report("TMA_UNOBSERVED", decl, e, (t0, site, "tma_land"), (lazy[0], site, what), bar=(b, p))
                return
    w_acc, w_ep = decl.w_acc, decl.w_ep
    ep0 = _block["epoch0"]
    landed_ep = sh.landed_ep
    for e in elems.tolist():
        we = w_ep[e]
        if we < ep0 or landed_ep[e] >= we:
            if landed_ep[e] < ep0 and not racecheck._written_in_block(decl, e):
                racecheck._hazard("UNINIT", decl, e, None, ((t0, site, 0, None), "read"))   # no thread, no TMA
                return
            continue                       # never written by a thread in this block, or TMA wrote it since
        w = w_acc[e]
        if we == ep:                       # no barrier between the write and the warpgroup's wgmma
            _report("RAW", decl, e, (w[0], w[1], "write"), (t0, site, what))
            return
        if not _fenced_after(w, we):
            _report("PROXY_FENCE", decl, e, (w[0], w[1], "write"), (t0, site, what))
            return


class _Token:
    """The pend-map token of this module: racecheck hands it the generic accesses to elements in flight."""

    def __init__(self, decl):
        self.decl = decl

    def on_access(self, d, i, acc, what):
        """Thread acc[0] accesses element i of d (acc: racecheck's access record; what: read, write, atomic,
        cp.async) while it is an entry of this unit in d.pend."""
        t, site = acc[0], acc[1]
        what = "read" if what == "read" else ("write" if what == "write" else what)
        sh = shadow(d)
        owner, isite = d.pend[i][0][:2]
        if sh.tma[i]:
            owner, isite = sh.tma_origin[int(sh.tma[i])]
            _report("TMA_IN_FLIGHT", d, i, (owner, isite, "tma"), (t, site, what),
                    overdue=_block["overdue"].get(int(sh.tma[i])))
            return
        if what != "read" and sh.readers[i]:
            rt, rsite = sh.reader_site.get(i, (owner, isite))
            _report("ASYNC_WAR", d, i, (rt, rsite, "wgmma"), (t, site, what))
            return
        if what != "read":
            sh.landed_bar[i] = -1          # the thread's own value replaces the landed one
            _unpend(d, [i], sh)
            return
        if sh.landed_bar[i] >= 0:
            b, p = int(sh.landed_bar[i]), int(sh.landed_phase[i])
            if sh.landed_ep[i] != racecheck.epoch():
                _unpend(d, [i], sh)        # a barrier since the landing: every thread may read it
            elif observed(t, b) < p:
                _report("TMA_UNOBSERVED", d, i, (owner, isite, "tma_land"), (t, site, what), bar=(b, p))


# ------------------------------------------------------------------------------------------ reports

_WHAT_KO = {"read": "읽음", "write": "씀", "atomic": "원자 연산(atomic)", "cp.async": "cp.async 로 복사 시작(issue)",
            "wgmma": "wgmma 가 피연산자로 읽음", "tma": "TMA 복사 시작(issue)",
            "tma_land": "TMA 복사가 도착", "acc_read": "누산기 레지스터를 읽음", "acc_write": "누산기 레지스터에 씀",
            "mma_async": "wgmma.mma_async 발행", "init": "mbarrier.init"}
_WHAT_EN = {"read": "read", "write": "write", "atomic": "atomic", "cp.async": "cp.async issue",
            "wgmma": "wgmma operand read", "tma": "TMA copy issue",
            "tma_land": "TMA data landing", "acc_read": "accumulator read", "acc_write": "accumulator write",
            "mma_async": "wgmma.mma_async issue", "init": "mbarrier.init"}
_KIND_KO = {"TMA_IN_FLIGHT": "아직 도착하지 않은 TMA 타일", "TMA_UNOBSERVED": "mbarrier 를 기다리지 않고 읽은 TMA 타일",
            "PROXY_FENCE": "fence.proxy.async 없는 일반 쓰기 → 비동기 읽기", "RAW": "쓰기 후 wgmma 읽기 (배리어 없음)",
            "ASYNC_WAR": "아직 읽는 중인 wgmma 피연산자를 덮어씀", "WGMMA_ACC": "wait_group 전에 누산기 접근",
            "WGMMA_FENCE": "wgmma.fence 없이 mma_async", "MBARRIER_INIT_FENCE": "mbarrier.init 뒤 fence 없음",
            "TENSORMAP_FENCE": "텐서 맵 acquire fence 없음"}


class AsyncHazard:
    """One hazard of the async proxy, with the fields of racecheck.Hazard (Report, messages, collect mode, subsim):
    interval numbers per block (#1 before the block's first barrier), lines as the student finds them (a notebook
    cell as In [n], a course helper's line with the kernel line that called it)."""

    def __init__(self, kind, array, index, first, second, fix_ko, fix_en, detail_ko="", detail_en="", space="shared"):
        self.kind, self.space, self.array, self.index = kind, space, array, index
        self.first_thread, self.first_site, self.first_what = first
        self.second_thread, self.second_site, self.second_what = second
        self.first_via = self.second_via = None
        self.first_line = racecheck.kernel_line(self.first_site) if self.first_site else None
        self.second_line = racecheck.kernel_line(self.second_site) if self.second_site else None
        self.blocks = False
        self.interval, self.count = racecheck.interval(), 1
        self.epoch = self.interval + 1                   # the number the report shows
        self.k_tile = racecheck._k_tile(self.second_thread) if self.second_thread is not None else ""
        self.call_site = self.second_line if self.second_site and len(self.second_site) > 2 else None
        shorts = [racecheck._short(x) for x in (self.first_site, self.second_site) if x]
        self.lines_text = " ↔ ".join(dict.fromkeys(shorts)) or "?"
        self.fix_ko, self.fix_en = fix_ko, fix_en
        el = f"{array}{list(index)}" if index is not None else array
        kt = f", {self.k_tile}" if self.k_tile else ""
        n = self.interval
        where_ko = (f"배리어 구간 #{n + 1} (이 블록이 syncthreads 를 {n}번 지난 뒤)" if n else
                    "배리어 구간 #1 (이 블록의 첫 syncthreads 전)")
        self.order = racecheck.RUN                      # the first happened before the second, as the simulator ran
        lab1, lab2, pad = racecheck._labels(self.order)
        self.ko = (f"비동기 프록시 위험(hazard) {kind} — {_KIND_KO.get(kind, kind)}: {el}, {where_ko}{kt}"
                   f"{detail_ko}\n"
                   f"    {lab1}: {_who(self.first_thread)} — {_WHAT_KO.get(self.first_what, self.first_what)}\n"
                   f"    {pad}  {racecheck._line(self.first_site)}\n"
                   f"    {lab2}: {_who(self.second_thread)} — {_WHAT_KO.get(self.second_what, self.second_what)}\n"
                   f"    {pad}  {racecheck._line(self.second_site)}")
        self.en = (f"async-proxy hazard {kind} on {el} (barrier interval #{n + 1} of this block): "
                   f"{_WHAT_EN.get(self.first_what, self.first_what)} at {_at(self.first_site)}, then "
                   f"{_WHAT_EN.get(self.second_what, self.second_what)} at {_at(self.second_site)}{detail_en}")

    @property
    def key(self):
        return (self.kind, self.space, self.array, self.first_site, self.second_site, self.first_what,
                self.second_what)

    def __str__(self):
        return f"{self.ko}\n  → 해결: {self.fix_ko}\n{self.en}\n  → Fix: {self.fix_en}"


def _at(site):
    return racecheck._short(site) if site else "?"


def _who(t):
    return describe(t) if t is not None else "비동기 장치 / async unit"


def _ln(site):
    """The kernel's own line number of a site (for a course helper's access: the line that called the helper)."""
    return racecheck.kernel_line(site)[1] if site else "?"


def _fix(kind, first_site, second_site, bar=None, overdue=None):
    l1, l2 = _ln(first_site), _ln(second_site)
    if kind == "TMA_IN_FLIGHT" and overdue:
        name, announced, issued, copies = overdue
        return (f"{l1}행의 TMA 복사가 걸린 mbarrier {name} 의 단계는 이미 끝났는데 이 복사는 아직 도착하지 않았습니다: 그 단계에 "
                f"알린 바이트(arrive_expect_tx 의 합 {announced:,})보다 그 단계에 건 복사(상자 {copies}개 = {issued:,} 바이트)가 "
                "많아, 단계가 먼저 끝나고 나머지 복사를 기다리지 않았습니다. arrive_expect_tx 에 그 단계의 상자 바이트 합"
                f"({issued:,})을 넣으세요 (TMA 는 행렬 밖을 0 으로 채운 부분까지 상자 전체를 셉니다).",
                f"the mbarrier phase the TMA copy of line {l1} was queued on ({name}) has completed, yet the copy has "
                f"not landed: that phase announced {announced} bytes (arrive_expect_tx) but its copies carry {issued} "
                f"bytes ({copies} boxes), so it completed early. Announce the whole boxes' bytes ({issued}).")
    if kind == "TMA_IN_FLIGHT":
        return (f"{l1}행에서 시작한 TMA 복사는 그 mbarrier 의 단계(phase)가 끝나야 도착합니다: {l2}행 전에 "
                "mbarrier_try_wait_parity 로 그 단계를 기다리세요 (반복문: while not ptx.mbarrier_try_wait_parity(...)), "
                "그리고 기다리는 parity 가 이번 단계의 것인지 확인하세요.",
                f"the TMA copy issued at line {l1} lands only when its mbarrier phase completes: wait for that phase "
                f"(mbarrier_try_wait_parity with this round's parity) before line {l2}.")
    if kind == "TMA_UNOBSERVED":
        ph = f" (단계 {bar[1]})" if bar else ""
        return (f"TMA 데이터는 mbarrier{ph} 를 기다린 스레드에게만 보장됩니다: {l2}행의 스레드도 그 mbarrier 를 기다리거나, "
                "기다린 스레드 뒤에 cuda.syncthreads() 를 두세요.",
                f"TMA data is guaranteed only to threads that waited on its mbarrier phase{ph}: make the thread at "
                f"line {l2} wait too, or put cuda.syncthreads() after the waiting thread.")
    if kind == "PROXY_FENCE":
        return (f"{l1}행의 일반 저장(generic proxy)을 wgmma(비동기 프록시, async proxy)가 읽으려면 저장한 스레드가 "
                "저장 뒤, 배리어 전에 ptx.fence_proxy_async() 를 실행해야 합니다.",
                f"shared memory written with ordinary stores (line {l1}) and read by wgmma (the async proxy) needs "
                "ptx.fence_proxy_async() in each writing thread after its stores and before the barrier.")
    if kind == "RAW":
        return (f"다른 스레드가 {l1}행에서 쓴 값을 wgmma 가 {l2}행에서 읽습니다: 그 사이에 (fence_proxy_async 뒤) "
                "cuda.syncthreads() 를 두세요.",
                f"another thread's write at line {l1} is read by the wgmma at line {l2}: put cuda.syncthreads() "
                "(after fence_proxy_async) between them.")
    if kind == "ASYNC_WAR":
        return (f"{l1}행의 wgmma 가 아직 이 공유 메모리를 읽는 중입니다: 덮어쓰기({l2}행) 전에 그 wgmma 를 덮는 "
                "wgmma_wait_group 을 실행하고, 다른 워프그룹이 덮어쓴다면 그 뒤에 빈 슬롯 mbarrier 에 arrive 하세요.",
                f"the wgmma issued at line {l1} still reads this shared memory: execute a wgmma_wait_group covering it "
                f"before the overwrite at line {l2} (and arrive on the 'empty' mbarrier only after that wait).")
    return ("", "")


def _report(kind, decl, e, first, second, bar=None, overdue=None):
    fix_ko, fix_en = _fix(kind, first[1], second[1], bar, overdue)
    racecheck.report(AsyncHazard(kind, decl.name, decl.index_of(e), first, second, fix_ko, fix_en))


def report(kind, array, first, second, fix_ko, fix_en, detail_ko="", detail_en="", space="shared"):
    """A hazard that is not about one element (warpgroup.py, tma.py)."""
    if racecheck.ON:
        racecheck.report(AsyncHazard(kind, array, None, first, second, fix_ko, fix_en, detail_ko, detail_en, space))


def site_of_caller(depth=2):
    """The site of the kernel line `depth` frames up, as racecheck names sites (a helper's line with its caller's)."""
    f = sys._getframe(depth)
    t = running()
    return racecheck.site_of(t, f) if t is not None else (f.f_code.co_filename, f.f_lineno)
