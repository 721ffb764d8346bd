"""Launch each level-2 kernel once, for Nsight Compute to count shared-memory requests, wavefronts and bank conflicts.

Run on a GPU:  ncu --metrics $(python benchmarks/ncu_banks.py --metrics) --csv python benchmarks/ncu_banks.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

METRICS = [
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
]

if __name__ == "__main__":
    if "--metrics" in sys.argv:
        print(",".join(METRICS))
        sys.exit(0)
    import numpy as np
    import kernels_numba as kn
    n = int(os.environ.get("NCU_N", "1024"))
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n), dtype=np.float32)
    B = rng.standard_normal((n, n), dtype=np.float32)
    for spec in kn.REGISTRY:
        C = np.zeros((n, n), np.float32)
        spec.launch(A, B, C)
        print("launched", spec.name, spec.kernel.py_func.__module__, file=sys.stderr)
