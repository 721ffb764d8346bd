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
        muts = mutation.generated(ex.id)
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


# (exercise, operator, texts the mutant's description contains) -> the diagnosis that names that mistake; the hand-made
# edits of tests/exercise_cases*.py are mutants of their kind too (the same test, test_exercises.py), so a diagnosis
# they already answer is not repeated here
KIND = [
    ("07-1", "swap_names", ("`ty` → `tx`",), "out_of_tile"),
    ("07-3", "loop_bounds", ("range(BK)", "한 번 덜"), "missing_k"),
    ("08-2", "arith", ("26행", "`A.shape[1] + T8 - 1` 의 Sub → Add"), "extra_iterations"),
    ("09-1", "constant", ("`cp_async_wait_group_1` → `cp_async_wait_group_0`",), "no_overlap"),
    ("09-1", "arith", ("29행", "`kt % S3` 의 Mod → FloorDiv"), "compute_stage"),
    ("09-1", "constant", ("27행", "`(kt + S3 - 1) % S3` 의 상수 1 → 2"), "stage_mismatch"),
    ("09-1", "arith", ("20행", "`A.shape[1] + T8 - 1` 의 Sub → Add"), "extra_iterations"),
    ("09-1", "index_off_by_one", ("`issue_tile` 의 인자 `kt + S3 - 1` +1",), "prefetch_distance"),
    ("10-5", "index_off_by_one", ("`copy_tiles` 의 인자 `k0` -1",), "out_of_bounds"),
    ("11-1", "constant", ("`16 * w + g + 8 * (i // 2 % 2)` 의 상수 16 → 32",), "warp_rows"),
    ("11-1", "swap_elements", ("`(row, col)` 의 0·1번 원소 바꾸기",), "transposed"),
    ("11-2", "constant", ("| 1 <` 의 상수 1 → 2",), "swizzle_mode"),
    ("11-2", "constant", ("`addr + kk * 16 * 128` 의 상수 16 → 32",), "k_step"),
    ("11-3", "swap_elements", ("1·2번 원소 바꾸기",), "parities_swapped"),
    ("11-4", "constant", ("`ring.wait_mma(1)` 의 상수 1 → 0",), "no_overlap"),
    ("11-4", "drop_condition", ("조건 `kt > 0` → 늘 참",), "double_release"),
]


@pytest.mark.sim_only("the diagnoses and the traces are the simulator's")
@pytest.mark.parametrize("ex_id, op, texts, code", KIND, ids=[f"{k[0]}-{k[3]}-{i}" for i, k in enumerate(KIND)])
def test_a_diagnosis_names_mutants_of_its_kind(ex_id, op, texts, code):
    ex = core.get(ex_id)
    muts = [m for m in mutation.generated(ex_id) if m.op == op and all(t in m.desc for t in texts)]
    assert muts, f"{ex_id}: no {op} mutant with {texts!r}: " + ", ".join(m.desc for m in mutation.generated(ex_id)
                                                                          if m.op == op)
    status, res = mutation.verdict(ex, muts[0].source)
    assert status == "killed" and res.code == code, f"{muts[0].desc}: {res.code} != {code}\n{res}"
    assert not wrong_particles(_own_text(res)), str(res)


# diagnoses no single edit of the solution produces: wrong types and shapes of the answer, errors of a kind no
# mutant makes, and what only a GPU can say (checked by benchmarks/exercise_checks_gpu.py and the GPU-only tests)
NOT_FROM_A_MUTANT = {"input", "not_implemented", "not_checked", "error", "simulator_fault", "holes", "no_k_offset",
                     "stage_for_tile", "range", "return_order", "tile_not_committed", "size_too_large", "not_whole_blocks",
                     "zero_division", "warps_round_down", "division", "mismatch", "lane_groups", "wrong_values",
                     "edges", "edges_unwritten", "unwritten", "tiles", "per_thread", "k_tile_counts", "race",
                     "register_order", "wrong_elements", "coverage", "b_rows", "a_rows", "b_register_order",
                     "a_register_order", "a_halves_swapped", "b_halves_swapped", "misplaced", "double"}
# 08-2 / 09-1 found no K-tile loop: no edit of a solution and no plausible student answer removes every counting loop,
# so tests/ch08/test_exercises08.py and tests/ch09/test_exercises09.py test it with the loop detector made to find none
TESTED_ELSEWHERE = {"loop_not_found"}


def _codes(path):
    """The diagnosis codes a checker module can give: the second argument of fail()/technique(), the first argument
    of a checker's local out() helper (fail with the blamed line added), and the first item of the (code, message,
    site) findings."""
    import ast
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("fail", "technique") and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant):
            out.add(node.args[1].value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "out" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 3 and \
                isinstance(node.value.elts[0], ast.Constant) and isinstance(node.value.elts[0].value, str):
            out.add(node.value.elts[0].value)
    return out


def test_every_diagnosis_is_tested_against_a_mutant_of_its_kind():
    from pathlib import Path
    from exercise_cases import CASES
    from student_read import SUBMISSIONS
    from course import chapters
    files = [c.path / "exercises.py" for c in chapters.CHAPTERS]          # course/chNN_<slug>/exercises.py
    assert all(f.exists() for f in files)
    codes = set().union(*(_codes(p) for p in files))
    assert len(codes) > 20, codes
    tested = {c for cases in CASES.values() for _, _, c in cases} | {k[3] for k in KIND}
    missing = sorted(codes - tested - NOT_FROM_A_MUTANT - TESTED_ELSEWHERE)
    assert not missing, f"diagnoses no mutant or hand-made wrong answer checks: {missing}"
    # and the ones no single edit makes are answered by the student read's hand-written wrong answers or CASES
    read = {c for s in SUBMISSIONS for c in s[3]}
    assert not sorted(NOT_FROM_A_MUTANT & codes - tested - read - {"input", "not_implemented", "not_checked", "error",
                                                                      "simulator_fault", "tile_not_committed"})
