"""Shared-memory race detector of the simulator: the counterpart of `compute-sanitizer --tool racecheck`.

Model. A block's execution is cut into *barrier intervals* by `cuda.syncthreads()` (the interval number is
the detector's epoch). For every shared-memory element the detector keeps who wrote it and who read it in the
current interval. Two *different* threads touching the same element in one interval, at least one of them
writing, is a hazard: RAW (read after write), WAR (write after read) or WAW (write after write) — whatever the
order the scheduler happened to run them in, so no schedule can hide one.

cp.async. A copy's write is *in flight* from its issue until the `wait_group`/`wait_all` of the issuing thread
that guarantees it: any access to its destination in that window, by the issuing thread or another, is a
hazard (IN_FLIGHT), and so is another thread's write or read in the issue's interval before the issue (WAR/WAW).
At the wait the copy counts as the issuing thread's write in the wait's interval, so another thread's access
before the next barrier is a RAW hazard. `ldmatrix` is a read by each lane of the 16-byte row it addresses;
`mma` reads registers only. Atomics are not checked.

What it cannot see: global-memory races (between blocks, or threads of one block through global memory),
races through dynamic shared memory viewed with two different dtypes, and warp-synchronous code that relies
on `__syncwarp` (the simulator has none).

Switch: environment variable SGEMM_RACECHECK = raise (default: the first hazard raises SharedMemoryRaceError),
collect (record every hazard, see `collect()`), off (no checking). `set_mode()` changes it at run time.
"""
import contextlib
import linecache
import os
import sys
import weakref

from ..errors import CourseInputError
from .errors import SimulatorFault
from .state import describe, running

ENV = "SGEMM_RACECHECK"
MODES = ("raise", "collect", "off")
NONE = None


class SharedMemoryRaceError(CourseInputError, SimulatorFault):
    """A shared-memory hazard: two threads touch one element between barriers (the report says who, where, fix)."""

    names_thread = True

    def __init__(self, hazard):
        self.hazard = hazard
        self.ko, self.en, self.fix_ko, self.fix_en = hazard.ko, hazard.en, hazard.fix_ko, hazard.fix_en
        Exception.__init__(self, f"[경쟁 / race] {hazard.ko}\n  → 해결: {hazard.fix_ko}\n"
                                 f"[Race] {hazard.en}\n  → Fix: {hazard.fix_en}")


def _mode_from_env():
    raw = os.environ.get(ENV, "raise").strip().lower() or "raise"
    if raw in ("0", "no", "false"):
        raw = "off"
    if raw not in MODES:
        raise CourseInputError(
            f"환경 변수 {ENV}={raw!r} 는 알 수 없는 값입니다: raise, collect, off 중 하나여야 합니다.",
            f"environment variable {ENV}={raw!r} must be raise, collect or off.",
            f"{ENV}=raise (기본: 첫 경쟁에서 오류) 처럼 고치거나 지우세요.",
            f"set {ENV}=raise (the default: stop at the first hazard), collect or off, or unset it.")
    return raw


MODE = _mode_from_env()
ON = MODE != "off"
_epoch = [0]                   # barrier interval number; a new block starts a new interval
_found = []                    # hazards found in collect mode
_seen = {}                     # (kind, array, site, site) -> Hazard, to count repeats in collect mode
_decls = weakref.WeakSet()     # live shared declarations, to clear pending copies per block


def set_mode(mode):
    """'raise', 'collect' or 'off' (returns the previous mode)."""
    global MODE, ON
    if mode not in MODES:
        raise CourseInputError(f"racecheck 모드는 raise, collect, off 중 하나입니다 ({mode!r}).",
                               f"racecheck mode must be raise, collect or off, not {mode!r}.")
    prev, MODE, ON = MODE, mode, mode != "off"
    return prev


@contextlib.contextmanager
def mode(m):
    """with racecheck.mode('off'): ... — a temporary mode."""
    prev = set_mode(m)
    try:
        yield
    finally:
        set_mode(prev)


class Report:
    """Hazards collected by `collect()`: `.hazards` (first report of each kind and line pair), `.summary()`."""

    def __init__(self):
        self.hazards = []

    def __bool__(self):
        return bool(self.hazards)

    @property
    def kinds(self):
        return sorted({h.kind for h in self.hazards})

    def summary(self, limit=None):
        """One line per distinct hazard (kind, array, the two lines, how often, the fix); at most `limit` lines."""
        if not self.hazards:
            return "공유 메모리 경쟁 없음 / no shared-memory hazard found"
        lines = [f"공유 메모리 경쟁 {len(self.hazards)}종 / {len(self.hazards)} distinct hazard(s):"]
        for h in self.hazards[:limit]:
            lines.append(f"- {h.kind} {h.array}: {h.first_site[1]}행 ↔ {h.second_site[1]}행 "
                         f"(×{h.count}) — {h.fix_ko}")
        if limit is not None and len(self.hazards) > limit:
            lines.append(f"- … 외 {len(self.hazards) - limit}종 (report.summary() 로 모두 보기)")
        return "\n".join(lines)


