"""course/chapters.py names only what exists: registered kernels, demo modules, and the kernels its cells compile
offline (compiled ahead on a GPU by course.setup: a misspelt name would be compiled by the cell, late, instead)."""
import importlib

import pytest

import kernels_numba as kn
from course import chapters


@pytest.mark.parametrize("ch", chapters.CHAPTERS, ids=lambda c: c.number)
def test_every_name_a_chapter_compiles_ahead_exists(ch):
    for name in ch.kernels:
        assert kn.get(name).name == name
    for mod in (*ch.demos, *ch.offline):
        m = importlib.import_module(f"kernels_numba.demos.{mod}")
        assert any(callable(v) and hasattr(v, "py_func") or type(v).__name__ == "FakeCUDAKernel"
                   for v in vars(m).values()), f"{mod}: no kernel"
    for mod in ch.offline:
        assert hasattr(importlib.import_module(f"kernels_numba.demos.{mod}"), "kernel"), \
            f"{mod}: offline compiles a demo module's `kernel` (tools.offline._kernel_by_name)"
