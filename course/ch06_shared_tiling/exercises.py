"""Notebook 06 exercises: the padding choice, the cooperative tile load with its two barriers, the bounds check."""
import collections
import functools
import os
import sys

import numpy as np
from numba import cuda, float32

from kernels_numba import common
from kernels_numba.infra import device
from sim import banks
from sim.korean import josa

from course.exercises import probe
from course.exercises.core import exercise, fail, passed, technique
from course.exercises.diagnose import run_shapes

TILE = 16
PADS = (4, 0, 31, 32)    # the notebook's p = 0..4, no padding at all, and around the 32 banks (p = 32 is conflict-free too)


@functools.lru_cache(maxsize=None)
def _wavefronts(pad, k=0):
    """(max wavefronts of the As[ty][tx] store, of the As[ty][k] load) over the warps of a 16×16 block."""
    layout = banks.Layout((TILE, TILE), pad=pad)
    store = banks.analyze(layout, lambda x, y, z: (y, x), (TILE, TILE), kind="store")
    load = banks.analyze(layout, lambda x, y, z: (y, k), (TILE, TILE), kind="load")
    return max(r.wavefronts for r in store), max(r.wavefronts for r in load)


def _watch_analyze(seen, active):
    """Wrap banks.analyze while the student's function runs: per call, whether the access reads one column of each row
    (As[ty][k]: the same index for every tx) or one element per thread of a row (As[ty][tx])."""
    real = banks.analyze

    def analyze(layout, index_fn, block_dim, *args, **kwargs):
        if not active[0]:                  # the checker's own count
            return real(layout, index_fn, block_dim, *args, **kwargs)
        try:
            row = [index_fn(x, 1, 0) for x in range(2)]
            seen.add("read" if row[0] == row[1] else "store")
            kind = kwargs.get("kind", args[1] if len(args) > 1 else "load")
            if kind == "load" and row[0] != row[1]:
                seen.add("load_per_thread")            # counted as a read, with the store's index As[ty][tx]
            shape = tuple(getattr(layout, "shape", ()))
            dims = tuple(block_dim) if isinstance(block_dim, (tuple, list)) else (block_dim,)
            if shape != (TILE, TILE) or dims[:2] != (TILE, TILE):
                seen.add(("shape", shape, dims))
        except Exception:  # noqa: BLE001 — an index_fn of another shape: the real call says what is wrong
            pass
        return real(layout, index_fn, block_dim, *args, **kwargs)
    return real, analyze


