"""Level 5 (cp.async) kernels: right against numpy in the simulator for 1..5 K tiles and ragged shapes, every bug
demo wrong every time, the SASS (offline sm_80/sm_90) has LDGSTS/LDGDEPBAR/DEPBAR and no function call in the loop."""
import importlib

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.tools import offline, resources

LEVEL5 = [s.name for s in kn.by_level(5)]
DEMOS = ["async_no_commit", "async_no_wait", "async_wait_too_little", "async_no_barrier_after_wait",
         "async_overwrite_pending", "async_common_tail"]
# on a GPU below sm_80 there is no cp.async: the registry's min_cc says so and these tests skip
needs_cp_async = pytest.mark.skipif(not all(s.runs_here() for s in kn.by_level(5)),
                                    reason="cp.async needs compute capability 8.0 (this GPU is older)")
sim_only = pytest.mark.skipif(not kn.device.SIMULATOR, reason="simulator semantics (NaN shared memory, late landing)")


def _run(launch, M, N, K, alpha=1.0, beta=0.0, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32)
    C = np.full((M, N), np.nan, np.float32) if beta == 0 else C0.copy()
    out = launch(A, B, C, alpha, beta)
    ref = alpha * (A.astype(np.float64) @ B.astype(np.float64)) + beta * C0
    return getattr(out, "_ary", out), ref


def _close(C, ref, K):
    return np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4 * np.sqrt(K))


def test_registered_level5():
    assert LEVEL5 == ["async_copy", "async_vec_s2", "async_vec", "async_vec_s4", "async_bk16", "async_wide"]
    for s in kn.by_level(5):
        assert s.min_cc == (8, 0)
    assert [kn.get(n).module.NUM_STAGES for n in LEVEL5] == [3, 2, 3, 4, 3, 3]
    assert [kn.get(n).module.BK for n in LEVEL5] == [8, 8, 8, 8, 16, 16]


@needs_cp_async
@pytest.mark.parametrize("K", [16, 32, 48, 64, 80, 17])   # BK = 16: 1 .. 5 K tiles, and a ragged last tile
def test_bk16_tile_counts(K):
    C, ref = _run(kn.get("async_bk16").launch, 12, 16, K)
    assert _close(C, ref, K)


def test_bk16_stages_fit_static_shared():
    """3 stages of BK = 16 are exactly 48 KiB, the static limit; a 4th does not build, 2 stages do."""
    from kernels_numba import async_bk16
    m = async_bk16
    assert m.NUM_STAGES * (m.BM * m.BK + m.BK * m.BN) * 4 == 48 * 1024
    with pytest.raises(ValueError):
        m.make_kernel(4)


@needs_cp_async
@pytest.mark.parametrize("K", [16, 32, 48, 64, 80, 17])   # async_wide, BK = 16: 1 .. 5 K tiles, a ragged last tile
def test_wide_tile_counts(K):
    C, ref = _run(kn.get("async_wide").launch, 12, 16, K)
    assert _close(C, ref, K)


@needs_cp_async
@pytest.mark.parametrize("options", [{"prefetch": False}, {"prefetch": False, "swizzle": False}, {"NUM_STAGES": 2},
                                     {"kv": 4}, {"kv": 4, "prefetch": False}],
                         ids=["no_prefetch", "no_prefetch_no_swizzle", "stages2", "kv4", "kv4_no_prefetch"])
def test_wide_variants(options):
    """The variants notebook 09 measures (one step undone each) compute the same product, ragged edges included."""
    from kernels_numba import async_wide
    launch = async_wide.make_kernel(**options)[1]
    C, ref = _run(launch, 133, 70, 37)
    assert _close(C, ref, 37)


def test_wide_shape_and_limits():
    """8x16 per thread: 128 threads cover the 128x128 tile; 3 stages are the 48 KiB static maximum, 4 are refused."""
    from kernels_numba import async_wide as m
    assert m.THREADS * m.TM * m.TN == m.BM * m.BN and m.THREADS == 128
    assert m.NUM_STAGES * (m.BM * m.BK + m.BK * m.BN) * 4 == 48 * 1024
    with pytest.raises(ValueError):
        m.make_kernel(4)
    with pytest.raises(ValueError):
        m.make_kernel(kv=3)


