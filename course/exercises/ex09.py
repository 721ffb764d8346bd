"""Notebook 09 exercises: the 3-stage K loop (wait_group N, barrier, prefetch, commit, tail), the thread → float4
map of a 16-byte copy, and the 16-byte copy with zero-fill edges (src-size)."""
import inspect
import re

import numpy as np
from numba import cuda, float32

from kernels_numba.infra import device

from . import diagnose
from .core import exercise, fail, passed


# ------------------------------------------------------------------------------------ 09-1: the K loop

def _square_launch(kernel, tile=8):
    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        kernel[((N + tile - 1) // tile, (M + tile - 1) // tile), (tile, tile)](A, B, C, np.float32(alpha),
                                                                               np.float32(beta))
        return C
    return launch


def _kt(h):
    """The K-tile number of a hazard's second access (from its 'kt=3'), or None."""
    try:
        return int(h.k_tile.split("=")[1]) if h.k_tile.startswith("kt=") else None
    except ValueError:
        return None


def _code_of(student):
    """The student's source without comments ('' when it cannot be read)."""
    fn = getattr(student, "py_func", student)
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return ""
    return "\n".join(line.split("#")[0] for line in src.splitlines())


def _newer_groups(h):
    """How many groups the copy's thread committed after the copy's own, when the hazard happened (None: unknown)."""
    m = re.search(r"\((\d+) newer group", h.fix_en)
    return int(m.group(1)) if m else None


def _pipeline_race(ex_id, report, n_tiles, student, stages=3):
    """What the first hazard of a pipeline says about the loop (None: no hazard)."""
    if not report:
        return None
    h = report.hazards[0]
    lines = diagnose.race_lines(report)
    kt = _kt(h)
    where = f" (반복 kt = {kt}, K 타일 {n_tiles}개)" if kt is not None else ""
    own = h.kind == "IN_FLIGHT" and h.first_thread is h.second_thread
    if (h.kind == "IN_FLIGHT" and "never committed" in h.fix_en) or (own and "commit_group" not in _code_of(student)):
        return fail(ex_id, "no_commit", f"K 루프에서 commit 을 하지 않습니다{where}: cp_async_commit_group() 으로 묶지 않은 "
                    "복사는 어떤 wait_group 도 기다리지 않고, 루프의 wait 는 프롤로그의 그룹만 셉니다. 발행 뒤 매 반복 "
                    "commit 하세요.", *lines)
    if own:
        if kt is not None and kt >= n_tiles - (stages - 1) and kt > 0:
            return fail(ex_id, "tail_not_waited", f"마지막 타일을 기다리지 않고 계산합니다{where}: 꼬리에서 commit 을 "
                        "건너뛰면 그룹 수가 모자라 wait_group 이 현재 타일을 덮지 못합니다. 미리 읽을 타일이 없어도 매 "
                        "반복 commit 하세요 (빈 그룹).", *lines)
        if _newer_groups(h) == 0:
            return fail(ex_id, "overwrite_stage", f"지금 계산하는 버퍼에 다음 타일을 복사합니다{where}: 이 반복에 발행한 "
                        "복사가 계산 중인 버퍼를 덮어씁니다. 미리 읽을 타일 kt + S - 1 은 버퍼 (kt + S - 1) % S 로 "
                        "보내세요 (지난 반복에 계산한 버퍼).", *lines)
        return fail(ex_id, "wait_too_large", f"wait_group 이 없거나 N 이 너무 큽니다{where}: 계산하려는 타일의 그룹이 아직 대기 "
                    "중인 채로 wait 를 통과합니다. 이 반복의 wait 직전까지 commit 한 그룹 수를 세어, 타일 kt 의 그룹까지 "
                    "끝나게 하는 N 을 고르세요. (아래 검출기의 'wait_group(n) 이하'는 읽는 순간의 그룹 수입니다: wait 를 "
                    "commit 앞에 두었다면 그 사이에 commit 한 그룹만큼 작아야 합니다.)", *lines)
    if (h.kind == "IN_FLIGHT" and h.second_what == "read") or (h.kind == "RAW" and h.first_what == "cp.async"):
        return fail(ex_id, "no_barrier_after_wait", f"wait 뒤에 배리어가 없습니다{where}: wait_group 은 **내** 복사만 "
                    "보장합니다. 다른 스레드가 복사한 원소를 읽기 전에 cuda.syncthreads() 가 필요합니다.", *lines)
    if h.second_what == "cp.async" and h.kind in ("WAR", "WAW", "IN_FLIGHT"):
        return fail(ex_id, "overwrite_stage", f"다른 스레드가 아직 읽는 버퍼에 다음 타일을 복사합니다{where}: 미리 읽기는 "
                    "그 버퍼의 마지막 계산 뒤 배리어를 지난 다음에, 지금 계산하는 버퍼가 아닌 버퍼 (kt + S - 1) % S 로 "
                    "하세요.", *lines)
    return fail(ex_id, "race", "공유 메모리 경쟁(race)이 있습니다.", *lines)


def _run_pipeline(ex_id, kernel, shapes, tile=8, stages=3):
    """Each shape on random inputs with the race detector collecting; the first failure is the diagnosis."""
    launch = _square_launch(kernel, tile)
    for M, N, K, alpha, beta in shapes:
        rng = np.random.default_rng(M * 100 + K)
        A = rng.standard_normal((M, K)).astype(np.float32)
        B = rng.standard_normal((K, N)).astype(np.float32)
        C0 = (np.full((M, N), diagnose.SENTINEL, np.float32) if beta == 0
              else rng.standard_normal((M, N)).astype(np.float32))
        report = None
        if device.SIMULATOR:
            from kernels_numba.infra.simulator import racecheck
            with racecheck.collect() as report:
                out = launch(A, B, C0.copy(), alpha, beta)
        else:
            out = launch(A, B, C0.copy(), alpha, beta)
        n_tiles = (K + tile - 1) // tile
        res = (_pipeline_race(ex_id, report, n_tiles, kernel, stages)
               or diagnose.gemm(ex_id, out, A, B, C0, alpha, beta, (tile, tile), tile, None))
        if not res.ok:
            res.details.insert(0, f"  (M, N, K) = ({M}, {N}, {K}), K 타일 {n_tiles}개, alpha = {alpha}, beta = {beta}")
            return res
    return passed(ex_id, f"{len(shapes)}가지 모양(K 타일 1·2·5개, 타일 배수가 아닌 모양)에서 numpy 와 일치"
                  + ("하고, 경쟁 검출기도 조용합니다." if device.SIMULATOR else "합니다."))


@exercise("09-1", "3단 파이프라인의 K 루프: wait_group N · 배리어 · 미리 읽기 · commit · 꼬리", "4.3절",
          hints=("한 반복의 순서: wait → 배리어 → 타일 kt+2 발행(있을 때만) → commit → 계산. N 은 이 반복의 wait 직전까지 "
                 "commit 한 그룹 수(프롤로그 2 + 앞선 반복마다 1)에서, 타일 kt 의 그룹까지 끝나려면 몇 개가 대기 중으로 "
                 "남아도 되는지로 정합니다.",
                 "ptx.cp_async_wait_group_1() (N = S-2 = 1), cuda.syncthreads(), `if kt + 2 < n_tiles:` 안에서 "
                 "issue_tile(A, B, As, Bs, (kt + 2) % S3, kt + 2), 그리고 if 밖에서 ptx.cp_async_commit_group(), 마지막에 "
                 "acc = compute_tile(As, Bs, kt % S3, acc). 배리어 하나가 '타일 kt 도착'과 '버퍼 (kt-1) % 3 해제'를 함께 "
                 "보장합니다."),
          solution="answers/ex09_pipeline.py::pipeline3", name="my_pipeline3",
          preamble='''
from numba import cuda, float32
from kernels_numba.infra import ptx
from course.lesson06 import store_c, thread_coords
from course.lesson09 import S3, T8, compute_tile, issue_tile, prologue
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
    return _run_pipeline("09-1", student, ((16, 12, 40, 1.0, 0.0), (9, 8, 16, 1.0, 0.0), (8, 9, 5, 0.5, 2.0)))
