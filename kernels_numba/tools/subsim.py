"""Run a kernel this GPU cannot run (cp.async or mma.m16n8k16 on CC 7.5) on the simulator, in a subprocess.

The notebook keeps its GPU process; the child process (its own entry module, kernels_numba.tools.subsim_child) starts
in simulator mode, imports the kernel's module, and runs the same `launch.run_kernel` on the same arrays (small sizes:
the simulator's work bound applies and says so). Importing this module installs run_kernel as placement's away
runner (kernels_numba/__init__.py does it), so launch.py reaches it without importing it.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..infra import device, placement
from ..infra.errors import CourseInputError
from ..infra.simulator import racecheck

_told = set()

# the lookups moved to placement (launch reads them there); these names stay for callers of subsim
where, min_cc, arch_specific, needed = placement.where, placement.min_cc, placement.arch_specific, placement.needed
_where = where


def _host(X):
    return X if isinstance(X, np.ndarray) else X.copy_to_host()


def run_kernel(kernel, grid, block, A, B, C, alpha, beta, tile=None, why_told=True, hazards_out=None):
    """launch.run_kernel of `kernel` in a simulator subprocess; C is updated in place (host or device array).
    why_told: say once per kernel that this device lacks its instructions (the reason it runs there).
    hazards_out: a list that gets the child's races (it collects them); None: they go to this process's collector
    when one is active (racecheck.collect)."""
    where = _where(kernel)
    cc, need = device.compute_capability(), min_cc(kernel)
    if where is None:
        raise CourseInputError(
            f"이 장치(CC {cc[0]}.{cc[1]})에는 이 커널에 필요한 명령(CC {need[0]}.{need[1]})이 없고, 모듈 밖에서 만든 커널이라 "
            "시뮬레이터 프로세스로 보낼 수 없습니다.",
            f"this device (CC {cc[0]}.{cc[1]}) lacks an instruction the kernel needs (CC {need[0]}.{need[1]}), and a "
            "kernel not defined at module level cannot be sent to a simulator process.",
            "SGEMM_DEVICE=sim 으로 노트북 전체를 시뮬레이터에서 실행하세요.", "run the notebook with SGEMM_DEVICE=sim.")
    if why_told and where not in _told:
        _told.add(where)
        if arch_specific(kernel):
            what_ko, arch = "sm_90a 전용 명령(wgmma 등; Hopper CC 9.0 에만 있음)", f"sm_{need[0]}{need[1]}a"
        else:
            what_ko, arch = f"CC {need[0]}.{need[1]} 명령(cp.async · mma.m16n8k16 등)", f"sm_{need[0]}{need[1]}"
        print(f"ℹ️ {where[0].split('.')[-1]}: 이 장치(CC {cc[0]}.{cc[1]})에는 {what_ko}이 없어, 이 커널은 별도 프로세스의 "
              "시뮬레이터에서 실행합니다 (결과는 같고, 시간은 재지 않습니다) / runs on the simulator in a subprocess: this "
              f"device lacks {arch} instructions.", flush=True)
    with tempfile.TemporaryDirectory() as d:
        np.savez(Path(d, "in.npz"), A=_host(A), B=_host(B), C=_host(C))
        spec = {"module": where[0], "kernel": where[1], "grid": list(grid) if not isinstance(grid, int) else grid,
                "block": list(block) if not isinstance(block, int) else block, "alpha": float(alpha),
                "beta": float(beta), "tile": list(tile) if tile else None}
        Path(d, "spec.json").write_text(json.dumps(spec))
        env = {k: v for k, v in os.environ.items() if k not in (device.SIM_CC_ENV, device.SIM_ENV)}
        env[device.ENV] = "sim"
        collect = hazards_out is not None or _collecting()
        if collect:                     # a bug demo collects races: so does the child, and they come back here
            env["SGEMM_RACECHECK"] = "collect"
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
        r = subprocess.run([sys.executable, "-m", "kernels_numba.tools.subsim_child", d], env=env, capture_output=True,
                           text=True)
        err = Path(d, "error.json")
        if err.exists():
            e = json.loads(err.read_text())
            raise CourseInputError(e["ko"], e["en"], e.get("fix_ko", ""), e.get("fix_en", ""))
        if r.returncode or not Path(d, "out.npy").exists():
            raise RuntimeError(f"simulator subprocess failed ({r.returncode}):\n{r.stderr[-3000:]}")
        out = np.load(Path(d, "out.npy"))
        if collect and Path(d, "hazards.json").exists():
            found = [_hazard(h) for h in json.loads(Path(d, "hazards.json").read_text())]
            if hazards_out is not None:
                hazards_out.extend(found)
            else:
                _add_hazards(found)
    if isinstance(C, np.ndarray):
        C[...] = out
    else:
        C.copy_to_device(out)
    return C


def simulated(launch, A, B, C, alpha=1.0, beta=0.0):
    """On a GPU: run a module-level kernel's `launch` on the simulator in a subprocess (small sizes), collecting races
    as the simulator sees them; (C, racecheck.Report). The bug demos show this report beside the GPU's result.
    Nothing global is touched (the races come back in this call's own list), so threads may run several at once."""
    M, N = A.shape[0], B.shape[1]
    BM, BN = launch.tile
    hazards = []
    run_kernel(launch.kernel, (-(-N // BN), -(-M // BM)), launch.block, A, B, C, np.float32(alpha), np.float32(beta),
               launch.tile, why_told=False, hazards_out=hazards)
    return C, racecheck.Report(hazards)


def _collecting():
    """True when this process's race detector collects (a bug demo's launch), else False."""
    if not device.SIMULATOR:
        return os.environ.get("SGEMM_RACECHECK", "").strip().lower() == "collect"
    return racecheck.MODE == "collect"


_FIELDS = ("kind", "space", "array", "index", "first_site", "second_site", "first_line", "second_line", "first_what",
           "second_what", "interval", "lines_text", "count", "k_tile", "ko", "en", "fix_ko", "fix_en")


def _hazard(h):
    """One hazard of the child (a plain dict from hazards.json) as a record Report.summary and .ko/.fix_ko can read."""
    for f in ("index", "first_site", "second_site", "first_line", "second_line"):
        if h.get(f) is not None:
            h[f] = tuple(h[f])
    return SimpleNamespace(**h)


def _add_hazards(found):
    """The child's hazards into this process's collector (racecheck.collect is active)."""
    racecheck._found.extend(found)


placement.install_runner(run_kernel)
