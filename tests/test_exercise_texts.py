"""What the exercises say to a student: hints that teach (level 1 the idea and the section, level 2 a question about
what the last diagnosis blamed, level 3 the solution's path; no line of the solution anywhere), and Korean built
with the particle helper (every particle after a value goes through sim.korean.josa; fixed wordings a native reader
flagged stay fixed)."""
import ast
import re
from pathlib import Path

import pytest

from course import chapters, exercises
from course.exercises import core
from sim.korean import josa, wrong_particles
from exercise_cases import import_source

ROOT = Path(__file__).resolve().parents[1]
ALL = core.catalog()
# the checkers, and the ring model whose explanations 11-3 and 11-4 pass on to the student
SOURCES = (sorted((ROOT / "course" / "exercises").glob("*.py")) + [c.path / "exercises.py" for c in chapters.CHAPTERS] +
           [ROOT / "sim" / "ws_ring.py"])
FORMULA = re.compile(r"[A-Za-z_][\w\]]*(\s*(\*|//|%|\+|>>|<<|·)\s*|\s+[-−]\s+)[A-Za-z_0-9(]")


def _code_lines(path, ex):
    """Normalised code lines of a solution file that a hint must never contain (not the template's own lines)."""
    given = {" ".join(line.split("#")[0].split()) for line in (ex.template + "\n" + ex.preamble).splitlines()}
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        code = " ".join(line.split("#")[0].split())
        if len(code) >= 10 and not code.startswith(('"""', "def ", "@", "import ", "from ")) and code not in given:
            out.add(code)
    return out


def _texts(ex):
    """Every hint text of an exercise: levels 1 and 3, level 2 with no check yet, and level 2 after each diagnosis."""
    out = [core.hint_text(ex, 1), core.hint_text(ex, 2), core.hint_text(ex, 3)]
    for code in ex.questions:
        last = core.Result(ex.id, False, code, "…", where="12행 `x = y`")
        out.append(core.hint_text(ex, 2, last))
    return out


@pytest.mark.parametrize("ex", ALL, ids=lambda e: e.id)
def test_level_1_names_the_idea_and_the_section_without_a_formula(ex):
    text = ex.hints[0]
    assert not FORMULA.search(text), f"{ex.id}: level 1 has a formula: {FORMULA.search(text).group(0)!r}"
    assert ex.section in core.hint_text(ex, 1) and "answers/" not in core.hint_text(ex, 1)


@pytest.mark.parametrize("ex", ALL, ids=lambda e: e.id)
def test_no_hint_contains_a_line_of_its_solution(ex):
    lines = _code_lines(ROOT / ex.solution_file, ex)
    for text in _texts(ex):
        flat = " ".join(text.split())
        hit = [line for line in lines if line in flat]
        assert not hit, f"{ex.id}: a hint contains solution code {hit[0]!r}: {text}"


@pytest.mark.parametrize("ex", ALL, ids=lambda e: e.id)
def test_level_2_asks_a_question_and_level_3_points_at_the_solution(ex):
    assert "?" in ex.hints[1], f"{ex.id}: level 2 should ask a question"
    assert all("?" in q for q in ex.questions.values()), ex.id
    assert "answers/" not in core.hint_text(ex, 2)
    assert ex.solution_file in core.hint_text(ex, 3)
    for text in _texts(ex):
        assert not wrong_particles(text), (ex.id, wrong_particles(text), text)


def test_level_2_follows_the_last_diagnosis_and_points_at_the_line(tmp_path, capsys):
    ex = core.get("07-4")
    mod = import_source("def my_register_limited_blocks(regs, threads):\n"
                        "    warps = threads // 32\n"
                        "    return (65536 // 4 // (-(-regs * 32 // 256) * 256)) * 4 // warps\n", tmp_path, "wrong074")
    res = exercises.check("07-4", mod.my_register_limited_blocks, save=False)
    assert res.code == "zero_division" and "3행" in res.where
    exercises.hint("07-4", 2)
    out = capsys.readouterr().out
    assert ex.questions["zero_division"] in out and "3행" in out and "`zero_division`" in out


LINE_CASES = [
    # a plain function: the line that produced the wrong value (watched line by line, not read from the source)
    ("11-1", "def acc_element(t, i):\n    w, lane = t // 32, t % 32\n    r = lane // 4 + 8 * ((i // 2) % 2)\n"
             "    c = 8 * (i // 4) + 2 * (lane % 4) + i % 2\n    return r, c\n", "warp_rows", "3행"),
    ("11-2", "def b_descriptor(addr, kk, BK):\n    start = addr + kk * 2048\n    lbo = 128\n"
             "    return ((start & 0x3FFFF) >> 4) | (lbo >> 4) << 16 | (1024 >> 4) << 32 | 1 << 62\n", "lbo", "3행"),
    ("11-3", "def ring_phase(it, stages):\n    full = it & 1\n    empty = 1 - full\n    return it % stages, full, empty\n",
     "consumer_parity", "2행"),
    # a protocol: the student's call that broke it
    ("11-4", "def consumer_step(ring, it, kt):\n    s = it % ring.stages\n    ring.wait_full(s, (it // ring.stages) & 1)\n"
             "    ring.mma(s)\n    ring.commit()\n    if kt > 0:\n        ring.release((it - 1) % ring.stages)\n"
             "    ring.wait_mma(1)\n", "release_before_wait", "7행"),
]


