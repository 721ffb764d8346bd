"""The import rules of course/, kernels_numba/, sim/ and answers/, read statically from the source (ast), in the manner
of tests/test_sim_layers.py: no import loops; sim/ stays pure (no numba, no kernels_numba; checked in a subprocess too);
kernels_numba.launch never reaches kernels_numba.tools.subsim; no module imports below its top; a lesson never imports
another lesson, and what belongs to no chapter (or to another chapter) never imports a lesson.

What is counted:
* An edge A -> B is an import statement in A that names module B: `import B`, `from B import x`, `from . import B`.
  `from P import name` where P/name.py exists is an edge to P.name, otherwise to P (the package's __init__). The parent
  packages Python runs on the way (importing a.b.c runs a/__init__ and a/b/__init__) are not edges: every submodule
  would otherwise "import" its own package.
* Module-level imports are the ones run when the module is imported: top-level statements, and those inside
  top-level if/try/with blocks and class bodies. Function-local imports are those inside a def (or lambda).
* Loops: judged by module-level imports (test_no_import_loops); the tree has none through function-local imports
  either, and test_no_import_loops_even_through_function_local_imports keeps it so.
* "launch never imports subsim" and "sim/ is pure" count module-level and function-local imports, transitively.
* The lesson rules also read the code inside string constants (exercise templates and preambles, a child process's
  script): a student's template that imports another chapter's lesson counts.
"""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("course", "kernels_numba", "sim", "answers")


def _name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_name(p): p for top in PACKAGES for p in sorted((ROOT / top).rglob("*.py"))}
MOVED_TOOLS = next(ast.literal_eval(n.value) for n in ast.parse((ROOT / "kernels_numba/_moved.py").read_text(
    encoding="utf-8")).body if isinstance(n, ast.Assign) and n.targets[0].id == "MOVED_TOOLS")   # read, not imported


class Import:
    """One import statement of a module: the modules it names, its line, whether it sits inside a def."""

    def __init__(self, module, node, local, in_string=False):
        self.module, self.node, self.local, self.in_string = module, node, local, in_string
        self.targets = _targets(module, node)

    def where(self):
        text = ast.unparse(self.node)
        how = " (in a string of code)" if self.in_string else " (function-local)" if self.local else ""
        return f"{FILES[self.module].relative_to(ROOT)}:{self.node.lineno}: `{text}`{how}"


def _targets(module, node):
    """Module names an import statement names (ours and others': 'numba.cuda', 'course.ch06_shared_tiling.lesson', ...)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".") if FILES.get(module, Path()).name == "__init__.py" else module.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        full = ".".join(base + ([node.module] if node.module else []))
    else:
        full = node.module
    return [f"{full}.{a.name}" if f"{full}.{a.name}" in FILES else full for a in node.names]


def _walk(module, tree, in_string=False):
    out = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append(Import(module, child, inner, in_string))
            visit(child, inner)
    visit(tree, False)
    return out


def _code_in_strings(tree):
    """Syntax trees of the string constants that are Python code with an import (templates, child scripts)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value:
            try:
                yield ast.parse(node.value)
            except SyntaxError:
                continue


TREES = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in FILES.items()}
IMPORTS = {m: _walk(m, t) for m, t in TREES.items()}
STRING_IMPORTS = {m: [i for code in _code_in_strings(t) for i in _walk(m, code, in_string=True)]
                  for m, t in TREES.items()}


class _RegistryImport:
    """The registry imports every kernel module by name (importlib.import_module over _MODULES at import time): an
    edge no import statement shows, counted as a module-level import so that a loop through it is found."""

    def __init__(self, node):
        self.module, self.node, self.local, self.in_string = "kernels_numba.registry", node, False, False

    def where(self):
        return f"kernels_numba/registry.py:{self.node.lineno}: `_MODULES` (importlib.import_module, at import time)"


def _registry_edges():
    """{kernel module: _RegistryImport} from the registry's _MODULES tuple, read from its source."""
    for node in TREES["kernels_numba.registry"].body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_MODULES":
            return {f"kernels_numba.{name}": _RegistryImport(node) for name in ast.literal_eval(node.value)}
    return {}


