"""cp.async PTX files: ptxas accepts them (the parametrized test in test_ptx.py covers every file), each assembles to
its SASS instruction, the seed's '.cg ... 4' is rejected by ptxas, the parser handles no-operand and immediate
forms, and the simulator stand-ins land copies only at the wait that guarantees them."""
import os

import numpy as np
import pytest

from course.ch09_cp_async import lesson as lesson09
from kernels_numba.infra import ptx
from kernels_numba.tools import offline
from kernels_numba.infra.simulator import async_copy as _async_sim

from test_ptx import _assemble

SASS = {"cp_async_ca_4.ptx": "LDGSTS.E", "cp_async_ca_4_zfill.ptx": "LDGSTS.E.ZFILL",
        "cp_async_ca_16.ptx": "LDGSTS.E.128", "cp_async_cg_16.ptx": "LDGSTS.E.BYPASS.128",
        "cp_async_cg_16_zfill.ptx": "LDGSTS.E.BYPASS.128.ZFILL", "cp_async_commit_group.ptx": "LDGDEPBAR",
        "cp_async_wait_group_0.ptx": "DEPBAR.LE", "cp_async_wait_group_1.ptx": "DEPBAR.LE",
        "cp_async_wait_group_2.ptx": "DEPBAR.LE", "cp_async_wait_group_3.ptx": "DEPBAR.LE",
        "cp_async_wait_all.ptx": "DEPBAR.LE"}


def test_files_exist():
    assert set(SASS) <= {os.path.basename(p) for p in ptx.ptx_files()}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(SASS))
def test_file_assembles_to_ldgsts_family(name, arch, tmp_path):
    sass = _assemble(os.path.join(ptx.PTX_DIR, name), arch, tmp_path)
    counts = offline.sass_counts(sass)
    assert counts.get(SASS[name]) == 1, counts
    if name.startswith("cp_async_wait_group_"):
        assert f"DEPBAR.LE SB0, 0x{name[-5]}" in sass
    if name == "cp_async_wait_all.ptx":
        assert counts.get("LDGDEPBAR") == 1           # wait_all = commit_group + wait_group 0


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_seed_form_is_illegal(arch):
    ok, msg = lesson09.ptxas(lesson09.ptx_module(lesson09.SEED_CP_ASYNC_4), arch)
    assert not ok and "unexpected value '4', expected to be 16" in msg
    ok, msg = lesson09.ptxas(lesson09.ptx_module(lesson09.LEGAL_CP_ASYNC_4), arch)
    assert ok, msg


def test_wait_group_takes_an_immediate_only():
    ok, msg = lesson09.ptxas(lesson09.ptx_module("cp.async.wait_group n;", ".reg .u32 n"))
    assert not ok and "error" in msg


def test_parser_reads_cp_async_forms():
    f = ptx.FUNCS
    assert f["cp_async_commit_group"].asm_template() == "cp.async.commit_group;"
    assert f["cp_async_commit_group"].constraints() == "~{memory}" and f["cp_async_commit_group"].side_effect
    assert f["cp_async_wait_group_2"].asm_template() == "cp.async.wait_group 2;"
    z = f["cp_async_cg_16_zfill"]
    assert [(p.name, p.type, p.space) for p in z.operands] == [
        ("dst", "u32", "shared"), ("src", "u64", "global"), ("src_size", "u32", None)]
    assert z.asm_template() == "cp.async.cg.shared.global [$0], [$1], 16, $2;"
    assert z.constraints() == "r,l,r,~{memory}"


# ------------------------------------------------------------------------------------ stand-ins

