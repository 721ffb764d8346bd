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
import contextlib
import sys
from dataclasses import dataclass

import numpy as np

from sim import mma as layout

from . import racecheck
from .errors import MisalignedAddressError, WarpCollectiveError
from .memory import GlobalArray, SharedArray, check_shared_alignment, element, host_array, require_space, \
    shared_elements
from sim.korean import josa

from .state import current, describe, where

_pending = {}          # simulated thread -> operands it brought to the instruction
_results = {}          # simulated thread -> what the instruction returns to it


class LdmatrixAddressError(IndexError):
    """An ldmatrix row address outside its array: raised in the lane that gave it (its traceback reaches the kernel
    line), naming the lane, the array, the index, the line and every lane of the warp whose row is outside."""
    names_thread = True          # the message names the lane and the line: the scheduler does not prefix it again


class MmaOperandError(TypeError):
    """A lane passed an mma stand-in the wrong number or kind of operands (numba rejects such a call on the GPU)."""


class _Raise:
    """What a lane gets back from a warp instruction that faults on its operand: the exception to raise in that lane."""
    def __init__(self, exc):
        self.exc = exc


class _LaneFault(Exception):
    """Raised by a collective when one lane's operand is wrong: resolve hands `exc` to `thread` to raise at its line."""
    def __init__(self, thread, exc):
        super().__init__(str(exc))
        self.thread, self.exc = thread, exc


# ------------------------------------------------------------------------------------ what the warps executed

@dataclass
class Collective:
    """One warp instruction the simulator executed (recorded inside `recording()`): name, block, warp, the kernel line,
    and what it did: for ldmatrix the 8x8 matrices it read (matrices) and the arrays the rows came from; for mma its
    K (16 or 8) and the product A·B (f64, exact from the f16 operands) it added to C."""
    name: str
    block: tuple
    warp: int
    site: tuple
    matrices: int = 0
    arrays: tuple = ()
    k: int = 0
    product: object = None


_LOG = []              # the open recordings (lists): every executed warp instruction is appended to each


@contextlib.contextmanager
def recording():
    """with warp.recording() as log: log lists every warp-collective instruction (Collective) executed inside, in order:
    what a checker reads to tell how a kernel computed its result (e.g. with mma, or with plain FMAs)."""
    log = []
    _LOG.append(log)
    try:
        yield log
    finally:
        _LOG.remove(log)


def _array_name(arr):
    if type(arr) is SharedArray:
        return arr._decl.name
    if isinstance(arr, GlobalArray):
        return arr._name
    return None


def _record(name, payloads, grid_point, w, site):
    if name.startswith("mma"):
        A, B = (_ab8 if "k8" in name else _ab16)(payloads)
        with np.errstate(invalid="ignore", over="ignore"):
            entry = Collective(name, tuple(grid_point), w, site, k=A.shape[1], product=A @ B)
    else:
        num = int(name.split("_x")[1][0])
        entry = Collective(name, tuple(grid_point), w, site, matrices=num,
                           arrays=tuple(_array_name(arr) for arr, _ in payloads[:8 * num]))
    for log in _LOG:
        log.append(entry)


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


def _ab16(lane_operands):
    """The 16x16 A and 16x8 B (f64, the exact f16 values) the warp's lanes bring to mma.m16n8k16."""
    regs = np.array([ops[:6] for ops in lane_operands], np.uint64).astype(np.uint32)   # (32, 6) .b32
    halves = regs.view(np.float16).astype(np.float64)        # (32, 12): low half first (little-endian)
    A, B = np.empty(256), np.empty(128)
    A[_A_IDX] = halves[:, :8]
    B[_B_IDX] = halves[:, 8:12]
    return A.reshape(16, 16), B.reshape(16, 8)


def mma_warp(lane_operands, acc="f32"):
    """D for the whole warp: lane_operands[lane] = (a0..a3, b0, b1, c...) as the lane passes them -> [d tuple per lane]."""
    A, B = _ab16(lane_operands)
    C = np.empty(128)
    if acc == "f32":
        C[_C_IDX] = np.array([ops[6:10] for ops in lane_operands], np.float32)
    else:
        C[_C_IDX] = np.array([ops[6:8] for ops in lane_operands], np.uint64).astype(np.uint32).view(np.float16)
    with np.errstate(invalid="ignore", over="ignore"):      # NaN/inf bits (float32 bytes as f16) stay so, as on the GPU
        D = (A @ B + C.reshape(16, 8)).reshape(-1)[_C_IDX]   # exact; rounded once below
    if acc == "f32":
        return [tuple(row) for row in D.astype(np.float32)]
    with np.errstate(over="ignore"):                         # f16 overflow gives inf, as on the GPU
        return [tuple(row) for row in D.astype(np.float16).view(np.uint32)]


