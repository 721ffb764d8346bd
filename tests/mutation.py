"""Mutation testing of the exercise checkers: wrong answers generated from each model solution in answers/.

    python tests/mutation.py [EXERCISE ...] [--json OUT] [--no-oracle]      (make mutants: all of them)

An AST mutator makes one small change at a time to the functions a checker runs (the solution function and the
module's own functions and constants it uses): off-by-one in every index, call argument and returned value, swapped
names that are easy to confuse (tx/ty, row/col, stage/kt, rows/cols, m/n, g/t ...), changed loop bounds, deleted or
moved barriers, waits and commits (also into and out of the `if` next to them), changed constants (the N of
wait_group, tile sizes, strides), comparison and arithmetic operators, `+=` turned into `=`, dropped conditions
(bounds checks, zero-fill), an accumulator reset moved into the loop, and swapped tuple elements.

Each mutant is checked like a student's answer (course.exercises.check). A mutant that passes is a survivor; an
oracle independent of the checker's diagnosis logic (more shapes, more seeds, the model over a wider domain, the
technique metrics of the solution) then decides whether it is equivalent (it behaves as the solution does: a right
answer) or a real miss. The report per exercise: generated, killed, equivalent, missed, and the kill rate over the
mutants that change behaviour.
"""
import argparse
import ast
import copy
import hashlib
import importlib.util
import itertools
import json
import random
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import kernels_numba  # noqa: E402,F401  (device choice before numba)

# ------------------------------------------------------------------------------------------------ the mutator

SWAP = {"tx": "ty", "ty": "tx", "row": "col", "col": "row", "rows": "cols", "cols": "rows", "r": "c", "c": "r",
        "m": "n", "n": "m", "g": "t", "t": "g", "x": "y", "y": "x", "a": "b", "b": "a", "M": "N", "N": "M",
        "TM": "TN", "TN": "TM", "BM": "BN", "BN": "BM", "stage": "kt", "kt": "stage", "tile": "stage",
        "tile_no": "stage", "load": "comp", "comp": "load", "single": "double", "double": "single", "lo": "hi",
        "hi": "lo", "block": "thread", "thread": "block"}
SYNC_WORDS = ("syncthreads", "wait_group", "wait_all", "commit_group")
MODULES = {"cuda", "ptx", "np", "numpy", "math", "banks", "pipeline", "mma", "float32", "float16", "int32", "uint32"}
ARRAY_NAMES = {"out", "rA", "rB", "rC"}


@dataclass
class Mutant:
    ex_id: str
    id: str             # stable while the solution does not change: operator, line, column, detail
    op: str
    desc: str
    source: str


_ARRAY_RE = __import__("re").compile(r"^([A-Z]s?|[A-Z]out|r[ABC]|out|X|S)$")


def _is_array_name(name):
    return bool(_ARRAY_RE.match(name)) or name in ARRAY_NAMES


def _swaps(name, known):
    """Confusable names for `name` that exist in `known`: token swaps (a_row -> b_row, a_col; grow -> gcol)."""
    out = []
    if name in SWAP and SWAP[name] in known:
        out.append(SWAP[name])
    parts = name.split("_")
    if len(parts) > 1:
        for i, p in enumerate(parts):
            if p in SWAP:
                cand = "_".join(parts[:i] + [SWAP[p]] + parts[i + 1:])
                if cand in known and cand not in out:
                    out.append(cand)
    for a, b in (("row", "col"), ("col", "row")):
        if name.endswith(a) and name != a:
            cand = name[: -len(a)] + b
            if cand in known and cand not in out:
                out.append(cand)
    return [c for c in out if c != name]


def _call_name(node):
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _targets(tree, entry):
    """The module-level functions reachable from `entry` and the module constants they use (names)."""
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    consts = {}
    for n in tree.body:
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(e, ast.Name):
                        consts[e.id] = n
    seen, todo, used = set(), [entry], set()
    while todo:
        f = todo.pop()
        if f in seen or f not in funcs:
            continue
        seen.add(f)
        for node in ast.walk(funcs[f]):
            if isinstance(node, ast.Name):
                used.add(node.id)
                if node.id in funcs:
                    todo.append(node.id)
    return [funcs[f] for f in sorted(seen)], [consts[c] for c in sorted(used & set(consts))
                                              if isinstance(consts[c].value, (ast.Constant, ast.Tuple))]


