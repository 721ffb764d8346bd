"""Theoretical occupancy of a kernel on A100 / H100 / H200: the rules of CUDA's own occupancy calculator (pure Python).

Primary sources (the model follows the first one line by line; the GPU check in benchmarks/occupancy_check.py
compares it with the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor):
  [OCC]  cuda_occupancy.h, CUDA 13.0 (include/cuda_occupancy.h; also in the nvidia-cuda-runtime wheel):
         cudaOccMaxActiveBlocksPerMultiprocessor and the helpers it calls.
  [PG]   CUDA C++ Programming Guide, "Compute Capabilities" -> technical specifications per compute capability
         (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities) and the sections on
         compute capability 8.x / 9.x shared memory (carveout sizes, the 48 KB static limit, opt-in).
  [AMP]  NVIDIA Ampere GPU Architecture Tuning Guide, 1.4.1.1 Occupancy and 1.4.2.3 Unified Shared Memory/L1/Texture
         Cache (https://docs.nvidia.com/cuda/ampere-tuning-guide/).
  [HOP]  NVIDIA Hopper Tuning Guide, Occupancy and Unified Shared Memory/L1/Texture Cache
         (https://docs.nvidia.com/cuda/hopper-tuning-guide/).
  [WP]   NVIDIA A100 Tensor Core GPU Architecture whitepaper (108 SMs, 64 FP32 cores/SM, 1410 MHz, 19.5 TFLOPS FP32);
         NVIDIA H100 Tensor Core GPU Architecture whitepaper / H100 and H200 datasheets (SXM: 132 SMs,
         128 FP32 cores/SM, 67 TFLOPS FP32). The H200 clock (1980 MHz) was read with nvidia-smi on the course's
         H200 (course/recorded/gpu_h200_2026-11-21.json, device_facts).
  [SPEC] NVIDIA product pages / datasheets for the other boards (SM count = CUDA cores / FP32 lanes per SM; boost
         clock): T4 datasheet (2,560 cores, 1,590 MHz, 8.1 TFLOPS FP32), GeForce RTX 3060 (3,584 cores, 1,777 MHz),
         RTX 3090 (10,496, 1,695 MHz), RTX 4090 (16,384, 2,520 MHz), L4 datasheet (7,424 cores, 2,040 MHz, 30.3 TFLOPS),
         RTX 5090 (21,760, 2,407 MHz). Each GpuSpec names the source of every figure in its `source` field.
  [REC]  the course's own records (course/recorded/ and course/chNN_<slug>/records/).
Checked on an H200 against the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor by benchmarks/occupancy_check.py:
12610 of 12610 configurations agree (course/ch06_shared_tiling/records/occupancy_check_h200.json; tests/test_occupancy.py replays it).
The other compute capabilities use the same rules with their own limits (ARCH_LIMITS); no GPU of CC 7.5, 8.6, 8.9 or
12.0 was available to the course, so those rows are checked against the two sources only, not against a driver.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace

from .errors import CourseInputError
from .korean import josa

WARP_SIZE = 32
UNLIMITED = 2**31 - 1          # [OCC] uses INT_MAX for "this resource sets no limit"
LIMITERS = ("registers", "shared memory", "warps", "blocks")
LIMITER_KO = {"registers": "레지스터", "shared memory": "공유 메모리", "warps": "워프 수", "blocks": "블록 수"}
KB = 1024


@dataclass(frozen=True)
class GpuSpec:
    """Per-SM limits of one GPU model, as the occupancy calculator uses them."""
    name: str
    cc: tuple
    sm_count: int
    boost_clock_mhz: int
    fp32_lanes_per_sm: int
    smem_per_sm: int                      # largest shared-memory carveout per SM, bytes (device attribute)
    smem_per_block_optin: int             # largest shared memory one block may opt in to, bytes
    l1_smem_total: int                    # unified L1 + shared storage per SM, bytes (the carveout's pool)
    carveout_steps_kb: tuple              # shared-memory capacities an SM can be configured to, KB
    regs_per_sm: int = 65536              # [PG] 64 K 32-bit registers per SM (8.0, 9.0)
    regs_per_block: int = 65536           # [PG] max registers per block
    max_regs_per_thread: int = 255        # [PG] 255; ptxas never assigns more ([OCC] checks against 256)
    reg_alloc_unit: int = 256             # [OCC] cudaOccRegAllocationGranularity: registers per warp, i.e. per-thread
    #                                       count rounded up to a multiple of 8
    sub_partitions: int = 4               # [OCC] cudaOccSubPartitionsPerMultiprocessor: register file split in 4;
    #                                       a warp lives in one -> register-limited warps come in multiples of 4
    max_warps_per_sm: int = 64            # [PG] 2048 threads per SM on 8.0 and 9.0 (8.6/8.9: 48 warps)
    max_blocks_per_sm: int = 32           # [PG]/[OCC] cudaOccMaxBlocksPerMultiprocessor: 32 on 8.0 and 9.x
    max_threads_per_block: int = 1024     # [PG]
    smem_per_block_default: int = 48 * KB  # [PG] without opt-in (and the hard limit for static __shared__ arrays)
    smem_reserved_per_block: int = 1 * KB  # [PG]/[OCC] reservedSharedMemPerBlock: 1 KB per block kept by the system
    smem_alloc_unit: int = 128            # [OCC] cudaOccSMemAllocationGranularity: 128 B on 8.x/9.x (256 on 7.x)
    source: dict = field(default_factory=dict, compare=False, repr=False)   # figure -> where it comes from

    @property
    def max_threads_per_sm(self) -> int:
        return self.max_warps_per_sm * WARP_SIZE

    @property
    def fp32_peak_tflops(self) -> float:
        """FP32 peak: SMs x FP32 lanes x 2 flops (one FMA) x boost clock."""
        return self.sm_count * self.fp32_lanes_per_sm * 2 * self.boost_clock_mhz * 1e6 / 1e12

    @property
    def arch(self) -> str:
        return f"sm_{self.cc[0]}{self.cc[1]}"


# [OCC] cudaOccAlignUpShmemSizeVoltaPlus; [AMP] "A100 supports shared memory capacity of 0, 8, 16, 32, 64, 100, 132 or
# 164 KB per SM"; [HOP] "... 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB per SM"; 8.6/8.9/12.x stop at 100 KB;
# Turing (7.5) has only 32 or 64 KB.
_STEPS_7_5 = (32, 64)
_STEPS_8_0 = (0, 8, 16, 32, 64, 100, 132, 164)
_STEPS_9_0 = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
_STEPS_SMALL = (0, 8, 16, 32, 64, 100)

_PG = "[PG] Technical Specifications per Compute Capability"
_OCC_BLOCKS = "[OCC] cudaOccMaxBlocksPerMultiprocessor"
_OCC_STEPS = "[OCC] cudaOccAlignUpShmemSizeVoltaPlus"
_OCC_SMEM_UNIT = "[OCC] cudaOccSMemAllocationGranularity"


def _limits(max_warps, max_blocks, smem_kb, optin_kb, l1_kb, steps, lanes, reserved, unit, extra=""):
    """One compute capability's per-SM limits, with the source of each figure."""
    values = dict(max_warps_per_sm=max_warps, max_blocks_per_sm=max_blocks, smem_per_sm=smem_kb * KB,
                  smem_per_block_optin=optin_kb * KB, l1_smem_total=l1_kb * KB, carveout_steps_kb=steps,
                  fp32_lanes_per_sm=lanes, smem_reserved_per_block=reserved, smem_alloc_unit=unit)
    source = dict(max_warps_per_sm=f"{_PG}: maximum number of resident warps per SM",
                  max_blocks_per_sm=f"{_OCC_BLOCKS} (= {_PG}: maximum number of resident blocks per SM)",
                  smem_per_sm=f"{_PG}: maximum amount of shared memory per SM; {_OCC_STEPS} (largest step)",
                  smem_per_block_optin=f"{_PG}: maximum amount of shared memory per thread block (opt-in)",
                  l1_smem_total=f"{_PG}: unified data cache size per SM{extra}",
                  carveout_steps_kb=_OCC_STEPS,
                  fp32_lanes_per_sm=f"{_PG}: arithmetic instructions, 32-bit floating-point add/multiply/FMA per "
                                    "clock per SM",
                  smem_reserved_per_block=(f"{_PG}: shared memory reserved by CUDA per thread block (1 KB from "
                                           "8.0 on; none on 7.x: per-block maximum = per-SM maximum)"),
                  smem_alloc_unit=_OCC_SMEM_UNIT,
                  regs_per_sm=f"{_PG}: number of 32-bit registers per SM (64 K)",
                  regs_per_block=f"{_PG}: maximum number of 32-bit registers per thread block (64 K)",
                  max_regs_per_thread=f"{_PG}: maximum number of 32-bit registers per thread (255)",
                  max_threads_per_block=f"{_PG}: maximum number of threads per block (1024)",
                  smem_per_block_default=(f"{_PG}: 48 KB per block without opt-in (the static __shared__ limit)"),
                  reg_alloc_unit="[OCC] cudaOccRegAllocationGranularity (256 per warp)",
                  sub_partitions="[OCC] cudaOccSubPartitionsPerMultiprocessor (4)")
    return values, source