# the same for mma.m16n8k8 (Turing): 16x8 A, 8x8 B, 16x8 C/D
_A8_IDX = np.array([[r * 8 + c for r, c in layout.m16n8k8_a_elements(l)] for l in range(layout.WARP)])
_B8_IDX = np.array([[r * 8 + c for r, c in layout.m16n8k8_b_elements(l)] for l in range(layout.WARP)])


def _ab8(lane_operands):
    """The 16x8 A and 8x8 B (f64, the exact f16 values) the warp's lanes bring to mma.m16n8k8."""
    regs = np.array([ops[:3] for ops in lane_operands], np.uint64).astype(np.uint32)     # (32, 3) .b32
    halves = regs.view(np.float16).astype(np.float64)        # (32, 6): a_0..a_3, b_0, b_1 (low half first)
    A, B = np.empty(128), np.empty(64)
    A[_A8_IDX] = halves[:, :4]
    B[_B8_IDX] = halves[:, 4:6]
    return A.reshape(16, 8), B.reshape(8, 8)


def mma_k8_warp(lane_operands):
    """mma.m16n8k8 f32 += f16 x f16 for the warp: lane_operands[lane] = (a0, a1, b0, c0..c3) -> [(d0..d3) per lane].
    Exact f16 products summed with C in f64 and rounded once to f32, as mma_warp does for m16n8k16."""
    A, B = _ab8(lane_operands)
    C = np.empty(128)
    C[_C_IDX] = np.array([ops[3:7] for ops in lane_operands], np.float32)
    with np.errstate(invalid="ignore", over="ignore"):      # NaN/inf bits stay NaN/inf, as on the GPU
        D = (A @ B + C.reshape(16, 8)).reshape(-1)[_C_IDX]
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
    if type(arr) is SharedArray:               # the declaration's bytes, whatever view the lane addressed
        decl, _, off = shared_elements(arr, idx, 16)
        flat = decl.raw.reshape(-1).view(np.uint8)
        if off + 16 > flat.size:
            raise IndexError(f"{name}: the 16-byte row at element {tuple(idx)} runs past the end of shared array "
                             f"{decl.name} (shape {decl.raw.shape})")
        return flat[off:off + 16].view(np.uint16).copy()
    a, i, addr = element(arr, idx)
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


def arrive(name, payload, mask=None):
    """Called by a lane's stand-in: park until the warp (or the lanes `mask` names) is here, then return this lane's
    result."""
    t = current()
    frame = sys._getframe(2)                         # the kernel line that called the instruction
    if racecheck.ON:
        racecheck.at(t, frame)                       # the lane's access record at this line (ldmatrix reads)
    t.site = ("warp", name, frame.f_code.co_filename, frame.f_lineno) + ((mask,) if mask is not None else ())
    _pending[t] = payload
    t.glet.parent.switch()
    r = _results.pop(t)
    if isinstance(r, _Raise):        # this lane's operand faulted: raise here, so the traceback reaches its kernel line
        raise r.exc
    return r


def _describe(t):
    if t.done:
        return "끝남(returned)"
    if t.site and t.site[0] == "warp":
        m = f"(mask {t.site[4]:#010x})" if len(t.site) > 4 else ""
        return f"{t.site[1]}{m} @ {where(t.site[2], t.site[3])}"
    return f"syncthreads @ {where(t.site[0], t.site[1])}" if t.site else "?"


