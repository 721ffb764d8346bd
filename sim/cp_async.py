"""cp.async group semantics as a pure model: one thread's pending copies, and the multistage pipeline built on them.

PTX rules modelled (PTX ISA, "cp.async", "cp.async.commit_group", "cp.async.wait_group"):
* a cp.async is *pending* from issue; PTX guarantees nothing about when it lands before a wait covers it, so
  this model lands it as late as allowed: at the wait_group that guarantees it, never earlier;
* commit_group turns every copy issued since the last commit into one group (no copy: an empty group);
* wait_group N completes the oldest groups until at most N groups of *this thread* are pending;
  copies never committed belong to no group and wait_group does not complete them;
* wait_all = commit_group + wait_group 0.

``AsyncCopyUnit`` holds one thread's copies as opaque payloads (the simulator's stand-ins put a "write these
bytes there" action in them). ``pipeline_trace`` runs the multistage loop of notebook 09 on it, tile by tile,
and says at every step what each shared-memory buffer holds and whether the compute step reads a buffer
whose copy is not guaranteed complete.

The loop sandbox (``LoopSpec``, ``run_loop``, ``PRESETS``) runs any composition of one K-loop iteration (the order
of wait / barrier / prefetch / commit / compute, wait_group N, stages, prefetch distance, tail rule) through the
same group rules and the race detector's rules (kernels_numba/infra/simulator/racecheck.py), and names every hazard.
"""
from collections import deque
from dataclasses import dataclass, field

from .errors import CourseInputError


class AsyncCopyUnit:
    """One thread's cp.async state: uncommitted copies and the queue of committed, pending groups."""

    def __init__(self):
        self.uncommitted = []          # issued, not yet committed: no wait_group ever covers them
        self.groups = deque()          # committed groups, oldest first: (group number, [payloads])
        self.committed = 0             # groups committed so far (the next group's number)
        self.committed_at_wait = None  # groups committed when this thread last waited (None: it never waited)

    def issue(self, payload):
        self.uncommitted.append(payload)

    def commit(self):
        """cp.async.commit_group: returns the new group's number."""
        self.groups.append((self.committed, self.uncommitted))
        self.uncommitted = []
        self.committed += 1
        return self.committed - 1

    def wait_group(self, n):
        """cp.async.wait_group n: the payloads that must have landed now, oldest first (they land here)."""
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"wait_group N takes a non-negative immediate, not {n!r}")
        self.committed_at_wait = self.committed
        landed = []
        while len(self.groups) > n:
            landed.extend(self.groups.popleft()[1])
        return landed

    def wait_all(self):
        """cp.async.wait_all = commit_group; wait_group 0."""
        self.commit()
        return self.wait_group(0)

    @property
    def pending_groups(self):
        """Numbers of the committed groups still pending, oldest first."""
        return [g for g, _ in self.groups]


IDLE, LOADING, READY, COMPUTING = "Idle", "Loading", "Ready", "Computing"
TAILS = ("common", "empty_commit", "wait_all_tail")
# names of the common loop before it was renamed (a notebook or progress file saved earlier may still pass them)
OLD_NAMES = {"seed": "common"}


@dataclass
class Step:
    """One event of the pipeline: what happened, the buffers' states after it, the pending groups."""
    phase: str                 # 'prologue', 'main', 'tail'
    kt: int                    # main-loop iteration (-1 in the prologue)
    action: str                # human-readable event, e.g. 'load tile 2 -> buf 2, commit G2'
    buffers: list              # per buffer: (state, tile or None)
    pending: list              # pending group numbers, oldest first
    error: str = None          # set when compute reads a buffer whose copy is not guaranteed


@dataclass
class Trace:
    num_stages: int
    num_tiles: int
    tail: str
    steps: list = field(default_factory=list)

    @property
    def errors(self):
        return [s for s in self.steps if s.error]

    @property
    def ok(self):
        return not self.errors


def wait_for(num_stages):
    """The N of the main loop's wait_group: NUM_STAGES - 1 groups may stay in flight."""
    return num_stages - 1


