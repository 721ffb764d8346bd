"""Checkers for code questions: validate the blanks with `ast`, then run the completed kernel and compare."""
import ast
import warnings
import contextlib
import inspect
import linecache
import textwrap

import numpy as np
from sim.korean import josa
from kernels_numba import tiled
from kernels_numba.infra import device
from kernels_numba.infra.simulator import racecheck
from numba import cuda, float32
from kernels_numba.common import load_or_zero, thread_coords
from numba import cuda
from course.exercises.diagnose import k_tile_counts
from kernels_numba import regblock

TILE = 16
MAX_BLANK_CHARS = 60
_ALLOWED_NODES = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp,
                  ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.UAdd, ast.USub, ast.Subscript)
# names that exist in the kernel at the cooperative-load line (see kernels_numba/tiled.py)
LOAD_NAMES = ("tx", "ty", "row", "col", "t", "a_col", "M", "N", "K", "TILE_SIZE", "A", "B", "As", "Bs")

LOAD_LINE = "As[ty, tx] = A[row, a_col]"


def kernel_template():
    """Source of the taught kernel (kernels_numba/tiled.py) with its A-tile load turned into 4 format blanks."""
    src = textwrap.dedent(inspect.getsource(tiled.kernel.py_func))
    src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("@"))
    assert src.count(LOAD_LINE) == 1, "tiled.py changed: update LOAD_LINE"
    return src.replace("{", "{{").replace("}", "}}").replace(LOAD_LINE, "As[{0}, {1}] = A[{2}, {3}]")


def validate_blank(src, names=LOAD_NAMES):
    """Return an error message (Korean) if `src` is not a plain index expression, else None."""
    src = (src or "").strip()
    if not src:
        return "비어 있습니다"
    if len(src) > MAX_BLANK_CHARS:
        return f"너무 깁니다 ({MAX_BLANK_CHARS}자 이하)"
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        return f"파이썬 식(expression)이 아닙니다: {src!r}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) or not isinstance(node, _ALLOWED_NODES):
            return (f"{src!r} 에 허용되지 않는 요소({type(node).__name__})가 있습니다. "
                    "변수 이름·정수·산술(+ - * // %)·인덱싱만 쓸 수 있습니다")
        if isinstance(node, ast.Constant) and (type(node.value) is not int or abs(node.value) > 10**6):
            return f"{src!r}: 상수는 정수만 쓸 수 있습니다"
        if isinstance(node, ast.Name) and node.id not in names:
            return f"{src!r}: 이 위치의 커널에 없는 이름 {node.id!r} (쓸 수 있는 이름: {', '.join(names)})"
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Name, ast.Constant, ast.BinOp,
                                                                          ast.UnaryOp, ast.Subscript)):
            return f"{src!r}: 인덱스에는 단일 식만 쓸 수 있습니다"
    return None


def _compile_blanks(blanks, count):
    """(code objects, None) or (None, '코드 오류: ...') for exactly `count` validated blanks."""
    if not isinstance(blanks, (list, tuple)) or len(blanks) != count:
        return None, f"코드 오류: 빈칸 {count}개를 모두 채워야 합니다"
    codes = []
    for i, b in enumerate(blanks, 1):
        err = validate_blank(b if isinstance(b, str) else "")
        if err:
            return None, f"코드 오류 (빈칸 {i}): {err}"
        codes.append(compile(b.strip(), f"<빈칸 {i}>", "eval"))
    return codes, None