def resolve(threads, grid_point):
    """Execute every warp instruction whose lanes are all there; True if any ran. Raises when a warp can go no further
    (a split warp at mma/ldmatrix, lanes named by a *_sync mask waiting elsewhere or at another mask)."""
    at = [t for t in threads if not t.done and t.site and t.site[0] == "warp"]
    if not at:
        return False
    ran, stuck = False, []
    warps = {}
    for t in threads:
        warps.setdefault(t.thread_id // 32, []).append(t)
    for w in sorted({t.thread_id // 32 for t in at}):
        lanes = sorted(warps[w], key=lambda t: t.thread_id)
        waiting = [t for t in lanes if t in _pending]
        full = [t for t in waiting if len(t.site) == 4]
        if full:
            site = full[0].site
            strays = [t for t in lanes if t.site != site or t.done]
            if strays or len(lanes) != 32:
                stuck.append(("full", w, lanes, site, strays))
            else:
                payloads = [_pending.pop(t) for t in lanes]
                try:
                    out = COLLECTIVES[site[1]](payloads, lanes, (site[2], site[3]))
                except _LaneFault as f:      # only the faulting lane runs on: it raises at its own kernel line
                    _results[f.thread] = _Raise(f.exc)
                    f.thread.site = None
                    return True
                if _LOG:
                    _record(site[1], payloads, grid_point, w, (site[2], site[3]))
                for t, r in zip(lanes, out):
                    _results[t] = r
                    t.site = None
                ran = True
                continue
        groups = {}
        for t in waiting:
            if len(t.site) == 5:
                groups.setdefault((t.site[1], t.site[4]), []).append(t)
        for (op, mask), members in groups.items():
            need = [l for l in lanes if mask >> (l.thread_id % 32) & 1 and not l.done]
            missing = [l for l in need if l not in members]
            if missing:
                stuck.append(("part", w, lanes, members[0].site, missing))
                continue
            payloads = [_pending.pop(t) for t in members]
            for t, r in zip(members, PARTIAL[op](members, payloads)):
                _results[t] = r
                t.site = None
            ran = True
    if ran:
        return True
    for st in stuck:
        if not any(t.site and t.site[0] in _OTHER_UNITS for t in st[4]):
            _stuck_error(grid_point, st)
    return False                       # lanes it waits for are parked at a Hopper unit: that unit resolves first


_OTHER_UNITS = ("wg", "mbar")          # parking sites of warpgroup.py and tma.py (their resolver may release them)


def _stuck_error(grid_point, stuck):
    what, w, lanes, site, strays = stuck
    name, fn, line = site[1], site[2], site[3]
    if what == "full":
        ex = ", ".join(f"lane {t.thread_id % 32}: {_describe(t)}" for t in strays[:4])
        ex += f" 외 {len(strays) - 4}개" if len(strays) > 4 else ""
        raise WarpCollectiveError(
            f"블록 {tuple(grid_point)} 워프 {w}: {name} ({where(fn, line)}) 에 32개 레인이 모두 오지 않았습니다 "
            f"({len(lanes) - len(strays)}/32 도착; {ex or f'블록에 스레드가 {len(lanes)}개뿐'}). "
            "mma.sync·ldmatrix 는 워프 전체가 같은 명령을 함께 실행해야 합니다 (조건문·early return 밖에 두세요).\n"
            f"Block {tuple(grid_point)} warp {w}: not all 32 lanes reached {name} at line {line} "
            f"({len(lanes) - len(strays)}/32 arrived). Warp-collective instructions need every lane of the warp "
            "(undefined behaviour on hardware: a hang or garbage).")
    mask = site[4]
    ex = ", ".join(f"lane {t.thread_id % 32}: {_describe(t)}" for t in strays[:4])
    ex += f" 외 {len(strays) - 4}개" if len(strays) > 4 else ""
    raise WarpCollectiveError(
        f"블록 {tuple(grid_point)} 워프 {w}: {name}(mask {mask:#010x}) ({where(fn, line)}) 가 마스크에 든 레인을 모두 "
        f"기다리는데 그중 {len(strays)}개가 오지 않습니다 ({ex}). 마스크에 든 레인은 모두 같은 마스크로 같은 종류의 "
        "*_sync 명령을 실행해야 합니다 (GPU 에서는 멈추거나 정의되지 않은 값). 마스크가 실제로 그 명령을 실행하는 "
        "레인만 담는지 확인하세요.\n"
        f"Block {tuple(grid_point)} warp {w}: {name} with mask {mask:#010x} at line {line} waits for every lane the "
        f"mask names, but {len(strays)} of them never come ({ex}); every lane in the mask must execute the same "
        "kind of *_sync instruction with the same mask (a hang or undefined values on the GPU).")


def reset():
    _pending.clear()
    _results.clear()


def _row_outside(arr, idx):
    """True when the 16-byte row at arr[idx] is not inside the array (or idx has the wrong number of indexes)."""
    try:
        a = host_array(arr)
        idx = tuple(int(i) for i in idx)
        a.ndim, a.itemsize, a.shape
    except (TypeError, ValueError, AttributeError):
        return False                 # not an array or not indexes: the read itself says so
    if len(idx) != a.ndim:
        return True
    width = max(1, 16 // a.itemsize)
    return any(i < 0 or i + (width - 1 if ax == a.ndim - 1 else 0) >= n for ax, (i, n) in enumerate(zip(idx, a.shape)))




def _outside_error(name, payloads, bad, thread, site):
    """LdmatrixAddressError for the first lane in `bad` (every lane of `bad` gave a row outside its array)."""
    lane = bad[0]
    arr, idx = payloads[lane]
    a = host_array(arr)
    idx = tuple(int(i) for i in idx)
    an = _array_name(arr) or "배열"
    width = max(1, 16 // a.itemsize)
    at = f", {where(*site)}" if site else ""
    who = f"블록 {tuple(thread.blockIdx)} 워프 {thread.thread_id // 32}" if thread is not None else "워프"
    if len(idx) != a.ndim:
        ko = (f"{name}: 레인 {lane}의 행 주소 {an}{list(idx)} 는 인덱스가 {len(idx)}개인데 {josa(an, '은/는')} {a.ndim}차원 "
              f"배열(모양 {a.shape})입니다 ({who}{at}).")
        en = f"{name}: lane {lane} gave {len(idx)} indexes into the {a.ndim}-D array {an} of shape {a.shape}."
    else:
        rows = ", ".join(f"{ax} 0–{n - 1}" for ax, n in zip(("행", "열") if a.ndim == 2 else
                                                           [f"축 {k}" for k in range(a.ndim)], a.shape[:-1]))
        last = f"{'열' if a.ndim == 2 else '마지막 축'} 0–{a.shape[-1] - width}"
        ko = (f"{name}: 레인 {lane}의 행 주소 {an}{list(idx)} 에서 읽는 16바이트(원소 {width}개: 마지막 인덱스 "
              f"{idx[-1]}–{idx[-1] + width - 1})가 배열 {an} (모양 {a.shape}) 밖입니다 ({who}{at}). ldmatrix 는 주소를 "
              f"주는 레인마다 그 원소부터 16바이트 한 행을 읽으므로, 행 주소는 {rows + ', ' if rows else ''}{last} "
              f"안이어야 합니다. 배열 밖을 가리키는 레인: {layout.lane_ranges(bad)}. GPU 에서는 배열 밖의 메모리(다른 배열이나 "
              "쓰레기 값)를 읽습니다.")
        en = (f"{name}: lane {lane}'s row address {an}{list(idx)}: the 16 bytes ({width} elements) read from there run "
              f"outside the array {an} of shape {a.shape} (lanes {layout.lane_ranges(bad)}); on the GPU this reads memory that "
              "is not the array's.")
    return LdmatrixAddressError(f"{ko}\n{en}")


def _ldmatrix_collective(name, num, trans):
    def run(payloads, lanes=None, site=None):
        if lanes:
            bad = [lane for lane, (arr, idx) in enumerate(payloads[:8 * num]) if _row_outside(arr, idx)]
            if bad:
                raise _LaneFault(lanes[bad[0]], _outside_error(name, payloads, bad, lanes[bad[0]], site))
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
                    racecheck.read(d, e, t, t.acc)
        return ldmatrix_warp(rows, num, trans)
    return run


def _ldmatrix_stand_in(name):
    def f(arr, *idx):
        return arrive(name, (arr, idx))
    f.__name__ = name
    return f


# the operands of each mma stand-in, as its .ptx file declares them (tests/ch10/test_warp_stand_ins.py compares):
# .b32 registers hold two f16 (an integer bit pattern, what ldmatrix returns), .f32 ones a float
MMA_OPERANDS = {
    "mma_m16n8k16_f32": (("a0", "b32"), ("a1", "b32"), ("a2", "b32"), ("a3", "b32"), ("b0", "b32"), ("b1", "b32"),
                         ("c0", "f32"), ("c1", "f32"), ("c2", "f32"), ("c3", "f32")),
    "mma_m16n8k16_f16": (("a0", "b32"), ("a1", "b32"), ("a2", "b32"), ("a3", "b32"), ("b0", "b32"), ("b1", "b32"),
                         ("c0", "b32"), ("c1", "b32")),
    "mma_m16n8k8_f32": (("a0", "b32"), ("a1", "b32"), ("b0", "b32"), ("c0", "f32"), ("c1", "f32"), ("c2", "f32"),
                        ("c3", "f32")),
}


def _operand_names(names):
    """'a0, a1, a2, a3, b0, b1, c0, c1, c2, c3' written with runs: 'a0..a3, b0, b1, c0..c3'."""
    out, i = [], 0
    while i < len(names):
        j = i
        while j + 1 < len(names) and names[j + 1][0] == names[i][0] and int(names[j + 1][1:]) == int(names[j][1:]) + 1:
            j += 1
        out += [f"{names[i]}..{names[j]}"] if j - i >= 2 else names[i:j + 1]
        i = j + 1
    return ", ".join(out)


def _check_mma_operands(name, ops):
    """TypeError naming what the instruction takes when a lane passes the wrong number or kind of operands (on the GPU
    numba rejects such a call when it compiles the kernel)."""
    want = MMA_OPERANDS[name]
    names = [n for n, _ in want]
    kinds = {"b32": ".b32 레지스터(f16 두 개, ldmatrix 가 돌려주는 정수)", "f32": "f32 값"}
    groups = []
    for ty in ("b32", "f32"):
        these = [n for n, t in want if t == ty]
        if these:
            groups.append(f"{_operand_names(these)}: {kinds[ty]}")
    takes = f"인자 {len(want)}개 ({_operand_names(names)}; {'; '.join(groups)})"
    f = sys._getframe(2)                             # the kernel line (the stand-in called us)
    at = f" ({where(f.f_code.co_filename, f.f_lineno)})" if f is not None else ""
    tuples = [n for (n, _), o in zip(want, ops) if isinstance(o, (tuple, list, np.ndarray))]
    if len(ops) != len(want) or tuples:
        hint = ""
        if any(isinstance(o, (tuple, list, np.ndarray)) for o in ops):
            hint = (" 튜플을 그대로 넘겼습니다: ldmatrix 가 돌려준 튜플은 값 하나하나로 풀어 넘기세요 (예: a[0], a[1], "
                    "a[2], a[3], 또는 a0, a1, a2, a3 = ptx.ldmatrix_x4(...) 로 받기).")
        elif len(ops) == len(want) - sum(1 for n in names if n.startswith("c")):
            hint = (" 누적할 C 값(c0..)이 빠졌습니다: D = A·B + C 이므로 지난 스텝의 결과(처음에는 0)를 C 로 넘기세요.")
        raise MmaOperandError(f"{name}{at}: 인자를 {len(ops)}개 넘겼습니다. 이 명령이 받는 것은 {takes}.{hint}\n"
                              f"{name} takes {len(want)} scalar operands ({', '.join(names)}), got {len(ops)} "
                              "(on the GPU numba rejects the call when it compiles the kernel).")
    for (n, ty), o in zip(want, ops):
        if isinstance(o, (bool, np.bool_)) or not isinstance(o, (int, float, np.integer, np.floating)):
            raise MmaOperandError(f"{name}{at}: 인자 {n} 자리에 값 하나가 아니라 {type(o).__name__} 가 왔습니다 "
                                  f"({o!r:.60}). 이 명령이 받는 것은 {takes}.\n"
                                  f"{name}: operand {n} must be one scalar ({ty}), got {type(o).__name__}.")


def _mma_stand_in(name):
    def f(*ops):
        _check_mma_operands(name, ops)
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


# ------------------------------------------------------------------------- warp-level sync: syncwarp, shfl, vote
# PTX: the executing lane must be in membermask; it waits until every non-exited lane of membermask executed the
# same kind of instruction with the same membermask (lanes may be at different lines, sm_70 and later). A shuffle
# from a lane that is outside the mask, has exited or does not exist gives an undefined value: the simulator gives
# the poison that unwritten memory has (NaN, or -1 for integers), so a result that depends on it shows.

FULL_MASK = 0xFFFFFFFF


def _poison_like(v):
    if isinstance(v, (float, np.floating)):
        return type(v)(np.nan)
    if isinstance(v, (bool, np.bool_)):
        return v
    if isinstance(v, np.unsignedinteger):
        return type(v)(np.iinfo(type(v)).max)
    if isinstance(v, (int, np.integer)):
        return type(v)(-1)
    return v


def _shuffle(src_of):
    def run(members, payloads):
        by_lane = {t.thread_id % 32: p[1] for t, p in zip(members, payloads)}
        out = []
        for t, (mask, value, arg) in zip(members, payloads):
            lane = t.thread_id % 32
            j = src_of(lane, int(arg))
            if j is None:                              # out of range (shfl.up/down): the lane keeps its value
                out.append(value)
            elif j in by_lane:
                out.append(by_lane[j])
            else:                                      # not in the mask, exited or absent: undefined
                out.append(_poison_like(value))
        return out
    return run


def _vote(fn):
    def run(members, payloads):
        preds = [p[1] for p in payloads]
        ballot = 0
        for t, p in zip(members, payloads):
            if p[1]:
                ballot |= 1 << (t.thread_id % 32)
        r = fn(preds, ballot)
        return [r] * len(members)
    return run


def _match_any(members, payloads):
    lanes = [(t.thread_id % 32, p[1]) for t, p in zip(members, payloads)]
    return [np.uint32(sum(1 << l for l, v2 in lanes if v2 == v)) for _, v in lanes]


def _match_all(members, payloads):
    vals = [p[1] for p in payloads]
    m = sum(1 << (t.thread_id % 32) for t in members)
    same = all(v == vals[0] for v in vals)
    return [(np.uint32(m if same else 0), int(same))] * len(members)


SYNCWARP_HOOKS = []              # f(members): later units that order memory through a syncwarp (async_proxy.py)


def _syncwarp(members, payloads):
    """The lanes passed together: the race detector orders their accesses before against their accesses after."""
    group = frozenset(members)
    for t in members:
        t.wev.append((t.tix + 1, group))
        t.lf = None                                    # the next access starts a new line (program order)
    for hook in SYNCWARP_HOOKS:
        hook(members)
    return [None] * len(members)


PARTIAL = {
    "syncwarp": _syncwarp,
    "shfl_sync": _shuffle(lambda lane, src: src & 31),
    "shfl_up_sync": _shuffle(lambda lane, d: lane - d if lane - d >= 0 else None),
    "shfl_down_sync": _shuffle(lambda lane, d: lane + d if lane + d <= 31 else None),
    "shfl_xor_sync": _shuffle(lambda lane, m: (lane ^ m) & 31),
    "all_sync": _vote(lambda preds, ballot: int(all(bool(p) for p in preds))),
    "any_sync": _vote(lambda preds, ballot: int(any(bool(p) for p in preds))),
    "eq_sync": _vote(lambda preds, ballot: int(all(bool(p) == bool(preds[0]) for p in preds))),
    "ballot_sync": _vote(lambda preds, ballot: np.uint32(ballot)),
    "match_any_sync": _match_any,
    "match_all_sync": _match_all,
}


def _partial(name, mask, value=None, arg=None):
    t = current()
    try:
        mask = int(mask) & FULL_MASK
    except (TypeError, ValueError):
        raise TypeError(f"{name}: the mask must be an integer, got {mask!r}") from None
    lane = t.thread_id % 32
    if not mask >> lane & 1:
        f = sys._getframe(2)
        raise WarpCollectiveError(
            f"{name}: 레인 {josa(lane, '이/가')} 자기 비트가 없는 마스크 {mask:#010x} 로 실행했습니다 ({describe(t)}, "
            f"{where(f.f_code.co_filename, f.f_lineno)}). PTX 에서 실행하는 레인이 membermask 에 없으면 동작이 정의되지 "
            "않습니다: 마스크에 이 레인을 넣으세요 (워프 전체라면 0xFFFFFFFF).\n"
            f"{name}: lane {lane} executed it with mask {mask:#010x}, which does not contain the lane; PTX leaves that "
            "undefined. Include the executing lane in the mask (0xFFFFFFFF for the whole warp).")
    return arrive(name, (mask, value, arg), mask)


def stand_ins_warp_sync():
    """{name: FakeCUDAModule method} for syncwarp, the shuffles and the votes (numba's signatures)."""
    def syncwarp(self, mask=FULL_MASK):
        return _partial("syncwarp", mask)

    def shfl(name):
        def f(self, mask, value, arg):
            return _partial(name, mask, value, arg)
        f.__name__ = name
        return f

    def vote(name):
        def f(self, mask, pred):
            return _partial(name, mask, pred)
        f.__name__ = name
        return f

    def activemask(self):
        t = current()
        w = t.thread_id // 32
        return np.uint32(sum(1 << (x.thread_id % 32) for x in _block_threads() if x.thread_id // 32 == w and not x.done))

    def lanemask_lt(self):
        return np.uint32((1 << (current().thread_id % 32)) - 1)

    out = {"syncwarp": syncwarp, "activemask": activemask, "lanemask_lt": lanemask_lt}
    for n in ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync"):
        out[n] = shfl(n)
    for n in ("all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync"):
        out[n] = vote(n)
    return out


BLOCK = {"threads": ()}                # the running block's threads (set by the scheduler; activemask reads it)


def _block_threads():
    return BLOCK["threads"]


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
