"""The offline compile cache (kernels_numba.tools.offline): one compile per (kernel, cc, sources, toolchain), shared by
processes, in $SGEMM_OFFLINE_CACHE or else the user's cache folder; "off", or a place it cannot write: every call compiles;
what is not cached compiles in one long-lived worker process."""
import json

from kernels_numba.tools import offline


class Compiler:
    """A stand-in for the compile subprocess that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return {"ptx": f".target sm_80 // compile {self.calls}", "sass": "", "usage": {"registers": self.calls}}


def test_without_the_variable_the_user_cache_folder_is_used(monkeypatch, tmp_path):
    monkeypatch.delenv(offline.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert offline.cache_folder() == str(tmp_path / "sgemm-course" / "offline")
    c = Compiler()
    offline._cached("naive", (8, 0), c)
    assert offline._cached("naive", (8, 0), c)["usage"]["registers"] == 1 and c.calls == 1    # a re-run reads it back


def test_off_means_every_call_compiles(monkeypatch):
    monkeypatch.setenv(offline.CACHE_ENV, "off")
    assert offline.cache_folder() is None
    c = Compiler()
    assert offline._cached("naive", (8, 0), c)["usage"]["registers"] == 1
    assert offline._cached("naive", (8, 0), c)["usage"]["registers"] == 2


def test_one_compile_per_kernel_and_cc(monkeypatch, tmp_path):
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path / "cache"))
    c = Compiler()
    first = offline._cached("naive", (8, 0), c)
    assert offline._cached("naive", (8, 0), c) == first and c.calls == 1          # read back from the folder
    assert offline._cached("naive", (9, 0), c)["usage"]["registers"] == 2         # another cc, another entry
    assert offline._cached("tiled", (8, 0), c)["usage"]["registers"] == 3         # another kernel
    files = sorted(p.name for p in (tmp_path / "cache").glob("*.json"))
    assert len(files) == 3 and files[0].startswith("naive-sm_80-")
    assert json.loads((tmp_path / "cache" / files[0]).read_text()) == first


def test_a_torn_entry_is_compiled_again(monkeypatch, tmp_path):
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path))
    c = Compiler()
    offline._cached("naive", (8, 0), c)
    entry = next(tmp_path.glob("naive-sm_80-*.json"))
    entry.write_text('{"ptx": ')
    assert offline._cached("naive", (8, 0), c)["usage"]["registers"] == 2
    assert json.loads(entry.read_text())["usage"]["registers"] == 2


def test_unusable_folder_compiles_without_cache(monkeypatch, tmp_path):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path / "a-file" / "cache"))
    c = Compiler()
    offline._cached("naive", (8, 0), c)
    offline._cached("naive", (8, 0), c)
    assert c.calls == 2


def test_key_follows_kernel_sources_and_ptx(monkeypatch, tmp_path):
    for sub in ("kernels_numba/infra/ptx", "sim"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "kernels_numba" / "naive.py").write_text("A = 1\n")
    (tmp_path / "kernels_numba" / "infra" / "ptx" / "fma.ptx").write_text("fma.rn.f32 %0, %1, %2, %3;\n")
    (tmp_path / "sim" / "mma.py").write_text("B = 1\n")
    monkeypatch.setattr(offline, "_ROOT", str(tmp_path))
    key = offline._toolchain_key.__wrapped__
    k0 = key()
    (tmp_path / "kernels_numba" / "__pycache__").mkdir()
    (tmp_path / "kernels_numba" / "__pycache__" / "naive.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "kernels_numba" / "notes.txt").write_text("not a source")
    assert key() == k0                                   # bytecode and other files do not matter
    seen = {k0}
    for path, text in (("kernels_numba/naive.py", "A = 2\n"), ("kernels_numba/infra/ptx/fma.ptx", "fma.rn.f32 %0;\n"),
                       ("sim/mma.py", "B = 2\n"), ("kernels_numba/new.py", "")):
        (tmp_path / path).write_text(text)
        seen.add(key())
    assert len(seen) == 5                                # every source edit gives a new key
    monkeypatch.setenv("NUMBA_OPT", "0")
    assert key() not in seen                             # so does a NUMBA_* setting


def test_one_worker_process_serves_every_compile():
    offline._WORKER.stop()
    first = offline._compile_subprocess("naive", (8, 0))
    pid = offline._WORKER.proc.pid
    both = offline._compile_subprocess_many([("tiled", (9, 0)), ("naive", (7, 5))])
    assert offline._WORKER.proc.pid == pid                                    # no new Python start-up per compile
    assert [r["name"] for r in both] == ["tiled", "naive"] and "usage" in first
    try:
        offline._compile_subprocess("no_such_kernel", (8, 0))
        raise AssertionError("an unknown kernel compiled")
    except offline.OfflineCompileError as e:
        assert "no_such_kernel sm_80" in str(e) and "Traceback" in str(e)     # the worker's own error, named
    assert offline._WORKER.proc.poll() is None                                # and the worker lives on
    offline._WORKER.proc.kill()
    offline._WORKER.proc.wait()
    assert offline._compile_subprocess("naive", (8, 0))["ptx"] == first["ptx"]   # a dead worker is started again


def test_prefetch_fills_the_cache_in_order_on_a_worker_of_its_own(monkeypatch, tmp_path):
    """course.setup's background compiles: one kernel per request (with its other ARCHS targets the cache lacks: one
    front-end pass for them), in the given order, skipping what is cached, on a worker that is not the cells' (a
    cell's compile never waits behind the batch), which stops at the end."""
    import threading
    monkeypatch.setenv(offline.CACHE_ENV, str(tmp_path / "cache"))
    offline._cached("tiled", (8, 0), Compiler())                 # already cached: not compiled again
    seen, started = [], threading.Event()

    def fake_compile(self, pairs):
        assert self is not offline._WORKER
        seen.append(list(pairs))
        return [{"ptx": f"// {n} {cc}", "sass": "", "usage": {}} for n, cc in pairs]
    monkeypatch.setattr(offline._Worker, "compile", fake_compile)
    monkeypatch.setattr(offline._Worker, "stop", lambda self: started.set())
    offline.prefetch([("naive", (9, 0)), ("tiled", (8, 0)), ("naive", (8, 0))])
    assert seen == [[("naive", (9, 0)), ("naive", (8, 0))]] and started.is_set()     # sm_80 came with sm_90
    assert offline._cached("naive", (8, 0), Compiler())["ptx"] == "// naive (8, 0)"


def test_prefetch_without_a_cache_does_nothing(monkeypatch):
    monkeypatch.setenv(offline.CACHE_ENV, "off")
    monkeypatch.setattr(offline._Worker, "compile", lambda self, pairs: (_ for _ in ()).throw(AssertionError(pairs)))
    offline.prefetch([("naive", (9, 0))])
