"""On a GPU, the warmup's JIT compile writes a kernel's offline entries (sm_80, sm_90) from its own LLVM IR
(offline.entries_from_jit): they must be the entries an offline compile writes, and a cell must wait for them."""
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from kernels_numba.tools import offline

ROOT = Path(__file__).resolve().parents[1]


class _Library:
    """What entries_from_jit reads of a JIT compile's code library: its NVVM options and its PTX per target."""

    def __init__(self, ptx_by_cc, **nvvm):
        self._nvvm_options = {"fastmath": False, "opt": 3, "arch": "compute_90a", **nvvm}
        self.ptx_by_cc = ptx_by_cc

    def get_asm_strs(self, cc=None):
        return [self.ptx_by_cc[tuple(cc[:2])]]


def _entries(folder, name):
    """{cc: entry} of `name` in an offline cache folder."""
    out = {}
    for cc in offline.ARCHS:
        with open(offline._cache_path(str(folder), name, cc), encoding="utf-8") as f:
            out[cc] = json.load(f)
    return out


def test_entries_from_a_jit_library_are_the_offline_entries(tmp_path, monkeypatch):
    """From the same PTX, the entries written beside a JIT compile equal an offline compile's (SASS, resources, PTX);
    while the compile runs, their locks are held (a cell asking for one waits instead of compiling it again); a
    library compiled with other NVVM options (fastmath) writes nothing."""
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path / "offline"))
    # try_compile remembers its results in memory: an earlier test of this worker may have compiled naive already,
    # and then nothing would reach this folder. A fresh memo for this test only.
    monkeypatch.setattr(offline, "try_compile", functools.lru_cache(maxsize=None)(offline.try_compile.__wrapped__))
    offline.compile_kernel("naive", (8, 0))                 # sm_90 comes with it (one front-end pass)
    want = _entries(tmp_path / "offline", "naive")
    library = _Library({cc: e["ptx"] for cc, e in want.items()})

    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path / "from_jit"))
    paths = [offline._cache_path(str(tmp_path / "from_jit"), "naive", cc) for cc in offline.ARCHS]
    with offline.entries_from_jit("naive") as write:
        for path in paths:
            with pytest.raises(Timeout):
                FileLock(path + ".lock", timeout=0).acquire()
        assert write(library) == list(offline.ARCHS)
    got = _entries(tmp_path / "from_jit", "naive")
    for cc in offline.ARCHS:
        for field in ("name", "cc", "ptx", "sass", "usage", "launch_bounds"):
            assert got[cc][field] == want[cc][field], (cc, field)
    for path in paths:                                      # released
        FileLock(path + ".lock", timeout=0).acquire()
        os.remove(path)
    with offline.entries_from_jit("naive") as write:
        assert write(_Library(library.ptx_by_cc, fastmath=True)) == []
    assert not any(os.path.exists(p) for p in paths)


def test_an_entry_on_disk_is_left_alone(tmp_path, monkeypatch):
    """An entry another process already wrote is not written again (nor locked: a reader never waits on it)."""
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path))
    path = offline._cache_path(str(tmp_path), "naive", (8, 0))
    Path(path).write_text('{"kept": true}', encoding="utf-8")
    with offline.entries_from_jit("naive") as write:
        FileLock(path + ".lock", timeout=0).acquire()
        assert (8, 0) not in write(_Library({(8, 0): "not used", (9, 0): "not PTX"}))
    assert json.loads(Path(path).read_text(encoding="utf-8")) == {"kept": True}


CHILD_OFFLINE = "from kernels_numba.tools import offline\nfor cc in offline.ARCHS: offline.try_compile({name!r}, cc)\n"


@pytest.mark.gpu_only("the JIT compiles for the GPU")
@pytest.mark.parametrize("name", ["regblock_vec", "async_vec", "mma_fast", "wgmma_tma"])
def test_the_warmup_writes_what_an_offline_compile_writes(name, tmp_path):
    """The warmup process (as a notebook's first cell starts it) compiles `name` for this GPU and writes its offline
    entries; a separate offline compile of the same kernel gives the same resources, SASS and PTX (the kernel's
    mangled names aside: they number the functions one process compiled)."""
    from kernels_numba import registry
    if not registry.get(name).runs_here():
        pytest.skip(f"{name} does not run on this GPU")
    base = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-m", "kernels_numba.tools.warmup", name], check=True, cwd=ROOT,
                   env=dict(base, SGEMM_JIT_CACHE=str(tmp_path / "jit"), SGEMM_OFFLINE_CACHE=str(tmp_path / "a")))
    subprocess.run([sys.executable, "-c", CHILD_OFFLINE.format(name=name)], check=True, cwd=ROOT,
                   env=dict(base, SGEMM_OFFLINE_CACHE=str(tmp_path / "b")))
    jit, off = _entries(tmp_path / "a", name), _entries(tmp_path / "b", name)
    for cc in offline.ARCHS:
        assert ("error" in jit[cc]) == ("error" in off[cc]), cc
        if "error" in off[cc]:
            continue
        assert jit[cc]["usage"] == off[cc]["usage"], cc
        assert offline.sass_counts(jit[cc]["sass"]) == offline.sass_counts(off[cc]["sass"]), cc
        assert _unmangled(jit[cc]["ptx"]) == _unmangled(off[cc]["ptx"]), cc


def _unmangled(ptx):
    """The PTX's lines without comments, each mangled name (_ZN...) made one token: a kernel's mangled name carries a
    hash of its closure's state that differs between two processes."""
    import re
    return [re.sub(r"_ZN\w+", "_ZN…", line) for line in ptx.splitlines() if not line.lstrip().startswith("//")]


def test_every_registered_kernel_lowers_as_an_offline_compile(tmp_path):
    """Every registered kernel's JIT options leave the IR as an offline compile makes it (same_lowering), so on a GPU
    the warmup writes its offline entries and the compile-ahead may leave it out. Real dispatchers: SGEMM_DEVICE=offline
    (as the compile worker runs); lto=True, numba-cuda's default, only changes how the GPU binary is linked."""
    code = ("from kernels_numba import registry\nfrom kernels_numba.tools import offline\n"
            "print([s.name for s in registry.REGISTRY if not offline.same_lowering(s.name)])\n")
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.split("\n")[-2] == "[]", r.stdout + r.stderr[-2000:]
