"""Student-style buggy kernels, each with a correct twin, one module per class of hazard (issue 25):

    global_mem   races through global memory (blocks of a launch; threads of a block without a barrier)
    bytes_level  bytes where the hardware copies bytes (a matrix of the wrong dtype, a shared array of the wrong dtype)
    spaces       address spaces of every PTX wrapper and cache-hinted load/store
    limits       launch and resource limits of the simulated GPU
    views        shared memory reached through views (.T, transpose, reshape, slices, view(dtype))
    warp_sync    warp-level sync (syncwarp, shfl, vote), atomics on shared memory, dynamic memory with two dtypes
    uninit       uninitialised shared reads, writes to module-level arrays

A Pair runs its bug and its twin: each returns (got, want) or raises. The bug must raise one of the simulator's errors
or give a wrong answer, under every schedule; the twin must give the right answer under every schedule
(tests/test_hazard_classes.py)."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Pair:
    cls: str
    name: str
    bug: object                  # () -> (got, want), or raises
    twin: object
    expect: type = None          # the error the bug must raise (None: an error, or a wrong answer)
    tol: float = 1e-4

    @property
    def id(self):
        return f"{self.cls}-{self.name}"


def close(got, want, tol=1e-4):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return got.shape == want.shape and bool(np.all(np.isfinite(got) == np.isfinite(want))) and \
        bool(np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True))


def rng(seed=0):
    return np.random.default_rng(seed)


def all_pairs():
    from . import bytes_level, global_mem, limits, spaces, uninit, views, warp_sync
    return [p for m in (global_mem, bytes_level, spaces, limits, views, warp_sync, uninit) for p in m.PAIRS]
