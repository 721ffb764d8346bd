"""course.measure: the size plan that keeps a benchmark cell near 10 s on any GPU, ncu parsing, batched compiles."""
import importlib.util
import inspect
from pathlib import Path

import pytest

import kernels_numba as kn
from course import measure
from sim import occupancy as occ

L2 = ["naive", "tiled", "tiled_pad", "tiled_fma", "tiled_k32"]
L3 = ["tiled", "regblock", "regblock_opt", "regblock_vec"]


def test_recorded_speeds_come_from_the_records():
    ratios, cublas = measure._recorded_speeds()
    assert ratios["naive"] == pytest.approx(0.0247)        # the slowest of naive's three recorded ratios
    assert ratios["regblock_vec"] < ratios["db_overlap"] < 1
    assert 0.5 < cublas < 1                                # cuBLAS reached ~76% of the recorded H200's FP32 peak


@pytest.mark.parametrize("gpu", ["T4", "RTX 3060", "L4", "A100", "H100"])
def test_estimate_grows_with_size_and_has_the_timing_floor(gpu):
    spec = occ.GPUS[gpu]
    est = [measure.estimate_seconds(L2, n, spec) for n in measure.SIZES]
    assert est == sorted(est)
    assert est[0] >= (1 + len(L2)) * measure.MIN_MS / 1e3        # every (size, kernel) is timed for >= MIN_MS


def test_estimate_scales_with_the_fp32_peak():
    """Above the timing floor the estimate is FLOP / speed: a T4 (1/8 of an H100's peak) takes about 8x longer."""
    t4, h100 = occ.GPUS["T4"], occ.GPUS["H100"]
    big = 8192
    ratio = measure.estimate_seconds(["naive"], big, t4) / measure.estimate_seconds(["naive"], big, h100)
    assert ratio == pytest.approx(h100.fp32_peak_tflops / t4.fp32_peak_tflops, rel=0.02)


def test_plan_keeps_everything_on_an_h100_and_drops_4096_with_naive_on_a_t4():
    assert measure.plan_sizes(L2, gpu=occ.GPUS["H100"])["sizes"] == [1024, 2048, 4096]
    t4 = measure.plan_sizes(L2, gpu=occ.GPUS["T4"])
    assert t4["sizes"] == [1024, 2048] and [n for n, _ in t4["dropped"]] == [4096]
    assert t4["seconds"] <= measure.BUDGET_S < t4["seconds"] + t4["dropped"][0][1]
    line, = measure.plan_lines(t4)
    assert "T4" in line and "4096³" in line and "1024³, 2048³" in line
    assert measure.plan_lines(measure.plan_sizes(L2, gpu=occ.GPUS["H100"])) == []


def test_plan_always_keeps_the_smallest_size_and_budget_none_keeps_all():
    slow = measure.plan_sizes(L2, gpu=occ.GPUS["T4"], budget_s=0.01)
    assert slow["sizes"] == [1024] and len(slow["dropped"]) == 2
    assert measure.plan_sizes(L2, (4096, 1024), gpu=occ.GPUS["T4"], budget_s=None)["sizes"] == [1024, 4096]
    with pytest.raises(ValueError):
        measure.plan_sizes(L2, (), gpu=occ.GPUS["T4"])


def test_plan_without_a_gpu_keeps_the_sizes():
    if not kn.device.SIMULATOR:
        pytest.skip("simulator only: on a GPU the plan uses that GPU")
    assert measure.plan_sizes(L3) == {"sizes": [1024, 2048, 4096], "dropped": [], "seconds": None, "gpu": None}


def test_benchmark_and_ncu_are_none_without_a_gpu():
    if not kn.device.SIMULATOR:
        pytest.skip("simulator only")
    assert measure.benchmark(kernels=L3) is None
    assert measure.ncu_shared(kernels=["tiled"]) is None


def test_bench_gpu_exposes_run_for_the_in_process_benchmark():
    path = Path(measure.ROOT) / "benchmarks" / "bench_gpu.py"
    spec = importlib.util.spec_from_file_location("bench_gpu_t", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    params = inspect.signature(mod.run).parameters
    assert list(params)[:5] == ["sizes", "kernels", "on_row", "resources", "log"]


def test_runnable_is_fp32_kernels_in_registry_order():
    names = measure._runnable(None)
    assert names[:2] == ["naive", "tiled"] and "mma_simple" not in names        # f16 Tensor Core kernels: not here
    assert measure._runnable(["regblock_vec", "tiled", "nope"]) == ["tiled", "regblock_vec"]


def test_parse_ncu_csv_names_rows_by_launch_order_or_by_name():
    text = ('==PROF== Disconnected from process 1\n'
            '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
            '"0","tiled(Array<float, 2>)","smsp__inst_executed_op_shared_ld.sum","inst","41,943,040"\n'
            '"0","tiled(Array<float, 2>)","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","","50,331,648"\n'
            '"1","kernels_numba::tiled_pad::kernel","smsp__inst_executed_op_shared_ld.sum","inst","67,108,864"\n')
    by_name = measure.parse_ncu_csv(text)
    assert by_name["tiled"] == {"smsp__inst_executed_op_shared_ld.sum": 41943040,
                                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 50331648}
    assert by_name["kernels_numba"] == {"smsp__inst_executed_op_shared_ld.sum": 67108864}
    by_id = measure.parse_ncu_csv(text, ["tiled", "tiled_pad"])
    assert by_id == {"tiled": by_name["tiled"], "tiled_pad": by_name["kernels_numba"]}
    assert measure.parse_ncu_csv(text, ["tiled"]) == by_name           # a count that does not match: names
    assert measure.shared_table({"tiled": by_id["tiled"]}) == [("tiled", "load", 41943040, 50331648, 1.2)]


def test_compile_many_is_what_try_compile_gives():
    from kernels_numba.infra import offline
    pairs = [("tiled", (9, 0)), ("tiled", [9, 0]), ("tiled_pad", (9, 0))]
    got = measure.compile_many(pairs)
    assert list(got) == [("tiled", (9, 0)), ("tiled_pad", (9, 0))]          # duplicates once, cc as tuples
    for (name, cc), r in got.items():
        assert r["usage"] == offline.try_compile(name, cc)["usage"]
