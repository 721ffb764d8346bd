"""Notebook 07 exercises: the thread -> C sub-tile map, the cooperative-load map, the outer-product micro-kernel
(each plugged into a checker-owned register-blocked kernel), and the register limit of occupancy."""
import itertools
import os
import re

import numpy as np
from numba import cuda, float32

from kernels_numba.infra import device
from sim.korean import josa

from course.exercises import probe
from course.exercises.core import context, exercise, explain_exception, fail, passed, technique
from course.exercises.diagnose import SENTINEL, close, gemm, heatmap, reference
from kernels_numba.infra.simulator import racecheck
from sim import occupancy as occ
from course.exercises.core import _student_site

# The exercises' register-blocked kernel: regblock's structure at a size the simulator runs in about a second.
# The block is not square (16 x 8 threads) and TM != TN, so a swapped x/y or TM/TN cannot pass by symmetry.
BM, BN, BK = 32, 32, 8         # block tile and K tile
TM, TN = 4, 2                  # thread tile
BLOCK = (BN // TN, BM // TM)   # (16, 8) threads: x walks N, y walks M
THREADS = BLOCK[0] * BLOCK[1]  # 128
A_PASSES = BM * BK // THREADS  # 2 loads per thread for As (32 x 8)
B_PASSES = BK * BN // THREADS  # 2 loads per thread for Bs (8 x 32)
# (M, N, K, alpha, beta): 2 K tiles, 3 K tiles (ragged M, N, K; K % 8 = 1), 1 K tile (K < BK); two blocks each
SHAPES = ((40, 32, 16, 1.0, 0.0), (33, 20, 17, 0.5, 2.0), (32, 40, 5, 1.0, 0.0))


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
    """The exercises' register-blocked kernel with the student's device function in place of one of its parts (the
    bounds-checked loads and the stores are written inline: a device call costs the simulator far more than a line)."""
    tile, load, micro = tile or _tile, load or _load, micro or _micro

    @cuda.jit
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((BM, BK), float32)
        Bs = cuda.shared.array((BK, BN), float32)
        rC = cuda.local.array((TM, TN), float32)
        M, K = A.shape
        N = B.shape[1]
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
                gr, gc = block_row + r, k0 + c
                As[r, c] = A[gr, gc] if gr < M and gc < K else float32(0.0)     # 0 outside A
            for p in range(B_PASSES):
                r, c = load(tid, p, BK, BN)
                gr, gc = k0 + r, block_col + c
                Bs[r, c] = B[gr, gc] if gr < K and gc < N else float32(0.0)
            cuda.syncthreads()       # the tiles are complete before anyone reads them
            micro(As, Bs, rC, thread_row, thread_col)
            cuda.syncthreads()       # everyone has read them before the next pass overwrites them
        for m in range(TM):
            for n in range(TN):
                gr, gc = block_row + thread_row + m, block_col + thread_col + n
                if gr < M and gc < N:
                    C[gr, gc] = alpha * rC[m, n] + (beta * C[gr, gc] if beta != 0 else float32(0.0))

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
    with racecheck.collect() as report:
        C = launch(A, B, C0.copy(), alpha, beta)
    return A, B, C0, C, report


def _shape_line(M, N, K, alpha, beta):
    return (f"  (M, N, K) = ({M}, {N}, {K}), K 타일 {-(-K // BK)}개, alpha = {alpha}, beta = {beta}, "
            f"블록 타일 {BM}×{BN}, BK = {BK}")


def _gemm_picture(launch, shape=SHAPES[0], map_note=True):
    """Lines showing what the kernel with this map does to C: the race detector's summary and the heat map.
    map_note: say under a race that the detector's barrier advice does not apply (the kernel is the checker's; the map
    is the cause), for a message that does not say so itself."""
    try:
        A, B, C0, C, report = _run(launch, *shape)
    except Exception as exc:          # a map outside the tile stops the kernel: the map analysis already said why
        return [f"  (커널 실행: {type(exc).__name__})"]
    ref, bound = reference(A, B, C0, shape[3], shape[4])
    bad = ~close(C, ref, bound)
    M, N, K, alpha, beta = shape
    out = ["", f"  이 지도로 커널을 실행하면 ((M, N, K) = ({M}, {N}, {K}), alpha = {alpha}, beta = {beta}):"]
    if report:
        out.append("  " + report.summary(1).replace("\n", "\n  ") + "\n  (줄 번호는 확인용 커널 course/ch07_register_blocking/exercises.py 의 "
                   "것입니다)")
        if map_note:
            out.append("  경쟁 검출기는 배리어를 두라고 하지만 배리어로 고칠 문제가 아닙니다: 이 커널은 확인 셀의 것이고, "
                       "여러 스레드가 같은 원소를 건드리는 것은 여러분의 지도가 겹치기 때문입니다. 지도를 고치세요.")
    out.append(heatmap(bad, (BM, BN), max_side=20) if bad.any() else "  C 는 모두 맞습니다.")
    return out


def _where_defined(filename):
    """'course/ch07_register_blocking/lesson.py' for a course file, '노트북' for the student's own code."""
    if probe.is_user_file(filename):
        return "여러분의 코드"
    return os.path.relpath(filename, probe.ROOT)


def _host_call(ex_id, rec):
    """A failure when the device function called a plain Python function (a course helper that builds a dict, or a
    function of the student's own without @cuda.jit): code a GPU kernel cannot run. Found by watching the run."""
    if not rec.host_calls:
        return None
    c = rec.host_calls[0]
    return fail(ex_id, "host_helper", f"장치 함수(device function) 안에서 파이썬 함수를 부릅니다: `{c.name}` "
                f"({_where_defined(c.file)}). GPU 커널 안에서는 @cuda.jit 로 컴파일한 함수만 부를 수 있습니다 "
                "(딕셔너리를 만드는 도우미는 더더욱). 인덱스를 정수 연산(//, %, *, +)으로 직접 계산하세요.",
                f"  부른 곳: {probe.line_text(c.site)}", where=probe.line_text(c.site))


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
          hints=("블록 타일을 스레드 수만큼의 작은 직사각형(스레드 타일)으로 겹치지 않게 나눕니다. x 방향 스레드는 열을, "
                 "y 방향 스레드는 행을 따라 늘어서고, 블록의 위치는 커널이 따로 더합니다.",
                 "스레드 (tx, ty) 와 그 오른쪽 이웃 (tx + 1, ty) 의 부분 타일은 몇 열 떨어져 있어야 겹치지도 비지도 않나요? "
                 "아래 이웃 (tx, ty + 1) 은 몇 행인가요?"),
          questions={
              "overlap": "그림에서 2 이상인 칸을 함께 맡은 두 스레드의 (tx, ty) 를 보세요. 두 부분 타일의 왼쪽 위 사이 "
                         "거리는 부분 타일의 크기(TM 행, TN 열)와 같은가요?",
              "swapped_xy": "threadIdx.x 가 늘어날 때 부분 타일은 오른쪽(열)으로 가나요, 아래(행)로 가나요?",
              "return_order": "함수가 돌려주는 두 값 중 첫째는 행인가요, 열인가요? 커널은 어느 순서로 받나요?",
              "tm_tn_mixed": "부분 타일의 높이는 TM 인가요 TN 인가요? 행 간격에 쓰는 상수와 열 간격에 쓰는 상수를 "
                             "확인해 보세요.",
              "block_offset": "이 함수가 돌려주는 위치는 C 전체에서의 위치인가요, 블록 타일 안의 위치인가요?",
              "out_of_tile": "가장 큰 tx, ty 를 가진 스레드의 부분 타일은 블록 타일의 어디에 놓이나요? 블록 타일 안에 "
                             "들어가나요?",
              "host_helper": "이 장치 함수가 부르는 함수는 GPU 에서 돌 수 있는 @cuda.jit 함수인가요?",
          },
          solution="answers/ch07/ex07_thread_tile.py::thread_tile", name="my_thread_tile",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda
from course.ch07_register_blocking.exercises import BM, BN, BK, TM, TN, BLOCK, THREADS   # 연습용 설정: 블록 타일 32×32, 스레드 타일 4×2
print(f"블록 타일 {BM}×{BN}, BK = {BK}, 스레드 타일 TM×TN = {TM}×{TN}, 블록 {BLOCK[0]}×{BLOCK[1]} = {THREADS} 스레드")
# 예상 출력: 블록 타일 32×32, BK = 8, 스레드 타일 TM×TN = 4×2, 블록 16×8 = 128 스레드
''', template='''
@cuda.jit(device=True)
def my_thread_tile(tx, ty):
    """스레드 (tx, ty) 가 맡는 TM×TN 부분 타일의 왼쪽 위 (thread_row, thread_col): 블록 타일 안의 위치."""
    raise NotImplementedError("스레드 (tx, ty) 의 부분 타일 왼쪽 위는 블록 타일의 몇 행, 몇 열일까요? "
                              "4.3절의 (tx=3, ty=5) 예가 regblock 에서 어디였는지에서 시작해 보세요.")
''')
def check_thread_tile(student):
    ex = "07-1"
    with probe.watching(shared=False) as rec:
        per_block = _tile_map(student)
    bad = _host_call(ex, rec)
    if bad:
        return bad
    got = per_block[0, 0]
    if (per_block != got).any():
        by, bx = np.argwhere((per_block != got).any(axis=(2, 3, 4)))[0]
        there, here = (tuple(int(v) for v in x) for x in (per_block[by, bx, 0, 0], got[0, 0]))
        return fail(ex, "block_offset", f"블록마다 지도가 다릅니다 (블록 ({bx}, {by})의 스레드 (0, 0) → {there}, "
                    f"블록 (0, 0)에서는 {here}): 이 함수에서는 blockIdx 를 쓰지 마세요. 블록의 위치(blockIdx·BM, "
                    "blockIdx·BN)는 커널이 더하고, 이 함수는 블록 타일 **안**의 위치만 돌려줍니다.")
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
    col_row = _sub_tile_variant(lambda tx, ty: (tx * TN, ty * TM))
    launch = regblock_with(tile=student)
    if (got == col_row).all():
        return fail(ex, "return_order", "돌려주는 두 값의 순서가 바뀌었습니다: 함수는 (thread_row, thread_col), 곧 (행, 열) "
                    "순서로 돌려줘야 하는데, 여러분의 답은 열 위치를 먼저, 행 위치를 나중에 돌려줍니다.",
                    f"  예: (tx=1, ty=0) → {tuple(int(v) for v in got[0, 1])} (기대: (0, {TN}))")
    if (got == swapped).all():
        return fail(ex, "swapped_xy", "tx 와 ty 가 바뀌었습니다: threadIdx.x 는 열(N 방향), threadIdx.y 는 행(M 방향)을 "
                    f"따라갑니다. 이 블록은 {BLOCK[0]}×{BLOCK[1]} 스레드라 둘을 바꾸면 부분 타일이 블록 타일 밖으로 "
                    "나갑니다.", f"  예: (tx={BLOCK[0] - 1}, ty=0) → 행 {(BLOCK[0] - 1) * TM}, 열 0 (블록 타일은 "
                    f"{BM}×{BN})")
    if (got == mixed).all():
        return fail(ex, "tm_tn_mixed", f"TM 과 TN 이 바뀌었습니다: 행 간격은 TM = {TM}, 열 간격은 TN = {TN}입니다 "
                    "(스레드 타일이 정사각이 아니면 둘을 구별해야 합니다).", *_coverage_lines(cover),
                    *(_gemm_picture(launch) if outside is None else []))
    if outside:
        tx, ty, r, c = outside
        return fail(ex, "out_of_tile", f"스레드 (tx={tx}, ty={ty})의 부분 타일(행 {r}..{r + TM - 1}, 열 "
                    f"{c}..{c + TN - 1})이 블록 타일({BM}×{BN}) 밖으로 나갑니다: 이웃한 스레드의 간격이 부분 타일의 "
                    "크기(TM 행, TN 열)와 같은지 보세요. 이 함수에서 블록의 위치(blockIdx)를 더했다면 빼세요: 그것은 "
                    "커널이 더합니다.")
    if (cover != 1).any():
        twice = np.argwhere(cover > 1)
        r, c = twice[0] if len(twice) else np.argwhere(cover == 0)[0]
        owners = [f"(tx={tx}, ty={ty})" for ty in range(BLOCK[1]) for tx in range(BLOCK[0])
                  if got[ty, tx, 0] <= r < got[ty, tx, 0] + TM and got[ty, tx, 1] <= c < got[ty, tx, 1] + TN]
        who = "스레드 " + ", ".join(owners[:3])
        return fail(ex, "overlap", "부분 타일이 서로 겹치거나 비는 곳이 있어, 아무도 맡지 않는 C 원소가 생깁니다"
                    + (f": {josa(f'원소 ({r}, {c})', '을/를')} {josa(who, '이/가')} 함께 "
                       "맡습니다." if len(owners) > 1 else ".")
                    + f" 이웃 스레드의 부분 타일은 행으로 TM = {TM}, 열로 TN = {TN}만큼 떨어져야 합니다.",
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


def _shapes(ex_id, launch, refine=None, product=None):
    """Run SHAPES; the first wrong result is diagnosed (gemm, then `refine(res, A, B, C0, C, shape)` if given)."""
    for shape in SHAPES:
        with context(_shape_line(*shape)):
            A, B, C0, C, report = _run(launch, *shape)
        res = gemm(ex_id, C, A, B, C0, shape[3], shape[4], tile=(BM, BN), BK=BK, report=report,
                   **({"product": product} if product else {}))
        if not res.ok or res.code == "race":
            if refine is not None:
                res = refine(res, A, B, C0, C, shape) or res
            res.details.insert(0, _shape_line(*shape))
            return res
    return passed(ex_id, "numpy 와 일치" + ("하고, 경쟁 검출기도 조용합니다." if device.SIMULATOR else "합니다."))


# ------------------------------------------------------------------ 07-2 cooperative-load map

# (rows, cols, passes): the exercise's As and Bs first, then other tiles the same map must fill (cols divides THREADS)
LOAD_TILES = ((BM, BK, A_PASSES), (BK, BN, B_PASSES), (16, 16, 2), (64, 8, 4), (4, 64, 2), (8, 16, 1))
PITCH = 64                     # floats per row of A and B when counting sectors (a multiple of 8: rows 32 B aligned)


def _load_maps(student):
    """[(name, map, rows, cols)]: the student's (row, col) per (tid, pass) for every tile of LOAD_TILES, computed on
    the device."""
    @cuda.jit
    def k(out, rows, cols, passes):
        tid = cuda.threadIdx.x
        for p in range(passes):
            r, c = student(tid, p, rows, cols)
            out[tid, p, 0] = r
            out[tid, p, 1] = c
    names = ["As", "Bs"] + [f"{r}×{c} 타일" for r, c, _ in LOAD_TILES[2:]]
    maps = []
    for name, (rows, cols, passes) in zip(names, LOAD_TILES):
        out = np.full((THREADS, passes, 2), -1, np.int64)
        k[1, THREADS](out, rows, cols, passes)
        maps.append((name, out, rows, cols))
    return maps


def _tile_picture(name, stores, rows, cols):
    """How many stores each element of a shared tile gets (· none, 1, 2, ...), as text."""
    out = ["", f"  {name} ({rows}×{cols})의 원소마다 저장 횟수 (· = 아무도 쓰지 않음 → 시뮬레이터에서는 NaN):"]
    for i in range(rows):
        out.append("  " + "".join("·" if v == 0 else str(min(v, 9)) for v in stores[i]))
    return out


def sectors(got):
    """32-byte global-memory sectors the warps touch, summed over warps and passes, when thread tid loads
    X[row, col] of a row-major matrix with PITCH floats per row (the map's coalescing: fewer is better)."""
    total = 0
    for w in range(0, THREADS, 32):
        for p in range(got.shape[1]):
            total += len({(int(r) * PITCH + int(c)) * 4 // 32 for r, c in got[w:w + 32, p]})
    return total


def _row_major(rows, cols, passes):
    """The reference map (consecutive threads along a row) for counting sectors."""
    stride = THREADS // cols
    return np.array([[(t // cols + p * stride, t % cols) for p in range(passes)] for t in range(THREADS)])


@exercise("07-2", "협력적 로딩: 스레드가 채우는 공유 메모리 원소", "4.4절",
          hints=("한 패스에서 블록의 모든 스레드가 타일의 연속한 원소를 하나씩 채우고, 패스마다 그다음 행들로 "
                 "내려갑니다. 이웃한 스레드가 한 행의 이웃한 원소를 맡으면 워프의 로드가 글로벌 메모리의 연속한 바이트가 "
                 "됩니다(코얼레싱, coalescing).",
                 "한 행은 cols 개의 원소입니다. 스레드 128개가 한 패스에 몇 행을 채우나요? tid 가 1 늘면 행과 열 중 어느 "
                 "것이 움직여야 하나요?"),
          questions={
              "out_of_tile": "타일 밖으로 나간 tid 와 패스에서 행과 열을 계산해 보세요. rows 와 cols 중 무엇으로 "
                             "나누고 있나요? 같은 함수가 As(32×8)와 Bs(8×32) 둘 다에 맞나요?",
              "overlap": "같은 원소를 채운 두 (tid, 패스)를 보세요. 패스가 하나 늘 때 행은 몇 행 내려가야 하나요?",
              "pass_repeat": "패스 번호 p 가 바뀌면 이 스레드가 채우는 원소도 바뀌나요?",
              "uncoalesced": "tid 와 tid + 1 이 읽는 두 글로벌 메모리 원소는 메모리에서 이웃해 있나요? 행 우선 행렬에서 이웃한 "
                             "주소는 같은 행의 이웃한 열입니다.",
              "host_helper": "이 장치 함수가 부르는 함수는 GPU 에서 돌 수 있는 @cuda.jit 함수인가요?",
          },
          solution="answers/ch07/ex07_coop_load.py::load_coords", name="my_load_coords",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda
from course.ch07_register_blocking.exercises import BM, BN, BK, TM, TN, BLOCK, THREADS   # 07-1 과 같은 연습용 설정 (128 스레드)
''', template='''
@cuda.jit(device=True)
def my_load_coords(tid, p, rows, cols):
    """THREADS 개 스레드가 rows×cols 공유 타일을 채울 때, 스레드 tid 가 패스 p 에서 저장하는 원소의 (행, 열)."""
    raise NotImplementedError("스레드 tid 가 패스 p 에서 채울 (행, 열)을 돌려주세요: 이웃한 tid 가 이웃한 원소를 맡도록")
''')
def check_load_coords(student):
    ex = "07-2"
    with probe.watching(shared=False) as rec:
        maps = _load_maps(student)
    bad = _host_call(ex, rec)
    if bad:
        return bad
    launch = regblock_with(load=student)
    for name, got, rows, cols in maps:
        passes = got.shape[1]
        outside = [(t, p, *got[t, p]) for t in range(THREADS) for p in range(passes)
                   if not (0 <= got[t, p, 0] < rows and 0 <= got[t, p, 1] < cols)]
        if outside:
            t, p, r, c = (int(v) for v in outside[0])
            return fail(ex, "out_of_tile", f"{name} ({rows}×{cols}): {josa(f'tid = {t}', '이/가')} 패스 {p}에서 "
                        f"{josa(f'({r}, {c})', '을/를')} 채우려 합니다 — 타일 밖입니다 ({len(outside)}곳). 열은 한 행 "
                        "안에서 tid 와 함께 움직이고, 한 패스가 덮는 행 수는 THREADS 를 cols 로 나눈 값입니다 (rows 와 "
                        "cols 가 바뀌지 않았는지, 같은 함수가 모든 타일 모양에 맞는지 보세요).",
                        *([] if name in ("As", "Bs") else ["  (연습용 커널의 As, Bs 말고도 같은 규칙이 맞아야 하는 다른 "
                                                           "타일 모양으로도 불렀습니다.)"]))
    for name, got, rows, cols in maps:
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
        pic = _tile_picture(name, stores, rows, cols) + (_gemm_picture(launch, map_note=False) if name in ("As", "Bs") else [])
        if all(len({t for t, _ in ws}) == 1 for _, ws in dup):
            return fail(ex, "pass_repeat", f"{name}: {josa(f'tid = {w[0][0]}', '이/가')} 패스 {josa(w[0][1], '과/와')} "
                        f"{w[1][1]}에서 같은 원소 {josa(f'({r}, {c})', '을/를')} 채우고, 다른 행은 아무도 채우지 않습니다: "
                        f"패스 p 마다 {stride}행씩 내려가야 합니다.", *pic)
        pairs = ", ".join(f"tid = {t}의 패스 {p}" for t, p in w[:3])
        return fail(ex, "overlap", f"{name}: 서로 다른 스레드가 같은 원소 {josa(f'({r}, {c})', '을/를')} 채우고({pairs}), "
                    f"그만큼 빈 원소가 생깁니다. 패스 하나는 {stride}행을 덮으니, 패스 p 의 행은 패스마다 "
                    f"{stride}행씩 내려가야 합니다. 경쟁 검출기가 이것을 쓰기-쓰기 경쟁(WAW)으로 보고해도 배리어로 고칠 "
                    "문제가 아닙니다: 지도가 겹치는 것이 원인입니다.", *pic)
    res = _shapes(ex, launch)
    if not res.ok:
        return res
    for name, got, rows, cols in maps[:2]:
        mine, best = sectors(got), sectors(_row_major(rows, cols, got.shape[1]))
        if mine > best:
            n_req = (THREADS // 32) * got.shape[1]
            return technique(ex, "uncoalesced", "코얼레싱된(coalesced) 글로벌 메모리 로드", f"{name} 타일을 채울 때 워프의 로드 "
                             f"한 번이 32바이트 섹터를 평균 {mine / n_req:.1f}개 건드립니다(이웃한 스레드가 한 행의 이웃한 "
                             f"원소를 맡으면 {best / n_req:.1f}개). 이웃한 스레드가 글로벌 메모리에서 멀리 떨어진 주소를 읽어 "
                             "메모리 트랜잭션이 늘어납니다.",
                             f"  (행 우선 행렬, 행마다 float {PITCH}개로 센 값입니다.)")
    return passed(ex, f"As({BM}×{BK})와 Bs({BK}×{BN}), 그리고 다른 타일 모양 {len(maps) - 2}가지의 원소를 {THREADS} "
                  "스레드가 정확히 한 번씩 채우고, 워프의 로드가 코얼레싱되며, 커널 결과도 numpy 와 일치합니다"
                  + (" (경쟁 검출기: 경쟁 없음)." if device.SIMULATOR else "."))


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


MICRO_PRODUCT = "rA, rB 를 읽는 인덱스(As 의 행 thread_row + m 과 열 k, Bs 의 행 k 와 열 thread_col + n)"


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
            ms = ", ".join(str(int(m)) for m in np.flatnonzero(rows_bad))
            return fail(res.exercise, "ra_index", f"모든 스레드에서 스레드 타일의 같은 행(m = {ms})이 통째로 틀립니다: "
                        "행 m 의 모든 열에 같은 rA[m] 이 곱해지니, rA[m] 을 As 의 어느 행에서 읽는지 확인하세요.",
                        *_fold_picture(fold), _first_tile(bad))
        if fold.any() and (fold == cols_bad[None, :]).all():
            ns = ", ".join(str(int(n)) for n in np.flatnonzero(cols_bad))
            return fail(res.exercise, "rb_index", f"모든 스레드에서 스레드 타일의 같은 열(n = {ns})이 통째로 틀립니다: "
                        "열 n 의 모든 행에 같은 rB[n] 이 곱해지니, rB[n] 을 Bs 의 어느 열에서 읽는지 확인하세요.",
                        *_fold_picture(fold), _first_tile(bad))
        # the checker's kernel maps the threads (07-1's map is fixed here), so a pattern repeated in every thread tile
        # comes from the micro-kernel's own indices into rA, rB and rC
        return fail(res.exercise, "micro_index", "모든 스레드 타일에서 같은 자리 (m, n) 의 원소가 틀립니다(아래 그림의 "
                    "■): 스레드와 원소의 대응은 확인용 커널이 정하므로, 원인은 마이크로커널 안의 인덱스입니다. rC[m, n] 에 "
                    f"rA[m]·rB[n] 을 더하는지(곱하는 레지스터의 인덱스가 바뀌지 않았는지), 그리고 {MICRO_PRODUCT}도 "
                    "확인하세요.", *_fold_picture(fold), _first_tile(bad))
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
        return fail(res.exercise, "overwrite", f"C 에 마지막 k(= {last})의 곱 하나만 남았습니다: rC[m, n] 에 "
                    "rA[m]·rB[n] 을 더하지 않고 덮어쓰고 있습니다.", _first_tile(bad))
    tried = set()
    for size in (BK - 1, 1, *range(BK - 2, 1, -1)):          # one k missing, one k left, then any other k set
        for kept in itertools.combinations(range(BK), size):
            ks = tuple(k for k in range(K) if k % BK in kept)
            if not 0 < len(ks) < K or ks in tried:
                continue
            tried.add(ks)
            if not close(C, *reference(A, B, C0, alpha, beta, list(ks))).all():
                continue
            gone = [j for j in range(BK) if j not in kept]
            if size == 1:
                return fail(res.exercise, "one_k_per_tile", f"K 타일마다 k = {kept[0]} 하나의 곱만 더해졌습니다: "
                            f"마이크로커널이 K 타일의 k {BK}개를 모두 돌며 rA, rB 를 k 마다 새로 읽는지 확인하세요.",
                            _first_tile(bad))
            return fail(res.exercise, "missing_k", f"K 타일마다 k = {', '.join(map(str, gone))}의 곱"
                        f"{'만' if len(gone) == 1 else '이'} 빠졌습니다"
                        + ("" if len(gone) == 1 else f" (더해진 것은 k = {', '.join(map(str, kept))})")
                        + f": 마이크로커널의 k 루프가 K 타일의 k {BK}개를 모두 도는지 (범위의 시작과 끝"
                        + ("" if len(gone) == 1 else ", 간격") + ") 확인하세요.", _first_tile(bad))
    return None


def _unfilled_registers(launch):
    """A failure naming the local (register) array a thread read before writing it, from one traced run of one block
    and one K tile (None)."""
    M, N, K, alpha, beta = BM, BN, BK, 1.0, 0.0
    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    try:
        with probe.recording(blocks=[(0, 0)], shared=False, local_arrays=True) as rec:
            launch(A, B, np.zeros((M, N), np.float32), alpha, beta)
    except Exception:
        pass
    u = next((u for u in rec.unwritten if probe.is_user_file(u.site[0])), None) if rec.unwritten else None
    if u is None:
        return None
    idx = ", ".join(map(str, u.index))
    return fail("07-3", "register_unfilled", f"레지스터 배열 {u.array}[{idx}]에 아무것도 쓰기 전에 읽었습니다 "
                f"({probe.line_text(u.site)}): 시뮬레이터는 로컬 배열을 NaN 으로 채우므로 그 값이 곱해진 C 가 NaN 이 "
                f"됩니다. k 마다 {josa(u.array, '을/를')} 공유 타일에서 먼저 채운 뒤에 곱하세요.",
                f"  스레드 {u.thread[:2]}, 블록 (0, 0)", where=probe.line_text(u.site))


def _reuse(launch):
    """Shared-memory reads of one thread in one K tile (K = BK): (reads, distinct elements, first repeated site)."""
    A = np.ones((BM, BK), np.float32)
    B = np.ones((BK, BN), np.float32)
    with probe.recording(blocks=[(0, 0)]) as rec:
        launch(A, B, np.zeros((BM, BN), np.float32), 1.0, 0.0)
    reads = [e for e in rec.thread((0, 0), (0, 0)) if e.kind == "sread" and e.what in ("As", "Bs")
             and probe.is_user_file(e.site[0] if e.site else "")]
    seen, again = set(), None
    for e in reads:
        k = (e.what, e.args)
        if k in seen and again is None:
            again = e
        seen.add(k)
    return len(reads), len(seen), again


# the micro-kernel's arrays: name, shape, what the shape is made of, how it is indexed
_MICRO_ARRAYS = (("As", (BM, BK), f"BM×BK = {BM}×{BK}", "As[행, k]"), ("Bs", (BK, BN), f"BK×BN = {BK}×{BN}", "Bs[k, 열]"),
                 ("rA", (TM,), f"TM = {TM}개", "rA[m], m < TM"), ("rB", (TN,), f"TN = {TN}개", "rB[n], n < TN"),
                 ("rC", (TM, TN), f"TM×TN = {TM}×{TN}", "rC[m, n], m < TM, n < TN"))


def _overrun(text):
    """Which of the micro-kernel's arrays the IndexError `text` ('index 2 is out of bounds for axis 1 with size 2')
    fits, told by the axis and its size, and how that array is indexed; all of them when it fits none or several."""
    m = re.search(r"axis (\d+) with size (\d+)", text)
    fits = [a for a in _MICRO_ARRAYS if m and int(m.group(1)) < len(a[1]) and a[1][int(m.group(1))] == int(m.group(2))]
    if len(fits) == 1:
        name, shape, size, how = fits[0]
        axis = int(m.group(1))
        what = ("" if len(shape) == 1 else ("(첫 축: " if axis == 0 else "(둘째 축: ") + f"크기 {shape[axis]}) ")
        return (f"넘친 배열은 {josa(name, '이고/고')}, 모양은 {size}입니다 {what}— 인덱스 순서는 {how}. 위치에 나온 줄에서 "
                f"{name} 의 인덱스에 쓰는 루프 변수가 그 축의 범위 안에서 도는지 보세요.")
    return " ".join(f"{josa(name, '은/는')} {size}, {how}." for name, _, size, how in _MICRO_ARRAYS) + \
        " 위치에 나온 줄의 인덱스 순서와 범위를 이 모양과 맞춰 보세요."


@exercise("07-3", "외적 마이크로커널", "3.3절·4.5절",
          hints=("외적(outer product)에서는 k 하나마다 A 의 한 열 조각과 B 의 한 행 조각을 레지스터에 한 번씩 읽어 두고, "
                 "그 값들로 스레드 타일의 모든 곱을 만듭니다. 공유 메모리 읽기는 k 마다 TM 번과 TN 번뿐입니다.",
                 "k 가 하나 늘 때 rA[m] 은 As 의 어느 행, 어느 열에서 와야 하나요? rB[n] 은 Bs 의 어디에서요? 그리고 "
                 "rC[m, n] 에는 곱을 어떻게 반영하나요?"),
          questions={
              "ra_index": "틀린 행 m 에서 rA[m] 을 읽는 As 의 행 번호는 m 에 따라 바뀌나요?",
              "rb_index": "틀린 열 n 에서 rB[n] 을 읽는 Bs 의 열 번호는 n 에 따라 바뀌나요?",
              "overwrite": "rC[m, n] 에 곱을 쓰는 줄은 이전 값에 더하나요, 덮어쓰나요?",
              "one_k_per_tile": "k 루프는 몇 번 도나요? rA, rB 를 읽는 줄이 그 루프 안에 있나요?",
              "missing_k": "k 루프의 범위는 어디서 시작해 어디서 끝나나요? BK 개를 모두 도나요?",
              "acc_reset": "이 함수 안에서 rC 를 0 으로 만드는 곳이 있나요? rC 를 처음 0 으로 만드는 것은 누구의 일인가요?",
              "register_unfilled": "그 줄에서 읽는 레지스터 배열에는 언제 값이 들어가나요? 읽기보다 먼저인가요?",
              "micro_index": "그림에서 틀린 자리 (m, n) 에서 rC[m, n] 에 더하는 곱은 rA 와 rB 의 몇 번째 원소인가요? "
                             "m 과 n 이 제자리에 있나요?",
              "out_of_bounds": "As 의 모양은 (BM, BK), Bs 는 (BK, BN), rC 는 (TM, TN) 입니다. 위치에 나온 줄의 인덱스 순서와 "
                               "범위가 그 모양과 "
                               "맞나요?",
              "no_register_reuse": "k 하나에서 As 의 같은 원소를 몇 번 읽나요? 한 번 읽어 레지스터에 둔 값을 여러 곱에 "
                                   "다시 쓸 수 있나요?",
              "all_wrong": "As 와 Bs 를 읽는 두 줄의 인덱스에서 k 가 각각 어느 자리에 있나요?",
          },
          solution="answers/ch07/ex07_micro.py::micro_kernel", name="my_micro_kernel",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
from course.ch07_register_blocking.exercises import BM, BN, BK, TM, TN, BLOCK, THREADS   # 07-1 과 같은 연습용 설정
''', template='''
@cuda.jit(device=True)
def my_micro_kernel(As, Bs, rC, thread_row, thread_col):
    """K 타일 하나의 외적: k 마다 rA[TM], rB[TN] 을 As, Bs 에서 읽고 rC[m, n] += rA[m]·rB[n] (rC 는 TM×TN)."""
    rA = cuda.local.array(TM, float32)      # 레지스터: As 의 한 열 중 이 스레드의 TM 개
    rB = cuda.local.array(TN, float32)      # 레지스터: Bs 의 한 행 중 이 스레드의 TN 개
    raise NotImplementedError("k = 0..BK-1 루프: rA, rB 를 읽고 외적으로 rC 에 더하세요")
''')
def check_micro(student):
    launch = regblock_with(micro=student)
    try:
        res = _shapes("07-3", launch, refine=_refine_micro, product=MICRO_PRODUCT)
    except IndexError as exc:
        res = explain_exception("07-3", exc, student)
        res.message = "배열 밖을 읽거나 썼습니다 (index out of bounds): " + _overrun(str(exc))
        return res
    if not res.ok and res.code in ("nan", "all_wrong", "wrong_values", "per_thread") and device.SIMULATOR:
        unfilled = _unfilled_registers(launch)
        if unfilled is not None:
            unfilled.details[:0] = res.details[:1]
            return unfilled
    if res.ok and device.SIMULATOR:
        reads, distinct, again = _reuse(launch)
        if reads > distinct:
            return technique("07-3", "no_register_reuse", "rA·rB 레지스터", f"소스를 한 줄씩 실행해 보니(시뮬레이터) "
                             f"스레드 하나가 K 타일 하나에서 공유 메모리를 {reads}번 읽고, 서로 다른 원소는 {distinct}개"
                             f"뿐입니다. 컴파일된 코드에서는 NVVM 이 펼쳐진 루프의 같은 원소 읽기를 스스로 하나로 합쳐 "
                             f"레지스터에 두기도 하므로, GPU 에서 읽기가 꼭 {reads}번인 것은 아닙니다. 그래도 이 과제는 "
                             f"그 재사용을 컴파일러에 맡기지 않고 코드에 드러내는 기법을 연습합니다: k 마다 rA[TM], "
                             f"rB[TN] 에 한 번씩 읽어 두고 그 레지스터로 곱하세요 (k 마다 읽기 {TM + TN}번, "
                             f"곱 {TM * TN}번). 그러면 읽기 횟수는 컴파일러의 판단이 아니라 "
                             f"코드가 정합니다.",
                             f"  다시 읽은 곳: {probe.line_text(again.site)}" if again else "",
                             where=probe.line_text(again.site) if again else "")
    return res


# ------------------------------------------------------------------ 07-4 register-limited blocks

THREAD_CASES = (1, 16, 31, 32, 33, 48, 64, 96, 100, 129, 160, 200, 256, 300, 384, 480, 512, 640, 700, 768, 1000, 1024)


def _warps(t):
    return -(-t // 32)


def _right(regs, t, unit=256, sub=4, warps=_warps, block_limit=True, block_sub=4):
    per_warp = -(-regs * 32 // unit) * unit
    w = warps(t)
    if w == 0:
        return None
    if block_limit and per_warp * (-(-w // block_sub) * block_sub) > 65536:
        return 0
    return (65536 // sub // per_warp) * sub // w


def _reg_variants():
    """Wrong-but-typical versions of the register rule: (code, message, function(regs, threads), ...)."""
    units = [(u, f"워프당 레지스터를 {u}개 단위로 올렸습니다: 레지스터는 워프마다 256개 단위로 할당되므로 워프 "
                 "하나가 쓰는 레지스터 수를 256 의 배수로 올려야 합니다 (스레드당 수를 8의 배수로 올리는 것과 같음).")
             for u in (32, 64, 128, 512, 1024)]
    h100 = occ.GPUS["H100"]
    max_w, max_b = h100.max_warps_per_sm, h100.max_blocks_per_sm
    few = 8
    small = occ.occupancy(h100, few, 256)
    return [
        ("other_limits", f"레지스터 한도만 세세요: SM당 워프 {max_w}개 한도와 블록 {max_b}개 한도는 이 함수에 넣지 "
         "않습니다. 3.5절 계단 표의 'SM당 … 블록' 은 그 한도까지 적용한 값이고, 이 문제의 답은 그 앞의 '레지스터 "
         f"한도' 열입니다 (레지스터가 적으면 둘이 다릅니다: 256 스레드, 레지스터 {few}개면 레지스터 한도 "
         f"{small.limits['registers']}블록, SM당 {small.blocks_per_sm}블록).",
         lambda r, t: min(_right(r, t), max_w // _warps(t)), lambda r, t: min(_right(r, t), max_b),
         lambda r, t: min(_right(r, t), max_w // _warps(t), max_b)),
        ("no_alloc_unit", "워프당 레지스터를 256개 단위로 올림하지 않았습니다: 레지스터는 워프마다 256개씩 할당되므로 "
         "워프 하나가 쓰는 레지스터 수를 256 의 배수로 올려야 합니다 (스레드당 수를 8의 배수로 올리는 것과 같음).",
         lambda r, t: _right(r, t, unit=1)),
        *[("no_alloc_unit", msg, lambda r, t, u=u: _right(r, t, unit=u)) for u, msg in units],
        ("no_subpartition", "서브파티션을 빠뜨렸습니다: 레지스터 파일은 16,384개씩 4조각이고 워프 하나는 한 조각에만 "
         "삽니다. 65,536 을 통째로 나누지 말고 조각마다 들어가는 워프 수에 4를 곱해 세세요.",
         lambda r, t: _right(r, t, sub=1), lambda r, t: _right(r, t, sub=1, block_sub=1)),
        ("warps_round_down", "블록의 워프 수를 내림으로 셌습니다: 32의 배수가 아닌 블록의 남는 스레드도 워프 하나를 통째로 "
         "씁니다 (33 스레드는 워프 2개). 워프 수는 올림입니다.",
         lambda r, t: _right(r, t, warps=lambda x: x // 32)),
        ("block_threads", "블록을 스레드 수로 나눴습니다: 레지스터를 워프 단위로 주듯 블록도 워프 단위로 올라가므로, 32의 "
         "배수가 아닌 블록(예: 33 스레드)은 워프 2개, 1 스레드 블록도 워프 1개를 통째로 씁니다. SM 에 들어가는 워프 수를 "
         "블록의 워프 수(올림)로 나누세요.",
         lambda r, t: (65536 // 4 // (-(-r * 32 // 256) * 256)) * 4 * 32 // t),
        ("block_alloc", "레지스터를 블록 전체(regs × threads)로 묶어 256개 단위로 올렸습니다: 할당 단위는 블록이 아니라 "
         "워프입니다. 워프 하나가 쓰는 regs × 32 를 256 의 배수로 올리고, 레지스터 파일은 16,384개씩 4조각(서브파티션)이라 "
         "워프 하나는 한 조각에만 사니, 조각마다 들어가는 워프 수에 4를 곱한 뒤 블록의 워프 수(올림)로 내림 나눗셈을 "
         "하세요.", lambda r, t: 65536 // (-(-r * t // 256) * 256),
         lambda r, t: (65536 // 4 // (-(-r * t // 256) * 256)) * 4),
        ("division", "65,536 ÷ (레지스터 × 스레드) 나눗셈 어림입니다: 할당 단위(256), 서브파티션(4), 블록 단위 세 "
         "규칙을 모두 넣어야 합니다.", lambda r, t: 65536 // (r * t)),
    ]


@exercise("07-4", "레지스터가 허락하는 블록 수", "3.5절",
          hints=("레지스터는 스레드마다가 아니라 워프마다, 정해진 단위로 나눠 줍니다. 레지스터 파일은 서브파티션 네 "
                 "조각으로 나뉘어 워프 하나는 한 조각에만 살고, 블록은 통째로만 SM 에 올라갑니다. 32의 배수가 아닌 "
                 "블록도 생각하세요.",
                 "regs = 33, threads = 33 이면 워프는 몇 개이고, 워프 하나는 레지스터를 몇 개 받나요? 16,384개짜리 조각 "
                 "하나에 그런 워프가 몇 개 들어가나요?"),
          questions={
              "no_alloc_unit": "워프 하나가 받는 레지스터 수는 regs·32 그대로인가요, 어떤 단위로 올림한 값인가요?",
              "no_subpartition": "65,536개를 한꺼번에 나누고 있나요? 워프는 어느 조각에 사나요?",
              "warps_round_down": "threads = 33 이면 워프는 몇 개인가요? 여러분의 식은 몇 개로 세나요?",
              "block_threads": "threads = 33 인 블록은 워프 몇 개, 곧 스레드 자리 몇 개를 차지하나요? 여러분의 식은 "
                               "SM 에 들어가는 스레드를 무엇으로 나누나요?",
              "block_alloc": "레지스터는 블록마다 나눠 주나요, 워프마다 나눠 주나요? 33 스레드 블록의 워프는 몇 개인가요?",
              "division": "세 규칙(할당 단위, 서브파티션, 블록 단위) 중 어느 것이 여러분의 식에 들어 있나요?",
              "zero_division": "threads 가 32보다 작을 때 여러분의 워프 수는 얼마인가요?",
              "not_whole_blocks": "블록 수를 나누는 연산은 정수 나눗셈인가요?",
              "other_limits": "이 함수가 세는 것은 레지스터만의 한도인가요, 워프 수·블록 수 한도까지 적용한 SM당 "
                              "블록 수인가요? 3.5절 표의 두 열 중 어느 것인가요?",
              "mismatch": "예로 나온 (regs, threads) 를 손으로 세 규칙에 따라 계산해 보세요. 어느 단계에서 값이 "
                          "달라지나요?",
              "uses_model": "여러분의 함수는 블록 수를 직접 계산하나요, 점유율 모델에게 물어보나요? 세 규칙을 각각 "
                            "한 줄씩 써 보세요.",
          },
          solution="answers/ch07/ex07_occupancy.py::register_limited_blocks", name="my_register_limited_blocks",
          template='''
def my_register_limited_blocks(regs, threads):
    """스레드당 레지스터 regs 개, 블록 threads 스레드일 때 레지스터만으로 SM 하나에 올라가는 블록 수 (정수)."""
    raise NotImplementedError("1) 워프당 256개 단위로 올림  2) 서브파티션 4개  3) 블록 단위 — 세 규칙을 차례로")
''')
def check_register_blocks(student):
    ex = "07-4"
    cases = [(r, t) for t in THREAD_CASES for r in range(1, 256)]
    want = {(r, t): occ.occupancy("H100", r, t).limits["registers"] for r, t in cases}
    got = {}
    with probe.recording(model_files=(probe.model_file(occ),), shared=False) as rec:
        bad = _register_blocks_of(student, cases, want, got)
    used = next((c for c in rec.model_calls if c.name in _OCCUPANCY_ANSWERS), None)
    if used is not None:         # the model is what the check compares with: an answer taken from it checks nothing
        site = probe.line_text(used.site)
        return fail(ex, "uses_model", f"점유율 모델의 {josa(f'`{used.name}`', '을/를')} 불러 답을 얻고 있습니다 "
                    f"({os.path.relpath(used.file, probe.ROOT)}): 그 모델이 바로 확인 셀이 비교하는 정답이라, 이렇게 "
                    "하면 아무것도 확인하지 못합니다. 세 규칙(워프당 256개 단위로 올림, 서브파티션 4개, 블록 단위)을 "
                    "직접 계산하세요.", f"  부른 곳: {site}" if site else "", where=site)
    if bad is not None:
        return bad
    wrong = [c for c in cases if got[c] != want[c]]
    if not wrong:
        return passed(ex, f"레지스터 1–255개 × 블록 {len(THREAD_CASES)}가지 크기(32의 배수가 아닌 것과 32 미만 포함), "
                      f"{len(cases)}가지 모두 모델(sim/occupancy.py)과 같습니다.")
    for code, msg, *fs in _reg_variants():
        for f in fs:
            vals = {}
            for c in cases:
                try:
                    vals[c] = f(*c)
                except ZeroDivisionError:
                    vals[c] = None
            if all(got[c] == vals[c] for c in cases if vals[c] is not None):
                return fail(ex, code, msg, _example(wrong[0], got, want))
    return fail(ex, "mismatch", f"{len(cases)}가지 중 {len(wrong)}가지에서 모델과 다릅니다.", _example(wrong[0], got, want),
                "  3.5절 계단 표의 '레지스터 한도' 열과 비교해 보세요. 그 표는 256 스레드 블록만 보여 주므로, 예의 블록 "
                "크기가 다르면 세 규칙을 손으로 따라가 보세요. 'SM당 … 블록' 은 워프·블록 수 한도까지 적용한 값이라 이 "
                "문제의 답이 아닙니다.")


# the model's functions that give 07-4's answer (a student's function may read a GpuSpec's constants, not these)
_OCCUPANCY_ANSWERS = {"occupancy", "sweep_registers", "occupancy_of_kernel", "_check", "_pick_limiter"}


def _register_blocks_of(student, cases, want, got):
    """Fill got[(regs, threads)] with the student's block counts; the first failure of one call, or None."""
    ex = "07-4"
    for r, t in cases:
        try:
            v = student(r, t)
        except ZeroDivisionError as exc:
            site = probe.line_text(_student_site(exc.__traceback__))
            return fail(ex, "zero_division", f"regs = {r}, threads = {t}에서 0 으로 나눴습니다: 스레드가 32개보다 적은 "
                        "블록도 워프 하나를 통째로 씁니다. 블록의 워프 수는 올림으로 셉니다.",
                        f"  모델: {want[r, t]}블록", f"  위치: {site}" if site else "", where=site)
        if isinstance(v, (float, np.floating)) and not float(v).is_integer():
            return fail(ex, "not_whole_blocks", "블록 수가 정수가 아닙니다 "
                        f"(regs = {r}, threads = {t}에서 받은 값 {v!r}): 블록은 통째로만 올라가므로 블록당 워프 수로 내림 "
                        "나눗셈을 하세요.")
        if not isinstance(v, (int, np.integer, float, np.floating)) or isinstance(v, bool):
            return fail(ex, "input", f"정수 하나를 돌려주세요 (regs = {r}, threads = {t}에서 받은 값: {v!r:.60}).")
        got[r, t] = int(v)
    return None


def _example(case, got, want):
    r, t = case
    return f"  예: regs = {r}, threads = {t}에서 여러분의 답 {got[case]}블록, 모델 {want[case]}블록"
