"""Software-pipeline (multi-buffering) timeline model: exact schedule, closed forms, FMA time (pure Python)."""
from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational, Real
from typing import NamedTuple

from .errors import CourseInputError

# The model (one thread block, K loop over n_tiles tiles, times in any unit, e.g. cycles):
# * One LOAD unit and one COMPUTE unit. A tile's load takes t_load, its compute t_comp, both fixed.
#   With loads_in_flight=k (default 1) up to k loads may be outstanding at once (k=1: a single busy unit,
#   the seed's picture; k>1: memory as pure latency, several requests in flight). Loads issue in tile order.
# * S = stages shared-memory buffers; tile i lives in buffer i % S.
# * Load i may start when (a) load i-1 has started, (b) load i-k has finished (k in flight at most) and
#   (c) its buffer is free: the barrier after compute i-S has finished (that barrier is what tells the
#   block that nobody reads buffer i % S any more). S=1: load i waits for compute i-1 -> the Level-3 kernel.
# * Compute i may start when load i has finished (the barrier that publishes a loaded tile is counted
#   inside t_load) and the barrier after compute i-1 has finished.
# * Barrier ('sync') i lasts t_sync and starts when compute i ends; the barrier after the LAST compute
#   guards no buffer and is not modelled (total = end of the last compute).
# Every event starts as early as these rules allow (no other resource, no variability).

UNITS = ("load", "compute", "sync")
MAX_TILES = 1_000_000


class Event(NamedTuple):
    """One bar of the timeline."""
    unit: str          # 'load' | 'compute' | 'sync'
    tile: int
    start: Real
    end: Real
    buffer: int        # shared-memory buffer the tile lives in (tile % stages)
    lane: int = 0      # load slot (tile % min(loads_in_flight, stages)) for loads, else 0


class Timeline(NamedTuple):
    """A computed schedule and its summary numbers."""
    n_tiles: int
    t_load: Real
    t_comp: Real
    stages: int
    t_sync: Real
    loads_in_flight: int
    events: list
    total: Real
    compute_busy: Real
    compute_utilisation: float   # compute_busy / total (0.0 when total == 0)
    load_busy: Real              # time with at least one load in flight
    load_utilisation: float      # load_busy / total (0.0 when total == 0)

    def of(self, unit: str) -> list:
        """Events of one unit, in tile order."""
        return [e for e in self.events if e.unit == unit]


class SeedFormula(NamedTuple):
    """The seed's section-6 formulas, as written there."""
    single: Real       # N * (T_load + T_comp)
    double: Real       # T_load + N * max(T_load, T_comp)
    speedup: float     # single / double
    asymptotic: float  # (T_load + T_comp) / max(T_load, T_comp), the seed's N >> 1 limit


class FmaTime(NamedTuple):
    """Compute time of one K tile from FFMA throughput (not latency)."""
    fmas_per_block: int      # BM * BN * BK FMAs per block per K tile
    fmas_per_thread: int     # ... divided over the block's threads (= BK * TM * TN)
    cycles_alone: Fraction   # fmas_per_block / fp32 lanes: the block has the SM to itself
    cycles_shared: Fraction  # * blocks_per_sm: resident blocks share the lanes evenly


def _fail(ko, en, fix_ko, fix_en):
    raise CourseInputError(ko, en, fix_ko, fix_en)


def _check_int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        rng = f"{low} 이상" if high is None else f"{low}..{high}"
        rng_en = f">= {low}" if high is None else f"in {low}..{high}"
        _fail(f"{name} 는 {rng} 의 정수여야 합니다 (받은 값: {value!r}).",
              f"{name} must be an int {rng_en}, got {value!r}.",
              f"{name} 에 {rng} 의 정수를 넣으세요.", f"pass an int {rng_en} as {name}.")


def _check_time(name, value):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        _fail(f"{name} 는 0 이상의 유한한 시간(사이클 등)이어야 합니다 (받은 값: {value!r}).",
              f"{name} must be a finite time >= 0 (e.g. cycles), got {value!r}.",
              f"{name} 에 0 이상의 수를 넣으세요 (예: 100).", f"pass a number >= 0 as {name} (e.g. 100).")


