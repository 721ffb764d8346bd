"""Run a bug demo and show, side by side, what it computes and what the simulator's race detector says."""
import numpy as np

from kernels_numba.infra import device


def run_demo(launch, M=32, N=32, K=64, seed=0, dtype=np.float32):
    """{'C', 'ok', 'nan', 'report'} for a demo launcher (kernels_numba.demos): report is None on a GPU."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(dtype)
    B = rng.standard_normal((K, N)).astype(dtype)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    C = np.asarray(launch(A, B, np.zeros((M, N), np.float32)))
    ok = bool(np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max()))
    return {"C": C, "ok": ok, "nan": bool(np.isnan(C).any()), "report": getattr(launch, "last_report", None)}


def show(outcome, full=1, limit=3):
    """Print the result's verdict, the detector's summary (`limit` lines), and the full report of `full` hazards."""
    print(f"numpy 와 일치: {outcome['ok']} | NaN 이 섞임: {outcome['nan']}")
    rep = outcome["report"]
    if rep is None:
        print("GPU 모드: 경쟁 검출기는 시뮬레이터에만 있습니다 (GPU에서는 compute-sanitizer --tool racecheck)."
              if not device.SIMULATOR else "검출기가 꺼져 있습니다 (SGEMM_RACECHECK=off).")
        return
    print(rep.summary(limit))
    for h in rep.hazards[:full]:
        print()
        print(h.ko)
        print("  → 해결:", h.fix_ko)
