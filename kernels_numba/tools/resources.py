"""What a kernel costs in hardware: registers, local (spill) / shared bytes and SASS instruction counts, per kernel.

report(name) reads them from the kernel loaded on the GPU when there is one; otherwise (the usual case in this course)
it compiles the same source for sm_80 / sm_90 with kernels_numba.tools.offline, so the numbers and the SASS are real either way.
The two toolchains are not identical: a loaded kernel is assembled by the GPU machine's driver/linker, offline by the
nvJitLink wheel, and register counts can differ (seen: 120 offline vs 128 loaded for regblock on sm_90).
"""
from ..infra import device
from . import offline
import numpy as np
from numba import cuda
from ..registry import module_of
from ..infra.sass import Ins, counts, main_loop, parse_sass, _count, _loops, _width  # noqa: F401  (resources.X as before)


def _module(name):
    """The module of kernel `name` (registered or a teaching demo)."""
    return module_of(name)


def inner_loops(sass):
    """Loops nested in the main loop without a barrier (e.g. regblock's k loop that NVVM left rolled): their bodies."""
    body = main_loop(sass)
    return [body[a:b + 1] for a, b in _loops(body) if not any(i.base == "BAR" for i in body[a:b + 1])]


def inner_loop_excerpt(sass, max_lines=None):
    """SASS text of the main loop from its first to its last FFMA (the outer-product microkernel), one instruction a line."""
    body = main_loop(sass)
    ffma = [n for n, i in enumerate(body) if i.base == "FFMA"]
    if not ffma:
        return ""
    lines = [i.text() for i in body[ffma[0]:ffma[-1] + 1]]
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more)"]
    return "\n".join(lines)


def _loop_summary(sass):
    ins = parse_sass(sass)
    body = _count(main_loop(ins))
    return {"loop_total": body["total"], "loop_ffma": body["ffma"], "loop_lds": body["lds"],
            "inner_loops": [{"total": c["total"], "ffma": c["ffma"], "lds": c["lds"]}
                            for c in (_count(b) for b in inner_loops(ins))]}


def _gpu_report(name):
    mod = _module(name)
    A = np.ones((8, 8), np.float32)
    mod.launch(A, A.copy(), np.zeros((8, 8), np.float32))      # compiles and loads the kernel for this GPU
    k = mod.kernel
    sig = k.signatures[0]
    ov = k.overloads[sig]
    cc = tuple(cuda.get_current_device().compute_capability)
    return cc, k.inspect_sass(sig), {"registers": int(ov.regs_per_thread), "local_bytes": int(ov.local_mem_per_thread),
                                     "shared_bytes": int(ov.shared_mem_per_block)}


def report(name, cc=None):
    """Resources and SASS counts of kernel `name`: from the loaded GPU kernel if cc is None and a GPU is in use, else offline.

    Keys: name, source ('gpu'|'offline'), cc, registers, local_bytes (per thread, spills included), shared_bytes
    (per block), ffma, lds/sts ({bit width: count}), ldl, stl, ldg, stg, bar, total (static instruction counts of the
    whole kernel), loop_total/loop_ffma/loop_lds (the K-tile loop), inner_loops, sass_text.
    Offline sm_90 shared_bytes is cuobjdump's figure, which includes 1 KiB more than the loaded kernel's attribute.
    """
    if cc is None and device.MODE == "gpu":
        cc, sass, usage = _gpu_report(name)
        source = "gpu"
    else:
        cc = tuple(cc or (9, 0))
        _module(name)                           # clear error for unknown names before starting the compiler
        r = offline.compile_kernel(name, cc)
        sass, usage, source = r["sass"], dict(r["usage"]), "offline"
        # ptxas puts spills in the stack frame (cuobjdump: STACK, LOCAL stays 0); the driver's local size counts both
        usage["local_bytes"] += usage.get("stack_bytes", 0)
    out = {"name": name, "source": source, "cc": f"sm_{cc[0]}{cc[1]}", "registers": usage["registers"],
           "local_bytes": usage["local_bytes"], "shared_bytes": usage["shared_bytes"]}
    out.update(counts(sass))
    out.update(_loop_summary(sass))
    out["sass_text"] = sass
    return out


def table(names, cc=(9, 0)):
    """One row (a dict without the SASS text) per kernel, for a notebook table; see markdown()."""
    return [{k: v for k, v in report(n, cc).items() if k != "sass_text"} for n in names]


def _fmt(v):
    if isinstance(v, dict):
        return " ".join(f"{w}b×{n}" for w, n in sorted(v.items(), key=lambda kv: int(kv[0]))) or "-"
    if isinstance(v, list):
        return "; ".join(f"{d['total']} ({d['ffma']} FFMA)" for d in v) or "-"
    return str(v)


COLUMNS = ("name", "cc", "registers", "local_bytes", "shared_bytes", "ffma", "lds", "sts", "ldl", "stl", "total",
           "loop_total", "loop_ffma", "inner_loops")


def markdown(rows, columns=COLUMNS):
    """Markdown table of table() rows (pandas is not needed); lds/sts widths shown as 32b×16 128b×4."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c, "")) for c in columns) + " |")
    return "\n".join(lines)
