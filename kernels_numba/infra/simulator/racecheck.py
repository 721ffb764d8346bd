"""Race detector of the simulator: what `compute-sanitizer --tool racecheck` sees in shared memory, and global memory.

Model. A block's execution is cut into *barrier intervals* by `cuda.syncthreads()`. For every shared-memory element
the detector keeps who last wrote it and who read it in the current interval. Two *different* threads of a block
touching the same element in one interval, at least one of them writing, is a hazard: RAW (read after write), WAR
(write after read) or WAW (write after write) — whatever order the scheduler happened to run them in, so no schedule
can hide one. Per element it keeps one writer and two readers of the interval: a write is checked against the last
write and those readers, a read against the last write. `cuda.syncwarp(mask)` orders the accesses of the lanes it
names (the lanes passed it together); shfl/vote do not order memory, as on the GPU.

Global memory (the kernel's array arguments and their views). Within one launch, an element written by one block
and read or written by another block is a hazard (the GPU runs blocks in any order and has no barrier between them),
and so is an element two threads of one block touch in one barrier interval with one of them writing. Atomics
(`cuda.atomic.*`) on shared or global memory take part: atomic against atomic is fine, atomic against a plain access
is a hazard. Global elements are identified by byte address, so two views of one array meet.

cp.async. A copy's write is *in flight* from its issue until the `wait_group`/`wait_all` of the issuing thread
that guarantees it: any access to its destination in that window, by the issuing thread or another, is a
hazard (IN_FLIGHT), and so is another thread's write or read in the issue's interval before the issue (WAR/WAW).
At the wait the copy counts as the issuing thread's write in the wait's interval, so another thread's access
before the next barrier is a RAW hazard. `ldmatrix` is a read by each lane of the 16-byte row it addresses;
`mma` reads registers only. Dynamic shared memory viewed with two dtypes (and `.view(dtype)` of a shared array)
is one byte array: an access through one view is checked against the accesses through the others.

Uninitialised reads (UNINIT). A shared element read in a block before anyone wrote it in that block.

Program order. The two accesses of a hazard are put in the order the program runs them, decided by the execution:
each thread keeps the source lines it passed in the current interval, so a read in iteration kt and a write in
iteration kt + 1 are told apart from a write and a read of one iteration, whichever file each line is in.

Switch: environment variable SGEMM_RACECHECK = raise (default: the first hazard raises an error),
collect (record every hazard, see `collect()`), off (no checking). `set_mode()` changes it at run time.
"""
import contextlib
import linecache
import os
import sys
import unicodedata
import weakref

from ..errors import CourseInputError
from .errors import SimulatorFault
from sim.korean import josa

from .state import describe, running, where
import dis

ENV = "SGEMM_RACECHECK"
MODES = ("raise", "collect", "off")
NONE = None
ATOMIC = "atomic"              # the `via` of an atomic access
# what a hazard's pair of accesses is in order of (Hazard.order): program order, which the scheduler also ran them in
# (PROGRAM) or ran the other way round (REVERSED); the order the scheduler ran them in, program order not deciding
# (RUN); two blocks, which have no order (BLOCKS)
PROGRAM, REVERSED, RUN, BLOCKS = "program", "reversed", "run", "blocks"
_ORDER_LABELS = {PROGRAM: ("프로그램 순서 앞 / earlier in program order", "프로그램 순서 뒤 / later in program order"),
                 RUN: ("먼저 실행 / ran first", "나중 실행 / ran second"),
                 BLOCKS: ("블록 하나 / one block", "다른 블록 / another block")}
_ORDER_LABELS[REVERSED] = _ORDER_LABELS[PROGRAM]


class HazardError(CourseInputError, SimulatorFault):
    """A hazard the detector found (the report says which threads, which lines, and the fix)."""

    names_thread = True

    def __init__(self, hazard):
        self.hazard = hazard
        self.ko, self.en, self.fix_ko, self.fix_en = hazard.ko, hazard.en, hazard.fix_ko, hazard.fix_en
        tag_ko, tag_en = ("초기화되지 않은 읽기", "Uninitialised read") if hazard.kind == "UNINIT" else ("경쟁", "Race")
        Exception.__init__(self, f"[{tag_ko} / {tag_en.lower()}] {hazard.ko}\n  → 해결: {hazard.fix_ko}\n"
                                 f"[{tag_en}] {hazard.en}\n  → Fix: {hazard.fix_en}")


class SharedMemoryRaceError(HazardError):
    """A shared-memory hazard: two threads touch one element between barriers (the report says who, where, fix)."""


class GlobalMemoryRaceError(HazardError):
    """A global-memory hazard: two blocks, or two threads of a block between barriers, touch one element."""


class UninitializedReadError(HazardError):
    """A shared-memory element read before any thread of the block wrote it."""


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
_epoch = [0]                   # barrier interval number (a new block starts a new interval)
_blk0 = [0]                    # the epoch the running block started in: interval numbers are per block
_found = []                    # hazards found in collect mode
_seen = {}                     # (kind, space, array, site, site, what, what) -> Hazard, to count repeats
_decls = weakref.WeakSet()     # live shared declarations, to clear pending copies per block
_global = {}                   # byte address -> record of a global element's accesses in this launch
_last = [None]                 # the report last collected or shown (course.race_report())
_notes = {}                    # key -> a remark on the launch that is no hazard (e.g. bytes copied between dtypes)
_unwritten = {}                # (declaration id, element) -> (declaration, element, read access): reads of elements
#                                nobody in the block had written, judged when the interval ends


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


SEE_ALL = "course.race_report().summary()"


