"""The simulator's Hopper hazards, each shown by a buggy twin of a correct kernel (kernels_numba/demos) or a small
kernel: the wrong answer where the bug makes one, and a report naming the kind, the lines and the fix."""
import os

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba import tc
from kernels_numba.infra.simulator import racecheck
from kernels_numba.registry import module_of
from numba import cuda, float32, uint32, uint64     # module level: the simulator swaps a kernel's global `cuda`
from numba.types import float16

pytestmark = pytest.mark.sim_only("the hazards are the simulator's reports")


def _inputs(M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16),
            np.full((M, N), np.nan, np.float32))


def _demo(name, shape):
    A, B, C = _inputs(*shape)
    launch = module_of(name).launch
    launch(A, B, C)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B))
    right = bool(np.isfinite(C).all() and (err <= tc.error_bound(A, B)).all())
    return right, launch.last_report


# wrong: the answer the bug gives on the simulator (None: right or wrong depending on the shape, the report is what
# counts); the shapes are the smallest that show each bug (make test-hopper runs larger ones too)
TWINS = [
    ("wgmma_no_proxy_fence", (64, 40, 100), {"PROXY_FENCE"}, False),
    ("wgmma_no_wait", (64, 40, 130), {"WGMMA_ACC", "ASYNC_WAR"}, True),
    ("tma_wrong_parity", (64, 40, 300), {"TMA_IN_FLIGHT"}, True),
    ("tma_short_expect_tx", (64, 40, 130), {"TMA_IN_FLIGHT"}, True),
    ("ws_release_before_wait", (40, 24, 300), {"ASYNC_WAR"}, None),
]
FULL = os.environ.get("SGEMM_FULL_SIM") == "1"
if FULL:
    TWINS += [("wgmma_no_wait", (70, 50, 200), {"WGMMA_ACC", "ASYNC_WAR"}, True),
              ("tma_wrong_parity", (100, 72, 300), {"TMA_IN_FLIGHT"}, True),
              ("ws_release_before_wait", (136, 264, 300), {"ASYNC_WAR"}, True)]


@pytest.mark.parametrize("name,shape,kinds,wrong", TWINS)
def test_buggy_twin_is_reported(name, shape, kinds, wrong):
    right, report = _demo(name, shape)
    assert set(report.kinds) == kinds, report.summary()
    if wrong is not None:
        assert right != wrong, name
    for h in report.hazards:
        assert h.first_site and h.second_site and h.fix_ko and h.fix_en
        assert "kernels_numba/" in h.first_site[0] or "kernels_numba/" in h.second_site[0]


def test_a_short_expect_tx_is_named_as_the_byte_count_not_the_wait():
    """Review r25 M-2: tma_short_expect_tx waits with the right parity; its bug is the byte count. The report names the
    announced and the copied bytes, and tells to announce the boxes' sum; the wrong parity keeps the parity fix."""
    _, short = _demo("tma_short_expect_tx", (64, 40, 130))
    for h in short.hazards:
        assert "16,384" in h.fix_ko and "32,768" in h.fix_ko and "상자 3개" in h.fix_ko, h.fix_ko
        assert "arrive_expect_tx" in h.fix_ko and "parity" not in h.fix_ko, h.fix_ko
    _, parity = _demo("tma_wrong_parity", (64, 40, 300))
    assert all("parity" in h.fix_ko and "arrive_expect_tx 의 합" not in h.fix_ko for h in parity.hazards)


def test_hazards_on_the_same_kernel_lines_name_the_helper_line():
    """Review r25 I-4: two hazards that differ only inside a course helper (the A and the B copy of issue_stage) are
    told apart in the summary by the helper's own line; a summary line never repeats another."""
    _, report = _demo("tma_wrong_parity", (64, 40, 300))
    lines = [ln.split(" (×")[0] for ln in report.summary().splitlines()[1:]]
    assert len(lines) == len(set(lines)) == len(report.hazards) >= 2, lines
    assert all("issue_stage 안 wgmma_tma.py:" in ln for ln in lines), lines


