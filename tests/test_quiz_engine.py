"""Grading, tolerance, key obfuscation and the code-question checker of course.quiz."""
import re
import time
from pathlib import Path

import pytest

from course.quiz import checks, engine
from course.quiz.engine import (NOT_A_NUMBER, UNANSWERED, decode_key, encode_key, grade, grade_question,
                                load_quiz, quiz_from_dict, run_checker, within_tolerance)

ROOT = Path(__file__).resolve().parents[1]

CORRECT = {"q1": "32", "q2": {"text": "데이터 재사용", "self_ok": True}, "q3": "8192",
           "q4": ["ty", "tx", "row", "a_col"], "q5": {"text": "덮어쓰기 경쟁", "self_ok": True},
           "q6": "c", "q7": "b", "q8": "16"}


@pytest.fixture
def quiz():
    return load_quiz("06")


@pytest.fixture(autouse=True)
def _answers_here(monkeypatch):
    monkeypatch.delenv(engine.ANSWERS_ENV, raising=False)


def _one(kind, key, **extra):
    """A one-question quiz built the way build.py does it."""
    q = {"id": "x", "type": kind, "prompt": "?", "key_enc": encode_key("t", "x", key), **extra}
    return quiz_from_dict({"quiz": "t", "pass_at": 1, "questions": [q]})


def test_mc_right_wrong_unanswered(quiz):
    q = quiz.question("q6")
    assert grade_question(quiz, q, "c") == (True, "정답")
    assert grade_question(quiz, q, "b") == (False, "오답")
    assert grade_question(quiz, q, None) == (False, UNANSWERED)
    ok, msg = grade_question(quiz, q, "z")
    assert not ok and "알 수 없는" in msg


@pytest.mark.parametrize("text,ok", [("32", True), (" 32.0 ", True), ("3.2e1", True), (32, True),
                                     ("31", False), ("33", False), ("-32", False)])
def test_numeric(quiz, text, ok):
    assert grade_question(quiz, quiz.question("q1"), text)[0] is ok


@pytest.mark.parametrize("text", ["abc", "개", "nan", "inf", "nan%", "1/2", True, [32]])
def test_numeric_not_a_number(quiz, text):
    assert grade_question(quiz, quiz.question("q1"), text) == (False, NOT_A_NUMBER)


@pytest.mark.parametrize("text,unit", [("32 개수", "'개수'는"), ("32%%", "'%%'는"), ("32 b", "'b'는")])
def test_a_number_with_a_unit_no_quiz_reads_is_told_so(quiz, text, unit):
    ok, msg = grade_question(quiz, quiz.question("q1"), text)
    assert not ok and msg.startswith(unit + " 읽을 수 없는 단위입니다: 숫자만") and msg != NOT_A_NUMBER, msg


def _numeric_questions():
    from course import chapters
    return [(nb, q.id) for nb in chapters.numbers() for q in load_quiz(nb).questions if q.type == "numeric"]


@pytest.mark.parametrize("nb,qid", _numeric_questions())
def test_numeric_answer_may_carry_the_unit_its_prompt_asks_in(nb, qid):
    """Review r18 M-2: '12.5%' to 몇 %, '64개' to 몇 개 are the key; every numeric prompt invites a unit; a wrong number
    with that unit stays wrong, and a unit the prompt does not ask in is not read as the number."""
    quiz = load_quiz(nb)
    q = quiz.question(qid)
    key = float(quiz.key(qid))
    units = engine.invited_units(q.prompt)
    assert units, q.prompt
    written = {"B": ("B", " bytes", "바이트"), "%": ("%", " %", "퍼센트"), "개": ("개", " 개"),
               "배": ("배", " 배", "x", "×"), "블록": ("블록", " 블록", " blocks"),
               "번": ("번", " 번"), "FLOP/byte": (" FLOP/byte", "FLOP/B")}
    wrong = key + max(1.0, abs(key))                 # outside every tolerance the quizzes use (abs ≤ 0.5, rel ≤ 10 %)
    for u in units:
        for w in written[u]:
            assert grade_question(quiz, q, f"{key:g}{w}") == (True, "정답"), (f"{key:g}{w}", q.prompt)
            assert grade_question(quiz, q, f"{wrong:g}{w}") == (False, "오답"), f"{wrong:g}{w}"
    for u in sorted(set(written) - set(units)):
        ok, msg = grade_question(quiz, q, f"{key:g}{written[u][0]}")
        assert not ok and engine.WRONG_UNIT in msg and "숫자만" in msg, (u, msg)
    assert grade_question(quiz, q, written[units[0]][0].strip()) == (False, NOT_A_NUMBER)


