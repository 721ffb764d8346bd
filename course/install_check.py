"""Can this Python run the course? `import course` asks before anything imports numba, and says how to fix it.

Checks the installed versions (numpy < 2.5, numba, numba-cuda 0.30.x) and modules left in memory from before a
`pip install` in the same kernel (which only a kernel restart replaces). $SGEMM_SKIP_INSTALL_CHECK=1 skips it.
"""
import importlib.metadata as _md
import importlib.util
import os
import re
import shlex
import sys

SKIP_ENV = "SGEMM_SKIP_INSTALL_CHECK"
# pyproject.toml's pins: numba-cuda 0.30 compiles no kernel under NumPy 2.5 (np.row_stack removed, upstream #907)
PINS = ('"numpy>=1.24,<2.5"', '"numba-cuda[cu13]>=0.30,<0.31"')


class InstallError(ImportError):
    """The Python environment cannot run the course; the message holds the commands that fix it."""

    def _render_traceback_(self):
        """IPython/Jupyter show this in place of a traceback: the fix, not import machinery."""
        return [str(self)]


def _version(dist):
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return None


def _release(text):
    """(2, 5, 0) from '2.5.0rc1': the leading numbers of a version."""
    m = re.match(r"\d+(\.\d+)*", text)
    return tuple(int(n) for n in m.group(0).split(".")) if m else ()


def problems(modules=None):
    """(korean, english, needs_install) for each problem found; empty when the course can run."""
    modules = sys.modules if modules is None else modules
    found = []
    numpy, numba, numba_cuda = _version("numpy"), _version("numba"), _version("numba-cuda")
    if numpy is None:
        found.append(("numpy 가 설치되어 있지 않습니다.", "numpy is not installed.", True))
    elif _release(numpy) >= (2, 5):
        found.append((f"numpy {numpy}: numba-cuda 0.30 은 NumPy 2.5 이상에서 커널을 컴파일하지 못합니다.",
                      f"numpy {numpy}: numba-cuda 0.30 cannot compile any kernel under NumPy 2.5 or later.", True))
    if numba is None:
        found.append(("numba 가 설치되어 있지 않습니다.", "numba is not installed.", True))
    if numba_cuda is None:
        found.append(("numba-cuda 가 설치되어 있지 않습니다 (`from numba import cuda` 가 쓰는 CUDA 대상).",
                      "numba-cuda is not installed (the CUDA target behind `from numba import cuda`).", True))
    elif _release(numba_cuda)[:2] != (0, 30):
        found.append((f"numba-cuda {numba_cuda}: 강좌는 0.30.x 에서 확인했습니다.",
                      f"numba-cuda {numba_cuda}: the course is checked with 0.30.x only.", True))
    for mod, dist in (("numpy", numpy), ("numba", numba)):
        loaded = getattr(modules.get(mod), "__version__", None)
        if loaded and dist and loaded != dist:
            found.append((f"설치된 {mod} 는 {dist}, 이 커널이 설치 전에 이미 불러온 {mod} 는 {loaded} 입니다.",
                          f"{mod} {dist} is installed, but this kernel loaded {mod} {loaded} before the install.",
                          False))
    if (numba_cuda is not None and "_numba_cuda_redirector" not in modules
            and importlib.util.find_spec("_numba_cuda_redirector") is not None):
        found.append(("numba-cuda 를 이 커널이 시작된 뒤에 설치해서 `from numba import cuda` 가 아직 numba-cuda 로 가지 않습니다.",
                      "numba-cuda was installed after this kernel started, so `from numba import cuda` does not reach "
                      "it yet.", False))
    return found


def message(found):
    """The Korean + English report of `found` with the exact commands that fix it."""
    install = any(needs for _, _, needs in found)
    lines = ["이 Python 환경으로는 강좌를 실행할 수 없습니다 / This Python environment cannot run the course:"]
    lines += [f"  - {ko}\n    {en}" for ko, en, _ in found]
    if install:
        pins = " ".join(PINS)
        lines += ["고치는 방법 / How to fix — 노트북 셀에서 / in a notebook cell:",
                  f"    %pip install {pins}",
                  "  또는 터미널에서 / or in a terminal:",
                  f"    {shlex.quote(sys.executable)} -m pip install {pins}",
                  "  (강좌 폴더에서 `pip install .` 도 같은 버전을 설치합니다 / `pip install .` in the course folder "
                  "installs the same versions)"]
    lines += [("그다음 " if install else "") + "커널을 다시 시작하세요 (JupyterLab: Kernel > Restart Kernel, "
              "Colab: 런타임 > 세션 다시 시작) /",
              ("then restart" if install else "Restart") + " the kernel (JupyterLab: Kernel > Restart Kernel, "
              "Colab: Runtime > Restart session).",
              f"(이 검사를 끄려면 / to skip this check: {SKIP_ENV}=1)"]
    return "\n".join(lines)


def check():
    """Raise InstallError naming every problem and its fix; nothing when the install is fine or the check is off."""
    if os.environ.get(SKIP_ENV) == "1":
        return
    found = problems()
    if found:
        raise InstallError(message(found))
