"""README tables generated from the registry, the recorded GPU runs and the offline target matrix (tests keep README
equal to them; `make targets` recompiles the matrix and rewrites its README sections)."""
import json
import re
import sys
from pathlib import Path
import importlib.metadata as md

from ..registry import REGISTRY
from sim import occupancy as occ
from . import offline

# (record, run id or None for its last run, kernels it gives or None for all): notebook 06 run, notebook 09 run (level
# 5; its db_overlap row is only a same-run comparison, so the notebooks 07-08 run comes after it and keeps db_overlap's
# figure), notebooks 07-08 run, notebook 10 runs (ratio to cuBLAS HGEMM; mma_fast from its own H200 record's plain run)
RUNS = (("gpu_h200_2026-11-21", None, None), ("gpu_h200_level5", None, None), ("gpu_h200_levels34", None, None),
        ("gpu_h200_level6", None, None), ("gpu_h200_level6_fast", "h200_run1", ("mma_fast",)))


def _benchmark(name, run_id=None, kernels=None):
    """(rows of the registered configurations (no variants) as {kernel, n, tflops, ratio}, gpu, date, baseline) of a
    recorded run, through the one loader (course.records); `kernels`: only these and cuBLAS."""
    from course import records                 # a tool above the registry: the loader lives in course
    run = records.load(name).run(run_id)
    rows = [{"kernel": r.kernel, "n": r.n, "tflops": r.tflops, "ratio": r.ratio} for r in run.rows
            if not r.variant and (kernels is None or r.kernel in kernels or r.kernel == "cuBLAS")]
    return rows, run.gpu, run.date, run.baseline


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
    for name, run_id, kernels in RUNS:
        rows, gpu, date, base = _benchmark(name, run_id, kernels)
        fname = f"{name}.json"
        names = {r["kernel"] for r in rows if not r["kernel"].startswith("cuBLAS")}
        for r in rows:
            sizes.add(r["n"])
            if r["kernel"] == "cuBLAS":
                cublas.setdefault(fname, {})[r["n"]] = r["tflops"]
            else:
                ratio[(r["kernel"], r["n"])] = (r["ratio"], fname)
        base = base.split(" (")[0] if base.startswith("cuBLAS SGEMM (CuPy") else base
        notes.append(f"`{fname}` ({gpu}, {date}): " + ", ".join(sorted(names)) + f" — {base} "
                     + " / ".join(f"{cublas[fname][n]:.1f}" for n in sorted(cublas[fname])) + " TFLOP/s")
    sizes = sorted(sizes)
    rows = ["| Level | 커널 | " + " | ".join(f"{n}³" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for s in REGISTRY:
        cells = [f"{100 * ratio[(s.name, n)][0]:.1f}%" if (s.name, n) in ratio else "—" for n in sizes]
        rows.append(f"| {s.level} | `{s.name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n\n" + "\n".join(f"* {n}" for n in notes)


# ------------------------------------------------------------------ kernel x target matrix (offline compiles)
TARGETS_JSON = Path(__file__).resolve().parents[1] / "infra" / "targets.json"   # data the registry and simulator read too
README = Path(__file__).resolve().parents[2] / "README.md"
# GPUs of the occupancy table, in compute-capability order (sim/occupancy.GPUS)
OCC_GPUS = ("T4", "A100", "RTX 3060", "RTX 3090", "RTX 4090", "L4", "H100", "H200", "RTX 5090")


def load_targets():
    """The committed kernel x target matrix: {'toolchain': {...}, 'rows': [offline.target_row, ...]}."""
    return json.loads(TARGETS_JSON.read_text(encoding="utf-8"))


def toolchain():
    """Versions of the compiler packages that produced the matrix (NVVM, nvJitLink, numba-cuda)."""
    return {d: md.version(d) for d in ("numba-cuda", "nvidia-nvvm", "nvidia-nvjitlink", "nvidia-cuda-cuobjdump")}


def toolchain_difference():
    """None when this environment has the compiler packages the committed matrix was made with, else why not (a
    different NVVM or nvJitLink allocates registers differently, so the matrix's figures are not this machine's)."""
    want = load_targets()["toolchain"]
    try:
        have = toolchain()
    except Exception as e:                    # noqa: BLE001 — e.g. a system CUDA instead of the pip packages
        return f"the compiler packages are not the matrix's ({e})"
    diff = {k: (want.get(k), v) for k, v in have.items() if want.get(k) != v}
    return f"compiler packages differ from the matrix's (recorded, here): {diff}" if diff else None


def write_targets(rows):
    TARGETS_JSON.write_text(json.dumps({"toolchain": toolchain(), "rows": rows}, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")


def _targets(rows):
    return list(dict.fromkeys(r["target"] for r in rows))


def _short_why(row):
    """'cp.async, m16n8k16 → sm_80': the instructions this target lacks."""
    names = [w.split(" requires ")[0] for w in row["why_not"].split("; ")]
    short = [n for n in names if n not in ("cp.async.commit_group", "cp.async.wait_group")]
    short = [n for n in short if n == "wgmma"] or short       # level 7: wgmma (sm_90a) decides; the rest follows
    return ", ".join(short or names) + f" → {row['needs']}"


def targets_markdown(rows=None):
    """Kernel x target: registers / static shared KB (and spilled bytes), or why the kernel cannot exist there."""
    rows = load_targets()["rows"] if rows is None else rows
    targets = _targets(rows)
    by = {(r["kernel"], r["target"]): r for r in rows}
    out = ["| 커널 | " + " | ".join(targets) + " |", "|---|" + "---|" * len(targets)]
    for s in REGISTRY:
        cells = []
        for t in targets:
            r = by[(s.name, t)]
            if not r["compiles"]:
                cells.append(f"✗ {_short_why(r)}")
                continue
            spill = f" **스필 {r['local_bytes'] + r['stack_bytes']} B**" if r["spills"] else ""
            fits = "" if r["fits"] else " **한도 초과**"
            dyn = f" + 동적 {r['smem_dynamic'] / 1024:.0f} KiB" if r["smem_dynamic"] else ""
            cells.append(f"{r['registers']} / {r['smem_static'] / 1024:.1f} KiB{dyn}{spill}{fits}")
        out.append(f"| `{s.name}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


def occupancy_rows(rows=None, gpus=OCC_GPUS):
    """{(kernel, gpu): Occupancy or None} from the matrix's registers and shared memory (sim/occupancy's rules)."""
    rows = load_targets()["rows"] if rows is None else rows
    by = {(r["kernel"], r["target"]): r for r in rows}
    out = {}
    for s in REGISTRY:
        for g in gpus:
            spec = occ.GPUS[g]
            r = by.get((s.name, spec.arch))
            out[(s.name, g)] = (occ.occupancy(spec, r["registers"], r["threads"], r["smem_static"] + r["smem_dynamic"])
                                if r and r["compiles"] else None)
    return out


def occupancy_markdown(rows=None, gpus=OCC_GPUS):
    """Kernel x GPU: blocks per SM and theoretical occupancy, from the offline matrix of that GPU's compute capability."""
    table = occupancy_rows(rows, gpus)
    head = [f"{g} ({occ.GPUS[g].cc[0]}.{occ.GPUS[g].cc[1]})" for g in gpus]
    out = ["| 커널 | 스레드 | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(gpus)]
    for s in REGISTRY:
        cells = []
        for g in gpus:
            o = table[(s.name, g)]
            cells.append("—" if o is None else f"{o.blocks_per_sm} · {o.percent:.0f}%")
        out.append(f"| `{s.name}` | {s.threads} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def readme_section(name, text=None):
    """The generated text between <!-- name:start --> and <!-- name:end --> in README.md."""
    text = README.read_text(encoding="utf-8") if text is None else text
    return text.split(f"<!-- {name}:start -->")[1].split(f"<!-- {name}:end -->")[0].strip()


def update_readme(registry=False):
    """Rewrite the README sections generated from the target matrix (registry=True: also the kernel table and the
    measured table, after a kernel was added)."""
    text = README.read_text(encoding="utf-8")
    sections = [("target-matrix", targets_markdown()), ("occupancy-table", occupancy_markdown())]
    if registry:
        sections += [("kernel-table", markdown()), ("measured-table", measured_markdown())]
    for name, body in sections:
        text = re.sub(rf"(<!-- {name}:start -->).*?(<!-- {name}:end -->)",
                      lambda m: f"{m.group(1)}\n{body}\n{m.group(2)}", text, flags=re.S)
    README.write_text(text, encoding="utf-8")


def regenerate_targets():
    """Compile every registered kernel for every target (minutes: one subprocess), write targets.json and the README."""
    write_targets(offline.target_matrix())
    update_readme()


if __name__ == "__main__":
    if "--write-targets" in sys.argv:
        regenerate_targets()
    elif "--readme-targets" in sys.argv:
        update_readme()
    elif "--readme" in sys.argv:
        update_readme(registry=True)
    elif "--targets" in sys.argv:
        print(targets_markdown() + "\n\n" + occupancy_markdown())
    else:
        print(measured_markdown() if "--measured" in sys.argv else markdown())
