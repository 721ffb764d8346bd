"""Run a notebook's code cells in order in plain Python (for GPU machines without Jupyter or ipywidgets).

Usage: python benchmarks/run_notebook_cells.py notebooks/06_shared_memory_tiling.ipynb [more.ipynb ...]

Only what needs ipywidgets is skipped, statement by statement: without ipywidgets, a stub module lets widget
modules import (so plain plots such as course.widgets.outer.ai_plot still run), but creating any widget raises
WidgetUnavailable. The statement that raised it is skipped, and so is a later statement that fails only because
it uses a name such a statement would have defined. Every other error stops the run with a non-zero exit.
Where ipywidgets is installed, everything runs. A text-only IPython.display stands in for IPython, and a cell's
last expression is shown through it, as Jupyter would.
"""
import ast
import json
import sys
import time
import types


class WidgetUnavailable(RuntimeError):
    """A widget was created where ipywidgets is not installed."""


def _stub_ipython():
    """GPU machines have no IPython: a text-only IPython.display so display()/HTML()/Image() cells still run."""
    try:
        import IPython.display  # noqa: F401
        return False
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
    ipy.version_info = (9, 0, 0, "stub")      # matplotlib reads it when it finds an IPython module loaded
    sys.modules["IPython"], sys.modules["IPython.display"] = ipy, disp
    return True


def _stub_ipywidgets():
    """Without ipywidgets: a module whose every attribute is a widget class that refuses to be created."""
    try:
        import ipywidgets  # noqa: F401
        return False
    except ImportError:
        pass
    mod = types.ModuleType("ipywidgets")
    mod.__doc__ = "stub: ipywidgets is not installed (benchmarks/run_notebook_cells.py)"

    class Widget:
        def __init__(self, *args, **kwargs):
            raise WidgetUnavailable(f"ipywidgets.{type(self).__name__}: ipywidgets is not installed here")

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        cls = type(name, (Widget,), {})
        setattr(mod, name, cls)
        return cls

    mod.Widget, mod.__getattr__ = Widget, __getattr__
    sys.modules["ipywidgets"] = mod
    return True


def defined_names(stmt):
    """Names a top-level statement binds (assignment targets, imports, def/class)."""
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def run_cell(src, ns, label, unavailable, display):
    """Run one cell statement by statement; return the first lines of the statements skipped for ipywidgets."""
    tree = ast.parse(src, label)
    skipped = []
    for k, stmt in enumerate(tree.body):
        last_expr = k == len(tree.body) - 1 and isinstance(stmt, ast.Expr)
        code = (compile(ast.Expression(stmt.value), label, "eval") if last_expr
                else compile(ast.Module([stmt], type_ignores=[]), label, "exec"))
        try:
            value = eval(code, ns) if last_expr else exec(code, ns)
        except WidgetUnavailable:
            pass
        except NameError as e:             # only a name a skipped widget statement would have made
            if getattr(e, "name", None) not in unavailable:
                raise
        else:
            if last_expr and value is not None:
                display(value)
            continue
        unavailable |= defined_names(stmt)
        skipped.append(ast.get_source_segment(src, stmt).splitlines()[0])
    return skipped


def run_notebook(path):
    """Run every code cell of the notebook at `path`; return the number of statements skipped for ipywidgets."""
    from IPython.display import display
    nb = json.load(open(path, encoding="utf-8"))
    ns = {"__name__": "__main__"}
    unavailable, n_skipped = set(), 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        t = time.time()
        print(f"--- cell {i}", flush=True)
        skipped = run_cell("".join(cell["source"]), ns, f"{path}:cell{i}", unavailable, display)
        for line in skipped:
            print(f"    skipped (needs ipywidgets): {line}")
        n_skipped += len(skipped)
        print(f"    ({time.time() - t:.1f} s)", flush=True)
    return n_skipped


def main(paths):
    no_ipython, no_widgets = _stub_ipython(), _stub_ipywidgets()
    if no_ipython or no_widgets:
        print("stubs:", ", ".join(n for n, on in (("IPython.display (text)", no_ipython),
                                                   ("ipywidgets (widgets skipped)", no_widgets)) if on))
    for path in paths:
        print(f"=== {path}", flush=True)
        n = run_notebook(path)
        print(f"ALL CELLS RAN: {path} ({n} statement(s) skipped because they need ipywidgets)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
