"""Packaging: pip metadata and environment.yml list the same things; README table comes from the registry."""
import ast
import re
from pathlib import Path

import kernels_numba.tools.table

ROOT = Path(__file__).resolve().parents[1]


def _deps():
    """pyproject's [project] dependencies (parsed by hand: tomllib is 3.11+ and the course supports 3.10)."""
    text = (ROOT / "pyproject.toml").read_text()
    body = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1)
    return ast.literal_eval("[" + body + "]")


def _norm(req):
    return re.sub(r"\s+", "", req).lower()


def test_environment_yml_matches_pyproject():
    deps = _deps()
    yml = (ROOT / "environment.yml").read_text()
    block = yml.split("- pip:", 1)[1]
    pip_deps = [l.strip()[2:] for l in block.splitlines() if l.strip().startswith("- ") and l.strip() != "- -e ."]
    assert sorted(map(_norm, pip_deps)) == sorted(map(_norm, deps))


def test_pins_that_must_hold():
    deps = " ".join(_deps())
    assert "numba-cuda[cu13]>=0.30,<0.31" in deps and "numpy>=1.24,<2.5" in deps
    for pkg in ("jupyterlab", "ipywidgets", "matplotlib", "nbval", "pytest"):
        assert pkg in deps


def test_readme_kernel_table_is_generated():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- kernel-table:start -->")[1].split("<!-- kernel-table:end -->")[0].strip()
    assert table == kernels_numba.tools.table.markdown()


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert "make lab" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_readme_measured_table_is_generated():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- measured-table:start -->")[1].split("<!-- measured-table:end -->")[0].strip()
    assert table == kernels_numba.tools.table.measured_markdown()
