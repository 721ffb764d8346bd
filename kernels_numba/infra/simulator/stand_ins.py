"""Python stand-ins with the hardware's semantics for every PTX instruction of the course (kernels_numba/infra/ptx),
and for numba's cache-hinted loads and stores (cuda.ldca, cuda.stcg, ...), which the stock simulator lacks.

Each checks the state space of its address operand as the instruction's opcode names it (ld.global / st.global take
global memory: a shared or local array is a StateSpaceError, as the GPU faults with CUDA_ERROR_INVALID_ADDRESS_SPACE
or touches other memory), moves raw bytes as the hardware does, and tells the race detector what it read or wrote."""
import numpy as np

from .._fp import fma_rn_f32
from . import async_copy, racecheck, tma, warp, warpgroup
from .async_proxy import shared_address  # noqa: F401  (ptx.shared_address in the simulator)
from .errors import MisalignedAddressError
from .memory import GlobalArray, bytes_at, element, host_array, require_space
from .state import running


def _global_access(arr, idx, nbytes, is_write):
    t = running()
    if t is not None and racecheck.ON and isinstance(arr, GlobalArray):
        arr.touch(tuple(int(i) for i in idx), nbytes, is_write, racecheck.here(t, 3), t)


def _ld_global_ca_f32(arr, *idx):
    require_space(arr, "global", "ld.global.ca.f32", "주소(address) / address")
    raw, _ = bytes_at(arr, idx, 4, "ld.global.ca.f32", "주소")
    _global_access(arr, idx, 4, False)
    return raw.copy().view(np.float32)[0]


def _st_global_v4_f32(arr, *args):
    *idx, x, y, z, w = args
    require_space(arr, "global", "st.global.v4.f32", "주소(address) / address")
    a, i, addr = element(arr, idx)
    if addr % 16:
        raise MisalignedAddressError(
            f"st.global.v4.f32: 주소 0x{addr:x} 가 16바이트 정렬이 아닙니다 (GPU에서는 'misaligned address' 오류로 "
            f"커널이 멈춤). / address 0x{addr:x} of element {tuple(i)} is not 16-byte aligned "
            "(CUDA_ERROR_MISALIGNED_ADDRESS on the GPU).")
    raw, _ = bytes_at(arr, idx, 16, "st.global.v4.f32", "주소")
    raw[:] = np.array([x, y, z, w], dtype=np.float32).view(np.uint8)     # 16 bytes, whatever the array's dtype
    _global_access(arr, idx, 16, True)


def _div_u32(a, b, op="div"):
    a, b = int(a) & 0xFFFFFFFF, int(b) & 0xFFFFFFFF
    if b == 0:
        raise ZeroDivisionError(f"{op}.u32: 0 으로 나눔 — PTX 에서 결과가 정해지지 않은 값입니다 / division by zero: the "
                                "result is unspecified on the GPU")
    return np.uint32(a // b if op == "div" else a % b)


def element_address(arr, *idx):
    """Byte address of arr[idx] (simulator: the numpy buffer's address, so alignment behaves as on the GPU)."""
    return np.uint64(element(arr, idx)[2])


STAND_INS = {"fma_rn_f32": fma_rn_f32, "ld_global_ca_f32": _ld_global_ca_f32,
             "st_global_v4_f32": _st_global_v4_f32,
             "div_u32": _div_u32, "rem_u32": lambda a, b: _div_u32(a, b, "rem")}
STAND_INS.update(warp.stand_ins())
STAND_INS.update(async_copy.STAND_INS)
STAND_INS.update(warpgroup.stand_ins())          # Hopper: wgmma, setmaxnreg
STAND_INS.update(tma.STAND_INS)                  # Hopper: mbarrier, TMA, proxy fences

# numba.cuda's cache-hinted loads and stores (numba_cuda cache_hints.py): ld.global.{ca,cg,cs,lu,cv} and
# st.global.{cg,cs,wb,wt}; the address must be global memory.
LOAD_HINTS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv")
STORE_HINTS = ("stcg", "stcs", "stwb", "stwt")


def _hinted_load(name):
    def f(self, array, i):
        require_space(array, "global", f"cuda.{name}", "배열(array) / array")
        idx = tuple(i) if isinstance(i, tuple) else (i,)
        a = host_array(array)
        v = a[idx]
        _global_access(array, idx, a.itemsize, False)
        return v
    f.__name__ = name
    return f


def _hinted_store(name):
    def f(self, array, i, value):
        require_space(array, "global", f"cuda.{name}", "배열(array) / array")
        idx = tuple(i) if isinstance(i, tuple) else (i,)
        a = host_array(array)
        a[idx] = value
        _global_access(array, idx, a.itemsize, True)
    f.__name__ = name
    return f


def cache_hints():
    """{name: FakeCUDAModule method} for numba's cache-hinted loads and stores."""
    out = {n: _hinted_load(n) for n in LOAD_HINTS}
    out.update({n: _hinted_store(n) for n in STORE_HINTS})
    return out


