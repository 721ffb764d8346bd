"""Issue 27: prose about compiler output is computed from the output the notebook just printed, or states what holds
for every compiler. Each check compiles with the course's toolchain (the kernel x target matrix's,
kernels_numba/infra/targets.json; skipped where the installed compiler packages differ, saying why), takes the cell's
own data and checks the sentence the cell prints against it; then it feeds the same function the data another
compiler gave (the H100 machine's, from the issue) and checks the sentence follows that data instead."""
import json
import re
from pathlib import Path

import pytest

from course import chapters
from course.ch07_register_blocking import lesson as L7
from course.ch08_double_buffering import lesson as L8
from course.ch09_cp_async import lesson as L9
from course.ch10_tensor_core import lesson as L10
from kernels_numba.tools import resources, table

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = {n: next((ROOT / "notebooks").glob(f"{n}_*.ipynb")) for n in ("06", "07", "08", "09", "10")}


def _matrix_toolchain():
    if why := table.toolchain_difference():
        pytest.skip(f"compiler output depends on the compiler version: {why}; checked where the matrix was made (CI)")


def _markdown(n):
    return "\n".join("".join(c["source"]) for c in json.loads(NOTEBOOKS[n].read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "markdown")


# ---- 07 4.5: the excerpt's .reuse registers and LDS offsets

H100_EXCERPT = """/*1c30*/ FFMA R84, R65, R60, R84 ;
/*1c40*/ LDS R114, [R104+UR7+0x40] ;
/*1c70*/ FFMA R82, R60.reuse, R67, R82 ;
/*1c80*/ FFMA R0, R60.reuse, R68, R0 ;
/*1c90*/ FFMA R2, R60, R69, R2 ;"""


def test_07_excerpt_facts_come_from_the_printed_excerpt():
    _matrix_toolchain()
    excerpt = resources.inner_loop_excerpt(resources.report("regblock", (9, 0))["sass_text"], max_lines=14)
    f = L7.excerpt_facts(excerpt)
    assert f["reuse"], "the course's compiler marks reused operands in this excerpt"
    for reg, n in f["reuse"].items():
        assert excerpt.count(f"{reg}.reuse") == n
    assert f["longest"][0] in f["reuse"] and 1 <= f["longest"][1] <= max(f["reuse"].values())
    for off in f["offsets"]:
        assert f"+{off:#x}]" in excerpt
    line = str(f)
    assert all(reg in line for reg in f["reuse"])


def test_07_excerpt_facts_follow_another_compilers_excerpt():
    f = L7.excerpt_facts(H100_EXCERPT)
    assert f["reuse"] == {"R60": 2} and f["offsets"] == [0x40] and "R62" not in str(f)
    assert "없음" in str(L7.excerpt_facts("/*0*/ FFMA R1, R2, R3, R1 ;"))


def test_no_notebook_names_a_sass_register_in_its_prose():
    """A register name (R62, R62.reuse) belongs to one compile: prose never types one."""
    for n in NOTEBOOKS:
        hits = re.findall(r"`?\bR\d{1,3}(?:\.reuse)?\b`?", _markdown(n))
        assert not hits, (n, hits)


# ---- 08 4.4: the order of LDG and STS in db's main loop

H100_DB_ORDER = [("LDG", 2), ("STS", 2), ("LDG", 6), ("STS", 14), ("LDS", 16), ("FFMA", 64), ("BAR", 1)]


def test_08_order_facts_come_from_the_printed_order():
    _matrix_toolchain()
    ov = L8.overlap_table()
    for (name, cc), f in ov["facts"].items():
        order, phases = L8.loop_phases(name, cc)
        assert f == L8.order_facts(order)
        assert f["ldg"] == sum(n for k, n in order if k == "LDG") and f["sts"] == sum(n for k, n in order if k == "STS")
        assert L8._facts_line(name, cc, f) in ov.lines
    # what 4.4's prose states for every compiler of the course: db never computes between its loads and stores,
    # db_overlap computes a whole tile between them
    for cc in L8.CCS:
        assert ov["facts"]["db", cc]["ffma_between"] == 0 and ov["facts"]["db", cc]["sts_before_compute"]
        assert ov["facts"]["db_overlap", cc]["ffma_between"] == 512 and ov["facts"]["db_overlap", cc]["sts_after_compute"]
        # the second bullet's reading: db's k loop stays rolled inside the main loop, db_overlap's is unrolled
        assert len(ov["inner"]["db", cc]) >= 1 and ov["inner"]["db_overlap", cc] == []


def test_08_order_facts_follow_another_compilers_order():
    f = L8.order_facts(H100_DB_ORDER)
    assert (f["ldg"], f["ldg_before_sts"], f["sts"], f["ffma_between"]) == (8, 2, 16, 0) and f["sts_before_compute"]
    assert "2개가 첫 STS 앞" in L8._facts_line("db", (9, 0), f)
    md = _markdown("08")
    assert "7개를 먼저" not in md and "가운데 7개" not in md


def test_08_sink_facts_come_from_the_printed_order():
    """4.6: the lines the cell prints are read from the orders it prints; the prose states, for the course's compiler,
    that db_overlap's LDGs stay in front of its FFMAs and the checked-only variant's are sunk behind them."""
    _matrix_toolchain()
    sink = L8.sunk_loads()
    for (name, cc), f in sink["facts"].items():
        order, _ = L8.loop_phases(name, cc)
        assert f == L8.sink_facts(order) and L8._sink_line(name, cc, f) in sink.lines
    for cc in L8.CCS:
        assert not sink["facts"]["db_overlap", cc]["sunk"] and sink["facts"]["db_overlap", cc]["ffma_before_ldg"] == 0
        assert sink["facts"]["db_overlap_checked_only", cc]["sunk"]


def test_08_sink_facts_follow_another_compilers_order():
    f = L8.sink_facts([("LDS", 4), ("FFMA", 200), ("LDG", 8), ("FFMA", 312), ("STS", 8), ("BAR", 1)])
    assert (f["ffma"], f["ffma_before_ldg"], f["ffma_between"], f["sunk"]) == (512, 200, 312, False)
    assert "계산의 앞쪽" in L8._sink_line("x", (9, 0), f) and "312개" in L8._sink_line("x", (9, 0), f)
    f = L8.sink_facts([("FFMA", 300), ("LDG", 8), ("FFMA", 212), ("STS", 8)])
    assert f["sunk"] and "212개뿐" in L8._sink_line("x", (9, 0), f)


def test_08_register_range_holds_the_cells_counts():
    """3.5 states a register range for which db's blocks per SM do not change; the cell's compile falls in it."""
    _matrix_toolchain()
    import importlib.util
    spec = importlib.util.spec_from_file_location("nb08_gen", chapters.get("08").generator)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    from course import records
    regs = L8.shared_by_stages(records.load("gpu_h200_levels34"))["regs"]
    assert all(gen.FIG["same_lo"] <= r <= gen.FIG["same_hi"] for r in regs.values())
    assert gen.FIG["same_lo"] <= 120 <= gen.FIG["same_hi"]          # the H100 machine's sm_90 count (the issue)
    md = _markdown("08")          # the offline counts are the cell's; the prose names only the range and the record
    assert f"sm_90 {gen.FIG['regs_db_sm90']}개" not in md and f"sm_80 {gen.FIG['regs_db_sm80']}개" not in md
    assert f"{gen.FIG['same_lo']}–{gen.FIG['same_hi']}개" in md


# ---- 09 6: who merges the shared-memory reads

def test_09_read_widths_come_from_the_printed_compile():
    _matrix_toolchain()
    rw = L9.read_widths("async_vec")
    for cc in ((8, 0), (9, 0)):
        s = L9.sass_main_loop("async_vec", cc)
        assert f"{s['cc']}: PTX {s['ptx_shared_loads']}" in rw.lines[[(8, 0), (9, 0)].index(cc)]
    assert rw["ptx_only_v4"] and rw["sass_only_128"] and "NVVM" in rw.lines[-1]
    md = _markdown("09")
    assert "`ptxas` 가 이웃한 두 호출의 읽기를 하나로 합칩니다" not in md


def test_09_read_widths_say_so_when_the_ptx_is_narrower(monkeypatch):
    real = L9.sass_main_loop

    def narrow(name, cc=(8, 0)):
        s = dict(real(name, cc))
        s["ptx_shared_loads"] = {"ld.shared.v4.f32": 16, "ld.shared.v2.f32": 32, "ld.shared.f32": 0}
        return s
    _matrix_toolchain()
    monkeypatch.setattr(L9, "sass_main_loop", narrow)
    rw = L9.read_widths("async_vec")
    assert not rw["ptx_only_v4"] and "좁은" in rw.lines[-1]


# ---- 10 4.3: the K step of mma_large

def test_10_iteration_facts_come_from_the_printed_step():
    _matrix_toolchain()
    line, f = L10.iteration_facts("mma_large")
    text = L10.sass_iteration("mma_large")
    for op, n in f["ops"].items():
        assert len(re.findall(rf"\s{re.escape(op)}\s", text)) == n, op
    assert f["per_loop"], f["total"] == L10.loop_mma("mma_large")
    assert sum(h for h, _ in f["per_loop"]) == f["total"] and f"HMMA {f['total']}개" in line
    assert ("소스와 같음" in line) == f["source_order"]
    assert "두 `ldmatrix` 의 순서는 컴파일러가 바꿨습니다" not in _markdown("10")
