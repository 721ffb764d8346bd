"""Checkers for code questions: validate the blanks with `ast`, then run the completed kernel and compare."""
import ast
import warnings

import numpy as np

TILE = 16
MAX_BLANK_CHARS = 60
_ALLOWED_NODES = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp,
                  ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.UAdd, ast.USub, ast.Subscript)
# names that exist in the kernel at the cooperative-load line (see kernels_numba/tiled.py)
LOAD_NAMES = ("tx", "ty", "row", "col", "t", "a_col", "M", "N", "K", "TILE_SIZE", "A", "B", "As", "Bs")

LOAD_LINE = "As[ty, tx] = A[row, a_col]"


def kernel_template():
    """Source of the taught kernel (kernels_numba/tiled.py) with its A-tile load turned into 4 format blanks."""
    import inspect
    import textwrap
    from kernels_numba import tiled
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
    import contextlib
    from kernels_numba.infra import device
    if not device.SIMULATOR:
        return contextlib.nullcontext(None)
    from kernels_numba.infra.simulator import racecheck
    return racecheck.collect()


def _register_source(name, src):
    """Let tracebacks and race reports show the lines of code compiled from a string."""
    import linecache
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)


def _race_note(report):
    """' 공유 메모리 경쟁: …' naming the first hazard the detector found, or ''."""
    if not report:
        return ""
    h = report.hazards[0]
    return (f" 시뮬레이터의 경쟁 검출기도 {h.kind} 경쟁을 찾았습니다: {h.array}{list(h.index)} 를 "
            f"{h.first_site[1]}행과 {h.second_site[1]}행에서 서로 다른 스레드가 건드립니다 — {h.fix_ko}")


def tiled_load_blanks(blanks):
    """Run the 16x16 tiled kernel with the 4 blanks filled in on a 20x18x21 problem; (ok, message)."""
    import kernels_numba  # noqa: F401  (chooses GPU or simulator before numba is imported)
    from numba import cuda, float32

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
    src = kernel_template().format(*(b.strip() for b in blanks))
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
                   f"(M, N, K = {M}, {N}, {K}, 16의 배수가 아님)." + _race_note(report))


# ---- quiz 08, question 7: the epilogue of a double-buffered K loop (pure numpy model, no kernel) ----
EPILOGUE_BK = 8
EPILOGUE_NAMES = ("K", "BK", "M", "N", "full", "rem", "kt")
EPILOGUE_TEMPLATE = """\
full = K // BK                         # 완전한 타일 수: 메인 루프는 k 경계 검사가 필요 없다
rem = ___                              # 남는 열의 수 (0 .. BK-1)
if full > 0:                           # 프롤로그: 첫 타일
    load(0, 0, BK)
elif rem > 0:
    load(0, 0, rem)
sync()
for kt in range(full):                 # 메인 루프: 완전한 타일만
    if kt + 1 < full:
        load((kt + 1) % 2, (kt + 1) * BK, BK)    # 다음 완전한 타일을 미리 읽기
    elif rem > 0:
        load((kt + 1) % 2, ___, rem)              # 마지막 반복: 남은 열을 미리 읽기
    compute(kt % 2, BK)
    sync()
if rem > 0:                            # 에필로그: 남은 rem 열
    compute(___, rem)
"""
EPILOGUE_CASES = ((3, 4, 1), (3, 4, 5), (3, 4, 8), (3, 4, 13), (2, 3, 16), (4, 3, 29), (2, 2, 37))


def _run_epilogue_model(src, A, B, bk):
    """Execute the filled-in template on NaN-initialised buffers As[2], Bs[2]; returns C (float64)."""
    M, K = A.shape
    N = B.shape[1]
    As = np.full((2, M, bk), np.nan, np.float32)
    Bs = np.full((2, bk, N), np.nan, np.float32)
    box = {"C": np.zeros((M, N))}

    def load(buf, k0, width):
        if not (0 <= k0 and k0 + width <= K and 0 < width <= bk):
            raise IndexError(f"load(buf={buf}, k0={k0}, width={width}): 열 {k0}..{k0 + width - 1} 은 K={K} 밖입니다")
        As[buf, :, :width] = A[:, k0:k0 + width]
        Bs[buf, :width, :] = B[k0:k0 + width, :]

    def compute(buf, width):
        if buf not in (0, 1) or not 0 < width <= bk:
            raise IndexError(f"compute(buf={buf}, width={width}): 버퍼는 0 또는 1, 폭은 1..{bk}")
        box["C"] = box["C"] + As[buf, :, :width].astype(np.float64) @ Bs[buf, :width, :]

    ns = {"__builtins__": {"range": range}, "K": K, "BK": bk, "M": M, "N": N,
          "load": load, "compute": compute, "sync": lambda: None}
    exec(compile(src, "<퀴즈 08 문제 7>", "exec"), ns)
    return box["C"]


