"""Turing Tensor Core path (mma.sync.m16n8k8, f16 in, f32 accumulate; sm_75): the fragment model in sim/mma.py, the
simulator stand-in, the .ptx file under ptxas for every target, mma_simple_turing and mma_large_turing in the simulator
(derived bound, NaN-poisoned C, size rules), their SASS offline, and the GPU record (course/recorded/mma_m16n8k8_*.json,
benchmarks/record_turing_mma.py). No compute capability 7.5 GPU was available: the record is from an H100."""
import glob
from pathlib import Path
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import device, ptx
from kernels_numba import tc
from kernels_numba.tools import offline
from course import records
from kernels_numba.infra.errors import CourseInputError
from kernels_numba.infra.simulator import warp as _warp
from sim import mma as layout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = sorted(glob.glob(os.path.join(ROOT, "course", "recorded", "mma_m16n8k8_*.json")))
NAMES = ("mma_simple_turing", "mma_large_turing")
PTX_FILE = os.path.join(ptx.PTX_DIR, "mma_m16n8k8_f32.ptx")
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_120")
A_CODES = 1 + np.arange(128, dtype=np.float64).reshape(16, 8)       # as benchmarks/record_turing_mma.py
B_CODES = 1 + np.arange(64, dtype=np.float64).reshape(8, 8)


# ------------------------------------------------------------------------------------------ the fragment model

def test_model_holds_every_element_once():
    for matrix, elements in layout.ELEMENTS_M16N8K8.items():
        rows, cols = layout.SHAPES_M16N8K8[matrix]
        held = [e for lane in range(32) for e in elements(lane)]
        assert sorted(held) == [(r, c) for r in range(rows) for c in range(cols)], matrix
        assert all(v is not None for row in layout.m16n8k8_lane_map(matrix) for v in row)


def test_model_is_the_ptx_isa_formula():
    """PTX ISA "Matrix Fragments for mma.m16n8k8" (.f16): A row g (a0, a1) / g+8 (a2, a3), col 2t + (i & 1);
    B k = 2t + i, col g; C as m16n8k16 (g = lane >> 2, t = lane % 4)."""
    assert layout.m16n8k8_a_elements(0) == [(0, 0), (0, 1), (8, 0), (8, 1)]
    assert layout.m16n8k8_a_elements(5) == [(1, 2), (1, 3), (9, 2), (9, 3)]
    assert layout.m16n8k8_b_elements(5) == [(2, 1), (3, 1)]
    assert layout.m16n8k8_b_elements(31) == [(6, 7), (7, 7)]
    assert layout.m16n8k8_c_elements(31) == [(7, 6), (7, 7), (15, 6), (15, 7)]


def test_m16n8k16_fragments_are_two_m16n8k8_fragments():
    """K16_AS_K8: m16n8k16's a0, a1, b0 are m16n8k8's operands for k 0-7, a2, a3, b1 those for k 8-15."""
    for lane in range(32):
        a16, b16 = layout.a_elements(lane), layout.b_elements(lane)
        for h, (areg, breg) in enumerate(layout.K16_AS_K8):
            assert [(r, c - 8 * h) for r, c in (a16[2 * x + j] for x in areg for j in (0, 1))] == \
                layout.m16n8k8_a_elements(lane)
            assert [(k - 8 * h, n) for k, n in (b16[2 * x + j] for x in breg for j in (0, 1))] == \
                layout.m16n8k8_b_elements(lane)


def test_ldmatrix_addressing_feeds_one_m16n8k8():
    """ldmatrix.x2 at As[lane % 16][0] and ldmatrix.x1.trans at Bs[lane % 8][0] deliver exactly the mma's fragments."""
    As = [[(r, c) for c in range(8)] for r in range(16)]
    Bs = [[(k, n) for n in range(8)] for k in range(8)]
    addr = layout.ldmatrix_for_mma_k8()
    a = layout.ldmatrix_gather([As[addr["A"][l][0]] for l in range(16)], 2)
    b = layout.ldmatrix_gather([Bs[addr["B"][l][0]] for l in range(8)], 1, trans=True)
    for lane in range(32):
        assert [e for reg in a[lane] for e in reg] == layout.m16n8k8_a_elements(lane)
        assert [e for reg in b[lane] for e in reg] == layout.m16n8k8_b_elements(lane)


# ------------------------------------------------------------------------------------------ the stand-in

def _pack(values):
    return np.ascontiguousarray(np.asarray(values, np.float16)).view(np.uint32)