def pipeline_trace(num_stages, num_tiles, tail="empty_commit"):
    """Run the multistage cp.async loop for one thread and record every step.

    tail='common': commit only when a tile was loaded (prologue `s < num_tiles`, main loop `if prefetch < num_tiles`),
    the loop as often taught (notebook 09's "흔한 루프"); in the last iterations no group is committed, so wait_group(NUM_STAGES-1) no
    longer covers the tile about to be computed.
    tail='empty_commit': commit a group every time, empty when there is no tile left (what CUTLASS's multistage
    mainloop does), so the count of groups per iteration never changes and wait_group(NUM_STAGES-1) always
    covers the current tile. tail='wait_all_tail': the common loop's loads, but wait_group 0 once no tile is left to load.
    """
    tail = OLD_NAMES.get(tail, tail)
    if tail not in TAILS:
        raise ValueError(f"tail must be one of {TAILS}, not {tail!r}")
    if not (isinstance(num_stages, int) and num_stages >= 2):
        raise ValueError(f"num_stages must be an int >= 2, not {num_stages!r}")
    if not (isinstance(num_tiles, int) and num_tiles >= 1):
        raise ValueError(f"num_tiles must be an int >= 1, not {num_tiles!r}")
    unit = AsyncCopyUnit()
    bufs = [[IDLE, None] for _ in range(num_stages)]
    landed_tiles = set()
    tr = Trace(num_stages, num_tiles, tail)

    def snap(phase, kt, action, error=None):
        tr.steps.append(Step(phase, kt, action, [tuple(b) for b in bufs], unit.pending_groups, error))

    def load(tile, phase, kt):
        buf = tile % num_stages
        bufs[buf] = [LOADING, tile]
        unit.issue((buf, tile))
        g = unit.commit()
        snap(phase, kt, f"타일 {tile} -> 버퍼 {buf} 복사 발행, commit -> G{g}")

    def empty_commit(phase, kt):
        g = unit.commit()
        snap(phase, kt, f"복사 없음, 빈 그룹 commit -> G{g}")

    def wait(n, phase, kt):
        for buf, tile in unit.wait_group(n):
            landed_tiles.add(tile)
            if bufs[buf][1] == tile:
                bufs[buf][0] = READY
        snap(phase, kt, f"wait_group({n}) -> 대기 중 그룹 {unit.pending_groups}")

    for s in range(num_stages - 1):
        if s < num_tiles:
            load(s, "prologue", -1)
        elif tail == "empty_commit":
            empty_commit("prologue", -1)
    n = wait_for(num_stages)
    for kt in range(num_tiles):
        nxt = kt + num_stages - 1
        phase = "main" if nxt < num_tiles else "tail"
        if nxt < num_tiles:
            load(nxt, phase, kt)
        elif tail == "empty_commit":
            empty_commit(phase, kt)
        wait(0 if (tail == "wait_all_tail" and nxt >= num_tiles) else n, phase, kt)
        cur = kt % num_stages
        err = None
        if kt not in landed_tiles:
            err = (f"kt={kt}: 버퍼 {cur} 의 타일 {kt} 는 아직 완료가 보장되지 않았는데 계산이 읽습니다 "
                   f"(대기 중 그룹 {unit.pending_groups}) / tile {kt} is read before any wait guarantees it")
        bufs[cur] = [COMPUTING, kt]
        snap(phase, kt, f"__syncthreads; 버퍼 {cur} (타일 {kt}) 로 계산", err)
        bufs[cur] = [IDLE, None]
        snap(phase, kt, f"__syncthreads; 버퍼 {cur} 비움")
    return tr


def first_unsafe_tile(num_stages, num_tiles, tail="common"):
    """The first tile computed before a wait guarantees it, or None if every read is covered."""
    errs = pipeline_trace(num_stages, num_tiles, tail).errors
    return errs[0].kt if errs else None


# ------------------------------------------------------------------------------------------------ loop sandbox
#
# Race rules, those of the simulator's detector (racecheck.py), for a block whose threads all run the same loop:
# every thread copies its own part of a tile into a stage and reads all of it (elements other threads copied).
# * a copy is in flight from its issue until the wait_group of the issuing thread that covers it: computing on
#   its stage then is IN_FLIGHT (racecheck: IN_FLIGHT, or RAW where the other thread already waited);
# * at that wait it becomes the issuing thread's write in the wait's barrier interval: computing on it in the
#   same interval reads other threads' copies with no barrier between (RAW);
# * issuing a copy into a stage that was read in the same interval overwrites what other warps may still read (WAR);
# * issuing into a stage whose previous copy is still in flight leaves the two landing in either order (WAW);
# * computing on a stage that holds another tile than kt (or nothing) reads the wrong data (STALE).
# The edge elements async_copy stores as plain zeros (not cp.async) add no hazard: a plain store is visible from
# the next barrier on, a copy issued at the same step only later, so every hazard of the store is one of the copy.

