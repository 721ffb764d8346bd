"""Ablation sweep of kernels_numba/mma_fast.py on the GPU, cuBLAS HGEMM timed in the same run by the course's engine.

Each variant is make_kernel(**switches) (mma_fast.VARIANTS): the registered configuration with one switch changed,
plus larger tiles; 'fast' is the registered kernel itself and mma_swizzle (the previous best) is timed beside them.
Per variant, first a ragged-size check against float64 (alpha/beta, NaN-poisoned C, A = I); then course.bench.run
checks every entry at each size and times all of them, cuBLAS too, in rotated rounds through `launch` (CUDA graphs
where Python's launch cost would be timed, or everywhere with --graphs). Each row keeps the variant's switches, its
ragged check and the loaded kernel's registers, local and shared bytes and blocks per SM (occupancy API).
Run (GPU): python benchmarks/explore_fast.py --out $OUT/explore_fast.json [--sizes 2048 4096] [--variants ...]
  -> a record in the one schema (course/records.py); benchmarks/record_level6_fast.py and graph_fast.py use sweep().
"""
import argparse
import dataclasses
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402
from course.ch10_tensor_core.lesson import variant_of           # noqa: E402  (a row's ablation name: 'fast', a variant, a kernel)
from kernels_numba import mma_fast                # noqa: E402
from kernels_numba import tc                # noqa: E402

# name -> make_kernel switches: one list, kept beside the switches in kernels_numba/mma_fast.py
VARIANTS = mma_fast.VARIANTS
FAST, PREVIOUS = "fast", "mma_swizzle"            # the registered kernel and the previous best, under their own names


def resources(kernel, threads, dyn_smem):
    """Registers, local and shared bytes of a loaded kernel and its blocks per SM (occupancy API)."""
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


def build(labels):
    """{label: (registry name, launch, kernel, dynamic shared bytes, info)} of the ablation names: FAST and PREVIOUS
    the registered kernels, any other a make_kernel configuration of VARIANTS; each checked on a ragged size first
    (info: switches, ragged_ok). A variant that does not build or check is printed and left out: {label: error}."""
    out, failed = {}, {}
    for label in labels:
        try:
            if label in (FAST, PREVIOUS):
                spec = kn.get("mma_fast" if label == FAST else PREVIOUS)
                name, launch, kernel, conf = spec.name, spec.launch, spec.kernel, getattr(spec.module, "CONFIG", None)
                info = {"switches": VARIANTS[FAST]} if label == FAST else {
                    "config": "tc.build_tiled 128x128x32, 2x4 warps of 64x32, 2 stages, lb(256,2)"}
            else:
                kernel, launch, conf = mma_fast.make_kernel(**VARIANTS[label])
                name, info = "mma_fast", {"switches": VARIANTS[label]}
            dyn = conf["SMEM_BYTES"] if conf and conf.get("DYNAMIC") else 0
            out[label] = (name, launch, kernel, dyn, dict(info, ragged_ok=check_ragged(launch)))
        except Exception:                             # noqa: BLE001
            failed[label] = traceback.format_exc()[-1500:]
            print(label, "BUILD/CHECK FAILED", failed[label], flush=True)
    return out, failed


def sweep(labels, sizes, rounds=bench.ROUNDS, graphs=None, run_id=None, log=None):
    """A records.Run of cuBLAS and the ablation names `labels`, timed by course.bench.run in one run; each row's extra
    keeps the variant's switches, ragged check and loaded resources (as the recorded runs 3-6 have them); the run's
    extra says which names could not be built or checked (failed)."""
    built, failed = build(labels)
    kernels = [b[0] for label, b in built.items() if label in (FAST, PREVIOUS)]
    variants = {label: (b[0], b[1]) for label, b in built.items() if label not in (FAST, PREVIOUS)}
    run = bench.run(kernels, sizes, rounds=rounds, run_id=run_id, variants=variants, graphs=graphs,
                    log=log or (lambda t: print(t, flush=True)))
    info = {}
    for label, (name, launch, kernel, dyn, extra) in built.items():
        try:
            threads = launch.block if isinstance(launch.block, int) else int(np.prod(launch.block))
            info[label] = dict(extra, **resources(kernel, threads, dyn))
        except Exception as e:                        # noqa: BLE001 — the row's timing stands without them
            info[label] = dict(extra, resources_error=repr(e)[:300])
    rows = tuple(dataclasses.replace(r, extra={**r.extra, **info.get(variant_of(r), {})}) for r in run.rows)
    extra = {**run.extra, "config": mma_fast.CONFIG, **({"failed": failed} if failed else {})}
    return dataclasses.replace(run, rows=rows, extra=extra)


def ok(run):
    """True when every requested entry was built and every row was correct (a script's exit status 0)."""
    return not run.extra.get("failed") and all(r.correct is not False for r in run.rows)


def table(run):
    """The sweep as text: per ablation name its registers, local/shared bytes, blocks per SM, TFLOP/s and % of cuBLAS
    per size, how each size was timed."""
    sizes = run.sizes
    by = {}
    for r in run.rows:
        by.setdefault(variant_of(r), {})[r.n] = r
    lines = [f"{'variant':18s} {'regs':>4s} {'local':>5s} {'smem':>6s} {'blk/SM':>6s} "
             + " ".join(f"{'TF@' + str(n):>8s} {'%cuBLAS':>7s}" for n in sizes) + "  timed by"]
    for name, rs in by.items():
        e = next(iter(rs.values())).extra
        head = (f"{name:18s} {e.get('registers', ''):>4} {e.get('local_bytes', ''):>5} {e.get('shared_bytes', ''):>6} "
                f"{e.get('blocks_per_sm', ''):>6} ")
        cells = [f"{rs[n].tflops:8.1f} {100 * rs[n].ratio:6.1f}%" if n in rs else f"{'-':>8s} {'-':>7s}" for n in sizes]
        bad = "  WRONG" if any(r.correct is False for r in rs.values()) else ""
        lines.append(head + " ".join(cells) + "  " + "/".join(sorted({r.extra.get("timed_by", "?")
                                                                      for r in rs.values()})) + bad)
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="the record to write (a run is added to an existing one)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS) + [PREVIOUS])
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--graphs", action="store_true", help="time every size from CUDA graphs (else where launch-bound)")
    ap.add_argument("--run-id", default=None)
    args = ap.parse_args(argv)
    why = bench.available()
    if why:
        sys.exit(f"explore_fast: {why}")
    run = sweep(args.variants, args.sizes, args.rounds, graphs=True if args.graphs else None, run_id=args.run_id)
    path = bench.save_run(args.out, run, "benchmarks/explore_fast.py (course.bench): mma_fast configurations vs "
                          "cuBLAS HGEMM, same run")
    print(run.name)
    print(table(run))
    print("->", path)
    return 0 if ok(run) else 1


if __name__ == "__main__":
    sys.exit(main())
