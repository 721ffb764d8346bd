"""Notebook 06 exercises: the padding choice, the cooperative tile load with its two barriers, the bounds check."""
import numpy as np
from numba import cuda, float32

from sim import banks

from .core import exercise, fail, passed
from .diagnose import run_shapes
from sim.korean import josa

TILE = 16


def _wavefronts(pad, k=0):
    """(max wavefronts of the As[ty][tx] store, of the As[ty][k] load) over the warps of a 16×16 block."""
    layout = banks.Layout((TILE, TILE), pad=pad)
    store = banks.analyze(layout, lambda x, y, z: (y, x), (TILE, TILE), kind="store")
    load = banks.analyze(layout, lambda x, y, z: (y, k), (TILE, TILE), kind="load")
    return max(r.wavefronts for r in store), max(r.wavefronts for r in load)


@exercise("06-1", "패딩 고르기", "3.4절, 뱅크 충돌",
          hints=("패딩 p 마다 banks.Layout((16, 16), pad=p) 를 만들고, 저장 As[ty][tx] 는 (y, x), 읽기 As[ty][k] 는 "
                 "(y, 0) 을 돌려주는 람다로 banks.analyze 를 부르세요. 보고서 목록에서 .wavefronts 의 최댓값을 봅니다.",
                 "저장은 kind=\"store\", 읽기는 kind=\"load\" 입니다. 두 최댓값이 모두 1 인 p 만 리스트에 넣으세요 "
                 "(range(max_pad + 1) 을 도는 리스트 내포 하나면 됩니다)."),
          solution="answers/ex06_padding.py::conflict_free_pads", name="my_conflict_free_pads",
          preamble="from sim import banks",
          template='''
def my_conflict_free_pads(max_pad=4):
    """패딩 p = 0..max_pad 중 As[ty][tx] 저장과 As[ty][k] 읽기(k = 0)가 둘 다 워프당 웨이브프론트 1 인 p 의 리스트."""
    raise NotImplementedError("banks.Layout((16, 16), pad=p) 와 banks.analyze(...) 로 두 접근의 웨이브프론트를 세세요")
''')
def check_pads(student):
    got = student(4)
    if not isinstance(got, (list, tuple)) or not all(isinstance(p, (int, np.integer)) for p in got):
        return fail("06-1", "input", f"정수 p 의 리스트를 돌려주세요 (받은 값: {got!r}).")
    got = sorted(set(int(p) for p in got))
    truth = {p: _wavefronts(p) for p in range(5)}
    extra = [p for p in got if p in truth and truth[p] != (1, 1)]
    outside = [p for p in got if p not in truth]
    missing = [p for p in truth if truth[p] == (1, 1) and p not in got]
    lines = [f"  p = {p}: 워프당 웨이브프론트가 저장 {truth[p][0]}, 읽기 {truth[p][1]} — "
             + " · ".join(f"{josa(what, '이/가')} {w}-way 충돌" for what, w in zip(("저장", "읽기"), truth[p]) if w > 1)
             for p in extra]
    if outside:
        return fail("06-1", "range", f"0..max_pad 밖의 p {josa(outside, '이/가')} 들어 있습니다.")
    if extra:
        return fail("06-1", "extra_pad", "충돌이 있는 패딩이 들어 있습니다: 두 접근을 모두 세었는지 보세요.", *lines)
    if missing:
        return fail("06-1", "missing_pad", f"충돌이 없는 패딩 {len(missing)}개를 빠뜨렸습니다: 저장과 읽기가 모두 "
                    "웨이브프론트 1 인지 p 마다 다시 세어 보세요 (패딩이 없는 경우도 후보입니다).")
    return passed("06-1", f"충돌 없는 패딩을 모두 찾았습니다 ({len(got)}개).")


