"""README tables generated from the registry and the recorded GPU runs (a test keeps README equal to them)."""
import json
import sys
from pathlib import Path

from ..registry import REGISTRY

RECORDED = Path(__file__).resolve().parents[2] / "course" / "recorded"
# notebook 06 run, notebook 09 run (level 5; its db_overlap row is only a same-run comparison, so the
# notebooks 07-08 run comes after it and keeps db_overlap's figure), notebooks 07-08 run,
# notebook 10 run (ratio to cuBLAS HGEMM)
RUNS = ("gpu_h200_2026-11-21.json", "gpu_h200_level5.json", "gpu_h200_levels34.json", "gpu_h200_level6.json")


def markdown():
    """The registry as a Markdown table: level, name, module, description."""
    rows = ["| Level | 이름 | 모듈 | 설명 |", "|---|---|---|---|"]
    for s in REGISTRY:
        rows.append(f"| {s.level} | `{s.name}` | `kernels_numba/{s.module.__name__.rsplit('.', 1)[1]}.py` | {s.description} |")
    return "\n".join(rows)


def measured_markdown():
    """% of cuBLAS per registered kernel and size, from the recorded runs (each ratio is to cuBLAS in the same run:
    SGEMM for levels 1-5, HGEMM with f32 output for level 6, as each run's 'baseline' says)."""
    ratio, cublas, sizes, notes = {}, {}, set(), []
    for fname in RUNS:
        run = json.loads((RECORDED / fname).read_text(encoding="utf-8"))
        rows = run["benchmark"]
        names = {r["kernel"] for r in rows if not r["kernel"].startswith("cuBLAS")}
        for r in rows:
            sizes.add(r["n"])
            if r["kernel"] == "cuBLAS":
                cublas.setdefault(fname, {})[r["n"]] = r["tflops"]
            else:
                ratio[(r["kernel"], r["n"])] = (r["ratio"], fname)
        base = run.get("baseline", "cuBLAS SGEMM")
        notes.append(f"`{fname}` ({run['gpu']}, {run['date']}): " + ", ".join(sorted(names)) + f" — {base} "
                     + " / ".join(f"{cublas[fname][n]:.1f}" for n in sorted(cublas[fname])) + " TFLOP/s")
    sizes = sorted(sizes)
    rows = ["| Level | 커널 | " + " | ".join(f"{n}³" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for s in REGISTRY:
        cells = [f"{100 * ratio[(s.name, n)][0]:.1f}%" if (s.name, n) in ratio else "—" for n in sizes]
        rows.append(f"| {s.level} | `{s.name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n\n" + "\n".join(f"* {n}" for n in notes)


if __name__ == "__main__":
    print(measured_markdown() if "--measured" in sys.argv else markdown())
