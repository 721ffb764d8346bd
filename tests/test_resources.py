"""kernels_numba.tools.resources: registers, spills, shared bytes and SASS counts, offline (no GPU here) or from a loaded kernel."""
import pytest

import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba.tools import resources

KEYS = {"name", "source", "cc", "registers", "local_bytes", "shared_bytes", "ffma", "lds", "sts", "ldl", "stl",
        "ldg", "stg", "bar", "total", "loop_total", "loop_ffma", "loop_lds", "inner_loops", "sass_text"}

# the same loop printed by cuobjdump (hex branch targets) and by nvdisasm -gi, which Numba's inspect_sass uses (labels)
CUOBJDUMP = """
        /*0100*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;      /* 0x0000000000007b1d */
        /*0110*/                   LDS.128 R4, [R2] ;
        /*0120*/                   LDS R8, [R3+0x4] ;
        /*0130*/                   FFMA R10, R4, R8, R10 ;
        /*0140*/              @!P0 BRA 0x110 ;
        /*0150*/                   STS [R2], R4 ;
        /*0160*/                   FFMA R11, R5, R8, R11 ;
        /*0170*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0180*/               @P1 BRA 0x100 ;
        /*0190*/                   LDL R1, [R1] ;
        /*01a0*/                   EXIT ;
"""
NVDISASM = """
.L_x_3:
        /*0100*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_4:
        /*0110*/                   LDS.128 R4, [R2] ;
        /*0120*/                   LDS R8, [R3+0x4] ;
        /*0130*/                   FFMA R10, R4, R8, R10 ;
        /*0140*/              @!P0 BRA `(.L_x_4) ;
        /*0150*/                   STS [R2], R4 ;
        /*0160*/                   FFMA R11, R5, R8, R11 ;
        /*0170*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0180*/               @P1 BRA `(.L_x_3) ;
        /*0190*/                   LDL R1, [R1] ;
        /*01a0*/                   EXIT ;
"""


@pytest.mark.parametrize("sass", [CUOBJDUMP, NVDISASM], ids=["cuobjdump", "nvdisasm"])
def test_parse_counts_and_loops(sass):
    c = resources.counts(sass)
    assert c == {"ffma": 2, "lds": {"128": 1, "32": 1}, "sts": {"32": 1}, "ldl": 1, "stl": 0, "ldg": 0, "stg": 0,
                 "bar": 2, "total": 11}
    body = resources.main_loop(sass)
    assert [i.addr for i in body] == list(range(0x100, 0x190, 0x10))
    inner = resources.inner_loops(sass)
    assert len(inner) == 1 and [i.op for i in inner[0]] == ["LDS.128", "LDS", "FFMA", "BRA"]
    ex = resources.inner_loop_excerpt(sass).splitlines()
    assert ex[0] == "/*0130*/ FFMA R10, R4, R8, R10 ;" and ex[-1].startswith("/*0160*/ FFMA") and len(ex) == 4
    assert resources.inner_loop_excerpt(sass, max_lines=2).splitlines()[-1] == "... (2 more)"


def test_no_loop_no_excerpt():
    assert resources.main_loop("/*0000*/ EXIT ;") == [] and resources.inner_loop_excerpt("/*0000*/ EXIT ;") == ""


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_report_offline_keys(cc):
    r = resources.report("regblock", cc)
    assert set(r) == KEYS
    assert r["source"] == "offline" and r["cc"] == f"sm_{cc[0]}{cc[1]}"
    assert 0 < r["registers"] <= 255 and r["local_bytes"] == 0 and r["shared_bytes"] >= 2 * 128 * 8 * 4
    assert r["ffma"] > 0 and r["bar"] == 2 and r["ldl"] == r["stl"] == 0
    assert r["total"] >= r["loop_total"] >= r["loop_ffma"] > 0
    assert all(isinstance(w, str) and int(w) in (32, 64, 128) for w in r["lds"])
    assert "FFMA" in r["sass_text"]


def test_regblock_k_loop_stays_rolled_vec_unrolls():
    """NVVM leaves regblock's `for k in range(BK)` as a loop (64 FFMA, 16 scalar LDS a pass); regblock_vec has none."""
    rb = resources.report("regblock", (9, 0))
    assert [(d["ffma"], d["lds"]) for d in rb["inner_loops"]] == [(64, {"32": 16})]
    vec = resources.report("regblock_vec", (9, 0))
    assert vec["inner_loops"] == [] and vec["loop_ffma"] == 512 and vec["loop_lds"] == {"128": 32}


def test_demo_outside_registry_and_spills():
    r = resources.report("regblock_t16", (8, 0))
    assert r["local_bytes"] > 0 and r["ldl"] > 0 and r["stl"] > 0


def test_default_is_offline_sm90_without_gpu():
    if device.MODE == "gpu":
        pytest.skip("a GPU is in use: report() reads the loaded kernel")
    assert resources.report("regblock")["cc"] == "sm_90"


def test_unknown_kernel_is_a_clear_error():
    with pytest.raises(kn.CourseInputError):
        resources.report("no_such_kernel", (9, 0))


def test_table_and_markdown():
    rows = resources.table(["regblock", "regblock_vec"], (9, 0))
    assert [r["name"] for r in rows] == ["regblock", "regblock_vec"] and all("sass_text" not in r for r in rows)
    md = resources.markdown(rows).splitlines()
    assert md[0].startswith("| name | cc | registers") and len(md) == 4
    assert "128b×32" in md[3] and "`" not in md[3]