def _square_launch(kernel, tile):
    """launch(A, B, C, alpha, beta) on a tile×tile block grid covering C."""
    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        grid = ((N + tile - 1) // tile, (M + tile - 1) // tile)
        kernel[grid, (tile, tile)](A, B, C, np.float32(alpha), np.float32(beta))
        return C
    return launch


def _check_tiled(ex_id, kernel, tile=8):
    """Ragged shapes (K not a tile multiple), then alpha/beta; the first failure is the diagnosis."""
    return run_shapes(ex_id, _square_launch(kernel, tile), ((20, 11, 13, 1.0, 0.0), (9, 17, 24, 0.5, 2.0)),
                      tile=(tile, tile), BK=tile)


@exercise("06-2", "8×8 타일: 협력적 로딩과 두 배리어", "4.3–4.5절",
          hints=("이 스레드는 A 타일의 (ty, tx) 칸과 B 타일의 (ty, tx) 칸을 맡습니다. t 번째 타일에서 A 의 열은 "
                 "t*T8 + tx, B 의 행은 t*T8 + ty 입니다. 행렬 밖이면 load_or_zero 가 0 을 줍니다.",
                 "배리어 하나는 로드와 k 루프 사이(다른 스레드가 저장한 원소를 읽기 전에), 다른 하나는 k 루프 뒤"
                 "(다음 타일을 저장해 이 타일을 덮어쓰기 전에)입니다."),
          solution="answers/ex06_tile8.py::tiled8", name="my_tiled8",
          preamble='''
from numba import cuda, float32
from course.lesson06 import load_or_zero, store_c, thread_coords
T8 = 8
''', template='''
@cuda.jit
def my_tiled8(A, B, C, alpha, beta):
    """8×8 타일 GEMM: 협력 로드 두 줄과 배리어 두 개(+ 왜 필요한지 주석)를 채우세요."""
    As = cuda.shared.array((T8, T8), float32)
    Bs = cuda.shared.array((T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    acc = float32(0.0)
    for t in range((A.shape[1] + T8 - 1) // T8):
        raise NotImplementedError("As[ty, tx], Bs[ty, tx] 를 load_or_zero 로 채우고 배리어 두 개를 넣으세요")
        for k in range(T8):
            acc += As[ty, k] * Bs[k, tx]
    store_c(C, row, col, acc, alpha, beta)
''')
def check_tiled8(student):
    return _check_tiled("06-2", student)


def _tiled_with(load):
    """The 8×8 tiled kernel of 06-2, with the bounds-checked load replaced by `load` (the student's device function)."""
    from course.lesson06 import store_c, thread_coords

    @cuda.jit
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((8, 8), float32)
        Bs = cuda.shared.array((8, 8), float32)
        tx, ty, row, col = thread_coords(8)
        acc = float32(0.0)
        for t in range((A.shape[1] + 7) // 8):
            As[ty, tx] = load(A, row, t * 8 + tx)
            Bs[ty, tx] = load(B, t * 8 + ty, col)
            cuda.syncthreads()       # the tile is complete before anyone reads it
            for k in range(8):
                acc += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()       # everyone has read it before it is overwritten
        store_c(C, row, col, acc, alpha, beta)
    return kernel


@exercise("06-3", "경계 검사: 행렬 밖은 0", "4.5절",
          hints=("X.shape[0] 이 행 수, X.shape[1] 이 열 수입니다. 인덱스 r, c 가 둘 다 범위 안일 때만 X[r, c] 를 읽으세요.",
                 "범위 밖이면 float32(0.0) 을 돌려줍니다. 0 이어야 하는 이유: 그 원소가 곱해져도 합에 아무것도 더하지 "
                 "않아야 하기 때문입니다 (<= 가 아니라 < 입니다)."),
          solution="answers/ex06_bounds.py::load_or_zero", name="my_load_or_zero",
          preamble="from numba import cuda, float32", template='''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    """행렬 안이면 X[r, c], 밖이면 0 (협력적 로딩의 경계 검사)."""
    raise NotImplementedError("r, c 가 X 의 범위 안인지 검사하고, 밖이면 float32(0.0) 을 돌려주세요")
''')
def check_bounds(student):
    return _check_tiled("06-3", _tiled_with(student))