class Report:
    """Hazards collected by `collect()`: `.hazards` (first report of each kind and line pair), `.summary()`."""

    def __init__(self, hazards=(), notes=()):
        self.hazards = list(hazards)
        self.notes = list(notes)         # remarks that are no hazard: a cp.async between two dtypes (bytes, not values)

    def __bool__(self):
        return bool(self.hazards)

    @property
    def kinds(self):
        return sorted({h.kind for h in self.hazards})

    @property
    def races(self):
        """The hazards between two accesses (every kind but UNINIT)."""
        return [h for h in self.hazards if h.kind != "UNINIT"]

    @property
    def uninitialised(self):
        """The reads of shared memory nobody in the block wrote (UNINIT)."""
        return [h for h in self.hazards if h.kind == "UNINIT"]

    def summary(self, limit=None):
        """One line per distinct hazard (kind, array, the two lines, how often, the fix); at most `limit` lines."""
        _last[0] = self                    # the pointer below names the report this summary came from
        notes = [f"참고 / note: {n}" for n in getattr(self, "notes", ())]
        if not self.hazards:
            return "\n".join(["경쟁 없음 / no hazard found"] + notes)
        lines = [f"경쟁 검출기 보고 {len(self.hazards)}종 / {len(self.hazards)} distinct hazard(s):"]
        pairs = [getattr(h, "lines_text", None) or f"{h.first_site[1]}행 ↔ {h.second_site[1]}행" for h in self.hazards]
        seen = {}
        for h, pair in zip(self.hazards, pairs):
            k = (h.kind, h.array, pair)
            seen[k] = seen.get(k, 0) + 1
        for h, pair in list(zip(self.hazards, pairs))[:limit]:
            space = "전역 " if getattr(h, "space", "shared") == "global" else ""
            if seen[(h.kind, h.array, pair)] > 1:    # same kernel lines: they differ inside a helper, so name it
                pair = " ↔ ".join(_short(x) + (f" ({_inside(x)})" if len(x) > 2 else "")
                                  for x in (h.first_site, h.second_site) if x)
            lines.append(f"- {h.kind} {space}{h.array}: {pair} (×{h.count}) — {h.fix_ko}")
        if limit is not None and len(self.hazards) > limit:
            lines.append(f"- … 외 {len(self.hazards) - limit}종 (모두 보기: {SEE_ALL})")
        return "\n".join(lines + notes)

    def __str__(self):
        return self.summary()


def note(key, text):
    """Keep a remark about this run for the collected report (collect mode only; once per key)."""
    if MODE == "collect" and key not in _notes:
        _notes[key] = text


def point_to(report):
    """Make `course.race_report()` return this report (the one the message shown last came from)."""
    if report is not None:
        _last[0] = report


def last_report():
    """The race report last collected (or shown), or an empty one: what `course.race_report()` returns."""
    return _last[0] if _last[0] is not None else Report()


@contextlib.contextmanager
def collect():
    """with racecheck.collect() as report: run kernels; every hazard is recorded instead of raised."""
    prev = set_mode("collect")
    _found.clear()
    _seen.clear()
    _notes.clear()
    report = Report()
    try:
        yield report
    finally:
        report.hazards = list(_found)
        report.notes = list(_notes.values())
        _found.clear()
        _seen.clear()
        _notes.clear()
        _last[0] = report
        set_mode(prev)


# ------------------------------------------------------------------------------- where a thread is

def site_of(t, f):
    """The site of an access made in frame f by thread t: (file, line), or inside a device function (a course helper)
    (file, line, kernel file, kernel line, helper name) — the kernel line being the student's line that called it."""
    co = f.f_code
    k = t.kcode
    if co is k or k is None:
        return (co.co_filename, f.f_lineno)
    g = f.f_back
    while g is not None and g.f_code is not k:
        g = g.f_back
    if g is None:
        return (co.co_filename, f.f_lineno)
    return (co.co_filename, f.f_lineno, g.f_code.co_filename, g.f_lineno, co.co_name)


def step(t, f):
    """Thread t makes an access at an instruction of frame f it has not used on its current line: if the line is new,
    note it (program order). Callers test `f is not t.lf or f.f_lasti not in t.lset` first (the cheap common case)."""
    ln = f.f_lineno
    if f is t.lf and ln == t.lln:                  # another instruction of the same line (As[...] * Bs[...])
        t.lset.add(f.f_lasti)
        return t.acc
    site = site_of(t, f)
    t.trace.append(site)
    t.tix += 1
    t.lf, t.lln, t.lset = f, ln, {f.f_lasti}
    t.acc = (t, site, t.tix, None)
    return t.acc


def here(t, depth=2):
    """The access record of the running thread t at the kernel line `depth` frames up (stand-ins call this)."""
    f = sys._getframe(depth)
    if f is not t.lf or f.f_lasti not in t.lset:
        return step(t, f)
    return t.acc


def at(t, f):
    """The access record of thread t at frame f (warp instructions: each lane at its own line)."""
    if f is not t.lf or f.f_lasti not in t.lset:
        return step(t, f)
    return t.acc


def kernel_line(site):
    """(file, line) in the kernel itself: the calling line for an access inside a helper."""
    return (site[2], site[3]) if len(site) > 2 else (site[0], site[1])


def _order_site(acc):
    via = acc[3]
    return via if type(via) is tuple else acc[1]


# ------------------------------------------------------------------------------- shadow state

def attach(decl):
    """Give a shared declaration its shadow: per element, the last writer and the readers of the current interval."""
    n = decl.raw.size
    decl.w_ep, decl.w_acc = [-1] * n, [NONE] * n
    decl.r_ep, decl.r_acc, decl.r2 = [-1] * n, [NONE] * n, [NONE] * n
    decl.a_ep, decl.a_acc, decl.a2 = [-1] * n, [NONE] * n, [NONE] * n      # atomics: the last, another thread's
    decl.atomics = False                 # any atomic on it yet (the read fast path then checks them too)
    decl.pend = {}                       # flat element -> (issue access, copy token, issue epoch)
    decl.alias = ()                      # other declarations over the same bytes (dynamic memory, .view(dtype))
    decl.u_ep = None                     # per element, the interval an asynchronous unit (a TMA copy) last wrote it
    _decls.add(decl)


def begin_launch():
    """A new kernel launch: global memory starts with no history."""
    _global.clear()


