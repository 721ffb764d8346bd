"""Warp-collective instructions in the simulator: mma.sync and ldmatrix are executed once per warp, after all 32 lanes arrive.

On the GPU ``mma.sync.aligned`` and ``ldmatrix.sync.aligned`` are executed by the 32 lanes of a warp together: every
lane contributes registers (or a row address) and receives the registers the PTX ISA fragment layout assigns to it.
In our simulator (kernels_numba.infra._simfast) each CUDA thread is a greenlet that runs alone up to its next barrier.
A lane that reaches a warp-collective instruction parks here (``arrive``) like at a barrier; when a round of the block
has run every thread as far as it can, ``resolve`` takes each warp whose 32 lanes all wait at the same instruction,
computes the warp's result once from the lanes' operands with the layout model of sim/mma.py, and hands every lane
exactly its registers. A warp where some lanes wait at the instruction and others have returned, wait at a barrier or
at another instruction (divergence) gets a ``WarpCollectiveError`` naming the block, the warp, the instruction and the
missing lanes: on hardware that is undefined behaviour (a hang or garbage), here it is a clear error.

Arithmetic of the mma stand-in: the operands arrive as f16 bit patterns, so the inputs are exactly the rounded f16
values; every product of two f16 values is exact in f64 (11 + 11 significant bits), the 16 products and C are summed
in f64 and rounded once to the accumulation type (f32, or f16 for the f16-accumulate form). The hardware adds in the
accumulation type with its own (unspecified) order and rounding, so the two differ by a few units in the last place
of the accumulation type per mma; tests/test_mma_layout.py compares the stand-in with the GPU's results.
"""
import sys

import numpy as np

from sim import mma as layout

_pending = {}          # simulated thread -> operands it brought to the instruction
_results = {}          # simulated thread -> what the instruction returns to it


class WarpCollectiveError(RuntimeError):
    """Not all 32 lanes of a warp reached the same warp-collective instruction (undefined behaviour on hardware)."""


# --------------------------------------------------------------------------------------- pure warp semantics

def _halves(reg):
    """(lo, hi) float16 values of a .b32 register holding two f16 (lo = first element)."""
    r = int(reg) & 0xFFFFFFFF
    return np.array([r & 0xFFFF, r >> 16], np.uint16).view(np.float16)


def pack_halves(lo, hi):
    """The .b32 register holding f16 values lo (low 16 bits) and hi."""
    bits = np.array([lo, hi], np.float16).view(np.uint16)
    return np.uint32(int(bits[0]) | (int(bits[1]) << 16))


def mma_warp(lane_operands, acc="f32"):
    """D for the whole warp: lane_operands[lane] = (a0..a3, b0, b1, c...) as the lane passes them -> [d tuple per lane]."""
    A = np.zeros((16, 16), np.float64)
    B = np.zeros((16, 8), np.float64)
    C = np.zeros((16, 8), np.float64)
    for lane, ops in enumerate(lane_operands):
        a = np.concatenate([_halves(r) for r in ops[0:4]])
        b = np.concatenate([_halves(r) for r in ops[4:6]])
        c = (np.array(ops[6:10], np.float32) if acc == "f32"
             else np.concatenate([_halves(r) for r in ops[6:8]]))
        for (i, j), v in zip(layout.a_elements(lane), a):
            A[i, j] = v
        for (i, j), v in zip(layout.b_elements(lane), b):
            B[i, j] = v
        for (i, j), v in zip(layout.c_elements(lane), c):
            C[i, j] = v
    D = A @ B + C                                   # exact products; one rounding below
    out = []
    for lane in range(layout.WARP):
        d = [D[i, j] for i, j in layout.c_elements(lane)]
        if acc == "f32":
            out.append(tuple(np.float32(x) for x in d))
        else:
            out.append((pack_halves(d[0], d[1]), pack_halves(d[2], d[3])))
    return out


def ldmatrix_warp(lane_rows, num, trans):
    """Registers per lane: lane_rows[lane] = the 8 uint16 at lane's address (None where the address is unused)."""
    got = layout.ldmatrix_gather(lane_rows, num, trans)
    regs = [tuple(np.uint32(int(lo) | (int(hi) << 16)) for lo, hi in lane) for lane in got]
    return [r[0] if num == 1 else r for r in regs]


# ---------------------------------------------------------------------------------- rendezvous in _simfast

