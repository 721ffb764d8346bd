"""Buggy kernels written the way a student would after notebooks 06-10, for the race-detector tests.

Each case is a small kernel made from a template: every barrier, wait and commit of the template is a slot that a
case keeps, removes, moves or gets off by one. `build(case, tmp_path)` writes the kernel to a file (so the simulator
and the detector see real source lines) and returns (launch, lines), `lines[TAG]` being the line of the statement
marked `# <TAG>` in the generated source.
"""
import importlib.util
import re
from dataclasses import dataclass, field

import numpy as np

T = 8                        # FP32 tiles: T x T, block T x T threads (2 warps)

TILED = '''
from numba import cuda, float32
T = {T}


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((T, T), float32)
    Bs = cuda.shared.array((T, T), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * T + ty
    col = cuda.blockIdx.x * T + tx
    acc = float32(0.0)
    for kt in range(A.shape[1] // T):
        {EARLY}
        As[ty, tx] = A[row, kt * T + tx]  # <STORE_A>
        Bs[ty, tx] = B[kt * T + ty, col]  # <STORE_B>
        {SYNC1}  # <SYNC1>
        for k in range(T):
            acc += As[ty, k] * Bs[k, tx]  # <READ>
        {SYNC2}  # <SYNC2>
    C[row, col] = acc
'''

# NUM_STAGES-deep cp.async pipeline, one tile per stage, copy of 4 B (every thread one element) or 16 B (threads
# 0-15 copy A's tile, 16-31 B's tile, 4 floats each). The loop issues tile kt+S-1, commits, waits for tile kt.
ASYNC = '''
from numba import cuda, float32
from kernels_numba.infra import ptx
T = {T}
S = {S}


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((S, T, T), float32{ALIGN})
    Bs = cuda.shared.array((S, T, T), float32{ALIGN})
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * T + tx
    bm = cuda.blockIdx.y * T
    bn = cuda.blockIdx.x * T
    acc = float32(0.0)
    nk = A.shape[1] // T
    for p in range(S - 1):
        if p < nk:
            {COPY_P}
        ptx.cp_async_commit_group()
    for kt in range(nk):
        nxt = kt + S - 1
        if nxt < nk:
            {COPY_N}
            {TAIL_COMMIT}
        {COMMIT}  # <COMMIT>
        {WAIT}  # <WAIT>
        {SYNC1}  # <SYNC1>
        for k in range(T):
            acc += As[kt % S, ty, k] * Bs[kt % S, k, tx]  # <READ>
        {SYNC2}  # <SYNC2>
    C[bm + ty, bn + tx] = acc
'''

COPY4 = ("ptx.cp_async_ca_4(As, {stage}, ty, tx, A, bm + ty, {tile} * T + tx)  # <ISSUE_A>\n"
         "{ind}ptx.cp_async_ca_4(Bs, {stage}, ty, tx, B, {tile} * T + ty, bn + tx)  # <ISSUE_B>")
COPY16 = ("if tid < 16:\n"
          "{ind}    ptx.cp_async_cg_16(As, {stage}, tid // 2, tid % 2 * 4, A, bm + tid // 2, {tile} * T + tid % 2 * 4)"
          "  # <ISSUE_A>\n"
          "{ind}elif tid < 32:\n"
          "{ind}    ptx.cp_async_cg_16(Bs, {stage}, (tid - 16) // 2, tid % 2 * 4, B, {tile} * T + (tid - 16) // 2, "
          "bn + tid % 2 * 4)  # <ISSUE_B>")

# The first bullet of the issue: the next tile is prefetched into the single buffer other threads still read.
SINGLE = '''
from numba import cuda, float32
from kernels_numba.infra import ptx
T = {T}


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((1, T, T), float32{ALIGN})
    Bs = cuda.shared.array((1, T, T), float32{ALIGN})
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * T + tx
    bm = cuda.blockIdx.y * T
    bn = cuda.blockIdx.x * T
    acc = float32(0.0)
    nk = A.shape[1] // T
    {COPY_0}
    ptx.cp_async_commit_group()
    for kt in range(nk):
        ptx.cp_async_wait_group_0()  # <WAIT>
        cuda.syncthreads()  # <SYNC1>
        if kt + 1 < nk:
            {COPY_N}
        ptx.cp_async_commit_group()
        for k in range(T):
            acc += As[0, ty, k] * Bs[0, k, tx]  # <READ>
        cuda.syncthreads()  # <SYNC2>
    C[bm + ty, bn + tx] = acc
'''

