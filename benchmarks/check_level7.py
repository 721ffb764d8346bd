"""Level 7 on the GPU: every kernel against a float64 reference on several shapes, ragged ones included.

For each level-7 kernel and shape: random f16 A, B; C poisoned with NaN (beta = 0) or random (alpha = 1.5,
beta = -0.5); the result must be finite and within kernels_numba.tc.error_bound of the float64 reference
(f16 products exact, f32 accumulation: a bound proportional to K * 2^-24 * |A| |B|), plus A = I (C must equal B
exactly). Shapes: one tile, ragged in M, N and K (K not a multiple of 8: the launch pads a copy for TMA), several
tiles per block for the persistent kernel, and 1000-odd sizes. Same checks as tests/test_hopper_kernels.py on the
simulator, here on the hardware.

Run on the GPU machine (one command): python benchmarks/check_level7.py
  -> course/ch11_hopper/records/gpu_h100_level7_check.json (or --out PATH), a record in the one schema (course/records.py: a run
  without timing rows, the cases under extra "results"); exit status 1 if any case fails.
"""
import argparse
import datetime
import os
import sys
import traceback
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np                                # noqa: E402

import kernels_numba as kn                        # noqa: E402
from course import records                        # noqa: E402
from kernels_numba.infra import device, hopper  # noqa: E402
from kernels_numba import tc

METHOD = ("each level-7 kernel on the GPU against a float64 reference within tc.error_bound: random f16 A, B, C "
          "NaN-poisoned (beta = 0) or random (alpha = 1.5, beta = -0.5), and A = I (C must equal B exactly), on every "
          "shape of benchmarks/check_level7.SHAPES (benchmarks/check_level7.py)")

SHAPES = [(64, 64, 64), (128, 256, 64), (70, 50, 100), (100, 72, 300), (136, 264, 130), (257, 511, 77),
          (1000, 1032, 1000), (1024, 1024, 1024), (2048, 520, 4096)]


def case(spec, M, N, K, alpha, beta, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy() if beta else np.full((M, N), np.nan, np.float32)
    spec.launch(A, B, C, alpha, beta)
    bound = tc.error_bound(A, B, alpha, beta, C0)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, alpha, beta, C0))
    ok = bool(np.isfinite(C).all() and (err <= bound).all())
    bad = np.argwhere(~(err <= bound))
    return {"M": M, "N": N, "K": K, "alpha": alpha, "beta": beta, "ok": ok,
            "worst_err_over_bound": float(np.nanmax(err / bound)) if np.isfinite(C).any() else None,
            "nan": int(np.isnan(C).sum()), "bad_elements": int(len(bad)), "first_bad": bad[:3].tolist()}


def identity(spec, M, N, K):
    rng = np.random.default_rng(7)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.full((M, N), np.nan, np.float32)
    spec.launch(np.eye(M, K, dtype=np.float16), B, C)
    k = min(M, K)
    return bool(np.array_equal(C[:k], B[:k].astype(np.float32)) and not C[k:].any())


def to_record(flat, name="gpu_h100_level7_check"):
    """The records.Record of this script's findings ({what, gpu, cc, date, results, all_ok}): one run without timing
    rows (records.from_flat), everything else under extra."""
    run_id = f"{records.gpu_class(flat['gpu']).lower()}_{flat.get('date', '')}"
    return records.from_flat(name, flat, run_id, METHOD)


def save(flat, out):
    """Write the findings as a record at path `out` (course/ch11_hopper/records/<name>.json by default)."""
    out = Path(out)
    return records.save(to_record(flat, out.stem), out.parent)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "course", "ch11_hopper", "records", "gpu_h100_level7_check.json"))
    ap.add_argument("--kernels", nargs="+", default=[s.name for s in kn.by_level(7)])
    args = ap.parse_args()
    if device.SIMULATOR or hopper.lacks_hopper():
        sys.exit("check_level7 needs a CC 9.0 GPU (H100/H200); on the simulator run tests/test_hopper_kernels.py")
    from numba import cuda
    dev = cuda.get_current_device()
    rec = {"what": "benchmarks/check_level7.py: level-7 kernels vs float64 on the GPU",
           "gpu": dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name),
           "cc": list(dev.compute_capability), "date": datetime.date.today().isoformat(), "results": {}}
    failed = 0
    for name in args.kernels:
        spec = kn.get(name)
        rows = []
        for i, (M, N, K) in enumerate(SHAPES):
            for alpha, beta in ((1.0, 0.0), (1.5, -0.5)):
                try:
                    r = case(spec, M, N, K, alpha, beta, seed=31 * i + int(beta != 0))
                except Exception:                       # noqa: BLE001
                    r = {"M": M, "N": N, "K": K, "alpha": alpha, "beta": beta, "ok": False,
                         "error": traceback.format_exc()[-1500:]}
                rows.append(r)
                failed += not r["ok"]
                print(f"{name} {(M, N, K)} alpha={alpha} beta={beta}: {'OK' if r['ok'] else 'FAIL'} "
                      f"{r.get('worst_err_over_bound', r.get('error', ''))}", flush=True)
            try:
                ident = identity(spec, M, N, K)
            except Exception:                           # noqa: BLE001
                ident = False
            rows.append({"M": M, "N": N, "K": K, "identity": ident, "ok": ident})
            failed += not ident
        rec["results"][name] = rows
        save(rec, args.out)                         # after each kernel: a crash keeps what was checked
    rec["all_ok"] = failed == 0
    path = save(rec, args.out)
    print("all level-7 cases correct:", rec["all_ok"], "->", path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
