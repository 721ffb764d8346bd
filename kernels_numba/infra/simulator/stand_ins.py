"""Python stand-ins with the hardware's semantics for every PTX instruction of the course (kernels_numba/infra/ptx)."""
import numpy as np

from .._fp import fma_rn_f32
from . import async_copy, tma, warp, warpgroup
from .async_proxy import shared_address  # noqa: F401  (ptx.shared_address in the simulator)
from .errors import MisalignedAddressError
from .memory import element


def _ld_global_ca_f32(arr, *idx):
    a, i, _ = element(arr, idx)
    return np.float32(a[i])


def _st_global_v4_f32(arr, *args):
    *idx, x, y, z, w = args
    a, i, addr = element(arr, idx, width=4)
    if addr % 16:
        raise MisalignedAddressError(
            f"st.global.v4.f32: 주소 0x{addr:x} 가 16바이트 정렬이 아닙니다 (GPU에서는 'misaligned address' 오류로 "
            f"커널이 멈춤). / address 0x{addr:x} of element {tuple(i)} is not 16-byte aligned "
            "(CUDA_ERROR_MISALIGNED_ADDRESS on the GPU).")
    a[i[:-1] + (slice(i[-1], i[-1] + 4),)] = np.array([x, y, z, w], dtype=np.float32)


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
