"""course.measure: the size plan that keeps a benchmark cell near its time budget on any GPU (compiles included), the
benchmark run with its progress bar (a numpy stand-in for CuPy on the simulator, the real thing on a GPU), ncu parsing
of realistic Numba kernel names, the ncu watchdog, batched compiles."""
import dataclasses
import os
import shutil
import sys
import textwrap
import time
import types

import numpy as np
import pytest

import kernels_numba as kn
from course import measure
from sim import occupancy as occ
from kernels_numba import occupancy as kocc

L2 = ["naive", "tiled", "tiled_pad", "tiled_fma", "tiled_k32"]
L3 = ["tiled", "regblock", "regblock_opt", "regblock_vec"]
UNKNOWN = dataclasses.replace(occ.GPUS["T4"], name="Orin", cc=(8, 7), fp32_lanes_per_sm=0)   # not in the table


class RecordingBar:
    """Stands in for course.steps.Bar: records its total, the updates and whether it was closed."""
    made = []

    def __init__(self, total, desc, unit="단계"):
        self.total, self.desc, self.n, self.closed = total, desc, 0, False
        RecordingBar.made.append(self)

    def update(self, n=1, note=None):
        self.n += n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True
        return False


@pytest.fixture
def bars(monkeypatch):
    import course.steps
    RecordingBar.made = []
    monkeypatch.setattr(course.steps, "Bar", RecordingBar)
    return RecordingBar.made


# ---- the plan ------------------------------------------------------------------------------------------------------

def test_recorded_speeds_come_from_the_records():
    ratios, cublas = measure._recorded_speeds()
    assert ratios["naive"] == pytest.approx(0.0243, abs=5e-5)     # the slowest recorded ratio: H100, 4096³
    assert ratios["regblock_vec"] < ratios["db_overlap"] < 1
    assert 0.5 < cublas < 1                                # cuBLAS reached ~76% of the recorded H200's FP32 peak


@pytest.mark.parametrize("gpu", ["T4", "RTX 3060", "L4", "A100", "H100"])
def test_estimate_grows_with_size_and_has_the_timing_floor(gpu):
    spec = occ.GPUS[gpu]
    est = [measure.estimate_seconds(L2, n, spec) for n in measure.SIZES]
    assert est == sorted(est)
    from course import bench
    # every (size, entry) is timed for >= the live table's MIN_MS in each round
    assert est[0] >= (1 + len(L2)) * measure.ROUNDS * measure.MIN_MS / 1e3


def test_estimate_scales_with_the_fp32_peak():
    """Above the timing floor the estimate is FLOP / speed: a T4 (1/8 of an H100's peak) takes about 8x longer."""
    t4, h100 = occ.GPUS["T4"], occ.GPUS["H100"]
    big = 8192
    ratio = measure.estimate_seconds(["naive"], big, t4) / measure.estimate_seconds(["naive"], big, h100)
    assert ratio == pytest.approx(h100.fp32_peak_tflops / t4.fp32_peak_tflops, rel=0.02)
    # a peak given by the caller (a cuBLAS probe) replaces the spec's
    assert measure.estimate_seconds(["naive"], big, UNKNOWN, peak_tflops=t4.fp32_peak_tflops) == \
        pytest.approx(measure.estimate_seconds(["naive"], big, t4))


def test_plan_keeps_everything_on_an_h100_and_drops_4096_with_naive_on_a_t4():
    assert measure.plan_sizes(L2, gpu=occ.GPUS["H100"], compile_s=0)["sizes"] == [1024, 2048, 4096]
    t4 = measure.plan_sizes(L2, gpu=occ.GPUS["T4"], compile_s=0)
    assert t4["sizes"] == [1024, 2048] and [n for n, _ in t4["dropped"]] == [4096]
    assert t4["seconds"] <= measure.BUDGET_S < t4["seconds"] + t4["dropped"][0][1]
    line, = measure.plan_lines(t4)
    assert "T4" in line and "4096³" in line and "1024³, 2048³" in line
    assert "measure.benchmark(..., sizes=(1024, 2048, 4096)) 를 부르세요." in line
    assert measure.plan_lines(measure.plan_sizes(L2, gpu=occ.GPUS["H100"], compile_s=0)) == []