@exercise("06-1", "패딩 고르기", "3.4절",
          hints=("뱅크 충돌은 워프 하나의 요청 안에서 생깁니다. 저장과 읽기는 서로 다른 요청이라 따로 세고, 둘 다 "
                 "충돌이 없어야 그 패딩을 고를 수 있습니다. 패딩이 0 인 경우도 후보입니다.",
                 "p 하나를 골라 저장과 읽기의 워프별 웨이브프론트를 각각 출력해 보세요. 두 값을 모두 보고 있나요, 아니면 "
                 "한쪽만 보고 있나요?"),
          questions={
              "extra_pad": "위의 p 에서 저장과 읽기 중 어느 쪽을 세지 않았나요? banks.analyze 를 저장(kind=\"store\")과 "
                           "읽기(kind=\"load\")로 각각 불렀는지 보세요.",
              "missing_pad": "빠진 p 에서 여러분의 함수는 두 접근의 웨이브프론트를 몇으로 셌나요? 조건이 너무 엄격하지 "
                             "않은지, 후보 p 를 max_pad 까지 모두 돌았는지 보세요.",
              "read_index": "읽기 `As[ty][k]` 에서 한 행의 스레드(tx = 0, 1, …)는 같은 원소를 읽나요, 서로 다른 원소를 "
                            "읽나요? 여러분의 index_fn 은 어느 쪽인가요?",
              "range": "후보 p 는 어디서 어디까지인가요? max_pad 자신은 들어가나요, 그보다 큰 값은요?",
              "input": "함수가 돌려주는 것이 정수 p 들의 리스트인가요?",
          },
          solution="answers/ch06/ex06_padding.py::conflict_free_pads", name="my_conflict_free_pads",
          preamble="from sim import banks",
          template='''
def my_conflict_free_pads(max_pad=4):
    """패딩 p = 0..max_pad 중 As[ty][tx] 저장과 As[ty][k] 읽기(k = 0)가 둘 다 워프당 웨이브프론트 1 인 p 의 리스트."""
    raise NotImplementedError("banks.Layout((16, 16), pad=p) 와 banks.analyze(...) 로 두 접근의 웨이브프론트를 세세요")
''')
def check_pads(student):
    seen, active = set(), [False]
    real, watched = _watch_analyze(seen, active)

    def watched_student(max_pad):
        active[0] = True
        try:
            return student(max_pad)
        finally:
            active[0] = False
    banks.analyze = watched
    try:
        verdict = _check_pads(watched_student)
    finally:
        banks.analyze = real
    # the task counts both accesses; in this block the read never excludes a padding the store allows, so the output
    # cannot show a forgotten read: the calls to banks.analyze can (a function that counts by hand is not judged here)
    if verdict.ok and seen and "read" not in seen:
        if "load_per_thread" in seen:
            return fail("06-1", "read_index", "읽기(kind=\"load\")도 세었지만 그 인덱스가 저장과 같은 `As[ty][tx]` "
                        "입니다: 문제의 읽기는 `As[ty][k]` (k = 0), 곧 한 행의 스레드가 모두 같은 열 k 를 읽는 접근 "
                        "(lambda x, y, z: (y, 0)) 입니다. (이 블록에서는 결과가 같지만, 6절의 가상의 요청처럼 읽기만 "
                        "충돌하는 배치도 있습니다.)")
        return fail("06-1", "extra_pad", "저장 `As[ty][tx]` 만 세었습니다: 읽기 `As[ty][k]` (k = 0) 의 웨이브프론트도 "
                    "banks.analyze 로 세어, 둘 다 1 인 p 만 돌려주세요. (이 블록에서는 결과가 같지만, 6절의 가상의 요청(한 "
                    "요청이 한 열을 읽는 접근)처럼 읽기만 충돌하는 배치도 있습니다.)")
    shapes = sorted((x for x in seen if isinstance(x, tuple)), key=str)
    if not verdict.ok and verdict.code in ("extra_pad", "missing_pad") and shapes:
        _, shape, dims = shapes[0]
        verdict.details.insert(0, f"  banks.analyze 를 타일 {'×'.join(map(str, shape)) or '?'}, 블록 "
                               f"{'×'.join(map(str, dims))} 스레드로 불렀습니다: 문제의 타일은 {TILE}×{TILE} "
                               f"(banks.Layout(({TILE}, {TILE}), pad=p)), 블록은 ({TILE}, {TILE}) 입니다.")
    return verdict


def _missing_max_pad(student, max_pad, missing):
    """Why max_pad itself is missing: a range that stops one short (called with max_pad + 1 the answer has it), or an
    answer that does not follow max_pad at all (a fixed list: it never has it)."""
    if max_pad not in missing:
        return ""
    try:
        bigger = student(max_pad + 1)
        one_short = isinstance(bigger, (list, tuple)) and max_pad in bigger
    except Exception:  # noqa: BLE001 — the student's function failing here says nothing about the range
        one_short = False
    if one_short:
        return (f" 빠진 {josa(str(max_pad), '은/는')} max_pad 자신입니다: 후보는 0..max_pad, 곧 "
                "range(max_pad + 1) 입니다.")
    return (f" 빠진 {josa(str(max_pad), '은/는')} max_pad 자신인데, 이 답은 max_pad 를 따르지 않습니다 (max_pad + 1 로 "
            f"불러도 {josa(str(max_pad), '이/가')} 없습니다): 정해 둔 리스트가 아니라 0..max_pad 의 p 마다 banks.analyze "
            "로 세어 조건을 만족하는 p 를 모으세요.")


