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
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # NumbaPerformanceWarning (grid of 4) would leak into the cell
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
                   f"(M, N, K = {M}, {N}, {K}, 16의 배수가 아님).")


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

