"""Pick GPU or Numba's CUDA simulator before numba is imported, and describe the choice."""
import ctypes
import os
import sys

ENV = "SGEMM_DEVICE"          # auto (default) | gpu | sim  (offline: compile only, used by kernels_numba.infra.offline)
MIN_CC = (7, 5)               # oldest target numba-cuda 0.30 + CUDA 13 still builds for


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


class DeviceChoiceError(RuntimeError):
    """The requested device mode cannot be honoured."""


def _choose():
    want = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if want == "offline":                 # real compiler, no device needed, nothing is launched
        os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
        return "offline", want, None, "컴파일 전용"
    if want not in ("auto", "gpu", "sim"):
        raise DeviceChoiceError(
            f"{ENV}={want!r}: 'auto', 'gpu', 'sim' 중 하나여야 합니다. 변수를 고치거나 지우세요.\n"
            f"{ENV}={want!r}: must be 'auto', 'gpu' or 'sim'. Fix or unset the variable.")
    if "numba.cuda" in sys.modules:       # too late to switch: report what numba already chose
        from numba.cuda.core import config
        return ("sim" if config.ENABLE_CUDASIM else "gpu"), want, None, "numba.cuda 가 먼저 import 됨"
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") and want != "gpu":
        return "sim", want, None, "NUMBA_ENABLE_CUDASIM=1"
    gpu = probe_gpu() if want != "sim" else None
    usable = gpu is not None and tuple(gpu[1]) >= MIN_CC
    if want == "gpu" and not usable:
        found = f"{gpu[0]} (sm_{gpu[1][0]}{gpu[1][1]})" if gpu else "없음/none"
        raise DeviceChoiceError(
            f"{ENV}=gpu 인데 쓸 수 있는 CUDA GPU(compute capability >= {MIN_CC[0]}.{MIN_CC[1]})가 없습니다 "
            f"(찾은 장치: {found}). {ENV}=sim 또는 auto 로 바꾸세요.\n"
            f"{ENV}=gpu but no usable CUDA GPU (compute capability >= {MIN_CC[0]}.{MIN_CC[1]}) was found "
            f"(found: {found}). Use {ENV}=sim or auto.")
    if usable:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
        return "gpu", want, gpu, "GPU 감지"
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    reason = "강제 지정" if want == "sim" else ("GPU가 너무 오래됨" if gpu else "GPU 없음")
    return "sim", want, gpu, reason


MODE, REQUESTED, GPU, REASON = _choose()
SIMULATOR = MODE == "sim"


def info():
    """A dict describing the active mode (for banners, benchmarks and tests)."""
    d = {"mode": MODE, "requested": REQUESTED, "reason": REASON}
    if GPU:
        d["gpu"], d["cc"] = GPU[0], tuple(GPU[1])
    return d


def banner_text():
    """Korean one-paragraph description of the active mode."""
    if SIMULATOR:
        return ("🧪 시뮬레이터 모드 (Numba CUDA simulator) — " + REASON + ". "
                "커널은 CPU에서 CUDA 스레드 하나하나를 흉내 내며 실행됩니다. 계산 결과(정답/오답)는 GPU와 같지만 "
                "수천 배 느리므로 작은 행렬(한 변 128 이하)만 쓰고, 실행 시간은 재지 않습니다. "
                "성능 수치는 실제 GPU에서 기록한 값(recorded)으로 보여 줍니다. "
                f"GPU가 있는데 강제로 시뮬레이터를 쓰려면 {ENV}=sim, GPU를 강제하려면 {ENV}=gpu.")
    name, cc = GPU[0], GPU[1]
    return (f"⚡ GPU 모드 — {name} (sm_{cc[0]}{cc[1]}). 커널은 실제 GPU에서 컴파일·실행되며, "
            f"시간 측정과 cuBLAS 비교가 가능합니다. 시뮬레이터로 바꾸려면 {ENV}=sim 을 설정하고 커널을 재시작하세요.")


def banner():
    """Show the mode banner (HTML in Jupyter, text elsewhere)."""
    text = banner_text()
    try:
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
