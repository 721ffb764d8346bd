"""Launch chosen kernels once each so Nsight Compute can read their warp-stall reasons (WarpStateStats section).

Run on a GPU:  ncu --clock-control none --section WarpStateStats --page raw --csv python benchmarks/ncu_stalls.py k1 k2 ...
Environment: NCU_N (matrix side, default 2048).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(names):
    import cupy as cp
    import kernels_numba as kn
    from kernels_numba.infra.errors import positive_int_env
    from numba import cuda
    n = positive_int_env("NCU_N", 2048, "ncu 로 잴 정사각 행렬의 한 변", "side of the square matrices ncu measures")
    rng = cp.random.default_rng(0)
    A = rng.standard_normal((n, n), dtype=cp.float32)
    B = rng.standard_normal((n, n), dtype=cp.float32)
    C = cp.zeros((n, n), cp.float32)
    dA, dB, dC = (cuda.as_cuda_array(X) for X in (A, B, C))
    for name in names:
        kn.get(name).launch(dA, dB, dC, 1.0, 0.0)
        cuda.synchronize()
        print("launched", name, file=sys.stderr)


def parse(csv_text, names):
    """{kernel name: {stall reason: percent of all warp-cycles per issued instruction}} from `ncu --page raw --csv`."""
    import csv
    import io
    import re
    lines = [l for l in csv_text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header, data = rows[0], [r for r in rows[1:] if r and r[0] not in ("", "ID") and not r[0].startswith("(")]
    out = {}
    col = header.index("Kernel Name") if "Kernel Name" in header else None
    if col is not None:           # keep only our Numba kernels (cupy's random/fill kernels are profiled too)
        # ncu shows Numba kernels by function name only ("kernel[abi:...]"): every module calls its kernel `kernel`,
        # and they were launched in the order of `names`
        data = [r for r in data if "kernel[" in r[col] or "kernels_numba" in r[col]]
        if len(data) != len(names):
            raise ValueError(f"expected {len(names)} profiled kernels, ncu gave {len(data)}")
    for name, r in zip(names, data):
        vals = {}
        for h, v in zip(header, r):
            # WarpStateStats: smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (warp-cycles per issued instr.)
            m = re.match(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$", h)
            if m:
                try:
                    vals[m.group(1)] = float(v.replace(",", ""))
                except ValueError:
                    pass
        total = sum(vals.values())
        out[name] = {"cycles_per_issue": vals, "percent": {k: 100.0 * v / total for k, v in vals.items()} if total else {}}
        if not vals:
            out[name]["headers"] = [h for h in header if "stall" in h][:40]
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