def test_quiz07_percent_and_count_answers():
    """The reviewer's answers: q5 '12.5%' and '12.5 %', q1 '64개'; 13.5 % and 63개 stay wrong; '12.5배' to 몇 % is
    told its unit is not the question's (with the josa of the unit)."""
    quiz = load_quiz("07")
    q1, q5 = quiz.question("q1"), quiz.question("q5")
    for text in ("12.5%", "12.5 %", " 12.5 % ", "12.5퍼센트"):
        assert grade_question(quiz, q5, text) == (True, "정답"), text
    assert grade_question(quiz, q5, "13.5%") == (False, "오답")
    assert grade_question(quiz, q1, "64개") == (True, "정답") and grade_question(quiz, q1, "63개") == (False, "오답")
    ok, msg = grade_question(quiz, q5, "12.5배")
    assert not ok and msg.startswith("'배'는 ") and "% 단위" in msg, msg
    assert grade_question(quiz, q1, "64번")[1].startswith("'번'은 ")
    assert engine.parse_number("12.5%") == 12.5 and engine.split_number("64 개") == (64.0, "개")


def test_multipliers_and_blocks_as_the_notebooks_write_them():
    """Review r23 I-1: the notebooks write multipliers as '×2.43', so '×2.4' (and 'x2.4', '2.4x') to 몇 배 is a
    number in 배; '2블록' to quiz 08 q6 ('블록 수를 숫자로') is read as 2 blocks. A multiplier stays wrong where the
    question asks for something else."""
    q10, q8 = load_quiz("10"), load_quiz("08")
    key = float(q10.key("q9"))
    for text in (f"×{key:.1f}", f"x{key:.1f}", f"X {key:.1f}", f"{key:.1f}x", f"{key:.1f}배"):
        assert grade_question(q10, q10.question("q9"), text) == (True, "정답"), text
    assert engine.split_number("×2.43") == (2.43, "배") and engine.split_number("×") == (None, None)
    assert grade_question(q8, q8.question("q6"), "2블록") == (True, "정답")
    assert grade_question(q8, q8.question("q6"), "3블록") == (False, "오답")
    ok, msg = grade_question(load_quiz("07"), load_quiz("07").question("q1"), "×64")
    assert not ok and msg.startswith("'×'는 ") and engine.WRONG_UNIT in msg, msg


def test_numeric_unanswered(quiz):
    assert grade_question(quiz, quiz.question("q3"), "   ") == (False, UNANSWERED)
    assert grade_question(quiz, quiz.question("q3"), "8,192") == (True, "정답")


def test_tolerance_edges():
    assert within_tolerance(16.5, 16, {"abs": 0.5}) and not within_tolerance(16.5001, 16, {"abs": 0.5})
    assert within_tolerance(15.5, 16, {"abs": 0.5}) and not within_tolerance(15.49, 16, {"abs": 0.5})
    assert within_tolerance(8192 * 1.01, 8192, {"rel": 0.01}) and not within_tolerance(8275, 8192, {"rel": 0.01})
    assert within_tolerance(101, 100, {"abs": 1, "rel": 0.001})         # the looser of the two wins
    assert within_tolerance(100.1, 100, {"abs": 0.01, "rel": 0.001})
    assert not within_tolerance(32.000001, 32, {"abs": 0})
    q = _one("numeric", 2.5, tolerance={"rel": 0.1})
    assert grade_question(q, q.questions[0], "2.75")[0] and not grade_question(q, q.questions[0], "2.76")[0]


@pytest.mark.parametrize("value", [32, 8192, "c", ["ty", "tx", "row", "a_col"], 2.5, "데이터 재사용: 16배", {"a": [1]}])
def test_obfuscation_round_trip_and_unreadable(value):
    blob = encode_key("06", "q9", value)
    assert decode_key("06", "q9", blob) == value
    assert blob == encode_key("06", "q9", value)                      # deterministic (build is reproducible)
    plain = value if isinstance(value, str) else str(value)
    assert plain not in blob and str(value) not in blob
    assert decode_key("06", "q9", encode_key("06", "q9", value, "model"), "model") == value
    with pytest.raises(Exception):
        assert decode_key("07", "q9", blob) != value                   # another quiz id gives garbage


