"""The simulated thread now running (set by the scheduler); every other part of the simulator reads it here."""

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
