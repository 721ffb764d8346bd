"""Run a notebook's code cells in order in plain Python (for GPU machines without Jupyter); widget cells are skipped.

Usage: python benchmarks/run_notebook_cells.py notebooks/06_shared_memory_tiling.ipynb
"""
import json
import sys
import time

SKIP = ("bank_explorer", "show_quiz")

if __name__ == "__main__":
    nb = json.load(open(sys.argv[1], encoding="utf-8"))
    ns = {"__name__": "__main__"}
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        if any(s in src for s in SKIP):
            print(f"--- cell {i}: skipped (widget)")
            continue
        t = time.time()
        print(f"--- cell {i}")
        exec(compile(src, f"cell{i}", "exec"), ns)
        print(f"    ({time.time() - t:.1f} s)")
    print("ALL CELLS RAN")