def _check_pads(student):
    for max_pad in PADS:
        got = student(max_pad)
        where = f"  ({josa(f'max_pad = {max_pad}', '으로/로')} 불렀을 때)"
        if isinstance(got, (list, tuple)) and got and all(isinstance(p, (bool, np.bool_)) for p in got):
            return fail("06-1", "input", f"True/False 의 리스트가 아니라, 충돌이 없는 패딩 값 p(정수)의 리스트를 "
                        f"돌려주세요 (받은 값: {got!r:.80}). 예: 조건을 만족하는 p 만 모으기 — "
                        "[p for p in range(max_pad + 1) if ...].", where)
        if not isinstance(got, (list, tuple)) or not all(
                isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)) for p in got):
            return fail("06-1", "input", f"정수 p 의 리스트를 돌려주세요 (받은 값: {got!r:.80}).", where)
        got = sorted(set(int(p) for p in got))
        truth = {p: _wavefronts(p) for p in range(max_pad + 1)}
        outside = [p for p in got if p not in truth]
        extra = [p for p in got if p in truth and truth[p] != (1, 1)]
        missing = [p for p in truth if truth[p] == (1, 1) and p not in got]
        if outside:
            return fail("06-1", "range", f"0..max_pad 밖의 {josa(f'p {outside}', '이/가')} 들어 있습니다.", where)
        if extra:
            lines = [f"  p = {p}: 워프당 웨이브프론트가 저장 {truth[p][0]}, 읽기 {truth[p][1]} — "
                     + " · ".join(f"{josa(what, '이/가')} {w}-way 충돌" for what, w in zip(("저장", "읽기"), truth[p])
                                  if w > 1) for p in extra]
            return fail("06-1", "extra_pad", "충돌이 있는 패딩이 들어 있습니다: 두 접근을 모두, 문제의 인덱스(저장 `As[ty][tx]`, "
                        "읽기 `As[ty][k]`, k = 0)로 세었는지 보세요. 아래가 p 마다의 실제 웨이브프론트입니다.", where,
                        *lines)
        if missing:
            return fail("06-1", "missing_pad", f"충돌이 없는 패딩 {len(missing)}개({', '.join(map(str, missing))})를 "
                        "빠뜨렸습니다: 저장과 읽기가 모두 웨이브프론트 1 인지 p 마다 다시 세어 보세요."
                        + _missing_max_pad(student, max_pad, missing), where)
    return passed("06-1", f"max_pad = {', '.join(map(str, PADS))} 에서 충돌 없는 패딩을 모두, 그리고 그것만 찾았습니다.")


