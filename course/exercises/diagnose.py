"""Diagnose a GEMM result: which elements of C are wrong, what that pattern says, and the race detector's report."""
import numpy as np

from kernels_numba.infra import device
from kernels_numba.infra.simulator import racecheck
from sim.korean import josa

from .core import VARIANT, Foreign, context, fail, passed
from .probe import is_user_file, line_text

SENTINEL = np.float32(-1234.5)       # C starts as this (beta = 0): an element still equal to it was never written
U = 2.0 ** -24                       # unit roundoff of float32


def reference(A, B, C0, alpha, beta, k_cols=None):
    """alpha·A[:, ks]·B[ks, :] + beta·C0 in float64, and its rounding-error bound (≈ 2·K·u·|alpha|·|A||B|)."""
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    if k_cols is not None:
        A64, B64 = A64[:, k_cols], B64[k_cols, :]
    K = max(A64.shape[1], 1)
    ref = alpha * (A64 @ B64) + (beta * C0.astype(np.float64) if beta != 0 else 0.0)
    bound = 2.0 * (K + 2) * U * abs(alpha) * (np.abs(A64) @ np.abs(B64)) + 4 * U * abs(beta * C0.astype(np.float64))
    return ref, bound + 1e-30


def close(C, ref, bound):
    """Boolean map of elements within the bound (NaN and inf are never close)."""
    C = np.asarray(C, np.float64)
    with np.errstate(invalid="ignore"):
        return np.isfinite(C) & (np.abs(C - ref) <= bound)


