"""Occupancy model: hand-derived cases from the CUDA rules, properties over a grid, errors, the seed's shortcut,
and a replay of the occupancy API's answers recorded on an H200."""
import json
import pathlib
from dataclasses import replace

import pytest

from kernels_numba.infra.errors import CourseInputError
from course import records
from sim import occupancy as occ
from sim.occupancy import GPUS, occupancy, division_estimate
from kernels_numba import occupancy as kocc

A100, H100, H200 = GPUS["A100"], GPUS["H100"], GPUS["H200"]
RECORDED = records.find("occupancy_check_h200.json")   # chapter 06's records/
KB = 1024


# (gpu, regs, threads, smem, blocks, active warps, limiter) — each derivable by hand:
# regs/warp = ceil(regs/8)*8*32; warps per SM by registers = 4 * (16384 // regs/warp); blocks = that // warps/block
@pytest.mark.parametrize("gpu, regs, threads, smem, blocks, warps, limiter", [
    ("A100", 128, 256, 0, 2, 16, "registers"),         # 4096/warp -> 4 warps per sub-partition -> 16 warps -> 2 blocks
    ("H100", 128, 256, 0, 2, 16, "registers"),
    ("A100", 32, 256, 0, 8, 64, "warps"),              # 1024/warp -> 64 warps; 64 // 8 = 8 blocks: full
    ("A100", 255, 256, 0, 1, 8, "registers"),          # 255 -> 256 -> 8192/warp -> 2 per sub-partition -> 8 warps
    ("A100", 255, 128, 0, 2, 8, "registers"),
    ("A100", 255, 288, 0, 0, 0, "registers"),          # 9 warps, checked as 12 x 8192 = 98304 > 65536: no launch
    ("A100", 64, 1024, 0, 1, 32, "registers"),         # 2048/warp -> 32 warps -> one 32-warp block
    ("A100", 72, 256, 0, 3, 24, "registers"),          # 2304/warp -> 7 per sub-partition -> 28 warps -> 3 blocks
    ("A100", 90, 256, 0, 2, 16, "registers"),          # the seed's 90: 96 -> 3072/warp -> 20 warps -> 2 blocks
    ("A100", 104, 256, 0, 2, 16, "registers"),         # the seed's 104: 3328/warp -> 16 warps -> 2 blocks
    ("A100", 32, 32, 0, 32, 32, "blocks"),             # one-warp blocks hit the 32-block limit first
    ("A100", 32, 256, 48 * KB, 3, 24, "shared memory"),   # 49152 + 1024 = 50176 B; 167936 // 50176 = 3
    ("H100", 32, 256, 48 * KB, 4, 32, "shared memory"),   # 233472 // 50176 = 4
    ("A100", 32, 128, 41 * KB, 3, 12, "shared memory"),   # 43008 B each: 3 (4 without the 1 KB reservation)
    ("A100", 32, 128, 82 * KB, 1, 4, "shared memory"),    # two 82 KB blocks = 164 KB, but 83 KB each with reservation
    ("H100", 32, 128, 57 * KB, 3, 12, "shared memory"),   # 59392 B each: 3 (4 without the reservation)
    ("A100", 128, 256, 17472, 2, 16, "registers"),     # module 8's double buffer: 9 blocks by shared memory, 2 by regs
])
def test_hand_derived_cases(gpu, regs, threads, smem, blocks, warps, limiter):
    r = occupancy(gpu, regs, threads, smem)
    assert (r.blocks_per_sm, r.active_warps, r.limiter) == (blocks, warps, limiter)
    assert r.occupancy == pytest.approx(warps / 64)
    assert r.launchable == (blocks > 0)
    assert r.max_warps == 64 and r.gpu == gpu


def test_allocation_details_128_regs_256_threads():
    r = occupancy(A100, 128, 256, 8192)
    assert r.warps_per_block == 8
    assert (r.regs_allocated_per_thread, r.regs_per_warp, r.regs_per_block) == (128, 4096, 32768)
    assert r.smem_allocated_per_block == 9216 and r.smem_capacity == 164 * KB
    assert r.limits == {"registers": 2, "shared memory": 18, "warps": 8, "blocks": 32}
    assert r.percent == 25.0 and r.limiters == ("registers",)
    assert all(isinstance(s, str) and s for s in r.steps)
    assert "25.0%" in r.steps[-1] and "레지스터" in r.steps[-1]
    assert "25.0%" in r.summary()


