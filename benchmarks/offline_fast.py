"""Compile mma_fast variants for sm_90 without a GPU: registers, local/stack bytes, shared bytes, main-loop SASS.

Checks a configuration before it costs device time (a spill or a 255-register cap shows here as on the GPU).
Usage: SGEMM_DEVICE=offline python benchmarks/offline_fast.py [name ...]   (names of explore_fast.VARIANTS)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
os.environ.setdefault("SGEMM_DEVICE", "offline")
os.environ["NUMBA_ENABLE_CUDASIM"] = "0"


def report(switches, cc=(9, 0)):
    """{usage, loop: main-loop opcode counts, total: whole-kernel counts, config} of make_kernel(**switches) for sm_<cc>."""
    import offline_variant
    from kernels_numba import mma_fast
    return {**offline_variant.report("mma_fast", switches, cc), "config": mma_fast.make_kernel(**switches)[2]}


def main(names):
    import explore_fast
    for name in names or list(explore_fast.VARIANTS):
        t = time.time()
        r = report(explore_fast.VARIANTS[name])
        top = sorted(r["loop"].items(), key=lambda kv: -kv[1])[:12]
        print(f"{name:22s} {r['usage']} loop {r['loop_len']} ins, {time.time() - t:.0f}s\n    {top}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
