"""Ground truth from the hardware: which matrix elements each lane's fragment registers hold (GPU, sm_80+).

* ldmatrix .x1/.x2/.x4 (and .trans): shared memory holds element codes S[row][col] = 8*row + col (row = 8*j + r of
  matrix j); lane L gives the address of row L (lane % 8 for the rows a .x1/.x2 ignores); every lane writes the codes
  its registers received, low half first.
* mma.m16n8k16: A and B are loaded with the course's ldmatrix addressing; with integer A, B (all D entries distinct and
  exact) every lane writes its raw d0..d3, so the host reads off which D element each register holds (C/D layout); the
  A and B registers' elements are the codes ldmatrix delivered. Then random f16 A, B and lane-indexed C for f32 and f16
  accumulation: the raw outputs, compared with the simulator's stand-in in tests/test_mma_layout.py.
Run: python benchmarks/record_mma_layout.py --out course/recorded/mma_layout_<gpu>.json
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernels_numba.infra import device, ptx      # noqa: E402  (chooses GPU or simulator before numba loads)
from numba import cuda, uint32                   # noqa: E402
from numba.types import float16                  # noqa: E402

VARIANTS = [(n, t) for n in (1, 2, 4) for t in (False, True)]


@cuda.jit(device=True)
def _emit(out, v, lane, regs, n):
    for j in range(n):
        lo, hi = ptx.unpack_f16x2(regs[j])
        out[v, lane, j, 0] = ptx.cvt_f32_f16(lo)
        out[v, lane, j, 1] = ptx.cvt_f32_f16(hi)


@cuda.jit
def ldmatrix_kernel(codes, out):
    S = cuda.shared.array((32, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for c in range(8):
        S[lane, c] = codes[lane, c]
    cuda.syncthreads()
    regs = cuda.local.array(4, uint32)
    r = ptx.ldmatrix_x1(S, lane % 8, 0)
    regs[0] = r
    _emit(out, 0, lane, regs, 1)
    r = ptx.ldmatrix_x1_trans(S, lane % 8, 0)
    regs[0] = r
    _emit(out, 1, lane, regs, 1)
    regs[0], regs[1] = ptx.ldmatrix_x2(S, lane % 16, 0)
    _emit(out, 2, lane, regs, 2)
    regs[0], regs[1] = ptx.ldmatrix_x2_trans(S, lane % 16, 0)
    _emit(out, 3, lane, regs, 2)
    regs[0], regs[1], regs[2], regs[3] = ptx.ldmatrix_x4(S, lane, 0)
    _emit(out, 4, lane, regs, 4)
    regs[0], regs[1], regs[2], regs[3] = ptx.ldmatrix_x4_trans(S, lane, 0)
    _emit(out, 5, lane, regs, 4)


@cuda.jit
def mma_kernel(A, B, Cin, Cin16, D, D16, Aregs, Bregs):
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for i in range(8):
        e = lane * 8 + i
        As[e // 16, e % 16] = A[e // 16, e % 16]
    for i in range(4):
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[e // 8, e % 8]
    cuda.syncthreads()
    a0, a1, a2, a3 = ptx.ldmatrix_x4(As, lane % 16, 8 * (lane // 16))
    b0, b1 = ptx.ldmatrix_x2_trans(Bs, lane % 16, 0)
    Aregs[lane, 0], Aregs[lane, 1], Aregs[lane, 2], Aregs[lane, 3] = a0, a1, a2, a3
    Bregs[lane, 0], Bregs[lane, 1] = b0, b1
    d0, d1, d2, d3 = ptx.mma_m16n8k16_f32(a0, a1, a2, a3, b0, b1, Cin[lane, 0], Cin[lane, 1], Cin[lane, 2], Cin[lane, 3])
    D[lane, 0], D[lane, 1], D[lane, 2], D[lane, 3] = d0, d1, d2, d3
    h0, h1 = ptx.mma_m16n8k16_f16(a0, a1, a2, a3, b0, b1, Cin16[lane, 0], Cin16[lane, 1])
    D16[lane, 0], D16[lane, 1] = h0, h1


def run_mma(A, B, Cin, Cin16):
    D = np.zeros((32, 4), np.float32)
    D16 = np.zeros((32, 2), np.uint32)
    Ar = np.zeros((32, 4), np.uint32)
    Br = np.zeros((32, 2), np.uint32)
    mma_kernel[1, 32](A, B, Cin, Cin16, D, D16, Ar, Br)
    return D, D16, Ar, Br


def _halves(regs):
    return np.ascontiguousarray(regs, np.uint32).view(np.float16).astype(np.float64)


def record():
    codes = np.arange(256, dtype=np.float16).reshape(32, 8)
    out = np.full((6, 32, 4, 2), -1, np.float32)
    ldmatrix_kernel[1, 32](codes, out)
    ldsm = {}
    for v, (n, t) in enumerate(VARIANTS):
        name = f"x{n}" + (".trans" if t else "")
        ldsm[name] = [[[[int(c) // 64, (int(c) % 64) // 8, int(c) % 8] for c in out[v, lane, j]] for j in range(n)]
                      for lane in range(32)]
    # layout: integer A (codes), integer B: every D entry distinct and exact in f32
    A = np.arange(256, dtype=np.float16).reshape(16, 16)          # A[r][k] = 16 r + k
    B = (np.arange(128, dtype=np.float64).reshape(16, 8) % 13 + 8 * np.arange(8)).astype(np.float16)
    Dref = A.astype(np.float64) @ B.astype(np.float64)
    zero = np.zeros((32, 4), np.float32)
    D, _, Ar, Br = run_mma(A, B, zero, np.zeros((32, 2), np.uint32))
    assert len(np.unique(Dref)) == 128, "D entries must be distinct"
    c_layout = [[[int(x) for x in np.argwhere(Dref == d)[0]] for d in D[lane]] for lane in range(32)]
    a_codes = _halves(Ar)                                          # A's codes = 16 r + k
    a_layout = [[[int(c) // 16, int(c) % 16] for c in a_codes[lane]] for lane in range(32)]
    Bcode = np.arange(128, dtype=np.float16).reshape(16, 8)       # B's codes = 8 k + n
    _, _, _, Brc = run_mma(A, Bcode, zero, np.zeros((32, 2), np.uint32))
    b_layout = [[[int(c) // 8, int(c) % 8] for c in _halves(Brc)[lane]] for lane in range(32)]
    # numerics: random f16 inputs, lane-indexed C; f32 and f16 accumulation
    rng = np.random.default_rng(2026)
    samples = []
    for s in range(4):
        A = rng.standard_normal((16, 16)).astype(np.float16)
        B = rng.standard_normal((16, 8)).astype(np.float16)
        Cin = rng.standard_normal((32, 4)).astype(np.float32)
        Cin16 = rng.standard_normal((32, 4)).astype(np.float16).view(np.uint32).reshape(32, 2)
        D, D16, Ar, Br = run_mma(A, B, Cin, Cin16)
        samples.append({"A": A.astype(float).tolist(), "B": B.astype(float).tolist(), "Cin": Cin.tolist(),
                        "Cin16": Cin16.tolist(), "Aregs": Ar.tolist(), "Bregs": Br.tolist(),
                        "D": D.tolist(), "D16": D16.tolist()})
    if device.SIMULATOR:
        gpu, cc = "simulator", [0, 0]
    else:
        dev = cuda.get_current_device()
        gpu, cc = (dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)), list(dev.compute_capability)
    return {"what": "benchmarks/record_mma_layout.py: element held by each lane's registers, read on the GPU",
            "gpu": gpu, "cc": cc,
            "ldmatrix": ldsm, "ldmatrix_addresses": "lane L gives row L (x1: L % 8, x2: L % 16) of S[32][8]",
            "mma_m16n8k16": {"A": a_layout, "B": b_layout, "C": c_layout,
                             "A_addresses": "ldmatrix.x4 of As[16][16] at (lane % 16, 8 * (lane // 16))",
                             "B_addresses": "ldmatrix.x2.trans of Bs[16][8] at (lane % 16, 0)"},
            "numerics": samples}


def save(rec, out):
    """Write record()'s findings at path `out` as a record in the one schema (a run without timing rows)."""
    from course import records                   # the one record schema
    path = os.path.abspath(out)
    return records.save(records.from_flat(os.path.splitext(os.path.basename(path))[0], rec, "mma_layout",
                                          "element held by each lane's registers, read on the GPU "
                                          "(benchmarks/record_mma_layout.py)"), os.path.dirname(path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rec = record()
    save(rec, args.out)
    print("layout recorded:", rec["gpu"], rec["cc"])


if __name__ == "__main__":
    main()
