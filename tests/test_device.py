"""Device choice: auto picks the simulator without a GPU and the GPU with one; SGEMM_DEVICE and
NUMBA_ENABLE_CUDASIM force a mode or fail with the clear bilingual error; the banner states the hardware rule."""
import os
import subprocess
import sys

import pytest

from kernels_numba.infra import device

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAS_GPU = device.probe_gpu() is not None


def _run(value, **extra):
    """A fresh interpreter importing kernels_numba with SGEMM_DEVICE=value; PYTHONPATH keeps what it had
    (on the GPU machine a numpy<2.5 site comes first) with this checkout in front."""
    env = dict(os.environ, SGEMM_DEVICE=value,
               PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env.update(extra)
    code = "import kernels_numba as kn, numba.cuda.core.config as c; print(kn.device.MODE, c.ENABLE_CUDASIM)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def _clear_error(out, *needles):
    assert out.returncode != 0
    err = out.stderr
    assert "CourseInputError" not in err or "DeviceChoiceError" in err
    assert "[입력 오류]" in err and "[Input error]" in err and "해결" in err and "Fix" in err, err
    for n in needles:
        assert n in err, err


def test_forced_sim():
    out = _run("sim")
    assert out.returncode == 0 and out.stdout.split() == ["sim", "1"], out.stderr[-2000:]


def test_numba_switch_alone_gives_sim():
    out = _run("auto", NUMBA_ENABLE_CUDASIM="1")
    assert out.returncode == 0 and out.stdout.split() == ["sim", "1"], out.stderr[-2000:]


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU (test_auto_with_gpu_is_gpu covers it)")
def test_forced_gpu_without_gpu_fails_clearly():
    _clear_error(_run("gpu"), "SGEMM_DEVICE=gpu", "쓸 수 있는 CUDA GPU", "SGEMM_DEVICE=sim")


def test_bad_value_fails_clearly():
    _clear_error(_run("tpu"), "SGEMM_DEVICE='tpu'", "'auto', 'gpu', 'sim'", "'auto', 'gpu' or 'sim'")


@pytest.mark.parametrize("value", ["yes", "true", "1.0"])
def test_bad_numba_switch_fails_clearly(value):
    """numba would warn and fall back to GPU mode on these; the course refuses them instead."""
    _clear_error(_run("auto", NUMBA_ENABLE_CUDASIM=value), f"NUMBA_ENABLE_CUDASIM={value!r}", "정수", "integer")


def test_device_error_is_a_course_input_error():
    from kernels_numba import CourseInputError
    assert issubclass(device.DeviceChoiceError, CourseInputError)


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU (test_auto_with_gpu_is_gpu covers it)")
def test_auto_without_gpu_is_simulator():
    out = _run("auto")
    assert out.stdout.split() == ["sim", "1"]
    assert device.info()["mode"] == "sim"


@pytest.mark.gpu_only("auto picks the GPU only where there is one")
def test_auto_with_gpu_is_gpu():
    out = _run("auto")
    assert out.returncode == 0 and out.stdout.split() == ["gpu", "0"], out.stderr[-2000:]
    name, cc = device.probe_gpu()
    assert tuple(cc) >= device.MIN_CC and device.info()["cc"] == tuple(cc)


def _numba_first(value, **extra):
    """_run, but the fresh interpreter imports numba.cuda before the course (as a student's own cell might)."""
    code = ("from numba import cuda\nimport kernels_numba as kn, numba.cuda.core.config as c\n"
            "print(kn.device.MODE, c.ENABLE_CUDASIM, kn.device.info().get('cc'))")
    env = dict(os.environ, SGEMM_DEVICE=value,
               PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env.update(extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_numba_first_without_a_gpu_refuses_with_the_way_out():
    # review r22 W-1: numba.cuda imported first (no NUMBA_ENABLE_CUDASIM) is numba's GPU mode for good; without a
    # usable GPU the course used to report "gpu" and every launch failed at driver init. CUDA_VISIBLE_DEVICES=""
    # hides any GPU, so this runs the same on the GPU machine.
    _clear_error(_numba_first("auto", CUDA_VISIBLE_DEVICES=""), "numba.cuda 가 이 강좌의 패키지", "쓸 수 있는 CUDA GPU",
                 "첫 셀", "restart the kernel")


def test_numba_first_in_simulator_mode_is_the_simulator():
    out = _numba_first("auto", NUMBA_ENABLE_CUDASIM="1")
    assert out.returncode == 0 and out.stdout.split() == ["sim", "1", "None"], out.stderr[-2000:]


def test_numba_first_against_the_requested_mode_is_refused():
    _clear_error(_numba_first("gpu", NUMBA_ENABLE_CUDASIM="1"), "SGEMM_DEVICE=gpu", "시뮬레이터 모드로 시작", "첫 셀")
    _clear_error(_numba_first("sim"), "SGEMM_DEVICE=sim", "GPU 모드로 시작", "첫 셀")


@pytest.mark.skipif(not HAS_GPU, reason="numba's GPU mode is kept only where a GPU answers (the test above: none)")
def test_numba_first_with_a_gpu_keeps_the_gpu_and_knows_it():
    # SGEMM_DEVICE=gpu/auto on a real GPU is unaffected, and the GPU is probed (the banner and min_cc need its CC)
    name, cc = device.probe_gpu()
    for value in ("auto", "gpu"):
        out = _numba_first(value)
        assert out.returncode == 0 and out.stdout.split() == ["gpu", "0", f"({cc[0]},", f"{cc[1]})"], \
            out.stderr[-2000:]


def test_hardware_rule_is_stated_once_and_the_same_everywhere():
    """GUIDE's rule: GPU mode for CC >= 7.5; levels 1-4 there; cp.async/mma need CC >= 8.0 (registry min_cc);
    offline checks for sm_80 and sm_90. The banner and the README's "장치 선택" say it with the same numbers."""
    from kernels_numba import REGISTRY
    from kernels_numba.tools import offline
    assert device.MIN_CC == (7, 5) and device.ASYNC_MIN_CC == (8, 0)
    assert tuple(offline.ARCHS) == ((8, 0), (9, 0))
    for spec in REGISTRY:          # levels 1-4 run on any GPU the course accepts; higher levels need sm_80
        if spec.name.endswith("_turing"):            # mma.m16n8k8 + ldmatrix, no cp.async: sm_75
            assert tuple(spec.min_cc) == device.MIN_CC, spec.name
            continue
        assert (spec.min_cc is None) if spec.level <= 4 else (tuple(spec.min_cc) >= device.ASYNC_MIN_CC), spec.name
    rule = device.rule_text()
    for needle in ("CC) ≥ 7.5", "레벨 1–4", "cp.async", "mma.m16n8k16", "CC ≥ 8.0", "sm_80", "KernelSpec.min_cc",
                   "f16 입력의 mma.m16n8k8 은 sm_75", "bf16·tf32 입력의 mma.m16n8k8 은 sm_80"):   # ptxas: '.bf16'/'.tf32'
        assert needle in rule, needle                                                          # need sm_80
    assert rule in device.banner_text()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = readme.split("## 장치 선택", 1)[1].split("\n## ", 1)[0]
    for needle in ("7.5", "레벨 1–4", "cp.async", "mma.m16n8k16", "8.0", "sm_80", "sm_90", "min_cc", "runs_here()",
                   "SGEMM_DEVICE", "SGEMM_SIM_MAX_MNK"):
        assert needle in section, needle
