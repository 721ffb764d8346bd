"""Quiz data model, key obfuscation and grading (pure: no widgets, writes nothing)."""
import base64
import hashlib
import importlib
import json
import math
import os
import re
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from course import chapters
from sim.errors import CourseInputError
from sim.korean import josa

TYPES = ("mc", "numeric", "code", "explain")
FORMS = ("blanks", "free")
SALT = b"sgemm-course-quiz/v1"
ANSWERS_ENV = "SGEMM_ANSWERS_DIR"
CHECKER_MODULE = "course.quiz.checks"
CHECK_TIMEOUT_S = 60.0
UNANSWERED = "미응답"
NOT_A_NUMBER = "숫자를 입력하세요"
NO_ANSWERS_NOTE = "해설은 answers/ 폴더가 있을 때 표시됩니다"
KEYS_AFTER_PASS_NOTE = ("정답과 해설은 통과한 뒤에 보입니다. 틀린 문항의 '다시 읽을 곳' 을 읽고 다시 도전하세요 "
                        "(Keys and explanations appear after you pass; reread the sections named above and try again)")


def _keystream(quiz_id, qid, purpose, n):
    """SHA-256 counter-mode bytes derived from quiz id + question id (+ what is hidden)."""
    out, i = bytearray(), 0
    while len(out) < n:
        out += hashlib.sha256(SALT + f"|{quiz_id}|{qid}|{purpose}|{i}".encode()).digest()
        i += 1
    return bytes(out[:n])


