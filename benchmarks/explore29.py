"""Candidates for issue 29's goals (mma.sync >= 62 %, FP32 level 5 >= 88 % of cuBLAS), timed by the course's one
engine (course.bench) through `launch`, each beside cuBLAS in the same rounds.

Run (GPU): python benchmarks/explore29.py --set mma --out $OUT/explore29_mma.json [--only bk64 ...]
           python benchmarks/explore29.py --set fp32 --out $OUT/explore29_fp32.json
           ncu --section WarpStateStats --section SpeedOfLight --page raw --csv \
               python benchmarks/explore29.py --set mma --ncu 4096      (one launch of each candidate, no timing)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from course import bench                                   # noqa: E402

SETS = {                                                   # set -> (registry name, {label: make_kernel switches})
    "mma": ("mma_fast", {
        "bk64": dict(BK=64),                                # 3 x 32 KiB stages, 2 blocks of 4 warps per SM
        "bk64_g8": dict(BK=64, GROUP_M=8),
        "bk64_w32": dict(BK=64, WN=32),                     # 8 warps of 64 x 32 (128 registers): 4 warps per scheduler
        "bk32_w32": dict(WN=32),                            # the same warps, 48 KiB static stages
    }),
    "fp32": ("async_wide", {
        "kv4": dict(kv=4),                                  # A read 4 k at a time (LDS.128): 6 shared loads per k, not 8
    }),
}


def build(set_name, only=None):
    """{label: (registry name, launch)} of the set's candidates (the registered kernel is timed as itself)."""
    import importlib
    name, switches = SETS[set_name]
    module = importlib.import_module(f"kernels_numba.{name}")
    out = {}
    for label, sw in switches.items():
        if only and label not in only:
            continue
        try:
            out[label] = (name, module.make_kernel(**sw)[1])
        except Exception as e:                             # noqa: BLE001
            print(label, "BUILD FAILED", repr(e)[:300], flush=True)
    return out


def launch_once(set_name, n, only=None):
    """One launch of the registered kernel and of each candidate at n^3 (under ncu: one profile each, in this order)."""
    import cupy as cp
    import kernels_numba as kn
    from numba import cuda
    name = SETS[set_name][0]
    spec = kn.get(name)
    rng = cp.random.default_rng(0)
    A = rng.standard_normal((n, n), dtype=cp.float32).astype(spec.dtype)
    B = rng.standard_normal((n, n), dtype=cp.float32).astype(spec.dtype)
    C = cp.zeros((n, n), cp.float32)
    dA, dB, dC = (cuda.as_cuda_array(X) for X in (A, B, C))
    for label, launch in [(name, spec.launch), *((k, v[1]) for k, v in build(set_name, only).items())]:
        launch(dA, dB, dC, 1.0, 0.0)
        cuda.synchronize()
        print("launched", label, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=sorted(SETS), default="mma")
    ap.add_argument("--out")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--ncu", type=int, default=0, help="launch each candidate once at this size (under ncu)")
    args = ap.parse_args()
    if args.ncu:
        return launch_once(args.set, args.ncu, args.only)
    name, switches = SETS[args.set]
    variants = build(args.set, args.only)
    run = bench.run([name], args.sizes, rounds=args.rounds, variants=variants, run_id=f"explore29_{args.set}",
                    log=lambda t: print(t, flush=True))
    bench.save_run(args.out, run, f"benchmarks/explore29.py --set {args.set}: {name} candidates through launch "
                   "(course.bench)", {"switches": {k: switches[k] for k in variants}})


if __name__ == "__main__":
    main()
