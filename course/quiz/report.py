"""Instructor class report: python -m course.quiz.report DIR_OR_FILE... [--all-homes] [--out DIR].

Reads every progress file it finds (log lines, per-attempt files, the old progress.json), checks
every record (types, ranges, consistency with the shipped checkpoint), counts each attempt once
(by id, however many copies were collected), skips and lists what is bad, and never stops on a
student's file. A student is the account that owns the progress folder (the home under --all-homes,
the file's owner, else the student's folder in a collected tree); the name the student typed is shown
beside it, and every record whose name disagrees with its folder's account is listed (clashes.csv).
On a shared login (jovyan, root, --shared) the typed student ID tells students apart.
Writes results.csv (student x checkpoint: first and best score), pass_rates.csv, questions.csv and
questions_NN.png (share right per question, first attempt and best), exercises.csv, clashes.csv and
skipped.txt; prints a short summary.
"""
import argparse
import csv
import glob
import os
import pwd
import stat
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import store
from .engine import load_quiz
import numpy as np

COLUMNS = ("quiz", "account", "student", "attempts", "first_score", "best_score", "total", "passed", "last_time")
RATE_COLUMNS = ("quiz", "students", "passed", "pass_rate")
QUESTION_COLUMNS = ("quiz", "question", "section", "students", "first_rate", "best_rate")
EXERCISE_COLUMNS = ("exercise", "account", "student", "tries", "passed", "last_diagnosis", "last_time")
CLASH_COLUMNS = ("account", "student", "kind", "item", "time", "file")
HOMES_ENV = "SGEMM_HOMES_GLOB"
HOMES_GLOB = "/home/*/.sgemm-course"
MAX_FILES = 200_000
MAX_DIRS = 1_000_000
SUFFIXES = (".json", ".jsonl")
GENERIC_FOLDERS = (".sgemm-course", store.COPIES_NAME)


@lru_cache(maxsize=None)
def quiz_info(quiz_id):
    """(total, pass_at, question ids) of a shipped checkpoint, or None when there is no such quiz."""
    try:
        q = load_quiz(quiz_id)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return q.total, q.pass_at, tuple(x.id for x in q.questions)


@lru_cache(maxsize=None)
def _sections(quiz_id):
    try:
        return {q.id: q.section for q in load_quiz(quiz_id).questions}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


@dataclass(frozen=True)
class Found:
    """One progress file and the account whose folder it is in (how: home, owner or folder)."""
    path: Path
    account: str
    how: str
    owner: str = ""


def _owner_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


def home_account(folder):
    """The account of a home's progress folder: /home/kim/.sgemm-course -> kim, <root>/kim -> kim."""
    p = Path(folder)
    return p.parent.name if p.name.startswith(".") else p.name


def folder_account(root, f):
    """The account a collected tree gives `f`: the first folder below `root` that is not a progress folder name."""
    root, f = Path(root), Path(f)
    try:
        parts = [] if f == root else list(f.relative_to(root).parts[:-1])
    except ValueError:
        parts = []
    parts = [x for x in parts if x not in GENERIC_FOLDERS and not x.endswith(".d")]
    if parts:
        return parts[0]
    base = root if f != root else root.parent
    while base.name in GENERIC_FOLDERS or base.name.endswith(".d"):
        base = base.parent
    return base.name or str(base)


def _walk(top, problems):
    """Progress files under `top`, in sorted order, without recursion (a tree 1000 levels deep is fine)."""
    stack, dirs_seen = [str(top)], 0
    while stack:
        d = stack.pop()
        dirs_seen += 1
        if dirs_seen > MAX_DIRS:
            problems.append(f"{top}: 폴더가 {MAX_DIRS}개를 넘어 나머지는 읽지 않았습니다 / stopped after {MAX_DIRS} folders")
            return
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            problems.append(f"{d}: 폴더를 읽을 수 없음 / cannot list ({e.strerror or e})")
            continue
        subdirs = []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    subdirs.append(e.path)
                elif e.name.endswith(SUFFIXES) and not e.name.startswith("."):
                    if e.is_symlink():      # a student's link may point anywhere (the report may run as root)
                        problems.append(f"{e.path}: 심볼릭 링크는 따라가지 않음 / symlink not followed")
                    else:
                        yield e.path
            except OSError as err:
                problems.append(f"{e.path}: 읽을 수 없음 / cannot open ({err.strerror or err})")
        stack.extend(reversed(subdirs))


