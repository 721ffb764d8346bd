"""Ground truth for mma.sync.m16n8k8 (f16 in, f32 accumulate; Turing sm_75 and later) from the hardware.

m16n8k8 exists on every target since sm_75, so a Hopper GPU records it too (no compute capability 7.5 GPU was
available to us). Four parts, all in one short run:
* layout: the course's ldmatrix addressing (A 16x8 by ldmatrix.x2 at As[lane % 16][0], B 8x8 by ldmatrix.x1.trans at
  Bs[lane % 8][0]) feeds one m16n8k8. A holds codes 8 r + k and B integers chosen so that every D entry is distinct
  and exact: the registers' codes say which A/B element each lane's registers hold, D's values which C/D element.
* probes: the registers are fed straight from global memory (no ldmatrix), packed on the host by sim/mma.py's model
  with A = 1 + 8 r + k, B = 1 + 8 k + n; then one block per A register half with only that half nonzero (= 1.0, 128
  probes) and one per B register half (64 probes). Every probe's nonzero D registers are stored as
  (lane, register, value): the hardware's answer, decoded against the model only in tests/test_turing_mma.py.
* numerics: random f16 registers and lane-indexed random C: raw D, for the stand-in comparison.
* kernels: mma_simple_turing and mma_large_turing against a float64 reference with the derived bound
  (kernels_numba.tc.error_bound), C poisoned with NaN, plus alpha/beta and A = I; and the largest difference to
  mma_simple / mma_large (one m16n8k16 per 16 of K) on the same inputs.
Run: python benchmarks/record_turing_mma.py --out course/recorded/mma_m16n8k8_<gpu>.json
"""
import argparse
import datetime
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kernels_numba as kn                       # noqa: E402  (chooses GPU or simulator before numba loads)
from kernels_numba.infra import device, ptx  # noqa: E402
from kernels_numba import tc
from numba import cuda                           # noqa: E402
from numba.types import float16                  # noqa: E402
from sim import mma as layout                    # noqa: E402

A_CODES = 1 + np.arange(128, dtype=np.float64).reshape(16, 8)       # A[r][k] = 1 + 8 r + k (probes)
B_CODES = 1 + np.arange(64, dtype=np.float64).reshape(8, 8)         # B[k][n] = 1 + 8 k + n (probes)