def epilogue_blanks(blanks):
    """Quiz 08 q7: fill the 3 blanks of EPILOGUE_TEMPLATE, run it for several K (BK = 8) against numpy; (ok, message)."""
    if not isinstance(blanks, (list, tuple)) or len(blanks) != 3:
        return False, "코드 오류: 빈칸 3개를 모두 채워야 합니다"
    for i, b in enumerate(blanks, 1):
        err = validate_blank(b if isinstance(b, str) else "", EPILOGUE_NAMES)
        if err:
            return False, f"코드 오류 (빈칸 {i}): {err}"
    parts = EPILOGUE_TEMPLATE.split("___")
    src = "".join(p + (b.strip() if i < len(blanks) else "") for i, (p, b) in enumerate(zip(parts, list(blanks) + [""])))
    rng = np.random.default_rng()
    for M, N, K in EPILOGUE_CASES:
        A = rng.standard_normal((M, K)).astype(np.float32)
        B = rng.standard_normal((K, N)).astype(np.float32)
        try:
            C = _run_epilogue_model(src, A, B, EPILOGUE_BK)
        except Exception as e:      # a blank that indexes out of range, divides by zero, names kt when full == 0 ...
            return False, f"실행 오류 (K = {K}, BK = {EPILOGUE_BK}): {type(e).__name__}: {e}"
        ref = A.astype(np.float64) @ B.astype(np.float64)
        if not (np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-5, atol=1e-5)):
            why = "NaN 이 섞였습니다 (아무도 채우지 않은 버퍼·열을 읽음)" if not np.isfinite(C).all() else "값이 다릅니다"
            return False, f"K = {K} (BK = {EPILOGUE_BK}, 완전한 타일 {K // EPILOGUE_BK}개, 남는 열 {K % EPILOGUE_BK}개)에서 A @ B 와 {why}."
    ks = ", ".join(str(k) for _, _, k in EPILOGUE_CASES)
    return True, f"K = {ks} (BK = {EPILOGUE_BK}) 모두에서 A @ B 와 일치합니다."


# ---- quiz 07, question 4: the cooperative A-tile load of the register-blocked kernel (kernels_numba/regblock.py) ----
# names that exist in regblock's kernel where a_row / a_col / the load loop are computed
REGBLOCK_NAMES = ("tid", "tx", "ty", "BM", "BN", "BK", "TM", "TN", "THREADS", "A_TILE_ROW_STRIDE", "B_TILE_ROW_STRIDE")
# the three source fragments of regblock.py that become the blanks (in this order)
REGBLOCK_BLANKS = ("a_row = tid // BK", "a_col = tid % BK", "for off in range(0, BM, A_TILE_ROW_STRIDE):")
REGBLOCK_FILLED = ("a_row = {0}", "a_col = {1}", "for off in range(0, BM, {2}):")
REGBLOCK_PROBLEM = (130, 70, 21)     # M, N, K: no multiple of 128 or 8, two block rows


def regblock_kernel_template():
    """Source of kernels_numba/regblock.py's kernel with a_row, a_col and the A-load stride turned into format blanks."""
    import inspect
    import textwrap
    from kernels_numba import regblock
    src = textwrap.dedent(inspect.getsource(regblock.kernel.py_func))
    src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith("@"))
    src = src.replace("{", "{{").replace("}", "}}")
    for frag, filled in zip(REGBLOCK_BLANKS, REGBLOCK_FILLED):
        assert src.count(frag) == 1, f"regblock.py changed: update REGBLOCK_BLANKS ({frag!r})"
        src = src.replace(frag, filled)
    return src


def _regblock_consts():
    from kernels_numba import regblock
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
                return None, f"실행 오류: {name} 이 정수가 아닙니다 ({type(v).__name__}, tid={tid})"
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
    from numba import cuda
    from kernels_numba import regblock
    M, N, K = REGBLOCK_PROBLEM
    rng = np.random.default_rng()
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    ns = {k: v for k, v in vars(regblock).items() if not k.startswith("__") and k not in ("kernel", "launch")}
    src = regblock_kernel_template().format(*(b.strip() for b in blanks))
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
                   f"(M, N, K = {M}, {N}, {K}). 행·열을 바꿔 쓰지 않았는지 보세요." + _race_note(report))