STEP_NAMES = ("wait", "barrier", "prefetch", "commit", "compute")
STEP_KO = {"wait": "wait_group", "barrier": "배리어", "prefetch": "미리 읽기", "commit": "commit",
           "compute": "계산", "prologue": "프롤로그 복사"}
TAIL_RULES = ("load_only", "always", "wait0_tail")
TAIL_KO = {"load_only": "로드할 때만 commit", "always": "매 반복 commit (타일이 없으면 빈 그룹)",
           "wait0_tail": "로드할 때만 commit, 꼬리에서 wait_group 0"}
MAX_WAIT_N = 3                 # kernels_numba/infra/ptx has cp_async_wait_group_0 .. _3 (N is an immediate)
MAX_STAGES = 4


def _error(ko, en, fix_ko, fix_en):
    return CourseInputError(ko, en, fix_ko, fix_en)


def _small_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _error(f"{name} 는 {lo} 이상 {hi} 이하의 정수여야 합니다 (받은 값: {value!r}).",
                     f"{name} must be an int in {lo}..{hi}, not {value!r}.",
                     f"{name} 를 {lo}…{hi} 중 하나로 고르세요.", f"pick {name} in {lo}..{hi}.")
    return value


@dataclass(frozen=True)
class LoopSpec:
    """One iteration of the K loop: step order, wait_group N, stages S, prefetch distance (default S-1), tail rule."""
    order: tuple
    wait_n: int
    stages: int
    tail: str = "always"
    ahead: int = None          # tiles prefetched ahead: iteration kt issues tile kt + ahead into stage (kt+ahead) % S

    def __post_init__(self):
        order = tuple(self.order)
        object.__setattr__(self, "order", order)
        bad = [s for s in order if s not in STEP_NAMES]
        if bad:
            raise _error(f"알 수 없는 단계 {bad}: 단계는 {list(STEP_NAMES)} 중에서 고릅니다.",
                         f"unknown step(s) {bad}: steps are {list(STEP_NAMES)}.",
                         "순서를 이 다섯 이름으로만 쓰세요.", "write the order with these five names only.")
        for step, most in (("compute", 1), ("prefetch", 1), ("wait", 1), ("commit", 1)):
            if order.count(step) > most:
                raise _error(f"'{step}' 는 한 반복에 한 번까지만 넣을 수 있습니다 ({order.count(step)}번).",
                             f"'{step}' may appear at most once per iteration ({order.count(step)} times).",
                             "중복된 단계를 지우세요 (배리어만 여러 번 둘 수 있습니다).",
                             "remove the duplicate (only barrier may repeat).")
        if "compute" not in order:
            raise _error("반복에 계산(compute) 단계가 없습니다.", "the iteration has no compute step.",
                         "'compute' 를 넣으세요.", "add 'compute'.")
        _small_int("wait_n", self.wait_n, 0, MAX_WAIT_N)
        _small_int("stages", self.stages, 1, MAX_STAGES)
        if self.tail not in TAIL_RULES:
            raise _error(f"꼬리 규칙은 {TAIL_RULES} 중 하나입니다 (받은 값: {self.tail!r}).",
                         f"tail must be one of {TAIL_RULES}, not {self.tail!r}.",
                         "'always' (매 반복 commit) 처럼 고르세요.", "pick e.g. 'always'.")
        if self.ahead is None:
            object.__setattr__(self, "ahead", self.stages - 1)
        _small_int("ahead", self.ahead, 0, MAX_STAGES)


@dataclass(frozen=True)
class Preset:
    """A composition taken from a real kernel of the course: its file, a Korean label, the spec."""
    key: str
    label: str
    kernel: str
    spec: LoopSpec
    note: str = ""


