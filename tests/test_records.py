"""course.records: every file of course/recorded/ loads through the one schema; the loader, reference and baseline
check work on runs of known figures."""
import dataclasses
import json
import re

import pytest

from course import records

def test_every_record_file_has_the_schema():
    raw = {n: json.loads(records.find(f"{n}.json").read_text(encoding="utf-8")) for n in records.names()}
    assert raw and not [n for n, d in raw.items() if d.get("schema") != records.SCHEMA]


@pytest.mark.parametrize("name", records.names())
def test_each_record_loads_and_round_trips(name):
    rec = records.load(name)
    assert rec.runs and all(run.gpu and run.cc and run.id for run in rec.runs)
    assert records.from_dict(name, records.to_dict(rec)) == rec
    for run in rec.runs:
        for r in run.rows:
            assert r.kernel and r.n > 0 and r.ms > 0 and r.tflops > 0
            assert r.ratio > 0 if not run.baseline.startswith("none") else r.ratio is None   # no base: no ratio
            assert r.tflops == pytest.approx(2 * r.n ** 3 / r.ms / 1e9, rel=1e-3) or r.shape


def test_rows_keep_the_recorded_numbers():
    run = records.load("gpu_h200_levels34").run()
    r = run.row("regblock_vec", 2048)
    assert r.ratio == pytest.approx(0.765, abs=5e-4) and run.ratio("cuBLAS", 4096) == 1.0
    assert run.sizes == [1024, 2048, 4096] and "db_overlap" in run.kernels
    with pytest.raises(KeyError, match="regblock_vec"):
        run.row("regblock_vec", 333)


def test_reference_finds_the_same_gpu_class_and_baseline_check_flags_a_far_baseline(tmp_path):
    run = records.load("gpu_h200_levels34").run()
    row, ref_run = records.reference("NVIDIA H200", "regblock_vec", 4096, "cuBLAS SGEMM")
    assert ref_run.gpu_class == "H200" and row.kernel == "regblock_vec"
    assert records.reference("Tesla T4", "regblock_vec", 4096, "cuBLAS SGEMM") is None
    # engine=: only runs that engine timed (an older harness's H200 record of mma_fast is not like with like)
    old = records.reference("NVIDIA H200", "mma_fast", 4096, "cuBLAS HGEMM")
    assert old is not None and old[1].versions.get("engine") != "no such engine"
    assert records.reference("NVIDIA H200", "mma_fast", 4096, "cuBLAS HGEMM", engine="no such engine") is None
    for eng in {r.versions.get("engine") for _, r in records.all_runs()} - {None}:
        found = records.reference("NVIDIA H100 80GB HBM3", "mma_fast", 4096, "cuBLAS HGEMM", engine=eng)
        assert found is None or found[1].versions["engine"] == eng
    assert records.gpu_class("NVIDIA H100 80GB HBM3") == "H100" and records.gpu_class("NVIDIA A100-SXM4-80GB") \
        .startswith("A100")
    # a new H200 run whose cuBLAS is 20 % off the H200 median is flagged; one within 5 % is not
    def with_cublas(scale):
        rows = tuple(dataclasses.replace(r, tflops=r.tflops * scale) if r.kernel == "cuBLAS" else r for r in run.rows)
        return dataclasses.replace(run, id="new", rows=rows)
    assert records.baseline_check(with_cublas(1.0), "cuBLAS SGEMM") == ""
    msg = records.baseline_check(with_cublas(0.8), "cuBLAS SGEMM")
    assert "4096³" in msg and "-20" in msg


def test_dumps_keeps_tables_on_one_line_and_parses_back():
    d = {"a": [1, 2, 3], "rows": [[1, 2], [3, 4]], "b": {"c": "x"}, "e": [], "lanes": [[[0, 1], [2, 3]], [[4, 5]]]}
    text = records.dumps(d)
    assert json.loads(text) == d and "[1, 2, 3]" in text and "\n  [1, 2],\n" in text
    assert "\n  [[0, 1], [2, 3]],\n" in text           # a list of pairs inside a list: one line


def test_records_live_with_their_chapter_and_names_are_unique():
    """A record file is in course/recorded/ or in one chapter's records/ (course/chapters.py), never in two folders:
    the loader finds it by name alone; course/recorded/README.md names every file in the folder it is in."""
    files = {}
    for folder in records.folders():
        for p in folder.iterdir():
            if p.name != "README.md":
                files.setdefault(p.name, []).append(folder)
    assert files and not {f: d for f, d in files.items() if len(d) > 1}, "a record file is in two folders"
    assert len(records.folders()) > 1, "no chapter keeps records of its own"
    readme = (records.RECORDED / "README.md").read_text(encoding="utf-8")
    for name, (folder,) in files.items():
        stem = name.split(".")[0]
        covered = [row for row in readme.splitlines() if row.startswith("|") and
                   any(stem == w or ("*" in w and stem.startswith(w.split("*")[0]))
                       for w in (t.split(".")[0] for t in re.findall(r"[\w*.-]+", row.split("|")[1])) if w)]
        assert covered, f"course/recorded/README.md does not list {name}"
        in_here = any(row in readme.split("| a chapter's own")[0] for row in covered)
        assert in_here == (folder == records.RECORDED), f"README.md lists {name} in the wrong table ({folder})"


def test_find_and_save_use_the_folder_a_record_lives_in(tmp_path):
    """find() gives a chapter's raw export; load() by name; save() without a folder writes where the record is."""
    assert records.find("ncu_source_wide_no_prefetch.csv.gz").parent.name == "records"
    with pytest.raises(FileNotFoundError, match="no record file"):
        records.find("no_such_record.json")
    rec = records.load("launch_cost_h100")
    assert records.find("launch_cost_h100.json").parent == records.chapters.get("07").records
    assert records.save(rec, tmp_path) == tmp_path / "launch_cost_h100.json"
    assert records.load("launch_cost_h100", tmp_path) == rec
