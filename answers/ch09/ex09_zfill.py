"""Solution, 09 직접 해보기 3: a 16-byte cp.async whose floats outside the matrix arrive as 0 (src-size)."""
import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda

from kernels_numba.infra import ptx


@cuda.jit(device=True)
def copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    """S[stage, srow, scol:scol+4] <- X[grow, gcol:gcol+4], 16바이트 cp.async 하나; 행렬(rows × cols) 밖은 0."""
    n = 0                                       # floats of this vector inside the matrix: 0..4
    if grow < rows and gcol < cols:
        n = min(4, cols - gcol)
    r = grow if n > 0 else 0                    # a copy that reads nothing still needs an address inside X
    c = gcol if n > 0 else 0
    ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n)     # src-size in bytes: the rest becomes 0