def test_wrong_producer_parity_is_a_hang_named():
    with pytest.raises(kn.infra.simulator.tma.MBarrierDeadlockError, match=r"empty\[0\].*parity 0") as e:
        _demo("ws_producer_parity", (40, 24, 24))
    assert "hang" in str(e.value) and "full[0]" in str(e.value)


def test_raise_mode_stops_at_the_first_hazard_with_lines_and_fix():
    """Outside a demo's collect mode the first hazard raises, naming the kind, both lines and the fix."""
    A, B, C = _inputs(70, 50, 100)
    kernel = module_of("wgmma_no_proxy_fence").kernel
    with racecheck.mode("raise"):
        with pytest.raises(racecheck.SharedMemoryRaceError) as e:
            kernel[(1, 2), 128](A, B, C, np.float32(1), np.float32(0))
    msg = str(e.value)
    assert "PROXY_FENCE" in msg and "fence_proxy_async" in msg and "wgmma_simple.py" in msg


# ------------------------------------------------------------------------------ small kernels, one rule each

TILE = 64 * 64


@cuda.jit
def _tma_one_tile(A, B, C, tmA, tmB, alpha, beta, variant):
    """One TMA copy of A's first 64 x 64 box into shared memory, then every thread reads its row back; variants
    leave out one step of the protocol."""
    s = cuda.shared.array(TILE, float16, alignment=1024)
    bar = cuda.shared.array(1, uint64)
    tid = cuda.threadIdx.x
    if tid == 0:
        kn.infra.ptx.mbarrier_init(bar, 0, 1)
        if variant != 1:
            kn.infra.ptx.fence_proxy_async()
        if variant != 2:
            kn.infra.ptx.fence_proxy_tensormap_acquire(tmA, 0)
    cuda.syncthreads()
    if tid == 0:
        kn.infra.ptx.mbarrier_arrive_expect_tx(bar, 0, 2 * TILE)
        kn.infra.ptx.tma_load_2d(s, 0, tmA, 0, 0, 0, bar, 0)
    if variant == 3 or variant == 5:
        if tid == 0:
            while not kn.infra.ptx.mbarrier_try_wait_parity(bar, 0, 0):
                pass
        if variant == 5:                 # the waiting thread, then a barrier: every thread may read the tile
            cuda.syncthreads()
    elif variant != 4:
        while not kn.infra.ptx.mbarrier_try_wait_parity(bar, 0, 0):
            pass
    if tid < 64:
        for c in range(64):
            byte = tid * 128 + c * 2
            C[tid, c] = float32(s[(byte ^ (((byte >> 7) & 7) << 4)) >> 1])


def _run_tma(variant):
    from kernels_numba.infra import tma
    A, B, _ = _inputs(64, 64, 64)
    C = np.full((64, 64), np.nan, np.float32)
    with racecheck.collect() as report:
        _tma_one_tile[1, 128](A, B, C, tma.tensor_map(A, 64, 64), tma.tensor_map(B, 64, 64), np.float32(1),
                              np.float32(0), variant)
    return A, C, report


@pytest.mark.parametrize("variant", [0, 5])
def test_tma_lands_at_the_phase_flip(variant):
    """Read by the threads that waited (0), or after one thread waited and a barrier (5): no hazard, and the landed
    tile counts as written for the race detector (no uninitialised read)."""
    A, C, report = _run_tma(variant)
    assert not report, report.summary()
    assert np.array_equal(C, A.astype(np.float32))


