"""Host side of TMA: tensor maps for the level-7 kernels, and the launcher that passes them.

The rule, found out for Numba (tests/test_hopper_ptx.py::test_a_tensor_map_cannot_be_passed_by_value_from_numba):
a CUtensorMap is 128 opaque bytes that the TMA unit reads from .param space (a `const __grid_constant__ CUtensorMap`
kernel parameter in CUDA C++), .const or .global memory. Numba passes a record argument by pointer and a tuple as
separate scalar parameters, so there is no 128-byte by-value parameter: the course puts the map in **global memory**
(a uint64[16] device array, 64-byte aligned as every device allocation is), passes the array, and every block
acquires it once with `fence.proxy.tensormap::generic.acquire.sys` before using it (CUDA C++ Programming Guide,
"Using TMA to transfer multi-dimensional arrays": a map the host copied to global memory needs that fence, scope
.sys). The simulator checks the acquire (TENSORMAP_FENCE).

On a GPU `tensor_map` calls the driver's cuTensorMapEncodeTiled (cuda-bindings, a numba-cuda dependency); in the
simulator it builds the simulator's own encoding of the same fields (kernels_numba.infra.simulator.tma.encode). Both
go through sim.tma.check first, so a map the driver would refuse is refused here too, with the reason in Korean and
English. TMA needs rows whose byte stride is a multiple of 16 (8 f16): `padded` makes a zero-padded copy when a
matrix's column count is not a multiple of 8, so every shape runs; the elements beyond the real columns are outside
the map's tensor and arrive as zeros anyway.
"""
import weakref
from collections import OrderedDict

import numpy as np

from sim import tma as model

from . import device
from .errors import CourseInputError
from numba import cuda
from .simulator import tma as simtma

SWIZZLE = 128
_CACHE = OrderedDict()              # (address, shape, strides, box, swizzle) -> (map array, the arrays it refers to)
_CACHE_SIZE = 64


def _address(X):
    if isinstance(X, np.ndarray):
        return X.__array_interface__["data"][0]
    return X.__cuda_array_interface__["data"][0]


def _row_stride(X):
    if isinstance(X, np.ndarray):
        return X.strides[0]
    cai = X.__cuda_array_interface__
    return cai["strides"][0] if cai.get("strides") else X.shape[1] * np.dtype(cai["typestr"]).itemsize


