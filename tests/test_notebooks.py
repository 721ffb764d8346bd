"""Notebooks are stored without outputs and follow the chapter template."""
import importlib.util
import json
import re
from pathlib import Path

import pytest

from course import chapters

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_LINES = 12          # a code cell a student reads does one thing


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell):
    return "".join(cell["source"])


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"]) if c.get("outputs") or c.get("execution_count")]
    assert not dirty, f"{path.name}: cells {dirty} have stored outputs (clear them before committing)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_template(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    for needle in ("배울 내용", "실행 환경", "선수 노트북", "course.setup(", "PASS", "# 예상 출력:", "직접 해보기", "show_quiz"):
        assert needle in text, f"{path.name} lacks {needle!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_made_by_its_generator(path):
    """notebooks/NN_x.ipynb is exactly what course/chNN_<slug>/notebook.py writes (edit the generator, not the ipynb)."""
    ch = chapters.get(path.name[:2])
    gen_path = ch.generator
    assert gen_path.exists(), f"{path.name} has no generator {gen_path.name}"
    spec = importlib.util.spec_from_file_location(f"{gen_path.stem}_generator", gen_path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert path.read_text(encoding="utf-8") == gen.NB.text(), f"python -m {ch.module('notebook')} 로 노트북을 다시 만드세요"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_pass_cell_says_what_to_expect(path):
    missing = [i for i, c in enumerate(_cells(path)) if c["cell_type"] == "code"
               and re.search(r"PASS", _src(c)) and "# 예상 출력:" not in _src(c)]
    assert not missing, f"{path.name}: cells {missing} print PASS without '# 예상 출력:'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_cells_are_short_and_prose_outweighs_code(path):
    cells = _cells(path)
    long = [i for i, c in enumerate(cells) if c["cell_type"] == "code"
            and len([ln for ln in _src(c).splitlines() if ln.strip()]) > MAX_LINES]
    assert not long, f"{path.name}: code cells {long} are longer than {MAX_LINES} lines (move machinery into course/)"
    md = sum(len(_src(c)) for c in cells if c["cell_type"] == "markdown")
    code = sum(len(_src(c)) for c in cells if c["cell_type"] == "code")
    assert md >= code, f"{path.name}: {code} code characters vs {md} of prose"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_text_stands_on_its_own(path):
    text = "\n".join(_src(c) for c in _cells(path))
    for word in ("교재",):
        assert word not in text, f"{path.name} refers to {word!r}: the student has only this notebook"


def test_the_notebooks_are_the_chapters():
    """notebooks/*.ipynb and course/chapters.py name the same notebooks: each has its chapter folder and generator."""
    assert [c.ipynb for c in chapters.CHAPTERS] == NOTEBOOKS
    assert all(c.generator.exists() and c.quiz_path.exists() and (c.path / "lesson.py").exists() for c in chapters.CHAPTERS)
