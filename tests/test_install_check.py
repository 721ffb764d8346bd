"""course.install_check: a missing or incompatible install is named with its fix before numba is imported."""
import importlib.metadata
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from course import install_check

ROOT = Path(__file__).resolve().parents[1]
PIN_COMMAND = '-m pip install "numpy>=1.24,<2.5" "numba-cuda[cu13]>=0.30,<0.31"'
FRESH = {"_numba_cuda_redirector": sys.modules["_numba_cuda_redirector"]}   # a kernel that has imported nothing yet


def _fake_versions(monkeypatch, **versions):
    """importlib.metadata.version answers `versions` (None: not installed) and the real version otherwise."""
    real = importlib.metadata.version

    def version(name):
        key = name.replace("-", "_")
        if key in versions:
            if versions[key] is None:
                raise importlib.metadata.PackageNotFoundError(name)
            return versions[key]
        return real(name)
    monkeypatch.setattr(importlib.metadata, "version", version)


def test_this_install_is_fine():
    assert install_check.problems() == []
    install_check.check()


@pytest.mark.parametrize("numpy", ["2.5.0", "2.5.0rc1", "3.0.1"])
def test_numpy_2_5_or_later_is_refused_with_the_pin(monkeypatch, numpy):
    _fake_versions(monkeypatch, numpy=numpy)
    with pytest.raises(install_check.InstallError) as e:
        install_check.check()
    msg = str(e.value)
    assert f"numpy {numpy}" in msg and "NumPy 2.5" in msg
    assert "%pip install " in msg and PIN_COMMAND in msg and "커널을 다시 시작" in msg and "restart the kernel" in msg


def test_numpy_below_2_5_passes(monkeypatch):
    _fake_versions(monkeypatch, numpy="2.4.9")
    assert install_check.problems(FRESH) == []


@pytest.mark.parametrize("numba_cuda, said", [(None, "numba-cuda is not installed"),
                                              ("0.31.0", "numba-cuda 0.31.0"), ("0.29.2", "numba-cuda 0.29.2")])
def test_numba_cuda_missing_or_not_0_30(monkeypatch, numba_cuda, said):
    _fake_versions(monkeypatch, numba_cuda=numba_cuda)
    msg = install_check.message(install_check.problems(FRESH))
    assert said in msg and PIN_COMMAND in msg


def test_every_problem_is_listed_at_once(monkeypatch):
    _fake_versions(monkeypatch, numpy="2.5.2", numba=None, numba_cuda=None)
    found = install_check.problems(FRESH)
    assert len(found) == 3 and all(ko and en and needs for ko, en, needs in found)


def test_a_module_loaded_before_pip_install_asks_for_a_restart_only():
    modules = dict(sys.modules, numpy=type("Old", (), {"__version__": "2.0.2"}))
    msg = install_check.message(install_check.problems(modules))
    assert "numpy 2.0.2" in msg and "Restart the kernel" in msg and "pip install" not in msg


def test_numba_cuda_installed_after_the_kernel_started_asks_for_a_restart():
    modules = {k: v for k, v in sys.modules.items() if k != "_numba_cuda_redirector"}
    [(ko, en, needs)] = install_check.problems(modules)
    assert "from numba import cuda" in en and not needs


def test_jupyter_shows_the_fix_instead_of_a_traceback(monkeypatch):
    _fake_versions(monkeypatch, numba=None)
    with pytest.raises(install_check.InstallError) as e:
        install_check.check()
    assert isinstance(e.value, ImportError) and e.value._render_traceback_() == [str(e.value)]


def test_the_check_can_be_skipped(monkeypatch):
    _fake_versions(monkeypatch, numpy="2.5.0")
    monkeypatch.setenv(install_check.SKIP_ENV, "1")
    install_check.check()


def test_import_course_without_numba_says_how_to_fix_it_first():
    """A Python without numba and numba-cuda: `import course` fails with the fix, before any numba import."""
    code = textwrap.dedent("""
        import importlib.metadata as md, sys
        real = md.version
        def version(name):
            if name in ("numba", "numba-cuda"):
                raise md.PackageNotFoundError(name)
            return real(name)
        md.version = version
        sys.modules["numba"] = None          # `import numba` fails as it would where numba is missing
        try:
            import course
        except ImportError as e:
            print(type(e).__name__, "kernels_numba" in sys.modules)
            print(e)
    """)
    env = {k: v for k, v in os.environ.items() if k != install_check.SKIP_ENV}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, msg = out.stdout.split("\n", 1)
    assert first == "InstallError False"
    assert "numba is not installed" in msg and "numba-cuda is not installed" in msg and PIN_COMMAND in msg
