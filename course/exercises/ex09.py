"""Notebook 09 exercises: the 3-stage K loop (wait_group N, barrier, prefetch, commit, tail), the thread → float4
map of a 16-byte copy, and the 16-byte copy with zero-fill edges (src-size)."""
import inspect
import re

import numpy as np
from numba import cuda, float32

from kernels_numba.infra import device

from . import diagnose
from . import core
from .core import EXERCISES, exercise, fail, gpu_note, passed


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


_STEPS = {"wait": "wait_group", "barrier": "syncthreads", "issue": "issue_tile", "commit": "commit_group",
          "compute": "compute_tile"}


def _loop_order(student):
    """{step: line number of its first call inside the K loop} of the student's kernel (steps it does not call are
    missing): enough to name an order mistake the race report alone cannot tell apart from a wrong N."""
    code = _code_of(student).splitlines()
    start = next((i for i, line in enumerate(code) if line.strip().startswith("for kt")), None)
    if start is None:
        return {}
    indent = len(code[start]) - len(code[start].lstrip())
    order = {}
    for i in range(start + 1, len(code)):
        line = code[i]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break                                   # the loop body ended
        for step, name in _STEPS.items():
            if name in line and step not in order:
                order[step] = i
    return order


def _newer_groups(h):
    """How many groups the copy's thread committed after the copy's own, when the hazard happened (None: unknown)."""
    m = re.search(r"\((\d+) newer group", h.fix_en)
    return int(m.group(1)) if m else None


