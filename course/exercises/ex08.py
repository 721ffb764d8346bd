"""Notebook 08 exercises: the buffer of every iteration (S stages), the register-prefetch double-buffer loop of a
small kernel (prologue, loop, epilogue), and the pipeline totals of one and two buffers."""
import inspect
import re

import numpy as np

from kernels_numba.infra import device
from sim import pipeline

from .core import gpu_note, exercise, fail, passed
from .diagnose import k_tile_counts, run_shapes
from sim.korean import josa

T8 = 8


# ------------------------------------------------------------------ 08-1: which buffer, which tile (3.2)

def _rows_ok(got, n):
    """got is a list of n 4-tuples (kt, buffer, tile or None, buffer or None) of ints/None."""
    if not isinstance(got, (list, tuple)) or len(got) != n:
        return False
    for r in got:
        if not isinstance(r, (list, tuple)) or len(r) != 4:
            return False
        if not all(v is None or isinstance(v, (int, np.integer)) for v in r):
            return False
    return True


def _table_diagnosis(got, n, S):
    """Walk the student's table against the buffers' real contents; the first wrong row gives the diagnosis."""
    where = f"  (타일 {n}개, 버퍼 S = {S})"
    held = {}                                          # buffer -> tile it holds now
    for t in range(min(S - 1, n)):                     # prologue: tiles 0 .. S-2
        held[t % S] = t
    for kt, row in enumerate(got):
        k, cur, tile, buf = row
        at = f"  kt = {kt} 행: {tuple(row)!r}"
        if k != kt:
            return fail("08-1", "input", "각 행의 첫 값은 반복 번호 kt (0, 1, 2, …) 입니다.", where, at)
        if cur is None or held.get(cur) != kt:
            what = "아무 타일도 들어 있지 않은" if cur not in held else f"타일 {josa(held[cur], '이/가')} 들어 있는"
            return fail("08-1", "compute_buffer", f"반복 kt 는 타일 kt 를 계산해야 하는데, 고른 버퍼는 {what} 버퍼입니다: "
                        "프롤로그가 타일을 어느 버퍼에 넣었고, 타일 t 가 어느 버퍼로 가는지 다시 세어 보세요.", where, at)
        want = kt + S - 1
        if want >= n:
            if tile is not None or buf is not None:
                return fail("08-1", "past_end", f"마지막 {S - 1}번의 반복에서는 미리 읽을 타일이 없습니다(타일 번호가 "
                            f"n_tiles = {n} 이상): 그때는 (kt, 버퍼, None, None) 입니다. 행렬 밖의 타일을 읽는 셈입니다.",
                            where, at)
        else:
            if tile is None:
                return fail("08-1", "missing_prefetch", "아직 남은 타일이 있는데 이 반복이 아무것도 미리 읽지 않습니다: "
                            "그러면 몇 반복 뒤에 계산할 타일이 버퍼에 없습니다.", where, at)
            if tile != want:
                if tile == kt + 1 and S > 2:
                    return fail("08-1", "prefetch_distance", "S > 2 인데 바로 다음 타일 kt+1 을 미리 읽습니다: 그 타일은 "
                                "이미 버퍼에 있습니다(프롤로그가 S−1 개를 채웠음). 미리 읽는 거리는 버퍼 수에 따라 "
                                "달라집니다.", where, at)
                return fail("08-1", "prefetch_tile", "미리 읽는 타일 번호가 틀립니다: 이 반복이 끝난 뒤 버퍼에 없는 "
                            "타일 중 가장 앞의 것을 읽어야 합니다.", where, at)
            if buf == cur:
                return fail("08-1", "overwrite_in_use", "지금 계산하는 버퍼에 다음 타일을 씁니다: 같은 반복 안에서 다른 "
                            "스레드가 아직 그 버퍼를 읽고 있습니다(WAR 경쟁).", where, at)
            if buf in held and held[buf] > kt:
                return fail("08-1", "overwrite_pending", f"아직 계산하지 않은 타일 {josa(held[buf], '이/가')} 든 버퍼를 덮어씁니다: "
                            "비어 있는 버퍼는 이미 계산이 끝난 타일이 들어 있던 것 하나뿐입니다.", where, at)
            if buf is None or not 0 <= buf < S:
                return fail("08-1", "input", f"버퍼 번호는 0 … {S - 1} 입니다.", where, at)
            held[buf] = tile
    return None


