"""JupyterHub for a class taking the SGEMM course: jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

The course is installed once (read-only) for all users, without answers/ (see README.md here).
Each user gets:
  * their own copy of the notebooks in ~/sgemm-course/ (copied on first start, never overwritten),
  * their own progress in ~/.sgemm-course/ (or $SGEMM_PROGRESS_ROOT/<user>/ when the hub sets it),
  * no writes into the course folder: no bytecode, Numba/matplotlib caches in the user's home.
The instructor makes the class report with: python -m course.quiz.report --all-homes

Knobs (environment of the hub process): SGEMM_COURSE_DIR (default /opt/sgemm-course, holds notebooks/),
SGEMM_PROGRESS_ROOT (optional shared progress root, one folder per user, writable by that user),
SGEMM_HUB_ADMINS (comma-separated instructor logins), SGEMM_HUB_GROUP (Unix group allowed to log in; default:
every account that can log in), SGEMM_REVEAL_AFTER (show checkpoint keys after N failed attempts; default: only
after a pass).
"""
import os
import pwd
import shutil
from pathlib import Path

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

COURSE_DIR = Path(os.environ.get("SGEMM_COURSE_DIR", "/opt/sgemm-course"))
PROGRESS_ROOT = os.environ.get("SGEMM_PROGRESS_ROOT", "")
WORK_NAME = "sgemm-course"          # the user's own copy of the notebooks, in their home

# --- who logs in: system accounts (PAM) by default; swap for an OAuthenticator/NativeAuthenticator as needed
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.admin_users = {u.strip() for u in os.environ.get("SGEMM_HUB_ADMINS", "").split(",") if u.strip()}
if os.environ.get("SGEMM_HUB_GROUP"):        # only members of this Unix group (e.g. sgemm-class) may log in
    c.Authenticator.allowed_groups = {os.environ["SGEMM_HUB_GROUP"]}
else:                                        # every account that can log in to the server
    c.Authenticator.allow_all = True

# --- where each user runs: their own process as their own OS user (LocalProcessSpawner)
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~/" + WORK_NAME
c.Spawner.mem_limit = "4G"           # enforced only by spawners that can (systemd, docker, kubernetes)


def user_home(spawner):
    """The user's home as the spawner sees it (SimpleLocalProcessSpawner in tests, the account's home otherwise)."""
    home = getattr(spawner, "home_dir", None)
    return Path(home) if home else Path(pwd.getpwnam(spawner.user.name).pw_dir)


def progress_dir(spawner):
    """SGEMM_PROGRESS for this user: the shared root's <user>/ folder, else ~/.sgemm-course."""
    if PROGRESS_ROOT:
        return str(Path(PROGRESS_ROOT) / spawner.user.name)
    return str(user_home(spawner) / ".sgemm-course")


c.Spawner.environment = {
    "SGEMM_PROGRESS": progress_dir,
    "SGEMM_STUDENT": lambda spawner: spawner.user.name,
    # nothing written into the (read-only) course folder: no __pycache__, caches in the user's home
    "PYTHONDONTWRITEBYTECODE": "1",
    "NUMBA_CACHE_DIR": lambda spawner: str(user_home(spawner) / ".cache" / "numba"),
    "MPLCONFIGDIR": lambda spawner: str(user_home(spawner) / ".cache" / "matplotlib"),
    "SGEMM_DEVICE": os.environ.get("SGEMM_DEVICE", "auto"),
    # instructor setting: keys and explanations after N failed attempts of a checkpoint (empty: only after a pass)
    "SGEMM_REVEAL_AFTER": os.environ.get("SGEMM_REVEAL_AFTER", ""),
}


def _hand_over(paths, spawner):
    """As root (LocalProcessSpawner), make what the hook created belong to the user; no-op otherwise."""
    if os.geteuid() != 0 or getattr(spawner, "home_dir", None):   # not root, or the test spawner
        return
    try:
        pw = pwd.getpwnam(spawner.user.name)
    except KeyError:                     # not a system account (test spawner): nothing to hand over
        return
    for p in paths:
        os.chown(p, pw.pw_uid, pw.pw_gid)


def copy_course(spawner):
    """Before each start: the user's notebook copy in ~/sgemm-course/ (first time only, never overwritten)
    and, with SGEMM_PROGRESS_ROOT, the user's own progress folder there."""
    if PROGRESS_ROOT:
        mine = Path(progress_dir(spawner))
        if not mine.exists():
            mine.mkdir(parents=True, mode=0o700)
            _hand_over([mine], spawner)
    dest = user_home(spawner) / WORK_NAME
    src = COURSE_DIR / "notebooks"
    if dest.exists() or not src.is_dir():
        return
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("src", ".ipynb_checkpoints", "__pycache__"))
    _hand_over([dest, *dest.rglob("*")], spawner)


c.Spawner.pre_spawn_hook = copy_course
