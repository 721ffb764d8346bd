"""Old import paths kept for one round after a module moved (issue 30): one alias rule for the whole tree.

`alias(old, new_module)` makes the old module name *be* the new module (the same object: a saved notebook's
`from course import lesson08 as L8` gets course.ch08_double_buffering.lesson itself, so its functions, constants and
monkeypatching behave as before) and warns once with a DeprecationWarning that names the new path, pointed at the line
that imported the old name (the student's cell), where IPython shows it. course/_moved.py (the chapters' old paths,
stub files) uses it.

The tools that stand above the registry moved from kernels_numba/infra/ to kernels_numba/tools/ (MOVED_TOOLS). Their
old names have no file (infra/ is ground floor only and must not import tools/, and a rename without a stub left
behind lets git follow edits made to the old path): `install()` (run when kernels_numba/__init__ imports this module,
which Python does before any kernels_numba.infra.X) adds a finder that answers `import kernels_numba.infra.offline`,
`from kernels_numba.infra import offline` and `python -m kernels_numba.infra.table` with the new module.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

MOVED_TOOLS = ("offline", "resources", "subsim", "subsim_child", "table", "trace", "warmup")
OLD_TOOLS = "kernels_numba.infra."
NEW_TOOLS = "kernels_numba.tools."
# other modules that left infra/ (old name -> new name): the level-6 template launches through kernels_numba.launch,
# so it stands beside the kernel modules it builds, not on the ground floor
MOVED = {**{OLD_TOOLS + t: NEW_TOOLS + t for t in MOVED_TOOLS}, "kernels_numba.infra.tc": "kernels_numba.tc"}


def _importer_level():
    """warnings stacklevel of the first frame that is neither this file, the old module nor the import machinery
    (warnings.warn itself skips importlib's frozen _bootstrap frames: they are not counted)."""
    skip = (__file__, sys._getframe(2).f_code.co_filename, importlib.__file__)   # alias, the old module, import_module
    frame, level = sys._getframe(1), 1                         # level 1 = alias, the caller of warnings.warn
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" in name and "_bootstrap" in name:
            frame = frame.f_back                               # not counted by warnings.warn
            continue
        if name not in skip:
            break
        frame, level = frame.f_back, level + 1
    return level


def alias(old, new):
    """Make module name `old` an alias of module `new` (already imported) and warn that it moved."""
    part = new.__name__.rsplit(".", 1)
    short = old.rsplit(".", 1)[-1]
    as_short = "" if short == part[1] else f" as {short}"
    warnings.warn(f"옛 경로 {old} (새 경로: {new.__name__}) / {old} moved to {new.__name__}: "
                  f"use `from {part[0]} import {part[1]}{as_short}` (the old name works for one more round only)",
                  DeprecationWarning, stacklevel=_importer_level())
    sys.modules[old] = new
    return new


class _OldToolPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """kernels_numba.infra.<tool> -> kernels_numba.tools.<tool> (and infra.tc -> kernels_numba.tc), the same module
    object, with alias's warning."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return None                                            # a plain module, replaced by the new one in exec_module

    def exec_module(self, module):
        new = importlib.import_module(MOVED[module.__name__])
        alias(module.__name__, new)        # the import system returns what sys.modules holds now: the new module

    def get_code(self, fullname):
        """`python -m kernels_numba.infra.table ...` (runpy) runs the new module as __main__."""
        new = MOVED[fullname]
        return compile(f"import runpy, warnings\nwarnings.warn({f'{fullname} moved to {new}'!r}, DeprecationWarning)\n"
                       f"runpy.run_module({new!r}, run_name='__main__', alter_sys=True)\n", f"<{fullname}>", "exec")


def install():
    """Answer the old names of MOVED (idempotent)."""
    if not any(isinstance(f, _OldToolPath) for f in sys.meta_path):
        sys.meta_path.append(_OldToolPath())


install()
