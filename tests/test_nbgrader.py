"""nbgrader: the course's exercises become an assignment by one command, and autograde scores a correct submission
full and a wrong one (a missing barrier) lower, with the checker's diagnosis in the graded output."""
import shutil
import sys
from pathlib import Path

import nbformat as nbf
import pytest

from course.exercises import core

needs_nbgrader = pytest.mark.skipif(not (Path(sys.executable).parent / "nbgrader").exists(),
                                    reason="nbgrader is in the 'class' extra (`pip install -e .[class]`; make test "
                                           "installs it)")


@needs_nbgrader
def test_generate_and_autograde_notebook_06(tmp_path):
    from course.exercises import nbgrader as ng
    out = ng.build(tmp_path / "course", ["06"])
    release = nbf.read(out / "release" / "exercises_06" / "exercises_06.ipynb", as_version=4)
    text = "\n".join(c.source for c in release.cells)
    assert "BEGIN SOLUTION" not in text and "HIDDEN" not in text and "variant=1" not in text
    for ex in (e for e in core.catalog() if e.id.startswith("06-")):
        assert ex.template in text, f"{ex.id}: the released cell is not the lesson's starter code"
    right = {ex.id: ng.solution_source(ex) for ex in core.catalog() if ex.id.startswith("06-")}
    wrong = dict(right)
    wrong["06-2"] = right["06-2"].replace("        cuda.syncthreads()          # barrier 2", "        pass  # barrier 2")
    assert wrong["06-2"] != right["06-2"]
    for student, sources in (("alice", right), ("bob", wrong)):
        d = out / "submitted" / student / "exercises_06"
        d.mkdir(parents=True)
        nbf.write(ng.filled(release, sources), d / "exercises_06.ipynb")
    ng.nbgrader_cmd("autograde", "exercises_06", "--create", cwd=out)
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{out / 'gradebook.db'}", "sgemm-course") as gb:
        alice = gb.find_submission("exercises_06", "alice")
        bob = gb.find_submission("exercises_06", "bob")
        assert alice.max_score == 3 and alice.score == 3
        assert bob.score == 2
    graded = nbf.read(out / "autograded" / "bob" / "exercises_06" / "exercises_06.ipynb", as_version=4)
    outs = "\n".join(o.get("text", "") + "".join(o.get("traceback", []))
                     for c in graded.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "06-2: race" in outs and "[06-2] 아직입니다" in outs and "NameError" not in outs
    shutil.rmtree(out / "autograded")
