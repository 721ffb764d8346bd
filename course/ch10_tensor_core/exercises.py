"""Notebook 10 exercises: the lane -> fragment ownership of C/D, A and B (mma.m16n8k16), each lane's ldmatrix row
address, and the K loop of the one-warp kernel. The layout truth is sim/mma.py (checked against the GPU record)."""
import traceback

import numpy as np

from kernels_numba.infra import device
from kernels_numba.infra.simulator import warp as simwarp
from kernels_numba import tc
from sim import mma

from sim.korean import josa, particle

from course.exercises import probe
from course.exercises.core import EXERCISES, exercise, fail, gpu_note, passed, technique
from course.exercises.diagnose import heatmap, run_shapes

WARP = 32
SHAPE = {"A": (16, 16), "B": (16, 8), "C": (16, 8)}
AXES = {"A": ("행", "열"), "B": ("k(행)", "n(열)"), "C": ("행", "열")}
def frag(matrix, g, t):
    """The fragment formula of sim/mma.py written with (groupID, threadID_in_group) as free inputs (for variants)."""
    if matrix == "C":
        return [(g + 8 * (i >= 2), 2 * t + (i & 1)) for i in range(4)]
    if matrix == "A":
        return [(g + 8 * (i in (2, 3, 6, 7)), 2 * t + (i & 1) + 8 * (i >= 4)) for i in range(8)]
    return [(2 * t + (i & 1) + 8 * (i >= 2), g) for i in range(4)]


def reg_name(matrix, i):
    """'c2' for C, 'a1 의 상위 절반 (a_3)' for A/B (two f16 per .b32 register, low half = even element)."""
    if matrix == "C":
        return f"c{i}"
    x = matrix.lower()
    return f"{x}{i // 2} 의 {'하위' if i % 2 == 0 else '상위'} 절반 ({x}_{i})"


