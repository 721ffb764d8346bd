"""PTX instructions from kernels_numba/infra/ptx/*.ptx as inlined Numba intrinsics (GPU) or exact Python stand-ins (simulator).

Every instruction the course uses is written once, in a complete PTX module under kernels_numba/infra/ptx/
(``.version 7.0``, ``.target sm_80``, accepted by ``ptxas -arch=sm_80`` and ``sm_90``; ``.target sm_75`` for
Turing's mma_m16n8k8_f32.ptx, assembled for sm_75 ... sm_120 in tests/test_turing_mma.py), as a ``.func``
whose body is that one instruction plus ``ret``::

    .visible .func (.reg .f32 d) fma_rn_f32(.reg .f32 a, .reg .f32 b, .reg .f32 c)
    {
        fma.rn.f32 d, a, b, c;
        ret;
    }

This module parses the signature and the instruction line and builds, under the same name, a Numba
``@intrinsic`` that emits exactly that text through llvmlite ``ir.InlineAsm`` (the pattern of numba-cuda's
cache_hints.py): the instruction lands inside the kernel, so the SASS has no CALL. Linking the .ptx file
instead (``cuda.declare_device(..., link=...)``) would leave a real CALL per use (NOTES-numba.md).

Calling convention, the same on GPU and in the simulator:
  * ``.reg`` parameters in parentheses before the name are results, the others are operands, in order;
    one result is returned as a scalar, several as a tuple.
  * An operand used inside ``[...]`` is a memory address. In Python it is given as an array element,
    ``(array, i, j)`` (one index per dimension). The intrinsic computes the element's address the way
    Numba's own indexing does (``cgutils.get_item_pointer``: data + i*stride0 + j*stride1, no bounds
    check, no wrap-around of negative indexes) and hands it to the instruction in the state space the
    opcode names (``.global``: the generic pointer itself, since global memory is identity-mapped into
    the generic space; ``.shared``: converted with addrspacecast, i.e. ``cvta.to.shared``).
  * Other operands are scalars, converted to the parameter's type (f32 -> float32, u32 -> uint32, ...).

Hopper (sm_90a, notebook 11) adds three shapes, all read from the same kind of file:
  * a ``.pred`` result (mbarrier.try_wait.parity) is returned as a bool (LLVM constraint "b");
  * an accumulating instruction (wgmma.mma_async with scale-d = 1) reads its destination registers: its results are
    also operands (LLVM "tied" inputs "0", "1", ...). In Python the register list is one 1-D local array passed
    first, updated in place: ``ptx.wgmma_m64n64k16_f32_f16(acc, desc_a, desc_b)`` loads acc[0..31] (constant
    indexes, so NVVM keeps them in registers), issues the instruction, stores the 32 results back;
  * an address operand written ``[tmap, {c0, c1}]`` (a tensor map and its coordinates) is the tensor map's address
    in the opcode's second state space; the mbarrier operand ``[bar]`` after the copy's own spaces is .shared.
  * wgmma.fence and wgmma.wait_group may be given the accumulator arrays they order, each followed by its length (a
    constant): ``ptx.wgmma_wait_group_1(acc, 64)``. The instruction text is the file's; the asm statement also
    declares acc[0..63] read and written (tied, like "+f" in CUDA C++; CUTLASS's warpgroup_fence_operand), so the
    compiler keeps those registers in place across it: no copy of an accumulator lands between a fence and its wait
    (ptxas would then serialise the wgmma, warning C7514) and no use of the results is scheduled before the wait.
``ptx.shared_address(array, i, ...)`` gives the 32-bit .shared address of a shared element (no instruction: the
addrspacecast that ``.shared`` address operands use), the value matrix descriptors are built from.

Under the simulator (kernels_numba.device.SIMULATOR) the same names are Python functions with the
hardware's semantics (STAND_INS): fma rounds once, st.global.v4 faults on a misaligned address, every address
operand must be in the state space its opcode names (StateSpaceError otherwise), copies move raw bytes, ...
The stand-ins live in kernels_numba/infra/simulator/ (stand_ins.py; the cp.async family in async_copy.py, built on
sim/cp_async.py: a copy lands in shared memory only at the wait_group that guarantees it; mma/ldmatrix in warp.py).
"""
import os
import re
from dataclasses import dataclass

