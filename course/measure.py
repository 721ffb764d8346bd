"""Live GPU measurements when a GPU is present (Nsight Compute, benchmark); otherwise None (notebooks use records).

A notebook cell on a GPU should finish in about 10 s even on a T4, so the benchmark sizes itself by the GPU's speed
(plan_sizes: drops the sizes whose estimated time would not fit, and says so), runs in the notebook's own process
(kernels the notebook already compiled for this GPU are reused; data stay on the device) and shows a progress bar;
ncu profiles only the kernels a cell shows, with a progress bar, and only when the student asks for it."""
import csv
import importlib.util
import io
import math
import os
import shutil
import subprocess
import sys

import numpy as np

import kernels_numba as kn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (1024, 2048, 4096)          # the sizes of the recorded runs
BUDGET_S = 8.0                      # GPU seconds one benchmark cell may take (estimated); the rest of ~10 s: CuPy
#                                     start-up and compiling kernels the notebook has not launched yet
MIN_MS = 150.0                      # bench_gpu._timeit: timed calls of one (size, kernel) take at least this long
MARGIN = 1.5                        # GPUs under load run below their boost clock (a 70 W T4 well below): slower
UNKNOWN_RATIO = 0.02                # a kernel without a record: assume it is this slow against cuBLAS (naive: 0.025)


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
    """({kernel: slowest recorded ratio to cuBLAS}, cuBLAS's best recorded fraction of the FP32 peak)."""
    import course
    ratios, cublas = {}, []
    for name in ("gpu_h200_2026-11-21", "gpu_h200_levels34", "gpu_h200_level5"):
        try:
            rec = course.recorded(name)
        except (OSError, ValueError, KeyError):
            continue
        f = rec.get("device_facts") or {}
        peak = f.get("sm_count", 0) * f.get("fp32_lanes_per_sm", 0) * 2 * f.get("max_sm_clock_mhz", 0) / 1e6
        for r in rec.get("benchmark", []):
            if r["kernel"] == "cuBLAS":
                if peak:
                    cublas.append(r["tflops"] / peak)
            else:
                ratios[r["kernel"]] = min(ratios.get(r["kernel"], 1.0), r["ratio"])
    return ratios, (max(cublas) if cublas else 0.75)


def estimate_seconds(kernels, n, gpu, first=True, min_ms=MIN_MS):
    """Estimated seconds bench_gpu.run spends at size n on `gpu` (a sim.occupancy GpuSpec): cuBLAS with its float64
    reference, then each kernel (warm-up, correctness, alpha/beta at the first size, timed batches of >= min_ms)."""
    ratios, cublas_frac = _recorded_speeds()
    flops = 2.0 * n ** 3
    peak = gpu.fp32_peak_tflops or 8.0           # a CC the course has no lane count for: assume a T4-class peak
    cublas_flops = cublas_frac * peak * 1e12     # FLOP/s
    floor = min_ms / 1e3

    def one(t, extra):            # the timed batches (5 groups, >= min_ms together) + warm-up/check launches
        return max(floor, 5 * t) + extra * t

    t_cublas = MARGIN * flops / cublas_flops
    fp64 = flops / (peak * 1e12 / 32)               # float64 reference: 1/32 of FP32 (T4, GeForce)
    total = one(t_cublas, 2) + fp64
    for k in kernels:
        t = t_cublas / ratios.get(k, UNKNOWN_RATIO)
        total += one(t, 4 if first else 3)
    return total


def plan_sizes(kernels, sizes=SIZES, gpu=None, budget_s=BUDGET_S):
    """{'sizes': kept, 'dropped': [(n, seconds)], 'seconds': estimate of the kept ones, 'gpu': name}: the largest sizes
    are dropped until the estimate fits budget_s (the smallest size is always kept). gpu: a GpuSpec (None: this GPU)."""
    from sim import occupancy as occ
    gpu = gpu if gpu is not None else occ.current_gpu()
    sizes = sorted(int(n) for n in sizes)
    if not sizes:
        raise ValueError("sizes 가 비었습니다 / no sizes: 예 (1024, 2048)")
    if gpu is None or budget_s is None:
        return {"sizes": sizes, "dropped": [], "seconds": None, "gpu": None if gpu is None else gpu.name}
    est = {n: estimate_seconds(kernels, n, gpu, first=(n == sizes[0])) for n in sizes}
    kept = list(sizes)
    while len(kept) > 1 and sum(est[n] for n in kept) > budget_s:
        kept.pop()
    return {"sizes": kept, "dropped": [(n, est[n]) for n in sizes if n not in kept],
            "seconds": sum(est[n] for n in kept), "gpu": gpu.name}


