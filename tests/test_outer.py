"""Outer-product tracer and arithmetic-intensity model (sim/outer.py); seed module 7 figures checked."""
import itertools
import random
from fractions import Fraction

import pytest

from sim import outer
from sim.outer import OuterProductTracer, ai_closed_form, ai_table, block_intensity, intensity

SIZES = (1, 2, 3, 4, 5, 8, 16)


def test_outer_4x4_one_k_step():
    s = OuterProductTracer(4, 4).run()
    assert (s.fmas, s.total_fmas, s.loads, s.loads_per_fma, s.done) == (16, 16, 8, 0.5, True)
    assert s.a_loads == ((1, 1, 1, 1),) and s.b_loads == ((1, 1, 1, 1),)
    assert s.a_uses == ((4, 4, 4, 4),) and s.b_uses == ((4, 4, 4, 4),)   # rA[m] used TN times, rB[n] TM times
    assert s.updates == ((1,) * 4,) * 4
    assert all(s.a_held) and all(s.b_held)


def test_dot_4x4_reloads_for_every_fma():
    s = OuterProductTracer(4, 4, order="dot").run()
    assert (s.fmas, s.loads, s.loads_per_fma) == (16, 32, 2.0)
    assert s.a_loads == ((4, 4, 4, 4),) and s.b_loads == ((4, 4, 4, 4),)   # each load used once
    assert s.a_uses == ((4, 4, 4, 4),) and s.updates == ((1,) * 4,) * 4
    assert sum(s.a_held) == 1 and sum(s.b_held) == 1                       # one A and one B register


def test_outer_loads_on_first_use_in_the_k_step():
    t = OuterProductTracer(2, 3, BK=2)
    seen = []
    while (fma := t.step()) is not None:
        seen.append((fma, t.state().new_loads))
    assert seen[:7] == [((0, 0, 0), (("A", 0), ("B", 0))), ((0, 0, 1), (("B", 1),)),
                        ((0, 0, 2), (("B", 2),)), ((0, 1, 0), (("A", 1),)),
                        ((0, 1, 1), ()), ((0, 1, 2), ()),
                        ((1, 0, 0), (("A", 0), ("B", 0)))]             # new k: fresh fragments
    assert t.step() is None and t.state().loads == 2 * (2 + 3)


def test_step_reset_and_state_before_start():
    t = OuterProductTracer(3, 2)
    s = t.state()
    assert (s.fmas, s.loads, s.loads_per_fma, s.current, s.k, s.done) == (0, 0, None, None, None, False)
    assert t.step() == (0, 0, 0)
    s = t.state()
    assert (s.fmas, s.loads, s.loads_per_fma, s.current, s.k) == (1, 2, 2.0, (0, 0, 0), 0)
    assert s.as_dict()["updates"] == ((1, 0), (0, 0), (0, 0))
    t.run()
    t.reset()
    assert t.state() == OuterProductTracer(3, 2).state()


@pytest.mark.parametrize("order", outer.ORDERS)
@pytest.mark.parametrize("BK", (1, 3, 8))
def test_counts_for_many_tiles(order, BK):
    for TM, TN in itertools.product((1, 2, 4, 8), repeat=2):
        s = OuterProductTracer(TM, TN, BK, order).run()
        assert s.fmas == TM * TN * BK and s.updates == ((BK,) * TN,) * TM
        assert s.loads == sum(map(sum, s.a_loads)) + sum(map(sum, s.b_loads))
        assert all(u == TN for row in s.a_uses for u in row) and all(u == TM for row in s.b_uses for u in row)
        if order == "outer":   # seed Q1: the ratio does not depend on BK
            assert s.loads == (TM + TN) * BK and s.loads_per_fma == pytest.approx(1 / TN + 1 / TM)
            assert all(sum(a) + sum(b) == TM + TN for a, b in zip(s.a_loads, s.b_loads))
        else:                  # a notebook-06 thread: 2 loads per FMA whatever the tile
            assert s.loads == 2 * TM * TN * BK and s.loads_per_fma == 2.0