import numpy as np

from .. import device
# the simulator stand-ins (the import runs one way: the simulator never imports this layer)
from ..simulator.errors import AsyncCopyAlignmentError, MisalignedAddressError  # noqa: F401
from ..simulator.memory import element as _element, host_array as _host_array  # noqa: F401
from ..simulator.stand_ins import STAND_INS, element_address, shared_address  # noqa: F401

PTX_DIR = os.path.dirname(os.path.abspath(__file__))      # the .ptx files live beside this module
SPACES = ("global", "shared", "local", "const", "param")
# PTX register type -> (numpy dtype of the Python value, LLVM inline-asm constraint letter)
REG_TYPES = {
    "f32": (np.float32, "f"), "f64": (np.float64, "d"),
    "b32": (np.uint32, "r"), "u32": (np.uint32, "r"), "s32": (np.int32, "r"),
    "b64": (np.uint64, "l"), "u64": (np.uint64, "l"), "s64": (np.int64, "l"),
    "b16": (np.uint16, "h"), "u16": (np.uint16, "h"), "s16": (np.int16, "h"),
    "pred": (np.bool_, "b"),
}
# opcodes that change memory or state: never deleted or moved by the compiler even if nothing uses a result
_SIDE_EFFECT_PREFIXES = ("st.", "red.", "atom.", "cp.", "bar.", "barrier.", "fence.", "membar.", "mbarrier.",
                         "wgmma.", "setmaxnreg.")
# opcodes that may pin register arrays (see the module docstring): wgmma's register-ordering instructions
_PINS_REGISTERS = ("wgmma.fence", "wgmma.wait_group")
# opcodes without an address operand that still order memory (the asm gets the memory clobber)
_MEMORY_ORDER_PREFIXES = ("cp.async", "wgmma.", "mbarrier.", "fence.", "setmaxnreg.")


class PtxFileError(ValueError):
    """A .ptx file does not have the shape this module reads (one .func per instruction, .reg parameters)."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str                  # PTX register type without the dot, e.g. 'f32'
    space: str = None          # for an address operand: the state space it points into ('global', 'shared', ...)

    @property
    def is_address(self):
        return self.space is not None


@dataclass(frozen=True)
class PtxFunc:
    """One .func of a .ptx file: its results, operands and the single instruction it wraps."""
    name: str
    path: str
    results: tuple             # Param, in order
    operands: tuple            # Param, in order
    instruction: str           # exact text of the instruction line, e.g. 'fma.rn.f32 d, a, b, c;'

    target: str = "sm_80"      # the module's .target (sm_90a: Hopper-only instructions such as wgmma)

    @property
    def opcode(self):
        return self.instruction.split(None, 1)[0]

    @property
    def accumulates(self):
        """True when the instruction reads its destination registers too (wgmma.mma_async with scale-d = 1): the
        results are tied operands, passed in Python as one array updated in place."""
        if not self.opcode.startswith("wgmma.mma_async"):
            return False
        ops = [o.strip() for o in self.instruction.split("}", 1)[1].rstrip(";").split(",")]
        return ops[3] == "1"        # d, a-desc, b-desc, scale-d, ...

    @property
    def touches_memory(self):
        # cp.async.commit_group / wait_group / wait_all have no address operand but order shared-memory
        # accesses: without the memory clobber LLVM could move a shared load above the wait that guards it
        return any(p.is_address for p in self.operands) or self.opcode.startswith(_MEMORY_ORDER_PREFIXES)

    @property
    def side_effect(self):
        return not self.results or self.opcode.startswith(_SIDE_EFFECT_PREFIXES)

    def asm_template(self):
        """The instruction with every parameter name replaced by LLVM's $N (results first, then operands)."""
        op, _, rest = self.instruction.partition(" ")
        rest = rest.replace("$", "$$")
        n = len(self.results)
        tied = n if self.accumulates else 0            # tied inputs take $n .. $2n-1 and appear in no text
        for i, p in enumerate(self.results + self.operands):
            k = i if i < n else i + tied
            rest = re.sub(rf"(?<![\w$%.]){re.escape(p.name)}(?!\w)", f"${k}", rest)
        return (op + " " + rest.strip()).strip()      # no operands ('cp.async.commit_group;'): no trailing blank

    def constraints(self):
        """LLVM inline-asm constraint string, e.g. '=f,f,f,f' or 'l,f,f,f,f,~{memory}'."""
        cs = ["=" + REG_TYPES[p.type][1] for p in self.results]
        if self.accumulates:
            cs += [str(i) for i in range(len(self.results))]      # each result register is also read
        cs += [REG_TYPES[p.type][1] for p in self.operands]
        if self.touches_memory:
            cs.append("~{memory}")    # reads/writes memory: keep it ordered with the other memory accesses
        return ",".join(cs)


