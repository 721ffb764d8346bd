"""Compile make_kernel variants of a kernel module for sm_90 without a GPU: registers, stack, main-loop SASS.

A configuration is checked here before it costs device time (a spill or the 255-register cap shows as on the GPU).
Usage: SGEMM_DEVICE=offline python benchmarks/offline_variant.py MODULE 'k=v,k=v' ['k=v' ...]
e.g.   python benchmarks/offline_variant.py async_wide '' 'kv=4'    ('' is the registered default)
"""
import importlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SGEMM_DEVICE", "offline")
os.environ["NUMBA_ENABLE_CUDASIM"] = "0"


def parse(text):
    """'BK=64,STAGES=4,swizzle=False' -> dict (ints, True/False/None)."""
    out = {}
    for part in filter(None, text.split(",")):
        k, v = part.split("=")
        out[k.strip()] = {"True": True, "False": False, "None": None}.get(v.strip(), None) if v.strip() in (
            "True", "False", "None") else int(v)
    return out


def report(module_name, switches, cc=(9, 0)):
    """{usage, loop: main-loop opcode counts, total} of module.make_kernel(**switches) for sm_<cc>."""
    from numba import cuda
    from kernels_numba.tools import offline, resources
    module = importlib.import_module(f"kernels_numba.{module_name}")
    kernel = module.make_kernel(**switches)[0]
    bounds = getattr(kernel, "targetoptions", {}).get("launch_bounds")
    sig = getattr(module, "SIG", offline.SIG)
    with offline.offline_device(cc):
        ptx_text, _ = cuda.compile_ptx(kernel.py_func, sig, cc=cc, launch_bounds=bounds)
    sass, usage = offline.cubin_report(offline.ptx_to_cubin(ptx_text, cc))
    loop = {}
    for i in resources.main_loop(sass):
        loop[i.op] = loop.get(i.op, 0) + 1
    return {"usage": usage, "loop": loop, "loop_len": sum(loop.values()), "total": offline.sass_counts(sass),
            "local_in_ptx": ".local" in ptx_text}


def main(argv):
    module_name, configs = argv[0], argv[1:] or [""]
    for text in configs:
        t = time.time()
        r = report(module_name, parse(text))
        top = sorted(r["loop"].items(), key=lambda kv: -kv[1])[:14]
        print(f"{module_name}[{text}] {r['usage']} loop {r['loop_len']} ins, {time.time() - t:.0f}s\n    {top}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
