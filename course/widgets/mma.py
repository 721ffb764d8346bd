"""Fragment-layout views of mma.m16n8k16 and ldmatrix over sim/mma.py: pick a lane or an element, see the other side."""
import html
import numbers

import ipywidgets as W

from course.widgets import live
from course.widgets.controls import fit, row
from kernels_numba.infra.errors import CourseInputError
from sim import mma
from sim.korean import josa

MATRICES = (("A (16×16, row)", "A"), ("B (16×8, col)", "B"), ("C/D (16×8)", "C"))
SEL, SAME_LANE, OTHER = "#f28e2b", "#ffd8a8", "#f4f4f4"
ADDR, UNUSED = "#a0cbe8", "#ffffff"         # ldmatrix: the picked element's row and its address lane; ignored lanes
TD = "border:1px solid #ccc;padding:1px 3px;text-align:center"


def _td(text, color, attr=""):
    return f"<td {attr}style='background:{color};{TD}'>{text}</td>"


def table_html(matrix, lane, element=None):
    """HTML grid of one fragment matrix: every cell shows its lane; the chosen lane's cells are highlighted."""
    rows, cols = mma.SHAPES[matrix]
    owners = mma.lane_map(matrix)
    mine = mma.ELEMENTS[matrix](lane)
    head = "".join(f"<th style='padding:1px 3px'>{c}</th>" for c in range(cols))
    out = [f"<table style='border-collapse:collapse;font-size:11px'><tr><th></th>{head}</tr>"]
    for r in range(rows):
        cells = []
        for c in range(cols):
            color = SEL if element == (r, c) else SAME_LANE if (r, c) in mine else OTHER
            idx = f"<sub>{_short(matrix, mine.index((r, c)))}</sub>" if (r, c) in mine else ""
            cells.append(_td(f"{owners[r][c]}{idx}", color))
        out.append(f"<tr><th style='padding:1px 3px'>{r}</th>{''.join(cells)}</tr>")
    return "".join(out) + "</table>"


def _short(matrix, i):
    """The grid's label of element i: 'c3', 'a3.lo' (low half of register a3), 'b1.hi'."""
    reg, half = mma.register_of(matrix, i)
    return reg if half is None else f"{reg}.{('lo', 'hi')[half]}"


def describe(matrix, lane):
    """Korean line: which elements the lane holds, register by register (a register of A/B holds two f16)."""
    els = mma.ELEMENTS[matrix](lane)
    g, t = mma.group(lane)
    parts = {}
    for i, rc in enumerate(els):
        reg, half = mma.register_of(matrix, i)
        parts.setdefault(reg, []).append(f"{rc}" + ("" if half is None else f" {mma.HALF_KO[half]}"))
    regs = "; ".join(f"{reg} = {', '.join(v)}" for reg, v in parts.items())
    return f"레인 {lane} (groupID={g}, threadID_in_group={t}) 가 가진 {matrix} 원소 (행, 열): {regs}"


class FragmentView(live.LiveView):
    """Controls: matrix, lane, element (row, col). Setting the lane highlights its elements; setting an element
    moves the lane to the element's owner. `.selected` = (lane, element index) of the last pick."""
    NAME_KO, NAME_EN = "mma 프래그먼트(fragment) 배치", "mma fragment view"

    def __init__(self, matrix="A", lane=0):
        style = {"description_width": "initial"}
        self.matrix = W.ToggleButtons(options=MATRICES, value=matrix, description="행렬", style=style)
        self.lane = fit(W.IntSlider(value=lane, min=0, max=31, description="레인(lane)"), 320)
        self.row = fit(W.IntSlider(value=0, min=0, max=15, description="원소 행"), 200)
        self.col = fit(W.IntSlider(value=0, min=0, max=15, description="원소 열"), 200)
        self.info = W.HTML()
        self.grid = W.HTML()
        legend = W.HTML("<small>칸의 숫자: 그 원소를 가진 레인 · 아래 첨자: 고른 레인의 레지스터 (A/B 는 .b32 레지스터 하나에 "
                        "f16 두 개: .lo = 아래 절반(비트 0–15), .hi = 위 절반(비트 16–31))</small>")
        self.widget = live.mark(W.VBox([self.matrix, self.lane, row([self.row, self.col]), self.info, legend,
                                        self.grid]))
        self.widget.add_class("sgemm-fragment")
        self.element = None
        self._busy = False
        self.matrix.observe(self._on_matrix, names="value")
        self.lane.observe(lambda ch: self._show(), names="value")
        self.row.observe(self._on_element, names="value")
        self.col.observe(self._on_element, names="value")
        self._on_matrix()

    def _on_matrix(self, change=None):
        rows, cols = mma.SHAPES[self.matrix.value]
        self._busy = True
        self.row.max, self.col.max = rows - 1, cols - 1
        self._busy = False
        self.element = None
        self._show()

    def _on_element(self, change=None):
        if self._busy:
            return
        self.element = (self.row.value, self.col.value)
        lane, _ = mma.owner(self.matrix.value, *self.element)
        if self.lane.value != lane:
            self.lane.value = lane            # triggers _show
        else:
            self._show()

    @property
    def selected(self):
        if self.element is None:
            return self.lane.value, None
        return mma.owner(self.matrix.value, *self.element)

    def _show(self):
        m, lane = self.matrix.value, self.lane.value
        extra = ""
        if self.element is not None and self.element in mma.ELEMENTS[m](lane):
            _, i = mma.owner(m, *self.element)
            extra = f"<br>원소 {self.element} → 레인 {lane} 의 {mma.element_name(m, i)}"
        self.info.value = html.escape(describe(m, lane)) + extra
        self.grid.value = table_html(m, lane, self.element)


