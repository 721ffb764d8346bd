"""The simulated thread now running (set by the scheduler); every other part of the simulator reads it here.

Also how the simulator names a source line in its messages: a notebook cell by its label (`In [12] 3행`, as
IPython numbers cells), a file by its name (`lesson10.py:123`)."""
import os
import sys

_state = {"thread": None, "schedule": "forward", "seed": 0}


def current():
    """The simulated CUDA thread now running (a scheduler._SimThread)."""
    t = _state["thread"]
    if t is None:
        raise RuntimeError("CUDA thread intrinsics used outside a simulated kernel")
    return t


def running():
    """The simulated thread now running, or None outside a kernel."""
    return _state["thread"]


def describe(t):
    """'thread (x, y, z) = warp w lane l of block (bx, by, bz)' for reports."""
    tid = tuple(t.threadIdx)
    while len(tid) > 1 and tid[-1] == 0:
        tid = tid[:-1]
    blk = tuple(t.blockIdx)
    while len(blk) > 1 and blk[-1] == 0:
        blk = blk[:-1]
    tid_s = str(tid[0]) if len(tid) == 1 else str(tid)
    blk_s = str(blk[0]) if len(blk) == 1 else str(blk)
    return f"threadIdx {tid_s} (워프/warp {t.thread_id // 32}, 레인/lane {t.thread_id % 32}), blockIdx {blk_s}"


_cells = {}                    # filename -> 'In [12]' for cells a parent process's notebook named (name_cell)


def name_cell(filename, label):
    """Name `filename` as the notebook cell `label` ('In [12]'): a subprocess re-running a cell's function (the exercise
    check's simulator run on a GPU) has no IPython to ask, and its reports must name the cell the student sees."""
    _cells[filename] = label


def cell_label(filename):
    """'In [12]' when `filename` is the code of a notebook cell (IPython's own numbering), else None."""
    if filename in _cells:
        return _cells[filename]
    if "IPython" not in sys.modules:
        return None
    try:
        # local: IPython only inside a notebook; this module also runs in plain Python
        from IPython import get_ipython
        ip = get_ipython()
        n = ip.compile._filename_map.get(filename) if ip is not None else None
    except Exception:          # an IPython without the map: name the file instead
        return None
    return None if n is None else f"In [{n}]"


def where(filename, line):
    """A source line as a student finds it: 'In [12] 3행' for a notebook cell, 'file.py:123' for a file."""
    cell = cell_label(filename)
    if cell:
        return f"셀 {cell} {line}행"
    return f"{os.path.basename(filename)}:{line}"