PRESETS = {p.key: p for p in (
    Preset("common", "흔히 가르치는 루프 — 데모 async_common_tail (로드할 때만 commit)",
           "kernels_numba/demos/async_common_tail.py",
           LoopSpec(("prefetch", "commit", "wait", "barrier", "compute", "barrier"), 2, 3, "load_only"),
           "미리 읽기+commit, wait_group(S-1), 배리어, 계산, 배리어. commit 이 로드 조건 안에 있습니다."),
    Preset("async_copy", "async_copy (4바이트 cp.async, 배리어 2번)", "kernels_numba/async_copy.py",
           LoopSpec(("prefetch", "commit", "wait", "barrier", "compute", "barrier"), 2, 3, "always"),
           "흔한 루프와 같은 순서에 매 반복 commit (꼬리에서는 빈 그룹). 경계 밖 원소는 0 을 직접 저장합니다."),
    Preset("async_vec", "async_vec (16바이트 cp.async, 배리어 1번)", "kernels_numba/async_vec.py",
           LoopSpec(("wait", "barrier", "prefetch", "commit", "compute"), 1, 3, "always"),
           "wait_group(S-2), 배리어, 미리 읽기, commit, 계산. async_vec_s2/_s4, async_bk16, async_wide 도 같은 순서입니다."),
)}


@dataclass
class Copy:
    """The copies of one tile issued by every thread at one step (they share stage, group and landing)."""
    tile: int
    stage: int
    kt: int                    # iteration that issued it (-1: prologue)
    step: str                  # 'prologue' or 'prefetch'
    epoch: int
    group: int = None          # commit group number, None while uncommitted
    landed: tuple = None       # (kt, epoch) of the wait that covered it


@dataclass
class Hazard:
    """One hazard: racecheck kind, cause, iteration kt, stage, the two steps (kt, step) and a one-sentence fix."""
    kind: str                  # 'IN_FLIGHT', 'RAW', 'WAR', 'WAW' (as racecheck names them) or 'STALE'
    cause: str
    kt: int
    stage: int
    tile: int
    steps: tuple               # ((kt, step), (kt, step)): first and second access in program order
    title: str
    fix: str
    issued: tuple = None       # (kt, step) that issued the copy involved ('prologue' or 'prefetch')

    def __str__(self):
        (k1, s1), (k2, s2) = self.steps
        w1, w2, at = (("프롤로그" if k < 0 else f"kt={k}") for k in (k1, k2, self.kt))
        return (f"{at} 버퍼 {self.stage}: {self.title} [{self.kind}] — {STEP_KO[s1]}({w1}) ↔ "
                f"{STEP_KO[s2]}({w2}). 해결: {self.fix}")


@dataclass
class Event:
    """One executed step: the pending groups (number, tiles; [] = empty group) and uncommitted tiles after it, the
    groups that landed at it (a wait), and every stage's (state, tile) after it (STAGE_STATES)."""
    kt: int
    step: str
    text: str
    pending: list
    uncommitted: list
    epoch: int
    landed: list = field(default_factory=list)      # [(group, [tiles])] completed by this step (only a wait)
    stages: tuple = ()                               # per stage: (state, tile or None)


@dataclass
class LoopRun:
    spec: LoopSpec
    num_tiles: int
    events: list = field(default_factory=list)
    hazards: list = field(default_factory=list)
    in_flight: dict = field(default_factory=dict)    # kt -> tiles still in flight while tile kt is computed

    @property
    def ok(self):
        return not self.hazards

    def of(self, kt):
        return [e for e in self.events if e.kt == kt]

    def causes(self):
        """{cause: sorted kts} over all hazards."""
        out = {}
        for h in self.hazards:
            out.setdefault(h.cause, set()).add(h.kt)
        return {c: sorted(k) for c, k in out.items()}


# what a stage holds after a step, for the issuing thread and the block (the stepper's colours)
EMPTY, ISSUED, IN_FLIGHT, LANDED, VISIBLE, COMPUTING = "empty", "issued", "in_flight", "landed", "visible", "computing"
STAGE_STATES = (EMPTY, ISSUED, IN_FLIGHT, LANDED, VISIBLE, COMPUTING)
STATE_KO = {EMPTY: "비어 있음", ISSUED: "발행됨, commit 전 (어떤 wait 도 기다리지 않음)",
            IN_FLIGHT: "날아가는 중 (그룹 대기)", LANDED: "도착 (이 스레드 몫만 보장, 배리어 전)",
            VISIBLE: "도착, 배리어 뒤라 블록 전체에 보임", COMPUTING: "계산이 읽는 중"}


