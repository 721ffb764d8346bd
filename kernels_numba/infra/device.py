"""Pick GPU or Numba's CUDA simulator before numba is imported, and describe the choice.

The hardware rule, stated the same in the banner and the README ("장치 선택"):
GPU mode is chosen for an NVIDIA GPU of compute capability >= 7.5, otherwise the simulator. Levels 1-4 run on
any such GPU. Kernels using cp.async (level 5, notebook 09) or mma.m16n8k16 (notebook 10) need CC >= 8.0 (sm_80,
Ampere): their modules set MIN_CC = (8, 0), the registry carries it (KernelSpec.min_cc, runs_here()), and on a
7.x GPU their launches run on the simulator in a subprocess (kernels_numba.tools.subsim), saying so. SGEMM_SIM_CC=7.5
makes the simulator behave as such a GPU (the same path, testable without one). Offline compiles and SASS checks target sm_80 and sm_90
(kernels_numba.tools.offline.ARCHS).
"""
import ctypes
import os
import sys

from .errors import CourseInputError, positive_int_env

ENV = "SGEMM_DEVICE"          # auto (default) | gpu | sim  (offline: compile only, used by kernels_numba.tools.offline)
SIM_ENV = "NUMBA_ENABLE_CUDASIM"   # numba's own switch; read here so that our choice and numba's agree
MIN_CC = (7, 5)               # GPU mode: oldest target numba-cuda 0.30 + CUDA 13 still builds for (levels 1-4)
ASYNC_MIN_CC = (8, 0)         # cp.async, ldmatrix, mma.m16n8k16 (notebooks 09, 10): MIN_CC of those kernel modules
SIM_CC_ENV = "SGEMM_SIM_CC"   # simulator mode only: behave as a GPU of this compute capability (e.g. 7.5, a T4)


def probe_gpu():
    """Return (name, (major, minor)) of CUDA device 0 via the driver API, or None."""
    for lib in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            cu = ctypes.CDLL(lib)
            break
        except OSError:
            continue
    else:
        return None
    try:
        if cu.cuInit(0) != 0:
            return None
        count = ctypes.c_int(0)
        if cu.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
            return None
        dev = ctypes.c_int(0)
        if cu.cuDeviceGet(ctypes.byref(dev), 0) != 0:
            return None
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)   # COMPUTE_CAPABILITY_MAJOR
        cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)   # COMPUTE_CAPABILITY_MINOR
        name = ctypes.create_string_buffer(256)
        cu.cuDeviceGetName(name, 256, dev)
        return name.value.decode(errors="replace"), (major.value, minor.value)
    except Exception:           # a broken driver counts as no GPU
        return None


class DeviceChoiceError(CourseInputError):
    """The requested device mode cannot be honoured (a bad SGEMM_DEVICE / NUMBA_ENABLE_CUDASIM, or no usable GPU)."""


def _requested():
    """SGEMM_DEVICE as one of auto/gpu/sim/offline, or a clear error naming the variable."""
    raw = os.environ.get(ENV, "auto")
    want = raw.strip().lower() or "auto"
    if want not in ("auto", "gpu", "sim", "offline"):
        raise DeviceChoiceError(
            f"환경 변수 {ENV}={raw!r} 는 알 수 없는 값입니다: 'auto', 'gpu', 'sim' 중 하나여야 합니다.",
            f"environment variable {ENV}={raw!r} is not a device mode: must be 'auto', 'gpu' or 'sim'.",
            f"{ENV}=auto (GPU가 있으면 GPU, 없으면 시뮬레이터) 처럼 고치거나 변수를 지우고 커널을 재시작하세요.",
            f"set {ENV}=auto (GPU if there is one, else the simulator), gpu or sim, or unset it, "
            "then restart the kernel.")
    return want


def _numba_sim_requested():
    """True/False from NUMBA_ENABLE_CUDASIM (unset: False). Numba parses it with int() and silently falls back to
    GPU mode on anything else, which would disagree with our choice: refuse such a value instead."""
    raw = os.environ.get(SIM_ENV)
    if raw is None or raw.strip() in ("", "0"):
        return False
    try:
        return int(raw) != 0
    except ValueError:
        raise DeviceChoiceError(
            f"환경 변수 {SIM_ENV}={raw!r} 는 정수가 아닙니다 (numba 는 이 값을 무시하고 GPU 모드로 가려 합니다).",
            f"environment variable {SIM_ENV}={raw!r} is not an integer (numba would ignore it and try GPU mode).",
            f"{SIM_ENV}=1 (시뮬레이터) 또는 0 으로 고치거나 지우세요; 장치는 {ENV}=sim|gpu|auto 로 고르는 것이 좋습니다.",
            f"set {SIM_ENV}=1 (simulator) or 0, or unset it; prefer {ENV}=sim|gpu|auto to choose the device.") \
            from None