# Per-SM limits of each compute capability the course targets: [PG] figures, block limits and carveout steps as
# cuda_occupancy.h (CUDA 13) encodes them. Boards of one compute capability share these; SM count and clock differ.
ARCH_LIMITS = {
    (7, 5): _limits(32, 16, 64, 64, 96, _STEPS_7_5, 64, 0, 256, " (96 KB on Turing)"),
    (8, 0): _limits(64, 32, 164, 163, 192, _STEPS_8_0, 64, KB, 128, "; [AMP] 192 KB"),
    (8, 6): _limits(48, 16, 100, 99, 128, _STEPS_SMALL, 128, KB, 128, "; [AMP] 128 KB on GA10x"),
    (8, 9): _limits(48, 24, 100, 99, 128, _STEPS_SMALL, 128, KB, 128),
    (9, 0): _limits(64, 32, 228, 227, 256, _STEPS_9_0, 128, KB, 128, "; [HOP] 256 KB"),
    (12, 0): _limits(48, 24, 100, 99, 128, _STEPS_SMALL, 128, KB, 128),
}


def arch_spec(cc, name=None) -> GpuSpec:
    """The per-SM limits of compute capability cc as a GpuSpec (no SM count or clock: 0)."""
    cc = tuple(cc)
    if cc not in ARCH_LIMITS:
        known = ", ".join(f"{a}.{b}" for a, b in ARCH_LIMITS)
        raise _error(f"compute capability {cc} 의 한도를 모릅니다.", f"no limits recorded for compute capability {cc}.",
                     f"{known} 중 하나를 쓰세요.", f"use one of {known}.")
    values, source = ARCH_LIMITS[cc]
    return GpuSpec(name or f"CC {cc[0]}.{cc[1]}", cc, sm_count=0, boost_clock_mhz=0, source=dict(source), **values)


