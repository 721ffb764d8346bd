"""`make lab` from a fresh clone until JupyterLab answers, as root too (issue 28: JupyterLab refused root with "Running
as root is not recommended. Use --allow-root to bypass." and make failed after the setup had succeeded).

The clone's venv stands in for `make setup`'s (which needs PyPI and minutes): it reuses this venv's packages through a
.pth, with the clone itself on the path as `pip install -e .` would put it, and its stamp is newer than pyproject.toml,
so make goes straight to the `lab` recipe: the Makefile's own command line starts the server."""
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from _live import ROOT, checkout_files, free_port, wait_for

ROOT_FLAG = "--allow-root"
WRAPPER = "#!{python}\nimport sys\nfrom {module} import main\nsys.exit(main())\n"


def _clone(dest):
    for f in checkout_files():
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, dest / f)


def _venv(clone):
    """clone/.venv: this venv's packages, the clone importable, `jupyter` and `jupyter-lab` scripts; stamped set up."""
    venv = clone / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = sysconfig.get_paths()["purelib"]
    # the clone first (what `pip install -e .` of the clone gives), then this venv's packages without its editable
    # install of this checkout
    pths = [Path(deps) / name for name in sorted(os.listdir(deps))
            if name.endswith(".pth") and not name.startswith("__editable__")]
    lines = [str(clone), deps] + [line for pth in pths for line in pth.read_text().splitlines()
                                  if line.startswith("import ")]
    (site / "_sgemm_clone.pth").write_text("\n".join(lines) + "\n")
    for script, module in (("jupyter", "jupyter_core.command"), ("jupyter-lab", "jupyterlab.labapp")):
        path = venv / "bin" / script
        path.write_text(WRAPPER.format(python=python, module=module))
        path.chmod(0o755)
    (venv / ".installed").touch()
    return python


def _plain_make_env():
    """This environment without a calling make's variables: under `make test` a nested make inherits MAKELEVEL and
    MAKEFLAGS and prints "Leaving directory" after the recipe (the line the tests read)."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}


def test_make_lab_passes_allow_root_only_for_root(tmp_path):
    """The lab recipe's command line as make prints it (-n): --allow-root for root, and for another user none."""
    (tmp_path / "Makefile").write_bytes((ROOT / "Makefile").read_bytes())
    (tmp_path / "pyproject.toml").touch()
    line = subprocess.run(["make", "--no-print-directory", "-n", "lab"], cwd=tmp_path, capture_output=True, text=True,
                          env=_plain_make_env()).stdout.splitlines()[-1]
    assert "jupyter lab" in line and (ROOT_FLAG in line) == (os.geteuid() == 0), line
    if os.geteuid() == 0 and shutil.which("setpriv"):
        tmp_path.chmod(0o755)
        for f in ("Makefile", "pyproject.toml"):
            (tmp_path / f).chmod(0o644)
        out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "make",
                              "--no-print-directory", "-n", "lab"], cwd=tmp_path, capture_output=True, text=True,
                             env=_plain_make_env())
        line = out.stdout.splitlines()[-1]
        assert "jupyter lab" in line and ROOT_FLAG not in line, out.stdout + out.stderr


def test_make_lab_from_a_fresh_clone_answers(tmp_path):
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed here (make setup installs it)")
    import requests
    clone = tmp_path / "clone"
    _clone(clone)
    _venv(clone)
    port, token = free_port(), os.urandom(12).hex()
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token} --LabApp.news_url="
    env = dict(os.environ, HOME=str(tmp_path / "home"), JUPYTER_CONFIG_DIR=str(tmp_path / "jcfg"),
               JUPYTER_DATA_DIR=str(tmp_path / "jdata"), JUPYTER_RUNTIME_DIR=str(tmp_path / "jrun"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "lab-settings"), LAB_ARGS=args)
    env.pop("PYTHONPATH", None)
    env.pop("MAKEFLAGS", None)
    log = open(tmp_path / "make-lab.log", "w")
    proc = subprocess.Popen(["make", "lab"], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        def answers():
            if proc.poll() is not None:            # make ended: no server will come
                return "exited"
            return requests.get(f"http://127.0.0.1:{port}/api/status", params={"token": token}, timeout=2).ok
        try:
            state = wait_for(answers, 120, "JupyterLab started by `make lab`", interval=0.5)
        except AssertionError as e:
            raise AssertionError(f"{e}\n{(tmp_path / 'make-lab.log').read_text()[-3000:]}") from None
        assert state is True, f"make lab exited ({proc.returncode}):\n{(tmp_path / 'make-lab.log').read_text()[-3000:]}"
        tree = requests.get(f"http://127.0.0.1:{port}/api/contents", params={"token": token}, timeout=5).json()
        assert {c["name"] for c in tree["content"]} >= {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    text = (tmp_path / "make-lab.log").read_text()
    assert "Running as root is not recommended" not in text and "Error" not in text.split("\n")[0], text[-2000:]
    assert str(clone / "notebooks") in text or "notebooks/" in text
