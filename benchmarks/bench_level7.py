"""Level 7 (Hopper wgmma + TMA) and mma_fast against cuBLAS HGEMM in the same run, timed by the course's one engine.

course.bench.run, as every benchmark of the course: per size, fresh random f16 inputs and a float64 reference; every
entry (cuBLAS and each kernel) checked first (NaN-poisoned C, alpha/beta once) and its row says whether it was
correct; then rotated rounds of every entry through the course's own `launch`. Where Python's host time per call is
not well under the GPU time (2048³ on an H100: a launch costs about as much as the kernel), every entry of that size,
cuBLAS too, is timed from CUDA graphs of raw dispatches instead, so the figure is the kernel's and not Python's; the
host time per launch is kept as its own column. cuBLAS HGEMM = cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F,
through its own handle. mma_fast (the best mma.sync kernel, notebook 10) runs in the same rounds as the step before.

Run on the GPU machine (one command): python benchmarks/bench_level7.py
  -> course/ch11_hopper/records/gpu_h100_level7.json (or --out PATH) in the one schema (course/records.py): a run added to the
  record (or replacing the run of the same --run-id). Notebook 11's section 8 is generated from it; its live cell
  calls the same engine (course.ch11_hopper.lesson.live_benchmark).
Superseded for the chapter's benchmark (its kernels beside cuBLAS at 1024/2048/4096, course.bench) by `python -m course.ch11_hopper.record`;
this script stays for what it records besides (records name it).
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402
from course.ch11_hopper import lesson as lesson11  # noqa: E402

KERNELS = lesson11.KERNELS_TIMED                  # wgmma_simple, wgmma_tma, wgmma_ws, mma_fast
GOAL = {"4096": 0.75}                             # share of cuBLAS HGEMM at 4096³ the level-7 kernels aim for
WHAT = ("benchmarks/bench_level7.py: level-7 kernels (wgmma, TMA) and mma_fast through launch vs cuBLAS HGEMM, same "
        "run (course.bench)")


def loaded(name):
    """Registers, static/dynamic shared and local memory of kernel `name` as loaded on this GPU (after it ran)."""
    spec = kn.get(name)
    sig = getattr(spec.module, "SIG", None)
    try:
        k = spec.kernel.compile(sig) if sig is not None else None
        return {"registers": int(k.regs_per_thread), "static_shared_bytes": int(k.shared_mem_per_block),
                "dynamic_shared_bytes": int(spec.dynamic_smem), "local_bytes": int(k.local_mem_per_thread),
                "threads": int(spec.threads)}
    except Exception as e:                        # noqa: BLE001 — a record without it is still a record
        return {"error": str(e)}


def why_not_here():
    """'' on a CC 9.0 GPU with CuPy, else why this script cannot measure here."""
    from kernels_numba.infra import device, hopper
    if device.SIMULATOR or hopper.lacks_hopper():
        return "bench_level7 needs a CC 9.0 GPU (H100/H200): wgmma and TMA are sm_90a"
    return bench.available()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "course", "ch11_hopper", "records", "gpu_h100_level7.json"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS))
    ap.add_argument("--run-id", default=None, help="default: <gpu class>_<date>")
    args = ap.parse_args(argv)
    why = why_not_here()
    if why:
        sys.exit(f"bench_level7: {why}")
    run = bench.run(args.kernels, args.sizes, rounds=args.rounds, run_id=args.run_id,
                    log=lambda t: print(t, flush=True))
    extra = {"goal": GOAL, "configs": {k: kn.get(k).module.CONFIG for k in args.kernels},
             "resources": {k: loaded(k) for k in args.kernels}}
    path = bench.save_run(args.out, run, WHAT, extra)
    for n in sorted(run.sizes):
        kernels = [r for r in run.select(n=n) if r.kernel != "cuBLAS"]
        best = max(kernels, key=lambda r: r.ratio, default=None)
        how = {r.extra.get("timed_by") for r in run.select(n=n)}
        print(f"{n}³ ({'/'.join(sorted(how))}): cuBLAS {run.tflops('cuBLAS', n):.1f} TFLOP/s; best "
              + (f"{best.label} {100 * best.ratio:.1f} %" if best else "-")
              + (f" (goal {100 * GOAL[str(n)]:.0f} %)" if str(n) in GOAL else ""), flush=True)
    if run.flagged:
        print("# FLAGGED:", run.flagged, flush=True)
    if run.note:
        print("# note:", run.note, flush=True)
    print("->", path, flush=True)
    return 0 if all(r.correct is not False for r in run.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
