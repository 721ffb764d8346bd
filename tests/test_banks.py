"""Bank-conflict model: real warps of the 16x16 tiled SGEMM, the textbook exercise, wide accesses, properties."""
import numpy as np
import pytest

from sim.banks import (Access, Layout, analyze, analyze_request, analyze_trace, bank_of,
                       count_wavefronts, linear_id, paper_exercise, warps)

BLOCK = (16, 16)
K_VALUES = range(16)


def tile(pad):
    """float As/Bs[16][16+pad] as declared in the tiled kernels."""
    return Layout((16, 16), itemsize=4, pad=pad)


def test_layout_offsets_follow_the_padded_pitch():
    lay = Layout((16, 16), pad=1)
    assert lay.declared == (16, 17)
    assert lay.pitch_bytes == 68 and lay.nbytes == 16 * 17 * 4
    assert lay.offset((0, 0)) == 0 and lay.offset((1, 0)) == 68 and lay.offset((2, 3)) == (2 * 17 + 3) * 4
    assert Layout((8,), itemsize=8, base=256).offset(3) == 256 + 24
    with pytest.raises(IndexError):
        lay.offset((0, 16))          # the pad column is not part of the logical array


def test_warps_are_consecutive_linear_ids_not_columns():
    ws = warps(BLOCK)
    assert len(ws) == 8 and all(len(w) == 32 for w in ws)
    assert ws[0] == [(x, 0, 0) for x in range(16)] + [(x, 1, 0) for x in range(16)]
    assert ws[3] == [(x, 6, 0) for x in range(16)] + [(x, 7, 0) for x in range(16)]
    assert [len(w) for w in warps((5, 7))] == [32, 3]              # partial last warp
    assert linear_id(3, 2, 1, (4, 3, 2)) == 3 + 4 * (2 + 3 * 1)
    assert [t for w in warps((4, 3, 2)) for t in w][linear_id(3, 2, 1, (4, 3, 2))] == (3, 2, 1)


@pytest.mark.parametrize("pad", [0, 1])
@pytest.mark.parametrize("k", K_VALUES)
def test_load_As_row_is_a_two_word_broadcast(pad, k):
    for w, rep in enumerate(analyze(tile(pad), lambda x, y, z: (y, k), BLOCK)):
        assert rep.distinct_words == 2 and rep.broadcasts == 30
        assert rep.wavefronts == 1 and rep.conflict_degree == 1
        if pad == 0:
            assert sorted(rep.per_bank) == sorted({k % 32, (16 + k) % 32})
        assert "충돌 없음" in rep.summary()


@pytest.mark.parametrize("pad", [0, 1])
@pytest.mark.parametrize("k", K_VALUES)
def test_load_Bs_column_is_sixteen_consecutive_banks(pad, k):
    for rep in analyze(tile(pad), lambda x, y, z: (k, x), BLOCK):
        assert rep.distinct_words == 16 and rep.broadcasts == 16
        assert all(len(tids) == 2 for tids in rep.word_tids.values())
        first = bank_of(tile(pad).offset((k, 0)))
        assert sorted(rep.per_bank) == sorted((first + i) % 32 for i in range(16))
        assert rep.wavefronts == 1


def test_store_tile_without_padding_is_conflict_free():
    for rep in analyze(tile(0), lambda x, y, z: (y, x), BLOCK, kind="store"):
        assert rep.distinct_words == 32 and len(rep.per_bank) == 32
        assert rep.wavefronts == 1 and rep.broadcasts == 0


def test_store_tile_with_padding_is_two_way():
    # rows 2w and 2w+1 start 17 words apart: (ty=2w+1, tx=15) shares the bank of (ty=2w, tx=0)
    lay = tile(1)
    for w, rep in enumerate(analyze(lay, lambda x, y, z: (y, x), BLOCK, kind="store")):
        a, b = lay.offset((2 * w, 0)), lay.offset((2 * w + 1, 15))
        assert bank_of(a) == bank_of(b) and a != b
        assert rep.per_bank[bank_of(a)] == sorted([a, b])
        assert rep.distinct_words == 32 and len(rep.per_bank) == 31
        assert rep.wavefronts == 2 and rep.conflict_degree == 2
        assert rep.summary() == "2-way 뱅크 충돌: 웨이브프론트 2"