def _numba_already_chose(want):
    """numba.cuda was imported before us: it read NUMBA_ENABLE_CUDASIM then and cannot switch any more (numba registers
    its CUDA target once; a second import of numba.cuda fails). Keep its choice when it works here (the simulator, or a
    usable GPU), else refuse with the way out: restart and let the course import numba (the notebook's first cell)."""
    # local: numba only after this module has chosen the device (it runs before numba is imported)
    from numba.cuda.core import config
    late = "numba.cuda 가 먼저 import 됨"
    if config.ENABLE_CUDASIM:
        if want == "gpu":
            raise _late_error(f"{ENV}=gpu 인데 numba 는 시뮬레이터 모드로 시작했습니다 ({SIM_ENV}=1).",
                              f"{ENV}=gpu but numba started in simulator mode ({SIM_ENV}=1).")
        return "sim", want, None, late
    gpu = probe_gpu()
    if gpu is not None and tuple(gpu[1]) >= MIN_CC and want != "sim":
        return "gpu", want, gpu, late
    if want == "sim":
        raise _late_error(f"{ENV}=sim 인데 numba 는 GPU 모드로 시작했습니다.",
                          f"{ENV}=sim but numba started in GPU mode.")
    found = f"{gpu[0]} (sm_{gpu[1][0]}{gpu[1][1]})" if gpu else ""
    raise _late_error(
        f"numba 는 GPU 모드로 시작했지만 쓸 수 있는 CUDA GPU(compute capability >= {MIN_CC[0]}.{MIN_CC[1]})가 없습니다 "
        f"(찾은 장치: {found or '없음'}). 이대로는 어떤 커널도 실행되지 않습니다.",
        f"numba started in GPU mode but there is no usable CUDA GPU (compute capability >= {MIN_CC[0]}.{MIN_CC[1]}; "
        f"found: {found or 'none'}): no kernel can run like this.")


def _late_error(ko, en):
    """The error for a device choice numba made before us that cannot be honoured: what happened, and the way out."""
    return DeviceChoiceError(
        f"numba.cuda 가 이 강좌의 패키지(course, kernels_numba)보다 먼저 import 되었습니다: {ko} 장치(GPU 또는 "
        "시뮬레이터)는 numba.cuda 를 import 하기 전에만 고를 수 있습니다.",
        f"numba.cuda was imported before the course packages (course, kernels_numba): {en} The device (GPU or "
        "simulator) can only be chosen before numba.cuda is imported.",
        "커널을 재시작(Kernel → Restart Kernel)하고 노트북의 첫 셀(import course … course.setup(…))부터 실행하세요. "
        "직접 쓰는 셀에서는 `from numba import cuda` 보다 `import course` 를 먼저 두세요.",
        "restart the kernel and run the notebook's first cell (import course … course.setup(…)) first; in a cell of "
        "your own, put `import course` before `from numba import cuda`.")


def _choose():
    want = _requested()
    if want == "offline":                 # real compiler, no device needed, nothing is launched
        os.environ[SIM_ENV] = "0"
        return "offline", want, None, "컴파일 전용"
    if "numba.cuda" in sys.modules:       # too late to switch: take what numba chose, if it can work here
        return _numba_already_chose(want)
    if _numba_sim_requested() and want != "gpu":
        os.environ[SIM_ENV] = "1"
        return "sim", want, None, f"{SIM_ENV}=1"
    gpu = probe_gpu() if want != "sim" else None
    usable = gpu is not None and tuple(gpu[1]) >= MIN_CC
    if want == "gpu" and not usable:
        found = f"{gpu[0]} (sm_{gpu[1][0]}{gpu[1][1]})" if gpu else "없음/none"
        raise DeviceChoiceError(
            f"{ENV}=gpu 인데 쓸 수 있는 CUDA GPU(compute capability >= {MIN_CC[0]}.{MIN_CC[1]})가 없습니다 "
            f"(찾은 장치: {found}).",
            f"{ENV}=gpu but no usable CUDA GPU (compute capability >= {MIN_CC[0]}.{MIN_CC[1]}) was found "
            f"(found: {found}).",
            f"{ENV}=sim 또는 auto 로 바꾸고 커널을 재시작하세요 (시뮬레이터는 GPU 없이 같은 커널을 실행합니다).",
            f"use {ENV}=sim or auto and restart the kernel (the simulator runs the same kernels without a GPU).")
    if usable:
        os.environ[SIM_ENV] = "0"
        return "gpu", want, gpu, "GPU 감지"
    os.environ[SIM_ENV] = "1"
    reason = "강제 지정" if want == "sim" else ("GPU가 너무 오래됨" if gpu else "GPU 없음")
    return "sim", want, gpu, reason


MODE, REQUESTED, GPU, REASON = _choose()
SIMULATOR = MODE == "sim"


