"""Instructor class results from many students' progress files: python -m course.quiz.report FILE_OR_DIR..."""
import argparse
import csv
import sys
from pathlib import Path

from .store import read_json

COLUMNS = ("quiz", "student", "attempts", "best_score", "total", "passed", "last_time")


def find_files(paths):
    """Files named directly, plus *.json found (recursively) in named folders; each once."""
    seen, out = set(), []
    for p in map(Path, paths):
        for f in (sorted(p.rglob("*.json")) if p.is_dir() else [p]):
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def collect(paths, problems=None):
    """All attempts from the progress files; unreadable files are skipped with a note in `problems`."""
    found = []
    for f in find_files(paths):
        data, why = read_json(f)
        if data is None:
            if problems is not None:
                problems.append(f"건너뜀 / skipped {f}: {why}")
            continue
        found += data["attempts"]
    return found


def _best(attempts):
    """The best attempt (highest score, then latest)."""
    return max(attempts, key=lambda a: (a["score"], a["time"]))


def class_report(paths, problems=None):
    """One row per (quiz, student): attempts, best score, passed (ever), last attempt time."""
    groups = {}
    for a in collect(paths, problems):
        groups.setdefault((str(a["quiz"]), str(a["student"])), []).append(a)
    rows = []
    for (quiz, student), items in sorted(groups.items()):
        best = _best(items)
        rows.append({"quiz": quiz, "student": student, "attempts": len(items), "best_score": best["score"],
                     "total": best.get("total", len(best["correct"])), "passed": any(a["passed"] for a in items),
                     "last_time": max(a["time"] for a in items)})
    return rows


def quiz_summary(paths, problems=None):
    """Per quiz: students, passed, pass_rate, and per-question correct rate over each student's best attempt."""
    best = {}
    for a in collect(paths, problems):
        k = (str(a["quiz"]), str(a["student"]))
        best[k] = _best([a, best[k]]) if k in best else a
    passed = {(r["quiz"], r["student"]): r["passed"] for r in class_report(paths)}
    out = {}
    for (quiz, student), a in sorted(best.items()):
        s = out.setdefault(quiz, {"students": 0, "passed": 0, "question_rates": {}, "_hits": {}})
        s["students"] += 1
        s["passed"] += passed[(quiz, student)]
        for qid, ok in a["correct"].items():
            s["_hits"].setdefault(qid, []).append(bool(ok))
    for s in out.values():
        s["pass_rate"] = s["passed"] / s["students"]
        s["question_rates"] = {q: sum(v) / len(v) for q, v in s.pop("_hits").items()}
    return out


def format_report(rows, summary):
    """Plain-text tables, one per quiz."""
    lines = []
    for quiz, s in summary.items():
        lines.append(f"\n=== 퀴즈 {quiz}: 학생 {s['students']}명, 통과 {s['passed']}명 "
                     f"(통과율 pass rate {s['pass_rate']:.0%}) ===")
        lines.append(f"{'학생 student':<20} {'시도':>4} {'최고':>6} {'통과':>4}  마지막 시도 (UTC)")
        for r in (r for r in rows if r["quiz"] == quiz):
            lines.append(f"{r['student']:<20} {r['attempts']:>4} {r['best_score']:>3}/{r['total']:<2} "
                         f"{'yes' if r['passed'] else 'no':>4}  {r['last_time']}")
        rates = "  ".join(f"{q}: {v:.0%}" for q, v in s["question_rates"].items())
        lines.append(f"문항별 정답률 (학생별 최고 시도 기준) / per-question correct rate: {rates}")
    return "\n".join(lines) if lines else "진행 기록이 없습니다 / no attempts found"


def write_csv(rows, path):
    """Write the per-student rows as CSV (UTF-8 with BOM so spreadsheet programs read Korean)."""
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({**r, "passed": "yes" if r["passed"] else "no"})


def main(argv=None):
    """CLI entry point."""
    ap = argparse.ArgumentParser(prog="python -m course.quiz.report", description=__doc__)
    ap.add_argument("paths", nargs="+", help="학생 진행 기록 파일(progress.json) 또는 폴더")
    ap.add_argument("--csv", type=Path, help="학생별 결과를 CSV 로도 저장")
    args = ap.parse_args(argv)
    problems = []
    rows = class_report(args.paths, problems)
    print(format_report(rows, quiz_summary(args.paths)))
    for p in problems:
        print(p, file=sys.stderr)
    if args.csv:
        write_csv(rows, args.csv)
        print(f"CSV: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
