"""Messages of notebook 08's exercise checkers that the diagnosis code alone does not pin down."""
from pathlib import Path

import pytest

from course import exercises
from exercise_cases import import_source
from exercise_cases_08 import CASES, RIGHT

ROOT = Path(__file__).resolve().parents[2]
sim_only = pytest.mark.sim_only("08-2's structure checks read the simulator's trace")


def _check_08_2(label, tmp_path):
    """Run 08-2's checker on the solution with the edits of one of its typical wrong answers (exercise_cases_08)."""
    edits = dict((lab, ed) for lab, ed, _ in CASES["08-2"])[label]
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    for old, new in edits:
        src = src.replace(old, new)
    mod = import_source(src, tmp_path)
    return exercises.check("08-2", mod.db8, save=False)


@sim_only
def test_08_2_guarded_loop_is_told_it_is_not_the_asked_structure(tmp_path):
    # review round 16, M-1: db's `if kt + 1 < n_tiles` form over n_tiles iterations reads nothing outside the matrix;
    # its last iteration computes the real last tile, so the message must say so and name the asked structure
    res = _check_08_2("db_guarded_loop_without_epilogue", tmp_path)
    assert res.code == "guarded_last_iteration", str(res)
    assert "행렬 밖" not in res.message and "0 을 더할" not in res.message
    assert "반복 kt = 3은 다음 타일을 읽지도 저장하지도 않고 마지막 타일 3을 계산합니다" in res.message
    assert "n_tiles − 1 번만" in res.message and "에필로그" in res.message


@sim_only
def test_08_2_empty_last_iteration_is_not_said_to_compute(tmp_path):
    res = _check_08_2("empty_last_iteration", tmp_path)
    assert res.code == "guarded_last_iteration" and "할 일이 없는 반복" in res.message, str(res)


@sim_only
@pytest.mark.parametrize("label, tail", [
    ("unguarded_loop_without_epilogue", "마지막 타일 3은 반복 kt = 3이 계산하고 에필로그는 없습니다"),
    ("one_tile_too_many", "에필로그는 그 0 타일을 계산해 0 을 더할 뿐입니다"),
])
def test_08_2_a_prefetch_past_the_end_names_the_tile_outside_the_matrix(tmp_path, label, tail):
    res = _check_08_2(label, tmp_path)
    assert res.code == "extra_iterations", str(res)
    assert "반복 kt = 3은 타일 4를 미리 읽는데, 그 타일은 행렬 밖" in res.message and tail in res.message, str(res)


@sim_only
@pytest.mark.parametrize("label", [lab for lab, _ in RIGHT["08-2"]])
def test_08_2_right_answers_written_differently_pass(label, tmp_path):
    # review round 17, W-1: a prefetch (or a store, or the whole iteration) in a device function of the student's own
    # belongs to the iteration of the loop that called it; the solution's order written that way must pass
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    for old, new in dict(RIGHT["08-2"])[label]:
        assert old in src, f"{label}: the edit no longer matches the solution: {old!r}"
        src = src.replace(old, new)
    mod = import_source(src, tmp_path)
    res = exercises.check("08-2", mod.db8, save=False)
    assert res.ok and res.code == "pass", f"{label}\n{res}"


@sim_only
@pytest.mark.parametrize("label, needle", [
    ("b_row_from_tx", "Bs[1, 1, 0]에 B[8, 0]을 저장합니다"),
    ("a_row_from_col", "As[1, 1, 0]에 A[0, 8]을 저장합니다"),
    ("a_and_b_swapped_in_the_stores", "As 에 B 의 원소를 저장했습니다"),
])
def test_08_2_a_wrong_index_in_the_loop_is_named_at_its_load(tmp_path, label, needle):
    # review round 17, M-1: thread (0, 0) has tx = ty = row = col = 0; a thread with tx != ty names the element
    res = _check_08_2(label, tmp_path)
    assert res.code == "wrong_element" and needle in res.message and "읽은 곳" in str(res), str(res)
    assert "tile_dot 에 넘기는" not in res.message


@sim_only
def test_08_2_every_load_of_the_next_tile_comes_before_the_compute(tmp_path):
    # review round 17, W-2: the A load before the compute hid the B load after it
    res = _check_08_2("b_load_after_compute", tmp_path)
    assert res.code == "load_after_compute" and "다음 B 타일의 글로벌 로드" in res.message, str(res)
    assert "load_or_zero(B" in str(res)


def test_08_1_float_rows_are_told_the_values_must_be_integers(tmp_path):
    # review round 17, I-2: four values per row, the shape is right: the message names the type, not the shape
    src = (ROOT / "answers" / "ch08" / "ex08_stages.py").read_text("utf-8")
    edits = dict((lab, ed) for lab, ed, _ in CASES["08-1"])["float_rows"]
    for old, new in edits:
        src = src.replace(old, new)
    res = exercises.check("08-1", import_source(src, tmp_path).stage_table, save=False)
    assert res.code == "input" and "값은 정수(또는 None)" in res.message and "0.0" in res.message, str(res)


def test_08_3_load_bound_rule_taken_as_general_is_named(tmp_path):
    # review round 17, I-1: N·L + C (3.1's N·8 + 2) is wrong only where C > L, and is not "min instead of max"
    res = exercises.check("08-3", lambda L, C, N: (N * (L + C), N * L + C), save=False)
    assert res.code == "load_bound_only" and "3.1절" in res.message, str(res)
    res = exercises.check("08-3", lambda L, C, N: (N * (L + C), L + C + (N - 1) * min(L, C)), save=False)
    assert res.code == "min_not_max", str(res)