def plan_lines(plan, budget_s=BUDGET_S):
    """Korean lines saying which sizes a plan measures and which it dropped, and why (empty if nothing dropped)."""
    if not plan["dropped"]:
        return []
    drop = ", ".join(f"{n}³ (약 {s:.0f}초)" for n, s in plan["dropped"])
    return [f"ℹ️ 이 GPU ({plan['gpu']}) 에서는 {drop} 를 건너뜁니다: 셀 하나가 약 {budget_s:.0f}초 안에 끝나도록 "
            f"GPU 의 FP32 피크와 기록된 커널 속도로 시간을 어림했습니다 (재는 크기 "
            f"{', '.join(f'{n}³' for n in plan['sizes'])}, 예상 약 {plan['seconds']:.0f}초). 모두 재려면 "
            f"measure.benchmark(..., sizes=(1024, 2048, 4096)) / sizes dropped to keep the cell near "
            f"{budget_s:.0f} s on this GPU."]


def _bench_module():
    """benchmarks/bench_gpu.py imported as a module (None, with a notice, where it is missing)."""
    path = _script("bench_gpu.py")
    if path is None:
        return None
    if "bench_gpu" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_gpu", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["bench_gpu"] = mod
    return sys.modules["bench_gpu"]


def _runnable(kernels):
    """Names bench_gpu.run will measure: FP32 kernels this GPU can run, in registry order."""
    return [s.name for s in kn.REGISTRY if (kernels is None or s.name in kernels)
            and s.dtype == np.float32 and s.runs_here()]


def benchmark(sizes=None, kernels=None, timeout=600, budget_s=BUDGET_S, progress=True):
    """Measure `kernels` against cuBLAS on this GPU (benchmarks/bench_gpu.run): its result dict, or None without a GPU.

    sizes=None: SIZES, less the largest ones whose estimated time on this GPU would not fit budget_s (the cell says
    which and why; budget_s=None keeps all); given sizes are all measured. The run happens in this process, so kernels
    the notebook already launched on this GPU are not compiled again, and a progress bar advances per (size, kernel).
    result['plan'] says what was planned. timeout is kept for callers of the earlier subprocess version (unused)."""
    if not have_gpu():
        return None
    bench = _bench_module()
    if bench is None:
        return None
    try:
        import cupy  # noqa: F401
    except ImportError:
        print("ℹ️ cuBLAS 와 비교하려면 CuPy 가 필요합니다 (pip install -e \".[gpu]\"): 기록된 값을 보여 줍니다. / "
              "the comparison with cuBLAS needs CuPy; showing the recorded figures.")
        return None
    names = _runnable(kernels)
    plan = plan_sizes(names, SIZES if sizes is None else sizes, budget_s=budget_s if sizes is None else None)
    for line in plan_lines(plan, budget_s or BUDGET_S):
        print(line)
    from course.steps import Bar
    try:
        with Bar(len(plan["sizes"]) * (1 + len(names)), "측정 (cuBLAS 와 같은 실행)", unit="행") as bar:
            def on_row(row):
                if progress:
                    bar.update(1, f"{row['n']}³ {row['kernel']}")
            result = bench.run(plan["sizes"], names, on_row=on_row, resources=False, log=None)
    except Exception as e:  # noqa: BLE001 — any failure: say so and let the notebook show the records
        print(f"ℹ️ 측정이 실패했습니다 ({type(e).__name__}: {e}): 기록된 값을 보여 줍니다. / the benchmark failed; "
              "showing the recorded figures.")
        return None
    result["plan"] = plan
    return result


# ---- Nsight Compute ----------------------------------------------------------------------------------------------

