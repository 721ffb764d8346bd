"""The course's CUDA simulator: Numba's simulator with a deterministic scheduler, NaN-filled memory, warp-collective
instructions, the cp.async unit, stand-ins for our PTX instructions and a shared-memory race detector.

What it guarantees (README "시뮬레이터가 보장하는 것"):
* the same kernel and inputs give the same result and the same report every run;
* every shared-memory hazard between two threads of a block — RAW, WAR, WAW between barriers, an access to a
  cp.async destination before the wait that guarantees it, another thread's access after that wait but before
  the next barrier, ldmatrix rows written by another warp — raises SharedMemoryRaceError naming both threads,
  both kernel lines and the likely fix (racecheck), whatever order the threads happened to run in;
* a thread runs alone up to its next barrier, so a missing barrier between a write and other threads' reads
  also gives a wrong (NaN) answer; unwritten shared/local memory reads as NaN;
* barriers reached at different lines, split warps at mma/ldmatrix, misaligned 16-byte accesses (judged by the
  declared `alignment=`), cp.async into global or from shared memory, ldmatrix from global memory: a clear error.
What it cannot see: races through global memory, races between blocks, races through dynamic shared memory viewed
with two different dtypes; atomics are not race-checked; timing (it runs on the CPU).

Hopper (level 7): TMA copies land at the mbarrier phase they complete, wgmma results at the wait_group that covers
them; accesses in between, missing proxy fences and hung mbarriers are reported (async_proxy, warpgroup, tma).

Modules, imported one way: state <- errors <- memory/racecheck <- warp, async_copy <- async_proxy <- warpgroup, tma
<- scheduler, stand_ins.
The PTX layer (kernels_numba/infra/ptx) uses stand_ins; nothing here imports the PTX layer.
"""
from . import racecheck
from .errors import (AsyncCopyAlignmentError, DivergentBarrierError, MisalignedAddressError, SimulatorFault,
                     StateSpaceError, WarpCollectiveError)
from .racecheck import SharedMemoryRaceError


def install():
    """Patch Numba's simulator in place (idempotent)."""
    from . import scheduler
    scheduler.install()


__all__ = ["install", "racecheck", "SharedMemoryRaceError", "DivergentBarrierError", "WarpCollectiveError",
           "MisalignedAddressError", "AsyncCopyAlignmentError", "StateSpaceError", "SimulatorFault"]