@pytest.mark.parametrize("pad", [2, 3, 4])
def test_other_pads_also_collide_on_the_tile_store(pad):
    # any pad p in 1..16 shifts row 2w+1 by 16+p words, so its last p columns wrap onto row 2w's banks
    assert all(r.wavefronts == 2 for r in analyze(tile(pad), lambda x, y, z: (y, x), BLOCK, kind="store"))


def test_paper_exercise_without_padding_is_eight_way():
    table, rep = paper_exercise(pad=0, col=5)
    assert [b for _, _, b in table] == [5, 21] * 8
    assert [a for _, a, _ in table] == [(16 * ty + 5) * 4 for ty in range(16)]
    assert sorted(rep.per_bank) == [5, 21] and all(len(ws) == 8 for ws in rep.per_bank.values())
    assert rep.wavefronts == 8 and rep.conflict_degree == 8
    assert rep.summary() == "8-way 뱅크 충돌: 웨이브프론트 8"


def test_paper_exercise_with_padding_uses_sixteen_banks():
    table, rep = paper_exercise(pad=1, col=5)
    assert len({b for _, _, b in table}) == 16
    assert rep.wavefronts == 1 and rep.summary() == "뱅크 충돌 없음: 웨이브프론트 1"


def test_paper_exercise_is_not_what_a_real_warp_does():
    # same element pattern smem[ty][5], real warps: only two rows per warp, so no conflict
    assert paper_exercise(0)[1].wavefronts == 8
    assert {r.wavefronts for r in analyze(tile(0), lambda x, y, z: (y, 5), BLOCK)} == {1}


def test_wide_rules_agree_on_consecutive_vectors():
    req = [Access(t, 16 * t, 16) for t in range(32)]
    for rule in ("phases", "words"):
        rep = analyze_request(req, wide_rule=rule)
        assert rep.distinct_words == 128 and rep.wavefronts == 4 and rep.ideal_wavefronts == 4
        assert "충돌 없음" in rep.summary()
    half = [Access(t, 8 * t, 8) for t in range(32)]
    assert [analyze_request(half, wide_rule=r).wavefronts for r in ("phases", "words")] == [2, 2]


def test_wide_rules_differ_on_broadcast_vectors():
    same8 = [Access(t, 64, 16) for t in range(8)]              # lanes 0..7: one quarter-warp
    spread8 = [Access(t, 64, 16) for t in range(0, 32, 4)]     # one lane in each quarter-warp
    all32 = [Access(t, 64, 16) for t in range(32)]
    assert [analyze_request(same8, wide_rule=r).wavefronts for r in ("phases", "words")] == [1, 1]
    assert [analyze_request(spread8, wide_rule=r).wavefronts for r in ("phases", "words")] == [4, 1]
    assert [analyze_request(all32, wide_rule=r).wavefronts for r in ("phases", "words")] == [4, 1]
    rep = analyze_request(all32)
    assert rep.distinct_words == 4 and rep.broadcasts == 31 and rep.conflict_degree == 1
    assert "단계 분할" in rep.summary()


def test_vector_read_of_As_row():
    # tiled.py aligns As to 16 B so As[ty][k:k+4] can be one 128-bit load per thread
    reps = {r: analyze(tile(0), lambda x, y, z: (y, 4), BLOCK, width=16, wide_rule=r)[0]
            for r in ("phases", "words")}
    assert reps["phases"].wavefronts == 4 and reps["words"].wavefronts == 1
    with pytest.raises(ValueError):   # with pad=1 a row starts 68 B apart: not 16 B aligned
        analyze(tile(1), lambda x, y, z: (y, 4), BLOCK, width=16)


def test_count_wavefronts_rejects_unknown_rule():
    with pytest.raises(ValueError):
        count_wavefronts([(0, [0])], 4, wide_rule="guess")