def find_files(paths, problems=None, homes=None):
    """Progress files named directly or found under named folders (symlinked folders not followed); each once.

    `homes` maps a home's progress folder (from --all-homes) to its account. Returns Found entries.
    """
    problems = problems if problems is not None else []
    homes = {os.path.abspath(k): v for k, v in (homes or {}).items()}
    me = os.geteuid()
    seen, out = set(), []

    def add(f, root):
        try:
            key = os.path.realpath(f)
            st = os.lstat(f)
        except (OSError, ValueError) as e:
            problems.append(f"{f}: 읽을 수 없음 / cannot open ({type(e).__name__})")
            return
        if key in seen or len(out) >= MAX_FILES:
            return
        seen.add(key)
        owner = "" if st.st_uid in (0, me) else _owner_name(st.st_uid)
        home = homes.get(os.path.abspath(root))
        if home is not None:
            out.append(Found(Path(f), home, "home", owner))
        elif owner:
            out.append(Found(Path(f), owner, "owner", owner))
        else:
            out.append(Found(Path(f), folder_account(root, f), "folder"))

    for p in map(Path, paths):
        try:
            st = os.stat(p)
        except (OSError, ValueError) as e:
            problems.append(f"{p}: 읽을 수 없음 / cannot open ({type(e).__name__}: {getattr(e, 'strerror', '') or e})")
            continue
        if not stat.S_ISDIR(st.st_mode):
            add(p, p)
            continue
        for f in _walk(p, problems):
            add(f, p)
            if len(out) >= MAX_FILES:
                break
    if len(out) >= MAX_FILES:
        problems.append(f"파일이 {MAX_FILES}개를 넘어 나머지는 읽지 않았습니다 / stopped after {MAX_FILES} files")
    return out


def _matches(name, account):
    return name.strip().casefold() == account.strip().casefold()


def collect(paths, problems=None, homes=None):
    """Every sound record in the named files/folders, each once, marked with its folder's account (_account).

    A record found in several folders counts for the folder whose account matches its name (a collected copy or
    a record copied into another student's folder gives nobody a pass twice). What was skipped goes to `problems`.
    """
    problems = problems if problems is not None else []
    by_id = {}
    for found in find_files(paths, problems, homes):
        read = store.Read()
        try:
            store.read_file(found.path, read, quiz_info)
        except Exception as e:      # noqa: BLE001 - one student's file must never stop the report
            read.problems.append(f"{found.path}: 읽는 중 오류 / error while reading ({type(e).__name__}: {e})")
        problems += read.problems
        if found.how == "home" and found.owner and not _matches(found.owner, found.account):
            problems.append(f"{found.path}: {found.owner} 의 파일이 {found.account} 의 홈에 있음 / "
                            f"file owned by {found.owner} in {found.account}'s home")
        for rec in read.records:
            old = by_id.get(rec["id"])
            if old is None or (not _matches(old[0]["student"], old[1].account)
                               and _matches(rec["student"], found.account)):
                by_id[rec["id"]] = (rec, found)
    records = []
    for rec, found in by_id.values():
        records.append(dict(rec, _account=found.account, _how=found.how, _file=str(found.path)))
    records.sort(key=lambda r: r["time"])         # stable: within one second, the order the files hold them
    return records


def _who(rec, shared):
    """The student a record counts for: its folder's account, or account:typed ID on a shared login."""
    account = rec.get("_account", rec["student"])
    return f"{account}:{rec['student']}" if account in shared else account


def _best(attempts):
    """The best attempt (highest score, then latest)."""
    return max(attempts, key=lambda a: (a["score"], a["time"]))


def _first(attempts):
    return attempts[0]                            # records come sorted by time (stable)


def _groups(records, shared, exercises=False):
    groups = {}
    for a in records:
        if store.is_exercise(a) != exercises:
            continue
        item = a["exercise"] if exercises else a["quiz"]
        groups.setdefault((item, _who(a, shared)), []).append(a)
    return dict(sorted(groups.items()))


def _names(items):
    return ", ".join(sorted({a["student"] for a in items}))


def class_report(paths=None, problems=None, records=None, shared=store.SHARED_LOGINS):
    """One row per (checkpoint, student): account, typed name(s), attempts, first and best score, passed (ever), last time."""
    records = collect(paths, problems) if records is None else records
    rows = []
    for (quiz, who), items in _groups(records, shared).items():
        best = _best(items)
        rows.append({"quiz": quiz, "account": who, "student": _names(items), "attempts": len(items),
                     "first_score": _first(items)["score"], "best_score": best["score"],
                     "total": best.get("total", len(best["correct"])), "passed": any(a["passed"] for a in items),
                     "last_time": max(a["time"] for a in items)})
    return rows


