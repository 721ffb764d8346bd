"""GPU benchmark: registered kernels against cuBLAS in the same run, as a ratio (a thin command line over course.bench).

Usage (on a GPU machine):
  python benchmarks/bench_gpu.py [--kernels NAME ...] [--level 1 2 ...] [--sizes 1024 2048 4096] [--rounds 5]
                                 [--out course/recorded/<name>.json or course/chNN_<slug>/records/<name>.json] [--run-id ID] [--what TEXT]
FP32 kernels are timed against cuBLAS SGEMM, f16 Tensor Core kernels against cuBLAS HGEMM (f16 x f16 -> f32); one
run times one kind. --out writes (or adds a run to) a record in the one schema (course/records.py).
Superseded for the chapter's benchmark (its kernels beside cuBLAS at 1024/2048/4096, course.bench) by `python -m course.ch06_shared_tiling.record`;
this script stays for what it records besides (records name it).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kernels_numba as kn                       # noqa: E402
from course import bench                         # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", nargs="*", default=None)
    ap.add_argument("--level", type=int, nargs="*", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(bench.SIZES))
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--out", default=None)
    ap.add_argument("--run-id", default=None)
    ap.add_argument("--what", default="benchmarks/bench_gpu.py (course.bench): registered kernels vs cuBLAS")
    args = ap.parse_args()
    why = bench.available()
    if why:
        sys.exit(f"bench_gpu.py: {why}")
    names = args.kernels
    if args.level:
        names = (names or []) + [s.name for s in kn.REGISTRY if s.level in args.level]
    run = bench.run(names, args.sizes, rounds=args.rounds, run_id=args.run_id, log=lambda t: print(t, flush=True))
    if run.flagged:
        print("# FLAGGED:", run.flagged, flush=True)
    if run.note:
        print("# note:", run.note, flush=True)
    if args.out:
        bench.save_run(args.out, run, args.what)
    return 0 if all(r.correct is not False for r in run.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