@cuda.jit
def _tma_warp(A, C, tmA, variant):
    """One warp: lane 1 copies A's first 64 x 64 box with TMA while lane 0 waits on its mbarrier; the other lanes
    read after a syncwarp with lane 0 (variant 0) or without it (variant 1)."""
    s = cuda.shared.array(TILE, float16, alignment=1024)
    bar = cuda.shared.array(1, uint64)
    tid = cuda.threadIdx.x
    if tid == 0:
        kn.infra.ptx.mbarrier_init(bar, 0, 1)
        kn.infra.ptx.fence_proxy_async()
        kn.infra.ptx.fence_proxy_tensormap_acquire(tmA, 0)
    cuda.syncthreads()
    if tid == 0:
        while not kn.infra.ptx.mbarrier_try_wait_parity(bar, 0, 0):
            pass
    if tid == 1:
        kn.infra.ptx.mbarrier_arrive_expect_tx(bar, 0, 2 * TILE)
        kn.infra.ptx.tma_load_2d(s, 0, tmA, 0, 0, 0, bar, 0)
    if variant == 0:
        cuda.syncwarp()                  # orders lane 0's observation of the phase before every lane's reads
    for c in range(64):
        byte = tid * 128 + c * 2
        C[tid, c] = float32(s[(byte ^ (((byte >> 7) & 7) << 4)) >> 1])


@pytest.mark.parametrize("variant", [0, 1])
def test_a_syncwarp_after_an_mbarrier_wait_orders_the_tile_for_the_warp(variant):
    """Lanes parked at a syncwarp wait for the lane parked at the mbarrier (no split-warp error), and the syncwarp
    passes its observation of the phase on; without the syncwarp the other lanes' reads are reported."""
    from kernels_numba.infra import tma
    A, _, _ = _inputs(64, 64, 64)
    C = np.full((32, 64), np.nan, np.float32)
    with racecheck.collect() as report:
        _tma_warp[1, 32](A, C, tma.tensor_map(A, 64, 64), variant)
    if variant == 0:
        assert not report, report.summary()
        assert np.array_equal(C, A[:32].astype(np.float32))
    else:
        assert report and set(report.kinds) <= {"TMA_IN_FLIGHT", "TMA_UNOBSERVED"}, report.summary()


@pytest.mark.parametrize("variant,kind", [(1, "MBARRIER_INIT_FENCE"), (2, "TENSORMAP_FENCE"), (3, "TMA_UNOBSERVED"),
                                          (4, "TMA_IN_FLIGHT")])
def test_tma_protocol_steps(variant, kind):
    A, C, report = _run_tma(variant)
    assert kind in report.kinds, report.summary()
    if variant == 4:                    # nobody waits: the copy never lands, the reads are the poisoned NaN
        assert np.isnan(C).all()


