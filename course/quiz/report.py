"""Instructor class report: python -m course.quiz.report DIR_OR_FILE... [--all-homes] [--out DIR].

Reads every progress file it finds (log lines, per-attempt files, the old progress.json), checks
every record (types, ranges, consistency with the shipped checkpoint), counts each attempt once
(by id, however many copies were collected), skips and lists what is bad, and never stops on a
student's file. Writes results.csv (student x checkpoint), pass_rates.csv, questions_NN.png
(share of the class that got each question right) and skipped.txt; prints a short summary.
"""
import argparse
import csv
import glob
import os
import stat
import sys
from functools import lru_cache
from pathlib import Path

from . import store
from .engine import load_quiz

COLUMNS = ("quiz", "student", "attempts", "best_score", "total", "passed", "last_time")
RATE_COLUMNS = ("quiz", "students", "passed", "pass_rate")
HOMES_ENV = "SGEMM_HOMES_GLOB"
HOMES_GLOB = "/home/*/.sgemm-course"
MAX_FILES = 200_000
SUFFIXES = (".json", ".jsonl")


@lru_cache(maxsize=None)
def quiz_info(quiz_id):
    """(total, pass_at, question ids) of a shipped checkpoint, or None when there is no such quiz."""
    try:
        q = load_quiz(quiz_id)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return q.total, q.pass_at, tuple(x.id for x in q.questions)


def find_files(paths, problems=None):
    """Progress files named directly or found under named folders (symlinked folders not followed); each once."""
    problems = problems if problems is not None else []
    seen, out = set(), []

    def add(f):
        try:
            key = os.path.realpath(f)
        except (OSError, ValueError):
            key = str(f)
        if key not in seen and len(out) < MAX_FILES:
            seen.add(key)
            out.append(Path(f))

    for p in map(Path, paths):
        try:
            st = os.stat(p)
        except OSError as e:
            problems.append(f"{p}: 읽을 수 없음 / cannot open ({type(e).__name__}: {e.strerror or e})")
            continue
        if not stat.S_ISDIR(st.st_mode):
            add(p)
            continue
        for root, dirs, files in os.walk(p, onerror=lambda e: problems.append(
                f"{e.filename}: 폴더를 읽을 수 없음 / cannot list ({e.strerror})")):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SUFFIXES) and not name.startswith("."):
                    f = os.path.join(root, name)
                    if os.path.islink(f):        # a student's link may point anywhere (the report may run as root)
                        problems.append(f"{f}: 심볼릭 링크는 따라가지 않음 / symlink not followed")
                    else:
                        add(f)
    if len(out) >= MAX_FILES:
        problems.append(f"파일이 {MAX_FILES}개를 넘어 나머지는 읽지 않았습니다 / stopped after {MAX_FILES} files")
    return out


def collect(paths, problems=None):
    """Every sound attempt in the named files/folders, each attempt once; what was skipped goes to `problems`."""
    problems = problems if problems is not None else []
    read = store.Read()
    for f in find_files(paths, problems):
        try:
            store.read_file(f, read, quiz_info)
        except Exception as e:      # noqa: BLE001 - one student's file must never stop the report
            read.problems.append(f"{f}: 읽는 중 오류 / error while reading ({type(e).__name__}: {e})")
    problems += read.problems
    return read.records


def _best(attempts):
    """The best attempt (highest score, then latest)."""
    return max(attempts, key=lambda a: (a["score"], a["time"]))


def _groups(records):
    groups = {}
    for a in records:
        groups.setdefault((a["quiz"], a["student"]), []).append(a)
    return dict(sorted(groups.items()))


def class_report(paths=None, problems=None, records=None):
    """One row per (checkpoint, student): attempts, best score, passed (ever), last attempt time."""
    records = collect(paths, problems) if records is None else records
    rows = []
    for (quiz, student), items in _groups(records).items():
        best = _best(items)
        rows.append({"quiz": quiz, "student": student, "attempts": len(items), "best_score": best["score"],
                     "total": best.get("total", len(best["correct"])), "passed": any(a["passed"] for a in items),
                     "last_time": max(a["time"] for a in items)})
    return rows


def quiz_summary(paths=None, problems=None, records=None):
    """Per checkpoint: students, passed, pass_rate, and per-question share right over each student's best attempt."""
    records = collect(paths, problems) if records is None else records
    out = {}
    for (quiz, student), items in _groups(records).items():
        s = out.setdefault(quiz, {"students": 0, "passed": 0, "_hits": {}})
        s["students"] += 1
        s["passed"] += any(a["passed"] for a in items)
        for qid, ok in _best(items)["correct"].items():
            s["_hits"].setdefault(qid, []).append(ok)
    for quiz, s in out.items():
        s["pass_rate"] = s["passed"] / s["students"]
        info = quiz_info(quiz)
        order = info[2] if info else sorted(s["_hits"])
        hits = s.pop("_hits")
        s["question_rates"] = {q: sum(hits[q]) / len(hits[q]) for q in order if q in hits}
    return out


