"""Mutation testing of the exercise checkers in CI (tests/mutation.py makes the mutants; `make mutants` runs them all):
a fixed sample of the wrong answers generated from each solution is caught, every right answer of the corpus
(tests/exercise_corpus.py) passes, and each diagnosis answers the mutants of its own kind, and only those."""
import pytest

import mutation
from course.exercises import core
from course.exercises.diagnose import Foreign
from exercise_corpus import CORPUS
from sim.korean import wrong_particles

ALL = core.catalog()
KERNELS = {"06-2", "06-3", "07-1", "07-2", "07-3", "08-2", "09-1", "09-2", "09-3", "10-5"}
PER_EXERCISE = {True: 2, False: 6}          # sampled mutants per exercise: kernels run on the simulator (~1 s each)


def _own_text(res):
    """The checker's own words in a Result (the simulator's and the race detector's lines are passed on as they are)."""
    return "\n".join([res.message, res.where] + [d for d in res.details if not isinstance(d, Foreign)])


def _sample():
    out = []
    for ex in ALL:
        muts = mutation.generate(ex)
        for m in mutation.sample(muts, PER_EXERCISE[ex.id in KERNELS], seed=ex.id):
            out.append(pytest.param(ex, m, id=f"{ex.id}-{m.id}"))
    return out


def _equivalent_ids():
    import json
    if not mutation.EQUIV_FILE.exists():
        return {}
    return {k: set(v) for k, v in json.loads(mutation.EQUIV_FILE.read_text(encoding="utf-8")).items()}


@pytest.mark.sim_only("the diagnoses and the traces are the simulator's")
@pytest.mark.parametrize("ex, mutant", _sample())
def test_a_sampled_mutant_is_caught(ex, mutant):
    if mutant.id in _equivalent_ids().get(ex.id, ()):
        status, res = mutation.verdict(ex, mutant.source)
        assert status == "survived", f"{mutant.desc}: an equivalent mutant is a right answer and must pass\n{res}"
        return
    status, res = mutation.verdict(ex, mutant.source)
    assert status == "killed", f"{ex.id} {mutant.desc}: the mutant passed\n{mutant.source}"
    assert len(res.message) > 15 and not wrong_particles(_own_text(res)), str(res)


def _corpus():
    return [pytest.param(ex_id, style, src, id=f"{ex_id}-{style}") for ex_id, cases in CORPUS.items()
            for style, src in cases]


def test_corpus_has_three_styles_per_exercise():
    assert {ex.id for ex in ALL} == set(CORPUS)
    assert all(len({style for style, _ in CORPUS[ex.id]}) >= 3 for ex in ALL)


@pytest.mark.parametrize("ex_id, style, src", _corpus())
def test_a_right_answer_in_another_style_passes(ex_id, style, src):
    ex = core.get(ex_id)
    res = mutation.verdict(ex, ex.preamble + "\n" + src, attr=ex.name)[1]
    assert res.ok and res.code == "pass", f"{ex_id}/{style}:\n{res}"
    assert not wrong_particles(_own_text(res)), str(res)


# (exercise, operator, texts the mutant's description contains) -> the diagnosis that names that mistake
KIND = [
    ("06-2", "delete", ("`cuda.syncthreads()` 줄 지우기",), "race"),
    ("06-2", "loop_bounds", ("한 번 덜",), "last_k_tile"),
    ("06-2", "reset_in_loop", ("acc = float32(0.0)",), "acc_reset"),
    ("06-3", "compare", ("r < X.shape[0]",), "out_of_bounds"),
    ("06-3", "drop_condition", ("늘 참",), "out_of_bounds"),
    ("07-1", "swap_names", ("`ty` → `tx`",), "out_of_tile"),
    ("07-1", "swap_names", ("`TM` → `TN`",), "overlap"),
    ("07-3", "accumulate", ("+= → =",), "overwrite"),
    ("07-3", "loop_bounds", ("range(BK)", "한 번 덜"), "missing_k"),
    ("07-4", "constant", ("상수 256 → 512",), "no_alloc_unit"),
    ("08-2", "delete", ("36행", "`cuda.syncthreads()` 줄 지우기"), "race"),
    ("08-2", "arith", ("33행", "`kt % 2` 의 Mod → FloorDiv"), "compute_buffer"),
    ("08-2", "constant", ("38행", "상수 1 → 2"), "epilogue_buffer"),
    ("09-1", "delete", ("`ptx.cp_async_wait_group_1()` 줄 지우기",), "no_wait"),
    ("09-1", "delete", ("`ptx.cp_async_commit_group()` 줄 지우기",), "no_commit"),
    ("09-1", "delete", ("`cuda.syncthreads()` 줄 지우기",), "no_barrier_after_wait"),
    ("09-1", "move_sync", ("commit_group()` 를 위의 if 안으로",), "tail_not_waited"),
    ("09-1", "move_sync", ("commit_group()` 를 한 줄 위로",), "commit_before_issue"),
    ("09-1", "constant", ("`cp_async_wait_group_1` → `cp_async_wait_group_2`",), "wait_too_large"),
    ("09-1", "constant", ("`cp_async_wait_group_1` → `cp_async_wait_group_0`",), "no_overlap"),
    ("09-1", "arith", ("29행", "`kt % S3` 의 Mod → FloorDiv"), "compute_stage"),
    ("09-1", "index_off_by_one", ("`issue_tile` 의 인자 `kt + S3 - 1` +1",), "prefetch_distance"),
    ("09-1", "arith", ("`(kt + S3 - 1) % S3` 의 Mod → FloorDiv",), "overwrite_stage"),
    ("09-1", "constant", ("27행", "`(kt + S3 - 1) % S3` 의 상수 1 → 2"), "stage_mismatch"),
    ("09-1", "arith", ("`(A.shape[1] + T8 - 1) // T8` 의 FloorDiv → Mult",), "extra_iterations"),
    ("09-3", "arith", ("`4 * n` 의 Mult → Add",), "src_size_units"),
    ("10-5", "constant", ("`ldmatrix_x2_trans` → `ldmatrix_x2`",), "b_not_transposed"),
    ("10-5", "constant", ("`ldmatrix_x4` → `ldmatrix_x4_trans`",), "a_transposed"),
    ("10-5", "index_off_by_one", ("`copy_tiles` 의 인자 `k0` -1",), "out_of_bounds"),
]


@pytest.mark.sim_only("the diagnoses and the traces are the simulator's")
@pytest.mark.parametrize("ex_id, op, texts, code", KIND, ids=[f"{k[0]}-{k[3]}-{i}" for i, k in enumerate(KIND)])
def test_a_diagnosis_names_mutants_of_its_kind(ex_id, op, texts, code):
    ex = core.get(ex_id)
    muts = [m for m in mutation.generate(ex) if m.op == op and all(t in m.desc for t in texts)]
    assert muts, f"{ex_id}: no {op} mutant with {texts!r}: " + ", ".join(m.desc for m in mutation.generate(ex)
                                                                          if m.op == op)
    status, res = mutation.verdict(ex, muts[0].source)
    assert status == "killed" and res.code == code, f"{muts[0].desc}: {res.code} != {code}\n{res}"
    assert not wrong_particles(_own_text(res)), str(res)