def reg_names(matrix, idx):
    """Register names covering element indexes idx ('a1, a3' when both halves of a register are in idx)."""
    if matrix == "C":
        return ", ".join(f"c{i}" for i in sorted(idx))
    x, out = matrix.lower(), []
    for r in sorted({i // 2 for i in idx}):
        both = {2 * r, 2 * r + 1} <= set(idx)
        out.append(f"{x}{r}" if both else reg_name(matrix, 2 * r if 2 * r in idx else 2 * r + 1))
    return ", ".join(out)


def lanes_text(lanes):
    """'레인 0–31' / '레인 1–3, 5' (ranges of consecutive lanes)."""
    return "레인 " + mma.lane_ranges(lanes)


def lane_grid(lanes):
    """8x4 picture of the warp (row = groupID = lane >> 2, column = lane % 4): ■ the listed lanes, · the others."""
    rows = ["  레인 격자 (행 = groupID = lane >> 2, 열 = threadID_in_group = lane % 4; ■ 틀린 레인):"]
    for g in range(8):
        rows.append("  " + " ".join("■" if 4 * g + t in lanes else "·" for t in range(4)) + f"   레인 {4 * g}–{4 * g + 3}")
    return "\n".join(rows)


# what the lane number splits into for each exercise: fragments by groupID/threadID_in_group, ldmatrix rows by 8j + r
_FROM_LANE = {"10-4": "lane % 16, lane // 16 또는 lane // 8, lane % 8"}


def _model_used(ex_id, rec):
    """A failure when the student's function called sim/mma.py (found by watching the run, at any depth)."""
    c = rec.model_calls[0]
    parts = _FROM_LANE.get(ex_id, "lane >> 2, lane % 4")
    return fail(ex_id, "uses_model", f"sim/mma.py 의 모델 함수를 불러서 답을 얻고 있습니다 (`{c.name}`): 그 모델이 바로 확인 셀의 "
                f"정답이라, 이것은 아무것도 확인하지 못합니다. 레인 번호에서 직접 계산하세요 ({josa(parts, '과/와')} "
                "덧셈·곱셈만으로 됩니다).", f"  부른 곳: {probe.line_text(c.site)}", where=probe.line_text(c.site))


def _answers(student, lanes=WARP):
    """[student(lane) for every lane] with the run watched for calls into sim/mma.py: (answers, recording)."""
    with probe.recording(model_files=(probe.model_file(mma),)) as rec:
        out = [student(lane) for lane in range(lanes)]
    return out, rec


def _flat(v):
    """Every leaf of nested tuples / lists / arrays (a numpy array as its elements)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    return [v]


def _float_note(v):
    """' 행·열에 실수(float)가 있습니다 ...' when the answer's numbers are whole floats (a `/` division), else ''."""
    leaves = _flat(v)
    if any(isinstance(x, (float, np.floating)) for x in leaves) and \
            all(isinstance(x, (int, float, np.integer, np.floating)) and float(x).is_integer() for x in leaves):
        return (" 행·열에 정수가 아니라 실수(float)가 있습니다: `/` 는 실수 나눗셈이라 4 / 4 도 1.0 입니다. 정수 나눗셈 "
                "`//` (또는 `>>`, `divmod`)로 계산하세요.")
    return ""


def _pairs(v, n):
    """v as a list of n (int, int) tuples, or None."""
    try:
        out = [(int(a), int(b)) for a, b in v]
    except (TypeError, ValueError):
        return None
    ok = len(out) == n and all(isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) for a, b in v)
    return out if ok else None


def _line(site):
    """The detail line naming the student's line a diagnosis blames ('' when unknown)."""
    return f"  이 값을 만든 줄: {site}" if site else ""


def _value_site(student, lanes, truth, parse):
    """'12행 `code`': the student's line that made the wrong numbers of the wrong lanes (numbers that are right
    somewhere in the lane's answer do not count: then the line of the return, which put them in the wrong place)."""
    def wanted(args, result):
        got, right = parse(result), truth[args[0]]
        if got is None:
            return set()
        flat = [x for pair in got for x in pair]
        ok = {x for pair in right for x in pair}
        return {x for x, y in zip(flat, [x for pair in right for x in pair]) if x != y} - ok
    return probe.value_site(student, [(l,) for l in _spread_lanes(lanes)], wanted)


def _first_site(student, lanes, wanted):
    """'3행 `code`': the first line of the student's code that made a value of wanted(lane) in every traced lane (the
    line that split the lane into groupID and threadID_in_group: later lines only carry the value on); '' if none."""
    common, order = None, {}
    try:
        for lane in lanes:
            values = wanted(lane)
            if not values:
                continue
            tr = probe.trace_values(student, lane)
            sites = [site for v, site, own in tr.produced if v in values]
            if common is None:
                order = {site: n for n, site in reversed(list(enumerate(sites)))}
            common = set(sites) if common is None else common & set(sites)
    except Exception:                    # noqa: BLE001  (watching must never change the verdict)
        return ""
    return probe.line_text(min(common, key=order.get)) if common else ""


def _spread_lanes(lanes, n=8):
    """Up to n of the lanes: the first, then others spread over all of them."""
    picks = sorted(set(lanes))
    return picks[:1] + picks[1::max(1, len(picks) // (n - 1))][:n - 1]


# ------------------------------------------------------------------------------- 10-1..10-3: fragment ownership

GT_VARIANTS = (
    (lambda l: (l % 4, l >> 2), "groupID 와 threadID_in_group 을 바꿔 썼습니다 (g = lane % 4, t = lane >> 2)"),
    (lambda l: (l % 8, l >> 3), "레인을 8개씩 묶었습니다 (g = lane % 8, t = lane >> 3)"),
    (lambda l: (l >> 3, l % 8), "레인을 8개씩 묶었습니다 (g = lane >> 3, t = lane % 8)"),
    (lambda l: (l >> 1, l % 2), "레인을 2개씩 묶었습니다 (g = lane >> 1, t = lane % 2)"),
)

LAYOUT_TEXT = {
    "C": "C/D: 행 = groupID (c0, c1) 또는 groupID + 8 (c2, c3), 열 = 2·threadID_in_group + (0 또는 1).",
    "A": "A (.row): a0 = 행 g 열 0–7 쪽, a1 = 행 g+8 열 0–7 쪽, a2 = 행 g 열 8–15 쪽, a3 = 행 g+8 열 8–15 쪽; "
         "레지스터마다 하위 절반이 열 2t, 상위 절반이 열 2t+1.",
    "B": "B (.col): 열 n = groupID, b0 = k 2t 와 2t+1, b1 = k 2t+8 과 2t+9 (한 레지스터의 두 f16 은 같은 열의 "
         "이웃한 두 k).",
}


def _examples(matrix, got, truth, bad, limit=3):
    return [f"  레인 {l} 의 {reg_name(matrix, i)}: {truth[l][i]} 이어야 하는데 {got[l][i]}" for l, i in bad[:limit]]


def _coverage_picture(matrix, got):
    """Text map of how many lanes hold each element (· one, 0 none, 2..9 several)."""
    R, C = SHAPE[matrix]
    count = np.zeros((R, C), int)
    for els in got:
        for r, c in els:
            if 0 <= r < R and 0 <= c < C:
                count[r, c] += 1
    rows = [f"  {matrix} 의 원소마다 그것을 가진 레인 수 (· = 1 로 맞음, 0 = 아무도 없음, 2 이상 = 겹침):"]
    for r in range(R):
        rows.append("  " + "".join("·" if k == 1 else str(min(k, 9)) for k in count[r]))
    return count, "\n".join(rows)


def _register_perm(got, truth, n):
    """perm with got[l][i] == truth[l][perm[i]] for every lane, or None."""
    perm = []
    for i in range(n):
        js = {truth[l].index(got[l][i]) if got[l][i] in truth[l] else None for l in range(WARP)}
        if len(js) != 1 or None in js:
            return None
        perm.append(js.pop())
    return perm


def _order_message(matrix, perm):
    x = matrix.lower()
    moved = [i for i in range(len(perm)) if perm[i] != i]
    if matrix == "C":
        if sorted(moved) == [1, 2]:
            return ("c1 과 c2 가 바뀌었습니다: c0, c1 은 행 g 의 이웃한 두 열(2t, 2t+1), c2, c3 은 행 g+8 의 같은 두 열입니다. "
                    "'열 먼저, 그다음 행 +8' 순서입니다.")
        return "c0..c3 의 순서가 틀렸습니다: " + ", ".join(f"c{i} 자리에 c{perm[i]} 의 원소" for i in moved) + "."
    pairs = [(perm[2 * r] // 2, perm[2 * r] % 2, perm[2 * r + 1] % 2) for r in range(len(perm) // 2)]
    whole = all(lo == 0 and hi == 1 for _, lo, hi in pairs)
    if whole and {r for r in range(len(pairs)) if pairs[r][0] != r} == {1, 2} and matrix == "A":
        return ("a1 과 a2 가 바뀌었습니다 (두 절반의 교환): a1 은 행 g+8 (열 0–7 쪽), a2 는 열 8–15 쪽 (행 g) 입니다. 순서는 "
                "'행 아래 절반(+8) 먼저, 그다음 열 오른쪽 절반(+8)' — ldmatrix.x4 가 채우는 행렬 0, 1, 2, 3 의 순서와 같습니다.")
    if whole:
        return "레지스터 순서가 틀렸습니다: " + ", ".join(f"{x}{r} 자리에 {x}{s} 의 두 원소" for r, (s, _, _) in
                                               enumerate(pairs) if s != r) + "."
    if all(s == r for r, (s, _, _) in enumerate(pairs)):
        regs = ", ".join(f"{x}{r}" for r, (_, lo, hi) in enumerate(pairs) if (lo, hi) != (0, 1))
        return (f"{regs} 안에서 두 f16 의 순서가 바뀌었습니다: 하위 16비트(짝수 원소)가 더 작은 "
                f"{'열' if matrix == 'A' else 'k'}, 상위 16비트가 그다음입니다.")
    return "원소의 순서가 틀렸습니다: " + ", ".join(f"{reg_name(matrix, i)} 자리에 {x}_{perm[i]}" for i in moved) + "."


def check_fragment(ex_id, matrix, student):
    """PASS, or which lanes and registers hold the wrong element of `matrix` and what pattern that is."""
    raw, rec = _answers(student)
    if rec.model_calls:
        return _model_used(ex_id, rec)
    n = len(mma.ELEMENTS[matrix](0))
    R, C = SHAPE[matrix]
    got = []
    for lane in range(WARP):
        v = _pairs(raw[lane], n)
        if v is None:
            return fail(ex_id, "input", f"레인 {lane}: ({AXES[matrix][0]}, {AXES[matrix][1]}) 정수 쌍 {n}개의 리스트를 "
                        f"돌려주세요 (받은 값: {raw[lane]!r:.80})." + _float_note(raw[lane]))
        got.append(v)
    truth = [mma.ELEMENTS[matrix](l) for l in range(WARP)]
    if got == truth:
        return passed(ex_id, f"32개 레인의 {matrix} 프래그먼트 원소 {WARP * n}개가 모두 PTX ISA 레이아웃(GPU 기록과 "
                      "일치)과 같습니다.")
    bad = [(l, i) for l in range(WARP) for i in range(n) if got[l][i] != truth[l][i]]
    wrong_lanes = sorted({l for l, _ in bad})
    where = (f"  틀린 곳: {lanes_text(wrong_lanes)} ({len(wrong_lanes)}개)의 "
             f"{reg_names(matrix, {i for _, i in bad})} — 원소 {len(bad)}/{WARP * n}개")
    ex = _examples(matrix, got, truth, bad)

    def out(code, message, *details, gt=None):
        if gt is None:
            site = _value_site(student, wrong_lanes, truth, lambda r: _pairs(r, n))
        else:                # the line that split the lane: the wrong groupID / threadID_in_group values themselves
            site = _first_site(student, _spread_lanes(wrong_lanes), lambda l: {gt(l)[0]} - {l >> 2})
        return fail(ex_id, code, message, *details[:1], _line(site), *details[1:], where=site)   # before pictures
    if all(got[l][i] == truth[l][i][::-1] for l in range(WARP) for i in range(n)):
        why = {"C": "C/D 의 행은 groupID 가, 열은 threadID_in_group 이 정합니다.",
               "A": "A 는 .row 입니다: groupID 가 행(m), threadID_in_group 이 열(k) 쌍을 고릅니다.",
               "B": "B 는 .col 로 레지스터에 들어갑니다: 한 레지스터의 두 f16 은 같은 열 n = groupID 의 이웃한 두 k "
                    "입니다. 메모리의 행 우선 B[k][n] 처럼 (n, k) 로 쓰면 전치가 됩니다."}[matrix]
        return out("transposed", f"행과 열이 바뀌었습니다: 모든 원소가 ({AXES[matrix][1]}, {AXES[matrix][0]}) "
                    f"순서로 나옵니다. {why}", where, *ex)
    if all(sorted(got[l]) == sorted(truth[l]) for l in range(WARP)):
        perm = _register_perm(got, truth, n)
        msg = _order_message(matrix, perm) if perm else "레인마다 맞는 원소를 갖지만 레지스터 순서가 레인마다 다르게 틀렸습니다."
        return out("register_order", msg, where, *ex, "  " + LAYOUT_TEXT[matrix])
    for gt, text in GT_VARIANTS:
        if all(got[l] == frag(matrix, *gt(l)) for l in range(WARP)):
            return out("lane_groups", f"레인에서 (groupID, threadID_in_group) 을 얻는 계산이 틀렸습니다: {text}. 레인 4개가 "
                        "한 묶음입니다: groupID = lane >> 2 (0–7), threadID_in_group = lane % 4 (0–3).",
                        where, *ex, lane_grid(wrong_lanes), gt=gt)
    diffs = {(truth[l][i][0] - got[l][i][0], truth[l][i][1] - got[l][i][1]) for l, i in bad}
    if diffs in ({(8, 0)}, {(0, 8)}):
        ax = AXES[matrix][0 if diffs == {(8, 0)} else 1]
        return out("row_offset" if diffs == {(8, 0)} else "col_offset",
                    f"{reg_names(matrix, {i for _, i in bad})} 의 {ax}에 +8 이 빠졌습니다: 그 원소들은 {ax} 8–15 쪽 "
                    f"절반에 있어야 합니다. {LAYOUT_TEXT[matrix]}", where, *ex)
    if matrix != "C":
        step, other = ((0, 1), (1, 0)) if matrix == "A" else ((1, 0), (0, 1))
        def along(l, i):
            return (got[l][i][0] - got[l][i - 1][0], got[l][i][1] - got[l][i - 1][1]) == other
        # only the high halves wrong, or every register's two halves neighbours along the other axis (for B: the
        # answer that reads B as row-major memory, e.g. C's pattern copied)
        if all(i % 2 and along(l, i) for l, i in bad) or all(along(l, i) for l in range(WARP) for i in range(1, n, 2)):
            same, nxt = ("행", "열") if matrix == "A" else ("열 n", "k")
            return out("half_axis", f"레지스터 하나의 두 f16 (하위·상위 절반)을 엉뚱한 방향의 이웃에 두었습니다: "
                        f"{matrix} 에서 두 절반은 같은 {same}의 이웃한 두 {nxt}입니다 (상위 = 하위 + {step}). "
                        + ("B 는 .col 이라 메모리의 행 우선 B 와 방향이 다릅니다: 한 레지스터의 두 f16 을 같은 k 의 이웃한 "
                           "두 n 으로 두면 행 우선으로 읽은 답입니다." if matrix == "B" else ""), where, *ex)
    outside = [(l, i) for l in range(WARP) for i in range(n) if not (0 <= got[l][i][0] < R and 0 <= got[l][i][1] < C)]
    if outside:
        l, i = outside[0]
        return out("out_of_range", f"{matrix} {particle(matrix, '은/는')} {R}×{C}인데 범위 밖 원소가 있습니다: 레인 {l}의 "
                    f"{reg_name(matrix, i)} = {got[l][i]}. groupID 는 0–7, threadID_in_group 은 0–3 입니다.",
                    where, *ex)
    count, picture = _coverage_picture(matrix, got)
    if (count != 1).any():
        return out("coverage", f"{matrix} 의 원소 {int((count == 0).sum())}개는 아무 레인도 갖지 않고 "
                    f"{int((count > 1).sum())}개는 두 레인 이상이 갖습니다: 32레인 × {n}개가 {josa(f'{R}×{C}', '을/를')} 정확히 한 번씩 "
                    "덮어야 합니다.", where, *ex, picture)
    return out("wrong_elements", f"{matrix} {particle(matrix, '을/를')} 한 번씩 덮기는 하지만 레인과 원소의 짝이 틀렸습니다. "
                f"{LAYOUT_TEXT[matrix]}", where, *ex, lane_grid(wrong_lanes))


# what 10-1..10-3's checker asks for each kind of wrong fragment (the same questions for C, A and B)
FRAGMENT_QUESTIONS = {
    "transposed": "여러분의 답에서 행과 열 중 어느 것이 레인 묶음 번호(groupID)로 정해지나요? 2.1절의 위젯에서 "
                  "같은 레인을 골라 비교해 보세요.",
    "register_order": "같은 레인의 원소들은 맞습니다. 레지스터 번호가 하나 늘 때 먼저 바뀌는 것은 열인가요, "
                      "행인가요?",
    "lane_groups": "레인 몇 개가 한 묶음인가요? 묶음 번호와 묶음 안의 번호를 레인 번호에서 어떻게 나누었나요?",
    "row_offset": "위쪽 절반과 아래쪽 절반을 나누는 레지스터에서 행에 더하는 값이 있나요?",
    "col_offset": "오른쪽 절반을 맡는 레지스터에서 열에 더하는 값이 있나요?",
    "half_axis": "한 레지스터의 두 f16 은 같은 행(또는 열)의 이웃입니다. 여러분의 답에서는 어느 방향으로 "
                 "이웃하나요?",
    "out_of_range": "묶음 안의 번호는 0부터 몇까지인가요? 그 값이 행렬 밖으로 나가는 원소를 만들지 않나요?",
    "coverage": "두 레인이 같은 원소를 갖는 곳을 그림에서 찾아보세요. 두 레인의 번호는 무엇이 다른가요?",
    "wrong_elements": "그림에서 틀린 레인들은 어떤 공통점이 있나요 (같은 묶음, 같은 묶음 안의 번호)?",
    "uses_model": "이 함수가 부르는 것은 무엇인가요? 레인 번호 하나만으로 계산할 수 있나요?",
    "input": "함수가 레인 하나에 대해 (행, 열) 정수 쌍들의 리스트를 돌려주나요?",
}


@exercise("10-1", "C/D 프래그먼트: 레인이 맡는 네 원소", "2절",
          hints=("레인 32개는 넷씩 여덟 묶음입니다. 묶음 번호(groupID)와 묶음 안의 번호(threadID_in_group)가 C 의 행과 "
                 "열 쌍을 하나씩 정하고, 레지스터 네 개는 두 행 × 이웃한 두 열입니다. 위젯에서 레인 0 과 레인 5 의 "
                 "칸을 찾아보세요.",
                 "레인 5 는 몇 번째 묶음의 몇 번째 레인인가요? 그 레인의 c0 과 c2 는 같은 열, 다른 행에 있습니다: 두 행은 "
                 "몇 행 떨어져 있나요?"),
          questions=FRAGMENT_QUESTIONS,
          solution="answers/ch10/ex10_fragment.py::c_elements", name="my_c_elements",
          template='''
def my_c_elements(lane):
    """레인 lane 의 c0, c1, c2, c3 이 담는 C/D 원소의 (행, 열) 네 개의 리스트 (mma.m16n8k16, f32 누적)."""
    raise NotImplementedError("groupID = lane >> 2, threadID_in_group = lane % 4 로 네 원소의 (행, 열)을 계산하세요")
''')
def check_c(student):
    return check_fragment("10-1", "C", student)


@exercise("10-2", "A 프래그먼트: 레지스터 a0..a3 의 여덟 원소", "2절",
          hints=("A 는 16×16 이라 레인마다 원소 8개가 32비트 레지스터 네 개에 둘씩 들어갑니다. 네 레지스터는 위·아래 "
                 "두 행 절반과 왼쪽·오른쪽 두 열 절반을 나눠 맡고, 한 레지스터의 두 원소는 같은 행의 이웃한 두 열입니다. "
                 "순서가 핵심입니다.",
                 "위젯에서 행렬 A 와 레인 0 을 고르세요. a_0 과 a_2 는 어느 행에 있나요? a_4 는요? 네 레지스터가 나누는 "
                 "순서는 '행 절반이 먼저'인가요, '열 절반이 먼저'인가요?"),
          questions=FRAGMENT_QUESTIONS,
          solution="answers/ch10/ex10_a_fragment.py::a_elements", name="my_a_elements",
          template='''
def my_a_elements(lane):
    """레인 lane 의 A 원소 a_0..a_7 의 (행, 열) 여덟 개 (레지스터 a_r 에 a_2r 이 하위, a_2r+1 이 상위 16비트)."""
    raise NotImplementedError("레지스터 a0..a3 마다 행(g 또는 g+8)과 열(2t 또는 2t+8)을 정하고 이웃한 두 열을 넣으세요")
''')
def check_a(student):
    return check_fragment("10-2", "A", student)


@exercise("10-3", "B 프래그먼트: 레지스터 b0, b1 의 네 원소", "2절",
          hints=("B 는 .col 입니다: 레인 하나의 원소는 모두 같은 열에 있고, 한 레지스터의 두 f16 은 그 열에서 이웃한 두 "
                 "k 입니다. 메모리에서 B 가 행 우선이라는 것과 헷갈리지 마세요.",
                 "위젯에서 행렬 B 와 레인 5 를 고르세요. 그 레인의 원소 네 개는 어느 열에 있고, k 는 몇과 몇인가요?"),
          questions=FRAGMENT_QUESTIONS,
          solution="answers/ch10/ex10_b_fragment.py::b_elements", name="my_b_elements",
          template='''
def my_b_elements(lane):
    """레인 lane 의 B 원소 b_0..b_3 의 (k, n) 네 개 (레지스터 b_r 에 b_2r 이 하위, b_2r+1 이 상위 16비트)."""
    raise NotImplementedError("열 n 과 k 쌍이 groupID·threadID_in_group 중 무엇에서 나오는지 정해 (k, n) 을 계산하세요")
''')
def check_b(student):
    return check_fragment("10-3", "B", student)


# ------------------------------------------------------------------------------- 10-4: ldmatrix row addresses

def _ldsm_received(addr, width, num, trans, lanes):
    """What ldmatrix delivers when lane l gives address addr[l] into a 16 x width tile whose elements are numbered
    r * width + c: per lane, per register, the (row, col) pair of the two halves."""
    rows = [[(r, c + e) for e in range(8)] for r, c in addr[:lanes]]
    return [[(lo, hi) for lo, hi in regs] for regs in mma.ldmatrix_gather(rows, num, trans)]


def _block_of(addrs):
    """'행 r0–r7, 열 c–c+7' for 8 addresses that are consecutive rows at one column, else None."""
    r0, c0 = addrs[0]
    if all(a == (r0 + i, c0) for i, a in enumerate(addrs)):
        return f"행 {r0}–{r0 + 7}, 열 {c0}–{c0 + 7}"
    return None


def _address_pairs(r, k):
    """Both numbers of the k-th address pair of a 10-4 answer, as a list of one (row, col) pair (None if not one)."""
    r = r.tolist() if isinstance(r, np.ndarray) else r
    try:
        return _pairs([r[k]], 1)
    except (TypeError, IndexError, KeyError):
        return None


def check_ldsm(student):
    ex_id = "10-4"
    raw, rec = _answers(student)
    if rec.model_calls:
        return _model_used(ex_id, rec)
    got = []
    for lane in range(WARP):
        v = raw[lane]
        v = v.tolist() if isinstance(v, np.ndarray) else v        # a 2x2 array is two pairs too (review r25 A-1)
        a, b = (_pairs(v, 2) or [None, None]) if isinstance(v, (tuple, list)) and len(v) == 2 else (None, None)
        if a is None:
            return fail(ex_id, "input", f"레인 {lane}: ((A 의 행, 열), (B 의 행, 열)) 을 돌려주세요 (받은 값: {v!r:.80})."
                        + _float_note(v))
        got.append((a, b))
    want = mma.ldmatrix_for_mma()
    A_got, B_got = [g[0] for g in got], [g[1] for g in got]
    details = []

    def blame(k, lanes):
        """The line that made the wrong numbers of tile k's address (0: As, 1: Bs) in those lanes."""
        truth = [(want["A"][l], want["B"][l] if l < 16 else got[l][1]) for l in range(WARP)]
        site = _value_site(student, lanes, truth, lambda r: _address_pairs(r, k))
        return {"where": site, "line": _line(site)}
    for name, addrs, width, lanes in (("As", A_got, 16, 32), ("Bs", B_got, 8, 16)):
        odd = [l for l in range(lanes) if addrs[l][1] % 8]
        if odd:
            l = odd[0]
            return fail(ex_id, "misaligned", f"{name}[{addrs[l][0]}][{addrs[l][1]}] {particle(f'{name}[{addrs[l][0]}][{addrs[l][1]}]', '은/는')} 16바이트 정렬이 아닙니다 "
                        f"({lanes_text(odd)}): ldmatrix 는 레인마다 16바이트(f16 8개) 한 행을 읽으므로 열은 8 의 "
                        "배수여야 합니다 (GPU 에서는 misaligned address 오류). 레인은 원소 하나가 아니라 8×8 행렬의 "
                        "한 행 전체를 가리킵니다.", (w := blame(name == "Bs", odd))["line"], where=w["where"])
        out = [l for l in range(lanes) if not (0 <= addrs[l][0] < 16 and 0 <= addrs[l][1] and addrs[l][1] + 8 <= width)]
        if out:
            l = out[0]
            return fail(ex_id, "out_of_range", f"{name} {particle(name, '은/는')} 16×{width}인데 레인 {l}의 행 주소 {name}[{addrs[l][0]}]"
                        f"[{addrs[l][1]}] 에서 읽는 16바이트(8원소)가 배열 밖으로 나갑니다 ({lanes_text(out)}).",
                        (w := blame(name == "Bs", out))["line"], where=w["where"])
    A_rec = _ldsm_received(A_got, 16, 4, False, 32)
    B_rec = _ldsm_received(B_got, 8, 2, True, 16)
    A_ok = all(A_rec[l][r] == tuple(mma.a_elements(l)[2 * r:2 * r + 2]) for l in range(WARP) for r in range(4))
    B_ok = all(B_rec[l][r] == tuple(mma.b_elements(l)[2 * r:2 * r + 2]) for l in range(WARP) for r in range(2))
    if A_ok and B_ok:
        return passed(ex_id, "ldmatrix.x4 (A) 와 ldmatrix.x2.trans (B) 로 32개 레인이 받는 레지스터가 모두 mma 가 원하는 "
                      "a0..a3, b0, b1 과 같습니다.")
    for x, addrs, num, ok, lanes in (("a", A_got, 4, A_ok, 32), ("b", B_got, 2, B_ok, 16)):
        if ok:
            continue
        exp = want[x.upper()]
        tile = "As" if x == "a" else "Bs"
        wrong = [l for l in range(lanes) if addrs[l] != exp[l]]
        w = blame(x == "b", wrong)
        blocks = [_block_of(addrs[8 * j:8 * j + 8]) for j in range(num)]
        exp_blocks = [_block_of(exp[8 * j:8 * j + 8]) for j in range(num)]
        lines = [f"  {x}{j} (레인 {8 * j}–{8 * j + 7} 의 주소): {exp_blocks[j]} 이어야 하는데 "
                 + (blocks[j] or ", ".join(f"{tile}[{r}][{c}]" for r, c in addrs[8 * j:8 * j + 8]))
                 for j in range(num) if addrs[8 * j:8 * j + 8] != exp[8 * j:8 * j + 8]]
        if all(b in exp_blocks for b in blocks) and sorted(blocks) == sorted(exp_blocks):
            moved = [(j, exp_blocks.index(blocks[j])) for j in range(num) if blocks[j] != exp_blocks[j]]
            swap = " ↔ ".join(f"{x}{j}" for j, _ in moved)
            extra = (" 네 행렬의 순서는 mma 의 a0..a3 과 같습니다: 행렬 0 = 행 0–7, 1 = 행 8–15 (a1), 2 = 열 8–15 쪽 (a2), 3 = "
                     "둘 다. '아래 절반 먼저, 그다음 오른쪽 절반' 입니다." if x == "a" else
                     " b0 은 k 0–7, b1 은 k 8–15 입니다.")
            return fail(ex_id, f"{x}_register_order", f"8×8 행렬 단위로는 맞는 행들을 가리키지만 행렬의 순서가 틀려 "
                        f"레지스터가 서로 바뀝니다: {swap} (두 절반의 교환). 레인 8j..8j+7 의 주소가 레지스터 {x}j 를 채웁니다.{extra}",
                        w["line"], *lines, where=w["where"])
        return fail(ex_id, f"{x}_rows", f"틀린 행을 가리키는 레인: {lanes_text(wrong)}. ldmatrix 에서 레인 8j + r 은 "
                    f"{x}j 가 될 8×8 행렬의 행 r 의 주소를 줍니다 (주소를 주는 레인과 데이터를 받는 레인은 다릅니다; "
                    "cp.async 복사의 레인 배치와도 다릅니다).", w["line"], *lines[:4], where=w["where"])
    return fail(ex_id, "wrong_values", "받는 레지스터가 mma 의 레이아웃과 다릅니다.", *details)


@exercise("10-4", "ldmatrix: 레인마다 주는 행 주소", "3절",
          hints=("ldmatrix 에서는 주소를 주는 레인과 데이터를 받는 레인이 다릅니다: 레인 여덟 개가 8×8 행렬 하나의 행 "
                 "여덟 개 주소를 주고, 행렬 j 는 레지스터 j 가 됩니다. 그러니 먼저 10-2 와 10-3 의 레지스터가 타일의 어느 "
                 "8×8 조각인지 정하세요.",
                 "a1 은 A 타일의 어느 8×8 조각인가요? 그 조각의 행 주소를 주는 레인은 몇 번부터 몇 번인가요? .x2 의 "
                 "b0, b1 은 Bs 의 어느 조각인가요?"),
          questions={
              "misaligned": "레인이 가리키는 것은 원소 하나인가요, 8원소(16 B)짜리 행 하나의 시작인가요? 그 시작 열은 "
                            "8 의 배수인가요?",
              "out_of_range": "그 레인이 가리키는 행에서 8원소를 읽으면 타일 끝을 넘지 않나요?",
              "a_register_order": "행렬 1 과 행렬 2 는 각각 A 타일의 어느 조각이어야 하나요 (10-2 의 a1, a2)? 그 주소를 "
                                  "주는 레인은 누구인가요?",
              "b_register_order": "b0 은 k 의 어느 절반인가요? 레인 0–7 과 8–15 는 각각 어느 행을 가리키나요?",
              "a_rows": "레인 8j + r 이 주는 주소는 행렬 j 의 행 r 입니다. 틀린 레인의 j 와 r 은 각각 얼마인가요?",
              "b_rows": "레인 0–15 가 가리키는 Bs 의 행은 모두 다른가요? 16개 행을 빠짐없이 가리키나요?",
              "uses_model": "이 함수가 부르는 것은 무엇인가요? 레인 번호 하나만으로 계산할 수 있나요?",
              "input": "함수가 ((행, 열), (행, 열)) 두 쌍을 돌려주나요?",
          },
          solution="answers/ch10/ex10_ldmatrix.py::ldsm_rows", name="my_ldsm_rows",
          template='''
def my_ldsm_rows(lane):
    """레인 lane 이 주는 행 주소: (ldmatrix.x4 로 읽는 As[16][16] 의 (행, 열), ldmatrix.x2.trans 로 읽는 Bs[16][8] 의 (행, 열))."""
    raise NotImplementedError("레인 8j + r 은 행렬 j 의 행 r: a0..a3 과 b0, b1 이 타일의 어느 8×8 조각인지부터 정하세요")
''')
def check_ldsm_rows(student):
    return check_ldsm(student)


# ------------------------------------------------------------------------------- 10-5: the K loop of one warp

def tc_tol(A, B, C0, alpha, beta, k_cols=None):
    """(float64 reference, the course's bound for f16 inputs with f32 accumulation: tc.error_bound)."""
    if k_cols is not None:
        A, B = A[:, k_cols], B[k_cols, :]
    return tc.reference(A, B, alpha, beta, C0), tc.error_bound(A, B, alpha, beta, C0, acc="f32", out="f32")


def _a_halves(A):
    """A with a1 and a2 exchanged in every 16x16 tile (block rows 8-15/cols 0-7 <-> rows 0-7/cols 8-15)."""
    M, K = A.shape
    return A.reshape(M // 16, 2, 8, K // 16, 2, 8).transpose(0, 4, 2, 3, 1, 5).reshape(M, K)


def _blockT(X):
    """Every aligned 8x8 block transposed in place (what ldmatrix with / without .trans swaps)."""
    R, C = X.shape
    return X.reshape(R // 8, 8, C // 8, 8).transpose(0, 3, 2, 1).reshape(R, C)


def _b_halves(B):
    """B with k rows 0-7 and 8-15 of every 16-row K step exchanged (b0 <-> b1)."""
    K, N = B.shape
    return B.reshape(K // 16, 2, 8, N)[:, ::-1].reshape(K, N)


FRAGMENT_MISTAKES = (
    ("b_not_transposed", lambda A, B: (A, _blockT(B)),
     "B 프래그먼트가 전치되지 않았습니다: 행 우선 Bs[k][n] 에서 mma 가 원하는 .col B 를 얻으려면 ldmatrix_x2_trans 여야 "
     "합니다 (.trans 없이 읽으면 8×8 조각마다 k 와 n 이 바뀐 B 를 곱합니다)."),
    ("a_halves_swapped", lambda A, B: (_a_halves(A), B),
     "A 프래그먼트의 a1 과 a2 가 바뀌었습니다 (두 절반의 교환): mma 가 16×16 A 타일마다 왼쪽 아래 8×8 과 오른쪽 위 8×8 을 "
     "바꾼 A 를 곱했습니다. ldmatrix_x4 의 주소(레인 0–15 는 열 0 의 행 0–15, 16–31 은 열 8)나 mma 에 넘기는 a 순서를 "
     "보세요 (10-4)."),
    ("a_transposed", lambda A, B: (_blockT(A), B),
     "A 를 .trans 로 읽었습니다: A 는 행 우선 그대로 mma 의 .row 이므로 ldmatrix_x4 (전치 없음) 여야 합니다."),
    ("b_halves_swapped", lambda A, B: (A, _b_halves(B)),
     "b0 과 b1 이 바뀌었습니다: mma 가 K 스텝마다 B 의 k 0–7 과 8–15 를 바꿔 곱했습니다 (b0 = k 0–7, b1 = k 8–15)."),
    ("b_rows", lambda A, B: (A, _low_rows_twice(B)),
     "Bs 의 행 주소가 틀렸습니다: mma 가 K 스텝마다 B 의 k 0–7 을 두 번 곱했습니다 (k 8–15 대신). ldmatrix_x2_trans 에서 "
     "레인 8–15 가 주는 행은 b1 의 행 8–15 입니다 (레인 0–15 가 Bs 의 행 0–15, 10-4 의 B 주소)."),
    ("a_cols", lambda A, B: (_low_cols_twice(A), B),
     "As 의 열 주소가 틀렸습니다: mma 가 16×16 A 타일마다 열 0–7 을 두 번 곱했습니다 (열 8–15 대신: a2, a3 이 a0, a1 과 "
     "같은 8×8 조각). ldmatrix_x4 에서 레인 16–31 이 주는 주소의 열은 8 입니다 (레인 0–15 는 열 0 의 행 0–15, 16–31 은 "
     "열 8 의 행 0–15, 10-4 의 A 주소)."),
    ("half_k", lambda A, B: (_k_half(A, 0), B),
     "K 스텝마다 k 0–7 만 C 에 더해졌습니다 (k 8–15 가 빠짐): mma.m16n8k16 하나는 k 16개를 한 번에 곱합니다. "
     "ptx.mma_m16n8k8_f32 로 나눈다면 스텝마다 두 번 부르세요 (a0, a1, b0 으로 k 0–7, a2, a3, b1 로 k 8–15)."),
    ("half_k", lambda A, B: (_k_half(A, 8), B),
     "K 스텝마다 k 8–15 만 C 에 더해졌습니다 (k 0–7 이 빠짐): mma.m16n8k16 하나는 k 16개를 한 번에 곱합니다. "
     "ptx.mma_m16n8k8_f32 로 나눈다면 스텝마다 두 번 부르세요 (a0, a1, b0 으로 k 0–7, a2, a3, b1 로 k 8–15)."),
    ("a_rows", lambda A, B: (_low_rows_twice(A), B),
     "As 의 행 주소가 틀렸습니다: mma 가 16×16 A 타일마다 행 0–7 을 두 번 곱했습니다 (행 8–15 대신: C 의 아래 8행이 위 "
     "8행과 같은 A 행으로 계산됨). ldmatrix_x4 에서 레인 8–15 와 24–31 이 주는 행은 8–15 입니다 (레인 0–15 는 열 0 의 "
     "행 0–15, 16–31 은 열 8 의 행 0–15, 10-4 의 A 주소)."),
)


def _low_rows_twice(X):
    """X with rows 8-15 of every 16-row block replaced by its rows 0-7 (a row address of lane % 8 instead of lane % 16)."""
    R, C = X.shape
    Y = X.reshape(R // 16, 2, 8, C).copy()
    Y[:, 1] = Y[:, 0]
    return Y.reshape(R, C)


def _low_cols_twice(X):
    """X with columns 8-15 of every 16-column block replaced by its columns 0-7 (an A column address of 0 for every
    lane: a2, a3 read the same 8x8 pieces as a0, a1)."""
    R, C = X.shape
    Y = X.reshape(R, C // 16, 2, 8).copy()
    Y[:, :, 1] = Y[:, :, 0]
    return Y.reshape(R, C)


def _k_half(X, keep):
    """A with only k keep..keep+7 of every 16-wide K step (the other half zero): one m16n8k8 per step of 16."""
    R, C = X.shape
    Y = np.zeros_like(X).reshape(R, C // 16, 2, 8)
    Y[:, :, keep // 8] = X.reshape(R, C // 16, 2, 8)[:, :, keep // 8]
    return Y.reshape(R, C)


def _kloop_launch(kernel, runs, log=None):
    """launch(A, B, C, alpha, beta) on a (N/8) x (M/16) grid of one warp each; every run is kept for the diagnosis,
    with the warp instructions the simulator executed in it (log: warp.recording(); None on a GPU)."""
    def launch(A, B, C, alpha, beta):
        M, N = C.shape
        C0 = C.copy()
        first = len(log) if log is not None else 0
        kernel[(N // 8, M // 16), 32](A, B, C, np.float32(alpha), np.float32(beta))
        runs.append((A, B, C0, C, alpha, beta, log[first:] if log is not None else None))
        return C
    return launch


KLOOP_SHAPES = ((32, 16, 48, 1.0, 0.0), (16, 24, 32, 0.5, 2.0), (16, 8, 16, 1.0, 0.0))     # K steps 3, 2, 1


def _student_line(exc):
    """'16행 `code`' of the deepest frame of the student's code in exc's traceback ('' when none)."""
    hit = None
    for fr in traceback.extract_tb(exc.__traceback__):
        if probe.is_user_file(fr.filename):
            hit = (fr.filename, fr.lineno)
    return probe.line_text(hit)


def _raised(ex_id, code, message, exc, *details):
    """A diagnosis of an error a warp stand-in raised in the student's kernel: the course's message, the simulator's
    English line, and the student's line."""
    site = _student_line(exc)
    text = str(exc)
    text = text.split(": ", 1)[1] if text.startswith("tid=") and ": " in text else text
    english = text.split("\n", 1)[1] if "\n" in text else ""
    res = fail(ex_id, code, message, getattr(exc, "_sgemm_context", None) or "", *details,
               f"  ({english})" if english else "", f"  위치: {site}" if site else "", where=site)
    res.raised = True
    return res


def _k_steps(K):
    return -(-K // 16)


def _technique(ex_id, runs):
    """10-5's technique, from the warp instructions of runs whose values are right: in every block, mma computed the
    whole product A·B of its tile (the sum of the products its mma calls added to C), and ldmatrix read the fragments
    (per K step, the 4 8x8 matrices of A and the 2 of B). None when kept (or on a GPU: the simulator run checks it)."""
    for A, B, C0, C, alpha, beta, log in runs:
        if log is None:
            continue
        M, K = A.shape
        N = C.shape[1]
        steps = _k_steps(K)
        A64, B64 = A.astype(np.float64), B.astype(np.float64)
        for by in range(M // 16):
            for bx in range(N // 8):
                mine = [e for e in log if e.block[:2] == (bx, by)]
                mmas = [e for e in mine if e.name.startswith("mma")]
                ldsm = [e for e in mine if e.name.startswith("ldmatrix")]
                want = A64[16 * by:16 * by + 16] @ B64[:, 8 * bx:8 * bx + 8]
                where = f"블록 ({bx}, {by}) (C 의 타일 행 {16 * by}–{16 * by + 15}, 열 {8 * bx}–{8 * bx + 7})"
                run = f"  (M, N, K) = ({M}, {N}, {K}), K 스텝 {steps}개"
                if not mmas:
                    return technique(ex_id, "no_mma", "Tensor Core 의 mma", f"{where}의 워프가 K 스텝 {steps}개 동안 "
                                     "ptx.mma_m16n8k16_f32 를 한 번도 실행하지 않았습니다: C 를 스칼라 곱셈·덧셈(FMA)으로 "
                                     "계산했습니다. K 스텝마다 ldmatrix 로 읽은 a0..a3, b0, b1 과 지난 스텝의 c0..c3 을 "
                                     "mma 에 넘겨 누적하세요.", run)
                got = sum(e.product for e in mmas)
                scale = np.abs(A64[16 * by:16 * by + 16]) @ np.abs(B64[:, 8 * bx:8 * bx + 8])
                if not np.isfinite(got).all() or (np.abs(got - want) > 1e-9 * scale + 1e-30).any():
                    ks = sum(e.k for e in mmas)
                    return technique(ex_id, "partial_mma", "Tensor Core 의 mma 로 K 전체", f"{where}에서 mma "
                                     f"{len(mmas)}번(K 로 {ks})이 더한 곱 A·B 가 타일의 A·B 와 다릅니다: 곱의 일부를 mma "
                                     f"밖(스칼라 FMA 등)에서 계산했습니다. K 스텝({steps}개)마다 그 스텝의 k 16개 전부를 "
                                     "mma 가 곱해야 합니다.", run,
                                     "  mma 를 실행한 줄: " + ", ".join(sorted({probe.line_text(e.site) for e in mmas})))
                mats = sum(e.matrices for e in ldsm)
                if mats < 6 * steps:
                    per = mats / steps
                    return technique(ex_id, "no_ldmatrix", "ldmatrix", f"{where}의 워프가 K 스텝 {steps}개 동안 "
                                     f"ldmatrix 로 읽은 8×8 행렬이 {mats}개 (스텝마다 {per:.3g}개)입니다: 스텝마다 A 의 "
                                     "16×16 은 ptx.ldmatrix_x4 (행렬 4개), B 의 16×8 은 ptx.ldmatrix_x2_trans (행렬 "
                                     "2개) 로 공유 메모리에서 프래그먼트를 읽으세요.", run)
    return None


def check_kloop_kernel(ex_id, kernel):
    """Run the one-warp kernel on three shapes; on a wrong C, name the fragment mistake whose product matches it; on
    a right C, check (simulator) that the warp computed it with ldmatrix and mma."""
    runs = []
    with simwarp.recording() as log:
        try:
            res = run_shapes(ex_id, _kloop_launch(kernel, runs, log if device.SIMULATOR else None), KLOOP_SHAPES,
                             tile=(16, 8), BK=16, dtype=np.float16, tol=tc_tol,
                             product="ldmatrix 에 주는 행 주소(10-4)와 mma 에 넘기는 a0..a3, b0, b1 의 순서",
                             recomputed="같은 K 스텝에서 mma 를 두 번 불렀는지, 또는 k0 이 스텝마다 16씩 늘어나는지",
                             nan_cause="ldmatrix 가 아직 채우지 않은 공유 메모리를 읽었습니다(시뮬레이터는 공유 메모리를 "
                                       "NaN 으로 채웁니다): copy_tiles 와 ldmatrix 사이의 배리어나 ldmatrix 의 주소를 "
                                       "보세요")
        except simwarp.LdmatrixAddressError as exc:
            korean = str(exc).split("\n", 1)[0].split(": ", 1)[-1]
            return _raised(ex_id, "out_of_bounds", f"ldmatrix 에 준 행 주소가 배열 밖입니다: {korean} 주소는 10-4 의 "
                           "답과 같아야 합니다 (레인 8j + r 이 8×8 행렬 j 의 행 r 시작을 가리킴).", exc)
        except simwarp.MmaOperandError as exc:
            text = str(exc).split("\n", 1)[0]
            text = text.split(": ", 1)[1] if text.startswith("tid=") else text
            return _raised(ex_id, "mma_operands", f"mma 에 넘긴 인자가 맞지 않습니다: {text.split(': ', 1)[-1]}", exc)
    if res.ok:
        found = _technique(ex_id, runs)
        if found:
            return found
        shapes = ", ".join(f"{M}×{N}×{K}" for M, N, K, _, _ in KLOOP_SHAPES)
        return passed(ex_id, f"(M×N×K) = {shapes} (alpha/beta 포함) 에서 float64 기준값과 tc.error_bound (f16 입력, f32 "
                      "누적의 유도된 한계) 안에서 일치합니다" + (" — 경쟁 검출기도 조용하고, K 스텝마다 ldmatrix 로 읽은 "
                      "프래그먼트를 mma 가 곱했습니다." if device.SIMULATOR else
                      "." + gpu_note(" GPU 에는 경쟁 검출기가 없으니 배리어는 SGEMM_DEVICE=sim 으로 한 번 더 확인하세요.")))
    if res.code == "acc_reset":       # the observation; the cause may be a zero C per step or an mma after the loop
        res.message = ("마지막 K 스텝만 C 에 남았습니다: 스텝마다 mma 가 앞 스텝의 결과에 더해지는지 보세요 — mma 가 K "
                       "루프 안에 있는지, 그리고 mma 에 C 로 넘기는 값이 0 이 아니라 지난 스텝의 c0..c3 인지.")
    if res.code == "k_tile_counts":
        res.details[1:1] = _mma_calls(runs)
    if res.code not in ("all_wrong", "wrong_values", "per_thread", "tiles"):
        return res
    for A, B, C0, C, alpha, beta, _ in runs:
        ref, bound = tc_tol(A, B, C0, alpha, beta)
        good = np.isfinite(C) & (np.abs(C - ref) <= bound)
        if good.all():
            continue
        for code, f, msg in FRAGMENT_MISTAKES:
            A2, B2 = f(A, B)
            r2, b2 = tc_tol(A2, B2, C0, alpha, beta)
            if np.isfinite(C).all() and (np.abs(C - r2) <= b2).all():
                M, K = A.shape
                picture = (f"  C 의 원소 {good.size}개가 모두 틀립니다." if not good.any() else heatmap(~good, (16, 8)))
                return fail(ex_id, code, msg, f"  (M, N, K) = ({M}, {C.shape[1]}, {K}): 결과 C 가 그렇게 바뀐 곱과 "
                            "tc.error_bound (f16 입력, f32 누적의 유도된 한계) 안에서 일치합니다.", picture)
        break
    return res


def _mma_calls(runs):
    """Detail lines: how many mma the first block's warp executed per K step of the first failing run, and where."""
    for A, B, C0, C, alpha, beta, log in runs:
        if not log:
            continue
        mmas = [e for e in log if e.name.startswith("mma") and e.block[:2] == (0, 0)]
        steps = _k_steps(A.shape[1])
        lines = sorted({probe.line_text(e.site) for e in mmas})
        return [f"  블록 (0, 0)의 워프는 K 스텝 {steps}개 동안 mma 를 {len(mmas)}번 실행했습니다 (K 로 "
                f"{sum(e.k for e in mmas)}, 맞는 값은 {16 * steps})" + (": " + ", ".join(lines) if lines else ".")]
    return []


@exercise("10-5", "워프 하나의 K 루프: ldmatrix → mma → 누적", "4절",
          hints=("K 스텝마다: 프래그먼트를 공유 메모리에서 레지스터로 읽고(10-4 의 주소, B 는 전치해서), mma 로 지난 "
                 "스텝까지의 합에 더합니다. 다음 스텝의 복사가 공유 메모리를 덮어쓰기 전에 모든 레인이 읽기를 마쳐야 "
                 "합니다.",
                 "mma 에 C 로 넘기는 네 값은 무엇인가요: 0 인가요, 지난 스텝의 결과인가요? 루프의 마지막에 무엇을 "
                 "기다려야 다음 copy_tiles 가 안전한가요?"),
          questions={
              "race": "검출기가 가리킨 두 줄 사이에 배리어가 있나요? 다음 반복의 copy_tiles 를 생각해 보세요.",
              "acc_reset": "mma 는 K 루프 안에서 스텝마다 불리나요? mma 에 C 로 넘기는 값은 지난 스텝의 c0..c3 인가요?",
              "b_not_transposed": "Bs 를 읽는 ldmatrix 는 전치(.trans)하나요? mma 는 B 를 어떤 방향으로 받나요?",
              "a_transposed": "As 를 읽는 ldmatrix 에 .trans 가 붙어 있나요? A 는 이미 mma 가 원하는 방향인가요?",
              "a_halves_swapped": "ldmatrix_x4 가 돌려주는 네 값의 순서와 mma 에 넘기는 a0..a3 의 순서가 같나요? 주소는 "
                                  "10-4 의 것인가요?",
              "b_halves_swapped": "b0 과 b1 을 mma 에 넘기는 순서가 맞나요?",
              "b_rows": "ldmatrix_x2_trans 에서 레인 8–15 가 주는 Bs 의 행은 몇 번인가요? (10-4)",
              "a_rows": "ldmatrix_x4 에서 레인 8–15 와 24–31 이 주는 As 의 행은 몇 번인가요? (10-4)",
              "all_wrong": "ldmatrix 에 주는 주소가 10-4 의 답과 같나요? mma 에 넘기는 인자의 순서를 보세요.",
              "nan": "ldmatrix 가 읽는 As, Bs 는 그 전에 모든 레인이 채웠나요? 배리어가 그 사이에 있나요?",
              "misaligned": "ldmatrix 의 주소 열은 8 의 배수인가요?",
              "a_cols": "ldmatrix_x4 에서 레인 16–31 이 주는 As 의 열은 몇인가요? a2, a3 은 A 타일의 어느 쪽 절반인가요? "
                        "(10-4)",
              "half_k": "K 스텝 하나의 k 16개 가운데 몇 개를 mma 가 곱하나요? 여러분이 부른 mma 의 K 는 얼마인가요?",
              "k_tile_counts": "K 스텝 하나에서 mma 는 몇 번 불리나요? 같은 a, b 로 두 번 부르지는 않나요?",
              "out_of_bounds": "배열 밖을 가리킨 레인의 행 주소를 10-4 의 답과 비교해 보세요. 그 레인이 주는 열에 8 원소를 "
                               "더하면 As 의 폭 16 을 넘지 않나요?",
              "mma_operands": "ptx.mma_m16n8k16_f32 는 인자를 몇 개 받나요? ldmatrix 가 돌려준 튜플을 그대로 넘기지는 "
                              "않았나요? C 로 넘길 값은 무엇인가요?",
              "no_mma": "여러분의 K 루프에서 곱셈은 어느 명령이 하나요? ldmatrix 로 읽은 프래그먼트를 넘길 명령은 "
                        "무엇인가요?",
              "partial_mma": "K 스텝 하나의 k 16개가 모두 mma 를 거치나요, 일부를 다른 계산으로 더하나요?",
              "no_ldmatrix": "As 와 Bs 의 프래그먼트를 레지스터로 읽는 명령은 무엇인가요? 스텝마다 A 는 8×8 행렬 몇 개, "
                             "B 는 몇 개인가요?",
          },
          solution="answers/ch10/ex10_kloop.py::kloop", name="my_kloop",
          preamble='''
import course  # 먼저: 장치(GPU/시뮬레이터)는 numba 를 import 하기 전에 정해집니다
from numba import cuda, float32
from numba.types import float16
from kernels_numba.infra import ptx
from kernels_numba.common import copy_tiles, store_fragment
''', template='''
@cuda.jit
def my_kloop(A, B, C, alpha, beta):
    """워프 하나가 C 의 16×8 타일 하나: K 를 16씩 공유 메모리로 복사하고, 프래그먼트를 읽어 mma 로 누적 (f16 입력, f32 누적)."""
    As = cuda.shared.array((16, 16), float16, alignment=16)
    Bs = cuda.shared.array((16, 8), float16, alignment=16)
    lane, tile_m, tile_n = cuda.threadIdx.x, cuda.blockIdx.y * 16, cuda.blockIdx.x * 8
    c0 = c1 = c2 = c3 = float32(0.0)
    for k0 in range(0, A.shape[1], 16):
        copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)   # 레인마다 A 8개, B 4개를 As, Bs 로
        cuda.syncthreads()                                    # ldmatrix 는 다른 레인이 복사한 행을 읽습니다
        raise NotImplementedError("ptx.ldmatrix_x4 / ptx.ldmatrix_x2_trans 로 프래그먼트, ptx.mma_m16n8k16_f32 로 누적, 그리고 배리어")
    store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta)
''')
def check_kloop(student):
    return check_kloop_kernel("10-5", student)


EXERCISES["10-5"].min_cc = (8, 0)        # mma.m16n8k16: a CC 7.5 GPU checks it on the simulator only