def _product(name, cc, sm_count, clock_mhz, source):
    """A board: its compute capability's limits plus its SM count and boost clock (source: where those two are from)."""
    spec = arch_spec(cc, name)
    return replace(spec, sm_count=sm_count, boost_clock_mhz=clock_mhz,
                   source={**spec.source, "sm_count": source, "boost_clock_mhz": source})


_WP_A100 = "[WP] A100 whitepaper: 108 SMs, 1410 MHz"
_WP_H100 = "[WP] H100 whitepaper / datasheet (SXM5): 132 SMs, 1980 MHz"
_H200 = ("[WP] GH100 as H100 SXM (132 SMs); [REC] 1980 MHz read with nvidia-smi on the course's H200 "
         "(gpu_h200_2026-11-21.json)")

# the first three are the GPUs of the course's records (A100 SXM4, H100 SXM5, H200), then the boards students have
GPUS = {g.name: g for g in (
    _product("A100", (8, 0), 108, 1410, _WP_A100),
    _product("H100", (9, 0), 132, 1980, _WP_H100),
    _product("H200", (9, 0), 132, 1980, _H200),
    _product("T4", (7, 5), 40, 1590, "[SPEC] NVIDIA T4 datasheet: 2,560 CUDA cores / 64 = 40 SMs, 1590 MHz boost"),
    _product("RTX 3060", (8, 6), 28, 1777, "[SPEC] GeForce RTX 3060 (12 GB) specs: 3,584 CUDA cores / 128 = 28 SMs, "
                                           "1.78 GHz boost"),
    _product("RTX 3090", (8, 6), 82, 1695, "[SPEC] GeForce RTX 3090 specs: 10,496 CUDA cores / 128 = 82 SMs, "
                                           "1.70 GHz boost"),
    _product("RTX 4090", (8, 9), 128, 2520, "[SPEC] GeForce RTX 4090 specs: 16,384 CUDA cores / 128 = 128 SMs, "
                                            "2.52 GHz boost"),
    _product("L4", (8, 9), 58, 2040, "[SPEC] NVIDIA L4 datasheet: 7,424 CUDA cores / 128 = 58 SMs, 2040 MHz boost"),
    _product("RTX 5090", (12, 0), 170, 2407, "[SPEC] GeForce RTX 5090 specs: 21,760 CUDA cores / 128 = 170 SMs, "
                                             "2.41 GHz boost"),
)}


