"""Fragment-layout and ldmatrix widgets over sim.mma, driven headless through .value."""
import re

import pytest

from course.widgets import mma as view
from course.widgets.mma import (FragmentView, LdmatrixView, describe, describe_ldmatrix, fragment_view, ldmatrix_view,
                                table_html)
from sim import mma


def test_lane_highlights_its_elements():
    v = fragment_view("A", 0)
    assert isinstance(v, FragmentView)
    assert "레인 0" in v.info.value and "(8, 9)" in v.info.value
    assert v.grid.value.count("#ffd8a8") == 8           # 8 elements of A per lane
    v.lane.value = 5
    assert "레인 5" in v.info.value and "(1, 2)" in v.info.value


def test_element_moves_to_its_owner():
    v = fragment_view("C", 0)
    v.row.value, v.col.value = 15, 7
    assert v.lane.value == 31 and v.selected == (31, 3)
    assert "레인 31 의 c3" in v.info.value and "번째" not in v.info.value     # the register, not an ordinal count
    assert "<sub>c3</sub>" in v.grid.value


def test_elements_are_named_by_register_and_half():
    """A holds two f16 per .b32 register, low half first: element a_6 is the low half of a3, never '6번째'."""
    assert [mma.element_name("A", i) for i in (0, 1, 6, 7)] == ["a0 의 아래 절반", "a0 의 위 절반", "a3 의 아래 절반",
                                                              "a3 의 위 절반"]
    assert [mma.element_name("B", i) for i in range(4)][2] == "b1 의 아래 절반" and mma.element_name("C", 3) == "c3"
    v = fragment_view("A", 0)
    lane, i = mma.owner("A", 8, 8)                       # a_6 of lane 0: row g + 8, column 2t + 8
    assert (lane, i) == (0, 6)
    v.row.value, v.col.value = 8, 8
    assert "레인 0 의 a3 의 아래 절반" in v.info.value and "번째" not in v.info.value
    assert "a3 = (8, 8) 아래 절반, (8, 9) 위 절반" in v.info.value
    with pytest.raises(ValueError):
        mma.register_of("C", 4)


def test_matrix_switch_limits_sliders():
    v = fragment_view()
    v.matrix.value = "B"
    assert (v.row.max, v.col.max) == (15, 7)
    v.row.value, v.col.value = 9, 2
    assert v.selected == mma.owner("B", 9, 2)
    assert describe("B", v.lane.value).count("b") >= 2


def test_table_has_every_cell():
    assert table_html("C", 0).count("<td") == 128 and table_html("A", 3).count("<td") == 256


# ------------------------------------------------------------------------------------------------- ldmatrix view

def _colors(html_text, attr):
    """{cell key: background} of the cells carrying data-<attr> in a rendered grid."""
    return {k: c for k, c in re.findall(rf"data-{attr}='([\d,]+)' style='background:([#\w]+)", html_text)}


def _elements(v, color):
    return {tuple(map(int, k.split(","))) for k, c in _colors(v.grid.value, "e").items() if c == color}


def test_ldmatrix_lane_shows_its_address_row_and_elements():
    v = ldmatrix_view(4, False, 13)
    assert isinstance(v, LdmatrixView)
    # x4: lane 13 gives the address of row 5 of matrix 1, and only that row header is marked as its address
    assert mma.ldmatrix_address_lanes(4)[13] == (1, 5)
    rows = _colors(v.grid.value, "row")
    assert [k for k, c in rows.items() if c == view.SAME_LANE] == ["1,5"]
    assert "행렬 1 의 행 5" in v.info.value
    assert _colors(v.addresses.value, "lane")["13"] == view.SAME_LANE
    # it receives row 13 // 4 = 3, columns 2-3 of each matrix
    want = {e for reg in mma.ldmatrix_elements(13, 4) for e in reg}
    assert _elements(v, view.SAME_LANE) == want == {(j, 3, c) for j in range(4) for c in (2, 3)}


