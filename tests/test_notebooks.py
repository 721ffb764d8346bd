"""Notebooks are stored without outputs and follow the chapter template."""
import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


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
    for needle in ("배울 내용", "실행 환경", "선수 노트북", "course.setup()", "PASS", "# 예상 출력:", "직접 해보기", "show_quiz"):
        assert needle in text, f"{path.name} lacks {needle!r}"