def _k8_operands(A, B, C):
    frags = layout.m16n8k8_fragments_from_tiles(A, B, C)
    a = _pack([f[0] for f in frags])
    b = _pack([f[1] for f in frags])
    return [(a[l, 0], a[l, 1], b[l, 0], *np.float32(frags[l][2])) for l in range(32)]


def _d_tile(d):
    out = np.empty((16, 8), np.float64)
    for lane in range(32):
        for (r, c), v in zip(layout.m16n8k8_c_elements(lane), d[lane]):
            out[r, c] = v
    return out


def test_stand_in_is_the_exact_product_rounded_once():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((16, 8)).astype(np.float16)
    B = rng.standard_normal((8, 8)).astype(np.float16)
    C = rng.standard_normal((16, 8)).astype(np.float32)
    D = _d_tile(_warp.mma_k8_warp(_k8_operands(A, B, C)))
    exact = A.astype(np.float64) @ B.astype(np.float64) + C
    np.testing.assert_array_equal(D, exact.astype(np.float32))


def test_two_m16n8k8_on_m16n8k16_registers_equal_one_m16n8k16_on_integers():
    rng = np.random.default_rng(1)
    A = rng.integers(-8, 8, (16, 16)).astype(np.float16)
    B = rng.integers(-8, 8, (16, 8)).astype(np.float16)
    frags = layout.fragments_from_tiles(A, B, np.zeros((16, 8)))
    a = _pack([f[0] for f in frags])           # (32, 4)
    b = _pack([f[1] for f in frags])           # (32, 2)
    z = (np.float32(0),) * 4
    d16 = _warp.mma_warp([(*a[l], *b[l], *z) for l in range(32)], "f32")
    (a_lo, b_lo), (a_hi, b_hi) = layout.K16_AS_K8
    d8 = _warp.mma_k8_warp([(*a[l, list(a_lo)], *b[l, list(b_lo)], *z) for l in range(32)])
    d8 = _warp.mma_k8_warp([(*a[l, list(a_hi)], *b[l, list(b_hi)], *d8[l]) for l in range(32)])
    assert d8 == d16
    np.testing.assert_array_equal(_d_tile(d8), A.astype(np.float64) @ B.astype(np.float64))


# ------------------------------------------------------------------------------------------ the .ptx file

def _ptxas():
    try:
        return offline._tool("ptxas")
    except offline.OfflineCompileError:
        pytest.skip("ptxas not found: pip install nvidia-cuda-nvcc")


def test_ptx_file_is_the_one_instruction():
    fn = ptx.FUNCS["mma_m16n8k8_f32"]
    assert fn.instruction == ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {d0, d1, d2, d3}, {a0, a1}, {b0}, "
                              "{c0, c1, c2, c3};")
    assert [p.type for p in fn.results] == ["f32"] * 4
    assert [p.type for p in fn.operands] == ["b32"] * 3 + ["f32"] * 4
    assert fn.constraints() == "=f,=f,=f,=f,r,r,r,f,f,f,f" and not fn.side_effect
    text = open(PTX_FILE).read()
    assert re.search(r"^\.target sm_75$", text, re.M) and re.search(r"^\.version 7\.0$", text, re.M)


def _entry_module():
    """The .ptx file plus a kernel that runs its instruction on parameters and stores D (a lone .func has no SASS)."""
    fn = ptx.FUNCS["mma_m16n8k8_f32"]
    regs = "".join(f"    .reg .{p.type} {p.name};\n" for p in fn.results + fn.operands)
    return (open(PTX_FILE).read() + "\n.visible .entry check(.param .u64 out)\n{\n" + regs + "    .reg .u64 p;\n"
            "    ld.param.u64 p, [out];\n    " + fn.instruction + "\n"
            "    st.global.v4.f32 [p], {d0, d1, d2, d3};\n    ret;\n}\n")


