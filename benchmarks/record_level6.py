"""Level 6 on the GPU in one run: layout record, correctness, error vs K, loaded resources/SASS, and the benchmark of
the level-6 kernels and other tc.build_tiled configurations against cuBLAS HGEMM, timed by the course's one engine.

The benchmark is course.bench.run: per size every entry checked against float64 first, then rotated rounds through
`launch` (CUDA graphs where Python's launch cost would be timed). Its baseline is cuBLAS HGEMM, cublasGemmEx with A, B
CUDA_R_16F, C CUDA_R_32F, CUBLAS_COMPUTE_32F (what the f32-output kernels compute); the kernels that write f16 are also
compared with cublasGemmEx writing f16 (cuBLAS_f16out, same rounds: each row's ratio_same_output). The EXPLORE
configurations are timed in the same rounds as variants of mma_swizzle (the same kernel body, other tiles and stages);
extra "explore" lists them at the largest size with their loaded registers and memory, as notebook 10 reads them.
Run: python benchmarks/record_level6.py --out course/ch10_tensor_core/records/gpu_h200_level6.json
                                       --layout-out course/recorded/mma_layout_h200.json
     (--only-explore: the EXPLORE configurations and mma_swizzle alone, at 4096³ unless --sizes says otherwise)
The record is written in the one schema (course/records.py): the run's rows, the other findings under extra.
Superseded for the chapter's benchmark (its kernels beside cuBLAS at 1024/2048/4096, course.bench) by `python -m course.ch10_tensor_core.record`;
this script stays for what it records besides (records name it).
"""
import argparse
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402
from kernels_numba import tc                # noqa: E402

FIXED = ("mma_simple", "mma_simple_turing")       # one 16 x 8 x 16 tile: no benchmark size
WHAT = "benchmarks/record_level6.py (course.bench): level-6 kernels vs cuBLAS HGEMM, same run"


def correctness(specs):
    from numba import cuda
    out = {}
    for spec in specs:
        shapes = [(16, 8, 16)] if spec.name == "mma_simple" else [(16, 8, 16), (144, 136, 48), (512, 520, 272)]
        rows = []
        for M, N, K in shapes:
            rng = np.random.default_rng(M + N + K)
            A = rng.standard_normal((M, K)).astype(np.float16)
            B = rng.standard_normal((K, N)).astype(np.float16)
            cd = getattr(spec.module, "C_DTYPE", np.float32)
            C0 = rng.standard_normal((M, N)).astype(cd)
            C = C0.copy()
            spec.launch(A, B, C, 1.5, -0.5)
            acc = getattr(spec.module, "CONFIG", {}).get("acc", "f32")
            bound = tc.error_bound(A, B, 1.5, -0.5, C0, acc=acc, out="f16" if cd == np.float16 else "f32")
            err = np.abs(C.astype(np.float64) - tc.reference(A, B, 1.5, -0.5, C0))
            Ci = np.zeros((min(M, K), N), cd)
            spec.launch(np.eye(min(M, K), K, dtype=np.float16), B, Ci)
            rows.append({"shape": [M, N, K], "ok": bool((err <= bound).all()), "worst_err_over_bound": float((err / bound).max()),
                         "max_rel_err": float(err.max() / np.abs(tc.reference(A, B, 1.5, -0.5, C0)).max()),
                         "identity_exact": bool(np.array_equal(Ci, B[:min(M, K)].astype(cd)))})
        out[spec.name] = rows
        print(spec.name, rows, flush=True)
    cuda.synchronize()
    return out


def error_vs_k(Ks=(16, 64, 256, 1024, 4096)):
    """Max relative error (to max |C|) of mma_pipe (f32 acc) and mma_pipe_f16acc vs float64, growing K, on the GPU."""
    res = []
    for K in Ks:
        rng = np.random.default_rng(K)
        A = rng.uniform(0, 1, (128, K)).astype(np.float16)
        B = rng.uniform(0, 1, (K, 128)).astype(np.float16)
        ref = tc.reference(A, B)
        row = {"K": K}
        for name in ("mma_pipe", "mma_pipe_f16out", "mma_pipe_f16acc"):
            spec = kn.get(name)
            C = np.zeros((128, 128), getattr(spec.module, "C_DTYPE", np.float32))
            spec.launch(A, B, C)
            row[name] = float(np.abs(C.astype(np.float64) - ref).max() / np.abs(ref).max())
        res.append(row)
    return res


