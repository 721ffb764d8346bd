"""The learner's progress: the prerequisite banner of course.setup(module) and course.progress()."""
import html
from dataclasses import dataclass
from pathlib import Path

from . import store
from course import chapters

ORDER = tuple(chapters.numbers())              # the one list of chapters (course/chapters.py)
PREVIOUS = dict(zip(ORDER, (None,) + ORDER[:-1]))           # each chapter assumes the one before it
TOPIC = {c.number: c.title for c in chapters.CHAPTERS}
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def module_id(module):
    """'06' from 6, '6', '06' or '06_shared_memory_tiling'; None when it names no course module."""
    text = str(module).strip()
    head = text.split("_", 1)[0]
    return head.zfill(2) if head.isdigit() and head.zfill(2) in PREVIOUS else None


def notebook_name(module):
    """File name of a module's notebook (e.g. 06_shared_memory_tiling.ipynb), or a generic one."""
    found = sorted(NOTEBOOKS.glob(f"{module}_*.ipynb")) if NOTEBOOKS.is_dir() else []
    return found[0].name if found else f"{module}_*.ipynb"


@dataclass
class Checkpoint:
    """One checkpoint's standing for this learner."""
    quiz: str
    attempts: int = 0
    best: int = None
    total: int = None
    passed: bool = False
    last_time: str = ""
    ex_passed: int = 0           # exercises of this notebook passed at least once
    ex_tried: int = 0            # exercises of this notebook checked at least once
    ex_failing: tuple = ()       # tried, not passed yet: ((id, last diagnosis), ...)


@dataclass
class Overview:
    """course.progress(): one row per checkpoint, shown as a table in the notebook."""
    rows: list
    notices: list
    where: str

    def row(self, quiz):
        return next(r for r in self.rows if r.quiz == quiz)

    def _cells(self, r):
        best = f"{r.best}/{r.total}" if r.attempts else "-"
        state = "통과 ✅" if r.passed else ("미통과" if r.attempts else "아직 안 풂")
        ex = f"{r.ex_passed}/{r.ex_tried}" if r.ex_tried else "-"
        if r.ex_failing:
            ex += " (" + ", ".join(f"{i}: {d or '?'}" for i, d in r.ex_failing) + ")"
        return [r.quiz, TOPIC.get(r.quiz, ""), state, best, str(r.attempts), ex, r.last_time or "-"]

    HEAD = ("체크포인트", "주제", "상태", "최고 점수", "시도", "연습 통과/시도", "마지막 시도 (UTC)")

    def __str__(self):
        lines = ["  ".join(self.HEAD)] + ["  ".join(self._cells(r)) for r in self.rows]
        return "\n".join(lines + [f"(기록: {self.where})"] + self.notices)

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        head = "".join(f"<th>{h}</th>" for h in self.HEAD)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in self._cells(r)) + "</tr>"
                       for r in self.rows)
        notes = "".join(f'<p style="color:#a60">{html.escape(n)}</p>' for n in self.notices)
        return (f'<table class="sgemm-progress"><tr>{head}</tr>{body}</table>'
                f"<small>기록 위치: {html.escape(self.where)}</small>{notes}")


def overview(path=None):
    """The learner's checkpoints (passed, best score, attempts) and exercises per notebook (passed / tried).

    Never raises (problems become notices).
    """
    notices, where, records, exercises = [], str(path or "~/.sgemm-course"), [], []
    try:
        loc = store.locate(path)
        where = str(loc.folder)
        read = store.read_all(loc)
        records, exercises = read.attempts, read.exercises
        me = _me_on_a_shared_login(path)
        if me is not None:                    # several students in one folder: only this student's rows
            records = [r for r in records if r["student"] == me]
            exercises = [e for e in exercises if e["student"] == me]
        if read.problems:
            notices.append(f"⚠ 진행 기록에서 읽을 수 없는 항목 {len(read.problems)}개를 건너뛰었습니다 "
                           f"(파일은 그대로 둡니다) / skipped {len(read.problems)} unreadable entr(ies)")
    except Exception as e:      # noqa: BLE001 - an overview must never stop a notebook
        notices.append(f"⚠ 진행 기록을 읽지 못했습니다 / could not read progress: {e}")
    notebooks = {r["quiz"] for r in records} | {e["exercise"].split("-")[0] for e in exercises}
    quizzes = list(ORDER) + sorted(notebooks - set(ORDER))
    rows = []
    for q in quizzes:
        mine = [r for r in records if r["quiz"] == q]
        c = Checkpoint(q, len(mine))
        ex = {}
        for e in exercises:                   # oldest first: the last diagnosis wins
            if e["exercise"].split("-")[0] == q:
                ok, _ = ex.get(e["exercise"], (False, ""))
                ex[e["exercise"]] = (ok or e["ok"], e["diagnosis"])
        c.ex_tried, c.ex_passed = len(ex), sum(ok for ok, _ in ex.values())
        c.ex_failing = tuple((i, d) for i, (ok, d) in sorted(ex.items(), key=lambda kv: _ex_order(kv[0])) if not ok)
        if mine:
            best = max(mine, key=lambda r: (r["score"], r["time"]))
            c.best, c.total = best["score"], best.get("total", len(best["correct"]))
            c.passed = any(r["passed"] for r in mine)
            c.last_time = max(r["time"] for r in mine)
        rows.append(c)
    return Overview(rows, notices, where)


def _me_on_a_shared_login(path):
    """This student's ID on a shared login (jovyan, root, the instructor's flag), else None."""
    try:
        return store.student_id(path) if store.shared_login(store.class_settings(path)) else None
    except store.CourseInputError:
        return None


def _ex_order(ex_id):
    return tuple(int(x) for x in ex_id.split("-"))


def banner(module, path=None):
    """Korean text for the top of module `module`'s notebook: prerequisite not passed, or '' when fine. Never raises."""
    try:
        mod = module_id(module)
        if mod is None:
            return (f"ℹ 모듈 이름 {module!r} 을 알 수 없어 선수 체크포인트를 확인하지 않았습니다 "
                    f"(06~10 중 하나). / unknown module {module!r}: prerequisite not checked.")
        prev = PREVIOUS[mod]
        if prev is None:
            return ""
        ov = overview(path)
        note = ("\n" + "\n".join(ov.notices)) if ov.notices else ""
        r = ov.row(prev)
        if r.passed:
            return note.strip()
        tried = (f"지금까지 {r.attempts}번 시도, 최고 {r.best}/{r.total}점" if r.attempts
                 else "아직 시도 기록이 없습니다")
        return (f"📌 모듈 {prev}({TOPIC[prev]}) 체크포인트를 아직 통과하지 않았습니다 ({tried}).\n"
                f"   이 노트북({mod}, {TOPIC[mod]})은 {prev} 의 내용을 안다고 가정합니다. "
                f"먼저 notebooks/{notebook_name(prev)} 끝의 체크포인트 퀴즈를 풀어 보길 권합니다.\n"
                f"   그대로 계속해도 됩니다 (막지 않습니다). 진도 전체: course.progress()" + note)
    except Exception as e:      # noqa: BLE001 - the first cell of a notebook must never fail on progress
        return f"ℹ 진행 기록을 확인하지 못했습니다 (계속 진행해도 됩니다) / progress not checked: {type(e).__name__}: {e}"
