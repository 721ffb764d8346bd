"""Outer-product tracer view (buttons, order, TM/TN/BK) and the AI-vs-T figure, over sim.outer."""
import base64
import io
import math

import ipywidgets as W
import matplotlib
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import course.plots  # noqa: F401  (Korean font for the labels, before anything is drawn)

from course.widgets import live
from sim import outer

SIZES = (1, 2, 4, 8)
BKS = (1, 2, 4, 8)
ORDER_LABELS = (("외적 (outer product)", "outer"), ("내적 (dot product)", "dot"))
ORDER_KO = {"outer": "외적 (outer product)", "dot": "내적 (dot product)"}
HELD, EMPTY, NEW, CURRENT = "#9ad19a", "#e6e6e6", "tab:orange", "tab:red"


class OuterTracerView(live.LiveView):
    """Step one thread's FMAs and watch loads, reuse and the rC grid; `.tracer` is the sim.outer model."""
    NAME_KO, NAME_EN = "외적 추적기", "outer-product tracer"

    def __init__(self, TM=4, TN=4, BK=1, order="outer"):
        style = {"description_width": "initial"}
        self.step_button = W.Button(description="한 단계", icon="step-forward")
        self.run_button = W.Button(description="끝까지", icon="fast-forward")
        self.reset_button = W.Button(description="처음으로", icon="undo")
        self.controls = {
            "order": W.ToggleButtons(options=ORDER_LABELS, value=order, description="순서", style=style),
            "TM": W.Dropdown(options=SIZES, value=TM, description="TM", layout=W.Layout(width="120px")),
            "TN": W.Dropdown(options=SIZES, value=TN, description="TN", layout=W.Layout(width="120px")),
            "BK": W.Dropdown(options=BKS, value=BK, description="BK (k 단계)", style=style,
                             layout=W.Layout(width="170px")),
        }
        self.counts = W.HTML()
        self.plot = W.Output()
        c = self.controls
        self.widget = W.VBox([W.HBox([self.step_button, self.run_button, self.reset_button]),
                              c["order"], W.HBox([c["TM"], c["TN"], c["BK"]]), self.counts, self.plot])
        live.mark(self.widget)
        self.step_button.on_click(lambda _: self._act(self.tracer.step))
        self.run_button.on_click(lambda _: self._act(self.tracer.run))
        self.reset_button.on_click(lambda _: self._act(self.tracer.reset))
        for control in c.values():
            control.observe(self._rebuild, names="value")
        self._rebuild()

    def _rebuild(self, change=None):
        """New model for the current controls; also the final load counts of both orders to compare."""
        v = {name: control.value for name, control in self.controls.items()}
        self.tracer = outer.OuterProductTracer(v["TM"], v["TN"], v["BK"], v["order"])
        self.final_loads = {order: outer.OuterProductTracer(v["TM"], v["TN"], v["BK"], order).run().loads
                            for order in outer.ORDERS}
        self._act(None)

    def _act(self, action):
        if action is not None:
            action()
        s = self.tracer.state()
        self.step_button.disabled = self.run_button.disabled = s.done
        self.counts.value = self._counts_html(s)
        self._draw(s)

    def _counts_html(self, s):
        ratio = "–" if s.loads_per_fma is None else f"{s.loads_per_fma:.3f}"
        fin = self.final_loads
        return (f"<b>FMA {s.fmas}/{s.total_fmas}</b> · 공유 메모리 → 레지스터 로드 {s.loads}개 · "
                f"로드/FMA {ratio}<br>끝까지 가면: 외적 로드 {fin['outer']}개, 내적 로드 {fin['dot']}개 "
                f"(FMA {s.total_fmas}개로 같음)")

    def figure(self, s=None):
        """rC grid colored by update count, current FMA outlined, rA column and rB row with held/new state."""
        s = s or self.tracer.state()
        TM, TN = s.TM, s.TN
        fig = Figure(figsize=(max(6.0, 2.6 + 0.75 * TN), 2.1 + 0.62 * TM))
        ax = fig.add_subplot()
        cmap = matplotlib.colormaps["Blues"]
        new = set(s.new_loads)
        k = s.k if s.k is not None else 0
        for m in range(TM):
            for n in range(TN):
                count = s.updates[m][n]
                ax.add_patch(Rectangle((n, m), 1, 1, facecolor=cmap(0.12 + 0.7 * count / s.BK),
                                       edgecolor="gray", lw=0.6))
                ax.text(n + 0.5, m + 0.5, str(count), ha="center", va="center", fontsize=8)
        if s.current is not None:
            _, m, n = s.current
            ax.add_patch(Rectangle((n, m), 1, 1, fill=False, edgecolor=CURRENT, lw=3, zorder=3))
        for m in range(TM):      # rA column, left of the grid
            self._fragment(ax, (-1.6, m), s.a_held[m], ("A", m) in new, f"rA[{m}]",
                           s.a_loads[k][m], s.a_uses[k][m])
        for n in range(TN):      # rB row, above the grid
            self._fragment(ax, (n, -1.4), s.b_held[n], ("B", n) in new, f"rB[{n}]",
                           s.b_loads[k][n], s.b_uses[k][n])
        ax.set_xlim(-1.8, TN + 0.1)
        ax.set_ylim(TM + 0.1, -1.6)
        ax.set_aspect("equal")
        ax.axis("off")
        ratio = "-" if s.loads_per_fma is None else f"{s.loads_per_fma:.2f}"
        ax.set_title(f"{ORDER_KO[s.order]}, TM={TM} TN={TN} BK={s.BK}, k={s.k}: FMA {s.fmas}/{s.total_fmas}, "
                     f"읽기 {s.loads}, FMA당 읽기 {ratio}\n"
                     "칸의 숫자: rC[m][n] 을 갱신한 횟수, 빨간 테두리: 이번 FMA\n"
                     "rA/rB 초록: 레지스터에 있음, 주황 테두리: 이번에 읽음, ld/use: 이 k 단계의 읽기/사용 횟수",
                     fontsize=8)
        fig.tight_layout()
        return fig

    @staticmethod
    def _fragment(ax, xy, held, loaded_now, name, loads, uses):
        x, y = xy
        ax.add_patch(Rectangle((x, y), 1, 1, facecolor=HELD if held else EMPTY,
                               edgecolor=NEW if loaded_now else "gray", lw=2.5 if loaded_now else 0.6))
        ax.text(x + 0.5, y + 0.35, name, ha="center", va="center", fontsize=7)
        ax.text(x + 0.5, y + 0.72, f"ld {loads}\nuse {uses}", ha="center", va="center", fontsize=6)

    def _draw(self, s):
        # set the Output's data directly: no pyplot, nothing printed from a callback
        buf = io.BytesIO()
        self.figure(s).savefig(buf, format="png", dpi=90)
        png = base64.b64encode(buf.getvalue()).decode("ascii")
        text = f"{s.order}: FMA {s.fmas}/{s.total_fmas}, loads {s.loads}"
        self.plot.outputs = ({"output_type": "display_data", "metadata": {},
                              "data": {"image/png": png, "text/plain": text}},)


def outer_tracer(TM=4, TN=4, **kwargs):
    """Build an OuterTracerView (notebook shorthand)."""
    return OuterTracerView(TM=TM, TN=TN, **kwargs)


def ai_plot(configs=None):
    """Figure: shared->register AI vs T (course.plots.ai_figure, which needs no ipywidgets)."""
    return course.plots.ai_figure(configs)
