"""Device choice: auto picks the simulator without a GPU; SGEMM_DEVICE forces a mode or fails clearly."""
import os
import subprocess
import sys

import pytest

from kernels_numba.infra import device

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(value):
    env = dict(os.environ, SGEMM_DEVICE=value, PYTHONPATH=ROOT)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    code = "import kernels_numba as kn, numba.cuda.core.config as c; print(kn.device.MODE, c.ENABLE_CUDASIM)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_forced_sim():
    out = _run("sim")
    assert out.returncode == 0 and out.stdout.split() == ["sim", "1"]


@pytest.mark.skipif(device.probe_gpu() is not None, reason="this machine has a GPU")
def test_forced_gpu_without_gpu_fails_clearly():
    out = _run("gpu")
    assert out.returncode != 0
    assert "SGEMM_DEVICE=gpu" in out.stderr and "쓸 수 있는 CUDA GPU" in out.stderr and "sim" in out.stderr


def test_bad_value_fails_clearly():
    out = _run("tpu")
    assert out.returncode != 0 and "'auto', 'gpu', 'sim'" in out.stderr


@pytest.mark.skipif(device.probe_gpu() is not None, reason="this machine has a GPU")
def test_auto_without_gpu_is_simulator():
    out = _run("auto")
    assert out.stdout.split() == ["sim", "1"]
    assert device.info()["mode"] == "sim"
