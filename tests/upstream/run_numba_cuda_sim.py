"""Run numba-cuda's own simulator tests (numba.cuda.tests.cudapy) against the course's simulator patch.

    python tests/upstream/run_numba_cuda_sim.py            # our patched simulator (what `make test` runs)
    python tests/upstream/run_numba_cuda_sim.py --stock    # numba-cuda's own simulator, for comparison
    extra arguments go to pytest, e.g. -k test_sync -x

kernels_numba.infra.simulator (scheduler, race detector) replaces the simulator's thread scheduler, so the tests numba-cuda ships for its
simulator are the reference our patch must keep passing. The tests need `filecheck` and `ml_dtypes` (project
dependencies) and a pytest fixture that ships only in numba-cuda's repository (its root conftest.py); the
plugin below provides it. Where our simulator differs from numba-cuda's on purpose, the test is listed in
known_differences.txt beside this file, with the reason: it runs as a strict xfail (it must still fail, so a
difference that disappears is noticed), failing with AssertionError or with the simulator error the reason names
first ('[UninitializedReadError] ...': a test whose kernel reads shared memory nobody wrote, or races, which our
race detector reports). Any other failure, and any listed test that is not collected, fails
the run.
"""
import os
import sys
from pathlib import Path

import pytest                  # does not import numba: the device is still chosen in main()

HERE = Path(__file__).resolve().parent
KNOWN = HERE / "known_differences.txt"
SUITE = "numba.cuda.tests.cudapy"


def known_differences(path=None):
    """{test id relative to numba/cuda/tests/cudapy, e.g. 'test_alignment.py::TestX::test_y': reason}."""
    path = Path(path or KNOWN)
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, sep, reason = line.partition(" -- ")
        if not sep or not reason.strip() or "::" not in test:
            raise ValueError(f"{path}:{n}: expected '<file>::<Class>::<test> -- <reason>', got {line!r}")
        out[test.strip()] = reason.strip()
    return out


def expected_error(reason):
    """The exception a known difference must raise: AssertionError, or the simulator error named first in the reason
    as '[UninitializedReadError] ...' (a report of our race detector where numba's simulator runs on)."""
    if reason.startswith("["):
        name = reason[1:reason.index("]")]
        from kernels_numba.infra import simulator
        return getattr(simulator, name)
    return AssertionError


class UpstreamPlugin:
    """The fixture numba-cuda's repository conftest provides, plus the known differences as strict xfails."""

    def __init__(self, known):
        self.known = dict(known)
        self.seen = set()

    def pytest_addoption(self, parser):
        parser.addoption("--dump-failed-filechecks", action="store_true",
                         help="numba-cuda's option: dump reproducers for FileCheck tests that fail.")

    @pytest.fixture(scope="class")
    def initialize_from_pytest_config(self, request):
        """numba-cuda's CUDATestCase uses this fixture (from the root conftest.py of numba-cuda's repository)."""
        request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")

    def pytest_collection_modifyitems(self, session, config, items):
        for item in items:
            test = self.short_id(item.nodeid)
            if test in self.known:
                self.seen.add(test)
                item.add_marker(pytest.mark.xfail(strict=True, raises=expected_error(self.known[test]),
                                                  reason="known difference of the course simulator: "
                                                         + self.known[test]))
        missing = sorted(set(self.known) - self.seen)
        if missing and not config.option.keyword and not config.option.markexpr:
            raise pytest.UsageError("known_differences.txt lists tests that were not collected (renamed or removed "
                                    "upstream?): " + ", ".join(missing))

    @staticmethod
    def short_id(nodeid):
        """'.../cudapy/test_x.py::C::t' or 'test_x.py::C::t' -> 'test_x.py::C::t'."""
        path, sep, rest = nodeid.partition("::")
        return Path(path).name + sep + rest


def main(argv):
    stock = "--stock" in argv
    argv = [a for a in argv if a != "--stock"]
    if stock:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        known = {}
    else:
        os.environ["SGEMM_DEVICE"] = "sim"
        # test_print.py runs kernels in `python -c` subprocesses: give them the patch too (sitecustomize.py)
        os.environ["SGEMM_UPSTREAM_PATCH"] = "1"
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE / "subprocess_patch"),
                                                                 os.environ.get("PYTHONPATH")]))
        import kernels_numba                       # picks the simulator and installs our patch before any test
        from kernels_numba.infra import device    # module imports numba.cuda
        assert device.SIMULATOR
        known = known_differences()
    from numba.cuda.core import config
    assert config.ENABLE_CUDASIM, "numba must be in simulator mode"
    if not stock:
        from numba.cuda.simulator import kernel
        assert getattr(kernel, "_sgemm_course_patched", False), "the course simulator patch is not installed"
    import numba.cuda.tests.cudapy as suite_pkg      # rootdir there: test ids read 'test_x.py::Class::test'
    print(f"numba-cuda {SUITE} under the {'stock' if stock else 'course-patched'} simulator; "
          f"{len(known)} known differences ({KNOWN.name})", flush=True)
    # --noconftest: the wheel ships no conftest.py, and ours (tests/conftest.py, found from the repository root)
    # would import kernels_numba, which patches the simulator even in --stock mode. -c /dev/null: not our pytest config.
    args = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-o", "consider_namespace_packages=true",
            "-o", "addopts=", "-o", "testpaths=", "--rootdir", os.path.dirname(suite_pkg.__file__), "-c", os.devnull,
            "--noconftest", "-W", "ignore::DeprecationWarning", "-rfEX", "--pyargs", SUITE, *argv]
    return pytest.main(args, plugins=[UpstreamPlugin(known)])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