def _float_names(fn):
    """Names that hold floats (assigned a float32(...) or a product), so +1 is not an index mistake there."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _call_name(node.value) in (
                "float32", "float16", "float64"):
            for t in node.targets:
                for e in ast.walk(t):
                    if isinstance(e, ast.Name):
                        out.add(e.id)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(node.value, ast.Call) and _call_name(node.value) in ("compute_tile", "tile_dot"):
            out.add(node.targets[0].id)
    return out


def _intlike(e, floats):
    """An expression that can be an index (not an array, not a float, not a string)."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, int) and not isinstance(e.value, bool)
    if isinstance(e, ast.Name):
        return not _is_array_name(e.id) and e.id not in floats and e.id not in MODULES and e.id not in ("None",)
    if isinstance(e, (ast.BinOp, ast.UnaryOp)):
        names = [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]
        return not any(_is_array_name(n) or n in floats for n in names) and \
            not any(isinstance(n, ast.Constant) and isinstance(n.value, float) for n in ast.walk(e))
    if isinstance(e, ast.Subscript):
        return isinstance(e.value, ast.Attribute) and e.value.attr == "shape"
    return False


def _plus(e, k):
    return ast.BinOp(left=copy.deepcopy(e), op=ast.Add() if k > 0 else ast.Sub(), right=ast.Constant(abs(k)))


def _seg(node):
    return ast.unparse(node) if not isinstance(node, list) else "; ".join(ast.unparse(n) for n in node)


