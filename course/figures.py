"""Recorded GPU figures for the notebook generators: prose states a measured figure only through fill(), never typed."""
import re

from course import records                    # the one loader (course/recorded/ and the chapters' records/)
from sim.korean import josa

FIELD = re.compile(r"\{\{(\w+)(?:\|([^}]+))?\}\}")          # {{name}} or {{name|이었/였}}: the value and its particle


def record(name):
    """The record <name>.json (course/recorded/ or a chapter's records/), a records.Record."""
    return records.load(name)


def fill(text, figures):
    """Replace each {{name}} in `text` with figures[name] (already formatted); an unknown name is an error.

    {{name|pair}} adds the particle of `pair` (이/가, 을/를, 은/는, 과/와, 이었/였, 으로/로, ...) that the value takes
    when read aloud (sim/korean.py): the particle follows the recorded figure, never a guess typed next to it."""
    def one(m):
        if m.group(1) not in figures:
            raise KeyError(f"no recorded figure {m.group(1)!r}")
        value = str(figures[m.group(1)])
        return josa(value, m.group(2)) if m.group(2) else value
    return FIELD.sub(one, text)


def fill_comments(code, figures):
    """Fill {{name}} fields in the comment lines of a code cell only (`# 예상 출력:` and the like), so an expected
    output built from a record cannot drift from what the cell prints; code lines (f-strings) are left alone."""
    return "\n".join(fill(line, figures) if line.lstrip().startswith("#") else line for line in code.split("\n"))


def wrong_clause(k, runs, last=True):
    """'한 번도 틀리지 않았습니다 (20번 모두 **맞는 답**)' / '20번 모두 틀렸고' / '20번 중 3번 틀렸습니다': k wrong runs
    of `runs` as a Korean clause (last=False: the connective form), so a recorded 0 never reads "0번 틀렸습니다"."""
    end = "습니다" if last else "고"
    if k == 0:
        return f"한 번도 틀리지 않았{end}" + (f" ({runs}번 모두 **맞는 답**)" if last else "")
    return f"{runs}번 {'모두' if k == runs else f'중 {k}번'} 틀렸{end}"


def ratios(rec):
    """{(kernel, n): share of cuBLAS in the same run} of a benchmark record."""
    return {(r.kernel, r.n): r.ratio for r in rec.rows}


def tflops(rec):
    """{(kernel, n): TFLOP/s} of a benchmark record."""
    return {(r.kernel, r.n): r.tflops for r in rec.rows}