@cuda.jit
def _wgmma_variants(A, B, C, alpha, beta, variant):
    """One wgmma m64n64k16 over 64 x 16 of A and 16 x 64 of B written by ordinary stores."""
    As = cuda.shared.array(TILE, float16, alignment=1024)
    Bs = cuda.shared.array(TILE, float16, alignment=1024)
    acc = cuda.local.array(32, float32)
    tid = cuda.threadIdx.x
    for e in range(TILE // 128):
        f = tid + e * 128
        r, c = f // 64, f % 64
        byte = r * 128 + c * 2
        As[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = A[r, c] if c < 16 else float16(0)
        if variant != 3:                 # 3: nobody writes Bs
            Bs[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = B[r, c] if r < 16 else float16(0)
        if variant == 4 and e == 0:      # 4: the fence comes before most of this thread's stores
            kn.infra.ptx.fence_proxy_async()
    for i in range(32):
        acc[i] = float32(0)
    if variant != 4:
        kn.infra.ptx.fence_proxy_async()
    cuda.syncthreads()
    da = kn.infra.hopper.smem_desc(kn.infra.ptx.shared_address(As, 0), 16, 1024)
    db = kn.infra.hopper.smem_desc(kn.infra.ptx.shared_address(Bs, 0), 8192, 1024)
    if variant == 1:                     # a descriptor that depends on the thread
        da = da + uint64(2 * (tid // 64))
    if variant != 2:
        kn.infra.ptx.wgmma_fence(acc, 32)
    kn.infra.ptx.wgmma_m64n64k16_f32_f16(acc, da, db)
    kn.infra.ptx.wgmma_commit_group()
    kn.infra.ptx.wgmma_wait_group_0(acc, 32)
    kn.infra.hopper.store_acc(C, acc, 32, 0, 0, tid, 64, 64, alpha, beta)


def _run_wgmma(variant, threads=128):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((64, 64)).astype(np.float16)
    B = rng.standard_normal((64, 64)).astype(np.float16)
    C = np.full((64, 64), np.nan, np.float32)
    with racecheck.collect() as report:
        _wgmma_variants[1, threads](A, B, C, np.float32(1), np.float32(0), variant)
    return A, B, C, report


def test_one_wgmma_is_the_exact_product():
    """D = A[:, :16] @ B[:16, :]: f16 products are exact, the 16 summed in float64 and rounded once to f32."""
    from sim import wgmma
    A, B, C, report = _run_wgmma(0)
    assert not report, report.summary()
    assert np.array_equal(C, wgmma.reference(A[:, :16], B[:16, :]))


def test_descriptors_must_agree_across_the_warpgroup():
    from kernels_numba.infra.simulator.warpgroup import DescriptorMismatchError
    with pytest.raises(DescriptorMismatchError, match="128"):
        _run_wgmma(1)


def test_missing_wgmma_fence_is_reported():
    *_, report = _run_wgmma(2)
    assert report.kinds == ["WGMMA_FENCE"]


def test_wgmma_reading_shared_memory_nobody_wrote_is_uninit():
    *_, report = _run_wgmma(3)
    assert report.kinds == ["UNINIT"] and report.hazards[0].array == "Bs", report.summary()


def test_a_proxy_fence_before_the_stores_does_not_cover_them():
    *_, report = _run_wgmma(4)
    assert report.kinds == ["PROXY_FENCE"], report.summary()


def test_hopper_hazards_take_the_detectors_reporting_path():
    """Raised like the others (course.race_report() points at it), numbered per launch and block (#2: after the
    block's one barrier, whatever ran before), named by the kernel's file and line, collected with a count."""
    import course
    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((64, 64)).astype(np.float16), rng.standard_normal((64, 64)).astype(np.float16)
    C = np.zeros((64, 64), np.float32)
    _wgmma_variants[1, 128](A, B, C, np.float32(1), np.float32(0), 0)          # earlier launches and barriers
    with racecheck.mode("raise"):
        with pytest.raises(racecheck.SharedMemoryRaceError) as e:
            _wgmma_variants[1, 128](A, B, C, np.float32(1), np.float32(0), 2)
    h = e.value.hazard
    assert h.kind == "WGMMA_FENCE" and h.interval == 1 and "배리어 구간 #2" in h.ko, h.ko
    assert course.race_report().hazards == [h] and "test_hopper_hazards.py:" in h.lines_text
    with racecheck.collect() as report:
        for _ in range(2):
            _wgmma_variants[1, 128](A, B, C, np.float32(1), np.float32(0), 2)
    assert [(x.kind, x.count, x.interval) for x in report.hazards] == [("WGMMA_FENCE", 2, 1)]
    assert "WGMMA_FENCE" in report.summary() and course.race_report() is report


def test_a_split_warpgroup_is_an_error():
    from kernels_numba.infra.simulator.errors import WarpCollectiveError
    with pytest.raises(WarpCollectiveError, match="128"):
        _run_wgmma(0, threads=96)


def test_tensor_map_rules_reach_the_student():
    """A row stride that is not a multiple of 16 bytes: the map refuses it with the driver's rule, and the launchers
    pad such a matrix themselves (so every shape runs)."""
    from kernels_numba.infra import tma
    X = np.zeros((10, 100 + 3), np.float16)
    with pytest.raises(kn.CourseInputError, match="16"):
        tma.tensor_map(X, 8, 64)
    P = tma.padded(X)
    assert P.shape == (10, 104) and not P.any() and tma.tensor_map(P, 8, 64, cols=103) is not None
