"""Live GPU measurements when a GPU is present (Nsight Compute, benchmark); otherwise None (notebooks use records).

A notebook cell on a GPU should finish in about 10 s even on a T4, so the benchmark sizes itself by the GPU's speed
(plan_sizes: drops the sizes whose estimated time would not fit, and says so), runs in the notebook's own process
(kernels the notebook already compiled for this GPU are reused; data stay on the device) and shows a progress bar;
ncu profiles only the kernels a cell shows, with a progress bar, and only when the student asks for it."""
import csv
import io
import math
import os
import shutil
import subprocess
import sys
import signal
import time

import numpy as np

import kernels_numba as kn
from kernels_numba import occupancy as kocc  # the GPU in use and registered kernels (sim/ is pure)
from sim import occupancy as occ
from course.kit import compile_results as compile_many, here_label  # noqa: F401  (defined once in course/kit.py)
from course import records
from course import steps    # steps.Bar, looked up when a bar is made (tests record the bars)
from numba import cuda
from course import bench
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (1024, 2048, 4096)          # the sizes of the recorded runs
BUDGET_S = 10.0                     # seconds one benchmark cell may take (estimated), compiles included; the notebooks'
#                                     prose states this figure (their generators read it from here)
HOST_MS = 10.0                      # ... host µs per launch from ~10 ms of calls (records: 30 ms; the cell's time)
ROUNDS = 3                          # a live table: every entry timed in 3 rounds (course.bench, rotated order)
MIN_MS = 10.0                       # ... each round >= 10 ms of back-to-back calls (records: course.bench.MIN_MS); a
#                                     warm cell on the H100 host is about 2.5 s instead of 3.6 s, events stay precise
MARGIN = 1.5                        # GPUs under load run below their boost clock (a 70 W T4 well below): slower
UNKNOWN_RATIO = 0.02                # a kernel without a record: assume it is this slow against cuBLAS (naive: 0.025)
# Allowances, not measurements (no T4 was available): a Numba JIT of a Level 1-3 kernel not launched yet in this
# process (the same NVVM + PTX assembly as an offline compile, which took 0.5-1.1 s per kernel on a 2-core machine on
# 2026-11-25: tiled 0.47 s, tiled_k32 0.50 s, regblock 1.06 s), and CuPy's first use in a process (cuBLAS handle, its
# random/elementwise/reduction kernels compiled by NVRTC unless its disk cache has them).
JIT_S = 1.0
CUPY_WARMUP_S = 2.0
_CUPY_WARM = []                     # [True] once a benchmark ran CuPy in this process


def have_gpu():
    return kn.device.MODE == "gpu"


def _script(name):
    """Path of benchmarks/<name> in a clone of the course, or None (with a notice) in a `pip install .` without it."""
    path = os.path.join(ROOT, "benchmarks", name)
    if os.path.exists(path):
        return path
    print(f"ℹ️ 실시간 측정에는 강좌 저장소의 benchmarks/{name} 가 필요합니다 (pip install . 로 설치하면 포함되지 않음): "
          f"기록된 값을 보여 줍니다. 측정하려면 저장소 폴더에서 pip install -e \".[gpu]\" 로 설치하세요. / live measurement "
          f"needs benchmarks/{name} from a clone of the course; showing the recorded figures.")
    return None


# ---- how long a benchmark takes: sized by the GPU's FP32 peak and the recorded speed of each kernel ---------------

def _recorded_speeds():
    """({kernel: slowest recorded ratio to cuBLAS SGEMM}, cuBLAS's best recorded fraction of the FP32 peak), over
    every recorded run against cuBLAS SGEMM (records of any GPU; the peak from sim.occupancy's table)."""
    ratios, cublas = {}, []
    for _name, run in records.all_runs():
        if not run.baseline.startswith("cuBLAS SGEMM"):
            continue
        try:
            peak = occ.get_spec(run.gpu_class).fp32_peak_tflops
        except Exception:  # noqa: BLE001 — a GPU the table does not know: its ratios still count
            peak = 0
        for r in run.rows:
            if r.variant:
                continue
            if r.kernel == "cuBLAS":
                if peak:
                    cublas.append(r.tflops / peak)
            else:
                ratios[r.kernel] = min(ratios.get(r.kernel, 1.0), r.ratio)
    return ratios, (max(cublas) if cublas else 0.75)


