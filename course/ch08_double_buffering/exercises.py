"""Notebook 08 exercises: the buffer of every iteration (S stages), the register-prefetch double-buffer loop of a
small kernel (prologue, loop, epilogue), and the pipeline totals of one and two buffers."""
import numpy as np

from kernels_numba.infra import device
from sim import pipeline
from sim.korean import josa

from course.exercises import probe
from course.exercises.core import exercise, fail, gpu_note, passed, technique
from course.exercises.diagnose import k_tile_counts, run_shapes

T8 = 8


# ------------------------------------------------------------------ 08-1: which buffer, which tile (3.2)

def _rows_ok(got, n):
    """got is a list of n 4-tuples (kt, buffer, tile or None, buffer or None) of ints/None."""
    if not isinstance(got, (list, tuple)) or len(got) != n:
        return False
    for r in got:
        if not isinstance(r, (list, tuple)) or len(r) != 4:
            return False
        if not all(v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool)) for v in r):
            return False
    return True


def _past_end_why(tile, buf, n):
    """What the student's row past the last prefetch means: a tile outside the matrix, another marker than None, a
    tile already read, or a buffer without a tile."""
    if tile is None:
        return f"타일이 None 이면 넣을 버퍼도 없으니 버퍼 자리도 None 입니다 (받은 버퍼: {buf!r})."
    if isinstance(tile, (int, np.integer)) and tile >= n:
        return "행렬 밖의 타일을 읽는 셈입니다."
    if isinstance(tile, (int, np.integer)) and tile < 0:
        return (f"'미리 읽지 않음' 은 None 으로 나타냅니다: {tile} 같은 다른 표시는 받지 않습니다 (타일 번호로 읽으면 "
                "없는 타일입니다).")
    return f"{josa(f'타일 {tile}', '은/는')} 이미 버퍼에 들어온 타일이라, 다시 읽을 필요가 없습니다."


def _table_diagnosis(got, n, S):
    """Walk the student's table against the buffers' real contents; the first wrong row gives the diagnosis."""
    where = f"  (타일 {n}개, 버퍼 S = {S})"
    held = {}                                          # buffer -> tile it holds now
    for t in range(min(S - 1, n)):                     # prologue: tiles 0 .. S-2
        held[t % S] = t
    for kt, row in enumerate(got):
        k, cur, tile, buf = row
        at = f"  kt = {kt}인 행: {tuple(row)!r}"
        if k != kt:
            return fail("08-1", "input", "각 행의 첫 값은 반복 번호 kt (0, 1, 2, …)입니다.", where, at)
        if cur is None or held.get(cur) != kt:
            what = "아무 타일도 들어 있지 않은" if cur not in held else f"{josa(f'타일 {held[cur]}', '이/가')} 들어 있는"
            return fail("08-1", "compute_buffer", f"반복 kt 는 타일 kt 를 계산해야 하는데, 고른 버퍼는 {what} 버퍼입니다: "
                        "프롤로그가 타일을 어느 버퍼에 넣었고, 타일 t 가 어느 버퍼로 가는지 다시 세어 보세요.", where, at)
        want = kt + S - 1
        if want >= n:
            if tile is not None or buf is not None:
                return fail("08-1", "past_end", (f"마지막 반복(kt = n_tiles − 1 = {n - 1})에서는 " if S == 2 else
                             f"마지막 {S - 1}개 반복(kt ≥ n_tiles − {S - 1} = {n - S + 1})에서는 ") +
                            f"미리 읽을 타일이 없습니다(타일 번호 kt + {josa(S - 1, '이/가')} n_tiles = {n} 이상): 그때는 (kt, 버퍼, "
                            "None, None)입니다. " + _past_end_why(tile, buf, n),
                            where, at)
        else:
            if tile is None:
                return fail("08-1", "missing_prefetch", "아직 남은 타일이 있는데 이 반복이 아무것도 미리 읽지 않습니다: "
                            "그러면 몇 반복 뒤에 계산할 타일이 버퍼에 없습니다.", where, at)
            if tile != want:
                if tile == kt + 1 and S > 2:
                    return fail("08-1", "prefetch_distance", "S > 2 인데 바로 다음 타일 kt + 1 을 미리 읽습니다: 그 "
                                "타일은 이미 버퍼에 있습니다(프롤로그가 S − 1 개를 채웠음). 미리 읽는 거리는 버퍼 수에 "
                                "따라 달라집니다.", where, at)
                return fail("08-1", "prefetch_tile", "미리 읽는 타일 번호가 틀립니다: 이 반복이 끝난 뒤 버퍼에 없는 "
                            "타일 중 가장 앞의 것을 읽어야 합니다.", where, at)
            if buf == cur:
                return fail("08-1", "overwrite_in_use", "지금 계산하는 버퍼에 다음 타일을 씁니다: 같은 반복 안에서 다른 "
                            "스레드가 아직 그 버퍼를 읽고 있습니다(WAR 경쟁).", where, at)
            if buf in held and held[buf] > kt:
                return fail("08-1", "overwrite_pending", f"아직 계산하지 않은 {josa(f'타일 {held[buf]}', '이/가')} 든 "
                            "버퍼를 덮어씁니다: 비어 있는 버퍼는 이미 계산이 끝난 타일이 들어 있던 것 하나뿐입니다.",
                            where, at)
            if buf is None:
                return fail("08-1", "input", f"미리 읽는 타일({tile})이 있으면 그 타일을 넣을 버퍼 번호(0 … {S - 1})도 "
                            "넷째 값으로 적어야 합니다: None 은 미리 읽는 타일이 없을 때(타일도 None)만 씁니다.",
                            where, at)
            if not 0 <= buf < S:
                return fail("08-1", "input", f"버퍼 번호는 0 … {S - 1}입니다.", where, at)
            held[buf] = tile
    return None


STAGE_CASES = ((4, 2), (1, 2), (6, 3), (2, 3), (7, 4), (3, 4), (9, 5), (1, 3), (0, 3))    # (n_tiles, stages)