def test_full_occupancy_names_the_warp_limit_and_lists_ties():
    r = occupancy(A100, 32, 256)
    assert r.occupancy == 1.0 and r.limiter == "warps" and r.limiters == ("registers", "warps")
    r = occupancy(A100, 32, 200)               # 7 warps: 9 blocks by registers and by warps, 63 of 64 warps
    assert (r.blocks_per_sm, r.active_warps, r.limiters) == (9, 63, ("registers", "warps"))


def test_register_rounding_to_multiples_of_8():
    for regs in range(1, 256):
        up = -(-regs // 8) * 8
        a, b = occupancy(A100, regs, 256), occupancy(A100, min(up, 255), 256)   # 255 is allocated as 256
        assert a.regs_allocated_per_thread == up and a.blocks_per_sm == b.blocks_per_sm


def test_one_kb_reservation_matters():
    no_reserve = replace(A100, smem_reserved_per_block=0)
    assert occupancy(A100, 32, 128, 41 * KB).blocks_per_sm == 3
    assert occupancy(no_reserve, 32, 128, 41 * KB).blocks_per_sm == 4
    assert occupancy(A100, 32, 128, 0).smem_allocated_per_block == 1024     # even a kernel without shared memory
    assert occupancy(A100, 32, 256, 1).smem_allocated_per_block == 1152     # 1025 B rounded up to 128 B


def test_h100_fits_more_shared_memory_blocks_than_a100():
    for smem in (8 * KB, 17472, 32 * KB, 48 * KB, 64 * KB, 100 * KB, 163 * KB):
        a, h = occupancy(A100, 32, 128, smem), occupancy(H100, 32, 128, smem)
        assert h.blocks_per_sm >= a.blocks_per_sm
    assert occupancy(A100, 32, 128, 100 * KB).blocks_per_sm == 1
    assert occupancy(H100, 32, 128, 100 * KB).blocks_per_sm == 2
    assert occupancy(H100, 32, 128, 200 * KB).needs_optin


def test_double_buffering_leaves_register_limited_occupancy_unchanged():
    single = occupancy(A100, 128, 256, 8736)       # module 8 §3.5: As[128][9] + Bs[8][129]
    double = occupancy(A100, 128, 256, 17472)
    assert (single.limits["shared memory"], double.limits["shared memory"]) == (17, 9)
    assert single.blocks_per_sm == double.blocks_per_sm == 2


def test_carveout():
    # the default (None or -1) lets the driver use the whole 164 KB, as the occupancy API assumes
    assert occupancy(A100, 32, 32, 0).smem_capacity == 164 * KB
    assert occupancy(A100, 32, 32, 0, carveout=-1).carveout is None
    # 0 %: no preferred shared memory, but one block (1 KB reservation) needs some -> smallest step, 8 KB -> 8 blocks
    r = occupancy(A100, 32, 32, 0, carveout=0)
    assert (r.smem_capacity, r.blocks_per_sm, r.limiter) == (8 * KB, 8, "shared memory")
    # 50 % of 164 KB = 83968 B -> next supported size 100 KB
    assert occupancy(A100, 32, 32, 0, carveout=50).smem_capacity == 100 * KB
    assert occupancy(H100, 32, 32, 0, carveout=50).smem_capacity == 132 * KB
    # a preference too small for one block is only a hint: the smallest size holding one block is used
    r = occupancy(A100, 32, 256, 48 * KB, carveout=10)
    assert (r.smem_capacity, r.blocks_per_sm) == (64 * KB, 1)
    assert occ.carveout_step(A100, 1) == 8 * KB and occ.carveout_step(H100, 200 * KB) == 228 * KB


def test_properties_over_a_grid():
    regs_grid = (1, 16, 24, 32, 40, 63, 64, 65, 90, 104, 128, 129, 168, 200, 255)
    threads_grid = (32, 64, 96, 128, 200, 256, 384, 512, 768, 1024)
    smem_grid = (0, 1024, 8736, 17472, 41 * KB, 48 * KB, 64 * KB, 100 * KB, 163 * KB)
    for gpu in (A100, H100):
        for t in threads_grid:
            for s in smem_grid:
                prev = None
                for r in regs_grid:
                    o = occupancy(gpu, r, t, s)
                    assert 0 <= o.blocks_per_sm <= 32 and 0 <= o.active_warps <= 64
                    assert o.blocks_per_sm * o.regs_per_block <= 65536
                    assert o.blocks_per_sm * o.smem_allocated_per_block <= o.smem_capacity
                    assert o.blocks_per_sm == min(o.limits.values())
                    if prev is not None:                   # more registers never fit more blocks
                        assert o.blocks_per_sm <= prev.blocks_per_sm
                    prev = o
            for r in regs_grid:                            # more shared memory never fits more blocks
                blocks = [occupancy(gpu, r, t, s).blocks_per_sm for s in smem_grid]
                assert blocks == sorted(blocks, reverse=True)


def test_seed_shortcut_reproduces_its_figures_and_overestimates():
    s90, s104 = division_estimate(90), division_estimate(104)
    assert (s90.threads, s90.warps, s90.threads_in_warps) == (728, 22, 704)
    assert round(100 * s90.occupancy, 1) == 34.4
    assert (s104.threads, s104.warps, s104.threads_in_warps) == (630, 19, 608)
    assert round(100 * s104.occupancy, 1) == 29.7
    assert len(s90.steps) == 3
    # the real rules for the seed's own 256-thread block: 25 % for both
    assert occupancy(A100, 90, 256).percent == occupancy(A100, 104, 256).percent == 25.0
    # even without block rounding (32-thread blocks) the granularity gives 20 and 16 warps, not 22 and 19
    assert occupancy(A100, 90, 32).active_warps == 20 and occupancy(A100, 104, 32).active_warps == 16
    for regs in range(1, 256):                  # the shortcut never underestimates
        assert occupancy(A100, regs, 256).occupancy <= min(division_estimate(regs).occupancy, 1.0)


def test_specs():
    assert A100.fp32_peak_tflops == pytest.approx(19.49, abs=0.01)      # 108 x 64 x 2 x 1.41 GHz
    assert H100.fp32_peak_tflops == pytest.approx(66.91, abs=0.01)      # 132 x 128 x 2 x 1.98 GHz
    assert (A100.smem_per_sm, A100.smem_per_block_optin, A100.l1_smem_total) == (167936, 166912, 196608)
    assert (H100.smem_per_sm, H100.smem_per_block_optin, H100.l1_smem_total) == (233472, 232448, 262144)
    for g in (A100, H100, H200):
        assert (g.regs_per_sm, g.max_regs_per_thread, g.reg_alloc_unit, g.max_warps_per_sm, g.max_blocks_per_sm,
                g.max_threads_per_block, g.smem_reserved_per_block, g.max_threads_per_sm) == \
               (65536, 255, 256, 64, 32, 1024, 1024, 2048)
        assert g.carveout_steps_kb[-1] * KB == g.smem_per_sm
    assert (A100.arch, H100.arch, A100.sm_count, H100.sm_count, H200.sm_count) == ("sm_80", "sm_90", 108, 132, 132)


@pytest.mark.parametrize("args", [
    (A100, 256, 256, 0), (A100, -1, 256, 0), (A100, 32, 0, 0), (A100, 32, 1025, 0),
    (A100, 32, 256, 163 * KB + 1), (A100, 32, 256, -1), (A100, 32, 256, 0, 101), (A100, 32, 256, 0, -2),
    (A100, 2.5, 256, 0), (A100, "32", 256, 0), (A100, True, 256, 0), ("V100", 32, 256, 0),
])
def test_bad_input_is_a_course_error(args):
    with pytest.raises(CourseInputError) as e:
        occupancy(*args)
    text = str(e.value)
    assert "[입력 오류]" in text and "[Input error]" in text and "해결" in text and "Fix" in text


def test_h100_takes_what_a100_refuses():
    assert occupancy(H100, 32, 256, 200 * KB).blocks_per_sm == 1
    with pytest.raises(CourseInputError, match="163 KiB"):
        occupancy(A100, 32, 256, 200 * KB)


def test_occupancy_of_kernel():
    r = occ.occupancy_of_kernel({"registers": 122, "shared_bytes": 8192, "block": (16, 16)}, "H100")
    assert (r.blocks_per_sm, r.threads_per_block, r.smem_per_block) == (2, 256, 8192)
    r = occ.occupancy_of_kernel({"registers": 32, "shared_bytes": 2048, "dynamic_shared_bytes": 46 * KB,
                                 "threads": 256}, A100)
    assert r.smem_per_block == 48 * KB and r.blocks_per_sm == 3
    with pytest.raises(CourseInputError):
        occ.occupancy_of_kernel({"shared_bytes": 0, "threads": 256}, A100)


def test_sweep_and_no_gpu_here():
    sweep = occ.sweep_registers(A100, 256)
    assert [r for r, _ in sweep] == list(range(1, 256))
    assert dict(sweep)[128].percent == 25.0
    from kernels_numba.infra import device
    if device.MODE != "gpu":
        assert kocc.current_gpu() is None


def test_recorded_h200_attributes_give_the_table_entry():
    rec = records.load("occupancy_check_h200")
    spec = occ.spec_from_attributes(rec.gpu, rec.cc, rec["device_attributes"])
    assert spec.name == "NVIDIA H200"
    assert replace(spec, name="H200") == H200
    assert rec["table_vs_device"] == {} and rec["board_vs_table"] == {}


def test_model_replays_the_occupancy_api_recorded_on_h200():
    """Every recorded answer of cuOccupancyMaxActiveBlocksPerMultiprocessor (H200) is what the model computes."""
    rec = records.load("occupancy_check_h200")
    assert rec["agree"] == rec["total"] > 10000 and rec["mismatches"] == []
    assert rec["row_fields"] == ["regs", "static", "block", "dyn", "carveout", "optin", "api"]
    rows = rec["rows"]
    assert len(rows) > 2000 and {r[4] for r in rows} == {-1, 0, 10, 25, 50, 75, 100}
    assert any(r[6] == 0 for r in rows) and max(r[0] for r in rows) == 255
    for regs, static, block, dyn, carveout, optin, api in rows:
        assert occupancy(H200, regs, block, static + dyn, carveout).blocks_per_sm == api, (regs, static, block, dyn)


# ------------------------------------------------------------------ the GPUs students have (issue 17)
STUDENT_GPUS = ("T4", "RTX 3060", "RTX 3090", "RTX 4090", "L4", "RTX 5090")


@pytest.mark.parametrize("gpu, cc, sms, tflops", [
    ("T4", (7, 5), 40, 8.1), ("RTX 3060", (8, 6), 28, 12.7), ("RTX 3090", (8, 6), 82, 35.6),
    ("RTX 4090", (8, 9), 128, 82.6), ("L4", (8, 9), 58, 30.3), ("RTX 5090", (12, 0), 170, 104.8),
    ("A100", (8, 0), 108, 19.5), ("H100", (9, 0), 132, 66.9),
])
def test_product_figures_give_the_datasheet_fp32_peak(gpu, cc, sms, tflops):
    """SM count x FP32 lanes x 2 x boost clock reproduces each board's published FP32 TFLOPS (to 0.1)."""
    g = GPUS[gpu]
    assert (g.cc, g.sm_count) == (cc, sms)
    assert round(g.fp32_peak_tflops, 1) == tflops


@pytest.mark.parametrize("cc, warps, blocks, smem_kb, optin_kb, reserved", [
    ((7, 5), 32, 16, 64, 64, 0),       # T4: 1024 threads, 16 blocks, 64 KB, no reservation
    ((8, 0), 64, 32, 164, 163, KB),
    ((8, 6), 48, 16, 100, 99, KB),     # RTX 30xx: 1536 threads, 16 blocks, 100 KB (the figures)
    ((8, 9), 48, 24, 100, 99, KB),
    ((9, 0), 64, 32, 228, 227, KB),
    ((12, 0), 48, 24, 100, 99, KB),
])
def test_arch_limits(cc, warps, blocks, smem_kb, optin_kb, reserved):
    a = occ.arch_spec(cc)
    assert (a.max_warps_per_sm, a.max_blocks_per_sm, a.smem_per_sm, a.smem_per_block_optin,
            a.smem_reserved_per_block) == (warps, blocks, smem_kb * KB, optin_kb * KB, reserved)
    assert (a.regs_per_sm, a.regs_per_block, a.max_regs_per_thread, a.max_threads_per_block) == \
        (65536, 65536, 255, 1024)
    assert a.carveout_steps_kb[-1] == smem_kb and a.smem_alloc_unit == (256 if cc[0] == 7 else 128)


def test_every_figure_names_its_source():
    for g in GPUS.values():
        for f in ("sm_count", "boost_clock_mhz", "fp32_lanes_per_sm", "smem_per_sm", "smem_per_block_optin",
                  "max_warps_per_sm", "max_blocks_per_sm", "regs_per_sm", "smem_reserved_per_block",
                  "smem_alloc_unit", "carveout_steps_kb", "l1_smem_total"):
            assert g.source.get(f, "").startswith("["), (g.name, f)
    with pytest.raises(CourseInputError):
        occ.arch_spec((7, 0))


def test_same_compute_capability_same_rules():
    for a, b in (("RTX 3060", "RTX 3090"), ("RTX 4090", "L4"), ("H100", "H200")):
        rules = [replace(GPUS[g], name="", sm_count=0, boost_clock_mhz=0) for g in (a, b)]
        assert rules[0] == rules[1]


def test_one_warp_blocks_per_compute_capability():
    """A one-warp block (mma_large: 32 threads) is limited by the block count: 16 (7.5, 8.6), 24 (8.9, 12.0), 32 (8.0,
    9.0) of 32/48/64 warps; notebook 10's table (course/lesson10.CC_LIMITS) uses the same figures."""
    from course.ch10_tensor_core import lesson as lesson10
    got = {cc: occupancy(occ.arch_spec(cc), 32, 32, 768).blocks_per_sm for cc in occ.ARCH_LIMITS}
    assert got == {(7, 5): 16, (8, 0): 32, (8, 6): 16, (8, 9): 24, (9, 0): 32, (12, 0): 24}
    for cc, (blocks, warps) in lesson10.CC_LIMITS.items():
        assert (occ.arch_spec(cc).max_blocks_per_sm, occ.arch_spec(cc).max_warps_per_sm) == (blocks, warps)


def test_turing_carveout_and_no_reservation():
    t4 = GPUS["T4"]
    assert occupancy(t4, 32, 128, 0).limits["shared memory"] == occ.UNLIMITED      # no shared memory, no reservation
    assert occupancy(t4, 32, 128, 0, carveout=0).smem_capacity == 32 * KB          # Turing's smallest carveout
    assert occupancy(t4, 32, 256, 48 * KB).blocks_per_sm == 1                        # 48 KB blocks: one per 64 KB SM
    assert occupancy(t4, 32, 128, 16 * KB).blocks_per_sm == 4
    assert occupancy(t4, 32, 32, 0).blocks_per_sm == 16 and occupancy(t4, 32, 1024, 0).percent == 100.0


_HARNESS = r"""
#include <cstdio>
#include "cuda_occupancy.h"
int main() {   // D major minor threads/SM smem/SM optin reserved, then Q regs threads smem carveout -> blocks per SM
    char kind; cudaOccDeviceProp p; cudaOccDeviceState st;
    while (scanf(" %c", &kind) == 1) {
        if (kind == 'D') {
            long smsm, optin, res;
            if (scanf("%d %d %d %ld %ld %ld", &p.computeMajor, &p.computeMinor, &p.maxThreadsPerMultiprocessor,
                      &smsm, &optin, &res) != 6) return 2;
            p.maxThreadsPerBlock = 1024; p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536; p.warpSize = 32;
            p.sharedMemPerBlock = 48 * 1024; p.sharedMemPerMultiprocessor = smsm; p.numSms = 1;
            p.sharedMemPerBlockOptin = optin; p.reservedSharedMemPerBlock = res;
        } else {
            int regs, threads, carve; long smem;
            if (scanf("%d %d %ld %d", &regs, &threads, &smem, &carve) != 4) return 2;
            cudaOccFuncAttributes a; a.maxThreadsPerBlock = 1024; a.numRegs = regs; a.sharedSizeBytes = 0;
            a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
            a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin; a.numBlockBarriers = 1;
            st.carveoutConfig = carve;
            cudaOccResult r;
            cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &st, threads, smem);
            if (e != CUDA_OCC_SUCCESS) printf("E%d\n", (int)e); else printf("%d\n", r.activeBlocksPerMultiprocessor);
        }
    }
    return 0;
}
"""


def test_model_equals_cuda_occupancy_h_for_every_compute_capability(tmp_path):
    """NVIDIA's calculator (cuda_occupancy.h of the installed CUDA 13 runtime wheel, compiled with g++) and the model
    agree for every compute capability in ARCH_LIMITS over a grid of registers, threads, shared memory and carveouts.
    (The H200 row is also checked against the driver itself: test_model_replays_the_occupancy_api_recorded_on_h200.)"""
    import glob
    import shutil
    import subprocess
    import nvidia
    headers = [h for root in nvidia.__path__ for h in glob.glob(f"{root}/**/include/cuda_occupancy.h", recursive=True)]
    cxx = shutil.which("g++") or shutil.which("c++")
    if not headers or not cxx:
        pytest.skip("g++ 또는 cuda_occupancy.h 가 없습니다 / no g++ or cuda_occupancy.h (nvidia-cuda-runtime wheel)")
    (tmp_path / "h.cpp").write_text(_HARNESS)
    exe = tmp_path / "h"
    include = str(pathlib.Path(headers[0]).parent)
    subprocess.run([cxx, "-O1", "-w", "-I", include, "-o", str(exe), str(tmp_path / "h.cpp")], check=True,
                   capture_output=True)
    lines, expect = [], []
    for cc in occ.ARCH_LIMITS:
        a = occ.arch_spec(cc)
        lines.append(f"D {cc[0]} {cc[1]} {a.max_threads_per_sm} {a.smem_per_sm} {a.smem_per_block_optin} "
                     f"{a.smem_reserved_per_block}")
        for regs in (1, 24, 32, 40, 64, 65, 96, 128, 168, 200, 255):
            for threads in (32, 96, 128, 200, 256, 512, 768, 1024):
                for smem in (0, 1, 2048, 8736, 17472, 41 * KB, 48 * KB, 64 * KB, 99 * KB, 163 * KB, 227 * KB):
                    if smem > a.smem_per_block_optin:
                        continue
                    for carveout in (-1, 0, 25, 50, 100):
                        lines.append(f"Q {regs} {threads} {smem} {carveout}")
                        o = occupancy(a, regs, threads, smem, None if carveout == -1 else carveout)
                        expect.append((cc, regs, threads, smem, carveout, o.blocks_per_sm))
    out = subprocess.run([str(exe)], input="\n".join(lines), capture_output=True, text=True, check=True).stdout.split()
    assert len(out) == len(expect) > 10000
    wrong = [(e, got) for e, got in zip(expect, out) if str(e[-1]) != got]
    assert wrong == [], wrong[:10]


def test_mean_warps_per_scheduler_counts_the_last_wave():
    """Issue 27: 2048^3 in 128 x 128 tiles is 256 blocks in 132 x 2 slots: 3.88 warps per scheduler, not 4; a full
    wave gives 4; 4096^3 (1024 blocks, 4 waves, the last partly empty) averages 3.88 too."""
    assert occ.mean_warps_per_scheduler(256, 2, 8, 132) == pytest.approx(256 * 8 / (132 * 4))
    assert occ.mean_warps_per_scheduler(264, 2, 8, 132) == 4
    assert occ.mean_warps_per_scheduler(1024, 2, 8, 132) == pytest.approx(1024 * 8 / (4 * 132 * 4))
    with pytest.raises(CourseInputError, match="blocks_per_sm은"):
        occ.mean_warps_per_scheduler(256, 0, 8, 132)
