"""Record every shared-memory load and store a kernel makes, by running it for real in the simulator.

The bank-conflict model (sim.banks) then analyses the kernel *as written*: no hand-kept list of
access patterns. Records are tuples (array, site, op, instance, tid, addr, width): array name, source
line, "load"/"store", n-th execution of that line by that thread, linear thread id, byte offset in
the array, bytes accessed. Outside the simulator it runs itself in a subprocess with SGEMM_DEVICE=sim.
"""
import json
import linecache
import os
import re
import subprocess
import sys
import hashlib

import numpy as np

from ..infra import device
from numba.cuda.simulator import kernelapi as api
from .. import registry
from ..demos import races
from . import offline


class _TracingArray:
    """A shared array that logs each element access of the current simulated thread."""

    def __init__(self, arr, name, log, counts, state):
        self._arr, self._name, self._log, self._counts, self._state = arr, name, log, counts, state

    def _record(self, idx, op):
        t = self._state["thread"]
        if t is None or tuple(t.blockIdx) != self._state["block"]:
            return
        idx = idx if isinstance(idx, tuple) else (idx,)
        site = sys._getframe(2).f_lineno
        key = (t.thread_id, self._name, site, op)
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        flat = int(np.ravel_multi_index(tuple(int(i) for i in idx), self._arr.shape))
        self._log.append((self._name, site, op, n, t.thread_id, flat * self._arr.itemsize, self._arr.itemsize))

    def __getitem__(self, idx):
        self._record(idx, "load")
        return self._arr[idx]

    def __setitem__(self, idx, value):
        self._record(idx, "store")
        self._arr[idx] = value

    def __getattr__(self, name):
        return getattr(self._arr, name)


def _array_name(filename, lineno):
    m = re.match(r"\s*(\w+)\s*=\s*cuda\.shared\.array", linecache.getline(filename, lineno))
    return m.group(1) if m else f"shared@{lineno}"


def _trace_here(kernel_name, M, N, K, block):
    # local: simulator only: the scheduler patches numba's simulator launch; GPU mode never loads it
    from ..infra.simulator import scheduler as _simfast
    launch = getattr(races, "launch_" + kernel_name, None) or registry.get(kernel_name).launch
    log, counts = [], {}
    state = _simfast._state
    state["block"] = tuple(block) + (0,) * (3 - len(block))
    shapes = {}
    stock = api.FakeCUDAShared.array

    def tracing_array(self, shape, dtype, alignment=None):
        frame = sys._getframe(1)
        if shape == 0:
            return stock(self, shape, dtype, alignment)
        _simfast.check_alignment(alignment, dtype)
        arr = _simfast.shared_alloc(self, shape, dtype, (frame.f_code.co_filename, frame.f_lineno))
        name = _array_name(frame.f_code.co_filename, frame.f_lineno)
        shapes[name] = list(arr.shape)
        return _TracingArray(arr, name, log, counts, state)

    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    api.FakeCUDAShared.array = tracing_array
    try:
        launch(A, B, np.zeros((M, N), np.float32))
    finally:
        api.FakeCUDAShared.array = stock
        state.pop("block", None)
    return {"records": log, "shapes": shapes, "block_dim": list(launch.block) + [1]}


def shared_accesses(kernel_name, M=32, N=32, K=32, block=(0, 0)):
    """Shared-memory access records of one block of kernel `kernel_name` (registered, or 'no_sync1'/'no_sync2')."""
    return shared_accesses_many([(kernel_name, M, N, K, tuple(block))])[0]


def shared_accesses_many(requests):
    """[shared_accesses(name, M, N, K, block) for each (name, M, N, K, block) request]: here on the simulator; on a GPU
    all of them in ONE simulator subprocess (one Python and Numba start-up, not one per trace). A trace depends only
    on the sources (and the default thread order): it is kept in the offline compile cache under the same key, so a
    notebook run a second time does not simulate it again."""
    requests = [(n, int(M), int(N), int(K), tuple(b)) for n, M, N, K, b in requests]
    outs = {i: hit for i, r in enumerate(requests) for hit in [_cache_get(r)] if hit is not None}
    todo = [i for i in range(len(requests)) if i not in outs]
    if todo and device.SIMULATOR:
        outs.update({i: _trace_here(*requests[i]) for i in todo})
    elif todo:
        env = dict(os.environ, SGEMM_DEVICE="sim")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        wanted = [requests[i] for i in todo]
        code = ("import json, sys; from kernels_numba.tools import trace; "
                f"json.dump([trace._trace_here(*r) for r in {wanted!r}], sys.stdout)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise RuntimeError(f"시뮬레이터 추적 실패 / simulator trace failed:\n{out.stderr[-3000:]}")
        outs.update(zip(todo, json.loads(out.stdout)))
    for i in todo:
        _cache_put(requests[i], outs[i])
    result = [outs[i] for i in range(len(requests))]
    for res in result:
        res["records"] = [tuple(r) for r in res["records"]]
    return result


def _cache_file(request):
    """The cache file of one trace request, or None (no cache folder, or a thread order other than the default)."""
    folder = offline.cache_folder()
    if not folder:
        return None
    if device.SIMULATOR:
        # local: simulator only: the scheduler patches numba's simulator launch; GPU mode never loads it
        from ..infra.simulator import scheduler
        if scheduler.get_schedule()[0] != "forward":
            return None
    key = hashlib.sha256(f"trace|{request!r}|{offline._toolchain_key()}".encode()).hexdigest()[:32]
    return os.path.join(folder, f"trace-{request[0]}-{key}.json")


def _cache_get(request):
    path = _cache_file(request)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (TypeError, OSError, ValueError):
        return None


def _cache_put(request, result):
    path = _cache_file(request)
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, path)
    except OSError:
        pass