def begin_block():
    """A new block: shared memory is fresh, nothing in flight, interval numbers start again."""
    _unwritten.clear()
    _epoch[0] += 1
    _blk0[0] = _epoch[0]
    for d in _decls:
        d.pend.clear()


def barrier():
    """Every thread of the block passed a barrier: a new interval begins."""
    end_interval()
    _epoch[0] += 1


def end_interval():
    """Report the reads of never-written elements made in the interval that ends: a read that another thread's write
    in the same interval raced with was reported as that race; the others read memory nobody wrote (UNINIT)."""
    if not _unwritten:
        return
    ep = _epoch[0]
    items = list(_unwritten.values())
    _unwritten.clear()
    for d, i, acc in items:
        if d.w_ep[i] == ep and d.w_acc[i][0] is not acc[0]:
            continue                                   # another thread wrote it in this interval: a race, reported
        p = d.pend.get(i) if d.pend else None
        if p is not None and p[0][0] is not acc[0]:
            continue                                   # another thread's copy to it is in flight: reported as such
        if acc[3] is not ATOMIC and d.a_ep[i] == ep and d.a_acc[i][0] is not acc[0]:
            continue                                   # another thread's atomic raced with this read: reported
        _hazard("UNINIT", d, i, None, (acc, _what(acc, "read")))


def epoch():
    return _epoch[0]


def interval():
    """The running block's barrier interval: 0 before its first syncthreads, n after n of them."""
    return _epoch[0] - _blk0[0]


def _ordered(acc, t):
    """True when access `acc` (another thread's) and thread t's access now are ordered by a syncwarp both lanes
    passed after `acc`."""
    a = acc[0]
    for p, members in a.wev:
        if p > acc[2] and t in members:
            return True
    return False


def _readers(d, i, t):
    """Accesses of other threads that read element i in this interval and are not ordered before t."""
    if d.r_ep[i] != _epoch[0]:
        return None
    for r in (d.r_acc[i], d.r2[i]):
        if r is not None and r[0] is not t and not _ordered(r, t):
            return r
    return None


def _what(acc, role):
    via = acc[3]
    if via is ATOMIC:
        return "atomic"
    if type(via) is tuple or via == "cp.async":
        return "cp.async"
    return role


def _atomic_by_other(d, i, t):
    """An atomic of another thread on element i in this interval, not ordered before t's access now, or None."""
    if d.a_ep[i] != _epoch[0]:
        return None
    for a in (d.a_acc[i], d.a2[i]):
        if a is not None and a[0] is not t and not _ordered(a, t):
            return a
    return None


def _written_in_block(d, i):
    b0 = _blk0[0]
    return d.w_ep[i] >= b0 or d.a_ep[i] >= b0 or d.u_ep is not None and d.u_ep[i] >= b0 or _alias_written(d, i)


def unit_wrote(d, idxs):
    """An asynchronous unit (a TMA copy that landed) wrote elements idxs of d: they are no longer unwritten in this
    block. Which threads may read them, and when, is the unit's own protocol (async_proxy.py checks it)."""
    if d.u_ep is None:
        d.u_ep = [-1] * d.raw.size
    ep, u = _epoch[0], d.u_ep
    for i in idxs:
        u[i] = ep


def read(d, i, t=None, acc=None):
    """Thread t (default: the running one) reads element i of shared declaration d (acc: its access record)."""
    t = t or running()
    if t is None:
        return
    acc = acc or t.acc
    ep = _epoch[0]
    if d.pend:
        p = d.pend.get(i)
        if p is not None:
            _in_flight(d, i, p, acc, "read")
    if d.w_ep[i] == ep:
        w = d.w_acc[i]
        if w[0] is not t and not _ordered(w, t):
            _hazard("RAW", d, i, (w, _what(w, "write")), (acc, "read"))
    if d.atomics:
        a = _atomic_by_other(d, i, t)
        if a is not None:
            _hazard("RAW", d, i, (a, "atomic"), (acc, "read"))
    if not (d.pend and i in d.pend) and not _written_in_block(d, i):
        _unwritten.setdefault((id(d), i), (d, i, acc))   # judged at the end of the interval (a race, or UNINIT)
    if d.alias:
        _alias_check(d, i, t, acc, False)
    if d.r_ep[i] != ep:
        d.r_ep[i], d.r_acc[i], d.r2[i] = ep, acc, None
    elif d.r2[i] is None and d.r_acc[i][0] is not t:
        d.r2[i] = acc


def write(d, i, t=None, acc=None):
    """Thread t writes element i of d (acc[3]: None, or the wait site that landed a cp.async)."""
    t = t or running()
    if t is None:
        return
    acc = acc or t.acc
    ep = _epoch[0]
    via = acc[3]
    what = _what(acc, "write")
    if d.pend and type(via) is not tuple:
        p = d.pend.get(i)
        if p is not None:
            _in_flight(d, i, p, acc, what)
    if d.w_ep[i] == ep:
        w = d.w_acc[i]
        if w[0] is not t and not _ordered(w, t):
            _hazard("WAW", d, i, (w, _what(w, "write")), (acc, what))
    if d.atomics:
        a = _atomic_by_other(d, i, t)
        if a is not None:
            _hazard("WAW", d, i, (a, "atomic"), (acc, what))
    r = _readers(d, i, t)
    if r is not None:
        _hazard("WAR", d, i, (r, "read"), (acc, what))
    if d.alias:
        _alias_check(d, i, t, acc, True)
    d.w_ep[i], d.w_acc[i] = ep, acc