@exercise("08-1", "반복마다 어느 버퍼인가 (버퍼 S 개)", "3.2–3.3절",
          hints=("버퍼 S 개에서 프롤로그는 타일 0 … S−2 를 버퍼 0 … S−2 에 넣습니다. 반복 kt 가 끝나면 타일 kt 를 다 "
                 "썼으니 버퍼 하나가 빕니다. 그때 버퍼에 없는 가장 앞의 타일이 무엇인지 세어 보세요.",
                 "반복 kt 는 타일 kt 를 버퍼 kt % S 에서 계산하고, 타일 kt + S − 1 을 버퍼 (kt + S − 1) % S 에 미리 "
                 "읽습니다(바로 앞 반복이 계산한 버퍼). 그 타일 번호가 n_tiles 이상이면 (kt, kt % S, None, None)."),
          solution="answers/ex08_stages.py::stage_table", name="my_stage_table", template='''
def my_stage_table(n_tiles, stages):
    """메인 루프의 반복마다 (kt, 계산하는 버퍼, 미리 읽는 타일 또는 None, 그 타일을 넣는 버퍼 또는 None) 의 리스트.

    버퍼는 stages 개이고, 프롤로그가 타일 0 … stages−2 를 버퍼 0 … stages−2 에 미리 채웠습니다."""
    raise NotImplementedError("반복 kt 가 계산하는 타일이 어느 버퍼에 있는지, 그리고 무엇을 어디에 미리 읽을지 세어 보세요")
''')
def check_stage_table(student):
    cases = [(4, 2), (1, 2), (6, 3), (2, 3), (7, 4), (3, 4)]
    for n, S in cases:
        got = student(n, S)
        if not _rows_ok(got, n):
            return fail("08-1", "input", f"행 {n}개의 리스트를 돌려주세요: 행마다 (kt, 버퍼, 타일 또는 None, 버퍼 또는 "
                        f"None) 네 값 (받은 값: {got!r:.120}).", f"  (타일 {n}개, 버퍼 S = {S})")
        got = [tuple(None if v is None else int(v) for v in r) for r in got]
        res = _table_diagnosis(got, n, S)
        if res is not None:
            return res
    return passed("08-1", f"버퍼 2·3·4개의 (타일 수, 버퍼 수) {len(cases)}가지 경우에 표가 모두 맞습니다. 미리 읽는 버퍼는 늘 "
                  "바로 앞 반복이 계산한 버퍼입니다.")


# ------------------------------------------------------------------ 08-2: the register-prefetch loop (4.4)