@pytest.mark.parametrize("arch", TARGETS)
def test_ptxas_assembles_the_file_for(arch, tmp_path):
    """The file as it is (.target sm_75) assembles for each target students have (whole module: a .func with several
    results is not ABI-conformant, so no -c); inside a kernel its instruction is one HMMA.1688.F32."""
    p = subprocess.run([_ptxas(), f"-arch={arch}", PTX_FILE, "-o", str(tmp_path / "file.cubin")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    src = tmp_path / "entry.ptx"
    src.write_text(_entry_module())
    out = tmp_path / f"entry.{arch}.cubin"
    p = subprocess.run([_ptxas(), f"-arch={arch}", str(src), "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    sass = subprocess.run([offline._tool("cuobjdump"), "-sass", str(out)], capture_output=True, text=True,
                          check=True).stdout
    assert offline.sass_counts(sass).get("HMMA.1688.F32") == 1, sass


def test_m16n8k16_does_not_exist_on_sm_75(tmp_path):
    """Why the Turing kernels exist: the same module with m16n8k16 is refused for sm_75 (ptxas names sm_80)."""
    k16 = open(os.path.join(ptx.PTX_DIR, "mma_m16n8k16_f32.ptx")).read().replace(".target sm_80", ".target sm_75")
    path = tmp_path / "k16_sm75.ptx"
    path.write_text(k16)
    p = subprocess.run([_ptxas(), "-arch=sm_75", str(path), "-o", str(tmp_path / "x.cubin")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "requires .target sm_80" in p.stderr, p.stderr


# ------------------------------------------------------------------------------------------ kernels, simulator

def _shapes(name):
    return [(16, 8, 16)] if name == "mma_simple_turing" else [(32, 16, 48), (48, 40, 48), (144, 136, 112)]


def _run(name, M, N, K, alpha=1.0, beta=0.0, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    C = C0.copy() if beta != 0 else np.full((M, N), np.nan, np.float32)      # NaN: every element must be written
    assert kn.get(name).launch(A, B, C, alpha, beta) is C
    return A, B, C, C0, tc.error_bound(A, B, alpha, beta, C0)


def test_registered_for_compute_capability_7_5(monkeypatch):
    for name in NAMES:
        s = kn.get(name)
        assert (s.level, s.min_cc, s.dtype) == (6, (7, 5), np.float16) and s.module.SMEM_BYTES == 768
    monkeypatch.setattr(device, "SIMULATOR", False)
    monkeypatch.setattr(device, "GPU", ("Tesla T4", (7, 5)))          # a T4, as the registry sees it
    assert all(kn.get(n).runs_here() for n in NAMES)
    assert not kn.get("mma_simple").runs_here() and not kn.get("mma_large").runs_here()


@pytest.mark.sim_only("SGEMM_SIM_CC only exists in the simulator")
def test_a_simulated_7_5_device_runs_them_in_place(monkeypatch):
    """SGEMM_SIM_CC=7.5: the Turing kernels launch here (their instructions exist on 7.5); the sm_80 twins would go to
    the simulator subprocess (kernels_numba.tools.subsim)."""
    from kernels_numba.tools import subsim
    monkeypatch.setattr(device, "SIM_CC", (7, 5))
    for name in NAMES:
        assert kn.get(name).runs_here() and not subsim.needed(kn.get(name).kernel)
    assert subsim.needed(kn.get("mma_large").kernel)


@pytest.mark.parametrize("name", NAMES)
def test_matches_float64(name):
    for M, N, K in _shapes(name):
        A, B, C, C0, bound = _run(name, M, N, K)
        assert np.isfinite(C).all()
        err = np.abs(C.astype(np.float64) - tc.reference(A, B))
        assert (err <= bound).all(), (M, N, K, float((err / bound).max()))


@pytest.mark.parametrize("name", NAMES)
def test_alpha_beta(name):
    A, B, C, C0, bound = _run(name, *_shapes(name)[-1], alpha=1.5, beta=-0.5, seed=3)
    assert (np.abs(C.astype(np.float64) - tc.reference(A, B, 1.5, -0.5, C0)) <= bound).all()


@pytest.mark.parametrize("name", NAMES)
def test_identity_is_exact(name):
    M, N, K = (16, 8, 16) if name == "mma_simple_turing" else (48, 40, 48)
    B = np.random.default_rng(4).standard_normal((K, N)).astype(np.float16)
    C = np.full((M, N), np.nan, np.float32)
    kn.get(name).launch(np.eye(M, K, dtype=np.float16), B, C)
    np.testing.assert_array_equal(C, B[:M].astype(np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_tolerance_would_catch_a_missing_m16n8k8(name):
    """Dropping the second m16n8k8 of any 16-wide K step (k 8..15) leaves the bound."""
    A, B, C, C0, bound = _run(name, *_shapes(name)[0])
    wrong = C.astype(np.float64) - A[:, 8:16].astype(np.float64) @ B[8:16].astype(np.float64)
    assert not (np.abs(wrong - tc.reference(A, B)) <= bound).all()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [(17, 8, 16), (16, 12, 16), (16, 8, 24)])
def test_bad_sizes_are_clear_errors(name, bad):
    M, N, K = bad
    with pytest.raises(CourseInputError) as e:
        kn.get(name).launch(np.zeros((M, K), np.float16), np.zeros((K, N), np.float16), np.zeros((M, N), np.float32))
    assert "배수" in str(e.value) or "한 가지 크기" in str(e.value)


def test_simple_computes_one_shape_only():
    with pytest.raises(CourseInputError, match="mma_large_turing"):
        kn.get("mma_simple_turing").launch(np.zeros((32, 16), np.float16), np.zeros((16, 8), np.float16),
                                           np.zeros((32, 8), np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_wrong_dtype_is_a_clear_error(name):
    with pytest.raises(CourseInputError, match="float16"):
        kn.get(name).launch(np.zeros((16, 16), np.float32), np.zeros((16, 8), np.float16),
                            np.zeros((16, 8), np.float32))


def test_refused_below_compute_capability_7_5(monkeypatch):
    monkeypatch.setattr(device, "SIMULATOR", False)
    monkeypatch.setattr(device, "GPU", ("Tesla V100", (7, 0)))
    with pytest.raises(CourseInputError, match="7.5"):
        kn.get("mma_large_turing").launch(np.zeros((16, 16), np.float16), np.zeros((16, 8), np.float16),
                                          np.zeros((16, 8), np.float32))


@pytest.mark.sim_only("the race detector is part of the simulator")
@pytest.mark.parametrize("name", NAMES)
def test_hazard_free(name):
    from kernels_numba.infra.simulator import racecheck
    with racecheck.collect() as report:
        _run(name, *_shapes(name)[0])
    assert not report, report.summary()


# ------------------------------------------------------------------------------------------ SASS, offline

def _no_function_calls(sass):
    """ptxas may end a loop that holds a barrier with '@!P0 CALL.REL.NOINC <next-after-BRA>' + 'BRA' (a loop exit,
    not a call: see tests/test_tc_kernels.py); a real call would target code that ends in RET, and there is none."""
    lines = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)
    for k, (_, ins) in enumerate(lines):
        m = re.search(r"CALL\S*\s+(0x[0-9a-f]+)", ins)
        if m:
            assert k + 2 < len(lines) and int(m.group(1), 16) == int(lines[k + 2][0], 16), ins
            assert "BRA" in lines[k + 1][1], lines[k + 1]
    assert not re.search(r"\bRET\b", sass)


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (9, 0)], ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("name", NAMES)
def test_sass_two_hmma_1688_no_call(name, cc):
    """Each 16-wide K step is two HMMA.1688.F32 (no HMMA.16816, no LDGSTS: nothing sm_80-only), fed by one
    LDSM.16.M88.4 and one LDSM.16.MT88.2; the intrinsics are inlined (no call), nothing in local memory."""
    from kernels_numba.tools import resources
    r = offline.compile_kernel(name, cc)
    counts = offline.sass_counts(r["sass"])
    assert counts.get("HMMA.1688.F32") == 2, counts
    assert not any(k.startswith(("HMMA.16816", "LDGSTS", "DEPBAR")) for k in counts), counts
    assert counts.get("LDSM.16.M88.4") == 1 and counts.get("LDSM.16.MT88.2") == 1, counts
    assert offline.ptx_counts(r["ptx"])["call"] == 0
    _no_function_calls(r["sass"])
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0
    # the module's computed bytes; sm_90 cubins also count the 1 KB per block the system reserves there
    assert r["usage"]["shared_bytes"] == kn.get(name).module.SMEM_BYTES + (1024 if cc >= (9, 0) else 0)
    if name == "mma_large_turing":
        loop = [i.op for i in resources.main_loop(r["sass"])]
        assert loop.count("HMMA.1688.F32") == 2 and sum(op.startswith("BAR.SYNC") for op in loop) == 2, loop


# ------------------------------------------------------------------------------------------ the GPU record

def check_layout(rec):
    """The record's ldmatrix-fed layout (register codes, D values) is sim/mma.py's m16n8k8 model, element by element."""
    lay = rec["layout"]
    assert lay["D_matches_A_at_B"]
    for lane in range(32):
        assert [tuple(e) for e in lay["A"][lane]] == layout.m16n8k8_a_elements(lane), ("A", lane)
        assert [tuple(e) for e in lay["B"][lane]] == layout.m16n8k8_b_elements(lane), ("B", lane)
        assert [tuple(e) for e in lay["C"][lane]] == layout.m16n8k8_c_elements(lane), ("C", lane)


def check_probes(rec):
    """Each one-hot register probe lights exactly the D registers the model predicts, with the predicted values."""
    c_of = {(l, i): rc for l in range(32) for i, rc in enumerate(layout.m16n8k8_c_elements(l))}
    probes = rec["probes"]["probes"]
    assert len(probes) == 128 + 64
    for p in probes:
        got = {(l, i): v for l, i, v in p["nonzero"]}
        if p["operand"] == "A":
            r, k = layout.m16n8k8_a_elements(p["lane"])[p["half"]]
            want = {s: B_CODES[k][c] for s, (rr, c) in c_of.items() if rr == r}
        else:
            k, n = layout.m16n8k8_b_elements(p["lane"])[p["half"]]
            want = {s: A_CODES[r][k] for s, (r, c) in c_of.items() if c == n}
        assert got == want, p


def check_numerics(rec):
    """The stand-in on the recorded registers vs the GPU's D: within 2 * 9 * u_f32 * (|A||B| + |C| + |D|) (8 products
    and C; the hardware's order and rounding are its own). Returns the worst ratio to that bound."""
    worst = 0.0
    for s in rec["numerics"]:
        ops = [(*s["Aregs"][l], *s["Bregs"][l], *np.float32(s["Cin"][l])) for l in range(32)]
        sim = np.array(_warp.mma_k8_warp(ops), np.float64)
        gpu = np.array(s["D"], np.float64)
        a = np.array(s["Aregs"], np.uint32).view(np.float16).astype(np.float64)
        b = np.array(s["Bregs"], np.uint32).view(np.float16).astype(np.float64)
        A, B = np.empty((16, 8)), np.empty((8, 8))
        for lane in range(32):
            for (r, c), v in zip(layout.m16n8k8_a_elements(lane), a[lane]):
                A[r, c] = v
            for (r, c), v in zip(layout.m16n8k8_b_elements(lane), b[lane]):
                B[r, c] = v
        mag = np.array([[(np.abs(A) @ np.abs(B))[r, c] for r, c in layout.m16n8k8_c_elements(l)] for l in range(32)])
        bound = 2 * 9 * tc.UNIT_ROUNDOFF["f32"] * (mag + np.abs(np.array(s["Cin"])) + np.abs(gpu)) + 1e-30
        assert (np.abs(sim - gpu) <= bound).all(), float(np.abs(sim - gpu).max())
        worst = max(worst, float((np.abs(sim - gpu) / bound).max()))
    return worst


def check_kernels(rec):
    rows = rec["kernels"]
    assert {r["kernel"] for r in rows} == set(NAMES)
    for r in rows:
        assert r["finite"] and r["within_bound"] and r.get("exact", True), r
    assert any(r["identity"] and r["exact"] for r in rows)


@pytest.mark.skipif(not RECORDS, reason="no GPU record yet (benchmarks/record_turing_mma.py)")
@pytest.mark.parametrize("path", RECORDS, ids=os.path.basename)
def test_recorded_gpu_matches_model(path):
    rec = records.load(Path(path).stem, Path(path).parent)
    assert rec.gpu != "simulator" and tuple(rec.cc) >= (7, 5) and rec.date
    assert "no compute capability 7.5 GPU" in rec["note"]
    check_layout(rec)
    check_probes(rec)
    assert check_numerics(rec) <= 1
    check_kernels(rec)
    big = [r for r in rec["kernels"] if (r["M"], r["N"], r["K"]) == (512, 256, 1024)]
    assert big and big[0]["within_bound"]


def test_checks_would_catch_a_wrong_model():
    if not RECORDS:
        pytest.skip("no record")
    rec = records.load(Path(RECORDS[0]).stem, Path(RECORDS[0]).parent)
    lay = rec["layout"]
    lay["C"][0][0], lay["C"][0][1] = lay["C"][0][1], lay["C"][0][0]
    with pytest.raises(AssertionError):
        check_layout(rec)
    rec = records.load(Path(RECORDS[0]).stem, Path(RECORDS[0]).parent)
    p = next(p for p in rec["probes"]["probes"] if p["operand"] == "B")
    p["nonzero"][0][2] += 8                       # the value one k row further down
    with pytest.raises(AssertionError):
        check_probes(rec)


def test_record_script_in_simulator_matches_model(tmp_path):
    """The recording script itself, run under the simulator, decodes to the model (so the GPU record is read right)."""
    out = tmp_path / "sim.json"
    env = dict(os.environ, SGEMM_DEVICE="sim", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "record_turing_mma.py"), "--out", str(out),
                    "--small"], check=True, env=env, capture_output=True)
    rec = records.load("sim", tmp_path)
    check_layout(rec)
    check_probes(rec)
    assert check_numerics(rec) == 0.0                  # the same stand-in on both sides: identical
    check_kernels(rec)
