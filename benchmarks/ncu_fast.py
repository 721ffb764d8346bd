"""Launch mma_fast, mma_swizzle and cuBLAS HGEMM once each at n^3 so Nsight Compute can profile them.

Inputs are made on the host and copied (no CuPy kernels), so the profiled kernels are exactly the ones named:
    ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \\
        --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct \\
        --page raw --csv python benchmarks/ncu_fast.py mma_fast mma_swizzle cublas > ncu_fast.csv
summarize(csv_text) turns that CSV into the record's figures (tensor pipe, stalls, occupancy, L2 hit rate, names).
Environment: NCU_N (matrix side, default 4096).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

METRICS = {
    "tensor_pipe_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "l2_hit_pct": "lts__t_sector_hit_rate.pct",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm_throughput_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_throughput_pct": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "duration_ns": "gpu__time_duration.sum",
    "registers": "launch__registers_per_thread",
    "issue_active_pct": "sm__inst_issued.avg.pct_of_peak_sustained_active",
}


def main(names):
    import cupy as cp
    import numpy as np
    import kernels_numba as kn
    from numba import cuda
    from course import bench                          # cuBLAS HGEMM through its own handle, as every benchmark
    n = int(os.environ.get("NCU_N", "4096"))
    rng = np.random.default_rng(0)
    A = cp.asarray(rng.standard_normal((n, n)).astype(np.float16))
    B = cp.asarray(rng.standard_normal((n, n)).astype(np.float16))
    C = cp.zeros((n, n), cp.float32)
    dA, dB, dC = (cuda.as_cuda_array(X) for X in (A, B, C))
    for name in names:
        if name == "cublas":
            bench.Cublas().call(A, B, C)()
        else:
            kn.get(name).launch(dA, dB, dC, 1.0, 0.0)
        cuda.synchronize()
        print("launched", name, file=sys.stderr)


def summarize(csv_text, names):
    """{name: {kernel_name, the METRICS, stalls (warp-cycles per issued instruction, top 8)}} in launch order."""
    import csv
    import io
    import re
    lines = [l for l in csv_text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header, data = rows[0], [r for r in rows[1:] if r and r[0] not in ("", "ID") and not r[0].startswith("(")]
    out = {}
    for name, r in zip(names, data):
        rec = dict(zip(header, r))
        d = {"kernel_name": rec.get("Kernel Name", "?")[:200]}
        for key, metric in METRICS.items():
            try:
                d[key] = float(rec.get(metric, "nan").replace(",", ""))
            except ValueError:
                d[key] = rec.get(metric)
        stalls = {}
        for h, v in rec.items():
            m = re.match(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$", h)
            if m:
                try:
                    stalls[m.group(1)] = float(v.replace(",", ""))
                except ValueError:
                    pass
        d["stalls_per_issue"] = dict(sorted(stalls.items(), key=lambda kv: -kv[1])[:8])
        out[name] = d
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--summarize"]:
        import json
        print(json.dumps(summarize(open(sys.argv[2]).read(), sys.argv[3:]), indent=1))
    else:
        main(sys.argv[1:])
