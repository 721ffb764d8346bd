"""Recorded GPU figures for the notebook generators: prose states a measured figure only through fill(), never typed."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from course import records  # noqa: E402  (the one loader of course/recorded/)

FIELD = re.compile(r"\{\{(\w+)\}\}")


def record(name):
    """course/recorded/<name>.json, a records.Record."""
    return records.load(name)


def fill(text, figures):
    """Replace each {{name}} in `text` with figures[name] (already formatted); an unknown name is an error."""
    def one(m):
        if m.group(1) not in figures:
            raise KeyError(f"no recorded figure {m.group(1)!r}")
        return str(figures[m.group(1)])
    return FIELD.sub(one, text)


def ratios(rec):
    """{(kernel, n): share of cuBLAS in the same run} of a benchmark record."""
    return {(r.kernel, r.n): r.ratio for r in rec.rows}


def tflops(rec):
    """{(kernel, n): TFLOP/s} of a benchmark record."""
    return {(r.kernel, r.n): r.tflops for r in rec.rows}