def test_ldmatrix_trans_swaps_rows_and_columns():
    v = ldmatrix_view(4, False, 5)
    plain = _elements(v, view.SAME_LANE)
    assert plain == {(j, 1, c) for j in range(4) for c in (2, 3)}         # row 1, columns 2-3 of each matrix
    v.trans.value = True
    assert _elements(v, view.SAME_LANE) == {(j, c, r) for j, r, c in plain} == \
        {e for reg in mma.ldmatrix_elements(5, 4, True) for e in reg}
    assert "r0 = 행렬 0 의 (2, 1), (3, 1)" in v.info.value and v.info.value.startswith("ldmatrix.x4.trans")


def test_ldmatrix_element_moves_lane_to_receiver_and_marks_address_lane():
    v = ldmatrix_view(4)
    v.mat.value, v.row.value, v.col.value = 1, 5, 2
    assert v.selected == mma.ldmatrix_receivers(4, 1, 5, 2)[0] == (21, 1, 0)
    assert v.lane.value == 21 and v.address_lane == 13
    assert _elements(v, view.SEL) == {(1, 5, 2)}
    lanes = _colors(v.addresses.value, "lane")
    assert lanes["13"] == view.ADDR and lanes["21"] == view.SAME_LANE
    assert _colors(v.grid.value, "row")["1,5"] == view.ADDR
    assert "레인 21 의 r1 의 아래 절반" in v.info.value
    v.trans.value = True                      # the same stored element now lands in another lane
    assert v.selected == mma.ldmatrix_receivers(4, 1, 5, 2, True)[0] == (10, 1, 1)
    assert v.lane.value == 10 and v.address_lane == 13


@pytest.mark.parametrize("num", [1, 2])
def test_ldmatrix_variant_limits_matrices_and_marks_ignored_lanes(num):
    v = ldmatrix_view(4)
    v.mat.value = 3
    v.variant.value = num
    assert v.mat.max == num - 1 and v.element is None
    assert v.grid.value.count("<caption>") == num and v.grid.value.count("<td") == 64 * num
    lanes = _colors(v.addresses.value, "lane")
    ignored = {int(k) for k, c in lanes.items() if c == view.UNUSED}
    assert ignored == {L for L, a in enumerate(mma.ldmatrix_address_lanes(num)) if a is None} == set(range(8 * num, 32))
    v.lane.value = 20
    assert "쓰이지 않음" in v.info.value
    assert {k for k, c in _colors(v.grid.value, "row").items() if c == view.SAME_LANE} == set()


def test_ldmatrix_every_cell_names_its_receiver():
    """Each matrix cell's number is the lane the model says receives it; each row header names its address lane."""
    v = ldmatrix_view(2, True, 0)
    owners = mma.ldmatrix_lane_map(2, True)
    cells = re.findall(r"data-e='(\d),(\d),(\d)' style='[^']*'>(\d+)", v.grid.value)
    assert len(cells) == 128
    assert all(owners[int(j)][int(r)][int(c)][0] == int(L) for j, r, c, L in cells)
    heads = re.findall(r"data-row='(\d),(\d)' style='[^']*'>(\d) ← (\d+)", v.grid.value)
    assert all(int(r) == int(rr) and mma.ldmatrix_address_lane(2, int(j), int(r)) == int(L) for j, r, rr, L in heads)
    j, r, c = mma.ldmatrix_elements(0, 2, True)[1][1]
    assert f"r1 = 행렬 1 의 (0, 0), ({r}, {c})" in describe_ldmatrix(0, 2, True) and (j, r, c) == (1, 1, 0)


@pytest.mark.parametrize("call", [lambda: ldmatrix_view(3), lambda: ldmatrix_view(4, "yes"), lambda: ldmatrix_view(lane=32),
                                  lambda: fragment_view("D"), lambda: fragment_view("A", -1)])
def test_bad_arguments_get_a_clear_error(call):
    from kernels_numba.infra.errors import CourseInputError
    with pytest.raises(CourseInputError, match="입력 오류"):
        call()