def _check_lane(lane):
    if isinstance(lane, bool) or not isinstance(lane, numbers.Integral) or not 0 <= lane < mma.WARP:
        raise CourseInputError(f"레인 {josa(repr(lane), '은/는')} 없습니다.", f"There is no lane {lane!r}.",
                               "0 부터 31 까지의 정수를 주세요.", "Give an integer from 0 to 31.")


def fragment_view(matrix="A", lane=0):
    if matrix not in mma.SHAPES:
        raise CourseInputError(f"행렬 {josa(repr(matrix), '은/는')} 없습니다.", f"There is no matrix {matrix!r}.",
                               "'A', 'B', 'C' 중 하나를 주세요.", "Give one of 'A', 'B', 'C'.")
    _check_lane(lane)
    return FragmentView(matrix, int(lane))


# ---------------------------------------------------------------------------------------------------- ldmatrix

VARIANTS = ((".x1", 1), (".x2", 2), (".x4", 4))
HALF = ("lo", "hi")


def address_html(num, lane, address_lane=None):
    """HTML grid of the 32 lanes (rows of 8): the matrix row each lane's address supplies; chosen lane orange,
    the picked element's address lane blue, lanes whose address ldmatrix.x{num} ignores white."""
    rows = mma.ldmatrix_address_lanes(num)
    head = "".join(f"<th style='padding:1px 3px'>+{i}</th>" for i in range(8))
    out = [f"<table style='border-collapse:collapse;font-size:11px'><tr><th></th>{head}</tr>"]
    for g in range(4):
        label = f"레인 {8 * g}–{8 * g + 7} → 행렬 {g}" if g < num else f"레인 {8 * g}–{8 * g + 7} (안 씀)"
        cells = []
        for L in range(8 * g, 8 * g + 8):
            color = ADDR if L == address_lane else SAME_LANE if L == lane else UNUSED if rows[L] is None else OTHER
            text = f"{L}<br>행 {rows[L][1]}" if rows[L] else f"<span style='color:#aaa'>{L}</span>"
            cells.append(_td(text, color, f"data-lane='{L}' "))
        out.append(f"<tr><th style='padding:1px 3px'>{label}</th>{''.join(cells)}</tr>")
    return "".join(out) + "</table>"


def matrices_html(num, trans, lane, element=None):
    """HTML of the num stored 8x8 matrices: each cell shows the lane that receives it; the chosen lane's cells (with
    register and half) and the row its address supplies are orange, the picked element dark orange, its row blue."""
    owners = mma.ldmatrix_lane_map(num, trans)
    supplied = mma.ldmatrix_address_lanes(num)[lane]
    tables = []
    for j in range(num):
        head = "".join(f"<th style='padding:1px 3px'>{c}</th>" for c in range(8))
        out = [f"<table style='border-collapse:collapse;font-size:11px'><caption>행렬 {j}</caption>"
               f"<tr><th>행 ← 레인</th>{head}</tr>"]
        for r in range(8):
            hcolor = ADDR if element is not None and element[:2] == (j, r) else \
                SAME_LANE if supplied == (j, r) else "transparent"
            cells = []
            for c in range(8):
                L, reg, h = owners[j][r][c]
                color = SEL if element == (j, r, c) else SAME_LANE if L == lane else OTHER
                sub = f"<sub>r{reg}.{HALF[h]}</sub>" if L == lane else ""
                cells.append(_td(f"{L}{sub}", color, f"data-e='{j},{r},{c}' "))
            out.append(f"<tr><th data-row='{j},{r}' style='background:{hcolor};padding:1px 3px'>"
                       f"{r} ← {mma.ldmatrix_address_lane(num, j, r)}</th>{''.join(cells)}</tr>")
        tables.append("".join(out) + "</table>")
    return "<div style='display:flex;gap:12px;flex-wrap:wrap'>" + "".join(tables) + "</div>"