@exercise("08-1", "반복마다 어느 버퍼인가 (버퍼 S 개)", "3.2–3.3절",
          hints=("버퍼는 돌아가며 쓰입니다. 프롤로그가 버퍼 하나만 비워 두고 나머지를 채우고, 반복마다 타일 하나를 다 "
                 "쓰면 그 버퍼가 비어 다음 미리 읽기를 받습니다. 표를 손으로 한 줄씩 채우며 버퍼마다 어떤 타일이 들어 "
                 "있는지 세어 보세요.",
                 "S = 3, 타일 6개로 표를 손으로 그려 보세요. 반복 0 이 끝났을 때 버퍼에 들어 있는 타일은 무엇이고, 아직 "
                 "버퍼에 없는 가장 앞의 타일은 몇 번인가요?"),
          questions={
              "compute_buffer": "그 반복에서 계산할 타일은 프롤로그나 앞 반복이 어느 버퍼에 넣었나요?",
              "prefetch_distance": "프롤로그가 타일 몇 개를 미리 채웠나요? 그렇다면 이 반복이 끝난 뒤 버퍼에 없는 가장 "
                                   "앞의 타일은 몇 번인가요?",
              "prefetch_tile": "이 반복이 끝난 뒤 버퍼에 없는 가장 앞의 타일은 몇 번인가요?",
              "overwrite_in_use": "미리 읽은 타일을 넣는 버퍼가 이 반복에서 계산하는 버퍼와 같지 않나요?",
              "overwrite_pending": "그 버퍼에 든 타일은 이미 계산이 끝났나요?",
              "past_end": "미리 읽을 타일 번호가 n_tiles 이상이면 무엇을 돌려주나요?",
              "missing_prefetch": "아직 남은 타일이 있는데 None 을 돌려준 반복의 조건을 보세요. 경계가 하나 모자라지 "
                                  "않나요?",
              "input": "행 하나는 네 값 (kt, 버퍼, 타일 또는 None, 버퍼 또는 None)인가요? 행의 수는 n_tiles 와 같나요?",
          },
          solution="answers/ch08/ex08_stages.py::stage_table", name="my_stage_table", template='''
def my_stage_table(n_tiles, stages):
    """메인 루프의 반복마다 (kt, 계산하는 버퍼, 미리 읽는 타일 또는 None, 그 타일을 넣는 버퍼 또는 None) 의 리스트.

    버퍼는 stages 개이고, 프롤로그가 타일 0 … stages−2 를 버퍼 0 … stages−2 에 미리 채웠습니다."""
    raise NotImplementedError("반복 kt 가 계산하는 타일이 어느 버퍼에 있는지, 그리고 무엇을 어디에 미리 읽을지 세어 보세요")
''')
def check_stage_table(student):
    cases = STAGE_CASES
    for n, S in cases:
        got = student(n, S)
        shaped = isinstance(got, (list, tuple)) and len(got) == n and all(
            isinstance(r, (list, tuple)) and len(r) == 4 for r in got)
        if shaped and not _rows_ok(got, n):
            bad = next(v for r in got for v in r
                       if not (v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))))
            return fail("08-1", "input", f"행의 모양은 맞지만 값은 정수(또는 None)여야 합니다 (받은 값: {bad!r:.40}, 첫 행 "
                        f"{tuple(got[0])!r:.80}): 반복·버퍼·타일 번호는 정수입니다. `/` 대신 `//` 로 나누거나 int(…) 로 "
                        "바꾸세요.",
                        f"  (타일 {n}개, 버퍼 S = {S})")
        if not _rows_ok(got, n):
            return fail("08-1", "input", f"행 {n}개의 리스트를 돌려주세요: 행마다 (kt, 버퍼, 타일 또는 None, 버퍼 또는 "
                        f"None) 네 값 (받은 값: {got!r:.120}).", f"  (타일 {n}개, 버퍼 S = {S})")
        got = [tuple(None if v is None else int(v) for v in r) for r in got]
        res = _table_diagnosis(got, n, S)
        if res is not None:
            return res
    stages = sorted({S for _, S in cases})
    return passed("08-1", f"버퍼 {stages[0]}–{stages[-1]}개의 (타일 수, 버퍼 수) {len(cases)}가지 경우에 표가 모두 맞습니다. kt ≥ 1 에서 "
                  "미리 읽는 버퍼는 바로 앞 반복이 계산한 버퍼이고, kt = 0 에서는 프롤로그가 비워 둔 버퍼 S − 1 입니다.")


# ------------------------------------------------------------------ 08-2: the register-prefetch loop (4.4)

