"""Input checks and the one launch interface: launch(A, B, C, alpha=1.0, beta=0.0) -> C."""
import math
import numbers
import time
import weakref

import numpy as np
from numba import cuda

from .infra import device, jitcache, placement
from .infra.device import SIM_MAX_MNK_DEFAULT, SIM_MAX_MNK_ENV, sim_max_mnk  # noqa: F401  (the device's banner
#                                                                                  states the limit too: it lives there)
from .infra.errors import CourseInputError


def _describe(x):
    return type(x).__module__.split(".")[0] + "." + type(x).__name__


_DTYPES = {}         # typestr -> np.dtype: a launch checks three arrays; np.dtype() of a string costs a microsecond


def _dtype(spec):
    dt = _DTYPES.get(spec)
    if dt is None:
        dt = _DTYPES[spec] = np.dtype(spec)
    return dt


_DEVICE_META = {}    # id -> (weakref, meta) of Numba device arrays: shape, dtype and address never change after creation


def _array_meta(name, x):
    """(shape, dtype, c_contiguous, is_device, (start, end) byte range or None) of an array argument.

    A Numba device array (cuda.to_device, cuda.as_cuda_array) is read once and remembered while it lives: its
    __cuda_array_interface__ costs microseconds per call, and a benchmark launches the same arrays thousands of times.
    numpy and CuPy arrays are read every time (their shape and dtype can be reassigned in place)."""
    hit = _DEVICE_META.get(id(x))
    if hit is not None and hit[0]() is x:
        return hit[1]
    if isinstance(x, np.ndarray):
        start = x.ctypes.data
        return x.shape, x.dtype, x.flags.c_contiguous, False, (start, start + x.nbytes)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(cai["shape"])
        dtype = _dtype(cai["typestr"])
        strides = cai.get("strides")
        contiguous = strides is None or tuple(strides) == _c_strides(shape, dtype.itemsize)
        ptr = cai["data"][0]
        nbytes = math.prod(shape) * dtype.itemsize
        meta = shape, dtype, contiguous, True, (ptr, ptr + nbytes) if ptr else None
        if type(x).__name__ in ("DeviceNDArray", "MappedNDArray") and type(x).__module__.startswith("numba"):
            key = id(x)
            _DEVICE_META[key] = (weakref.ref(x, lambda _, key=key: _DEVICE_META.pop(key, None)), meta)
        return meta
    if device.SIMULATOR and hasattr(x, "_ary") and isinstance(getattr(x, "_ary"), np.ndarray):
        meta = _array_meta(name, x._ary)      # the simulator's device array wraps a numpy array
        return meta[:3] + (True,) + meta[4:]
    raise CourseInputError(
        f"{name} 는 2차원 float32 배열이어야 하는데 {_describe(x)} 가 들어왔습니다.",
        f"{name} must be a 2-D float32 array, got {_describe(x)}.",
        f"np.asarray({name}, dtype=np.float32) 로 numpy 배열을 만들어 넘기세요.",
        f"pass np.asarray({name}, dtype=np.float32).")


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _check_scalar(name, v):
    if type(v) is float and -F32_MAX <= v <= F32_MAX:       # the usual case, checked fast (NaN and inf fail here)
        return np.float32(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.floating, np.integer)):
        raise CourseInputError(
            f"{name} 는 실수 스칼라여야 하는데 {_describe(v)} 가 들어왔습니다.",
            f"{name} must be a real scalar, got {_describe(v)}.",
            f"{name}=1.0 처럼 숫자를 넘기세요.", f"pass a number such as {name}=1.0.")
    try:
        f = float(v)
    except OverflowError:                       # a Python int beyond float64, e.g. 10**400
        f = math.inf
    if not math.isfinite(f):
        raise CourseInputError(
            f"{name} = {_short(v)} 는 유한한 값이 아닙니다.", f"{name} = {_short(v)} is not finite.",
            f"유한한 실수를 넘기세요.", f"pass a finite number.")
    if abs(f) > F32_MAX:
        raise CourseInputError(
            f"{name} = {_short(v)} 는 float32 로 나타낼 수 없습니다 (최대 {F32_MAX:.4g}): 커널이 float32 로 계산하므로 "
            "C 전체가 inf/NaN 이 됩니다.",
            f"{name} = {_short(v)} does not fit in float32 (max {F32_MAX:.4g}): the kernel computes in float32, "
            "so all of C would become inf/NaN.",
            f"|{name}| ≤ {F32_MAX:.4g} 인 값을 넘기세요 (행렬을 미리 축척하는 것이 보통입니다).",
            f"pass |{name}| <= {F32_MAX:.4g} (scale the matrices instead).")
    return np.float32(f)


F32_MAX = float(np.finfo(np.float32).max)