EXPLORE = [dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=2, MIN_BLOCKS=2),
           dict(BM=128, BN=128, BK=32, WARPS_M=2, WARPS_N=4, STAGES=3, MIN_BLOCKS=2, SWIZZLE=True),
           dict(BM=128, BN=128, BK=16, WARPS_M=2, WARPS_N=4, STAGES=4, MIN_BLOCKS=2, SWIZZLE=True),
           dict(BM=128, BN=128, BK=32, WARPS_M=4, WARPS_N=2, STAGES=2, MIN_BLOCKS=2, SWIZZLE=True)]
# mma_swizzle (128x128 BK32 S2 lb2, swizzled) beside: the same on padded rows, 3 stages (49 152 B, the static limit),
# BK16 S4 swizzled (= mma_pipe4_lb2 swizzled), and 4x2 warps of 32x64.
# Earlier runs: first exploration (course/ch10_tensor_core/records/gpu_h200_level6_explore.json): 128x128 BK32 S2 lb2, 128x128 BK16 S4
# lb2, 128x256 BK16 S3, 256x128 BK16 S2, 64x128 BK32 S3 lb3, 128x128 4 warps BK32 S2 / BK16 S4; the level-6 record
# before mma_swizzle: 128x128 BK16 S3 / S2 lb2, 128x64 BK32 S3 lb3 (padded); a swizzle trial run: BK16 S5 lb2 26 %,
# BK16 S4 lb2 31 %, BK32 S2 lb2 34 %, BK32 S3 lb2 31 % (registered then), BK32 S3 without the cap 23 % of cuBLAS.


def explore_label(cfg):
    """'128x128x32_w2x4_s2_lb2_swz': a configuration's name as a variant of mma_swizzle."""
    return (f"{cfg['BM']}x{cfg['BN']}x{cfg['BK']}_w{cfg['WARPS_M']}x{cfg['WARPS_N']}_s{cfg['STAGES']}"
            + (f"_lb{cfg['MIN_BLOCKS']}" if cfg.get("MIN_BLOCKS") else "") + ("_swz" if cfg.get("SWIZZLE") else "_pad"))


