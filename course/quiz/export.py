"""Printable checkpoint sheets: python -m course.quiz.export 06 [07 ...|all] [--out DIR].

Writes quizNN_sheet.{md,html} (questions only, code-fill questions as the code with numbered blanks)
and quizNN_answers.{md,html} (answers and explanations from answers/chNN/quizNN.json; without answers/ the
keys come from the shipped data and the explanations are left out, which the sheet says).
Print the HTML from a browser (Ctrl+P) for paper or PDF.
"""
import argparse
import html
import re
import sys
from pathlib import Path

from course import chapters

from .engine import load_answers, load_quiz
from .text import md

TYPE_KO = {"mc": "객관식", "numeric": "숫자", "code": "코드 빈칸", "explain": "서술", "free": "코드 작성"}
BLOOM_KO = {"Remember": "기억", "Understand": "이해", "Apply": "적용", "Analyze": "분석",
            "Evaluate": "평가", "Create": "창조"}
BLANK = "________"


def blanks_template(template):
    """Code with each ___ shown as a numbered blank: ____(1)____."""
    n = iter(range(1, 1000))
    return re.sub(r"___", lambda m: f"____({next(n)})____", template)


def filled_template(template, key):
    """Code with the blanks filled by the key."""
    vals = iter(key)
    return re.sub(r"___", lambda m: str(next(vals, "?")), template)


def _type_ko(q):
    return TYPE_KO["free"] if q.free else TYPE_KO.get(q.type, q.type)


def free_template(template, code=None):
    """A free-code question's template with its one ___ line replaced by `code` (each line at the blank's indent),
    or, without code, by a box of empty lines to write in."""
    lines = template.split("\n")
    i = next(n for n, line in enumerate(lines) if "___" in line)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    body = (code.rstrip("\n").split("\n") if code is not None
            else ["# ↓ 여기에 코드를 쓰세요 (여러 줄)"] + [""] * 6 + ["# ↑"])
    return "\n".join(lines[:i] + [indent + b if b else "" for b in body] + lines[i + 1:])


def _answer(quiz, q, entries):
    """(key text, explanation or None) for one question."""
    entry = (entries or {}).get(q.id) or {}
    if q.type == "explain":
        key = entry.get("model_answer") or quiz.model_answer(q.id)
    else:
        key = entry.get("key", quiz.key(q.id))
    return key, entry.get("explanation")


def _key_md(q, key):
    if q.type == "mc":
        return f"**정답: ({key})** " + dict(q.choices).get(key, "")
    if q.type == "numeric":
        tol = q.tolerance or {}
        extra = "" if not (tol.get("abs") or tol.get("rel")) else f" (허용 오차 {tol})"
        return f"**정답: {key}**{extra}"
    if q.free:
        return "**모범 답안** (채점기가 실행해서 확인하므로 같은 일을 하는 다른 코드도 정답):\n\n```python\n" \
            + free_template(q.template, key[0] if isinstance(key, (list, tuple)) else key) + "\n```"
    if q.type == "code":
        return ("**정답 예:** " + ", ".join(f"({i}) `{v}`" for i, v in enumerate(key, 1))
                + "\n\n```python\n" + filled_template(q.template, key) + "\n```")
    return f"**모범 답안:** {key}"


def _question_md(i, q, with_answers, quiz, entries):
    head = f"## 문제 {i} ({BLOOM_KO.get(q.bloom, q.bloom)}, {_type_ko(q)})"
    parts = [head, q.prompt.strip()]
    if q.type == "mc":
        parts.append("\n".join(f"- ( ) ({cid}) {text}" for cid, text in q.choices))
    elif q.type == "numeric":
        parts.append(f"답: {BLANK}{BLANK}")
    elif q.free:
        parts.append("```python\n" + free_template(q.template) + "\n```")
    elif q.type == "code":
        parts.append("```python\n" + blanks_template(q.template) + "\n```")
        parts.append("  ".join(f"({n}) {BLANK}" for n in range(1, q.blanks + 1)))
    else:
        parts.append("답:\n\n" + "\n\n".join("_" * 60 for _ in range(4)))
    if with_answers:
        key, expl = _answer(quiz, q, entries)
        parts.append("> " + _key_md(q, key).replace("\n", "\n> "))
        if expl:
            parts.append("> **해설:** " + expl.strip().replace("\n", "\n> "))
    return "\n\n".join(parts)


def markdown(quiz_id, with_answers=False):
    """The sheet as Markdown."""
    quiz = load_quiz(quiz_id)
    entries = load_answers(quiz_id) if with_answers else None
    kind = "정답과 해설" if with_answers else "문제지"
    lines = [f"# {quiz.title} — {kind}", "",
             f"이름: {BLANK}{BLANK}   학번: {BLANK}   점수: ____ / {quiz.total} "
             f"(통과: {quiz.pass_at}/{quiz.total} 이상)", "", quiz.intro.strip(), ""]
    if with_answers and not entries:
        lines += ["> answers/ 폴더가 없어 해설은 빠졌습니다 (정답은 배포된 데이터에서 읽음).", ""]
    for i, q in enumerate(quiz.questions, 1):
        lines += [_question_md(i, q, with_answers, quiz, entries), ""]
    return "\n".join(lines).rstrip() + "\n"


