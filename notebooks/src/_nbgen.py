"""Shared part of the notebook generators: collect cells, write the ipynb with fixed cell ids and no outputs."""
from pathlib import Path

import nbformat as nbf

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
