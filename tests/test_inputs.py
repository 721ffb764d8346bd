"""Bad input gets a clear bilingual error (what is wrong, what to do) and nothing else."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba import CourseInputError

f32 = np.float32
launch = kn.get("tiled").launch


def ok():
    return np.ones((4, 3), f32), np.ones((3, 5), f32), np.zeros((4, 5), f32)


def _expect(args, *needles, **kw):
    with pytest.raises(CourseInputError) as e:
        launch(*args, **kw)
    msg = str(e.value)
    assert "[입력 오류]" in msg and "[Input error]" in msg and "해결" in msg and "Fix" in msg
    for n in needles:
        assert n in msg, msg
    return msg


def test_wrong_dtype():
    A, B, C = ok()
    _expect((A.astype(np.float64), B, C), "float64", "astype")


def test_not_2d():
    A, B, C = ok()
    _expect((A.ravel(), B, C), "2", "reshape")
    _expect((A, B, C[None]), "3")


def test_shapes_disagree():
    A, B, C = ok()
    _expect((A, np.ones((4, 5), f32), C), "(M, K)")
    _expect((A, B, np.zeros((5, 4), f32)), "(4, 5)")


def test_non_contiguous():
    A, B, C = ok()
    _expect((np.ones((3, 4), f32).T, B, C), "ascontiguousarray")
    _expect((A, np.ones((3, 10), f32)[:, ::2], C), "ascontiguousarray")


def test_empty():
    _expect((np.ones((0, 3), f32), np.ones((3, 5), f32), np.zeros((0, 5), f32)), "비어", "empty")
    _expect((np.ones((4, 0), f32), np.ones((0, 5), f32), np.zeros((4, 5), f32)), "empty")


def test_not_an_array():
    A, B, C = ok()
    _expect((A.tolist(), B, C), "list", "np.asarray")


def test_bad_scalars():
    A, B, C = ok()
    _expect((A, B, C), "alpha", alpha="2")
    _expect((A, B, C), "beta", beta=float("nan"))
    _expect((A, B, C), "alpha", alpha=True)


def test_aliasing_and_readonly():
    M = np.ones((4, 4), f32)
    _expect((M, np.ones((4, 4), f32), M), "메모리", "memory")
    A, B, C = ok()
    C.flags.writeable = False
    _expect((A, B, C), "read-only")


@pytest.mark.sim_only("the size limit guards the simulator, which would take hours; the GPU has none")
def test_too_large_for_simulator():
    big = np.zeros((512, 512), f32)
    _expect((big, big, big.copy()), "simulator", "GPU")


@pytest.mark.gpu_only("the simulator refuses this size (test_too_large_for_simulator)")
def test_large_runs_on_gpu():
    """The same 512^3 call the simulator refuses runs on the GPU, with a non-tile-multiple edge, and is right."""
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((512, 515), dtype=f32), rng.standard_normal((515, 509), dtype=f32)
    C = rng.standard_normal((512, 509), dtype=f32)
    want = 1.5 * (A.astype(np.float64) @ B) - 0.5 * C
    got = launch(A, B, C.copy(), alpha=1.5, beta=-0.5)
    assert np.isfinite(got).all() and np.allclose(got, want, rtol=1e-4, atol=1e-3)


# --- environment variables get the same clear error as arguments ---------------------------------------------

@pytest.mark.parametrize("value", ["abc", "1e9", "0", "-5", "12.5"])
def test_bad_sim_max_mnk(monkeypatch, value):
    from kernels_numba.launch import SIM_MAX_MNK_ENV, sim_max_mnk
    monkeypatch.setenv(SIM_MAX_MNK_ENV, value)
    with pytest.raises(CourseInputError) as e:
        sim_max_mnk()
    msg = str(e.value)
    assert "[입력 오류]" in msg and "[Input error]" in msg and "해결" in msg and "Fix" in msg
    assert SIM_MAX_MNK_ENV in msg and repr(value) in msg and "양의 정수" in msg and "positive integer" in msg


@pytest.mark.sim_only("the limit is read only in simulator mode")
def test_bad_sim_max_mnk_at_launch(monkeypatch):
    """A launch with a bad limit in the environment fails with the variable's error, and then works once it is fixed."""
    monkeypatch.setenv("SGEMM_SIM_MAX_MNK", "abc")
    _expect(ok(), "SGEMM_SIM_MAX_MNK", "'abc'")
    # the work the grid does: one 16x16 tile of C (covering the 4x5 result) times K = 3 -> 768 multiply-adds
    monkeypatch.setenv("SGEMM_SIM_MAX_MNK", " 768 ")           # exactly at the limit
    A, B, C = ok()
    assert (launch(A, B, C) == 3).all()
    monkeypatch.setenv("SGEMM_SIM_MAX_MNK", "767")
    _expect(ok(), "simulator", "767")
    monkeypatch.setenv("SGEMM_SIM_MAX_MNK", "")                # empty counts as unset: the default
    A, B, C = ok()
    assert (launch(A, B, C) == 3).all()


def test_unknown_kernel_name():
    with pytest.raises(CourseInputError, match="tiled"):
        kn.get("tilde")


def test_good_input_still_works_after_errors():
    A, B, C = ok()
    assert (launch(A, B, C) == 3).all()


def test_positive_int_env_names_the_variable(monkeypatch):
    from kernels_numba.infra.errors import positive_int_env
    monkeypatch.setenv("NCU_N", "abc")
    with pytest.raises(CourseInputError, match="NCU_N"):
        positive_int_env("NCU_N", 1024, "한 변", "side")
    monkeypatch.setenv("NCU_N", "512")
    assert positive_int_env("NCU_N", 1024, "한 변", "side") == 512
    monkeypatch.delenv("NCU_N")
    assert positive_int_env("NCU_N", 1024, "한 변", "side") == 1024
