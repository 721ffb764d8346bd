"""Ablation sweep of kernels_numba/mma_fast.py on the GPU, cuBLAS HGEMM timed in the same run.

Each variant is make_kernel(**switches): the default configuration with one switch changed, plus larger tiles; the
previous best (mma_swizzle) is timed beside them. Per variant: a ragged-size check against float64 with the derived
tolerance (alpha, beta, NaN-poisoned C), relative error at each size, TFLOP/s and % of cuBLAS at 2048^3 and 4096^3,
registers / local / shared bytes of the loaded kernel and blocks per SM from the occupancy API.
Run (device tool): python benchmarks/explore_fast.py --out $OUT/explore_fast.json
"""
import argparse
import datetime
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from kernels_numba import mma_fast                # noqa: E402
from kernels_numba.infra import tc                # noqa: E402
from record_level6 import _cublas_f32out, _timeit  # noqa: E402

# name -> make_kernel switches: one list, kept beside the switches in kernels_numba/mma_fast.py
VARIANTS = mma_fast.VARIANTS


def resources(kernel, threads, dyn_smem):
    from numba import cuda
    ov = next(iter(kernel.overloads.values()))
    func = ov._codelibrary.get_cufunc()
    blocks = int(cuda.current_context().get_active_blocks_per_multiprocessor(func, threads, dyn_smem))
    return {"registers": ov.regs_per_thread, "local_bytes": ov.local_mem_per_thread,
            "shared_bytes": ov.shared_mem_per_block + dyn_smem, "blocks_per_sm": blocks}


def check_ragged(launch, M=400, N=264, K=208, seed=1):
    """alpha=1.5, beta=-0.5 and beta=0 with NaN-poisoned C at a size that is no multiple of the block tile."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy()
    launch(A, B, C, 1.5, -0.5)
    ok = bool((np.abs(C - tc.reference(A, B, 1.5, -0.5, C0)) <= tc.error_bound(A, B, 1.5, -0.5, C0)).all())
    C = np.full((M, N), np.nan, np.float32)
    launch(A, B, C)
    ok0 = bool(np.isfinite(C).all() and (np.abs(C - tc.reference(A, B)) <= tc.error_bound(A, B)).all())
    I = np.zeros((M, N), np.float32)
    launch(np.eye(M, K, dtype=np.float16), B, I)
    ident = bool(np.array_equal(I[:K], B[:min(M, K)].astype(np.float32)[:K]) and not I[K:].any())
    return ok and ok0 and ident


class ClockLog:
    """nvidia-smi sampling SM clock, power and temperature every 20 ms in its own process (no GIL shared with the
    launches); window(t0, t1) -> median clock / power over a timed window. Reads the card, changes nothing."""

    def __init__(self, path):
        import subprocess
        self.path, self.proc = path, None
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                 "--format=csv,noheader,nounits", "-lms", "20"], stdout=open(path, "w"), stderr=subprocess.DEVNULL)
        except OSError:
            self.proc = None

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()
        self.samples = []
        try:
            with open(self.path) as f:
                for line in f:
                    parts = [p.strip() for p in line.split(",")]
                    try:
                        t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                        self.samples.append((t, float(parts[1]), float(parts[2]), float(parts[3])))
                    except (ValueError, IndexError):
                        pass
        except OSError:
            pass

    def window(self, t0, t1):
        inside = [s for s in self.samples if t0 <= s[0] <= t1]
        if not inside:
            return {}
        return {"sm_mhz": float(np.median([s[1] for s in inside])), "power_w": float(np.median([s[2] for s in inside])),
                "temp_c": float(np.median([s[3] for s in inside])), "samples": len(inside)}


def _timed(fn, burst_ms, min_ms, groups):
    """A burst of fn (the GPU settles at this kernel's own clock), then _timeit; (ms, wall t0, wall t1)."""
    import time
    _timeit(fn, min_ms=burst_ms, groups=1)
    t0 = time.time()
    ms = _timeit(fn, min_ms=min_ms, groups=groups)
    return ms, t0, time.time()


def host_us_per_launch(fn, n=200):
    """Host time of one call (launches queued without waiting): above the kernel's own time, the GPU idles between
    launches and event timing measures Python, not the kernel."""
    import time
    import cupy as cp
    fn()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n * 1e6
    cp.cuda.Device().synchronize()
    return host


def graph_ms(fn_on, stream, per_graph=20, replays=5):
    """Per-call GPU time of fn_on(stream) from a CUDA graph of per_graph calls captured on `stream` and replayed
    (median of `replays`): no Python launch cost between kernels, for cuBLAS and the Numba kernels alike."""
    import cupy as cp
    fn_on(stream)                         # outside the capture: lazy set-up (cuBLAS workspace, module load)
    stream.synchronize()
    stream.begin_capture()
    try:
        for _ in range(per_graph):
            fn_on(stream)
    finally:
        graph = stream.end_capture()
    graph.launch(stream)
    stream.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(replays):
        start.record(stream)
        graph.launch(stream)
        end.record(stream)
        end.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, end) / per_graph)
    return float(np.median(out))