def estimate_seconds(kernels, n, gpu, first=True, rounds=ROUNDS, peak_tflops=None):
    """Estimated GPU seconds course.bench.run spends at size n on `gpu` (a sim.occupancy GpuSpec): a warm-up, cuBLAS and
    each kernel checked against a float64 reference (alpha/beta too at the first size), then `rounds` timed rounds of
    every entry (a burst and >= MIN_MS of calls each) and the host check. peak_tflops: the FP32 peak to size by (None:
    gpu's from its spec); a ValueError where neither is known."""
    ratios, cublas_frac = _recorded_speeds()
    flops = 2.0 * n ** 3
    peak = peak_tflops or gpu.fp32_peak_tflops
    if not peak:
        raise ValueError(f"{gpu.name} (CC {gpu.cc[0]}.{gpu.cc[1]}) 의 FP32 피크를 모릅니다 (SM 당 FP32 레인 수가 과정의 "
                         "표에 없음): peak_tflops= 로 주세요. / unknown FP32 peak for this GPU: pass peak_tflops=.")
    cublas_flops = cublas_frac * peak * 1e12     # FLOP/s

    burst, floor = bench.BURST_MS / 1e3, MIN_MS / 1e3

    def one(t, checks):            # checks + probe (a burst) + host + rounds x timed calls (course.bench.run)
        per_round = max(floor, 3 * t) if t < floor else t
        host = min(100 * t, max(3 * t if t < 0.01 else t, 0.03))
        return checks * t + max(burst, t) + host + rounds * per_round

    t_cublas = MARGIN * flops / cublas_flops
    fp64 = flops / (peak * 1e12 / 32)               # float64 reference: 1/32 of FP32 (T4, GeForce)
    total = (bench.WARM_MS / 1e3 if first else 0.0) + one(t_cublas, 1) + fp64   # the run's warm-up burst: first size
    for k in kernels:
        t = t_cublas / ratios.get(k, UNKNOWN_RATIO)
        total += one(t, 2 if first else 1)
    return total


def _compiled_here(name):
    """True if kernel `name` already has a compiled overload in this process (its Numba dispatcher's `overloads`)."""
    try:
        return bool(kn.get(name).kernel.overloads)
    except Exception:  # noqa: BLE001 — a dispatcher without `overloads`: count it as still to compile
        return False


def compile_seconds(kernels, compiled=None, cupy_warm=None):
    """Seconds of compiling before the benchmark's GPU work: JIT_S per kernel not compiled yet in this process, plus
    CUPY_WARMUP_S the first time CuPy runs. compiled: names already compiled (None: ask each Numba dispatcher);
    cupy_warm: None asks whether a benchmark already ran in this process."""
    todo = [k for k in kernels if not (k in compiled if compiled is not None else _compiled_here(k))]
    warm = bool(_CUPY_WARM) if cupy_warm is None else cupy_warm
    return len(todo) * JIT_S + (0.0 if warm else CUPY_WARMUP_S)


def plan_sizes(kernels, sizes=SIZES, gpu=None, budget_s=BUDGET_S, compile_s=None, peak_tflops=None):
    """{'sizes': kept, 'dropped': [(n, seconds)], 'seconds': estimate of the whole cell, 'compile': its compiling part,
    'gpu': name, 'peak_known': bool}: the largest sizes are dropped until compiling + GPU work fit budget_s (the
    smallest size is always kept). gpu: a GpuSpec (None: this GPU); compile_s: None: compile_seconds(kernels).
    A GPU whose FP32 peak is unknown (not in the course's table) and no peak_tflops: only the smallest size."""
    gpu = gpu if gpu is not None else kocc.current_gpu()
    sizes = sorted(int(n) for n in sizes)
    if not sizes:
        raise ValueError("sizes 가 비었습니다 / no sizes: 예 (1024, 2048)")
    if gpu is None or budget_s is None:
        return {"sizes": sizes, "dropped": [], "seconds": None, "compile": None,
                "gpu": None if gpu is None else gpu.name, "peak_known": gpu is not None and bool(gpu.fp32_peak_tflops)}
    comp = compile_seconds(kernels) if compile_s is None else compile_s
    peak = peak_tflops or gpu.fp32_peak_tflops
    if not peak:                         # nothing to size by: the smallest size only, its time unknown
        return {"sizes": sizes[:1], "dropped": [(n, None) for n in sizes[1:]], "seconds": None, "compile": comp,
                "gpu": gpu.name, "peak_known": False}
    est = {n: estimate_seconds(kernels, n, gpu, first=(n == sizes[0]), peak_tflops=peak) for n in sizes}
    kept = list(sizes)
    while len(kept) > 1 and comp + sum(est[n] for n in kept) > budget_s:
        kept.pop()
    return {"sizes": kept, "dropped": [(n, est[n]) for n in sizes if n not in kept],
            "seconds": comp + sum(est[n] for n in kept), "compile": comp, "gpu": gpu.name, "peak_known": True,
            "peak_from": "cuBLAS" if peak_tflops else "spec"}