def encode_key(quiz_id, qid, value, purpose="key"):
    """JSON -> zlib -> XOR keystream -> base64: unreadable at a glance, deterministic."""
    raw = zlib.compress(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8"), 9)
    ks = _keystream(quiz_id, qid, purpose, len(raw))
    return base64.b64encode(bytes(a ^ b for a, b in zip(raw, ks))).decode("ascii")


def decode_key(quiz_id, qid, blob, purpose="key"):
    """Inverse of encode_key."""
    raw = base64.b64decode(blob)
    ks = _keystream(quiz_id, qid, purpose, len(raw))
    return json.loads(zlib.decompress(bytes(a ^ b for a, b in zip(raw, ks))).decode("utf-8"))


@dataclass(frozen=True)
class Question:
    """One checkpoint question as shipped (keys obfuscated)."""
    id: str
    type: str
    bloom: str
    prompt: str
    choices: tuple = ()          # ((choice id, text), ...) for mc
    tolerance: dict = field(default_factory=dict)   # {"abs": x, "rel": y} for numeric
    template: str = ""           # code: source with ___ blanks
    checker: str = ""            # code: "course.quiz.checks:function"
    key_enc: str = ""
    model_enc: str = ""          # explain: obfuscated model answer
    section: str = ""            # the notebook section to reread when it is wrong, e.g. "3.4 뱅크 충돌 (핵심)"
    form: str = "blanks"         # code: "blanks" (one short expression per ___) or "free" (the one ___ is code typed
    starter: str = ""            #       into a text area, which starts with `starter`)

    @property
    def blanks(self):
        return self.template.count("___")

    @property
    def free(self):
        return self.type == "code" and self.form == "free"


@dataclass(frozen=True)
class Quiz:
    """A checkpoint: questions and the pass threshold."""
    id: str
    title: str
    pass_at: int
    questions: tuple
    intro: str = ""

    @property
    def total(self):
        return len(self.questions)

    def question(self, qid):
        return next(q for q in self.questions if q.id == qid)

    def key(self, qid):
        return decode_key(self.id, qid, self.question(qid).key_enc)

    def model_answer(self, qid):
        return decode_key(self.id, qid, self.question(qid).model_enc, "model")


def quiz_from_dict(d):
    """Build a Quiz from the shipped data dict, checking its shape."""
    qs = []
    for q in d["questions"]:
        if q["type"] not in TYPES:
            raise ValueError(f"question {q['id']}: unknown type {q['type']!r}")
        qs.append(Question(id=q["id"], type=q["type"], bloom=q.get("bloom", ""), prompt=q["prompt"],
                           choices=tuple((c["id"], c["text"]) for c in q.get("choices", ())),
                           tolerance=dict(q.get("tolerance", {})), template=q.get("template", ""),
                           checker=q.get("checker", ""), key_enc=q.get("key_enc", ""),
                           model_enc=q.get("model_enc", ""), section=q.get("section", ""),
                           form=q.get("form", "blanks"), starter=q.get("starter", "")))
        if qs[-1].type == "code" and qs[-1].form not in FORMS or qs[-1].free and qs[-1].blanks != 1:
            raise ValueError(f"question {q['id']}: code form must be one of {FORMS} (a free form has exactly one ___)")
    if len({q.id for q in qs}) != len(qs):
        raise ValueError("duplicate question ids")
    return Quiz(id=str(d["quiz"]), title=d.get("title", ""), pass_at=int(d["pass_at"]),
                questions=tuple(qs), intro=d.get("intro", ""))


def quiz_path(quiz_id):
    """The shipped checkpoint data of chapter `quiz_id`: course/chNN_<slug>/quiz.json (course/chapters.py)."""
    return chapters.get(quiz_id).quiz_path


def load_quiz(quiz_id, data_dir=None):
    """Load chapter quiz_id's course/chNN_<slug>/quiz.json (ships with the package), or data_dir/quiz<id>.json."""
    path = Path(data_dir) / f"quiz{quiz_id}.json" if data_dir else quiz_path(quiz_id)
    return quiz_from_dict(json.loads(path.read_text(encoding="utf-8")))


def answers_dir():
    """$SGEMM_ANSWERS_DIR, else <repo root>/answers next to the package (a set variable must name a folder)."""
    env = os.environ.get(ANSWERS_ENV)
    if env:
        if not Path(env).expanduser().is_dir():
            raise CourseInputError(
                f"환경 변수 {ANSWERS_ENV}={env!r} 가 폴더가 아닙니다 (정답·해설 폴더여야 함).",
                f"environment variable {ANSWERS_ENV}={env!r} is not a folder (it must name the answers folder).",
                f"정답 폴더(예: 강좌의 answers/)를 가리키게 하거나 변수를 지우세요: unset {ANSWERS_ENV}",
                f"point it at the answers folder (e.g. the course's answers/) or unset it.")
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / "answers"      # course/quiz/engine.py -> the repository root


def answers_file(quiz_id, folder=None):
    """The readable answers of checkpoint quiz_id: <answers>/chNN/quizNN.json, or a flat <answers>/quizNN.json (an
    instructor's own folder, or a clone from before the chapter folders)."""
    folder = Path(folder) if folder is not None else answers_dir()
    nested, flat = folder / f"ch{quiz_id}" / f"quiz{quiz_id}.json", folder / f"quiz{quiz_id}.json"
    return flat if flat.exists() and not nested.exists() else nested


def load_answers(quiz_id):
    """The readable answers/chNN/quizNN.json as a dict qid -> question, or None when absent/unreadable."""
    folder = answers_dir()             # a bad $SGEMM_ANSWERS_DIR is the student's to fix: its error must show
    try:
        d = json.loads(answers_file(quiz_id, folder).read_text(encoding="utf-8"))
        return {q["id"]: q for q in d["questions"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


# A numeric answer may carry the unit its prompt asks in: '8192 B' for 몇 바이트, '12.5%' for 몇 %, '64개' for 몇 개.
# (unit, how it may be written, the prompt's words that invite it, the multiple of the unit it stands for). A byte
# question also reads KiB and MiB (IEC: exactly 1024 and 1024² bytes, so '8 KiB' is 8192 B). A unit the prompt does not
# ask for ('12.5배' to a 몇 % question) is not read as that number; KB, MB (1000 or 1024? both are in use), ms, ... are
# not guessed.
UNITS = (
    ("B", r"B|(?i:bytes?)|바이트", r"몇\s*(?:바이트|bytes?)", 1),          # not 'b': that is a bit
    ("B", r"[Kk][Ii]B|(?i:kibibytes?)", None, 1024),                   # a capital B: 'Kib' is a kibibit
    ("B", r"M[Ii]B|(?i:mebibytes?)", None, 1024 ** 2),
    ("%", r"%|퍼센트|(?i:percent)", r"몇\s*(?:%|퍼센트)", 1),
    ("개", r"개", r"몇\s*개", 1),
    ("배", r"배|[×xX]", r"몇\s*배", 1),                               # '2.4배', '2.4x'; a leading '×2.4' too
    ("블록", r"블록|(?i:blocks?)", r"몇\s*블록|블록\s*수", 1),
    ("번", r"번", r"번호|몇\s*번", 1),
    ("FLOP/byte", r"(?i:flops?)\s*/\s*(?:(?i:bytes?)|B|바이트)", r"몇\s*FLOP\s*/\s*byte", 1),
)
# words are read in any case ('flop/Byte', '8192 Bytes', '12.5 Percent'), and a closing full stop is dropped ('64개.')
_UNIT = re.compile(r"\s*(?:" + "|".join(f"(?P<u{i}>{w})" for i, (_, w, _, _) in enumerate(UNITS)) + r")\s*$")
# a number, then a word (letters or %: '8 KB' -> ('8', 'KB')), not an expression ('1/2' stays 'not a number')
_NUMBER_THEN = re.compile(r"^\s*([-+]?[\d,]*\.?\d+(?:[eE][-+]?\d+)?)\s*([^\W\d_%]\S*|%\S*)\s*$")
_INVITES = tuple((u, re.compile(p)) for u, _, p, _ in UNITS if p)
_AMBIGUOUS = re.compile(r"[kKmMgG]B|(?i:[kmg]bytes?|kilobytes?|megabytes?)|[kKmMgG]바이트|킬로바이트|메가바이트")
_TIMES_FIRST = re.compile(r"^[×xX]\s*[\d.]")
WRONG_UNIT = "이 문제가 묻는 단위가 아닙니다"


def split_number(text):
    """(float, unit or None) from user text ('8192', '8,192', ' 1e3 ', '768 B', '8 KiB', '12.5 %', '64개'); the float
    is in the unit (8 KiB -> (8192.0, 'B')), None when the text is not a finite number with at most one known unit
    after it."""
    if isinstance(text, bool):
        return None, None
    if isinstance(text, (int, float)):
        v = float(text)
        return (v if math.isfinite(v) else None), None
    text, unit, scale = str(text).strip().rstrip(".。").rstrip(), None, 1
    m = _UNIT.search(text)
    if m:
        unit, _, _, scale = UNITS[int(next(k for k, g in m.groupdict().items() if g is not None)[1:])]
        text = text[:m.start()]
    elif _TIMES_FIRST.match(text):              # '×2.43', 'x2.4': the notebooks write multipliers this way
        unit, text = "배", text[1:]
    try:
        v = float(text.replace(",", "").replace(" ", "")) * scale
    except ValueError:
        return None, None
    return (v, unit) if math.isfinite(v) else (None, None)


def parse_number(text):
    """float from user text ('8192', '8,192', ' 1e3 ', '768 B', '12.5%', '64개'), or None when it is not a finite
    number (any known unit is dropped; grade_question also checks that the prompt asks in that unit)."""
    return split_number(text)[0]


def invited_units(prompt):
    """The units a question's prompt asks in ('몇 %' -> '%', '몇 바이트' -> 'B', ...), in UNITS order."""
    return [u for u, rx in _INVITES if rx.search(prompt or "")]


def within_tolerance(value, key, tol):
    """|value - key| <= max(abs, rel * |key|) (inclusive, up to float rounding)."""
    allowed = max(float(tol.get("abs", 0.0)), float(tol.get("rel", 0.0)) * abs(key))
    return abs(value - key) <= allowed + 1e-12 * max(1.0, abs(key))


def run_checker(name, blanks, timeout=None):
    """Call a checker from course.quiz.checks in a worker thread; (ok, message), never raises."""
    mod_name, _, func_name = name.partition(":")
    if mod_name != CHECKER_MODULE or not func_name.isidentifier():
        return False, f"검사기 오류: 허용되지 않는 검사기 {name!r}"
    box = {}

    def work():
        try:
            box["r"] = getattr(importlib.import_module(mod_name), func_name)(list(blanks))
        except BaseException as e:      # noqa: BLE001 - a checker must never take the notebook down
            box["e"] = e

    th = threading.Thread(target=work, daemon=True, name=f"quiz-check-{func_name}")
    th.start()
    th.join(CHECK_TIMEOUT_S if timeout is None else timeout)
    if th.is_alive():
        return False, f"시간 초과: 검사가 {CHECK_TIMEOUT_S if timeout is None else timeout:g}초 안에 끝나지 않았습니다"
    if "e" in box:
        return False, f"검사기 오류: {type(box['e']).__name__}: {box['e']}"
    r = box.get("r")
    if not (isinstance(r, tuple) and len(r) == 2):
        return False, f"검사기 오류: (ok, message) 가 아닌 값 {r!r}"
    return bool(r[0]), str(r[1])


def _is_blank(v):
    return v is None or (isinstance(v, str) and not v.strip())


def grade_question(quiz, q, answer):
    """(correct, feedback) for one answer; bad input is wrong with a message, never an exception."""
    if q.type == "mc":
        if _is_blank(answer):
            return False, UNANSWERED
        if answer not in {c[0] for c in q.choices}:
            return False, f"알 수 없는 보기 {answer!r}"
        return (True, "정답") if answer == quiz.key(q.id) else (False, "오답")
    if q.type == "numeric":
        if _is_blank(answer):
            return False, UNANSWERED
        v, unit = split_number(answer)
        invited = invited_units(q.prompt)
        shown = [u + (" 또는 KiB" if u == "B" else "") for u in invited]
        fix = f"숫자만 쓰거나 {', '.join(shown)} 단위로 답하세요" if invited else "숫자만 쓰세요"
        if v is None:
            m = _NUMBER_THEN.match(str(answer).strip().rstrip(".。"))
            if m and split_number(m.group(1))[0] is not None:     # a number, then a unit this quiz does not read
                why = (" (1000 배수인지 1024 배수인지 정해져 있지 않습니다: 1024 바이트는 KiB, 1024² 바이트는 MiB)"
                       if _AMBIGUOUS.fullmatch(m.group(2)) else "")
                return False, f"{josa(repr(m.group(2)), '은/는')} 읽을 수 없는 단위입니다{why}: {fix}"
            return False, NOT_A_NUMBER
        if unit is not None and unit not in invited:
            typed = str(answer).strip().rstrip(".。").rstrip()
            m = _UNIT.search(typed)
            written = m.group(0).strip() if m else typed[0]          # as typed: 'KiB', or the '×' of '×64'
            return False, f"{josa(repr(written), '은/는')} {WRONG_UNIT}: {fix}"
        return (True, "정답") if within_tolerance(v, float(quiz.key(q.id)), q.tolerance) else (False, "오답")
    if q.type == "code":
        blanks = [answer] if isinstance(answer, str) else list(answer or [])
        if all(_is_blank(b) for b in blanks):
            return False, UNANSWERED
        ok, msg = run_checker(q.checker, [b if isinstance(b, str) else "" for b in blanks])
        return ok, msg
    if q.type == "explain":
        text, self_ok = (answer, False) if isinstance(answer, str) else \
            ((answer or {}).get("text"), bool((answer or {}).get("self_ok")))
        if _is_blank(text):
            return False, UNANSWERED
        if self_ok:
            return True, "자기 평가: 핵심을 담았다"
        return False, "자기 평가: 아직 핵심을 담지 못했다 — 모범 답안과 비교해 보세요"
    return False, f"채점 오류: 알 수 없는 문제 유형 {q.type!r}"


@dataclass
class QuestionResult:
    """Grading of one question."""
    qid: str
    correct: bool
    feedback: str
    explanation: str = None      # shown only when answers/ is present and the keys may be shown (see grade)
    section: str = ""            # where to reread (the question's notebook section)


@dataclass
class QuizResult:
    """Grading of one submission."""
    quiz_id: str
    score: int
    total: int
    pass_at: int
    passed: bool
    results: list
    answers: dict
    has_explanations: bool
    revealed: bool = True        # keys and explanations may be shown (a pass, or the instructor's setting)

    def correct_map(self):
        return {r.qid: r.correct for r in self.results}


def _explanation(q, entry):
    """Readable 'answer + why' text from an answers/ entry."""
    if entry is None:
        return None
    key, parts = entry.get("key"), []
    if q.type == "mc" and key is not None:
        parts.append(f"**정답: ({key})** " + dict(q.choices).get(key, ""))
    elif q.type == "numeric" and key is not None:
        parts.append(f"**정답: {key}**")
    elif q.free and key is not None:
        parts.append("**정답 예:**\n\n```python\n" + "".join(map(str, key)).rstrip("\n") + "\n```")
    elif q.type == "code" and key is not None:
        parts.append("**정답 예:** `" + ", ".join(map(str, key)) + "`")
    elif q.type == "explain" and entry.get("model_answer"):
        parts.append("**모범 답안:** " + entry["model_answer"])
    if entry.get("explanation"):
        parts.append(entry["explanation"])
    return "\n\n".join(parts) or None


def may_reveal(passed, failed_before=0, passed_before=False, reveal_after=None):
    """Keys are shown after a pass (now or before), or once failures reach the instructor's `reveal_after`."""
    return bool(passed or passed_before or (reveal_after is not None and failed_before + 1 >= reveal_after))


def grade(quiz, answers, answer_key="auto", failed_before=0, passed_before=False, reveal_after=None):
    """Grade answers {qid: value} against the obfuscated keys.

    Explanations (with the key) from answers/ only when may_reveal(...): a failed attempt gets which questions
    were wrong and the section to reread, never the key.
    """
    answers = dict(answers or {})
    entries = load_answers(quiz.id) if answer_key == "auto" else answer_key
    results = []
    for q in quiz.questions:
        try:
            ok, msg = grade_question(quiz, q, answers.get(q.id))
        except Exception as e:          # noqa: BLE001 - corrupt data or odd input: wrong, not a crash
            ok, msg = False, f"채점 오류: {type(e).__name__}: {e}"
        results.append(QuestionResult(q.id, bool(ok), msg, None, q.section))
    score = sum(r.correct for r in results)
    passed = score >= quiz.pass_at
    revealed = may_reveal(passed, failed_before, passed_before, reveal_after)
    if entries and revealed:
        for r, q in zip(results, quiz.questions):
            r.explanation = _explanation(q, entries.get(q.id))
    return QuizResult(quiz.id, score, quiz.total, quiz.pass_at, passed, results, answers, bool(entries), revealed)
