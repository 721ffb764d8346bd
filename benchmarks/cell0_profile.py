"""Where a notebook's first cell spends its time: runs cell 0 of each notebook named in a fresh process under
cProfile (the caches as they are: run it after a first run to see a warm session) and prints the wall time and the
top functions by cumulative time. Run (GPU): python benchmarks/cell0_profile.py 06 08 [--top 25]"""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = r"""
import ast, cProfile, pstats, sys, time, io
src = sys.argv[1]
ns, times = {}, []
prof = cProfile.Profile()
t0 = time.perf_counter()
for stmt in ast.parse(src).body:                 # each statement timed on its own: which line costs what
    code = compile(ast.Module([stmt], []), "cell0", "exec")
    t = time.perf_counter()
    prof.enable()
    exec(code, ns)
    prof.disable()
    times.append((time.perf_counter() - t, ast.get_source_segment(src, stmt).splitlines()[0][:70]))
wall = time.perf_counter() - t0
print(f"CELL0 wall {wall:.2f} s")
for dt, line in times:
    print(f"  {dt:6.2f} s  {line}")
for key in ("cumulative", "tottime"):
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats(key).print_stats(int(sys.argv[2]))
    print(s.getvalue()[-4000:])
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    for n in a.notebooks:
        nb = json.load(open(glob.glob(os.path.join(ROOT, "notebooks", f"{n}_*.ipynb"))[0]))
        src = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
        r = subprocess.run([sys.executable, "-c", CHILD, src, str(a.top)], cwd=ROOT, capture_output=True, text=True)
        print(f"===== notebook {n} (rc {r.returncode})")
        print(r.stdout[-9000:], r.stderr[-1500:])


if __name__ == "__main__":
    main()
