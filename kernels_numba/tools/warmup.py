"""Compile a chapter's kernels into jitcache's disk cache ahead, in background processes: `warm(names, demos)` starts
them (`python -m kernels_numba.tools.warmup NAME ... demo:MODULE ...`), and a launch waits only for the kernel it needs
(jitcache.wait_ready). A tool above the registry: jitcache itself (which the registry uses) knows no kernel names."""
import contextlib
import importlib
import os
import subprocess
import sys
import time

from .. import registry
from ..infra import device, jitcache
from . import offline
from .offline import SIG


def _targets(names, demos):
    """[(dispatcher, signature)] of registered kernels `names` and of the kernels of demo modules `demos`."""
    return [(k, sig) for _, k, sig in _named_targets(names, demos)]


def _named_targets(names, demos):
    """[(registered name or None, dispatcher, signature)]: _targets with the name of each registered kernel."""
    out = []
    for name in names:
        spec = registry.get(name)
        if spec.runs_here():
            out.append((name, spec.kernel, getattr(spec.module, "SIG", SIG)))
    for mod in demos:
        m = importlib.import_module(f"kernels_numba.demos.{mod}")
        for value in vars(m).values():
            if jitcache.key_of(value) is not None and not any(k is value for _, k, _ in out):
                out.append((None, value, getattr(m, "SIG", SIG)))
    return out


def jit_names(names, demos=()):
    """The registered kernels of `names` that warm() compiles here (they run on this GPU, none is ready on disk): their
    offline entries come from that compile (offline.entries_from_jit), so the offline compile-ahead leaves them out."""
    if device.MODE != "gpu" or jitcache.folder() is None:
        return []
    return [n for n, k, s in _named_targets(names, ()) if not jitcache.is_ready(k, s) and offline.same_lowering(n)]


def warm(names, demos=(), workers=None):
    """Start background processes compiling registered kernels `names` and the kernels of demo modules `demos` for
    this GPU into the disk cache; returns them (none on the simulator, with the cache off, or with nothing to do)."""
    if device.MODE != "gpu" or jitcache.folder() is None or not (names or demos):
        return []
    # a later session: what an earlier one compiled is on disk (ready marker); a launch loads it itself, faster than a
    # worker could start, and no cell waits on a worker's lock (warm runs on the H100: 1.3-1.6 s waits)
    names = [n for n in names if not all(jitcache.is_ready(k, s) for k, s in _targets([n], ()))]
    demos = [d for d in demos if not all(jitcache.is_ready(k, s) for k, s in _targets((), [d]))]
    if not (names or demos):
        return []
    cpus = os.cpu_count() or 2
    workers = workers or max(1, min(8, cpus // 2, len(names) + len(demos)))
    jobs = [[] for _ in range(workers)]
    for i, item in enumerate([*names, *(f"demo:{d}" for d in demos)]):
        jobs[i % workers].append(item)            # round robin: every worker starts with an early kernel
    root = str(jitcache.PACKAGE.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    procs = []
    for job in jobs:
        if job:
            procs.append(subprocess.Popen([sys.executable, "-m", "kernels_numba.tools.warmup", *job], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True))
    jitcache._WARMING.extend(procs)  # wait_ready waits on a lock only where this process started some
    return procs


def _main(items):
    names = [i for i in items if not i.startswith("demo:")]
    demos = [i[5:] for i in items if i.startswith("demo:")]
    for name, kernel, sig in _named_targets(names, demos):
        t0 = time.time()
        what = str(jitcache.key_of(kernel) or name or getattr(kernel, "__name__", "?")).replace(" ", "")
        try:
            with (offline.entries_from_jit(name) if name else contextlib.nullcontext(None)) as write_entries:
                compiled = jitcache.compile_locked(kernel, sig)
                if write_entries is not None:
                    write_entries(compiled.library)     # the offline SASS/PTX entries of the same compile
        except Exception as e:  # noqa: BLE001 — the notebook compiles it itself and shows the error there; the
            jitcache.log("warmup-error", f"{what}:{type(e).__name__}:{e}"[:300].replace("\n", " "), t0)   # next goes on
        jitcache.log("jit", what, t0)


if __name__ == "__main__":
    _main(sys.argv[1:])
