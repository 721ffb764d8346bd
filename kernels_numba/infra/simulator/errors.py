"""Errors of the simulator: each stands in for a GPU fault or undefined behaviour and says where and what to fix."""


class SimulatorFault(RuntimeError):
    """A GPU fault or undefined behaviour found by the simulator; the message names the thread(s) and kernel line(s)."""

    names_thread = True          # the message already names the thread: the scheduler does not prefix it again


class DivergentBarrierError(SimulatorFault):
    """Threads of one block met different barriers (undefined behaviour on hardware)."""


class WarpCollectiveError(SimulatorFault):
    """Not all 32 lanes of a warp reached the same warp-collective instruction (undefined behaviour on hardware)."""


class MisalignedAddressError(SimulatorFault):
    """The simulator's stand-in for the GPU fault 'misaligned address' (CUDA_ERROR_MISALIGNED_ADDRESS)."""

    names_thread = False


class AsyncCopyAlignmentError(MisalignedAddressError):
    """A cp.async operand is not aligned to the copy size (CUDA_ERROR_MISALIGNED_ADDRESS on the GPU)."""


class StateSpaceError(SimulatorFault):
    """An instruction got memory of the wrong state space (e.g. cp.async into global memory, ldmatrix from global)."""

    names_thread = True          # the message names the thread and the line


class ModuleArrayWriteError(SimulatorFault, TypeError):
    """A kernel writes a module-level numpy array: the GPU's Numba freezes those as read-only constants and refuses to
    compile the write ("Cannot modify readonly array")."""

    names_thread = True


class NotCompilableError(SimulatorFault, TypeError):
    """Kernel code the GPU's Numba refuses to compile although Python runs it: a try/except, or a call of a plain
    Python function (no @cuda.jit(device=True)). The simulator refuses it too, at the launch."""

    names_thread = True          # the message names the line (no thread: nothing has run yet)

    def __init__(self, message, kind=""):
        super().__init__(message)
        self.kind = kind             # "try_except" or "plain_function": what the GPU's compiler refuses
