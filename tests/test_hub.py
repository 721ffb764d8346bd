"""A class on a shared server: a real JupyterHub on 127.0.0.1 with two users, and a read-only course folder."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from _live import (CHP_LOCAL, RIGHT_06, ROOT, execute, free_port, pids_mentioning, snapshot, stop_pids,
                   wait_for)

SHIPPED = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
BIN = Path(sys.executable).parent
WRONG_06 = {"q1": "32", "q3": "4096", "q6": "b", "q7": "c", "q8": "16", "q4": ["tx", "ty", "row", "a_col"],
            "q2": {"text": "모르겠다", "self_ok": False}, "q5": {"text": "", "self_ok": False}}
CELL = textwrap.dedent("""
    import course
    course.setup("06")
    from course.quiz import submit
    result, saved = submit("06", {answers!r})
    print("RESULT", result.score, result.passed, saved.ok, saved.path)
    result, saved = submit("06", {answers!r}, student="kim")      # both users type the same name
    print("TYPED", result.score, result.passed, saved.ok, saved.attempts)
    print(course.progress())
""")


def _chp():
    return str(CHP_LOCAL) if CHP_LOCAL.exists() else shutil.which("configurable-http-proxy")


needs_hub = pytest.mark.skipif(
    not _chp() or not (BIN / "jupyterhub").exists(),
    reason="JupyterHub test needs `pip install -e .[class]` and configurable-http-proxy "
           "(cd deploy/jupyterhub && npm install); .ci/run installs both")


def _config(tmp, ports, token):
    singleuser = [str(BIN / "jupyterhub-singleuser")] + (["--allow-root"] if os.geteuid() == 0 else [])
    return textwrap.dedent(f"""
        c = get_config()
        load_subconfig({str(SHIPPED)!r})          # the shipped configuration, then test-only overrides
        c.JupyterHub.ip = "127.0.0.1"
        c.JupyterHub.port = {ports[0]}
        c.JupyterHub.hub_ip = "127.0.0.1"
        c.JupyterHub.hub_port = {ports[1]}
        c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports[2]}"
        c.ConfigurableHTTPProxy.command = [{_chp()!r}]
        c.JupyterHub.db_url = "sqlite:///{tmp}/hub.sqlite"
        c.JupyterHub.cookie_secret_file = "{tmp}/cookie_secret"
        c.JupyterHub.pid_file = "{tmp}/hub.pid"
        c.JupyterHub.authenticator_class = "dummy"
        c.Authenticator.allow_all = True
        c.JupyterHub.spawner_class = "simple"
        c.SimpleLocalProcessSpawner.home_dir_template = "{tmp}/home/{{username}}"
        c.Spawner.cmd = {singleuser!r}
        c.Spawner.start_timeout = 120
        c.Spawner.http_timeout = 120
        c.Spawner.environment.update({{"PYTHONPATH": {str(ROOT)!r}, "SGEMM_DEVICE": "sim",
                                      "JUPYTER_CONFIG_DIR": "{tmp}/jupyter-config"}})
        c.JupyterHub.services = [{{"name": "course-test", "api_token": {token!r}}}]
        c.JupyterHub.load_roles = [{{"name": "course-test", "services": ["course-test"],
                                    "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}}]
    """)


@needs_hub
def test_two_users_on_a_real_jupyterhub(tmp_path):
    import requests
    t0 = time.time()
    tmp = Path(str(tmp_path))
    ports = [free_port() for _ in range(3)]
    token = os.urandom(16).hex()
    (tmp / "jupyterhub_config.py").write_text(_config(tmp, ports, token))
    before = snapshot(ROOT)
    env = dict(os.environ, SGEMM_COURSE_DIR=str(ROOT), PYTHONDONTWRITEBYTECODE="1",
               PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    env.pop("SGEMM_PROGRESS", None)
    env.pop("SGEMM_STUDENT", None)
    log = open(tmp / "hub.log", "w")
    hub = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(tmp / "jupyterhub_config.py")], cwd=tmp,
                           env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{ports[0]}"
    api = f"{base}/hub/api"
    admin = {"Authorization": f"token {token}"}
    try:
        wait_for(lambda: requests.get(f"{api}/", timeout=2).ok, 90, "the hub API")
        results = {}
        for user, answers in (("alice", RIGHT_06), ("bob", WRONG_06)):
            # log in through the real login form (DummyAuthenticator), as a browser would
            s = requests.Session()
            page = s.get(f"{base}/hub/login", timeout=10).text
            xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page).group(1)
            r = s.post(f"{base}/hub/login", data={"username": user, "password": "pw", "_xsrf": xsrf},
                       allow_redirects=False, timeout=30)
            assert r.status_code == 302 and any("jupyterhub" in k for k in s.cookies.keys()), r.text[:300]
            # start the user's server and get a token for that user only
            r = requests.post(f"{api}/users/{user}/server", headers=admin, timeout=30)
            assert r.status_code in (201, 202), r.text
            wait_for(lambda: requests.get(f"{api}/users/{user}", headers=admin, timeout=5)
                     .json()["servers"].get("", {}).get("ready"), 150, f"{user}'s server")
            utok = requests.post(f"{api}/users/{user}/tokens", headers=admin, json={"note": "test"},
                                 timeout=10).json()["token"]
            uh = {"Authorization": f"token {utok}"}
            kid = requests.post(f"{base}/user/{user}/api/kernels", headers=uh, json={"name": "python3"},
                                timeout=60).json()["id"]
            ws = f"ws://127.0.0.1:{ports[0]}/user/{user}/api/kernels/{kid}/channels"
            out, errors, status = execute(ws, CELL.format(answers=answers), [f"Authorization: token {utok}"])
            assert status == "ok" and not errors, (out, errors)
            results[user] = out
            # a user's token does not open another user's server
            other = "bob" if user == "alice" else "alice"
            assert requests.get(f"{base}/user/{other}/api/kernels", headers=uh, timeout=10,
                                allow_redirects=False).status_code in (302, 403, 404)
        assert "RESULT 8 True True" in results["alice"] and "RESULT 2 False True" in results["bob"]
        assert "TYPED 8 True True 1" in results["alice"] and "TYPED 2 False True 1" in results["bob"]
        assert "통과 ✅" in results["alice"] and "미통과" in results["bob"]
        home = tmp / "home"
        for user, score in (("alice", 8), ("bob", 2)):
            recs = [json.loads(x) for x in (home / user / ".sgemm-course" / "attempts.jsonl").read_text().splitlines()]
            assert sorted((r["student"], r["score"]) for r in recs) == sorted([("kim", score), (user, score)])
            assert (home / user / "sgemm-course" / "06_shared_memory_tiling.ipynb").exists() or \
                list((home / user / "sgemm-course").glob("06_*.ipynb"))
        # the instructor's report over every home, one command
        rep = subprocess.run([sys.executable, "-m", "course.quiz.report", "--all-homes", "--homes-glob",
                              str(home / "*" / ".sgemm-course"), "--out", str(tmp / "report")],
                             env=dict(env, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=120)
        assert rep.returncode == 0, rep.stderr
        assert "2개" in rep.stdout and "학생 2명" in rep.stdout and "통과율 pass rate 50%" in rep.stdout
        for user in ("alice", "bob"):            # the same typed name in two accounts: two students, the clash listed
            assert f"계정 account {user!r} 의 폴더에 이름 name 'kim' 기록 1개" in rep.stdout
        with open(tmp / "report" / "clashes.csv", encoding="utf-8-sig") as f:
            assert sorted((r["account"], r["student"]) for r in csv.DictReader(f)) == [("alice", "kim"), ("bob", "kim")]
        with open(tmp / "report" / "results.csv", encoding="utf-8-sig") as f:
            rows = [(r["student"], r["best_score"], r["passed"]) for r in csv.DictReader(f)]
        assert rows == [("alice, kim", "8", "yes"), ("bob, kim", "2", "no")]
        with open(tmp / "report" / "results.csv", encoding="utf-8-sig") as f:
            assert [r["account"] for r in csv.DictReader(f)] == ["alice", "bob"]
        for user in ("alice", "bob"):
            assert requests.delete(f"{api}/users/{user}/server", headers=admin, timeout=60).status_code in (202, 204)
    finally:
        hub.terminate()                               # the hub stops the proxy and the user servers
        try:
            hub.wait(timeout=30)
        except subprocess.TimeoutExpired:
            hub.kill()
        log.close()
        deadline = time.time() + 20
        while pids_mentioning(tmp) and time.time() < deadline:
            time.sleep(0.5)
        left = pids_mentioning(tmp)
        stop_pids(left)
        print(f"hub test: {time.time() - t0:.1f}s", file=sys.stderr)
    assert not left, f"processes still running after the hub stopped: {left}"
    assert snapshot(ROOT) == before, sorted(snapshot(ROOT) ^ before)   # nothing written into the course folder


READ_ONLY_RUN = textwrap.dedent("""
    import json, sys, nbformat
    from nbclient import NotebookClient
    src = json.load(open(sys.argv[1], encoding="utf-8"))
    first = next((''.join(c["source"]) for c in src["cells"] if c["cell_type"] == "code"), "")
    cells = [first] if "course.setup" in first else []
    cells += ["import course\\ncourse.setup('06')",
              "from course.quiz import submit\\nr, s = submit('06', %r)\\nprint('RESULT', r.score, s.ok)",
              "print(course.progress())"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    errs = [o for c in nb.cells for o in c.outputs if o["output_type"] == "error"]
    print("OUT", json.dumps([o.get("text", "") for c in nb.cells for o in c.outputs if o["output_type"] == "stream"]))
    print("ERRORS", len(errs), [e["ename"] + ": " + e["evalue"] for e in errs])
""")


def test_read_only_course_folder(tmp_path):
    """The course copied, chmod -R a-w (as root without CAP_DAC_OVERRIDE): the first cells run, nothing is written."""
    course_copy = tmp_path / "course-ro"
    course_copy.mkdir()
    for name in ("course", "kernels_numba", "sim", "notebooks", "answers"):
        shutil.copytree(ROOT / name, course_copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run(["chmod", "-R", "a-w", str(course_copy)], check=True)
    before = snapshot(course_copy)
    home = tmp_path / "home"
    home.mkdir()
    nb06 = next((course_copy / "notebooks").glob("06_*.ipynb"))
    cmd = [sys.executable, "-c", READ_ONLY_RUN % (RIGHT_06,), str(nb06)]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: chmod cannot make the folder read-only for root")
        cmd = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--inh-caps=-all", "--"] + cmd
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGEMM_PROGRESS", "SGEMM_STUDENT", "JUPYTER"))}
    # the copy, then any dependency folders already on PYTHONPATH (the GPU machine's numpy<2.5), never the checkout
    deps = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.realpath(p) != os.path.realpath(ROOT)]
    env.update(PYTHONPATH=os.pathsep.join([str(course_copy), *deps]), HOME=str(home), PYTHONDONTWRITEBYTECODE="1", SGEMM_DEVICE="sim",
               NUMBA_CACHE_DIR=str(home / ".cache" / "numba"), SGEMM_STUDENT="ro-student")
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=str(home))
        assert r.returncode == 0, r.stderr[-3000:]
        assert "ERRORS 0" in r.stdout, r.stdout[-3000:]
        assert "RESULT 8 True" in r.stdout
        recs = (home / ".sgemm-course" / "attempts.jsonl").read_text().splitlines()
        assert len(recs) == 1 and json.loads(recs[0])["student"] == "ro-student"
        assert snapshot(course_copy) == before, sorted(snapshot(course_copy) ^ before)
        probe = subprocess.run(cmd[:cmd.index(sys.executable)] + [sys.executable, "-c",
                               f"open({str(course_copy / 'course' / 'probe')!r}, 'w')"],
                               capture_output=True, text=True)
        assert probe.returncode != 0 and "Permission" in probe.stderr     # it really was read-only
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(course_copy)], check=False)
