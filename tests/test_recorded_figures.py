"""No measured figure is typed into the prose of notebooks 06-08: each comes from course/recorded/ through the
generator's fill() ({{name}} fields). The test collects every figure the records hold (TFLOP/s, % of cuBLAS, ratios
between kernels, stall shares, shared-memory bounds) in the forms prose would print it, and looks for them in the
generators' markdown *source* (before fill): a hit is a typed measurement."""
import json
import re
from itertools import combinations
from pathlib import Path

import pytest

from course import chapters, records

ROOT = Path(__file__).resolve().parents[1]
GENERATORS = [chapters.get(n).generator for n in ("06", "07", "08")]     # course/chNN_<slug>/notebook.py


def _name(path):
    """'nb06.py' for course/ch06_shared_tiling/notebook.py (the keys below)."""
    return f"nb{path.parent.name[2:4]}.py"
RECORDS = ("gpu_h200_2026-11-21", "gpu_h200_levels34")
MD = re.compile(r'\bmd\(r?"""(.*?)"""\)', re.S)
# a model figure that happens to print like a measured one, with where it comes from
NOT_MEASURED = {("nb08.py", "1.19"): "the pipeline model's speedup 1 + L/C for L = 400, C = 2048 (practice task 1)"}


def measured_figures():
    """Strings a measured figure of the records would print as (3+ significant digits, to avoid small integers)."""
    out = set()

    def add(x, *fmts):
        for f in fmts:
            s = format(x, f)
            if len(re.sub(r"\D", "", s).lstrip("0")) >= 3 and float(s) not in (1.0, 100.0):   # 1.00 = "the same"
                out.add(s)

    for name in RECORDS:
        rec = records.load(name)
        rows = rec.rows
        for r in rows:
            add(r.tflops, ".1f", ".2f")
            add(100 * r.ratio, ".1f")
        by_n = {}
        for r in rows:
            by_n.setdefault(r.n, {})[r.kernel] = r
        for n, ks in by_n.items():
            for a, b in combinations(ks, 2):
                if "cuBLAS" not in (a, b):
                    add(ks[a].ratio / ks[b].ratio, ".3f", ".2f")
                    add(ks[b].ratio / ks[a].ratio, ".3f", ".2f")
        for k, m in rec.get("ncu_stalls", {}).get("metrics", {}).items():
            for v in m["percent"].values():
                add(v, ".1f")
        ns = rec.get("ncu_shared")
        if ns:
            f = rec["device_facts"]
            for k, m in ns["metrics"].items():
                ld = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
                st = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
                for wf in (ld, ld + st):
                    if wf:
                        add(f["sm_count"] * 64 * f["max_sm_clock_mhz"] * 1e6 / 1e12 / (wf / (ns["n"] ** 3 / 32)), ".1f")
    return out


def measured_percents():
    """Rounded % figures of the records (share of cuBLAS, stall shares >= 1 %) as prose prints them: "15%"."""
    out = set()
    for name in RECORDS:
        rec = records.load(name)
        out |= {f"{100 * r.ratio:.0f}" for r in rec.rows if r.kernel != "cuBLAS"}
        for m in rec.get("ncu_stalls", {}).get("metrics", {}).values():
            out |= {f"{v:.0f}" for v in m["percent"].values() if v >= 1}
    return out


def typed_percents(text, percents):
    """Rounded recorded percentages typed as "NN%" (a quoted range "40–50%" is someone else's claim, not ours)."""
    return sorted({p for p in percents if re.search(rf"(?<![\d.–-]){p}\s?%", text)
                   and not re.search(rf"(?<![\d.]){p}\s?[–-]\s?\d", text)})


def prose_sources(path):
    """The markdown strings of a generator as written in its source (fields not filled)."""
    return MD.findall(path.read_text(encoding="utf-8"))


def typed_figures(text, figures):
    return sorted({f for f in figures if re.search(rf"(?<![\d.]){re.escape(f)}(?![\d])", text)})