def _square_launch(kernel, tile):
    """launch(A, B, C, alpha, beta) on a tile×tile block grid covering C."""
    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        grid = ((N + tile - 1) // tile, (M + tile - 1) // tile)
        kernel[grid, (tile, tile)](A, B, C, np.float32(alpha), np.float32(beta))
        return C
    return launch


# (M, N, K, alpha, beta): K tiles 2 (ragged), 3, 1 (K < tile) and 6 (K % 8 = 1: a last tile of one column); no shape
# is square
SHAPES = ((12, 11, 13, 1.0, 0.0), (9, 10, 24, 0.5, 2.0), (12, 7, 5, 1.0, 0.0), (8, 10, 41, 1.0, 0.0))
# every element wrong: in 06-2/06-3 the student writes the two loads (the product line is given), so name them
PRODUCT8 = ("타일에 저장한 원소와 k 루프가 읽는 자리의 짝(As[ty, tx] 에는 A[row, t·8 + tx], Bs[ty, tx] 에는 "
            "B[t·8 + ty, col] 이 들어가야 As[ty, k]·Bs[k, tx] 가 A[row, t·8 + k]·B[t·8 + k, col] 이 됩니다: 두 "
            "load_or_zero 줄의 행과 열)")

# a K tile added twice: one buffer here, so the tile number is what the load gives load_or_zero (review r18 I-2)
RECOMPUTED8 = "load_or_zero 에 넘기는 A 의 열, B 의 행에 들어가는 t·8 부분"


def _check_tiled(ex_id, kernel, tile=8, shapes=SHAPES):
    """Ragged shapes (K not a tile multiple, one and many K tiles), then alpha/beta; the first failure is the diagnosis."""
    return run_shapes(ex_id, _square_launch(kernel, tile), shapes, tile=(tile, tile), BK=tile, product=PRODUCT8,
                      recomputed=RECOMPUTED8)


def _cooperation(ex_id, kernel, tile=8):
    """The technique of a tiled kernel, from one block's trace: per thread and K tile, one store into As and one into
    Bs and one read of A and of B, and the k loop reading both tiles from shared memory (None when it does)."""
    M, N, K = 8, 8, 24
    A = np.ones((M, K), np.float32)
    B = np.ones((K, N), np.float32)
    with probe.recording(blocks=[(0, 0)], globals_=True) as rec:
        _square_launch(kernel, tile)(A, B, np.zeros((M, N), np.float32), 1.0, 0.0)
    ev = rec.thread((0, 0), (0, 0))
    reads = [e for e in ev if e.kind == "sread"]
    if not reads:
        gl = next((e for e in ev if e.kind == "gread" and e.site), None)
        return technique(ex_id, "no_shared_tile", "공유 메모리 타일", "k 루프가 공유 메모리(As, Bs)를 읽지 않습니다. 글로벌 "
                         "메모리에서 곧바로 곱하면 스레드마다 A 의 한 행과 B 의 한 열을 통째로 글로벌 메모리에서 읽게 되고, "
                         "그것이 이 절이 없애려는 비용입니다.", where=probe.line_text(gl.site if gl else None))
    n_tiles = -(-K // tile)
    names = {(M, K): "A", (K, N): "B"}                  # a global read's `what` is its array's shape
    seen = {}                                           # thread -> (stores by shared array, reads by global array)
    for thread in rec.threads():
        stores, greads = {}, {}
        for e in rec.events[thread]:
            if e.kind == "swrite":
                stores.setdefault(e.what, []).append(e)
            elif e.kind == "gread" and e.what in names:
                greads.setdefault(names[e.what], []).append(e)
        seen[thread] = stores, greads
    trips = _extra_trips(seen, tile)
    if trips and trips > n_tiles:
        return fail(ex_id, "extra_k_tiles", f"값은 맞고 협력적 로딩도 맞지만, K = {K} 에서 K 타일 루프가 "
                    f"⌈K/{tile}⌉ = {n_tiles}번이 아니라 {trips}번 돕니다: 남는 {trips - n_tiles}번은 행렬 밖이라 0 만 "
                    "담긴 타일을 올리고 곱해, 결과는 그대로인데 시간(로드·배리어·FMA)만 씁니다. 타일 수는 "
                    f"(K + {tile - 1}) // {tile} 입니다.")
    for thread, (stores, greads) in seen.items():
        for a, es in stores.items():
            if len(es) > n_tiles:
                t = thread[1][:2]
                return technique(ex_id, "not_cooperative", "협력적 로딩", f"{josa(f'스레드 {t}', '이/가')} K 타일 {n_tiles}개 동안 "
                                 f"{a}에 {len(es)}번 저장합니다. 협력적 로딩에서는 블록의 {tile * tile}개 스레드가 "
                                 f"타일의 원소 {tile * tile}개를 하나씩 나눠 맡아, 스레드마다 타일당 한 번 저장합니다.",
                                 where=probe.line_text(es[0].site))
    for thread, (stores, greads) in seen.items():
        t = thread[1][:2]
        for a, es in greads.items():
            if len(es) > n_tiles:         # more than its one tile element per K tile: the k loop reads global memory
                line = collections.Counter(e.site for e in es).most_common(1)[0][0]
                return technique(ex_id, "no_shared_tile", "공유 메모리 타일", f"{josa(f'스레드 {t}', '이/가')} K 타일 "
                                 f"{n_tiles}개 동안 글로벌 행렬 {a}의 원소를 {len(es)}번 읽습니다: 타일에 올릴 원소 하나씩, "
                                 f"{n_tiles}번이면 됩니다. k 루프가 {a}의 값을 공유 타일 대신 글로벌 메모리에서 읽으면 "
                                 "타일에 올린 값을 블록이 다시 쓰는 이득(재사용)이 사라집니다.",
                                 where=probe.line_text(line))
        unread = sorted(set(stores) - {e.what for e in rec.events[thread] if e.kind == "sread"})
        if unread:
            return technique(ex_id, "no_shared_tile", "공유 메모리 타일", f"{josa(f'스레드 {t}', '이/가')} 공유 배열 "
                             f"{josa(', '.join(unread), '을/를')} 채우기만 하고 읽지 않습니다. k 루프는 두 타일 As, Bs 를 "
                             "모두 공유 메모리에서 읽어야 타일에 올린 값이 블록 안에서 다시 쓰입니다.",
                             where=probe.line_text(stores[unread[0]][0].site))
    return None


def _extra_trips(seen, tile):
    """The K-loop trips of a cooperative load (every thread stores one tile element of As and of Bs per trip, the same
    element each trip, the block's threads one element each), or None when the load is not of that form."""
    counts, owners = set(), {}
    for thread, (stores, _) in seen.items():
        if len(stores) != 2:
            return None
        for a, es in stores.items():
            if len({e.args for e in es}) != 1:
                return None
            counts.add(len(es))
            owners.setdefault(a, set()).add(es[0].args)
    if len(counts) != 1 or any(len(o) != tile * tile for o in owners.values()) or len(seen) != tile * tile:
        return None
    return counts.pop()


@exercise("06-2", "8×8 타일: 협력적 로딩과 두 배리어", "4.3–4.5절",
          hints=("블록의 스레드는 타일의 원소를 하나씩 나눠 맡아 공유 메모리에 올리고(협력적 로딩), 다 올린 뒤에야 "
                 "서로의 원소를 읽을 수 있습니다. 배리어 하나는 '다 올렸다', 다른 하나는 '다 읽었다'를 보장합니다.",
                 "t 번째 타일에서 이 스레드가 맡는 A 원소는 A 의 어느 행, 어느 열인가요? B 원소는요? 두 배리어는 각각 "
                 "어떤 두 접근 사이에 있어야 하나요?"),
          questions={
              "race": "검출기가 가리킨 두 줄 중 앞의 줄과 뒤의 줄 사이에 배리어가 있나요? 다음 반복의 저장까지 생각해 "
                      "보세요: 다른 스레드가 아직 읽는 타일을 덮어쓰지는 않나요?",
              "last_k_tile": "K = 13, 타일 8 이면 타일은 몇 개여야 하나요? 여러분의 루프는 몇 번 도나요?",
              "extra_k_tiles": "K = 24, 타일 8 이면 K 타일은 몇 개인가요? 여러분의 루프 범위는 몇 번을 도나요?",
              "acc_reset": "누적값을 0 으로 만드는 줄이 루프 안에 있나요, 밖에 있나요?",
              "all_wrong": "As 에 저장하는 A 원소와 Bs 에 저장하는 B 원소의 (행, 열)을 t, tx, ty 로 적어 보세요. k 루프가 "
                           "읽는 As[ty, k] 와 Bs[k, tx] 가 그 원소들과 맞물리나요?",
              "k_padding": "K 가 타일의 배수가 아닐 때 마지막 타일의 행렬 밖 칸에는 무엇이 들어가나요?",
              "nan": "k 루프가 읽는 원소를 이 타일에서 누가 저장했나요? 저장과 읽기 사이에 배리어가 있나요?",
              "no_shared_tile": "k 루프가 곱하는 값은 어디서 오나요: 글로벌 행렬 A, B 인가요, 공유 타일 As, Bs 인가요?",
              "not_cooperative": "한 스레드가 타일마다 As 에 몇 번 저장하나요? 64개 스레드가 원소 64개를 하나씩 나눠 "
                                 "맡으려면 몇 번이면 되나요?",
              "out_of_bounds": "위치에 나온 줄에서 인덱스가 행렬 밖으로 나갈 수 있는 스레드는 누구인가요? "
                               "load_or_zero 를 거치나요?",
          },
          solution="answers/ch06/ex06_tile8.py::tiled8", name="my_tiled8",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
from kernels_numba.common import load_or_zero, store_c, thread_coords
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
    res = _check_tiled("06-2", student)
    if res.ok and device.SIMULATOR:
        res = _cooperation("06-2", student) or res
    return res


def _tiled_with(load):
    """The 8×8 tiled kernel of 06-2, with the bounds-checked load replaced by `load` (the student's device function);
    the rest is written inline (a device call costs the simulator far more than a line)."""
    @cuda.jit
    def kernel(A, B, C, alpha, beta):
        As = cuda.shared.array((8, 8), float32)
        Bs = cuda.shared.array((8, 8), float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row, col = cuda.blockIdx.y * 8 + ty, cuda.blockIdx.x * 8 + tx
        acc = float32(0.0)
        for t in range((A.shape[1] + 7) // 8):
            As[ty, tx] = load(A, row, t * 8 + tx)
            Bs[ty, tx] = load(B, t * 8 + ty, col)
            cuda.syncthreads()       # the tile is complete before anyone reads it
            for k in range(8):
                acc += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()       # everyone has read it before it is overwritten
        if row < C.shape[0] and col < C.shape[1]:
            C[row, col] = alpha * acc + (beta * C[row, col] if beta != 0 else float32(0.0))
    return kernel


def _probe_load(student, R=5, C=7):
    """Call the device function (as Python, on the simulator) at every (r, c) of a 5×7 matrix and one step past each
    edge: the first wrong answer as a Result, or None. Runs on the simulator only (the GPU path checks there first)."""
    fn = getattr(student, "py_func", student)
    X = (np.arange(R * C, dtype=np.float32).reshape(R, C) + 1.0)          # never 0
    for r in range(R + 2):
        for c in range(C + 2):
            inside = r < R and c < C
            try:
                v = fn(X, r, c)
            except IndexError:
                axis = "행" if r >= R else "열"
                lim = "X.shape[0]" if r >= R else "X.shape[1]"
                val = r if r >= R else c
                return fail("06-3", "out_of_bounds", f"X 가 {R}×{C} 일 때 (r, c) = ({r}, {c}) 에서 배열 밖을 읽었습니다: "
                            f"{axis} {josa(val, '은/는')} {lim} = {R if r >= R else C} 이상이라 행렬 밖인데, 경계 "
                            f"검사가 이 {josa(axis, '을/를')} 걸러 내지 못했습니다.",
                            "  (함수를 5×7 행렬과, 각 경계를 두 칸까지 넘는 r, c 로 직접 불렀습니다.)")
            except Exception:
                return None                       # an error of another kind: the kernel run below explains it
            try:
                v = float(v)
            except (TypeError, ValueError):
                return fail("06-3", "input", f"float32 값 하나를 돌려주세요 ((r, c) = ({r}, {c}) 에서 받은 값: {v!r:.60}).")
            if not inside and v != 0.0:
                return fail("06-3", "outside_not_zero", f"X 가 {R}×{C} 일 때 행렬 밖인 (r, c) = ({r}, {c}) 에서 "
                            f"{josa(_num(v), '을/를')} 돌려줍니다: 밖은 0 이어야 합니다. 마지막 타일의 빈 칸에 들어간 "
                            "값이 곱해져 합에 더해지면 안 되기 때문입니다.")
            if inside and v == 0.0:            # X holds no 0: the condition took this inside cell for outside
                return fail("06-3", "inside_zero", f"X 가 {R}×{C} 일 때 행렬 안인 (r, c) = ({r}, {c}) 에서 X[{r}, {c}] "
                            f"= {_num(X[r, c])} 대신 0 을 돌려줍니다: 경계 검사가 행렬 안의 이 칸을 밖으로 판정합니다.")
            if inside and v != X[r, c]:
                src = [tuple(int(i) for i in p) for p in np.argwhere(X == v)]
                came = f"X[{src[0][0]}, {src[0][1]}]" if src else _num(v)
                return fail("06-3", "inside_wrong", f"X 가 {R}×{C} 일 때 행렬 안인 (r, c) = ({r}, {c}) 에서 X[{r}, {c}] "
                            f"= {_num(X[r, c])} 대신 {josa(came, '을/를')} 돌려줍니다: 행렬 안에서는 X[r, c] 그대로여야 "
                            "합니다.")
    return None


# the bounds check 06-3 asks for, as the course ships it: kernels_numba.common.load_or_zero (06-2's helper) and the
# solution file; a student's function that reaches either has not written the check
_SHIPPED_LOAD = (os.path.realpath(common.load_or_zero.py_func.__code__.co_filename),
                 os.path.realpath(os.path.join(probe.ROOT, "answers", "ch06", "ex06_bounds.py")))


def _delegates(student, R=5, C=7):
    """Whether the student's function calls the shipped load_or_zero (under any name, at any depth), found by watching
    it run at a few (r, c) inside and outside a 5×7 matrix: (True, the student's calling line or None) or (False, None)."""
    fn = getattr(student, "py_func", student)
    X = np.ones((R, C), np.float32)
    hits = []

    def hook(frame, event, arg):
        code = frame.f_code
        if event == "call" and code is not fn.__code__ and code.co_name == "load_or_zero" \
                and os.path.realpath(code.co_filename) in _SHIPPED_LOAD:
            f = frame.f_back
            while f is not None and not probe.is_user_file(f.f_code.co_filename):
                f = f.f_back
            hits.append(probe.line_text((f.f_code.co_filename, f.f_lineno)) if f is not None else "")
    prev = sys.getprofile()
    sys.setprofile(hook)
    try:
        for r, c in ((0, 0), (R - 1, C - 1), (R, 0), (0, C)):
            try:
                fn(X, r, c)
            except Exception:  # noqa: BLE001 — the probe and the kernel run say what is wrong; here only the calls count
                pass
    finally:
        sys.setprofile(prev)
    return (True, hits[0]) if hits else (False, None)


def _num(v):
    v = float(v)
    return str(int(v)) if v.is_integer() else f"{v:g}"


@exercise("06-3", "경계 검사: 행렬 밖은 0", "4.5절",
          hints=("마지막 타일은 행렬 끝을 넘어갈 수 있습니다. 행렬 밖 칸은 읽으면 안 되고, 곱해도 합이 변하지 않는 값을 "
                 "채워야 합니다. 행과 열을 각각 따로 검사하세요.",
                 "X 의 행 수와 열 수는 어디서 얻나요? 인덱스가 행 수와 같으면 안인가요, 밖인가요?"),
          questions={
              "out_of_bounds": "그 (r, c) 에서 여러분의 조건은 참인가요 거짓인가요? 비교 연산자와, 비교하는 모양의 "
                               "축(X.shape[0] 과 X.shape[1])을 확인해 보세요.",
              "outside_not_zero": "행렬 밖일 때 돌려주는 값은 무엇인가요? 그 값이 곱해져 더해지면 합은 어떻게 되나요?",
              "inside_wrong": "행렬 안일 때 읽는 원소의 인덱스 순서는 (r, c) 인가요?",
              "inside_zero": "그 (r, c) 에서 여러분의 조건은 참인가요? 행 r 은 X.shape[0] 과, 열 c 는 X.shape[1] 과 "
                             "비교하나요?",
              "k_padding": "K 가 타일의 배수가 아닐 때만 틀립니다. 행렬 밖에서 돌려주는 값은 무엇인가요?",
              "shipped_helper": "여러분의 함수에서 (r, c) 가 행렬 안인지 판단하는 비교는 어느 줄에 있나요? 그 판단을 "
                                "이미 주어진 load_or_zero 에 맡기고 있지는 않나요?",
          },
          solution="answers/ch06/ex06_bounds.py::load_or_zero", name="my_load_or_zero",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
''', template='''
@cuda.jit(device=True)
def my_load_or_zero(X, r, c):
    """행렬 안이면 X[r, c], 밖이면 0 (협력적 로딩의 경계 검사)."""
    raise NotImplementedError("r, c 가 X 의 범위 안인지 검사하고, 밖이면 float32(0.0) 을 돌려주세요")
''')
def check_bounds(student):
    if device.SIMULATOR:
        bad = _probe_load(student)
        if bad is not None:
            return bad
        called, where = _delegates(student)
        if called:
            return fail("06-3", "shipped_helper", "이미 주어진 `load_or_zero`(kernels_numba.common, 06-2 에서 쓴 도우미)를 "
                        "불러 값을 얻습니다: 이 연습은 그 경계 검사를 직접 쓰는 것입니다. `load_or_zero` 를 그대로 "
                        "부르지 말고, 행 r 을 X.shape[0] 과, 열 c 를 X.shape[1] 과 직접 비교해 둘 다 안이면 X[r, c], "
                        "아니면 float32(0.0) 을 돌려주세요.", *([f"  부른 곳: {where}"] if where else []), where=where or "")
    return _check_tiled("06-3", _tiled_with(student), shapes=SHAPES[:2])