def _graph(local):
    """{module: {our module: first Import naming it}}: module-level imports, and function-local ones too if local;
    plus the registry's imports of the kernel modules it lists."""
    g = {m: {} for m in FILES}
    for m, imps in IMPORTS.items():
        for i in imps:
            if local or not i.local:
                for t in i.targets:
                    if t in FILES:
                        g[m].setdefault(t, i)
    for t, imp in _registry_edges().items():
        g["kernels_numba.registry"].setdefault(t, imp)
    return g


def _cycles(g):
    """One loop (a list of modules, first = last) per strongly connected component that has one."""
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in g[v]:
                found.append(_loop_in(g, set(comp)))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(g):
        if v not in index:
            strong(v)
    return found


def _loop_in(g, comp):
    """A concrete loop inside a strongly connected component (breadth-first from its first module back to itself)."""
    start = min(comp)
    prev, todo = {}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(g[v]):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if v != start else [start, start]
            if w in comp and w not in prev:
                prev[w] = v
                todo.append(w)
    return sorted(comp)


def _describe(g, loop):
    return "\n".join(f"    {a} -> {b}   {g[a][b].where()}" for a, b in zip(loop, loop[1:]))


def _loops_message(g, loops, what):
    return (f"{len(loops)} import loop(s) through {what}:\n" + "\n\n".join(_describe(g, lp) for lp in loops) +
            "\n  Fix: move what both sides need down into a module neither imports (sim/, kernels_numba/infra, "
            "kernels_numba/common.py, course/kit.py), or let the lower one receive it as an argument; never hide "
            "the loop in a function-local import.")


def test_no_import_loops():
    g = _graph(local=False)
    loops = _cycles(g)
    assert not loops, _loops_message(g, loops, "module-level imports")


def test_no_import_loops_even_through_function_local_imports():
    g = _graph(local=True)
    loops = _cycles(g)
    assert not loops, _loops_message(g, loops, "module-level and function-local imports")


def _reach(start, local=True):
    """{module: the Import that first reached it} of everything `start` imports, transitively (ours only)."""
    g = _graph(local)
    seen, todo = {}, [start]
    while todo:
        v = todo.pop()
        for w, imp in g[v].items():
            if w not in seen and w != start:
                seen[w] = imp
                todo.append(w)
    return seen


def _chain(start, target, seen):
    """'a -> b -> target' with the import lines, for a failure message."""
    path, v = [target], target
    while seen[v].module != start:
        v = seen[v].module
        path.append(v)
    return "\n".join(f"    {seen[m].where()}" for m in reversed(path))


FORBIDDEN_IN_SIM = ("numba", "kernels_numba", "llvmlite", "ipywidgets", "matplotlib", "course")


def test_sim_imports_neither_numba_nor_kernels_numba():
    bad = []
    sims = [m for m in FILES if m == "sim" or m.startswith("sim.")]
    for m in sims:
        mods = {m: None, **_reach(m)}
        for v in mods:
            for i in IMPORTS[v]:
                for t in i.targets:
                    if t.split(".")[0] in FORBIDDEN_IN_SIM:
                        via = "" if v == m else f" (reached through {v})"
                        bad.append(f"  {m}{via}: {i.where()}")
    assert not bad, ("sim/ is pure (models only: no numba, no kernels_numba, no widgets, no course), but:\n" +
                     "\n".join(sorted(set(bad))) + "\n  Fix: keep the model in sim/ and move what needs the GPU, "
                     "the registry or numba to the kernels side (e.g. kernels_numba/occupancy.py); raise "
                     "sim.errors.CourseInputError, the one error class.")


def test_importing_sim_loads_no_numba_and_picks_no_device():
    sims = sorted(m for m in FILES if m.startswith("sim."))
    code = ("import sys\n" + "".join(f"import {m}\n" for m in sims) +
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'kernels_numba', 'llvmlite'))\n"
            "print('LOADED', bad)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "LOADED []" in r.stdout, (f"importing {', '.join(sims)} loaded {r.stdout.strip()}: sim/ must not import "
                                     "numba or kernels_numba (which picks a device). Find the import with "
                                     "test_sim_imports_neither_numba_nor_kernels_numba.")