def test_plan_counts_compiling_against_the_budget():
    """Compiling is part of the cell's time: with 7 s of compiles an H100 drops 4096³ it keeps without them, and the
    plan's seconds are the compile part plus the GPU part."""
    free = measure.plan_sizes(L2, gpu=occ.GPUS["H100"], compile_s=0)
    busy = measure.plan_sizes(L2, gpu=occ.GPUS["H100"], compile_s=7.0)
    assert free["sizes"] == [1024, 2048, 4096]
    assert busy["compile"] == 7.0 and busy["sizes"] == [1024, 2048]
    gpu_part = sum(measure.estimate_seconds(L2, n, occ.GPUS["H100"], first=(n == 1024)) for n in (1024, 2048))
    assert busy["seconds"] == pytest.approx(7.0 + gpu_part) and busy["seconds"] <= measure.BUDGET_S
    assert free["seconds"] > gpu_part
    line, = measure.plan_lines(busy)
    assert "약 7초" in line and "컴파일" in line
    # compiles alone over the budget: the smallest size, still measured
    assert measure.plan_sizes(L2, gpu=occ.GPUS["H100"], compile_s=60)["sizes"] == [1024]


def test_compile_seconds_count_kernels_not_compiled_yet_and_cupy_once():
    assert measure.compile_seconds(L2, compiled={"tiled"}, cupy_warm=False) == \
        4 * measure.JIT_S + measure.CUPY_WARMUP_S
    assert measure.compile_seconds(L2, compiled=set(L2), cupy_warm=True) == 0


def test_compile_seconds_ask_the_numba_dispatchers(monkeypatch):
    """Without `compiled`, a kernel counts as compiled when its dispatcher has an overload (numba's `overloads`)."""
    real_get = kn.get

    def get(name):
        spec = real_get(name)
        overloads = {"sig": object()} if name in ("tiled", "naive") else {}
        module = types.SimpleNamespace(kernel=types.SimpleNamespace(overloads=overloads))
        return dataclasses.replace(spec, module=module)
    monkeypatch.setattr(kn, "get", get)
    monkeypatch.setattr(measure, "_CUPY_WARM", [True])
    assert measure.compile_seconds(L2) == 3 * measure.JIT_S
    monkeypatch.setattr(measure, "_CUPY_WARM", [])
    assert measure.compile_seconds(["tiled"]) == measure.CUPY_WARMUP_S


def test_plan_always_keeps_the_smallest_size_and_budget_none_keeps_all():
    slow = measure.plan_sizes(L2, gpu=occ.GPUS["T4"], budget_s=0.01, compile_s=0)
    assert slow["sizes"] == [1024] and len(slow["dropped"]) == 2
    assert measure.plan_sizes(L2, (4096, 1024), gpu=occ.GPUS["T4"], budget_s=None)["sizes"] == [1024, 4096]
    with pytest.raises(ValueError):
        measure.plan_sizes(L2, (), gpu=occ.GPUS["T4"])


def test_a_gpu_the_table_does_not_know_is_planned_conservatively():
    """CC 8.7 / 10.x / 12.1 boards: spec_from_attributes gives 0 FP32 lanes, so the peak is 0. The estimate refuses
    to guess, the plan keeps only the smallest size and says why; a probed peak (peak_tflops) plans normally."""
    assert UNKNOWN.fp32_peak_tflops == 0
    with pytest.raises(ValueError, match="FP32"):
        measure.estimate_seconds(L2, 1024, UNKNOWN)
    plan = measure.plan_sizes(L2, gpu=UNKNOWN, compile_s=0)
    assert plan["sizes"] == [1024] and [n for n, _ in plan["dropped"]] == [2048, 4096]
    assert plan["peak_known"] is False and plan["seconds"] is None
    line, = measure.plan_lines(plan)
    assert "Orin" in line and "FP32 피크를 모릅니다" in line and "1024³ 만" in line and "0.0" not in line
    probed = measure.plan_sizes(L2, gpu=UNKNOWN, compile_s=0, peak_tflops=occ.GPUS["T4"].fp32_peak_tflops)
    as_t4 = measure.plan_sizes(L2, gpu=occ.GPUS["T4"], compile_s=0)
    assert probed["sizes"] == as_t4["sizes"] and probed["peak_from"] == "cuBLAS"
    assert "cuBLAS 로 잠깐 잰 속도" in measure.plan_lines(probed)[0]


def test_plan_without_a_gpu_keeps_the_sizes():
    if not kn.device.SIMULATOR:
        pytest.skip("simulator only: on a GPU the plan uses that GPU")
    assert measure.plan_sizes(L3) == {"sizes": [1024, 2048, 4096], "dropped": [], "seconds": None, "compile": None,
                                      "gpu": None, "peak_known": False}