def _precheck_load(codes, A, B):
    """Evaluate the load indices for every thread like the kernel would; message if one is out of range."""
    M, K = A.shape
    N = B.shape[1]
    As = np.zeros((TILE, TILE), np.float32)
    env = {"__builtins__": {}}
    for by in range((M + TILE - 1) // TILE):
        for bx in range((N + TILE - 1) // TILE):
            for ty in range(TILE):
                for tx in range(TILE):
                    row, col = by * TILE + ty, bx * TILE + tx
                    for t in range((K + TILE - 1) // TILE):
                        a_col = t * TILE + tx
                        if not (row < M and a_col < K):
                            continue
                        ns = dict(tx=tx, ty=ty, row=row, col=col, t=t, a_col=a_col, M=M, N=N, K=K,
                                  TILE_SIZE=TILE, A=A, B=B, As=As, Bs=As)
                        try:
                            idx = [eval(c, env, ns) for c in codes]
                        except Exception as e:      # e.g. IndexError, ZeroDivisionError inside a blank
                            return f"실행 오류: {type(e).__name__}: {e} (tx={tx}, ty={ty}, t={t})"
                        for name, pair, shape in (("As", idx[:2], As.shape), ("A", idx[2:], A.shape)):
                            for v, n in zip(pair, shape):
                                if not isinstance(v, (int, np.integer)):
                                    return f"실행 오류: {name} 의 인덱스가 정수가 아닙니다 ({type(v).__name__})"
                                if not 0 <= v < n:
                                    return (f"실행 오류: 인덱스 범위 초과 (IndexError) — {name}[{pair[0]}, {pair[1]}], "
                                            f"{name} 의 모양은 {shape} (스레드 tx={tx}, ty={ty}, 블록 ({bx}, {by}), t={t})")
    return None


def _races():
    """The simulator's race detector in collect mode (the kernel runs to its end; hazards are listed), or nothing."""
    if not device.SIMULATOR:
        return contextlib.nullcontext(None)
    return racecheck.collect()


def _register_source(name, src):
    """Let tracebacks and race reports show the lines of code compiled from a string."""
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)


# what a race means where the student fills only index blanks and the template already has every barrier it needs
BLANKS_ONLY_FIX = ("배리어는 템플릿에 이미 제자리에 있으니 배리어로 고칠 문제가 아닙니다: 빈칸의 인덱스 때문에 서로 다른 스레드가 "
                   "같은 원소를 건드리는 것이 원인입니다.")


def _race_note(report, where="", fix=None):
    """' 공유 메모리 경쟁: …' naming the first hazard the detector found, or ''. `where`: the file whose line numbers the
    kernel source keeps (see _as_in_file), named before them. `fix`: what to do instead of the detector's own advice
    (for questions whose blanks cannot add a barrier)."""
    races = report.races if report else []
    if not races:
        return ""
    h = races[0]
    el = f"{h.array}{list(h.index)}" if h.index is not None else h.array
    a, b = _line_no(h.first_site), _line_no(h.second_site)
    lines = f"{a}행에서 서로 다른 두 스레드가" if a == b else f"{a}행과 {b}행에서 서로 다른 스레드가"
    return (f" 시뮬레이터의 경쟁 검출기도 {h.kind} 경쟁을 찾았습니다: {josa(el, '을/를')} {where + ' 의 ' if where else ''}"
            f"{lines} 건드립니다 — {fix or h.fix_ko}")


def _as_in_file(src, func):
    """`src` (a kernel's source without its decorator lines, as kernel_template makes it) moved down to the lines it
    has in its file, so a race report's line numbers are those of the file the notebook lists (tiled.py, regblock.py)."""
    lines, start = inspect.getsourcelines(func)
    decorators = next(i for i, ln in enumerate(lines) if not ln.lstrip().startswith("@"))
    return "\n" * (start + decorators - 1) + src


def _line_no(site):
    """The kernel's own line of a hazard's access (a course helper's access: the line that called it)."""
    if not site:
        return "?"
    return site[3] if len(site) > 2 else site[1]


def tiled_load_blanks(blanks):
    """Run the 16x16 tiled kernel with the 4 blanks filled in on a 20x18x21 problem; (ok, message)."""
    import kernels_numba  # noqa: F401  (chooses GPU or simulator before numba is imported)

    codes, err = _compile_blanks(blanks, 4)
    if err:
        return False, err
    M, N, K = 20, 18, 21
    rng = np.random.default_rng()
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    err = _precheck_load(codes, A, B)
    if err:
        return False, err
    ns = {"cuda": cuda, "float32": float32, "TILE_SIZE": TILE}
    src = _as_in_file(kernel_template().format(*(b.strip() for b in blanks)), tiled.kernel.py_func)
    try:
        with warnings.catch_warnings(), _races() as report:
            warnings.simplefilter("ignore")     # NumbaPerformanceWarning (grid of 4) would leak into the cell
            _register_source("<퀴즈 06 문제 4 커널>", src)
            exec(compile(src, "<퀴즈 06 문제 4 커널>", "exec"), ns)
            kernel = cuda.jit(ns["kernel"])
            dA, dB = cuda.to_device(A), cuda.to_device(B)
            dC = cuda.to_device(np.full((M, N), np.nan, np.float32))
            kernel[((N + TILE - 1) // TILE, (M + TILE - 1) // TILE), (TILE, TILE)](
                dA, dB, dC, np.float32(1.0), np.float32(0.0))
            C = dC.copy_to_host()
    except Exception as e:
        return False, f"실행 오류: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    ref = A.astype(np.float64) @ B.astype(np.float64)
    if np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4):
        return True, f"커널을 실행해 보니 C = A @ B 와 일치합니다 (M, N, K = {M}, {N}, {K})."
    bad = ~(np.isfinite(C) & np.isclose(C, ref, rtol=1e-4, atol=1e-4))
    return False, (f"커널은 실행되었지만 결과가 A @ B 와 다릅니다: {int(bad.sum())}/{C.size}개 원소가 틀림 "
                   f"(M, N, K = {M}, {N}, {K}, 16의 배수가 아님)." + _tiled_load_note(codes, A, B)
                   + _race_note(report, "kernels_numba/tiled.py", BLANKS_ONLY_FIX))


def _tiled_stores(codes, A, B):
    """{(bx, by, t): {(i, j): [(tx, ty, A index or None)]}}: who stores what into As[i, j] in the cooperative load —
    the blank line for the threads inside A (A index = the value it copies), the else line's 0 (None) for the rest."""
    M, K = A.shape
    N = B.shape[1]
    env, tiles = {"__builtins__": {}}, {}
    for by in range((M + TILE - 1) // TILE):
        for bx in range((N + TILE - 1) // TILE):
            for t in range((K + TILE - 1) // TILE):
                cells = tiles.setdefault((bx, by, t), {})
                for ty in range(TILE):
                    for tx in range(TILE):
                        row, col, a_col = by * TILE + ty, bx * TILE + tx, t * TILE + tx
                        if row < M and a_col < K:
                            ns = dict(tx=tx, ty=ty, row=row, col=col, t=t, a_col=a_col, M=M, N=N, K=K,
                                      TILE_SIZE=TILE, A=A, B=B, As=A, Bs=B)
                            i, j, r, c = (int(eval(code, env, ns)) for code in codes)   # _precheck_load ran them
                            cells.setdefault((i, j), []).append((tx, ty, (r, c)))
                        else:
                            cells.setdefault((ty, tx), []).append((tx, ty, None))
    return tiles


def _tiled_load_note(codes, A, B):
    """Why the filled-in load leaves a wrong A tile: a transposed As index, the first As element that must hold an A
    value and does not (what it gets instead, from which thread and line), and two threads storing one element."""
    M, K = A.shape
    lines, start = inspect.getsourcelines(tiled.kernel.py_func)
    blank_line, else_line = (start + next(n for n, ln in enumerate(lines) if ln.strip() == code)
                             for code in (LOAD_LINE, "As[ty, tx] = float32(0.0)"))
    tiles = _tiled_stores(codes, A, B)

    def who(tx, ty, src):
        line = f"빈칸 줄({blank_line}행)" if src is not None else f"else 줄({else_line}행)"
        return f"스레드 (tx={tx}, ty={ty})의 {line}"

    def value(src):
        return "0" if src is None else f"A[{src[0]}, {src[1]}]"

    notes, first = [], None
    mine = [(tx, ty, i, j) for cells in tiles.values() for (i, j), ws in cells.items() for tx, ty, src in ws
            if src is not None]
    if mine and all((i, j) == (tx, ty) for tx, ty, i, j in mine) and any(tx != ty for tx, ty, _, _ in mine):
        notes.append("빈칸의 As 인덱스가 전치되어 있습니다: 스레드 (tx, ty)가 As[tx, ty]에 씁니다. 그런데 내적 루프는 "
                     "As[ty, k]를 C의 행 row로 읽고, 행렬 A 밖의 원소를 맡은 스레드의 else 줄은 자기 자리 As[ty, tx]에 0을 씁니다.")
    for (bx, by, t), cells in tiles.items():
        bad = None
        for i in range(min(TILE, M - by * TILE)):
            for j in range(min(TILE, K - t * TILE)):
                need = (by * TILE + i, t * TILE + j)
                ws = cells.get((i, j), [])
                if not ws:
                    bad = f"As[{i}, {j}]에는 {josa(value(need), '이/가')} 있어야 하는데 아무 스레드도 채우지 않습니다"
                elif any(src != need for _, _, src in ws):
                    tx, ty, src = next(w for w in ws if w[2] != need)
                    bad = (f"As[{i}, {j}]에는 {josa(value(need), '이/가')} 있어야 하는데 {who(tx, ty, src)}이 "
                           f"{josa(value(src), '을/를')} 넣습니다")
                if bad:
                    break
            if bad:
                break
        if bad:
            notes.append(f"예: 블록 ({bx}, {by})의 타일 t = {t}에서 {bad}.")
            first = (bx, by, t)
            break
    for (bx, by, t), cells in tiles.items():
        two = next(((ij, ws) for ij, ws in sorted(cells.items()) if len(ws) > 1), None)
        if two:
            (i, j), ws = two
            a, b = ws[:2]
            where = "이 타일에서는" if first == (bx, by, t) else f"블록 ({bx}, {by})의 타일 t = {t}에서는"
            notes.append(f"{where} {who(*a)}과 {who(*b)}이 같은 원소 As[{i}, {j}]에 "
                         "씁니다(쓰기-쓰기 경쟁, WAW): 그만큼 아무도 채우지 않는 원소가 생깁니다.")
            break
    return "".join(" " + n for n in notes)


# ---- quiz 08, question 7: write the epilogue of the register-prefetch kernel (free code, run on the device) ----
T8 = 8
MAX_CODE_CHARS = 2000
MAX_CODE_LINES = 30
# notebook 08's exercise 08-2 kernel (answers/ch08/ex08_db8.py) up to its main loop, the loop in `db`'s order (the next
# tile stored straight into the other buffer, then this tile computed): not 08-2's register-prefetch loop, which the
# notebook ships unsolved (tests/ch08/test_quiz08.py checks 08-2 does not pass with it). The student writes the rest.
EPILOGUE_TEMPLATE = """\
@cuda.jit
def quiz_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)      # [버퍼][행][k]
    Bs = cuda.shared.array((2, T8, T8), float32)      # [버퍼][k][열]
    tx, ty, row, col = thread_coords(T8)              # 스레드 (tx, ty) 는 C[row, col] 하나를 맡는다
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)          # 프롤로그: 타일 0 → 버퍼 0
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):                     # 메인 루프 (db 의 순서): 타일 kt+1 을 다른 버퍼에, 타일 kt 계산
        As[(kt + 1) % 2, ty, tx] = load_or_zero(A, row, (kt + 1) * T8 + tx)
        Bs[(kt + 1) % 2, ty, tx] = load_or_zero(B, (kt + 1) * T8 + ty, col)
        acc += tile_dot(As, Bs, kt % 2, ty, tx)
        cuda.syncthreads()
    ___
"""
EPILOGUE_STARTER = "# 에필로그: (1) 아직 계산하지 않은 마지막 타일  (2) C = alpha·acc + beta·C 저장\n"
# M, N, K, alpha, beta: K tiles 4, 3, 1 and 2 (K a multiple of 8); no size a multiple of 8 except the last K
# beta = 0 once with alpha != 1 (review r18 W-3: an epilogue that writes C = acc when beta == 0 forgot alpha); beta < 0
# once (review r19 I-4: a beta term that depends on beta's sign)
EPILOGUE_CASES = ((20, 11, 29, 1.0, 0.0), (9, 17, 24, 0.5, 2.0), (6, 5, 7, -2.0, 0.0), (10, 12, 16, -1.5, -0.5))
_PAD = 8                       # C is a view into a larger array: a store outside C lands in this margin on a GPU
_MARGIN = np.float32(1234.5)
_NO_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
             ast.Global, ast.Nonlocal, ast.With, ast.Try, ast.Raise, ast.Delete, ast.While, ast.Await, ast.Yield,
             ast.YieldFrom, ast.Starred, ast.JoinedStr, ast.Pow)
_NO_NAMES = {"exec", "eval", "open", "compile", "globals", "locals", "vars", "getattr", "setattr", "delattr",
             "input", "breakpoint", "help", "exit", "quit", "memoryview", "type", "object", "super", "store_c"}
_ATTRS = {"shape", "syncthreads"}
# what the student typed, for a refused node (the AST class names While, Pow, ... are no words of theirs), and why
_NODE_WORDS = {"Import": "import 문", "ImportFrom": "import 문", "FunctionDef": "함수 정의(def)",
               "AsyncFunctionDef": "함수 정의(def)", "ClassDef": "클래스 정의(class)", "Lambda": "lambda 식",
               "Global": "global 문", "Nonlocal": "nonlocal 문", "With": "with 문", "Try": "try 문", "Raise": "raise 문",
               "Delete": "del 문", "While": "while 문", "Await": "await 식", "Yield": "yield 식", "YieldFrom": "yield 식",
               "Starred": "별표 풀기(*x)", "JoinedStr": "f-문자열", "Pow": "거듭제곱(**)"}
_NODE_WHY = {"While": "채점이 끝나지 않을 수 있는 루프는 막습니다. 에필로그에는 루프가 필요 없습니다",
             "Pow": "채점이 끝나지 않을 수 있는 큰 수 계산은 막습니다. 곱셈으로 쓰세요"}


def validate_code(src):
    """Return an error message (Korean) if the epilogue `src` is not plain kernel code, else None."""
    src = textwrap.dedent(src or "")
    if not src.strip() or all(not s.strip() or s.lstrip().startswith("#") for s in src.splitlines()):
        return "코드가 없습니다"
    if len(src) > MAX_CODE_CHARS or sum(bool(s.strip()) for s in src.splitlines()) > MAX_CODE_LINES:
        return f"너무 깁니다 ({MAX_CODE_LINES}줄, {MAX_CODE_CHARS}자 이하)"
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        return f"파이썬 문법 오류 ({e.lineno}행): {e.msg}"
    for node in ast.walk(tree):
        if isinstance(node, _NO_NODES):
            kind = type(node).__name__
            return (f"이 문제에서는 {josa(_NODE_WORDS.get(kind, kind), '을/를')} 쓸 수 없습니다 "
                    f"({_NODE_WHY.get(kind, '커널 안의 문장·식만 씁니다')})")
        if isinstance(node, ast.Return) and node.value is not None:     # a bare return ends the thread, as in a kernel
            return "커널은 값을 돌려주지 않습니다: return 뒤에 값을 쓸 수 없습니다 (스레드를 끝내려면 return 만)"
        if isinstance(node, ast.Name) and (node.id.startswith("_") or node.id in _NO_NAMES):
            hint = " — 결과 저장은 직접 쓰세요" if node.id == "store_c" else ""
            return f"이름 {josa(repr(node.id), '은/는')} 쓸 수 없습니다{hint}"
        if isinstance(node, ast.Attribute) and node.attr not in _ATTRS:
            return f"속성 {josa('.' + node.attr, '은/는')} 쓸 수 없습니다 (쓸 수 있는 것: .shape, cuda.syncthreads())"
        if isinstance(node, ast.Constant) and not (node.value is None or type(node.value) in (bool, float) or
                                                   (type(node.value) is int and abs(node.value) <= 1024)):
            return f"상수 {josa(repr(node.value), '은/는')} 쓸 수 없습니다 (숫자만, 정수는 1024 이하)"
    return None


def epilogue_source(code):
    """The quiz kernel's source with the student's epilogue in place of ___ (indented like the loop)."""
    body = textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")
    return EPILOGUE_TEMPLATE.replace("    ___\n", body + "\n")


def _epilogue_kernel(code):
    """(compiled kernel, None) or (None, message)."""

    @cuda.jit(device=True)
    def tile_dot(As, Bs, buf, ty, tx):
        s = float32(0.0)
        for k in range(T8):
            s += As[buf, ty, k] * Bs[buf, k, tx]
        return s

    ns = {"cuda": cuda, "float32": float32, "T8": T8, "tile_dot": tile_dot, "load_or_zero": load_or_zero,
          "thread_coords": thread_coords}
    src = epilogue_source(code)
    _register_source("<퀴즈 08 문제 7 커널>", src)
    exec(compile(src, "<퀴즈 08 문제 7 커널>", "exec"), ns)
    return cuda.jit(ns["quiz_db8"])


def _run_epilogue_case(kernel, M, N, K, alpha, beta, rng, C0=None):
    """Run once; (A, B, C0, C, margin_ok, report). C is an M×N view into an array with a margin of _PAD."""
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    if C0 is None:
        C0 = np.full((M, N), np.nan, np.float32) if beta == 0 else rng.standard_normal((M, N)).astype(np.float32)
    big = np.full((M + _PAD, N + _PAD), _MARGIN, np.float32)
    big[:M, :N] = C0
    dbig = cuda.to_device(big)
    grid = ((N + T8 - 1) // T8, (M + T8 - 1) // T8)
    with warnings.catch_warnings(), _races() as report:
        warnings.simplefilter("ignore")     # NumbaPerformanceWarning (small grid) would leak into the cell
        kernel[grid, (T8, T8)](cuda.to_device(A), cuda.to_device(B), dbig[:M, :N], np.float32(alpha), np.float32(beta))
    out = dbig.copy_to_host()
    margin = out.copy()
    margin[:M, :N] = _MARGIN
    return A, B, C0, out[:M, :N], bool((margin == _MARGIN).all()), report


def _epilogue_wrong(A, B, C0, C, alpha, beta):
    """Why C is not alpha·A@B + beta·C0 (Korean), from what C holds."""
    acc = A.astype(np.float64) @ B.astype(np.float64)
    c0 = C0.astype(np.float64)
    near = lambda X: np.isfinite(C).all() and np.allclose(C, X, rtol=1e-4, atol=1e-4)   # noqa: E731
    if np.array_equal(C, C0, equal_nan=True):
        return "C 가 그대로입니다: 결과를 C 에 쓰지 않았습니다."
    if beta != 0 and near(alpha * acc):
        return "beta·C 를 더하지 않았습니다: beta ≠ 0 이면 C = alpha·acc + beta·C 입니다 (C 를 읽어야 함)."
    if beta not in (0, 1) and near(alpha * acc + c0):
        return "beta 를 곱하지 않았습니다: C = alpha·acc + beta·C 입니다 (C 에 beta 를 곱해 더함)."
    if near(acc + (beta * c0 if beta != 0 else 0)) and alpha != 1:
        return "alpha 를 곱하지 않았습니다: C = alpha·acc + beta·C 입니다."
    counts = k_tile_counts(C, A, B, C0 if beta else np.zeros_like(C0), alpha, beta, T8)   # C0 unread when beta = 0
    n = -(-A.shape[1] // T8)
    if counts is not None and counts[-1] == 0:
        if n >= 2 and counts[-2] == 2:
            return (f"마지막 타일 대신 그 앞 타일이 든 버퍼를 한 번 더 계산했습니다: 타일 t 는 버퍼 t % 2 에 있고, 마지막 "
                    f"타일의 번호는 n_tiles − 1 입니다 (K 타일별 횟수 {counts}).")
        return (f"마지막 K 타일이 더해지지 않았습니다: 루프는 n_tiles − 1 번 돌며 타일 0 … n_tiles − 2 만 계산합니다 "
                f"(K 타일별 횟수 {counts}).")
    if counts is not None:
        return f"K 타일이 정확히 한 번씩 더해지지 않았습니다 (K 타일별 횟수 {counts})."
    return "값이 alpha·(A @ B) + beta·C 와 다릅니다."


def epilogue_code(blanks):
    """Quiz 08 q7: run quiz_db8 with the student's epilogue (one text) on the device; (ok, message)."""
    import kernels_numba  # noqa: F401  (chooses GPU or simulator before numba is imported)
    code = blanks[0] if isinstance(blanks, (list, tuple)) and len(blanks) == 1 else None
    if not isinstance(code, str):
        return False, "코드 오류: 에필로그 코드를 한 칸에 쓰세요"
    err = validate_code(code)
    if err:
        return False, f"코드 오류: {err}"
    try:
        kernel = _epilogue_kernel(code)
    except Exception as e:
        return False, f"코드 오류: {type(e).__name__}: {e}"
    rng = np.random.default_rng()
    for M, N, K, alpha, beta in EPILOGUE_CASES:
        where = (f"M, N, K = {M}, {N}, {K} (K 타일 {-(-K // T8)}개), alpha = {alpha:g}, beta = {beta:g}")
        try:
            A, B, C0, C, margin_ok, report = _run_epilogue_case(kernel, M, N, K, alpha, beta, rng)
        except Exception as e:
            text = str(e).splitlines()[0] if str(e) else ""
            if isinstance(e, IndexError) or "out of bounds" in text:
                return False, (f"행렬 밖의 C[row, col] 에 씁니다 ({where}): 블록이 C 의 가장자리를 넘을 때 "
                               f"row < M, col < N 인 스레드만 저장해야 합니다. ({type(e).__name__}: {text})")
            if isinstance(e, NameError) and getattr(e, "name", None) == "kt" or "'kt'" in text:
                return False, (f"실행 오류 ({where}): K 타일이 1개면 메인 루프가 한 번도 돌지 않아 루프 변수 kt 가 "
                               "없습니다 (루프가 돈 경우에도 kt 는 마지막 반복의 값일 뿐입니다): 에필로그의 버퍼는 "
                               f"kt 가 아니라 n_tiles 로 정하세요. ({type(e).__name__}: {text})")
            return False, f"실행 오류 ({where}): {type(e).__name__}: {text}"
        if not margin_ok:
            return False, (f"행렬 밖(C 의 오른쪽·아래 여백)에 썼습니다 ({where}): row < M, col < N 인 스레드만 "
                           "저장해야 합니다.")
        ref = alpha * (A.astype(np.float64) @ B.astype(np.float64)) + (beta * C0.astype(np.float64) if beta else 0)
        if np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4):
            continue
        if beta == 0 and not np.isfinite(C).all():
            zeros = np.zeros((M, N), np.float32)      # the same kernel on a C that holds zeros instead of NaN
            A2, B2, _, C2, _, _ = _run_epilogue_case(kernel, M, N, K, alpha, beta, np.random.default_rng(1), C0=zeros)
            if np.array_equal(C2, zeros):
                return False, f"결과가 틀립니다 ({where}): C 가 그대로입니다: 결과를 C 에 쓰지 않았습니다."
            if np.isfinite(C2).all() and np.allclose(C2, alpha * (A2.astype(np.float64) @ B2), rtol=1e-4, atol=1e-4):
                return False, (f"beta = 0 인데 C 를 읽었습니다 ({where}): 이때 C 는 출력 전용이라 무엇이 들어 있을지 "
                               "모릅니다(여기서는 NaN). beta == 0 이면 C = alpha·acc 만 쓰세요 (BLAS 규약).")
            if not np.isfinite(C2).all():
                return False, (f"NaN 이 나왔습니다 ({where}): 아무도 채우지 않은 버퍼를 읽었습니다. 마지막 타일은 "
                               "버퍼 (n_tiles − 1) % 2 에 있습니다 (K 타일이 1개면 프롤로그가 채운 버퍼 0)."
                               + _race_note(report))
        return False, f"결과가 틀립니다 ({where}): " + _epilogue_wrong(A, B, C0, C, alpha, beta) + _race_note(report)
    return True, (f"에필로그를 넣은 커널을 실행해 보니 {len(EPILOGUE_CASES)}가지 모양(K 타일 4·3·1·2개, 8의 배수가 "
                  "아닌 M·N, beta = 0 일 때 NaN 으로 채운 C, beta ≠ 0) 모두에서 C = alpha·(A @ B) + beta·C 와 일치하고, "
                  "행렬 밖에는 쓰지 않았습니다.")


# ---- quiz 07, question 4: the cooperative A-tile load of the register-blocked kernel (kernels_numba/regblock.py) ----
# names that exist in regblock's kernel where a_row / a_col / the load loop are computed
REGBLOCK_NAMES = ("tid", "tx", "ty", "BM", "BN", "BK", "TM", "TN", "THREADS", "A_TILE_ROW_STRIDE", "B_TILE_ROW_STRIDE")
# the three source fragments of regblock.py that become the blanks (in this order)
REGBLOCK_BLANKS = ("a_row = tid // BK", "a_col = tid % BK", "for off in range(0, BM, A_TILE_ROW_STRIDE):")
REGBLOCK_FILLED = ("a_row = {0}", "a_col = {1}", "for off in range(0, BM, {2}):")
REGBLOCK_PROBLEM = (130, 70, 21)     # M, N, K: no multiple of 128 or 8, two block rows


def regblock_kernel_template():
    """Source of kernels_numba/regblock.py's kernel with a_row, a_col and the A-load stride turned into format blanks."""
    src = textwrap.dedent(inspect.getsource(regblock.kernel.py_func))
    src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("@"))
    src = src.replace("{", "{{").replace("}", "}}")
    for frag, filled in zip(REGBLOCK_BLANKS, REGBLOCK_FILLED):
        assert src.count(frag) == 1, f"regblock.py changed: update REGBLOCK_BLANKS ({frag!r})"
        src = src.replace(frag, filled)
    return src


def _regblock_consts():
    return {n: getattr(regblock, n) for n in REGBLOCK_NAMES if n.isupper()}


def regblock_load_coverage(blanks):
    """Evaluate the 3 blanks for every thread like the kernel does; (counts {(row, col): writes}, None) or (None, message)."""
    codes = []
    if not isinstance(blanks, (list, tuple)) or len(blanks) != 3:
        return None, "코드 오류: 빈칸 3개를 모두 채워야 합니다"
    for i, b in enumerate(blanks, 1):
        err = validate_blank(b if isinstance(b, str) else "", REGBLOCK_NAMES)
        if err:
            return None, f"코드 오류 (빈칸 {i}): {err}"
        codes.append(compile(b.strip(), f"<빈칸 {i}>", "eval"))
    c = _regblock_consts()
    bx = c["BN"] // c["TN"]
    env, counts = {"__builtins__": {}}, {}
    for tid in range(c["THREADS"]):
        ns = dict(c, tid=tid, tx=tid % bx, ty=tid // bx)
        try:
            a_row, a_col, step = (eval(code, env, ns) for code in codes)
        except Exception as e:          # e.g. ZeroDivisionError inside a blank
            return None, f"실행 오류: {type(e).__name__}: {e} (tid={tid})"
        for name, v in (("a_row", a_row), ("a_col", a_col), ("range 의 간격", step)):
            if not isinstance(v, (int, np.integer)):
                return None, f"실행 오류: {josa(name, '이/가')} 정수가 아닙니다 ({type(v).__name__}, tid={tid})"
        if step <= 0:
            return None, f"실행 오류: range(0, BM, {step}) 의 간격은 양수여야 합니다 (tid={tid})"
        for off in range(0, c["BM"], step):
            r = a_row + off
            if not (0 <= r < c["BM"] and 0 <= a_col < c["BK"]):
                return None, (f"실행 오류: 인덱스 범위 초과 (IndexError) — As[{r}, {a_col}], As 의 모양은 "
                              f"({c['BM']}, {c['BK']}) (tid={tid}, off={off})")
            counts[(r, a_col)] = counts.get((r, a_col), 0) + 1
    return counts, None


def regblock_load_blanks(blanks):
    """Fill a_row / a_col / the A-load stride of regblock's kernel, check the tile is covered once, run it; (ok, message)."""
    import kernels_numba  # noqa: F401  (chooses GPU or simulator before numba is imported)
    counts, err = regblock_load_coverage(blanks)
    if err:
        return False, err
    c = _regblock_consts()
    missing = [(r, k) for r in range(c["BM"]) for k in range(c["BK"]) if (r, k) not in counts]
    twice = sorted(rk for rk, n in counts.items() if n > 1)
    if missing or twice:
        parts = []
        if missing:
            parts.append(f"아무도 채우지 않는 As 원소 {len(missing)}개 (예: As{list(missing[0])})")
        if twice:
            parts.append(f"두 번 이상 채우는 원소 {len(twice)}개 (예: As{list(twice[0])})")
        return False, ("타일을 정확히 한 번씩 채우지 않습니다: " + ", ".join(parts) +
                       f". 스레드 {c['THREADS']}개가 As ({c['BM']}×{c['BK']}) 의 원소를 하나씩 나눠 맡아야 합니다.")
    M, N, K = REGBLOCK_PROBLEM
    rng = np.random.default_rng()
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    ns = {k: v for k, v in vars(regblock).items() if not k.startswith("__") and k not in ("kernel", "launch")}
    src = _as_in_file(regblock_kernel_template().format(*(b.strip() for b in blanks)), regblock.kernel.py_func)
    try:
        with warnings.catch_warnings(), _races() as report:
            warnings.simplefilter("ignore")     # NumbaPerformanceWarning (small grid) would leak into the cell
            _register_source("<퀴즈 07 문제 4 커널>", src)
            exec(compile(src, "<퀴즈 07 문제 4 커널>", "exec"), ns)
            kernel = cuda.jit(ns["kernel"])
            dA, dB = cuda.to_device(A), cuda.to_device(B)
            dC = cuda.to_device(np.full((M, N), np.nan, np.float32))
            grid = ((N + c["BN"] - 1) // c["BN"], (M + c["BM"] - 1) // c["BM"])
            kernel[grid, regblock.BLOCK](dA, dB, dC, np.float32(1.0), np.float32(0.0))
            C = dC.copy_to_host()
    except Exception as e:
        return False, f"실행 오류: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    ref = A.astype(np.float64) @ B.astype(np.float64)
    if np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4):
        return True, (f"As 의 {c['BM'] * c['BK']}개 원소를 정확히 한 번씩 채우고, 커널을 실행해 보니 C = A @ B 와 "
                      f"일치합니다 (M, N, K = {M}, {N}, {K}).")
    bad = ~(np.isfinite(C) & np.isclose(C, ref, rtol=1e-4, atol=1e-4))
    return False, (f"타일은 한 번씩 채우지만 결과가 A @ B 와 다릅니다: {int(bad.sum())}/{C.size}개 원소가 틀림 "
                   f"(M, N, K = {M}, {N}, {K}). 행·열을 바꿔 쓰지 않았는지 보세요."
                   + _race_note(report, "kernels_numba/regblock.py", BLANKS_ONLY_FIX))
