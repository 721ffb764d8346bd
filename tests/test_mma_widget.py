"""Fragment-layout widget over sim.mma, driven headless through .value."""
from course.widgets.mma import FragmentView, describe, fragment_view, table_html
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
    assert "3번째 원소" in v.info.value


def test_matrix_switch_limits_sliders():
    v = fragment_view()
    v.matrix.value = "B"
    assert (v.row.max, v.col.max) == (15, 7)
    v.row.value, v.col.value = 9, 2
    assert v.selected == mma.owner("B", 9, 2)
    assert describe("B", v.lane.value).count("b") >= 2


def test_table_has_every_cell():
    assert table_html("C", 0).count("<td") == 128 and table_html("A", 3).count("<td") == 256