def test_benchmark_and_ncu_are_none_without_a_gpu():
    if not kn.device.SIMULATOR:
        pytest.skip("simulator only")
    assert measure.benchmark(kernels=L3) is None
    assert measure.ncu_shared(kernels=["tiled"]) is None


def test_runnable_is_fp32_kernels_in_registry_order():
    names = measure._runnable(None)
    assert names[:2] == ["naive", "tiled"] and "mma_simple" not in names        # f16 Tensor Core kernels: not here
    assert measure._runnable(["regblock_vec", "tiled", "nope"]) == ["tiled", "regblock_vec"]


# ---- the benchmark run: a numpy stand-in for CuPy on the simulator ---------------------------------------------------

def _numpy_cupy():
    """A module with the part of CuPy's API course.bench.run uses, on numpy arrays (events: wall clock)."""
    class Event:
        def record(self, stream=None):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

    class Rng:
        def __init__(self, seed):
            self.g = np.random.default_rng(seed)

        def standard_normal(self, shape, dtype=np.float64):
            return self.g.standard_normal(shape, dtype=dtype)

    class Stream:
        null = None

        def __init__(self, non_blocking=False):
            self.ptr = 0

        def synchronize(self):
            pass

    Stream.null = Stream()
    cuda = types.SimpleNamespace(
        Event=Event, Stream=Stream, get_current_stream=lambda: Stream.null,
        Device=lambda *a: types.SimpleNamespace(synchronize=lambda: None),
        get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3,
        runtime=types.SimpleNamespace(driverGetVersion=lambda: 0, runtimeGetVersion=lambda: 0))
    cp = types.ModuleType("cupy")
    cp.__version__ = "numpy stand-in"
    cp.cuda, cp.linalg = cuda, np.linalg
    cp.random = types.SimpleNamespace(default_rng=Rng)
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_all_blocks=lambda: None)
    for name in ("float16", "float32", "float64", "nan", "empty", "full", "isfinite", "matmul"):
        setattr(cp, name, getattr(np, name))
    return cp


class _NumpyCublas:
    """course.bench.Cublas on numpy: C = A @ B."""
    def call(self, A, B, C, stream_ptr=0):
        def fn():
            C[...] = A.astype(np.float32) @ B.astype(np.float32)
        return fn


@pytest.fixture
def stand_in(monkeypatch):
    """Simulator as a 'GPU' for measure.benchmark: CuPy on numpy, device arrays wrapping the same numpy memory."""
    from numba import cuda
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    from course import bench
    monkeypatch.setitem(sys.modules, "cupy", _numpy_cupy())
    monkeypatch.setattr(cuda, "as_cuda_array", FakeCUDAArray, raising=False)
    monkeypatch.setattr(cuda, "get_current_device",
                        lambda: types.SimpleNamespace(name=b"Simulator", compute_capability=(8, 0)))
    monkeypatch.setattr(measure, "have_gpu", lambda: True)
    monkeypatch.setattr(bench, "available", lambda: "")
    monkeypatch.setattr(bench, "Cublas", _NumpyCublas)
    monkeypatch.setattr(bench, "other_processes", lambda: [])
    monkeypatch.setattr(bench, "ClockLog", lambda: None)
    # simulated launches take as long on the host as "on the GPU": no graph (it needs a real stream capture)
    monkeypatch.setattr(bench, "HOST_AHEAD", float("inf"))
    monkeypatch.setattr(bench, "MIN_MS", 1.0)
    monkeypatch.setattr(measure, "MIN_MS", 1.0)
    monkeypatch.setattr(bench, "BURST_MS", 1.0)
    monkeypatch.setattr(kocc, "current_gpu", lambda: occ.GPUS["T4"])


@pytest.mark.sim_only("a numpy stand-in replaces CuPy and the simulator the GPU (on a GPU: the gpu_only test below)")
def test_benchmark_bar_reaches_its_total_and_progress_false_makes_none(stand_in, bars):
    run = measure.benchmark(sizes=(16,), kernels=["tiled", "naive"], rounds=2)
    assert [(r.n, r.kernel) for r in run.rows] == [(16, "cuBLAS"), (16, "naive"), (16, "tiled")]
    assert all(r.correct for r in run.rows) and all(r.ratio > 0 for r in run.rows)
    assert all(len(r.extra["rounds_ms"]) == 2 and r.extra["timed_by"] == "events" and r.host_us > 0 for r in run.rows)
    bar, = bars                                               # one bar, at its total: tqdm leaves it green
    assert bar.total == bar.n == len(run.rows) and bar.closed
    assert run.gpu == "Simulator" and run.baseline.startswith("cuBLAS SGEMM")
    again = measure.benchmark(sizes=(16,), kernels=["naive"], progress=False, rounds=1)
    assert len(bars) == 1 and len(again.rows) == 2            # no second bar