def test_shipped_keys_unreadable(quiz):
    for q in quiz.questions:
        blob = q.key_enc or q.model_enc
        assert blob
        key = quiz.key(q.id) if q.key_enc else quiz.model_answer(q.id)
        for plain in ([str(key)] + ([", ".join(key)] + key if isinstance(key, list) else [])):
            assert plain not in blob


def test_score_threshold(quiz):
    five = dict(CORRECT, q1="31", q3="1", q8="2")
    six = dict(CORRECT, q1="31", q8="2")
    r5, r6 = grade(quiz, five), grade(quiz, six)
    assert (r5.score, r5.passed, r5.total, r5.pass_at) == (5, False, 8, 6)
    assert (r6.score, r6.passed) == (6, True)
    full = grade(quiz, CORRECT)
    assert (full.score, full.passed) == (8, True)
    assert full.correct_map() == {f"q{i}": True for i in range(1, 9)}


def test_empty_submission(quiz):
    r = grade(quiz, {})
    assert r.score == 0 and not r.passed
    assert all(x.feedback == UNANSWERED for x in r.results)


def test_bad_inputs_never_raise(quiz):
    weird = {"q1": [1, 2], "q2": 5, "q3": {"x": 1}, "q4": "ty", "q5": None, "q6": 3, "q7": ["b"],
             "q8": object(), "q99": "extra"}
    r = grade(quiz, weird)
    assert r.score == 0 and len(r.results) == 8
    assert all(isinstance(x.feedback, str) and x.feedback for x in r.results)


def test_explain_self_assessment(quiz):
    q = quiz.question("q2")
    assert grade_question(quiz, q, {"text": "재사용", "self_ok": True})[0]
    assert not grade_question(quiz, q, {"text": "재사용", "self_ok": False})[0]
    assert grade_question(quiz, q, {"text": "  ", "self_ok": True}) == (False, UNANSWERED)
    assert not grade_question(quiz, q, "재사용")[0]


def test_explanations_only_with_answers_dir(quiz, tmp_path, monkeypatch):
    r = grade(quiz, CORRECT)
    assert r.has_explanations and all(x.explanation for x in r.results)
    assert "ty, tx, row, a_col" in r.results[3].explanation
    monkeypatch.setenv(engine.ANSWERS_ENV, str(tmp_path))
    r = grade(quiz, CORRECT)
    assert r.score == 8 and not r.has_explanations and all(x.explanation is None for x in r.results)


def test_checker_exception_and_timeout(monkeypatch):
    def boom(blanks):
        raise ZeroDivisionError("bad")

    def slow(blanks):
        time.sleep(2)
        return True, "late"

    monkeypatch.setattr(checks, "boom", boom, raising=False)
    monkeypatch.setattr(checks, "slow", slow, raising=False)
    monkeypatch.setattr(checks, "odd", lambda b: "yes", raising=False)
    ok, msg = run_checker("course.quiz.checks:boom", ["x"])
    assert not ok and "ZeroDivisionError" in msg
    ok, msg = run_checker("course.quiz.checks:slow", ["x"], timeout=0.2)
    assert not ok and "시간 초과" in msg
    assert not run_checker("course.quiz.checks:odd", ["x"])[0]
    assert not run_checker("os:system", ["echo hi"])[0]
    q = _one("code", ["a"], template="___", checker="course.quiz.checks:boom")
    r = grade(q, {"x": ["a"]}, answer_key=None)
    assert r.score == 0 and "ZeroDivisionError" in r.results[0].feedback


# --- the code checker of question 4: graded by running the kernel ---

def test_checker_correct_blanks_pass():
    ok, msg = checks.tiled_load_blanks(["ty", "tx", "row", "a_col"])
    assert ok, msg
    assert checks.tiled_load_blanks([" ty", "tx ", "row", "t * TILE_SIZE + tx"])[0]   # equivalent form


def test_checker_swapped_blanks_fail_by_running():
    blanks = ["tx", "ty", "row", "a_col"]
    codes, err = checks._compile_blanks(blanks, 4)
    assert err is None
    import numpy as np
    A, B = np.ones((20, 21), np.float32), np.ones((21, 18), np.float32)
    assert checks._precheck_load(codes, A, B) is None     # in range: only the run can tell it is wrong
    ok, msg = checks.tiled_load_blanks(blanks)
    assert not ok and "결과가" in msg
    from kernels_numba.infra import device
    if device.SIMULATOR:        # the race note names the lines as notebook 06 lists kernels_numba/tiled.py
        lines = (ROOT / "kernels_numba" / "tiled.py").read_text(encoding="utf-8").splitlines()
        load, zero = (lines.index(f"            {code}") + 1 for code in (checks.LOAD_LINE, "As[ty, tx] = float32(0.0)"))
        assert f"kernels_numba/tiled.py 의 {load}행과 {zero}행" in msg, msg