# Tensor Cores: W warps share one 16x16 A tile; warp w multiplies it by columns 8w..8w+7 of a 16 x 8W B tile.
# Threads copy A (32 chunks of 16 B) and B (2W chunks per row) with cp.async, or with plain stores (STORES=True).
MMA = '''
from numba import cuda, float32
from numba.types import float16
from kernels_numba.infra import ptx
W = {W}
BN = {BN}


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, BN), float16, alignment=16)
    tid = cuda.threadIdx.x
    lane = tid % 32
    warp = tid // 32
    z = float32(0.0)
    d0, d1, d2, d3 = z, z, z, z
    for kt in range(A.shape[1] // 16):
        for c in range(tid, 32 + 16 * W, 32 * W):
            if c < 32:
                {COPY_A}  # <ISSUE_A>
            else:
                {COPY_B}  # <ISSUE_B>
        {COMMIT}
        {WAIT}  # <WAIT>
        {SYNC1}  # <SYNC1>
        a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))  # <LDSM_A>
        b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 8 * warp)  # <LDSM_B>
        d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, d0, d1, d2, d3)
        {SYNC2}  # <SYNC2>
    r, c = lane // 4, 8 * warp + 2 * (lane % 4)
    C[r, c] = d0
    C[r, c + 1] = d1
    C[r + 8, c] = d2
    C[r + 8, c + 1] = d3
'''
MMA_CP = ("ptx.cp_async_cg_16(As, c // 2, c % 2 * 8, A, c // 2, kt * 16 + c % 2 * 8)",
          "ptx.cp_async_cg_16(Bs, (c - 32) // W, (c - 32) % W * 8, B, kt * 16 + (c - 32) // W, (c - 32) % W * 8)")
MMA_ST = ("for e in range(8):\n                    As[c // 2, c % 2 * 8 + e] = A[c // 2, kt * 16 + c % 2 * 8 + e]",
          "for e in range(8):\n                    Bs[(c - 32) // W, (c - 32) % W * 8 + e] = "
          "B[kt * 16 + (c - 32) // W, (c - 32) % W * 8 + e]")

SYNC = "cuda.syncthreads()"


@dataclass
class Case:
    """One kernel: its template, the slots it changes, and what the detector must say (kind, first tag, second tag)."""
    name: str
    template: str
    slots: dict = field(default_factory=dict)
    expect: tuple = None          # (kind, first line tag, second line tag) or None for a correct kernel
    error: str = None             # an error type name other than a race (e.g. misalignment)
    via: str = None               # tag of the wait that landed the first access's copy, where it matters

    def source(self):
        if self.template == "tiled":
            s = {"T": T, "EARLY": "pass", "SYNC1": SYNC, "SYNC2": SYNC}
            s.update(self.slots)
            return TILED.format(**s)
        if self.template == "async":
            s = {"T": T, "S": 2, "ALIGN": ", alignment=16", "SIZE": 4, "COMMIT": "ptx.cp_async_commit_group()",
                 "TAIL_COMMIT": "pass", "SYNC1": SYNC, "SYNC2": SYNC}
            s.update(self.slots)
            s.setdefault("WAIT", f"ptx.cp_async_wait_group_{s['S'] - 1}()")
            copy = COPY4 if s["SIZE"] == 4 else COPY16
            s["COPY_P"] = copy.format(stage="p", tile="p", ind=" " * 12).replace("<ISSUE_", "<P_")
            s["COPY_N"] = copy.format(stage="nxt % S", tile="nxt", ind=" " * 12)
            return ASYNC.format(**s)
        if self.template == "single":
            s = {"T": T, "ALIGN": ", alignment=16", "SIZE": 4}
            s.update(self.slots)
            copy = COPY4 if s["SIZE"] == 4 else COPY16
            s["COPY_0"] = copy.format(stage="0", tile="0", ind=" " * 4).replace("<ISSUE_", "<P_")
            s["COPY_N"] = copy.format(stage="0", tile="(kt + 1)", ind=" " * 12)
            return SINGLE.format(**s)
        if self.template == "mma":
            s = {"W": 2, "STORES": False, "COMMIT": "ptx.cp_async_commit_group()",
                 "WAIT": "ptx.cp_async_wait_group_0()", "SYNC1": SYNC, "SYNC2": SYNC}
            s.update(self.slots)
            s["BN"] = 8 * s["W"]                 # a shared array's shape must be literal constants on the GPU
            s["COPY_A"], s["COPY_B"] = MMA_ST if s["STORES"] else MMA_CP
            if s["STORES"]:
                s["COMMIT"] = s["WAIT"] = "pass"
            return MMA.format(**s)
        raise ValueError(self.template)

    def shape(self):
        """(M, N, K, dtype, grid, block) of the launch."""
        if self.template == "mma":
            W = self.slots.get("W", 2)
            return 16, 8 * W, 48, np.float16, (1, 1), (32 * W,)
        return T, 2 * T, 4 * T, np.float32, (2, 1), (T, T)


def tag_lines(lines, tag):
    """Lines a tag stands for: the A or the B access of the same step (ISSUE_A: also the prologue's copy P_A)."""
    tags = {tag, tag.replace("ISSUE_", "P_")}
    tags |= {t[:-1] + ("B" if t.endswith("A") else "A") for t in tags if t[-2:] in ("_A", "_B")}
    return {lines[t] for t in tags if t in lines}


