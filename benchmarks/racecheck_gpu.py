"""On a GPU: what compute-sanitizer racecheck says about every buggy kernel of tests/racecases.py and the bug demos,
and how often each gives a wrong C in plain runs. The record is compared with the simulator's race detector by
tests/test_racecheck_record.py.

Usage on a GPU machine (one command; writes racecheck_<gpu>.json and the raw sanitizer log to OUT):
    python benchmarks/racecheck_gpu.py --out OUT [--runs 20]
It runs itself once under `compute-sanitizer --tool racecheck` (one launch per case, a marker line before each) and
once plainly (runs per case, wrong answers counted), then joins both into one JSON.
"""
import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

MARK = "@@CASE "


def _cases(tmp):
    """[(name, launch(rng) -> (C, ref), lines)] for every race case (not the error-only ones) and every demo."""
    import numpy as np
    import racecases
    out = []
    for c in racecases.CASES:
        if c.error:
            continue
        launch, lines = racecases.build(c, tmp, lineinfo=True)
        out.append((c.name, launch, lines))
    from kernels_numba.demos import (async_no_barrier_after_wait, async_no_commit, async_no_wait,
                                     async_overwrite_pending, async_common_tail, async_wait_too_little,
                                     db_no_loop_barrier, db_no_prologue, races)

    def demo(launcher, M=64, N=64, K=64):
        def run(rng):
            A = rng.standard_normal((M, K), dtype=np.float32)
            B = rng.standard_normal((K, N), dtype=np.float32)
            return launcher(A, B, np.full((M, N), np.nan, np.float32)), A.astype(np.float64) @ B
        return run

    demos = {"demo_no_sync1": races.launch_no_sync1, "demo_no_sync2": races.launch_no_sync2,
             "demo_db_no_loop_barrier": db_no_loop_barrier.launch, "demo_db_no_prologue": db_no_prologue.launch}
    for m in (async_no_barrier_after_wait, async_no_commit, async_no_wait, async_overwrite_pending,
              async_common_tail, async_wait_too_little):
        demos["demo_" + m.__name__.rsplit(".", 1)[1]] = m.launch
    out += [(name, demo(l, *(128, 128, 64) if "db_" in name else (64, 64, 64)), {}) for name, l in demos.items()]
    return out


def sanitized_pass(tmp):
    """One launch per case with a marker before it (run under compute-sanitizer)."""
    import numpy as np
    from numba import cuda
    for name, launch, _ in _cases(tmp):
        print(MARK + name, flush=True)
        try:
            launch(np.random.default_rng(0))
            cuda.synchronize()
        except Exception as e:                 # one case that fails to compile must not hide the others
            print(f"CASE FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
        print(MARK + "end", flush=True)


def plain_pass(tmp, runs):
    """{case: wrong runs out of `runs`} on fresh inputs."""
    import numpy as np
    out = {}
    for name, launch, _ in _cases(tmp):
        rng = np.random.default_rng(1)
        wrong = 0
        for _ in range(runs):
            try:
                C, ref = launch(rng)
            except Exception as e:
                wrong = f"failed: {type(e).__name__}: {str(e)[:200]}"
                break
            C = np.asarray(C, np.float64)
            tol = 1e-2 if C.dtype == np.float16 or "mma" in name else 1e-3
            wrong += not (np.isfinite(C).all() and np.allclose(C, ref, rtol=tol, atol=tol * np.abs(ref).max()))
        out[name] = wrong
    return out


_RACE = re.compile(r"(Error|Warning): Race reported between (\w+) access at .*? in (\S+):(\d+)\s*\n"
                   r"=*\s*and (\w+) access at .*? in (\S+):(\d+)", re.S)


def parse(log):
    """{case: {"hazards": [{severity, first: (access, line), second: (access, line)}], "summary": text}}."""
    out, name, buf = {}, None, []
    for line in log.splitlines():
        if line.startswith(MARK):
            if name and name != "end":
                out[name] = "\n".join(buf)
            name, buf = line[len(MARK):].strip(), []
        else:
            buf.append(line)
    res = {}
    for case, text in out.items():
        hz = [{"severity": m.group(1), "first": [m.group(2), int(m.group(4))], "second": [m.group(5), int(m.group(7))],
               "file": Path(m.group(3)).name} for m in _RACE.finditer(text)]
        res[case] = {"hazards": hz, "race_reports": text.count("Race reported"),
                     "failed": next((l for l in text.splitlines() if l.startswith("CASE FAILED")), None)}
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--child", choices=["sanitized", "plain"])
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="racecases-"))
    if a.child == "sanitized":
        return sanitized_pass(tmp)
    if a.child == "plain":
        print(json.dumps(plain_pass(tmp, a.runs)))
        return 0
    out = Path(a.out)
    log = subprocess.run(["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", "analysis",
                          "--print-limit", "10000", sys.executable, __file__, "--child", "sanitized"],
                         capture_output=True, text=True)
    (out / "racecheck_gpu.log").write_text(log.stdout + "\n--- stderr ---\n" + log.stderr[-20000:])
    plain = subprocess.run([sys.executable, __file__, "--child", "plain", "--runs", str(a.runs)],
                           capture_output=True, text=True)
    wrong = json.loads(plain.stdout.strip().splitlines()[-1]) if plain.returncode == 0 else {}
    import kernels_numba  # noqa: F401  (picks the device before numba is imported)
    from numba import cuda
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    summary = re.findall(r"RACECHECK SUMMARY: .*", log.stdout)
    rec = {"gpu": gpu, "cc": list(dev.compute_capability), "date": datetime.date.today().isoformat(),
           "tool": "compute-sanitizer --tool racecheck --racecheck-report analysis", "runs": a.runs,
           "sanitizer_rc": log.returncode, "summary": summary[-1] if summary else None,
           "cases": {k: dict(v, wrong_runs=wrong.get(k)) for k, v in parse(log.stdout).items()},
           "plain_rc": plain.returncode, "plain_stderr": plain.stderr[-3000:] if plain.returncode else ""}
    name = "racecheck_" + re.sub(r"[^a-z0-9]+", "_", gpu.lower()).strip("_") + ".json"
    from course import records                   # the one record schema
    records.save(records.from_flat(name[:-5], rec, "racecheck", rec["tool"] + ", then plain runs "
                                   "(benchmarks/racecheck_gpu.py)"), out)
    for k, v in rec["cases"].items():
        print(f"{k:48s} races {v['race_reports']:3d}  wrong {v['wrong_runs']}/{a.runs}  {v['failed'] or ''}")
    print(rec["summary"], "sanitizer rc", log.returncode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