TITLES = {
    "no_wait": "wait_group 없음: 도착 전에 계산",
    "no_commit": "commit 없음: 어떤 wait 도 복사를 기다리지 않음",
    "uncommitted": "commit 전의 복사를 계산",
    "wait_after_compute": "wait 가 계산 뒤: 도착 전에 계산",
    "issued_after_wait": "wait 뒤에 발행한 복사를 계산",
    "wait_too_large": "wait_group N 이 너무 큼: 도착 전에 계산",
    "tail": "꼬리에서 그룹이 모자람: 도착 전에 계산",
    "overwritten": "계산 전에 같은 버퍼를 다음 타일로 덮음",
    "compute_before_copy": "타일을 발행하기 전에 계산",
    "no_barrier_after_wait": "wait 뒤 배리어 없음: 다른 스레드의 복사가 안 보임",
    "war": "배리어 없이 읽는 중인 버퍼를 덮어씀",
    "overwrite_pending": "날아가는 중인 버퍼에 또 복사",
    "not_copied": "타일을 복사한 적이 없음",
    "wrong_tile": "버퍼에 다른 타일이 들어 있음",
}


def run_loop(spec, num_tiles=6, _diagnose=True):
    """Run prologue + num_tiles iterations of the composed loop for the block and return events and hazards."""
    _small_int("num_tiles", num_tiles, 1, 64)
    S, D, N, order, nk = spec.stages, spec.ahead, spec.wait_n, spec.order, num_tiles
    run = LoopRun(spec, nk)
    groups = deque()               # committed, pending: (number, [Copy])
    uncommitted = []
    ngroups = [0]
    last = [None] * S              # the latest copy issued into each stage
    reads = [[] for _ in range(S)]  # (kt, epoch) of every compute on the stage
    epoch = [0]
    has_commit = "commit" in order
    i_of = {s: order.index(s) for s in STEP_NAMES if s in order}
    wait_seen = {}                 # kt -> pending groups (number, [Copy]) just before that iteration's wait
    landing = []                   # groups the current step completed (a wait), for its event

    def hazard(kind, cause, kt, stage, tile, steps, fix, copy=None):
        issued = (copy.kt, copy.step) if copy is not None else None
        run.hazards.append(Hazard(kind, cause, kt, stage, tile, steps, TITLES[cause], fix, issued))

    def stage_state(stage, reading):
        c = last[stage]
        if reading:
            return COMPUTING, kt_now[0]
        if c is None:
            return EMPTY, None
        if c.group is None:
            return ISSUED, c.tile
        if c.landed is None:
            return IN_FLIGHT, c.tile
        return (LANDED if c.landed[1] == epoch[0] else VISIBLE), c.tile

    def snap(kt, step, text):
        reading = kt % S if step == "compute" else None
        run.events.append(Event(kt, step, text, [(g, [c.tile for c in cs]) for g, cs in groups],
                                [c.tile for c in uncommitted], epoch[0], list(landing),
                                tuple(stage_state(i, i == reading) for i in range(S))))
        landing.clear()

    def issue(tile, kt, step):
        stage = tile % S
        prev = last[stage]
        if prev is not None and prev.landed is None:
            fix = (f"미리 읽기의 거리(지금 {D})를 S-1 = {S - 1} 이하로 줄이세요." if D >= S else
                   "다시 복사하기 전에 wait_group 으로 이전 복사를 끝내세요 (이전 타일을 계산하기 전에 기다리면 됩니다).")
            hazard("WAW", "overwrite_pending", kt, stage, tile, ((prev.kt, prev.step), (kt, step)),
                   f"버퍼 {stage} 의 이전 복사(타일 {prev.tile})가 아직 도착하지 않았는데 같은 버퍼에 타일 {tile} "
                   f"복사를 또 발행해 두 복사의 도착 순서가 정해지지 않습니다: {fix}", Copy(tile, stage, kt, step, epoch[0]))
        same = [r for r in reads[stage] if r[1] == epoch[0]]
        if same:
            rk = same[-1][0]
            hazard("WAR", "war", kt, stage, tile, ((rk, "compute"), (kt, step)),
                   f"kt={rk} 의 계산이 읽는 버퍼 {stage} 의 데이터를 같은 배리어 구간의 타일 {tile} 복사가 덮어씁니다: "
                   "계산과 이 미리 읽기 사이에 __syncthreads() 를 두세요 (계산 뒤, 또는 다음 반복의 미리 읽기 앞).",
                   Copy(tile, stage, kt, step, epoch[0]))
        c = Copy(tile, stage, kt, step, epoch[0])
        last[stage] = c
        uncommitted.append(c)

    def commit():
        for c in uncommitted:
            c.group = ngroups[0]
        groups.append((ngroups[0], list(uncommitted)))
        uncommitted.clear()
        ngroups[0] += 1

    def wait(n, kt):
        wait_seen[kt] = (n, [(g, list(cs)) for g, cs in groups])
        while len(groups) > n:
            g, cs = groups.popleft()
            landing.append((g, [c.tile for c in cs]))
            for c in cs:
                c.landed = (kt, epoch[0])

    def in_flight_cause(c, kt):
        """Why the copy of tile kt is still in flight when kt is computed: (cause, fix)."""
        if c.tile < kt:
            return "compute_before_copy", (f"계산 때 버퍼 {c.stage} 에는 이전 타일 {c.tile} 의 복사가 아직 날아가는 중이고 "
                                           f"타일 {kt} 는 발행되지도 않았습니다: 미리 읽기, commit, wait 를 계산 앞에 두세요.")
        if c.tile > kt:
            return "overwritten", (f"미리 읽기가 계산보다 먼저 버퍼 {c.stage} 에 타일 {c.tile} 복사를 발행해 타일 {kt} 의 데이터를 덮었습니다: "
                                   f"미리 읽기의 거리를 S-1 = {S - 1} 이하로 하세요.")
        if "wait" not in order:
            return "no_wait", ("반복에 wait_group 이 없습니다: 계산 앞에 cp_async_wait_group(N) 을 두세요 "
                               "(배리어는 스레드를 맞출 뿐 복사를 기다리지 않습니다).")
        if not has_commit:
            return "no_commit", ("commit 하지 않은 복사는 어떤 wait_group 도 기다리지 않습니다: "
                                 "미리 읽기 바로 뒤에 cp_async_commit_group() 을 두세요.")
        if c.group is None:
            return "uncommitted", (f"타일 {kt} 의 복사가 계산 때까지 commit 되지 않아 wait 가 기다리지 않습니다: "
                                   "commit 을 미리 읽기 바로 뒤, wait 앞으로 옮기세요.")
        if i_of["wait"] > i_of["compute"]:
            return "wait_after_compute", ("wait_group 이 계산 뒤에 있어 이번 타일을 지켜 주지 못합니다: "
                                          "wait 를 계산 앞으로 옮기세요.")
        n, before = wait_seen.get(kt, (N, []))
        if not any(c in cs for _, cs in before):
            return "issued_after_wait", (f"타일 {kt} 의 복사가 이번 wait 뒤에 발행·commit 되어 wait 가 기다리지 "
                                         "않았습니다: 미리 읽기와 commit 을 wait 앞으로 옮기세요.")
        newer = len(before) - 1 - next(k for k, (_, cs) in enumerate(before) if c in cs)
        if _diagnose and spec.tail != "always":
            fixed = run_loop(LoopSpec(order, N, S, "always", D), nk, _diagnose=False)
            if not any(h.kt == kt and h.kind == "IN_FLIGHT" for h in fixed.hazards):
                return "tail", (f"꼬리에서는 로드가 없어 commit 도 없으니, wait_group {n} 뒤에도 타일 {kt} 의 그룹이 "
                                "남습니다: 타일이 없어도 매 반복 (빈 그룹을) commit 하세요.")
        return "wait_too_large", (f"wait_group {n} 에서는 그룹이 {n}개까지 남는데 타일 {kt} 의 그룹 뒤에 commit 된 "
                                  f"그룹은 {newer}개뿐입니다: 이 순서에서 맞는 값은 wait_group {newer} 입니다.")

    def compute(kt):
        stage = kt % S
        c = last[stage]
        run.in_flight[kt] = sorted(x.tile for _, cs in groups for x in cs) + sorted(x.tile for x in uncommitted)
        if c is None:
            hazard("STALE", "not_copied", kt, stage, kt, ((kt, "prefetch"), (kt, "compute")),
                   f"타일 {kt} 의 복사가 계산 전에 없습니다: 미리 읽기를 넣고 계산보다 앞에 두세요.")
        elif c.landed is None:
            cause, fix = in_flight_cause(c, kt)
            hazard("IN_FLIGHT", cause, kt, stage, c.tile, ((c.kt, c.step), (kt, "compute")), fix, c)
        elif c.landed[1] == epoch[0]:
            hazard("RAW", "no_barrier_after_wait", kt, stage, c.tile, ((c.landed[0], "wait"), (kt, "compute")),
                   "wait_group 은 이 스레드의 복사만 보장합니다: wait 와 계산 사이에 __syncthreads() 를 두어 "
                   "다른 스레드(워프)의 복사도 보이게 하세요.", c)
        elif c.tile != kt:
            hazard("STALE", "wrong_tile", kt, stage, c.tile, ((c.kt, c.step), (kt, "compute")),
                   f"계산할 때 버퍼 {stage} 에 들어 있는 것은 타일 {c.tile} 의 데이터입니다 (필요한 것은 타일 {kt}): "
                   + (f"미리 읽기의 거리(지금 {D})를 S-1 = {S - 1} 이하로 줄이세요." if c.tile > kt else
                      "미리 읽기를 계산 앞에 두세요."), c)
        reads[stage].append((kt, epoch[0]))

    for p in range(D):
        if p < nk:
            issue(p, -1, "prologue")
        if has_commit and (p < nk or spec.tail == "always"):
            commit()
        snap(-1, "prologue", f"타일 {p} 복사 발행 (버퍼 {p % S})" if p < nk else "복사 없음")
    kt_now = [None]
    for kt in range(nk):
        kt_now[0] = kt
        nxt = kt + D
        loading = nxt < nk
        for step in order:
            if step == "prefetch":
                if loading:
                    issue(nxt, kt, "prefetch")
                text = f"타일 {nxt} 복사 발행 (버퍼 {nxt % S})" if loading else "복사할 타일 없음"
            elif step == "commit":
                if loading or spec.tail == "always":
                    commit()
                    text = f"commit: G{ngroups[0] - 1}" + ("" if groups[-1][1] else " (빈 그룹)")
                else:
                    text = "commit 안 함 (로드 없음)"
            elif step == "wait":
                n = 0 if spec.tail == "wait0_tail" and not loading else N
                wait(n, kt)
                text = f"wait_group {n}"
            elif step == "barrier":
                epoch[0] += 1
                text = "__syncthreads()"
            else:
                compute(kt)
                text = f"타일 {kt} 계산 (버퍼 {kt % S})"
            snap(kt, step, text)
    return run


