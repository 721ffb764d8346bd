"""Matplotlib with a Korean font that ships with the package (koreanize-matplotlib bundles NanumGothic), so labels render anywhere.

NanumGothic lacks U+2212 (the minus sign) and arrows such as "→". Log axes label their ticks with mathtext
($10^{-3}$), which always draws the minus as U+2212 in the text's first font, whatever axes.unicode_minus says. So the
family list starts with DejaVu Sans (shipped with matplotlib: digits, minus, arrows) and falls back glyph by glyph to
NanumGothic for Hangul (matplotlib >= 3.6); plain-text minus signs are ASCII hyphens (axes.unicode_minus=False). No
label shows a box and no missing-glyph warning prints (nbval fails a notebook that prints one: conftest.py).
Do not put Hangul inside $...$ mathtext: mathtext does not use the fallback.
"""
import math

import koreanize_matplotlib  # noqa: F401  (registers NanumGothic)
import matplotlib
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from sim import outer

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


# ---- figures two places draw (notebook 07's lesson and its widget) -------------------------------------------------

def ai_figure(configs=None):
    """Figure: shared->register AI vs T for square tiles, asymmetric tiles at T = sqrt(TM*TN), data registers noted (Korean labels)."""
    rows = outer.ai_table(outer.DEFAULT_CONFIGS if configs is None else configs)
    square = [r for r in rows if r["TM"] == r["TN"]]
    asym = [r for r in rows if r["TM"] != r["TN"]]
    fig = Figure(figsize=(8, 4.8))
    ax = fig.add_subplot()
    if square:
        ax.plot([r["TM"] for r in square], [r["ai"] for r in square], "o-", color="tab:blue",
                label="TM = TN = T  (AI = T/4)", gid="square")
    if asym:
        ax.scatter([math.sqrt(r["TM"] * r["TN"]) for r in asym], [r["ai"] for r in asym], marker="s",
                   color="tab:orange", zorder=3, label="TM ≠ TN (가로축 T = √(TM·TN))", gid="asymmetric")
    groups = {}      # tiles drawn on the same point (4x16 and 16x4) share one label
    for r in square + asym:
        groups.setdefault((r["TM"] * r["TN"], r["ai_exact"]), []).append(r)
    for rs in groups.values():
        r, over = rs[0], not rs[0]["fits"]
        names = ", ".join(f"{q['TM']}x{q['TN']}" for q in rs)
        regs = "/".join(str(d) for d in sorted({q["data_regs"] for q in rs}))
        x = math.sqrt(r["TM"] * r["TN"])
        # square: small T below-right of the line, large T above-left; asymmetric: to the right
        xytext, ha, va = (((8, -8), "left", "top") if x < 8 else ((-8, 6), "right", "bottom")) \
            if r["TM"] == r["TN"] else ((9, 0), "left", "center")
        ax.annotate(f"{names}: AI {r['ai']:.3g}, 레지스터 {regs}" + (" > 255!" if over else ""),
                    (x, r["ai"]), textcoords="offset points", xytext=xytext, ha=ha, va=va,
                    fontsize=7, color="tab:red" if over else "black")
    ax.set_xlabel("T (스레드 타일 TM = TN = T, 비대칭 타일은 √(TM·TN))")
    ax.set_ylabel("산술 강도 AI (FLOP/B): 공유 메모리 → 레지스터")
    ax.set_title("레지스터 타일의 산술 강도 (arithmetic intensity); 레지스터 = 데이터 레지스터 rC + rA + rB "
                 "(스레드당 상한 255)",
                 fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.margins(x=0.15, y=0.15)
    fig.tight_layout()
    return fig
