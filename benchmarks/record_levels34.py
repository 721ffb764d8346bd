"""Record the GPU figures notebooks 07 and 08 show: benchmark vs cuBLAS, resources, loaded SASS, occupancy API, stall reasons.

Run on a GPU machine:  python benchmarks/record_levels34.py --out course/recorded/gpu_h200_levels34.json
Every number in the output is measured in this run (course/bench.py is the benchmark method).
Superseded for the chapter's benchmark (its kernels beside cuBLAS at 1024/2048/4096, course.bench) by `python -m course.ch07_register_blocking.record` and `python -m course.ch08_double_buffering.record`;
this script stays for what it records besides (records name it).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import kernels_numba as kn                        # noqa: E402
from course import bench                          # noqa: E402  (the course's one benchmark engine)

EXTRA = ("regblock_t16",)                         # teaching demos outside the registry (spilling)


def _occupancy(kernel, threads):
    """Blocks per SM from the CUDA occupancy API (cuOccupancyMaxActiveBlocksPerMultiprocessor)."""
    from numba import cuda
    sig = kernel.signatures[0]
    func = kernel.overloads[sig]._codelibrary.get_cufunc()
    ctx = cuda.current_context()
    return int(ctx.get_active_blocks_per_multiprocessor(func, threads, 0))


def _stalls(names, n):
    ncu = shutil.which("ncu")
    if not ncu:
        return {"error": "ncu not found"}
    cmd = [ncu, "--clock-control", "none", "--section", "WarpStateStats", "--kernel-name", r"regex:^kernel\[", "--page", "raw", "--csv",
           sys.executable, os.path.join(HERE, "ncu_stalls.py"), *names]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, NCU_N=str(n)), timeout=400)
    import ncu_stalls
    try:
        metrics = ncu_stalls.parse(p.stdout, names)
    except Exception as e:                        # noqa: BLE001
        return {"error": f"{e.__class__.__name__}: {e}", "stdout_tail": p.stdout[-2000:], "stderr_tail": p.stderr[-2000:]}
    return {"n": n, "tool": "ncu --clock-control none --section WarpStateStats", "metrics": metrics}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    ap.add_argument("--levels", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--stall-kernels", nargs="*", default=None)
    ap.add_argument("--stall-n", type=int, default=2048)
    args = ap.parse_args()
    names = [s.name for s in kn.REGISTRY if s.level in args.levels]
    run = bench.run(names, args.sizes, log=lambda t: print(t, flush=True))
    rc = 0 if all(r.correct is not False for r in run.rows) else 1
    import numpy as np
    loaded = {name: bench.loaded_resources(name) for name in names}
    res = {k: {kk: vv for kk, vv in v.items() if kk != "sass"} for k, v in loaded.items()}
    sass = {k: v.get("sass") for k, v in loaded.items()}
    occ = {}
    for name in names:
        spec = kn.get(name)
        threads = int(np.prod(spec.launch.block))
        occ[name] = {"threads": threads, "blocks_per_sm": _occupancy(spec.kernel, threads)}
    for name in EXTRA:                             # the spill demo: check it, then read the loaded kernel
        import importlib
        mod = importlib.import_module(f"kernels_numba.{name}")
        A = np.random.default_rng(0).standard_normal((256, 256), dtype=np.float32)
        C = np.zeros((256, 256), np.float32)
        mod.launch(A, A, C)
        ok = bool(np.allclose(C, A.astype(np.float64) @ A, rtol=1e-4, atol=1e-3))
        r = bench.loaded_resources(name)
        sass[name] = r.pop("sass")
        res[name] = dict(r, correct=ok)
        threads = int(np.prod(mod.launch.block))
        occ[name] = {"threads": threads, "blocks_per_sm": _occupancy(mod.kernel, threads)}
    from kernels_numba.occupancy import current_gpu
    spec = current_gpu()                           # device attributes (+ FP32 lanes per SM by architecture)
    facts = {"sm_count": spec.sm_count, "max_shared_per_sm": spec.smem_per_sm,
             "max_shared_per_block_optin": spec.smem_per_block_optin, "regs_per_sm": spec.regs_per_sm,
             "fp32_lanes_per_sm": spec.fp32_lanes_per_sm}
    try:
        clk = subprocess.run(["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True).stdout.strip().splitlines()[0]
        facts["max_sm_clock_mhz"] = int(clk)
    except Exception:                              # noqa: BLE001
        pass
    stall_names = args.stall_kernels if args.stall_kernels is not None else ["regblock_opt", "regblock_vec", "db", "db_overlap", "db_ptx"]
    stall_names = [n for n in stall_names if n in names]
    out = {"resources": res, "sass_loaded": sass, "occupancy_api": occ, "device_facts": facts,
           "ncu_stalls": _stalls(stall_names, args.stall_n) if stall_names else {}}
    bench.save_run(args.out, run, "Measured with the device tool (benchmarks/record_levels34.py: course.bench, CUDA "
                                  "occupancy API, ncu WarpStateStats)", out)
    print(json.dumps({k: out[k] for k in ("resources", "occupancy_api", "device_facts")}, indent=1))
    print(json.dumps(out["ncu_stalls"], indent=1)[:4000])
    return rc


if __name__ == "__main__":
    sys.exit(main())
