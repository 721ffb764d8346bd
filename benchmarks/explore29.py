"""Candidates for the mma.sync and FP32 goals, timed by the course's one engine (course.bench) through `launch`, each
beside cuBLAS in the same rounds. Run (GPU): python benchmarks/explore29.py --out $OUT/explore29.json [--fp32]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from course import bench                                   # noqa: E402
from kernels_numba import mma_fast                         # noqa: E402

MMA = {                                                    # label -> mma_fast.make_kernel switches
    "bk64": dict(BK=64),
    "bk64_s4": dict(BK=64, STAGES=4),
    "128x256x32_s4": dict(BN=256, STAGES=4, min_blocks=1),
    "128x256x64": dict(BN=256, BK=64, min_blocks=1),
    "256x128x32_s4": dict(BM=256, STAGES=4, min_blocks=1),
    "bk64_g8": dict(BK=64, GROUP_M=8),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    variants = {}
    for label, sw in MMA.items():
        if args.only and label not in args.only:
            continue
        try:
            variants[label] = ("mma_fast", mma_fast.make_kernel(**sw)[1])
        except Exception as e:                             # noqa: BLE001
            print(label, "BUILD FAILED", repr(e)[:300], flush=True)
    run = bench.run(["mma_fast"], args.sizes, rounds=3, variants=variants, run_id="explore29",
                    log=lambda t: print(t, flush=True))
    bench.save_run(args.out, run, "benchmarks/explore29.py: mma_fast configurations through launch (course.bench)",
                   {"switches": {k: MMA[k] for k in variants}})


if __name__ == "__main__":
    main()
