"""Fragment-layout view of mma.m16n8k16 and ldmatrix over sim/mma.py: pick a lane or an element, see the other side."""
import html

import ipywidgets as W

from sim import mma

MATRICES = (("A (16×16, row)", "A"), ("B (16×8, col)", "B"), ("C/D (16×8)", "C"))
SEL, SAME_LANE, OTHER = "#f28e2b", "#ffd8a8", "#f4f4f4"


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
            idx = f"<sub>{mine.index((r, c))}</sub>" if (r, c) in mine else ""
            cells.append(f"<td style='background:{color};border:1px solid #ccc;padding:1px 3px;text-align:center'>"
                         f"{owners[r][c]}{idx}</td>")
        out.append(f"<tr><th style='padding:1px 3px'>{r}</th>{''.join(cells)}</tr>")
    return "".join(out) + "</table>"


def describe(matrix, lane):
    """Korean line: which elements the lane holds, register by register."""
    els = mma.ELEMENTS[matrix](lane)
    g, t = mma.group(lane)
    name = {"A": "a", "B": "b", "C": "c"}[matrix]
    per_reg = 1 if matrix == "C" else 2
    regs = [els[i:i + per_reg] for i in range(0, len(els), per_reg)]
    parts = [f"{name}{k}={', '.join(map(str, r))}" for k, r in enumerate(regs)]
    return (f"레인 {lane} (groupID={g}, threadID_in_group={t}) 가 가진 {matrix} 원소 (행, 열): " + "; ".join(parts))


class FragmentView:
    """Controls: matrix, lane, element (row, col). Setting the lane highlights its elements; setting an element
    moves the lane to the element's owner. `.selected` = (lane, element index) of the last pick."""

    def __init__(self, matrix="A", lane=0):
        style = {"description_width": "initial"}
        self.matrix = W.ToggleButtons(options=MATRICES, value=matrix, description="행렬", style=style)
        self.lane = W.IntSlider(value=lane, min=0, max=31, description="레인(lane)", style=style)
        self.row = W.IntSlider(value=0, min=0, max=15, description="원소 행", style=style)
        self.col = W.IntSlider(value=0, min=0, max=15, description="원소 열", style=style)
        self.info = W.HTML()
        self.grid = W.HTML()
        self.widget = W.VBox([self.matrix, self.lane, W.HBox([self.row, self.col]), self.info, self.grid])
        self.element = None
        self._busy = False
        self.matrix.observe(self._on_matrix, names="value")
        self.lane.observe(lambda ch: self._show(), names="value")
        self.row.observe(self._on_element, names="value")
        self.col.observe(self._on_element, names="value")
        self._on_matrix()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

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
            extra = f"<br>원소 {self.element} → 레인 {lane} 의 {i}번째 원소"
        self.info.value = html.escape(describe(m, lane)) + extra
        self.grid.value = table_html(m, lane, self.element)


def fragment_view(matrix="A", lane=0):
    return FragmentView(matrix, lane)
