"""Occupancy of the registered kernels on the GPU in use or on a listed GPU: sim.occupancy's pure model fed from the
kernels side (this process's device attributes, the kernel as loaded, the offline kernel x target matrix).

sim/ stays free of numba and of the registry; what needs either lives here.
"""
from numba import cuda

from sim import occupancy as occ
from sim.errors import CourseInputError

from . import registry
from .infra import device
from .tools import offline, table


DEVICE_ATTRIBUTES = ("MULTIPROCESSOR_COUNT", "CLOCK_RATE", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
                     "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "MAX_SHARED_MEMORY_PER_BLOCK",
                     "RESERVED_SHARED_MEMORY_PER_BLOCK", "MAX_REGISTERS_PER_MULTIPROCESSOR",
                     "MAX_REGISTERS_PER_BLOCK", "MAX_THREADS_PER_MULTIPROCESSOR", "MAX_BLOCKS_PER_MULTIPROCESSOR",
                     "MAX_THREADS_PER_BLOCK", "WARP_SIZE")


def device_attributes():
    """{attribute: value} of the current CUDA device (GPU mode only)."""
    dev = cuda.get_current_device()
    out = {}
    for a in DEVICE_ATTRIBUTES:
        try:
            out[a] = int(getattr(dev, a))
        except Exception:            # noqa: BLE001 — e.g. CLOCK_RATE dropped by a future driver
            pass
    return out


def current_gpu():
    """GpuSpec of the GPU in use (device attributes via numba.cuda), or None in simulator/offline mode."""
    if device.MODE != "gpu":
        return None
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return occ.spec_from_attributes(name, tuple(dev.compute_capability), device_attributes())


def kernel_occupancy(name, gpu) -> occ.Occupancy:
    """Occupancy of registered kernel `name` on `gpu` (a name in GPUS or a GpuSpec) from the offline kernel x target
    matrix (kernels_numba/infra/targets.json: registers and shared memory compiled for that compute capability).
    None where the kernel cannot exist on that GPU (the matrix row says why)."""
    spec, ks = occ.get_spec(gpu), registry.get(name)
    row = next((r for r in table.load_targets()["rows"] if r["kernel"] == ks.name and r["target"] == spec.arch), None)
    if row is None:
        raise CourseInputError(f"{spec.arch} 대상의 오프라인 컴파일 기록이 없습니다.",
                               f"no offline compile recorded for {spec.arch}.",
                               "make targets 로 표를 다시 만드세요.", "regenerate the matrix with make targets.")
    if not row["compiles"]:
        return None
    return occ.occupancy(spec, row["registers"], row["threads"], row["smem_static"] + row["smem_dynamic"])


def occupancy_here(name):
    """Occupancy of registered kernel `name` on the GPU in use, from the kernel as compiled for it (registers and shared
    memory of the loaded kernel, the device's own limits). None without a GPU or where the kernel cannot run here."""
    spec = current_gpu()
    ks = registry.get(name)
    if spec is None or not ks.runs_here():
        return None
    k = ks.kernel.compile(getattr(registry.module_of(ks.name), "SIG", offline.SIG))
    return occ.occupancy(spec, k.regs_per_thread, ks.threads, k.shared_mem_per_block + ks.dynamic_smem)
