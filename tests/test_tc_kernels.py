"""Level-6 Tensor Core kernels (f16 inputs) in the simulator: float64 reference with the derived tolerance
(kernels_numba.infra.tc.error_bound), identity matrices, alpha/beta, size rules, and the SASS offline."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import tc
from kernels_numba.infra.errors import CourseInputError

TC = [s for s in kn.REGISTRY if s.level == 6]
NAMES = [s.name for s in TC]


def _cdtype(spec):
    return getattr(spec.module, "C_DTYPE", np.float32)


def _acc(spec):
    return getattr(spec.module, "CONFIG", {}).get("acc", "f32")


def _shapes(spec):
    if spec.name == "mma_simple":
        return [(16, 8, 16)]
    if spec.name == "mma_large":
        return [(32, 16, 48), (16, 8, 16)]
    if spec.name in ("mma_warps", "mma_pipe"):      # edge blocks (not multiples of BM, BN, BK), several blocks
        return [(48, 40, 48), (144, 136, 32), (16, 8, 16)]
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
        assert s.dtype is np.float16 and s.min_cc == (8, 0)


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
    if spec.name == "mma_simple":
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


@pytest.mark.parametrize("name,cc", [(n, (8, 0)) for n in NAMES if n != "mma_pipe4_lb2"] + [("mma_pipe", (9, 0))])
def test_sass_tensor_core_no_call(name, cc):
    from kernels_numba.infra import offline
    r = offline.compile_kernel(name, cc)
    counts = offline.sass_counts(r["sass"])
    hmma = "HMMA.16816.F16" if _acc(kn.get(name)) == "f16" else "HMMA.16816.F32"
    assert counts.get(hmma, 0) >= 1 and counts.get("LDSM.16.M88.4", 0) >= 1, counts
    assert counts.get("LDSM.16.MT88.2", 0) + counts.get("LDSM.16.MT88.4", 0) >= 1
    if name != "mma_simple":
        assert counts.get("LDGSTS.E.BYPASS.128", 0) >= 1 and counts.get("DEPBAR.LE", 0) >= 1
    # offline compiles ignore launch_bounds (mma_pipe4_lb2's register cap and its spill exist only on the GPU: the
    # recorded run gives its local bytes); without the cap nothing lives in local memory
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0
    _sass_calls_are_loop_exits(r["sass"])
    spec = kn.get(name)
    # the module's computed bytes; an sm_90 cubin also counts the 1 KB per block the system reserves on 9.0
    assert r["usage"]["shared_bytes"] == getattr(spec.module, "SMEM_BYTES", 768) + (1024 if cc >= (9, 0) else 0)


def test_old_gpu_gets_a_clear_error(monkeypatch):
    """On a CC 7.x GPU (no mma.m16n8k16 / ldmatrix / cp.async) a level-6 launch says so instead of failing in ptxas."""
    from kernels_numba.infra import device
    monkeypatch.setattr(device, "SIMULATOR", False)
    monkeypatch.setattr(device, "GPU", ("Tesla T4", (7, 5)))
    with pytest.raises(CourseInputError, match="8.0"):
        kn.get("mma_large").launch(np.zeros((16, 16), np.float16), np.zeros((16, 8), np.float16),
                                   np.zeros((16, 8), np.float32))
    assert not kn.get("mma_large").runs_here()