def _short(v):
    text = repr(v)
    return text if len(text) <= 40 else text[:20] + "…" + text[-8:]


def _bad_array(name, shape, dt, dtype, contiguous):
    """Raise the CourseInputError that says what is wrong with array `name` (check_inputs found something)."""
    if len(shape) != 2:
        raise CourseInputError(
            f"{name} 는 2차원이어야 하는데 {len(shape)}차원입니다 (shape={shape}).",
            f"{name} must be 2-D, but it is {len(shape)}-D (shape={shape}).",
            f"행렬 모양으로 바꾸세요, 예: {name}.reshape(rows, cols).",
            f"reshape it to a matrix, e.g. {name}.reshape(rows, cols).")
    if dt != dtype:
        raise CourseInputError(
            f"{name} 의 dtype 이 {dt} 입니다. 이 커널은 {dtype} 만 받습니다.",
            f"{name} has dtype {dt}; this kernel takes {dtype} only.",
            f"{name}.astype(np.{dtype}) 로 변환하세요.",
            f"convert with {name}.astype(np.{dtype}).")
    if min(shape) == 0:
        raise CourseInputError(
            f"{name} 가 비어 있습니다 (shape={shape}). 크기 0인 행렬곱은 계산할 것이 없습니다.",
            f"{name} is empty (shape={shape}); there is nothing to multiply.",
            "모든 차원이 1 이상인 행렬을 넘기세요.", "pass matrices whose dimensions are all >= 1.")
    raise CourseInputError(
        f"{name} 가 행 우선(C-contiguous) 연속 배열이 아닙니다 (전치·슬라이스된 뷰일 수 있음).",
        f"{name} is not C-contiguous (row-major); it may be a transposed or sliced view.",
        f"np.ascontiguousarray({name}) 로 연속 복사본을 만들어 넘기세요.",
        f"pass np.ascontiguousarray({name}).")


def check_inputs(A, B, C, alpha, beta, dtype=np.float32):
    """Validate GEMM arguments (dtype: one for all, or a tuple for A, B, C); return (M, N, K, alpha32, beta32, any_on_device) or raise CourseInputError."""
    metas = {}
    dtypes = dtype if isinstance(dtype, tuple) else (dtype,) * 3     # one dtype, or one per (A, B, C)
    for name, x, dtype in (("A", A, dtypes[0]), ("B", B, dtypes[1]), ("C", C, dtypes[2])):
        shape, dt, contiguous, on_dev, span = _array_meta(name, x)
        dtype = _dtype(dtype)
        if len(shape) != 2 or dt != dtype or 0 in shape or not contiguous:
            _bad_array(name, shape, dt, dtype, contiguous)
        metas[name] = (shape, on_dev, span)
    (M, K), (K2, N), (Mc, Nc) = metas["A"][0], metas["B"][0], metas["C"][0]
    if K != K2:
        raise CourseInputError(
            f"A 의 열 수({K})와 B 의 행 수({K2})가 다릅니다: A{metas['A'][0]} @ B{metas['B'][0]} 는 정의되지 않습니다.",
            f"A has {K} columns but B has {K2} rows: A{metas['A'][0]} @ B{metas['B'][0]} is undefined.",
            "A 는 (M, K), B 는 (K, N) 모양이어야 합니다.", "A must be (M, K) and B must be (K, N).")
    if (Mc, Nc) != (M, N):
        raise CourseInputError(
            f"C 의 모양 {metas['C'][0]} 이 결과 모양 (M, N) = ({M}, {N}) 과 다릅니다.",
            f"C has shape {metas['C'][0]} but the result is (M, N) = ({M}, {N}).",
            f"C = np.zeros(({M}, {N}), np.float32) 처럼 맞는 모양으로 만드세요.",
            f"allocate C with shape ({M}, {N}).")
    if isinstance(C, np.ndarray) and not C.flags.writeable:
        raise CourseInputError("C 가 읽기 전용입니다.", "C is read-only.",
                               "C.copy() 를 넘기세요.", "pass C.copy().")
    for other in ("A", "B"):
        a, c = metas[other][2], metas["C"][2]
        if a and c and metas[other][1] == metas["C"][1] and a[0] < c[1] and c[0] < a[1]:
            raise CourseInputError(
                f"C 가 {other} 와 같은 메모리를 공유합니다. 커널이 C 에 쓰는 동안 {other} 를 읽으므로 결과가 틀립니다.",
                f"C shares memory with {other}; the kernel would read {other} while writing C.",
                "C 를 별도 배열로 만드세요 (예: C = np.zeros_like(C)).",
                "use a separate output array.")
    alpha32, beta32 = _check_scalar("alpha", alpha), _check_scalar("beta", beta)
    on_device = any(m[1] for m in metas.values())
    return M, N, K, alpha32, beta32, on_device          # the simulator's work bound: run_kernel (it knows the grid)