def test_the_collector_finds_a_typed_figure():
    figures = measured_figures()
    assert "37.6" in figures or "37.61" in figures            # regblock_vec 4096³ TFLOP/s
    assert typed_figures("측정 37.61 TFLOP/s", figures) and not typed_figures("측정 {{tf}} TFLOP/s", figures)
    percents = measured_percents()
    assert typed_percents("db 는 12% 입니다", percents) == ["12"]
    assert not typed_percents('"Long Scoreboard 40–50% → 20–30%" 같은 숫자', percents)


@pytest.mark.parametrize("path", GENERATORS, ids=_name)
def test_no_typed_measurement_in_prose(path):
    figures = measured_figures()
    hits = {i: [f for f in typed_figures(t, figures) if (_name(path), f) not in NOT_MEASURED]
            for i, t in enumerate(prose_sources(path))}
    hits = {i: h for i, h in hits.items() if h}
    percents = measured_percents()
    for i, t in enumerate(prose_sources(path)):
        if typed_percents(t, percents):
            hits.setdefault(i, []).extend(f + "%" for f in typed_percents(t, percents))
    assert not hits, (f"{_name(path)}: markdown cells {sorted(hits)} type measured figures {hits}: fill them in from "
                      "the record with {{name}} fields (course/figures.py)")


def _simple(x):
    """A value a model would state exactly too (2-way -> 2.0, 24 / 16 = 1.5, 32 words): a quarter below 4 or a power
    of two. Typed without "약", such a figure is the model's; only "약 2.0" marks it as a measurement."""
    q = x * 4
    return q == int(q) and (x < 4 or (x == int(x) and int(x) & (int(x) - 1) == 0))


def ncu_shared_figures():
    """(strict, approximate): strings the short ncu figures of the shared-memory record would print as in prose (notebook
    06 §3.4, §4.8): wavefronts per instruction and per warp FFMA, load wavefronts per warp-tile, the LDS.128 estimate,
    with one or two decimals or none. These have two significant digits, which measured_figures() leaves out.
    A value that is not _simple is caught anywhere (`strict`); a _simple one only after "약"/"≈"/"~" (`approximate`)."""
    strict, approx = set(), set()
    for name in RECORDS:
        ns = records.load(name).get("ncu_shared")
        if not ns:
            continue
        n, tile = ns["n"], 16
        warp_tiles, warp_ffma = (n * n // 32) * (n // tile), n ** 3 / 32
        vals = []
        for k, m in ns["metrics"].items():
            wf = {op: m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] for op in ("ld", "st")}
            inst = {op: m[f"smsp__inst_executed_op_shared_{op}.sum"] for op in ("ld", "st")}
            vals += [wf[op] / inst[op] for op in ("ld", "st") if inst[op]]
            vals += [wf["ld"] / warp_tiles] if wf["ld"] else []
            vals += [w / warp_ffma for w in (wf["ld"], wf["st"], wf["ld"] + wf["st"]) if w]
            if k == "tiled" and inst["ld"]:                    # LDS.128 wavefronts, as lesson06.lds128_from_ncu
                per = inst["ld"] // warp_tiles
                lds128 = (2 * tile - per) // 3
                vals.append((wf["ld"] / warp_tiles - (per - lds128)) / lds128)
        for v in vals:
            for f in (".0f", ".1f", ".2f"):
                s = format(v, f)
                if float(s) == 0 or s == "1":                      # "약 1 µs", "1 KiB": too common to be ncu's
                    continue
                if _simple(float(s)):
                    approx.add(s)
                elif len(re.sub(r"\D", "", s).lstrip("0")) >= 2:
                    strict.add(s)
    return strict, approx