def _tiled_lines():
    lines = (ROOT / "kernels_numba" / "tiled.py").read_text(encoding="utf-8").splitlines()
    return [lines.index(f"            {code}") + 1 for code in (checks.LOAD_LINE, "As[ty, tx] = float32(0.0)")]


def test_checker_transposed_blanks_say_transposed_not_barrier():
    """A transposed As index collides with the else line's store: the message says so and never offers a barrier the
    blanks cannot add (review round 17, M-1)."""
    ok, msg = checks.tiled_load_blanks(["tx", "ty", "row", "a_col"])
    load, zero = _tiled_lines()
    assert not ok and "전치" in msg and "syncthreads" not in msg, msg
    assert "As[0, 1]에는 A[0, 1]이 있어야 하는데 스레드 (tx=0, ty=1)의 빈칸 줄" in msg, msg   # the wrong value, named
    assert (f"스레드 (tx=5, ty=0)의 else 줄({zero}행)과 스레드 (tx=0, ty=5)의 빈칸 줄({load}행)이 같은 원소 As[0, 5]"
            in msg), msg
    from kernels_numba.infra import device
    if device.SIMULATOR:        # the detector's WAW is reported with what is really wrong instead of its barrier advice
        assert "WAW 경쟁을 찾았습니다" in msg and checks.BLANKS_ONLY_FIX in msg, msg


@pytest.mark.parametrize("blanks, says", [
    (["ty", "ty", "row", "a_col"], "스레드 (tx=0, ty=0)의 빈칸 줄"),       # overlapping: 16 threads on the diagonal
    (["ty", "tx % 8", "row", "a_col"], "같은 원소 As[0, 0]"),
    (["ty", "tx", "row", "a_col - tx"], "As[0, 1]에는 A[0, 1]이 있어야 하는데 스레드 (tx=1, ty=0)의 빈칸 줄"),
    (["ty", "tx", "row", "t * TILE_SIZE + (tx + 1) % 5"], "A[0, 1]을 넣습니다")])
def test_checker_wrong_tile_names_the_element(blanks, says):
    ok, msg = checks.tiled_load_blanks(blanks)
    assert not ok and says in msg and "syncthreads" not in msg, msg


def test_checker_accepts_a_permuted_but_consistent_load():
    """Judged by behaviour: rows permuted inside groups of 4 with the matching A row still fill every element right."""
    perm = "ty - ty % 4 + (ty + 1) % 4"
    ok, msg = checks.tiled_load_blanks([perm, "tx", f"row - ty + {perm}", "a_col"])
    assert ok, msg


def test_race_note_keeps_the_detectors_fix_unless_told():
    """Quiz 08's free-code epilogue may miss a barrier: there the detector's own advice stays."""
    from types import SimpleNamespace
    h = SimpleNamespace(kind="WAR", array="As", index=(0, 1), first_site=("f", 3), second_site=("f", 7),
                        fix_ko="두 접근 사이에 cuda.syncthreads() 를 두세요.")
    report = SimpleNamespace(races=[h])
    assert checks._race_note(report).endswith(h.fix_ko)
    assert checks._race_note(report, fix=checks.BLANKS_ONLY_FIX).endswith(checks.BLANKS_ONLY_FIX)
    assert checks._race_note(None) == ""
    assert "3행과 7행에서 서로 다른 스레드가 건드립니다" in checks._race_note(report)


@pytest.mark.sim_only("the race note comes from the simulator's race detector (none runs on a GPU)")
def test_race_note_names_one_line_once():
    """Two threads at the same line: '30행에서 서로 다른 두 스레드가', not '30행과 30행에서' (review r19 I-1)."""
    ok, msg = checks.tiled_load_blanks(["0", "0", "row", "a_col"])
    assert not ok and "행과" not in msg and re.search(r"\d+행에서 서로 다른 두 스레드가 건드립니다", msg), msg


