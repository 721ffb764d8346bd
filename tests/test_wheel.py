"""`pip install .` without make: the wheel, installed in a fresh venv outside the checkout, carries every file the
course reads at run time and runs notebook 06 (issue 17).

The venv reuses the dependencies already installed in the course's venv (no download) through a .pth, but not the
editable install of this checkout: what is imported is the installed package, never the checkout. The build uses
this environment's setuptools where it can build wheels by itself; otherwise pip fetches setuptools and wheel from
PyPI into an isolated build environment, as a student's `pip install .` does.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import setuptools

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("course", "kernels_numba", "sim")
NOTEBOOK = "06_shared_memory_tiling.ipynb"

REUSE = '''"""tests/test_wheel.py's venv: the course venv's packages, without this checkout's editable install."""
import os
import site
import sys

DEPS, CHECKOUT = {deps!r}, {checkout!r}
sys.path.append(DEPS)
_getsitepackages = site.getsitepackages


def getsitepackages(prefixes=None):
    """DEPS too, as a real install's own site-packages: cuda.pathfinder looks for NVRTC/NVVM's wheels there."""
    return _getsitepackages(prefixes) + [DEPS]


site.getsitepackages = getsitepackages
for _name in sorted(os.listdir(DEPS)):          # what site.addsitedir(DEPS) does with each .pth file there ...
    if not _name.endswith(".pth") or _name.startswith("__editable__"):     # ... less the editable install's finder
        continue
    for _line in open(os.path.join(DEPS, _name), encoding="utf-8"):
        _line = _line.rstrip()
        if _line.startswith(("import ", "import\\t")):
            exec(_line)
        elif _line and not _line.startswith("#"):
            _path = os.path.realpath(os.path.join(DEPS, _line))
            if os.path.exists(_path) and _path != CHECKOUT and _path not in sys.path:     # an older editable form
                sys.path.append(_path)
'''

PROBE = textwrap.dedent("""
    import json, sys
    import course, kernels_numba, sim
    print(json.dumps({"files": [m.__file__ for m in (course, kernels_numba, sim)], "path": sys.path}))
""")


def _run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{cmd[:4]} failed ({out.returncode}):\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
    return out


def _source_files():
    """The checkout's files as a clone plus uncommitted work would have them (tracked and untracked, not ignored)."""
    ls = _run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=ROOT).stdout.split("\0")
    return sorted({f for f in ls if f and (ROOT / f).is_file()})


def _can_build_without_isolation():
    """setuptools here builds wheels by itself (>= 70.1) or with the `wheel` package; else pip fetches both (PyPI)."""
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _clean_env(**extra):
    """The environment without the checkout: PYTHONPATH keeps only dependency folders (the GPU machine puts its
    numpy<2.5 there), never the checkout or anything inside it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    root = os.path.realpath(ROOT)
    deps = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and not (os.path.realpath(p) + os.sep).startswith(root + os.sep)]
    if deps:
        env["PYTHONPATH"] = os.pathsep.join(deps)
    return {**env, "PYTHONNOUSERSITE": "1", **extra}


def _install(work):
    """Build the wheel from a copy of the checkout and install it in a venv under `work`: (python, site-packages)."""
    src = work / "src"
    for f in _source_files():                           # a copy: pip writes build/ and *.egg-info where it builds
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    cmd = [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(work / "dist")]
    if _can_build_without_isolation():
        cmd.append("--no-build-isolation")
    _run(cmd, cwd=work, env=_clean_env(), timeout=300)
    [wheel] = (work / "dist").glob("sgemm_course-*.whl")

    env_dir = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], timeout=120)
    python = env_dir / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
          str(wheel)], cwd=work, env=_clean_env(), timeout=300)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=work, env=_clean_env()).stdout.strip())
    deps = sysconfig.get_paths()["purelib"]             # the course venv's site-packages: numba, jupyter, nbval, ...
    (site / "_sgemm_reuse_deps.py").write_text(REUSE.format(deps=deps, checkout=str(ROOT)), encoding="utf-8")
    (site / "_sgemm_reuse_deps.pth").write_text("import _sgemm_reuse_deps\n", encoding="utf-8")
    return python, site


def _check_package(python, site, work):
    """The installed package, not the checkout, is imported, and every non-.py file of its packages was shipped."""
    probe = json.loads(_run([str(python), "-c", PROBE], cwd=work, env=_clean_env(), timeout=300).stdout)
    for f in probe["files"]:
        assert Path(f).is_relative_to(site), f"{f} is not the installed package (site-packages: {site})"
    others = [p for p in probe["path"] if (Path(p or work) / "course" / "__init__.py").exists() and Path(p) != site]
    assert others == [], f"the checkout is importable from {others}"
    wanted = {f for f in _source_files() if f.split("/")[0] in PACKAGES and not f.endswith(".py")}
    shipped = {str(p.relative_to(site)) for top in PACKAGES for p in (site / top).rglob("*")
               if p.is_file() and p.suffix not in (".py", ".pyc")}
    missing = sorted(wanted - shipped)
    assert not missing, f"[tool.setuptools.package-data] in pyproject.toml misses {missing}"


def _run_notebook(python, site, work):
    """Notebook 06, copied out of the checkout, under nbval in the venv; a last cell checks what its kernel imported."""
    nb_dir = work / "nb"
    nb_dir.mkdir()
    nb = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text(encoding="utf-8"))
    check = (f"import os, sys, course, kernels_numba, sim\n"
             f"assert all(m.__file__.startswith({str(site)!r}) for m in (course, kernels_numba, sim)), \\\n"
             f"    course.__file__\n"
             f"assert not [p for p in sys.path if os.path.exists(os.path.join(p or '.', 'course', '__init__.py'))\n"
             f"            and p != {str(site)!r}], sys.path")
    nb["cells"].append({"cell_type": "code", "execution_count": None, "id": "wheel-check", "metadata": {},
                        "outputs": [], "source": check})
    (nb_dir / NOTEBOOK).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    env = _clean_env(SGEMM_PROGRESS=str(work / "progress"))     # $SGEMM_OFFLINE_CACHE stays: compiles are shared
    out = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-p", "no:randomly", "--nbval-lax", "--nbval-current-env", NOTEBOOK],
                         cwd=nb_dir, env=env, capture_output=True, text=True, timeout=1200)
    failed = [line for line in out.stdout.splitlines() if line.startswith("FAILED")]
    assert out.returncode == 0, "\n".join(failed) + "\n" + out.stdout[-6000:] + out.stderr[-3000:]


def test_the_wheel_installed_outside_the_checkout_runs_notebook_06(tmp_path):
    """One test, one build: the wheel's venv serves both checks (about 15 s to build and install, then the notebook)."""
    python, site = _install(tmp_path)
    _check_package(python, site, tmp_path)
    _run_notebook(python, site, tmp_path)
