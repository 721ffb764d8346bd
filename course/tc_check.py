"""Tensor Core kernels checked against a float64 reference within tc.error_bound (notebooks 10 and 11): in this
process, or, for kernels this device lacks instructions for, all in ONE simulator subprocess (this module is its
entry: `python -m course.tc_check IN.json OUT.json`)."""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba import tc
from kernels_numba.tools import subsim
from course.steps import Bar
from sim.korean import josa

ROOT = Path(__file__).resolve().parents[1]          # the repository (the child imports course and kernels_numba)


def check_kernel(name, M, N, K, alpha=1.0, beta=0.0, seed=0):
    """Run kernel `name` on random f16 inputs; compare with float64 within tc.error_bound. Returns a result dict.
    On a device that lacks the kernel's instructions (sm_80 kernels on a T4) the check runs in a simulator subprocess."""
    return check_kernels([(name, (M, N, K))], alpha, beta, seed)[name]


def check_kernels(cases, alpha=1.0, beta=0.0, seed=0):
    """{name: check_kernel result} for [(name, (M, N, K))]. Kernels this device cannot run (subsim.needed: the test
    spec.launch makes) go to one simulator subprocess together; the rest run here. One progress bar over all of them
    when there are several, or on a GPU where a kernel is not compiled yet (its first launch is a Numba compile of
    10-25 s); it ends at its total when every check ran."""
    cases = [(n, tuple(s)) for n, s in cases]
    away = [c for c in cases if subsim.needed(kn.get(c[0]).kernel)]
    here = [c for c in cases if c not in away]
    slow = len(cases) > 1 or (not device.SIMULATOR and (away or not all(_loaded(n) for n, _ in here)))
    if slow:
        gpu = not device.SIMULATOR and here
        bar = Bar(len(cases), "컴파일·검사" if gpu else "시뮬레이터 검사", unit="커널")
    else:
        bar = contextlib.nullcontext()
    out = {}
    with bar:
        if away:
            out.update(_check_in_simulator(away, alpha, beta, seed, bar if slow else None))
        for name, shape in here:
            out[name] = _check_here(name, *shape, alpha=alpha, beta=beta, seed=seed)
            if slow:
                bar.update(1, name)
    return {n: out[n] for n, _ in cases}


def _check_here(name, M, N, K, alpha=1.0, beta=0.0, seed=0):
    """check_kernel in this process: two launches (the random case, then A = I) of one compiled kernel."""
    spec = kn.get(name)
    cd = getattr(spec.module, "C_DTYPE", np.float32)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(cd)
    C = C0.copy() if beta else np.full((M, N), np.nan, cd)       # NaN: an element never written shows up
    spec.launch(A, B, C, alpha, beta)
    acc = getattr(spec.module, "CONFIG", {}).get("acc", "f32")
    bound = tc.error_bound(A, B, alpha, beta, C0, acc=acc, out="f16" if cd == np.float16 else "f32")
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, alpha, beta, C0))
    eye = np.zeros((M, N), cd)
    spec.launch(np.eye(M, K, dtype=np.float16), B, eye)
    ident = bool(np.array_equal(eye[:min(M, K)], B[:min(M, K)].astype(cd)))
    return {"ok": bool(np.isfinite(C).all() and (err <= bound).all()), "worst": float((err / bound).max()),
            "max_err": float(err.max()), "identity": ident}


def _loaded(name):
    """True when kernel `name` has been compiled in this process already (on a GPU: loaded by an earlier cell)."""
    k = kn.get(name).kernel
    return bool(getattr(getattr(k, "kernel", k), "overloads", None))


_DONE = "@@lesson10-checked "          # the child's progress lines (one per kernel checked), read by the parent


def _check_in_simulator(cases, alpha, beta, seed, bar=None):
    """check_kernel of every case in ONE simulator subprocess (kernels this GPU cannot run, e.g. sm_80 kernels on a
    T4). Each launch of such a kernel would also go to a simulator process on its own (kernels_numba.tools.subsim,
    what spec.launch does), but a check is two launches, so a cell of three kernels would start six Python processes
    (about 1 s each here) instead of one. `bar` (a course.steps.Bar) advances as each kernel is done."""
    cc = device.compute_capability()
    where = f"CC {cc[0]}.{cc[1]}" if cc else "시뮬레이터"       # None: the plain simulator (only a test sends kernels here)
    names = ", ".join(n for n, _ in cases)
    if any(kn.get(n).arch_specific for n, _ in cases):        # level 7 (notebook 11): sm_90a code
        what, arch = "sm_90a 전용 명령(wgmma · TMA)", "sm_90a"
    else:
        what, arch = "CC 8.0 명령(cp.async · mma.m16n8k16)", "sm_80"
    print(f"ℹ️ 이 장치({where})에는 {what}이 없어 {josa(names, '은/는')} 별도 프로세스의 "
          f"시뮬레이터에서 검사합니다 (결과는 같음) / checked on the simulator in a subprocess: this device lacks {arch} "
          "instructions.", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in (device.SIM_CC_ENV, device.SIM_ENV)}   # as subsim's child
    env[device.ENV] = "sim"
    root = str(ROOT)
    env["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.json"), os.path.join(d, "out.json")
        Path(src).write_text(json.dumps([[[n, list(s)] for n, s in cases], float(alpha), float(beta), seed]))
        with open(os.path.join(d, "stderr.txt"), "w+") as err:
            p = subprocess.Popen([sys.executable, "-m", "course.tc_check", src, dst], env=env, cwd=root,
                                 stdout=subprocess.PIPE, stderr=err, text=True)
            for line in p.stdout:               # the simulator's own notices are dropped; progress lines move the bar
                if line.startswith(_DONE) and bar is not None:
                    bar.update(1, line[len(_DONE):].strip())
            p.wait()
            if p.returncode or not os.path.exists(dst):
                err.seek(0)
                raise RuntimeError(f"simulator subprocess failed ({p.returncode}):\n{err.read()[-3000:]}")
        return json.loads(Path(dst).read_text())


def _child(src, dst):
    """The subprocess: _check_here of every case in src (JSON), results to dst, one progress line per kernel."""
    cases, alpha, beta, seed = json.loads(Path(src).read_text())
    out = {}
    for n, shape in cases:
        out[n] = _check_here(n, *shape, alpha=alpha, beta=beta, seed=seed)
        print(_DONE + n, flush=True)
    Path(dst).write_text(json.dumps(out))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