@contextlib.contextmanager
def collect():
    """with racecheck.collect() as report: run kernels; every hazard is recorded instead of raised."""
    prev = set_mode("collect")
    _found.clear()
    _seen.clear()
    report = Report()
    try:
        yield report
    finally:
        report.hazards = list(_found)
        _found.clear()
        _seen.clear()
        set_mode(prev)


# ------------------------------------------------------------------------------- shadow state

def attach(decl):
    """Give a shared declaration its shadow: per element, writer and readers of the current interval."""
    n = decl.raw.size
    decl.w_thr, decl.w_ep, decl.w_site = [NONE] * n, [-1] * n, [NONE] * n
    decl.r_thr, decl.r_ep, decl.r_site = [NONE] * n, [-1] * n, [NONE] * n
    decl.r2_thr, decl.r2_site = [NONE] * n, [NONE] * n
    decl.w_via = [NONE] * n              # for a landed cp.async: the wait's site
    decl.pend = {}                       # flat element -> (thread, issue site, copy token)
    _decls.add(decl)


def begin_block():
    """A new block: shared memory is fresh, nothing in flight."""
    _epoch[0] += 1
    for d in _decls:
        d.pend.clear()


def barrier():
    """Every thread of the block passed a barrier: a new interval begins."""
    _epoch[0] += 1


def epoch():
    return _epoch[0]


def _other_reader(d, i, t):
    """A thread other than t that read element i in this interval, with its site, or (None, None)."""
    if d.r_ep[i] != _epoch[0]:
        return None, None
    if d.r_thr[i] is not t:
        return d.r_thr[i], d.r_site[i]
    if d.r2_thr[i] is not None:
        return d.r2_thr[i], d.r2_site[i]
    return None, None


def read(d, i, site, t=None):
    """Thread t (default: the running one) reads element i of declaration d at site (file, line)."""
    t = t or running()
    if t is None:
        return
    ep = _epoch[0]
    if d.pend and i in d.pend:
        _in_flight(d, i, t, site, "read")
    if d.w_ep[i] == ep and d.w_thr[i] is not t:
        _hazard("RAW", d, i, (d.w_thr[i], d.w_site[i], "write", d.w_via[i]), (t, site, "read", None))
    if d.r_ep[i] != ep:
        d.r_ep[i], d.r_thr[i], d.r_site[i], d.r2_thr[i] = ep, t, site, None
    elif d.r_thr[i] is not t and d.r2_thr[i] is None:
        d.r2_thr[i], d.r2_site[i] = t, site


def write(d, i, site, t=None, via=None):
    """Thread t writes element i of d at site (via: the wait_group site that landed a cp.async)."""
    t = t or running()
    if t is None:
        return
    ep = _epoch[0]
    if d.pend and i in d.pend and via is None:
        _in_flight(d, i, t, site, "write")
    if d.w_ep[i] == ep and d.w_thr[i] is not t:
        _hazard("WAW", d, i, (d.w_thr[i], d.w_site[i], "write", d.w_via[i]), (t, site, "write", via))
    other, osite = _other_reader(d, i, t)
    if other is not None:
        _hazard("WAR", d, i, (other, osite, "read", None), (t, site, "write", via))
    d.w_ep[i], d.w_thr[i], d.w_site[i], d.w_via[i] = ep, t, site, via


def read_many(d, idxs, site, t=None):
    for i in idxs:
        read(d, int(i), site, t)


def write_many(d, idxs, site, t=None):
    for i in idxs:
        write(d, int(i), site, t)


def async_issue(d, idxs, site, token, t=None):
    """Thread t issues a cp.async writing elements idxs of d: in flight until its wait lands it."""
    t = t or running()
    if t is None:
        return
    ep = _epoch[0]
    for i in idxs:
        p = d.pend.get(i)
        if p is not None and p[0] is not t:
            _hazard("WAW", d, i, (p[0], p[1], "cp.async", None), (t, site, "cp.async", None))
        if d.w_ep[i] == ep and d.w_thr[i] is not t:
            _hazard("WAW", d, i, (d.w_thr[i], d.w_site[i], "write", d.w_via[i]), (t, site, "cp.async", None))
        other, osite = _other_reader(d, i, t)
        if other is not None:
            _hazard("WAR", d, i, (other, osite, "read", None), (t, site, "cp.async", None))
        d.pend[i] = (t, site, token)


