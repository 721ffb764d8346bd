"""Run a notebook's code cells in order in plain Python (for GPU machines without Jupyter); widget cells are skipped.

Usage: python benchmarks/run_notebook_cells.py notebooks/06_shared_memory_tiling.ipynb
"""
import json
import sys
import time

SKIP = ("bank_explorer", "show_quiz", "outer_tracer(", "occupancy_explorer(", "pipeline_explorer(")



def _stub_ipython():
    """GPU machines have no IPython: a text-only IPython.display so display()/HTML()/Image() cells still run."""
    import types
    try:
        import IPython.display  # noqa: F401
        return
    except ImportError:
        pass

    class _Obj:
        def __init__(self, data=None, **kw):
            self.data = data

        def __repr__(self):
            return f"<{type(self).__name__}: {str(self.data)[:200]}>"

    disp = types.ModuleType("IPython.display")
    disp.display = lambda *objs, **kw: [print(o) for o in objs]
    for name in ("HTML", "Markdown", "Image", "SVG", "Latex"):
        setattr(disp, name, type(name, (_Obj,), {}))
    ipy = types.ModuleType("IPython")
    ipy.display = disp
    ipy.get_ipython = lambda: None
    sys.modules["IPython"], sys.modules["IPython.display"] = ipy, disp


if __name__ == "__main__":
    _stub_ipython()
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
        try:
            exec(compile(src, f"cell{i}", "exec"), ns)
        except (ModuleNotFoundError, NameError) as e:   # no ipywidgets here, or a name from a skipped widget cell
            print(f"    SKIPPED: {e}")
            continue
        print(f"    ({time.time() - t:.1f} s)")
    print("ALL CELLS RAN")