class _Plan:
    """Mutations of one tree, each a (op, desc, node index, transform(node, parent_info) -> replacement)."""

    def __init__(self, tree, entry):
        self.tree = tree
        self.nodes = list(ast.walk(tree))
        self.index = {id(n): i for i, n in enumerate(self.nodes)}
        self.parent = {id(c): p for p in self.nodes for c in ast.iter_child_nodes(p)}
        self.funcs, self.consts = _targets(tree, entry)
        self.items = []

    def add(self, op, node, desc, fn):
        self.items.append((op, self.index[id(node)], desc, fn, getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))

    def build(self):
        for c in self.consts:
            for node in ast.walk(c.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
                    self._constant(node)
        for fn in self.funcs:
            self._function(fn)
        return self.items

    # -------------------------------------------------------------------- operators
    def _context(self, node):
        """The smallest statement-or-expression text around `node` (for the mutant's description)."""
        p = self.parent.get(id(node))
        while p is not None and isinstance(p, (ast.BinOp, ast.UnaryOp)) and \
                isinstance(self.parent.get(id(p)), (ast.BinOp, ast.UnaryOp)):
            p = self.parent.get(id(p))
        return _seg(p)[:50] if p is not None and not isinstance(p, (ast.Module, ast.FunctionDef)) else ""

    def _constant(self, node):
        v = node.value
        ctx = self._context(node)
        for w in sorted({v + 1, v - 1, v * 2} - {v}):
            self.add("constant", node, f"`{ctx}` 의 상수 {v} → {w}", lambda n, w=w: ast.Constant(w))

    def _function(self, fn):
        floats = _float_names(fn)
        known = {a.arg for a in fn.args.args} | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        params = {a.arg for a in fn.args.args}
        for node in ast.walk(fn):
            if isinstance(node, ast.Subscript) and not (isinstance(node.value, ast.Attribute) and node.value.attr == "shape"):
                sl = node.slice
                elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                for e in elts:
                    if not isinstance(e, ast.Slice) and _intlike(e, floats):
                        for k in (1, -1):
                            self.add("index_off_by_one", e, f"`{_seg(node)[:40]}` 의 인덱스 `{_seg(e)}` {k:+d}",
                                     lambda n, k=k: _plus(n, k))
            elif isinstance(node, ast.Call):
                name = _call_name(node)
                if name == "range":
                    self._range(node)
                elif name in ("min", "max"):
                    other = "max" if name == "min" else "min"
                    self.add("arith", node, f"`{name}` → `{other}`",
                             lambda n, o=other: ast.Call(func=ast.Name(o, ast.Load()), args=n.args, keywords=[]))
                if name not in ("range", "float32", "float16", "int32", "uint32", "array", "Layout", "analyze",
                                "local", "shared"):
                    for a in node.args:
                        if _intlike(a, floats) and not isinstance(a, ast.Subscript):
                            for k in (1, -1):
                                self.add("index_off_by_one", a, f"`{name}` 의 인자 `{_seg(a)}` {k:+d}",
                                         lambda n, k=k: _plus(n, k))
                if isinstance(node.func, ast.Attribute):
                    self._attr(node.func)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in MODULES:
                for other in _swaps(node.id, known):
                    self.add("swap_names", node, f"`{node.id}` → `{other}`",
                             lambda n, o=other: ast.Name(o, ast.Load()))
            elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
                self._constant(node)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                flip = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                        ast.NotEq: ast.Eq}.get(type(node.ops[0]))
                if flip:
                    self.add("compare", node, f"`{_seg(node)}` 의 비교 연산자",
                             lambda n, f=flip: ast.Compare(n.left, [f()], n.comparators))
            elif isinstance(node, ast.BoolOp):
                other = ast.Or if isinstance(node.op, ast.And) else ast.And
                self.add("compare", node, f"`{_seg(node)}` 의 and/or", lambda n, o=other: ast.BoolOp(o(), n.values))
                for i in range(len(node.values)):
                    self.add("drop_condition", node, f"`{_seg(node)}` 에서 `{_seg(node.values[i])}` 빼기",
                             lambda n, i=i: (ast.BoolOp(n.op, n.values[:i] + n.values[i + 1:])
                                             if len(n.values) > 2 else n.values[1 - i]))
            elif isinstance(node, ast.BinOp):
                alts = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Add, ast.FloorDiv],
                        ast.FloorDiv: [ast.Mod, ast.Mult], ast.Mod: [ast.FloorDiv], ast.RShift: [ast.LShift, ast.Mod],
                        ast.LShift: [ast.RShift]}.get(type(node.op), [])
                for alt in alts:
                    self.add("arith", node, f"`{_seg(node)}` 의 {type(node.op).__name__} → {alt.__name__}",
                             lambda n, a=alt: ast.BinOp(n.left, a(), n.right))
            elif isinstance(node, ast.IfExp):
                self.add("drop_condition", node, f"`{_seg(node)}` → 참 쪽만", lambda n: n.body)
                self.add("drop_condition", node, f"`{_seg(node)}` → 거짓 쪽만", lambda n: n.orelse)
            elif isinstance(node, ast.If):
                self.add("drop_condition", node.test, f"조건 `{_seg(node.test)}` → 늘 참",
                         lambda n: ast.Constant(True))
                self.add("drop_condition", node.test, f"조건 `{_seg(node.test)}` → 늘 거짓",
                         lambda n: ast.Constant(False))
            elif isinstance(node, ast.Return) and node.value is not None:
                vals = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for e in vals:
                    if _intlike(e, floats):
                        for k in (1, -1):
                            self.add("index_off_by_one", e, f"돌려주는 값 `{_seg(e)}` {k:+d}", lambda n, k=k: _plus(n, k))
            elif isinstance(node, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple)) for t in node.targets):
                vals = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for e in vals:
                    if _intlike(e, floats) and not isinstance(e, ast.Constant):
                        for k in (1, -1):
                            self.add("index_off_by_one", e, f"`{_seg(node)[:50]}` 의 `{_seg(e)}` {k:+d}",
                                     lambda n, k=k: _plus(n, k))
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
                self.add("accumulate", node, f"`{_seg(node)}` 의 += → =",
                         lambda n: ast.Assign([n.target], n.value, lineno=n.lineno))
            elif isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) >= 2 and isinstance(node.ctx, ast.Load):
                for i in range(len(node.elts) - 1):
                    if ast.dump(node.elts[i]) != ast.dump(node.elts[i + 1]):
                        self.add("swap_elements", node, f"`{_seg(node)[:40]}` 의 {i}·{i + 1}번 원소 바꾸기",
                                 lambda n, i=i: type(n)(n.elts[:i] + [n.elts[i + 1], n.elts[i]] + n.elts[i + 2:], n.ctx))
            if hasattr(node, "body") and isinstance(getattr(node, "body"), list):
                self._block(node, "body", floats, params)
                if getattr(node, "orelse", None):
                    self._block(node, "orelse", floats, params)
        return None

    def _attr(self, f):
        name = f.attr
        alt = []
        if name[-1:].isdigit() and "wait_group" in name:
            d = int(name[-1])
            alt = [name[:-1] + str(x) for x in (d - 1, d + 1) if 0 <= x <= 3]
        if name.endswith("_trans"):
            alt.append(name[:-6])
        elif name.startswith("ldmatrix"):
            alt.append(name + "_trans")
        for a in alt:
            self.add("constant", f, f"`{name}` → `{a}`", lambda n, a=a: ast.Attribute(n.value, a, n.ctx))

    def _range(self, node):
        args = node.args
        mk = lambda a: ast.Call(func=ast.Name("range", ast.Load()), args=a, keywords=[])   # noqa: E731
        if len(args) == 1:
            self.add("loop_bounds", node, f"`{_seg(node)}` → 한 번 덜", lambda n: mk([_plus(n.args[0], -1)]))
            self.add("loop_bounds", node, f"`{_seg(node)}` → 한 번 더", lambda n: mk([_plus(n.args[0], 1)]))
            self.add("loop_bounds", node, f"`{_seg(node)}` → 1 부터", lambda n: mk([ast.Constant(1), n.args[0]]))
        elif len(args) >= 2:
            rest = list(args[2:])
            self.add("loop_bounds", node, f"`{_seg(node)}` 의 시작과 끝 바꾸기", lambda n, r=rest: mk([n.args[1], n.args[0]] + r))
            self.add("loop_bounds", node, f"`{_seg(node)}` 의 시작 + 1", lambda n, r=rest: mk([_plus(n.args[0], 1), n.args[1]] + r))
            self.add("loop_bounds", node, f"`{_seg(node)}` 의 끝 - 1", lambda n, r=rest: mk([n.args[0], _plus(n.args[1], -1)] + r))
            self.add("loop_bounds", node, f"`{_seg(node)}` 의 끝 + 1", lambda n, r=rest: mk([n.args[0], _plus(n.args[1], 1)] + r))

    def _block(self, owner, field_name, floats, params):
        """Statement-level operators on one block: delete, move barriers/waits/commits, reset into the loop."""
        body = getattr(owner, field_name)
        for i, st in enumerate(body):
            text = _seg(st).split("\n")[0][:60]
            is_sync = isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                any(w in _call_name(st.value) for w in SYNC_WORDS)
            deletable = (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)) or \
                (isinstance(st, ast.Assign) and any(isinstance(t, ast.Subscript) for t in st.targets)) or \
                isinstance(st, ast.AugAssign) or (isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant))
            if deletable and len(body) > 1:
                self._stmt_edit("delete", owner, field_name, i, f"`{text}` 줄 지우기", "delete")
            if is_sync:
                if i > 0:
                    self._stmt_edit("move_sync", owner, field_name, i, f"`{text}` 를 한 줄 위로", "up")
                    if isinstance(body[i - 1], ast.If):
                        self._stmt_edit("move_sync", owner, field_name, i, f"`{text}` 를 위의 if 안으로", "into_prev_if")
                if i + 1 < len(body):
                    self._stmt_edit("move_sync", owner, field_name, i, f"`{text}` 를 한 줄 아래로", "down")
                    if isinstance(body[i + 1], ast.If):
                        self._stmt_edit("move_sync", owner, field_name, i, f"`{text}` 를 아래의 if 안으로", "into_next_if")
                if isinstance(owner, ast.If) and field_name == "body":
                    self._stmt_edit("move_sync", owner, field_name, i, f"`{text}` 를 if 밖으로", "out_of_if")
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and i + 1 < len(body) and \
                    isinstance(body[i + 1], ast.For):
                names = {e.id for e in ast.walk(st.targets[0]) if isinstance(e, ast.Name)}
                loop_names = {n.id for n in ast.walk(body[i + 1]) if isinstance(n, ast.Name)}
                if names & loop_names and not isinstance(st.value, ast.Call) or \
                        (isinstance(st.value, ast.Call) and _call_name(st.value) in ("float32", "float16")):
                    self._stmt_edit("reset_in_loop", owner, field_name, i, f"`{text}` 를 루프 안에서 다시", "reset")

    def _stmt_edit(self, op, owner, field_name, i, desc, how):
        self.items.append((op, self.index[id(owner)], desc, ("stmt", field_name, i, how),
                           getattr(getattr(owner, field_name)[i], "lineno", 0), i))


