"""Old import paths kept for one round after issue 30 moved each chapter into course/chNN_<slug>/.

`alias("course.lesson08", new_module)` makes the old module name *be* the new module (the same object: a saved
notebook's `from course import lesson08 as L8` gets course.ch08_double_buffering.lesson itself, so its functions,
constants and monkeypatching behave as before) and warns once with a DeprecationWarning that names the new path,
pointed at the line that imported the old name (the student's cell), where IPython shows it.
"""
import importlib
import sys
import warnings


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
    warnings.warn(f"옛 경로 {old} (새 경로: {new.__name__}) / {old} moved to {new.__name__}: "
                  f"use `from {part[0]} import {part[1]} as {short}` (the old name works for one more round only)",
                  DeprecationWarning, stacklevel=_importer_level())
    sys.modules[old] = new
    return new