@pytest.mark.parametrize("ex_id, src, code, line", LINE_CASES, ids=[c[0] for c in LINE_CASES])
def test_level_2_names_the_line_that_made_the_mistake(tmp_path, capsys, ex_id, src, code, line):
    mod = import_source(src, tmp_path, f"wrong{ex_id.replace('-', '')}")
    ex = core.get(ex_id)
    res = exercises.check(ex_id, getattr(mod, ex.name), save=False)
    assert res.code == code and res.where.startswith(line), (res.code, res.where, str(res))
    exercises.hint(ex_id, 2)
    out = capsys.readouterr().out
    assert ex.questions[code] in out and line in out and f"`{code}`" in out


def test_hints_go_up_one_level_per_call_and_a_new_mistake_brings_back_the_question(capsys):
    core._next_hint.pop("08-3", None)
    core._last.pop("08-3", None)
    for _ in range(4):
        exercises.hint("08-3")
    exercises.check("08-3", lambda L, C, N: (N * (L + C), N * max(L, C)), save=False)        # no_fill_drain
    exercises.hint("08-3")
    out = capsys.readouterr().out
    assert [int(m) for m in re.findall(r"\[08-3 힌트 (\d)\]", out)] == [1, 2, 3, 3, 2]
    assert core.get("08-3").questions["no_fill_drain"] in out.split("[08-3 힌트 2]")[-1]


# ------------------------------------------------------------------------------------------------ Korean

_PARTICLE_AFTER = re.compile(r"^\s?(이었|였|으로|로|이|가|을|를|은|는|과|와)(?=$|[\s.,:;!?)\]])")


def _fstring_particles(path):
    """f-string pieces where a value is followed directly by a particle that is not chosen by josa()."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        vals = node.values
        for a, b in zip(vals, vals[1:]):
            if isinstance(a, ast.FormattedValue) and isinstance(b, ast.Constant) and isinstance(b.value, str) \
                    and _PARTICLE_AFTER.match(b.value):
                call = a.value
                if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") in ("josa", "particle")):
                    bad.append(f"{path.name}:{node.lineno}: {{{ast.unparse(a.value)}}}{b.value[:8]!r}")
    return bad


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_particle_after_a_value_is_chosen_by_josa(path):
    assert not _fstring_particles(path)


@pytest.mark.parametrize("value", ["타일", "버퍼", "16", "2", "(16, 0)", "(3, 5)", "`As[ty, k]`", "kt", "N", "wait_group(1)",
                                   "wait_group(2)", "K 타일 3, 0, 4", "7777"])
def test_the_message_particles_follow_consonant_and_vowel_endings(value):
    # the helper every message uses: both kinds of ending, each pair the messages use
    for pair in ("이/가", "을/를", "은/는", "과/와", "으로/로"):
        text = josa(value, pair)
        assert not wrong_particles(text + " 끝"), (value, pair, text)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_wordings_a_native_reader_flagged_stay_fixed(path):
    text = path.read_text(encoding="utf-8")
    for wrong in ("크니다", "작니다", "저장가", "더하지 않았는지", "을(를)", "이(가)", "은(는)", "절 을", "열 입니다",
                  "As[ty, k]·Bs[k, tx] 처럼"):
        assert wrong not in text, f"{path.name}: {wrong!r}"
    # a Korean word and its particle are written together ('4.3절을', not '4.3절 을')
    spaced = re.findall("[\uac00-\ud7a3] (?:을|를|은|는|과|와|으로|이었|였|입니다)(?=[\\s.,:;)\"']|$)", text)
    assert not spaced, (path.name, spaced[:5])


def _render(js, value):
    """An f-string with every plain value replaced by `value` (a particle chosen by josa() stays right by itself)."""
    out = []
    for v in js.values:
        if isinstance(v, ast.Constant):
            out.append(str(v.value))
        elif isinstance(v.value, ast.Call) and getattr(v.value.func, "id", "") in ("josa", "particle"):
            out.append("값이")
        else:
            out.append(value)
    return "".join(out)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_message_template_reads_right_with_consonant_and_vowel_values(path):
    # each template rendered with values that end in a consonant (16: 십육) and in a vowel (2: 이): a particle that
    # follows a value without josa() is wrong for one of them; plain texts are checked as they are
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for value in ("16", "2"):
                bad += [(node.lineno, value, w) for w in wrong_particles(_render(node, value))]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            bad += [(node.lineno, "-", w) for w in wrong_particles(node.value)]
    assert not bad, bad[:5]
