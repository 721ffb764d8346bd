"""Which FFMAs carry the stalls: Nsight Compute's per-SASS-instruction view, summarised by "first use of a loaded value".

Recorded with (on the GPU, async_wide built with prefetch=False; benchmarks/explore_wide.py --once launched it third):
  ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
      -k regex:kernel --launch-skip 2 --launch-count 1 python3 benchmarks/explore_wide.py --once > src.csv
Summarise into the level-5 record:
  python benchmarks/ncu_first_use.py course/ch09_cp_async/records/ncu_source_wide_no_prefetch.csv.gz --into course/ch09_cp_async/records/gpu_h200_level5.json

An FFMA is a "first use" when one of its source registers was last written by an LDS and no instruction read that
register in between (SASS program order within the listing).
"""
import argparse
import csv
import gzip
import io
import json
import re

WHAT = ("ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv on "
        "async_wide built with prefetch=False (zigzag order, swizzle), 4096^3, H200, in the exploration before the "
        "recorded run; 'first use' = the FFMA is the first instruction to read a register since an LDS wrote it "
        "(from the SASS order); raw listing: course/ch09_cp_async/records/ncu_source_wide_no_prefetch.csv.gz, "
        "summary: benchmarks/ncu_first_use.py")


def instructions(csv_text):
    """[(sass text, dispatch stall samples, short-scoreboard stall samples)] in listing order."""
    rows = list(csv.reader(io.StringIO(csv_text)))
    start = next(i for i, r in enumerate(rows) if "Source" in r and "stall_dispatch" in r)
    header = rows[start]
    col = {k: i for i, k in enumerate(header)}
    out = []
    for r in rows[start + 1:]:
        if len(r) != len(header) or not r[col["Source"]].strip():
            continue
        out.append((r[col["Source"]].strip(), float(r[col["stall_dispatch"]] or 0),
                    float(r[col["stall_short_sb"]] or 0)))
    return out


def _parse(src):
    """(opcode, destination register or None, registers written, source registers) of one SASS line."""
    t = src.split(None, 1)
    if t[0].startswith("@"):                               # predicate guard
        t = t[1].split(None, 1)
    op, ops = t[0], [p.strip() for p in (t[1] if len(t) > 1 else "").split(",")]
    if op.startswith(("STS", "STG", "STL", "LDGSTS")):     # stores: every register operand is read
        return op, None, 0, [int(x) for p in ops for x in re.findall(r"\bR(\d+)\b", p)]
    d = re.match(r"R(\d+)$", ops[0]) if ops and ops[0] else None
    width = (4 if ".128" in op else 2 if ".64" in op else 1) if op.startswith("LDS") else 1
    return op, int(d.group(1)) if d else None, width, [int(x) for p in ops[1:] for x in re.findall(r"\bR(\d+)\b", p)]


def _first_use(parsed, i, window=600):
    """True if a source register of instruction i was last written by an LDS and nothing read it since."""
    for reg in parsed[i][3]:
        for j in range(i - 1, max(i - window, -1), -1):
            op, dst, width, srcs = parsed[j]
            if reg in srcs:
                break                                      # read before: not the first use
            if dst is not None and dst <= reg < dst + width:
                if op.startswith("LDS"):
                    return True
                break
    return False


def summarize(csv_text):
    """The record's summary: FFMA counts and stall samples, all and on first uses, and the 10 most dispatch-stalled."""
    ins = instructions(csv_text)
    parsed = [_parse(s) for s, _, _ in ins]
    ffma = [i for i, p in enumerate(parsed) if p[0] == "FFMA"]
    first = {i for i in ffma if _first_use(parsed, i)}
    top = sorted(ffma, key=lambda i: -ins[i][1])[:10]
    return {"what": WHAT, "ffma": len(ffma), "ffma_first_use": len(first),
            "dispatch_samples_ffma": sum(ins[i][1] for i in ffma),
            "dispatch_samples_ffma_first_use": sum(ins[i][1] for i in first),
            "short_scoreboard_samples_ffma": sum(ins[i][2] for i in ffma),
            "short_scoreboard_samples_ffma_first_use": sum(ins[i][2] for i in first),
            "top10_by_dispatch": [{"sass": ins[i][0], "dispatch": ins[i][1], "short_scoreboard": ins[i][2],
                                   "first_use": i in first} for i in top]}


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--into", help="a record JSON: store the summary under 'ncu_source_no_prefetch'")
    args = ap.parse_args()
    s = summarize(read(args.csv))
    if args.into:
        with open(args.into) as f:
            rec = json.load(f)
        rec["ncu_source_no_prefetch"] = s
        with open(args.into, "w") as f:
            json.dump(rec, f, indent=1)
    print({k: v for k, v in s.items() if k not in ("what", "top10_by_dispatch")})


if __name__ == "__main__":
    main()
