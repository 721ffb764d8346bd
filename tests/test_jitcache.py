"""kernels_numba.infra.jitcache: every registered kernel has a key of its own configuration; entries go stale with any
source change; on a GPU a second process loads a kernel the first one compiled (gpu_only)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernels_numba as kn
from kernels_numba.infra import device, jitcache, warmup

ROOT = Path(__file__).resolve().parents[1]


def _key(spec):
    return f"{spec.module.__name__.rsplit('.', 1)[1]}:{getattr(spec.module, 'CONFIG', None)!r}"


def test_keys_name_each_configuration_once():
    keys = [_key(s) for s in kn.REGISTRY]
    assert len(set(keys)) == len(keys)
    # kernels made by one factory differ in their key (mma_warps / mma_pipe / ... all come from tc.build_tiled)
    tiled = [s for s in kn.REGISTRY if s.kernel.py_func.__qualname__.startswith("build_tiled")]
    assert len(tiled) >= 4 and len({repr(s.module.CONFIG) for s in tiled}) == len(tiled)


def test_stamp_changes_with_any_source_file(tmp_path, monkeypatch):
    pkg = tmp_path / "kernels_numba"
    (pkg / "infra" / "ptx").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "infra" / "ptx" / "b.ptx").write_text("// ptx\n")
    monkeypatch.setattr(jitcache, "PACKAGE", pkg)

    def stamp():
        jitcache._STAMP.clear()
        return jitcache.sources_stamp()
    first = stamp()
    (pkg / "infra" / "ptx" / "b.ptx").write_text("// ptx changed\n")
    assert stamp() != first
    (pkg / "infra" / "ptx" / "b.ptx").write_text("// ptx\n")
    assert stamp() == first
    jitcache._STAMP.clear()


def test_folder_off_and_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv(jitcache.ENV, "off")
    assert jitcache.folder() is None
    monkeypatch.setenv(jitcache.ENV, str(tmp_path / "jit"))
    assert jitcache.folder() == tmp_path / "jit" and (tmp_path / "jit").is_dir()


@pytest.mark.sim_only("the simulator compiles nothing: no cache, no background compiles")
def test_simulator_does_nothing():
    assert jitcache.enable(kn.get("tiled").kernel, "x") is False
    assert warmup.warm(["tiled"]) == []


CHILD = textwrap.dedent("""
    import time, numpy as np, kernels_numba as kn
    from kernels_numba.infra import jitcache
    spec = kn.get("{name}")
    t = time.perf_counter()
    jitcache.compile_locked(spec.kernel, getattr(spec.module, "SIG", "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)"))
    print(sum(spec.kernel._cache_hits.values()), round(time.perf_counter() - t, 2))
""")


@pytest.mark.gpu_only("compiles for the GPU in two processes")
@pytest.mark.parametrize("name", ["regblock_vec", "mma_fast"])
def test_second_process_loads_what_the_first_compiled(name, tmp_path):
    env = dict(os.environ, SGEMM_JIT_CACHE=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = [subprocess.run([sys.executable, "-c", CHILD.format(name=name)], env=env, capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    (hits1, t1), (hits2, t2) = runs
    assert hits1 == "0" and hits2 == "1", runs                 # mma_fast is made by a factory: it hits too
    assert float(t2) < float(t1)
