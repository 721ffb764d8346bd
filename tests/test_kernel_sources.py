"""A registered kernel module shows its kernel body, or says where it is: when the kernel's code lives in another file
(a template such as kernels_numba/tc.py build_tiled), the module's docstring names that function and that file,
so whoever opens kernels_numba/mma_pipe.py finds the kernel (issue 30). Read statically: no compile."""
from pathlib import Path

import pytest

import kernels_numba as kn
from kernels_numba import registry

ROOT = Path(__file__).resolve().parents[1]


def _where(spec):
    """(file relative to the root, enclosing function or None) of the kernel's Python source."""
    fn = getattr(spec.module.kernel, "py_func", spec.module.kernel)
    path = Path(fn.__code__.co_filename).resolve().relative_to(ROOT).as_posix()
    outer = fn.__qualname__.split(".<locals>.")[0] if ".<locals>." in fn.__qualname__ else None
    return path, outer


@pytest.mark.parametrize("name", [s.name for s in registry.REGISTRY])
def test_the_module_shows_or_names_its_kernel_body(name):
    spec = kn.get(name)
    mod_file = Path(spec.module.__file__).resolve().relative_to(ROOT).as_posix()
    path, outer = _where(spec)
    if path == mod_file:
        return
    doc = spec.module.__doc__ or ""
    assert path in doc and (outer is None or outer in doc), (
        f"{mod_file}: the kernel's body is {outer or 'a function'} in {path}; say so in the module docstring "
        f"(e.g. 'The kernel body: {outer} in {path}, the function kernel inside it')")