def typed_ncu_figures(text, strict, approx):
    """ncu_shared figures typed in `text`: a strict one anywhere (not a percentage), an approximate one after 약/≈/~."""
    hits = {s for s in strict if re.search(rf"(?<![\d.]){re.escape(s)}(?![\d%]|\.\d|\s?%)", text)}
    hits |= {s for s in approx if re.search(rf"(?:(?<![가-힣])약|≈|~)\s*\**{re.escape(s)}(?![\d%]|\.\d|\s?%)", text)}
    return sorted(hits)


def test_the_ncu_collector_finds_typed_short_figures():
    """The forms notebook 06 typed once (review round 16): per-instruction 1.2 and 약 2.0, 약 24 per tile, 약 2."""
    strict, approx = ncu_shared_figures()
    assert {"1.2", "1.20", "2.03", "24"} <= strict and {"2.0", "2", "1.5", "1.00"} <= approx
    for typed in ("`tiled` 읽기가 1.2인 이유", "명령당 약 **2.0** 웨이브프론트", "타일당 약 24(= 16 + 4 × 2)",
                  "역산한 값(약 2)은", "(ncu로 약 2.0)", "타일당 약 24 / 16 = 1.5"):
        assert typed_ncu_figures(typed, strict, approx), typed
    for model in ("32비트 접근이면 1.0 이 충돌 없는 이상값", "2-way 충돌이면 2.0", "(약 2.1 KiB)", '"약 24%" 라고 하는',
                  "명령당 {{st_per_inst_pad}}", "노트북 06 의 3.24절", "시스템 예약 2 KiB"):
        assert not typed_ncu_figures(model, strict, approx), model


# the generators that read the shared-memory ncu record (a short figure elsewhere, like 07's AI 1.6 of a 4 x 16 tile or
# 08's load start 24, is a model figure that only looks like one of these)
NCU_SHARED_READERS = [g for g in GENERATORS if '"ncu_shared"' in g.read_text(encoding="utf-8")]


def test_notebook_06_reads_the_ncu_shared_record():
    assert [_name(g) for g in NCU_SHARED_READERS] == ["nb06.py"]


@pytest.mark.parametrize("path", NCU_SHARED_READERS, ids=_name)
def test_no_typed_ncu_shared_figure_in_prose(path):
    """The shared-memory ncu figures have two significant digits, below measured_figures()' threshold: a typed
    '1.2' or '약 2.0' would stay when a new ncu record changes them. They come from {{name}} fields too."""
    strict, approx = ncu_shared_figures()
    hits = {i: h for i, t in enumerate(prose_sources(path)) if (h := typed_ncu_figures(t, strict, approx))}
    assert not hits, (f"{_name(path)}: markdown cells {sorted(hits)} type ncu figures {hits}: fill them in from the "
                      "record with {{name}} fields (course/figures.py)")


# model figures an expected output prints that happen to look like a measured one, with where they come from
EXPECTED_NOT_MEASURED = {
    ("nb06.py", "19.2"): "sim/roofline: H200's DRAM roof at AI 4 (datasheet bandwidth x AI)",
    ("nb06.py", "20.0"): "sim/roofline: H100's ridge point (computed peak / datasheet bandwidth)",
    ("nb07.py", "19.2"): "sim/roofline: H200's DRAM roof at AI 4",
    ("nb07.py", "2.00"): "the model's AI of regblock (TM = TN = 8)",
    ("nb07.py", "25.0"): "the model's share of peak at AI 0.25 on 64 lanes",
    ("nb07.py", "50.0"): "the store-sector efficiency of 16 B stores (512 of 1024 B)",
    ("nb08.py", "50.0"): "the store-sector efficiency of 16 B stores (512 of 1024 B)"}


def expected_outputs(path):
    """The `# 예상 출력:` comments of a generator's code cells as written in its source (fields not filled)."""
    out, lines = [], path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# 예상 출력:"):
            block = [line]
            while i + 1 < len(lines) and lines[i + 1].startswith("#  "):       # its continuation lines
                i += 1
                block.append(lines[i])
            out.append("\n".join(block))
    return out