def atomic(d, i, t=None, acc=None):
    """An atomic read-modify-write of element i of d by thread t: against other atomics fine, against a plain access
    of another thread in the interval (read or write) a hazard. It reads the old value: one nobody wrote is UNINIT."""
    t = t or running()
    if t is None:
        return
    acc = acc or t.acc
    acc = (acc[0], acc[1], acc[2], ATOMIC)
    ep = _epoch[0]
    if not _written_in_block(d, i):
        _unwritten.setdefault((id(d), i), (d, i, acc))
    if d.pend:
        p = d.pend.get(i)
        if p is not None:
            _in_flight(d, i, p, acc, "atomic")
    if d.w_ep[i] == ep:
        w = d.w_acc[i]
        if w[0] is not t and not _ordered(w, t):
            _hazard("WAW", d, i, (w, _what(w, "write")), (acc, "atomic"))
    r = _readers(d, i, t)
    if r is not None:
        _hazard("WAR", d, i, (r, "read"), (acc, "atomic"))
    if d.alias:
        _alias_check(d, i, t, acc, True)
    d.atomics = True
    if d.a_ep[i] == ep:
        if d.a_acc[i][0] is not t:
            d.a2[i] = d.a_acc[i]
    else:
        d.a2[i] = None
    d.a_ep[i], d.a_acc[i] = ep, acc


def read_many(d, idxs, t=None, acc=None):
    for i in idxs:
        read(d, int(i), t, acc)


def write_many(d, idxs, t=None, acc=None):
    for i in idxs:
        write(d, int(i), t, acc)