# ---------------------------------------------------------------------------------------------- parsing

def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _params(text, where):
    out = []
    for part in filter(None, (s.strip() for s in text.split(","))):
        m = re.fullmatch(r"\.reg\s+\.(\w+)\s+([A-Za-z_]\w*)", part)
        if not m:
            raise PtxFileError(f"{where}: parameter {part!r} must be '.reg .<type> <name>'")
        if m.group(1) not in REG_TYPES:
            raise PtxFileError(f"{where}: register type .{m.group(1)} not supported (known: {sorted(REG_TYPES)})")
        out.append(Param(m.group(2), m.group(1)))
    return out


def _address_spaces(opcode, operand_text, names):
    """{param name: state space} for the operands used inside [...], matched in order to the spaces in the opcode
    ('shared::cta' and 'shared::cluster' are .shared). A tensor operand [tmap, {c0, c1}] is the tensor map's address;
    the [mbar] of a copy that completes on an mbarrier (mbarrier::complete_tx), after the copy's own spaces, is .shared."""
    spaces = [t.split("::")[0] for t in opcode.split(".") if t.split("::")[0] in SPACES] or ["generic"]
    found = {}
    brackets = list(re.finditer(r"\[\s*([A-Za-z_]\w*)\s*(?:\+\s*-?\d+\s*)?(?:,\s*\{[^}]*\}\s*)?\]", operand_text))
    for k, m in enumerate(brackets):
        name = m.group(1)
        if name not in names:
            continue
        if "mbarrier::" in opcode and k == len(brackets) - 1 and k >= len(spaces):
            found[name] = "shared"
        else:
            found[name] = spaces[min(k, len(spaces) - 1)]
    return found


def parse_text(text, path="<text>"):
    """All .func definitions in PTX module text, as PtxFunc (raises PtxFileError on anything unexpected)."""
    src = _strip_comments(text)
    for directive in (r"\.version\s+\d+\.\d+", r"\.target\s+sm_\d+", r"\.address_size\s+64"):
        if not re.search(directive, src):
            raise PtxFileError(f"{path}: not a complete PTX module (missing {directive.split(chr(92))[1]})")
    target = re.search(r"\.target\s+(sm_\w+)", src).group(1)
    funcs, pos = [], 0
    head = re.compile(r"\.visible\s+\.func\s*(?:\(([^)]*)\))?\s*([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{")
    while True:
        m = head.search(src, pos)
        if not m:
            break
        depth, i = 1, m.end()
        while depth and i < len(src):        # the body may contain vector braces {x, y}
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        body, pos = src[m.end():i - 1], i
        name, where = m.group(2), f"{path}: .func {m.group(2)}"
        results, operands = _params(m.group(1) or "", where), _params(m.group(3), where)
        stmts = [s.strip() for s in body.split(";") if s.strip()]
        if len(stmts) != 2 or stmts[1] != "ret":
            raise PtxFileError(f"{where}: the body must be exactly one instruction and 'ret;', found {stmts}")
        opcode, _, operand_text = stmts[0].partition(" ")
        spaces = _address_spaces(opcode, operand_text, {p.name for p in operands})
        operands = [Param(p.name, p.type, spaces.get(p.name)) for p in operands]
        for p in operands:
            if p.is_address and p.type not in ("u64", "b64", "s64", "u32", "b32"):
                raise PtxFileError(f"{where}: address operand {p.name} must be .u64 (or .u32 for shared)")
        # the exact line as written in the file (comments removed), so tests can compare it with the .ptx text
        line = next(l.strip() for l in body.splitlines() if l.strip().startswith(opcode))
        funcs.append(PtxFunc(name, path, tuple(results), tuple(operands), line, target))
    if not funcs:
        raise PtxFileError(f"{path}: no '.visible .func' found")
    return funcs