def describe_ldmatrix(lane, num, trans=False):
    """Korean lines: the row whose address the lane gives, and the stored elements each of its registers receives."""
    name = f"ldmatrix.x{num}" + (".trans" if trans else "")
    supplied = mma.ldmatrix_address_lanes(num)[lane]
    addr = (f"행렬 {supplied[0]} 의 행 {supplied[1]}" if supplied
            else f"쓰이지 않음 ({name}: 레인 0–{8 * num - 1} 의 주소만 씀)")
    regs = "; ".join(f"r{k} = 행렬 {h[0][0]} 의 ({h[0][1]}, {h[0][2]}), ({h[1][1]}, {h[1][2]})"
                     for k, h in enumerate(mma.ldmatrix_elements(lane, num, trans)))
    return f"{name} 레인 {lane} — 주는 주소: {addr}. 받는 레지스터 (저장된 행, 열): {regs}"


class LdmatrixView(live.LiveView):
    """Controls: variant (.x1/.x2/.x4), .trans, lane, stored element (matrix, row, col). Setting the lane shows the row
    it addresses and the elements it receives; setting an element moves the lane to its receiver and marks the lane
    that gave its row's address. `.selected` = (lane, register, half) of the last pick; `.address_lane` its row's lane."""
    NAME_KO, NAME_EN = "ldmatrix 보기", "ldmatrix view"

    def __init__(self, num=4, trans=False, lane=0):
        style = {"description_width": "initial"}
        self.variant = W.ToggleButtons(options=VARIANTS, value=num, description="ldmatrix", style=style)
        self.trans = W.Checkbox(value=trans, description=".trans (전치)", style=style)
        self.lane = fit(W.IntSlider(value=lane, min=0, max=31, description="레인(lane)"), 320)
        self.mat = fit(W.IntSlider(value=0, min=0, max=num - 1, description="원소 행렬 j"), 120)
        self.row = fit(W.IntSlider(value=0, min=0, max=7, description="원소 행"), 160)
        self.col = fit(W.IntSlider(value=0, min=0, max=7, description="원소 열"), 160)
        self.info, self.addresses, self.grid = W.HTML(), W.HTML(), W.HTML()
        legend = W.HTML("<small>주황: 고른 레인이 받는 원소와 그 레인이 주소를 준 행 · 진한 주황: 고른 원소 · "
                        "파랑: 고른 원소의 행과 그 행 주소를 준 레인 · 칸의 숫자: 그 원소를 받는 레인</small>")
        self.widget = live.mark(W.VBox([W.HBox([self.variant, self.trans]), self.lane,
                                        row([self.mat, self.row, self.col]), self.info, legend, self.addresses,
                                        self.grid]))
        self.widget.add_class("sgemm-ldmatrix")
        self.element = None
        self._busy = False
        self.variant.observe(self._on_variant, names="value")
        self.trans.observe(self._on_trans, names="value")
        self.lane.observe(lambda ch: self._show(), names="value")
        for w in (self.mat, self.row, self.col):
            w.observe(self._on_element, names="value")
        self._show()

    def _on_variant(self, change=None):
        self._busy = True
        self.mat.max = self.variant.value - 1
        self._busy = False
        self.element = None
        self._show()

    def _on_trans(self, change=None):
        if self.element is None:
            self._show()
        else:
            self._on_element()                # the same stored element now goes to another lane

    def _on_element(self, change=None):
        if self._busy:
            return
        self.element = (self.mat.value, self.row.value, self.col.value)
        lane = self.selected[0]
        if self.lane.value != lane:
            self.lane.value = lane            # triggers _show
        else:
            self._show()

    @property
    def selected(self):
        if self.element is None:
            return self.lane.value, None, None
        (hit,) = mma.ldmatrix_receivers(self.variant.value, *self.element, self.trans.value)
        return hit

    @property
    def address_lane(self):
        return None if self.element is None else mma.ldmatrix_address_lane(self.variant.value, *self.element[:2])

    def _show(self):
        num, trans, lane = self.variant.value, self.trans.value, self.lane.value
        extra = ""
        if self.element is not None:
            L, reg, h = self.selected
            j, r, c = self.element
            extra = (f"<br>원소 (행렬 {j}, 행 {r}, 열 {c}) — 행 주소를 준 레인: {self.address_lane}, "
                     f"받는 곳: 레인 {L} 의 r{reg} 의 {mma.HALF_KO[h]}")
        self.info.value = html.escape(describe_ldmatrix(lane, num, trans)) + extra
        self.addresses.value = address_html(num, lane, self.address_lane)
        self.grid.value = matrices_html(num, trans, lane, self.element)


def ldmatrix_view(num=4, trans=False, lane=0):
    if isinstance(num, bool) or num not in (1, 2, 4):
        raise CourseInputError(f"ldmatrix 에 {josa(f'.x{num}', '은/는')} 없습니다.", f"ldmatrix has no .x{num}.",
                               "num 은 1, 2, 4 중 하나입니다 (.x1/.x2/.x4).", "num is 1, 2 or 4 (.x1/.x2/.x4).")
    if not isinstance(trans, bool):
        raise CourseInputError(f"trans 는 True/False 여야 합니다 ({trans!r}).", f"trans must be True/False, not {trans!r}.")
    _check_lane(lane)
    return LdmatrixView(int(num), trans, int(lane))