def _apply_stmt(owner, field_name, i, how):
    body = getattr(owner, field_name)
    st = body[i]
    if how == "delete":
        body[i] = ast.Pass()
    elif how == "up":
        body[i - 1], body[i] = body[i], body[i - 1]
    elif how == "down":
        body[i + 1], body[i] = body[i], body[i + 1]
    elif how == "into_prev_if":
        body[i - 1].body.append(st)
        del body[i]
    elif how == "into_next_if":
        body[i + 1].body.insert(0, st)
        del body[i]
    elif how == "out_of_if":
        return "out_of_if"
    elif how == "reset":
        body[i + 1].body.insert(0, copy.deepcopy(st))
    return None


def generate(ex):
    """The mutants of exercise `ex` (course.exercises.core.Exercise): distinct, compilable, not the solution."""
    path = ROOT / ex.solution_file
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    plan = _Plan(tree, ex.solution_name)
    items = plan.build()
    base = ast.dump(tree)
    seen, out = {base}, []
    for op, idx, desc, fn, line, col in items:
        t2 = copy.deepcopy(tree)
        nodes = list(ast.walk(t2))
        node = nodes[idx]
        if isinstance(fn, tuple):
            _, field_name, i, how = fn
            if how == "out_of_if":
                st = getattr(node, field_name)[i]
                parents = {id(c): p for p in ast.walk(t2) for c in ast.iter_child_nodes(p)}
                holder = parents[id(node)]
                for fname in ("body", "orelse"):
                    blk = getattr(holder, fname, None)
                    if isinstance(blk, list) and node in blk:
                        del getattr(node, field_name)[i]
                        if not getattr(node, field_name):
                            getattr(node, field_name).append(ast.Pass())
                        blk.insert(blk.index(node) + 1, st)
                        break
            else:
                _apply_stmt(node, field_name, i, how)
        else:
            parents = {id(c): (p, f) for p in ast.walk(t2) for f, v in ast.iter_fields(p)
                       for c in (v if isinstance(v, list) else [v]) if isinstance(c, ast.AST)}
            new = fn(node)
            p, f = parents[id(node)]
            v = getattr(p, f)
            if isinstance(v, list):
                v[v.index(node)] = new
            else:
                setattr(p, f, new)
        ast.fix_missing_locations(t2)
        d = ast.dump(t2)
        if d in seen:
            continue
        seen.add(d)
        try:
            text = ast.unparse(t2)
            compile(text, str(path), "exec")
        except (SyntaxError, ValueError, TypeError):
            continue
        key = hashlib.sha1(f"{op}|{line}|{col}|{desc}".encode()).hexdigest()[:10]
        out.append(Mutant(ex.id, f"{op}@{line}:{key}", op, f"{line}행: {desc}", text))
    return out