def format_report(rows, summary, skipped=0):
    """Short plain-text summary: one block per checkpoint."""
    lines = []
    for quiz, s in summary.items():
        lines.append(f"\n=== 체크포인트 {quiz}: 학생 {s['students']}명, 통과 {s['passed']}명 "
                     f"(통과율 pass rate {s['pass_rate']:.0%}) ===")
        lines.append(f"{'학생 student':<20} {'시도':>4} {'최고':>6} {'통과':>4}  마지막 시도 (UTC)")
        for r in (r for r in rows if r["quiz"] == quiz):
            lines.append(f"{r['student'][:20]:<20} {r['attempts']:>4} {r['best_score']:>3}/{r['total']:<2} "
                         f"{'yes' if r['passed'] else 'no':>4}  {r['last_time']}")
        rates = "  ".join(f"{q}: {v:.0%}" for q, v in s["question_rates"].items())
        lines.append(f"문항별 정답 비율 (학생별 최고 시도) / share right per question: {rates}")
    if not lines:
        lines.append("진행 기록이 없습니다 / no attempts found")
    if skipped:
        lines.append(f"\n건너뛴 항목 {skipped}개 (skipped.txt 참고) / {skipped} bad entr(ies) skipped, see skipped.txt")
    return "\n".join(lines)


def _cell(v):
    """A CSV cell that a spreadsheet will not run as a formula."""
    v = "yes" if v is True else "no" if v is False else v
    return "'" + v if isinstance(v, str) and v[:1] in ("=", "+", "-", "@") else v


def write_csv(rows, path, columns=COLUMNS):
    """Rows as CSV (UTF-8 with BOM so spreadsheet programs read Korean)."""
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: _cell(r[k]) for k in columns})


def plot_questions(quiz, s, path):
    """Bar chart: share of the class that got each question right (best attempt per student)."""
    from course import plots
    fig, ax = plots.subplots(figsize=(max(4.0, 0.7 * len(s["question_rates"]) + 2), 3.4))
    qs = list(s["question_rates"])
    vals = [100 * s["question_rates"][q] for q in qs]
    bars = ax.bar(qs, vals, color=["#4a8" if v >= 70 else "#e94" if v >= 40 else "#c44" for v in vals])
    ax.bar_label(bars, labels=[f"{v:.0f}%" for v in vals], fontsize=8)
    ax.set_ylim(0, 110)
    ax.set_ylabel("맞힌 학생 비율 (%)")
    ax.set_xlabel("문항")
    ax.set_title(f"체크포인트 {quiz}: 문항별 정답 비율 (학생 {s['students']}명, 통과율 {s['pass_rate']:.0%})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plots.plt.close(fig)


def home_dirs(pattern=None, problems=None):
    """Every user's progress folder on a class server (default /home/*/.sgemm-course, or $SGEMM_HOMES_GLOB).

    A folder that is a symbolic link is left out (and noted): a student could point it anywhere.
    """
    out = []
    for d in sorted(glob.glob(pattern or os.environ.get(HOMES_ENV) or HOMES_GLOB)):
        if os.path.islink(d):
            if problems is not None:
                problems.append(f"{d}: 심볼릭 링크는 따라가지 않음 / symlink not followed")
        else:
            out.append(d)
    return out


def main(argv=None):
    """CLI entry point; returns 0 (nothing found is not an error), 2 on bad arguments."""
    ap = argparse.ArgumentParser(prog="python -m course.quiz.report", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help="학생 진행 기록 폴더 또는 파일 (~/.sgemm-course, progress.json, ...)")
    ap.add_argument("--all-homes", action="store_true",
                    help=f"서버의 모든 사용자 기록을 읽기 ({HOMES_GLOB}, 또는 --homes-glob / ${HOMES_ENV})")
    ap.add_argument("--homes-glob", help="--all-homes 가 찾을 패턴")
    ap.add_argument("--out", type=Path, default=Path("sgemm-report"), help="결과 폴더 (기본: ./sgemm-report)")
    ap.add_argument("--csv", type=Path, help="학생별 결과 CSV 를 이 경로에도 저장")
    args = ap.parse_args(argv)
    paths, problems = list(args.paths), []
    if args.all_homes:
        homes = home_dirs(args.homes_glob, problems)
        print(f"사용자 진행 기록 폴더 {len(homes)}개 / {len(homes)} progress folder(s) found")
        paths += homes
    if not paths:
        ap.error("폴더/파일을 주거나 --all-homes 를 쓰세요 / give folders or files, or --all-homes")
    records = collect(paths, problems)
    rows = class_report(records=records)
    summary = quiz_summary(records=records)
    print(format_report(rows, summary, len(problems)))
    for p in problems[:10]:
        print("건너뜀 / skipped:", p, file=sys.stderr)
    if len(problems) > 10:
        print(f"… 외 {len(problems) - 10}개 / and {len(problems) - 10} more", file=sys.stderr)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        write_csv(rows, args.out / "results.csv")
        rates = [{"quiz": q, "students": s["students"], "passed": s["passed"], "pass_rate": f"{s['pass_rate']:.3f}"}
                 for q, s in summary.items()]
        write_csv(rates, args.out / "pass_rates.csv", RATE_COLUMNS)
        for quiz, s in summary.items():
            plot_questions(quiz, s, args.out / f"questions_{quiz}.png")
        (args.out / "skipped.txt").write_text("".join(p + "\n" for p in problems), encoding="utf-8")
        if args.csv:
            write_csv(rows, args.csv)
    except OSError as e:
        print(f"결과를 쓰지 못했습니다 / could not write the results to {args.out}: {e}", file=sys.stderr)
        return 1
    print(f"\n결과 / results: {args.out}/ (results.csv, pass_rates.csv, "
          f"{', '.join(f'questions_{q}.png' for q in summary) or '그림 없음'}, skipped.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