def _check(n_tiles, t_load, t_comp, stages, t_sync, loads_in_flight=1):
    _check_int("n_tiles", n_tiles, 1, MAX_TILES)
    _check_time("t_load", t_load)
    _check_time("t_comp", t_comp)
    _check_int("stages", stages, 1)
    _check_time("t_sync", t_sync)
    _check_int("loads_in_flight", loads_in_flight, 1)


def _div(a, b):
    """a / b, exact for ints and Fractions."""
    return Fraction(a, b) if isinstance(a, Rational) else a / b


def _union_length(intervals) -> Real:
    """Length of the union of (start, end) intervals sorted by start."""
    total, cur_s, cur_e = 0, None, None
    for s, e in intervals:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def schedule(n_tiles, t_load, t_comp, stages=2, t_sync=0, loads_in_flight=1) -> Timeline:
    """Exact earliest-start schedule of the pipeline described at the top of this module."""
    _check(n_tiles, t_load, t_comp, stages, t_sync, loads_in_flight)
    S, k, N = stages, loads_in_flight, n_tiles
    lanes = min(k, S)                      # loads i and i+S never overlap (buffer), so min(k, S) lanes suffice
    ls, le, ce, se = [], [], [], []        # load start/end, compute end, barrier end per tile
    events = []
    for i in range(N):
        start = 0
        if i >= 1:
            start = max(start, ls[i - 1])      # loads issue in tile order
        if i >= k:
            start = max(start, le[i - k])      # at most k loads outstanding
        if i >= S:
            start = max(start, se[i - S])      # buffer i % S is free only after the barrier behind compute i-S
        ls.append(start)
        le.append(start + t_load)
        cstart = le[i] if i == 0 else max(le[i], se[i - 1])
        ce.append(cstart + t_comp)
        # the last barrier guards nothing: give it zero length so it gates nothing and adds nothing
        se.append(ce[i] + (t_sync if i < N - 1 else 0))
        events.append(Event("load", i, ls[i], le[i], i % S, i % lanes))
        events.append(Event("compute", i, cstart, ce[i], i % S))
        if i < N - 1 and t_sync > 0:
            events.append(Event("sync", i, ce[i], se[i], i % S))
    total = ce[-1]
    compute_busy = N * t_comp
    load_busy = _union_length(zip(ls, le))
    util = (lambda busy: float(busy / total) if total else 0.0)
    return Timeline(N, t_load, t_comp, S, t_sync, k, events, total, compute_busy, util(compute_busy),
                    load_busy, util(load_busy))


def closed_form_total(n_tiles, t_load, t_comp, stages=2, t_sync=0, loads_in_flight=1):
    """Total time in closed form for every stages, t_sync, loads_in_flight (proof: answers/pipeline_notes.md)."""
    _check(n_tiles, t_load, t_comp, stages, t_sync, loads_in_flight)
    L, C, T, N, S = t_load, t_comp, t_sync, n_tiles, stages
    k = min(loads_in_flight, S)                # more than S loads can never be in flight (each needs a buffer)
    # total = length of the longest dependency path; it starts with a load (L) and ends with a compute (C).
    if k < S:
        # Buffer waits never lie on the longest path: the best path is loads chained k apart, then computes.
        # Both ends of that family: "first load, then N-1 compute+barrier steps" or "as many loads as possible".
        q, r = divmod(N - 1, k)
        return C + max(L + (N - 1) * (C + T), (q + 1) * L + r * (C + T))
    # k == S (S=1 included): a tile's load waits for the barrier behind compute i-S, so a path can jump S
    # tiles at cost L+C+T (barrier, load, compute) instead of S compute+barrier steps.
    b, r = divmod(N - 1, S)
    return L + C + max((N - 1) * (C + T), b * (L + C + T) + r * (C + T))


