"""Warp-collective instructions in the simulator: mma.sync and ldmatrix are executed once per warp, after all 32 lanes arrive.

On the GPU ``mma.sync.aligned`` and ``ldmatrix.sync.aligned`` are executed by the 32 lanes of a warp together: every
lane contributes registers (or a row address) and receives the registers the PTX ISA fragment layout assigns to it.
In the simulator each CUDA thread is a greenlet that runs alone up to its next barrier. A lane that reaches a
warp-collective instruction parks here (``arrive``) like at a barrier; when a round of the block has run every thread
as far as it can, ``resolve`` takes each warp whose 32 lanes all wait at the same instruction, computes the warp's
result once from the lanes' operands with the layout model of sim/mma.py, and hands every lane exactly its registers.
A warp where some lanes wait at the instruction and others have returned, wait at a barrier or at another instruction
(divergence) gets a ``WarpCollectiveError`` naming the block, the warp, the instruction and the missing lanes.

ldmatrix reads shared memory: each addressing lane's 16-byte row is a read by that lane, checked by the race detector
(so a row another warp wrote without a barrier in between is a hazard, whatever order the warps ran in), and the row
address must be 16-byte aligned by the array's declaration. mma reads registers only.

Arithmetic of the mma stand-in: the operands arrive as f16 bit patterns, so the inputs are exactly the rounded f16
values; every product of two f16 values is exact in f64 (11 + 11 significant bits), the 16 products and C are summed
in f64 and rounded once to the accumulation type (f32, or f16 for the f16-accumulate form). The hardware adds in the
accumulation type with its own (unspecified) order and rounding, so the two differ by a few units in the last place
of the accumulation type per mma; tests/test_mma_layout.py compares the stand-in with the GPU's results.
mma.m16n8k8 (Turing, f32 accumulation; mma_k8_warp) is computed the same way from its own layout (sim/mma.py
m16n8k8_*); tests/test_turing_mma.py compares it with an H100's results.
"""
import sys

import numpy as np

from sim import mma as layout

from . import racecheck
from .errors import MisalignedAddressError, WarpCollectiveError
from .memory import SharedArray, check_shared_alignment, element, require_space, shared_elements
from .state import current

_pending = {}          # simulated thread -> operands it brought to the instruction
_results = {}          # simulated thread -> what the instruction returns to it


# --------------------------------------------------------------------------------------- pure warp semantics

def _halves(reg):
    """(lo, hi) float16 values of a .b32 register holding two f16 (lo = first element)."""
    r = int(reg) & 0xFFFFFFFF
    return np.array([r & 0xFFFF, r >> 16], np.uint16).view(np.float16)


def pack_halves(lo, hi):
    """The .b32 register holding f16 values lo (low 16 bits) and hi."""
    bits = np.array([lo, hi], np.float16).view(np.uint16)
    return np.uint32(int(bits[0]) | (int(bits[1]) << 16))


# flat indexes into the 16x16 A, 16x8 B and 16x8 C/D tiles of each lane's fragment elements (from sim/mma.py)
_A_IDX = np.array([[r * 16 + c for r, c in layout.a_elements(l)] for l in range(layout.WARP)])
_B_IDX = np.array([[r * 8 + c for r, c in layout.b_elements(l)] for l in range(layout.WARP)])
_C_IDX = np.array([[r * 8 + c for r, c in layout.c_elements(l)] for l in range(layout.WARP)])


def mma_warp(lane_operands, acc="f32"):
    """D for the whole warp: lane_operands[lane] = (a0..a3, b0, b1, c...) as the lane passes them -> [d tuple per lane]."""
    regs = np.array([ops[:6] for ops in lane_operands], np.uint64).astype(np.uint32)   # (32, 6) .b32
    halves = regs.view(np.float16).astype(np.float64)        # (32, 12): low half first (little-endian)
    A, B, C = np.empty(256), np.empty(128), np.empty(128)
    A[_A_IDX] = halves[:, :8]
    B[_B_IDX] = halves[:, 8:12]
    if acc == "f32":
        C[_C_IDX] = np.array([ops[6:10] for ops in lane_operands], np.float32)
    else:
        C[_C_IDX] = np.array([ops[6:8] for ops in lane_operands], np.uint64).astype(np.uint32).view(np.float16)
    D = (A.reshape(16, 16) @ B.reshape(16, 8) + C.reshape(16, 8)).reshape(-1)[_C_IDX]   # exact; rounded once below
    if acc == "f32":
        return [tuple(row) for row in D.astype(np.float32)]
    with np.errstate(over="ignore"):                         # f16 overflow gives inf, as on the GPU
        return [tuple(row) for row in D.astype(np.float16).view(np.uint32)]


# the same for mma.m16n8k8 (Turing): 16x8 A, 8x8 B, 16x8 C/D
_A8_IDX = np.array([[r * 8 + c for r, c in layout.m16n8k8_a_elements(l)] for l in range(layout.WARP)])
_B8_IDX = np.array([[r * 8 + c for r, c in layout.m16n8k8_b_elements(l)] for l in range(layout.WARP)])