_GENERATED = {}


def generated(ex_id):
    """generate() of exercise `ex_id`, once per process (the solution files do not change during a run)."""
    if ex_id not in _GENERATED:
        from course.exercises import core
        _GENERATED[ex_id] = generate(core.get(ex_id))
    return _GENERATED[ex_id]


# ------------------------------------------------------------------------------------------------ running

class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


_DIR = []


def _folder():
    """One temporary folder per process for the mutants' files, removed when the process ends."""
    if not _DIR:
        import atexit
        import shutil
        _DIR.append(Path(tempfile.mkdtemp(prefix="sgemm_mut_")))
        atexit.register(shutil.rmtree, _DIR[0], True)
    return _DIR[0]


def load(source, name_hint="mut"):
    """Import `source` as a module from a real file (the simulator's reports need source lines)."""
    d = _folder()
    name = f"{name_hint}_{uuid.uuid4().hex[:8]}"
    f = d / f"{name}.py"
    f.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, f)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def verdict(ex, source, attr=None, timeout=180):
    """(status, Result or None): status 'killed' / 'survived' / 'invalid' (the module does not import or times out)."""
    from course.exercises import core
    try:
        mod = load(source)
        fn = getattr(mod, attr or ex.solution_name)
    except Exception as e:                                    # noqa: BLE001  (a mutant that does not import)
        return "invalid", f"{type(e).__name__}: {e}"
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        res = core.check(ex.id, fn, save=False)
    except _Timeout:
        return "invalid", "timeout"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return ("survived" if res.ok else "killed"), res


# ------------------------------------------------------------------------------------------------ the oracle

def _close(C, A, B, C0, alpha, beta, tol=None):
    from course.exercises.diagnose import close, reference
    ref, bound = (tol or reference)(A, B, C0, alpha, beta)
    return bool(close(C, ref, bound).all())


def _gemm_ok(launch, shapes, seeds=(11, 12), dtype=None, tol=None):
    """True when launch computes alpha·A·B + beta·C within the bound, with no race, on every shape and seed."""
    import numpy as np
    from kernels_numba.infra.simulator import racecheck
    for (M, N, K, alpha, beta), seed in itertools.product(shapes, seeds):
        rng = np.random.default_rng(seed)
        A = rng.standard_normal((M, K)).astype(dtype or np.float32)
        B = rng.standard_normal((K, N)).astype(dtype or np.float32)
        C0 = rng.standard_normal((M, N)).astype(np.float32) if beta else np.full((M, N), -7.5, np.float32)
        try:
            with racecheck.collect() as report:
                C = launch(A, B, C0.copy(), alpha, beta)
        except Exception:                                     # noqa: BLE001
            return False
        if report or not _close(np.asarray(C), A, B, C0, alpha, beta, tol):
            return False
    return True


GEMM8 = ((1, 1, 1, 1.0, 0.0), (8, 8, 8, 1.0, 0.0), (17, 9, 23, 0.5, 2.0), (16, 24, 40, 1.0, 0.0),
         (33, 7, 9, 1.0, 0.0), (5, 30, 57, -1.5, 0.5))