def _alias_range(d, i, a):
    """Elements of alias a that share a byte with element i of d."""
    k, ka = d.raw.itemsize, a.raw.itemsize
    lo = (d.offset + i * k - a.offset)
    hi = lo + k - 1
    return range(max(lo // ka, 0), min(hi // ka + 1, a.raw.size))


def _alias_written(d, i):
    """True when the bytes of element i of d were all written in this block through other views."""
    b0 = _blk0[0]
    for a in d.alias:
        js = _alias_range(d, i, a)
        if len(js) and all(a.w_ep[j] >= b0 or a.u_ep is not None and a.u_ep[j] >= b0 for j in js):
            return True
    return False


def _alias_check(d, i, t, acc, is_write):
    """Check an access to element i of d against the accesses made through the other views of the same bytes."""
    ep = _epoch[0]
    what = _what(acc, "write") if is_write else "read"
    for a in d.alias:
        for j in _alias_range(d, i, a):
            if a.pend and j in a.pend and type(acc[3]) is not tuple:
                _in_flight(a, j, a.pend[j], acc, what)
            if a.w_ep[j] == ep:
                w = a.w_acc[j]
                if w[0] is not t and not _ordered(w, t):
                    _hazard("WAW" if is_write else "RAW", a, j, (w, _what(w, "write")), (acc, what))
            if a.atomics and acc[3] is not ATOMIC:
                x = _atomic_by_other(a, j, t)
                if x is not None:
                    _hazard("WAW" if is_write else "RAW", a, j, (x, "atomic"), (acc, what))
            if is_write:
                r = _readers(a, j, t)
                if r is not None:
                    _hazard("WAR", a, j, (r, "read"), (acc, what))


def async_issue(d, idxs, t=None, acc=None, token=None):
    """Thread t issues a cp.async writing elements idxs of d: in flight until its wait lands it."""
    t = t or running()
    if t is None:
        return
    acc = acc or t.acc
    acc = (acc[0], acc[1], acc[2], "cp.async")
    ep = _epoch[0]
    for i in idxs:
        p = d.pend.get(i)
        if p is not None and hasattr(p[1], "on_access"):      # a TMA copy or a wgmma's read (async_proxy.py)
            p[1].on_access(d, i, acc, "cp.async")
        elif p is not None and p[0][0] is not t:
            _hazard("WAW", d, i, (p[0], "cp.async"), (acc, "cp.async"), token=p[1])
        if d.w_ep[i] == ep:
            w = d.w_acc[i]
            if w[0] is not t and not _ordered(w, t):
                _hazard("WAW", d, i, (w, _what(w, "write")), (acc, "cp.async"))
        r = _readers(d, i, t)
        if r is not None:
            _hazard("WAR", d, i, (r, "read"), (acc, "cp.async"))
        if d.alias:
            _alias_check(d, i, t, acc, True)
        d.pend[i] = (acc, token, ep)


def async_land(d, idxs, issue_acc, wait_acc, token, t=None):
    """The wait of thread t guarantees the copy `token`: it becomes t's write in the current interval."""
    t = t or running()
    for i in idxs:
        p = d.pend.get(i)
        if p is not None and p[1] is token:
            del d.pend[i]
        if t is not None and ON:
            d.w_ep[i] = _epoch[0]
            d.w_acc[i] = (t, issue_acc[1], wait_acc[2], wait_acc[1])


# ------------------------------------------------------------------------------- global memory

def _grec(addr):
    rec = _global.get(addr)
    if rec is None:
        # [write epoch, write access, read epoch, reader, reader 2, reader of one block, reader of another block,
        #  last atomic (access, epoch), an earlier atomic of another thread (access, epoch)]
        rec = _global[addr] = [-1, None, -1, None, None, None, None, None, None]
    return rec


def _gconflict(acc, t, ep_rec, ep):
    """True when a recorded access (other thread) conflicts with thread t now: another block, or this block's
    interval without a syncwarp ordering them."""
    a = acc[0]
    if a is t:
        return False
    if a.block is not t.block:
        return True
    return ep_rec == ep and not _ordered(acc, t)


def _gatomic_by_other(rec, t, ep):
    for slot in (rec[7], rec[8]):
        if slot is not None and _gconflict(slot[0], t, slot[1], ep):
            return slot[0]
    return None


def gread(g, addr, index, t, acc):
    """Thread t reads the global element at byte address addr (g: the array as the kernel names it)."""
    rec = _grec(addr)
    ep = _epoch[0]
    w = rec[1]
    if w is not None and _gconflict(w, t, rec[0], ep):
        _ghazard("RAW", g, index, (w, _what(w, "write")), (acc, "read"))
    elif rec[7] is not None:
        a = _gatomic_by_other(rec, t, ep)
        if a is not None:
            _ghazard("RAW", g, index, (a, "atomic"), (acc, "read"))
    if rec[2] != ep:
        rec[2], rec[3], rec[4] = ep, acc, None
    elif rec[4] is None and rec[3][0] is not t:
        rec[4] = acc
    r0 = rec[5]
    if r0 is None:
        rec[5] = acc
    elif rec[6] is None and r0[0].block is not t.block:
        rec[6] = acc
    return rec


def _greader(rec, t, ep):
    """A read of another thread that conflicts with t's write now (same interval of the block, or another block)."""
    if rec[2] == ep:
        for x in (rec[3], rec[4]):
            if x is not None and x[0] is not t and not _ordered(x, t):
                return x
    for x in (rec[5], rec[6]):
        if x is not None and x[0].block is not t.block:
            return x
    return None


def gwrite(g, addr, index, t, acc):
    """Thread t writes the global element at byte address addr."""
    rec = _grec(addr)
    ep = _epoch[0]
    what = _what(acc, "write")
    w = rec[1]
    if w is not None and _gconflict(w, t, rec[0], ep):
        _ghazard("WAW", g, index, (w, _what(w, "write")), (acc, what))
    elif rec[7] is not None and _gatomic_by_other(rec, t, ep) is not None:
        _ghazard("WAW", g, index, (_gatomic_by_other(rec, t, ep), "atomic"), (acc, what))
    else:
        r = _greader(rec, t, ep)
        if r is not None:
            _ghazard("WAR", g, index, (r, "read"), (acc, what))
    rec[0], rec[1] = ep, acc


def gatomic(g, addr, index, t, acc):
    """An atomic read-modify-write by thread t: against other atomics fine, against a plain access of another block
    or of another thread in this interval a hazard."""
    rec = _grec(addr)
    ep = _epoch[0]
    acc = (acc[0], acc[1], acc[2], ATOMIC)
    w = rec[1]
    if w is not None and _gconflict(w, t, rec[0], ep):
        _ghazard("WAW", g, index, (w, _what(w, "write")), (acc, "atomic"))
    else:
        r = _greader(rec, t, ep)
        if r is not None:
            _ghazard("WAR", g, index, (r, "read"), (acc, "atomic"))
    last = rec[7]
    if last is not None and last[0][0] is not t:
        rec[8] = last
    rec[7] = (acc, ep)


# ------------------------------------------------------------------------------------- reports

def _in_flight(d, i, p, acc, what):
    issue, token, _ = p
    if hasattr(token, "on_access"):
        return token.on_access(d, i, acc, what)      # Hopper's async units (async_proxy.py) judge the access themselves
    _hazard("IN_FLIGHT", d, i, (issue, "cp.async"), (acc, what), token=token, issue_epoch=p[2])


def _source(site):
    return linecache.getline(site[0], site[1]).strip()


def _line(site, lang="ko"):
    """'셀 In [12] 18행  `code`' for an access; inside a helper, the student's calling line first."""
    if not site:
        return "?"
    text = _source(site)
    own = where(site[0], site[1]) + (f"  `{text}`" if text else "")
    if len(site) > 2:
        ktext = _source((site[2], site[3]))
        caller = where(site[2], site[3]) + (f"  `{ktext}`" if ktext else "")
        if lang == "ko":
            return f"{caller}\n                   ← 이 줄에서 부른 도우미 `{site[4]}` 안: {own}"
        return f"{caller}, inside the helper `{site[4]}` it calls: {own}"
    return own


def _via_text(via):
    """' (복사가 file.py:40 의 wait 에서 도착 …)' for the wait that landed a copy: the kernel's own line (the line that
    called the helper holding the wait, with that helper's line after it), '' for None."""
    if not via:
        return ""
    f, n = kernel_line(via)
    inner = f", 그 줄에서 부른 도우미 `{via[4]}` 안: {where(via[0], via[1])}" if len(via) > 2 else ""
    return f" (복사가 {where(f, n)} 의 wait 에서 도착{inner} / landed at the wait on line {n})"


def _inside(site):
    """'issue_stage 안 wgmma_tma.py:52': the helper's own line of a site inside a course helper."""
    return f"{site[4]} 안 {os.path.basename(site[0])}:{site[1]}"


def _short(site):
    """'셀 In [12] 18행' or 'file.py:25' of the kernel's own line (the student's line for a helper's access)."""
    f, n = kernel_line(site)
    return where(f, n)


_WHAT_KO = {"read": "읽음", "write": "씀", "cp.async": "cp.async 로 복사 시작(issue)", "atomic": "원자 연산(atomic)"}


def _kernel_frames(t):
    """Frames of thread t from the innermost kernel-code frame out to the kernel itself (simulator frames skipped)."""
    g = getattr(t, "glet", None)
    f = getattr(g, "gr_frame", None) if g is not None and not g.dead else None
    if f is None and t is running():
        f = sys._getframe(1)
    here_ = __file__.rsplit("/", 1)[0]
    kcode = getattr(t, "kcode", None)
    out = []
    while f is not None:
        fn = f.f_code.co_filename
        if f.f_code is kcode:                             # the kernel itself: done
            out.append(f)
            break
        if fn.startswith(here_):
            if out and f.f_code.co_name == "body" and fn.endswith("scheduler.py"):   # the scheduler called it
                break
        elif "/infra/ptx/" not in fn:
            out.append(f)
        f = f.f_back
    return out


_LOOP_VARS = {}


def _loop_vars(code):
    """Names a code object's for-loops assign (the variable right after FOR_ITER), cached."""
    names = _LOOP_VARS.get(code)
    if names is None:
        ins = list(dis.get_instructions(code))
        names = {b.argval for a, b in zip(ins, ins[1:]) if a.opname == "FOR_ITER" and b.opname.startswith("STORE")}
        _LOOP_VARS[code] = names
    return names


def _k_tile(t):
    """'kt=3' from the frames of thread t, innermost first, where a frame's for-loop over K tiles is named kt (or
    k_tile, tile, t, k0); a `t` that is not a loop variable (t = cuda.threadIdx.x) does not count."""
    if t is None:
        return ""
    for f in _kernel_frames(t):
        loops = _loop_vars(f.f_code)
        for name in ("kt", "k_tile", "tile", "t", "k0"):
            v = f.f_locals.get(name)
            if isinstance(v, int) and name in loops:
                return f"{name}={v}"
    return ""


class Hazard:
    """One hazard: kind, memory space, element, the two accesses (thread, site, what) and the fix, in Korean and
    English. `order` says what order the two accesses are in (PROGRAM/REVERSED: program order, `first` before
    `second`; RUN: the order the scheduler ran them in; BLOCKS: two blocks, which have none), and the report's labels
    say the same. UNINIT has no first access."""

    def __init__(self, kind, space, array, index, first, second, token=None, interval_no=0, order=PROGRAM):
        self.kind, self.space, self.array, self.index = kind, space, array, tuple(index)
        self.order = order
        if first is None:
            first = ((None, None, 0, None), None)
        (fa, self.first_what), (sa, self.second_what) = first, second
        self.first_thread, self.first_site = fa[0], fa[1]
        self.second_thread, self.second_site = sa[0], sa[1]
        self.first_via = fa[3] if type(fa[3]) is tuple else None
        self.second_via = sa[3] if type(sa[3]) is tuple else None
        self.first_line = kernel_line(fa[1]) if fa[1] else None
        self.second_line = kernel_line(sa[1])
        self.blocks = (self.first_thread is not None and self.first_thread.block is not self.second_thread.block)
        self.interval, self.count = interval_no, 1
        self.epoch = interval_no + 1                     # the number the report shows (1 = before the first barrier)
        self.k_tile = _k_tile(self.second_thread)
        self.call_site = self.second_line if len(self.second_site) > 2 else None
        self.lines_text = (f"{_short(self.first_site)} ↔ {_short(self.second_site)}" if self.first_site
                           else _short(self.second_site))
        self.fix_ko, self.fix_en = _fix(self, token)
        self.ko, self.en = self._texts()

    @property
    def key(self):
        return (self.kind, self.space, self.array, self.first_site, self.second_site, self.first_what,
                self.second_what)

    def _where_ko(self):
        if self.blocks:
            return "서로 다른 두 블록 (블록 사이에는 배리어가 없음)"
        n = self.interval
        return f"배리어 구간 #{n + 1} (이 블록이 syncthreads 를 {n}번 지난 뒤)" if n else \
            "배리어 구간 #1 (이 블록의 첫 syncthreads 전)"

    def _texts(self):
        el = f"{self.array}{list(self.index)}"
        space_ko, space_en = ("전역 메모리", "global-memory") if self.space == "global" else ("공유 메모리",
                                                                                           "shared-memory")
        kt = f", {self.k_tile}" if self.k_tile else ""
        if self.kind == "UNINIT":
            ko = (f"초기화되지 않은 공유 메모리 읽기(uninitialised read): 원소 {josa(el, '은/는')} 이 블록에서 아직 아무 스레드도 "
                  f"쓰지 않았습니다 ({self._where_ko()}{kt})\n"
                  f"    읽음 / read  : {describe(self.second_thread)}\n"
                  f"                   {_line(self.second_site)}")
            en = (f"uninitialised shared-memory read of {el}: no thread of this block has written it yet "
                  f"(read at {_line(self.second_site, 'en')}); on the GPU it holds whatever an earlier block left.")
            return ko, en
        kind_ko = {"RAW": "쓰기 후 읽기", "WAR": "읽기 후 쓰기", "WAW": "쓰기 후 쓰기",
                   "IN_FLIGHT": "아직 도착하지 않은 cp.async 복사"}[self.kind]
        kind_en = {"RAW": "read after write", "WAR": "write after read", "WAW": "write after write",
                   "IN_FLIGHT": "access to a cp.async destination still in flight"}[self.kind]
        via1, via2 = _via_text(self.first_via), _via_text(self.second_via)
        same = self.first_thread is self.second_thread
        lab1, lab2, pad = _labels(BLOCKS if self.blocks else self.order)
        ko = (f"{space_ko} 경쟁(race) {self.kind} — {kind_ko}: 원소 {el}, {self._where_ko()}{kt}\n"
              f"    {lab1}: {describe(self.first_thread)} — {_WHAT_KO[self.first_what]}{via1}\n"
              f"    {pad}  {_line(self.first_site)}\n"
              f"    {lab2}: {'같은 스레드 / the same thread' if same else describe(self.second_thread)} — "
              f"{_WHAT_KO[self.second_what]}{via2}\n"
              f"    {pad}  {_line(self.second_site)}")
        if self.order in (PROGRAM, REVERSED) and not same and not self.blocks:
            ko += ("\n    시뮬레이터가 이번에 실행한 순서 / as the simulator ran them: "
                   + ("뒤 → 앞 (later first)" if self.order == REVERSED else "앞 → 뒤 (earlier first)"))
        l1, l2 = _short(self.first_site), _short(self.second_site)
        if self.kind == "IN_FLIGHT":
            en = (f"{space_en} {self.kind} hazard on {el}: the {self.second_what} at {l2} touches the destination of "
                  f"the cp.async issued at {l1}{' by the same thread' if same else ' by another thread'}, "
                  "which no wait has guaranteed yet.")
        elif same:
            en = (f"{space_en} {self.kind} hazard ({kind_en}) on {el}: two cp.async copies of the same thread "
                  f"({l1} and {l2}) are in flight to the same bytes at once; which lands last is undefined.")
        elif self.blocks:
            en = (f"{space_en} {self.kind} hazard ({kind_en}) on {el}: {self.first_what} at {l1} and "
                  f"{self.second_what} at {l2} by threads of two different blocks (blocks run in any order, "
                  "even at the same time, and no barrier orders them).")
        else:
            en = (f"{space_en} {self.kind} hazard ({kind_en}) on {el}: {self.first_what} at {l1} and "
                  f"{self.second_what} at {l2} by two threads with no barrier between them (the GPU may run them "
                  "in either order).")
        return ko, en

    def __str__(self):
        return f"{self.ko}\n  → 해결: {self.fix_ko}\n{self.en}\n  → Fix: {self.fix_en}"


def _width(text):
    """Columns text takes in a terminal or notebook (a Hangul syllable takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _labels(order):
    """The report's two labels for a pair in this order, padded to one width, and the blank of that width."""
    a, b = _ORDER_LABELS[order]
    w = max(_width(a), _width(b))
    return a + " " * (w - _width(a)), b + " " * (w - _width(b)), " " * w


def _fix(h, token):
    """The likely fix, one sentence each in Korean and English (lines: the kernel's own lines, in program order)."""
    if h.kind == "UNINIT":
        l2 = h.second_line[1]
        return (f"{l2}행이 읽는 원소를 이 블록의 어떤 스레드도 먼저 쓰지 않았습니다: 읽기 전에 타일의 모든 원소를 채우고"
                "(행렬 밖 원소는 0 으로) 배리어를 지나세요. 인덱스가 채운 범위를 벗어나지 않는지도 보세요.",
                f"nothing in this block wrote the element line {l2} reads: fill every element of the tile first "
                "(0 outside the matrix), pass a barrier, and check that the index stays inside what was filled.")
    l1, l2 = h.first_line[1], h.second_line[1]
    same = h.first_thread is h.second_thread
    if "atomic" in (h.first_what, h.second_what) and h.first_what != h.second_what:
        if h.blocks:
            return (f"{l1}행과 {l2}행이 같은 원소에 원자 연산과 일반 접근을 섞습니다 (서로 다른 블록): 이 원소의 모든 "
                    "접근을 cuda.atomic 으로 하거나, 일반 접근은 커널이 끝난 뒤(다음 실행)에 하세요.",
                    f"lines {l1} and {l2} mix an atomic and a plain access to one element from two blocks: make every "
                    "access to it atomic, or do the plain one after the launch.")
        return (f"{l1}행과 {l2}행이 같은 원소에 원자 연산과 일반 접근을 섞습니다: 모두 cuda.atomic 으로 하거나, 두 "
                "접근 사이에 cuda.syncthreads() 를 두세요.",
                f"lines {l1} and {l2} mix an atomic and a plain access to one element: make both atomic, or put "
                "cuda.syncthreads() between them.")
    if h.first_line == h.second_line and h.kind in ("RAW", "WAR") and not h.blocks:
        return (f"{l1}행에서 스레드들이 같은 원소를 읽고 씁니다: 여러 스레드가 한 원소에 더하는 것(+=)이라면 "
                "cuda.atomic.add 를 쓰고, 한 스레드가 쓴 값을 다른 스레드가 읽는 단계라면 읽기와 쓰기를 두 줄로 나눠 그 "
                "사이에 cuda.syncthreads() (한 워프 안이면 cuda.syncwarp()) 를 두세요.",
                f"threads read and write the same element at line {l1}: if several threads add into one element (+=), "
                "use cuda.atomic.add; if one thread reads what another writes, split the read and the write and put "
                "cuda.syncthreads() (cuda.syncwarp() within one warp) between them.")
    if h.space == "global" and h.blocks:
        return ("서로 다른 블록이 원자 연산 없이 같은 전역 메모리 원소를 읽고 씁니다 (C += 부분합 처럼): "
                "cuda.atomic.add 를 쓰거나, 블록마다 자기 조각(slice)에 쓰고 실행이 끝난 뒤에 합치세요.",
                "two blocks read and write one global element without atomics (such as C += partial): use "
                "`cuda.atomic.add`, or give each block its own slice and reduce after the launch.")
    if h.kind == "IN_FLIGHT":
        waits = _waits_needed(h.first_thread, token)
        if same and waits == "uncommitted":
            return (f"{l1}행의 cp.async 뒤에 cp_async_commit_group() 이 없어 어떤 wait_group 도 이 복사를 기다리지 "
                    f"않습니다: {l2}행 전에 commit 하고 wait 하세요.",
                    f"the cp.async at line {l1} was never committed, so no wait_group covers it: commit it and wait "
                    f"before line {l2}.")
        if same:
            need = need_en = ""
            if isinstance(waits, tuple):
                k, at_wait = waits
                if at_wait:        # the thread did wait after this copy's commit: that wait's N was too large
                    need = (f" (이 스레드가 마지막으로 지난 wait 에서는 이 복사의 그룹보다 나중에 commit 한 그룹이 "
                            f"{k}개였으므로, 그 wait 는 wait_group({k}) 이하여야 합니다)")
                    need_en = (f" (at this thread's last wait, {k} group{'' if k == 1 else 's'} committed after this "
                               f"copy's {'was' if k == 1 else 'were'} pending: that wait needs wait_group({k}) or less)")
                else:              # no wait since the commit: one right before the read
                    need = (f" (읽기 바로 앞에 wait 를 둔다면, 이 복사의 그룹보다 나중 그룹이 {k}개이므로 "
                            f"wait_group({k}) 이하)")
                    need_en = (f" (a wait right before the read: {k} newer group{'' if k == 1 else 's'}, so "
                               f"wait_group({k}) or less)")
            return (f"{l1}행에서 시작한 복사가 {l2}행에서 쓰일 때 아직 보장되지 않았습니다: 그 전에 이 복사를 덮는 "
                    f"wait_group 이 필요합니다{need}.",
                    f"the copy issued at line {l1} is not guaranteed when line {l2} uses it: wait for it first"
                    f"{need_en}.")
        return (f"다른 스레드가 {l1}행에서 시작한 복사가 아직 날아가는 중입니다: 복사한 스레드가 wait_group 으로 기다린 "
                f"뒤 블록 전체가 cuda.syncthreads() 를 지나야 {l2}행에서 접근할 수 있습니다.",
                f"another thread's copy from line {l1} is still in flight: the issuing thread must wait (wait_group) "
                f"and the block must pass cuda.syncthreads() before line {l2} touches it.")
    if same and h.first_what == "cp.async" and h.second_what == "cp.async":
        return (f"같은 스레드가 {l1}행과 {l2}행에서 낸 두 cp.async 가 같은 공유 메모리에 동시에 날아가는 중이라 어느 "
                f"것이 나중에 도착할지 정해져 있지 않습니다: {l2}행의 복사 전에 wait_group 으로 앞 복사를 기다리거나, "
                "두 복사가 서로 다른 단(stage) 버퍼로 가게 하세요.",
                f"two cp.async copies of the same thread (lines {l1} and {l2}) are in flight to the same shared memory, "
                f"and which lands last is undefined: wait for the first (wait_group) before line {l2}, or send them "
                "to different stage buffers.")
    if h.first_via:
        w = kernel_line(h.first_via)[1]          # the kernel's line, also when the wait sits in a helper it calls
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
    """(n, at_wait) for copy `token`: at_wait when the owner waited after the copy's group was committed, n then being
    the groups committed after that group by the owner's last wait (the largest N that wait could have had); else
    the groups committed after it so far (for a wait right before the access). 'uncommitted' if no group holds it."""
    unit = getattr(owner, "async_unit", None)
    if unit is None:
        return None
    if any(p is token for p in unit.uncommitted):
        return "uncommitted"
    for g, payloads in unit.groups:
        if any(p is token for p in payloads):
            at = unit.committed_at_wait
            if at is not None and at > g:
                return at - 1 - g, True
            return unit.committed - 1 - g, False
    return None


def _first_in_program(x, y):
    """True when access x (recorded earlier in the schedule, thread A) comes before access y (now, thread B) in program
    order. Decided by the execution: B passed x's line earlier in this interval (x first); A passed y's line before x
    (y first); A went on to y's line after x (x first). Otherwise the kernel's own line order; None when even that
    does not decide (one line, or lines in two files): then the report keeps the order the scheduler ran them in."""
    A, B = x[0], y[0]
    if A is B:
        return True
    sx, sy = _order_site(x), _order_site(y)
    if sx in B.trace[:y[2] - 1]:
        return True
    if sy in A.trace[:x[2] - 1]:
        return False
    if sy in A.trace[x[2]:]:
        return True
    kx, ky = kernel_line(sx), kernel_line(sy)
    if kx[0] == ky[0] and kx[1] != ky[1]:
        return kx[1] < ky[1]
    return None


_FLIP = {"RAW": "WAR", "WAR": "RAW", "WAW": "WAW", "IN_FLIGHT": "WAR"}


def _program_order(kind, first, second, issue_epoch=None):
    """(kind, first, second, order) in program order rather than the order the scheduler ran them in; order says what
    the report's pair is: PROGRAM (program order, the scheduler ran them in it too), REVERSED (program order, the
    scheduler ran `second` first), RUN (the order the scheduler ran them in: program order does not decide)."""
    fa, sa = first[0], second[0]
    if fa[0] is sa[0]:
        return kind, first, second, PROGRAM              # one thread runs its own program in order
    if fa[0].block is not sa[0].block:
        return kind, first, second, BLOCKS
    if kind == "IN_FLIGHT":
        if second[1] != "read" or (issue_epoch is not None and issue_epoch != _epoch[0]):
            return kind, first, second, RUN
    before = _first_in_program(fa, sa)
    if before is None:
        return kind, first, second, RUN
    if before:
        return kind, first, second, PROGRAM
    if second[1] == "cp.async" and sa[3] == "cp.async":   # the copy was issued first (program order)
        wait = _wait_before(fa, _order_site(sa))
        if wait is not None:                              # ... and its wait came before the access: landed, but
            return "RAW", ((sa[0], sa[1], sa[2], wait), "cp.async"), first, REVERSED   # not visible w/o a barrier
        return "IN_FLIGHT", second, first, REVERSED       # ... the access touched it while still in flight
    return _FLIP[kind], second, first, REVERSED


WAIT_SITES = set()             # the sites of cp.async waits seen (program order of a copy and another's access)


def _wait_before(x, issue_site):
    """The site of a cp.async wait that thread x[0] passed before its access x in this interval (after the issue's
    line, where it passed that too), or None: then the copy issued at issue_site has landed by x in program order."""
    trace = x[0].trace[:x[2] - 1]
    start = trace.index(issue_site) + 1 if issue_site in trace else 0
    for site in trace[start:]:
        if site in WAIT_SITES:
            return site
    return None


def _record(h):
    if MODE == "collect":
        old = _seen.get(h.key)
        if old is not None:
            old.count += 1
            return
        _seen[h.key] = h
        _found.append(h)
        return
    _last[0] = Report([h])
    if h.kind == "UNINIT":
        raise UninitializedReadError(h)
    raise (GlobalMemoryRaceError if h.space == "global" else SharedMemoryRaceError)(h)


def _hazard(kind, d, i, first, second, token=None, issue_epoch=None):
    order = PROGRAM
    if first is not None:
        kind, first, second, order = _program_order(kind, first, second, issue_epoch)
    if MODE == "collect":                          # a repeat only counts: no report text to build
        key = (kind, "shared", d.name, first[0][1] if first else None, second[0][1],
               first[1] if first else None, second[1])
        old = _seen.get(key)
        if old is not None:
            old.count += 1
            return
    _record(Hazard(kind, "shared", d.name, d.index_of(i), first, second, token, interval(), order))


def _ghazard(kind, g, index, first, second):
    index = tuple(int(k) for k in index) if type(index) is tuple else (int(index),)
    kind, first, second, order = _program_order(kind, first, second)
    if MODE == "collect":
        key = (kind, "global", g, first[0][1], second[0][1], first[1], second[1])
        old = _seen.get(key)
        if old is not None:
            old.count += 1
            return
    _record(Hazard(kind, "global", g, index, first, second, None, interval(), order))


# ------------------------------------------------------------- the Hopper detectors (issue 31)
# simulator/async_proxy.py, warpgroup.py and tma.py build their own hazards (wgmma, TMA, proxy fences: AsyncHazard,
# with the fields of Hazard that Report, the messages and subsim read) and hand them here, so that they are raised or
# collected exactly like the hazards above.
def report(h):
    """Raise h's error (SharedMemoryRaceError), or record h in collect mode (counting repeats of the same key)."""
    _record(h)
