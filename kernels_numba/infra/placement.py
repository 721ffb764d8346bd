"""Where a kernel runs: on this device, or, where the device lacks an instruction the kernel's module needs (its
MIN_CC, ARCH_SPECIFIC), "away" — on the simulator in a subprocess (kernels_numba.tools.subsim).

make_launch decides it once, from the module's MIN_CC; run_kernel callers that did not say look it up here, once per
kernel. launch.py runs an away kernel through run_away, which calls the runner kernels_numba.tools.subsim installs
when the package is imported: launch never imports subsim (tests/test_import_rules.py).
"""
import sys

from . import device
from .errors import CourseInputError

_HOMES = {}          # id(kernel) -> (kernel, home): the scan below runs once per kernel
_RUNNER = []         # [run_kernel(kernel, grid, block, A, B, C, alpha, beta, tile)] of the installed away runner


def _home(kernel):
    """(module, attribute name) that holds this kernel: the module its function was written in, else the kernel
    module that built it (kernels made by a builder such as tc.build_tiled live in the module that called it).
    Found once per kernel and remembered (a notebook process holds thousands of modules)."""
    hit = _HOMES.get(id(kernel))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    home = _find_home(kernel)
    if home is not None:                # not found yet: the module holding it may still be importing
        _HOMES[id(kernel)] = (kernel, home)
    return home


def _find_home(kernel):
    fn = getattr(kernel, "py_func", None) or getattr(kernel, "fn", None)
    first = sys.modules.get(getattr(fn, "__module__", ""), None)
    others = [m for n, m in sorted(sys.modules.items()) if n.startswith("kernels_numba.") and m is not first]
    for mod in ([first] if first is not None else []) + others:
        for name, value in list(vars(mod).items()):
            if value is kernel:
                return mod, name
    return None


def where(kernel):
    """(module name, attribute name) under which a module-level kernel can be found again, or None."""
    home = _home(kernel)
    return (home[0].__name__, home[1]) if home else None


def min_cc(kernel):
    """The MIN_CC of the module that holds the kernel (None: any GPU the course accepts)."""
    home = _home(kernel)
    if home is None:
        fn = getattr(kernel, "py_func", None) or getattr(kernel, "fn", None)
        return getattr(sys.modules.get(getattr(fn, "__module__", ""), None), "MIN_CC", None)
    return getattr(home[0], "MIN_CC", None)


def arch_specific(kernel):
    """The ARCH_SPECIFIC flag of the module that holds the kernel (level 7: sm_90a code runs on CC 9.0 only)."""
    home = _home(kernel)
    return bool(getattr(home[0], "ARCH_SPECIFIC", False)) if home else False


def needed(kernel):
    """True when this device lacks an instruction the kernel's module needs (its MIN_CC; exactly it if the module is
    ARCH_SPECIFIC)."""
    return device.lacks(min_cc(kernel), arch_specific(kernel))


def install_runner(run):
    """Make `run` the way away kernels run (kernels_numba.tools.subsim installs its subprocess runner on import)."""
    _RUNNER[:] = [run]


def run_away(kernel, grid, block, A, B, C, alpha, beta, tile=None):
    """Run a kernel this device lacks instructions for through the installed runner; C is updated and returned."""
    if not _RUNNER:
        raise CourseInputError(
            "이 장치에 없는 명령을 쓰는 커널을 대신 실행할 시뮬레이터 프로세스 실행기가 없습니다.",
            "no runner is installed for kernels this device lacks instructions for.",
            "import kernels_numba 로 패키지를 먼저 불러오세요 (실행기를 설치합니다).",
            "import kernels_numba first (it installs the runner).")
    return _RUNNER[0](kernel, grid, block, A, B, C, alpha, beta, tile)