def parse_file(path):
    with open(path, encoding="utf-8") as f:
        return parse_text(f.read(), path)


def ptx_files():
    """Paths of every .ptx file of the course, sorted."""
    return sorted(os.path.join(PTX_DIR, f) for f in os.listdir(PTX_DIR) if f.endswith(".ptx"))


def load_all():
    """{name: PtxFunc} over every .ptx file (a name defined twice is an error)."""
    out = {}
    for path in ptx_files():
        for fn in parse_file(path):
            if fn.name in out:
                raise PtxFileError(f"{fn.name} defined in both {out[fn.name].path} and {path}")
            out[fn.name] = fn
    return out


# ------------------------------------------------------------------------------ simulator stand-ins
# They live in the simulator package (kernels_numba/infra/simulator/stand_ins.py, imported at the top); the import
# runs one way.

def _missing_stand_in(name):
    def f(*args):
        raise NotImplementedError(f"{name}: 시뮬레이터용 대체 함수가 없습니다 / no simulator stand-in; "
                                  "add one to kernels_numba.infra.ptx.STAND_INS")
    f.__name__ = name
    return f


# ------------------------------------------------------------------------------------ GPU intrinsics

def _build_intrinsics(funcs):
    """{name: @intrinsic} emitting each PtxFunc's instruction inline."""
    # local: GPU and offline modes only: the simulator takes the stand-ins (numba-cuda's extension API)
    from llvmlite import ir
    from numba.cuda import cgutils, types
    from numba.cuda.core.errors import NumbaTypeError
    from numba.cuda.extending import intrinsic

    def numba_type(p):
        if p.type == "pred":
            return types.boolean
        return getattr(types, np.dtype(REG_TYPES[p.type][0]).name)      # e.g. types.float32

    def split_args(fn, argtys):
        """Group the flat Python arguments per PTX operand: addresses take (array, i, j, ...)."""
        groups, k = [], 0
        for p in fn.operands:
            if k >= len(argtys):
                raise NumbaTypeError(f"{fn.name}: too few arguments (operand {p.name} missing)")
            if p.is_address:
                arr = argtys[k]
                if not isinstance(arr, types.Array):
                    raise NumbaTypeError(f"{fn.name}: operand {p.name} is an address: pass (array, i, j, ...)")
                idx = argtys[k + 1:k + 1 + arr.ndim]
                if len(idx) != arr.ndim or not all(isinstance(t, types.Integer) for t in idx):
                    raise NumbaTypeError(f"{fn.name}: {arr.ndim} integer indexes needed after the array for {p.name}")
                groups.append((p, k, k + 1 + arr.ndim))
                k += 1 + arr.ndim
            else:
                groups.append((p, k, k + 1))
                k += 1
        if k != len(argtys):
            raise NumbaTypeError(f"{fn.name}: {len(argtys)} arguments given, {k} expected")
        return groups

    def address(context, builder, p, aryty, ary, idxtys, idxs):
        intp = types.intp
        inds = [context.cast(builder, v, t, intp) for v, t in zip(idxs, idxtys)]
        arr = context.make_array(aryty)(context, builder, value=ary)
        ptr = cgutils.get_item_pointer(context, builder, aryty, arr, inds, wraparound=False)
        bits = 64 if p.type.endswith("64") else 32
        if p.space == "shared":          # generic -> shared window (cvta.to.shared), as the instruction expects
            ptr = builder.addrspacecast(ptr, ir.PointerType(ptr.type.pointee, 3))
        elif p.space not in ("global", "generic"):
            raise NotImplementedError(f"address operand in .{p.space} space")
        return builder.ptrtoint(ptr, ir.IntType(bits))

    def make_accumulating(fn):
        """fn(acc, *operands): acc[0 .. n-1] are the tied result registers, loaded and stored at constant indexes."""
        n = len(fn.results)
        rtype = numba_type(fn.results[0])
        if any(numba_type(p) != rtype for p in fn.results):
            raise PtxFileError(f"{fn.name}: an accumulating instruction needs results of one type")

        def typer(typingctx, *args):
            if not args or not isinstance(args[0], types.Array) or args[0].ndim != 1 or args[0].dtype != rtype:
                raise NumbaTypeError(f"{fn.name}(acc, ...): acc must be a 1-D {rtype} array of {n} accumulators "
                                     "(cuda.local.array)")
            split_args(fn, args[1:])
            sig = types.void(types.StarArgTuple.from_types(args))

            def codegen(context, builder, sig, llargs):
                argtys = tuple(sig.args[0])
                flat = cgutils.unpack_tuple(builder, llargs[0], len(argtys))
                aryty = argtys[0]
                arr = context.make_array(aryty)(context, builder, value=flat[0])
                ptrs = [cgutils.get_item_pointer(context, builder, aryty, arr, [context.get_constant(types.intp, i)],
                                                 wraparound=False) for i in range(n)]
                acc = [builder.load(q) for q in ptrs]
                values = []
                for p, lo, hi in split_args(fn, argtys[1:]):
                    lo, hi = lo + 1, hi + 1
                    if p.is_address:
                        values.append(address(context, builder, p, argtys[lo], flat[lo], argtys[lo + 1:hi],
                                              flat[lo + 1:hi]))
                    else:
                        values.append(context.cast(builder, flat[lo], argtys[lo], numba_type(p)))
                lt = context.get_value_type(rtype)
                fnty = ir.FunctionType(ir.LiteralStructType([lt] * n), [lt] * n + [v.type for v in values])
                asm = ir.InlineAsm(fnty, fn.asm_template(), fn.constraints(), side_effect=True)
                out = builder.call(asm, acc + values)
                for i, q in enumerate(ptrs):
                    builder.store(builder.extract_value(out, i), q)
                return context.get_dummy_value()

            return sig, codegen

        typer.__name__ = fn.name
        return intrinsic(typer)

    def make_pinning(fn):
        """fn() or fn(acc, n, acc2, n2, ...): the instruction, with acc[0..n-1] tied in and out of it."""

        def typer(typingctx, *args):
            if len(args) % 2:
                raise NumbaTypeError(f"{fn.name}(acc, n, ...): each accumulator array is followed by its length")
            for arr, n in zip(args[::2], args[1::2]):
                if not isinstance(arr, types.Array) or arr.ndim != 1 or arr.dtype != types.float32:
                    raise NumbaTypeError(f"{fn.name}: {arr} is not a 1-D float32 accumulator array")
                if not isinstance(n, types.IntegerLiteral):
                    return None                  # Numba retries with the constant's literal value
            sig = types.void(types.StarArgTuple.from_types(args))

            def codegen(context, builder, sig, llargs):
                argtys = tuple(sig.args[0])
                flat = cgutils.unpack_tuple(builder, llargs[0], len(argtys))
                ptrs = []
                for k in range(0, len(argtys), 2):
                    aryty, n = argtys[k], argtys[k + 1].literal_value
                    arr = context.make_array(aryty)(context, builder, value=flat[k])
                    ptrs += [cgutils.get_item_pointer(context, builder, aryty, arr,
                                                      [context.get_constant(types.intp, i)], wraparound=False)
                             for i in range(n)]
                vals = [builder.load(q) for q in ptrs]
                ft = ir.FloatType()
                n = len(vals)
                ret = ir.LiteralStructType([ft] * n) if n else ir.VoidType()
                cons = ",".join(["=f"] * n + [str(i) for i in range(n)] + ["~{memory}"])
                asm = ir.InlineAsm(ir.FunctionType(ret, [ft] * n), fn.asm_template(), cons, side_effect=True)
                out = builder.call(asm, vals)
                for i, q in enumerate(ptrs):
                    builder.store(builder.extract_value(out, i), q)
                return context.get_dummy_value()

            return sig, codegen

        typer.__name__ = fn.name
        return intrinsic(typer)

    def make(fn):
        if fn.accumulates:
            return make_accumulating(fn)
        if fn.opcode.startswith(_PINS_REGISTERS) and not fn.results and not fn.operands:
            return make_pinning(fn)
        results = [numba_type(p) for p in fn.results]
        if not results:
            restype = types.void
        elif len(results) == 1:
            restype = results[0]
        else:
            restype = types.Tuple(results)

        def typer(typingctx, *args):
            split_args(fn, args)
            # a *args intrinsic receives its arguments as one star-arg tuple when lowered
            sig = restype(types.StarArgTuple.from_types(args))

            def codegen(context, builder, sig, llargs):
                argtys = tuple(sig.args[0])
                flat = cgutils.unpack_tuple(builder, llargs[0], len(argtys))
                values, vtypes = [], []
                for p, lo, hi in split_args(fn, argtys):
                    if p.is_address:
                        v = address(context, builder, p, argtys[lo], flat[lo], argtys[lo + 1:hi], flat[lo + 1:hi])
                    else:
                        v = context.cast(builder, flat[lo], argtys[lo], numba_type(p))
                    values.append(v)
                    vtypes.append(v.type)
                llres = [context.get_value_type(t) for t in results]
                ret = (ir.VoidType() if not llres else llres[0] if len(llres) == 1
                       else ir.LiteralStructType(llres))
                asm = ir.InlineAsm(ir.FunctionType(ret, vtypes), fn.asm_template(), fn.constraints(),
                                   side_effect=fn.side_effect)
                out = builder.call(asm, values)
                if len(llres) > 1:
                    out = context.make_tuple(builder, restype, [builder.extract_value(out, i)
                                                                for i in range(len(llres))])
                return out

            return sig, codegen

        typer.__name__ = fn.name
        return intrinsic(typer)

    out = {name: make(fn) for name, fn in funcs.items()}

    @intrinsic
    def element_address_gpu(typingctx, *args):
        arr, idx = (args[0], args[1:]) if args else (None, ())
        if not isinstance(arr, types.Array) or len(idx) != arr.ndim:
            raise NumbaTypeError("element_address(array, i, j, ...): one index per dimension")
        sig = types.uint64(types.StarArgTuple.from_types(args))

        def codegen(context, builder, sig, llargs):
            argtys = tuple(sig.args[0])
            flat = cgutils.unpack_tuple(builder, llargs[0], len(argtys))
            p = Param("addr", "u64", "generic")
            return address(context, builder, p, argtys[0], flat[0], argtys[1:], flat[1:])

        return sig, codegen

    @intrinsic
    def shared_address_gpu(typingctx, *args):
        arr, idx = (args[0], args[1:]) if args else (None, ())
        if not isinstance(arr, types.Array) or len(idx) != arr.ndim:
            raise NumbaTypeError("shared_address(shared_array, i, j, ...): one index per dimension")
        sig = types.uint32(types.StarArgTuple.from_types(args))

        def codegen(context, builder, sig, llargs):
            argtys = tuple(sig.args[0])
            flat = cgutils.unpack_tuple(builder, llargs[0], len(argtys))
            p = Param("addr", "u32", "shared")
            return address(context, builder, p, argtys[0], flat[0], argtys[1:], flat[1:])

        return sig, codegen

    out["element_address"] = element_address_gpu
    out["shared_address"] = shared_address_gpu
    return out


FUNCS = load_all()
if device.SIMULATOR:
    _impl = {name: STAND_INS.get(name) or _missing_stand_in(name) for name in FUNCS}
    _impl["element_address"] = element_address
    _impl["shared_address"] = shared_address
else:
    _impl = _build_intrinsics(FUNCS)
globals().update(_impl)

__all__ = ["FUNCS", "PtxFunc", "Param", "parse_text", "parse_file", "ptx_files", "load_all", "STAND_INS",
           "MisalignedAddressError", "AsyncCopyAlignmentError", "PtxFileError", "element_address", "shared_address",
           *FUNCS]