@pytest.mark.sim_only("a numpy stand-in replaces CuPy and the simulator the GPU")
def test_bench_run_checks_before_timing_and_calls_on_row_once_per_row(stand_in, monkeypatch):
    from course import bench
    seen = []
    run = bench.run(["naive", "tiled"], (16, 24), rounds=1, on_row=seen.append, clocks=False)
    assert list(run.rows) == seen and len(seen) == 2 * (1 + 2)
    assert {r.n for r in run.rows} == {16, 24} and all(r.correct for r in run.rows)
    with pytest.raises(ValueError, match="one input dtype"):
        bench.run(["naive", "mma_simple"], (16,), rounds=1, clocks=False)
    # a kernel that writes nothing leaves NaN in C: not correct, whatever its speed
    spec = kn.get("naive")
    broken = lambda A, B, C, alpha=1.0, beta=0.0: C                      # noqa: E731
    broken.bind = spec.launch.bind
    row = next(r for r in bench.run(["naive"], (16,), rounds=1, clocks=False,
                                    variants={"noop": ("naive", broken)}).rows if r.variant == "noop")
    assert row.correct is False and row.kernel == "naive"


@pytest.mark.sim_only("a numpy stand-in replaces CuPy and the simulator the GPU")
def test_bench_run_times_cublas_with_f16_output_beside_kernels_that_write_f16(stand_in):
    """A run with an f16-output kernel (mma_pipe_f16out's configuration here: numpy computes it) times cuBLAS with f16
    output in the same rounds; each kernel row says its output and its ratio to the cuBLAS of that output."""
    from course import bench

    def f16out(A, B, C, alpha=1.0, beta=0.0):
        AB = np.asarray(A).astype(np.float32) @ np.asarray(B).astype(np.float32)
        C[...] = (alpha * AB + (beta * np.asarray(C).astype(np.float32) if beta else 0)).astype(C.dtype)   # BLAS
        return C
    f16out.bind = kn.get("mma_pipe_f16out").launch.bind
    run = bench.run([], (32,), rounds=2, clocks=False, graphs=False, variants={"numpy": ("mma_pipe_f16out", f16out)})
    rows = {r.label: r for r in run.rows}
    assert list(rows) == ["cuBLAS", bench.F16OUT, "mma_pipe_f16out[numpy]"]
    assert all(r.correct for r in run.rows), [(r.label, r.correct, r.rel_err) for r in run.rows]
    assert run.baseline == bench.HGEMM and "never from graphs" in run.method
    k, f16 = rows["mma_pipe_f16out[numpy]"], rows[bench.F16OUT]
    assert k.extra["output"] == "f16" and k.extra["ratio_same_output"] == pytest.approx(f16.ms / k.ms)
    assert k.ratio == pytest.approx(rows["cuBLAS"].ms / k.ms) and "output" not in f16.extra


def test_live_lines_compare_with_the_record_of_the_same_gpu_class():
    from course import records
    rec = records.load("gpu_h200_levels34").run()
    same = dataclasses.replace(rec, id="live", rows=tuple(r for r in rec.rows if r.n == 2048))
    text = "\n".join(measure.live_lines(same))
    assert "기록과 비교" in text and "모두" in text and "⚠️" not in text
    off = tuple(dataclasses.replace(r, ratio=r.ratio - 0.2) if r.kernel == "regblock_vec" else r for r in same.rows)
    text = "\n".join(measure.live_lines(dataclasses.replace(same, rows=off)))
    assert "⚠️" in text and "regblock_vec" in text and "20.0%p" in text
    other = dataclasses.replace(same, gpu="Tesla T4")
    assert "T4 에서 잰 기록이 없어" in "\n".join(measure.live_lines(other))
    busy = dataclasses.replace(same, flagged="other processes were computing on this GPU (pid 7)")
    assert "믿기 어렵습니다" in "\n".join(measure.live_lines(busy))


# ---- ncu: realistic Numba kernel names, the run and its watchdog ------------------------------------------------------