def _pipeline_race(ex_id, report, n_tiles, student, stages=3):
    """What the first hazard of a pipeline says about the loop (None: no hazard)."""
    races = report.races if report else []
    if not races:
        return None
    h = races[0]
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
        order = _loop_order(student)
        if "compute" in order and "wait" in order and order["compute"] < order["wait"]:
            return fail(ex_id, "compute_before_wait", f"타일을 기다리기 전에 계산합니다{where}: 반복 안에서 compute_tile 이 "
                        "wait_group 보다 앞에 있습니다. 타일 kt 는 wait 와 배리어를 지난 뒤에야 읽을 수 있습니다.", *lines)
        if "commit" in order and "issue" in order and order["commit"] < order["issue"]:
            return fail(ex_id, "commit_before_issue", f"commit 이 발행보다 앞에 있습니다{where}: 이 반복에 발행한 복사는 "
                        "다음 반복의 commit 에 묶여 한 그룹 늦어지므로, wait_group 의 셈(그룹 하나 = 타일 하나)이 맞지 "
                        "않습니다. 발행한 뒤에 commit 하세요.", *lines)
        if _newer_groups(h) == 0:
            return fail(ex_id, "overwrite_stage", f"지금 계산하는 버퍼에 다음 타일을 복사합니다{where}: 이 반복에 발행한 "
                        "복사가 계산 중인 버퍼를 덮어씁니다. 미리 읽을 타일 kt + S - 1 은 버퍼 (kt + S - 1) % S 로 "
                        "보내세요 (지난 반복에 계산한 버퍼).", *lines)
        return fail(ex_id, "wait_too_large", f"wait_group 이 없거나 N 이 너무 큽니다{where}: 계산하려는 타일의 그룹이 아직 대기 "
                    "중인 채로 wait 를 통과합니다. 이 반복의 wait 직전까지 commit 한 그룹 수를 세어, 타일 kt 의 그룹까지 "
                    "끝나게 하는 N 을 고르세요 (미리 읽는 타일이 kt + 2 인지도 보세요: 그래야 그룹 하나가 타일 하나입니다). (아래 검출기의 'wait_group(n) 이하'는 읽는 순간의 그룹 수입니다: wait 를 "
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
        A, B, C0, out, report = diagnose.random_run(launch, M, N, K, alpha, beta, seed=M * 100 + K)
        n_tiles = (K + tile - 1) // tile
        res = (_pipeline_race(ex_id, report, n_tiles, kernel, stages)
               or diagnose.gemm(ex_id, out, A, B, C0, alpha, beta, (tile, tile), tile, None))
        if not res.ok:
            res.details.insert(0, f"  (M, N, K) = ({M}, {N}, {K}), K 타일 {n_tiles}개, alpha = {alpha}, beta = {beta}")
            if not device.SIMULATOR:
                res.details.append("  GPU 에는 경쟁 검출기가 없어 위 진단은 틀린 값의 모양만 봅니다. cp.async 루프에서 값이 "
                                   "틀리는 흔한 원인은 wait_group 의 N, wait 뒤의 배리어, 꼬리의 빈 commit, 미리 읽는 버퍼 "
                                   "번호입니다: GPU 없는 환경(시뮬레이터)에서 돌리면 어느 것인지 짚어 줍니다.")
            return res
    code = _code_of(kernel)
    drains = "wait_group_0" in code or "wait_all" in code
    return passed(ex_id, f"{len(shapes)}가지 모양(K 타일 1·2·5개, 타일 배수가 아닌 모양)에서 numpy 와 일치"
                  + ("하고, 경쟁 검출기도 조용합니다." if device.SIMULATOR else "합니다." + _gpu_note()),
                  "  참고: wait_group(0) 은 맞지만 미리 읽은 타일까지 모두 기다리므로 복사와 계산이 겹치지 않습니다. "
                  "타일 kt 의 그룹만 끝나게 하는 가장 큰 N 을 찾아보세요." if drains else "")


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


# ------------------------------------------------------------------------------------ copy-back checks (09-2, 09-3)

def _simulated(launch):
    """Run launch() with the race detector collecting (simulator); returns its report (None on the GPU)."""
    if not device.SIMULATOR:
        launch()
        return None
    from kernels_numba.infra.simulator import racecheck
    with racecheck.collect() as report:
        launch()
    return report


def _misaligned(ex_id, exc, what):
    """The misaligned-address fault (the simulator names the thread; the GPU's CUDA error does not), and what it
    means for this copy."""
    text = str(exc)
    thread = text.split(":", 1)[0] if text.startswith("tid=") else ""
    gpu = "" if device.SIMULATOR else ("  GPU 는 어느 스레드인지 알려 주지 않습니다 (시뮬레이터는 스레드와 줄을 밝힙니다)."
                                       + _DEAD_CONTEXT)
    return fail(ex_id, "misaligned", f"16바이트 복사의 주소가 16바이트 정렬이 아닙니다"
                + (f" ({thread})" if thread else "") + f": {what}", "  " + text.splitlines()[0][:400], gpu)


def _is_misaligned(exc):
    """The simulator's fault or the GPU's CUDA_ERROR_MISALIGNED_ADDRESS."""
    from kernels_numba.infra.simulator.errors import MisalignedAddressError
    return isinstance(exc, MisalignedAddressError) or "MISALIGNED_ADDRESS" in str(exc)


_DEAD_CONTEXT = " (이 오류 뒤에는 CUDA 컨텍스트를 쓸 수 없습니다: 노트북 커널을 다시 시작하세요.)"


def _gpu_note():
    return gpu_note(" (GPU 에는 경쟁 검출기가 없어, 타이밍에 따라 맞게 나오는 경쟁은 여기서 보이지 "
                                        "않습니다: GPU 없는 환경의 시뮬레이터에서도 확인해 보세요.)")


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


def _vec_kernel(issue, stages):
    """Each block issues tiles 0..stages-1 into buffers 0..stages-1 with the student's function, waits for all,
    and writes its shared tiles out, so the check sees exactly what landed where."""
    from kernels_numba.infra import ptx

    @cuda.jit
    def kernel(A, B, Aout, Bout):
        As = cuda.shared.array((stages, VBM, VBK), float32, alignment=16)
        Bs = cuda.shared.array((stages, VBK, VBN), float32, alignment=16)
        tid = cuda.threadIdx.x
        by, bx = cuda.blockIdx.y, cuda.blockIdx.x
        for s in range(stages):
            issue(As, Bs, s, A, B, s, tid, by * VBM, bx * VBN)
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


def _tile_diagnosis(ex_id, name, got, want, X, coords):
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
        came = f"{name}{list(src)}" if src else "행렬에 없는 값"
        return fail(ex_id, "misplaced", f"{name} 타일의 원소가 엉뚱한 곳에서 왔습니다: 블록 {idx[:2]}, 버퍼 {idx[2]}, 타일 "
                    f"({idx[3]}, {idx[4]}) 에는 {name}{list(exp)} 가 와야 하는데 {came} 가 왔습니다. 전역 주소의 행·열 "
                    "(블록 오프셋 block_row / block_col, K 타일 오프셋 kt * BK)을 확인하세요.")
    return None


@exercise("09-2", "16바이트 복사: 스레드 → float4 매핑", "6절, 정렬 규칙",
          hints=("A 타일은 32행 × 8열이라 한 행에 float4 가 BK // VEC = 2개, B 타일은 8행 × 32열이라 한 행에 8개입니다. "
                 "64 스레드가 각 타일의 float4 64개를 하나씩 맡습니다. 열은 float 단위이고 4 의 배수(16 B)여야 합니다.",
                 "a_row, a_col = tid // (BK // VEC), (tid % (BK // VEC)) * VEC 로 ptx.cp_async_cg_16(As, stage, a_row, "
                 "a_col, A, block_row + a_row, kt * BK + a_col). B 는 BN // VEC 로 나누고 전역 행은 kt * BK + b_row, "
                 "열은 block_col + b_col."),
          solution="answers/ex09_vec_map.py::issue_vec", name="my_issue_vec",
          preamble='''
from numba import cuda
from kernels_numba.infra import ptx
BM, BN, BK, VEC = 32, 32, 8, 4          # 블록 타일 32×32, K 타일 8, 복사 하나에 float 4개 (16 B); 스레드 64개
''', template='''
@cuda.jit(device=True)
def my_issue_vec(As, Bs, stage, A, B, kt, tid, block_row, block_col):
    """스레드 tid(0..63)의 16바이트 cp.async 두 개: A 타일(BM×BK)의 float4 하나, B 타일(BK×BN)의 float4 하나."""
    raise NotImplementedError("tid 를 타일의 (행, 열)로 나누고 ptx.cp_async_cg_16(As, stage, 행, 열, A, 전역 행, 전역 열) 을 부르세요")
''')
def check_vec_map(student, M=64, N=64, K=24):
    stages = K // VBK
    rng = np.random.default_rng(9 + 7919 * core.VARIANT[0])
    A = _aligned(rng.standard_normal((M, K)).astype(np.float32))
    B = _aligned(rng.standard_normal((K, N)).astype(np.float32))
    gy, gx = M // VBM, N // VBN
    Aout = np.full((gy, gx, stages, VBM, VBK), np.nan, np.float32)
    Bout = np.full((gy, gx, stages, VBK, VBN), np.nan, np.float32)
    kernel = _vec_kernel(student, stages)
    try:
        report = _simulated(lambda: kernel[(gx, gy), VTHREADS](A, B, Aout, Bout))
    except IndexError as exc:
        side = "목적지(공유 메모리 타일)" if "목적지" in str(exc) else "원본(전역 행렬)"
        return fail("09-2", "out_of_bounds", f"복사의 {side} 위치가 배열 밖입니다: A 타일은 BM×BK = 32×8, B 타일은 "
                    "BK×BN = 8×32 입니다. 각 타일의 행·열을 그 타일의 모양으로 나눴는지 보세요 (A 와 B 의 매핑이 다릅니다).",
                    "  " + str(exc).splitlines()[0][:400])
    except Exception as exc:
        if "ILLEGAL_ADDRESS" in str(exc):
            return fail("09-2", "out_of_bounds", "GPU 가 잘못된 주소(illegal address)에 접근했습니다: 복사의 목적지나 원본이 "
                        "배열 밖입니다. A 타일은 32×8, B 타일은 8×32 입니다." + _DEAD_CONTEXT)
        if not _is_misaligned(exc):
            raise
        return _misaligned("09-2", exc, "열 인덱스가 float 4개(16 B)의 배수인지 보세요. 타일의 열은 (tid % 한 행의 "
                           "float4 개수) 에 VEC 를 곱한 값입니다.")
    if report and report.races:
        h = report.races[0]
        if h.kind in ("WAW", "IN_FLIGHT") and h.first_what == "cp.async" and h.second_what == "cp.async":
            return fail("09-2", "overlap", f"두 스레드가 같은 float4 ({h.array}{list(h.index)}) 를 복사합니다: 매핑이 겹치면 "
                        "어떤 float4 는 아무도 복사하지 않습니다. tid 를 나누는 수가 그 타일 한 행의 float4 개수인지 보세요 "
                        "(A 와 B 가 다릅니다).", "", h.ko)
        return fail("09-2", "race", "공유 메모리 경쟁(race)이 있습니다.", *diagnose.race_lines(report))
    want_a = np.stack([np.stack([np.stack([A[y * VBM:(y + 1) * VBM, s * VBK:(s + 1) * VBK] for s in range(stages)])
                                 for x in range(gx)]) for y in range(gy)])
    want_b = np.stack([np.stack([np.stack([B[s * VBK:(s + 1) * VBK, x * VBN:(x + 1) * VBN] for s in range(stages)])
                                 for x in range(gx)]) for y in range(gy)])
    res = (_tile_diagnosis("09-2", "A", Aout, want_a, A, lambda i: (i[0] * VBM + i[3], i[2] * VBK + i[4]))
           or _tile_diagnosis("09-2", "B", Bout, want_b, B, lambda i: (i[2] * VBK + i[3], i[1] * VBN + i[4])))
    return res or passed("09-2", f"블록 {gy * gx}개 × K 타일 {stages}개의 A·B 타일이 모두 제자리에 도착했습니다"
                         + (" (경쟁 검출기: 겹치는 복사 없음)." if device.SIMULATOR else "." + _gpu_note()))


# ------------------------------------------------------------------------------------ 09-3: zero-fill edges

ZR, ZC = 8, 16                           # the copy kernel's tile: 8 rows × 16 floats, 32 threads, one float4 each
PAD = np.float32(7777.0)                 # what X holds past its logical edge (the copy must never read it)


def _picture(mask):
    """diagnose.heatmap, labelled for a copied tile rather than C."""
    return diagnose.heatmap(mask).replace("C 의 틀린 원소", "복사된 타일의 틀린 원소", 1)


def _zfill_kernel(copy):
    """Each thread copies one float4 of its block's 8×16 tile with the student's function into buffer 1, waits,
    and writes that buffer out (the whole tile, inside X or not)."""
    from kernels_numba.infra import ptx

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


def _zfill_case(student, rows, cols, seed=3):
    """(out, want, X) for one logical shape: X's rows are padded to a multiple of 4 floats (+4) filled with PAD."""
    ld = -(-cols // 4) * 4 + 4
    rng = np.random.default_rng(seed + 7919 * core.VARIANT[0])
    X = _aligned(np.full((rows, ld), PAD, np.float32))
    X[:, :cols] = rng.uniform(1.0, 2.0, (rows, cols)).astype(np.float32)     # never 0, never PAD
    gy, gx = -(-rows // ZR), -(-cols // ZC)
    out = np.full((gy * ZR, gx * ZC), np.nan, np.float32)
    want = np.zeros_like(out)
    want[:rows, :cols] = X[:, :cols]
    kernel = _zfill_kernel(student)
    report = _simulated(lambda: kernel[(gx, gy), ZR * ZC // 4](X, out, np.int32(rows), np.int32(cols)))
    if report is not None and any("src-size" in n for n in getattr(report, "notes", ())):
        # the hardware copies src_size bytes: a count of floats copies part of a float (the simulator notes it)
        raise ValueError("src_size: " + next(n for n in report.notes if "src-size" in n))
    return out, want


@exercise("09-3", "16바이트 복사의 zero-fill 경계 (src-size)", "6절, 경계",
          hints=("행렬 안에 있는 float 의 개수 n 을 세세요: 행이 밖이거나(grow ≥ rows) 시작 열이 밖이면(gcol ≥ cols) 0, "
                 "아니면 cols - gcol 과 4 중 작은 값. src-size 는 바이트 단위라 4·n 입니다. X 의 행은 cols 보다 길 수 "
                 "있으니 경계는 rows, cols 로만 판단하세요.",
                 "n = 0 이면 읽지 않지만 주소는 여전히 X 안이어야 합니다: (0, 0) 을 쓰세요. 마지막 줄은 "
                 "ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, 4 * n) 입니다."),
          solution="answers/ex09_zfill.py::copy16", name="my_copy16",
          preamble='''
from numba import cuda
from kernels_numba.infra import ptx
''', template='''
@cuda.jit(device=True)
def my_copy16(S, stage, srow, scol, X, grow, gcol, rows, cols):
    """S[stage, srow, scol:scol+4] <- X[grow, gcol:gcol+4], 16바이트 cp.async 하나; 행렬(rows × cols) 밖은 0."""
    raise NotImplementedError("행렬 안의 float 개수 n(0..4)을 세고 ptx.cp_async_cg_16_zfill(..., src-size) 를 부르세요")
''')
def check_zfill(student):
    shapes = ((10, 13), (7, 6), (9, 32))
    for rows, cols in shapes:
        shape = f"  행렬 rows × cols = {rows} × {cols} (X 의 행 길이 {-(-cols // 4) * 4 + 4}: 그 뒤는 행렬 밖)"
        try:
            out, want = _zfill_case(student, rows, cols)
        except ValueError as exc:
            if "src_size" not in str(exc):
                raise
            return fail("09-3", "src_size_units", "src-size 는 float 개수가 아니라 바이트 수입니다 (0, 4, 8, 12, 16): "
                        "4·n 을 넘기세요.", shape, "  " + str(exc).splitlines()[0])
        except IndexError as exc:
            return fail("09-3", "out_of_bounds", "복사의 원본 주소가 X 밖입니다. 읽는 바이트가 있는(n > 0) 복사라면 행 검사"
                        "(grow < rows)가 빠졌습니다. 통째로 밖인 벡터(n = 0)라면: 하드웨어는 src-size 0 이면 아무것도 "
                        "읽지 않아 GPU 에서는 지나갈 수 있지만, 이 과정은 async_vec 처럼 그런 복사의 주소도 X 안 "
                        "((0, 0) 등)에 두고, 시뮬레이터가 그것을 검사합니다.", shape,
                        "  " + str(exc).splitlines()[0][:300])
        except Exception as exc:
            if "ILLEGAL_ADDRESS" in str(exc):
                return fail("09-3", "out_of_bounds", "GPU 가 잘못된 주소(illegal address)에 접근했습니다: 복사의 원본이 X "
                            "밖입니다. 행 검사(grow < rows)를 확인하세요." + _DEAD_CONTEXT, shape)
            if not _is_misaligned(exc):
                raise
            return _misaligned("09-3", exc, "16바이트 복사는 시작 열을 옮기면 안 됩니다: 경계에서도 (grow, gcol) "
                               "또는 (0, 0) 에서 시작하고, 읽을 바이트 수만 src-size 로 줄이세요.")
        over = out == PAD
        inside = np.zeros_like(over)
        inside[:rows, :cols] = True
        zeroed = inside & (out == 0)
        bad = ~np.isclose(out, want, equal_nan=False)
        if over.any():
            r, c = (int(i) for i in np.argwhere(over)[0])
            side = "행(grow ≥ rows)" if r >= rows else "열(gcol + j ≥ cols)"
            return fail("09-3", "edge_overread", f"행렬 밖을 읽었습니다: 출력 ({r}, {c}) 는 0 이어야 하는데 X 의 행렬 밖 값 "
                        f"{PAD} 가 왔습니다 ({side} 경계). src-size 를 행렬 안의 float 개수 × 4 바이트로 줄이세요 "
                        "(X.shape 가 아니라 rows, cols 로 판단).", shape, _picture(over))
        if zeroed.any():
            return fail("09-3", "edge_zeroed", f"행렬 안의 원소 {int(zeroed.sum())}개가 0 이 되었습니다: 일부만 행렬 안인 "
                        "벡터(경계에 걸친 float4)에서도 행렬 안쪽의 float 는 모두 읽어야 합니다: src-size 는 0 이나 16 만이 아니라 "
                        "4·(안쪽 float 개수) 입니다.",
                        shape, _picture(zeroed))
        if bad.any():
            return fail("09-3", "wrong_values", f"틀린 원소 {int(bad.sum())}개 (NaN 은 복사가 도착하지 않은 자리): "
                        "목적지 (stage, srow, scol) 와 원본 (grow, gcol) 을 그대로 넘겼는지 보세요.", shape,
                        _picture(bad))
    return passed("09-3", f"{len(shapes)}가지 모양(경계에 걸친 float4, 통째로 밖인 float4 포함)에서 행렬 안은 그대로, "
                  "밖은 0 입니다.")


for _id in ("09-1", "09-2", "09-3"):     # cp.async: a CC 7.5 GPU checks these on the simulator only
    EXERCISES[_id].min_cc = (8, 0)
