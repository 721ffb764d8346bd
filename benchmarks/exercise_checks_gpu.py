"""The exercise checkers on a real GPU: every right answer of the corpus and a few wrong ones, through check() in GPU
mode (the simulator subprocess first, then the GPU), with the verdicts in a table.

    .venv/bin/python benchmarks/exercise_checks_gpu.py [--json OUT]

What it confirms that the simulator-only CI cannot: the checkers' own kernels (the register-blocked kernel of 07-x,
the tiled kernel of 06-3, the copy kernels of 09-2/09-3, the one-warp kernel of 10-5) compile and run on the GPU with
a student's device function plugged in; a right answer PASSes in GPU mode; a wrong one is stopped by the simulator
pre-check with the same diagnosis as on the simulator. On a CC 7.x GPU the cp.async and mma exercises are judged on
the simulator only (said so in the result). Prints one line per case and a summary; exit status 1 if any right answer
fails or any wrong answer passes.
"""
import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import kernels_numba  # noqa: E402,F401  (device choice before numba)
from kernels_numba.infra import device  # noqa: E402

WRONG = [   # (exercise, label, edit of the solution file (old, new), the diagnosis the simulator gives)
    ("06-2", "no_second_barrier", ("        cuda.syncthreads()          # barrier 2", "        pass  # barrier 2"), "race"),
    ("07-3", "overwrite", ("rC[m, n] += rA[m] * rB[n]", "rC[m, n] = rA[m] * rB[n]"), "overwrite"),
    ("09-1", "wait_group_2", ("ptx.cp_async_wait_group_1()", "ptx.cp_async_wait_group_2()"), "wait_too_large"),
    ("09-3", "always_16", ("X, r, c, 4 * n)", "X, r, c, 16)"), "edge_overread"),
    ("10-5", "no_trans", ("ptx.ldmatrix_x2_trans(Bs", "ptx.ldmatrix_x2(Bs"), "b_not_transposed"),
]


def _module(src):
    import mutation                       # tests/mutation.py: imports a source text from a temporary file
    return mutation.load(src, "gpu_case")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    from course.exercises import core
    from exercise_corpus import CORPUS
    print(f"장치: {'GPU' if not device.SIMULATOR else '시뮬레이터 (GPU 가 없음: 이 스크립트는 GPU 에서 돌리세요)'}")
    rows = []
    for ex_id, cases in CORPUS.items():
        ex = core.get(ex_id)
        for style, cell in cases:
            t = time.time()
            fn = getattr(_module(ex.preamble + "\n" + cell), ex.name)
            res = core.check(ex_id, fn, save=False)
            rows.append({"exercise": ex_id, "case": style, "kind": "right", "code": res.code, "ok": res.ok,
                         "seconds": round(time.time() - t, 1), "message": str(res)})
            print(f"{ex_id} right {style:34s} {res.code:20s} {rows[-1]['seconds']:6.1f} s", flush=True)
    for ex_id, label, (old, new), want in WRONG:
        ex = core.get(ex_id)
        src = (ROOT / ex.solution_file).read_text(encoding="utf-8")
        assert old in src, (ex_id, old)
        t = time.time()
        res = core.check(ex_id, getattr(_module(src.replace(old, new)), ex.solution_name), save=False)
        rows.append({"exercise": ex_id, "case": label, "kind": "wrong", "code": res.code, "ok": res.ok, "want": want,
                     "seconds": round(time.time() - t, 1), "message": str(res)})
        print(f"{ex_id} wrong {label:34s} {res.code:20s} {rows[-1]['seconds']:6.1f} s (simulator: {want})", flush=True)
    bad = [r for r in rows if (r["kind"] == "right") != r["ok"]]
    print(f"\n맞는 답 {sum(r['kind'] == 'right' for r in rows)}개, 틀린 답 {sum(r['kind'] == 'wrong' for r in rows)}개: "
          f"판정이 어긋난 것 {len(bad)}개")
    for r in bad:
        print(r["message"])
    if args.json:
        Path(args.json).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