@dataclass(frozen=True)
class Occupancy:
    """Result of occupancy(): how many blocks/warps fit on one SM, which resource ran out first, and why."""
    gpu: str
    regs_per_thread: int
    threads_per_block: int
    smem_per_block: int                   # what the kernel asks for (static + dynamic), bytes
    carveout: object                      # the request: None (driver default) or a percentage 0..100
    warps_per_block: int
    blocks_per_sm: int
    active_warps: int
    max_warps: int
    occupancy: float                      # active_warps / max_warps, 0..1
    limiter: str                          # one of LIMITERS (see _pick_limiter for ties)
    limiters: tuple                       # every resource whose block count equals blocks_per_sm
    limits: dict                          # resource -> blocks per SM it alone allows (UNLIMITED: no limit)
    regs_allocated_per_thread: int        # per-thread count rounded up to a multiple of 8
    regs_per_warp: int                    # allocated registers per warp (multiple of 256)
    regs_per_block: int                   # allocated registers per block
    smem_allocated_per_block: int         # request + 1 KB reservation, rounded up to 128 B
    smem_capacity: int                    # shared memory per SM the calculation used (the carveout), bytes
    needs_optin: bool                     # more than 48 KB per block: needs the per-kernel opt-in attribute
    steps: list = field(default_factory=list, compare=False)

    @property
    def launchable(self) -> bool:
        return self.blocks_per_sm > 0

    @property
    def percent(self) -> float:
        return 100.0 * self.occupancy

    def summary(self) -> str:
        """One Korean line: blocks, warps, occupancy, limiter."""
        if not self.launchable:
            return (f"{self.gpu}: 블록 하나도 올라가지 못함 — 레지스터 {self.regs_per_block}개가 "
                    f"블록당 한도를 넘습니다 (실행 시 too many resources requested for launch)")
        return (f"{self.gpu}: SM당 {self.blocks_per_sm}블록 × {self.warps_per_block}워프 = {self.active_warps}/"
                f"{self.max_warps} 워프, 점유율 {self.percent:.1f}% (제한 요인: {LIMITER_KO[self.limiter]})")


@dataclass(frozen=True)
class DivisionEstimate:
    """The plain division shortcut (65536 / regs threads, floored to whole warps): no allocation granularity, no blocks."""
    regs: int
    threads: int
    warps: int
    threads_in_warps: int
    occupancy: float
    steps: list = field(default_factory=list, compare=False)


def _error(ko, en, fix_ko, fix_en):
    return CourseInputError(ko, en, fix_ko, fix_en)


def _int(name_ko, name_en, value):
    if isinstance(value, bool):
        value = None
    try:
        return operator.index(value)
    except TypeError:
        raise _error(f"{josa(name_ko, '은/는')} 정수여야 합니다 (받은 값: {value!r}).",
                     f"{name_en} must be an integer (got {value!r}).",
                     "정수로 넣으세요.", "pass an int.") from None


def get_spec(spec) -> GpuSpec:
    """A GpuSpec, or the name of one in GPUS."""
    if isinstance(spec, GpuSpec):
        return spec
    if isinstance(spec, str) and spec in GPUS:
        return GPUS[spec]
    names = ", ".join(GPUS)
    raise _error(f"GPU {spec!r} 를 모릅니다.", f"unknown GPU {spec!r}.",
                 f"{names} 중 하나나 GpuSpec(예: kernels_numba.occupancy.current_gpu())을 넣으세요.",
                 f"use one of {names} or a GpuSpec (e.g. kernels_numba.occupancy.current_gpu()).")


