"""Roofline numbers: FP32 peak (from sim.occupancy's GPU specs), DRAM bandwidth and the ridge point AI = peak / bandwidth.

Bandwidths are the datasheet figures of the SXM parts: A100 80 GB 2039 GB/s (the 40 GB part: 1555 GB/s),
H100 SXM5 3.35 TB/s, H200 4.8 TB/s (NVIDIA A100 / H100 / H200 datasheets). The peaks are computed, not quoted:
SMs x FP32 lanes x 2 x boost clock (sim.occupancy.GpuSpec.fp32_peak_tflops).
"""
from .occupancy import GPUS

DRAM_GBPS = {"A100": 2039.0, "A100-40GB": 1555.0, "H100": 3350.0, "H200": 4800.0}
# how tables name them (notebooks 06 and 07 print the same rows under the same names)
NAMES = {"A100": "A100 80GB SXM", "A100-40GB": "A100 40GB", "H100": "H100 SXM", "H200": "H200"}


def peak_tflops(gpu: str) -> float:
    """FP32 peak of `gpu` in TFLOP/s (A100-40GB has the A100's SMs and clock)."""
    return GPUS[gpu.split("-")[0]].fp32_peak_tflops


def ridge_point(gpu: str) -> float:
    """FLOP per DRAM byte above which `gpu` is compute-bound for FP32: peak / bandwidth."""
    return peak_tflops(gpu) * 1e12 / (DRAM_GBPS[gpu] * 1e9)


def attainable_tflops(ai: float, gpu: str) -> float:
    """Roofline: min(peak, bandwidth x AI) in TFLOP/s for an arithmetic intensity `ai` in FLOP/byte."""
    if ai < 0:
        raise ValueError("ai must be >= 0")
    return min(peak_tflops(gpu), DRAM_GBPS[gpu] * 1e9 * ai / 1e12)


def table():
    """[{gpu, name, peak_tflops, dram_gbps, ridge}] for every GPU above."""
    return [{"gpu": g, "name": NAMES[g], "peak_tflops": round(peak_tflops(g), 1), "dram_gbps": bw, "ridge": round(ridge_point(g), 1)}
            for g, bw in DRAM_GBPS.items()]
