"""Notebook 07 exercises: the thread -> C sub-tile map, the cooperative-load map, the outer-product micro-kernel
(each plugged into a checker-owned register-blocked kernel), and the register limit of occupancy."""
import inspect

import numpy as np
from numba import cuda, float32, int32

from kernels_numba.infra import device

from .core import exercise, explain_exception, fail, passed
from .diagnose import SENTINEL, close, gemm, heatmap, reference
from sim.korean import josa

# The exercises' register-blocked kernel: regblock's structure at a size the simulator runs in about a second.
# The block is not square (16 x 8 threads) and TM != TN, so a swapped x/y or TM/TN cannot pass by symmetry.
BM, BN, BK = 32, 32, 8         # block tile and K tile
TM, TN = 4, 2                  # thread tile
BLOCK = (BN // TN, BM // TM)   # (16, 8) threads: x walks N, y walks M
THREADS = BLOCK[0] * BLOCK[1]  # 128
A_PASSES = BM * BK // THREADS  # 2 loads per thread for As (32 x 8)
B_PASSES = BK * BN // THREADS  # 2 loads per thread for Bs (8 x 32)
SHAPES = ((40, 32, 16, 1.0, 0.0), (33, 20, 20, 0.5, 2.0))   # (M, N, K, alpha, beta): 2 blocks each; ragged M, N, K


@cuda.jit(device=True)
def _tile(tx, ty):
    return ty * TM, tx * TN


@cuda.jit(device=True)
def _load(tid, p, rows, cols):
    return tid // cols + p * (THREADS // cols), tid % cols


@cuda.jit(device=True)
def _micro(As, Bs, rC, thread_row, thread_col):
    rA = cuda.local.array(TM, float32)
    rB = cuda.local.array(TN, float32)
    for k in range(BK):
        for m in range(TM):
            rA[m] = As[thread_row + m, k]
        for n in range(TN):
            rB[n] = Bs[k, thread_col + n]
        for m in range(TM):
            for n in range(TN):
                rC[m, n] += rA[m] * rB[n]


def regblock_with(tile=None, load=None, micro=None):
    """The exercises' register-blocked kernel with the student's device function in place of one of its parts."""
    from course.lesson06 import load_or_zero, store_c
    tile, load, micro = tile or _tile, load or _load, micro or _micro

    @cuda.jit
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((BM, BK), float32)
        Bs = cuda.shared.array((BK, BN), float32)
        rC = cuda.local.array((TM, TN), float32)
        K = A.shape[1]
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tid = ty * BLOCK[0] + tx
        block_row = cuda.blockIdx.y * BM
        block_col = cuda.blockIdx.x * BN
        thread_row, thread_col = tile(tx, ty)
        for m in range(TM):
            for n in range(TN):
                rC[m, n] = float32(0.0)
        for k0 in range(0, K, BK):
            for p in range(A_PASSES):
                r, c = load(tid, p, BM, BK)
                As[r, c] = load_or_zero(A, block_row + r, k0 + c)
            for p in range(B_PASSES):
                r, c = load(tid, p, BK, BN)
                Bs[r, c] = load_or_zero(B, k0 + r, block_col + c)
            cuda.syncthreads()       # the tiles are complete before anyone reads them
            micro(As, Bs, rC, thread_row, thread_col)
            cuda.syncthreads()       # everyone has read them before the next pass overwrites them
        for m in range(TM):
            for n in range(TN):
                store_c(C, block_row + thread_row + m, block_col + thread_col + n, rC[m, n], alpha, beta)

    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        kernel[((N + BN - 1) // BN, (M + BM - 1) // BM), BLOCK](A, B, C, np.float32(alpha), np.float32(beta))
        return C
    return launch


# ------------------------------------------------------------------ running a GEMM and reading its result

def _run(launch, M, N, K, alpha, beta, seed=0):
    """(A, B, C0, C, race report or None) of one launch on random inputs (C starts as SENTINEL when beta = 0)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    C0 = np.full((M, N), SENTINEL, np.float32) if beta == 0 else rng.standard_normal((M, N)).astype(np.float32)
    if not device.SIMULATOR:
        return A, B, C0, launch(A, B, C0.copy(), alpha, beta), None
    from kernels_numba.infra.simulator import racecheck
    with racecheck.collect() as report:
        C = launch(A, B, C0.copy(), alpha, beta)
    return A, B, C0, C, report


def _shape_line(M, N, K, alpha, beta):
    return f"  (M, N, K) = ({M}, {N}, {K}), alpha = {alpha}, beta = {beta}, 블록 타일 {BM}×{BN}, BK = {BK}"


def _gemm_picture(launch, shape=SHAPES[0]):
    """Lines showing what the kernel with this map does to C: the race detector's summary and the heat map."""
    try:
        A, B, C0, C, report = _run(launch, *shape)
    except Exception as exc:          # a map outside the tile stops the kernel: the map analysis already said why
        return [f"  (커널 실행: {type(exc).__name__})"]
    ref, bound = reference(A, B, C0, shape[3], shape[4])
    bad = ~close(C, ref, bound)
    M, N, K, alpha, beta = shape
    out = ["", f"  이 지도로 커널을 실행하면 ((M, N, K) = ({M}, {N}, {K}), alpha = {alpha}, beta = {beta}):"]
    if report:
        out.append("  " + report.summary(1).replace("\n", "\n  ") + "\n  (줄 번호는 확인용 커널 course/exercises/ex07.py 의 것)")
    out.append(heatmap(bad, (BM, BN), max_side=20) if bad.any() else "  C 는 모두 맞습니다.")
    return out


def _src(student):
    try:
        return inspect.getsource(getattr(student, "py_func", student))
    except (OSError, TypeError):
        return ""


def _uses_helper(ex_id, student):
    """A failure when the device function calls the notebook's host-side helpers (they cannot run on a GPU)."""
    src = _src(student)
    if "load_map" in src or "L7." in src or "lesson07" in src:
        return fail(ex_id, "host_helper", "장치 함수(device function) 안에서 파이썬 도우미(L7.load_map 등)를 부르고 "
                    "있습니다: GPU 커널 안에서는 딕셔너리를 만드는 파이썬 함수를 부를 수 없습니다. 인덱스 식을 "
                    "정수 연산(//, %, *, +)으로 직접 쓰세요.")
    return None


# ------------------------------------------------------------------ 07-1 thread -> C sub-tile

def _tile_map(student, grid=(2, 2)):
    """(grid_y, grid_x, BLOCK_y, BLOCK_x, 2) array of the student's (thread_row, thread_col) of every thread of a small
    grid, computed on the device (the map must not depend on the block)."""
    @cuda.jit
    def k(out):
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        r, c = student(tx, ty)
        out[cuda.blockIdx.y, cuda.blockIdx.x, ty, tx, 0] = r
        out[cuda.blockIdx.y, cuda.blockIdx.x, ty, tx, 1] = c
    out = np.full((grid[1], grid[0], BLOCK[1], BLOCK[0], 2), -1, np.int64)
    k[grid, BLOCK](out)
    return out


def _sub_tile_variant(f):
    return np.array([[f(tx, ty) for tx in range(BLOCK[0])] for ty in range(BLOCK[1])], np.int64)


@exercise("07-1", "스레드 → C 부분 타일", "4.3절",
          hints=("threadIdx.x 는 N 방향(열), threadIdx.y 는 M 방향(행)입니다. 스레드 하나가 TM 행 × TN 열을 맡으니, "
                 "이웃한 두 스레드의 부분 타일은 행으로 TM, 열로 TN 만큼 떨어져 있어야 겹치지도 비지도 않습니다.",
                 "(tx, ty) 의 부분 타일 왼쪽 위는 행 ty·TM, 열 tx·TN 입니다. 블록 오프셋(blockIdx)은 커널이 더하므로 "
                 "여기서는 블록 타일 안의 위치만 돌려주세요."),
          solution="answers/ex07_thread_tile.py::thread_tile", name="my_thread_tile",
          preamble='''
from numba import cuda
from course.exercises.ex07 import BM, BN, BK, TM, TN, BLOCK, THREADS   # 연습용 설정: 블록 타일 32×32, 스레드 타일 4×2
print(f"블록 타일 {BM}×{BN}, BK = {BK}, 스레드 타일 TM×TN = {TM}×{TN}, 블록 {BLOCK[0]}×{BLOCK[1]} = {THREADS} 스레드")
# 예상 출력: 블록 타일 32×32, BK = 8, 스레드 타일 TM×TN = 4×2, 블록 16×8 = 128 스레드
''', template='''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    """스레드 (tx, ty) 가 맡는 TM×TN 부분 타일의 왼쪽 위 (thread_row, thread_col): 블록 타일 안의 위치."""
    raise NotImplementedError("행은 ty 로, 열은 tx 로: 이웃 스레드의 부분 타일이 TM 행, TN 열씩 떨어지도록")
''')
def check_thread_tile(student):
    ex = "07-1"
    bad = _uses_helper(ex, student)
    if bad:
        return bad
    per_block = _tile_map(student)
    got = per_block[0, 0]
    if (per_block != got).any():
        by, bx = np.argwhere((per_block != got).any(axis=(2, 3, 4)))[0]
        there, here = (tuple(int(v) for v in x) for x in (per_block[by, bx, 0, 0], got[0, 0]))
        return fail(ex, "block_offset", f"블록마다 지도가 다릅니다 (블록 ({bx}, {by}) 의 스레드 (0, 0) → {there}, "
                    f"블록 (0, 0) 에서는 {here}): blockIdx 를 쓰지 "
                    "마세요. 블록 오프셋(blockIdx·BM, blockIdx·BN)은 커널이 더하고, 이 함수는 블록 타일 **안**의 "
                    "위치만 돌려줍니다.")
    cover = np.zeros((BM, BN), np.int64)
    outside = None
    for ty in range(BLOCK[1]):
        for tx in range(BLOCK[0]):
            r, c = got[ty, tx]
            if r < 0 or c < 0 or r + TM > BM or c + TN > BN:
                outside = outside or (tx, ty, r, c)
            else:
                cover[r:r + TM, c:c + TN] += 1
    swapped = _sub_tile_variant(lambda tx, ty: (tx * TM, ty * TN))
    mixed = _sub_tile_variant(lambda tx, ty: (ty * TN, tx * TM))
    launch = regblock_with(tile=student)
    if (got == swapped).all():
        return fail(ex, "swapped_xy", "tx 와 ty 가 바뀌었습니다: threadIdx.x 는 열(N 방향), threadIdx.y 는 행(M 방향)을 "
                    f"따라갑니다. 이 블록은 {BLOCK[0]}×{BLOCK[1]} 스레드라 바꾸면 부분 타일이 블록 타일 밖으로 나갑니다.",
                    f"  예: (tx={BLOCK[0] - 1}, ty=0) → 행 {(BLOCK[0] - 1) * TM}, 열 0 (블록 타일은 {BM}×{BN})")
    if (got == mixed).all():
        return fail(ex, "tm_tn_mixed", f"TM 과 TN 이 바뀌었습니다: 행 간격은 TM = {TM}, 열 간격은 TN = {TN} 입니다 "
                    "(스레드 타일이 정사각이 아니면 둘을 구별해야 합니다).", *_coverage_lines(cover),
                    *(_gemm_picture(launch) if outside is None else []))
    if outside:
        tx, ty, r, c = outside
        return fail(ex, "out_of_tile", f"스레드 (tx={tx}, ty={ty}) 의 부분 타일(행 {r}..{r + TM - 1}, 열 {c}..{c + TN - 1})"
                    f" 이 블록 타일({BM}×{BN}) 밖으로 나갑니다: 블록 오프셋을 더하지 않았는지, 간격이 TM·TN 인지 "
                    "보세요.")
    if (cover != 1).any():
        twice = np.argwhere(cover > 1)
        r, c = twice[0] if len(twice) else np.argwhere(cover == 0)[0]
        owners = [f"(tx={tx}, ty={ty})" for ty in range(BLOCK[1]) for tx in range(BLOCK[0])
                  if got[ty, tx, 0] <= r < got[ty, tx, 0] + TM and got[ty, tx, 1] <= c < got[ty, tx, 1] + TN]
        return fail(ex, "overlap", "부분 타일이 서로 겹치고, 그래서 아무도 맡지 않는 C 원소가 생깁니다"
                    + (f": 원소 {josa(f'({r}, {c})', '을/를')} 스레드 {josa(', '.join(owners[:3]), '이/가')} 함께 맡습니다." if len(owners) > 1 else ".")
                    + f" 이웃 스레드의 부분 타일은 행으로 TM = {TM}, 열로 TN = {TN} 만큼 떨어져야 합니다.",
                    *_coverage_lines(cover), *_gemm_picture(launch))
    res = _shapes(ex, launch)
    if res.ok:
        return passed(ex, f"{THREADS} 스레드의 {TM}×{TN} 부분 타일이 {BM}×{BN} 블록 타일을 정확히 한 번씩 덮고, "
                      "커널 결과도 numpy 와 일치합니다.")
    return res


def _coverage_lines(cover):
    """Picture of how many threads own each element of the block tile (0: '·' nobody, 1: '1', 2+: the count)."""
    rows = ["", f"  블록 타일 {BM}×{BN} 의 원소마다 맡은 스레드 수 (· = 아무도 없음):"]
    for i in range(BM):
        rows.append("  " + "".join("·" if v == 0 else str(min(v, 9)) for v in cover[i]))
    return rows


def _shapes(ex_id, launch, refine=None):
    """Run SHAPES; the first wrong result is diagnosed (gemm, then `refine(res, A, B, C0, C, shape)` if given)."""
    for shape in SHAPES:
        A, B, C0, C, report = _run(launch, *shape)
        res = gemm(ex_id, C, A, B, C0, shape[3], shape[4], tile=(BM, BN), BK=BK, report=report)
        if not res.ok or res.code == "race":
            if refine is not None:
                res = refine(res, A, B, C0, C, shape) or res
            res.details.insert(0, _shape_line(*shape))
            return res
    return passed(ex_id, "numpy 와 일치" + ("하고, 경쟁 검출기도 조용합니다." if device.SIMULATOR else "합니다."))


# ------------------------------------------------------------------ 07-2 cooperative-load map

def _load_maps(student):
    """{'As': (map, BM, BK), 'Bs': (map, BK, BN)}: the student's (row, col) per (tid, pass), computed on the device."""
    @cuda.jit
    def k(outA, outB):
        tid = cuda.threadIdx.x
        for p in range(A_PASSES):
            r, c = student(tid, p, BM, BK)
            outA[tid, p, 0] = r
            outA[tid, p, 1] = c
        for p in range(B_PASSES):
            r, c = student(tid, p, BK, BN)
            outB[tid, p, 0] = r
            outB[tid, p, 1] = c
    outA = np.full((THREADS, A_PASSES, 2), -1, np.int64)
    outB = np.full((THREADS, B_PASSES, 2), -1, np.int64)
    k[1, THREADS](outA, outB)
    return {"As": (outA, BM, BK), "Bs": (outB, BK, BN)}


def _tile_picture(name, stores, rows, cols):
    """How many stores each element of a shared tile gets (· none, 1, 2, ...), as text."""
    out = ["", f"  {name} ({rows}×{cols}) 의 원소마다 저장 횟수 (· = 아무도 쓰지 않음 → 시뮬레이터에서는 NaN):"]
    for i in range(rows):
        out.append("  " + "".join("·" if v == 0 else str(min(v, 9)) for v in stores[i]))
    return out


@exercise("07-2", "협력적 로딩: 스레드가 채우는 공유 메모리 원소", "4.4절",
          hints=("패스 하나에 스레드 THREADS 개가 타일의 연속한 원소를 채웁니다: 한 행(cols 원소)을 연속한 cols 개 "
                 "스레드가 맡으면, 패스 하나가 덮는 행은 THREADS // cols 개입니다.",
                 "행 = tid // cols + p · (THREADS // cols), 열 = tid % cols. 같은 함수가 As(rows = BM, cols = BK)와 "
                 "Bs(rows = BK, cols = BN) 둘 다에 맞아야 합니다."),
          solution="answers/ex07_coop_load.py::load_coords", name="my_load_coords",
          preamble='''
from numba import cuda
from course.exercises.ex07 import BM, BN, BK, TM, TN, BLOCK, THREADS   # 07-1 과 같은 연습용 설정 (128 스레드)
''', template='''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    """THREADS 개 스레드가 rows×cols 공유 타일을 채울 때, 스레드 tid 가 패스 p 에서 저장하는 원소의 (행, 열)."""
    raise NotImplementedError("한 행을 연속한 cols 개 스레드가 맡고, 패스마다 THREADS // cols 행씩 내려가도록")
''')
def check_load_coords(student):
    ex = "07-2"
    bad = _uses_helper(ex, student)
    if bad:
        return bad
    maps = _load_maps(student)
    launch = regblock_with(load=student)
    for name, (got, rows, cols) in maps.items():
        passes = got.shape[1]
        outside = [(t, p, *got[t, p]) for t in range(THREADS) for p in range(passes)
                   if not (0 <= got[t, p, 0] < rows and 0 <= got[t, p, 1] < cols)]
        if outside:
            t, p, r, c = (int(v) for v in outside[0])
            return fail(ex, "out_of_tile", f"{name} ({rows}×{cols}): tid = {josa(t, '이/가')} 패스 {p} 에서 {josa(f'({r}, {c})', '을/를')} "
                        f"채우려 합니다 — 타일 밖입니다 ({len(outside)}곳). 열은 tid % cols, 한 패스가 덮는 행은 "
                        "THREADS // cols 개입니다 (rows 와 cols 가 바뀌지 않았는지, 같은 함수가 As 와 Bs 둘 다에 "
                        "맞는지 보세요).")
    for name, (got, rows, cols) in maps.items():
        stride = THREADS // cols
        stores = np.zeros((rows, cols), np.int64)
        who = {}
        for t in range(THREADS):
            for p in range(got.shape[1]):
                r, c = (int(v) for v in got[t, p])
                stores[r, c] += 1
                who.setdefault((r, c), []).append((t, p))
        dup = [(rc, w) for rc, w in who.items() if len(w) > 1]
        if not dup:
            continue
        (r, c), w = dup[0]
        if all(len({t for t, _ in ws}) == 1 for _, ws in dup):
            return fail(ex, "pass_repeat", f"{name}: tid = {josa(w[0][0], '이/가')} 패스 {josa(w[0][1], '과/와')} {w[1][1]} 에서 같은 원소 "
                        f"({r}, {c}) 를 채우고, 다른 행은 아무도 채우지 않습니다: 패스 p 마다 THREADS // cols = "
                        f"{stride} 행씩 내려가야 합니다.", *_tile_picture(name, stores, rows, cols), *_gemm_picture(launch))
        pairs = ", ".join(f"tid = {t} 의 패스 {p}" for t, p in w[:3])
        return fail(ex, "overlap", f"{name}: 서로 다른 스레드가 같은 원소 ({r}, {c}) 를 채웁니다 ({pairs}), 그만큼 "
                    f"빈 원소가 생깁니다. 패스 하나는 THREADS // cols = {stride} 행을 덮으니, 패스 p 의 행은 "
                    f"p · {stride} 만큼 내려가야 합니다. 경쟁 검출기가 이것을 쓰기-쓰기 경쟁(WAW)으로 보고해도 "
                    "배리어로 고칠 문제가 아닙니다: 지도가 겹치는 것이 원인입니다.",
                    *_tile_picture(name, stores, rows, cols), *_gemm_picture(launch))
    res = _shapes(ex, launch)
    if res.ok:
        return passed(ex, f"As({BM}×{BK})와 Bs({BK}×{BN})의 원소를 {THREADS} 스레드가 패스 {A_PASSES}·{B_PASSES}번에 "
                      "정확히 한 번씩 채우고, 커널 결과도 numpy 와 일치합니다"
                      + (" (경쟁 검출기: 경쟁 없음)." if device.SIMULATOR else "."))
    return res


# ------------------------------------------------------------------ 07-3 outer-product micro-kernel

def _thread_tile_pattern(bad, M, N):
    """bad folded onto one TM×TN thread tile over the full block tiles: which (m, n) are ever wrong."""
    fold = np.zeros((TM, TN), bool)
    for i in range((M // BM) * BM):
        for j in range((N // BN) * BN):
            if bad[i, j]:
                fold[i % TM, j % TN] = True
    return fold


def _first_tile(bad):
    """Heat map of the first block tile of C (every full tile shows the same pattern), or one line if all is wrong."""
    if bad.all():
        return f"  C 의 원소 {bad.size}개가 모두 틀립니다."
    return heatmap(bad[:BM, :BN]).replace("C 의 틀린 원소", f"첫 블록 타일({BM}×{BN})의 틀린 원소", 1)


def _fold_picture(fold):
    rows = [f"  스레드 타일 {TM}×{TN} 안에서 틀린 자리 (행 m, 열 n; ■ 틀림 · 맞음):"]
    rows += ["    " + " ".join("■" if v else "·" for v in fold[m]) + f"   m = {m}" for m in range(TM)]
    return rows


def _refine_micro(res, A, B, C0, C, shape):
    """Sharper diagnoses of a micro-kernel: rA or rB indexed wrongly (whole rows / columns of each thread tile wrong),
    rC overwritten instead of accumulated, one k per K tile."""
    M, N, K, alpha, beta = shape
    ref, bound = reference(A, B, C0, alpha, beta)
    bad = ~close(C, ref, bound)
    if res.code == "per_thread":
        fold = _thread_tile_pattern(bad, M, N)
        rows_bad, cols_bad = fold.all(axis=1), fold.all(axis=0)
        if fold.any() and (fold == rows_bad[:, None]).all():
            return fail(res.exercise, "ra_index", f"모든 스레드에서 스레드 타일의 같은 행 m = "
                        f"{josa([int(m) for m in np.flatnonzero(rows_bad)], '이/가')} 통째로 틀립니다: 행 m 의 모든 열에 같은 rA[m] 이 "
                        "곱해지니, rA[m] 을 As 의 어느 행에서 읽는지(thread_row + m) 확인하세요.",
                        *_fold_picture(fold), _first_tile(bad))
        if fold.any() and (fold == cols_bad[None, :]).all():
            return fail(res.exercise, "rb_index", f"모든 스레드에서 스레드 타일의 같은 열 n = "
                        f"{josa([int(n) for n in np.flatnonzero(cols_bad)], '이/가')} 통째로 틀립니다: 열 n 의 모든 행에 같은 rB[n] 이 "
                        "곱해지니, rB[n] 을 Bs 의 어느 열에서 읽는지(thread_col + n) 확인하세요.",
                        *_fold_picture(fold), _first_tile(bad))
        res.details[:0] = _fold_picture(fold)
        return res
    if res.code == "acc_reset":
        return fail(res.exercise, "acc_reset", "마지막 K 타일의 합만 남았습니다: 마이크로커널 안에서 rC 를 0 으로 "
                    "만들면 앞 K 타일까지의 합이 지워집니다. rC 는 커널이 K 루프 전에 한 번만 0 으로 만듭니다.",
                    _first_tile(bad))
    if res.code not in ("all_wrong", "wrong_values"):
        return None
    Kpad = -(-K // BK) * BK
    last = Kpad - 1
    only_c = np.full_like(ref, 0.0) + (beta * C0.astype(np.float64) if beta != 0 else 0.0)   # no product at all
    if (last < K and close(C, *reference(A, B, C0, alpha, beta, [last])).all()) or \
            (last >= K and close(C, only_c, bound).all()):
        return fail(res.exercise, "overwrite", f"C 에 마지막 k (= {last}) 의 곱 하나만 남았습니다: rC[m, n] 에 "
                    "rA[m]·rB[n] 을 더하지(+=) 않고 덮어쓰고(=) 있습니다.", _first_tile(bad))
    for j in range(BK):
        ks = list(range(j, K, BK))
        if len(ks) < K and close(C, *reference(A, B, C0, alpha, beta, ks)).all():
            return fail(res.exercise, "one_k_per_tile", f"K 타일마다 k = {j} 하나의 곱만 더해졌습니다: 마이크로커널이 "
                        f"k = 0..BK-1 ({BK}단계)를 모두 돌며 rA, rB 를 k 마다 새로 읽는지 확인하세요.",
                        _first_tile(bad))
    return None


@exercise("07-3", "외적 마이크로커널", "4.5절",
          hints=("K 타일 하나에서 k = 0..BK-1 마다: rA[m] 은 이 스레드의 행 thread_row + m 의 As 값, rB[n] 은 열 "
                 "thread_col + n 의 Bs 값입니다. 읽은 뒤 TM×TN 개의 rC 모두에 곱을 더합니다.",
                 "for k in range(BK): rA[m] = As[thread_row + m, k] (m < TM), rB[n] = Bs[k, thread_col + n] (n < TN), "
                 "그리고 이중 루프로 rC[m, n] += rA[m] * rB[n]. rC 를 여기서 0 으로 만들면 앞 K 타일의 합이 지워집니다."),
          solution="answers/ex07_micro.py::micro_kernel", name="my_micro_kernel",
          preamble='''
from numba import cuda, float32
from course.exercises.ex07 import BM, BN, BK, TM, TN, BLOCK, THREADS   # 07-1 과 같은 연습용 설정
''', template='''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    """K 타일 하나의 외적: k 마다 rA[TM], rB[TN] 을 As, Bs 에서 읽고 rC[m, n] += rA[m]·rB[n] (rC 는 TM×TN)."""
    rA = cuda.local.array(TM, float32)      # 레지스터: As 의 한 열 중 이 스레드의 TM 개
    rB = cuda.local.array(TN, float32)      # 레지스터: Bs 의 한 행 중 이 스레드의 TN 개
    raise NotImplementedError("k = 0..BK-1 루프: rA, rB 를 읽고 외적으로 rC 에 더하세요")
''')
def check_micro(student):
    try:
        return _shapes("07-3", regblock_with(micro=student), refine=_refine_micro)
    except IndexError as exc:
        res = explain_exception("07-3", exc, student)
        res.message = (f"배열 밖을 읽었습니다 (index out of bounds): As 는 BM×BK = {BM}×{BK} 라 As[행, k], Bs 는 "
                       f"BK×BN = {BK}×{BN} 라 Bs[k, 열] 순서입니다. rA 는 TM = {TM}개(m < TM), rB 는 TN = {TN}개"
                       "(n < TN) 입니다.")
        return res


# ------------------------------------------------------------------ 07-4 register-limited blocks

def _reg_variants():
    """Wrong-but-typical versions of the register rule: (code, message, function(regs, threads))."""
    def warps(t):
        return -(-t // 32)

    def right(regs, t, unit=256, sub=4):
        per_warp = -(-regs * 32 // unit) * unit
        if per_warp * (-(-warps(t) // sub) * sub) > 65536:
            return 0
        return (65536 // sub // per_warp) * sub // warps(t)
    return [
        ("no_alloc_unit", "워프당 레지스터를 256개 단위로 올림하지 않았습니다: 레지스터는 워프마다 256개씩 할당되므로 "
         "regs·32 를 256 의 배수로 올려야 합니다 (스레드당 수를 8의 배수로 올리는 것과 같음).",
         lambda r, t: right(r, t, unit=1)),
        ("no_subpartition", "서브파티션을 빠뜨렸습니다: 레지스터 파일은 16,384개씩 4조각이고 워프 하나는 한 조각에만 "
         "삽니다. 65,536 을 통째로 나누지 말고 조각마다 들어가는 워프 수 × 4 로 세세요.",
         lambda r, t: right(r, t, sub=1)),
        ("division", "65,536 ÷ (레지스터 × 스레드) 나눗셈 어림입니다: 할당 단위(256), 서브파티션(4), 블록 단위 세 "
         "규칙을 모두 넣어야 합니다.", lambda r, t: 65536 // (r * t)),
    ]


@exercise("07-4", "레지스터가 허락하는 블록 수", "3.5절",
          hints=("세 규칙을 차례로: (1) 워프당 레지스터 = regs·32 를 256 의 배수로 올림, (2) 서브파티션 하나(16,384개)에 "
                 "들어가는 워프 수 × 4 = SM 의 워프 수, (3) 블록은 통째로: // 블록당 워프 수.",
                 "per_warp = -(-regs * 32 // 256) * 256; warps_per_sm = (16384 // per_warp) * 4; "
                 "return warps_per_sm // -(-threads // 32)  (블록 하나가 65,536 개를 넘으면 0)."),
          solution="answers/ex07_occupancy.py::register_limited_blocks", name="my_register_limited_blocks",
          template='''
def my_register_limited_blocks(regs, threads):
    """스레드당 레지스터 regs 개, 블록 threads 스레드일 때 레지스터만으로 SM 하나에 올라가는 블록 수 (정수)."""
    raise NotImplementedError("1) 워프당 256개 단위로 올림  2) 서브파티션 4개  3) 블록 단위 — 세 규칙을 차례로")
''')
def check_register_blocks(student):
    from sim import occupancy as occ
    ex = "07-4"
    cases = [(r, t) for t in (96, 256, 1024) for r in range(1, 256)]
    want = {(r, t): occ.occupancy("H100", r, t).limits["registers"] for r, t in cases}
    got = {}
    for r, t in cases:
        v = student(r, t)
        if isinstance(v, (float, np.floating)) and not float(v).is_integer():
            return fail(ex, "not_whole_blocks", "블록 수가 정수가 아닙니다 "
                        f"(regs = {r}, threads = {t} 에서 {v!r}): 블록은 통째로만 올라가므로 블록당 워프 수로 내림 "
                        "나눗셈(//) 하세요.")
        if not isinstance(v, (int, np.integer, float, np.floating)):
            return fail(ex, "input", f"정수 하나를 돌려주세요 (regs = {r}, threads = {t} 에서 {v!r}).")
        got[r, t] = int(v)
    wrong = [c for c in cases if got[c] != want[c]]
    if not wrong:
        return passed(ex, f"레지스터 1–255개 × 블록 96·256·1024 스레드, {len(cases)}가지 모두 모델과 같습니다.")
    for code, msg, f in _reg_variants():
        vals = {c: f(*c) for c in cases}
        if all(got[c] == vals[c] for c in cases):
            return fail(ex, code, msg, _example(wrong[0], got, want))
    return fail(ex, "mismatch", f"{len(cases)}가지 중 {len(wrong)}가지에서 모델과 다릅니다.", _example(wrong[0], got, want),
                "  레지스터 수에 따라 블록 수가 계단처럼 바뀌는 지점(3.5절의 표)과 비교해 보세요.")


def _example(case, got, want):
    r, t = case
    return f"  예: regs = {r}, threads = {t} 에서 여러분의 답 {got[case]}블록, 모델 {want[case]}블록"