def _cublas_on(A, B, C, stream):
    from cupy_backends.cuda.libs import cublas
    import cupy as cp
    cublas.setStream(cp.cuda.device.get_cublas_handle(), stream.ptr)
    _cublas_f32out(A, B, C)


def sweep(names, sizes, rounds=5, clock_log=None, graphs=False):
    """Rows per (variant, size): median of `rounds` interleaved timings, cuBLAS in every round.

    Each round times every entry once, in a rotated order (no variant always follows cuBLAS); each timing is a
    100 ms burst of that kernel alone, then ~60 ms timed in 3 groups (median). Per entry: the median over rounds,
    every round's figure, and where nvidia-smi could be read, the median SM clock and power of its timed windows."""
    import cupy as cp
    from numba import cuda
    built = {}
    for name in names:
        try:
            if name == "mma_swizzle":
                spec = kn.get(name)
                built[name] = (spec.kernel, spec.launch, spec.launch.kernel, None,
                               {"config": "tc.build_tiled 128x128x32, 2x4 warps of 64x32, 2 stages, lb(256,2)"})
            else:
                k, launch, conf = mma_fast.make_kernel(**VARIANTS[name])
                built[name] = (k, launch, launch.launcher, conf, {"switches": VARIANTS[name]})
            built[name][4]["ragged_ok"] = check_ragged(built[name][1])
        except Exception:                             # noqa: BLE001
            built[name] = None
            print(name, "BUILD/CHECK FAILED", traceback.format_exc()[-1500:], flush=True)
    rows = []
    for n in sizes:
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        C = cp.zeros((n, n), cp.float32)
        flops = 2.0 * n ** 3
        dA, dB, dC = cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)
        calls, found = {"cuBLAS": lambda: _cublas_f32out(A, B, C)}, {}
        on_stream = {"cuBLAS": lambda st: _cublas_on(A, B, C, st)}
        for name in names:
            if built[name] is None:
                continue
            k, launch, launcher, conf, info = built[name]
            try:
                threads = launch.block if isinstance(launch.block, int) else int(np.prod(launch.block))
                kk = launcher[launch.grid_of(n, n), launch.block]
                C.fill(cp.nan)
                kk(dA, dB, dC, np.float32(1), np.float32(0))
                cuda.synchronize()
                err = float(cp.abs(C - ref).max() / cp.abs(ref).max())     # NaN if any element was not written
                dyn = conf["SMEM_BYTES"] if conf and conf["DYNAMIC"] else 0
                found[name] = dict(info, variant=name, n=n, rel_err=err, **resources(k, threads, dyn))
                calls[name] = (lambda kk=kk: kk(dA, dB, dC, np.float32(1), np.float32(0)))
                on_stream[name] = (lambda st, g=launch.grid_of(n, n), b=launch.block, lr=launcher: lr[
                    g, b, cuda.external_stream(st.ptr)](dA, dB, dC, np.float32(1), np.float32(0)))
            except Exception as e:                    # noqa: BLE001
                rows.append(dict(variant=name, n=n, error=repr(e)[:800]))
                print(rows[-1], flush=True)
        # warm-up: one second of cuBLAS, then every entry once, so no first timing meets a cold GPU
        _timeit(calls["cuBLAS"], min_ms=1000.0, groups=1)
        for name in calls:
            _timeit(calls[name], min_ms=50.0, groups=1)
        times = {name: [] for name in calls}
        windows = {name: [] for name in calls}
        order = list(calls)
        for r in range(rounds):
            # rotated order: earlier runs timed cuBLAS first in every round and the variant right after it ran
            # ~20 % slow at 4096^3, whichever it was; here every entry takes every place in turn
            shift = (r * len(order)) // max(rounds, 1)
            for name in order[shift:] + order[:shift]:
                ms, t0, t1 = _timed(calls[name], 100.0, 60.0, 3)
                times[name].append(ms)
                windows[name].append((t0, t1))
        med = {name: float(np.median(t)) for name, t in times.items()}
        base = flops / med["cuBLAS"] / 1e9
        host = {}
        for name in calls:
            try:
                host[name] = host_us_per_launch(calls[name])
            except Exception as e:                    # noqa: BLE001
                host[name] = repr(e)[:200]
        gtimes = {name: [] for name in calls}
        if graphs:
            # CUDA-graph rounds (rotated like the plain ones): the kernels' GPU time without launch gaps
            stream = cp.cuda.Stream(non_blocking=True)
            for r in range(rounds):
                shift = (r * len(order)) // max(rounds, 1)
                for name in order[shift:] + order[:shift]:
                    try:
                        _timeit(calls[name], min_ms=50.0, groups=1)
                        gtimes[name].append(graph_ms(on_stream[name], stream))
                    except Exception as e:            # noqa: BLE001
                        gtimes[name].append(repr(e)[:300])
            cp.cuda.device.get_cublas_handle()
            from cupy_backends.cuda.libs import cublas
            cublas.setStream(cp.cuda.device.get_cublas_handle(), cp.cuda.get_current_stream().ptr)
        gmed = {name: float(np.median(t)) for name, t in gtimes.items() if t and all(isinstance(x, float) for x in t)}
        for name in calls:
            tf = flops / med[name] / 1e9
            extra = {"ms": med[name], "ms_rounds": times[name], "tflops": tf, "ratio": tf / base,
                     "tflops_rounds": [flops / t / 1e9 for t in times[name]],
                     "windows": windows[name], "host_us_per_launch": host[name]}
            if name in gmed and "cuBLAS" in gmed:
                extra.update(graph_ms=gmed[name], graph_ms_rounds=gtimes[name], graph_tflops=flops / gmed[name] / 1e9,
                             graph_ratio=gmed["cuBLAS"] / gmed[name])
            elif graphs:
                extra.update(graph_error=str(gtimes[name])[:300])
            row = dict(found[name], **extra) if name in found else dict(
                variant="cuBLAS", n=n, path="cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F", **extra)
            rows.append(row)
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
                   if k in ("variant", "n", "tflops", "ratio", "rel_err")},
                  "rounds", [round(x, 1) for x in row["tflops_rounds"]], "host us", host[name],
                  "graph", round(row.get("graph_tflops", float("nan")), 1), round(row.get("graph_ratio", float("nan")), 4),
                  flush=True)
    if clock_log is not None:
        clock_log.stop()
        for row in rows:
            if "windows" in row:
                per = [clock_log.window(a, b) for a, b in row["windows"]]
                per = [p for p in per if p]
                if per:
                    row["clock"] = {k: float(np.median([p[k] for p in per])) for k in ("sm_mhz", "power_w", "temp_c")}
                    row["clock_rounds_mhz"] = [p["sm_mhz"] for p in per]
    return rows