def async_land(d, idxs, issue_site, wait_site, token, t=None):
    """The wait of thread t guarantees the copy `token`: it becomes t's write in the current interval."""
    t = t or running()
    for i in idxs:
        p = d.pend.get(i)
        if p is not None and p[2] is token:
            del d.pend[i]
        if t is not None and ON:
            d.w_ep[i], d.w_thr[i], d.w_site[i], d.w_via[i] = _epoch[0], t, issue_site, wait_site


# ------------------------------------------------------------------------------------- reports

def _in_flight(d, i, t, site, what):
    owner, issue_site, token = d.pend[i]
    if hasattr(token, "on_access"):    # an entry of the Hopper async units (async_proxy.py) judges the access itself
        return token.on_access(d, i, t, site, what)
    _hazard("IN_FLIGHT", d, i, (owner, issue_site, "cp.async", None), (t, site, what, None), token=token)


def _line(site):
    if not site:
        return "?"
    text = linecache.getline(site[0], site[1]).strip()
    return f"{site[0].rsplit('/', 1)[-1]}:{site[1]}" + (f"  `{text}`" if text else "")


_WHAT_KO = {"read": "읽음", "write": "씀", "cp.async": "cp.async 로 복사 시작(issue)"}


def _kernel_frames(t):
    """Frames of thread t from the innermost kernel-code frame out to the kernel itself (simulator frames skipped)."""
    g = getattr(t, "glet", None)
    f = getattr(g, "gr_frame", None) if g is not None and not g.dead else None
    if f is None and t is running():
        f = sys._getframe(1)
    here = __file__.rsplit("/", 1)[0]
    out = []
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith(here):
            if out and fn.endswith("scheduler.py"):       # the scheduler called the kernel: done
                break
        elif "/infra/ptx/" not in fn:
            out.append(f)
        f = f.f_back
    return out


def _k_tile(t):
    """'kt=3' from the frames of thread t, innermost first, where a frame names its tile loop kt (or t, or k0)."""
    for f in _kernel_frames(t):
        for name in ("kt", "k_tile", "tile", "t", "k0"):
            v = f.f_locals.get(name)
            if isinstance(v, int):
                return f"{name}={v}"
    return ""


def _call_site(t):
    """(file, line) of the kernel's own line for thread t's current access, when it is inside a device function."""
    frames = _kernel_frames(t)
    return (frames[-1].f_code.co_filename, frames[-1].f_lineno) if len(frames) > 1 else None


class Hazard:
    """One hazard: kind, array element, the two accesses (thread, site, what) and the fix, in Korean and English."""

    def __init__(self, kind, d, i, first, second, token=None):
        self.kind, self.array, self.index = kind, d.name, d.index_of(i)
        self.first_thread, self.first_site, self.first_what, self.first_via = first
        self.second_thread, self.second_site, self.second_what, self.second_via = second
        if self.first_via:
            self.first_what = "cp.async"
        if self.second_via:
            self.second_what = "cp.async"
        self.epoch, self.count = _epoch[0], 1
        self.k_tile = _k_tile(self.second_thread)
        self.call_site = _call_site(self.second_thread)
        self.fix_ko, self.fix_en = _fix(self, token)
        self.ko, self.en = self._texts()

    @property
    def key(self):
        return (self.kind, self.array, self.first_site, self.second_site, self.first_what, self.second_what)

    def _texts(self):
        kind_ko = {"RAW": "쓰기 후 읽기", "WAR": "읽기 후 쓰기", "WAW": "쓰기 후 쓰기",
                   "IN_FLIGHT": "아직 도착하지 않은 cp.async 복사"}[self.kind]
        kind_en = {"RAW": "read after write", "WAR": "write after read", "WAW": "write after write",
                   "IN_FLIGHT": "access to a cp.async destination still in flight"}[self.kind]
        el = f"{self.array}{list(self.index)}"
        kt = f", {self.k_tile}" if self.k_tile else ""
        via1 = f" (복사가 {self.first_via[1]}행의 wait 에서 도착 / landed at the wait on line {self.first_via[1]})" \
            if self.first_via else ""
        via2 = f" (복사가 {self.second_via[1]}행의 wait 에서 도착 / landed at the wait on line {self.second_via[1]})" \
            if self.second_via else ""
        ko = (f"공유 메모리 경쟁(race) {self.kind} — {kind_ko}: 원소 {el}, 배리어 구간 #{self.epoch}{kt}\n"
              f"    먼저 / first : {describe(self.first_thread)} — {_WHAT_KO[self.first_what]}{via1}\n"
              f"                   {_line(self.first_site)}\n"
              f"    나중 / second: {describe(self.second_thread)} — {_WHAT_KO[self.second_what]}{via2}\n"
              f"                   {_line(self.second_site)}"
              + (f"\n                   (커널에서 / called from {_line(self.call_site)})" if self.call_site else ""))
        if self.kind == "IN_FLIGHT":
            en = (f"shared-memory {self.kind} hazard on {el}: the {self.second_what} at line {self.second_site[1]} "
                  f"touches the destination of the cp.async issued at line {self.first_site[1]}"
                  f"{' by the same thread' if self.first_thread is self.second_thread else ' by another thread'}, "
                  "which no wait has guaranteed yet.")
        else:
            en = (f"shared-memory {self.kind} hazard ({kind_en}) on {el}: {self.first_what} at line "
                  f"{self.first_site[1]} and {self.second_what} at line {self.second_site[1]} by two threads with no "
                  "barrier between them (the GPU may run them in either order).")
        return ko, en

    def __str__(self):
        return f"{self.ko}\n  → 해결: {self.fix_ko}\n{self.en}\n  → Fix: {self.fix_en}"


