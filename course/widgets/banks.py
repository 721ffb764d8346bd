"""Bank-conflict explorer: padding/column/offset/access/warp controls wired to sim.banks, drawn as a bank map.

Accesses cover notebook 06's 16x16 tiles and notebook 07's regblock tiles (As[128][8], Bs[8][128], thread tile 8x8,
so the 4-way conflict of rB = Bs[k][8*tx + n] can be explored); the block is 16x16 threads in both."""
import base64
import io
from collections import Counter

import ipywidgets as W
from matplotlib.figure import Figure

from course import plots  # noqa: F401  (Korean font for the figure: koreanize-matplotlib's NanumGothic)
from course.widgets import live
from course.widgets.controls import fit, row
from sim import banks

TILE = 16
BLOCK = (TILE, TILE)
RB_BM, RB_BK, RB_T = 128, 8, 8          # notebook 07's regblock: As[BM][BK], Bs[BK][BN = BM], thread tile 8x8
EXERCISE = "가상의 요청: smem[ty][k] 를 ty=0..15 가 한 요청으로 읽는다고 가정"
# label -> (kind, index_fn factory taking (k, n) or None, short name for the figure title, array shape, k range)
ACCESSES = {
    "As[ty][k] 읽기 (06 tiled 내적)": ("load", lambda k, n: lambda x, y, z: (y, k), "As[ty][k] 읽기", (TILE, TILE), TILE),
    "Bs[k][tx] 읽기 (06 tiled 내적)": ("load", lambda k, n: lambda x, y, z: (k, x), "Bs[k][tx] 읽기", (TILE, TILE), TILE),
    "As[ty][tx] 쓰기 (06 협력 로드)": ("store", None, "As[ty][tx] 쓰기", (TILE, TILE), TILE),
    "Bs[ty][tx] 쓰기 (06 협력 로드)": ("store", None, "Bs[ty][tx] 쓰기", (TILE, TILE), TILE),
    EXERCISE: ("load", None, "가상의 요청 smem[ty][k] (ty=0..15 를 한 요청으로)", (TILE, TILE), TILE),
    "rA: As[8·ty+m][k] 읽기 (07 regblock, As[128][8])":
        ("load", lambda k, n: lambda x, y, z: (RB_T * y + n, k), "rA: As[8·ty+m][k] 읽기", (RB_BM, RB_BK), RB_BK),
    "rB: Bs[k][8·tx+n] 읽기 (07 regblock, Bs[8][128])":
        ("load", lambda k, n: lambda x, y, z: (k, RB_T * x + n), "rB: Bs[k][8·tx+n] 읽기", (RB_BK, RB_BM), RB_BK),
}