def check_sim_work(work, M, N, K, what=None):
    """CourseInputError if simulating `work` multiply-adds (C elements the grid computes x K) is too slow."""
    limit = sim_max_mnk()
    if work <= limit:
        return
    secs = work / SIM_FMA_PER_S
    what = what or f"M·N·K = {M}·{N}·{K}"
    raise CourseInputError(
        f"시뮬레이터에서 {what} = {work:,} 번의 곱셈-덧셈은 너무 많습니다 (한도 {limit:,}; 이 CPU에서 약 "
        f"{_duration(secs)} 걸릴 것으로 추정). CPU가 스레드 하나하나를 흉내 냅니다.",
        f"{what} = {work:,} multiply-adds is too much for the simulator (limit {limit:,}; an estimated "
        f"{_duration(secs, 'en')} on this CPU).",
        f"한 변 128 이하의 작은 행렬을 쓰거나 GPU에서 실행하세요 (정말 필요하면 {SIM_MAX_MNK_ENV} 로 한도를 올림).",
        f"use matrices of side <= 128, run on a GPU, or raise {SIM_MAX_MNK_ENV}.")


SIM_FMA_PER_S = 300_000          # simulated multiply-adds per second, measured for tiled/regblock (benchmarks/bench_sim.py)


def _duration(secs, lang="ko"):
    if secs < 120:
        return f"{secs:.0f}초" if lang == "ko" else f"{secs:.0f} s"
    if secs < 7200:
        return f"{secs / 60:.0f}분" if lang == "ko" else f"{secs / 60:.0f} min"
    return f"{secs / 3600:.1f}시간" if lang == "ko" else f"{secs / 3600:.1f} h"


def ceil_div(a, b):
    return (a + b - 1) // b


def run_kernel(kernel, grid, block, A, B, C, alpha, beta, tile=None, away=None):
    """Launch kernel[grid, block](A, B, C, alpha, beta) on checked inputs; host arrays go to the GPU and C comes back.

    tile=(BM, BN): the C tile one block computes, for the simulator's work estimate (default: one C element per
    thread). away: True when this device lacks an instruction the kernel needs (cp.async on CC 7.5), so the launch
    runs on the simulator in a subprocess; make_launch decides it once, when the kernel is built (None: looked up
    once per kernel and remembered, for callers that did not say)."""
    if device.MODE == "offline":
        raise CourseInputError(
            f"{device.ENV}=offline 은 컴파일 전용 모드라 커널을 실행할 수 없습니다.",
            f"{device.ENV}=offline only compiles (kernels_numba.tools.offline); it cannot launch kernels.",
            f"실행하려면 {device.ENV}=sim (GPU 없이) 또는 {device.ENV}=gpu 로 바꾸고 커널을 재시작하세요.",
            f"set {device.ENV}=sim (no GPU) or {device.ENV}=gpu and restart to run kernels.")
    if away is None:
        away = _away(kernel)
    if away:                            # an instruction this GPU lacks (cp.async on CC 7.5): simulator, subprocess
        return placement.run_away(kernel, grid, block, A, B, C, alpha, beta, tile)
    if device.SIMULATOR:                # the simulator takes numpy arrays and its own device arrays as they are
        M, K = A.shape
        N = B.shape[1]
        blocks = int(np.prod(grid))
        per_block = tile[0] * tile[1] if tile else int(np.prod(block))
        covered = max(blocks * per_block, M * N)
        check_sim_work(covered * K, M, N, K, f"(격자가 계산하는 C 원소 {covered:,}) × K {K}")
        # read-only inputs (np.broadcast_to, arrays with writeable=False): the GPU only reads A and B, but the
        # simulator copies every argument back after the launch; give it a copy, as cuda.to_device would
        A, B = (np.array(X) if isinstance(X, np.ndarray) and not X.flags.writeable else X for X in (A, B))
        kernel[grid, block](A, B, C, alpha, beta)
        return C
    if not (isinstance(A, np.ndarray) or isinstance(B, np.ndarray) or isinstance(C, np.ndarray)):
        kernel[grid, block](A, B, C, alpha, beta)       # all on the device already: nothing to copy
        return C
    dA, dB = (cuda.to_device(X) if isinstance(X, np.ndarray) else X for X in (A, B))
    dC = cuda.to_device(C) if isinstance(C, np.ndarray) else C
    kernel[grid, block](dA, dB, dC, alpha, beta)
    if isinstance(C, np.ndarray):
        dC.copy_to_host(C)
    return C


_AWAY = {}          # id(kernel) -> (kernel, away): run_kernel callers that did not say where the kernel runs