def _fix(h, token):
    """The likely fix, one sentence each in Korean and English."""
    l1, l2 = h.first_site[1], h.second_site[1]
    if h.kind == "IN_FLIGHT":
        same = h.first_thread is h.second_thread
        waits = _waits_needed(h.first_thread, token)
        if same and waits == "uncommitted":
            return (f"{l1}행의 cp.async 뒤에 cp_async_commit_group() 이 없어 어떤 wait_group 도 이 복사를 기다리지 "
                    f"않습니다: {l2}행 전에 commit 하고 wait 하세요.",
                    f"the cp.async at line {l1} was never committed, so no wait_group covers it: commit it and wait "
                    f"before line {l2}.")
        if same:
            need = f" (이 복사보다 나중 그룹이 {waits}개이므로 wait_group({waits}) 이하)" if isinstance(waits, int) else ""
            need_en = (f" ({waits} newer group{'' if waits == 1 else 's'} committed after it: wait_group({waits}) or less)"
                       if isinstance(waits, int) else "")
            return (f"{l1}행에서 시작한 복사가 {l2}행에서 쓰일 때 아직 보장되지 않았습니다: 그 전에 이 복사를 덮는 "
                    f"wait_group 이 필요합니다{need}.",
                    f"the copy issued at line {l1} is not guaranteed when line {l2} uses it: wait for it first"
                    f"{need_en}.")
        return (f"다른 스레드가 {l1}행에서 시작한 복사가 아직 날아가는 중입니다: 복사한 스레드가 wait_group 으로 기다린 "
                f"뒤 블록 전체가 cuda.syncthreads() 를 지나야 {l2}행에서 접근할 수 있습니다.",
                f"another thread's copy from line {l1} is still in flight: the issuing thread must wait (wait_group) "
                f"and the block must pass cuda.syncthreads() before line {l2} touches it.")
    if h.first_via:
        w = h.first_via[1]
        return (f"복사는 {w}행의 wait 에서 그 복사를 한 스레드에게만 보장됩니다: {w}행의 wait_group 과 {l2}행 사이에 "
                "cuda.syncthreads() 를 두세요.",
                f"a wait makes a copy visible only to the thread that issued it: put cuda.syncthreads() between the "
                f"wait_group at line {w} and line {l2}.")
    if h.kind == "RAW" and h.first_what == "cp.async":
        return (f"{l1}행의 cp.async 복사는 그 스레드의 wait_group 에서야 도착하고, 다른 스레드는 그 뒤 배리어를 지나야 볼 수 "
                f"있습니다: wait_group 과 {l2}행 사이에 cuda.syncthreads() 를 두세요.",
                f"the copy issued at line {l1} lands at its thread's wait_group, and other threads see it only after "
                f"a barrier: put cuda.syncthreads() between the wait_group and line {l2}.")
    if h.second_what == "cp.async":
        return (f"{l2}행의 cp.async 가 다른 스레드가 {l1}행에서 아직 읽는 버퍼를 덮어씁니다: 마지막 읽기와 이 복사 사이에 "
                "cuda.syncthreads() 를 두거나 다른 단(stage) 버퍼로 복사하세요.",
                f"the cp.async at line {l2} overwrites a buffer other threads still read at line {l1}: put "
                "cuda.syncthreads() between the last read and the prefetch, or copy into another stage.")
    if h.kind == "WAW":
        return (f"두 스레드가 같은 원소에 씁니다({l1}행, {l2}행): 원소마다 쓰는 스레드를 하나로 하거나 두 쓰기 사이에 "
                "cuda.syncthreads() 를 두세요.",
                f"two threads write the same element (lines {l1} and {l2}): give each element one writer or put "
                "cuda.syncthreads() between the writes.")
    if l2 < l1 or (l1 == l2 and h.kind == "WAR"):
        return (f"{l2}행이 (다음 반복에서) {l1}행보다 먼저 실행되는 경로에 배리어가 없습니다: 반복의 끝(또는 {l2}행 "
                f"앞)에 cuda.syncthreads() 를 두어 모든 스레드가 {l1}행을 마친 뒤 {l2}행을 실행하게 하세요.",
                f"no barrier between line {l1} and line {l2} of the next iteration: put cuda.syncthreads() at the end "
                f"of the loop body (before line {l2}) so every thread finishes line {l1} first.")
    return (f"{l1}행과 {l2}행 사이에 cuda.syncthreads() 가 없습니다: 그 사이에 배리어를 두어 모든 스레드가 {l1}행을 "
            f"마친 뒤 {l2}행을 실행하게 하세요.",
            f"a barrier is missing between line {l1} and line {l2}: put cuda.syncthreads() between them.")