def test_quiz_kernels_keep_their_file_line_numbers():
    """Race reports of the quiz kernels count lines as in the files the notebooks list (review round 16)."""
    from kernels_numba import regblock, tiled
    for template, func, frag, filled in ((checks.kernel_template(), tiled.kernel.py_func, checks.LOAD_LINE,
                                          "As[{0}, {1}] = A[{2}, {3}]"),
                                         (checks.regblock_kernel_template(), regblock.kernel.py_func,
                                          checks.REGBLOCK_BLANKS[0], checks.REGBLOCK_FILLED[0])):
        src = checks._as_in_file(template, func).splitlines()
        file_lines = Path(func.__code__.co_filename).read_text(encoding="utf-8").splitlines()
        assert next(i for i, ln in enumerate(src) if filled in ln) == \
            next(i for i, ln in enumerate(file_lines) if frag in ln)


@pytest.mark.parametrize("blanks", [["row", "a_col", "ty", "tx"], ["ty", "tx", "row", "a_col + 1"],
                                    ["ty", "tx", "row - 1", "a_col"]])
def test_checker_out_of_range_fails(blanks):
    ok, msg = checks.tiled_load_blanks(blanks)
    assert not ok and "범위" in msg


@pytest.mark.parametrize("bad", ["__import__('os')", "A.shape", "print(1)", "'ty'", "ty, tx", "lambda: 0",
                                 "[ty]", "ty if tx else 0", "ty ** 99", "tx / 2", "1.5", "import os", "x",
                                 "A[0:2]", "9" * 70])
def test_checker_rejects_unsafe_blanks(bad):
    ok, msg = checks.tiled_load_blanks([bad, "tx", "row", "a_col"])
    assert not ok and msg.startswith("코드 오류")


def test_checker_wrong_count_and_runtime_error():
    assert not checks.tiled_load_blanks(["ty", "tx", "row"])[0]
    ok, msg = checks.tiled_load_blanks(["ty", "tx", "row // 0", "a_col"])
    assert not ok and "ZeroDivisionError" in msg


def test_code_question_through_grade(quiz):
    q = quiz.question("q4")
    assert grade_question(quiz, q, ["ty", "tx", "row", "a_col"])[0]
    assert grade_question(quiz, q, ["", "", "", ""]) == (False, UNANSWERED)
    ok, msg = grade_question(quiz, q, ["ty", "", "row", "a_col"])
    assert not ok and "코드 오류" in msg


def test_answers_dir_env_that_is_not_a_folder_gives_a_clear_error(monkeypatch, tmp_path):
    from course.quiz import engine
    from kernels_numba import CourseInputError
    monkeypatch.setenv(engine.ANSWERS_ENV, str(tmp_path / "nope"))
    with pytest.raises(CourseInputError, match="SGEMM_ANSWERS_DIR"):
        engine.answers_dir()
    monkeypatch.setenv(engine.ANSWERS_ENV, str(tmp_path))
    assert engine.answers_dir() == tmp_path
    assert engine.load_answers("06") is None          # a folder without quiz06.json: no answers, no error


def test_failed_grade_withholds_keys_even_with_answers_dir(quiz):
    r = grade(quiz, dict(CORRECT, q1="31", q3="1", q8="2"))
    assert not r.passed and r.has_explanations and not r.revealed
    assert all(x.explanation is None for x in r.results)
    assert [x.qid for x in r.results if not x.correct] == ["q1", "q3", "q8"]
    assert all(x.section for x in r.results)                       # every question says where to reread


@pytest.mark.parametrize("passed, failed_before, passed_before, after, shown", [
    (True, 0, False, None, True), (False, 5, False, None, False), (False, 0, True, None, True),
    (False, 0, False, 1, True), (False, 1, False, 3, False), (False, 2, False, 3, True)])
def test_when_keys_may_be_shown(passed, failed_before, passed_before, after, shown):
    assert engine.may_reveal(passed, failed_before, passed_before, after) is shown


def test_failed_grade_after_an_earlier_pass_or_n_failures_shows_keys(quiz):
    wrong = dict(CORRECT, q1="31", q3="1", q8="2")
    assert grade(quiz, wrong, passed_before=True).results[0].explanation
    assert grade(quiz, wrong, failed_before=2, reveal_after=3).revealed
    assert not grade(quiz, wrong, failed_before=1, reveal_after=3).revealed