@cuda.jit
def ldsm_kernel(A, B, Cin, D, Aregs, Bregs):
    As = cuda.shared.array((16, 8), float16, alignment=16)
    Bs = cuda.shared.array((8, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    for i in range(4):
        e = lane * 4 + i
        As[e // 8, e % 8] = A[e // 8, e % 8]
    for i in range(2):
        e = lane * 2 + i
        Bs[e // 8, e % 8] = B[e // 8, e % 8]
    cuda.syncthreads()
    a0, a1 = ptx.ldmatrix_x2(As, lane % 16, 0)
    b0 = ptx.ldmatrix_x1_trans(Bs, lane % 8, 0)
    Aregs[lane, 0], Aregs[lane, 1], Bregs[lane, 0] = a0, a1, b0
    d0, d1, d2, d3 = ptx.mma_m16n8k8_f32(a0, a1, b0, Cin[lane, 0], Cin[lane, 1], Cin[lane, 2], Cin[lane, 3])
    D[lane, 0], D[lane, 1], D[lane, 2], D[lane, 3] = d0, d1, d2, d3


@cuda.jit
def direct_kernel(Ar, Br, Cin, D):
    # block p: each lane's registers come straight from global memory: what the mma itself makes of them
    p = cuda.blockIdx.x
    lane = cuda.threadIdx.x
    d0, d1, d2, d3 = ptx.mma_m16n8k8_f32(Ar[p, lane, 0], Ar[p, lane, 1], Br[p, lane, 0],
                                         Cin[p, lane, 0], Cin[p, lane, 1], Cin[p, lane, 2], Cin[p, lane, 3])
    D[p, lane, 0], D[p, lane, 1], D[p, lane, 2], D[p, lane, 3] = d0, d1, d2, d3


def pack(values):
    """(32, 2n) f16 values -> (32, n) .b32 registers (low half first)."""
    return np.ascontiguousarray(np.asarray(values, np.float16)).view(np.uint32)


def model_registers(A, B):
    """A (16x8), B (8x8) -> (32, 2) A registers and (32, 1) B registers by sim/mma.py's m16n8k8 model."""
    a = [[A[r][c] for r, c in layout.m16n8k8_a_elements(l)] for l in range(32)]
    b = [[B[r][c] for r, c in layout.m16n8k8_b_elements(l)] for l in range(32)]
    return pack(a), pack(b)


def run_direct(Ar, Br, Cin):
    D = np.zeros((len(Ar), 32, 4), np.float32)
    direct_kernel[len(Ar), 32](np.ascontiguousarray(Ar, np.uint32), np.ascontiguousarray(Br, np.uint32),
                               np.ascontiguousarray(Cin, np.float32), D)
    return D


def run_ldsm(A, B, Cin):
    D = np.zeros((32, 4), np.float32)
    Ar = np.zeros((32, 2), np.uint32)
    Br = np.zeros((32, 1), np.uint32)
    ldsm_kernel[1, 32](np.asarray(A, np.float16), np.asarray(B, np.float16), np.asarray(Cin, np.float32), D, Ar, Br)
    return D, Ar, Br


def _halves(regs):
    return np.ascontiguousarray(regs, np.uint32).view(np.float16).astype(np.float64)


def record_layout():
    A = np.arange(128, dtype=np.float16).reshape(16, 8)                # code 8 r + k
    B = (np.arange(64, dtype=np.float64).reshape(8, 8) % 13 + 8 * np.arange(8)).astype(np.float16)
    Dref = A.astype(np.float64) @ B.astype(np.float64)
    assert len(np.unique(Dref)) == 128 and Dref.max() < 2 ** 24, "D entries must be distinct and exact"
    D, Ar, _ = run_ldsm(A, B, np.zeros((32, 4), np.float32))
    c_layout = [[[int(x) for x in np.argwhere(Dref == d)[0]] for d in D[lane]] for lane in range(32)]
    a_layout = [[[int(c) // 8, int(c) % 8] for c in _halves(Ar)[lane]] for lane in range(32)]
    Bcode = np.arange(64, dtype=np.float16).reshape(8, 8)              # code 8 k + n
    _, _, Brc = run_ldsm(A, Bcode, np.zeros((32, 4), np.float32))
    b_layout = [[[int(c) // 8, int(c) % 8] for c in _halves(Brc)[lane]] for lane in range(32)]
    return {"A": a_layout, "B": b_layout, "C": c_layout, "D_matches_A_at_B": bool(
        all(D[l][i] == Dref[r][c] for l in range(32) for i, (r, c) in enumerate(c_layout[l]))),
        "A_addresses": "ldmatrix.x2 of As[16][8] at (lane % 16, 0)",
        "B_addresses": "ldmatrix.x1.trans of Bs[8][8] at (lane % 8, 0)"}


def record_probes():
    Ar0, Br0 = model_registers(A_CODES, B_CODES)
    probes, Ars, Brs = [], [], []
    for lane in range(32):
        for h in range(4):                       # A register h // 2, half h % 2
            v = np.zeros((32, 4), np.float16)
            v[lane, h] = 1.0
            Ars.append(pack(v))
            Brs.append(Br0)
            probes.append({"operand": "A", "lane": lane, "half": h})
    for lane in range(32):
        for h in range(2):
            v = np.zeros((32, 2), np.float16)
            v[lane, h] = 1.0
            Ars.append(Ar0)
            Brs.append(pack(v))
            probes.append({"operand": "B", "lane": lane, "half": h})
    D = run_direct(np.array(Ars), np.array(Brs), np.zeros((len(Ars), 32, 4), np.float32))
    for p, d in zip(probes, D):
        p["nonzero"] = [[int(l), int(i), float(d[l, i])] for l, i in zip(*np.nonzero(d))]
    return {"A_codes": "A[r][k] = 1 + 8 r + k", "B_codes": "B[k][n] = 1 + 8 k + n",
            "packing": "the other operand packed by sim/mma.py m16n8k8_a_elements / m16n8k8_b_elements",
            "probes": probes}


def record_numerics():
    rng = np.random.default_rng(2026)
    samples = []
    for _ in range(4):
        Ar = pack(rng.standard_normal((32, 4)))
        Br = pack(rng.standard_normal((32, 2)))
        Cin = rng.standard_normal((32, 4)).astype(np.float32)
        D = run_direct(Ar[None], Br[None], Cin[None])[0]
        samples.append({"Aregs": Ar.tolist(), "Bregs": Br.tolist(), "Cin": Cin.tolist(), "D": D.tolist()})
    return samples


def _check(spec, M, N, K, alpha=1.0, beta=0.0, seed=0, identity=False):
    rng = np.random.default_rng(seed)
    A = np.eye(M, K, dtype=np.float16) if identity else rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy() if beta != 0 else np.full((M, N), np.nan, np.float32)
    spec.launch(A, B, C, alpha, beta)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, alpha, beta, C0))
    bound = tc.error_bound(A, B, alpha, beta, C0)
    row = {"kernel": spec.name, "M": M, "N": N, "K": K, "alpha": alpha, "beta": beta, "identity": identity,
           "finite": bool(np.isfinite(C).all()), "within_bound": bool((err <= bound).all()),
           "max_err_over_bound": float(np.nanmax(err / bound)), "max_abs_err": float(np.nanmax(err))}
    if identity:
        row["exact"] = bool((C == B[:M].astype(np.float32)).all())
    twin = {"mma_simple_turing": "mma_simple", "mma_large_turing": "mma_large"}[spec.name]
    if kn.get(twin).runs_here() and not identity:
        C2 = C0.copy() if beta != 0 else np.full((M, N), np.nan, np.float32)
        kn.get(twin).launch(A, B, C2, alpha, beta)
        row["vs_" + twin] = {"max_abs_diff": float(np.abs(C - C2).max()), "identical": bool((C == C2).all())}
    return row


def record_kernels(big=True):
    simple, large = kn.get("mma_simple_turing"), kn.get("mma_large_turing")
    rows = [_check(simple, 16, 8, 16), _check(simple, 16, 8, 16, 1.5, -0.5, seed=3),
            _check(simple, 16, 8, 16, identity=True, seed=4)]
    shapes = [(32, 16, 48), (48, 40, 48)] + ([(144, 136, 112), (512, 256, 1024)] if big else [])
    rows += [_check(large, M, N, K, seed=s) for s, (M, N, K) in enumerate(shapes)]
    rows += [_check(large, 48, 40, 48, 1.5, -0.5, seed=3), _check(large, 48, 40, 48, identity=True, seed=4)]
    return rows


def record(big=True):
    if device.SIMULATOR:
        gpu, cc = "simulator", [0, 0]
    else:
        dev = cuda.get_current_device()
        gpu, cc = (dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)), list(dev.compute_capability)
    import importlib.metadata as md
    return {"what": "benchmarks/record_turing_mma.py: mma.sync.m16n8k8.row.col.f32.f16.f16.f32 read on the GPU",
            "gpu": gpu, "cc": cc, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "numba_cuda": md.version("numba-cuda"),
            "note": "no compute capability 7.5 GPU was available: m16n8k8 recorded on a later GPU that also has it",
            "layout": record_layout(), "probes": record_probes(), "numerics": record_numerics(),
            "kernels": record_kernels(big)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--small", action="store_true", help="kernels on the two small shapes only (simulator)")
    args = ap.parse_args()
    rec = record(big=not args.small)
    from course import records                   # the one record schema
    path = os.path.abspath(args.out)
    records.save(records.from_flat(os.path.splitext(os.path.basename(path))[0], rec, "mma_m16n8k8",
                                   "mma.sync.m16n8k8 layout and numerics read on the GPU "
                                   "(benchmarks/record_turing_mma.py)"), os.path.dirname(path))
    bad = [r for r in rec["kernels"] if not (r["finite"] and r["within_bound"] and r.get("exact", True))]
    print("m16n8k8 recorded:", rec["gpu"], rec["cc"], "| layout D == A@B:", rec["layout"]["D_matches_A_at_B"],
          "| kernel checks failing:", bad or "none")


if __name__ == "__main__":
    main()
