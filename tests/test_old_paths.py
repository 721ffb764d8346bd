"""Old import paths keep working for one round after the chapters moved into course/chNN_<slug>/ (issue 30): every
course.lessonNN, course.exercises.exNN and answers/exNN_*.py imports, is (or carries) the new module, and warns with a
DeprecationWarning that names the new path, pointed at the line that imported it (where Jupyter shows it). The same for
the tools that moved from kernels_numba/infra/ to kernels_numba/tools/ (kernels_numba.infra.offline ...), in both import
forms and as `python -m kernels_numba.infra.table`."""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from course import chapters
from kernels_numba import _moved

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import importlib, importlib.util, json, sys, warnings
from pathlib import Path
warnings.simplefilter("always")
out = {}
for old, new in json.loads(sys.argv[1]):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
    dep = [x for x in w if issubclass(x.category, DeprecationWarning) and new in str(x.message)]
    out[old] = {"same": mod is importlib.import_module(new), "warned": len(dep),
                "where": [x.filename for x in dep], "names": len(vars(mod))}
for path, new in json.loads(sys.argv[2]):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        spec = importlib.util.spec_from_file_location("old_" + Path(path).stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    spec = importlib.util.spec_from_file_location("new_" + Path(new).stem, new)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    public = sorted(k for k in vars(ref) if not k.startswith("__"))
    out[path] = {"warned": sum(issubclass(x.category, DeprecationWarning) and Path(new).relative_to(Path(new).parents[2]).as_posix() in str(x.message) for x in w),
                 "missing": [k for k in public if not hasattr(mod, k)]}
from course import lesson08 as L8
out["from course import lesson08 as L8"] = {"same": L8 is importlib.import_module("course.ch08_double_buffering.lesson")}
tools = {}
for old, new in json.loads(sys.argv[3]).items():
    name = old.rsplit(".", 1)[1]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if name == "trace":                     # the other form: from the package (a saved notebook's cell)
            ns = {}
            exec(compile("from kernels_numba.infra import trace as mod", "<string>", "exec"), ns)
            mod = ns["mod"]
        else:
            mod = importlib.import_module(old)
    dep = [x for x in w if issubclass(x.category, DeprecationWarning) and new in str(x.message)]
    tools[old] = {"same": mod is importlib.import_module(new), "warned": len(dep), "where": [x.filename for x in dep],
                   "attr": getattr(importlib.import_module("kernels_numba.infra"), name, None) is mod}
out["tools"] = tools
print("RESULT" + json.dumps(out))
'''


def _modules():
    pairs = []
    for c in chapters.CHAPTERS:
        pairs.append((f"course.lesson{c.number}", c.module("lesson")))
        pairs.append((f"course.exercises.ex{c.number}", c.module("exercises")))
    return pairs


def _answers():
    return [(str(ROOT / "answers" / p.name), str(p)) for c in chapters.CHAPTERS
            for p in sorted((ROOT / c.answers).glob("*.py"))]


def test_every_old_path_imports_is_the_new_one_and_warns():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               SGEMM_DEVICE="sim")
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(_modules()), json.dumps(_answers()),
                        json.dumps(_moved.MOVED)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert "RESULT" in r.stdout, r.stderr[-3000:]
    got = json.loads(r.stdout.split("RESULT", 1)[1])
    assert len(_modules()) == 2 * len(chapters.CHAPTERS) and len(_answers()) >= 20
    for old, new in _modules():
        g = got[old]
        assert g["same"], f"{old} is not the module {new}"
        assert g["warned"] == 1 and g["where"] == ["<string>"], \
            f"{old}: one DeprecationWarning naming {new}, pointed at the importing line, expected: {g}"
        assert g["names"] > 5
    for old, new in _answers():
        g = got[old]
        assert g["warned"] == 1 and not g["missing"], f"{old} (old path of {new}): {g}"
    assert got["from course import lesson08 as L8"]["same"]
    assert sorted(got["tools"]) == sorted(_moved.MOVED) and "kernels_numba.infra.trace" in got["tools"]
    assert _moved.MOVED["kernels_numba.infra.tc"] == "kernels_numba.tc"
    for old, g in got["tools"].items():
        assert g == {"same": True, "warned": 1, "where": ["<string>"], "attr": True}, \
            f"{old}: the module {_moved.MOVED[old]}, one DeprecationWarning at the importing line: {g}"


def test_old_tool_path_runs_as_a_script():
    """`python -m kernels_numba.infra.table --targets` (the Makefile's old spelling) runs kernels_numba.tools.table."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               SGEMM_DEVICE="sim")
    old = subprocess.run([sys.executable, "-W", "always", "-m", "kernels_numba.infra.table", "--targets"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    new = subprocess.run([sys.executable, "-m", "kernels_numba.tools.table", "--targets"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert old.returncode == 0 and old.stdout == new.stdout and "sm_90" in new.stdout, old.stderr[-2000:]
    assert "moved to kernels_numba.tools.table" in old.stderr


def test_old_generator_paths_run_the_chapter_generator():
    for c in chapters.CHAPTERS:
        old = ROOT / "notebooks" / "src" / f"nb{c.number}.py"
        consts = {n.value for n in ast.walk(ast.parse(old.read_text(encoding="utf-8")))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert c.module("notebook") in consts and c.generator.exists(), old
