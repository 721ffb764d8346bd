"""kernels_numba.infra.jitcache: every registered kernel has a key of its own configuration; entries go stale with any
source change; on a GPU a second process loads a kernel the first one compiled (gpu_only)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernels_numba as kn
from kernels_numba.infra import device, jitcache
from kernels_numba.tools import warmup

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
    from numba import cuda
    from kernels_numba.infra import jitcache
    spec = kn.get("{name}")
    t = time.perf_counter()
    if {launch}:        # the notebook's way: a launch with device arrays (Numba compiles the arguments' type tuple)
        A = cuda.to_device(np.ones((64, 64), spec.module.DTYPE if hasattr(spec.module, "DTYPE") else np.float32))
        C = cuda.to_device(np.zeros((64, 64), getattr(spec.module, "C_DTYPE", np.float32)))
        spec.launch(A, A, C)
        cuda.synchronize()
    else:               # the background compile's way (kernels_numba.tools.warmup): the module's signature string
        jitcache.compile_locked(spec.kernel, getattr(spec.module, "SIG", "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)"))
    print(sum(spec.kernel._cache_hits.values()), round(time.perf_counter() - t, 2))
""")


@pytest.mark.gpu_only("compiles for the GPU in two processes")
@pytest.mark.parametrize("name", ["regblock_vec", "mma_fast"])
@pytest.mark.parametrize("second", ["compile", "launch"])
def test_second_process_loads_what_the_first_compiled(name, second, tmp_path):
    """The first process compiles as the background warmup does; the second compiles the same way, or launches as a
    notebook cell does. Either way it loads the entry (a launch missed it before the key ignored the signature's
    spelling: every notebook compiled its kernels a second time)."""
    env = dict(os.environ, SGEMM_JIT_CACHE=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = [subprocess.run([sys.executable, "-c", CHILD.format(name=name, launch=launch)], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
            for launch in (False, second == "launch")]
    (hits1, t1), (hits2, t2) = runs
    assert hits1 == "0" and hits2 == "1", runs                 # mma_fast is made by a factory: it hits too
    assert float(t2) < float(t1)


KEY_CHILD = textwrap.dedent("""
    import numpy as np, numba
    import kernels_numba as kn
    from numba.cuda.core import sigutils
    from kernels_numba.infra import jitcache
    _, KeyedCache = jitcache._classes()
    cache = KeyedCache(kn.get("regblock_vec").kernel.py_func, "regblock_vec:None")

    class Codegen:
        def magic_tuple(self):
            return ("nvptx64-nvidia-cuda", "sm_90", "")
    sig = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1], float32, float32)"
    a = numba.typeof(np.zeros((2, 2), np.float32))
    launched = (a, a, a, numba.float32, numba.float32)
    assert sigutils.normalize_signature(sig)[0] == launched
    assert cache._index_key(sig, Codegen()) == cache._index_key(launched, Codegen())
    assert cache._index_key((a, a, a, numba.float64, numba.float64), Codegen()) != cache._index_key(sig, Codegen())
    print("same key")
""")


def test_index_key_is_the_argument_types_however_spelled(tmp_path):
    """The key of a string signature (warmup's kernel.compile(SIG)) equals that of the argument-type tuple a launch
    compiles (Dispatcher._compile_for_args): one entry serves both. Numba's real cache classes, no GPU needed
    (SGEMM_DEVICE=offline, as the compile worker runs)."""
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0", SGEMM_JIT_CACHE=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", KEY_CHILD], env=env, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "same key" in r.stdout, r.stdout + r.stderr[-3000:]


def test_ready_marker_after_a_compile_and_only_for_these_sources(tmp_path, monkeypatch):
    """compile_locked leaves a marker that a later session reads (warmup then starts no worker for that kernel); the
    marker belongs to the kernel's key, signature, sources and compute capability: an edited source is not ready."""
    monkeypatch.setenv(jitcache.ENV, str(tmp_path))

    class Cache:
        _course_key = "fake:None"

    class Kernel:
        _cache = Cache()
        compiled = 0

        def compile(self, sig):
            Kernel.compiled += 1
            return "kernel"
    k, sig = Kernel(), "void(float32[:, ::1])"
    assert not jitcache.is_ready(k, sig)
    assert jitcache.compile_locked(k, sig) == "kernel" and Kernel.compiled == 1
    assert jitcache.is_ready(k, sig) and not jitcache.is_ready(k, "void(float64[:, ::1])")
    from numba import float32     # local: the argument types a launch compiles for (a tuple, not the string)
    assert jitcache.is_ready(k, (float32[:, ::1],)), "a launch's tuple of types must find the string's marker"
    monkeypatch.setattr(jitcache, "_STAMP", ["another source stamp"])
    assert not jitcache.is_ready(k, sig)


@pytest.mark.gpu_only("compiles for the GPU")
def test_a_warm_session_starts_no_worker(tmp_path):
    """Once a kernel is compiled into the cache, warmup.warm starts no background process for it."""
    env = dict(os.environ, SGEMM_JIT_CACHE=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = ("import kernels_numba as kn\nfrom kernels_numba.infra import jitcache\nfrom kernels_numba.tools import warmup\n"
            "s = kn.get('regblock_vec')\njitcache.compile_locked(s.kernel, warmup.SIG)\n"
            "print(len(warmup.warm(['regblock_vec'])))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "0", out
