"""Launch and resource limits of the GPU being simulated: what the GPU (or ptxas) refuses, the simulator refuses too.

The GPU is the one SGEMM_SIM_CC names (compute capability, e.g. 7.5 for a T4), else an H100 (CC 9.0), the GPU of the
course's records. Its figures come from sim/occupancy.py (CUDA C++ Programming Guide, "Technical Specifications per
Compute Capability", and cuda_occupancy.h): threads per block, block and grid dimensions, 48 KiB of static shared
memory, the opt-in maximum of dynamic shared memory per block, registers per block. Registers are known for the
course's registered kernels (offline compiles, kernels_numba/infra/targets.json) and for a launch_bounds limit.
"""
import numpy as np

from sim import occupancy
from sim.korean import josa

from ..errors import CourseInputError
from .errors import SimulatorFault
from .. import device

DEFAULT_CC = (9, 0)                  # the course's records come from an H100/H200
MAX_GRID = (2 ** 31 - 1, 65535, 65535)   # [PG] maximum x-, y-, z-dimension of a grid of thread blocks
MAX_BLOCK = (1024, 1024, 64)             # [PG] maximum x-, y-, z-dimension of a block
REGISTER_SOURCES = []                # callables fn -> (registers per thread, where from) or None (the registry adds one)


class LaunchLimitError(SimulatorFault, CourseInputError):
    """A launch the GPU refuses (too many threads, too much shared memory, ...): says which limit and where from."""

    names_thread = True          # raised inside a thread (a declaration), it is shown as it is

    def __init__(self, ko, en, fix_ko="", fix_en=""):
        CourseInputError.__init__(self, ko, en, fix_ko, fix_en)


def simulated():
    """(compute capability, a name for messages) of the GPU whose limits the simulator applies."""
    cc = device.SIM_CC or DEFAULT_CC
    name = (f"SGEMM_SIM_CC={cc[0]}.{cc[1]} 의 GPU" if device.SIM_CC else
            f"CC {cc[0]}.{cc[1]} (H100; SGEMM_SIM_CC 를 주면 그 GPU)")
    return cc, name


def spec():
    """The sim/occupancy.py GpuSpec of the simulated GPU (its limits and their sources)."""
    cc, _ = simulated()
    known = occupancy.ARCH_LIMITS
    if tuple(cc) not in known:                    # a CC the table lacks: the nearest older one it has
        older = [c for c in known if c <= tuple(cc)] or [min(known)]
        cc = max(older)
    return occupancy.arch_spec(cc)


def _src(s, field):
    return s.source.get(field, "sim/occupancy.py")


def check_launch(fn, grid, block, dynshared):
    """LaunchLimitError if the GPU would refuse this launch configuration."""
    s = spec()
    cc, gpu = simulated()
    grid, block = tuple(int(g) for g in grid), tuple(int(b) for b in block)
    threads = int(np.prod(block))
    name = getattr(fn, "__name__", "kernel")
    mod = getattr(fn, "__module__", "") or ""
    if mod and mod != "__main__":
        name = f"{mod.rsplit('.', 1)[-1]}.{name}"
    for axis, (n, top) in enumerate(zip(block, MAX_BLOCK)):
        if n > top:
            xyz = "xyz"[axis]
            raise LaunchLimitError(
                f"{name}: 블록의 {xyz} 크기 {josa(n, '이/가')} 한도 {josa(top, '을/를')} 넘습니다 ({gpu}; CUDA Programming Guide, 블록의 최대 "
                f"{xyz} 차원). GPU 는 이 실행을 거절합니다 (CUDA_ERROR_INVALID_VALUE).",
                f"{name}: block dimension {xyz} = {n} exceeds the limit {top} ({gpu}; CUDA Programming Guide, maximum "
                f"{xyz}-dimension of a block); the GPU refuses the launch (CUDA_ERROR_INVALID_VALUE).",
                "블록 모양을 줄이고 그리드를 늘리세요.", "use a smaller block and a larger grid.")
    if threads > s.max_threads_per_block:
        raise LaunchLimitError(
            f"{name}: 블록 {josa(block, '은/는')} 스레드 {threads}개입니다. 블록당 최대 {s.max_threads_per_block}개를 넘어 GPU 가 "
            f"실행을 거절합니다 (CUDA_ERROR_INVALID_VALUE; 한도의 출처: {_src(s, 'max_threads_per_block')}, {gpu}).",
            f"{name}: a block of {block} is {threads} threads, over the {s.max_threads_per_block} threads per block "
            f"the GPU allows ({_src(s, 'max_threads_per_block')}, {gpu}); the launch is refused "
            "(CUDA_ERROR_INVALID_VALUE).",
            f"블록당 스레드를 {s.max_threads_per_block}개 이하로 (예: 16×16 = 256) 하고 그리드를 늘리세요.",
            f"use at most {s.max_threads_per_block} threads per block (e.g. 16x16 = 256) and more blocks.")
    for axis, (n, top) in enumerate(zip(grid, MAX_GRID)):
        if n > top:
            xyz = "xyz"[axis]
            raise LaunchLimitError(
                f"{name}: 그리드의 {xyz} 크기 {josa(n, '이/가')} 한도 {josa(top, '을/를')} 넘습니다 (CUDA Programming Guide, 그리드의 최대 "
                f"{xyz} 차원). GPU 는 이 실행을 거절합니다.",
                f"{name}: grid dimension {xyz} = {n} exceeds the limit {top} (CUDA Programming Guide, maximum "
                f"{xyz}-dimension of a grid); the GPU refuses the launch.",
                "큰 차원을 x 에 두세요 (x 는 2³¹−1 까지).", "put the large dimension on x (up to 2^31 - 1).")
    if dynshared > s.smem_per_block_optin:
        raise LaunchLimitError(
            f"{name}: 동적 공유 메모리 {dynshared:,} B 가 {gpu} 의 블록당 최대 {s.smem_per_block_optin:,} B "
            f"({s.smem_per_block_optin // 1024} KiB, opt-in 한 뒤의 값; {_src(s, 'smem_per_block_optin')})를 "
            "넘습니다. GPU 는 이 실행을 거절합니다.",
            f"{name}: {dynshared:,} B of dynamic shared memory exceeds the per-block maximum of {gpu}, "
            f"{s.smem_per_block_optin:,} B ({s.smem_per_block_optin // 1024} KiB with opt-in; "
            f"{_src(s, 'smem_per_block_optin')}); the GPU refuses the launch.",
            "타일을 줄이거나 단(stage) 수를 줄이세요.", "use smaller tiles or fewer stages.")
    bounds = getattr(fn, "_sgemm_launch_bounds", None)
    if bounds and threads > bounds[0]:
        raise LaunchLimitError(
            f"{name}: launch_bounds 가 블록당 최대 {bounds[0]} 스레드를 약속했는데 {threads} 스레드로 실행합니다. "
            "ptxas 는 그 약속에 맞춰 레지스터를 나눴으므로 GPU 는 이 실행을 거절합니다 (too many resources requested "
            "for launch).",
            f"{name}: launch_bounds promises at most {bounds[0]} threads per block, but it is launched with "
            f"{threads}; registers were allotted for that promise, so the GPU refuses the launch (too many resources "
            "requested for launch).",
            f"블록을 {bounds[0]} 스레드 이하로 하거나 launch_bounds 를 고치세요.",
            f"launch at most {bounds[0]} threads per block or change launch_bounds.")
    for source in REGISTER_SOURCES:
        found = source(fn, cc)
        if found:
            regs, where_from = found
            need = regs * threads
            if need > s.regs_per_block:
                raise LaunchLimitError(
                    f"{name}: 스레드당 레지스터 {regs}개 × 블록 {threads} 스레드 = {need:,}개로, 블록당 최대 "
                    f"{s.regs_per_block:,}개 ({_src(s, 'regs_per_block')})를 넘습니다 (레지스터 수: {where_from}). "
                    "GPU 는 이 실행을 거절합니다 (too many resources requested for launch).",
                    f"{name}: {regs} registers per thread x {threads} threads = {need:,}, over the {s.regs_per_block:,} "
                    f"registers per block ({_src(s, 'regs_per_block')}; register count: {where_from}); the GPU "
                    "refuses the launch (too many resources requested for launch).",
                    "블록당 스레드를 줄이세요.", "use fewer threads per block.")
            break


