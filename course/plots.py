"""Matplotlib with a Korean font that ships with the package (koreanize-matplotlib bundles NanumGothic), so labels render anywhere.

NanumGothic lacks U+2212 (the minus sign) and arrows such as "→". Log axes label their ticks with mathtext
($10^{-3}$), which always draws the minus as U+2212 in the text's first font, whatever axes.unicode_minus says. So the
family list starts with DejaVu Sans (shipped with matplotlib: digits, minus, arrows) and falls back glyph by glyph to
NanumGothic for Hangul (matplotlib >= 3.6); plain-text minus signs are ASCII hyphens (axes.unicode_minus=False). No
label shows a box and no missing-glyph warning prints (nbval fails a notebook that prints one: conftest.py).
Do not put Hangul inside $...$ mathtext: mathtext does not use the fallback.
"""
import koreanize_matplotlib  # noqa: F401  (registers NanumGothic)
import matplotlib
import matplotlib.pyplot as plt

KOREAN = "NanumGothic"
FONT = ["DejaVu Sans", KOREAN]


def use_course_font():
    """Set the course's font family and minus sign (again: a later koreanize() or style call may have reset them)."""
    matplotlib.rcParams["font.family"] = FONT
    matplotlib.rcParams["axes.unicode_minus"] = False


use_course_font()


def subplots(*args, **kwargs):
    """plt.subplots with the course's Korean font in place."""
    use_course_font()
    return plt.subplots(*args, **kwargs)
