"""mma_fast: why mma_swizzle spills and mma_fast does not (PTX/SASS offline), its switches (simulator), its record."""
import re

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba import mma_fast
from kernels_numba import tc
from kernels_numba.tools import offline, resources

CFG = mma_fast.CONFIG


def _local_ops(sass):
    return [i for i in resources.parse_sass(sass) if i.base in ("LDL", "STL")]


def test_mma_swizzle_spills_in_ptxas_not_in_ptx():
    """mma_swizzle's PTX keeps everything in registers (no .local): the spill is ptxas's, under launch_bounds' 128
    registers, and nearly all of it lies after the last HMMA, in the epilogue. There literal_unroll over a tuple
    of equal-typed ints is a run-time loop whose body is a chain of compares with the iteration index
    (setp.eq.s64 ..., q), with the work of every case hoisted in front of the loop."""
    r = offline.compile_kernel("mma_swizzle", (9, 0))
    assert ".local" not in r["ptx"]
    assert r["usage"]["stack_bytes"] + r["usage"]["local_bytes"] > 0
    ins = resources.parse_sass(r["sass"])
    last_hmma = max(k for k, i in enumerate(ins) if i.base == "HMMA")
    local = [k for k, i in enumerate(ins) if i.base in ("LDL", "STL")]
    assert sum(k > last_hmma for k in local) >= 0.9 * len(local)
    epilogue = r["ptx"][r["ptx"].rindex("mma.sync"):]
    assert len(re.findall(r"setp\.eq\.s64\s+%p\d+, %rd\d+, \d+;", epilogue)) >= 16


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_mma_fast_has_no_local_memory(cc):
    r = offline.compile_kernel("mma_fast", cc)
    assert ".local" not in r["ptx"] and r["usage"]["local_bytes"] == r["usage"]["stack_bytes"] == 0
    assert not _local_ops(r["sass"])
    # launch_bounds(128, 2): 2 blocks of 128 threads fit 65536 registers with up to 255 each
    assert r["usage"]["registers"] <= 255
    assert r["usage"]["shared_bytes"] == CFG["SMEM_BYTES"] + (1024 if cc >= (9, 0) else 0) == 49152 + (
        1024 if cc >= (9, 0) else 0)
    loop = [i.op for i in resources.main_loop(r["sass"])]
    ksteps = CFG["BK"] // 16
    assert loop.count("HMMA.16816.F32") == CFG["MI"] * CFG["NI"] * ksteps          # 64: fully unrolled
    assert loop.count("LDSM.16.M88.4") == CFG["MI"] * ksteps                       # ldmatrix.x4 for A
    assert loop.count("LDSM.16.MT88.4") == CFG["NI"] // 2 * ksteps                 # ldmatrix.x4.trans for B
    assert any(op.startswith("LDGSTS") for op in loop) and loop.count("BAR.SYNC.DEFER_BLOCKING") == 1
    assert offline.ptx_counts(r["ptx"])["call"] == 0


def _check(launch, M, N, K, alpha=1.0, beta=0.0, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy() if beta != 0 else np.full((M, N), np.nan, np.float32)     # beta = 0: C is never read
    launch(A, B, C, alpha, beta)
    assert np.isfinite(C).all()
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, alpha, beta, C0))
    assert (err <= tc.error_bound(A, B, alpha, beta, C0)).all(), float((err / tc.error_bound(A, B)).max())


def test_default_edges_and_stage_ring():
    """2 x 2 blocks, both ragged at the far edge (M, N no multiple of 128), 4 K tiles with a half last one: the
    3-stage ring wraps around and the zero-filled copies at every edge are exercised."""
    _check(kn.get("mma_fast").launch, 144, 136, 112)


@pytest.mark.parametrize("switches,shape", [
    (dict(GROUP_M=2), (272, 136, 16)),                # 3 block rows: the last raster group has one row
    (dict(prefetch=False, pipelined=False, late_copy=False, swizzle=False, GROUP_M=0, STAGES=2), (48, 40, 80)),
    (dict(pipelined=False, lean=False), (48, 40, 80)),   # the recorded barrier_at_tile_start
    (dict(pipelined=False), (144, 136, 112)),         # lean addresses without the pipeline (no_pipeline)
    (dict(pipelined=False, prefetch=False, late_copy=False), (144, 136, 112)),   # lean, whole inside block, 4 tiles
    (dict(lean=False), (48, 40, 80)),                 # addresses from (row, column) in every tile
    (dict(BK=64), (128, 128, 208)),                   # lean copies in a whole block, 4 k steps, ragged last K tile
    (dict(BK=64, WN=32), (144, 136, 208)),            # 8 warps of 64 x 32 (issue 29's candidate), ragged edges
])
def test_switches_compute_the_same_product(switches, shape):
    _check(mma_fast.make_kernel(**switches)[1], *shape, alpha=1.5, beta=-0.5, seed=2)


