"""Software-pipeline timeline model: exact schedules, closed forms, the seed's worked examples and formula."""
import itertools
import math
from fractions import Fraction

import pytest

from sim import pipeline

from kernels_numba.infra.errors import CourseInputError
from sim.pipeline import (Event, closed_form_total, compute_bound, fma_time_per_tile, gantt_rows, schedule,
                          seed_fma_cycles, seed_formula, speedup, steady_period)


def bars(tl, unit):
    """(tile, start, end) of one unit's events."""
    return [(e.tile, e.start, e.end) for e in tl.of(unit)]


def check_rules(tl):
    """Every rule of the model holds, and every event starts as early as the rules allow."""
    L, C, T, S, k, N = tl.t_load, tl.t_comp, tl.t_sync, tl.stages, tl.loads_in_flight, tl.n_tiles
    load, comp = tl.of("load"), tl.of("compute")
    se = [c.end + (T if i < N - 1 else 0) for i, c in enumerate(comp)]
    assert [e.tile for e in load] == [e.tile for e in comp] == list(range(N))
    for i in range(N):
        ready = max([0] + ([load[i - 1].start] if i else []) + ([load[i - k].end] if i >= k else [])
                    + ([se[i - S]] if i >= S else []))
        assert load[i].start == ready and load[i].end - load[i].start == L
        assert comp[i].start == max([load[i].end] + ([se[i - 1]] if i else []))
        assert comp[i].end - comp[i].start == C
        assert load[i].buffer == comp[i].buffer == i % S
    # no more than min(k, S) loads in flight, and lanes never overlap; one compute at a time
    for a, b in itertools.combinations(load, 2):
        if a.lane == b.lane:
            assert a.end <= b.start or b.end <= a.start
    for a, b in zip(comp, comp[1:]):
        assert a.end <= b.start
    assert tl.total == comp[-1].end


# --- the seed's worked examples (section 3.1 and section 6) ---------------------------------------------

def test_seed_100_10_single_buffer():
    tl = schedule(4, 100, 10, stages=1)
    assert bars(tl, "load") == [(0, 0, 100), (1, 110, 210), (2, 220, 320), (3, 330, 430)]
    assert bars(tl, "compute") == [(0, 100, 110), (1, 210, 220), (2, 320, 330), (3, 430, 440)]
    assert tl.total == 440                                     # seed: 4 * 110 = 440
    assert tl.compute_utilisation == pytest.approx(40 / 440)   # seed: 9.1 %
    assert round(100 * tl.compute_utilisation, 1) == 9.1


def test_seed_100_10_double_buffer():
    tl = schedule(4, 100, 10, stages=2)
    assert bars(tl, "load") == [(0, 0, 100), (1, 100, 200), (2, 200, 300), (3, 300, 400)]
    assert bars(tl, "compute") == [(0, 100, 110), (1, 200, 210), (2, 300, 310), (3, 400, 410)]
    assert tl.total == 410                                     # seed's text: 100 + 3*100 + 10 = 410
    assert seed_formula(4, 100, 10).double == 500              # ... but its general formula gives 500
    assert seed_formula(4, 100, 10).speedup == pytest.approx(440 / 500)   # < 1: "double buffering is slower"
    assert speedup(4, 100, 10) == pytest.approx(440 / 410)
    assert tl.compute_utilisation == pytest.approx(40 / 410)
    assert tl.load_utilisation == pytest.approx(400 / 410)
    assert not compute_bound(100, 10)                          # the LOAD is not hidden; the compute is


def test_seed_80_100_single_and_double():
    single, double = schedule(4, 80, 100, stages=1), schedule(4, 80, 100, stages=2)
    assert single.total == 720                                 # seed: 720
    assert double.total == 480                                 # seed: 80 + 4*100 = 480
    assert seed_formula(4, 80, 100) == (720, 480, 1.5, 1.8)
    assert speedup(4, 80, 100) == 1.5                          # seed: 1.50
    assert bars(double, "compute") == [(0, 80, 180), (1, 180, 280), (2, 280, 380), (3, 380, 480)]
    # the seed draws the loads back to back (0, 80, 160, 240); with two buffers load 2 must wait for
    # compute 0 to free buffer 0, so it starts at 180 (the total is the same)
    assert bars(double, "load") == [(0, 0, 80), (1, 80, 160), (2, 180, 260), (3, 280, 360)]
    assert compute_bound(80, 100)
    assert double.compute_utilisation == pytest.approx(400 / 480)


