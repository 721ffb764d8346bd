"""A launch costs the same whether the process holds 100 modules or 20,000: where a kernel runs is decided once, when
it is built (make_launch) or first launched, never by scanning sys.modules per call (issue: launch cost)."""
import gc
import sys
import time
import types

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba import launch as L
from kernels_numba.infra import placement


class _Stub:
    """Stands in for a kernel: kernel[grid, block](...) does nothing, so only the course's host path is timed."""
    calls = 0

    def __getitem__(self, cfg):
        return self

    def __call__(self, *args):
        _Stub.calls += 1


def _per_call_us(fn, n=400, repeats=7):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def _with_modules(count):
    """Add `count` empty modules (half of them under kernels_numba., where the old lookup searched) to sys.modules."""
    names = [f"kernels_numba._fake_{i}" if i % 2 else f"_fake_pkg_{i}" for i in range(count)]
    for name in names:
        sys.modules[name] = types.ModuleType(name)
    return names


def test_launch_cost_does_not_grow_with_sys_modules():
    A = np.ones((8, 8), np.float32)
    C = np.zeros((8, 8), np.float32)
    stub = _Stub()
    made = L.make_launch(stub, (4, 4), (4, 4))
    bare = lambda: L.run_kernel(stub, (2, 2), (4, 4), A, A, C, np.float32(1), np.float32(0))   # noqa: E731
    cases = {"make_launch": lambda: made(A, A, C), "run_kernel": bare}
    # without and with the extra modules in alternation, best of each: a busy machine (CI runs several test workers
    # and a browser on two cores) slows one phase or the other, not only the one with the modules
    before = {k: float("inf") for k in cases}
    after = dict(before)
    for _ in range(4):
        before = {k: min(before[k], _per_call_us(f, repeats=3)) for k, f in cases.items()}
        names = _with_modules(20_000)
        try:
            after = {k: min(after[k], _per_call_us(f, repeats=3)) for k, f in cases.items()}
        finally:
            for name in names:
                del sys.modules[name]
    for k in cases:
        # the old per-call lookup sorted and scanned all of sys.modules: 20,000 more modules made it ~100x slower
        assert after[k] < 2.0 * before[k] + 5, (k, before[k], after[k])


def test_registered_launches_never_search_for_their_kernel(monkeypatch):
    found = []
    real = placement._find_home
    monkeypatch.setattr(placement, "_find_home", lambda k: found.append(k) or real(k))
    A = np.ones((16, 16), np.float32)
    for spec in kn.REGISTRY:
        if spec.dtype != np.float32:
            continue
        assert hasattr(spec.launch, "away"), f"{spec.name}: its launch does not say where it runs"
    spec = kn.get("tiled")
    for _ in range(3):
        spec.launch(A, A, np.zeros((16, 16), np.float32))
    assert found == [], "a registered launch scanned the loaded modules"


def _numba_like_array(shape, ptr, reads):
    """An object that looks like a Numba device array to the launch path (class DeviceNDArray of a numba module),
    counting how often its __cuda_array_interface__ is read."""
    cls = type("DeviceNDArray", (), {"__module__": "numba.cuda.cudadrv.devicearray"})

    def cai(self):
        reads.append(1)
        return {"shape": shape, "typestr": "<f4", "data": (ptr, False), "strides": None, "version": 3}
    cls.__cuda_array_interface__ = property(cai)
    return cls()


def test_repeated_device_calls_skip_the_checks_but_new_arguments_do_not(monkeypatch):
    from kernels_numba.infra import device
    monkeypatch.setattr(device, "MODE", "gpu")
    monkeypatch.setattr(device, "SIMULATOR", False)
    reads, stub = [], _Stub()
    A = _numba_like_array((64, 32), 1 << 20, reads)
    B = _numba_like_array((32, 48), 1 << 24, reads)
    C = _numba_like_array((64, 48), 1 << 28, reads)
    made = L.make_launch(stub, (4, 4), (16, 16))
    calls = _Stub.calls
    made(A, B, C)
    assert len(reads) == 3                          # read once each, then remembered while they live
    for _ in range(5):
        made(A, B, C)
    assert len(reads) == 3 and _Stub.calls == calls + 6
    made(A, B, C, alpha=2.0)                        # other scalars: checked again (arrays still remembered)
    with pytest.raises(L.CourseInputError):
        made(A, B, C, alpha=float("nan"))
    with pytest.raises(L.CourseInputError):         # another C, of the wrong shape: the full check, the error
        made(A, B, _numba_like_array((48, 64), 1 << 30, reads))
    del A
    gc.collect()
    assert not any(v[1][0] == (64, 32) for v in L._DEVICE_META.values())   # forgotten with the array
