"""Notebook 10 on a simulator that behaves as a CC 7.5 GPU (a T4; SGEMM_SIM_CC=7.5, issue 17): every cell runs, the
Turing kernels (m16n8k8) run here, and the cells whose kernels need sm_80 (cp.async, mma.m16n8k16) run them in a
simulator subprocess and say so. One nbval run in a subprocess (its own kernel, the device chosen before numba is
imported). Notebook 09 goes through the same subprocess path for its cp.async kernels; it runs as a T4 in
`make test-t4` (both notebooks), kept out of `make test` for CI time (about 50 s)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.sim_only("a stand-in for a CC 7.5 GPU is a simulator setting; on a real GPU its own CC decides")
@pytest.mark.parametrize("notebook", ["10_tensor_core_mma.ipynb"])
def test_notebook_runs_on_a_simulated_cc75_gpu(notebook, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NUMBA_ENABLE_CUDASIM"))}
    env.update(SGEMM_DEVICE="sim", SGEMM_SIM_CC="7.5", SGEMM_PROGRESS=str(tmp_path / "progress"))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "--nbval-lax", "--nbval-current-env", f"notebooks/{notebook}"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout.splitlines()[-1]
