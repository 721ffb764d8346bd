"""Run a kernel this GPU cannot run (cp.async or mma.m16n8k16 on CC 7.5) on the simulator, in a subprocess.

The notebook keeps its GPU process; the child process starts in simulator mode, imports the kernel's module, and
runs the same `run_kernel` on the same arrays (small sizes: the simulator's work bound applies and says so).
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from . import device
from .errors import CourseInputError

_told = set()


_HOMES = {}          # id(kernel) -> (kernel, home): the scan below runs once per kernel


def _home(kernel):
    """(module, attribute name) that holds this kernel: the module its function was written in, else the kernel
    module that built it (kernels made by a builder such as infra.tc.build_tiled live in the module that called it).
    Found once per kernel and remembered (a notebook process holds thousands of modules)."""
    hit = _HOMES.get(id(kernel))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    home = _find_home(kernel)
    if home is not None:                # not found yet: the module holding it may still be importing
        _HOMES[id(kernel)] = (kernel, home)
    return home


def _find_home(kernel):
    fn = getattr(kernel, "py_func", None) or getattr(kernel, "fn", None)
    first = sys.modules.get(getattr(fn, "__module__", ""), None)
    others = [m for n, m in sorted(sys.modules.items()) if n.startswith("kernels_numba.") and m is not first]
    for mod in ([first] if first is not None else []) + others:
        for name, value in list(vars(mod).items()):
            if value is kernel:
                return mod, name
    return None


def _where(kernel):
    """(module name, attribute name) under which a module-level kernel can be found again, or None."""
    home = _home(kernel)
    return (home[0].__name__, home[1]) if home else None


def min_cc(kernel):
    """The MIN_CC of the module that holds the kernel (None: any GPU the course accepts)."""
    home = _home(kernel)
    if home is None:
        fn = getattr(kernel, "py_func", None) or getattr(kernel, "fn", None)
        return getattr(sys.modules.get(getattr(fn, "__module__", ""), None), "MIN_CC", None)
    return getattr(home[0], "MIN_CC", None)


def arch_specific(kernel):
    """The ARCH_SPECIFIC flag of the module that holds the kernel (level 7: sm_90a code runs on CC 9.0 only)."""
    home = _home(kernel)
    return bool(getattr(home[0], "ARCH_SPECIFIC", False)) if home else False


def needed(kernel):
    """True when this device lacks an instruction the kernel's module needs (its MIN_CC; exactly it if the module is
    ARCH_SPECIFIC)."""
    return device.lacks(min_cc(kernel), arch_specific(kernel))


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
        r = subprocess.run([sys.executable, "-m", "kernels_numba.infra.subsim", d], env=env, capture_output=True,
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
    from .simulator import racecheck
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
    from .simulator import racecheck
    return racecheck.MODE == "collect"


_FIELDS = ("kind", "space", "array", "index", "first_site", "second_site", "first_line", "second_line", "first_what",
           "second_what", "interval", "lines_text", "count", "k_tile", "ko", "en", "fix_ko", "fix_en")


def _hazard(h):
    """One hazard of the child (a plain dict from hazards.json) as a record Report.summary and .ko/.fix_ko can read."""
    from types import SimpleNamespace
    for f in ("index", "first_site", "second_site", "first_line", "second_line"):
        if h.get(f) is not None:
            h[f] = tuple(h[f])
    return SimpleNamespace(**h)


def _add_hazards(found):
    """The child's hazards into this process's collector (racecheck.collect is active)."""
    from .simulator import racecheck
    racecheck._found.extend(found)


def _child(folder):
    import importlib
    from .. import launch
    d = Path(folder)
    spec = json.loads(Path(d, "spec.json").read_text())
    arrays = np.load(d / "in.npz")
    A, B, C = arrays["A"], arrays["B"], arrays["C"].copy()
    kernel = getattr(importlib.import_module(spec["module"]), spec["kernel"])
    grid = tuple(spec["grid"]) if isinstance(spec["grid"], list) else spec["grid"]
    block = tuple(spec["block"]) if isinstance(spec["block"], list) else spec["block"]
    from .simulator import racecheck
    try:
        with (racecheck.collect() if racecheck.MODE == "collect" else _nothing()) as report:
            launch.run_kernel(kernel, grid, block, A, B, C, np.float32(spec["alpha"]), np.float32(spec["beta"]),
                              tile=tuple(spec["tile"]) if spec["tile"] else None)
        if report is not None:
            (d / "hazards.json").write_text(json.dumps([
                {f: (list(v) if isinstance(v, tuple) else v) for f in _FIELDS
                 for v in [getattr(h, f, None)]} for h in report.hazards], default=str))
    except CourseInputError as e:
        (d / "error.json").write_text(json.dumps({"ko": getattr(e, "ko", str(e)), "en": getattr(e, "en", ""),
                                                  "fix_ko": getattr(e, "fix_ko", ""),
                                                  "fix_en": getattr(e, "fix_en", "")}))
        return
    np.save(d / "out.npy", C)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    _child(sys.argv[1])