def heatmap(bad, tile=None, max_side=40):
    """Text picture of the wrong elements of C (■ wrong, · right), with block-tile boundaries when they fit."""
    M, N = bad.shape
    sy, sx = max(1, -(-M // max_side)), max(1, -(-N // max_side))
    rows = []
    for i in range(0, M, sy):
        line = ""
        for j in range(0, N, sx):
            if tile and sx == 1 and j and j % tile[1] == 0:
                line += "|"
            line += "■" if bad[i:i + sy, j:j + sx].any() else "·"
        if tile and sy == 1 and i and i % tile[0] == 0:
            rows.append("-" * len(line))
        rows.append("  " + line)
    scale = "" if sx == sy == 1 else f" (한 칸 = {sy}×{sx} 원소)"
    return f"  C 의 틀린 원소 ■ / 맞은 원소 ·{scale}:\n" + "\n".join(rows)


def _tile_masks(bad, tile):
    """Wrong-element masks of the full BM×BN tiles (a list) and, per tile, 'none' / 'all' / 'some'."""
    BM, BN = tile
    M, N = bad.shape
    full = [bad[i:i + BM, j:j + BN] for i in range(0, M - BM + 1, BM) for j in range(0, N - BN + 1, BN)]
    kinds = []
    for i in range(0, M, BM):
        for j in range(0, N, BN):
            t = bad[i:i + BM, j:j + BN]
            kinds.append("none" if not t.any() else "all" if t.all() else "some")
    return full, kinds


def _part(report, uninit):
    """The report's races, or (uninit=True) its reads of shared memory nobody wrote."""
    return [h for h in report.hazards if (h.kind == "UNINIT") == uninit] if report else []


def race_lines(report, limit=2, uninit=False):
    """The detector's summary and the first hazard in full (threads, lines, fix): its races, or (uninit=True) its reads
    of shared memory nobody wrote. The summary's pointer to the whole report (`course.race_report().summary()`) names
    the report it summarises."""
    hazards = _part(report, uninit)
    if not hazards:
        return []
    part = type(report)(hazards) if len(hazards) != len(report.hazards) else report
    out = [Foreign(part.summary(limit))]
    h = hazards[0]
    out += ["", Foreign(h.ko), Foreign(f"  → 해결: {h.fix_ko}")]
    return out


def race_where(report, uninit=False):
    """'12행 `code`' of the first hazard's later access when it lies in the student's code ('' otherwise): of its
    races, or (uninit=True) of its reads of shared memory nobody wrote."""
    hazards = _part(report, uninit)
    if not hazards:
        return ""
    h = hazards[0]
    for site in (h.second_site, getattr(h, "call_site", None), h.first_site):
        if not site:
            continue
        # an access inside a device function: the kernel's line that called it first (a course helper such as 08's
        # tile_dot lives in a notebook cell too, but the line to change is the caller's), then the helper's own line
        # (a student's device function called by the checker's kernel)
        for at in ([(site[2], site[3])] if len(site) > 3 else []) + [(site[0], site[1])]:
            if is_user_file(at[0]):
                return line_text(at)
    return ""


def _input_write(report):
    """(array name, '12행 `code`') of the first race in which the kernel writes an input matrix (A or B, in global
    memory), or None. A GEMM kernel only reads A and B: such a race is fixed by deleting the write, not by the
    detector's atomic/slice advice (meant for an output that several blocks write)."""
    for h in _part(report, False):
        if getattr(h, "space", "shared") != "global" or h.array not in ("A", "B"):
            continue
        for what, site in ((h.first_what, h.first_site), (h.second_what, h.second_site)):
            if what == "write" and site:
                return h.array, line_text(site) if is_user_file(site[0]) else ""
    return None


def _race_headline(report, values_ok):
    """The first sentence of a race diagnosis: which memory (shared or global) and, for a write into an input
    matrix, the fix (delete the write). (message, where or None)."""
    hazards = _part(report, False)
    space = "전역 메모리" if hazards and all(getattr(h, "space", "shared") == "global" for h in hazards) else "공유 메모리"
    head = (f"값은 맞지만 {space} 경쟁(race)이 있습니다: GPU에서는 타이밍에 따라 틀릴 수 있습니다 (이번에 맞은 답이 경쟁이 "
            "없다는 증거는 아닙니다)." if values_ok else
            f"{space} 경쟁(race) 때문에 결과가 틀립니다: 검출기가 찾은 두 접근이 배리어 없이 만납니다.")
    inp = _input_write(report)
    if inp is None:
        return head, None
    name, where = inp
    return (f"{space} 경쟁(race){'이 있습니다' if values_ok else ' 때문에 결과가 틀립니다'}: 커널이 입력 행렬 "
            f"{name}에 씁니다" + (f" ({where})" if where else "") + ". 다른 블록이 아직 그 원소를 읽어야 "
            f"하므로 읽는 값이 실행 순서에 따라 달라집니다. GEMM 커널은 A 와 B 를 읽기만 하고 C 에만 씁니다: "
            f"{name}에 쓰는 줄을 지우세요. 아래 검출기의 제안(cuda.atomic.add, 블록마다 자기 조각)은 여러 블록이 "
            "함께 쓰는 출력을 위한 것이라 여기에는 맞지 않습니다."), where


def _input_fix(races, report):
    """race_lines with the detector's '→ 해결' line replaced when the race is a write into an input matrix."""
    inp = _input_write(report)
    if inp is None:
        return races
    return [Foreign(f"  → 해결: 입력 행렬 {inp[0]}에 쓰는 줄을 지우세요 (A 와 B 는 읽기만 합니다).")
            if str(x).startswith("  → 해결:") else x for x in races]


PRODUCT = "곱하는 A·B 원소의 인덱스(k 가 A 의 열, B 의 행인지)"
# what a K tile added twice points at, in the names of a pipelined kernel (08, 09); 06 has no buffers and passes its own
RECOMPUTED = "버퍼 번호나 읽어 오는 타일 번호"


def gemm(ex_id, C, A, B, C0, alpha=1.0, beta=0.0, tile=None, BK=None, report=None, tol=None, product=PRODUCT,
         nan_cause=None, recomputed=RECOMPUTED):
    """PASS, or the diagnosis of a wrong C: race, NaN, unwritten, missing K tile, edges, whole tiles, per thread.
    The result carries the race detector's whole report as `.report` (`res.report.summary()`).

    tol(A, B, C0, alpha, beta, k_cols) -> (ref, bound): another tolerance than `reference` (e.g. f16 inputs);
    product: what to check when every element is wrong, in this exercise's own names; nan_cause: what leaves NaN here;
    recomputed: where to look when a K tile is added twice, in this exercise's own names."""
    res = _gemm(ex_id, C, A, B, C0, alpha, beta, tile, BK, report, tol, product, nan_cause, recomputed)
    res.report = report
    return res


def _gemm(ex_id, C, A, B, C0, alpha, beta, tile, BK, report, tol, product, nan_cause, recomputed=RECOMPUTED):
    C = np.asarray(C)
    tol = tol or reference
    ref, bound = tol(A, B, C0, alpha, beta)
    bad = ~close(C, ref, bound)
    races = race_lines(report)
    rw = race_where(report)
    unwritten_reads = race_lines(report, uninit=True)
    if not bad.any():
        if races:
            head, at = _race_headline(report, True)
            return fail(ex_id, "race", head, *_input_fix(races, report), where=at or rw)
        if unwritten_reads:
            return fail(ex_id, "uninit", "값은 맞지만 아직 아무 스레드도 쓰지 않은 공유 메모리를 읽습니다: 시뮬레이터가 "
                        "채운 NaN 은 이번에 결과에 섞이지 않았지만(max 등이 버림), GPU 에서는 그 자리에 이전 블록이 남긴 "
                        "값이 있어 답이 틀릴 수 있습니다.", *unwritten_reads, where=race_where(report, uninit=True))
        return passed(ex_id, "numpy(float64) 결과와 일치합니다" +
                      (" (경쟁 검출기: 경쟁 없음)." if device.SIMULATOR else "."))
    M, N = C.shape
    K = A.shape[1]
    picture = heatmap(bad, tile)
    worst = f"  틀린 원소 {int(bad.sum())}/{bad.size}개"
    notes = getattr(report, "notes", None)
    if notes and not races:
        return fail(ex_id, "bytes_dtype", "cp.async 가 dtype 이 다른 배열 사이에서 바이트를 복사했습니다: GPU 처럼 값이 "
                    "아니라 바이트가 옮겨져 결과가 틀립니다.", *[Foreign(f"  {n}") for n in notes], worst, picture)
    if races:
        head, at = _race_headline(report, False)
        return fail(ex_id, "race", head, *_input_fix(races, report), "", picture, where=at or rw)
    nan = np.isnan(C) & np.isfinite(ref)
    unwritten = (C == SENTINEL) if beta == 0 else np.zeros_like(bad)
    cause = nan_cause or ("공유 메모리를 쓰기 전에 읽었습니다(시뮬레이터는 공유 메모리를 NaN 으로 채웁니다): 타일을 채우는 "
                          "로드가 빠졌거나, 경계 밖에서 0 을 쓰지 않았거나, 아직 채우지 않은 버퍼를 읽습니다")
    if nan.all():
        return fail(ex_id, "nan", f"C 가 모두 NaN 입니다: {cause}.", worst, *unwritten_reads)
    if unwritten.any():
        BM, BN = tile or (M, N)
        edge = np.zeros_like(bad)
        edge[(M // BM) * BM:, :] = True
        edge[:, (N // BN) * BN:] = True
        if (unwritten <= edge).all() and M % BM + N % BN:
            return fail(ex_id, "edges_unwritten", "가장자리(타일 배수가 아닌 부분)의 C 원소를 쓰지 않았습니다: 저장의 경계 "
                        "검사(행 < M, 열 < N)가 너무 엄격하지 않은지 보세요.", worst, picture)
        return fail(ex_id, "unwritten", "어떤 C 원소는 아무도 쓰지 않았습니다(■ 자리의 값이 처음 그대로): 스레드→원소 "
                    "매핑이나 그리드 크기를 확인하세요.", worst, picture)
    if nan.any():
        return fail(ex_id, "nan", f"일부 C 원소가 NaN 입니다: {cause}.", worst, picture, *unwritten_reads)
    if BK and K > BK:
        Kf = (K // BK) * BK
        for ks, code, msg in (
                (slice(0, Kf), "last_k_tile", f"마지막 K 타일(k = {Kf}…{K - 1})이 빠졌습니다: K 가 K 타일 크기({BK})의 "
                 "배수가 아닐 때 남는 조각도 타일 하나입니다. K 루프가 몇 번 도는지 세어 보세요."),
                (slice(0, BK), "first_k_tile_only", "첫 K 타일만 더해졌습니다: K 루프가 한 번만 돌거나 일찍 끝납니다."),
                (slice(Kf if K % BK else K - BK, K), "acc_reset", "마지막 K 타일만 남았습니다: 누적값을 K 루프 "
                 "안에서 0 으로 되돌리고 있습니다. 루프 밖에서 한 번만 초기화하세요.")):
            r2, b2 = tol(A, B, C0, alpha, beta, ks)
            if ks.stop - ks.start < K and close(C, r2, b2).all():
                return fail(ex_id, code, msg, picture)
    counts = k_tile_counts(C, A, B, C0, alpha, beta, BK) if BK else None
    if counts and counts != [1] * len(counts):
        n = len(counts)
        if counts == [1] * (n - 1) + [0]:
            return fail(ex_id, "last_k_tile", f"마지막 K 타일(타일 {n - 1}, k = {(n - 1) * BK}…{K - 1})이 C 에 더해지지 "
                        "않았습니다: K 루프가 몇 번 도는지, 그리고 루프 뒤에서 마지막 타일을 따로 계산하는 구조라면 그 "
                        "계산(에필로그)이 있는지 확인하세요.", picture)
        return fail(ex_id, "k_tile_counts", "K 타일마다 C 에 더해진 횟수가 1 이 아닙니다: "
                    + ", ".join(f"타일 {t}: {c}번" for t, c in enumerate(counts)) + ". 두 번 더해진 타일은 같은 데이터를 "
                    f"다시 계산했다는 뜻이고({recomputed}), 0번인 타일은 빠졌습니다.", picture)
    if tile:
        full, kinds = _tile_masks(bad, tile)
        BM, BN = tile
        edge = np.zeros_like(bad)
        edge[(M // BM) * BM:, :] = True
        edge[:, (N // BN) * BN:] = True
        if (bad <= edge).all() and M % BM + N % BN:
            return fail(ex_id, "edges", "가장자리 타일(타일 배수가 아닌 부분)만 틀립니다: 행렬 밖 원소를 0 으로 채우는 경계 "
                        "검사(로드)나 저장의 경계 검사를 확인하세요.", worst, picture)
        if bad.all():
            pass
        elif "some" not in kinds:
            return fail(ex_id, "tiles", "어떤 블록 타일은 통째로 맞고 어떤 타일은 통째로 틀립니다: 블록 번호(blockIdx)에서 "
                        "타일 위치를 구하는 곳(행은 blockIdx.y, 열은 blockIdx.x)을 확인하세요.", worst, picture)
        elif full and all((m == full[0]).all() for m in full) and full[0].any() and not full[0].all():
            return fail(ex_id, "per_thread", "모든 블록에서 같은 자리의 원소가 틀립니다: 블록 안에서 스레드가 맡는 원소를 "
                        "정하는 인덱스(threadIdx 와 행·열의 대응)를 확인하세요.", worst, picture)
    if bad.all():
        rel = float(np.nanmax(np.abs(C - ref)) / max(np.abs(ref).max(), 1e-30)) if np.isfinite(C).any() else float("nan")
        return fail(ex_id, "all_wrong", f"모든 원소가 틀립니다 (최대 상대 오차 {rel:.2g}): {josa(product, '을/를')} "
                    "확인하세요.", worst)
    return fail(ex_id, "wrong_values", "일부 원소가 틀립니다.", worst, picture)


def k_tile_counts(C, A, B, C0, alpha, beta, BK, max_tiles=16):
    """How many times each K tile (BK columns of A / rows of B) went into C, when C is alpha·Σ w_t·A_t·B_t + beta·C0
    with whole numbers w_t (the same for every element); None when C is not such a sum or alpha == 0."""
    K = A.shape[1]
    n = -(-K // BK)
    C = np.asarray(C, np.float64)
    if not 2 <= n <= max_tiles or alpha == 0 or not np.isfinite(C).all() or C.size < n:
        return None
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    parts = [A64[:, t * BK:(t + 1) * BK] @ B64[t * BK:(t + 1) * BK, :] for t in range(n)]
    rest = (C - (beta * C0.astype(np.float64) if beta != 0 else 0.0)) / alpha
    w = np.linalg.lstsq(np.stack([p.ravel() for p in parts], 1), rest.ravel(), rcond=None)[0]
    counts = np.rint(w)
    if np.abs(w - counts).max() > 0.01 or counts.min() < 0:
        return None
    ref = alpha * sum(c * p for c, p in zip(counts, parts)) + (beta * C0.astype(np.float64) if beta != 0 else 0.0)
    bound = 2.0 * (K + 2) * max(counts.max(), 1) * U * abs(alpha) * (np.abs(A64) @ np.abs(B64)) \
        + 4 * U * abs(beta * C0.astype(np.float64)) + 1e-30
    return [int(c) for c in counts] if close(C, ref, bound).all() else None


def random_run(launch, M, N, K, alpha=1.0, beta=0.0, seed=0, dtype=np.float32):
    """(A, B, C0, C, race report) of launch on random inputs (C0 is SENTINEL when beta = 0; the seed moves with the
    graders' variant); the race detector collects on the simulator (report None on a GPU)."""
    rng = np.random.default_rng(seed + 7919 * VARIANT[0])
    A = rng.standard_normal((M, K)).astype(dtype)
    B = rng.standard_normal((K, N)).astype(dtype)
    C0 = np.full((M, N), SENTINEL, np.float32) if beta == 0 else rng.standard_normal((M, N)).astype(np.float32)
    report = None
    if device.SIMULATOR:
        with racecheck.collect() as report:
            out = launch(A, B, C0.copy(), alpha, beta)
    else:
        out = launch(A, B, C0.copy(), alpha, beta)
    return A, B, C0, out, report


def run_gemm(ex_id, launch, M, N, K, alpha=1.0, beta=0.0, seed=0, tile=None, BK=None, dtype=np.float32, tol=None,
             **kw):
    """Run launch(A, B, C, alpha, beta) on random inputs (C starts as SENTINEL when beta = 0) and diagnose it."""
    A, B, C0, out, report = random_run(launch, M, N, K, alpha, beta, seed, dtype)
    return gemm(ex_id, out, A, B, C0, alpha, beta, tile, BK, report, tol, **kw)


def shape_line(M, N, K, alpha, beta, tile=None, BK=None):
    """'  (M, N, K) = (…), alpha = …, beta = …, 블록 타일 …': the line every diagnosis of a GEMM run starts with."""
    n_k = f", K 타일 {-(-K // BK)}개" if BK else ""
    return (f"  (M, N, K) = ({M}, {N}, {K}){n_k}, alpha = {alpha}, beta = {beta}"
            + (f", 블록 타일 {tile[0]}×{tile[1]}" if tile else ""))


def run_shapes(ex_id, launch, shapes, tile=None, BK=None, dtype=np.float32, tol=None, **kw):
    """run_gemm over shapes (M, N, K, alpha, beta); the first failure is the diagnosis, refined by comparing shapes:
    wrong only where K is not a multiple of BK means the last K tile is padded with something other than 0."""
    results = []
    for M, N, K, alpha, beta in shapes:
        line = shape_line(M, N, K, alpha, beta, tile, BK)
        with context(line):
            res = run_gemm(ex_id, launch, M, N, K, alpha, beta, tile=tile, BK=BK, dtype=dtype, tol=tol, **kw)
        res.details.insert(0, line)
        results.append(((M, N, K), res))
    failed = [(s, r) for s, r in results if not r.ok]
    if not failed:
        return passed(ex_id, f"{len(shapes)}가지 모양(타일 배수가 아닌 것 포함)에서 numpy 와 일치"
                      + ("하고, 경쟁 검출기도 조용합니다." if device.SIMULATOR else "합니다."))
    shape, res = failed[0]
    if BK and res.code in ("all_wrong", "wrong_values", "edges"):
        ragged_k = [r for s, r in failed if s[2] % BK]
        even_k_ok = [r for s, r in results if r.ok and s[2] % BK == 0]
        if ragged_k and even_k_ok and len(ragged_k) == len(failed):
            return fail(ex_id, "k_padding", f"K 가 {BK}의 배수일 때는 맞고, 아닐 때만 틀립니다: 마지막 K 타일에서 "
                        "행렬 밖(k ≥ K) 원소를 0 으로 채우지 않아, 그 자리의 곱이 C 에 더해집니다.",
                        *res.details)
    return res