@sim_only
def test_08_2_one_k_tile_right_and_more_wrong_points_at_the_loop(tmp_path, monkeypatch):
    # review round 17, M-1 (a): without the trace's diagnosis (as where the loop's stores are not checked), the shapes
    # still tell it: one K tile (the prologue alone) right, more wrong -> the main loop's loads and stores
    from course.ch08_double_buffering import exercises as ex08
    monkeypatch.setattr(ex08, "_db_deviation", lambda kernel: None)
    res = _check_08_2("a_row_from_col", tmp_path)
    assert res.code == "loop_tiles" and "K 타일이 1개일 때(프롤로그만)는 맞고" in res.message, str(res)
    assert "tile_dot 에 넘기는" not in res.message


@sim_only
@pytest.mark.parametrize("label", ["k_offset_loop_single_buffer_two_barriers", "k_offset_loop_store_before_compute"])
def test_08_2_a_loop_over_the_k_offset_is_judged_like_one_over_kt(tmp_path, label):
    # review round 18, W-2: `for k0 in range(T8, n_tiles * T8, T8)` has no counter growing by 1; its iterations are
    # still found (iteration kt = 0 is the first), so one buffer or db's order is named, never a PASS
    res = _check_08_2(label, tmp_path)
    assert not res.ok and "반복 kt = 0에서" in res.message, str(res)


@sim_only
def test_08_2_kt_reused_after_the_loop_is_no_iteration(tmp_path):
    # review round 18, W-1: `kt = n_tiles - 1` after the loop made a 4th, idle "iteration kt = 3"
    from course.ch08_double_buffering import exercises as ex08
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    for old, new in dict(RIGHT["08-2"])["kt_reused_for_the_epilogue"]:
        src = src.replace(old, new)
    _, iters, after = ex08.db_trace(import_source(src, tmp_path).db8)
    assert [kt for kt, _ in iters] == [0, 1, 2], iters
    assert [e.args["buf"] for e in after if e.kind == "call" and e.what == "tile_dot"] == [1]


@sim_only
def test_08_2_a_loop_it_cannot_follow_is_said_not_passed(tmp_path, monkeypatch):
    # review round 18, W-2 (2): no loop found in the trace -> not a silent PASS: the message says so and what it expects
    from course.exercises import probe
    monkeypatch.setattr(probe, "loop_iterations", lambda events, min_iters=2: (events, [], []))
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    res = exercises.check("08-2", import_source(src, tmp_path).db8, save=False)
    assert not res.ok and res.code == "loop_not_found", str(res)
    assert "메인 루프를 찾지 못해" in res.message and "n_tiles − 1 번" in res.message, str(res)


@sim_only
@pytest.mark.parametrize("label, needle", [
    ("computes_from_global_without_shared_memory", "타일 0의 원소를 글로벌 메모리에서 곧바로 읽어 계산합니다"),
    ("stores_the_next_tile_but_computes_from_global", "타일 0의 원소를 글로벌 메모리에서 곧바로 읽어 계산합니다"),
    ("epilogue_from_global", "에필로그가 마지막 타일 3을 공유 메모리에서 계산하지 않습니다"),
])
def test_08_2_right_values_computed_from_global_memory_are_not_double_buffering(tmp_path, label, needle):
    # review round 19, W-1: right values with no shared memory in the computation (or shared stores never read) passed;
    # every tile's computation must read the buffer that holds it, also when the values are right
    res = _check_08_2(label, tmp_path)
    assert not res.ok and res.code == "no_shared_compute" and needle in res.message, str(res)


@sim_only
def test_08_2_the_unrolled_loop_is_cut_into_one_piece_per_tile(tmp_path):
    # review round 19, W-2: a loop unrolled by two computes two tiles per iteration; it is judged per tile (per barrier
    # interval), so its iteration kt = 0 is two pieces, each computing one buffer and storing into the other
    from course.ch08_double_buffering import exercises as ex08
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    for old, new in dict(RIGHT["08-2"])["unrolled_by_two"]:
        src = src.replace(old, new)
    _, iters, _ = ex08.db_trace(import_source(src, tmp_path).db8)
    pieces = ex08._db_pieces(iters)
    assert [p for _, p, _ in pieces] == [0, 1, 2] and len(iters) == 2, pieces
    bufs = [[e.args["buf"] for e in evs if e.kind == "call" and e.what == "tile_dot"] for _, _, evs in pieces]
    assert bufs == [[0], [1], [0]], bufs
    assert "2개 중 2번째" in pieces[1][0]


def test_08_1_a_prefetch_without_its_buffer_is_told_to_name_the_buffer(tmp_path):
    # review round 19, I-3: (kt, cur, tile, None) got only "버퍼 번호는 0 … 1입니다."
    stage_table = import_source((ROOT / "answers" / "ch08" / "ex08_stages.py").read_text("utf-8"), tmp_path).stage_table

    def student(n, S):
        return [r if r[2] is None else (r[0], r[1], r[2], None) for r in stage_table(n, S)]
    res = exercises.check("08-1", student, save=False)
    assert res.code == "input" and "그 타일을 넣을 버퍼 번호" in res.message, str(res)


@sim_only
def test_08_2_race_note_comes_before_the_detector_suggestions(tmp_path):
    # review round 21, I-1: the loop without its barrier: the one-barrier advice is read before the per-race lines
    src = (ROOT / "answers" / "ch08" / "ex08_db8.py").read_text("utf-8")
    old = "        cuda.syncthreads()          # next iteration"
    assert old in src
    res = exercises.check("08-2", import_source(src.replace(old, "        pass  # "), tmp_path).db8, save=False)
    assert res.code == "race", str(res)
    text = [str(d) for d in res.details]
    note = next(i for i, d in enumerate(text) if "경쟁이 나는 자리는 둘" in d)
    assert note < next(i for i, d in enumerate(text) if d.startswith("경쟁 검출기")), str(res)
