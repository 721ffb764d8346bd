"""Record the level-5 (cp.async) figures notebook 09 shows: correctness, NUM_STAGES x variant sweep vs cuBLAS, loaded SASS.

Run on a GPU machine (sm_80 or later):  python benchmarks/record_level5.py --out course/ch09_cp_async/records/gpu_h200_level5.json
Every number in the output is measured in this run: correctness against float64 with C poisoned (NaN) for
1..5 K tiles and ragged shapes, course.bench's timing (cuBLAS SGEMM, TF32 off, in the same run),
the registers/shared memory/SASS opcode counts of the kernels as loaded, and blocks per SM from the occupancy API.
Superseded for the chapter's benchmark (its kernels beside cuBLAS at 1024/2048/4096, course.bench) by `python -m course.ch09_cp_async.record`;
this script stays for what it records besides (records name it).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402  (the course's one benchmark engine)

COMPARE = ("db_overlap",)                         # the best level-4 kernel, in the same run
SHAPES = [(64, 64, 8), (64, 64, 16), (64, 64, 24), (64, 64, 32), (64, 64, 40),     # 1..5 K tiles
          (333, 270, 77), (129, 131, 13), (1000, 1001, 999), (257, 255, 1)]
SASS_OPS = ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "FFMA", "LDS", "STS", "LDG", "STG", "CALL", "LDL", "STL")


def _occupancy(kernel, threads):
    from numba import cuda
    sig = kernel.signatures[0]
    func = kernel.overloads[sig]._codelibrary.get_cufunc()
    return int(cuda.current_context().get_active_blocks_per_multiprocessor(func, threads, 0))


def correctness(names):
    """{kernel: [{shape, rel_err, finite, ok}]} on fresh data, C = NaN (beta = 0 must not read it)."""
    import cupy as cp
    rng = cp.random.default_rng(7)
    out = {}
    for name in names:
        rows = []
        for M, N, K in SHAPES:
            A = rng.standard_normal((M, K), dtype=cp.float32)
            B = rng.standard_normal((K, N), dtype=cp.float32)
            C = cp.full((M, N), cp.nan, cp.float32)
            kn.get(name).launch(A, B, C)
            cp.cuda.Device().synchronize()
            ref = A.astype(cp.float64) @ B.astype(cp.float64)
            err = float(cp.linalg.norm(C.astype(cp.float64) - ref) / cp.linalg.norm(ref))
            finite = bool(cp.isfinite(C).all())
            rows.append({"shape": [M, N, K], "rel_err": err, "finite": finite, "ok": finite and err < 1e-5})
        out[name] = rows
        print(name, "correct" if all(r["ok"] for r in rows) else "WRONG", max(r["rel_err"] for r in rows))
    return out


def sass_report(names):
    """Registers, shared bytes, occupancy and SASS counts (whole kernel and main loop) as loaded on this GPU."""
    import numpy as np
    from kernels_numba.tools import resources
    from kernels_numba.tools.offline import sass_counts
    out = {}
    for name in names:
        r = resources.report(name)
        text = r["sass_text"]
        counts = {op: n for op, n in sass_counts(text).items() if op.split(".")[0] in SASS_OPS}
        loop = resources.main_loop(text)
        loop_counts = {}
        for i in loop:
            loop_counts[i.base] = loop_counts.get(i.base, 0) + 1
        spec = kn.get(name)
        threads = int(np.prod(spec.launch.block))
        out[name] = {"registers": r["registers"], "shared_bytes": r["shared_bytes"], "local_bytes": r["local_bytes"],
                     "sass": counts, "main_loop": {k: v for k, v in loop_counts.items() if k in SASS_OPS},
                     "main_loop_calls": [i.text() for i in loop if i.base == "CALL"],
                     "threads": threads, "blocks_per_sm": _occupancy(spec.kernel, threads)}
        print(name, {k: out[name][k] for k in ("registers", "shared_bytes", "blocks_per_sm", "main_loop")})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    args = ap.parse_args()
    names = [s.name for s in kn.by_level(5) if s.runs_here()]
    if not names:
        sys.exit("level 5 needs compute capability 8.0 or later (cp.async); this GPU is older")
    corr = correctness(names)
    run = bench.run(list(COMPARE) + names, args.sizes, log=lambda t: print(t, flush=True))
    rc = 0 if all(r.correct is not False for r in run.rows) else 1
    bench.save_run(args.out, run, "Measured with the device tool (benchmarks/record_level5.py: correctness with C "
                                  "poisoned, course.bench vs cuBLAS SGEMM, loaded SASS, CUDA occupancy API)",
                   {"correctness": corr, "loaded": sass_report(list(COMPARE) + names)})
    ok = all(r["ok"] for rows in corr.values() for r in rows)
    return rc or (0 if ok else 1)


if __name__ == "__main__":
    sys.exit(main())