class _Recorder:
    """launch(A, B, C, alpha, beta) for run_shapes that keeps each run's inputs and output (for the K-tile counts)."""

    def __init__(self, kernel):
        self.kernel, self.runs = kernel, []

    def __call__(self, A, B, C, alpha, beta):
        C0 = C.copy()
        M, N = C.shape
        grid = ((N + T8 - 1) // T8, (M + T8 - 1) // T8)     # run_gemm's race collector sees this launch
        self.kernel[grid, (T8, T8)](A, B, C, np.float32(alpha), np.float32(beta))
        self.runs.append((A, B, C0, alpha, beta, np.array(C)))
        return C

    def one_tile_only(self):
        """True when every run with one K tile (the prologue alone) is right and every run with more is wrong."""
        ok = {}
        for A, B, C0, alpha, beta, C in self.runs:
            want = alpha * (A.astype(np.float64) @ B) + beta * np.nan_to_num(C0.astype(np.float64))
            K = A.shape[1]
            ok.setdefault(K <= T8, []).append(bool(np.allclose(C, want, rtol=1e-4, atol=1e-4 * max(K, 1))))
        return bool(ok.get(True)) and all(ok[True]) and bool(ok.get(False)) and not any(ok[False])

    def counts(self):
        """The K-tile counts of the first run whose C is a whole-number sum of its K tiles other than all ones."""
        for A, B, C0, alpha, beta, C in self.runs:
            c = k_tile_counts(C, A, B, C0, alpha, beta, T8)
            if c and c != [1] * len(c):
                return c
        return None


DB_M, DB_N, DB_K = 8, 8, 32           # the traced run: one block, 4 K tiles; A (8×32) and B (32×8) told apart by shape


def _db_record(kernel):
    """(A, B, recording) of one run with 4 K tiles, every thread of block (0, 0) traced: global reads, tile_dot calls
    (with their buffer), load_or_zero calls (also those outside the matrix, which read nothing), shared reads and
    stores (with the stored value) and barriers, in program order (probe). Cached per kernel for one check."""
    hit = _DB_RUNS.get(id(kernel))
    if hit is not None and hit[0] is kernel:
        return hit[1]
    rng = np.random.default_rng(1)
    A = rng.standard_normal((DB_M, DB_K)).astype(np.float32)
    B = rng.standard_normal((DB_K, DB_N)).astype(np.float32)
    with probe.recording(calls=("tile_dot", "load_or_zero"), blocks=[(0, 0)], globals_=True, jumps=True) as rec:
        try:
            kernel[(DB_N // T8, DB_M // T8), (T8, T8)](A, B, np.zeros((DB_M, DB_N), np.float32), np.float32(1.0),
                                                      np.float32(0.0))
        except Exception:             # the ordinary run already explained any error; the trace up to it is enough
            pass
    _DB_RUNS.clear()
    _DB_RUNS[id(kernel)] = (kernel, (A, B, rec))
    return A, B, rec


_DB_RUNS = {}


def db_trace(kernel, thread=(0, 0)):
    """(before, [(kt, events)], after) of one thread (tx, ty) of block (0, 0) in the traced run (_db_record)."""
    return probe.loop_iterations(_db_record(kernel)[2].thread((0, 0), thread, jumps=True))


def _tile_of(e):
    """('A', tile) or ('B', tile) of a global read in the traced run."""
    if e.what == (DB_M, DB_K):
        return "A", e.args[1] // T8
    return "B", e.args[0] // T8


def _asked_tile(e):
    """The K tile a global read or a load_or_zero call of the traced thread asks for (None for other events). Thread
    (0, 0) of block (0, 0) has row = col = 0, so A's call is (0, t·8) and B's is (t·8, 0): the tile is max(r, c) // 8
    either way, also for a tile outside the matrix, where load_or_zero reads nothing and returns 0."""
    if e.kind == "gread" and e.site:
        return _tile_of(e)[1]
    if e.kind == "call" and e.what == "load_or_zero" and "r" in e.args and "c" in e.args:
        return max(e.args["r"], e.args["c"]) // T8
    return None


def _extra_iterations(iters, after, n):
    """The message for a loop of more than n − 1 iterations that gives the right values, told apart by what the trace
    shows: iterations that prefetch nothing (db's `if kt + 1 < n_tiles` form, the last tile computed in the loop) or an
    iteration that asks for a tile past the end of K (load_or_zero's zeros), which n − 1 iterations never do."""
    asked = ("이 문제가 요구하는 구조는 메인 루프를 n_tiles − 1 번만 돌리고(루프 안에 분기 없음), 마지막 타일 n_tiles − 1 "
             "을 루프 뒤의 에필로그에서 그 타일이 든 버퍼 (n_tiles − 1) % 2 로 계산하는 것입니다 (4.4절 08-2 의 설명).")
    held, outside, computed = {0: 0}, None, []          # buffer -> K tile in it (prologue: tile 0 -> buffer 0)
    for kt, evs in iters:
        tiles = [t for t in map(_asked_tile, evs) if t is not None]
        if outside is None and tiles and max(tiles) >= n:
            outside = (kt, max(tiles), next(e.site for e in evs if _asked_tile(e) == max(tiles)))
        for e in evs:
            if e.kind == "call" and e.what == "tile_dot" and "buf" in e.args:
                computed.append((f"반복 kt = {kt}", held.get(e.args["buf"])))
            elif e.kind == "swrite" and e.what == "As" and e.args and tiles:
                held[e.args[0]] = max(tiles)
    epilogue = [held.get(e.args["buf"]) for e in after if e.kind == "call" and e.what == "tile_dot" and "buf" in e.args]
    computed += [("에필로그", t) for t in epilogue]
    head = f"K 타일 {n}개(0 … {n - 1})로 돌린 실행에서 메인 루프가 {len(iters)}번 돕니다"
    extra = iters[n - 1:]
    quiet = not any(_asked_tile(e) is not None or (e.kind == "swrite" and e.what in ("As", "Bs"))
                    for _, evs in extra for e in evs)
    last = [w for w, tile in computed if tile == n - 1]
    if outside is None and quiet:
        ks = [kt for kt, _ in extra]
        who = f"반복 kt = {ks[0]}" + (f" … {ks[-1]}" if len(ks) > 1 else "")
        in_loop = [w for w in last if w != "에필로그"]
        if in_loop and in_loop[0] == who:
            did = (f"{josa(who, '은/는')} 다음 타일을 읽지도 저장하지도 않고 마지막 타일 {josa(n - 1, '을/를')} "
                   "계산합니다: `db` 처럼 `if kt + 1 < n_tiles` 로 마지막 반복의 프리페치를 건너뛰는 형태입니다.")
        elif in_loop:
            did = (f"{josa(who, '은/는')} 다음 타일을 읽지도 저장하지도 않고, 마지막 타일 {josa(n - 1, '은/는')} "
                   f"{josa(in_loop[0], '이/가')} 계산합니다: `db` 처럼 `if kt + 1 < n_tiles` 로 마지막 반복의 "
                   "프리페치를 건너뛰는 형태입니다.")
        else:
            did = (f"{josa(who, '은/는')} 다음 타일을 읽지도 저장하지도 않고 타일을 계산하지도 않는, 할 일이 없는 "
                   "반복입니다.")
        return fail("08-2", "guarded_last_iteration", f"맞는 값이지만 이 문제가 요구한 구조가 아닙니다: {head}. {did} "
                    f"{asked}", where=probe.line_text(next((e.site for e in extra[0][1] if e.site), None)))
    if outside is None:
        return fail("08-2", "extra_iterations", f"맞는 값이지만 루프가 너무 많이 돕니다: {head}. {asked}",
                    where=probe.line_text(next((e.site for e in extra[0][1] if e.site), None)))
    kt, t, site = outside
    zeros = [w for w, tile in computed if tile is not None and tile >= n]
    if zeros:
        tail = f" {josa(zeros[0], '은/는')} 그 0 타일을 계산해 0 을 더할 뿐입니다."
    elif last and not epilogue:
        tail = (f" 마지막 타일 {josa(n - 1, '은/는')} {josa(last[0], '이/가')} 계산하고 에필로그는 없습니다: 에필로그의 "
                "일을 루프가 합니다.")
    else:
        tail = ""
    return fail("08-2", "extra_iterations",
                f"맞는 값이지만 루프가 너무 많이 돕니다: {head}. {josa(f'반복 kt = {kt}', '은/는')} "
                f"{josa(f'타일 {t}', '을/를')} 미리 읽는데, 그 타일은 행렬 밖이라 `load_or_zero` 가 0 을 돌려주고 그 0 이 "
                f"버퍼에 저장됩니다(헛된 로드와 저장).{tail} {asked} 반복 횟수와 n_tiles 를 다시 세어 보세요.",
                where=probe.line_text(site))


def _computes(e):
    """True for an event that computes from shared memory: a tile_dot call or a read of As/Bs."""
    return (e.kind == "call" and e.what == "tile_dot" and "buf" in e.args) or \
        (e.kind == "sread" and e.what in ("As", "Bs") and bool(e.args))


def _buf_of(e):
    """The buffer a computing event (_computes) reads."""
    return e.args["buf"] if e.kind == "call" else e.args[0]


def _db_pieces(iters):
    """[(label, p, events)]: the main loop cut into one piece per computed tile p = 0, 1, ... A loop iteration that
    computes two tiles (kt unrolled by two, as 4.4 suggests for the SASS) is cut at its barriers, so that each piece
    holds one computation with the barriers that follow it; an iteration that computes one tile (or none) stays whole.
    label names the piece in messages: 'kt = 2' or, for a cut iteration, 'kt = 0 (… 2번째 타일)'."""
    pieces = []
    for kt, evs in iters:
        intervals, cur = [], []
        for e in evs:
            cur.append(e)
            if e.kind == "bar":
                intervals.append(cur)
                cur = []
        if cur:
            intervals.append(cur)
        parts, cur, has = [], [], False
        for iv in intervals:
            c = any(_computes(e) for e in iv)
            if c and has:
                parts.append(cur)
                cur, has = [], False
            cur, has = cur + iv, has or c
        parts.append(cur)
        for j, part in enumerate(parts):
            label = f"반복 kt = {kt}" + (f"(루프 한 번이 계산하는 타일 {len(parts)}개 중 {j + 1}번째)" if len(parts) > 1
                                        else "")
            pieces.append((label, len(pieces), part))
    return pieces


def _stored_tile(A, B, e):
    """('As' or 'Bs', buffer, K tile) of a store of the traced thread (0, 0), the tile told by the stored value (A's
    and B's elements are distinct random numbers), or None when the value is no element of the right matrix."""
    if not (e.kind == "swrite" and e.what in ("As", "Bs") and e.args and e.value is not None):
        return None
    got = _element_named(A, B, e.value)
    if got is None or got[0] != e.what[0]:
        return None
    return e.what, e.args[0], (got[2] if got[0] == "A" else got[1]) // T8


def _db_deviation(kernel):
    """The first place where the loop departs from 4.4's recipe, from the trace: (code, message, site) or None."""
    _, iters, after = db_trace(kernel)
    n = DB_K // T8
    for label, kt, evs in _db_pieces(iters):       # kt: the tile this piece computes (the iteration, without unrolling)
        at = f" ({label}, K 타일 {n}개로 돌린 실행)"
        for e in evs:
            if e.kind == "gread" and e.site:
                which, t = _tile_of(e)
                if t != kt + 1:
                    code = "prefetch_same_tile" if t == kt else "prefetch_tile"
                    return (code, f"반복 kt 에서 레지스터로 읽는 {which} 원소가 타일 {t}의 것입니다{at}: 이 반복이 "
                            f"미리 읽을 것은 다음 타일 kt + 1 = {kt + 1}이고, 타일 kt 는 이미 버퍼에 있습니다.", e.site)
            if e.kind == "call" and e.what == "tile_dot" and e.args.get("buf") != kt % 2:
                return ("compute_buffer", f"반복 kt 에서 계산하는 버퍼가 {e.args.get('buf')}번입니다{at}: 타일 kt 는 버퍼 "
                        f"kt % 2 = {kt % 2}에 있습니다 (프롤로그가 타일 0 을 버퍼 0 에 넣었고, 타일 t 는 버퍼 t % 2 로 "
                        "갑니다).", e.site)
            if e.kind == "swrite" and e.what in ("As", "Bs") and e.args and e.args[0] != (kt + 1) % 2:
                return ("store_into_current", f"반복 kt 에서 다음 타일을 버퍼 {e.args[0]}에 저장합니다{at}: 그 버퍼는 이 "
                        "반복이 계산하는 버퍼라, 같은 반복에서 다른 스레드가 아직 읽고 있습니다(읽기 후 쓰기, WAR). "
                        "배리어를 더 넣어도 다음 반복이 읽을 버퍼는 비어 있게 되니, 다른 버퍼에 저장하세요.", e.site)
    wrong = _db_wrong_store(kernel)
    if wrong is not None:
        return wrong
    for e in after:
        if e.kind == "call" and e.what == "tile_dot" and e.args.get("buf") != (n - 1) % 2:
            return ("epilogue_buffer", f"에필로그가 버퍼 {e.args.get('buf')}번을 계산합니다: 마지막 타일 n_tiles − 1 = "
                    f"{josa(n - 1, '은/는')} 버퍼 (n_tiles − 1) % 2 = {(n - 1) % 2}에 있습니다 (K 타일 {n}개로 돌린 "
                    "실행).", e.site)
    return None


def _element_named(A, B, value):
    """('A' or 'B', r, c): the element of the traced run's inputs that holds `value` (their values are distinct random
    numbers), or None."""
    for name, X in (("A", A), ("B", B)):
        hit = np.argwhere(X == np.float32(value))
        if len(hit):
            return name, int(hit[0][0]), int(hit[0][1])
    return None


def _db_wrong_store(kernel):
    """Every store into As/Bs of every thread of block (0, 0), checked against the element that place must hold: K tile
    t of A (As[buf, i, j] = A[i, t·8 + j]) and of B (Bs[buf, i, j] = B[t·8 + i, j]), t = 0 in the prologue and kt + 1 in
    iteration kt (tile_dot multiplies As[buf, ty, k] by Bs[buf, k, tx]). Threads with tx != ty (row != col) come first:
    they tell a swapped index (tx for ty, col for row) or swapped registers (a into Bs) apart, which thread (0, 0)
    cannot. (code, message, site) of the first wrong store, or None."""
    A, B, rec = _db_record(kernel)
    for block, thread in sorted(rec.threads(), key=lambda k: (k[1][0] == k[1][1], k[1])):
        before, iters, _ = probe.loop_iterations(rec.thread(block, thread, jumps=True))
        tx, ty = thread[0], thread[1]
        for kt, evs in [(None, before)] + [(p, evs) for _, p, evs in _db_pieces(iters)]:
            t = 0 if kt is None else kt + 1
            for e in evs:
                if not (e.kind == "swrite" and e.what in ("As", "Bs") and e.args and len(e.args) == 3
                        and e.value is not None):
                    continue
                _, i, j = e.args
                name, X = ("A", A) if e.what == "As" else ("B", B)
                want = (i, t * T8 + j) if name == "A" else (t * T8 + i, j)
                if not (want[0] < X.shape[0] and want[1] < X.shape[1]) or np.float32(e.value) == X[want]:
                    continue
                got = _element_named(A, B, e.value)
                shown = f"{got[0]}[{got[1]}, {got[2]}]" if got else f"{e.value:.4g}"
                when, k = ("프롤로그", f"{t}·8") if kt is None else (f"반복 kt = {kt}", "(kt + 1)·8")
                rule = f"A[row, {k} + tx]" if name == "A" else f"B[{k} + ty, col]"
                if got is None:
                    why = " 그 값은 A 나 B 의 어느 원소도 아닙니다."
                elif got[0] != name:
                    why = (f" {e.what} 에 {got[0]} 의 원소를 저장했습니다: 두 레지스터(a, b)를 바꿔 저장하지 않았는지 "
                           "보세요.")
                else:
                    why = (f" 읽은 원소의 행·열이 다릅니다: 행렬 {josa(name, '을/를')} 읽는 인덱스를 스레드 좌표(tx, ty, "
                           "row, col)로 다시 적어 보세요.")
                load = next((x for x in evs if got and x.kind == "gread" and x.site
                             and x.what == (A if got[0] == "A" else B).shape and tuple(x.args) == got[1:]), None)
                who = josa(f"블록 (0, 0)의 스레드 (tx, ty) = ({tx}, {ty})", "이/가")
                msg = (f"{when}에서 {who} "
                       f"{e.what}[{', '.join(map(str, e.args))}]에 {josa(shown, '을/를')} 저장합니다: tile_dot 은 "
                       f"As[buf, ty, k] · Bs[buf, k, tx] 를 곱하므로, 그 자리에는 "
                       f"{josa(f'{rule} = {name}[{want[0]}, {want[1]}]', '이/가')} 들어가야 합니다.{why}")
                details = [f"  읽은 곳: {probe.line_text(load.site)}"] if load is not None and load.site != e.site \
                    else []
                return ("wrong_element", msg, e.site, details)
    return None


def _db_order(kernel):
    """The technique of 4.4 from the trace: in every loop iteration the next tile goes into the buffer not being
    computed, one barrier, and the global loads of the next tile come before the computation and the shared-memory
    stores after it. A technique Result, or None."""
    before, iters, after = db_trace(kernel)
    n = DB_K // T8
    if not iters:
        return fail("08-2", "loop_not_found", f"맞는 값이지만 메인 루프를 찾지 못해, 이 문제가 요구한 구조인지 확인할 수 "
                    f"없습니다: K 타일 {n}개로 돌린 실행에서 반복마다 일정하게 늘어나는 정수 변수로 도는 루프가 보이지 "
                    "않습니다. 이 문제가 기대하는 구조는 프롤로그(타일 0 → 버퍼 0, 배리어) 뒤에 메인 루프가 n_tiles − 1 번 "
                    "돌며 반복 kt 마다 다음 타일 kt + 1 을 레지스터로 읽고, 버퍼 kt % 2 의 타일 kt 를 계산하고, 레지스터의 "
                    "타일을 다른 버퍼 (kt + 1) % 2 에 저장한 뒤 배리어 하나를 두고, 마지막 타일은 루프 뒤(에필로그)에서 "
                    "계산하는 것입니다. 템플릿의 `for kt in range(n_tiles - 1):` 처럼 정수로 세는 루프로 쓰세요.")
    if len(iters) > n - 1:
        return _extra_iterations(iters, after, n)
    pieces = _db_pieces(iters)
    if len(pieces) > n - 1:                     # an unrolled loop that computes more tiles than n_tiles − 1
        return _extra_iterations([(p, evs) for _, p, evs in pieces], after, n)
    A, B, _ = _db_record(kernel)
    held = {}                                   # ('As' | 'Bs', buffer) -> the K tile stored there, told by its values
    for e in before:
        hit = _stored_tile(A, B, e)
        if hit is not None:
            held[hit[:2]] = hit[2]
    for label, p, evs in pieces:                # one piece per computed tile p (an iteration, or half of one unrolled)
        comp = [e for e in evs if _computes(e)]
        if not comp:
            direct = [e for e in evs if e.kind == "gread" and e.site and _tile_of(e)[1] == p]
            site = next((e.site for e in direct + evs if e.site), None)
            did = (f"타일 {p}의 원소를 글로벌 메모리에서 곧바로 읽어 계산합니다. 그러면 공유 메모리의 버퍼를 거치지 "
                   "않으니 더블 버퍼링이 아닙니다" if direct else f"타일 {josa(p, '을/를')} 계산하지 않습니다")
            return technique("08-2", "no_shared_compute", "더블 버퍼링", f"{label}의 계산이 공유 메모리를 읽지 "
                             f"않습니다(tile_dot 도, As·Bs 읽기도 없음): {did}. 타일 kt 는 그 타일이 든 버퍼 kt % 2 "
                             "에서 tile_dot 으로 계산하세요.", where=probe.line_text(site))
        for e in evs:                           # in program order: what each computation reads is what was stored
            hit = _stored_tile(A, B, e)
            if hit is not None:
                held[hit[:2]] = hit[2]
            if not _computes(e):
                continue
            arrays = ("As", "Bs") if e.kind == "call" else (e.what,)
            wrong = [(x, held[(x, _buf_of(e))]) for x in arrays if held.get((x, _buf_of(e)), p) != p]
            if wrong:
                x, t = wrong[0]
                where = probe.line_text(e.site)
                return technique("08-2", "compute_buffer", "더블 버퍼링", f"{label}에서 타일 {josa(p, '을/를')} "
                                 f"계산해야 하는데, 읽는 버퍼 {x}[{_buf_of(e)}]에는 타일 {josa(t, '이/가')} 들어 있습니다. "
                                 "타일 kt 는 버퍼 kt % 2 에 저장되고 그 버퍼에서 계산됩니다.", where=where)
        for e in evs:                           # the values come through shared memory: global reads are the prefetch
            if e.kind == "gread" and e.site and _tile_of(e)[1] != p + 1:
                which, t = _tile_of(e)
                where = probe.line_text(e.site)
                if t == p:
                    why = (f"{label}에서 계산할 타일 {p}의 {which} 원소를 글로벌 메모리에서 다시 읽습니다: 그 타일은 이미 "
                           f"공유 메모리 버퍼 {p % 2}에 있으니, 계산은 그 버퍼(tile_dot)에서만 하고 글로벌 메모리에서는 "
                           f"다음 타일 {p + 1}만 미리 읽으세요.")
                else:
                    why = (f"{label}에서 글로벌 메모리로부터 읽는 {which} 원소가 타일 {t}의 것입니다: 이 반복이 미리 "
                           f"읽을 것은 다음 타일 kt + 1 = {p + 1}입니다.")
                return technique("08-2", "prefetch_same_tile" if t == p else "prefetch_tile",
                                 "공유 메모리를 거친 더블 버퍼링", why, where=where)
        read = {_buf_of(e) for e in comp}
        same = [e for e in evs if e.kind == "swrite" and e.what in ("As", "Bs") and e.args and e.args[0] in read]
        if same:
            where = probe.line_text(same[0].site)
            return technique("08-2", "single_buffer", "더블 버퍼링", f"{label}에서 계산하는 버퍼 "
                             f"{same[0].args[0]}번에 다음 타일도 저장합니다. 버퍼 하나로 맞는 값을 내려면 계산과 "
                             "저장 사이에 배리어가 하나 더 필요하고(읽기 후 쓰기, WAR), 그 배리어에서 블록 전체가 멈춥니다. "
                             "타일 kt 는 버퍼 kt % 2 에서 계산하고 다음 타일은 다른 버퍼 (kt + 1) % 2 에 저장하면, 타일당 "
                             "배리어 하나로 충분합니다 (3.3절의 표).", f"  저장: {where}", where=where)
        bars = [e for e in evs if e.kind == "bar"]
        if len(bars) > 1:
            return technique("08-2", "two_barriers", "타일당 배리어 하나의 순서", f"{label}에 배리어가 "
                             f"{len(bars)}개 있습니다. 이 루프(로드 → 계산 → 다른 버퍼에 저장 → 배리어)에서는 타일마다 "
                             "배리어 하나가 '다음 타일 저장 완료'(쓰기 후 읽기, RAW)와 '이 버퍼를 다 읽음'(읽기 후 쓰기, WAR)을 "
                             "함께 보장하므로 (3.3절의 표), 다른 배리어는 블록 전체를 한 번 더 세울 뿐입니다.",
                             f"  배리어: {', '.join(probe.line_text(b.site) for b in bars)}",
                             where=probe.line_text(bars[0].site))
        loads = [i for i, e in enumerate(evs) if e.kind == "gread"]
        reads = [i for i, e in enumerate(evs) if e.kind == "sread"]
        stores = [i for i, e in enumerate(evs) if e.kind == "swrite"]
        if not (loads and reads and stores):
            continue
        early = [i for i in stores if i < reads[-1]]
        if early:
            where = probe.line_text(evs[early[0]].site)
            return technique("08-2", "store_before_compute", "레지스터 프리페치의 순서(로드 → 계산 → 저장)",
                             f"{label}에서 공유 메모리 저장이 계산보다 먼저입니다. `db` 와 같은 순서라 워프가 그 "
                             "저장에서 자기 글로벌 로드를 기다린 뒤에 계산하므로, 로드와 계산이 겹치지 않습니다(4.4절의 "
                             "SASS). 레지스터 → 공유 메모리 저장을 계산 뒤로 옮기세요.", f"  저장: {where}", where=where)
        late = [i for i in loads if i > reads[0]]
        if late:
            where = probe.line_text(evs[late[0]].site)
            what = "·".join(sorted({_tile_of(evs[i])[0] for i in late}))
            return technique("08-2", "load_after_compute", "레지스터 프리페치의 순서(로드 → 계산 → 저장)",
                             f"{label}에서 다음 {what} 타일의 글로벌 로드가 계산보다 뒤입니다. 로드를 먼저 보내 "
                             "두어야 계산하는 동안 그 로드가 날아옵니다: A 와 B 의 로드를 모두 계산(tile_dot) 앞에 두세요.",
                             f"  로드: {where}", where=where)
    if not any(_computes(e) for e in after):
        site = next((e.site for e in after if e.site), None)
        return technique("08-2", "no_shared_compute", "더블 버퍼링", f"에필로그가 마지막 타일 {josa(n - 1, '을/를')} 공유 메모리에서 "
                         "계산하지 않습니다(tile_dot 도, As·Bs 읽기도 없음): 그 타일은 루프의 마지막 반복이 버퍼 "
                         "(n_tiles − 1) % 2 에 저장해 두었으니, 에필로그는 그 버퍼를 tile_dot 으로 계산하세요.",
                         where=probe.line_text(site))
    return None


DB_SHAPES = ((12, 11, 29, 1.0, 0.0), (9, 10, 33, 0.5, 2.0), (6, 5, 7, 1.0, 0.0))     # K tiles 4, 5 (K % 8 = 1), 1


@exercise("08-2", "레지스터 프리페치 더블 버퍼 루프 (프롤로그·루프·에필로그)", "4.4절",
          hints=("반복 하나는 세 일을 겹칩니다: 다음 타일을 글로벌 메모리에서 레지스터로 보내 두고, 그동안 지금 타일을 "
                 "계산하고, 계산이 끝나면 레지스터의 다음 타일을 다른 버퍼에 저장합니다. 3.3절의 두 위험은 배리어 "
                 "하나로 막을 수 있습니다. 루프가 한 번 덜 돌면 마지막 타일은 누가 계산할까요?",
                 "반복 kt 에서 레지스터로 읽을 타일은 몇 번이고, 그 타일은 어느 버퍼로 가나요? 지금 계산할 타일은 어느 "
                 "버퍼에 있나요? 루프가 끝난 뒤 남은 타일은 어느 버퍼에 있나요?"),
          questions={
              "race": "검출기가 가리킨 두 줄 사이에 배리어가 있나요? 그 두 줄은 같은 반복인가요, 이웃한 두 반복인가요?",
              "nan": "계산하는 버퍼에 그 타일을 저장한 것은 누구이고, 언제인가요? 저장과 읽기 사이에 배리어가 있나요?",
              "prefetch_same_tile": "그 줄에서 타일 번호를 만드는 식에 kt 가 어떻게 들어가나요? 미리 읽을 타일은 지금 "
                                    "타일의 다음 것입니다.",
              "prefetch_tile": "그 줄에서 읽는 타일 번호는 몇인가요? 이 반복이 미리 읽을 타일은 몇 번인가요?",
              "compute_buffer": "그 줄이 넘기는 버퍼 번호를 kt 로 적어 보세요. 타일 kt 는 어느 버퍼에 들어갔나요?",
              "store_into_current": "그 줄이 저장하는 버퍼는 이 반복이 계산하는 버퍼와 같지 않나요?",
              "loop_tiles": "프롤로그는 타일 0 을 어떤 인덱스로 읽어 어디에 저장하나요? 루프가 타일 kt + 1 을 읽는 "
                            "인덱스와 저장하는 자리는 그것과 같은 모양인가요?",
              "wrong_element": "그 스레드가 읽는 A 원소의 행은 row, 열은 (kt + 1)·8 + tx 이고, B 원소의 행은 "
                               "(kt + 1)·8 + ty, 열은 col 인가요? 읽은 값은 어느 버퍼의 어느 자리로 가나요?",
              "last_k_tile": "루프는 몇 번 돌고, 반복마다 몇 번 타일을 계산하나요? 마지막 타일은 어디서 계산하나요?",
              "epilogue_buffer": "마지막 타일의 번호는 무엇이고, 타일 t 는 어느 버퍼로 가나요?",
              "k_tile_counts": "두 번 더해진 타일과 빠진 타일이 있습니다. 반복 kt 에서 계산하는 버퍼와 저장하는 버퍼는 "
                               "각각 몇 번인가요?",
              "store_before_compute": "반복 안에서 공유 메모리에 저장하는 줄이 계산(tile_dot)보다 위에 있나요? 그 저장이 "
                                      "기다리는 것은 무엇인가요?",
              "load_after_compute": "다음 타일의 글로벌 로드는 계산보다 앞인가요, 뒤인가요? 계산하는 동안 날아오게 하려면 "
                                    "언제 보내야 하나요?",
              "single_buffer": "계산하는 버퍼와 다음 타일을 저장하는 버퍼가 같으면, 저장 전에 무엇을 기다려야 하나요? "
                               "저장을 다른 버퍼로 보내면 그 기다림은 어디로 가나요?",
              "two_barriers": "두 배리어가 각각 무엇을 보장하나요? 반복 끝의 배리어 하나가 둘의 일을 함께 할 수 있나요?",
              "extra_iterations": "K 타일이 4개면 메인 루프는 몇 번 돌아야 하나요? 여러분의 n_tiles 는 얼마로 계산되나요?",
              "loop_not_found": "K 타일을 도는 루프는 어디에 있고, 무엇으로 반복을 세나요? 반복마다 1 씩(또는 타일 폭만큼) "
                                "늘어나는 정수 변수로 돌고 있나요?",
              "no_shared_compute": "그 반복(또는 에필로그)이 계산하는 값은 어디서 오나요? 공유 메모리에 저장한 타일을 "
                                   "누가 읽나요?",
              "guarded_last_iteration": "루프를 한 번 덜 돌리면 `if kt + 1 < n_tiles` 가 필요한가요? 그러면 마지막 "
                                        "타일은 누가, 어느 버퍼로 계산하나요?",
          },
          solution="answers/ch08/ex08_db8.py::db8", name="my_db8",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
from kernels_numba.common import load_or_zero, store_c, thread_coords
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
    res = run_shapes("08-2", rec, DB_SHAPES, tile=(T8, T8), BK=T8,
                     product="곱하는 두 원소의 인덱스(tile_dot 에 넘기는 ty, tx 와 버퍼)")
    if not res.ok and res.code not in ("not_implemented",) and device.SIMULATOR:
        dev = _db_deviation(student)
        if dev is not None:
            code, msg, site, *more = dev
            details = list(res.details)
            if res.code == "race":      # the detector's per-line advice (add a barrier) is not this cause's fix
                at = next((i for i, d in enumerate(details) if str(d).startswith("경쟁 검출기")), 0)
                details.insert(at, "  아래 경쟁 검출기 보고는 위에서 말한 원인의 결과입니다: 검출기의 줄별 제안(배리어 "
                               "추가)을 따르지 말고 위의 설명대로 고치세요.")
            return fail("08-2", code, msg, *(more[0] if more else []), *details, where=probe.line_text(site))
    if res.code in ("all_wrong", "wrong_values") and rec.one_tile_only():
        res.code = "loop_tiles"
        res.message = ("K 타일이 1개일 때(프롤로그만)는 맞고 2개 이상에서 틀립니다: 메인 루프가 읽어 저장하는 다음 타일을 "
                       "보세요 — load_or_zero 에 넘기는 행·열(A 는 row, (kt + 1)·8 + tx; B 는 (kt + 1)·8 + ty, col)과, "
                       "a 와 b 를 As 와 Bs 중 어디에 저장하는지, 그리고 반복 kt 가 계산하는 버퍼(kt % 2).")
    elif res.code == "last_k_tile":
        res.message = ("마지막 K 타일이 C 에 더해지지 않았습니다: 루프는 n_tiles − 1 번만 돌고 반복 kt 는 타일 kt 만 "
                       "계산하므로, 마지막 타일(n_tiles − 1)은 루프 뒤(에필로그)에서 그 타일이 든 버퍼로 계산해야 "
                       "합니다.")
    elif res.code == "k_tile_counts":
        counts = rec.counts()
        n = len(counts) if counts else 0
        if n >= 3 and counts[-1] == 0 and counts[-2] == 2 and counts[:-2] == [1] * (n - 2):
            res.code = "epilogue_buffer"
            res.message = ("에필로그가 마지막 타일이 아니라 그 앞 타일이 든 버퍼를 다시 계산합니다: 타일 t 는 버퍼 t % 2 에 "
                           f"있습니다 (K 타일별 횟수 {counts}).")
    elif res.code == "race":
        # before the detector's per-line suggestions: following them one by one gives two barriers (review r21 I-1)
        at = next((i for i, d in enumerate(res.details) if str(d).startswith("경쟁 검출기")), 0)
        res.details.insert(at, "  이 루프에서 경쟁이 나는 자리는 둘입니다: 배리어가 빠졌거나 잘못된 곳에 있거나, 다른 스레드가 "
                           "아직 읽고 있는 버퍼(이 반복의 kt % 2)에 다음 타일을 저장했거나. 4.4절의 순서(다음 타일 읽기 → "
                           "계산 → 다른 버퍼에 저장)라면 반복 끝, 저장 뒤의 배리어 하나가 두 경쟁(RAW, WAR)을 함께 "
                           "막습니다 (3.3절 표). 아래 검출기의 줄별 제안은 경쟁마다 따로 쓴 것이라, 하나씩 따르면 배리어가 "
                           "둘이 됩니다.")
    if res.ok and device.SIMULATOR:
        res = _db_order(student) or res
    if res.ok and gpu_note():
        res.details.append("  (GPU 모드에서는 경쟁 검출기가 돌지 않습니다: 배리어가 빠져도 이번 실행이 우연히 맞을 수 있으니, "
                           "GPU 가 없는 환경(시뮬레이터)에서도 한 번 확인하세요.)")
    return res


# ------------------------------------------------------------------ 08-3: pipeline totals (6)

_CASES = ((300, 120, 6), (100, 10, 4), (80, 100, 4), (50, 50, 5), (7, 3, 1), (2, 9, 1), (400, 2048, 9), (40, 20, 2),
          (13, 13, 1), (1, 1000, 3))

_WRONG_DOUBLE = (
    ("load_bound_overcount", lambda L, C, N: L + N * max(L, C),
     "로드가 연산보다 길 때(L > C) 총 시간이 L − C 만큼 깁니다: 처음 로드 뒤의 걸음은 N 개가 아니라 N − 1 개이고, 마지막 "
     "연산 하나가 따로 붙습니다. (연산이 더 길면 두 식이 같아서 그 경우만 보면 틀린 줄 모릅니다.)"),
    ("no_fill_drain", lambda L, C, N: N * max(L, C),
     "정상 상태의 걸음만 N 번 셌습니다: 파이프라인을 채우는 처음 로드와 비우는 마지막 연산은 어느 것과도 겹치지 "
     "않습니다."),
    ("compute_bound_only", lambda L, C, N: L + N * C,
     "연산이 늘 로드보다 길다고 가정했습니다: L > C 이면 로드 유닛이 쉬지 않고, 걸음 하나는 로드 시간입니다."),
    ("load_bound_only", lambda L, C, N: N * L + C,
     "로드가 늘 연산보다 길다고 가정했습니다(3.1절의 N·8 + 2): 연산이 더 길면(C > L) 로드 유닛이 기다리고, 걸음 "
     "하나는 연산 시간입니다."),
    ("min_not_max", lambda L, C, N: L + C + (N - 1) * min(L, C),
     "걸음 하나를 짧은 쪽으로 셌습니다: 두 유닛이 겹쳐 일하면 한 걸음은 긴 쪽이 끝나야 끝납니다."),
    ("no_overlap", lambda L, C, N: N * (L + C),
     "더블 버퍼의 총 시간이 싱글 버퍼와 같습니다: 타일 kt 를 계산하는 동안 타일 kt + 1 을 로드할 수 있습니다."),
)


@exercise("08-3", "파이프라인 총 시간: 버퍼 1개와 2개", "6절",
          hints=("싱글 버퍼는 로드와 연산이 타일마다 줄을 섭니다. 더블 버퍼는 위 위젯에서 로드 막대와 연산 막대가 어떻게 "
                 "겹치는지 보세요: 처음과 끝에는 한 유닛만 일하고, 그 사이의 걸음마다 두 유닛이 함께 일합니다.",
                 "위젯으로 L > C, L < C, N = 1 세 경우를 그려 보세요. 두 유닛이 함께 일하는 걸음은 몇 개이고, 한 걸음의 "
                 "길이는 두 시간 중 무엇으로 정해지나요?"),
          questions={
              "single": "버퍼가 하나면 타일 하나를 끝내는 데 얼마가 걸리고, 그것이 몇 번 반복되나요?",
              "load_bound_overcount": "L > C 인 예로 막대를 세어 보세요. 두 유닛이 함께 일하는 걸음은 N 개인가요, "
                                      "N − 1 개인가요? 마지막 연산은 어디에 들어가나요?",
              "no_fill_drain": "처음 로드와 마지막 연산은 다른 막대와 겹치나요?",
              "compute_bound_only": "L > C 인 경우 한 걸음의 길이는 누가 정하나요?",
              "load_bound_only": "C > L 인 예(위젯)로 막대를 세어 보세요. 로드가 끝난 뒤 다음 로드는 언제 시작할 수 "
                                 "있나요? 한 걸음의 길이는 누가 정하나요?",
              "min_not_max": "두 유닛이 함께 일할 때 걸음은 짧은 쪽이 끝나면 끝나나요, 긴 쪽이 끝나야 끝나나요?",
              "no_overlap": "더블 버퍼에서 로드와 연산이 겹치는 걸음이 있나요?",
              "double": "위젯으로 N = 1 인 경우와 L > C, L < C 인 경우를 각각 그려 보면 여러분의 식과 맞나요?",
              "uses_model": "이 함수는 파이프라인 모델을 부르고 있습니다. 막대를 보고 L, C, N 만으로 식을 쓸 수 있나요?",
              "input": "함수가 (싱글, 더블) 두 수를 돌려주나요?",
              "swapped": "return 문의 두 값 중 어느 것이 싱글 버퍼의 총 시간인가요?",
          },
          solution="answers/ch08/ex08_pipeline.py::totals", name="my_pipeline_totals", template='''
def my_pipeline_totals(L, C, N):
    """로드 L, 연산 C, 타일 N 개일 때 (싱글 버퍼 총 시간, 더블 버퍼 총 시간). 로드 유닛 하나, 배리어 시간 0."""
    raise NotImplementedError("싱글 버퍼와 더블 버퍼의 총 시간을 L, C, N 의 식으로 쓰세요")
''')
def check_totals(student):
    got = {}
    with probe.recording(model_files=(probe.model_file(pipeline),)) as rec:
        for L, C, N in _CASES:
            got[L, C, N] = student(L, C, N)
    if rec.model_calls:
        c = rec.model_calls[0]
        return fail("08-3", "uses_model", f"파이프라인 모델(sim/pipeline.py 의 `{c.name}`)을 부르고 있습니다: 확인 셀이 "
                    "바로 그 모델과 비교하므로 이것은 아무것도 확인하지 못합니다. 위젯의 막대를 보고 L, C, N 의 식으로 "
                    "쓰세요.", f"  부른 곳: {probe.line_text(c.site)}", where=probe.line_text(c.site))
    for (L, C, N), r in got.items():
        if not (isinstance(r, (tuple, list)) and len(r) == 2
                and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in r)):
            return fail("08-3", "input", f"(싱글, 더블) 두 수를 돌려주세요 (L = {L}, C = {C}, N = {N}에서 받은 값: "
                        f"{r!r:.80}).")
    truth = {k: (pipeline.schedule(k[2], k[0], k[1], 1).total, pipeline.schedule(k[2], k[0], k[1], 2).total)
             for k in _CASES}
    bad_single = [k for k in _CASES if got[k][0] != truth[k][0]]
    if bad_single and all(tuple(got[k]) == truth[k][::-1] for k in _CASES):
        L, C, N = bad_single[0]
        return fail("08-3", "swapped", "두 값의 순서가 바뀌었습니다: 첫째가 싱글 버퍼, 둘째가 더블 버퍼 총 시간입니다. "
                    "값은 둘 다 모델과 같으니 (싱글, 더블) 순서로 돌려주세요.",
                    f"  L = {L}, C = {C}, N = {N}: 내 답 {tuple(got[L, C, N])}, 모델 (싱글, 더블) = {truth[L, C, N]}")
    if bad_single:
        L, C, N = bad_single[0]
        return fail("08-3", "single", "싱글 버퍼 총 시간이 모델과 다릅니다: 버퍼가 하나면 타일마다 로드가 끝나야 연산을 "
                    "하고, 연산이 끝나야 다음 로드를 합니다(겹침 없음).",
                    f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][0]}, 모델 {truth[L, C, N][0]}")
    bad = [k for k in _CASES if got[k][1] != truth[k][1]]
    if not bad:
        return passed("08-3", f"{len(_CASES)}가지 (L, C, N)에서 두 총 시간이 파이프라인 모델과 같습니다.")
    for code, f, msg in _WRONG_DOUBLE:             # the student's formula everywhere, not only where it is wrong
        if all(got[k][1] == f(*k) for k in _CASES):
            return fail("08-3", code, msg, *[f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][1]}, 모델 "
                                             f"{truth[L, C, N][1]}" for L, C, N in bad[:2]])
    L, C, N = bad[0]
    more = "깁니다" if got[L, C, N][1] > truth[L, C, N][1] else "짧습니다"
    return fail("08-3", "double", f"더블 버퍼 총 시간이 모델보다 {more} ({len(bad)}/{len(_CASES)}가지 경우): L > C 와 "
                "L < C, N = 1 인 경우를 위젯으로 그려 보고 식과 맞춰 보세요.",
                f"  L = {L}, C = {C}, N = {N}: 내 답 {got[L, C, N][1]}, 모델 {truth[L, C, N][1]}")