def _oracle(ex, fn, sol):
    """True when `fn` behaves as the solution `sol` does, by tests that share nothing with the checker's diagnoses."""
    import numpy as np
    from course.ch06_shared_tiling import exercises as ex06
    from course.ch07_register_blocking import exercises as ex07
    from course.ch08_double_buffering import exercises as ex08
    from course.ch09_cp_async import exercises as ex09
    from course.ch10_tensor_core import exercises as ex10
    from sim import mma, occupancy, pipeline
    i = ex.id
    if i == "06-1":
        return all(fn(p) == [q for q in range(p + 1) if ex06._wavefronts(q) == (1, 1)] or
                   sorted(set(fn(p))) == [q for q in range(p + 1) if ex06._wavefronts(q) == (1, 1)]
                   for p in (0, 1, 2, 4, 15, 16, 31, 32, 33, 40, 64, 65))
    if i == "06-2":
        return _gemm_ok(ex06._square_launch(fn, 8), GEMM8) and ex06._cooperation("06-2", fn) is None
    if i == "06-3":
        for R, C in ((5, 7), (7, 5), (1, 1), (3, 9), (8, 8)):
            X = np.arange(R * C, dtype=np.float32).reshape(R, C) + 1
            for r in range(R + 3):
                for c in range(C + 3):
                    try:
                        v = float(fn.py_func(X, r, c))
                    except Exception:                         # noqa: BLE001
                        return False
                    if v != (X[r, c] if r < R and c < C else 0.0):
                        return False
        return _gemm_ok(ex06._square_launch(ex06._tiled_with(fn), 8), GEMM8[:4])
    if i in ("07-1", "07-2", "07-3"):
        kw = {"07-1": "tile", "07-2": "load", "07-3": "micro"}[i]
        launch = ex07.regblock_with(**{kw: fn})
        shapes = ((32, 32, 8, 1.0, 0.0), (64, 32, 24, 1.0, 0.0), (40, 70, 33, 0.5, 2.0), (7, 5, 3, 1.0, 0.0))
        if not _gemm_ok(launch, shapes):
            return False
        if i == "07-2":
            for name, got, rows, cols in ex07._load_maps(fn):
                cover = np.zeros((rows, cols), int)
                for t in range(ex07.THREADS):
                    for p in range(got.shape[1]):
                        r, c = got[t, p]
                        if not (0 <= r < rows and 0 <= c < cols):
                            return False
                        cover[r, c] += 1
                if (cover != 1).any():
                    return False
                if name in ("As", "Bs") and ex07.sectors(got) > ex07.sectors(ex07._row_major(rows, cols, got.shape[1])):
                    return False
        if i == "07-3":
            reads, distinct, _ = ex07._reuse(launch)
            if reads > distinct:
                return False
        return True
    if i == "07-4":
        for t in range(1, 1025, 7):
            for r in range(1, 256, 3):
                try:
                    if fn(r, t) != occupancy.occupancy("H100", r, t).limits["registers"]:
                        return False
                except Exception:                             # noqa: BLE001
                    return False
        return True
    if i == "08-1":
        try:
            return all([tuple(x) for x in fn(n, S)] == [tuple(x) for x in sol(n, S)] for n in range(0, 13)
                       for S in range(2, 7))
        except Exception:                                     # noqa: BLE001
            return False
    if i == "08-2":
        launch = ex08._Recorder(fn)
        shapes = tuple((M, N, K, a, b) for (M, N, K, a, b) in GEMM8) + ((8, 8, 48, 1.0, 0.0),)
        return _gemm_ok(launch, shapes) and ex08._db_order(fn) is None
    if i == "08-3":
        try:
            return all(tuple(fn(L, C, N)) == (pipeline.schedule(N, L, C, 1).total, pipeline.schedule(N, L, C, 2).total)
                       for L in (1, 2, 5, 9, 30, 100) for C in (1, 3, 5, 9, 31, 100) for N in (1, 2, 3, 7, 20))
        except Exception:                                     # noqa: BLE001
            return False
    if i == "09-1":
        shapes = ((8, 8, 8, 1.0, 0.0), (8, 8, 16, 1.0, 0.0), (8, 8, 24, 1.0, 0.0), (16, 9, 56, 0.5, 2.0),
                  (9, 16, 33, 1.0, 0.0))
        return _gemm_ok(ex09._square_launch(fn), shapes) and ex09._loop_technique(fn, ex09.PIPE_K // 8) is None
    if i == "09-2":
        for kts in ((0, 1, 2), (3, 0, 4), (4, 4, 1)):
            saved = ex09.VEC_TILES
            try:
                ex09.VEC_TILES = kts
                for M, N, K in ((64, 64, 40), (32, 96, 40)):
                    if not ex09.check_vec_map(fn, M, N, K).ok:
                        return False
            finally:
                ex09.VEC_TILES = saved
        return True
    if i == "09-3":
        for rows, cols in ((1, 1), (8, 16), (9, 17), (5, 3), (16, 33), (2, 40), (11, 4), (12, 5)):
            try:
                out, want, _ = ex09._zfill_case(fn, rows, cols)
            except Exception:                                 # noqa: BLE001
                return False
            if not np.array_equal(out, want):
                return False
        return True
    if i in ("10-1", "10-2", "10-3"):
        m = {"10-1": mma.c_elements, "10-2": mma.a_elements, "10-3": mma.b_elements}[i]
        try:
            return all([tuple(x) for x in fn(lane)] == list(m(lane)) for lane in range(32))
        except Exception:                                     # noqa: BLE001
            return False
    if i == "10-4":
        want = mma.ldmatrix_for_mma()
        try:
            got = [fn(lane) for lane in range(32)]
            return all(tuple(got[l][0]) == tuple(want["A"][l]) for l in range(32)) and \
                all(tuple(got[l][1]) == tuple(want["B"][l]) for l in range(16))
        except Exception:                                     # noqa: BLE001
            return False
    if i == "10-5":
        shapes = ((16, 8, 16, 1.0, 0.0), (32, 16, 64, 1.0, 0.0), (48, 24, 32, 0.5, 2.0))
        return _gemm_ok(ex10._kloop_launch(fn, []), shapes, dtype=np.float16, tol=ex10.tc_tol)
    if i.startswith("11-"):
        return _oracle11(i, fn)
    raise KeyError(i)


def _oracle11(i, fn):
    """Notebook 11: every input the exercise allows, against the models (not the checker's diagnoses)."""
    from course.ch11_hopper import exercises as ex11
    from sim import wgmma, ws_ring
    try:
        if i == "11-1":            # every thread and register of m64n64k16
            return all(tuple(int(v) for v in fn(t, r)) == wgmma.accumulator_elements(t, 64)[r]
                       for t in range(128) for r in range(32))
        if i == "11-2":            # every BK (multiples of 16 up to 256), every 1024-byte tile start in 227 KiB, every kk
            for BK in range(16, 257, 16):
                for a in range(0, (ex11.SMEM - ex11.BOXES * BK * 128) // 1024 + 1):
                    for kk in range(BK // 16):
                        want = wgmma.make_descriptor(a * 1024 + kk * 2048, BK * 128, 1024, 128)
                        if int(fn(a * 1024, kk, BK)) != want:
                            return False
            return True
        if i == "11-3":            # stage counts 1..16 over 300 k-iterations, then the ring run with these parities
            if any(tuple(int(v) for v in fn(it, S)) != ws_ring.course_parities(it, S)
                   for S in range(1, 17) for it in range(300)):
                return False
            for S in range(2, 7):
                for eager in (True, False):
                    ws_ring.run(parities=lambda it, st: tuple(int(v) for v in fn(it, st)), stages=S, tiles=3,
                                k_tiles=2 * S + 1, eager=eager)
            return True
        if i == "11-4":            # every ring of 2..6 stages, 1..3 tiles of 1..8 k-tiles, both orders; the overlap
            overlap = False
            for S in range(2, 7):
                for tiles in (1, 2, 3):
                    for k_tiles in range(1, 9):
                        for eager in (True, False):
                            notes = ex11._Notes()
                            seen = {}

                            def step(ring, it, kt, notes=notes, seen=seen):
                                w = seen.setdefault(id(ring), ex11._Watched(ring, notes))
                                w.__dict__["_kt"] = kt
                                fn(w, it, kt)
                            ws_ring.run(consumer_step=step, stages=S, tiles=tiles, k_tiles=k_tiles, eager=eager)
                            if notes.early:
                                return False
                            overlap = overlap or notes.overlap
            return overlap
    except Exception:                                         # noqa: BLE001
        return False
    raise KeyError(i)


def equivalent(ex, source, attr=None):
    """True when the mutant in `source` behaves as the solution (the oracle above), False when it does not."""
    sol = getattr(load((ROOT / ex.solution_file).read_text(encoding="utf-8"), "sol"), ex.solution_name)
    try:
        fn = getattr(load(source), attr or ex.solution_name)
    except Exception:                                         # noqa: BLE001
        return False
    from course.exercises.probe import strict_global_indexing
    try:
        with strict_global_indexing():                        # a negative global index is out of bounds on the GPU
            return bool(_oracle(ex, fn, sol))
    except Exception:                                         # noqa: BLE001
        return False


# ------------------------------------------------------------------------------------------------ reports

EQUIV_FILE = Path(__file__).with_name("mutants_equivalent.json")


def sample(mutants, n, seed):
    """A fixed sample of n mutants (the same every run while the solution is the same), spread over the operators."""
    by_op = {}
    for m in sorted(mutants, key=lambda m: m.id):
        by_op.setdefault(m.op, []).append(m)
    rng = random.Random(seed)
    for ms in by_op.values():
        rng.shuffle(ms)
    out = []
    for ms in itertools.zip_longest(*[by_op[k] for k in sorted(by_op)]):
        out += [m for m in ms if m is not None]
    return out[:n]


@dataclass
class Figures:
    ex_id: str
    generated: int = 0
    killed: int = 0
    equivalent: int = 0
    missed: list = field(default_factory=list)
    invalid: int = 0
    false_kills: list = field(default_factory=list)
    seconds: float = 0.0
    codes: dict = field(default_factory=dict)
    equivalents: list = field(default_factory=list)
    particles: list = field(default_factory=list)        # particle mistakes found in the diagnoses' own text

    @property
    def rate(self):
        changing = self.generated - self.invalid - self.equivalent
        return self.killed / changing if changing else 1.0


def run_exercise(ex, oracle=True, check_kills=False, log=print):
    """Figures for one exercise (every mutant)."""
    fig = Figures(ex.id)
    t0 = time.time()
    if oracle and not equivalent(ex, (ROOT / ex.solution_file).read_text(encoding="utf-8")):
        raise AssertionError(f"{ex.id}: the oracle does not accept the solution itself")
    muts = generate(ex)
    fig.generated = len(muts)
    for m in muts:
        status, res = verdict(ex, m.source)
        if status == "invalid":
            fig.invalid += 1
            continue
        if status == "killed":
            fig.killed += 1
            fig.codes[res.code] = fig.codes.get(res.code, 0) + 1
            from course.exercises.diagnose import Foreign
            from sim.korean import wrong_particles
            own = "\n".join([res.message, res.where] + [d for d in res.details if not isinstance(d, Foreign)])
            for w in wrong_particles(own):
                if w not in fig.particles:
                    fig.particles.append(w)
                    log(f"  PARTICLE {ex.id} {res.code}: {w}")
            if check_kills and res.code not in ("error", "out_of_bounds", "misaligned", "divergent_barrier",
                                                 "zero_division", "input") and equivalent(ex, m.source):
                fig.false_kills.append((m, res.code))
            continue
        if oracle and equivalent(ex, m.source):
            fig.equivalent += 1
            fig.equivalents.append(m)
        else:
            fig.missed.append(m)
            log(f"  MISSED {ex.id} {m.id}: {m.desc}")
    fig.seconds = time.time() - t0
    return fig


def main(argv=None):
    from course.exercises import core
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("exercises", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--check-kills", action="store_true", help="also run the oracle on killed mutants (right answers "
                    "that a checker fails)")
    ap.add_argument("--write-equivalents", action="store_true", help=f"record the equivalent mutants in {EQUIV_FILE.name} "
                    "(keeping the reasons already written there)")
    args = ap.parse_args(argv)
    exs = [core.get(e) for e in args.exercises] if args.exercises else core.catalog()
    rows = []
    for ex in exs:
        fig = run_exercise(ex, oracle=not args.no_oracle, check_kills=args.check_kills)
        rows.append(fig)
        print(f"{ex.id}: generated {fig.generated}, invalid {fig.invalid}, killed {fig.killed}, equivalent "
              f"{fig.equivalent}, missed {len(fig.missed)}, kill rate {fig.rate:.1%}, {fig.seconds:.0f} s"
              + (f", right answers failed {len(fig.false_kills)}" if args.check_kills else ""), flush=True)
        for m in fig.equivalents:
            print(f"    equivalent {m.id}: {m.desc}")
        for m, code in fig.false_kills:
            print(f"    RIGHT ANSWER FAILED ({code}) {m.id}: {m.desc}")
    print()
    print("| 연습 | 생성 | 무효 | 잡음 | 동등 | 놓침 | 잡은 비율 | 시간 |")
    print("|---|---|---|---|---|---|---|---|")
    for f in rows:
        print(f"| {f.ex_id} | {f.generated} | {f.invalid} | {f.killed} | {f.equivalent} | {len(f.missed)} | "
              f"{f.rate:.1%} | {f.seconds:.0f} s |")
    if args.json:
        Path(args.json).write_text(json.dumps([{
            "exercise": f.ex_id, "generated": f.generated, "invalid": f.invalid, "killed": f.killed,
            "equivalent": f.equivalent, "missed": [(m.id, m.desc) for m in f.missed], "rate": f.rate,
            "codes": f.codes, "equivalents": [(m.id, m.desc) for m in f.equivalents],
            "false_kills": [(m.id, m.desc, c) for m, c in f.false_kills], "seconds": f.seconds} for f in rows],
            ensure_ascii=False, indent=1), encoding="utf-8")
    if args.write_equivalents:
        old = json.loads(EQUIV_FILE.read_text(encoding="utf-8")) if EQUIV_FILE.exists() else {}
        for f in rows:
            keep = old.get(f.ex_id, {})
            old[f.ex_id] = {m.id: keep.get(m.id, m.desc) for m in f.equivalents}
        EQUIV_FILE.write_text(json.dumps(dict(sorted(old.items())), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    bad = [f for f in rows if f.rate < 0.95 or f.false_kills]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
