"""Bank-conflict explorer: controls recompute the model and redraw, headless."""
import base64

import matplotlib

matplotlib.use("Agg", force=True)

import ipywidgets as W  # noqa: E402
import pytest  # noqa: E402

from course.widgets.banks import ACCESSES, EXERCISE, BankConflictExplorer, bank_explorer  # noqa: E402

STORE_AS = "As[ty][tx] 쓰기 (06 협력 로드)"
RB_B = "rB: Bs[k][8·tx+n] 읽기 (07 regblock, Bs[8][128])"
RB_A = "rA: As[8·ty+m][k] 읽기 (07 regblock, As[128][8])"


@pytest.fixture
def ex():
    return BankConflictExplorer()


def png(ex):
    """Bytes of the bank map currently shown."""
    (out,) = ex.plot.outputs
    return base64.b64decode(out["data"]["image/png"])


def test_controls_and_container(ex):
    c = ex.controls
    assert set(c) == {"padding", "column", "access", "warp", "offset"}
    assert (c["padding"].min, c["padding"].max, c["padding"].value) == (0, 4, 0)
    assert (c["column"].min, c["column"].max) == (0, 15)
    assert (c["warp"].min, c["warp"].max) == (0, 7)
    assert list(c["access"].options) == list(ACCESSES) and len(ACCESSES) == 7
    assert isinstance(ex.widget, W.Box) and isinstance(ex.counts, W.HTML)
    assert isinstance(ex.plot, W.Output)
    assert png(ex).startswith(b"\x89PNG")
    assert bank_explorer(padding=2).controls["padding"].value == 2


def test_padding_makes_the_tile_store_two_way(ex, capsys):
    c = ex.controls
    c["access"].value = STORE_AS
    c["warp"].value = 0
    c["padding"].value = 1
    assert ex.report.wavefronts == 2 and ex.report.conflict_degree == 2
    assert "웨이브프론트 2" in ex.counts.value and "2-way" in ex.counts.value
    before = png(ex)
    c["padding"].value = 0
    assert ex.report.wavefronts == 1 and "충돌 없음" in ex.counts.value
    assert png(ex) != before
    assert capsys.readouterr() == ("", "")       # callbacks never print


def test_textbook_exercise(ex):
    c = ex.controls
    c["access"].value = EXERCISE
    c["column"].value = 5
    c["padding"].value = 0
    assert ex.report.wavefronts == 8 and "8-way" in ex.counts.value
    assert sorted(ex.report.per_bank) == [5, 21]
    assert c["warp"].disabled
    c["padding"].value = 1
    assert ex.report.wavefronts == 1 and len(ex.report.per_bank) == 16


def test_real_warp_reads_broadcast():
    ex = bank_explorer(access="As[ty][k] 읽기 (06 tiled 내적)")
    c = ex.controls
    for warp in range(8):
        c["warp"].value = warp
        assert ex.report.wavefronts == 1 and ex.report.distinct_words == 2 and ex.report.broadcasts == 30
        assert ex.report.lanes == list(range(32 * warp, 32 * warp + 32))
    c["access"].value = "Bs[k][tx] 읽기 (06 tiled 내적)"
    assert ex.report.distinct_words == 16 and ex.report.wavefronts == 1
    assert not c["warp"].disabled


def test_regblock_rb_conflict_is_four_way_whatever_the_padding(ex):
    """Notebook 07 §4.7: rB = Bs[k][8*tx + n] puts tx, tx+4, tx+8, tx+12 on one bank; row padding cannot split them,
    while padding does split rA's two rows (2-way without it)."""
    c = ex.controls
    c["access"].value = RB_B
    assert c["column"].max == 7 and not c["offset"].disabled
    for pad in (0, 1):
        c["padding"].value = pad
        assert ex.report.wavefronts == 4 and ex.report.conflict_degree == 4
    c["access"].value = RB_A
    c["padding"].value = 0
    assert ex.report.wavefronts == 2
    c["padding"].value = 1
    assert ex.report.wavefronts == 1
    c["access"].value = STORE_AS
    assert c["offset"].disabled and c["column"].max == 15
