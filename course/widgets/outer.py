"""Outer-product tracer view (buttons, order, TM/TN/BK) and the AI-vs-T figure, over sim.outer."""
import base64
import io
import math

import ipywidgets as W
import matplotlib
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from sim import outer

SIZES = (1, 2, 4, 8)
BKS = (1, 2, 4, 8)
ORDER_LABELS = (("외적 (outer product)", "outer"), ("내적 (dot product)", "dot"))
HELD, EMPTY, NEW, CURRENT = "#9ad19a", "#e6e6e6", "tab:orange", "tab:red"


class OuterTracerView:
    """Step one thread's FMAs and watch loads, reuse and the rC grid; `.tracer` is the sim.outer model."""

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
        self.step_button.on_click(lambda _: self._act(self.tracer.step))
        self.run_button.on_click(lambda _: self._act(self.tracer.run))
        self.reset_button.on_click(lambda _: self._act(self.tracer.reset))
        for control in c.values():
            control.observe(self._rebuild, names="value")
        self._rebuild()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

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
        ax.set_title(f"{s.order} product, TM={TM} TN={TN} BK={s.BK}, k={s.k}: FMA {s.fmas}/{s.total_fmas}, "
                     f"loads {s.loads}, loads/FMA {ratio}\n"
                     "cells: updates of rC[m][n]; red box: this FMA\n"
                     "rA/rB green: in a register, orange edge: loaded now; ld/use: loads/uses in this k",
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
    """Figure: shared->register AI vs T for square tiles, asymmetric tiles at T = sqrt(TM*TN), data registers noted."""
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
                   color="tab:orange", zorder=3, label="TM != TN, at T = sqrt(TM*TN)", gid="asymmetric")
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
        ax.annotate(f"{names}: AI {r['ai']:.3g}, {regs} regs" + (" > 255!" if over else ""),
                    (x, r["ai"]), textcoords="offset points", xytext=xytext, ha=ha, va=va,
                    fontsize=7, color="tab:red" if over else "black")
    ax.set_xlabel("T (thread tile TM = TN = T; asymmetric tiles at sqrt(TM*TN))")
    ax.set_ylabel("AI (FLOP/byte): shared -> registers, per thread per k")
    ax.set_title("Arithmetic intensity of the register tile; regs = data registers rC + rA + rB "
                 "(limit 255/thread)",
                 fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.margins(x=0.15, y=0.15)
    fig.tight_layout()
    return fig