class BankConflictExplorer(live.LiveView):
    """Pick padding, column k, access and warp; see which bank every thread of that warp hits."""
    NAME_KO, NAME_EN = "뱅크 충돌 탐색기", "bank-conflict explorer"

    def __init__(self, padding=0, column=5, access=EXERCISE, warp=0, offset=0):
        style = {"description_width": "initial"}
        self.controls = {
            "padding": fit(W.IntSlider(value=padding, min=0, max=4, description="패딩 (원소)"), 120),
            "column": fit(W.IntSlider(value=column, min=0, max=TILE - 1, description="k"), 160),
            "offset": fit(W.IntSlider(value=offset, min=0, max=RB_T - 1, description="스레드 타일 안의 m·n"), 120),
            "access": W.Dropdown(options=list(ACCESSES), value=access, description="접근",
                                 style=style, layout=W.Layout(width="420px")),
            "warp": fit(W.IntSlider(value=warp, min=0, max=len(banks.warps(BLOCK)) - 1, description="워프"), 120),
        }
        self.counts = W.HTML()
        self.plot = W.Output()
        self.report = None
        self.threads = {}        # tid -> label of the thread in the current request
        c = self.controls
        self.widget = W.VBox([row([c["access"], c["warp"]]), row([c["padding"], c["column"], c["offset"]]),
                              self.counts, self.plot])
        self.widget.add_class("sgemm-banks")     # lets the browser test find this widget
        live.mark(self.widget)
        for control in c.values():
            control.observe(self._update, names="value")
        self._update()

    def compute(self):
        """Run the model for the current controls; returns (report, tid -> thread label)."""
        v = {name: control.value for name, control in self.controls.items()}
        kind, make_index, _, shape, k_range = ACCESSES[v["access"]]
        k = min(v["column"], k_range - 1)
        if v["access"] == EXERCISE:
            _, report = banks.paper_exercise(v["padding"], col=k)
            return report, {ty: f"ty{ty}" for ty in report.lanes}
        index_fn = make_index(k, v["offset"]) if make_index else (lambda x, y, z: (y, x))
        layout = banks.Layout(shape, pad=v["padding"])
        report = banks.analyze(layout, index_fn, BLOCK, kind=kind)[v["warp"]]
        return report, {t: f"{t % TILE},{t // TILE}" for t in report.lanes}

    def _update(self, change=None):
        self.report, self.threads = self.compute()
        access = self.controls["access"].value
        self.controls["warp"].disabled = access == EXERCISE     # the exercise is not a real warp
        self.controls["column"].disabled = ACCESSES[access][0] == "store"
        self.controls["column"].max = ACCESSES[access][4] - 1
        self.controls["offset"].disabled = "regblock" not in access
        self.counts.value = self._counts_html()
        self._draw()

    def _counts_html(self):
        r, store = self.report, self.report.kind == "store"
        shared = "같은 워드에 겹쳐 쓰는 스레드" if store else "브로드캐스트로 받는 스레드"
        note = (" <i>(가상의 요청: 실제 (16,16) 블록의 워프는 ty 두 줄만 담습니다)</i>"
                if self.controls["access"].value == EXERCISE else "")
        return (f"<b>{r.summary()}</b>{note}<br>"
                f"사용 뱅크 {len(r.per_bank)}개 · 서로 다른 워드 {r.distinct_words}개 · "
                f"{shared} {r.broadcasts}개 · 웨이브프론트 {r.wavefronts} · 충돌 차수 {r.conflict_degree}-way")

    def _element(self, word):
        """[row][col] of the tile element stored at byte address `word`."""
        pitch = (ACCESSES[self.controls["access"].value][3][1] + self.controls["padding"].value) * 4
        return f"[{word // pitch}][{word % pitch // 4}]"

    def figure(self):
        """The bank map: x = bank, y = n-th distinct word in that bank, one marker per word."""
        r = self.report
        height = max([len(ws) for ws in r.per_bank.values()] + [2])
        fig = Figure(figsize=(12, 1.6 + 0.9 * height))
        ax = fig.add_subplot()
        for bank, words in r.per_bank.items():
            color = "tab:red" if len(words) > 1 else "tab:blue"    # n distinct words: n wavefronts
            for level, word in enumerate(words):
                tids = r.word_tids[word]
                ax.scatter([bank], [level], s=120 + 25 * len(tids), color=color,
                           edgecolor="black" if len(tids) > 1 else color, zorder=2)
                who = self.threads[tids[0]] if len(tids) == 1 else f"x{len(tids)}"
                ax.annotate(f"{self._element(word)}\n{who}", (bank, level), xytext=(0, 11),
                            textcoords="offset points", ha="center", va="bottom", fontsize=6)
        ax.set_xlim(-0.7, banks.N_BANKS - 0.3)
        ax.set_ylim(-0.6, height - 0.1)
        ax.set_xticks(range(banks.N_BANKS))
        ax.set_yticks(range(height))
        ax.set_xlabel("뱅크 (bank)    — 표시: [행][열] 원소, 그 아래 스레드 tx,ty (xN: N개 스레드가 같은 워드)")
        ax.set_ylabel("서로 다른 워드")
        ax.grid(axis="x", alpha=0.3)
        c = self.controls
        where = "" if c["access"].value == EXERCISE else f", 워프 {c['warp'].value}"
        k = "" if ACCESSES[c["access"].value][0] == "store" else f", k={c['column'].value}"
        k += f", m·n={c['offset'].value}" if "regblock" in c["access"].value else ""
        shared = "겹쳐 쓰기" if r.kind == "store" else "브로드캐스트"
        ax.set_title(f"{ACCESSES[c['access'].value][2]}: 패딩 {c['padding'].value}{k}{where} | "
                     f"웨이브프론트 {r.wavefronts}, {r.conflict_degree}-way, 뱅크 {len(r.per_bank)}개, "
                     f"워드 {r.distinct_words}개, {shared} {r.broadcasts}", fontsize=9)
        fig.tight_layout()
        return fig

    def _draw(self):
        # set the Output's data directly: no pyplot, no backend switch, nothing printed outside a kernel
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=90)
        png = base64.b64encode(buf.getvalue()).decode("ascii")
        self.plot.outputs = ({"output_type": "display_data", "metadata": {},
                              "data": {"image/png": png, "text/plain": self.report.summary()}},)


def bank_explorer(**kwargs):
    """Build a BankConflictExplorer (notebook shorthand)."""
    return BankConflictExplorer(**kwargs)