def _sim_cc():
    """SGEMM_SIM_CC as (major, minor), or None; only the simulator can pretend to be an older GPU."""
    raw = os.environ.get(SIM_CC_ENV, "").strip()
    if not raw or not SIMULATOR:
        return None
    try:
        major, minor = (int(x) for x in raw.split("."))
    except ValueError:
        raise DeviceChoiceError(
            f"환경 변수 {SIM_CC_ENV}={raw!r} 는 compute capability 가 아닙니다: '7.5' 처럼 주 번호.부 번호로 쓰세요.",
            f"environment variable {SIM_CC_ENV}={raw!r} is not a compute capability: write it as major.minor, e.g. 7.5.",
            f"{SIM_CC_ENV}=7.5 처럼 고치거나 지우고 커널을 재시작하세요.",
            f"set {SIM_CC_ENV}=7.5 or unset it, then restart the kernel.") from None
    return (major, minor)


SIM_CC = _sim_cc()


def compute_capability():
    """The compute capability that decides which instructions exist: the GPU's, SGEMM_SIM_CC's, or None (plain
    simulator: every instruction exists)."""
    if not SIMULATOR and GPU:
        return tuple(GPU[1])
    return SIM_CC


def lacks(min_cc, exact=False):
    """True when this device cannot run code needing compute capability min_cc (a 7.5 GPU and cp.async, say).
    exact: the code is arch-specific (sm_90a: wgmma, level 7) and runs on that compute capability only, not on later
    ones (a CC 10.0 or 12.0 GPU has no wgmma)."""
    cc = compute_capability()
    if min_cc is None or cc is None:
        return False
    return cc < tuple(min_cc) or (exact and cc != tuple(min_cc))


def lacks_exact(min_cc):
    return lacks(min_cc, exact=True)


def set_max_dynamic_smem(kernel_obj, nbytes):
    """Allow a loaded kernel nbytes of dynamic shared memory (cuKernelSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES):
    numba-cuda has no API for it (numba-cuda issue #94), and a launch asking for more than 48 KiB fails without it."""
    # local: numba only after this module has chosen the device (it runs before numba is imported)
    from numba.cuda.cudadrv.driver import binding, driver
    func = kernel_obj._codelibrary.get_cufunc()
    attr = binding.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    driver.cuKernelSetAttribute(attr, int(nbytes), func.handle, func.device.id)


def info():
    """A dict describing the active mode (for banners, benchmarks and tests)."""
    d = {"mode": MODE, "requested": REQUESTED, "reason": REASON}
    if GPU:
        d["gpu"], d["cc"] = GPU[0], tuple(GPU[1])
    return d


def _cc(cc):
    return f"{cc[0]}.{cc[1]}"


def rule_text():
    """The hardware rule in one Korean sentence (the same words as the README's "장치 선택")."""
    return (f"GPU 모드는 compute capability(CC) ≥ {_cc(MIN_CC)} 인 NVIDIA GPU에서 선택되고, 아니면 시뮬레이터입니다. "
            f"레벨 1–4 커널은 그런 GPU 어디서나 실행되고, cp.async(레벨 5, 노트북 09)나 mma.m16n8k16(노트북 10)을 "
            f"쓰는 커널은 CC ≥ {_cc(ASYNC_MIN_CC)} (sm_{ASYNC_MIN_CC[0]}{ASYNC_MIN_CC[1]}, Ampere) 이 "
            "필요합니다 (레지스트리의 KernelSpec.min_cc / runs_here(); ldmatrix 와 f16 입력의 mma.m16n8k8 은 sm_75 에도 있음, bf16·tf32 입력의 mma.m16n8k8 은 sm_80). "
            "wgmma·TMA 를 쓰는 레벨 7 커널(노트북 11)은 sm_90a 전용이라 CC 9.0 (H100·H200) GPU 에서만 GPU 로 돕니다.")


SIM_MAX_MNK_ENV = "SGEMM_SIM_MAX_MNK"
SIM_MAX_MNK_DEFAULT = 256 ** 3          # ~1 min for the slowest level-2 kernel in the simulator


def sim_max_mnk():
    """The simulator's M*N*K limit: $SGEMM_SIM_MAX_MNK (a positive integer) or the default; clear error otherwise."""
    return positive_int_env(SIM_MAX_MNK_ENV, SIM_MAX_MNK_DEFAULT, "시뮬레이터가 허용하는 M·N·K 의 최댓값",
                            "the largest M*N*K the simulator accepts")


def _sim_limit():
    """The simulator's M·N·K limit as the banner writes it (256³ rather than 16,777,216 when it is a cube)."""
    n = sim_max_mnk()
    side = round(n ** (1 / 3))
    return f"{side}³" if side ** 3 == n else f"{n:,}"


