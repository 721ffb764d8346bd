"""Issue 27: a particle right after a number in the notebooks' prose and the quizzes follows how the number is read
(sim/korean.py), so a figure filled in from a record carries the right 이/가, 을/를, 은/는, 과/와, 이었/였, 으로/로. A
number followed by a parenthesis takes the particle of the number before it ('×1.08 (run 6) 이었고')."""
import json
import re
from pathlib import Path

import pytest

from sim.korean import particle

ROOT = Path(__file__).resolve().parents[1]
PAIRS = {"이": "이/가", "가": "이/가", "을": "을/를", "를": "을/를", "은": "은/는", "는": "은/는", "과": "과/와", "와": "과/와",
         "이었": "이었/였", "였": "이었/였", "으로": "으로/로", "로": "으로/로"}
# a number, an optional parenthesis, a particle; not a fraction (1/16 reads '16분의 1'), and 이/가 only where a particle
# ends (이고, 이면, 이지만 are the copula; 가지 is a counter)
RX = re.compile(r"(?<![\w./])(\d[\d,]*(?:\.\d+)?)(?!/)(\s*(?:\([^()\n]*\))?\s*)"
                r"(이었|였|으로|로|을|를|은|는|과|와|이(?![고면며지다])|가(?!지))(?=[\s.,;:)!?]|습|다|고|며|지|면|$)")


def wrong_particles(text):
    """[(excerpt, particle, the right one)] for every number + particle in `text` whose particle does not fit."""
    out = []
    for m in RX.finditer(text):
        num, _, p = m.groups()
        want = particle(num, PAIRS[p])
        if want != p:
            out.append((text[max(0, m.start() - 30):m.end() + 6].replace("\n", " "), p, want))
    return out


def test_the_scanner_finds_a_wrong_particle():
    assert wrong_particles("4096³ 에서 ×1.06 였습니다") == [("4096³ 에서 ×1.06 였습니다", "였", "이었")]
    assert wrong_particles("×1.08 (run 6) 였고") and not wrong_particles("×1.08 (run 6) 이었고")
    assert not wrong_particles("요청이 1/16 로 줍니다, 3가지, i ≥ 4 이면, 1.5 이고, 20 개")


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name[:2])
def test_notebook_prose(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    bad = [(i, w) for i, c in enumerate(cells) if c["cell_type"] == "markdown"
           for w in wrong_particles("".join(c["source"]))]
    assert not bad, bad


@pytest.mark.parametrize("path", sorted((ROOT / "answers").glob("ch*/quiz*.json")), ids=lambda p: p.stem)
def test_quiz_text(path):
    assert not wrong_particles(path.read_text(encoding="utf-8"))