def _aligned(n, offset_floats=0):
    buf = np.zeros(n + 8, np.float32)
    start = (-(buf.ctypes.data // 4)) % 4 + offset_floats
    return buf[start:start + n]


@pytest.fixture(autouse=True)
def fresh():
    _async_sim.reset()
    yield
    _async_sim.reset()


def test_copy_lands_only_at_the_wait_that_covers_it():
    S = np.full((2, 8), np.nan, np.float32)
    A = _aligned(16).reshape(2, 8)
    A[:] = np.arange(16).reshape(2, 8)
    si = ptx.STAND_INS
    si["cp_async_cg_16"](S, 0, 0, A, 0, 0)
    si["cp_async_commit_group"]()                 # G0
    si["cp_async_cg_16"](S, 1, 4, A, 1, 4)
    si["cp_async_commit_group"]()                 # G1
    A[:] = -1                                     # the source was read at issue
    assert np.isnan(S).all()
    si["cp_async_wait_group_1"]()                 # G0 lands, G1 may still be in flight
    assert S[0, :4].tolist() == [0, 1, 2, 3] and np.isnan(S[1]).all()
    si["cp_async_wait_group_0"]()
    assert S[1, 4:].tolist() == [12, 13, 14, 15]


def test_uncommitted_copy_is_not_covered_by_wait_group_but_by_wait_all():
    S = np.full((1, 4), np.nan, np.float32)
    A = _aligned(4).reshape(1, 4) + 1
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 2, A, 0, 2)
    ptx.STAND_INS["cp_async_wait_group_0"]()
    assert np.isnan(S).all()
    ptx.STAND_INS["cp_async_wait_all"]()
    assert S[0, 2] == 1 and np.isnan(S[0, :2]).all()


@pytest.mark.parametrize("src_size,want", [(0, [0, 0, 0, 0]), (8, [5, 6, 0, 0]), (16, [5, 6, 7, 8])])
def test_zero_fill(src_size, want):
    S = np.full((1, 4), np.nan, np.float32)
    A = _aligned(4).reshape(1, 4)
    A[:] = [5, 6, 7, 8]
    ptx.STAND_INS["cp_async_cg_16_zfill"](S, 0, 0, A, 0, 0, src_size)
    ptx.STAND_INS["cp_async_wait_all"]()
    assert S[0].tolist() == want


def test_zero_fill_reads_only_src_size_bytes():
    """At the right edge of a row of 6 floats, 16 B from column 4 would run past it; src_size=8 reads only 2."""
    S = np.full((1, 4), np.nan, np.float32)
    A = _aligned(8)[:8].reshape(1, 8)[:, :6]      # a view: last axis of length 6
    A = np.ascontiguousarray(A)
    with pytest.raises(IndexError):
        ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 0, 6)
    ptx.STAND_INS["cp_async_ca_4_zfill"](S, 0, 0, A, 0, 5, 4)
    ptx.STAND_INS["cp_async_ca_4_zfill"](S, 0, 1, A, 0, 0, 0)
    ptx.STAND_INS["cp_async_wait_all"]()
    assert S[0, :2].tolist() == [A[0, 5], 0]


def test_16_byte_copy_into_padded_layout_faults_with_address_and_layout():
    S = np.full((8, 9), np.nan, np.float32)       # the padded [BM][BK+1] layout: rows start 36 B apart
    A = _aligned(32).reshape(4, 8)
    ptx.STAND_INS["cp_async_cg_16"](S, 0, 4, A, 0, 4)            # row 0: offset 16, fine
    with pytest.raises(ptx.AsyncCopyAlignmentError, match=r"\(1, 0\).*0x24.*shape \(8, 9\)"):
        ptx.STAND_INS["cp_async_cg_16"](S, 1, 0, A, 1, 0)        # row 1 starts at 36 B
    B = _aligned(33, 1).reshape(3, 11)
    with pytest.raises(ptx.AsyncCopyAlignmentError, match="global"):
        ptx.STAND_INS["cp_async_cg_16"](S, 0, 0, B, 0, 0)


def test_wait_group_rejects_a_bad_n():
    from sim.cp_async import AsyncCopyUnit
    with pytest.raises(ValueError):
        AsyncCopyUnit().wait_group(-1)


# ---------------------------------------------------------------------------------- GPU intrinsics, offline