def _async_cases():
    out = []
    for S in (1, 2, 3):
        for size in (4, 16):
            base = {"S": S, "SIZE": size}
            tag = f"s{S}_{size}B"
            out += [
                Case(f"async_{tag}_ok", "async", dict(base)),
                Case(f"async_{tag}_no_wait", "async", dict(base, WAIT="pass"), ("IN_FLIGHT", "ISSUE_A", "READ")),
                Case(f"async_{tag}_wait_off_by_one", "async", dict(base, WAIT=f"ptx.cp_async_wait_group_{S}()"),
                     ("IN_FLIGHT", "ISSUE_A", "READ")),
                Case(f"async_{tag}_no_barrier_after_wait", "async", dict(base, SYNC1="pass"),
                     ("RAW", "ISSUE_A", "READ"), via="WAIT"),
                Case(f"async_{tag}_barrier_before_wait", "async",
                     dict(base, SYNC1="pass", COMMIT="ptx.cp_async_commit_group()\n        cuda.syncthreads()"),
                     ("IN_FLIGHT", "ISSUE_A", "READ")),
                Case(f"async_{tag}_no_trailing_barrier", "async", dict(base, SYNC2="pass"),
                     ("WAR", "READ", "ISSUE_A")),
            ]
            if S >= 2:
                out += [
                    Case(f"async_{tag}_no_commit", "async", dict(base, COMMIT="pass"),
                         ("IN_FLIGHT", "ISSUE_A", "READ")),
                    Case(f"async_{tag}_tail_without_empty_commit", "async",
                         dict(base, COMMIT="pass", TAIL_COMMIT="ptx.cp_async_commit_group()"),
                         ("IN_FLIGHT", "ISSUE_A", "READ")),
                ]
    for size in (4, 16):
        out.append(Case(f"single_{size}B_prefetch_into_the_buffer_being_read", "single", {"SIZE": size},
                        ("IN_FLIGHT", "ISSUE_A", "READ")))
    out.append(Case("async_16B_without_alignment", "async", {"S": 2, "SIZE": 16, "ALIGN": ""},
                    error="AsyncCopyAlignmentError"))
    return out


CASES = [
    Case("tiled_ok", "tiled"),
    Case("tiled_no_barrier_after_store", "tiled", {"SYNC1": "pass"}, ("RAW", "STORE_A", "READ")),
    Case("tiled_no_barrier_after_compute", "tiled", {"SYNC2": "pass"}, ("WAR", "READ", "STORE_A")),
    Case("tiled_barrier_moved_before_store", "tiled", {"SYNC1": "pass", "EARLY": SYNC}, ("RAW", "STORE_A", "READ")),
    *_async_cases(),
    *[Case(f"mma_w{W}_ok", "mma", {"W": W}) for W in (1, 2)],
    *[c for W in (1, 2) for c in (
        Case(f"mma_w{W}_no_barrier_after_wait", "mma", {"W": W, "SYNC1": "pass"}, ("RAW", "ISSUE_A", "LDSM_A"),
             via="WAIT"),
        Case(f"mma_w{W}_no_trailing_barrier", "mma", {"W": W, "SYNC2": "pass"}, ("WAR", "LDSM_A", "ISSUE_A")),
        Case(f"mma_w{W}_no_wait", "mma", {"W": W, "WAIT": "pass"}, ("IN_FLIGHT", "ISSUE_A", "LDSM_A")),
        Case(f"mma_w{W}_stores_no_barrier", "mma", {"W": W, "STORES": True, "SYNC1": "pass"},
             ("RAW", "ISSUE_A", "LDSM_A")),
    )],
]


def build(case, tmp_path, lineinfo=False):
    """(launch(rng) -> (C, reference), lines) for a case; the kernel lives in a real file under tmp_path.
    lineinfo=True: compile with line information (compute-sanitizer then names the source lines on a GPU)."""
    src = case.source()
    if lineinfo:
        src = src.replace("@cuda.jit\n", "@cuda.jit(lineinfo=True)\n")
    path = tmp_path / f"race_{case.name}.py"
    path.write_text(src, encoding="utf-8")
    lines = {}
    for n, line in enumerate(src.splitlines(), 1):
        for tag in re.findall(r"# <(\w+)>", line):
            lines.setdefault(tag, n)
    spec = importlib.util.spec_from_file_location(f"race_{case.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    M, N, K, dt, grid, block = case.shape()

    def launch(rng):
        A = rng.standard_normal((M, K)).astype(dt)
        B = rng.standard_normal((K, N)).astype(dt)
        C = np.full((M, N), np.nan, np.float32)
        mod.kernel[grid, block](A, B, C)
        return C, A.astype(np.float64) @ B.astype(np.float64)

    launch.module = mod

    return launch, lines