def check_static_shared(decls, frame, dynshared=0):
    """LaunchLimitError when the kernel's static shared arrays exceed 48 KiB (ptxas refuses the kernel on every
    target the course has, although numba-cuda's linker ran one on the H100: the portable rule wins), or static +
    dynamic shared memory exceed the GPU's per-block maximum."""
    total = sum(d.raw.nbytes for d in decls)
    s = spec()
    cc, gpu = simulated()
    where = f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"
    parts = ", ".join(f"{d.name} {d.raw.nbytes:,} B" for d in decls)
    if total > s.smem_per_block_default:
        raise LaunchLimitError(
            f"정적 공유 메모리가 {total:,} B 입니다 ({parts}; {where}). 정적 공유 배열(cuda.shared.array 에 모양을 준 "
            f"것)은 블록당 {s.smem_per_block_default // 1024} KiB ({s.smem_per_block_default:,} B)까지이고, 넘으면 "
            f"ptxas 가 커널을 거절합니다 (sm_75, sm_80, sm_90 모두; {_src(s, 'smem_per_block_default')}). "
            "numba-cuda 의 링커가 받아 주는 기계도 있지만 (H100 에서 64 KiB 정적 배열이 실행됨: "
            "course/recorded/gpu_hazards_h100.json), nvcc·ptxas 로는 컴파일되지 않는 코드입니다.",
            f"static shared memory is {total:,} B ({parts}; {where}); static shared arrays may use "
            f"{s.smem_per_block_default // 1024} KiB ({s.smem_per_block_default:,} B) per block, and ptxas refuses "
            f"the kernel beyond that (sm_75, sm_80 and sm_90; {_src(s, 'smem_per_block_default')}). numba-cuda's "
            "linker accepts it on some machines (a 64 KiB static array ran on an H100: "
            "course/recorded/gpu_hazards_h100.json), but nvcc and ptxas do not compile such code.",
            "타일을 줄이거나, 동적 공유 메모리(cuda.shared.array(0, dtype) + 실행 설정의 네 번째 값)로 옮기세요.",
            "use smaller tiles, or move to dynamic shared memory (cuda.shared.array(0, dtype) plus the launch's "
            "fourth configuration value).")
    if total + dynshared > s.smem_per_block_optin:
        raise LaunchLimitError(
            f"정적 {total:,} B + 동적 {dynshared:,} B 공유 메모리가 {gpu} 의 블록당 최대 {s.smem_per_block_optin:,} B "
            f"({_src(s, 'smem_per_block_optin')})를 넘습니다 ({where}).",
            f"static {total:,} B + dynamic {dynshared:,} B of shared memory exceed the per-block maximum of {gpu}, "
            f"{s.smem_per_block_optin:,} B ({_src(s, 'smem_per_block_optin')}; {where}).",
            "공유 메모리를 줄이세요.", "use less shared memory.")