@needs_cp_async
@pytest.mark.parametrize("name", LEVEL5)
@pytest.mark.parametrize("K", [8, 16, 24, 32, 40])        # 1 .. 5 K tiles: fewer, as many and more than stages
def test_tile_counts(name, K):
    C, ref = _run(kn.get(name).launch, 12, 16, K)
    assert _close(C, ref, K)


@needs_cp_async
@pytest.mark.parametrize("name", LEVEL5)
@pytest.mark.parametrize("M,N,K", [
    (33, 40, 13),      # K % 4 == 1: rows of A not 16-B aligned -> 4-byte copies with zero fill
    (9, 12, 1),        # K = 1
    (130, 20, 12),     # two block rows
    (20, 131, 20),     # two block columns, N % 4 == 3 (B rows unaligned)
])
def test_ragged_shapes(name, M, N, K):
    C, ref = _run(kn.get(name).launch, M, N, K)
    assert _close(C, ref, K)


@needs_cp_async
@pytest.mark.parametrize("name", LEVEL5)
def test_alpha_beta(name):
    C, ref = _run(kn.get(name).launch, 20, 24, 16, alpha=1.5, beta=-0.5)
    assert _close(C, ref, 16)


@sim_only
@pytest.mark.parametrize("demo", DEMOS)
def test_bug_demos_are_wrong_every_time(demo):
    mod = importlib.import_module(f"kernels_numba.demos.{demo}")
    # overwrite_pending needs a tile beyond the NUM_STAGES its prologue fills: 5 and 7 tiles
    for K in ((40, 56) if demo == "async_overwrite_pending" else (24, 40)):     # 3 and 5 K tiles
        C, ref = _run(mod.launch, 16, 16, K)
        assert not _close(C, ref, K), f"{demo} K={K}: right by accident"
        if K == 24 or demo == "async_overwrite_pending":
            assert np.isnan(C).any(), f"{demo} K={K}: a read of a copy that never landed shows NaN"


@sim_only
def test_seed_tail_reads_stale_tiles():
    """The seed's loop with 5 tiles and 3 stages: tiles 3 and 4 are never waited for, so their buffers still hold
    tiles 0 and 1 when they are computed (3 tiles: buffer 1 was never filled -> NaN)."""
    from kernels_numba.demos import async_common_tail
    from sim.cp_async import first_unsafe_tile
    assert first_unsafe_tile(3, 5, "common") == 3 and first_unsafe_tile(3, 3, "common") == 1
    rng = np.random.default_rng(0)
    A = rng.standard_normal((16, 40), dtype=np.float32)
    B = rng.standard_normal((40, 16), dtype=np.float32)
    C = np.full((16, 16), np.nan, np.float32)
    async_common_tail.launch(A, B, C)
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    stale = A64[:, :24] @ B64[:24] + A64[:, 0:16] @ B64[0:16]          # tiles 0, 1, 2, then 0 and 1 again
    assert np.allclose(C, stale, rtol=1e-4, atol=1e-3)


@pytest.fixture(scope="module", params=[(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def cc(request):
    return request.param


@pytest.mark.parametrize("name", LEVEL5)
def test_sass_ldgsts_no_call(name, cc):
    r = offline.compile_kernel(name, cc)
    counts = offline.sass_counts(r["sass"])
    want = "LDGSTS.E" if name == "async_copy" else "LDGSTS.E.BYPASS.128"
    assert counts.get(want, 0) >= 1 and counts.get("LDGDEPBAR", 0) >= 1 and counts.get("DEPBAR.LE", 0) >= 1
    assert not any(k.startswith(("CALL.ABS", "STL", "LDL")) for k in counts), counts
    body = resources.main_loop(r["sass"])
    ops = [i.base for i in body]
    assert "LDGSTS" in ops and "LDGDEPBAR" in ops and "DEPBAR" in ops and "BAR" in ops
    # ptxas may leave a loop through 'CALL.REL.NOINC <next address>' (sm_80): a jump to the loop exit, not a call
    for n, i in enumerate(body):
        if i.base == "CALL":
            assert "REL.NOINC" in i.text() and body[n + 1].base == "BRA" and n + 2 == len(body), i.text()
    # two blocks per SM: 256 threads x 128 registers, or async_wide's 128 threads x 255 (launch_bounds caps both)
    threads = kn.get(name).module.BLOCK[0] * kn.get(name).module.BLOCK[1]
    assert r["usage"]["local_bytes"] == 0 and 2 * threads * r["usage"]["registers"] <= 65536