def padded(X):
    """X itself when TMA can read it (rows 16-byte aligned, start 16-byte aligned), else a zero-padded copy whose
    rows are a multiple of 8 f16 long (same kind of array: numpy, or device array on a GPU)."""
    rows, cols = X.shape
    item = np.dtype(X.dtype).itemsize
    if _row_stride(X) % 16 == 0 and _address(X) % 16 == 0:
        return X
    per = 16 // item
    if isinstance(X, np.ndarray):
        host = X
    elif device.SIMULATOR:
        host = np.asarray(X.copy_to_host())
    else:                                        # any device array (Numba's, CuPy's): through its CUDA interface
        host = cuda.as_cuda_array(X).copy_to_host()
    buf = np.zeros((rows, -(-cols // per) * per), host.dtype)
    buf[:, :cols] = host
    if isinstance(X, np.ndarray) or device.SIMULATOR:
        return buf
    return cuda.to_device(buf)


def describe(X, box_rows, box_cols, swizzle=SWIZZLE, cols=None):
    """sim.tma.TensorMap for matrix X (logical width `cols`, default X's), checked by the driver's rules."""
    rows, width = X.shape
    tm = model.TensorMap(_address(X), np.dtype(X.dtype).name, rows, cols or width, _row_stride(X), box_rows, box_cols,
                         swizzle)
    try:
        model.check(tm)
    except model.TensorMapError as e:
        raise CourseInputError(e.ko, e.en, "kernels_numba.infra.tma.padded(X) 로 0-패딩한 복사본을 쓰세요.",
                               "use kernels_numba.infra.tma.padded(X) for a zero-padded copy.") from None
    return tm


def tensor_map(X, box_rows, box_cols, swizzle=SWIZZLE, cols=None):
    """A 2-D tensor map of f16 matrix X with a box of box_rows x box_cols elements, as a uint64[16] array the kernel
    receives (device array on a GPU; numpy in the simulator). Cached per (address, shape, box): a benchmark's repeated
    launches reuse it (encoding plus a host-to-device copy cost tens of microseconds)."""
    tm = describe(X, box_rows, box_cols, swizzle, cols)
    key = (tm, device.SIMULATOR)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit[0]
    if device.SIMULATOR:
        out = simtma.encode(X, box_rows, box_cols, swizzle, cols=cols)
    else:
        out = _encode_gpu(tm)
    _CACHE[key] = (out, X)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


def _encode_gpu(tm):
    """cuTensorMapEncodeTiled for tm; the 128 bytes go to a device array (global memory)."""
    # local: the CUDA driver/toolchain bindings: only on a GPU or the offline compile path
    from cuda.bindings import driver as drv
    cuda.current_context()                       # the driver is initialised
    dt = {"float16": drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
          "bfloat16": drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
          "float32": drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32}[tm.dtype]
    swz = {0: drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE, 32: drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_32B,
           64: drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B,
           128: drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B}[tm.swizzle]
    err, cmap = drv.cuTensorMapEncodeTiled(
        dt, 2, tm.address,
        [drv.cuuint64_t(tm.cols), drv.cuuint64_t(tm.rows)], [drv.cuuint64_t(tm.row_stride)],
        [drv.cuuint32_t(tm.box_cols), drv.cuuint32_t(tm.box_rows)], [drv.cuuint32_t(1), drv.cuuint32_t(1)],
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise CourseInputError(f"cuTensorMapEncodeTiled 가 {err} 를 돌려주었습니다 ({tm}).",
                               f"cuTensorMapEncodeTiled returned {err} for {tm}.")
    words = np.array([int(x) for x in cmap.opaque], np.uint64)
    assert words.size == 16
    return cuda.to_device(words)


def _memo(A, B, maps):
    """What a launch may reuse next time: maps of Numba device arrays that were not copied (a padded copy would hold
    the old contents, and a numpy array is copied to the GPU anew every launch). Describing and looking up two maps
    costs about 60 us of Python a launch, more than the kernel at 2048³."""
    if device.SIMULATOR or maps[2] is not A or maps[3] is not B or isinstance(A, np.ndarray) \
            or isinstance(B, np.ndarray):
        return None
    try:
        return (weakref.ref(A), weakref.ref(B), maps)
    except TypeError:                   # an object without weak references (e.g. a foreign __cuda_array_interface__)
        return None


set_max_dynamic_smem = device.set_max_dynamic_smem


class TmaLauncher:
    """launcher[grid, block](A, B, C, alpha, beta): builds (or reuses) the tensor maps of A and B and launches
    kernel(A, B, C, tmA, tmB, alpha, beta) with `smem_bytes` of dynamic shared memory (raising the kernel's limit on
    the first GPU launch). What kernels_numba.launch.run_kernel and the simulator subprocess call."""

    def __init__(self, kernel, sig, smem_bytes, a_box, b_box):
        self.kernel, self.sig, self.smem_bytes = kernel, sig, smem_bytes
        self.a_box, self.b_box = a_box, b_box            # (rows, cols) of one TMA box of A and of B
        self.ready = False
        self.memo = None        # (weakref A, weakref B, maps) of the last launch with unpadded device arrays

    def maps(self, A, B):
        """(tmA, tmB, A', B'): the two maps and the (possibly padded) arrays they read."""
        K, N = A.shape[1], B.shape[1]
        Ap, Bp = padded(A), padded(B)
        return (tensor_map(Ap, *self.a_box, cols=K), tensor_map(Bp, *self.b_box, cols=N), Ap, Bp)

    def __getitem__(self, cfg):
        grid, block, stream = cfg if len(cfg) == 3 else (*cfg, 0)

        def run(A, B, C, alpha, beta):
            m = self.memo
            if m is not None and m[0]() is A and m[1]() is B:
                tmA, tmB, Ap, Bp = m[2]          # the same device arrays as the last launch: their maps still hold
            else:
                tmA, tmB, Ap, Bp = self.maps(A, B)
                self.memo = _memo(A, B, (tmA, tmB, Ap, Bp))
            if not device.SIMULATOR and not self.ready:
                set_max_dynamic_smem(self.kernel.compile(self.sig), self.smem_bytes)
                self.ready = True
            self.kernel[grid, block, stream, self.smem_bytes](A, B, C, tmA, tmB, alpha, beta)
            self.last = (Ap, Bp)                         # the padded copies live until the next launch
        return run