def quiz_summary(paths=None, problems=None, records=None, shared=store.SHARED_LOGINS):
    """Per checkpoint: students, passed, pass_rate, and per question the share right on the first and the best attempt."""
    records = collect(paths, problems) if records is None else records
    out = {}
    for (quiz, who), items in _groups(records, shared).items():
        s = out.setdefault(quiz, {"students": 0, "passed": 0, "_best": {}, "_first": {}})
        s["students"] += 1
        s["passed"] += any(a["passed"] for a in items)
        for key, pick in (("_best", _best), ("_first", _first)):
            for qid, ok in pick(items)["correct"].items():
                s[key].setdefault(qid, []).append(ok)
    for quiz, s in out.items():
        s["pass_rate"] = s["passed"] / s["students"]
        info = quiz_info(quiz)
        order = info[2] if info else sorted(s["_best"])
        best, first = s.pop("_best"), s.pop("_first")
        s["question_rates"] = {q: sum(best[q]) / len(best[q]) for q in order if q in best}
        s["first_rates"] = {q: sum(first[q]) / len(first[q]) for q in order if q in first}
    return out


def question_rows(summary):
    """questions.csv: per checkpoint and question, the section and the share right (first attempt, best attempt)."""
    return [{"quiz": quiz, "question": q, "section": _sections(quiz).get(q, ""), "students": s["students"],
             "first_rate": f"{s['first_rates'].get(q, 0):.3f}", "best_rate": f"{rate:.3f}"}
            for quiz, s in summary.items() for q, rate in s["question_rates"].items()]


def exercise_report(records, shared=store.SHARED_LOGINS):
    """One row per (exercise, student): tries, passed (ever), the last diagnosis and time."""
    rows = []
    for (ex, who), items in _groups(records, shared, exercises=True).items():
        last = items[-1]
        rows.append({"exercise": ex, "account": who, "student": _names(items), "tries": len(items),
                     "passed": any(a["ok"] for a in items), "last_diagnosis": last["diagnosis"],
                     "last_time": last["time"]})
    return rows


def clashes(records, shared=store.SHARED_LOGINS):
    """Every record whose typed name is not its folder's account (shared logins excepted)."""
    out = []
    for a in records:
        account = a.get("_account")
        if account is None or account in shared or _matches(a["student"], account):
            continue
        out.append({"account": account, "student": a["student"], "kind": "exercise" if store.is_exercise(a) else "quiz",
                    "item": a["exercise"] if store.is_exercise(a) else a["quiz"], "time": a["time"],
                    "file": a.get("_file", "")})
    return out