def _round_up(x, unit):
    return -(-x // unit) * unit


def carveout_step(spec: GpuSpec, nbytes: int) -> int:
    """The smallest shared-memory capacity (bytes) this SM can be configured to that holds nbytes ([OCC] align-up)."""
    for kb in spec.carveout_steps_kb:
        if nbytes <= kb * KB:
            return kb * KB
    raise _error(f"공유 메모리 {nbytes} B 는 {spec.name} SM 하나의 최대 용량({spec.carveout_steps_kb[-1]} KiB)보다 큽니다.",
                 f"{nbytes} B of shared memory exceeds the largest carveout of {spec.name} "
                 f"({spec.carveout_steps_kb[-1]} KiB).", "공유 메모리를 줄이세요.", "use less shared memory.")


def _check(spec, regs, threads, smem, carveout):
    regs = _int("스레드당 레지스터 수", "registers per thread", regs)
    threads = _int("블록당 스레드 수", "threads per block", threads)
    smem = _int("블록당 공유 메모리", "shared memory per block", smem)
    if not 0 <= regs <= spec.max_regs_per_thread:
        raise _error(f"스레드당 레지스터 {regs}개는 허용 범위(0~{spec.max_regs_per_thread})를 벗어납니다.",
                     f"{regs} registers per thread is outside 0..{spec.max_regs_per_thread}.",
                     f"컴파일러가 보고한 값(예: kernel.overloads[sig].regs_per_thread)을 넣으세요. "
                     f"{spec.max_regs_per_thread}개를 넘는 값은 배정되지 않고 로컬 메모리로 스필(spill)됩니다.",
                     f"pass the count the compiler reports (e.g. kernel.overloads[sig].regs_per_thread); "
                     f"values beyond {spec.max_regs_per_thread} are spilled to local memory, never allocated.")
    if not 1 <= threads <= spec.max_threads_per_block:
        raise _error(f"블록당 스레드 {threads}개는 허용 범위(1~{spec.max_threads_per_block})를 벗어납니다.",
                     f"{threads} threads per block is outside 1..{spec.max_threads_per_block}.",
                     f"블록 크기(BLOCK의 곱)를 1~{spec.max_threads_per_block} 사이로 고르세요.",
                     f"choose a block size (product of BLOCK) in 1..{spec.max_threads_per_block}.")
    if not 0 <= smem <= spec.smem_per_block_optin:
        raise _error(f"블록당 공유 메모리 {smem} B 는 {spec.name} 의 블록당 최대 "
                     f"{spec.smem_per_block_optin} B ({spec.smem_per_block_optin // KB} KiB, opt-in)를 넘습니다.",
                     f"{smem} B of shared memory per block exceeds the {spec.name} per-block maximum of "
                     f"{spec.smem_per_block_optin} B ({spec.smem_per_block_optin // KB} KiB, with opt-in).",
                     "타일을 줄이거나 버퍼 수(스테이지)를 줄여 공유 메모리 사용량을 줄이세요.",
                     "shrink the tiles or the number of buffers (stages).")
    if carveout is not None:
        carveout = _int("카브아웃(carveout) 비율", "carveout percentage", carveout)
        if not -1 <= carveout <= 100:
            raise _error(f"카브아웃 {carveout}% 는 -1(기본)~100 범위 밖입니다.",
                         f"carveout {carveout}% is outside -1 (default)..100.",
                         "None(기본값) 또는 0~100 사이 백분율을 넣으세요.", "pass None (default) or a percentage 0..100.")
        if carveout == -1:
            carveout = None
    return regs, threads, smem, carveout


def _pick_limiter(limits, blocks, active_warps, max_warps):
    """Every resource that allows exactly `blocks`, and the one to name: at full occupancy the warp slots themselves
    are the ceiling; otherwise the first of registers, shared memory, warps, blocks ([OCC] sets a bit for each)."""
    tied = tuple(name for name in LIMITERS if limits[name] == blocks)
    if active_warps == max_warps and "warps" in tied:
        return "warps", tied
    return tied[0], tied


def occupancy(spec, regs_per_thread, threads_per_block, smem_per_block=0, carveout=None) -> Occupancy:
    """Blocks and warps of one kernel that fit on one SM ([OCC] cudaOccMaxActiveBlocksPerMultiprocessor).

    smem_per_block: static + dynamic shared memory of one block, bytes: the kernel's own figure (the function attribute
    SHARED_SIZE_BYTES, numba's overload.shared_mem_per_block), without the 1 KB reservation, which is added here.
    Careful: `cuobjdump -res-usage` of an sm_90 cubin reports SHARED with that 1 KB already in it (tiled: 3072 vs the
    loaded kernel's 2048), so subtract it from such figures. Above 48 KB the kernel must opt in with
    cudaFuncAttributeMaxDynamicSharedMemorySize; the model assumes it did, as [OCC] does for cudaFuncAttributes.
    carveout: None (= -1, the default: the driver may use the SM's whole shared capacity, which is what the occupancy
    API assumes) or the preferred shared-memory share in percent (cudaFuncAttributePreferredSharedMemoryCarveout):
    percent x capacity is rounded up to the next supported size; a preference too small for one block is only a hint
    and the driver takes the smallest size that holds one block ([OCC] cudaOccMaxBlocksPerSMSmemLimit).
    """
    spec = get_spec(spec)
    regs, threads, smem, carveout = _check(spec, regs_per_thread, threads_per_block, smem_per_block, carveout)
    steps = []
    warps = -(-threads // WARP_SIZE)
    steps.append(f"블록당 워프: ceil({threads} / 32) = {warps}워프"
                 + (" (마지막 워프는 일부만 차도 워프 하나를 통째로 차지)" if threads % WARP_SIZE else ""))

    # registers: allocated per warp in units of 256 (= per-thread count rounded up to 8), inside one of 4 sub-partitions
    regs_rounded = _round_up(regs, spec.reg_alloc_unit // WARP_SIZE)
    regs_warp = _round_up(regs * WARP_SIZE, spec.reg_alloc_unit)
    regs_block = regs_warp * warps
    # [OCC] the hardware checks the per-block limit as if the block's warps were spread over all 4 sub-partitions
    regs_block_hw = regs_warp * _round_up(warps, spec.sub_partitions)
    per_partition = spec.regs_per_sm // spec.sub_partitions
    if regs == 0:
        reg_blocks = UNLIMITED
        steps.append("레지스터: 0개 → 레지스터 제한 없음")
    elif regs_block_hw > spec.regs_per_block or regs_block > spec.regs_per_block:
        reg_blocks = 0
        steps.append(f"레지스터: 스레드당 {regs} → {regs_rounded}개(8의 배수로 올림), 워프당 {regs_warp}개; 블록 "
                     f"{warps}워프(서브파티션 4개 기준 {_round_up(warps, spec.sub_partitions)}워프)에 "
                     f"{regs_block_hw}개 > 블록당 한도 {spec.regs_per_block} → 블록을 실행할 수 없음")
    else:
        warps_per_part = per_partition // regs_warp
        reg_warps = warps_per_part * spec.sub_partitions
        reg_blocks = reg_warps // warps
        steps.append(f"레지스터: 스레드당 {regs} → {regs_rounded}개(8의 배수로 올림) → 워프당 "
                     f"{regs_rounded} × 32 = {regs_warp}개 (할당 단위 {spec.reg_alloc_unit})")
        steps.append(f"레지스터 파일 {spec.regs_per_sm}개 = 서브파티션 {spec.sub_partitions}개 × {per_partition}개: "
                     f"서브파티션당 {per_partition} // {regs_warp} = {warps_per_part}워프 → SM당 {reg_warps}워프")
        steps.append(f"레지스터 한도: {reg_warps}워프 // 블록당 {warps}워프 = {reg_blocks}블록"
                     + (f" (남는 {reg_warps - reg_blocks * warps}워프 자리는 블록 단위라 못 씀)"
                        if reg_warps % warps else ""))

    warp_blocks = spec.max_warps_per_sm // warps
    steps.append(f"워프 한도: SM당 {spec.max_warps_per_sm}워프 // {warps} = {warp_blocks}블록")
    block_blocks = spec.max_blocks_per_sm
    steps.append(f"블록 수 한도: SM당 최대 {block_blocks}블록")

    # shared memory: the 1 KB system reservation is added to every block, then rounded up to 128 B
    smem_alloc = _round_up(smem + spec.smem_reserved_per_block, spec.smem_alloc_unit)
    preferred = spec.smem_per_sm if carveout is None else carveout_step(spec, carveout * spec.smem_per_sm // 100)
    capacity = preferred if preferred >= smem_alloc else carveout_step(spec, smem_alloc)
    smem_blocks = capacity // smem_alloc if smem_alloc else UNLIMITED     # [OCC]: no shared memory, no limit (7.x)
    steps.append(f"공유 메모리: {smem} B + 시스템 예약 {spec.smem_reserved_per_block} B = "
                 f"{smem + spec.smem_reserved_per_block} B → {spec.smem_alloc_unit} B 단위 올림 {smem_alloc} B"
                 + (" (48 KiB 초과: 커널별 opt-in 필요)" if smem > spec.smem_per_block_default else ""))
    if carveout is None:
        how = f"카브아웃(carveout) 기본값 → SM의 최대 공유 메모리 {capacity // KB} KiB 사용 가정"
    elif preferred >= smem_alloc:
        how = (f"카브아웃 {carveout}% → {carveout} × {spec.smem_per_sm // KB} KiB / 100 을 지원 크기로 올림 = "
               f"{capacity // KB} KiB")
    else:
        how = (f"카브아웃 {carveout}% → {preferred // KB} KiB 는 블록 하나({smem_alloc} B)도 못 담으므로 "
               f"블록 하나가 들어가는 가장 작은 크기 {capacity // KB} KiB 사용")
    steps.append(f"{how}: {capacity} // {smem_alloc} = {smem_blocks}블록" if smem_alloc else
                 "공유 메모리 0 B (시스템 예약도 없음) → 공유 메모리 제한 없음")

    limits = {"registers": reg_blocks, "shared memory": smem_blocks, "warps": warp_blocks, "blocks": block_blocks}
    blocks = min(limits.values())
    active = blocks * warps
    limiter, tied = _pick_limiter(limits, blocks, active, spec.max_warps_per_sm)
    shown = ", ".join("∞" if v == UNLIMITED else str(v) for v in limits.values())
    steps.append(f"결과: min({shown}) = {blocks}블록 × {warps}워프 = {active}워프 / {spec.max_warps_per_sm} = "
                 f"{100 * active / spec.max_warps_per_sm:.1f}% (제한 요인: {LIMITER_KO[limiter]})")
    return Occupancy(spec.name, regs, threads, smem, carveout, warps, blocks, active, spec.max_warps_per_sm,
                     active / spec.max_warps_per_sm, limiter, tied, limits, regs_rounded, regs_warp, regs_block,
                     smem_alloc, capacity, smem > spec.smem_per_block_default, steps)


def sweep_registers(spec, threads_per_block, smem_per_block=0, carveout=None, regs=range(1, 256)):
    """[(regs, Occupancy)] over a range of registers per thread (for the occupancy-vs-registers chart)."""
    return [(r, occupancy(spec, r, threads_per_block, smem_per_block, carveout)) for r in regs]


def mean_warps_per_scheduler(grid_blocks, blocks_per_sm, warps_per_block, sm_count, schedulers=4):
    """Time-average of the warps resident on one scheduler (SM sub-partition) while a grid of `grid_blocks` runs,
    every block taking the same time: the grid runs in ceil(grid / (SMs x blocks_per_sm)) waves and the last one may
    be partly empty (2048^3 in 128 x 128 tiles: 256 blocks in 132 x 2 = 264 slots, 3.88 warps, not 4)."""
    for name, v in (("grid_blocks", grid_blocks), ("blocks_per_sm", blocks_per_sm),
                    ("warps_per_block", warps_per_block), ("sm_count", sm_count), ("schedulers", schedulers)):
        _int(name, name, v)
        if v < 1:
            raise _error(f"{josa(name, '은/는')} 1 이상이어야 합니다 (받은 값 {v}).", f"{name} must be at least 1 (got {v}).",
                         "그리드·블록·SM 수를 양의 정수로 주세요.", "pass positive integers.")
    waves = -(-grid_blocks // (sm_count * blocks_per_sm))
    return grid_blocks * warps_per_block / (waves * sm_count * schedulers)


def division_estimate(regs, regs_per_sm=65536, max_threads=2048) -> DivisionEstimate:
    """The plain division shortcut, as often taught: regs_per_sm // regs threads, floored to whole warps, over max_threads."""
    regs = _int("스레드당 레지스터 수", "registers per thread", regs)
    if regs <= 0:
        raise _error("레지스터 수는 1 이상이어야 합니다.", "registers must be >= 1.", "양의 정수를 넣으세요.",
                     "pass a positive int.")
    threads = regs_per_sm // regs
    warps = threads // WARP_SIZE
    aligned = warps * WARP_SIZE
    occ = min(aligned, max_threads) / max_threads
    steps = [f"{regs_per_sm} / {regs} = {threads} 스레드 (소수점 버림)",
             f"{threads} / 32 = {warps} 워프 → {aligned} 스레드",
             f"점유율 = {aligned} / {max_threads} = {100 * occ:.1f}% "
             "(할당 단위·서브파티션·블록 단위 반올림을 무시한 추정)"]
    return DivisionEstimate(regs, threads, warps, aligned, occ, steps)


def occupancy_of_kernel(kernel_resources, spec) -> Occupancy:
    """occupancy() from a dict {'registers', 'shared_bytes' (static), 'threads' or 'block',
    optional 'dynamic_shared_bytes', 'carveout'} such as a kernel resource report."""
    r = kernel_resources
    if not isinstance(r, dict) or "registers" not in r or not ("threads" in r or "block" in r):
        raise _error("커널 자원 dict 에 'registers' 와 'threads'(또는 'block')가 있어야 합니다.",
                     "the kernel-resources dict needs 'registers' and 'threads' (or 'block').",
                     "예: {'registers': 122, 'shared_bytes': 8192, 'threads': 256}",
                     "e.g. {'registers': 122, 'shared_bytes': 8192, 'threads': 256}")
    if "threads" in r:
        threads = r["threads"]
    else:
        block = (r["block"],) if isinstance(r["block"], int) else tuple(r["block"])
        threads = 1
        for d in block:
            threads *= _int("블록 크기", "block size", d)
    smem = _int("정적 공유 메모리", "static shared memory", r.get("shared_bytes", 0)) + \
        _int("동적 공유 메모리", "dynamic shared memory", r.get("dynamic_shared_bytes", 0))
    return occupancy(spec, r["registers"], threads, smem, r.get("carveout"))


def _steps_for(cc):
    if tuple(cc) in ARCH_LIMITS:
        return ARCH_LIMITS[tuple(cc)][0]["carveout_steps_kb"]
    if cc in ((8, 0), (8, 7)):
        return _STEPS_8_0
    if cc[0] in (9, 10, 11):
        return _STEPS_9_0
    return _STEPS_SMALL


def spec_from_attributes(name, cc, attrs, template=None) -> GpuSpec:
    """A GpuSpec from CUDA device attributes (names as in CU_DEVICE_ATTRIBUTE_*, values as the driver returns them)."""
    cc = tuple(int(c) for c in cc)
    base = template or next((g for g in GPUS.values() if g.cc == cc), None)
    clock = attrs.get("CLOCK_RATE")
    lanes = base.fp32_lanes_per_sm if base else 0
    fields = dict(
        name=name, cc=cc, sm_count=attrs["MULTIPROCESSOR_COUNT"],
        boost_clock_mhz=clock // 1000 if clock else (base.boost_clock_mhz if base else 0),
        fp32_lanes_per_sm=lanes,
        smem_per_sm=attrs["MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"],
        smem_per_block_optin=attrs["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"],
        l1_smem_total=base.l1_smem_total if base else 0,
        carveout_steps_kb=_steps_for(cc),
        regs_per_sm=attrs["MAX_REGISTERS_PER_MULTIPROCESSOR"],
        regs_per_block=attrs["MAX_REGISTERS_PER_BLOCK"],
        max_warps_per_sm=attrs["MAX_THREADS_PER_MULTIPROCESSOR"] // attrs.get("WARP_SIZE", WARP_SIZE),
        max_blocks_per_sm=attrs["MAX_BLOCKS_PER_MULTIPROCESSOR"],
        max_threads_per_block=attrs["MAX_THREADS_PER_BLOCK"],
        smem_per_block_default=attrs["MAX_SHARED_MEMORY_PER_BLOCK"],
        smem_reserved_per_block=attrs["RESERVED_SHARED_MEMORY_PER_BLOCK"],
    )
    fields["source"] = {**(base.source if base else {}),
                        **{f: "CUDA device attribute (this GPU)" for f in fields if f not in ("name", "cc")}}
    for f, why in (("fp32_lanes_per_sm", "per-CC table"), ("l1_smem_total", "per-CC table")):
        if base:
            fields["source"][f] = base.source.get(f, why)
    return replace(base, **fields) if base else GpuSpec(**fields)
