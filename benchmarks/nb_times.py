"""Cell times of the notebooks under real nbval on a GPU machine: a first run (empty JIT and offline caches, unless
they exist already) and a warm run, every notebook in its own pytest process, all in parallel.
Run (GPU): python benchmarks/nb_times.py --out $OUT/nb_times.json [--notebooks 06 07 ...] [--passes first warm]
Each pass prints per notebook its wall time, its slowest cells and the cells over the goal (first 10 s, warm 3 s).
Notebooks that share the GPU measure each other's live tables wrongly: these are times, not the tables."""
import argparse
import glob
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the one chapter list (course/chapters.py), read without importing the course package (that picks a device)
CHAPTERS = runpy.run_path(os.path.join(ROOT, "course", "chapters.py"))["numbers"]()
GOAL = {"first": 10.0, "warm": 3.0}
OUT_PATH = []
LOGS = tempfile.mkdtemp(prefix="nb_times_")
LINE = re.compile(r"^\s*([\d.]+)s (call|setup|teardown)\s+(\S+)::Cell (\d+)")


def one_pass(numbers, name, serial=False):
    if serial:                 # one notebook at a time: nothing else on the GPU or the CPU (live tables are honest)
        out = {}
        for n in numbers:
            out.update(one_pass([n], name))
        return out
    procs = {}
    t0 = time.time()
    for n in numbers:
        nb = glob.glob(os.path.join(ROOT, "notebooks", f"{n}_*.ipynb"))[0]
        log = os.path.join(LOGS, f"compile_{name}_{n}.log")      # parsed into the JSON: not beside it
        env = dict(os.environ, SGEMM_COMPILE_LOG=log)    # every compile and every wait for one (jitcache.log)
        procs[n] = (subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                                      "--nbval-lax", "--nbval-current-env", "--durations=0", nb],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env),
                    time.time())
    out = {}
    for n, (p, start) in procs.items():
        text = p.communicate()[0]
        wall = time.time() - start
        cells = {}
        for line in text.splitlines():
            m = LINE.match(line)
            if m and m.group(2) == "call":
                cells[int(m.group(4))] = float(m.group(1))
        tail = [l for l in text.splitlines() if " passed" in l or " failed" in l or "error" in l.lower()][-3:]
        slow = sorted(cells.items(), key=lambda kv: -kv[1])[:5]
        compiles = _compile_log(os.path.join(LOGS, f"compile_{name}_{n}.log"), start)
        out[n] = {"rc": p.returncode, "wall_s": round(wall, 1), "cells_s": cells, "slowest": slow, "compiles": compiles,
                  "over_goal": {c: t for c, t in cells.items() if t > GOAL[name]}, "summary": tail,
                  "failures": text[-4000:] if p.returncode else ""}
        if p.returncode:                      # the whole log of a failing notebook beside the figures
            with open(os.path.join(os.path.dirname(OUT_PATH[0]), f"nb_{name}_{n}.log"), "w") as f:
                f.write(text)
        print(f"[{name}] {n}: rc {p.returncode}, {wall:.0f} s, sum of cells {sum(cells.values()):.0f} s, slowest "
              f"{[(c, round(t, 1)) for c, t in slow]}, over {GOAL[name]:g} s: {len(out[n]['over_goal'])} | {tail}",
              flush=True)
        for c in compiles:
            if c["role"].startswith("wait") and c["s"] > 1:
                print(f"    waited {c['s']:.1f} s at t={c['end'] - c['s']:.0f} s for {c['what']} ({c['role']})")
        longest = sorted((c for c in compiles if not c["role"].startswith("wait")), key=lambda c: -c["s"])[:6]
        print("    longest compiles:", [(c["role"], c["what"], round(c["s"], 1), round(c["end"])) for c in longest])
    print(f"[{name}] all notebooks in parallel: {time.time() - t0:.0f} s", flush=True)
    return out


def _compile_log(path, start):
    """The lines kernels_numba.infra.jitcache.log wrote: [{'end' (s after the notebook started), 's', 'role', 'what'}]."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                end, s, _pid, role, what = line.split(maxsplit=4)
                out.append({"end": round(float(end) - start, 2), "s": float(s), "role": role, "what": what.strip()})
    except OSError:
        pass
    return sorted(out, key=lambda c: c["end"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--notebooks", nargs="+", default=CHAPTERS)
    ap.add_argument("--passes", nargs="+", default=["first", "warm"])
    ap.add_argument("--serial", action="store_true", help="one notebook at a time")
    args = ap.parse_args()
    OUT_PATH.append(os.path.abspath(args.out))
    res = {p: one_pass(args.notebooks, p, args.serial) for p in args.passes}
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    for p, r in res.items():
        for n, v in r.items():
            if v["rc"]:
                print(f"--- {p} {n} failed ---\n{v['failures'][-2500:]}")


if __name__ == "__main__":
    main()