def table(rows, sizes):
    names = list(dict.fromkeys(r["variant"] for r in rows))
    lines = [f"{'variant':18s} {'regs':>4s} {'local':>5s} {'smem':>6s} {'blk/SM':>6s} " +
             " ".join(f"{'TF@' + str(n):>8s} {'%cuBLAS':>7s}" for n in sizes)]
    for name in names:
        rs = {r["n"]: r for r in rows if r["variant"] == name}
        if not rs:
            continue
        any_r = next(iter(rs.values()))
        head = f"{name:18s} {any_r.get('registers', ''):>4} {any_r.get('local_bytes', ''):>5} " \
               f"{any_r.get('shared_bytes', ''):>6} {any_r.get('blocks_per_sm', ''):>6} "
        cells = []
        for n in sizes:
            r = rs.get(n, {})
            cells.append(f"{r.get('tflops', float('nan')):8.1f} {100 * r.get('ratio', float('nan')):6.1f}%")
        clk = "/".join(str(int(r["clock"]["sm_mhz"])) for r in rs.values() if "clock" in r)
        lines.append(head + " ".join(cells) + (f"  {clk} MHz" if clk else "") +
                     ("" if all("error" not in r for r in rs.values()) else "  ERROR"))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS) + ["mma_swizzle"])
    args = ap.parse_args()
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    result = {"what": "benchmarks/explore_fast.py (device tool)", "gpu": gpu, "cc": list(dev.compute_capability),
              "date": datetime.date.today().isoformat(),
              "baseline": "cuBLAS HGEMM: cublasGemmEx f16\u00d7f16\u2192f32, CUBLAS_COMPUTE_32F"}
    result["rows"] = sweep(args.variants, args.sizes, clock_log=ClockLog(args.out + ".clocks.csv"))
    result["table"] = table(result["rows"], args.sizes)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(gpu, result["date"])
    print(result["table"])


if __name__ == "__main__":
    main()
