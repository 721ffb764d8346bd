"""What a kernel costs in hardware: registers, local (spill) / shared bytes and SASS instruction counts, per kernel.

report(name) reads them from the kernel loaded on the GPU when there is one; otherwise (the usual case in this course)
it compiles the same source for sm_80 / sm_90 with kernels_numba.tools.offline, so the numbers and the SASS are real either way.
The two toolchains are not identical: a loaded kernel is assembled by the GPU machine's driver/linker, offline by the
nvJitLink wheel, and register counts can differ (seen: 120 offline vs 128 loaded for regblock on sm_90).
"""
import re
from typing import NamedTuple, Optional

from ..infra import device
from . import offline
import numpy as np
from numba import cuda
from ..registry import module_of

# one SASS line: /*0a10*/  @!P0 LDS.128 R4, [R2+0x10] ;   (cuobjdump and nvdisasm -gi print the same form)
_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\s*([^;]*);")
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")             # nvdisasm (inspect_sass on a GPU) names branch targets
_BRANCHES = ("BRA", "BRX", "JMP")
_WIDTHS = ("8", "16", "32", "64", "128")


class Ins(NamedTuple):
    """One SASS instruction; target: the address a branch jumps to (None for other instructions)."""
    addr: int
    pred: str
    op: str
    operands: str
    target: Optional[int] = None

    @property
    def base(self):
        return self.op.split(".")[0]

    def text(self):
        return f"/*{self.addr:04x}*/ {self.pred + ' ' if self.pred else ''}{self.op} {self.operands}".rstrip() + " ;"


def _module(name):
    """The module of kernel `name` (registered or a teaching demo)."""
    return module_of(name)


def parse_sass(sass):
    """SASS text (cuobjdump or nvdisasm) -> [Ins] in program order, branch targets resolved to addresses."""
    raw, labels, pending = [], {}, []
    for line in sass.splitlines():
        lab = _LABEL.match(line)
        if lab:
            pending.append(lab.group(1))
            continue
        m = _LINE.search(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        for name in pending:
            labels[name] = addr
        pending = []
        raw.append((addr, (m.group(2) or "").strip(), m.group(3), m.group(4).strip()))
    out = []
    for addr, pred, op, ops in raw:
        target = None
        if op.split(".")[0] in _BRANCHES:
            hexa = re.match(r"0x([0-9a-f]+)", ops)
            named = re.search(r"(\.L_x_\d+)", ops)
            target = int(hexa.group(1), 16) if hexa else labels.get(named.group(1)) if named else None
        out.append(Ins(addr, pred, op, ops, target))
    return out


def _width(op):
    """Bit width of a shared/local/global memory opcode: LDS -> '32', LDS.128 -> '128', LDS.U.64 -> '64'."""
    for part in op.split(".")[1:]:
        if part in _WIDTHS:
            return part
    return "32"


def counts(sass):
    """The course's SASS summary: ffma, lds/sts as {width: count}, ldl, stl, ldg, stg, bar, total instructions."""
    return _count(parse_sass(sass) if isinstance(sass, str) else sass)


def _count(ins):
    out = {"ffma": 0, "lds": {}, "sts": {}, "ldl": 0, "stl": 0, "ldg": 0, "stg": 0, "bar": 0, "total": len(ins)}
    for i in ins:
        if i.base == "FFMA":
            out["ffma"] += 1
        elif i.base in ("LDS", "STS"):
            d = out[i.base.lower()]
            d[_width(i.op)] = d.get(_width(i.op), 0) + 1
        elif i.base in ("LDL", "STL", "LDG", "STG"):
            out[i.base.lower()] += 1
        elif i.base == "BAR":
            out["bar"] += 1
    return out


def _loops(ins):
    """(first, last) index pairs of every backward branch's loop body (last = the branch itself)."""
    index = {i.addr: n for n, i in enumerate(ins)}
    return [(index[i.target], n) for n, i in enumerate(ins)
            if i.base in _BRANCHES and i.target is not None and i.target <= i.addr and i.target in index]


def main_loop(sass):
    """Instructions of the K-tile loop, in static program order: the loop that holds a barrier and the most FFMAs ([] if none)."""
    ins = parse_sass(sass) if isinstance(sass, str) else sass
    best, best_ffma = [], -1
    for a, b in _loops(ins):
        body = ins[a:b + 1]
        if any(i.base == "BAR" for i in body):
            n = sum(i.base == "FFMA" for i in body)
            if n > best_ffma:
                best, best_ffma = body, n
    return best


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
