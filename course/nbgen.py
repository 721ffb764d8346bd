"""Shared part of the notebook generators (course/chNN_<slug>/notebook.py): collect cells, write the ipynb with fixed
cell ids and no outputs. `python -m course.nbgen [NN ...]` (make notebooks) regenerates the chapters' notebooks,
every chapter of course/chapters.py when none is named."""
import argparse
import runpy
from pathlib import Path

import nbformat as nbf

from course import chapters
from course.exercises import core


METADATA = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}}


class Notebook:
    """Cells of one notebook in order; `prefix` makes the cell ids (e.g. nb07-000), so regenerating gives the same file."""

    def __init__(self, prefix, out):
        self.prefix, self.out, self.cells = prefix, Path(out), []

    def md(self, s):
        self.cells.append(nbf.v4.new_markdown_cell(s.strip("\n")))

    def code(self, s):
        self.cells.append(nbf.v4.new_code_cell(s.strip("\n")))

    def exercise(self, ex_id, intro):
        """A "직접 해보기" block from the exercise registry (course/exercises): task, starter cell(s), check cell.

        The starter code is the registry's template, so the notebook, the tests and nbgrader share one source.
        """
        ex = core.get(ex_id)
        self.md(f"**직접 해보기 {ex.id} — {ex.title}** ({ex.section})\n\n{intro.strip()}\n\n"
                f"다 채웠으면 아래 확인 셀을 실행하세요. 틀리면 무엇이 틀렸는지 알려 줍니다. 막히면 "
                f"`hint(\"{ex.id}\")` 를 실행하세요. 실행할 때마다 한 단계씩 나아갑니다: 1단계는 생각할 거리와 다시 읽을 절, "
                f"2단계는 마지막 확인이 가리킨 곳에 대한 질문, 3단계는 풀이 파일의 위치입니다.")
        if ex.preamble:
            self.code(ex.preamble)
        self.code(ex.template)
        self.code(f"from course.exercises import check, hint\n"
                  f"check(\"{ex.id}\", {ex.name})\n"
                  f"# 예상 출력: (다 풀었을 때) [{ex.id}] PASS — …")

    def build(self):
        nb = nbf.v4.new_notebook(cells=[nbf.from_dict(c) for c in self.cells], metadata=METADATA)
        for i, c in enumerate(nb.cells):
            c["id"] = f"{self.prefix}-{i:03d}"
        return nb

    def text(self):
        """The committed file's exact text."""
        return nbf.writes(self.build()) + "\n"

    def write(self, out=None):
        out = Path(out or self.out)
        out.write_text(self.text(), encoding="utf-8")
        return out


def main(argv=None):
    """Regenerate notebooks/NN_*.ipynb from each named chapter's generator (all chapters by default)."""
    ap = argparse.ArgumentParser(description="Regenerate the course notebooks from their generators.")
    ap.add_argument("chapters", nargs="*", help=f"chapter numbers, of {' '.join(chapters.numbers())} (default: all)")
    for number in ap.parse_args(argv).chapters or chapters.numbers():      # chapters.get: a clear error for a typo
        gen = runpy.run_module(chapters.get(number).module("notebook"))      # defines NB, writes nothing
        print(gen["NB"].write())


if __name__ == "__main__":
    main()
