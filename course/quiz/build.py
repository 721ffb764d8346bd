"""Build the shipped quiz data (keys obfuscated) from the readable answers/chNN/quizNN.json."""
import argparse
import json
import sys
from pathlib import Path

from .engine import TYPES, encode_key, quiz_path

PUBLIC_FIELDS = ("id", "bloom", "type", "section", "prompt", "choices", "tolerance", "template", "checker", "form",
                 "starter")


def build(answers):
    """Return the shippable data dict for a readable answers dict (raises ValueError when it is malformed)."""
    qid_seen, out = set(), []
    quiz_id = str(answers["quiz"])
    for q in answers["questions"]:
        qid, kind = q["id"], q["type"]
        if kind not in TYPES or qid in qid_seen:
            raise ValueError(f"{qid}: bad type {kind!r} or duplicate id")
        qid_seen.add(qid)
        if kind == "mc" and q["key"] not in {c["id"] for c in q["choices"]}:
            raise ValueError(f"{qid}: key {q['key']!r} is not one of the choices")
        if kind == "code" and (q["template"].count("___") != len(q["key"]) or ":" not in q["checker"]):
            raise ValueError(f"{qid}: the template needs one ___ per key entry and a checker 'module:function'")
        if kind == "explain" and not q.get("model_answer"):
            raise ValueError(f"{qid}: explain questions need a model_answer")
        pub = {k: q[k] for k in PUBLIC_FIELDS if k in q}
        if kind != "explain":
            pub["key_enc"] = encode_key(quiz_id, qid, q["key"])
        else:
            pub["model_enc"] = encode_key(quiz_id, qid, q["model_answer"], "model")
        out.append(pub)
    pass_at = int(answers["pass_at"])
    if not 0 < pass_at <= len(out):
        raise ValueError(f"pass_at {pass_at} must be between 1 and {len(out)}")
    return {"_comment": "생성된 파일입니다. 직접 고치지 말고 answers/ch%s/quiz%s.json 을 고친 뒤 "
                        "python -m course.quiz.build answers/ch%s/quiz%s.json 을 실행하세요." % ((quiz_id,) * 4),
            "format": 1, "quiz": quiz_id, "title": answers.get("title", ""), "intro": answers.get("intro", ""),
            "pass_at": pass_at, "questions": out}


def dumps(data):
    """The canonical text of a data file (what gets committed)."""
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main(argv=None):
    """CLI: python -m course.quiz.build answers/ch06/quiz06.json [-o OUT] [--check]."""
    ap = argparse.ArgumentParser(prog="python -m course.quiz.build", description=__doc__)
    ap.add_argument("answers", type=Path, help="answers/chNN/quizNN.json")
    ap.add_argument("-o", "--out", type=Path, help="기본값: course/chNN_<slug>/quiz.json (course/chapters.py)")
    ap.add_argument("--check", action="store_true", help="쓰지 않고 최신인지만 확인 (다르면 종료 코드 1)")
    args = ap.parse_args(argv)
    answers = json.loads(args.answers.read_text(encoding="utf-8"))
    text = dumps(build(answers))
    out = args.out or quiz_path(answers['quiz'])
    if args.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print(f"{out}: {'최신 / up to date' if same else '다시 만들어야 함 / out of date'}")
        return 0 if same else 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"{out} 를 만들었습니다 / wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