def plan_lines(plan, budget_s=BUDGET_S):
    """Korean lines saying which sizes a plan measures and which it dropped, and why (empty if nothing dropped)."""
    if not plan["dropped"]:
        return []
    kept = ", ".join(f"{n}³" for n in plan["sizes"])
    every = ", ".join(str(n) for n in (*plan["sizes"], *(n for n, _ in plan["dropped"])))
    how = f"모두 재려면 measure.benchmark(..., sizes=({every})) 를 부르세요."
    if not plan["peak_known"]:
        return [f"ℹ️ 이 GPU ({plan['gpu']}) 의 FP32 피크를 모릅니다 (SM 당 FP32 레인 수가 과정의 표에 없음): 걸릴 "
                f"시간을 어림할 수 없어 가장 작은 크기 {kept} 만 잽니다. {how} / unknown FP32 peak: measuring the "
                "smallest size only."]
    drop = ", ".join(f"{n}³ (약 {s:.0f}초)" for n, s in plan["dropped"])
    speed = "cuBLAS 로 잠깐 잰 속도" if plan.get("peak_from") == "cuBLAS" else "GPU 의 FP32 피크"
    return [f"ℹ️ 이 GPU ({plan['gpu']}) 에서는 {drop} 를 건너뜁니다: 셀 하나가 약 {budget_s:.0f}초 안에 끝나도록 "
            f"{speed}와 기록된 커널 속도로 시간을 어림했습니다 (재는 크기 {kept}, 예상 약 "
            f"{plan['seconds']:.0f}초, 그 가운데 처음 쓰는 커널의 컴파일과 CuPy 준비 약 {plan['compile']:.0f}초). "
            f"{how} / sizes dropped to keep the cell near {budget_s:.0f} s on this GPU."]


def _probe_peak_tflops(n=1024, reps=5):
    """An FP32 peak to size the benchmark by on a GPU the course's table does not know: a quick cuBLAS SGEMM (CuPy)
    timing divided by cuBLAS's recorded fraction of the peak (a second or less even on a slow GPU). None on failure."""
    try:
        # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
        import cupy as cp
        A = cp.ones((n, n), cp.float32)
        C = cp.empty((n, n), cp.float32)
        cp.matmul(A, A, out=C)                       # warm-up: cuBLAS handle and its kernel choice
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(reps):
            cp.matmul(A, A, out=C)
        end.record()
        end.synchronize()
        seconds = cp.cuda.get_elapsed_time(start, end) / 1e3 / reps
        return 2.0 * n ** 3 / seconds / 1e12 / _recorded_speeds()[1]
    except Exception:  # noqa: BLE001 — no estimate: the plan keeps the smallest size only
        return None