def steady_period(t_load, t_comp, stages=2, t_sync=0, loads_in_flight=1):
    """Time per tile once the pipeline is full: max(C+T, L/k, (L+C+T)/S), k = min(loads_in_flight, S)."""
    _check(1, t_load, t_comp, stages, t_sync, loads_in_flight)
    k = min(loads_in_flight, stages)           # a load needs a free buffer, so more than S are never in flight
    L, C, T, S = t_load, t_comp, t_sync, stages
    # three cycles bound the rate: the compute unit (C+T per tile), the k load slots (L per k tiles) and
    # the S buffers (each goes round load -> compute -> barrier once per S tiles)
    return max(C + T, _div(L, k), _div(L + C + T, S))


def compute_bound(t_load, t_comp, stages=2, t_sync=0, loads_in_flight=1) -> bool:
    """True when, once full, the pipeline runs at the compute unit's pace: the load time is hidden."""
    return steady_period(t_load, t_comp, stages, t_sync, loads_in_flight) == t_comp + t_sync


def speedup(n_tiles, t_load, t_comp, stages=2, t_sync=0, loads_in_flight=1) -> float:
    """Single-buffer total / this pipeline's total (both simulated, same t_sync)."""
    single = schedule(n_tiles, t_load, t_comp, 1, t_sync).total
    total = schedule(n_tiles, t_load, t_comp, stages, t_sync, loads_in_flight).total
    return float(single / total) if total else 1.0


def seed_formula(n_tiles, t_load, t_comp) -> SeedFormula:
    """The seed's formulas verbatim (section 6): single N(L+C), double L + N*max(L, C)."""
    _check(n_tiles, t_load, t_comp, 2, 0)
    L, C, N = t_load, t_comp, n_tiles
    single, double = N * (L + C), L + N * max(L, C)
    m = max(L, C)
    return SeedFormula(single, double, float(single / double) if double else 1.0,
                       float((L + C) / m) if m else 1.0)


def gantt_rows(timeline: Timeline) -> dict:
    """Plain plotting data: unit -> list of dicts (tile, buffer, lane, start, width, end), in tile order."""
    rows = {unit: [] for unit in UNITS}
    for e in timeline.events:
        rows[e.unit].append({"tile": e.tile, "buffer": e.buffer, "lane": e.lane,
                             "start": e.start, "width": e.end - e.start, "end": e.end})
    return rows


def gantt_window(timeline: Timeline, tiles: int):
    """(start, end) of the time span holding every event of the first `tiles` tiles: the zoom of a long timeline."""
    _check_int("tiles", tiles, 1)
    ends = [e.end for e in timeline.events if e.tile < tiles]
    return 0, max(ends, default=0)


def fma_time_per_tile(BM, BN, BK, threads, fp32_lanes_per_sm, blocks_per_sm=1) -> FmaTime:
    """FFMA-throughput time of one K tile: BM*BN*BK FMAs over the SM's FP32 lanes (GPU numbers come from the caller)."""
    for name, v in (("BM", BM), ("BN", BN), ("BK", BK), ("threads", threads),
                    ("fp32_lanes_per_sm", fp32_lanes_per_sm), ("blocks_per_sm", blocks_per_sm)):
        _check_int(name, v, 1)
    fmas = BM * BN * BK
    if fmas % threads:
        _fail(f"BM*BN*BK = {fmas} 가 threads = {threads} 로 나누어떨어지지 않습니다.",
              f"BM*BN*BK = {fmas} is not divisible by threads = {threads}.",
              "스레드마다 같은 수의 FMA를 하도록 threads 를 BM*BN*BK 의 약수로 고르세요 (예: 256).",
              "pick threads dividing BM*BN*BK so every thread does the same number of FMAs (e.g. 256).")
    alone = Fraction(fmas, fp32_lanes_per_sm)   # one FFMA per lane per cycle at best: a lower bound
    return FmaTime(fmas, fmas // threads, alone, alone * blocks_per_sm)


def seed_fma_cycles(BK, TM, TN, fma_latency) -> Real:
    """The seed's estimate: BK*TM*TN FMAs per thread times the FMA LATENCY (treats independent FMAs as serial)."""
    for name, v in (("BK", BK), ("TM", TM), ("TN", TN)):
        _check_int(name, v, 1)
    _check_time("fma_latency", fma_latency)
    return BK * TM * TN * fma_latency