def test_tracer_agrees_with_intensity():
    for TM, TN in itertools.product(SIZES, repeat=2):
        s, r = OuterProductTracer(TM, TN).run(), intensity(TM, TN)
        assert (s.loads, s.fmas) == (r["loads"], r["fmas"])
        assert Fraction(2 * s.fmas, 4 * s.loads) == r["ai_exact"]
    assert intensity(1, 1)["ai"] == 2 / (4 * OuterProductTracer(5, 7, order="dot").run().loads_per_fma)


def test_closed_form_on_a_grid():
    for TM, TN in itertools.product(range(1, 33), repeat=2):
        r = intensity(TM, TN)
        assert r["ai_exact"] == ai_closed_form(TM, TN) == Fraction(TM * TN, 2 * (TM + TN))
        assert (r["loads"], r["bytes"], r["fmas"], r["flops"]) == (TM + TN, 4 * (TM + TN), TM * TN, 2 * TM * TN)
        assert (r["reuse_a"], r["reuse_b"], r["acc_regs"], r["frag_regs"]) == (TN, TM, TM * TN, TM + TN)
        assert r["data_regs"] == TM * TN + TM + TN and r["data_regs_min"] == TM * TN + min(TM, TN) + 1
        assert r["fits"] == (r["data_regs_min"] <= 255)
        assert intensity(TM, TN, itemsize=8)["ai_exact"] == r["ai_exact"] / 2
    for T in range(1, 65):   # square tiles: AI = T/4, linear in T
        assert intensity(T, T)["ai_exact"] == Fraction(T, 4)


def test_seed_table_6_3():
    rows = {r["TM"]: r for r in ai_table([(t, t) for t in outer.SQUARE])}
    seed = {1: (2, 8, 1, 2, 0.25, 1), 2: (4, 16, 4, 8, 0.5, 4), 4: (8, 32, 16, 32, 1.0, 16),
            8: (16, 64, 64, 128, 2.0, 64), 16: (32, 128, 256, 512, 4.0, 256)}
    for T, want in seed.items():
        r = rows[T]
        assert (r["loads"], r["bytes"], r["fmas"], r["flops"], r["ai"], r["acc_regs"]) == want
    assert rows[8]["ai"] / rows[1]["ai"] == 8          # 0.25 -> 2.0, eight times
    assert intensity(8, 8)["data_regs"] == 80          # seed 3.4 data-register subtotal
    # TM=TN=16: rC alone is 256 > 255; the seed's ~308 is 288 data registers + an estimated ~20
    assert rows[16]["data_regs"] == 288 and not rows[16]["acc_fits"] and not rows[16]["fits"]
    assert all(rows[t]["fits"] for t in (1, 2, 4, 8))


def test_seed_asymmetric_6_5():
    a, sq = intensity(4, 16), intensity(8, 8)
    assert (a["loads"], a["bytes"], a["fmas"], a["flops"], a["ai"]) == (20, 80, 64, 128, 1.6)
    assert a["acc_regs"] == sq["acc_regs"] == 64 and a["ai"] / sq["ai"] == 0.8     # 20 % lower
    # data registers differ by 4 (84 vs 80), not the 18 of the seed's "~90 vs ~108"
    assert (a["data_regs"], sq["data_regs"]) == (84, 80)
    assert intensity(16, 4)["ai_exact"] == a["ai_exact"]
    assert outer.threads_per_block(128, 128, 4, 16) == (32, 8)
    assert outer.threads_per_block(128, 128, 8, 8) == (16, 16)


