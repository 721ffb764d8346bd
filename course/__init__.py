"""Course runtime: `import course; course.setup()` picks the device, shows the mode banner, shortens input errors."""
from course import install_check as _install_check

_install_check.check()          # before numba is imported: a missing or wrong install prints its fix (issue 17)

import inspect as _inspect      # noqa: E402
import json as _json            # noqa: E402
from pathlib import Path as _Path  # noqa: E402

import kernels_numba as _kn     # noqa: E402

RECORDED = _Path(__file__).parent / "recorded"


def setup(module=None):
    """First cell of every notebook: device banner + brief display of CourseInputError; returns device info.

    `module` ("06".."10") names the notebook; the progress banner (issue: class runs the course) reads it.
    """
    _kn.device.banner()
    _kn.errors.show_briefly_in_ipython()
    if module is not None:
        from course.quiz import progress as _progress
        text = _progress.banner(module)      # never raises, never blocks: a notice at most
        if text:
            print(text)
    return _kn.device.info()


def progress(path=None):
    """Your checkpoints at a glance (passed, best score, attempts) from any notebook: `course.progress()`."""
    from course.quiz import progress as _progress
    return _progress.overview(path)


def race_report():
    """The simulator race detector's report that a message last pointed to (or the last one collected): call
    `.summary()` to see every hazard, `.hazards[i]` for one in full. Empty on a GPU (compute-sanitizer there)."""
    from kernels_numba.infra.simulator import racecheck
    return racecheck.last_report()


def recorded(name="gpu_h200_2026-11-21"):
    """A GPU measurement recorded with the device tool (course/recorded/<name>.json)."""
    with open(RECORDED / f"{name}.json", encoding="utf-8") as f:
        return _json.load(f)


def source(obj, numbered=True):
    """Source text of a kernel (dispatcher, simulator kernel or function), with file line numbers."""
    fn = getattr(obj, "py_func", obj)
    lines, start = _inspect.getsourcelines(fn)
    if not numbered:
        return "".join(lines)
    return "".join(f"{start + i:4d}  {line}" for i, line in enumerate(lines))


def show_source(obj):
    """Print a kernel's source with line numbers (used by the code walkthroughs)."""
    print(source(obj))


def line_of(obj, needle, nth=1):
    """File line number of the nth line of obj's source containing `needle` (walkthroughs cite these)."""
    fn = getattr(obj, "py_func", obj)
    lines, start = _inspect.getsourcelines(fn)
    hits = [start + i for i, line in enumerate(lines) if needle in line]
    return hits[nth - 1]