KERNEL_SRC = '''
from numba import cuda, float32
from kernels_numba.infra import ptx

def kernel(A, B, C, alpha, beta):
    S = cuda.shared.array((2, 4, 32), float32, alignment=16)
    i = cuda.threadIdx.x
    ptx.cp_async_ca_4(S, 0, 1, i, A, 0, i)
    ptx.cp_async_cg_16(S, 1, 0, (i % 8) * 4, A, 1, (i % 8) * 4)
    ptx.cp_async_ca_16(S, 1, 1, (i % 8) * 4, A, 1, (i % 8) * 4)
    ptx.cp_async_cg_16_zfill(S, 1, 2, (i % 8) * 4, A, 1, 0, 8)
    ptx.cp_async_ca_4_zfill(S, 0, 3, i, A, 0, 0, (i % 2) * 4)   # a constant 0 would be folded away
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_group_3()
    ptx.cp_async_wait_group_2()
    ptx.cp_async_wait_group_1()
    ptx.cp_async_wait_group_0()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    C[0, i] = S[0, 1, 31 - i] + S[1, 0, i]
'''

RUNNER = r'''
import json, sys, types
import kernels_numba
from kernels_numba.tools import offline
from numba import cuda
mod = types.ModuleType("cp_async_test_kernel")
exec(compile(sys.stdin.read(), "<test kernel>", "exec"), mod.__dict__)
out = {}
for cc in ((8, 0), (9, 0)):
    with offline.offline_device(cc):
        p, _ = cuda.compile_ptx(mod.kernel, offline.SIG, cc=cc)
    sass, usage = offline.cubin_report(offline.ptx_to_cubin(p, cc))
    out["sm_%d%d" % cc] = {"ptx": p, "sass": sass}
json.dump(out, sys.stdout)
'''


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_intrinsics_inline_cp_async(arch, compiled):
    import re
    r = compiled[arch]
    for name in SASS:
        fn = ptx.FUNCS[name[:-4]]
        text = re.escape(fn.asm_template().split(" ", 1)[0])
        assert re.search(text, r["ptx"]), fn.name
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16, %r\d+;", r["ptx"])  # 32-bit shared
    counts = offline.sass_counts(r["sass"])
    assert counts.get("LDGSTS.E", 0) >= 1 and counts.get("LDGSTS.E.BYPASS.128") == 1
    assert counts.get("LDGSTS.E.BYPASS.128.ZFILL") == 1 and counts.get("LDGSTS.E.ZFILL") == 1
    assert counts.get("LDGDEPBAR") == 2 and counts.get("DEPBAR.LE") == 5
    assert not any(op.startswith("CALL") for op in counts), counts


@pytest.fixture(scope="module")
def compiled():
    import json
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", RUNNER], input=KERNEL_SRC, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_two_pending_copies_to_the_same_bytes_are_undefined():
    S = np.full((1, 4), np.nan, np.float32)
    A = _aligned(8).reshape(2, 4)
    A[:] = [[5, 6, 7, 8], [1, 1, 1, 1]]
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 0, 0)
    ptx.STAND_INS["cp_async_commit_group"]()
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 1, 0)     # same destination, first copy still pending
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 1, A, 1, 1)     # another destination: unaffected
    ptx.STAND_INS["cp_async_wait_all"]()
    assert np.isnan(S[0, 0]) and S[0, 1] == 1
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 1, 0)     # after the wait: no pending copy there any more
    ptx.STAND_INS["cp_async_wait_all"]()
    assert S[0, 0] == 1


def test_two_pending_copies_of_identical_bytes_stay_defined():
    """Either landing order writes the same value: defined on hardware, so not NaN here."""
    S = np.full((1, 4), np.nan, np.float32)
    A = _aligned(8).reshape(2, 4)
    A[:] = [[3, 4, 5, 6], [3, 4, 5, 6]]
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 0, 0)
    ptx.STAND_INS["cp_async_commit_group"]()
    ptx.STAND_INS["cp_async_ca_4"](S, 0, 0, A, 1, 0)     # same bytes, same value, first copy still pending
    ptx.STAND_INS["cp_async_wait_all"]()
    assert S[0, 0] == 3
