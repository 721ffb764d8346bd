"""Host cost of one launch in a notebook-sized process: the course's launch, Numba's raw dispatch, a CUDA graph replay.

Run (GPU): python benchmarks/launch_cost.py --out launch_cost.json [--modules 3000]
The process first imports what a notebook holds (course, matplotlib, ipywidgets where installed) and then empty
modules up to --modules in sys.modules, as a Jupyter kernel has. Per kernel and size: host microseconds per call
(calls queued without waiting, median of 7 batches) for
  launch      spec.launch(dA, dB, dC) with device arrays: the course's checks + dispatch
  raw         kernel[grid, block](dA, dB, dC, alpha, beta): Numba's own dispatch, configured each call
  bound       launch.bind(...)(): the checks once, then only Numba's dispatch
and the GPU time per call from events around back-to-back launches and from a CUDA graph replay of raw dispatches.
The record (one schema, course/records.py) keeps the rows with their host figures in `extra`.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fill_modules(total):
    """Import what a notebook process holds, then pad sys.modules with empty modules up to `total`."""
    import course  # noqa: F401
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        pass
    i = 0
    while len(sys.modules) < total:
        name = f"_notebook_like_{i}"
        sys.modules[name] = types.ModuleType(name)
        i += 1
    return len(sys.modules)


def per_call_us(fns, n=200, batches=7):
    """{name: host us per call} for the callables `fns`, their batches interleaved (batch b of every fn, then b+1, in
    a rotated order): drifts of the host (clock, other work, the GPU queue) fall on every method alike."""
    import cupy as cp
    names = list(fns)
    out = {k: [] for k in names}
    for b in range(batches):
        shift = b % len(names)
        for k in names[shift:] + names[:shift]:
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            for _ in range(n):
                fns[k]()
            out[k].append((time.perf_counter() - t) / n * 1e6)
    cp.cuda.Device().synchronize()
    return {k: statistics.median(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--modules", type=int, default=3000)
    ap.add_argument("--cases", nargs="+", default=["tiled:1024", "regblock_vec:1024", "async_wide:1024",
                                                   "mma_fast:2048", "mma_fast:4096"])
    args = ap.parse_args()
    held = fill_modules(args.modules)
    import cupy as cp
    import numpy as np
    from numba import cuda

    import kernels_numba as kn
    from course import bench, records
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    stream = cp.cuda.Stream(non_blocking=True)
    rows = []
    for case in args.cases:
        name, n = case.split(":")
        n = int(n)
        spec = kn.get(name)
        rng = cp.random.default_rng(n)
        A = rng.standard_normal((n, n), dtype=cp.float32).astype(spec.dtype)
        B = rng.standard_normal((n, n), dtype=cp.float32).astype(spec.dtype)
        C = cp.zeros((n, n), getattr(spec.module, "C_DTYPE", np.float32))
        dA, dB, dC = cuda.as_cuda_array(A), cuda.as_cuda_array(B), cuda.as_cuda_array(C)
        launch = spec.launch
        grid = launch.grid_of(n, n) if hasattr(launch, "grid_of") else (-(-n // launch.tile[1]), -(-n // launch.tile[0]))
        k = getattr(launch, "launcher", launch.kernel)
        a, b = np.float32(1), np.float32(0)
        calls = {"launch": lambda: launch(dA, dB, dC, 1.0, 0.0),
                 "raw": lambda: k[grid, launch.block](dA, dB, dC, a, b),
                 "bound": launch.bind(dA, dB, dC, 1.0, 0.0)}
        launch(dA, dB, dC)
        cuda.synchronize()
        ref = A.astype(cp.float64) @ B.astype(cp.float64)
        err = float(cp.linalg.norm(C.astype(cp.float64) - ref) / cp.linalg.norm(ref))
        host = per_call_us(calls)
        gpu_ms = {k_: bench.events_ms(f, min_ms=100.0) for k_, f in calls.items()}
        graph = bench.graph_ms(launch.bind(dA, dB, dC, 1.0, 0.0, stream=cuda.external_stream(stream.ptr)), stream)
        row = records.Row(kernel=name, n=n, ms=graph, tflops=2.0 * n ** 3 / graph / 1e9, ratio=None,
                          correct=err < (1e-4 if spec.dtype == np.float16 else 1e-5), rel_err=err,
                          host_us=host["launch"],
                          extra={"host_us": host, "events_ms": gpu_ms, "graph_ms": graph,
                                 "launch_minus_raw_us": host["launch"] - host["raw"]})
        rows.append(row)
        print(f"{name:14s} {n:5d}  host us: launch {host['launch']:6.1f}  raw {host['raw']:6.1f}  bound "
              f"{host['bound']:6.1f}  (launch - raw {host['launch'] - host['raw']:+.1f})  GPU ms: events via launch "
              f"{gpu_ms['launch']:.4f}, raw {gpu_ms['raw']:.4f}, graph {graph:.4f}  err {err:.1e}", flush=True)
    run = records.Run(id=f"{records.gpu_class(gpu).lower()}_launch_cost_{datetime.date.today().isoformat()}",
                      gpu=gpu, cc=tuple(dev.compute_capability), date=datetime.date.today().isoformat(),
                      baseline="none (host cost of one call: no ratio)",
                      method=f"host: perf_counter around 200 queued calls, median of 7 batches (the three ways interleaved, "
                             f"rotated), in a process holding "
                             f"{held} modules; GPU: CUDA events around >= 100 ms of back-to-back calls, and a CUDA "
                             "graph of 20 raw dispatches replayed 5 times (median)",
                      rows=tuple(rows), versions=bench.versions())
    from course import measure
    lesson = measure.launch_costs()                # notebook 07's table: kernels of ~50 us, 400 us and 3 ms
    for line in measure.launch_cost_lines(lesson, where=gpu):
        print(line, flush=True)
    rec = records.Record(name=os.path.splitext(os.path.basename(args.out))[0],
                         what="benchmarks/launch_cost.py: host cost of one launch (course launch vs Numba dispatch); "
                              "lesson: course.measure.launch_costs() for notebook 07",
                         runs=(run,), extra={"modules_held": held, "lesson": lesson})
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(records.to_dict(rec), f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