def test_seed_section_3_1_eight_two():
    assert schedule(3, 8, 2, stages=1).total == 30             # seed: 3 * 10 = 30
    assert schedule(3, 8, 2, stages=2).total == 26             # seed's diagram: 4 tiles, axis up to 28
    assert schedule(4, 8, 2, stages=2).total == 34
    assert seed_formula(3, 8, 2).double == 32


def test_seed_practice_tasks():
    # task 1: T_load = 400, T_comp = 2048, N = 512 (C >= L: the seed's formula is exact here)
    assert schedule(512, 400, 2048, stages=1).total == 512 * 2448 == 1_253_376
    assert schedule(512, 400, 2048, stages=2).total == 400 + 512 * 2048 == 1_048_976
    assert seed_formula(512, 400, 2048).double == 1_048_976
    assert speedup(512, 400, 2048) == pytest.approx(1_253_376 / 1_048_976)     # 1.1949
    assert seed_formula(512, 400, 2048).asymptotic == pytest.approx(1 + 400 / 2048)
    # task 2: T_load = 400, T_comp = 200, N = 512 (L > C: the seed's formula is L - C too long)
    assert schedule(512, 400, 200, stages=1).total == 307_200
    assert schedule(512, 400, 200, stages=2).total == 512 * 400 + 200 == 205_000
    assert seed_formula(512, 400, 200).double == 205_200
    assert speedup(512, 400, 200) == pytest.approx(307_200 / 205_000)          # 1.4985
    assert not compute_bound(400, 200) and compute_bound(400, 2048)


def test_seed_formula_matches_model_exactly_when_compute_is_longer():
    for N, L, C in itertools.product(range(1, 9), range(0, 12), range(0, 12)):
        exact, seed = schedule(N, L, C).total, seed_formula(N, L, C).double
        assert seed - exact == max(0, L - C)       # equal iff C >= L; otherwise the seed is L - C too long


# --- closed forms == simulation -------------------------------------------------------------------------

def _times():
    ints = [0, 1, 3, 7, 10, 25, 100]
    fracs = [Fraction(1, 3), Fraction(5, 2)]
    return ints + fracs


def test_closed_form_equals_schedule_exactly():
    times = _times()
    n = 0
    for L, C, T in itertools.product(times, times, [0, 1, Fraction(3, 2), 20]):
        for S in range(1, 5):
            for k in range(1, S + 2):
                for N in (1, 2, 3, 4, 5, 7, 12):
                    tl = schedule(N, L, C, S, T, k)
                    assert closed_form_total(N, L, C, S, T, k) == tl.total, (N, L, C, S, T, k)
                    n += 1
    assert n > 20000


def test_closed_form_equals_schedule_floats():
    for L, C, T in itertools.product([0.0, 0.3, 1.7, 99.9, 400.0], [0.0, 0.25, 2.5, 100.1, 2048.0], [0.0, 0.7]):
        for S, k, N in itertools.product(range(1, 5), range(1, 5), (1, 2, 5, 33)):
            assert math.isclose(closed_form_total(N, L, C, S, T, k), schedule(N, L, C, S, T, k).total,
                                rel_tol=1e-12, abs_tol=1e-9)


def test_simple_forms_for_one_load_unit():
    for L, C, T, N in itertools.product(_times(), _times(), [0, 2], range(1, 9)):
        assert schedule(N, L, C, 1, T).total == N * (L + C) + (N - 1) * T
        for S in (2, 3, 4):                        # extra buffers buy nothing with ONE load unit
            assert schedule(N, L, C, S, T).total == L + C + (N - 1) * max(L, C + T)


def test_schedule_obeys_every_rule():
    for L, C, T, S, k, N in itertools.product([0, 3, 10], [0, 4, 10], [0, 2], range(1, 5), range(1, 5), (1, 2, 6)):
        check_rules(schedule(N, L, C, S, T, k))


def test_steady_period_is_the_long_run_time_per_tile():
    for L, C, T, S, k in itertools.product([0, 1, 3, 7, 10, 25], [0, 1, 4, 13], [0, 5], range(1, 5), range(1, 5)):
        if L + C + T == 0:
            continue
        a, b = schedule(200, L, C, S, T, k).total, schedule(260, L, C, S, T, k).total
        assert Fraction(b - a, 60) == steady_period(L, C, S, T, k)


