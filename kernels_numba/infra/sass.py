"""SASS text (cuobjdump, or nvdisasm -gi on a GPU) read as instructions: parse_sass, the loops its backward branches
close, and main_loop, the K-tile loop. Pure text, ground floor: a kernel module (db.py) reads its own SASS with it, and
kernels_numba.tools.resources (which compiles or loads the kernel to get that text) re-exports it."""
import re
from typing import NamedTuple, Optional

# one SASS line: /*0a10*/  @!P0 LDS.128 R4, [R2+0x10] ;   (cuobjdump and nvdisasm -gi print the same form); a suffix may
# hold lowercase letters: HGMMA.64x64x16.F32 is one opcode
_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*([^;]*);")
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


def loop_bodies(sass):
    """The body of every loop a backward branch closes (instructions in program order, the branch last)."""
    ins = parse_sass(sass) if isinstance(sass, str) else sass
    return [ins[a:b + 1] for a, b in _loops(ins)]


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
