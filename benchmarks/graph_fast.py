"""GPU time of cuBLAS HGEMM and mma_fast configurations from CUDA-graph replays: no launch gaps on either side.

At 2048^3 one Numba launch costs about as much host time as the kernel runs (record run 6), so back-to-back event
timing there measures Python. Here course.bench.run(graphs=True) times every entry, cuBLAS included (its own handle:
cublasGemmEx f16 x f16 -> f32, CUBLAS_COMPUTE_32F), from CUDA graphs of 20 raw dispatches replayed, in rotated
rounds, after checking each against float64. The configurations are benchmarks/explore_fast's ('fast' is the
registered mma_fast, any other a make_kernel configuration of mma_fast.VARIANTS).
Run (GPU): python benchmarks/graph_fast.py --out $OUT/graph_fast.json [--variants fast bk64_lean_dyn] [--rounds 5]
  -> a record in the one schema (course/records.py; its rows say timed_by graph).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from course import bench                          # noqa: E402
import explore_fast                               # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="the record to write (a run is added to an existing one)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--variants", nargs="+", default=["fast", "bk64_lean_dyn"])
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--run-id", default=None)
    args = ap.parse_args(argv)
    why = bench.available()
    if why:
        sys.exit(f"graph_fast: {why}")
    run = explore_fast.sweep(args.variants, args.sizes, args.rounds, graphs=True, run_id=args.run_id)
    path = bench.save_run(args.out, run, "benchmarks/graph_fast.py (course.bench, CUDA graphs): mma_fast "
                          "configurations vs cuBLAS HGEMM, same run")
    print(run.name)
    print(explore_fast.table(run))
    print("->", path)
    return 0 if explore_fast.ok(run) else 1


if __name__ == "__main__":
    sys.exit(main())