class _Recorder:
    """launch(A, B, C, alpha, beta) for run_shapes that keeps each run's inputs and output (for the K-tile counts)."""

    def __init__(self, kernel):
        self.kernel, self.runs, self.hazards = kernel, [], []

    def __call__(self, A, B, C, alpha, beta):
        C0 = C.copy()
        M, N = C.shape
        grid = ((N + T8 - 1) // T8, (M + T8 - 1) // T8)     # run_gemm's race collector sees this launch
        self.kernel[grid, (T8, T8)](A, B, C, np.float32(alpha), np.float32(beta))
        self.runs.append((A, B, C0, alpha, beta, np.array(C)))
        if device.SIMULATOR:          # what run_gemm's collector holds so far (read only; it reports them itself)
            from kernels_numba.infra.simulator import racecheck
            self.hazards += [h for h in racecheck._found if h not in self.hazards]
        return C

    def stores_into_current(self):
        """A write-after-read race whose write, in iteration kt, went to buffer kt % 2 (the one being computed on)."""
        for h in self.hazards:
            kt = getattr(h, "k_tile", "") or ""
            if h.kind == "WAR" and h.array in ("As", "Bs") and kt.startswith("kt=") and h.index[0] == int(kt[3:]) % 2:
                return True
        return False

    def counts(self):
        """The K-tile counts of the first run whose C is a whole-number sum of its K tiles other than all ones."""
        for A, B, C0, alpha, beta, C in self.runs:
            c = k_tile_counts(C, A, B, C0, alpha, beta, T8)
            if c and c != [1] * len(c):
                return c
        return None


_COMPUTE = re.compile(r"tile_dot\s*\(|\*\s*Bs\s*\[")
_STORE = re.compile(r"^\s*[AB]s\s*\[[^\]]*\]\s*=[^=]")


def store_before_compute(kernel):
    """True when, in the K loop of the kernel's source, a shared-memory store comes before the tile's computation."""
    try:
        lines = inspect.getsource(getattr(kernel, "py_func", kernel)).splitlines()
    except (OSError, TypeError):
        return False
    start = next((i for i, s in enumerate(lines) if re.match(r"\s*for\s+\w+\s+in\s+range", s)), None)
    if start is None:
        return False
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for s in lines[start + 1:]:
        code = s.split("#")[0]
        if not code.strip():
            continue
        if len(s) - len(s.lstrip()) <= indent:
            break
        body.append(code)
    first = lambda rx: next((i for i, s in enumerate(body) if rx.search(s)), None)   # noqa: E731
    store, compute = first(_STORE), first(_COMPUTE)
    return store is not None and compute is not None and store < compute


@exercise("08-2", "레지스터 프리페치 더블 버퍼 루프 (프롤로그·루프·에필로그)", "4.4절",
          hints=("반복 kt 는 타일 kt 를 계산하고 타일 kt+1 을 준비합니다. 버퍼 번호는 3.2절의 표 그대로(kt % 2 와 "
                 "(kt + 1) % 2)이고, 배리어는 3.3절의 두 위험을 막는 자리에 하나면 됩니다. 루프가 n_tiles − 1 번만 돌면 "
                 "마지막 타일은 누가 계산할까요?",
                 "프롤로그와 같은 인덱스에 (kt + 1) * T8 을 더합니다: A 는 열 (kt + 1) * T8 + tx, B 는 행 "
                 "(kt + 1) * T8 + ty. 그다음 acc += tile_dot(As, Bs, kt % 2, ty, tx), 그 뒤에 As[(kt + 1) % 2, ty, tx] = a "
                 "(Bs 도 같음), 마지막에 배리어 하나. 에필로그는 "
                 "acc += tile_dot(As, Bs, (n_tiles - 1) % 2, ty, tx)."),
          solution="answers/ex08_db8.py::db8", name="my_db8",
          preamble='''
from numba import cuda, float32
from course.lesson06 import load_or_zero, store_c, thread_coords
T8 = 8

@cuda.jit(device=True)
def tile_dot(As, Bs, buf, ty, tx):
    """이 스레드의 K 타일 하나 몫: As[buf] 의 ty 행 · Bs[buf] 의 tx 열."""
    s = float32(0.0)
    for k in range(T8):
        s += As[buf, ty, k] * Bs[buf, k, tx]
    return s
''', template='''
@cuda.jit
def my_db8(A, B, C, alpha, beta):
    As = cuda.shared.array((2, T8, T8), float32)      # [버퍼][행][k]
    Bs = cuda.shared.array((2, T8, T8), float32)      # [버퍼][k][열]
    tx, ty, row, col = thread_coords(T8)
    n_tiles, acc = (A.shape[1] + T8 - 1) // T8, float32(0.0)
    As[0, ty, tx] = load_or_zero(A, row, tx)          # 프롤로그: 타일 0 → 버퍼 0 (겹칠 계산이 없으니 곧바로)
    Bs[0, ty, tx] = load_or_zero(B, ty, col)
    cuda.syncthreads()
    for kt in range(n_tiles - 1):
        raise NotImplementedError("4.4절의 처방대로 루프 본문을 쓰고, 루프 뒤에 남은 타일(에필로그)도 잊지 마세요")
    store_c(C, row, col, acc, alpha, beta)
''')
def check_db8(student):
    rec = _Recorder(student)
    res = run_shapes("08-2", rec, ((20, 11, 29, 1.0, 0.0), (9, 17, 24, 0.5, 2.0), (6, 5, 7, 1.0, 0.0)),
                     tile=(T8, T8), BK=T8)
    if res.code in ("k_tile_counts", "last_k_tile"):
        counts = rec.counts()
        n = len(counts) if counts else 0
        if res.code == "last_k_tile":
            res.message = ("마지막 K 타일이 C 에 더해지지 않았습니다: 루프는 n_tiles − 1 번만 돌고 반복 kt 는 타일 kt 만 "
                           "계산하므로, 마지막 타일(n_tiles − 1)은 루프 뒤(에필로그)에서 그 타일이 든 버퍼로 계산해야 "
                           "합니다.")
        elif counts == [2] + [1] * (n - 2) + [0]:
            res.code = "prefetch_same_tile"
            res.message = ("타일 0 이 두 번 더해지고 마지막 타일은 한 번도 더해지지 않았습니다: 반복 kt 가 지금 계산하는 "
                           "타일 kt 를 다시 읽어 다른 버퍼에 넣고 있습니다. 미리 읽을 것은 다음 타일 kt+1 입니다 "
                           f"(K 타일별 횟수 {counts}).")
        elif n >= 3 and counts[-1] == 0 and counts[-2] == 2 and counts[:-2] == [1] * (n - 2):
            res.code = "epilogue_buffer"
            res.message = ("에필로그가 마지막 타일이 아니라 그 앞 타일이 든 버퍼를 다시 계산합니다: 타일 t 는 버퍼 t % 2 에 "
                           f"있습니다 (K 타일별 횟수 {counts}).")
    elif res.code == "race" and rec.stores_into_current():
        res.message = ("다음 타일을 지금 계산하는 버퍼(kt % 2)에 저장합니다: 같은 반복에서 다른 스레드가 아직 그 버퍼를 "
                       "읽고 있습니다(읽기 후 쓰기, WAR). 배리어를 더 넣어도 다음 반복이 읽을 버퍼가 비므로, 다른 버퍼 "
                       "(kt + 1) % 2 에 저장하세요.")
    elif res.code == "nan":
        res.details.append("  이 커널에서는: 반복 kt 가 계산하는 버퍼 kt % 2 는 바로 앞 반복(프롤로그)이 채운 버퍼여야 합니다. "
                           "미리 읽은 타일을 계산 중인 버퍼에 저장하면, 다음 반복이 읽을 버퍼는 빈 채로 남습니다.")
    elif res.code == "race":
        res.details.append("  이 루프에서 경쟁이 나는 자리는 둘입니다: 배리어가 빠졌거나 잘못된 곳에 있거나, 다른 스레드가 "
                           "아직 읽고 있는 버퍼(이 반복의 kt % 2)에 다음 타일을 저장했거나.")
    if res.ok and gpu_note():
        res.details.append("  (GPU 모드에서는 경쟁 검출기가 돌지 않습니다: 배리어가 빠져도 이번 실행이 우연히 맞을 수 있으니, "
                           "GPU 가 없는 환경(시뮬레이터)에서도 한 번 확인하세요.)")
    if res.ok and store_before_compute(student):
        return fail("08-2", "store_before_compute", "결과는 맞지만, 루프 안에서 공유 메모리 저장이 계산보다 앞입니다: "
                    "`db` 와 같은 순서라 워프가 그 저장에서 자기 로드를 기다린 뒤에 계산합니다(4.4절의 SASS). 레지스터 "
                    "→ 공유 메모리 저장을 계산 뒤로 옮기세요.")
    return res


# ------------------------------------------------------------------ 08-3: pipeline totals (6)

_CASES = ((300, 120, 6), (100, 10, 4), (80, 100, 4), (50, 50, 5), (7, 3, 1), (2, 9, 1), (400, 2048, 9), (40, 20, 2))

_WRONG_DOUBLE = (
    ("load_bound_overcount", lambda L, C, N: L + N * max(L, C),
     "로드가 연산보다 길 때(L > C) 총 시간이 L − C 만큼 깁니다: 처음 로드 뒤의 걸음은 N 개가 아니라 N − 1 개이고, 마지막 "
     "연산 하나가 따로 붙습니다. (연산이 더 길면 두 식이 같아서 그 경우만 보면 틀린 줄 모릅니다.)"),
    ("no_fill_drain", lambda L, C, N: N * max(L, C),
     "정상 상태의 걸음 max(L, C) 만 N 번 셌습니다: 파이프라인을 채우는 처음 로드와 비우는 마지막 연산은 어느 것과도 "
     "겹치지 않습니다."),
    ("compute_bound_only", lambda L, C, N: L + N * C,
     "연산이 늘 로드보다 길다고 가정했습니다: L > C 이면 로드 유닛이 쉬지 않고, 걸음 하나는 로드 시간입니다."),
    ("min_not_max", lambda L, C, N: L + C + (N - 1) * min(L, C),
     "걸음 하나를 짧은 쪽으로 셌습니다: 두 유닛이 겹쳐 일하면 한 걸음은 긴 쪽이 끝나야 끝납니다."),
    ("no_overlap", lambda L, C, N: N * (L + C),
     "더블 버퍼의 총 시간이 싱글 버퍼와 같습니다: 타일 kt 를 계산하는 동안 타일 kt+1 을 로드할 수 있습니다."),
)


@exercise("08-3", "파이프라인 총 시간: 버퍼 1개와 2개", "6절",
          hints=("싱글 버퍼는 로드 → 연산이 타일마다 줄을 섭니다. 더블 버퍼는 위 위젯에서 로드 막대와 연산 막대가 어떻게 "
                 "겹치는지 보세요: 처음과 끝에는 한 유닛만 일하고, 그 사이 걸음마다 두 유닛이 함께 일합니다.",
                 "싱글: N·(L + C). 더블: 처음 로드 L, 마지막 연산 C, 그 사이 N − 1 걸음은 각각 두 시간 중 긴 쪽."),
          solution="answers/ex08_pipeline.py::totals", name="my_pipeline_totals", template='''
def my_pipeline_totals(L, C, N):
    """로드 L, 연산 C, 타일 N 개일 때 (싱글 버퍼 총 시간, 더블 버퍼 총 시간). 로드 유닛 하나, 배리어 시간 0."""
    raise NotImplementedError("싱글 버퍼와 더블 버퍼의 총 시간을 L, C, N 의 식으로 쓰세요")
''')
def check_totals(student):
    try:
        src = inspect.getsource(student)
    except (OSError, TypeError):
        src = ""
    model_calls = ("schedule(", "pipeline.", "closed_form_total(")
    if any(w in line.split("#")[0] for line in src.splitlines() for w in model_calls):
        return fail("08-3", "uses_model", "파이프라인 모델(pipeline.schedule)을 부르고 있습니다: 확인 셀이 바로 그 모델과 "
                    "비교하므로 이것은 아무것도 확인하지 못합니다. 위젯의 막대를 보고 L, C, N 의 식으로 쓰세요.")
    got = {}
    for L, C, N in _CASES:
        r = student(L, C, N)
        if not (isinstance(r, (tuple, list)) and len(r) == 2
                and all(isinstance(v, (int, float, np.integer, np.floating)) for v in r)):
            return fail("08-3", "input", f"(싱글, 더블) 두 수를 돌려주세요 (받은 값: {r!r:.80}).")
        got[L, C, N] = r
    truth = {k: (pipeline.schedule(k[2], k[0], k[1], 1).total, pipeline.schedule(k[2], k[0], k[1], 2).total)
             for k in _CASES}
    bad_single = [k for k in _CASES if got[k][0] != truth[k][0]]
    if bad_single:
        L, C, N = bad_single[0]
        return fail("08-3", "single", "싱글 버퍼 총 시간이 모델과 다릅니다: 버퍼가 하나면 타일마다 로드가 끝나야 연산을 "
                    "하고, 연산이 끝나야 다음 로드를 합니다(겹침 없음).",
                    f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][0]}")
    bad = [k for k in _CASES if got[k][1] != truth[k][1]]
    if not bad:
        return passed("08-3", f"{len(_CASES)}가지 (L, C, N) 에서 두 총 시간이 파이프라인 모델과 같습니다.")
    for code, f, msg in _WRONG_DOUBLE:
        if all(got[k][1] == f(*k) for k in bad):
            return fail("08-3", code, msg, *[f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][1]}"
                                             for L, C, N in bad[:2]])
    L, C, N = bad[0]
    more = "크" if got[L, C, N][1] > truth[L, C, N][1] else "작"
    return fail("08-3", "double", f"더블 버퍼 총 시간이 모델보다 {more}니다 ({len(bad)}/{len(_CASES)}가지 경우): L > C 와 "
                "L < C, N = 1 인 경우를 위젯으로 그려 보고 식과 맞춰 보세요.",
                f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][1]}")