def test_square_is_best_for_a_fixed_accumulator_count():   # seed's AM-GM claim
    for P in range(1, 257):
        pairs = [(d, P // d) for d in range(1, P + 1) if P % d == 0]
        best = max(ai_closed_form(*p) for p in pairs)
        assert all(abs(m - n) <= min(abs(a - b) for a, b in pairs)
                   for m, n in pairs if ai_closed_form(m, n) == best)


def _max_live(intervals):
    """Largest number of [start, end] intervals sharing a point."""
    return max(sum(s <= x <= e for s, e in intervals) for x in {s for s, _ in intervals})


def _check_bound(TM, TN, intervals):
    """If every A value meets every B value, min(TM, TN) + 1 fragment values were live at once."""
    a, b = intervals[:TM], intervals[TM:]
    if all(sa <= eb and sb <= ea for sa, ea in a for sb, eb in b):
        assert _max_live(intervals) >= min(TM, TN) + 1
        return True
    return False


def test_fragment_register_lower_bound():
    # exhaustive over endpoint orders for TM + TN <= 4, random for bigger tiles
    for TM, TN in [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2)]:
        n, hits = TM + TN, 0
        for perm in itertools.permutations(range(2 * n)):
            if all(perm[2 * i] < perm[2 * i + 1] for i in range(n)):
                hits += _check_bound(TM, TN, [(perm[2 * i], perm[2 * i + 1]) for i in range(n)])
        assert hits > 0
    rng = random.Random(7)
    for TM, TN in [(3, 3), (2, 5), (4, 4), (3, 8)]:
        hits = 0
        for _ in range(20000):
            iv = [tuple(sorted(rng.sample(range(40), 2))) for _ in range(TM + TN)]
            hits += _check_bound(TM, TN, iv)
        assert hits > 0


def test_streaming_schedule_reaches_the_bound():
    for TM, TN in itertools.product((1, 2, 4, 8, 16), repeat=2):
        short, long_ = sorted((TM, TN))
        live, peak, done = set(), 0, set()
        for i in range(short):                       # keep the shorter fragment
            live.add(("s", i))
        for j in range(long_):                       # stream the longer one, one value at a time
            live.add(("l", j))
            peak = max(peak, len(live))
            done |= {(i, j) for i in range(short)}
            live.discard(("l", j))
        assert len(done) == TM * TN and TM * TN + peak == intensity(TM, TN)["data_regs_min"]


def test_block_level_intensity():
    b = block_intensity(128, 128, 8)
    assert (b["loads"], b["bytes"], b["fmas"], b["ai"]) == (2048, 8192, 131072, 32.0)   # seed quiz 4: 8192 B
    assert b["smem_bytes"] == 8192 and block_intensity(128, 128, 8, pad=1)["smem_bytes"] == 8736   # quiz 3
    assert block_intensity(16, 16, 16)["ai"] == 4.0                                   # notebook 06's value
    for BM, BN in itertools.product((16, 32, 64, 128), repeat=2):
        for BK in (1, 8, 32):
            assert block_intensity(BM, BN, BK)["ai_exact"] == Fraction(BM * BN, 2 * (BM + BN))
    # both memory levels improve 8x from notebook 06's 16x16 tile to 128x128 blocks of 8x8 threads
    assert b["ai"] / block_intensity(16, 16, 16)["ai"] == intensity(8, 8)["ai"] / intensity(1, 1)["ai"] == 8


def test_roofline_bound():
    # the seed's arithmetic with the seed's (unverified) A100 inputs, GFLOP/s and GB/s
    assert outer.roofline_bound(0.25, 19500, 19000) == 4750
    assert outer.roofline_bound(2.0, 19500, 19000) == 19500
    with pytest.raises(ValueError):
        outer.roofline_bound(1.0, 0, 1)


@pytest.mark.parametrize("kwargs", [dict(TM=0), dict(TN=-1), dict(BK=0), dict(TM=True),
                                    dict(TM=2.0), dict(order="inner")])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        OuterProductTracer(**kwargs)


def test_default_table_has_the_seed_rows():
    configs = [(r["TM"], r["TN"]) for r in ai_table()]
    assert configs[:5] == [(t, t) for t in (1, 2, 4, 8, 16)] and (4, 16) in configs and (16, 4) in configs