def _waits_needed(owner, token):
    """How many committed groups are newer than the one holding copy `token` ('uncommitted' if none holds it)."""
    unit = getattr(owner, "async_unit", None)
    if unit is None:
        return None
    if any(p is token for p in unit.uncommitted):
        return "uncommitted"
    groups = list(unit.groups)
    for k, (_, payloads) in enumerate(groups):
        if any(p is token for p in payloads):
            return len(groups) - 1 - k
    return None


def _kt_now(t):
    """The K-tile loop variable of thread t where it is now (an int), or None."""
    txt = _k_tile(t)
    return int(txt.split("=")[1]) if txt else None


def _program_order(kind, first, second):
    """(kind, first, second) in program order rather than the order the scheduler ran them in.

    Within one barrier interval the GPU may run the two accesses in either order; what the programmer meant is
    the order of the K-tile loop (kt) and, within one tile, of the source lines (a landed copy counts at its
    wait's line). The thread that ran first is parked at its next barrier (or at a warp instruction), so its kt
    there is the kt of its access unless it crossed a loop edge in between: good enough to name the fix.
    """
    if kind == "IN_FLIGHT" and (first[0] is second[0] or second[2] != "read"):
        return kind, first, second
    ka, kb = _kt_now(first[0]), _kt_now(second[0])
    la = (first[3] or first[1])[1]
    lb = (second[3] or second[1])[1]
    a_first = ka < kb if ka is not None and kb is not None and ka != kb else la <= lb
    if a_first:
        return kind, first, second
    if kind == "IN_FLIGHT":            # the read comes first in program order: the copy overwrites what it reads
        return "WAR", second, first
    flip = {"RAW": "WAR", "WAR": "RAW", "WAW": "WAW"}
    return flip[kind], second, first


def _hazard(kind, d, i, first, second, token=None):
    kind, first, second = _program_order(kind, first, second)
    if MODE == "collect":
        key = (kind, d.name, first[1], second[1], first[2], second[2])
        old = _seen.get(key)
        if old is not None:
            old.count += 1
            return
        _seen[key] = h = Hazard(kind, d, i, first, second, token)
        _found.append(h)
        return
    raise SharedMemoryRaceError(Hazard(kind, d, i, first, second, token))


# ------------------------------------------------------------- hook for the Hopper detectors (issue 31)
# simulator/async_proxy.py builds its own hazards (wgmma, TMA, proxy fences) with the fields Report and subsim read
# (kind, array, index, first_site, second_site, count, k_tile, ko, en, fix_ko, fix_en, key) and hands them here, so
# that they are raised or collected exactly like the hazards above.
def report(h):
    """Raise SharedMemoryRaceError(h), or record h in collect mode (counting repeats of the same key)."""
    if MODE == "collect":
        old = _seen.get(h.key)
        if old is not None:
            old.count += 1
            return
        _seen[h.key] = h
        _found.append(h)
        return
    raise SharedMemoryRaceError(h)