def test_block_order_covers_every_tile_once():
    """block_origin with GROUP_M: a permutation of the block tiles (here the host mirror of its arithmetic)."""
    def origin(pid, gm, gn, G):
        per = G * gn
        first = (pid // per) * G
        rows = min(gm - first, G)
        return first + (pid % per) % rows, (pid % per) // rows
    for gm, gn, G in ((3, 2, 2), (17, 5, 8), (8, 8, 8), (1, 7, 8)):
        tiles = {origin(p, gm, gn, G) for p in range(gm * gn)}
        assert tiles == {(m, n) for m in range(gm) for n in range(gn)}


def test_h100_record_is_consistent():
    """course/recorded/gpu_h100_level6_fast.json: the loaded kernel has no local memory and 2 blocks per SM, the
    sanitizers found nothing, and the ratios it states follow from the numbers it keeps."""
    from course import records
    rec = records.load("gpu_h100_level6_fast")
    assert all("H100" in run.gpu for run in rec.runs)
    assert rec["config"]["GROUP_M"] == CFG["GROUP_M"] and rec["config"]["BM"] == CFG["BM"]
    assert rec["final"]["local_bytes"] == 0 and rec["final"]["blocks_per_sm"] == 2
    assert rec["final"]["shared_bytes"] == CFG["SMEM_BYTES"] and rec["previous_best"]["local_bytes"] > 0
    assert rec["ragged_nan_identity_ok"]
    assert all(r["ok"] and r["identity_exact"] for r in rec["correctness"]["mma_fast"])
    assert rec["sanitizer"]["memcheck"] == ["ERROR SUMMARY: 0 errors"] == rec["sanitizer"]["synccheck"]
    assert "0 hazards" in rec["sanitizer"]["racecheck"][0]
    for run, prof in rec["ncu"].items():
        assert rec["ratio_from_ncu_durations_4096"][run]["mma_fast"] == round(
            prof["cublas"]["duration_ns"] / prof["mma_fast"]["duration_ns"], 4)
        assert prof["cublas"]["kernel_name"].startswith("nvjet_sm90")
    _results_follow_the_rows(rec)


def _row_of(run, measured_as, n):
    """The row a record's summary names by its ablation name ('fast': the registered kernel; a variant; 'cuBLAS')."""
    if measured_as in ("cuBLAS", "mma_swizzle"):
        return run.row(measured_as, n)
    return run.row("mma_fast", n, "" if measured_as == "fast" else measured_as)


def _results_follow_the_rows(rec):
    """Every ratio of the record's summary ('results') is its row's TFLOP/s over the same run's cuBLAS; every row's
    ratio is cuBLAS's time over its time."""
    for r in rec["results"]:
        run = rec.run(r["run"])
        row, cub = _row_of(run, r["measured_as"], r["n"]), run.row("cuBLAS", r["n"])
        assert abs(row.tflops / cub.tflops - r["ratio"]) < 1e-4 and abs(cub.tflops - r["cublas_tflops"]) < 0.05
    for run in rec.runs:
        for row in run.rows:
            assert row.ratio == pytest.approx(run.row("cuBLAS", row.n).ms / row.ms, rel=2e-3), (run.id, row.label)


def test_h100_final_runs_meet_the_goal():
    """The record's final runs time the registered kernel (its configuration) and each holds the goal at both sizes,
    each ratio to cuBLAS of the same run; the timed rows come from 5 rotated rounds."""
    from course import records
    rec = records.load("gpu_h100_level6_fast")
    assert len(rec["final_runs"]) == 2
    for run in map(rec.run, rec["final_runs"]):
        assert run.extra["config"] == CFG and "H100" in run.gpu and "rotated" in run.method
        for n, goal in rec["goal"].items():
            fast = run.row("mma_fast", int(n))
            assert fast.ratio >= goal
            assert len(fast.extra["rounds_ms"]) == 5 and fast.extra["local_bytes"] == 0 and fast.extra["ragged_ok"]


def test_h200_record_is_consistent():
    """course/ch10_tensor_core/records/gpu_h200_level6_fast.json: the final kernel on an H200, its ratios follow from its numbers."""
    from course import records
    rec = records.load("gpu_h200_level6_fast")
    assert all("H200" in run.gpu for run in rec.runs) and rec["config"] == CFG and rec["final"]["local_bytes"] == 0
    _results_follow_the_rows(rec)
    graphs = [run for run in rec.runs if all(r.extra["timed_by"] == "graph" for r in run.rows)]
    assert [run.id for run in graphs] == ["h200_graph"]
    for row in graphs[0].rows:
        assert row.ratio == pytest.approx(graphs[0].row("cuBLAS", row.n).ms / row.ms, rel=1e-9) and row.rel_err < 1e-2