def test_free_code_form_is_one_text_graded_by_its_checker():
    q = _one("code", ["x"], form="free", template="def f():\n    ___\n", starter="# 여기\n",
             checker="course.quiz.checks:epilogue_code")
    assert q.questions[0].free and q.questions[0].blanks == 1 and q.questions[0].starter == "# 여기\n"
    assert grade_question(q, q.questions[0], "   ") == (False, UNANSWERED)
    ok, msg = grade_question(q, q.questions[0], ["# 주석만\n"])
    assert not ok and msg.startswith("코드 오류")
    with pytest.raises(ValueError, match="free form"):
        _one("code", ["x", "y"], form="free", template="___ ___")
    with pytest.raises(ValueError, match="code form"):
        _one("code", ["x"], form="essay", template="___")


def test_free_code_explanation_shows_the_model_code_as_a_block():
    q = _one("code", ["a = 1\nb = 2\n"], form="free", template="___")
    text = engine._explanation(q.questions[0], {"key": ["a = 1\nb = 2\n"], "explanation": "왜"})
    assert "```python\na = 1\nb = 2\n```" in text and text.endswith("왜")


def test_units_in_any_case_and_spelling_and_a_closing_full_stop():
    """Review r19 W-1: the unit the prompt asks in is read however it is written ('flop/byte', 'FLOPs/B', 'FLOP/바이트',
    '12.5 percent'), a sentence's full stop is dropped ('64개.'); a wrong number stays wrong; a number with a unit the
    quiz cannot read ('8 ms') is told so, not 'type a number'; '8 KiB' to a 몇 % question is not its unit."""
    quiz = load_quiz("07")
    q1, q2, q5 = quiz.question("q1"), quiz.question("q2"), quiz.question("q5")
    key2 = float(quiz.key("q2"))
    for w in (" flop/byte", " FLOP/Byte", " FLOPs/B", " FLOP/바이트", " flops/byte", " FLOP/bytes", " FLOP/byte."):
        assert grade_question(quiz, q2, f"{key2:g}{w}") == (True, "정답"), w
        assert grade_question(quiz, q2, f"{key2 + 1:g}{w}") == (False, "오답"), w
    assert grade_question(quiz, q5, "12.5 percent") == (True, "정답")
    assert grade_question(quiz, q5, "12.5 Percent.") == (True, "정답")
    assert grade_question(quiz, q1, "64개.") == (True, "정답") and grade_question(quiz, q1, "63개.") == (False, "오답")
    ok, msg = grade_question(quiz, q5, "8 KiB")             # a byte unit to a 몇 % question: not its unit
    assert not ok and msg.startswith("'KiB'는 " + engine.WRONG_UNIT) and "% 단위" in msg, msg
    ok, msg = grade_question(quiz, q5, "8 ms")
    assert not ok and msg.startswith("'ms'는 읽을 수 없는 단위") and "% 단위" in msg, msg
    assert grade_question(quiz, q5, "abc") == (False, NOT_A_NUMBER)


def test_a_byte_question_reads_kib_and_mib_exactly_and_not_kb():
    """Review r22 I-5: quiz06 q3 (8192 바이트) answered '8 KiB' is right (IEC: 1024 B exactly), as is '0.0078125 MiB';
    a wrong number in KiB stays wrong; KB/MB (1000 or 1024?) and 'Kib' (a kibibit) are not guessed, and the message
    says why and which units are read."""
    quiz = load_quiz("06")
    q3 = quiz.question("q3")
    assert float(quiz.key("q3")) == 8192 and engine.invited_units(q3.prompt) == ["B"]
    for text in ("8 KiB", "8KiB", "8 KIB", " 8.0 KiB.", "0.0078125 MiB", "8 kibibytes", "8192 B"):
        assert grade_question(quiz, q3, text) == (True, "정답"), text
    for text in ("7 KiB", "8 MiB", "8.5 KiB"):
        assert grade_question(quiz, q3, text) == (False, "오답"), text
    for text, ambiguous in (("8 KB", True), ("8kB", True), ("8 MB", True), ("8 킬로바이트", True), ("8 Kib", False)):
        ok, msg = grade_question(quiz, q3, text)
        assert not ok and "읽을 수 없는 단위" in msg and "B 또는 KiB 단위" in msg, (text, msg)
        assert ("1000 배수인지 1024 배수인지" in msg) is ambiguous, (text, msg)
    assert engine.split_number("8 KiB") == (8192.0, "B") and engine.split_number("2 MiB") == (2097152.0, "B")
