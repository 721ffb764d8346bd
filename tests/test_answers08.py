"""Solutions of notebook 08's "직접 해보기" exercises and quiz 08 question 7's epilogue (answers/) are correct."""
import sys
from pathlib import Path

import numpy as np
import pytest

import kernels_numba  # noqa: F401  (device choice before numba)
from course.quiz import checks
from sim import pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "answers"))
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


def test_ex08_db8_stores_after_the_math():
    from course.exercises import ex08
    assert not ex08.store_before_compute(ex08_db8.db8)


def test_notebook08_exercises_are_not_presolved():
    import json
    nb = Path(__file__).resolve().parents[1] / "notebooks" / "08_double_buffering.ipynb"
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


@pytest.mark.parametrize("K", [1, 5, 8, 13, 16, 29, 37])
def test_q7_epilogue_matches_numpy(K):
    rng = np.random.default_rng(K)
    A = rng.standard_normal((6, K), dtype=np.float32)
    B = rng.standard_normal((K, 5), dtype=np.float32)
    assert q7_epilogue.matches_numpy(A, B)


@pytest.mark.parametrize("mistake", ["forget_tail", "tail_width_bk", "wrong_buffer", "no_prologue"])
def test_q7_epilogue_broken_versions_fail(mistake):
    rng = np.random.default_rng(1)
    results = []
    for K in (5, 13, 29):                   # all have a leftover (K % 8 != 0)
        A = rng.standard_normal((6, K), dtype=np.float32)
        B = rng.standard_normal((K, 5), dtype=np.float32)
        results.append(q7_epilogue.matches_numpy(A, B, mistake=mistake))
    assert not all(results)


def test_q7_forgetting_the_tail_is_harmless_only_when_K_is_a_multiple_of_BK():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((4, 16), dtype=np.float32)
    B = rng.standard_normal((16, 3), dtype=np.float32)
    assert q7_epilogue.matches_numpy(A, B, mistake="forget_tail")
    assert not q7_epilogue.matches_numpy(A[:, :13].copy(), B[:13].copy(), mistake="forget_tail")


@pytest.mark.parametrize("blanks", [["K % BK", "full * BK", "full % 2"], ["K - full * BK", "(kt + 1) * BK", "full % 2"],
                                    ["K - BK * full", "K - rem", "full - full // 2 * 2"]])
def test_q7_checker_accepts_correct_epilogues(blanks):
    ok, msg = checks.epilogue_blanks(blanks)
    assert ok, msg


@pytest.mark.parametrize("blanks, needle", [
    (["0", "full * BK", "full % 2"], "A @ B"),                 # no epilogue at all: the last tile is forgotten
    (["K % BK", "full * BK", "(full + 1) % 2"], "NaN"),       # wrong buffer
    (["K % BK", "kt * BK", "full % 2"], "A @ B"),             # reloads the last whole tile
    (["BK", "full * BK", "full % 2"], "실행 오류"),              # a whole tile past the end of K
    (["K % BK", "full * BK", "kt % 2"], "실행 오류"),           # kt does not exist when K < BK
    (["K % BK", "open", "full % 2"], "코드 오류"),
    (["K % BK", "full * BK"], "빈칸 3개"),
])
def test_q7_checker_rejects_wrong_epilogues(blanks, needle):
    ok, msg = checks.epilogue_blanks(blanks)
    assert not ok and needle in msg, msg


def test_q7_model_answer_file_and_checker_agree_on_the_template():
    # the runnable answer uses the same prologue / prefetch / epilogue structure as the quiz template
    assert checks.EPILOGUE_TEMPLATE.count("___") == 3 and checks.EPILOGUE_BK == q7_epilogue.BK


def test_notebook08_is_exactly_its_generator_output(tmp_path):
    import runpy
    root = Path(__file__).resolve().parents[1]
    gen = runpy.run_path(str(root / "notebooks" / "src" / "nb08.py"))      # defines the cells, writes nothing
    out = gen["write"](tmp_path / "08.ipynb")
    assert out.read_text(encoding="utf-8") == (root / "notebooks" / "08_double_buffering.ipynb").read_text(encoding="utf-8"), \
        "notebooks/08_double_buffering.ipynb 가 낡았습니다: python notebooks/src/nb08.py"