def test_errors_are_one_class_reachable_from_both_sides():
    code = ("import sim.errors, sys\nassert 'numba' not in sys.modules\n"
            "from kernels_numba.infra.errors import CourseInputError\nimport kernels_numba\n"
            "assert CourseInputError is sim.errors.CourseInputError is kernels_numba.CourseInputError\nprint('SAME')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert "SAME" in r.stdout, r.stderr[-2000:]


def test_launch_never_imports_subsim():
    seen = _reach("kernels_numba.launch")
    for target in ("kernels_numba.tools.subsim", "kernels_numba.tools.subsim_child"):
        assert target not in seen, (
            f"kernels_numba/launch.py reaches {target}:\n{_chain('kernels_numba.launch', target, seen)}\n"
            "  Fix: placement is decided once, at make_launch, from the module's MIN_CC (kernels_numba.infra.placement);"
            " an away kernel runs through placement.run_away, whose runner subsim installs when kernels_numba is "
            "imported. launch imports placement, never subsim.")


INFRA = "kernels_numba.infra"
# What kernels_numba/infra/ may import from kernels_numba outside infra/: nothing. (The level-6 template, which
# launches through launch, is kernels_numba/tc.py, beside the kernel modules it builds; its old name
# kernels_numba.infra.tc answers for one round through kernels_numba/_moved.py, without a file in infra/.)
INFRA_MAY_IMPORT = {}


def _infra(module):
    return module == INFRA or module.startswith(INFRA + ".")


def _ours_above_infra(target):
    """A kernels_numba module that is not infra/ (the package __init__, registry, launch, kernels, demos, tools)."""
    return (target == "kernels_numba" or target.startswith("kernels_numba.")) and not _infra(target)


def _module_names_in_strings(tree):
    """Dotted names of ours that a string of code runs without an import statement (`-m kernels_numba.tools.warmup`,
    importlib.import_module("kernels_numba.registry"), f"kernels_numba.demos.{name}"): (name, line)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value).rstrip(".")
        else:
            continue
        if text.startswith("kernels_numba") and all(p.isidentifier() for p in text.split(".")):
            yield text, node.lineno


def test_infra_is_ground_floor():
    """kernels_numba/infra/ is the ground floor (device choice, errors, PTX wrappers, simulator, jit cache, placement,
    the hopper/tma pieces of the level-7 kernels): nothing in it imports kernels_numba.tools (the tools above the registry:
    offline, resources, table, trace, subsim, subsim_child, warmup), the registry, the kernel modules, the demos or
    the package __init__ -- module-level, function-local, in a string of code or as a module name a subprocess runs,
    directly or through what it imports. No exception (INFRA_MAY_IMPORT is empty)."""
    bad = []
    infra = sorted(m for m in FILES if _infra(m))
    for m in infra:
        allowed = INFRA_MAY_IMPORT.get(m, set())
        for i in IMPORTS[m] + STRING_IMPORTS[m]:
            for t in i.targets:
                if _ours_above_infra(t) and t not in allowed:
                    bad.append(f"  {i.where()} imports {t}")
        for name, line in _module_names_in_strings(TREES[m]):
            if _ours_above_infra(name) and name not in allowed:
                bad.append(f"  {FILES[m].relative_to(ROOT)}:{line}: runs {name} (a module name in a string)")
    for m in infra:                    # through what it imports: only the allowed modules, and only infra below them
        seen = _reach(m)
        for t in seen:
            if _ours_above_infra(t) and t not in set().union(*INFRA_MAY_IMPORT.values()):
                bad.append(f"  {m} reaches {t}:\n{_chain(m, t, seen)}")
    assert not bad, ("kernels_numba/infra/ is ground floor only, but:\n" + "\n".join(sorted(set(bad))) +
                     "\n  Fix: a module that needs the registry, a kernel or a tool is a tool itself: it goes to "
                     "kernels_numba/tools/ (old path answered by kernels_numba/_moved.py MOVED_TOOLS for a round); or "
                     "pass what infra needs in as an argument.")
    assert infra and all(not _infra(t) or t in FILES for t in INFRA_MAY_IMPORT)


def test_the_old_tool_paths_have_no_file_in_infra():
    """The moved tools' old names are answered by kernels_numba/_moved.py, not by stub files in infra/ (a stub there
    would import tools/, and would keep git from following edits made to the old path into tools/)."""
    for name in MOVED_TOOLS:
        assert f"kernels_numba.tools.{name}" in FILES, name
        assert f"kernels_numba.infra.{name}" not in FILES, f"kernels_numba/infra/{name}.py is back"
    # the level-6 template left infra/ too (it launches through kernels_numba.launch): MOVED answers its old name
    assert "kernels_numba.tc" in FILES and "kernels_numba.infra.tc" not in FILES, "kernels_numba/infra/tc.py is back"


def _is_import(node):
    return isinstance(node, (ast.Import, ast.ImportFrom))


def _import_block(node):
    """An if/try block made of imports only (`if TYPE_CHECKING:`, a try-import of an optional dependency)."""
    if isinstance(node, ast.If):
        return all(_is_import(c) or _import_block(c) for c in node.body + node.orelse)
    if isinstance(node, ast.Try):
        return (all(_is_import(c) or _import_block(c) for c in node.body + node.orelse) and
                all(all(_is_import(c) or _import_block(c) or isinstance(c, (ast.Pass, ast.Assign))
                        for c in h.body) for h in node.handlers))
    return False


def test_no_module_imports_below_its_top():
    bad = []
    for m, tree in TREES.items():
        first_code = None
        for k, node in enumerate(tree.body):
            doc = k == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if doc or _is_import(node) or _import_block(node):
                if first_code is not None:
                    bad.append(f"  {FILES[m].relative_to(ROOT)}:{node.lineno}: `{ast.unparse(node).splitlines()[0]}` "
                               f"comes after code at line {first_code}")
                continue
            if first_code is None:
                first_code = node.lineno
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for i in _walk(m, node):
                    if not i.local:           # an import inside a top-level if/with/for that also runs code
                        bad.append(f"  {i.where()} sits in top-level code (line {node.lineno}), below the imports")
    assert not bad, ("imports belong at the top of a module (after its docstring and __future__):\n" + "\n".join(bad) +
                     "\n  Fix: move the import up. Code that must run before an import (the device choice before "
                     "numba, the install check) goes into a module of its own imported first "
                     "(kernels_numba/infra/boot.py, course/preflight.py).")


def _says_why(text):
    """The comment of a source line, without lint directives (`# noqa: F401` alone says nothing about why)."""
    if "#" not in text:
        return ""
    comment = text.split("#", 1)[1]
    return re.sub(r"noqa(:\s*[A-Z0-9, ]+)?|type:\s*ignore(\[[^]]*\])?|pragma:[^#]*|isort:\s*skip", "", comment).strip(" ()#,;")


def _local_import_reason(module, node):
    """The comment that explains a function-local import: on its line, on the line above, or above the run of
    consecutive import lines it belongs to (one comment for a group of imports with one reason)."""
    lines = FILES[module].read_text(encoding="utf-8").splitlines()
    k = node.lineno - 1
    if _says_why(lines[k]):
        return _says_why(lines[k])
    while k > 0 and lines[k - 1].lstrip().startswith(("import ", "from ")) and not _says_why(lines[k - 1]):
        k -= 1
    above = lines[k - 1].strip() if k > 0 else ""
    return above.lstrip("# ").strip() if above.startswith("#") else ""


def test_function_local_imports_say_why():
    """An import inside a def runs at call time, hidden from the reader who looks at the module's top: each one in
    course/, kernels_numba/, sim/ and answers/ says why it is local (a heavy or optional library such as cupy,
    matplotlib, ipywidgets, IPython; a module only the simulator or only a GPU loads; numba before the device choice;
    numba internals another version may lack; a loop it would close). Imports in strings of code (templates, a child
    process's script) are the student's or the child's top and are not counted."""
    bad = [i.where() for m in FILES for i in IMPORTS[m] if i.local and not i.in_string and
           not _local_import_reason(m, i.node)]
    assert not bad, (f"{len(bad)} function-local import(s) without a reason:\n  " + "\n  ".join(bad) +
                     "\n  Fix: move the import to the module's top (after its docstring), or say on its line or the "
                     "line above why it cannot be there (`# local: cupy is optional (GPU only) and slow to load`).")


def _chapter(module):
    """The chapter a module belongs to ('06' for course.ch06_shared_tiling.lesson and answers.ch06.ex06_tile8), else
    None (shared: course.kit, course.measure, widgets, quiz, kernels_numba, sim ...)."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] in ("course", "answers") and parts[1][:2] == "ch" and parts[1][2:4].isdigit():
        return parts[1][2:4]
    last = parts[-1]                    # the old paths kept for one round (course/lessonNN.py, answers/exNN_*.py ...)
    for prefix in ("lesson", "ex"):
        if last.startswith(prefix) and last[len(prefix):len(prefix) + 2].isdigit() and parts[0] in ("course", "answers"):
            return last[len(prefix):len(prefix) + 2]
    return None


def _lesson(target):
    """The chapter of an imported module of a chapter package (course.chNN_<slug> or any module in it), else None."""
    return _chapter(target) if target.startswith("course.") else None


def test_a_chapter_never_imports_another_chapters_lesson():
    bad = []
    for m in FILES:
        mine = _chapter(m)
        for i in IMPORTS[m] + STRING_IMPORTS[m]:
            for t in i.targets:
                if t == "course" and isinstance(i.node, ast.ImportFrom):
                    names = [f"course.{a.name}" for a in i.node.names]
                else:
                    names = [t]
                for name in names:
                    theirs = _lesson(name)
                    if theirs is None or theirs == mine:
                        continue
                    who = f"chapter {mine}" if mine else "a module of no chapter"
                    bad.append(f"  {who}: {i.where()} imports {name} (chapter {theirs})")
    assert not bad, ("a lesson module is its chapter's own; another chapter (or a shared module) never imports it:\n" +
                     "\n".join(bad) + "\n  Fix: move what both use down: lesson helpers to course/kit.py, device "
                     "functions that exercises and answers share to kernels_numba/common.py; keep the old name "
                     "importable in the lesson with an import from there.")


def test_the_rules_see_what_they_should():
    """The graph is not empty and finds the edges it must (a broken resolver would pass every rule above)."""
    g = _graph(local=True)
    assert len(FILES) > 100 and "course.kit" in FILES and "answers.ch09.ex09_pipeline" in FILES
    assert "kernels_numba.infra.placement" in g["kernels_numba.launch"]
    assert "kernels_numba.tools.offline" in g["kernels_numba.tools.resources"]
    assert len(_registry_edges()) > 20 and "kernels_numba.db" in g["kernels_numba.registry"]
    assert "kernels_numba.launch" in g["kernels_numba.tc"] and "kernels_numba.tools.subsim" in g["kernels_numba"]
    assert "kernels_numba.tools.subsim_child" in {n for n, _ in _module_names_in_strings(TREES["kernels_numba.tools.subsim"])}
    assert _ours_above_infra("kernels_numba.registry") and not _ours_above_infra("kernels_numba.infra.device")
    assert "kernels_numba.common" in g["answers.ch09.ex09_pipeline"]
    assert "course.kit" in g["course.ch08_double_buffering.lesson"] and "sim.errors" in g["sim.pipeline"]
    assert any("kernels_numba.common" in i.targets for i in STRING_IMPORTS["course.ch09_cp_async.exercises"])
    assert _chapter("course.ch09_cp_async.exercises") == "09" and _chapter("answers.ch06.ex06_tile8") == "06"
    assert _chapter("course.kit") is None and _lesson("course.ch10_tensor_core.lesson") == "10"
    # a made-up loop and a made-up late import are found
    assert _cycles({"a": {"b": None}, "b": {"a": None}}) == [["a", "b", "a"]]
    assert _says_why("    import cupy as cp  # noqa: F401") == "" and _says_why("x  # local: heavy") == "local: heavy"
    assert _local_import_reason("kernels_numba.infra.ptx", next(
        i.node for i in IMPORTS["kernels_numba.infra.ptx"] if i.local and "intrinsic" in ast.unparse(i.node)))
    late = ast.parse("import os\nX = 1\nimport sys\n")
    assert not _is_import(late.body[1]) and _is_import(late.body[2])