CSS = """body{font-family:'NanumGothic','Nanum Gothic','Noto Sans KR','Malgun Gothic',sans-serif;max-width:48em;
margin:2em auto;line-height:1.55;color:#111}h1{font-size:1.5em}h2{font-size:1.1em;margin-top:1.6em;
border-bottom:1px solid #ccc}pre{background:#f6f6f6;padding:.6em;border:1px solid #ddd;white-space:pre-wrap}
.answer{border-left:4px solid #4a8;padding:.2em .8em;background:#f3faf6}.line{border-bottom:1px solid #999;
height:2em}.choices{list-style:none}.q{break-inside:avoid;page-break-inside:avoid}
@media print{body{margin:0}}"""


def _question_html(i, q, with_answers, quiz, entries):
    out = [f'<div class="q"><h2>문제 {i} <small>({BLOOM_KO.get(q.bloom, q.bloom)}, '
           f'{_type_ko(q)})</small></h2>', md(q.prompt)]
    if q.type == "mc":
        out.append('<ul class="choices">' + "".join(f"<li>☐ ({html.escape(c)}) {html.escape(t)}</li>"
                                                    for c, t in q.choices) + "</ul>")
    elif q.type == "numeric":
        out.append(f"<p>답: {BLANK}{BLANK}</p>")
    elif q.free:
        out.append(f"<pre>{html.escape(free_template(q.template))}</pre>")
    elif q.type == "code":
        out.append(f"<pre>{html.escape(blanks_template(q.template))}</pre>")
        out.append("<p>" + " &nbsp; ".join(f"({n}) {BLANK}" for n in range(1, q.blanks + 1)) + "</p>")
    else:
        out.append('<div class="line"></div>' * 4)
    if with_answers:
        key, expl = _answer(quiz, q, entries)
        out.append(f'<div class="answer">{md(_key_md(q, key))}'
                   + (md("**해설:** " + expl) if expl else "") + "</div>")
    return "".join(out) + "</div>"


def html_sheet(quiz_id, with_answers=False):
    """The sheet as a standalone, printable HTML page."""
    quiz = load_quiz(quiz_id)
    entries = load_answers(quiz_id) if with_answers else None
    kind = "정답과 해설" if with_answers else "문제지"
    title = html.escape(f"{quiz.title} — {kind}")
    body = [f"<h1>{title}</h1>",
            f"<p>이름: {BLANK}{BLANK} &nbsp; 학번: {BLANK} &nbsp; 점수: ____ / {quiz.total} "
            f"(통과: {quiz.pass_at}/{quiz.total} 이상)</p>", md(quiz.intro)]
    if with_answers and not entries:
        body.append("<p><i>answers/ 폴더가 없어 해설은 빠졌습니다 (정답은 배포된 데이터에서 읽음).</i></p>")
    body += [_question_html(i, q, with_answers, quiz, entries) for i, q in enumerate(quiz.questions, 1)]
    return (f'<!DOCTYPE html>\n<html lang="ko"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def all_quiz_ids():
    """Every checkpoint that ships (course/chNN_<slug>/quiz.json, in the order of course/chapters.py)."""
    return [c.number for c in chapters.CHAPTERS if c.quiz_path.exists()]


def export(quiz_id, out_dir):
    """Write the four files of one checkpoint; returns their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for with_answers, name in ((False, "sheet"), (True, "answers")):
        for ext, make in (("md", markdown), ("html", html_sheet)):
            p = out_dir / f"quiz{quiz_id}_{name}.{ext}"
            p.write_text(make(quiz_id, with_answers), encoding="utf-8")
            written.append(p)
    return written


def main(argv=None):
    """CLI entry point."""
    ap = argparse.ArgumentParser(prog="python -m course.quiz.export", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("quiz", nargs="+", help="체크포인트 번호 (06, 07, ...) 또는 all")
    ap.add_argument("--out", type=Path, default=Path("sheets"), help="출력 폴더 (기본: ./sheets)")
    args = ap.parse_args(argv)
    ids = all_quiz_ids() if args.quiz == ["all"] else [q.zfill(2) for q in args.quiz]
    unknown = [q for q in ids if q not in all_quiz_ids()]
    if unknown:
        print(f"없는 체크포인트 / unknown checkpoint: {', '.join(unknown)} (있는 것: {', '.join(all_quiz_ids())})",
              file=sys.stderr)
        return 2
    for q in ids:
        for p in export(q, args.out):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