def format_report(rows, summary, skipped=0, exercises=(), clash=()):
    """Short plain-text summary: one block per checkpoint, then exercises and name clashes."""
    lines = []
    for quiz, s in summary.items():
        lines.append(f"\n=== 체크포인트 {quiz}: 학생 {s['students']}명, 통과 {s['passed']}명 "
                     f"(통과율 pass rate {s['pass_rate']:.0%}) ===")
        lines.append(f"{'계정 account':<20} {'입력한 이름 name':<18} {'시도':>4} {'첫 시도':>7} {'최고':>6} {'통과':>4}  "
                     "마지막 시도 (UTC)")
        for r in (r for r in rows if r["quiz"] == quiz):
            lines.append(f"{r['account'][:20]:<20} {r['student'][:18]:<18} {r['attempts']:>4} "
                         f"{r['first_score']:>4}/{r['total']:<2} {r['best_score']:>3}/{r['total']:<2} "
                         f"{'yes' if r['passed'] else 'no':>4}  {r['last_time']}")
        rates = "  ".join(f"{q}: {s['first_rates'].get(q, 0):.0%}→{v:.0%}" for q, v in s["question_rates"].items())
        lines.append(f"문항별 정답 비율 첫 시도→최고 / share right per question, first→best: {rates}")
    if exercises:
        lines.append("\n=== 연습 문제 / exercises (통과 passed ✔, 아직 not yet ✘: 마지막 진단 last diagnosis) ===")
        for who in sorted({r["account"] for r in exercises}):
            mine = [r for r in exercises if r["account"] == who]
            cells = "  ".join(f"{r['exercise']} {'✔' if r['passed'] else '✘ ' + (r['last_diagnosis'] or '-')}"
                              f"({r['tries']}회)" for r in mine)
            lines.append(f"{who[:20]:<20} {mine[0]['student'][:18]:<18} {cells}")
    if not lines:
        lines.append("진행 기록이 없습니다 / no attempts found")
    if clash:
        pairs = {}
        for c in clash:
            pairs.setdefault((c["account"], c["student"]), []).append(c)
        lines.append(f"\n⚠ 이름이 폴더의 계정과 다른 기록 {len(clash)}개 (clashes.csv) / {len(clash)} record(s) whose "
                     "name is not their folder's account:")
        for (account, name), items in sorted(pairs.items()):
            lines.append(f"  계정 account {account!r} 의 폴더에 이름 name {name!r} 기록 {len(items)}개 "
                         f"(예 e.g. {items[0]['file']})")
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
    """Bars per question: share of the class right on its first attempt and on its best attempt."""

    # local: matplotlib (course.plots) is heavy: loaded only when a figure is drawn
    from course import plots
    qs = list(s["question_rates"])
    fig, ax = plots.subplots(figsize=(max(4.5, 0.9 * len(qs) + 2), 3.6))
    x = np.arange(len(qs))
    first = [100 * s["first_rates"].get(q, 0) for q in qs]
    best = [100 * s["question_rates"][q] for q in qs]
    b1 = ax.bar(x - 0.2, first, 0.4, color="#e94", label="첫 시도")
    b2 = ax.bar(x + 0.2, best, 0.4, color="#4a8", label="최고 시도")
    for bars, vals in ((b1, first), (b2, best)):
        ax.bar_label(bars, labels=[f"{v:.0f}" for v in vals], fontsize=7)
    ax.set_xticks(x, qs)
    ax.set_ylim(0, 125)
    ax.set_ylabel("맞힌 학생 비율 (%)")
    ax.set_xlabel("문항")
    ax.legend(fontsize=8, loc="upper right", ncols=2)
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
    ap.add_argument("--shared", action="append", default=[], metavar="ACCOUNT",
                    help="여러 학생이 함께 쓰는 계정 (jovyan, root 외에; 입력한 학생 ID 로 구분)")
    ap.add_argument("--out", type=Path, default=Path("sgemm-report"), help="결과 폴더 (기본: ./sgemm-report)")
    ap.add_argument("--csv", type=Path, help="학생별 결과 CSV 를 이 경로에도 저장")
    args = ap.parse_args(argv)
    paths, problems, homes = list(args.paths), [], {}
    shared = tuple(store.SHARED_LOGINS) + tuple(args.shared)
    if args.all_homes:
        found = home_dirs(args.homes_glob, problems)
        print(f"사용자 진행 기록 폴더 {len(found)}개 / {len(found)} progress folder(s) found")
        homes = {d: home_account(d) for d in found}
        paths += found
    if not paths:
        ap.error("폴더/파일을 주거나 --all-homes 를 쓰세요 / give folders or files, or --all-homes")
    records = collect(paths, problems, homes)
    rows = class_report(records=records, shared=shared)
    summary = quiz_summary(records=records, shared=shared)
    ex_rows = exercise_report(records, shared)
    clash = clashes(records, shared)
    print(format_report(rows, summary, len(problems), ex_rows, clash))
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
        write_csv(question_rows(summary), args.out / "questions.csv", QUESTION_COLUMNS)
        write_csv(ex_rows, args.out / "exercises.csv", EXERCISE_COLUMNS)
        write_csv(clash, args.out / "clashes.csv", CLASH_COLUMNS)
        for quiz, s in summary.items():
            plot_questions(quiz, s, args.out / f"questions_{quiz}.png")
        (args.out / "skipped.txt").write_text("".join(p + "\n" for p in problems), encoding="utf-8")
        if args.csv:
            write_csv(rows, args.csv)
    except OSError as e:
        print(f"결과를 쓰지 못했습니다 / could not write the results to {args.out}: {e}", file=sys.stderr)
        return 1
    print(f"\n결과 / results: {args.out}/ (results.csv, pass_rates.csv, questions.csv, exercises.csv, clashes.csv, "
          f"{', '.join(f'questions_{q}.png' for q in summary) or '그림 없음'}, skipped.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