def explore_variants(configs=EXPLORE):
    """{label: ('mma_swizzle', launch)} of the configurations (tc.build_tiled, launched as the level-6 modules are),
    and {label: (kernel, cfg)} to read their loaded resources after the run; a configuration that does not build is
    printed and left out."""
    variants, built = {}, {}
    for cfg in configs:
        label = explore_label(cfg)
        try:
            k = tc.build_tiled(**cfg)
            grid_of = (lambda BM, BN: lambda M, N: (-(-N // BN), -(-M // BM)))(cfg["BM"], cfg["BN"])
            variants[label] = ("mma_swizzle", tc.make_tc_launch(k, grid_of, k.config["THREADS"],
                                                                (tc.MMA_M, tc.MMA_N, tc.MMA_K), label))
            built[label] = (k, cfg)
        except Exception:                             # noqa: BLE001
            print(label, "BUILD FAILED", traceback.format_exc()[-1500:], flush=True)
    return variants, built


def explore_entries(run, built):
    """extra 'explore': each configuration at the run's largest size, its row's figures beside its configuration and
    its loaded registers, local and shared bytes (the layout notebook 10's explore table reads)."""
    n = max(run.sizes)
    out = []
    for label, (k, cfg) in built.items():
        hit = run.select("mma_swizzle", n, label)
        if not hit:
            continue
        r = hit[0]
        entry = dict(cfg, variant=label, n=n, tflops=r.tflops, ratio=r.ratio, rel_err=r.rel_err, correct=r.correct)
        try:
            ov = next(iter(k.overloads.values()))
            entry.update(registers=ov.regs_per_thread, local_bytes=ov.local_mem_per_thread,
                         shared_bytes=ov.shared_mem_per_block)
        except Exception as e:                        # noqa: BLE001
            entry["resources_error"] = repr(e)[:300]
        out.append(entry)
    return out


def resources(specs):
    from numba import cuda
    from kernels_numba.tools.offline import sass_counts
    out = {}
    for spec in specs:
        try:
            ov = next(iter(spec.kernel.overloads.values()))     # the compiled _Kernel (launched above)
            sass = ov.inspect_sass()
            regs, shared, local = ov.regs_per_thread, ov.shared_mem_per_block, ov.local_mem_per_thread
            counts = {op: c for op, c in sass_counts(sass).items()
                      if op.split(".")[0] in ("HMMA", "LDSM", "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "CALL", "LDL", "STL", "RET")}
            func = ov._codelibrary.get_cufunc()
            threads = int(np.prod(spec.launch.block))
            blocks = int(cuda.current_context().get_active_blocks_per_multiprocessor(func, threads, 0))
            out[spec.name] = {"registers": regs, "shared_bytes": shared, "local_bytes": local, "sass": counts,
                              "threads": threads, "blocks_per_sm": blocks}
        except Exception as e:                       # noqa: BLE001
            out[spec.name] = {"error": repr(e)}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="the record to write (course/ch10_tensor_core/records/<name>.json)")
    ap.add_argument("--layout-out", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="default 1024 2048 4096 (--only-explore: 4096)")
    ap.add_argument("--rounds", type=int, default=bench.ROUNDS)
    ap.add_argument("--kernels", nargs="+", default=None, help="default: every level-6 kernel but " + ", ".join(FIXED))
    ap.add_argument("--only-explore", action="store_true")
    ap.add_argument("--run-id", default=None)
    args = ap.parse_args(argv)
    why = bench.available()
    if why:
        sys.exit(f"record_level6: {why}")
    log = lambda t: print(t, flush=True)                   # noqa: E731
    variants, built = explore_variants()
    if args.only_explore:
        run = bench.run(["mma_swizzle"], args.sizes or [4096], rounds=args.rounds, run_id=args.run_id,
                        variants=variants, log=log)
        path = bench.save_run(args.out, run, "benchmarks/record_level6.py --only-explore (course.bench): "
                              "tc.build_tiled configurations vs cuBLAS HGEMM, same run",
                              {"explore": explore_entries(run, built)})
        print("->", path)
        return 0
    extra = {}
    if args.layout_out:
        try:
            import record_mma_layout
            record_mma_layout.save(record_mma_layout.record(), args.layout_out)
            print("layout recorded", flush=True)
        except Exception:                            # noqa: BLE001
            extra["layout_error"] = traceback.format_exc()
            print(extra["layout_error"], flush=True)
    specs = kn.by_level(6)
    names = args.kernels or [s.name for s in specs if s.name not in FIXED]
    for part, fn in (("correctness", lambda: correctness(specs)), ("error_vs_k", error_vs_k)):
        try:
            extra[part] = fn()
        except Exception:                            # noqa: BLE001
            extra[part + "_error"] = traceback.format_exc()
            print(extra[part + "_error"], flush=True)
    run = bench.run(names, args.sizes or [1024, 2048, 4096], rounds=args.rounds, run_id=args.run_id,
                    variants=variants, log=log)
    extra["resources"] = resources(specs)            # as loaded: every kernel has run by now
    extra["explore"] = explore_entries(run, built)
    if run.flagged:
        print("# FLAGGED:", run.flagged, flush=True)
    path = bench.save_run(args.out, run, WHAT, extra)
    print(path, "\n", {k: v.get("registers") for k, v in extra["resources"].items()}, flush=True)
    return 0 if all(r.correct is not False for r in run.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
