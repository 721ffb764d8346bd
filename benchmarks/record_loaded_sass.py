"""Record the shared-memory loads of kernels as the GPU driver loaded them (SASS text, not only opcode counts).

Notebook 07 §4.10 counts the loaded regblock's shared loads from gpu_h200_levels34.json: 2 LDS.128 and 9 LDS, where its
model has rA's 8 LDS and rB's 2 LDS.128. That record holds opcode counts only, so the ninth LDS cannot be shown. This
script keeps, for each kernel, every LDS* line of the loaded SASS with its address, marks the lines inside the K-tile
loop (between its two BAR.SYNC), and the driver version, so the notebook can show what the ninth reads.

Run on a GPU machine:  python benchmarks/record_loaded_sass.py --out course/recorded/sass_loaded_h200.json [regblock ...]
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import kernels_numba as kn                        # noqa: E402  (chooses the GPU before numba is imported)
from kernels_numba.infra import device             # noqa: E402
from kernels_numba.tools import resources         # noqa: E402

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def shared_loads(sass):
    """[(address, instruction, in_tile_loop)] of every LDS* line; the tile loop is the span between the first and the
    second BAR.SYNC (the loads after the first barrier and before the second)."""
    insns = [(m.group(1), m.group(2)) for m in INSN.finditer(sass)]
    bars = [i for i, (_, s) in enumerate(insns) if s.split()[0].startswith("BAR.SYNC") or " BAR.SYNC" in s]
    lo, hi = (bars[0], bars[1]) if len(bars) >= 2 else (-1, -1)
    return [(a, s, lo < i < hi) for i, (a, s) in enumerate(insns) if re.search(r"(^|\s)LDS(\.|\s)", s)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("kernels", nargs="*", default=["regblock", "regblock_opt", "regblock_vec"])
    args = ap.parse_args()
    if device.MODE != "gpu":
        sys.exit("needs a GPU: the point is the SASS the driver loads")
    from numba import cuda
    dev = cuda.get_current_device()
    out = {"driver": ".".join(map(str, cuda.cudadrv.driver.driver.get_version())),
           "gpu": dev.name.decode() if isinstance(dev.name, bytes) else dev.name, "kernels": {}}
    for name in args.kernels:
        kn.get(name)                               # a registered kernel (an unknown name fails here, clearly)
        r = resources.report(name)                 # GPU mode: the loaded kernel (compiles and loads it)
        loads = shared_loads(r["sass_text"])
        out["kernels"][name] = {"lds": [{"addr": a, "insn": s, "in_tile_loop": inside} for a, s, inside in loads]}
        print(name, f"{len(loads)} LDS* lines, {sum(x[2] for x in loads)} in the tile loop")
        for a, s, inside in loads:
            print(f"  {a} {'loop' if inside else '    '} {s}")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
