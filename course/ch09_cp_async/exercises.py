"""Notebook 09 exercises: the 3-stage K loop (wait_group N, barrier, prefetch, commit, tail), the thread → float4
map of a 16-byte copy, and the 16-byte copy with zero-fill edges (src-size)."""
import difflib
import inspect
import re

import numpy as np
from numba import cuda, float32

from kernels_numba.infra import device
from sim.korean import josa

from course.exercises import core, diagnose, probe
from course.exercises.core import EXERCISES, context, exercise, fail, gpu_note, passed, technique
from kernels_numba.infra.simulator import racecheck
from kernels_numba.infra.simulator.errors import MisalignedAddressError
from kernels_numba.infra import ptx

S3 = 3                                   # stages of the exercise kernel (kernels_numba.common.S3)


# ------------------------------------------------------------------------------------ 09-1: the K loop

def _square_launch(kernel, tile=8):
    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        kernel[((N + tile - 1) // tile, (M + tile - 1) // tile), (tile, tile)](A, B, C, np.float32(alpha),
                                                                               np.float32(beta))
        return C
    return launch


PIPE_K = 40                              # the traced run: 5 K tiles, one 8×8 block


def pipe_trace(kernel, K=PIPE_K, shared=False):
    """(before, [(kt, events)], after) of thread (0, 0) of one block of the student's loop: its issue_tile and
    compute_tile calls (with stage and tile), cp.async copies, commits, waits (with N) and barriers in program order,
    plus the race report of that run; shared: also its shared-memory reads and stores (with the value stored)."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((8, K)).astype(np.float32)
    B = rng.standard_normal((K, 8)).astype(np.float32)
    with probe.recording(calls=("issue_tile", "compute_tile", "prologue"), blocks=[(0, 0)], shared=shared,
                         jumps=True) as rec:
        try:
            _square_launch(kernel)(A, B, np.zeros((8, 8), np.float32), 1.0, 0.0)
        except Exception:             # the ordinary run explains the error; the trace up to it still tells the order
            pass
    return probe.loop_iterations(rec.thread((0, 0), (0, 0), jumps=True)), rec.report


def _ordinal(n):
    """1 -> '첫 번째', 2 -> '두 번째', ..., 11 -> '11번째' (how a group's place reads in a message)."""
    words = ("첫", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉", "열")
    return f"{words[n - 1]} 번째" if 1 <= n <= len(words) else f"{n}번째"


def _n_of(e):
    """The N of a wait event (wait_all counts as 0)."""
    return 0 if e.what == "all" else int(e.what)


class _Groups:
    """cp.async groups of one thread as its events happen: which group holds each tile, which groups are complete."""

    def __init__(self):
        self.open, self.groups, self.done = [], [], -1      # tiles issued since the last commit; committed groups

    def step(self, e):
        if e.kind == "call" and e.what == "issue_tile":
            self.open.append(e.args.get("tile_no"))
        elif e.kind == "commit":
            self.groups.append(self.open)
            self.open = []
        elif e.kind == "wait":
            self.done = max(self.done, len(self.groups) - 1 - _n_of(e))

    def group_of(self, tile):
        return next((g for g, ts in enumerate(self.groups) if tile in ts), None)


def _loop_findings(kernel, n_tiles):
    """The first thing the student's loop does against the rules of 4.3, from its trace: (code, message, site) or
    None. Each finding is read from what the loop did (its calls, their arguments and their order), never from the
    source text."""
    (before, iters, after), _ = pipe_trace(kernel)
    if not iters:
        return None
    at = lambda kt: f" (반복 kt = {kt}, K 타일 {n_tiles}개로 돌린 실행)"      # noqa: E731
    kinds = [{e.kind for e in evs} for _, evs in iters]
    first_site = lambda kind: next((e.site for _, evs in iters for e in evs if e.kind == kind), None)   # noqa: E731
    if not any("commit" in k for k in kinds):
        return ("no_commit", "K 루프에서 commit 을 하지 않습니다: cp_async_commit_group() 으로 묶지 않은 복사는 어떤 "
                "wait_group 도 기다리지 않고, 루프의 wait 는 프롤로그의 그룹만 셉니다. 발행 뒤에 매 반복 commit 하세요.",
                first_site("call"))
    if not any("wait" in k for k in kinds):
        return ("no_wait", "K 루프에 wait_group 이 없습니다: 복사가 도착했다는 보장 없이 타일을 계산합니다. 반복마다 "
                "계산하려는 타일의 그룹까지 끝나게 하는 wait_group 이 필요합니다.", first_site("bar"))
    skipped = [kt for (kt, _), k in zip(iters, kinds) if "wait" not in k]
    if skipped:
        site = first_site("wait")
        return ("wait_skipped", f"반복 kt = {', '.join(map(str, skipped))}에서 wait_group 을 건너뜁니다: wait 가 조건문 "
                "안에 있어 그 반복은 타일이 도착했는지 확인하지 않고 계산합니다. wait 는 매 반복, 조건 밖에서 해야 "
                "합니다.", site)
    no_commit = [kt for (kt, _), k in zip(iters, kinds) if "commit" not in k]
    if no_commit:
        site = first_site("commit")
        return ("tail_not_waited", f"반복 kt = {', '.join(map(str, no_commit))}에서 commit 을 건너뜁니다(미리 읽을 타일이 "
                "없는 꼬리): 그러면 그룹 수가 모자라, 그 반복의 wait_group 이 계산할 타일의 그룹을 덮지 못합니다. "
                "미리 읽을 타일이 없어도 매 반복 commit 하세요 (빈 그룹).", site)
    g = _Groups()
    for e in before:
        g.step(e)
    last_compute = {}                  # stage -> index in `flat` of its last compute
    flat = []
    for kt, evs in iters:
        idx = {k: [i for i, e in enumerate(evs) if e.kind == k] for k in ("wait", "bar", "commit")}
        issues = [i for i, e in enumerate(evs) if e.kind == "call" and e.what == "issue_tile"]
        if issues and idx["commit"] and idx["commit"][0] < issues[0] and not [c for c in idx["commit"] if c > issues[0]]:
            return ("commit_before_issue", f"commit 이 발행보다 앞에 있습니다{at(kt)}: 이 반복에 발행한 복사는 다음 "
                    "반복의 commit 에 묶여 한 그룹 늦어지므로, wait_group 의 셈(그룹 하나 = 타일 하나)이 맞지 "
                    "않습니다. 발행한 뒤에 commit 하세요.", evs[idx["commit"][0]].site)
        for i, e in enumerate(evs):
            if e.kind == "call" and e.what == "issue_tile":
                stage, tile = e.args.get("stage"), e.args.get("tile_no")
                if tile != kt + S3 - 1:
                    return ("prefetch_distance", f"반복 kt 에서 {josa(f'타일 kt + {tile - kt}', '을/를')} 미리 읽습니다"
                            f"{at(kt)}: 프롤로그가 타일 0, 1 을 채웠으니 반복 kt 가 미리 읽을 것은 타일 kt + {S3 - 1}"
                            f"입니다. 거리가 {tile - kt}이면 그룹 하나 = 타일 하나의 셈과 버퍼의 순환이 어긋납니다.",
                            e.site)
                if stage != tile % S3:
                    if stage == kt % S3:
                        return ("overwrite_stage", f"지금 계산하는 버퍼에 다음 타일을 복사합니다{at(kt)}: {josa(f'타일 {tile}', '을/를')} "
                                f"버퍼 {stage}(= kt % 3)에 넣으면 이 반복이 읽을 타일 kt 를 덮어씁니다. 타일 t 는 버퍼 "
                                "t % 3 으로 갑니다.", e.site, BUFFER_NUMBER)
                    return ("stage_mismatch", f"타일 {josa(tile, '을/를')} 버퍼 {stage}에 넣습니다{at(kt)}: 계산 쪽은 "
                            f"타일 t 를 버퍼 t % 3 에서 읽으므로, 타일 {josa(tile, '은/는')} {josa(f'버퍼 {tile % S3}', '으로/로')} 가야 "
                            "합니다 (발행의 버퍼 번호와 타일 번호를 같은 식으로 정하세요).", e.site, BUFFER_NUMBER)
                prev = last_compute.get(stage)
                if prev is not None and not any(x.kind == "bar" for x in (flat + evs[:i])[prev:]):
                    return ("overwrite_stage", f"다른 스레드가 아직 읽는 버퍼에 다음 타일을 복사합니다{at(kt)}: 버퍼 "
                            f"{stage}의 마지막 계산과 이 발행 사이에 배리어가 없어, 느린 스레드가 읽는 중인 버퍼를 "
                            "덮어씁니다. 미리 읽기는 그 버퍼를 다 읽었다는 배리어 뒤에 하세요.", e.site)
            if e.kind == "call" and e.what == "compute_tile":
                stage = e.args.get("stage")
                if stage != kt % S3:
                    return ("compute_stage", f"반복 kt 에서 {josa(f'버퍼 {stage}', '을/를')} 계산합니다{at(kt)}: 타일 kt 는 버퍼 kt % 3 = "
                            f"{kt % S3}에 있습니다.", e.site, BUFFER_NUMBER)
                grp = g.group_of(kt)
                if grp is None:
                    return ("tile_not_committed", f"타일 {josa(kt, '이/가')} 계산 전에 commit 되지 않았습니다{at(kt)}: "
                            "발행한 복사는 commit 으로 그룹에 묶여야 wait_group 이 기다립니다.", e.site)
                if grp > g.done:
                    later_wait = [x for x in evs[i + 1:] if x.kind == "wait"]
                    if later_wait:
                        return ("compute_before_wait", f"타일을 기다리기 전에 계산합니다{at(kt)}: 반복 안에서 "
                                "compute_tile 이 wait_group 보다 앞에 있습니다. 타일 kt 는 wait 와 배리어를 지난 뒤에야 "
                                "읽을 수 있습니다.", e.site)
                    sofar = flat + evs[:i]
                    wi = next((j for j in range(len(sofar) - 1, -1, -1) if sofar[j].kind == "wait"), None)
                    w = sofar[wi] if wi is not None else None
                    # the groups committed before that wait ran (this iteration's commit after it does not count)
                    committed = sum(1 for x in sofar[:len(sofar) if wi is None else wi] if x.kind == "commit") + \
                        sum(1 for x in before if x.kind == "commit")
                    allowed = committed - 1 - grp
                    return ("wait_too_large", f"{josa(f'wait_group({_n_of(w) if w else 0})', '이/가')} 타일 kt 의 그룹을 기다리지 않고 "
                            f"통과합니다{at(kt)}: 이 반복의 wait 직전까지 commit 한 그룹이 {committed}개이고 타일 kt 는 "
                            f"{_ordinal(grp + 1)} 그룹이라, 대기 중으로 남아도 되는 그룹은 {allowed}개까지입니다 "
                            f"(wait_group({max(allowed, 0)}) 이하).", w.site if w else e.site)
                waits = [x for x in evs[:i] if x.kind == "wait"]
                bars = [x for x in evs[:i] if x.kind == "bar"]
                if waits and not any(evs.index(b) > evs.index(waits[-1]) for b in bars):
                    return ("no_barrier_after_wait", f"wait 뒤에 배리어가 없습니다{at(kt)}: wait_group 은 **내** 복사만 "
                            "보장합니다. 다른 스레드가 복사한 원소를 읽기 전에 cuda.syncthreads() 가 필요합니다.",
                            waits[-1].site)
                last_compute[stage] = len(flat) + i
            g.step(e)
        flat += evs
    return None


def _result_unused(kernel, out, C0, beta):
    """(code, message, site) when the loop called compute_tile yet C got nothing of A·B (C = beta·C0 exactly): the
    sum compute_tile returns was never kept (review r25 U-8), or another value went to store_c; else None."""
    if not np.allclose(out, beta * C0 if beta else 0.0, rtol=1e-6, atol=1e-6):
        return None
    (before, iters, after), _ = pipe_trace(kernel)
    calls = [e for evs in [before] + [evs for _, evs in iters] + [after] for e in evs
             if e.kind == "call" and e.what == "compute_tile"]
    if not calls:
        return None
    return ("result_unused", f"compute_tile 을 {len(calls)}번 불렀지만 C 에는 A·B 가 조금도 더해지지 않았습니다 (C = "
            "alpha·0 + beta·C): compute_tile 은 acc 를 바꾸지 않고, acc 에 이 타일의 곱을 더한 값을 **돌려줍니다** "
            "(장치 함수는 float 인자를 값으로 받으므로, 함수 안에서 더해도 부른 쪽의 acc 는 그대로입니다). "
            "`acc = compute_tile(As, Bs, kt % S3, acc)` 처럼 돌려받은 값을 acc 에 두세요. 이미 그렇게 했다면, "
            "store_c 에 넘기는 값이 그 acc 인지 보세요.", calls[0].site)


def _loop_technique(kernel, n_tiles):
    """09-1's technique, from the trace of a loop that computes the right values: one barrier per tile, and the copy
    of tile kt + 1 still in flight while tile kt is computed (a wait_group that leaves it pending), every tile copied
    by cp.async (no data stored into shared memory through registers). None when kept."""
    (before, iters, after), _ = pipe_trace(kernel, shared=True)
    if not iters and not any(e.kind == "call" and e.what == "compute_tile" for e in before + after):
        # right values without a tile computed from shared memory: the loop reads global memory itself
        return fail("09-1", "no_tile_calls", f"맞는 값이지만 K 타일 {n_tiles}개로 돌린 실행에서 compute_tile 이 한 번도 "
                    "불리지 않았습니다: K 루프가 공유 메모리의 타일 대신 전역 메모리에서 바로 계산합니다. 그러면 "
                    "cp.async 복사와 겹칠 계산이 없습니다. 반복 kt 마다 wait_group(N) → 배리어 → 타일 kt + 2 "
                    "발행(issue_tile, 있을 때만) → commit → compute_tile 로 타일 kt 계산을 하세요.")
    if not iters:
        return fail("09-1", "loop_not_found", f"맞는 값이지만 K 루프를 찾지 못해, 반복마다 배리어가 하나인지와 다음 타일의 "
                    f"복사가 계산과 겹치는지 확인할 수 없습니다: K 타일 {n_tiles}개로 돌린 실행에서 반복마다 일정하게 "
                    "늘어나는 정수 변수로 도는 루프가 보이지 않습니다. 이 문제가 기대하는 루프는 n_tiles 번 돌며 반복 kt "
                    "마다 wait_group(N) → 배리어 → 타일 kt + 2 발행(있을 때만) → commit → 타일 kt 계산을 하는 것입니다. "
                    "템플릿의 `for kt in range(n_tiles):` 처럼 정수로 세는 루프로 쓰세요.")
    # data stored into shared memory by the thread itself (a global load through a register: review r25 B-5); a
    # store of 0 (an edge zeroed by hand) carries no data and may stand beside the copies
    stored = [(kt, e) for kt, evs in [(None, before)] + list(iters) + [(None, after)] for e in evs
              if e.kind == "swrite" and e.value is not None and e.value != 0]
    if stored:
        kt, e = stored[0]
        at = f"반복 kt = {kt}에서" if kt is not None else ("K 루프 앞에서" if any(x is e for x in before) else
                                                          "K 루프 뒤에서")
        return technique("09-1", "sync_prefetch", "cp.async 미리 읽기", f"{at} 공유 메모리 {e.what}{list(e.args)}에 "
                         "값을 직접 씁니다: 전역 메모리를 레지스터로 읽고 공유 메모리에 쓰는 일반 읽기·쓰기(노트북 08 의 "
                         "방식)이고, cp.async 복사가 아닙니다. 그러면 commit 은 빈 그룹을 묶고 wait_group 은 기다릴 복사가 "
                         "없어, '다음 타일의 복사가 계산하는 동안 날아간다'는 것이 이 루프에서는 일어나지 않습니다. "
                         f"{josa(f'타일 kt + {S3 - 1}', '은/는')} "
                         f"issue_tile(A, B, As, Bs, (kt + {S3 - 1}) % S3, kt + {S3 - 1}) 로 발행하세요 "
                         "(cp.async 두 개, 행렬 밖은 0).", where=probe.line_text(e.site))
    if len(iters) > n_tiles:
        site = next((e.site for e in iters[-1][1] if e.site), None)
        return fail("09-1", "extra_iterations", f"맞는 값이지만 루프가 너무 많이 돕니다: K 타일 {n_tiles}개에 반복 "
                    f"{len(iters)}번입니다. 남는 반복은 행렬 밖의 빈 타일을 기다리고 0 을 더할 뿐입니다. 타일 수를 다시 "
                    "세어 보세요.", where=probe.line_text(site))
    g = _Groups()
    for e in before:
        g.step(e)
    for kt, evs in iters:
        bars = [e for e in evs if e.kind == "bar"]
        if len(bars) > 1:
            kinds = [e.kind if e.kind == "wait" else "issue" for e in evs
                     if e.kind == "wait" or (e.kind == "call" and e.what == "issue_tile")]
            if kinds and kinds[0] == "issue":      # the next tile issued before this iteration's wait (async_copy's order)
                why = ("이 반복은 다음 타일을 wait 보다 먼저 발행합니다. 이 순서에서는 계산 뒤의 배리어가 필요합니다: "
                       "없으면 다음 반복의 발행이 다른 스레드가 아직 읽는 버퍼를 덮습니다. 배리어 하나로 줄이려면 이 "
                       "문제의 순서(wait → 배리어 → 발행 → commit → 계산)로 바꾸세요: 그 배리어 하나가 '타일 kt 도착'과 "
                       "'지난 반복에 읽은 버퍼 해제'를 함께 보장합니다.")
            else:
                why = ("이 문제의 순서(wait → 배리어 → 발행 → commit → 계산)에서는 배리어 하나가 '타일 kt 도착'과 "
                       "'지난 반복에 읽은 버퍼 해제'를 함께 보장하므로, 두 번째 배리어는 블록 전체를 한 번 더 세울 "
                       "뿐입니다.")
            return technique("09-1", "two_barriers", "반복당 배리어 하나의 순서",
                             f"반복 kt = {kt}에 배리어가 {len(bars)}개 있습니다. " + why,
                             f"  배리어: {', '.join(probe.line_text(b.site) for b in bars)}",
                             where=probe.line_text(bars[-1].site))
        for e in evs:
            g.step(e)
            if e.kind == "call" and e.what == "compute_tile" and kt + 1 < n_tiles:
                nxt = g.group_of(kt + 1)
                if nxt is not None and nxt <= g.done:
                    # the wait this computation follows: the last one before it in this iteration
                    w = next((x for x in reversed(evs[:evs.index(e)]) if x.kind == "wait"), None)
                    if w is None:      # none: an earlier iteration's wait, or one before the loop, covered tile kt + 1
                        said = ("이 반복에는 계산 앞에 wait 가 없고, 앞에서 기다린 것만으로 타일 kt + 1 까지 이미 "
                                "도착했습니다")
                    else:
                        said = "cp_async_wait_all()" if w.what == "all" else f"wait_group({_n_of(w)})"
                        said = f"다음 타일 kt + 1 의 복사까지 이미 기다렸습니다 ({said})"
                    # a loop that skips the commit where nothing is prefetched (the tail) must lower N there, and a
                    # wait_group(0) then also waits for the next tile (round 25, section E): say why N had to change
                    skipped = [k for k, ev in iters if not any(x.kind == "commit" for x in ev)]
                    tail = (f" 이 루프는 반복 kt = {', '.join(map(str, skipped))}에서 commit 을 하지 않아, 그 반복들에서는 "
                            "그룹 수가 늘지 않습니다: 그래서 꼬리에서 타일 kt 를 기다리려고 N 을 줄이면 다음 타일의 "
                            "그룹까지 함께 기다리게 됩니다. 미리 읽을 타일이 없어도 매 반복 commit 하면(빈 그룹), 모든 "
                            "반복에서 같은 N 이 타일 kt 의 그룹까지만 기다립니다." if skipped else "")
                    return technique("09-1", "no_overlap", "복사와 계산의 겹침", f"반복 kt = {kt}에서 타일 kt 를 계산할 "
                                     f"때 {said}. 그러면 복사와 계산이 겹치지 않습니다: 반복마다 wait_group(N) 을 "
                                     "두고, 타일 kt 의 그룹까지만 끝나게 하는 가장 큰 N 을 찾아보세요." + tail,
                                     where=probe.line_text(w.site if w else None))
    return None


# before the detector's per-race suggestions when the loop's trace blamed a buffer number (review r22 I-3): each
# suggestion is written for its race alone (a wait_group that covers the copy would make the loop read the wrong tile)
BUFFER_NUMBER = ("  아래 검출기의 제안은 경쟁마다 따로 쓴 것입니다: 먼저 위의 진단(버퍼 번호)을 고치고 다시 확인하세요. 버퍼 "
                 "번호가 틀린 채로 제안대로 wait_group 이나 배리어를 더하면, 반복은 여전히 타일 kt 가 아닌 타일을 계산합니다.")


def _pipeline_race(ex_id, report, n_tiles):
    """What the first hazard of a pipeline says when the trace found nothing more precise (None: no hazard)."""
    races = report.races if report else []
    if not races:
        return None
    h = races[0]
    lines = diagnose.race_lines(report)
    where = f" (K 타일 {n_tiles}개)"
    rw = diagnose.race_where(report)
    if (h.kind == "IN_FLIGHT" and h.second_what == "read") or (h.kind == "RAW" and h.first_what == "cp.async"):
        return fail(ex_id, "no_barrier_after_wait", f"wait 뒤에 배리어가 없습니다{where}: wait_group 은 **내** 복사만 "
                    "보장합니다. 다른 스레드가 복사한 원소를 읽기 전에 cuda.syncthreads() 가 필요합니다.", *lines,
                    where=rw)
    if h.second_what == "cp.async" and h.kind in ("WAR", "WAW", "IN_FLIGHT"):
        return fail(ex_id, "overwrite_stage", f"다른 스레드가 아직 읽는 버퍼에 다음 타일을 복사합니다{where}: 미리 읽기는 "
                    "그 버퍼의 마지막 계산 뒤 배리어를 지난 다음에, 지금 계산하는 버퍼가 아닌 버퍼로 하세요.", *lines,
                    where=rw)
    return fail(ex_id, "race", "공유 메모리 경쟁(race)이 있습니다.", *lines, where=rw)


PIPE_SHAPES = ((16, 12, 40, 1.0, 0.0), (9, 8, 9, 1.0, 0.0), (8, 9, 5, 0.5, 2.0))       # K tiles 5, 2 (K % 8 = 1), 1


def _run_pipeline(ex_id, kernel, shapes=PIPE_SHAPES, tile=8):
    """Each shape on random inputs with the race detector collecting; a failure is explained from the loop's trace
    (what it did against 4.3's rules), else from the race report and the wrong values; a loop that computes the
    right values is then checked for the technique (one barrier, overlapping copies)."""
    launch = _square_launch(kernel, tile)
    for M, N, K, alpha, beta in shapes:
        n_tiles = (K + tile - 1) // tile
        line = f"  (M, N, K) = ({M}, {N}, {K}), K 타일 {n_tiles}개, alpha = {alpha}, beta = {beta}"
        with context(line):
            A, B, C0, out, report = diagnose.random_run(launch, M, N, K, alpha, beta, seed=M * 100 + K)
        res = diagnose.gemm(ex_id, out, A, B, C0, alpha, beta, (tile, tile), tile, report,
                            product="compute_tile 에 넘기는 버퍼 번호와 발행하는 타일 번호")
        if not res.ok or res.code == "race":
            found = _loop_findings(kernel, PIPE_K // tile) if device.SIMULATOR else None
            if found is None and device.SIMULATOR and not res.ok:
                found = _result_unused(kernel, out, C0, beta)
            if found is not None:
                code, msg, site, *note = found
                lines = diagnose.race_lines(report)
                res = fail(ex_id, code, msg, *(note if lines else []), *lines, where=probe.line_text(site))
            elif report and report.races:
                res = _pipeline_race(ex_id, report, n_tiles)
            res.details.insert(0, line)
            if not device.SIMULATOR:
                res.details.append("  GPU 에는 경쟁 검출기가 없어 위 진단은 틀린 값의 모양만 봅니다. cp.async 루프에서 값이 "
                                   "틀리는 흔한 원인은 wait_group 의 N, wait 뒤의 배리어, 꼬리의 빈 commit, 미리 읽는 버퍼 "
                                   "번호입니다: GPU 없는 환경(시뮬레이터)에서 돌리면 어느 것인지 짚어 줍니다.")
            return res
    if device.SIMULATOR:
        tech = _loop_technique(kernel, PIPE_K // tile)
        if tech is not None:
            return tech
    return passed(ex_id, f"{len(shapes)}가지 모양(K 타일 5·2·1개, 타일 배수가 아닌 모양)에서 numpy 와 일치"
                  + ("하고, 경쟁 검출기도 조용합니다. 반복마다 배리어 하나, 다음 타일의 복사는 계산하는 동안 날아갑니다."
                     if device.SIMULATOR else "합니다." + _gpu_note()))


@exercise("09-1", "3단 파이프라인의 K 루프: wait_group N · 배리어 · 미리 읽기 · commit · 꼬리", "4.3절",
          hints=("반복마다 같은 다섯 걸음을 같은 순서로 밟습니다: 기다리고, 블록 전체가 맞추고, 다음 타일을 발행하고, "
                 "묶고, 계산합니다. wait_group 의 N 은 '몇 그룹이 아직 날아가는 중이어도 되는가'이고, 그 셈은 매 반복 "
                 "그룹이 하나씩 늘어야 맞습니다.",
                 "반복 kt 의 wait 직전까지 commit 된 그룹은 몇 개인가요(프롤로그 포함)? 그중 타일 kt 의 그룹은 몇 "
                 "번째인가요? 그렇다면 대기 중으로 남아도 되는 그룹은 몇 개인가요?"),
          questions={
              "no_commit": "발행한 복사를 그룹으로 묶는 호출이 루프 안에 있나요?",
              "no_wait": "계산하기 전에 복사가 도착했다고 보장하는 호출이 루프 안에 있나요?",
              "wait_skipped": "그 wait 는 조건문 안에 있나요? 조건이 거짓인 반복에서는 누가 타일을 기다리나요?",
              "tail_not_waited": "그 commit 은 조건문 안에 있나요? 꼬리의 반복에서 그룹 수는 어떻게 되나요?",
              "commit_before_issue": "이 반복의 발행과 commit 중 무엇이 먼저인가요? 발행한 복사는 어느 그룹에 들어가나요?",
              "compute_before_wait": "compute_tile 이 wait 보다 위에 있나요?",
              "prefetch_distance": "프롤로그가 채운 타일은 몇 개인가요? 그다음에 미리 읽을 타일은 kt 에서 얼마나 "
                                   "떨어져 있나요?",
              "overwrite_stage": "그 발행이 쓰는 버퍼를 마지막으로 읽은 것은 언제이고, 그 뒤에 배리어가 있었나요?",
              "stage_mismatch": "발행할 때의 버퍼 번호와 계산할 때의 버퍼 번호를 같은 규칙으로 정했나요?",
              "compute_stage": "타일 kt 는 어느 버퍼에 들어 있나요?",
              "wait_too_large": "그 wait 직전까지 commit 된 그룹 수와, 타일 kt 의 그룹 순서를 세어 보세요. N 은 몇 "
                                "이하여야 하나요?",
              "no_barrier_after_wait": "wait 가 보장하는 것은 누구의 복사인가요? 다른 스레드가 복사한 원소를 읽기 전에 "
                                       "무엇이 필요한가요?",
              "two_barriers": "두 배리어가 각각 무엇을 보장하나요? 이 순서에서 하나가 둘의 일을 함께 할 수 있나요?",
              "no_overlap": "타일 kt 를 계산할 때 타일 kt + 1 의 복사는 끝나 있어야 하나요, 날아가는 중이어도 되나요?",
              "loop_not_found": "K 타일을 도는 루프는 어디에 있고, 무엇으로 반복을 세나요? 반복마다 1 씩(또는 타일 폭만큼) "
                                "늘어나는 정수 변수로 돌고 있나요?",
              "no_tile_calls": "K 루프는 어느 메모리에서 곱하나요? cp.async 로 채운 공유 메모리의 타일을 계산하는 함수는 "
                               "무엇인가요?",
              "extra_iterations": "K 를 8 로 나눈 올림이 타일 수입니다. 여러분의 n_tiles 는 K = 40 에서 얼마인가요?",
              "race": "검출기가 가리킨 두 줄 사이에 무엇이 빠졌나요: wait, 배리어, 아니면 다른 버퍼인가요?",
              "ptx_name": "그 이름의 함수가 kernels_numba/infra/ptx 에 있나요? wait_group 의 N 처럼 명령에 박히는 상수는 "
                          "인자인가요, 함수 이름의 일부인가요?",
              "result_unused": "compute_tile 은 무엇을 돌려주나요? 그 값은 어디에 두었나요?",
              "sync_prefetch": "그 줄은 타일을 어떤 명령으로 공유 메모리에 옮기나요? commit 과 wait_group 이 세는 것은 "
                               "어떤 복사인가요?",
          },
          solution="answers/ch09/ex09_pipeline.py::pipeline3", name="my_pipeline3",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
from kernels_numba.infra import ptx
from kernels_numba.common import S3, T8, compute_tile, issue_tile, prologue, store_c, thread_coords
''', template='''
@cuda.jit
def my_pipeline3(A, B, C, alpha, beta):
    """3단 cp.async 파이프라인 (타일 8×8, BK = 8): K 루프를 채우세요."""
    As = cuda.shared.array((S3, T8, T8), float32)
    Bs = cuda.shared.array((S3, T8, T8), float32)
    tx, ty, row, col = thread_coords(T8)
    n_tiles = (A.shape[1] + T8 - 1) // T8
    prologue(A, B, As, Bs, n_tiles)          # 타일 0, 1 발행, 각각 commit (타일이 모자라면 빈 그룹)
    acc = float32(0.0)
    for kt in range(n_tiles):
        raise NotImplementedError("wait_group(N) → 배리어 → 타일 kt+2 발행 → commit → compute_tile 순서로 채우세요")
    store_c(C, row, col, acc, alpha, beta)
''')
def check_pipeline(student):
    try:
        return _run_pipeline("09-1", student)
    except Exception as exc:
        named = _ptx_name("09-1", exc)
        if named is None:
            raise
        return named


# ------------------------------------------------------------------------------------ copy-back checks (09-2, 09-3)

_NO_PTX = (re.compile(r"module '[\w.]*ptx' has no attribute '(\w+)'"),                     # the simulator
           re.compile(r"[Uu]nknown attribute '(\w+)' of type Module\(<module '[\w.]*ptx'"))  # Numba on a GPU


def _ptx_name(ex_id, exc):
    """A Result for a call of a ptx function that does not exist (review r25 U-13: `cp_async_wait_group(1)`), naming
    the functions that do; None for any other exception."""
    m = next((m for m in (r.search(str(exc)) for r in _NO_PTX) if m), None)
    if m is None:
        return None
    name = m.group(1)
    if name.startswith("cp_async_wait"):
        why = ("wait_group 의 N 은 실행 중에 넘기는 인자가 아니라 명령에 박히는 상수(immediate)라서, N 마다 함수가 따로 "
               "있습니다: ptx.cp_async_wait_group_0() … ptx.cp_async_wait_group_3() (인자 없음), 모두 기다리려면 "
               "ptx.cp_async_wait_all(). 필요한 N 의 함수를 부르세요.")
    else:
        names = [n for n in dir(ptx) if not n.startswith("_") and n.islower() and callable(getattr(ptx, n))
                 and not inspect.ismodule(getattr(ptx, n))]
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        why = (f"비슷한 이름: {', '.join(f'ptx.{c}' for c in close)}." if close else
               "kernels_numba/infra/ptx 의 함수 이름(.ptx 파일마다 하나)을 확인하세요.")
    where = probe.line_text(core._student_site(exc.__traceback__))
    return fail(ex_id, "ptx_name", f"ptx 에는 이런 이름의 함수가 없습니다: `{name}`. " + why,
                getattr(exc, "_sgemm_context", None) or "", where=where)



def _simulated(launch):
    """Run launch() with the race detector collecting (simulator); returns its report (None on the GPU)."""
    if not device.SIMULATOR:
        launch()
        return None
    with racecheck.collect() as report:
        launch()
    return report


def _misaligned(ex_id, exc, what, shape=""):
    """The misaligned-address fault (the simulator names the thread; the GPU's CUDA error does not), and what it
    means for this copy."""
    text = str(exc)
    thread = text.split(":", 1)[0] if text.startswith("tid=") else ""
    gpu = "" if device.SIMULATOR else ("  GPU 는 어느 스레드인지 알려 주지 않습니다 (시뮬레이터는 스레드와 줄을 밝힙니다)."
                                       + _DEAD_CONTEXT)
    return fail(ex_id, "misaligned", "16바이트 복사의 주소가 16바이트 정렬이 아닙니다"
                + (f" ({thread})" if thread else "") + f": {what}", shape,
                diagnose.Foreign("  " + text.splitlines()[0][:400]), gpu,
                where=probe.line_text(core._student_site(exc.__traceback__)))


def _is_misaligned(exc):
    """The simulator's fault or the GPU's CUDA_ERROR_MISALIGNED_ADDRESS."""
    return isinstance(exc, MisalignedAddressError) or "MISALIGNED_ADDRESS" in str(exc)


_DEAD_CONTEXT = " (이 오류 뒤에는 CUDA 컨텍스트를 쓸 수 없습니다: 노트북 커널을 다시 시작하세요.)"


def _gpu_note():
    return gpu_note(" (GPU 에는 경쟁 검출기가 없어, 타이밍에 따라 맞게 나오는 경쟁은 여기서 보이지 않습니다: GPU 없는 "
                    "환경의 시뮬레이터에서도 확인해 보세요.)")


def _aligned(a):
    """A copy of a whose data starts on a 64-byte boundary (16-byte copies read it; numpy promises less)."""
    buf = np.empty(a.nbytes + 64, np.uint8)
    off = -buf.__array_interface__["data"][0] % 64
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _where(arr, value):
    """(row, col) of `value` in a 2-D array of distinct random values, or None."""
    hits = np.argwhere(arr == value)
    return tuple(int(i) for i in hits[0]) if len(hits) else None


# ------------------------------------------------------------------------------------ 09-2: thread -> float4

VBM, VBN, VBK, VEC, VTHREADS = 32, 32, 8, 4, 64
VEC_TILES = (3, 0, 4)                    # the K tile copied into buffers 0, 1, 2: never the buffer's own number


def _vec_kernel(issue, stages):
    """Each block issues K tile kts[s] into buffer s (s < stages) with the student's function, waits for all, and
    writes its shared tiles out, so the check sees exactly what landed where."""

    @cuda.jit
    def kernel(A, B, kts, Aout, Bout):
        As = cuda.shared.array((stages, VBM, VBK), float32, alignment=16)
        Bs = cuda.shared.array((stages, VBK, VBN), float32, alignment=16)
        tid = cuda.threadIdx.x
        by, bx = cuda.blockIdx.y, cuda.blockIdx.x
        for s in range(stages):
            issue(As, Bs, s, A, B, kts[s], tid, by * VBM, bx * VBN)
            ptx.cp_async_commit_group()
        ptx.cp_async_wait_group_0()
        cuda.syncthreads()
        for i in range(tid, stages * VBM * VBK, VTHREADS):
            s, m, k = i // (VBM * VBK), (i // VBK) % VBM, i % VBK
            Aout[by, bx, s, m, k] = As[s, m, k]
        for i in range(tid, stages * VBK * VBN, VTHREADS):
            s, k, n = i // (VBK * VBN), (i // VBN) % VBK, i % VBN
            Bout[by, bx, s, k, n] = Bs[s, k, n]
    return kernel


_AXES = {"A": ("block_row", "kt·BK"), "B": ("kt·BK", "block_col")}      # the offset each global index of a tile takes


def _offset_terms(name, got, X, kts):
    """(row term, column term): the offset every element of every block and buffer of a tile got added to its tile
    (row, column) in the global index, named ('block_row', 'kt·BK', 'stage·BK', '0', sums), from where its values sit in
    X; None where one term does not explain every element (a tile mapping error, not an offset)."""
    pos = {float(v): (r, c) for (r, c), v in np.ndenumerate(X)}
    gy, gx, stages, th, tw = got.shape
    terms = {ax: None for ax in (0, 1)}
    for y, x, b in np.ndindex(gy, gx, stages):
        cand = {"0": 0, "kt·BK": int(kts[b]) * VBK, "stage·BK": b * VBK, "block_row": y * VBM, "block_col": x * VBN,
                "block_row + kt·BK": y * VBM + int(kts[b]) * VBK, "block_col + kt·BK": x * VBN + int(kts[b]) * VBK}
        offs = {0: set(), 1: set()}
        for i, j in np.ndindex(th, tw):
            src = pos.get(float(got[y, x, b, i, j]))
            if src is None:
                return None
            offs[0].add(src[0] - i)
            offs[1].add(src[1] - j)
        for ax in (0, 1):
            if len(offs[ax]) != 1:
                return None
            fits = {t for t, v in cand.items() if v == next(iter(offs[ax]))}
            terms[ax] = fits if terms[ax] is None else terms[ax] & fits
            if not terms[ax]:
                return None
    order = list(cand)                    # the plainest name where several fit every block and buffer
    return tuple(min(terms[ax], key=order.index) for ax in (0, 1))


def _tile_diagnosis(ex_id, name, got, want, X, coords, kts):
    """Holes (NaN: no copy landed there) or values from the wrong place of X (with one example)."""
    holes = np.isnan(got)
    wrong = ~holes & (got != want)
    if holes.any():
        rows = sorted({int(i) for i in np.argwhere(holes)[:, -2]})
        return fail(ex_id, "holes", f"{name} 타일의 일부 원소에 아무 복사도 도착하지 않았습니다 (NaN {int(holes.sum())}개, "
                    f"타일 행 {rows[:8]}{' …' if len(rows) > 8 else ''}): 64 스레드의 float4 가 타일을 빈틈없이 덮는지, "
                    "한 행의 float4 개수로 tid 를 나눴는지 보세요.")
    if wrong.any():
        idx = tuple(int(i) for i in np.argwhere(wrong)[0])
        src = _where(X, got[idx])
        exp = coords(idx)
        s = idx[2]
        k_axis = 1 if name == "A" else 0
        came = []                     # the K tile each buffer's first element came from (block (0, 0))
        for b in range(len(kts)):
            w = _where(X, got[(0, 0, b, 0, 0)])
            came.append(None if w is None else w[k_axis] // VBK)
        if came == list(range(len(kts))) and list(kts) != came:
            return fail(ex_id, "stage_for_tile", f"{name} 타일의 K 오프셋을 버퍼 번호로 계산했습니다: 버퍼 {s}에 "
                        f"{josa(f'K 타일 {kts[s]}', '이/가')} 와야 하는데 K 타일 {s}의 값이 왔습니다. 버퍼 번호(stage)는 "
                        f"공유 메모리의 어디에 둘지를, 타일 번호(kt)는 글로벌 행렬의 어디서 읽을지를 정합니다: {S3}단 "
                        f"파이프라인에서 타일 kt 는 {josa(f'버퍼 kt % {S3}', '으로/로')} 가므로, 둘은 kt = {S3} 부터 "
                        "달라집니다.")
        terms = _offset_terms(name, got, X, kts)
        want_terms = _AXES[name]
        k_ax = want_terms.index("kt·BK")
        if terms is not None and "kt·BK" in terms[1 - k_ax]:        # the K offset on the other axis
            axis = ("행", "열")
            return fail(ex_id, "k_offset_axis", f"{name} 타일의 K 타일 오프셋(kt·BK)이 제 축에 있지 않습니다: 글로벌 주소의 "
                        f"행에 {josa(terms[0], '을/를')}, 열에 {josa(terms[1], '을/를')} 더했는데, {name} 타일은 행에 "
                        f"{want_terms[0]}, 열에 {josa(want_terms[1], '을/를')} 더해야 합니다 ({name} 에서 K 는 "
                        f"{axis[k_ax]} 방향). 예: 블록 {idx[:2]}, 버퍼 {s}(K 타일 {kts[s]}), 타일 ({idx[3]}, {idx[4]})에는 "
                        f"{josa(f'{name}{list(exp)}', '이/가')} 와야 하는데 "
                        f"{josa(f'{name}{list(src)}' if src else '행렬에 없는 값', '이/가')} 왔습니다.")
        if terms is not None and terms[k_ax] == "0":
            return fail(ex_id, "no_k_offset", f"{name} 타일이 버퍼마다 K 타일 0 의 값입니다: 글로벌 주소에 K 타일의 "
                        f"오프셋(kt 번째 타일이 시작하는 {'열' if name == 'A' else '행'})이 빠졌습니다. 버퍼 0·1·2 에는 "
                        f"{josa('K 타일 ' + ', '.join(map(str, kts)), '이/가')} 와야 합니다.")
        where_from = f"{name}{list(src)}" if src else "행렬에 없는 값"
        return fail(ex_id, "misplaced", f"{name} 타일의 원소가 엉뚱한 곳에서 왔습니다: 블록 {idx[:2]}, 버퍼 {s}(K 타일 "
                    f"{kts[s]}), 타일 ({idx[3]}, {idx[4]})에는 {josa(f'{name}{list(exp)}', '이/가')} 와야 하는데 "
                    f"{josa(where_from, '이/가')} 왔습니다. 글로벌 주소의 행·열(블록 오프셋 block_row / block_col, K 타일 "
                    "오프셋)을 확인하세요." + (
                        f" 모든 블록과 버퍼에서 행에 {josa(terms[0], '을/를')}, 열에 {josa(terms[1], '을/를')} 더했는데, "
                        f"{name} 타일은 행에 {want_terms[0]}, 열에 {josa(want_terms[1], '을/를')} 더해야 합니다."
                        if terms is not None else ""))
    return None


def _copy_bytes(name):
    """Bytes one cp.async stand-in copies, from its name (cp_async_ca_4, cp_async_cg_16_zfill, ...); None if unknown."""
    parts = [p for p in str(name).split("_") if p.isdigit()]
    return int(parts[-1]) if parts else None


def _copy_sizes(rec, stages):
    """(code, message) when block (0, 0)'s threads did not copy their tiles with two 16-byte copies per call (the
    exercise is the float4 mapping and its alignment), or None: no cp.async at all, other sizes, or another count
    (a float4 moved through registers, review r25 B-3). The copies are those the simulator saw, not the source text."""
    if not any(e.kind == "copy" for t in rec.threads() for e in rec.thread(*t)):
        return ("no_copy", "맞는 값이지만 cp.async 복사를 쓰지 않았습니다: 시뮬레이터가 본 cp.async 복사가 하나도 없습니다. "
                "타일을 일반 읽기·쓰기로(전역 → 레지스터 → 공유 메모리) 옮겼습니다. 이 문제는 스레드마다 16바이트 "
                "복사 두 번(A 의 float4 하나, B 의 float4 하나, ptx.cp_async_cg_16)입니다: 복사가 레지스터를 거치지 "
                "않고 계산과 겹쳐 날아가게 하는 것이 이 노트북의 주제입니다.")
    for tid in range(VTHREADS):
        copies = [e.what for e in rec.thread((0, 0), (tid, 0)) if e.kind == "copy"]
        other = [c for c in copies if _copy_bytes(c) != 16]
        if other:
            sizes = sorted({_copy_bytes(c) or 0 for c in copies})
            what = ", ".join(f"{b}바이트 {sum(_copy_bytes(c) == b for c in copies) / stages:g}번" for b in sizes)
            who = josa(f"tid = {tid}", "이/가")
            return ("copy_size", f"타일은 모두 제자리에 왔지만 16바이트 복사가 아닙니다: 블록 (0, 0)의 스레드 {who} 버퍼 "
                    f"하나를 채우며 낸 복사가 {what}입니다 ({', '.join(sorted(set(other)))}). 이 문제는 스레드마다 "
                    "16바이트 복사 두 번(A 의 float4 하나, B 의 float4 하나, ptx.cp_async_cg_16)입니다: 복사 명령 수가 "
                    "4분의 1이 되는 대신 목적지와 원본 주소가 16 B 경계여야 하고(6절의 정렬 규칙), 그 매핑(열 = "
                    "float4 번호 × 4)을 쓰는 연습입니다.")
        if len(copies) != 2 * stages:
            who = josa(f"tid = {tid}", "이/가")
            return ("copy_count", f"타일은 모두 제자리에 왔지만 블록 (0, 0)의 스레드 {who} 버퍼 하나를 채우며 낸 16바이트 "
                    f"복사가 {len(copies) / stages:g}번입니다: 이 문제는 스레드마다 버퍼 하나에 16바이트 복사 두 번(A 의 "
                    "float4 하나, B 의 float4 하나)입니다. 복사가 모자란 float4 는 일반 읽기·쓰기로(레지스터를 거쳐) "
                    "옮겼거나 다른 스레드가 더 옮겼습니다: 64 스레드가 A 타일의 float4 64개와 B 타일의 float4 64개를 "
                    "하나씩 맡습니다.")
    return None


def _stage_out_of_range(rec, stages):
    """The message when the copy that fell outside the shared tile had a buffer number (its first destination index)
    outside 0 .. stages − 1, or None. Read from the integer arguments of the last copy the simulator saw."""
    copies = [e for t in rec.threads() for e in rec.thread(*t) if e.kind == "copy" and e.args]
    for e in reversed(copies):
        ints = [a for a in e.args[1:] if a is not None]
        if e.args[0] is not None or not ints:
            continue                     # not (dst array, stage, ...): another call shape
        first = e.args[1]
        if first is None or 0 <= first < stages:
            return None
        return (f"버퍼 번호(stage)가 범위 밖입니다: 목적지의 첫 인덱스 {josa(first, '은/는')} 버퍼 번호인데 버퍼는 "
                f"{stages}개(0 … {stages - 1})입니다. K 타일 번호 kt 는 글로벌 행렬의 어디서 읽을지를, 버퍼 번호 "
                "stage 는 공유 메모리의 어디에 둘지를 정합니다: 목적지의 첫 인덱스로는 stage 를 넘기세요.")
    return None


def _buffers_per_call(rec, stages):
    """The buffer numbers (each copy's first destination index, in copy order) of each of the `stages` calls of a
    thread of block (0, 0) whose calls did not each copy into their own stage; None when every thread's did. Read
    from the integer arguments of the copies the simulator saw."""
    for key in sorted(rec.threads(), key=lambda k: k[1]):
        copies = [e.args[1] for e in rec.thread(*key)
                  if e.kind == "copy" and e.args and len(e.args) > 1 and e.args[0] is None]
        if not copies or len(copies) % stages:
            continue
        per = len(copies) // stages
        calls = [tuple(copies[s * per:(s + 1) * per]) for s in range(stages)]
        if calls != [(s,) * per for s in range(stages)]:
            return calls
    return None


def _warp_sectors(rec, stages, ld):
    """[(tile name, 32-byte sectors, bytes)] that the first warp (tid 0..31) of block (0, 0) read with each of its
    16-byte copies of the first call, from the copies the simulator saw (global row and column, the matrix's row
    length ld = {'A': .., 'B': ..}); a copy slot whose destination columns reach past BK is B's. [] off the simulator."""
    per = {}
    for (block, thread) in rec.threads():
        if thread[0] >= 32:
            continue
        copies = [e.args for e in rec.thread(block, thread)
                  if e.kind == "copy" and e.args and len(e.args) >= 7 and _copy_bytes(e.what) == 16]
        if not copies or len(copies) % stages:
            return []
        for slot, a in enumerate(copies[:len(copies) // stages]):
            per.setdefault(slot, []).append(a)
    out = []
    for slot, args in sorted(per.items()):
        if any(a[3] is None or a[5] is None or a[6] is None for a in args):
            return []
        name = "B" if max(a[3] for a in args) >= VBK else "A"
        sectors = {(a[5] * ld[name] + a[6]) * 4 // 32 for a in args}
        out.append((name, len(sectors), 16 * len(args)))
    return out


@exercise("09-2", "16바이트 복사: 스레드 → float4 매핑", "6절, 정렬 규칙",
          hints=("16바이트 복사 하나는 float 네 개를 옮기므로, 타일의 한 행은 float4 몇 개로 나뉩니다. 스레드 64개가 "
                 "타일마다 float4 하나씩을 맡고, A 와 B 는 타일 모양이 달라 한 행의 float4 개수도 다릅니다. 열은 float "
                 "단위이고 16 B 경계에서 시작해야 합니다.",
                 "A 타일(32×8)의 한 행에는 float4 가 몇 개 있나요? B 타일(8×32)은요? tid 를 그 수로 나눈 몫과 나머지는 "
                 "각각 무엇이 되나요? 글로벌 행렬에서 이 타일은 어디서 시작하나요?"),
          questions={
              "misaligned": "그 복사의 열 인덱스는 float 4개의 배수인가요? 타일의 열을 float4 번호로 세었다면 float "
                            "단위로 바꿨나요?",
              "overlap": "같은 float4 를 복사한 스레드의 tid 를 보세요. tid 를 나누는 수는 그 타일 한 행의 float4 "
                         "개수인가요?",
              "out_of_bounds": "A 타일과 B 타일의 모양이 다릅니다. 각 매핑을 그 타일의 모양으로 나눴나요?",
              "holes": "64 스레드가 맡는 float4 를 모두 모으면 타일을 빈틈없이 덮나요?",
              "misplaced": "틀린 원소의 글로벌 (행, 열)을 블록 오프셋과 K 타일 오프셋으로 적어 보세요. 어느 쪽이 "
                           "빠졌나요?",
              "stage_for_tile": "글로벌 열(A) 또는 행(B)의 K 오프셋에 쓴 변수는 stage 인가요, kt 인가요?",
              "no_k_offset": "A 의 글로벌 열과 B 의 글로벌 행은 K 타일 번호에 따라 달라지나요?",
              "k_offset_axis": "A 와 B 에서 K 는 각각 행과 열 중 어느 방향인가요? kt·BK 와 블록 오프셋을 더한 인덱스는 "
                               "각각 그 방향인가요?",
              "copy_size": "복사 하나가 옮기는 바이트 수는 몇인가요? float4 하나(16 B)를 옮기려면 어느 함수를 부르고, "
                           "그 열 인덱스는 무엇의 배수여야 하나요?",
              "no_copy": "타일을 공유 메모리로 옮기는 명령은 무엇인가요? 레지스터를 거치지 않는 복사는 어느 함수인가요?",
              "copy_count": "스레드 하나가 버퍼 하나에 내는 16바이트 복사는 몇 번인가요? A 와 B 에 하나씩인가요?",
              "uncoalesced": "tid 0–31 이 읽는 A(또는 B)의 행은 몇 개이고, 한 행의 float4 는 몇 개인가요? 이웃한 tid 가 "
                             "한 행을 이어 읽나요?",
              "stage_out_of_range": "목적지의 첫 인덱스(버퍼 번호)로 넘긴 변수는 무엇인가요? 버퍼는 몇 개인가요?",
              "stage_twice": "목적지의 첫 인덱스로 무엇을 넘겼나요? stage 인가요, kt 로 계산한 값인가요? 버퍼 0·1·2 에는 "
                             "어느 K 타일이 오나요?",
          },
          solution="answers/ch09/ex09_vec_map.py::issue_vec", name="my_issue_vec",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda
from kernels_numba.infra import ptx
BM, BN, BK, VEC = 32, 32, 8, 4          # 블록 타일 32×32, K 타일 8, 복사 하나에 float 4개 (16 B); 스레드 64개
''', template='''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    """스레드 tid(0..63)의 16바이트 cp.async 두 개: A 타일(BM×BK)의 float4 하나, B 타일(BK×BN)의 float4 하나."""
    raise NotImplementedError("tid 를 타일의 (행, 열)로 나누고 ptx.cp_async_cg_16(As, stage, 행, 열, A, 글로벌 행, 글로벌 열) 을 부르세요")
''')
def check_vec_map(student, M=64, N=64, K=40):
    stages, kts = len(VEC_TILES), np.array(VEC_TILES, np.int32)
    rng = np.random.default_rng(9 + 7919 * core.VARIANT[0])
    A = _aligned(rng.standard_normal((M, K)).astype(np.float32))
    B = _aligned(rng.standard_normal((K, N)).astype(np.float32))
    gy, gx = M // VBM, N // VBN
    Aout = np.full((gy, gx, stages, VBM, VBK), np.nan, np.float32)
    Bout = np.full((gy, gx, stages, VBK, VBN), np.nan, np.float32)
    kernel = _vec_kernel(student, stages)
    shape = f"  (A {M}×{K}, B {K}×{N}: 블록 {gy * gx}개, 버퍼 0·1·2 에 K 타일 {', '.join(map(str, VEC_TILES))})"
    rec = probe.Recording()
    try:
        if device.SIMULATOR:            # every copy of block (0, 0) is watched: its size and its indexes
            with probe.recording(blocks=[(0, 0)], shared=False) as rec:
                kernel[(gx, gy), VTHREADS](A, B, kts, Aout, Bout)
            report = rec.report
        else:
            report = _simulated(lambda: kernel[(gx, gy), VTHREADS](A, B, kts, Aout, Bout))
    except IndexError as exc:
        side = "목적지(공유 메모리 타일)" if "목적지" in str(exc) else "원본(글로벌 행렬)"
        stage = _stage_out_of_range(rec, stages) if "목적지" in str(exc) else None
        if stage is not None:
            return fail("09-2", "stage_out_of_range", stage, shape,
                        diagnose.Foreign("  " + str(exc).splitlines()[0][:400]),
                        where=probe.line_text(core._student_site(exc.__traceback__)))
        advice = ("글로벌 주소(행, 열)는 A 가 (block_row + 타일 행, kt·BK + 타일 열), B 가 (kt·BK + 타일 행, "
                  "block_col + 타일 열)입니다: 블록 오프셋과 K 타일 오프셋(kt·BK, BK = 8)을 제 축에 더했는지 보세요."
                  if side.startswith("원본") else
                  "A 타일은 BM×BK = 32×8, B 타일은 BK×BN = 8×32 입니다. 각 타일의 행·열을 그 타일의 모양으로 "
                  "나눴는지 보세요 (A 와 B 의 매핑이 다릅니다).")
        return fail("09-2", "out_of_bounds", f"복사의 {side} 위치가 배열 밖입니다" + (". " if side.startswith("원본")
                                                                                  else ": ") + advice,
                    shape, diagnose.Foreign("  " + str(exc).splitlines()[0][:400]),
                    where=probe.line_text(core._student_site(exc.__traceback__)))
    except Exception as exc:
        if "ILLEGAL_ADDRESS" in str(exc):
            return fail("09-2", "out_of_bounds", "GPU 가 잘못된 주소(illegal address)에 접근했습니다: 복사의 목적지나 원본이 "
                        "배열 밖입니다. A 타일은 32×8, B 타일은 8×32 입니다." + _DEAD_CONTEXT, shape)
        if not _is_misaligned(exc):
            raise
        return _misaligned("09-2", exc, "열 인덱스가 float 4개(16 B)의 배수인지 보세요: 타일의 열은 float4 번호가 "
                           "아니라 float 번호입니다.", shape)
    if report and report.races:
        h = report.races[0]
        if h.kind in ("WAW", "IN_FLIGHT") and h.first_what == "cp.async" and h.second_what == "cp.async":
            el = f"{h.array}{list(h.index)}"
            if h.first_thread is h.second_thread:       # one thread, two copies: two calls into one buffer?
                calls = _buffers_per_call(rec, stages)
                if calls is not None:
                    got = "; ".join(f"stage {s} → {', '.join(map(str, c))}" for s, c in enumerate(calls))
                    return fail("09-2", "stage_twice", "한 스레드가 같은 float4 를 두 번 복사합니다 "
                                f"({el}): 다른 K 타일을 같은 버퍼에 넣었습니다. 검사는 issue 를 {stages}번 불렀습니다 (stage = "
                                f"{', '.join(map(str, range(stages)))}; K 타일 {', '.join(map(str, VEC_TILES))}). 그런데 "
                                f"복사의 목적지 첫 인덱스(버퍼 번호)는 호출마다 이랬습니다: {got}. 버퍼 번호는 "
                                "공유 메모리의 어디에 둘지를, K 타일 번호 kt 는 글로벌 행렬의 어디서 읽을지를 정합니다: "
                                "목적지의 첫 인덱스로는 kt 에서 계산한 값이 아니라 인자 stage 를 넘기세요.",
                                shape, "", diagnose.Foreign(h.ko), where=diagnose.race_where(report))
                return fail("09-2", "overlap", "한 스레드가 한 번의 호출에서 같은 float4 를 두 번 "
                            f"복사합니다 ({el}): 스레드마다 A 타일의 float4 하나, B 타일의 float4 하나만 복사합니다.",
                            shape, "", diagnose.Foreign(h.ko), where=diagnose.race_where(report))
            return fail("09-2", "overlap", f"두 스레드가 같은 float4 를 복사합니다 ({el}): 매핑이 "
                        "겹치면 어떤 float4 는 아무도 복사하지 않습니다. tid 를 나누는 수가 그 타일 한 행의 float4 "
                        "개수인지 보세요 (A 와 B 가 다릅니다).", shape, "", diagnose.Foreign(h.ko),
                        where=diagnose.race_where(report))
        return fail("09-2", "race", "공유 메모리 경쟁(race)이 있습니다.", shape, *diagnose.race_lines(report),
                    where=diagnose.race_where(report))
    want_a = np.stack([np.stack([np.stack([A[y * VBM:(y + 1) * VBM, t * VBK:(t + 1) * VBK] for t in VEC_TILES])
                                 for x in range(gx)]) for y in range(gy)])
    want_b = np.stack([np.stack([np.stack([B[t * VBK:(t + 1) * VBK, x * VBN:(x + 1) * VBN] for t in VEC_TILES])
                                 for x in range(gx)]) for y in range(gy)])
    res = (_tile_diagnosis("09-2", "A", Aout, want_a, A, lambda i: (i[0] * VBM + i[3], VEC_TILES[i[2]] * VBK + i[4]),
                           VEC_TILES)
           or _tile_diagnosis("09-2", "B", Bout, want_b, B, lambda i: (VEC_TILES[i[2]] * VBK + i[3], i[1] * VBN + i[4]),
                              VEC_TILES))
    if res is not None:
        res.details.insert(0, shape)
        return res
    small = _copy_sizes(rec, stages) if device.SIMULATOR else None
    if small is not None:
        return fail("09-2", small[0], small[1], shape)
    # coalescing (review r25 B-6): a warp's 32 float4 copies of a tile fill whole 32-byte sectors (16 of them) in every
    # mapping that follows 6절's rule, whatever the order of the tids inside a row or a column of float4s; one that
    # spreads a warp over more rows touches more sectors, each only partly, and the other warp asks for the rest again
    wide = [(name, n, n_b) for name, n, n_b in _warp_sectors(rec, stages, {"A": K, "B": N}) if n * 32 > n_b]
    if wide:
        name, n, n_b = wide[0]
        rows = {"A": ("BK", VBK), "B": ("BN", VBN)}[name]
        return technique("09-2", "uncoalesced", "6절의 병합(coalescing) 매핑", f"한 워프(tid 0–31)의 {name} 복사 "
                         f"{n_b // 16}개가 32바이트 섹터 {n}개를 건드립니다. 옮기는 {n_b} B 는 섹터 {n_b // 32}개 분량이라 "
                         f"섹터마다 평균 {100 * n_b / (32 * n):.0f} % 만 쓰고, 나머지는 다른 워프가 같은 섹터를 다시 "
                         f"요청해 읽습니다 (섹터 요청이 {32 * n / n_b:g}배): 이웃한 tid 가 {name} 타일의 다른 "
                         f"행으로 흩어졌습니다. 6절의 규칙대로 tid 를 한 행의 float4 개수({rows[0]} / VEC = "
                         f"{rows[1] // VEC})로 나누면, 한 워프가 행을 통째로 이어 읽어 섹터 {n_b // 32}개입니다.", shape)
    return passed("09-2", f"블록 {gy * gx}개 × 버퍼 {stages}개(버퍼 번호와 다른 K 타일)의 A·B 타일이 모두 제자리에 "
                  "도착했습니다" + (" (경쟁 검출기: 겹치는 복사 없음, 한 워프의 복사마다 섹터를 꽉 채움)."
                                  if device.SIMULATOR else "." + _gpu_note()))


# ------------------------------------------------------------------------------------ 09-3: zero-fill edges

ZR, ZC = 8, 16                           # the copy kernel's tile: 8 rows × 16 floats, 32 threads, one float4 each
PAD = np.float32(7777.0)                 # what X holds past its logical edge (the copy must never read it)


def _picture(mask):
    """diagnose.heatmap, labelled for a copied tile rather than C."""
    return diagnose.heatmap(mask).replace("C 의 틀린 원소", "복사된 타일의 틀린 원소", 1)


def _zfill_kernel(copy):
    """Each thread copies one float4 of its block's 8×16 tile with the student's function into buffer 1, waits,
    and writes that buffer out (the whole tile, inside X or not)."""

    @cuda.jit
    def kernel(X, out, rows, cols):
        S = cuda.shared.array((2, ZR, ZC), float32, alignment=16)
        tid = cuda.threadIdx.x
        srow, scol = tid // (ZC // 4), (tid % (ZC // 4)) * 4
        grow, gcol = cuda.blockIdx.y * ZR + srow, cuda.blockIdx.x * ZC + scol
        copy(S, 1, srow, scol, X, grow, gcol, rows, cols)
        ptx.cp_async_commit_group()
        ptx.cp_async_wait_group_0()
        cuda.syncthreads()
        for j in range(4):
            out[grow, gcol + j] = S[1, srow, scol + j]
    return kernel


def _ld(cols):
    """X's row length in floats for a matrix of `cols` columns: rounded up to 4 floats (16 bytes), plus 4 past the edge."""
    return -(-cols // 4) * 4 + 4


def _zfill_case(student, rows, cols, seed=3):
    """(out, want, copies) for one logical shape: X's rows are padded to a multiple of 4 floats (+4) filled with PAD;
    copies: per thread the (grow, gcol, src_size) of its zero-fill copies, recorded while it ran (simulator)."""
    ld = _ld(cols)
    rng = np.random.default_rng(seed + 7919 * core.VARIANT[0])
    X = _aligned(np.full((rows, ld), PAD, np.float32))
    X[:, :cols] = rng.uniform(1.0, 2.0, (rows, cols)).astype(np.float32)     # never 0, never PAD
    gy, gx = -(-rows // ZR), -(-cols // ZC)
    out = np.full((gy * ZR, gx * ZC), np.nan, np.float32)
    want = np.zeros_like(out)
    want[:rows, :cols] = X[:, :cols]
    kernel = _zfill_kernel(student)
    rec = None
    if device.SIMULATOR:
        with probe.recording(shared=False) as rec:
            try:
                kernel[(gx, gy), ZR * ZC // 4](X, out, np.int32(rows), np.int32(cols))
            except Exception as exc:
                exc._sgemm_recording = rec
                raise
    else:
        kernel[(gx, gy), ZR * ZC // 4](X, out, np.int32(rows), np.int32(cols))
    return out, want, rec


def _size_finding(rec, rows, cols, ld=None):
    """A src-size that cannot be right, read from the copy calls' own arguments: (code, message, site) or None;
    ld: X's row length in floats (padded past cols), named when a column bound was taken from it."""
    if rec is None:
        return None
    short, edge = None, []          # the first copy that reads fewer floats than lie inside; (n, src-size) at the edge
    for (block, thread), evs in rec.events.items():
        for e in evs:
            if e.kind != "copy" or not e.what or not e.what.endswith("zfill") or not e.args:
                continue
            size = e.args[-1]
            tid = thread[0]
            srow, scol = tid // (ZC // 4), (tid % (ZC // 4)) * 4
            grow, gcol = block[1] * ZR + srow, block[0] * ZC + scol
            n = min(4, cols - gcol) if grow < rows and gcol < cols else 0
            at = f" (스레드 {tid}, 블록 {block[:2]}: 글로벌 (grow, gcol) = ({grow}, {gcol}), 행렬 안의 float {n}개)"
            if size is None:
                continue
            if size < 0:
                why = (f"{josa(f'gcol = {gcol}', '은/는')} 이미 cols = {cols} 이상이라 cols − gcol 이 음수입니다"
                       if gcol >= cols else f"{josa(f'grow = {grow}', '이/가')} rows = {rows} 이상입니다" if grow >= rows
                       else "")
                return ("negative_size", f"src-size 가 음수({size})입니다{at}: " + (why + ". " if why else "") +
                        "읽을 float 의 개수는 0 보다 작을 수 없습니다: 통째로 밖인 벡터는 0, 경계에 걸친 벡터는 안쪽 "
                        "개수입니다.", e.site)
            if size > 16:
                return ("size_too_large", f"src-size 가 {size} 바이트입니다{at}: 16바이트 복사가 읽을 수 있는 것은 "
                        "최대 16 바이트입니다.", e.site)
            if size % 4 and size == n:
                return ("src_size_units", f"src-size 에 float 개수({size})를 넘겼습니다{at}: src-size 는 바이트 "
                        "수입니다 (0, 4, 8, 12, 16).", e.site)
            if size % 4:
                return ("src_size_units", f"src-size 가 {size} 바이트입니다{at}: float 하나가 4 바이트이므로 0, 4, 8, "
                        "12, 16 중 하나여야 합니다.", e.site)
            if size > 4 * n:
                # more bytes than floats inside: a vector wholly outside (any row past rows, or gcol past cols) must
                # read nothing, one across the last column only its inside floats; the extra floats arrive as data
                if grow >= rows or gcol >= cols:
                    side = (f"{josa(f'grow = {grow}', '이/가')} rows = {rows} 이상이라" if grow >= rows else
                            f"{josa(f'gcol = {gcol}', '이/가')} cols = {cols} 이상이라")
                    why = (f"{side} 벡터 전체가 행렬 밖입니다: src-size 는 0 이어야 하고(주소는 X 안, 예: (0, 0)), "
                           "그러면 네 float 가 모두 0 으로 채워집니다.")
                else:
                    why = (f"열 {gcol}..{gcol + 3} 중 cols = {cols} 보다 작은 것은 {n}개이므로 src-size 는 "
                           f"4·{n} = {4 * n} 바이트입니다.")
                if grow >= rows:      # the row is outside: the row check is what let it read
                    fix = f"행 검사(grow < rows)를 하세요: 행렬의 행 수는 rows = {rows} 입니다."
                elif n == 3 and size == 16:
                    # 12 bytes rounded up to a copy size (or a column bound past cols): src-size is not the copy size
                    fix = ("12 바이트를 16 으로 올렸나요? 복사 크기(cp-size)는 4, 8, 16 중 하나여야 하지만, src-size 는 "
                           "그 복사 크기 이하의 아무 바이트 수(0, 4, 8, 12, 16)입니다: 16바이트 복사 하나에 src-size 12 를 "
                           f"주세요. (올리지 않았다면 열 경계를 보세요: 행렬의 열 수는 cols = {cols} 입니다.)")
                else:                 # the row is inside: the column bound is what is wrong (none, or X's row length)
                    fix = (f"행은 행렬 안이므로 틀린 것은 열 경계입니다: 열 검사가 빠졌거나, 열 경계를 X 의 행 길이"
                           + (f"(X.shape[1] = {ld})" if ld is not None else "(X.shape[1])")
                           + f"로 잡았습니다. 행렬의 열 수는 cols = {cols} 이고, X 의 행은 16바이트 정렬을 위해 그보다 "
                           "길게 늘려 두었습니다 (그 뒤는 행렬 밖). 열 검사와 안쪽 float 개수는 cols 로 계산하세요.")
                return ("edge_overread", f"src-size 가 {size} 바이트입니다{at}: 행렬 밖 float "
                        f"{(size - 4 * n) // 4}개를 읽어, 0 이어야 할 자리에 X 의 값이 들어갑니다. {why} {fix}", e.site)
            if size < 4 * n and short is None:
                short = (size, n, gcol, at, e.site)      # decided below: a worse finding of another copy goes first
            if 0 < n < 4:
                edge.append((n, size))
    if short is None:
        return None
    size, n, gcol, at, site = short
    got = size // 4
    if size == n:
        return ("src_size_units", f"src-size 에 float 개수({size})를 넘겼습니다{at}: src-size 는 바이트 수입니다 "
                "(0, 4, 8, 12, 16).", site)
    zero_all = bool(edge) and all(sz == 0 for _, sz in edge)
    minus_one = bool(edge) and all(sz == 4 * (m - 1) for m, sz in edge)
    if zero_all and minus_one:          # every edge vector has one float inside: both readings fit
        why = ("경계의 벡터(안쪽 float 1개)를 통째로 밖처럼 다뤘거나, 안쪽 개수를 하나 적게 셌습니다: 일부만 행렬 안인 "
               "벡터도 안쪽 float 는 읽어야 하고, 그 개수는 cols − gcol (4 이하일 때)입니다. 마지막 열의 번호 cols − 1 과 "
               "개수를 헷갈리지 마세요.")
    elif zero_all:
        why = ("경계에 걸친 벡터를 모두 통째로 밖처럼 다뤘습니다: 일부만 행렬 안인 벡터도 안쪽 float 는 읽어야 하므로, "
               "src-size 는 0 이나 16 만이 아니라 4·(안쪽 float 개수)입니다.")
    elif n == 3 and size == 8:
        why = ("12 바이트를 8 로 내렸나요? 복사 크기(cp-size)는 4, 8, 16 중 하나여야 하지만, src-size 는 그 이하의 아무 "
               "바이트 수(0, 4, 8, 12, 16)입니다. (내리지 않았다면 안쪽 개수를 하나 적게 센 것입니다: 그 개수는 "
               "cols − gcol 입니다.)")
    elif minus_one:
        why = (f"경계의 벡터마다 안쪽 개수를 하나 적게 셌습니다: 열 {gcol}..{gcol + 3} 중 cols = {cols} 보다 작은 것의 "
               f"개수는 cols − gcol = {cols - gcol} 입니다 (마지막 열의 번호 cols − 1 과 개수를 헷갈리지 마세요).")
    else:
        why = f"열 {gcol}..{gcol + 3} 중 cols = {cols} 보다 작은 것은 {n}개입니다."
    read = f"{got}개만 읽어" if got else "하나도 읽지 않아"
    return ("edge_zeroed", f"src-size 가 {size} 바이트입니다{at}: 행렬 안의 float {n}개 중 {read}, {n - got}개가 X 의 "
            f"값 대신 0 이 됩니다. src-size 는 4·{n} = {4 * n} 바이트여야 합니다. " + why, site)


def _one_copy_each(recs):
    """09-3's technique, from the copies the simulator saw in runs that gave the right values: every thread moves its
    float4 with exactly one 16-byte cp.async (src-size for the edge), none through registers or with smaller copies.
    recs: [(shape line, Recording, rows, cols)]. A failing Result or None."""
    for shape, rec, rows, cols in recs:
        if rec is None:
            continue
        keys = sorted(rec.threads(), key=lambda k: (k[0][1], k[0][0], k[1]))
        if not any(e.kind == "copy" for k in keys for e in rec.thread(*k)):
            return technique("09-3", "no_copy", "16바이트 cp.async 복사", "시뮬레이터가 본 cp.async 복사가 하나도 "
                             "없습니다: 타일을 일반 읽기·쓰기로(레지스터를 거쳐) 채웠습니다. 이 문제는 스레드마다 "
                             "16바이트 cp.async 하나(ptx.cp_async_cg_16_zfill)로 float4 를 옮기고, 행렬 밖은 src-size 로 "
                             "0 을 채우는 연습입니다.", shape)
        for block, thread in keys:
            copies = [e for e in rec.thread(block, thread) if e.kind == "copy"]
            tid = thread[0]
            srow, scol = tid // (ZC // 4), (tid % (ZC // 4)) * 4
            grow, gcol = block[1] * ZR + srow, block[0] * ZC + scol
            n = min(4, cols - gcol) if grow < rows and gcol < cols else 0
            place = f"블록 {block[:2]}, 글로벌 (grow, gcol) = ({grow}, {gcol}), 행렬 안의 float {n}개"
            vec = f" ({place})"
            want = (f"src-size {4 * n} 의 16바이트 복사 하나" + (" (주소는 X 안, 예: (0, 0))" if n == 0 else ""))
            if not copies:
                return technique("09-3", "no_copy", "16바이트 cp.async 복사", f"스레드 {tid} 의 float4 는 "
                                 f"cp.async 로 복사되지 않았습니다{vec}: 일반 읽기·쓰기로 채웠습니다. 이 문제는 모든 float4 를 복사 하나로 "
                                 f"옮깁니다: 통째로 밖인 벡터도 src-size 0 의 복사가 0 을 채웁니다. 여기서는 {want}.",
                                 shape)
            other = [e for e in copies if _copy_bytes(e.what) != 16]
            if other:
                sizes = sorted({_copy_bytes(e.what) or 0 for e in copies})
                what = ", ".join(f"{b}바이트 {sum(_copy_bytes(e.what) == b for e in copies)}번" for b in sizes)
                names = ", ".join(sorted({str(e.what) for e in other}))
                return technique("09-3", "copy_size", "경계의 16바이트 복사 하나", f"스레드 {tid} 의 float4 를 옮긴 복사가 "
                                 f"{what}입니다 ({names}; {place}). 이 문제는 경계에서도 16바이트 복사 하나로, 읽을 바이트만 src-size 로 "
                                 f"줄입니다: 여기서는 {want}. (async_vec 처럼 경계에서 4바이트 복사 4번을 쓰는 것도 맞는 "
                                 "방법이지만, 이 문제가 연습하는 것은 src-size 4–12 의 16바이트 복사입니다.)", shape,
                                 where=probe.line_text(other[0].site))
            if len(copies) > 1:
                return technique("09-3", "copy_count", "16바이트 복사 하나", f"{josa(f'스레드 {tid}', '이/가')} float4 하나에 16바이트 "
                                 f"복사를 {len(copies)}번 냈습니다{vec}. 스레드마다 복사 하나가 네 float 를 옮기고 밖은 0 으로 "
                                 f"채웁니다: 여기서는 {want}.", shape, where=probe.line_text(copies[1].site))
    return None


@exercise("09-3", "16바이트 복사의 zero-fill 경계 (src-size)", "6절, 경계",
          hints=("src-size 형태의 cp.async 는 앞의 src-size 바이트만 읽고 나머지를 0 으로 채웁니다. 그러니 이 벡터의 "
                 "float 네 개 중 행렬 안에 있는 것이 몇 개인지가 전부입니다: 행이 밖이면 하나도 없고, 열은 경계에 걸칠 수 "
                 "있습니다. 행렬의 크기는 X 의 모양이 아니라 rows, cols 입니다.",
                 "벡터가 통째로 행렬 밖이면 읽을 float 는 몇 개이고, 그때 주는 주소는 어디여야 하나요? 경계에 걸친 벡터는 "
                 "안쪽 float 가 몇 개인가요? src-size 의 단위는 무엇인가요?"),
          questions={
              "edge_overread": "행렬 밖인 float 까지 읽는 복사의 src-size 는 얼마인가요? 그 벡터 안의 float 중 행렬 "
                               "안에 있는 것은 몇 개인가요? 경계를 X.shape 로 판단하지 않았나요?",
              "edge_zeroed": "경계에 걸친 벡터의 안쪽 float 는 몇 개이고, 여러분의 src-size 는 그중 몇 개를 읽나요? "
                             "src-size 를 0 이나 16, 또는 4·8·16 으로만 정하지 않았나요?",
              "no_copy": "그 float4 는 어느 명령이 공유 메모리에 옮기나요? 통째로 밖인 벡터에도 복사를 내나요?",
              "copy_size": "경계에 걸친 벡터를 옮긴 복사는 몇 바이트짜리이고 몇 번인가요? 16바이트 복사 하나에서 읽을 "
                           "바이트만 줄이는 인자는 무엇인가요?",
              "copy_count": "스레드 하나가 float4 하나에 복사를 몇 번 내나요? 하나로 네 float 와 0 을 모두 채울 수 "
                            "있나요?",
              "src_size_units": "src-size 의 단위는 float 개수인가요, 바이트인가요?",
              "negative_size": "통째로 밖인 벡터에서 여러분의 '안쪽 float 개수'는 얼마가 되나요? 0 보다 작아지지 "
                               "않게 하려면요?",
              "size_too_large": "16바이트 복사가 읽을 수 있는 가장 큰 src-size 는 얼마인가요?",
              "out_of_bounds": "통째로 밖인 벡터에도 주소를 줍니다. 그 주소는 X 안에 있나요? 행 검사를 했나요?",
              "misaligned": "경계에서 시작 열을 옮기지 않았나요? 16바이트 복사의 시작은 어디여야 하나요?",
              "wrong_values": "목적지와 원본의 인덱스를 받은 그대로 복사에 넘겼나요?",
          },
          solution="answers/ch09/ex09_zfill.py::copy16", name="my_copy16",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda
from kernels_numba.infra import ptx
''', template='''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    """S[stage, srow, scol:scol+4] <- X[grow, gcol:gcol+4], 16바이트 cp.async 하나; 행렬(rows × cols) 밖은 0."""
    raise NotImplementedError("행렬 안의 float 개수 n(0..4)을 세고 ptx.cp_async_cg_16_zfill(..., src-size) 를 부르세요")
''')
def check_zfill(student):
    # cols % 4 = 2, 1, 0, 2, 0, 1, 3: an edge float4 with 1, 2 and 3 floats inside (review r25 B-1: a 12-byte edge
    # rounded to 8 or 16 passed without the last shape); 7 × 6 first: its edge float4 holds 2 floats, so a count one
    # short (4 bytes) and an all-or-nothing size (0) read apart there (r25 U-7)
    shapes = ((7, 6), (10, 13), (9, 32), (3, 2), (17, 20), (1, 5), (5, 7))
    recs = []
    for rows, cols in shapes:
        shape = f"  행렬 rows × cols = {rows} × {cols} (X 의 행 길이 {_ld(cols)}: 그 뒤는 행렬 밖)"
        with context(shape):
            try:
                out, want, rec = _zfill_case(student, rows, cols)
            except (ValueError, IndexError) as exc:
                found = _size_finding(getattr(exc, "_sgemm_recording", None), rows, cols, _ld(cols))
                if found is not None:
                    code, msg, site = found
                    return fail("09-3", code, msg, shape, diagnose.Foreign("  " + str(exc).splitlines()[0][:300]),
                                where=probe.line_text(site))
                if isinstance(exc, ValueError):
                    raise
                return fail("09-3", "out_of_bounds", "복사의 원본 주소가 X 밖입니다. 읽는 바이트가 있는(n > 0) 복사라면 행 "
                            "검사(grow < rows)가 빠졌습니다. 통째로 밖인 벡터(n = 0)라면: 하드웨어는 src-size 0 이면 "
                            "아무것도 읽지 않아 GPU 에서는 지나갈 수 있지만, 이 과정은 async_vec 처럼 그런 복사의 주소도 X "
                            "안((0, 0) 등)에 두고, 시뮬레이터가 그것을 검사합니다.", shape,
                            diagnose.Foreign("  " + str(exc).splitlines()[0][:300]),
                            where=probe.line_text(core._student_site(exc.__traceback__)))
            except Exception as exc:
                if "ILLEGAL_ADDRESS" in str(exc):
                    return fail("09-3", "out_of_bounds", "GPU 가 잘못된 주소(illegal address)에 접근했습니다: 복사의 원본이 "
                                "X 밖입니다. 행 검사(grow < rows)를 확인하세요." + _DEAD_CONTEXT, shape)
                if not _is_misaligned(exc):
                    raise
                return _misaligned("09-3", exc, "16바이트 복사는 시작 열을 옮기면 안 됩니다: 경계에서도 (grow, gcol) "
                                   "또는 (0, 0)에서 시작하고, 읽을 바이트 수만 src-size 로 줄이세요.", shape)
        recs.append((shape, rec, rows, cols))
        over = out == PAD
        inside = np.zeros_like(over)
        inside[:rows, :cols] = True
        zeroed = inside & (out == 0)
        bad = ~np.isclose(out, want, equal_nan=False)
        found = _size_finding(rec, rows, cols, _ld(cols)) if bad.any() else None
        if found is not None:
            code, msg, site = found
            return fail("09-3", code, msg, shape, _picture(bad), where=probe.line_text(site))
        if over.any():
            r, c = (int(i) for i in np.argwhere(over)[0])
            side = "행(grow ≥ rows)" if r >= rows else "열(gcol + j ≥ cols)"
            return fail("09-3", "edge_overread", f"행렬 밖을 읽었습니다: {josa(f'출력 ({r}, {c})', '은/는')} 0 이어야 하는데 X 의 행렬 밖 값 "
                        f"{josa(f'{PAD:g}', '이/가')} 왔습니다 ({side} 경계). src-size 를 행렬 안의 float 개수 × 4 바이트로 줄이세요 "
                        "(X.shape 가 아니라 rows, cols 로 판단).", shape, _picture(over))
        if zeroed.any():
            return fail("09-3", "edge_zeroed", f"행렬 안의 원소 {int(zeroed.sum())}개가 0 이 되었습니다: 일부만 행렬 안인 "
                        "벡터(경계에 걸친 float4)에서도 행렬 안쪽의 float 는 모두 읽어야 합니다. src-size 는 0 이나 16 "
                        "만이 아니라 4·(안쪽 float 개수)입니다.", shape, _picture(zeroed))
        if bad.any():
            return fail("09-3", "wrong_values", f"틀린 원소 {int(bad.sum())}개 (NaN 은 복사가 도착하지 않은 자리): "
                        "목적지와 원본의 인덱스를 받은 그대로 복사에 넘겼는지 보세요.", shape,
                        _picture(bad))
    tech = _one_copy_each(recs) if device.SIMULATOR else None
    if tech is not None:
        return tech
    return passed("09-3", f"{len(shapes)}가지 모양(안쪽 float 가 1·2·3개인 경계의 float4, 통째로 밖인 float4, 16보다 좁은 "
                  "행렬, 한 행뿐인 행렬 포함)에서 행렬 안은 그대로, 밖은 0 입니다"
                  + (": 스레드마다 16바이트 cp.async 하나입니다." if device.SIMULATOR else "."))


for _id in ("09-1", "09-2", "09-3"):     # cp.async: a CC 7.5 GPU checks these on the simulator only
    EXERCISES[_id].min_cc = (8, 0)
