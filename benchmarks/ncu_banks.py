"""Launch each level-2 kernel once, for Nsight Compute to count shared-memory requests, wavefronts and bank conflicts.

Run on a GPU:  ncu --metrics $(python benchmarks/ncu_banks.py --metrics) --csv python benchmarks/ncu_banks.py
NCU_N: the matrices' side (default 1024); NCU_KERNELS: comma-separated kernel names to launch (default: every FP32
kernel this GPU runs) — ncu replays every launch for its metrics, so fewer kernels is a much shorter run.
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
    from kernels_numba.infra.errors import positive_int_env
    n = positive_int_env("NCU_N", 1024, "ncu 로 잴 정사각 행렬의 한 변", "side of the square matrices ncu measures")
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n), dtype=np.float32)
    B = rng.standard_normal((n, n), dtype=np.float32)
    wanted = {k.strip() for k in os.environ.get("NCU_KERNELS", "").split(",") if k.strip()}
    from numba import cuda
    dA, dB = cuda.to_device(A), cuda.to_device(B)             # on the device once: ncu sees only the kernels
    for spec in kn.REGISTRY:
        if spec.dtype != np.float32 or not spec.runs_here():   # FP32 SGEMM kernels this GPU can run
            continue
        if wanted and spec.name not in wanted:
            continue
        spec.launch(dA, dB, cuda.device_array((n, n), np.float32))
        cuda.synchronize()
        # what course/measure.parse_ncu_csv matches ncu's kernel names against (ncu prints a Numba kernel as
        # '<module path>::<function>[abi:...](...)', with or without 'cudapy::kernels_numba::' in front)
        fn = spec.kernel.py_func
        print("launched", spec.name, fn.__module__, fn.__name__, file=sys.stderr, flush=True)