def _away(kernel):
    """True when this device lacks an instruction `kernel` needs: its module's MIN_CC, looked up once per kernel
    (the lookup scans the loaded modules; a launch must not pay for it every time)."""
    hit = _AWAY.get(id(kernel))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    if device.compute_capability() is None:         # a plain simulator or a GPU of unknown CC: every kernel runs here
        away = False
    else:
        away = placement.needed(kernel)
    _AWAY[id(kernel)] = (kernel, away)              # holds the kernel, so its id is not reused while cached
    return away


class _Repeat:
    """The last all-device-array call of one launch, so that calling it again with the same arrays and scalars skips
    the checks and Numba's launch configuration: a benchmark or a training loop calls the same arrays thousands of
    times, and every microsecond of Python there is a microsecond the GPU may wait. Only Numba device arrays qualify
    (their shape, dtype and address never change); the arrays are held weakly, so nothing is kept alive."""

    def __init__(self):
        self.last = None

    def get(self, A, B, C, alpha, beta):
        m = self.last
        if (m is not None and type(alpha) is type(m[3]) and type(beta) is type(m[4]) and m[3] == alpha
                and m[4] == beta and m[0]() is A and m[1]() is B and m[2]() is C):
            return m[5]                 # (configured kernel, alpha32, beta32): the caller passes A, B, C again
        return None

    def put(self, A, B, C, alpha, beta, configured, a32, b32):
        if all(_DEVICE_META.get(id(X), (lambda: None,))[0]() is X for X in (A, B, C)):
            self.last = (weakref.ref(A), weakref.ref(B), weakref.ref(C), alpha, beta, (configured, a32, b32))
        else:
            self.last = None


def make_launch(kernel, block, tile, dtype=np.float32, min_cc=None, arch_specific=False):
    """Build launch(A, B, C, alpha=1.0, beta=0.0) -> C for a kernel whose blocks cover tile=(BM, BN) of C.

    min_cc: the oldest compute capability whose instructions the kernel uses (its module's MIN_CC; arch_specific: that
    one only). Where the kernel runs (here, or on the simulator in a subprocess through placement.run_away) is decided
    now, once, not on every launch."""
    BM, BN = tile
    away = device.lacks(min_cc, arch_specific)
    ready = [device.MODE != "gpu"]
    repeat = _Repeat()

    def launch(A, B, C, alpha=1.0, beta=0.0):
        again = repeat.get(A, B, C, alpha, beta)
        if again is not None:               # the same device arrays and scalars as the last call: checked then
            again[0](A, B, C, again[1], again[2])
            return C
        first = not ready[0]
        if first:                           # first launch: another process may be compiling it (jitcache.warm)
            jitcache.wait_ready(kernel)
            ready[0] = True
            t0 = time.time()
        M, N, K, a32, b32, on_device = check_inputs(A, B, C, alpha, beta, dtype)
        grid = (ceil_div(N, BN), ceil_div(M, BM))
        out = run_kernel(kernel, grid, block, A, B, C, a32, b32, tile=tile, away=away)
        if first:                           # the load (or compile) of the first launch, in the compile log if kept
            jitcache.log("first-launch", str(jitcache.key_of(kernel) or getattr(kernel, "__name__", "?")).replace(" ", ""),
                         t0)
        if on_device and not away and device.MODE == "gpu":
            repeat.put(A, B, C, alpha, beta, kernel[grid, block], a32, b32)
        return out

    def bind(A, B, C, alpha=1.0, beta=0.0, stream=0):
        M, N, K, a32, b32, _ = check_inputs(A, B, C, alpha, beta, dtype)
        return bound(kernel, (ceil_div(N, BN), ceil_div(M, BM)), block, A, B, C, a32, b32, stream, away)

    launch.kernel, launch.block, launch.tile, launch.away, launch.bind = kernel, block, tile, away, bind
    return launch


def bound(kernel, grid, block, A, B, C, alpha, beta, stream=0, away=False):
    """fn() that only dispatches kernel[grid, block, stream](A, B, C, alpha, beta): the checks ran once, before.

    For timing (course.bench) and CUDA graphs: A, B and C must be device arrays already, and the kernel must run on
    this device (a launch that goes to the simulator subprocess has no raw dispatch)."""
    if away or device.SIMULATOR or any(isinstance(X, np.ndarray) for X in (A, B, C)):
        raise CourseInputError(
            "bind() 는 이 GPU 에서 실행되는 커널과 GPU 배열(cuda.to_device)에만 쓸 수 있습니다.",
            "bind() needs a kernel that runs on this GPU and device arrays (cuda.to_device).",
            "보통의 launch(A, B, C) 를 쓰세요.", "use launch(A, B, C) instead.")
    configured = kernel[grid, block, stream]
    return lambda: configured(A, B, C, alpha, beta)