@pytest.mark.parametrize("path", GENERATORS, ids=_name)
def test_no_typed_measurement_in_expected_outputs(path):
    """An expected output that states a recorded figure takes it from the record too (a typed one drifted once:
    07 §4.10 expected 74 % while the cell printed 72 %)."""
    figures, percents = measured_figures(), measured_percents()
    hits = {}
    for text in expected_outputs(path):
        h = [f for f in typed_figures(text, figures) if (_name(path), f) not in EXPECTED_NOT_MEASURED]
        h += [f + "%" for f in typed_percents(text, percents)]
        if h:
            hits[text[:60]] = h
    assert not hits, f"{_name(path)}: expected outputs type measured figures {hits}: fill them with {{{{name}}}} fields"


@pytest.mark.parametrize("path", GENERATORS, ids=_name)
def test_every_field_is_filled(path):
    """The built notebook has no {{name}} left (fill() raises on an unknown name; this catches a cell written
    without md())."""
    nb = json.loads(chapters.get(_name(path)[2:4]).ipynb.read_text("utf-8"))
    assert not [c for c in nb["cells"] if "{{" in "".join(c["source"])]


# ---- notebook 10: the level-6 records (H200 level 6, H100 mma_fast runs, H200 mma_fast) ----
NB10 = chapters.get("10").generator


def nb10_figures():
    """Strings the level-6 records' measured figures print as in prose (TFLOP/s with one decimal, % of cuBLAS with
    one decimal, gains with two decimals within one run), 3+ significant digits as above."""
    out = set()

    def add(x, *fmts):
        for f in fmts:
            s = format(x, f)
            if len(re.sub(r"\D", "", s).lstrip("0")) >= 3 and float(s) not in (1.0, 100.0):
                out.add(s)

    for r in records.load("gpu_h200_level6").rows:
        add(r.tflops, ".1f")
        add(100 * r.ratio, ".1f")
    fast = records.load("gpu_h100_level6_fast")
    fast_h200 = records.load("gpu_h200_level6_fast")
    for rec in (fast, fast_h200):
        for run in rec.runs:                          # every run: earlier, ablation and graph runs
            rows = {(r.label, r.n): r for r in run.rows}
            for (v, n), r in rows.items():
                add(r.tflops, ".1f")
                add(100 * r.ratio, ".1f")
                for (w, m), q in rows.items():
                    if m == n and w != v:
                        add(r.tflops / q.tflops, ".2f")
        for r in rec["results"]:
            add(100 * r["ratio"], ".1f")
    for v in fast["ratio_from_ncu_durations_4096"].values():
        for x in v.values():
            add(100 * x, ".1f")
    for prof in fast["ncu"].values():
        for p in prof.values():
            add(p["tensor_pipe_pct"], ".1f")
            add(p["achieved_occupancy_pct"], ".1f")
            for x in p["stalls_per_issue"].values():
                add(x, ".2f")
    return out


def test_nb10_collector_finds_a_typed_figure():
    figures = nb10_figures()
    assert "55.4" in figures and "57.0" in figures                 # runs 5 / 6 at 4096^3
    assert typed_figures("run 6 에서 57.0 %", figures) and not typed_figures("{{best6_4096}} %", figures)


def test_nb10_no_typed_measurement_in_prose():
    figures = nb10_figures()
    hits = {i: typed_figures(t, figures) for i, t in enumerate(prose_sources(NB10))}
    hits = {i: h for i, h in hits.items() if h}
    assert not hits, (f"nb10.py: markdown cells {sorted(hits)} type measured figures {hits}: fill them in from the "
                      "record with {{name}} fields")


def test_nb10_every_field_is_filled():
    nb = json.loads((ROOT / "notebooks" / "10_tensor_core_mma.ipynb").read_text("utf-8"))
    assert not [c for c in nb["cells"] if "{{" in "".join(c["source"])]
