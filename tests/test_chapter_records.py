"""course/chNN_<slug>/record.py, each chapter's GPU record script, without a GPU: it imports, answers --help, records
exactly its chapter's kernels from course/chapters.py (one run per input dtype) through the one engine (course.bench),
refuses a kernel of another chapter, says clearly that it needs a GPU, and names the benchmarks/ script it supersedes."""
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kernels_numba as kn
from course import bench, chapters

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("ch", chapters.CHAPTERS, ids=lambda c: c.number)
def test_record_script_help_and_kernels(ch, capsys, monkeypatch):
    mod = importlib.import_module(ch.module("record"))
    assert Path(mod.__file__) == ch.path / "record.py"
    with pytest.raises(SystemExit) as e:
        mod.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert f"python -m {ch.module('record')}" in out and "--out" in out
    assert all(k in out for k in ch.kernels), out
    groups = bench.chapter_kernels(ch.number)
    timed = [k for k in ch.kernels if not bench.fixed_shape(k)]       # mma_simple: one 16x8x16 shape, no n³
    assert [k for g in groups for k in g] == timed                     # the chapter's list, in its order
    for g in groups:
        assert len({np.dtype(kn.get(k).dtype) for k in g}) == 1, g     # one run times one kind (SGEMM or HGEMM)
    calls = []
    monkeypatch.setattr(bench, "record_chapter", lambda number, argv=None: calls.append((number, argv)))
    mod.main(["--out", "x.json"])
    assert calls == [(ch.number, ["--out", "x.json"])]


@pytest.mark.parametrize("ch", chapters.CHAPTERS, ids=lambda c: c.number)
def test_record_script_names_what_it_supersedes(ch):
    doc = importlib.import_module(ch.module("record")).__doc__
    named = re.findall(r"benchmarks/\w+\.py", doc)
    assert named and all((ROOT / p).exists() for p in named), doc


def test_record_refuses_other_kernels_and_a_missing_gpu(capsys, monkeypatch):
    other = next(k for k in chapters.get("10").kernels if k not in chapters.get("06").kernels)
    with pytest.raises(SystemExit) as e:
        bench.chapter_parser("06").parse_args(["--out", "x.json", "--only", other])
    assert e.value.code == 2 and "invalid choice" in capsys.readouterr().err
    assert bench.chapter_kernels("06", ["tiled", "naive"]) == [["naive", "tiled"]]   # the chapter's order
    monkeypatch.setattr(bench, "available", lambda: "GPU 가 없습니다 (시뮬레이터) / no GPU")
    monkeypatch.setattr(bench, "run", lambda *a, **k: pytest.fail("timed without a GPU"))
    with pytest.raises(SystemExit, match="no GPU"):
        bench.record_chapter("06", ["--out", "x.json"])


def test_record_script_runs_as_a_module():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               SGEMM_DEVICE="sim")
    r = subprocess.run([sys.executable, "-m", chapters.get("09").module("record"), "--help"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "async_wide" in r.stdout, r.stderr[-2000:]


def test_every_sanitizer_log_names_its_gpu_and_is_clean():
    """Review r23 I-2: a compute-sanitizer log the notebooks cite says which GPU it ran on (an '@@gpu name|cc' line,
    written by the sanitize scripts) and ends in a summary of 0 errors / 0 hazards, with no WRONG result line."""
    import glob
    from course import records
    logs = sorted({p for folder in records.folders() for p in glob.glob(os.path.join(folder, "sanitize_*.log"))})
    assert len(logs) >= 12, logs
    for path in logs:
        text = open(path, encoding="utf-8").read()
        gpu = re.search(r"^@@gpu (.+?)\|(\d+)\.(\d+)", text, re.M)
        assert gpu and gpu.group(1).startswith("NVIDIA "), path
        summaries = re.findall(r"^========= (?:ERROR SUMMARY: (\d+) errors?|RACECHECK SUMMARY: (\d+) hazards)", text, re.M)
        assert summaries and all(int(a or b) == 0 for a, b in summaries), (path, summaries)
        assert " WRONG" not in text and re.search(r" OK$", text, re.M), path