def test_request_validation():
    with pytest.raises(ValueError):
        analyze_request([Access(0, 0), Access(0, 4)])           # a thread twice
    with pytest.raises(ValueError):
        analyze_request([Access(0, 0), Access(32, 4)])          # two warps
    with pytest.raises(ValueError):
        analyze_request([Access(0, 4, 8)])                      # misaligned
    with pytest.raises(ValueError):
        analyze_request([Access(0, 0)], kind="atomic")


def test_inactive_threads_and_empty_requests():
    reps = analyze(tile(0), lambda x, y, z: (y, x), BLOCK, kind="store", active=lambda x, y, z: y == 0)
    assert reps[0].lanes == list(range(16)) and reps[0].wavefronts == 1
    assert all(r.wavefronts == 0 and r.lanes == [] for r in reps[1:])
    assert analyze_request([]).summary() == "활성 스레드 없음: 웨이브프론트 0"
    none_half = analyze(tile(0), lambda x, y, z: (y, x) if x < 8 else None, BLOCK)[0]
    assert len(none_half.lanes) == 16


def test_store_to_one_word_counts_duplicates_as_broadcasts():
    rep = analyze_request([Access(t, 0) for t in range(32)], kind="store")
    assert rep.wavefronts == 1 and rep.broadcasts == 31 and rep.kind == "store"


def test_analyze_trace_groups_by_warp_and_instance():
    lay = tile(1)
    records = []
    for instance in range(2):
        for w in warps(BLOCK):
            for x, y, _ in w:
                tid = linear_id(x, y, 0, BLOCK)
                records.append(("As", 30, "store", instance, tid, lay.offset((y, x)), 4))
                for k in range(2):   # site 41 runs twice per thread per instance: instance counts them
                    records.append(("As", 41, "load", 2 * instance + k, tid, lay.offset((y, k)), 4))
    rows = analyze_trace(records[::-1], BLOCK)
    assert [(r["array"], r["site"], r["op"]) for r in rows] == [("As", 30, "store"), ("As", 41, "load")]
    store, load = rows
    assert store["requests"] == 16 and store["max_wavefronts"] == 2 and store["mean_wavefronts"] == 2
    assert store["max_conflict"] == 2 and store["total_wavefronts"] == 32 and store["broadcasts"] == 0
    assert load["requests"] == 32 and load["max_wavefronts"] == 1 and load["broadcasts"] == 32 * 30
    assert list(store["reports"])[0] == (0, 0) and store["reports"][(1, 7)].wavefronts == 2
    with pytest.raises(ValueError):
        analyze_trace([("As", 1, "load", 0, 256, 0, 4)], BLOCK)


# -- property-style checks on random requests ------------------------------------------------------

RNG_SEEDS = range(20)


@pytest.mark.parametrize("seed", RNG_SEEDS)
@pytest.mark.parametrize("width", [4, 8, 16])
@pytest.mark.parametrize("rule", ["phases", "words"])
def test_random_requests_stay_within_bounds(seed, width, rule):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 33))
    tids = sorted(rng.choice(32, size=n, replace=False).tolist())
    addrs = (rng.integers(0, 64, size=n) * width).tolist()
    rep = analyze_request([Access(t, a, width) for t, a in zip(tids, addrs)], wide_rule=rule)
    assert 1 <= rep.wavefronts <= n * width // 4
    assert rep.wavefronts >= rep.ideal_wavefronts >= 1
    if width == 4:
        assert rep.wavefronts <= n
        assert rep.wavefronts == max(len(ws) for ws in rep.per_bank.values())
        assert rep.broadcasts == n - rep.distinct_words


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_random_same_word_is_one_wavefront(seed):
    rng = np.random.default_rng(seed)
    word = int(rng.integers(0, 4096)) * 4
    tids = rng.choice(32, size=int(rng.integers(1, 33)), replace=False).tolist()
    rep = analyze_request([Access(t, word) for t in tids])
    assert rep.wavefronts == 1 and rep.broadcasts == len(tids) - 1


@pytest.mark.parametrize("stride,expected", [(1, 1), (2, 2), (4, 4), (3, 1), (16, 16), (32, 32), (33, 1)])
def test_word_strides(stride, expected):
    rep = analyze_request([Access(t, 4 * stride * t) for t in range(32)])
    assert rep.wavefronts == expected and rep.conflict_degree == expected
