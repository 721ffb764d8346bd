"""Korean particles chosen by how a value is read aloud: josa("커널", "이/가") -> "커널이", josa(16, "을/를") -> "16을".

The last thing read decides: a Hangul syllable by its final consonant (받침), a number by how its last digit or power of
ten is read (3 삼, 10 십, 100 백, 2 이), a Latin letter by its name (L 엘, M 엠, N 엔, R 알 end in a consonant; A 에이,
s 에스 do not). Closing brackets, quotes, backticks, spaces and most punctuation are skipped, so `(16, 0)` reads as
"…영" and `As[ty, k]` as "…케이". Pure Python: sim/ stays free of numba and widgets.
"""
import re

# pairs written "with 받침 / without 받침"; 으로/로 also takes 로 after ㄹ
PAIRS = {"이/가", "을/를", "은/는", "과/와", "이었/였", "으로/로", "이나/나", "이라/라", "아/야", "이에요/예요", "이여/여",
         "이라고/라고", "이며/며", "이고/고", "이다/다", "이지만/지만", "이면/면"}
_HANGUL0, _HANGUL1 = 0xAC00, 0xD7A3
_RIEUL = 8                                   # index of ㄹ among the final consonants
# how each digit is read (Sino-Korean): 영 일 이 삼 사 오 육 칠 팔 구 -> final consonant index (0: none)
_DIGIT_FINAL = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8, "9": 0}
# a Latin letter by its Korean name: only L(엘) M(엠) N(엔) R(알) end in a consonant
_LETTER_FINAL = {"l": 8, "m": 16, "n": 4, "r": 8}
_SKIP = set(" \t\n`'\"’”)]}>»·.,;:!?…*_~")


def final_consonant(word):
    """Index (1-27) of the final consonant with which `word` is read aloud, 0 if it ends in a vowel; None if unknown."""
    text = str(word)
    i = len(text) - 1
    if text.endswith(")"):
        w = _word_before_paren(text, i)
        if w and _is_hangul(w[-1]):                  # '순서(로드 → 저장)' is read by its word: 순서를
            return final_consonant(w)
    while i >= 0 and text[i] in _SKIP:
        if text[i] == "." and i > 0 and text[i - 1].isdigit() and i + 1 < len(text) and text[i + 1].isdigit():
            break                                # a decimal point inside a number is never at the end here
        i -= 1
    if i < 0:
        return None
    ch = text[i]
    if _HANGUL0 <= ord(ch) <= _HANGUL1:
        return (ord(ch) - _HANGUL0) % 28
    if ch.isdigit():
        return _number_final(text[:i + 1])
    if ch.isascii() and ch.isalpha():
        return _LETTER_FINAL.get(ch.lower(), 0)
    if ch == "%":                                # 퍼센트
        return 0
    if ch == "×":                                # 곱하기
        return 0
    return None


def _number_final(text):
    """Final consonant of the number that `text` ends with ('2048' 사 -> 0, '1024' 사, '10' 십 -> ㅂ, '0.5' 오 -> 0)."""
    digits = re.search(r"[0-9][0-9,]*(\.[0-9]+)?$", text).group(0).replace(",", "")
    if "." in digits:                            # the decimals are read digit by digit: the last one decides
        return _DIGIT_FINAL[digits[-1]]
    stripped = digits.lstrip("0")
    if not stripped:
        return _DIGIT_FINAL["0"]                 # 영
    zeros = len(stripped) - len(stripped.rstrip("0"))
    if zeros == 0:
        return _DIGIT_FINAL[stripped[-1]]
    if zeros < 4:                                # 십 (ㅂ), 백 (ㄱ), 천 (ㄴ)
        return {1: 17, 2: 1, 3: 4}[zeros]
    # 만 (ㄴ) for 10^4..10^7, 억 (ㄱ) for 10^8..10^11, 조 (none) for 10^12..10^15, 경 (ㅇ) beyond
    return (4, 1, 0, 21)[min(zeros // 4 - 1, 3)]


def particle(word, pair):
    """The particle of `pair` ("이/가", "을/를", "은/는", "과/와", "이었/였", "으로/로", ...) that follows `word`."""
    if pair not in PAIRS:
        raise ValueError(f"unknown particle pair {pair!r}; one of {sorted(PAIRS)}")
    with_final, without = pair.split("/")
    fc = final_consonant(word)
    if fc is None:
        return f"{with_final}({without})" if pair != "으로/로" else "(으)로"
    if pair == "으로/로":
        return without if fc in (0, _RIEUL) else with_final
    return with_final if fc else without


def josa(word, pair):
    """`word` followed by the right particle of `pair`: josa(3, "이/가") -> "3이", josa("타일", "을/를") -> "타일을"."""
    return f"{word}{particle(word, pair)}"


# --------------------------------------------------------------------------------- checking finished text

_PARTICLE_RE = re.compile(r"(\s?)(이었|였|으로|로|이|가|을|를|은|는|과|와)(?=$|[\s.,:;!?)\]\"'’”…·(])")
_PAIR_OF = {"이": "이/가", "가": "이/가", "을": "을/를", "를": "을/를", "은": "은/는", "는": "은/는", "과": "과/와",
            "와": "과/와", "이었": "이었/였", "였": "이었/였", "으로": "으로/로", "로": "으로/로"}
_NEVER_ALONE = {"을", "를", "은", "는", "과", "와", "으로", "로", "이었", "였"}     # never a word of their own


def _is_hangul(ch):
    return _HANGUL0 <= ord(ch) <= _HANGUL1


def _word_before_paren(text, close):
    """For text ending at a ')' at index close: the text before its '(' when the '(' is attached to a word
    ('타일(k = 8…12)' -> '타일': the particle agrees with the word, not the aside), else None."""
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return text[:i] if i > 0 and not text[i - 1].isspace() else None
    return None


def wrong_particles(text):
    """Particles in finished text that do not fit the value before them: [(context, particle, expected)].

    Judged where the reading is certain: after a number, a Latin letter, code in backticks or brackets, or a
    parenthesised value; after a word with an aside in parentheses ('타일(…)이') the word decides. A particle
    separated by a space from a Korean word ('4.3절 을') is reported too (expected: attached). Korean words followed
    by a syllable that only looks like a particle ('차이', '있는') are not judged."""
    out = []
    for m in _PARTICLE_RE.finditer(text):
        space, p = m.group(1), m.group(2)
        start = m.start()
        if start == 0:
            continue
        before = text[:start]
        last = before[-1]
        if last.isspace() or last in "([{.,:;!?…·":
            continue                             # a new word ('입니다. 이 함수'), not a particle
        if last in "\"'`" and (len(before) == 1 or before[-2] in " \t\n([\"'`"):
            continue                             # an opening quote: a word starts ('"""이 함수는')
        pair = _PAIR_OF[p]
        ctx = text[max(0, start - 12):m.end()]
        if _is_hangul(last):
            if space and p in _NEVER_ALONE:
                out.append((ctx, p, "붙여 쓰기"))
            continue
        if last == ")":
            word = _word_before_paren(before, len(before) - 1)
            if word:                             # 'As(32×8)와', '타일(k = …)이': the word decides
                if not _is_hangul(word[-1]):
                    continue                     # a Latin word: its English reading is not known here
                before = word
        token = re.search(r"[A-Za-z]+$", before.rstrip("`'\")]} "))
        if token and len(token.group(0)) > 1 and not token.group(0).isupper():
            continue                             # an English word ('commit', 'scol'): read as English, not judged
        fc = final_consonant(before)
        if fc is None:
            continue
        want = particle(before, pair)
        if want != p:
            out.append((ctx, p, want))
    return out
