"""The course's exercises as nbgrader assignments, from the one source (the registry and the lesson notebooks).

    python -m course.exercises.nbgrader OUT_DIR [--notebooks 06 07 ...]

writes an nbgrader course folder OUT_DIR (nbgrader_config.py, source/exercises_NN/exercises_NN.ipynb) and runs
`nbgrader generate_assignment` for each: solution regions hold the answers/ solutions, the released cells show the
notebook's starter code, and locked autograder cells call the course's checker — once on the inputs the student can
run, once (hidden) on other random inputs.
"""
import argparse
import copy
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat as nbf

from . import core
from kernels_numba.infra.errors import CourseInputError

ROOT = Path(__file__).resolve().parents[2]
CONFIG = '''c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "sgemm-course"
c.ExecutePreprocessor.timeout = 600
'''


def _meta(grade_id, solution=False, grade=False, locked=False, points=None):
    m = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3}
    if grade:
        m["points"] = points
    return {"nbgrader": m}


def _task_markdown(ex):
    """The exercise's task text exactly as the lesson notebook shows it (the generator's one source)."""
    nb_file = next((ROOT / "notebooks").glob(f"{ex.id.split('-')[0]}_*.ipynb"))
    for cell in nbf.read(nb_file, as_version=4).cells:
        if cell.cell_type == "markdown" and cell.source.startswith(f"**직접 해보기 {ex.id} "):
            return cell.source
    return f"**직접 해보기 {ex.id} — {ex.title}** ({ex.section})"


def solution_source(ex):
    """The solution file's text, then `name = solution_name`, so the cell defines what the checker is given."""
    src = (ROOT / ex.solution_file).read_text(encoding="utf-8").rstrip("\n")
    if ex.solution_name != ex.name:
        src += f"\n\n{ex.name} = {ex.solution_name}"
    return src


def _grader_cell(ex):
    gid = ex.id.replace("-", "_")
    return nbf.v4.new_code_cell(
        f"from course.exercises import check\n"
        f"res = check(\"{ex.id}\", {ex.name}, save=False)\nprint(res)\n"
        f"assert res.ok, \"{ex.id}: \" + res.code\n"
        f"### BEGIN HIDDEN TESTS\n"
        f"hidden = check(\"{ex.id}\", {ex.name}, save=False, variant=1)   # other random inputs\n"
        f"print(hidden)\nassert hidden.ok, \"{ex.id} (hidden): \" + hidden.code\n"
        f"### END HIDDEN TESTS", metadata=_meta(f"ex{gid}_test", grade=True, locked=True, points=1))


def source_notebook(nb):
    """The instructor's version of notebook nb's exercises (solutions inside BEGIN/END SOLUTION)."""
    exs = [e for e in core.catalog() if e.id.startswith(f"{nb}-")]
    cells = [nbf.v4.new_markdown_cell(f"# 노트북 {nb} — 직접 해보기 (과제)\n\n각 문제의 시작 코드를 채우고 확인 셀을 "
                                      "실행하세요. 채점은 같은 확인 함수(`course.exercises.check`)가 합니다.",
                                      metadata=_meta(f"intro_{nb}", locked=True)),
             nbf.v4.new_code_cell(f"import course\ncourse.setup(\"{nb}\")", metadata=_meta(f"setup_{nb}", locked=True))]
    for ex in exs:
        gid = ex.id.replace("-", "_")
        cells.append(nbf.v4.new_markdown_cell(_task_markdown(ex), metadata=_meta(f"ex{gid}_task", locked=True)))
        if ex.preamble:
            cells.append(nbf.v4.new_code_cell(ex.preamble, metadata=_meta(f"ex{gid}_setup", locked=True)))
        cells.append(nbf.v4.new_code_cell(f"### BEGIN SOLUTION\n{solution_source(ex)}\n### END SOLUTION",
                                          metadata=_meta(f"ex{gid}_code", solution=True)))
        cells.append(_grader_cell(ex))
    nb_ = nbf.v4.new_notebook(cells=cells)
    nb_.metadata.update({"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}})
    return nb_


def _release_templates(out, nb):
    """In the released notebook, each cleared solution cell shows the lesson's starter code instead of a stub."""
    path = out / "release" / f"exercises_{nb}" / f"exercises_{nb}.ipynb"
    book = nbf.read(path, as_version=4)
    for cell in book.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        m = re.fullmatch(r"ex(\d+)_(\d+)_code", gid)
        if m:
            cell.source = core.get(f"{m.group(1)}-{m.group(2)}").template
    nbf.write(book, path)


def nbgrader_cmd(*args, cwd):
    """Run the nbgrader of this Python (its gradebook migrations need `alembic` from the same bin folder on PATH)."""
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run([str(bin_dir / "nbgrader"), *args], cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def build(out, notebooks=core.NOTEBOOKS, generate=True):
    """Write the nbgrader course folder and (generate=True) run nbgrader generate_assignment for each notebook."""
    if not (ROOT / "notebooks").is_dir() or not (ROOT / "answers").is_dir():
        raise CourseInputError(
            "nbgrader 과제는 강좌 저장소(노트북과 answers/ 의 풀이가 있는 폴더)에서 만듭니다: 이 설치에는 없습니다.",
            "nbgrader assignments are built from a clone of the course (its notebooks/ and answers/): this install "
            "has neither.", "저장소를 clone 한 폴더에서 pip install -e \".[grading]\" 로 설치한 뒤 다시 실행하세요.",
            "clone the course, pip install -e \".[grading]\" there, and run this again.")
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(root=str(out)), encoding="utf-8")
    for nb in notebooks:
        d = out / "source" / f"exercises_{nb}"
        d.mkdir(parents=True, exist_ok=True)
        nbf.write(source_notebook(nb), d / f"exercises_{nb}.ipynb")
        if generate:
            nbgrader_cmd("generate_assignment", f"exercises_{nb}", "--force", "--create", cwd=out)
            _release_templates(out, nb)
    return out


def filled(release_nb, sources):
    """A copy of a released notebook with exercise cells replaced: {exercise id: source} (tests, demos)."""
    book = copy.deepcopy(release_nb)
    for cell in book.cells:
        m = re.fullmatch(r"ex(\d+)_(\d+)_code", cell.metadata.get("nbgrader", {}).get("grade_id", ""))
        if m and f"{m.group(1)}-{m.group(2)}" in sources:
            cell.source = sources[f"{m.group(1)}-{m.group(2)}"]
    return book


def main(argv=None):
    ap = argparse.ArgumentParser(description="Build the course's exercises as nbgrader assignments.")
    ap.add_argument("out", help="nbgrader course folder to create or update")
    ap.add_argument("--notebooks", nargs="+", default=list(core.NOTEBOOKS), choices=core.NOTEBOOKS)
    ap.add_argument("--no-generate", action="store_true", help="write source/ only (no nbgrader run)")
    a = ap.parse_args(argv)
    out = build(a.out, a.notebooks, generate=not a.no_generate)
    print(f"nbgrader 과제를 만들었습니다: {out}\n  학생용: {out}/release/  강사용(정답 포함): {out}/source/\n"
          f"  채점: cd {out} && nbgrader collect … && nbgrader autograde exercises_NN")


if __name__ == "__main__":
    main()
