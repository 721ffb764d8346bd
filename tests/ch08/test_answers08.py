"""Solutions of notebook 08's "직접 해보기" exercises and quiz 08 question 7's epilogue (answers/) are correct."""
import sys
from pathlib import Path

import numpy as np
import pytest

from kernels_numba.infra import device

import kernels_numba  # noqa: F401  (device choice before numba)
from course.quiz import checks
from sim import pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "answers" / "ch08"))
import ex08_db8  # noqa: E402
import ex08_pipeline  # noqa: E402
import ex08_stages  # noqa: E402
import q7_epilogue  # noqa: E402

CASES = [(100, 10, 4), (80, 100, 4), (400, 2048, 512), (400, 200, 512), (300, 120, 6), (8, 2, 3), (5, 5, 1)]


@pytest.mark.parametrize("L, C, N", CASES)
def test_ex08_pipeline_by_hand_equals_the_model(L, C, N):
    assert ex08_pipeline.single_total(L, C, N) == pipeline.schedule(N, L, C, stages=1).total
    assert ex08_pipeline.double_total(L, C, N) == pipeline.schedule(N, L, C, stages=2).total
    assert ex08_pipeline.speedup(L, C, N) == pytest.approx(pipeline.speedup(N, L, C))


def test_ex08_totals_is_the_pair_of_totals():
    for L, C, N in CASES:
        model = (pipeline.schedule(N, L, C, 1).total, pipeline.schedule(N, L, C, 2).total)
        assert ex08_pipeline.totals(L, C, N) == model


@pytest.mark.parametrize("M, N, K", [(3, 5, 1), (8, 8, 8), (9, 10, 17)])
def test_ex08_db8_matches_numpy(M, N, K):
    rng = np.random.default_rng(K)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = ex08_db8.run(A, B, np.full((M, N), np.nan, np.float32))
    assert np.allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)


@pytest.mark.sim_only("08-2's order check reads the simulator's trace (check_db8 runs it only there)")
def test_ex08_db8_stores_after_the_math():
    from course.ch08_double_buffering import exercises as ex08
    assert ex08._db_order(ex08_db8.db8) is None


def test_notebook08_exercises_are_not_presolved():
    import json
    nb = Path(__file__).resolve().parents[2] / "notebooks" / "08_double_buffering.ipynb"
    cells = json.loads(nb.read_text("utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    starters = [s for s in code if "def my_" in s]
    assert len(starters) == 3 and all("NotImplementedError" in s for s in starters)
    assert not [s for s in code if "expected" in s or "정답입니다" in s or "my_single" in s]


def test_ex08_pipeline_notebook_exercise_values():
    assert (ex08_pipeline.single_total(300, 120, 6), ex08_pipeline.double_total(300, 120, 6)) == (2520, 1920)


def test_ex08_stages_double_buffer_is_the_seed_table():
    assert [(kt, cur, nxt_buf) for kt, cur, _, nxt_buf in ex08_stages.stage_table(4, 2)] == \
        [(0, 0, 1), (1, 1, 0), (2, 0, 1), (3, 1, None)]


def test_ex08_stages_triple_buffer_never_overwrites_a_buffer_in_use():
    for S in (2, 3, 4):
        rows = ex08_stages.stage_table(9, S)
        assert [r[1] for r in rows] == [kt % S for kt in range(9)]
        for kt, cur, tile, buf in rows:
            if tile is not None:
                assert tile == kt + S - 1 and buf == tile % S
                assert buf != cur                               # never the buffer being computed
                assert kt == 0 or buf == rows[kt - 1][1]        # the one freed by the previous barrier
        assert {r[2] for r in rows if r[2] is not None} == set(range(S - 1, 9))   # prologue loads 0..S-2


def test_ex08_stages_shared_bytes():
    assert [ex08_stages.smem_bytes(s) for s in (1, 2, 3)] == [8736, 17472, 26208]
    assert ex08_stages.smem_bytes(2, pad=0) == 2 * (128 * 8 + 8 * 128) * 4


def test_q7_model_epilogue_passes_the_checker():
    ok, msg = checks.epilogue_code([q7_epilogue.EPILOGUE])
    assert ok, msg


@pytest.mark.parametrize("name", sorted(q7_epilogue.WRONG))
def test_q7_checker_names_each_typical_mistake(name):
    code, needle = q7_epilogue.WRONG[name]
    if name == "buffer_from_kt" and not device.SIMULATOR:
        pytest.skip("on a GPU the compiled epilogue reads an undefined kt (wrong values, told so), not a NameError")
    ok, msg = checks.epilogue_code([code])
    assert not ok and needle in msg, msg


@pytest.mark.parametrize("name", sorted(q7_epilogue.RIGHT))
def test_q7_checker_passes_each_right_epilogue(name):
    ok, msg = checks.epilogue_code([q7_epilogue.RIGHT[name]])
    assert ok, msg


@pytest.mark.parametrize("blanks, needle", [
    ([], "한 칸"), (["a", "b"], "한 칸"), (["# 주석만\n"], "코드가 없습니다"),
    (["acc +="], "문법 오류"), (["while True:\n    pass"], "while 문을 쓸 수 없습니다"), (["x = open"], "'open'"),
    (["x = A.T"], ".T"), (["x = __import__"], "'__import__'"), (["x = 10 ** 9"], "거듭제곱(**)을 쓸 수 없습니다"),
])
def test_q7_checker_refuses_what_is_not_kernel_code(blanks, needle):
    ok, msg = checks.epilogue_code(blanks)
    assert not ok and msg.startswith("코드 오류") and needle in msg, msg


def test_q7_epilogue_indentation_is_fitted_to_the_loop():
    indented = "".join("        " + ln + "\n" for ln in q7_epilogue.EPILOGUE.splitlines())
    assert checks.epilogue_source(indented) == checks.epilogue_source(q7_epilogue.EPILOGUE)
    assert checks.epilogue_code([indented])[0]


def test_notebook08_is_exactly_its_generator_output(tmp_path):
    import runpy
    root = Path(__file__).resolve().parents[2]
    gen = runpy.run_path(str(root / "course" / "ch08_double_buffering" / "notebook.py"))      # defines the cells, writes nothing
    out = gen["write"](tmp_path / "08.ipynb")
    assert out.read_text(encoding="utf-8") == (root / "notebooks" / "08_double_buffering.ipynb").read_text(encoding="utf-8"), \
        "notebooks/08_double_buffering.ipynb 가 낡았습니다: python -m course.ch08_double_buffering.notebook"
