"""Helpers for the live-server tests (JupyterHub, JupyterLab + Chromium): ports, process cleanup, kernel messages."""
import contextlib
import json
import os
import signal
import socket
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHP_LOCAL = ROOT / "deploy" / "jupyterhub" / "node_modules" / ".bin" / "configurable-http-proxy"

RIGHT_06 = {"q1": "32", "q3": "8192", "q6": "c", "q7": "b", "q8": "16", "q4": ["ty", "tx", "row", "a_col"],
            "q2": {"text": "타일을 한 번 읽어 여러 번 재사용한다", "self_ok": True},
            "q5": {"text": "다음 타일 로드가 아직 읽는 값을 덮어쓴다", "self_ok": True}}


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(pred, timeout, what, interval=0.3):
    """Poll pred() until truthy; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:      # noqa: BLE001 - keep polling while the server comes up
            last = e
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last error: {last!r})")


def pids_mentioning(marker):
    """PIDs (not ours) whose command line or environment mentions `marker` (a unique temp path)."""
    found, me = [], os.getpid()
    needle = str(marker).encode()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == me:
            continue
        try:
            blob = (d / "cmdline").read_bytes() + (d / "environ").read_bytes()
        except OSError:
            continue
        if needle in blob:
            found.append(int(d.name))
    return found


def stop_pids(pids, grace=10):
    """SIGTERM each pid we started, then SIGKILL what is left after `grace` seconds."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + grace
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def execute(ws_url, code, headers=None, timeout=300):
    """Run `code` in a Jupyter kernel over its websocket; returns (stdout text, error outputs, reply status)."""
    import websocket
    ws = websocket.create_connection(ws_url, header=headers or [], timeout=timeout)
    try:
        msg_id, session = uuid.uuid4().hex, uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "test", "session": session, "msg_type": "execute_request",
                       "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out, errors, status, idle = [], [], None, False
        deadline = time.time() + timeout
        while (status is None or not idle) and time.time() < deadline:
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                out.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "execute_reply":
                status = content["status"]
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
        return "".join(out), errors, status
    finally:
        ws.close()


def snapshot(root, subdirs=("course", "kernels_numba", "sim", "notebooks", "answers")):
    """Every path under the course's folders (to prove nothing new was written there)."""
    out = set()
    for sub in subdirs:
        for dirpath, dirnames, filenames in os.walk(Path(root) / sub):
            for n in dirnames + filenames:
                out.add(os.path.relpath(os.path.join(dirpath, n), root))
    return out


# ------------------------------------------------------------------ JupyterLab + Chromium (the real-browser tests)
CHROMIUM = os.environ.get("SGEMM_CHROMIUM", "/usr/bin/chromium")
# Playwright adds --headless and a fresh temporary --user-data-dir itself
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


def lab_settings(tmp_path, windowing="none"):
    """A JupyterLab settings folder with news off and the notebook's windowingMode: "none" (the default here) attaches
    every cell, so the test's locators and innerText see all of them (JupyterLab 4.6's own default,
    "contentVisibility", leaves the text of off-screen outputs unrendered); None keeps JupyterLab's default."""
    base = tmp_path / "lab-settings" / "@jupyterlab"
    (base / "apputils-extension").mkdir(parents=True)
    (base / "apputils-extension" / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    if windowing:
        (base / "notebook-extension").mkdir(parents=True)
        tracker = base / "notebook-extension" / "tracker.jupyterlab-settings"
        tracker.write_text(json.dumps({"windowingMode": windowing}))
    return tmp_path / "lab-settings"


@contextlib.contextmanager
def jupyter_lab(work, env, tmp_path):
    """JupyterLab serving folder `work` with environment `env` on a free local port: yields (url, token); stopped
    afterwards with every kernel it started."""
    import subprocess
    import sys

    import requests
    bin_dir = Path(sys.executable).parent
    port, token = free_port(), os.urandom(12).hex()
    cmd = [str(bin_dir / "jupyter"), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: requests.get(f"http://127.0.0.1:{port}/api/status", params={"token": token},
                                      timeout=2).ok, 90, "JupyterLab")
        yield f"http://127.0.0.1:{port}", token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        stop_pids(pids_mentioning(tmp_path))      # kernels it started, if any survived


def checkout_files(root=ROOT):
    """The checkout's files as a fresh clone plus uncommitted work has them (tracked and untracked, not ignored)."""
    import subprocess
    out = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=root, capture_output=True,
                         text=True, check=True).stdout.split("\0")
    return sorted({f for f in out if f and (Path(root) / f).is_file()})
