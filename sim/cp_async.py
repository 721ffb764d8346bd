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
"""
from collections import deque
from dataclasses import dataclass, field


class AsyncCopyUnit:
    """One thread's cp.async state: uncommitted copies and the queue of committed, pending groups."""

    def __init__(self):
        self.uncommitted = []          # issued, not yet committed: no wait_group ever covers them
        self.groups = deque()          # committed groups, oldest first: (group number, [payloads])
        self.committed = 0             # groups committed so far (the next group's number)

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
TAILS = ("seed", "empty_commit", "wait_all_tail")


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

    tail='seed': commit only when a tile was loaded (prologue `s < num_tiles`, main loop `if prefetch < num_tiles`),
    the loop of the seed text; in the last iterations no group is committed, so wait_group(NUM_STAGES-1) no
    longer covers the tile about to be computed.
    tail='empty_commit': commit a group every time, empty when there is no tile left (what CUTLASS's multistage
    mainloop does), so the count of groups per iteration never changes and wait_group(NUM_STAGES-1) always
    covers the current tile. tail='wait_all_tail': the seed's loads, but wait_group 0 once no tile is left to load.
    """
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


def first_unsafe_tile(num_stages, num_tiles, tail="seed"):
    """The first tile computed before a wait guarantees it, or None if every read is covered."""
    errs = pipeline_trace(num_stages, num_tiles, tail).errors
    return errs[0].kt if errs else None
