"""The course's CUDA simulator: Numba's simulator with a deterministic scheduler, NaN-filled memory, warp-collective
and warp-synchronous instructions, the cp.async unit, stand-ins for our PTX instructions, the launch limits of the
GPU it stands for, and a race detector for shared and global memory.

What it guarantees (README "시뮬레이터가 보장하는 것과 못 보는 것"):
* the same kernel and inputs give the same result and the same report every run;
* every hazard between two threads of a block in shared or global memory — RAW, WAR, WAW between barriers (not
  ordered by a syncwarp both lanes passed), an access to a cp.async destination before the wait that guarantees it,
  another thread's access after that wait but before the next barrier, ldmatrix rows written by another warp, an
  atomic against a plain access — and every global element two blocks of a launch touch with one of them writing
  (without atomics on both sides), raises an error naming both threads, both kernel lines (a notebook cell as
  `In [n]`) and the likely fix, whatever order the threads happened to run in; a shared element read before anyone
  in the block wrote it is reported too (UNINIT);
* a thread runs alone up to its next barrier, so a missing barrier between a write and other threads' reads
  also gives a wrong (NaN) answer; unwritten shared/local memory reads as NaN;
* copies move bytes as the hardware does (cp.async, st.global.v4, ld.global, ldmatrix), so a matrix of the wrong
  dtype gives the GPU's wrong answer;
* barriers reached at different lines, split warps at mma/ldmatrix, *_sync masks that leave out the calling lane or
  name lanes that never come, misaligned 16-byte accesses (judged by the declared `alignment=`), every PTX wrapper
  given memory of the wrong state space, launches over the simulated GPU's limits (threads, block and grid
  dimensions, shared memory, registers where known), writes to module-level arrays: a clear error.
What it cannot see: see the README; above all timing (it runs on the CPU) and memory-model subtleties beyond
barriers, syncwarp and atomics (fences, flags between blocks).

Hopper (level 7): TMA copies land at the mbarrier phase they complete, wgmma results at the wait_group that covers
them; accesses in between, missing proxy fences and hung mbarriers are reported through the same detector (the same
report, raise or collect, per-block interval numbers) by async_proxy, warpgroup and tma.

Modules, imported one way: state <- errors <- limits <- racecheck <- memory <- warp, async_copy <- async_proxy <-
warpgroup, tma <- stand_ins <- scheduler <- __init__ (stand_ins does not import scheduler).
The PTX layer (kernels_numba/infra/ptx) uses stand_ins; nothing here imports the PTX layer.
"""
from . import racecheck
from .errors import (AsyncCopyAlignmentError, DivergentBarrierError, MisalignedAddressError, ModuleArrayWriteError,
                     SimulatorFault, StateSpaceError, WarpCollectiveError)
from .limits import LaunchLimitError
from .racecheck import GlobalMemoryRaceError, HazardError, SharedMemoryRaceError, UninitializedReadError


def install():
    """Patch Numba's simulator in place (idempotent)."""
    # local: simulator only: the scheduler patches numba's simulator launch; GPU mode never loads it
    from . import scheduler
    scheduler.install()


__all__ = ["install", "racecheck", "SharedMemoryRaceError", "GlobalMemoryRaceError", "UninitializedReadError",
           "HazardError", "DivergentBarrierError", "WarpCollectiveError", "MisalignedAddressError",
           "AsyncCopyAlignmentError", "StateSpaceError", "SimulatorFault", "LaunchLimitError", "ModuleArrayWriteError"]
