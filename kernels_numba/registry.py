"""The one list of kernel variants: tests, benchmarks and the README table all loop over REGISTRY."""
import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .infra import jitcache
from .infra import device
from .infra.errors import CourseInputError
import json
from pathlib import Path
from .infra.simulator import limits

# module names under kernels_numba, in teaching order
_MODULES = ("naive", "tiled", "tiled_pad", "tiled_fma", "tiled_k32",
            "regblock", "regblock_opt", "regblock_vec",
            "db", "db_overlap", "db_ptx",
            "async_copy", "async_vec_s2", "async_vec", "async_vec_s4", "async_bk16", "async_wide",
            "mma_simple", "mma_large", "mma_simple_turing", "mma_large_turing",     # the last two: m16n8k8, sm_75
            "mma_warps", "mma_pipe", "mma_pipe4", "mma_pipe_f16out", "mma_pipe_f16acc",
            "mma_pipe4_lb2", "mma_swizzle", "mma_fast",
            "wgmma_simple", "wgmma_tma", "wgmma_ws")                                                       # level 7: Hopper, sm_90a


@dataclass(frozen=True)
class KernelSpec:
    name: str
    level: int
    description: str
    dtype: type
    module: object
    launch: Callable            # launch(A, B, C, alpha=1.0, beta=0.0) -> C
    min_cc: tuple = None        # oldest GPU that runs it (module's MIN_CC); None: any GPU the course accepts
    arch_specific: bool = False  # module's ARCH_SPECIFIC: runs on exactly min_cc (sm_90a code: wgmma, level 7)

    def runs_here(self):
        """True where this device has the kernel's instructions: the plain simulator always, a GPU (or a simulator told
        to be one with SGEMM_DEVICE=sim SGEMM_SIM_CC=7.5) of compute capability >= min_cc. Elsewhere its launch runs on
        the simulator in a subprocess (kernels_numba.tools.subsim)."""
        return not device.lacks(self.min_cc, self.arch_specific)

    @property
    def kernel(self):
        return self.module.kernel

    @property
    def threads(self):
        """Threads per block of its launch (launch.block: an int or a tuple of dimensions)."""
        block = self.launch.block
        return block if isinstance(block, int) else int(np.prod(block))

    @property
    def dynamic_smem(self):
        """Dynamic shared memory per block in bytes (0 unless the module's CONFIG asks for it, as mma_fast can)."""
        config = getattr(self.module, "CONFIG", {})
        return config.get("SMEM_BYTES", 0) if config.get("DYNAMIC") else 0


def _spec(modname):
    m = importlib.import_module(f"{__package__}.{modname}")
    # compiled once per GPU and toolchain, on disk (GPU mode only): the key names the module and, for a kernel made
    # by a factory, its whole configuration
    jitcache.enable(m.kernel, f"{modname}:{getattr(m, 'CONFIG', None)!r}")
    return KernelSpec(m.NAME, m.LEVEL, m.DESCRIPTION, getattr(m, "DTYPE", np.float32), m, m.launch,
                      getattr(m, "MIN_CC", None), bool(getattr(m, "ARCH_SPECIFIC", False)))


REGISTRY = tuple(_spec(m) for m in _MODULES)


def get(name):
    """The KernelSpec called name (clear error listing the names otherwise)."""
    for s in REGISTRY:
        if s.name == name:
            return s
    names = ", ".join(s.name for s in REGISTRY)
    raise CourseInputError(f"'{name}' 라는 커널이 없습니다.", f"no kernel named {name!r}.",
                           f"다음 중 하나를 쓰세요: {names}", f"use one of: {names}")


def module_of(name):
    """The module of kernel `name`: registered, else kernels_numba.demos.<name> (a teaching demo with `kernel` and `launch`)."""
    if any(s.name == name for s in REGISTRY):
        return get(name).module
    try:
        mod = importlib.import_module(f"{__package__}.demos.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.demos.{name}":
            raise                       # the module exists but something it imports is missing: show that
        mod = None
    if mod is None or not hasattr(mod, "kernel"):
        get(name)                       # raises the clear error listing the registered names
    return mod


def by_level(level):
    return [s for s in REGISTRY if s.level == level]


_REGS = {}


def known_registers(fn, cc):
    """(registers per thread, where the figure comes from) of a registered kernel's Python function compiled for
    compute capability cc, from the offline compiles in kernels_numba/infra/targets.json; None when unknown."""
    if not _REGS:
        rows = json.loads((Path(__file__).parent / "infra" / "targets.json").read_text(encoding="utf-8"))["rows"]
        by_name = {(r["kernel"], r["target"]): r.get("registers") for r in rows}
        for s in REGISTRY:
            f = getattr(s.kernel, "py_func", s.kernel)
            _REGS[id(f)] = (f, s.name, by_name)
    hit = _REGS.get(id(fn))
    if hit is None or hit[0] is not fn:
        return None
    _, name, by_name = hit
    target = f"sm_{cc[0]}{cc[1]}"
    regs = by_name.get((name, target))
    return (regs, f"{name}, {target} (kernels_numba/infra/targets.json)") if regs else None


def _register_limits():
    if device.SIMULATOR:                 # the simulator checks registers x threads of a registered kernel's launch
        if known_registers not in limits.REGISTER_SOURCES:
            limits.REGISTER_SOURCES.append(known_registers)


_register_limits()