def mma_k8_warp(lane_operands):
    """mma.m16n8k8 f32 += f16 x f16 for the warp: lane_operands[lane] = (a0, a1, b0, c0..c3) -> [(d0..d3) per lane].
    Exact f16 products summed with C in f64 and rounded once to f32, as mma_warp does for m16n8k16."""
    regs = np.array([ops[:3] for ops in lane_operands], np.uint64).astype(np.uint32)     # (32, 3) .b32
    halves = regs.view(np.float16).astype(np.float64)        # (32, 6): a_0..a_3, b_0, b_1 (low half first)
    A, B, C = np.empty(128), np.empty(64), np.empty(128)
    A[_A8_IDX] = halves[:, :4]
    B[_B8_IDX] = halves[:, 4:6]
    C[_C_IDX] = np.array([ops[3:7] for ops in lane_operands], np.float32)
    D = (A.reshape(16, 8) @ B.reshape(8, 8) + C.reshape(16, 8)).reshape(-1)[_C_IDX]
    return [tuple(row) for row in D.astype(np.float32)]


def _ldmatrix_index(num, trans):
    """(32, num, 2) flat indexes into the (8*num, 8) rows array: which b16 lands in which lane/register/half."""
    return np.array([[[(8 * j + r) * 8 + c for j, r, c in halves] for halves in layout.ldmatrix_elements(l, num, trans)]
                     for l in range(layout.WARP)])


_LDSM_IDX = {(n, t): _ldmatrix_index(n, t) for n in (1, 2, 4) for t in (False, True)}


def ldmatrix_warp(lane_rows, num, trans):
    """Registers per lane: lane_rows[lane] = the 8 uint16 at lane's address (None where the address is unused)."""
    rows = np.array(lane_rows[:8 * num], np.uint16).reshape(-1)
    regs = rows[_LDSM_IDX[(num, trans)]].astype(np.uint32)          # (32, num, 2)
    regs = regs[..., 0] | (regs[..., 1] << np.uint32(16))
    return [r[0] if num == 1 else tuple(r) for r in regs]


# ---------------------------------------------------------------------------------- rendezvous with the scheduler

def _row_at(name, arr, idx, thread=None, site=None):
    """The 16 bytes (8 x b16) at the address of arr[idx]: shared memory, 16-byte aligned by declaration."""
    if thread is not None or type(arr) is SharedArray:
        require_space(arr, "shared", name, "행 주소(row address) / row address", thread, site)
        check_shared_alignment(arr, idx, 16, name, "행 주소 / row address", thread=thread, site=site)
    a, i, addr = element(arr, idx)
    base = a.__array_interface__["data"][0]
    flat = a.reshape(-1).view(np.uint8)
    off = addr - base
    if type(arr) is not SharedArray and addr % 16:
        raise MisalignedAddressError(
            f"{name}: 행 주소 0x{addr:x} (원소 {i}) 가 16바이트 정렬이 아닙니다. / row address 0x{addr:x} of element "
            f"{i} (array {a.shape} {a.dtype}) is not 16-byte aligned: ldmatrix reads 16-byte rows "
            "(CUDA_ERROR_MISALIGNED_ADDRESS on the GPU).")
    if off + 16 > flat.size:
        raise IndexError(f"{name}: the 16-byte row at element {i} runs past the end of an array of shape {a.shape}")
    return flat[off:off + 16].view(np.uint16).copy()


def arrive(name, payload):
    """Called by a lane's stand-in: park until the whole warp is here, then return this lane's result."""
    t = current()
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
        for t, r in zip(lanes, COLLECTIVES[site[1]](payloads, lanes, (site[2], site[3]))):
            _results[t] = r
            t.site = None
    return True


def reset():
    _pending.clear()
    _results.clear()


def _ldmatrix_collective(name, num, trans):
    def run(payloads, lanes=None, site=None):
        rows = []
        for lane, (arr, idx) in enumerate(payloads):
            if lane >= 8 * num:
                rows.append(None)
                continue
            t = lanes[lane] if lanes else None
            rows.append(_row_at(name, arr, idx, t, site))
            if t is not None and racecheck.ON and type(arr) is SharedArray:
                d, elems, _ = shared_elements(arr, idx, 16)
                for e in elems:
                    racecheck.read(d, e, site, t)
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


COLLECTIVES = {"mma_m16n8k16_f32": lambda ps, lanes=None, site=None: mma_warp(ps, "f32"),
               "mma_m16n8k16_f16": lambda ps, lanes=None, site=None: mma_warp(ps, "f16"),
               "mma_m16n8k8_f32": lambda ps, lanes=None, site=None: mma_k8_warp(ps)}
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
    """{name: stand-in} for the warp-collective instructions and the f16 pack/unpack helpers."""
    out = {n: (_mma_stand_in(n) if n.startswith("mma") else _ldmatrix_stand_in(n)) for n in COLLECTIVES}
    out["unpack_f16x2"] = _unpack_f16x2
    out["cvt_f32_f16"] = _cvt_f32_f16
    return out
