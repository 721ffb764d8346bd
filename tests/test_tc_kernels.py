"""Level-6 Tensor Core kernels (f16 inputs) in the simulator: float64 reference with the derived tolerance
(kernels_numba.tc.error_bound), identity matrices, alpha/beta, size rules, and the SASS offline."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba import tc
from kernels_numba.infra.errors import CourseInputError

TC = [s for s in kn.REGISTRY if s.level == 6]
NAMES = [s.name for s in TC]


def _cdtype(spec):
    return getattr(spec.module, "C_DTYPE", np.float32)


def _acc(spec):
    return getattr(spec.module, "CONFIG", {}).get("acc", "f32")


def _shapes(spec):
    if spec.name in ("mma_simple", "mma_simple_turing"):
        return [(16, 8, 16)]
    if spec.name == "mma_large":
        return [(32, 16, 48), (16, 8, 16)]
    if spec.name in ("mma_warps", "mma_pipe"):      # edge blocks (not multiples of BM, BN, BK), several blocks
        return [(48, 40, 48), (144, 136, 32), (16, 8, 16)]
    if spec.name == "mma_swizzle":                  # + K tiles that wrap around the 2 stages, partial last K tile
        return [(48, 40, 48), (144, 136, 112), (16, 8, 16)]
    return [(48, 40, 48)]


def _run(spec, M, N, K, alpha=1.0, beta=0.0, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(_cdtype(spec))
    C = C0.copy() if beta != 0 else np.full((M, N), np.nan, _cdtype(spec))
    assert spec.launch(A, B, C, alpha, beta) is C
    out = "f16" if _cdtype(spec) == np.float16 else "f32"
    bound = tc.error_bound(A, B, alpha, beta, C0, acc=_acc(spec), out=out)
    return A, B, C, C0, bound


def test_level6_registered():
    assert {"mma_simple", "mma_large", "mma_warps"} <= set(NAMES)
    for s in TC:
        # the Turing variants (mma.m16n8k8, ldmatrix, no cp.async) run on sm_75; tests/test_turing_mma.py
        assert s.dtype is np.float16 and s.min_cc == ((7, 5) if s.name.endswith("_turing") else (8, 0))


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
def test_matches_float64(spec):
    for M, N, K in _shapes(spec):
        A, B, C, C0, bound = _run(spec, M, N, K)
        assert np.isfinite(C).all()
        err = np.abs(C.astype(np.float64) - tc.reference(A, B))
        assert (err <= bound).all(), (M, N, K, float((err / bound).max()))


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
def test_alpha_beta(spec):
    M, N, K = _shapes(spec)[0]
    A, B, C, C0, bound = _run(spec, M, N, K, alpha=1.5, beta=-0.5, seed=3)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, 1.5, -0.5, C0))
    assert (err <= bound).all()


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
def test_identity(spec):
    """A = I: C must equal B exactly (each output is one product 1*b plus zeros)."""
    M, N, K = _shapes(spec)[0]
    K = M
    if spec.name in ("mma_simple", "mma_simple_turing"):
        M, N, K = 16, 8, 16
    rng = np.random.default_rng(4)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), _cdtype(spec))
    spec.launch(np.eye(M, K, dtype=np.float16), B, C)
    np.testing.assert_array_equal(C, B[:M].astype(_cdtype(spec)))


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
def test_tolerance_would_catch_a_missing_k_step(spec):
    M, N, K = _shapes(spec)[0]
    A, B, C, C0, bound = _run(spec, M, N, K)
    wrong = C.astype(np.float64) - A[:, :16].astype(np.float64) @ B[:16].astype(np.float64)
    assert not (np.abs(wrong - tc.reference(A, B)) <= bound).all()


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
@pytest.mark.parametrize("bad", [(17, 8, 16), (16, 12, 16), (16, 8, 24)])
def test_bad_sizes_are_clear_errors(spec, bad):
    M, N, K = bad
    A = np.zeros((M, K), np.float16)
    B = np.zeros((K, N), np.float16)
    with pytest.raises(CourseInputError) as e:
        spec.launch(A, B, np.zeros((M, N), _cdtype(spec)))
    assert "배수" in str(e.value) or "한 가지 크기" in str(e.value)


@pytest.mark.parametrize("spec", TC, ids=lambda s: s.name)
def test_wrong_dtype_is_a_clear_error(spec):
    M, N, K = _shapes(spec)[0]
    with pytest.raises(CourseInputError, match="float16"):
        spec.launch(np.zeros((M, K), np.float32), np.zeros((K, N), np.float16), np.zeros((M, N), _cdtype(spec)))


# ---------------------------------------------------------------------------------------------- SASS, offline

def _sass_calls_are_loop_exits(sass):
    """ptxas writes '@!P0 CALL.REL.NOINC <target>' + 'BRA <loop head>' as the exit of a loop that holds a barrier or a
    warp-synchronous instruction: the target is the instruction after the BRA. A real function call would target code
    that ends in RET; there is no RET at all."""
    import re
    lines = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)
    for k, (addr, ins) in enumerate(lines):
        m = re.search(r"CALL\S*\s+(0x[0-9a-f]+)", ins)
        if m:
            assert k + 2 < len(lines) and int(m.group(1), 16) == int(lines[k + 2][0], 16), ins
            assert "BRA" in lines[k + 1][1], lines[k + 1]
    assert not re.search(r"\bRET\b", sass)


BOUNDED = [n for n in NAMES if kn.get(n).module.__dict__.get("CONFIG", {}).get("MIN_BLOCKS")]


# the Turing variants issue HMMA.1688 and no cp.async: their SASS is checked in tests/test_turing_mma.py
@pytest.mark.parametrize("name,cc", [(n, (8, 0)) for n in NAMES if n not in BOUNDED and not n.endswith("_turing")]
                         + [("mma_pipe", (9, 0))])
def test_sass_tensor_core_no_call(name, cc):
    from kernels_numba.tools import offline
    r = offline.compile_kernel(name, cc)
    counts = offline.sass_counts(r["sass"])
    hmma = "HMMA.16816.F16" if _acc(kn.get(name)) == "f16" else "HMMA.16816.F32"
    assert counts.get(hmma, 0) >= 1 and counts.get("LDSM.16.M88.4", 0) >= 1, counts
    assert counts.get("LDSM.16.MT88.2", 0) + counts.get("LDSM.16.MT88.4", 0) >= 1
    if name != "mma_simple":
        # 16-byte cp.async.cg; ptxas may add an L2 prefetch hint (LDGSTS.E.BYPASS.LTC128B.128, seen in mma_fast)
        ldgsts = sum(v for k, v in counts.items() if k.startswith("LDGSTS.E.BYPASS.") and k.endswith(".128"))
        assert ldgsts >= 1 and counts.get("DEPBAR.LE", 0) >= 1
    # kernels without a register cap (launch_bounds) keep nothing in local memory; the capped ones (BOUNDED) spill
    # on purpose and are checked by test_compile (their SPILLS) and the launch-bounded K-loop test below
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0
    _sass_calls_are_loop_exits(r["sass"])
    spec = kn.get(name)
    # the module's computed bytes; an sm_90 cubin also counts the 1 KB per block the system reserves on 9.0
    assert r["usage"]["shared_bytes"] == getattr(spec.module, "SMEM_BYTES", 768) + (1024 if cc >= (9, 0) else 0)


@pytest.mark.parametrize("name", BOUNDED)
def test_sass_launch_bounded(name):
    """launch_bounds(THREADS, MIN_BLOCKS): registers fit MIN_BLOCKS blocks per SM; the K loop holds every mma of a
    tile, ldmatrix, cp.async, one barrier, and no function call. The spill the cap causes is nearly all in the
    epilogue (64 accumulators stored in 32 steps): at most a few local loads/stores in the K loop (notebook 10 says
    so); the GPU run records the loaded kernel's local bytes."""
    from kernels_numba.tools import offline, resources
    cfg = kn.get(name).module.CONFIG
    r = offline.compile_kernel(name, (9, 0))
    assert r["usage"]["registers"] <= 65536 // (cfg["THREADS"] * cfg["MIN_BLOCKS"])
    loop = [i.op for i in resources.main_loop(r["sass"])]
    assert loop.count("HMMA.16816.F32") == cfg["MI"] * cfg["NI"] * cfg["BK"] // 16
    assert loop.count("LDSM.16.M88.4") == cfg["MI"] * cfg["BK"] // 16 and "LDSM.16.MT88.4" in loop
    assert "LDGSTS.E.BYPASS.128" in loop and loop.count("BAR.SYNC.DEFER_BLOCKING") == 1
    local = [op for op in loop if op.startswith(("LDL", "STL"))]
    assert len(local) <= 8, local
    if name == "mma_pipe4_lb2":
        assert not local
    _sass_calls_are_loop_exits(r["sass"])
    assert r["usage"]["shared_bytes"] == kn.get(name).module.SMEM_BYTES + 1024


