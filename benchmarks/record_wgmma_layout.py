"""Ground truth from an H100: the wgmma accumulator layout, the descriptors of the course's tiles, and TMA's placement.

One warpgroup (128 threads) runs one wgmma.mma_async.m64nNk16 (N = 64, 128) on tiles laid out exactly as the
level-7 kernels lay them out (A 64 x 64 K-major, B 64 x N in 64-column boxes, 128-byte swizzle, 1024-byte aligned),
filled either by ordinary stores (wgmma_simple's way) or by the TMA (wgmma_tma's way), at each k16 step kk = 0..3:
* pattern "rc": A[r, 16kk] = r, A[r, 16kk+1] = 1, B[16kk, c] = N, B[16kk+1, c] = c, zeros elsewhere, so that
  D[r, c] = r*N + c exactly: every thread's raw register i names the element it holds (the accumulator layout);
* pattern "k": A[r, 16kk + r % 16] = 1, B[16kk + k, c] = k*N + c (exact in f16 for N <= 128): D[r, c] = (r % 16)*N + c,
  which reads every row of B's k16 slice and every 16-byte chunk of A's (all of LBO, SBO, the swizzle, the k advance);
* pattern "random": random f16 A, B slices and a random C in the accumulators: the raw f32 outputs, to compare with the
  simulator's rounding model (products exact, one rounding).
It also records where dynamic shared memory declared with alignment=1024 starts (address % 1024) and the driver's
version. Every probe is compared here with sim/wgmma.py; the record keeps the raw values too.

Run on the GPU machine (one command): python benchmarks/record_wgmma_layout.py
  -> course/ch11_hopper/records/wgmma_layout_h100.json (or --out PATH), a record in the one schema (course/records.py: a run
  without timing rows, the probes under extra). Works in the simulator too (SGEMM_DEVICE=sim), which is how it was
  tested before a GPU ran it.
"""
import argparse
import datetime
import os
import sys
from pathlib import Path

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import kernels_numba as kn                                   # noqa: E402  (chooses GPU or simulator)
from course import records                                  # noqa: E402
from kernels_numba.infra import device, hopper, ptx, tma     # noqa: E402
from numba import cuda, float32, uint32, uint64             # noqa: E402
from numba.types import float16                             # noqa: E402
from sim import wgmma                                       # noqa: E402

METHOD = ("one wgmma.mma_async.m64nNk16 per probe (N = 64, 128; k16 step kk = 0..3) on tiles laid out as the level-7 "
          "kernels lay them out, filled by stores or by the TMA; patterns rc (the accumulator layout), k (descriptors, "
          "swizzle, k advance) and random (raw f32 values); each compared with sim/wgmma.py "
          "(benchmarks/record_wgmma_layout.py)")
KT = 64                      # K of the tiles (one 128-byte swizzled row of A); the probe uses one k16 slice of it


