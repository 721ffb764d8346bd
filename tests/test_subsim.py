"""A device without an instruction a kernel needs (cp.async, mma.m16n8k16 on a CC 7.5 GPU) runs that kernel on the
simulator in a subprocess, saying so; SGEMM_SIM_CC=7.5 makes the simulator behave as such a GPU (no T4 needed)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = r"""
import numpy as np
import kernels_numba as kn
from kernels_numba.infra import device
print("CC", device.compute_capability(), kn.get("tiled").runs_here(), kn.get("async_vec").runs_here(),
      kn.get("mma_large").runs_here())
rng = np.random.default_rng(0)
for name, (M, N, K) in (("async_vec", (40, 36, 24)), ("mma_large", (32, 16, 32)), ("tiled", (5, 7, 9))):
    spec = kn.get(name)
    A = rng.standard_normal((M, K)).astype(spec.dtype)
    B = rng.standard_normal((K, N)).astype(spec.dtype)
    C = np.full((M, N), np.nan, np.float32)
    out = spec.launch(A, B, C)
    err = np.abs(C - A.astype(np.float64) @ B.astype(np.float64)).max()
    print("OK" if out is C and err < 1e-4 else "BAD", name, err)
try:
    kn.get("async_vec").launch(*(np.ones(s, np.float32) for s in ((2048, 2048), (2048, 2048), (2048, 2048))))
except kn.CourseInputError as e:
    print("REFUSED", str(e).splitlines()[0][:60])
"""


def _run(env_extra, script=SCRIPT):
    env = dict(os.environ, SGEMM_DEVICE="sim", **env_extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)


def test_simulated_cc75_sends_sm80_kernels_to_a_simulator_process():
    r = _run({"SGEMM_SIM_CC": "7.5"})
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "CC (7, 5) True False False" in out
    assert out.count("OK ") == 3, out
    assert out.count("별도 프로세스의 시뮬레이터") == 2          # said once per kernel, in Korean
    assert "REFUSED" in out                                 # the simulator's work bound comes back as a clear error


def test_bad_sim_cc_is_a_clear_error():
    r = _run({"SGEMM_SIM_CC": "turing"}, "import kernels_numba")
    assert r.returncode != 0 and "SGEMM_SIM_CC" in r.stderr and "7.5" in r.stderr


def test_plain_simulator_runs_everything_in_process():
    r = _run({}, "import kernels_numba as kn; print(kn.device.compute_capability(), kn.get('async_vec').runs_here())")
    assert r.stdout.split() == ["None", "True"], r.stderr[-1000:]


def test_bug_demo_collects_its_races_through_the_simulator_process():
    script = ("import numpy as np\nfrom course.racereport import run_demo\nfrom kernels_numba.demos import mma_barriers\n"
              "o = run_demo(mma_barriers.launch_no_barrier_after_wait, 32, 16, 64, dtype=np.float16)\n"
              "print('KINDS', o['report'].kinds, o['report'].hazards[0].fix_ko[:20])")
    r = _run({"SGEMM_SIM_CC": "7.5"}, script)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "KINDS ['RAW']" in r.stdout and "별도 프로세스" in r.stdout, r.stdout


def test_kernels_built_by_a_builder_are_found_through_their_kernel_module():
    # mma_warps/mma_pipe*/mma_swizzle are made by tc.build_tiled: their function's module (kernels_numba.tc) has no
    # MIN_CC and does not hold them, so the lookup must go to the kernel module that built them
    import kernels_numba as kn
    from kernels_numba.tools import subsim
    for name in ("mma_warps", "mma_pipe", "mma_swizzle", "mma_large", "mma_large_turing", "tiled"):
        k = kn.get(name).kernel
        assert subsim._where(k) == (f"kernels_numba.{name}", "kernel")
        assert subsim.min_cc(k) == kn.get(name).min_cc


LEVEL7 = r"""
import numpy as np
import kernels_numba as kn
from kernels_numba import tc
from kernels_numba.demos import tma_wrong_parity
print("RUNS", [s.runs_here() for s in kn.by_level(7)], kn.get("mma_fast").runs_here())
rng = np.random.default_rng(0)
A = rng.standard_normal((64, 40)).astype(np.float16)
B = rng.standard_normal((40, 36)).astype(np.float16)
C = np.full((64, 36), np.nan, np.float32)
kn.get("wgmma_tma").launch(A, B, C)
print("OK" if (np.abs(C - tc.reference(A, B)) <= tc.error_bound(A, B)).all() else "BAD")
A = rng.standard_normal((64, 40)).astype(np.float16)
B = rng.standard_normal((300, 40)).astype(np.float16)
tma_wrong_parity.launch(rng.standard_normal((64, 300)).astype(np.float16), B, np.zeros((64, 40), np.float32))
"""


def test_a_gpu_without_sm90a_sends_level7_and_its_bug_demos_to_a_simulator_process():
    """An A100 (CC 8.0) has mma.sync but no wgmma: the level-7 TMA kernel (launched through its TmaLauncher) and a
    Hopper bug demo run in the simulator process, with the arch-specific notice."""
    r = _run({"SGEMM_SIM_CC": "8.0"}, LEVEL7)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "RUNS [False, False, False] True" in r.stdout and "OK" in r.stdout, r.stdout
    assert r.stdout.count("sm_90a 전용 명령") == 2, r.stdout
