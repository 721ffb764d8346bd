"""A Triton GEMM beside the course's kernels and cuBLAS, in the same run of the course's engine (course.bench): the
reference point of issue 29 ("ahead of Triton"). Optional: only where torch and triton are installed (the GPU
machine has them); the course never imports this file.

Run (GPU): python benchmarks/triton_gemm.py --out $OUT/triton.json [--kernels mma_fast] [--sizes 2048 4096]
           python benchmarks/triton_gemm.py --out $OUT/triton32.json --kernels async_wide   (FP32, IEEE: no TF32)

The kernel is the Triton tutorial's matmul (grouped block order, masked K tail), autotuned over the 8 configurations
below on the first call of each size; f16 inputs use tensor cores (wgmma on sm_90, or mma.sync only with
DISABLE_MMA_V3=1 in the environment), f32 inputs use input_precision="ieee" (FFMA, like the course's level 5).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch                                               # noqa: E402
import triton                                              # noqa: E402
import triton.language as tl                               # noqa: E402

from course import bench                                   # noqa: E402

CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
           for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4),
                                    (128, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
                                    (128, 256, 32, 3, 8), (64, 64, 32, 5, 2))]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, IEEE: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m, num_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % in_group) % size_m)
    pid_n = (pid % in_group) // size_m
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)
        if IEEE:
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc, mask=(cm[:, None] < M) & (cn[None, :] < N))


def make(A, B, C):
    """(call, raw_on) for course.bench.run(others=...): C = A @ B by the autotuned Triton kernel (CuPy arrays,
    shared with torch without a copy)."""
    a, b, c = (torch.as_tensor(x, device="cuda") for x in (A, B, C))
    M, K = a.shape
    N = b.shape[1]
    ieee = a.dtype == torch.float32

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    def call():
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), IEEE=ieee)

    def raw_on(stream_ptr):
        stream = torch.cuda.ExternalStream(stream_ptr) if stream_ptr else torch.cuda.default_stream()

        def fn():
            with torch.cuda.stream(stream):
                call()
        return fn
    return call, raw_on


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", nargs="+", default=["mma_fast"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--graphs", choices=("auto", "yes", "no"), default="auto")
    args = ap.parse_args()
    label = "triton" + ("_mma_v2" if os.environ.get("DISABLE_MMA_V3") == "1" else "")
    graphs = {"auto": None, "yes": True, "no": False}[args.graphs]
    run = bench.run(args.kernels, args.sizes, rounds=args.rounds, run_id=label, graphs=graphs,
                    others={label: make}, log=lambda t: print(t, flush=True))
    bench.save_run(args.out, run, f"benchmarks/triton_gemm.py: {args.kernels} beside an autotuned Triton GEMM "
                   f"(triton {triton.__version__}, torch {torch.__version__}) and cuBLAS, one run of course.bench",
                   {"triton": triton.__version__, "configs": [str(c) for c in CONFIGS]})


if __name__ == "__main__":
    main()