def banner_text():
    """Korean one-paragraph description of the active mode, with the hardware rule."""
    if SIMULATOR and SIM_CC:
        return (f"🧪 시뮬레이터 모드, CC {_cc(SIM_CC)} GPU 흉내 ({SIM_CC_ENV}) — 레벨 1–4 처럼 이 CC 에 있는 명령만 쓰는 커널은 "
                "여기서 실행하고, 더 새로운 명령(cp.async, mma.m16n8k16: CC 8.0)이 필요한 커널은 CC 7.5 GPU 에서처럼 "
                "별도 프로세스의 시뮬레이터로 보냅니다. " + rule_text())
    if SIMULATOR:
        return ("🧪 시뮬레이터 모드 (Numba CUDA simulator) — " + REASON + ". "
                "커널은 CPU에서 CUDA 스레드 하나하나를 흉내 내며 실행됩니다. 올바른 커널은 GPU와 같은 답(허용 오차 "
                "안)을 냅니다. 스레드는 다음 배리어까지 혼자 달리고(공유 메모리는 NaN 으로 시작), cp.async 복사는 그것을 "
                "보장하는 wait 에서야 도착하며, 경쟁 검출기는 실행 순서와 상관없이 한 배리어 구간에서 두 스레드가 같은 "
                "원소에 접근하고 하나가 쓰기이면 멈춰 세웁니다. 그래서 배리어나 대기가 빠진 커널은 매번 틀리거나 멈춥니다 "
                "— 예외 하나: 검출기는 ldmatrix 가 읽는 행을 그 행의 주소를 준 레인만 읽는 것으로 세므로, 그 레인이 직접 "
                "쓴 행을 배리어 없이 ldmatrix 로 넘기면 답도 맞고 보고도 없습니다 (노트북 10 4.4절; PTX 가 보장하지 않는 순서이고, GPU 의 racecheck 도 이 모양은 보고하지 않았습니다). 검출기가 "
                "검사하지 않는 메모리(포인터 산술로 닿는 주소 등)는 README 의 '시뮬레이터가 보장하는 것과 못 보는 것'에 "
                "있습니다. "
                f"GPU에서는 빠진 배리어가 타이밍에 따라 가끔만 틀릴 수 있습니다. GPU보다 훨씬 느리므로 작은 행렬(M·N·K ≤ {_sim_limit()})만 쓰고, "
                "실행 시간은 재지 않습니다. "
                "성능 수치는 실제 GPU에서 기록한 값(recorded)으로 보여 줍니다. 시뮬레이터에서는 모든 커널이 실행됩니다. "
                + rule_text() +
                f" GPU가 있는데 강제로 시뮬레이터를 쓰려면 {ENV}=sim, GPU를 강제하려면 {ENV}=gpu.")
    name, cc = GPU[0], tuple(GPU[1])
    if cc == (9, 0):
        here = f"이 GPU(CC {_cc(cc)})에서는 모든 레벨의 커널이 실행됩니다 (레벨 7 의 wgmma·TMA 포함)."
    elif cc >= ASYNC_MIN_CC:
        here = (f"이 GPU(CC {_cc(cc)})에서는 레벨 1–6 커널이 실행되고, sm_90a 전용인 레벨 7 커널(노트북 11)은 별도 "
                "프로세스의 시뮬레이터에서 작은 크기로 실행됩니다.")
    else:
        here = (f"이 GPU(CC {_cc(cc)})에서는 레벨 1–4 와 m16n8k8 Tensor Core 커널이 GPU 에서 실행되고, CC ≥ "
                f"{_cc(ASYNC_MIN_CC)} 이 필요한 cp.async·mma.m16n8k16 커널(노트북 09·10)은 별도 프로세스의 "
                "시뮬레이터에서 작은 크기로 실행됩니다 (셀마다 그렇다고 알려 주고, 시간은 재지 않습니다).")
    return (f"⚡ GPU 모드 — {name} (sm_{cc[0]}{cc[1]}). 커널은 실제 GPU에서 컴파일·실행되며, "
            f"시간 측정과 cuBLAS 비교가 가능합니다. {here} " + rule_text() +
            f" 시뮬레이터로 바꾸려면 {ENV}=sim 을 설정하고 커널을 재시작하세요.")


def banner():
    """Show the mode banner (HTML in Jupyter, text elsewhere)."""
    text = banner_text()
    try:
        # local: IPython only inside a notebook; this module also runs in plain Python
        from IPython import get_ipython
        from IPython.display import HTML, display
        if get_ipython() is not None:
            color = "#fff4e0" if SIMULATOR else "#e6f6e6"
            display(HTML(f'<div style="padding:8px 12px;border-left:6px solid #888;background:{color};'
                         f'font-size:0.95em">{text}</div>'))
            return
    except ImportError:
        pass
    print(text)
