"""Where a first run's time goes on a GPU host (issue 24): CPU quota, how one kernel compile scales when several run
at once, and one live-table cell timed after every background compile has finished (CuPy and driver caches empty).
Run (GPU): python benchmarks/first_run_probe.py --out $OUT/first_run_probe.json"""
import argparse
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

JIT_ONE = ("import time, sys; t=time.time(); import kernels_numba as kn; from kernels_numba.infra import jitcache;"
           "s=kn.get(sys.argv[1]); t1=time.time(); s.kernel.compile(getattr(s.module,'SIG',None) or "
           "'void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)'); "
           "print(round(t1-t,2), round(time.time()-t1,2))")


def fresh_env():
    env = dict(os.environ)
    for var in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR", "CUPY_CACHE_DIR", "CUDA_CACHE_PATH"):
        env[var] = tempfile.mkdtemp()
    env["SGEMM_DEVICE"] = "gpu"
    return env


def jit_parallel(names):
    """Each kernel JIT-compiled for this GPU in its own fresh process, all at once: [(name, import s, compile s)]."""
    env = fresh_env()
    t0 = time.time()
    procs = [(n, subprocess.Popen([sys.executable, "-c", JIT_ONE, n], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)) for n in names]
    out = []
    for n, p in procs:
        text = p.communicate()[0].strip().splitlines()
        out.append((n, text[-1] if text else "?"))
    return {"wall": round(time.time() - t0, 1), "each": out}


def cell_after_warm(chapter, code):
    """In a fresh-cache child: course.setup(chapter), wait for every background compile, then time `code` under
    cProfile; returns the wait, the cell's time and its top functions."""
    child = f"""
import time, cProfile, pstats, io, json, sys, threading
t0 = time.time()
import course, kernels_numba as kn
course.setup({chapter!r})
from kernels_numba.infra import jitcache
for p in jitcache._WARMING: p.wait()
while [t for t in threading.enumerate() if t.name.startswith('sgemm-offline-ahead')]: time.sleep(0.2)
t1 = time.time()
pr = cProfile.Profile(); pr.enable()
{code}
pr.disable(); t2 = time.time()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats('cumulative').print_stats(30)
print(json.dumps({{'setup_and_wait': round(t1 - t0, 1), 'cell': round(t2 - t1, 1), 'profile': s.getvalue()[-6000:]}}))
"""
    p = subprocess.run([sys.executable, "-c", child], env=fresh_env(), cwd=ROOT, capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"failed": (p.stdout + p.stderr)[-4000:]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    res = {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0))}
    for f in ("/sys/fs/cgroup/cpu.max", "/proc/loadavg"):
        try:
            res[f] = open(f).read().strip()
        except OSError:
            pass
    print(res, flush=True)
    res["jit_alone"] = {n: jit_parallel([n]) for n in ("mma_fast", "async_wide")}
    print("alone", res["jit_alone"], flush=True)
    six = ["mma_fast", "async_wide", "mma_pipe", "mma_pipe4", "mma_warps", "async_bk16"]
    res["jit_6"] = jit_parallel(six)
    print("6 at once", res["jit_6"], flush=True)
    res["jit_12"] = jit_parallel(six + ["mma_swizzle", "mma_pipe_f16out", "db_overlap", "async_vec", "async_vec_s4",
                                        "mma_large"])
    print("12 at once", res["jit_12"], flush=True)
    res["cell09_live"] = cell_after_warm("09", "from course import measure\n"
                                               "live = measure.benchmark(kernels=['db_overlap', *[s.name for s in "
                                               "kn.by_level(5)]])\nprint(measure.live_lines(live)[:3])")
    print("09 live cell after warm:", {k: v for k, v in res["cell09_live"].items() if k != "profile"}, flush=True)
    print(res["cell09_live"].get("profile", res["cell09_live"].get("failed", ""))[:5000], flush=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
