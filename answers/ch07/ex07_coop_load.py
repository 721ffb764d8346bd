"""Solution, 07 직접 해보기 07-2: which (row, col) of a shared tile each thread stores, pass by pass (cooperative load)."""
from collections import Counter

import kernels_numba  # noqa: F401  (device choice before numba)
from numba import cuda

from course.ch07_register_blocking.exercises import THREADS


@cuda.jit(device=True)
def load_coords(tid, p, rows, cols):
    """(row, col) of the rows x cols shared tile that thread tid stores in pass p (THREADS threads per pass)."""
    stride = THREADS // cols                   # rows one pass covers: cols consecutive threads fill one row
    return tid // cols + p * stride, tid % cols


def load_map(threads, rows, cols):
    """{(tid, pass): (row, col)} when `threads` threads fill a rows x cols tile, `cols` consecutive threads per row.

    Same scheme as kernels_numba/regblock.py: row = tid // cols + pass * stride, col = tid % cols,
    with stride = threads // cols rows per pass and rows / stride passes.
    """
    if threads % cols or rows % (threads // cols):
        raise ValueError(f"{threads} threads cannot tile {rows}x{cols} this way: cols must divide threads, "
                         f"and threads // cols must divide rows")
    stride = threads // cols
    return {(tid, p): (tid // cols + off, tid % cols)
            for tid in range(threads) for p, off in enumerate(range(0, rows, stride))}


def covers_once(mapping, rows, cols):
    """True when every element of the rows x cols tile is stored exactly once and nothing outside it."""
    return Counter(mapping.values()) == Counter((r, c) for r in range(rows) for c in range(cols))


def loads_per_thread(mapping):
    """{tid: number of elements it stores}."""
    return dict(Counter(tid for tid, _ in mapping))