def make_probe(N, kk, use_tma):
    """A kernel computing D (64 x N) = A[:, 16kk:+16] @ B[16kk:+16, :] + Cin with one wgmma, writing raw registers."""
    NACC = N // 2
    WG = hopper.wgmma_for(N)
    A_EL, B_EL = 64 * KT, KT * N
    BOXES = N // 64

    @cuda.jit
    def probe(A, B, Cin, out, tmA, tmB, where):
        As = cuda.shared.array(A_EL, float16, alignment=1024)
        Bs = cuda.shared.array(B_EL, float16, alignment=1024)
        bar = cuda.shared.array(1, uint64)
        dyn = cuda.shared.array(0, float16, alignment=1024)
        acc = cuda.local.array(NACC, float32)
        t = cuda.threadIdx.x
        for i in range(NACC):
            acc[i] = Cin[t, i]
        if use_tma:
            if t == 0:
                ptx.mbarrier_init(bar, 0, 1)
                ptx.fence_proxy_async()
                ptx.fence_proxy_tensormap_acquire(tmA, 0)
                ptx.fence_proxy_tensormap_acquire(tmB, 0)
            cuda.syncthreads()
            if t == 0:
                ptx.mbarrier_arrive_expect_tx(bar, 0, 2 * (A_EL + B_EL))
                ptx.tma_load_2d(As, 0, tmA, 0, 0, 0, bar, 0)
                for j in range(BOXES):
                    ptx.tma_load_2d(Bs, j * KT * 64, tmB, 0, 64 * j, 0, bar, 0)
            while not ptx.mbarrier_try_wait_parity(bar, 0, 0):
                pass
        else:
            for e in range(A_EL // 128):
                f = t + e * 128
                r, c = f // KT, f % KT
                byte = r * 128 + c * 2
                As[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = A[r, c]
            for e in range(B_EL // 128):
                f = t + e * 128
                r, c = f // N, f % N
                byte = (c // 64) * KT * 128 + r * 128 + (c % 64) * 2         # box c // 64, row r, column c % 64
                Bs[(byte ^ (((byte >> 7) & 7) << 4)) >> 1] = B[r, c]
            ptx.fence_proxy_async()
            cuda.syncthreads()
        da = hopper.smem_desc(ptx.shared_address(As, 0) + uint32(kk * 32), 16, 1024)
        db = hopper.smem_desc(ptx.shared_address(Bs, 0) + uint32(kk * 16 * 128), KT * 128, 1024)
        ptx.wgmma_fence(acc, NACC)
        WG(acc, da, db)
        ptx.wgmma_commit_group()
        ptx.wgmma_wait_group_0(acc, NACC)
        for i in range(NACC):
            out[t, i] = acc[i]
        if t == 0:
            where[0] = ptx.shared_address(As, 0)
            where[1] = ptx.shared_address(Bs, 0)
            where[2] = ptx.shared_address(dyn, 0)

    return probe


def inputs(N, kk, pattern, rng):
    A = np.zeros((64, KT), np.float16)
    B = np.zeros((KT, N), np.float16)
    C = np.zeros((128, N // 2), np.float32)
    k0 = 16 * kk
    if pattern == "rc":
        A[:, k0], A[:, k0 + 1] = np.arange(64), 1
        B[k0, :], B[k0 + 1, :] = N, np.arange(N)
    elif pattern == "k":
        A[np.arange(64), k0 + np.arange(64) % 16] = 1
        B[k0:k0 + 16, :] = np.arange(16)[:, None] * N + np.arange(N)[None, :]
    else:
        A[:, k0:k0 + 16] = rng.standard_normal((64, 16))
        B[k0:k0 + 16, :] = rng.standard_normal((16, N))
        C[:] = rng.standard_normal(C.shape).astype(np.float32)
    return A, B, C


def expected(N, kk, pattern, A, B, C):
    """What sim/wgmma.py says every thread's registers hold."""
    rows, cols = wgmma.accumulator_index(N)
    k0 = 16 * kk
    D = A[:, k0:k0 + 16].astype(np.float64) @ B[k0:k0 + 16, :].astype(np.float64)     # exact
    return (D[rows, cols] + C).astype(np.float32)          # as the simulator's stand-in: C added, rounded once


def run_probe(N, kk, pattern, use_tma, rng):
    A, B, C = inputs(N, kk, pattern, rng)
    out = np.zeros((128, N // 2), np.float32)
    where = np.zeros(3, np.uint64)
    tmA = tma.tensor_map(A if device.SIMULATOR else cuda.to_device(A), 64, 64)
    dB = B if device.SIMULATOR else cuda.to_device(B)
    tmB = tma.tensor_map(dB, 64, 64)
    args = (A, dB, C, out, tmA, tmB, where) if device.SIMULATOR else \
        (cuda.to_device(A), dB, cuda.to_device(C), cuda.to_device(out), tmA, tmB, cuda.to_device(where))
    make_probe(N, kk, use_tma)[1, 128, 0, 1024](*args)
    if not device.SIMULATOR:
        out, where = args[3].copy_to_host(), args[6].copy_to_host()
    want = expected(N, kk, pattern, A, B, C)
    row = {"N": N, "kk": kk, "pattern": pattern, "load": "tma" if use_tma else "stores",
           "agree": int((out == want).sum()), "total": int(out.size),
           "smem_address_mod_1024": {"As": int(where[0]) % 1024, "Bs": int(where[1]) % 1024,
                                     "dynamic": int(where[2]) % 1024}}
    if pattern == "random":
        ulp = np.abs(out.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
        row["max_ulp"] = int(ulp.max())
        k0 = 16 * kk
        rows, cols = wgmma.accumulator_index(N)
        mag = (np.abs(A[:, k0:k0 + 16].astype(np.float64)) @ np.abs(B[k0:k0 + 16, :].astype(np.float64)))[rows, cols]
        exact = (A[:, k0:k0 + 16].astype(np.float64) @ B[k0:k0 + 16, :].astype(np.float64))[rows, cols] + C
        bound = 2 * 17 * 2.0 ** -24 * (mag + np.abs(C)) + 2.0 ** -149      # 16 products + C, tc.error_bound's form
        row["max_err_over_bound"] = float((np.abs(out - exact) / bound).max())
        row["raw"] = out.tolist()
    elif pattern == "rc":
        r, c = np.divmod(np.rint(out).astype(np.int64), N)
        row["layout"] = np.stack([r, c], -1).tolist()          # [thread][register] = [row, col]
    return row


def to_record(flat, name="wgmma_layout_h100"):
    """The records.Record of this script's findings: one run without timing rows (records.from_flat), the probes,
    accumulators and verdicts under extra."""
    run_id = f"{records.gpu_class(flat['gpu']).lower()}_{flat.get('date', '')}"
    return records.from_flat(name, flat, run_id, METHOD)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "course", "ch11_hopper", "records", "wgmma_layout_h100.json"))
    args = ap.parse_args()
    if not device.SIMULATOR and hopper.lacks_hopper():
        sys.exit("this script needs a CC 9.0 GPU (wgmma is sm_90a) or the simulator (SGEMM_DEVICE=sim)")
    rng = np.random.default_rng(11)
    rec = {"what": "benchmarks/record_wgmma_layout.py: one wgmma per probe, tiles as the level-7 kernels lay them out",
           "date": datetime.date.today().isoformat(), "mode": device.MODE}
    if device.SIMULATOR:                                     # the simulator's stand-ins are sm_90a's
        rec["gpu"], rec["cc"] = "simulator", list(device.SIM_CC or (9, 0))
    else:
        dev = cuda.get_current_device()
        rec["gpu"] = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        rec["cc"] = list(dev.compute_capability)
        try:
            rec["driver"] = list(cuda.cudadrv.driver.driver.get_version())
        except Exception as e:                               # noqa: BLE001 — a record without it is still a record
            rec["driver"] = f"? ({e})"
    probes = []
    for N in (64, 128):
        for use_tma in (False, True):
            for kk in range(4):
                for pattern in ("rc", "k") + (("random",) if kk == 0 else ()):
                    row = run_probe(N, kk, pattern, use_tma, rng)
                    probes.append(row)
                    print(f"N={N} kk={kk} {row['load']:6s} {pattern:6s} {row['agree']}/{row['total']} agree"
                          + (f", max {row['max_ulp']} ulp" if "max_ulp" in row else ""), flush=True)
    rec["probes"] = probes
    rec["accumulators"] = {str(p["N"]): p["layout"] for p in probes
                           if p["pattern"] == "rc" and p["kk"] == 0 and p["load"] == "stores"}
    rec["all_layout_probes_agree"] = all(p["agree"] == p["total"] for p in probes if p["pattern"] != "random")
    rec["dynamic_smem_1024_aligned"] = all(p["smem_address_mod_1024"]["dynamic"] == 0 for p in probes)
    out = Path(args.out)
    path = records.save(to_record(rec, out.stem), out.parent)
    print("layout probes agree with sim/wgmma.py:", rec["all_layout_probes_agree"],
          "| dynamic shared memory 1024-aligned:", rec["dynamic_smem_1024_aligned"], "->", path)


if __name__ == "__main__":
    main()