def _row_at(name, arr, idx):
    """The 16 bytes (8 x b16) at the address of arr[idx], with the hardware's 16-byte alignment rule."""
    from .ptx import _element, MisalignedAddressError
    a, i, addr = _element(arr, idx)
    base = a.__array_interface__["data"][0]
    flat = a.reshape(-1).view(np.uint8)
    off = addr - base
    if addr % 16:
        raise MisalignedAddressError(
            f"{name}: 행 주소 0x{addr:x} (원소 {i}) 가 16바이트 정렬이 아닙니다. / row address 0x{addr:x} of element "
            f"{i} (array {a.shape} {a.dtype}) is not 16-byte aligned: ldmatrix reads 16-byte rows "
            "(CUDA_ERROR_MISALIGNED_ADDRESS on the GPU).")
    if off + 16 > flat.size:
        raise IndexError(f"{name}: the 16-byte row at element {i} runs past the end of an array of shape {a.shape}")
    return flat[off:off + 16].view(np.uint16).copy()


def arrive(name, payload):
    """Called by a lane's stand-in: park until the whole warp is here, then return this lane's result."""
    from . import _simfast
    t = _simfast._current()
    frame = sys._getframe(2)                         # the kernel line that called the instruction
    t.site = ("warp", name, frame.f_code.co_filename, frame.f_lineno)
    _pending[t] = payload
    t.glet.parent.switch()
    return _results.pop(t)


def _describe(t):
    if t.done:
        return "끝남(returned)"
    if t.site and t.site[0] == "warp":
        return f"{t.site[1]} @ line {t.site[3]}"
    return f"syncthreads @ line {t.site[1]}" if t.site else "?"


def resolve(threads, grid_point):
    """Execute every warp-collective instruction whose warp is complete; True if any ran. Raises on a split warp."""
    at = [t for t in threads if not t.done and t.site and t.site[0] == "warp"]
    if not at:
        return False
    for w in sorted({t.thread_id // 32 for t in at}):
        lanes = sorted((t for t in threads if t.thread_id // 32 == w), key=lambda t: t.thread_id)
        site = next(t.site for t in lanes if t in _pending)
        strays = [t for t in lanes if t.site != site or t.done]
        if strays or len(lanes) != 32:
            name, fn, line = site[1], site[2], site[3]
            ex = ", ".join(f"lane {t.thread_id % 32}: {_describe(t)}" for t in strays[:4])
            raise WarpCollectiveError(
                f"블록 {tuple(grid_point)} 워프 {w}: {name} ({fn}:{line}) 에 32개 레인이 모두 오지 않았습니다 "
                f"({len(lanes) - len(strays)}/32 도착; {ex or f'블록에 스레드가 {len(lanes)}개뿐'}). "
                "mma.sync·ldmatrix 는 워프 전체가 같은 명령을 함께 실행해야 합니다 (조건문·early return 밖에 두세요).\n"
                f"Block {tuple(grid_point)} warp {w}: not all 32 lanes reached {name} at line {line} "
                f"({len(lanes) - len(strays)}/32 arrived). Warp-collective instructions need every lane of the warp "
                "(undefined behaviour on hardware: a hang or garbage).")
        payloads = [_pending.pop(t) for t in lanes]
        for t, r in zip(lanes, COLLECTIVES[site[1]](payloads)):
            _results[t] = r
            t.site = None
    return True


def reset():
    _pending.clear()
    _results.clear()


def _ldmatrix_collective(name, num, trans):
    def run(payloads):
        rows = [_row_at(name, arr, idx) if lane < 8 * num else None for lane, (arr, idx) in enumerate(payloads)]
        return ldmatrix_warp(rows, num, trans)
    return run


def _ldmatrix_stand_in(name):
    def f(arr, *idx):
        return arrive(name, (arr, idx))
    f.__name__ = name
    return f


def _mma_stand_in(name):
    def f(*ops):
        return arrive(name, ops)
    f.__name__ = name
    return f


COLLECTIVES = {"mma_m16n8k16_f32": lambda ps: mma_warp(ps, "f32"),
               "mma_m16n8k16_f16": lambda ps: mma_warp(ps, "f16")}
for _n in (1, 2, 4):
    for _t in (False, True):
        _name = f"ldmatrix_x{_n}" + ("_trans" if _t else "")
        COLLECTIVES[_name] = _ldmatrix_collective(_name, _n, _t)


def _unpack_f16x2(r):
    r = int(r) & 0xFFFFFFFF
    return np.uint16(r & 0xFFFF), np.uint16(r >> 16)


def _cvt_f32_f16(h):
    return np.float32(np.array([int(h) & 0xFFFF], np.uint16).view(np.float16)[0])


def stand_ins():
    """{name: stand-in} for kernels_numba.infra.ptx.STAND_INS."""
    out = {n: (_mma_stand_in(n) if n.startswith("mma") else _ldmatrix_stand_in(n)) for n in COLLECTIVES}
    out["unpack_f16x2"] = _unpack_f16x2
    out["cvt_f32_f16"] = _cvt_f32_f16
    return out