class _NoBar:
    """Stands in for course.steps.Bar when the caller asked for no progress bar."""

    def update(self, n=1, note=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _bar(progress, total, desc, unit):
    if not progress:
        return _NoBar()
    return steps.Bar(total, desc, unit=unit)


def _runnable(kernels):
    """Names the benchmark will measure: FP32 kernels this GPU can run, in registry order."""
    return [s.name for s in kn.REGISTRY if (kernels is None or s.name in kernels)
            and s.dtype == np.float32 and s.runs_here()]


def benchmark(sizes=None, kernels=None, budget_s=BUDGET_S, progress=True, rounds=ROUNDS):
    """Measure `kernels` against cuBLAS on this GPU (course.bench.run): a records.Run, or None without a GPU.

    sizes=None: SIZES, less the largest ones whose estimated time on this GPU (compiling the kernels not launched yet
    included) would not fit budget_s (the cell says which and why; budget_s=None keeps all); given sizes are all
    measured. The run happens in this process, so kernels the notebook already launched on this GPU are not compiled
    again; progress=True: a progress bar advances per (size, kernel) row and ends at its total when the run succeeds.
    Returns the records.Run."""
    if not have_gpu():
        return None
    why = bench.available()
    if why:
        print(f"ℹ️ {why}: 기록된 값을 보여 줍니다. / showing the recorded figures.")
        return None
    names = _runnable(kernels)
    gpu = kocc.current_gpu()
    auto = sizes is None and budget_s is not None
    peak = _probe_peak_tflops() if auto and gpu is not None and not gpu.fp32_peak_tflops else None
    plan = plan_sizes(names, SIZES if sizes is None else sizes, gpu=gpu, budget_s=budget_s if auto else None,
                      peak_tflops=peak)
    for line in plan_lines(plan, budget_s or BUDGET_S):
        print(line)
    try:
        # bench.run calls on_row once per (size, entry) row, cuBLAS included: the bar's total
        with _bar(progress, len(plan["sizes"]) * (1 + len(names)), "측정 (cuBLAS 와 같은 실행)", "행") as bar:
            def on_row(row):
                bar.update(1, f"{row.n}³ {row.kernel}")
            run = bench.run(names, plan["sizes"], rounds=rounds, on_row=on_row, min_ms=MIN_MS, burst_every_round=False,
                            host_ms=HOST_MS)
    except Exception as e:  # noqa: BLE001 — any failure: say so and let the notebook show the records
        print(f"ℹ️ 측정이 실패했습니다 ({type(e).__name__}: {e}): 기록된 값을 보여 줍니다. / the benchmark failed; "
              "showing the recorded figures.")
        return None
    finally:
        _CUPY_WARM[:] = [True]
    return run


AGREE_POINTS = 5.0                  # a live ratio further than this (in % points) from the record: said so


def live_lines(run, kernels=None, sizes=None):
    """Lines of a live run (course.bench): its GPU, date and baseline; per (size, kernel) TFLOP/s, % of the same run's
    cuBLAS and the host time of one launch; then what to know: rows timed from a CUDA graph (the launch cost hid the
    kernel), a busy GPU, and every ratio further than AGREE_POINTS from the record of the same GPU class."""
    lines = [f"지금 이 GPU ({run.gpu}, CC {run.cc[0]}.{run.cc[1]}) — {run.date}, 같은 실행의 {run.baseline} 대비 "
             f"(호스트 µs = Python 이 launch 한 번에 쓰는 시간)"]
    rows = [r for r in run.rows if (kernels is None or r.kernel in ("cuBLAS", *kernels))
            and (sizes is None or r.n in sizes)]
    for r in sorted(rows, key=lambda r: (r.n, r.kernel != "cuBLAS")):
        how = "  (CUDA 그래프로 잼: launch 비용이 커널보다 커서)" if r.extra.get("timed_by") == "graph" else ""
        bad = "" if r.correct is not False else "  ← 결과가 틀림 (WRONG)"
        lines.append(f"{r.n:5d}³ {r.kernel:13s} {r.tflops:7.2f} TFLOP/s  cuBLAS의 {100 * r.ratio:5.1f}%  "
                     f"호스트 {r.host_us or 0:5.1f} µs{how}{bad}")
    if run.flagged or run.note:
        lines.append(f"⚠️ 이 실행은 믿기 어렵습니다: {run.flagged or run.note}")
    kind = run.baseline.split(" (")[0]
    compared, off = 0, []
    for r in rows:
        if r.kernel == "cuBLAS":
            continue
        # like with like: a record timed by this engine where one exists, else the newest of any harness
        ref = (records.reference(run.gpu, r.kernel, r.n, kind, engine=run.versions.get("engine"))
               or records.reference(run.gpu, r.kernel, r.n, kind))
        if ref is None:
            continue
        compared += 1
        diff = 100 * (r.ratio - ref[0].ratio)
        if abs(diff) > AGREE_POINTS:
            off.append(f"  {r.n}³ {r.kernel}: 지금 {100 * r.ratio:.1f}%, 기록 {100 * ref[0].ratio:.1f}% "
                       f"({ref[1].gpu}, {ref[1].date}) — {abs(diff):.1f}%p 차이")
    if compared and not off:
        lines.append(f"기록과 비교: {compared}개 값 모두 같은 종류 GPU({run.gpu_class})의 기록과 {AGREE_POINTS:g}%p 안에서 "
                     "맞습니다.")
    elif off:
        lines.append(f"⚠️ 기록과 {AGREE_POINTS:g}%p 넘게 다른 값 ({len(off)}/{compared}개): 같은 이름이라도 다른 GPU 모델·"
                     "전력 한도, 낮은 클록, 다른 프로세스가 함께 쓰는 GPU, 다른 드라이버·cuBLAS 버전이 원인일 수 있습니다.")
        lines += off
    else:
        lines.append(f"{run.gpu_class} 에서 잰 기록이 없어 기록과 비교하지 않습니다.")
    return lines


# ---- what a Python launch costs ---------------------------------------------------------------------------------

TARGETS_US = (10.0, 50.0, 400.0, 3000.0)   # kernel times the launch-cost lesson compares the host cost with


def launch_costs(kernel="regblock_vec", targets_us=TARGETS_US, calls=200):
    """On a GPU: per target kernel time, the size n at which `kernel` takes about that long on this GPU, and
    {n, gpu_us (CUDA graph of raw dispatches: the kernel alone), host_us (one launch(A, B, C) of device arrays, calls
    queued without waiting), raw_us (Numba's own dispatch), per_call_us (wall time per call of back-to-back launches:
    what a Python loop gets), graph_host_us (replaying a graph of 20 launches, per launch)}. None without a GPU."""
    if not have_gpu():
        return None
    # local: cupy is optional (the [gpu] extra, GPU only) and takes seconds to load
    import cupy as cp
    spec = kn.get(kernel)
    stream = cp.cuda.Stream(non_blocking=True)

    def arrays(n):
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32)
        B = rng.standard_normal((n, n), dtype=cp.float32)
        C = cp.zeros((n, n), cp.float32)
        return cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)

    def gpu_us(n):
        dA, dB, dC = arrays(n)
        # 10 launches per graph, median of 3 replays: the size search probes several sizes (a 3 ms kernel: 0.1 s each)
        return 1e3 * bench.graph_ms(spec.launch.bind(dA, dB, dC, 1.0, 0.0, stream=cuda.external_stream(stream.ptr)),
                                    stream, per_graph=10, replays=3)

    known = {}

    def timed(n):
        if n not in known:
            known[n] = gpu_us(n)
        return known[n]

    def size_for(target):
        """The multiple of 64 whose kernel time is nearest the target (time grows with n, not as n^3 while the grid
        does not fill the GPU): doubling, then bisection."""
        lo, hi = 64, 64
        while timed(hi) < target and hi < 16384:
            lo, hi = hi, hi * 2
        while hi - lo > 64:
            mid = (lo + hi) // 128 * 64
            lo, hi = (mid, hi) if timed(mid) < target else (lo, mid)
        return min((lo, hi), key=lambda m: abs(math.log(timed(m) / target)))

    rows = []
    for target in targets_us:
        n = size_for(target)
        dA, dB, dC = arrays(n)
        g = timed(n)
        grid = (-(-n // spec.launch.tile[1]), -(-n // spec.launch.tile[0]))
        a, b = np.float32(1), np.float32(0)
        call = lambda: spec.launch(dA, dB, dC, 1.0, 0.0)                        # noqa: E731
        raw = lambda: spec.kernel[grid, spec.launch.block](dA, dB, dC, a, b)     # noqa: E731  (Numba's own)
        k = int(min(calls, max(20, 0.15e6 / g)))       # ~0.15 s of GPU work per loop: a 3 ms kernel needs fewer calls
        host = bench.host_us(call, n=k)
        raw_host = bench.host_us(raw, n=k)
        cuda.synchronize()
        t = time.perf_counter()
        for _ in range(k):
            call()
        cuda.synchronize()
        per_call = (time.perf_counter() - t) / k * 1e6
        graph = cp.cuda.Stream(non_blocking=True)
        fn = spec.launch.bind(dA, dB, dC, 1.0, 0.0, stream=cuda.external_stream(graph.ptr))
        graph.begin_capture()
        for _ in range(20):
            fn()
        g20 = graph.end_capture()
        reps = max(1, min(10, round(0.03e6 / (20 * g))))     # up to ~30 ms of GPU work queued (1 graph for 3 ms)
        t = time.perf_counter()
        for _ in range(reps):
            g20.launch(graph)
        graph_host = (time.perf_counter() - t) / (20 * reps) * 1e6
        graph.synchronize()
        rows.append({"target_us": target, "n": n, "gpu_us": g, "host_us": host, "raw_us": raw_host,
                     "per_call_us": per_call, "graph_host_us": graph_host,
                     "tflops_kernel": 2 * n ** 3 / g / 1e6, "tflops_loop": 2 * n ** 3 / max(per_call, g) / 1e6})
    return rows


def launch_cost_lines(rows, kernel="regblock_vec", where=None):
    """The launch-cost table: per size, the kernel's own time, Python's host time per launch and what a loop of
    launches gets per call, with the share of the GPU left idle."""
    lines = [f"{where or here_label() or '기록'} — {kernel}, 기다리지 않고 연달아 launch (크기마다 20~200번):",
             "   n³   커널(GPU) µs   launch 1번(호스트) µs   Numba 만(따로 잼) µs   루프의 1회 µs   GPU 가 쉰 비율   그래프 1회 호스트 µs"]
    for r in rows:
        idle = max(0.0, 1 - r["gpu_us"] / r["per_call_us"])
        lines.append(f"{r['n']:5d}   {r['gpu_us']:12.1f}   {r['host_us']:20.1f}   {r['raw_us']:19.1f}   "
                     f"{r['per_call_us']:13.1f}   {100 * idle:12.0f}%   {r['graph_host_us']:18.1f}")
    return lines


# ---- Nsight Compute ----------------------------------------------------------------------------------------------

def ncu_shared(kernels=None, n=1024, timeout=300, progress=True):
    """Per kernel: shared-memory instructions, wavefronts, bank conflicts measured by ncu on an n³ run of `kernels`
    (None: every FP32 kernel this GPU runs). GPU + ncu only, else None; progress=True: a progress bar advances per
    kernel profiled. A run past `timeout` seconds is stopped (ncu and the Python it profiles) and gives None."""
    ncu = shutil.which("ncu")
    if not have_gpu():
        return None
    if ncu is None:
        print("ℹ️ ncu (Nsight Compute) 가 PATH 에 없어 기록된 값을 보여 줍니다. / ncu not found; showing the records.")
        return None
    script = _script("ncu_banks.py")
    if script is None:
        return None
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    # local: benchmarks/ncu_banks.py is no package: only where benchmarks/ is on the path
    from ncu_banks import METRICS
    names = _runnable(kernels)
    env = dict(os.environ, NCU_N=str(n), NCU_KERNELS=",".join(names))
    cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(METRICS), "--csv", sys.executable, script]
    csv_lines, other, launched = [], [], []
    with _bar(progress, len(names), f"ncu 측정 ({n}³, 커널마다 여러 번 다시 실행)", "커널") as bar:
        # a session of its own: the watchdog kills ncu AND the Python it profiles (which holds the same stdout pipe;
        # killing ncu alone would leave the loop below waiting for that pipe to close)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                start_new_session=True)
        timed_out = []

        def stop():                                  # a hung ncu must not hang the notebook
            timed_out.append(True)
            _kill_group(proc)
        watchdog = threading.Timer(timeout, stop)
        watchdog.start()
        try:
            for line in proc.stdout:                 # ncu_banks.py says "launched <kernel> <module> <function>"
                if line.startswith("launched "):
                    launched.append(tuple(line.split()[1:4]))
                    bar.update(1, launched[-1][0])
                elif line.startswith('"'):
                    csv_lines.append(line)
                else:
                    other.append(line)
            proc.wait()
        finally:
            watchdog.cancel()
            if proc.poll() is None:                  # interrupted (KeyboardInterrupt): leave nothing running
                _kill_group(proc)
    if timed_out:
        print(f"ℹ️ ncu 가 {timeout}초 안에 끝나지 않아 멈췄습니다: 기록된 값을 보여 줍니다. / ncu timed out.")
        return None
    if proc.returncode != 0 or not csv_lines:
        tail = "".join(other[-5:]).strip()
        print(f"ℹ️ ncu 측정이 실패했습니다 (종료 코드 {proc.returncode}; 예: 성능 카운터 권한 ERR_NVGPUCTRPERM): 기록된 "
              f"값을 보여 줍니다. / ncu failed; showing the recorded figures.\n{tail[-800:]}")
        return None
    return parse_ncu_csv("".join(csv_lines), launched)


def _kill_group(proc):
    """Kill `proc` and every process of its session (started with start_new_session=True)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:                                        # Windows: no process groups here
            proc.kill()
    except (ProcessLookupError, PermissionError):     # already gone
        pass


def _name_path(kernel_name):
    """The '::' path of a kernel name as ncu prints it, without template/ABI tags and parameters:
    'cudapy::kernels_numba::tiled::kernel[abi:v1,...](Array<float, 2, ...>, ...)' -> ['cudapy', 'kernels_numba',
    'tiled', 'kernel'] (ncu prints Numba kernels with or without the module path, depending on its version)."""
    base = kernel_name.strip()
    for stop in ("[", "(", "<"):
        base = base.split(stop)[0]
    base = base.split()[-1] if base.split() else base           # 'void name' -> 'name'
    return [p for p in base.split("::") if p]


def _match(path, launched):
    """Index of the one launched (name, module, function) whose module + function path ends with `path`, else None."""
    hits = [i for i, (_name, module, function) in enumerate(launched)
            if len(path) >= 1 and (module.split(".") + [function])[-len(path):] == path]
    return hits[0] if len(hits) == 1 else None


def parse_ncu_csv(text, launched=None):
    """{kernel: {metric: int}} from ncu --csv output (lines starting with '==' are ncu's own messages).

    launched: what ncu_banks.py printed per launch, in launch order: (registry name, Python module, function) tuples
    (or bare names). A row is named by the launched kernel whose module path + function name its "Kernel Name" ends
    with (e.g. 'tiled::kernel[abi:v1,...](...)' or 'cudapy::kernels_numba::tiled::kernel[...]' -> 'tiled'); where that
    does not decide and ncu profiled exactly as many launches as were made, by launch order (the "ID" column); else
    by the name ncu printed (its module part for a Numba kernel)."""
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in text.splitlines() if not ln.startswith("==")))))
    h = rows[0]
    ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    ii = h.index("ID") if "ID" in h else None
    rows = [r for r in rows[1:] if len(r) > max(ki, mi, vi)]
    launched = [tuple(x) if isinstance(x, (tuple, list)) else (x, "", "") for x in (launched or [])]
    ids = sorted({int(r[ii]) for r in rows}) if ii is not None else []
    by_order = bool(launched) and len(ids) == len(launched)
    res = {}
    for r in rows:
        path = _name_path(r[ki])
        i = _match(path, launched) if launched else None
        if i is None and by_order:
            i = ids.index(int(r[ii]))
        if i is not None:
            name = launched[i][0]
        else:                                        # 'kernels_numba::tiled::kernel' -> 'tiled'
            name = path[-2] if len(path) >= 2 and path[-1] == "kernel" else (path[-1] if path else r[ki])
        value = float(r[vi].replace(",", ""))
        res.setdefault(name, {})[r[mi]] = int(value) if math.isfinite(value) else 0
    return res


def shared_table(metrics):
    """Rows (kernel, op, instructions, wavefronts, wavefronts per instruction) from ncu metrics."""
    rows = []
    for k, m in metrics.items():
        for op in ("ld", "st"):
            inst = m.get(f"smsp__inst_executed_op_shared_{op}.sum", 0)
            wf = m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", 0)
            if inst:
                rows.append((k, "load" if op == "ld" else "store", inst, wf, wf / inst))
    return rows