ABI = "[abi:v1,cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1PQBk0Bynm21OiwU1a0UoLGhDpQE8oxrNQE_3d]"
ARGS = "(Array<float, 2, C, mutable, aligned>, Array<float, 2, C, mutable, aligned>, " \
       "Array<float, 2, C, mutable, aligned>, float, float)"
HEAD = '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
LD, WF = "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
LAUNCHED = [("tiled", "kernels_numba.tiled", "kernel"), ("tiled_pad", "kernels_numba.tiled_pad", "kernel")]


def _row(i, name, metric, value):
    return f'"{i}","4242","{name}","{metric}","inst","{value}"\n'


def test_parse_ncu_csv_matches_numba_kernel_names_to_the_launches():
    """ncu prints a Numba kernel as '<module>::kernel[abi:...](Array<...>, ...)' (course/recorded/
    gpu_h100_level6_fast.json: 'mma_fast::kernel[abi:v1,...]'), or with 'cudapy::kernels_numba::' in front."""
    text = ("==PROF== Connected to process 4242\n" + HEAD +
            _row(0, "tiled::kernel" + ABI + ARGS, LD, "41,943,040") +
            _row(0, "tiled::kernel" + ABI + ARGS, WF, "50,331,648") +
            _row(1, "fill_kernel(float*, int)", LD, "0") +            # someone else's kernel: no launch of ours
            _row(2, "cudapy::kernels_numba::tiled_pad::kernel" + ABI + ARGS, LD, "67,108,864"))
    got = measure.parse_ncu_csv(text, LAUNCHED)
    assert got["tiled"] == {LD: 41943040, WF: 50331648}
    assert got["tiled_pad"] == {LD: 67108864}
    assert got["fill_kernel"] == {LD: 0}                              # by its own name, not mixed into ours
    assert measure.shared_table({"tiled": got["tiled"]}) == [("tiled", "load", 41943040, 50331648, 1.2)]


def test_parse_ncu_csv_uses_launch_order_when_names_do_not_decide():
    """Names without the module ('kernel[abi:...]', as some ncu versions print them): the n-th profiled launch is the
    n-th launch ncu_banks.py reported."""
    text = HEAD + _row(0, "kernel" + ABI + ARGS, LD, "7") + _row(1, "kernel" + ABI + ARGS, LD, "9")
    assert measure.parse_ncu_csv(text, LAUNCHED) == {"tiled": {LD: 7}, "tiled_pad": {LD: 9}}
    assert measure.parse_ncu_csv(text, ["tiled", "tiled_pad"]) == {"tiled": {LD: 7}, "tiled_pad": {LD: 9}}


def test_parse_ncu_csv_without_launches_names_rows_by_their_module():
    text = HEAD + _row(0, "cudapy::kernels_numba::tiled_pad::kernel" + ABI + ARGS, LD, "5") + \
        _row(1, "tiled::kernel" + ABI + ARGS, LD, "3")
    assert measure.parse_ncu_csv(text) == {"tiled_pad": {LD: 5}, "tiled": {LD: 3}}