def ncu_shared(kernels=None, n=1024, timeout=300, progress=True):
    """Per kernel: shared-memory instructions, wavefronts, bank conflicts measured by ncu on an n³ run of `kernels`
    (None: every FP32 kernel this GPU runs). GPU + ncu only, else None; a progress bar advances per kernel profiled."""
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
    from ncu_banks import METRICS
    names = _runnable(kernels)
    env = dict(os.environ, NCU_N=str(n), NCU_KERNELS=",".join(names))
    cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(METRICS), "--csv", sys.executable, script]
    from course.steps import Bar
    csv_lines, other, launched = [], [], []
    with Bar(len(names), f"ncu 측정 ({n}³, 커널마다 여러 번 다시 실행)", unit="커널") as bar:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        timed_out = []

        def stop():                                  # a hung ncu must not hang the notebook
            timed_out.append(True)
            proc.kill()
        import threading
        watchdog = threading.Timer(timeout, stop)
        watchdog.start()
        try:
            for line in proc.stdout:                     # ncu_banks.py says "launched <kernel>" after each launch
                if line.startswith("launched "):
                    launched.append(line.split()[1])
                    if progress:
                        bar.update(1, launched[-1])
                elif line.startswith('"'):
                    csv_lines.append(line)
                else:
                    other.append(line)
            proc.wait()
        finally:
            watchdog.cancel()
    if timed_out:
        print(f"ℹ️ ncu 가 {timeout}초 안에 끝나지 않아 멈췄습니다: 기록된 값을 보여 줍니다. / ncu timed out.")
        return None
    if proc.returncode != 0 or not csv_lines:
        tail = "".join(other[-5:]).strip()
        print(f"ℹ️ ncu 측정이 실패했습니다 (종료 코드 {proc.returncode}; 예: 성능 카운터 권한 ERR_NVGPUCTRPERM): 기록된 "
              f"값을 보여 줍니다. / ncu failed; showing the recorded figures.\n{tail[-800:]}")
        return None
    return parse_ncu_csv("".join(csv_lines), launched)


def parse_ncu_csv(text, launched=None):
    """{kernel: {metric: int}} from ncu --csv output (lines starting with '==' are ncu's own messages).

    launched: the kernel names in launch order (ncu_banks.py's "launched" lines); where ncu profiled exactly that many
    launches, its "ID" column (0, 1, ...) names each row, else the name ncu printed does (up to '::' or '(')."""
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in text.splitlines() if not ln.startswith("==")))))
    h = rows[0]
    ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    ii = h.index("ID") if "ID" in h else None
    rows = [r for r in rows[1:] if len(r) > max(ki, mi, vi)]
    by_id = ii is not None and launched and len({r[ii] for r in rows}) == len(launched)
    res = {}
    for r in rows:
        name = launched[int(r[ii])] if by_id else r[ki].split("::")[0].split("(")[0]
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


# ---- offline compiles a cell needs ---------------------------------------------------------------------------------

def _cached_offline(offline, pair):
    """True if the offline compile cache already holds (name, cc) (then compiling it costs nothing)."""
    try:
        folder = offline.cache_folder() if hasattr(offline, "cache_folder") else os.environ.get(offline.CACHE_ENV)
        return bool(folder) and os.path.exists(offline._cache_path(folder, *pair))
    except Exception:  # noqa: BLE001 — a cache we cannot read: treat as not cached
        return False


def compile_many(pairs, desc="오프라인 컴파일 (GPU 없이)"):
    """{(name, cc): offline.try_compile result} for every pair; compiles what is not cached yet, with a progress bar
    when that is more than one (each compile is seconds of CPU on a small machine); otherwise one batch call."""
    from kernels_numba.infra import offline
    pairs = list(dict.fromkeys((n, tuple(cc)) for n, cc in pairs))
    todo = [p for p in pairs if not _cached_offline(offline, p)]
    if len(todo) > 1:
        from course.steps import Bar
        with Bar(len(todo), desc, unit="커널") as bar:
            for name, cc in todo:
                offline.try_compile(name, cc)          # one request to the lead's long-lived compile worker
                bar.update(1, f"{name} sm_{cc[0]}{cc[1]}")
        return {p: offline.try_compile(*p) for p in pairs}       # all in memory (and on disk) now
    return offline.try_compile_many(pairs)