def loop_code(spec, tagged=False):
    """The composed loop as short Numba-style code lines (prologue, then one iteration). tagged=True: (tag, line)
    pairs, the tag being "prologue" for the prologue's body, the step's position in spec.order for an iteration's
    lines, None for the rest (what the stepper highlights for an event)."""
    S, D, N = spec.stages, spec.ahead, spec.wait_n
    cond = spec.tail != "always"
    out = [(None, f"# S = {S}, 미리 읽기 거리 D = {D}, 꼬리: {TAIL_KO[spec.tail]}"),
           (None, f"for p in range({D}):                  # 프롤로그"),
           ("prologue", "    if p < num_k_tiles:"), ("prologue", "        issue_tile(p, stage=p % S)")]
    if "commit" in spec.order:
        out.append(("prologue", "        cp_async_commit_group()" if cond else "    cp_async_commit_group()"))
    out += [(None, "for kt in range(num_k_tiles):"), (None, f"    nxt = kt + {D}")]
    for i, step in enumerate(spec.order):
        if step == "wait":
            if spec.tail == "wait0_tail":
                lines = [f"    cp_async_wait_group({N} if nxt < num_k_tiles else 0)"]
            else:
                lines = [f"    cp_async_wait_group({N})"]
        elif step == "barrier":
            lines = ["    cuda.syncthreads()"]
        elif step == "prefetch":
            lines = ["    if nxt < num_k_tiles:", "        issue_tile(nxt, stage=nxt % S)"]
        elif step == "commit":
            lines = (["    if nxt < num_k_tiles:", "        cp_async_commit_group()"] if cond
                     else ["    cp_async_commit_group()"])
        else:
            lines = ["    compute(stage=kt % S)"]
        out += [(i, line) for line in lines]
    return out if tagged else [line for _, line in out]