def test_what_more_stages_buy():
    # one load unit: S=2 is already optimal; several loads in flight (cp.async-like, k = S-1) hide L > C
    L, C, N = 100, 30, 64
    assert len({schedule(N, L, C, S).total for S in (2, 3, 4)}) == 1
    assert [steady_period(L, C, S, 0, S - 1) for S in (2, 3, 4, 5)] == [100, 50, Fraction(100, 3), 30]
    assert compute_bound(L, C, 5, 0, 4) and not compute_bound(L, C, 4, 0, 3)


def test_sync_events_and_gantt_rows():
    tl = schedule(3, 10, 5, stages=2, t_sync=2)
    assert bars(tl, "sync") == [(0, 15, 17), (1, 25, 27)]    # none after the last compute
    assert tl.total == 10 + 5 + 2 * max(10, 7)
    rows = gantt_rows(tl)
    assert set(rows) == {"load", "compute", "sync"}
    assert rows["compute"][1] == {"tile": 1, "buffer": 1, "lane": 0, "start": 20, "width": 5, "end": 25}
    assert [r["buffer"] for r in rows["load"]] == [0, 1, 0]
    assert gantt_rows(schedule(1, 1, 1, t_sync=3))["sync"] == []
    assert isinstance(tl.events[0], Event)


def test_degenerate_and_utilisation():
    tl = schedule(5, 0, 0)
    assert tl.total == 0 and tl.compute_utilisation == 0.0 and tl.load_utilisation == 0.0
    assert speedup(5, 0, 0) == 1.0
    tl = schedule(1, 7, 3, stages=4)
    assert tl.total == 10 and tl.compute_utilisation == 0.3 and tl.load_utilisation == 0.7
    tl = schedule(4, 100, 10, stages=3, loads_in_flight=3)
    assert tl.load_busy < 4 * 100 and tl.load_utilisation <= 1.0   # overlapping loads count once


@pytest.mark.parametrize("kwargs", [
    dict(n_tiles=0), dict(n_tiles=2.0), dict(n_tiles=True), dict(t_load=-1), dict(t_comp=float("nan")),
    dict(t_comp=float("inf")), dict(stages=0), dict(t_sync=-0.5), dict(loads_in_flight=0), dict(t_load="100"),
])
def test_bad_input_is_a_course_error(kwargs):
    args = dict(n_tiles=4, t_load=100, t_comp=10) | kwargs
    for fn in (schedule, closed_form_total, speedup):
        with pytest.raises(CourseInputError) as err:
            fn(**args)
        msg = str(err.value)
        assert "[입력 오류]" in msg and "[Input error]" in msg and "해결" in msg and "Fix" in msg


# --- compute time from FFMA throughput vs the seed's latency estimate ---------------------------------

def test_fma_time_per_tile():
    t = fma_time_per_tile(BM=128, BN=128, BK=8, threads=256, fp32_lanes_per_sm=128)
    assert t.fmas_per_block == 131072 and t.fmas_per_thread == 512 == 8 * 8 * 8
    assert t.cycles_alone == 1024 and t.cycles_shared == 1024
    assert fma_time_per_tile(128, 128, 8, 256, 128, blocks_per_sm=2).cycles_shared == 2048
    assert fma_time_per_tile(64, 64, 8, 256, 64).cycles_alone == 512
    assert seed_fma_cycles(8, 8, 8, 4) == 2048          # the seed: 512 FMAs x 4-cycle latency
    with pytest.raises(CourseInputError):
        fma_time_per_tile(128, 128, 8, 300, 128)         # 131072 FMAs do not split over 300 threads
    with pytest.raises(CourseInputError):
        fma_time_per_tile(128, 128, 8, 256, 0)


def test_gantt_window_spans_the_first_tiles():
    tl = pipeline.schedule(512, 400, 200, stages=2)
    start, end = pipeline.gantt_window(tl, 12)
    assert start == 0 and end == max(e.end for e in tl.events if e.tile < 12) == 12 * 400 + 200
    assert pipeline.gantt_window(pipeline.schedule(3, 8, 2), 12)[1] == pipeline.schedule(3, 8, 2).total
