"""sim/wgmma.py and sim/tma.py, the pure models of wgmma and the TMA: checked against the PTX ISA's worked examples,
against each other (what the TMA writes is what the descriptors read), and for the properties a layout must have."""
import itertools

import numpy as np
import pytest

from sim import tma, wgmma


def test_accumulator_layout_is_a_bijection():
    for n in (8, 64, 128, 256):
        rows, cols = wgmma.accumulator_index(n)
        cells = set(zip(rows.ravel().tolist(), cols.ravel().tolist()))
        assert len(cells) == 64 * n and cells == set(itertools.product(range(64), range(n)))
        for t in (0, 5, 37, 127):
            for i in (0, 1, 2, 3, n // 2 - 1):
                assert wgmma.accumulator_owner(*wgmma.accumulator_elements(t, n)[i], n) == (t, i)


def test_accumulator_layout_is_mma_sync_c_per_warp():
    """Warp w holds rows 16w..16w+15; within them each 8-column block is mma.m16n8's C fragment (sim/mma.py)."""
    from sim import mma
    for t in range(128):
        w, lane = divmod(t, 32)
        els = wgmma.accumulator_elements(t, 64)
        for j in range(8):
            assert [(r - 16 * w, c - 8 * j) for r, c in els[4 * j:4 * j + 4]] == mma.c_elements(lane)


def test_fragments_round_trip():
    D = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    assert np.array_equal(wgmma.tile_from_fragments(wgmma.fragments_from_tile(D)), D)


def test_descriptor_fields():
    d = wgmma.make_descriptor(0x3400, 8192, 1024, 128)
    assert wgmma.decode(d) == {"start": 0x3400, "lbo": 8192, "sbo": 1024, "base_offset": 0, "swizzle": 128}
    assert d >> 62 == 1 and (d & 0x3FFF) == 0x340
    assert wgmma.decode(wgmma.make_descriptor(16, 16, 16, 0))["swizzle"] == 0
    with pytest.raises(wgmma.DescriptorError):
        wgmma.make_descriptor(8, 16, 16)                 # not a multiple of 16 bytes
    with pytest.raises(wgmma.DescriptorError):
        wgmma.make_descriptor(0, 16, 16, swizzle=96)


def test_swizzle_is_an_involution_within_each_1024_bytes():
    a = np.arange(0, 4096, 2)
    for s in (32, 64, 128):
        sw = wgmma.swizzle(a, s)
        assert np.array_equal(wgmma.swizzle(sw, s), a) and np.array_equal(sw // 1024, a // 1024)
        assert sorted(sw.tolist()) == a.tolist()
    # 128 B: chunk c of line r goes to chunk c ^ (r % 8)
    assert wgmma.swizzle(3 * 128 + 5 * 16, 128) == 3 * 128 + (5 ^ 3) * 16


def _cute(shape, stride, coord):
    """A CuTe layout (nested (shape, stride) pairs per mode) evaluated at an integer coordinate per mode
    (colexicographic: the first sub-mode varies fastest)."""
    off = 0
    for (shp, std), x in zip(zip(shape, stride), coord):
        for s, d in zip(shp, std):
            off += (x % s) * d
            x //= s
    return off


# The PTX ISA's examples (section "Canonical Layouts", exact layouts and their LBO/SBO), in elements
ISA_EXAMPLES = [
    # (major, swizzle bytes, element bytes, exact shape, exact stride, LBO elements, SBO elements, rows, cols)
    ("K", 0, 4, ((8, 2), (4, 4)), ((4, 32), (1, 64)), 64, 32, 16, 16),     # K-major, no swizzle, tf32
    ("K", 32, 4, ((8, 2), (4, 4)), ((8, 64), (1, 4)), None, 64, 16, 16),   # K-major, 32 B, tf32
    ("MN", 0, 2, ((8, 1, 2), (8, 2)), ((1, 8, 64), (8, 128)), 128, 64, 16, 16),     # MN-major, none, bf16
    ("MN", 32, 2, ((8, 2, 2), (8, 2)), ((1, 8, 128), (16, 256)), 128, 256, 32, 16),  # MN-major, 32 B, bf16
    ("MN", 64, 2, ((8, 4, 2), (8, 2)), ((1, 8, 256), (32, 512)), 256, 512, 64, 16),  # MN-major, 64 B, bf16
]


@pytest.mark.parametrize("ex", ISA_EXAMPLES, ids=lambda e: f"{e[0]}-{e[1]}B-{e[2] * 8}bit")
def test_canonical_layouts_match_the_ptx_isa_examples(ex):
    major, swz, eb, shape, stride, lbo, sbo, mn, k = ex
    lbo_b, sbo_b = (lbo or 1) * eb, sbo * eb
    if major == "K":                        # (M, K): the MN index is the row
        got = wgmma.layout_offsets(mn, k, "K", swz, lbo_b, sbo_b, eb) // eb
        want = np.array([[_cute(shape, stride, (m, kk)) for kk in range(k)] for m in range(mn)])
    else:                                   # (K, N): K is the row; the exact layout's first mode is MN
        got = wgmma.layout_offsets(k, mn, "MN", swz, lbo_b, sbo_b, eb) // eb
        want = np.array([[_cute(shape, stride, (n, kk)) for n in range(mn)] for kk in range(k)])
    assert np.array_equal(got, want)


def test_what_the_tma_writes_is_what_the_descriptors_read():
    """The course's layout: A (BM x 64, K-major) and B (64 x BN in 64-column boxes, N-major) written by the TMA with the
    128-byte swizzle at 1024-aligned addresses; the descriptors of each warpgroup's 64 rows and each k16 step address
    exactly the elements the TMA put there."""
    BM, BN, BK, base = 128, 256, 64, 5 * 1024
    a_map = tma.TensorMap(0, "float16", 1000, 1000, 2000, BM, BK, 128)
    a_pos = tma.box_addresses(a_map, base)                             # (BM, BK) shared byte address per element
    b_base = base + BM * BK * 2
    b_map = tma.TensorMap(0, "float16", 1000, 1000, 2000, BK, 64, 128)
    b_pos = np.concatenate([tma.box_addresses(b_map, b_base + j * BK * 128) for j in range(BN // 64)], axis=1)
    for w in range(BM // 64):
        for kk in range(BK // 16):
            da = wgmma.descriptor_for_tile(base + w * 64 * 128 + kk * 32, "K", 64)
            assert np.array_equal(wgmma.operand_addresses(da, 64, 16, "K"),
                                  a_pos[w * 64:(w + 1) * 64, kk * 16:(kk + 1) * 16])
    for kk in range(BK // 16):
        db = wgmma.descriptor_for_tile(b_base + kk * 16 * 128, "MN", BK)
        assert np.array_equal(wgmma.operand_addresses(db, 16, BN, "MN"), b_pos[kk * 16:(kk + 1) * 16, :])


def test_hand_written_swizzle_matches_the_tma():
    """wgmma_simple writes its tiles with `(byte ^ ((byte >> 7) & 7) << 4) >> 1` (kernels_numba/infra/hopper.swizzled):
    the TMA's placement at a 1024-aligned tile."""
    m = tma.TensorMap(0, "float16", 64, 64, 128, 64, 64, 128)
    pos = (tma.box_addresses(m, 0) // 2).astype(int)
    for r in range(64):
        for c in range(64):
            byte = r * 128 + c * 2
            assert pos[r, c] == (byte ^ (((byte >> 7) & 7) << 4)) >> 1


def test_base_offset_is_refused():
    with pytest.raises(wgmma.DescriptorError, match="base offset"):
        wgmma.operand_addresses(wgmma.make_descriptor(1024, 16, 1024, 128, base_offset=2), 64, 16, "K")


@pytest.mark.parametrize("kw,needle", [
    (dict(row_stride=100 * 2), "multiple of 16"), (dict(address=8), "16-byte aligned"),
    (dict(box_cols=128), "swizzle span"), (dict(box_rows=300), "1 .. 256"), (dict(box_cols=4), "multiple of 16"),
])
def test_tensor_map_rules(kw, needle):
    fields = dict(address=0, dtype="float16", rows=100, cols=100, row_stride=208, box_rows=64, box_cols=64,
                  swizzle=128)
    fields.update(kw)
    with pytest.raises(tma.TensorMapError, match=needle):
        tma.check(tma.TensorMap(**fields))


def test_box_values_fill_zeros_outside():
    X = np.arange(50, dtype=np.float16).reshape(5, 10)
    m = tma.TensorMap(0, "float16", 5, 10, 32, 4, 8, 0)
    box = tma.box_values(m, X, 6, 3)
    assert np.array_equal(box[:2, :4], X[3:5, 6:10]) and not box[2:].any() and not box[:, 4:].any()
    assert m.box_bytes == 64                      # counted in full, inside the tensor or not


def test_mbarrier_phases():
    b = tma.MBarrier(2)
    assert b.test_wait(1) and not b.test_wait(0)            # a fresh barrier: "the phase before 0" is complete
    b.expect_tx(100)
    b.arrive()
    b.complete_tx(60)
    assert b.phase == 0 and b.pending == 1 and b.tx == 40
    b.arrive()
    assert b.phase == 0                                    # 40 bytes still expected
    b.complete_tx(40)
    assert b.phase == 1 and b.test_wait(0) and not b.test_wait(1) and b.pending == 2
    b.complete_tx(16)                                      # bytes before their expect_tx: tx goes negative
    b.arrive()
    b.expect_tx(16)
    b.arrive()
    assert b.phase == 2