def _ldmatrix_phase_wavefronts(row_bytes, col_of, rows, col):
    """(wavefronts, conflict degree) of one ldmatrix phase: 8 lanes give the 16-byte row addresses rows[0..7], col."""
    from sim import banks
    acc = [(lane, r * row_bytes + 2 * col_of(r, col), 16) for lane, r in enumerate(rows)]
    rep = banks.analyze_request(acc, "load")
    return rep.wavefronts, rep.conflict_degree


@pytest.mark.parametrize("BK,BN", [(16, 128), (32, 128), (64, 64)])
def test_swizzle_keeps_ldmatrix_conflict_free(BK, BN):
    """Unpadded rows with the XOR swizzle: every ldmatrix phase of A (8 rows at one k chunk) and of B (8 k rows at one
    n chunk) is one wavefront (sim/banks.py); without the swizzle the same unpadded rows conflict."""
    def xor(cpr):
        sh, mask = tc.swizzle_params(cpr)
        return lambda r, c: c ^ (((r >> sh) & mask) << 3)
    plain = lambda r, c: c                                   # noqa: E731
    for row_elems, starts in ((BK, range(0, 128, 8)), (BN, range(0, BK, 8))):
        for r0 in starts:
            for col in range(0, row_elems, 8):
                rows = range(r0, r0 + 8)
                assert _ldmatrix_phase_wavefronts(2 * row_elems, xor(row_elems // 8), rows, col) == (1, 1)
    assert _ldmatrix_phase_wavefronts(2 * BN, plain, range(8), 0)[1] > 1


def test_swizzle_is_a_permutation_of_each_row():
    """The swizzle moves 16-byte chunks only within their row: no two chunks of a row share a slot."""
    for cpr in (2, 4, 8, 16):
        sh, mask = tc.swizzle_params(cpr)
        for r in range(64):
            assert sorted(c ^ ((r >> sh) & mask) for c in range(cpr)) == list(range(cpr))


def test_old_gpu_runs_level6_on_a_simulator_process(monkeypatch, capsys):
    """On a CC 7.x GPU (no mma.m16n8k16 / cp.async) a level-6 launch runs on the simulator in a subprocess, says so,
    and gives the right C (the kernel never reaches the GPU's ptxas)."""
    from kernels_numba.infra import device
    from kernels_numba.tools import subsim
    monkeypatch.setattr(device, "SIMULATOR", False)
    monkeypatch.setattr(device, "GPU", ("Tesla T4", (7, 5)))
    monkeypatch.setattr(subsim, "_told", set())
    rng = np.random.default_rng(3)
    A = rng.standard_normal((16, 16)).astype(np.float16)
    B = rng.standard_normal((16, 8)).astype(np.float16)
    C = np.full((16, 8), np.nan, np.float32)
    # where a launch runs is decided when it is made (once per process): make one as a T4 process would at import
    m = kn.get("mma_large").module
    launch = tc.make_tc_launch(m.kernel, lambda M, N: (M // 16, N // 8), 32, (16, 8, 16), m.NAME)
    assert launch.away
    launch(A, B, C)
    assert np.abs(C - A.astype(np.float64) @ B.astype(np.float64)).max() < 1e-3
    assert "별도 프로세스의 시뮬레이터" in capsys.readouterr().out
    assert not kn.get("mma_large").runs_here() and kn.get("mma_large_turing").runs_here()


def test_error_bound_refuses_f16_accumulation_beyond_its_range():
    """gamma_K(v) = K v / (1 - K v) needs K v < 1, v = 2u (one addition's error inside the Tensor Core): for f16
    accumulation K < 1024 (issue 27: the guard refused only K u >= 1, K >= 2048, and used 2 gamma_K(u) < gamma_K(2u);
    found by the notebook-10 review before that: K = 2048 divided by zero, K = 4096 gave a negative bound)."""
    import kernels_numba as kn
    k_max = tc.bound_k_max("f16")
    assert k_max == 1023 and 2 * k_max * tc.UNIT_ROUNDOFF["f16"] < 1 <= 2 * (k_max + 1) * tc.UNIT_ROUNDOFF["f16"]
    A = np.ones((2, k_max + 1), np.float16)
    B = np.ones((k_max + 1, 2), np.float16)
    with pytest.raises(kn.CourseInputError, match=f"K = {k_max + 1}"):
        tc.error_bound(A, B, acc="f16")
    assert (tc.error_bound(A[:, :k_max], B[:k_max], acc="f16") > 0).all()
    assert (tc.error_bound(A, B, acc="f32") > 0).all()


def test_error_bound_is_the_formula_of_notebook_10():
    """tc.error_bound = gamma_K(2u) M + u_out |C| (+ u_f32 |C| for f16 output) + u_f32 M + tiny,
    M = |alpha| |A||B| + |beta| |C0|, term by term
    (the formula notebook 10 section 8 writes and lesson10.bound_formula evaluates), and gamma_K(2u) > 2 gamma_K(u)."""
    from course.ch10_tensor_core import lesson as lesson10
    rng = np.random.default_rng(3)
    A = rng.standard_normal((24, 272)).astype(np.float16)
    B = rng.standard_normal((272, 16)).astype(np.float16)
    C0 = rng.standard_normal((24, 16)).astype(np.float32)
    for acc, out in (("f32", "f32"), ("f32", "f16"), ("f16", "f16")):
        for alpha, beta in ((1.0, 0.0), (1.5, -0.5)):
            got = tc.error_bound(A, B, alpha, beta, C0, acc=acc, out=out)
            mine = lesson10.bound_formula(A, B, alpha, beta, C0, acc=acc, out=out)
            np.testing.assert_allclose(got, mine, rtol=1e-12, atol=0)
    # f16 output: both roundings of the result (the f32 sum, then to f16), so it exceeds the f32-output bound by
    # exactly u_f16 |C| and the larger subnormal term
    C = np.abs(1.5 * (A.astype(np.float64) @ B.astype(np.float64)) - 0.5 * C0)
    extra = tc.error_bound(A, B, 1.5, -0.5, C0, out="f16") - tc.error_bound(A, B, 1.5, -0.5, C0, out="f32")
    np.testing.assert_allclose(extra, tc.UNIT_ROUNDOFF["f16"] * C + tc.TINY["f16"] - tc.TINY["f32"], rtol=1e-9)
    K, u = 1000, tc.UNIT_ROUNDOFF["f16"]
    assert K * 2 * u / (1 - K * 2 * u) > 2 * K * u / (1 - K * u)