FAKE_NCU = textwrap.dedent('''\
    #!{python}
    """Stands in for ncu: 'ok' prints what ncu + ncu_banks.py print; 'hang' leaves a child holding stdout and waits."""
    import os, subprocess, sys, time
    mode = os.environ["FAKE_NCU_MODE"]
    if mode == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open(os.environ["FAKE_NCU_PID"], "w").write(str(child.pid))
        time.sleep(120)
    names = os.environ["NCU_KERNELS"].split(",")
    for name in names:
        print("launched", name, "kernels_numba." + name, "kernel", file=sys.stderr, flush=True)
    print('{head}', end="")
    for i, name in enumerate(names):
        print(f'"{{i}}","1","cudapy::kernels_numba::{{name}}::kernel{abi}(Array<float>)","{ld}","inst","{{100 + i}}"')
''')


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    path = tmp_path / "ncu"
    path.write_text(FAKE_NCU.format(python=sys.executable, head=HEAD.replace('"', '\\"').strip("\n") + "\\n",
                                    abi=ABI, ld=LD))
    path.chmod(0o755)
    monkeypatch.setattr(shutil, "which", lambda name: str(path) if name == "ncu" else None)
    monkeypatch.setattr(measure, "have_gpu", lambda: True)
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups: POSIX only")
def test_ncu_shared_reads_the_run_and_its_bar_reaches_the_total(fake_ncu, monkeypatch, bars):
    monkeypatch.setenv("FAKE_NCU_MODE", "ok")
    got = measure.ncu_shared(kernels=["tiled_pad", "tiled"], n=64, timeout=60)
    assert got == {"tiled": {LD: 100}, "tiled_pad": {LD: 101}}
    bar, = bars
    assert bar.total == bar.n == 2 and bar.closed
    monkeypatch.setenv("FAKE_NCU_MODE", "ok")
    assert measure.ncu_shared(kernels=["tiled"], n=64, timeout=60, progress=False) == {"tiled": {LD: 100}}
    assert len(bars) == 1


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups: POSIX only")
def test_ncu_watchdog_stops_ncu_and_the_python_it_runs(fake_ncu, monkeypatch, capsys):
    """A hung ncu whose profiled Python keeps the pipe open: the watchdog kills the whole session, so the cell ends."""
    pid_file = fake_ncu / "child.pid"
    monkeypatch.setenv("FAKE_NCU_MODE", "hang")
    monkeypatch.setenv("FAKE_NCU_PID", str(pid_file))
    t0 = time.perf_counter()
    assert measure.ncu_shared(kernels=["tiled"], n=64, timeout=3, progress=False) is None
    assert time.perf_counter() - t0 < 30
    assert "ncu 가 3초 안에 끝나지 않아" in capsys.readouterr().out
    pid = int(pid_file.read_text())
    for _ in range(50):                                   # killed: gone, or a zombie until its new parent reaps it
        try:
            with open(f"/proc/{pid}/status") as f:
                state = next(ln for ln in f if ln.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            break
        if "Z" in state.split()[1]:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the profiled child {pid} still runs")


# ---- batched offline compiles ---------------------------------------------------------------------------------------

def test_compile_many_is_what_try_compile_gives():
    from kernels_numba.tools import offline
    pairs = [("tiled", (9, 0)), ("tiled", [9, 0]), ("tiled_pad", (9, 0))]
    got = measure.compile_many(pairs)
    assert list(got) == [("tiled", (9, 0)), ("tiled_pad", (9, 0))]          # duplicates once, cc as tuples
    for (name, cc), r in got.items():
        assert r["usage"] == offline.try_compile(name, cc)["usage"]


# ---- on a real GPU (the lead runs these on an H100) -----------------------------------------------------------------

@pytest.mark.gpu_only("measures with CuPy's cuBLAS and the GPU's own kernels")
def test_benchmark_on_this_gpu_tiny(bars):
    pytest.importorskip("cupy", reason="the benchmark compares with cuBLAS through CuPy")
    run = measure.benchmark(sizes=(256,), kernels=["naive", "tiled"])
    assert [(r.n, r.kernel) for r in run.rows] == [(256, "cuBLAS"), (256, "naive"), (256, "tiled")]
    assert all(r.correct for r in run.rows)
    assert all(r.ratio > 0 and r.tflops > 0 and r.host_us > 0 for r in run.rows)
    bar, = bars
    assert bar.total == bar.n == len(run.rows) and bar.closed
    assert measure.compile_seconds(["naive", "tiled"], cupy_warm=True) == 0       # both compiled by the run


@pytest.mark.gpu_only("times cuBLAS on this GPU")
def test_probed_peak_is_near_the_spec_peak():
    pytest.importorskip("cupy", reason="the probe times cuBLAS through CuPy")
    peak = measure._probe_peak_tflops()
    spec = kocc.current_gpu().fp32_peak_tflops
    assert peak and peak > 0
    if spec:
        assert spec / 4 < peak < spec * 2          # a probe, not a measurement: the right order of magnitude


@pytest.mark.gpu_only("profiles this GPU with Nsight Compute")
def test_ncu_shared_on_this_gpu(capsys):
    if shutil.which("ncu") is None:
        pytest.skip("ncu (Nsight Compute) is not on PATH")
    got = measure.ncu_shared(kernels=["tiled", "tiled_pad"], n=256, timeout=240)
    out = capsys.readouterr().out
    if got is None and "ERR_NVGPUCTRPERM" in out:
        pytest.skip("this machine does not allow performance counters (ERR_NVGPUCTRPERM)")
    assert set(got) == {"tiled", "tiled_pad"}, out
    assert got["tiled"][LD] > 0 and got["tiled_pad"][LD] > got["tiled"][LD]     # no LDS.128 with the pad (nb06)
