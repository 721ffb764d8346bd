"""Pipeline timeline explorer: load/compute/stages/sync sliders wired to sim.pipeline, drawn as a Gantt chart."""
import base64
import html
import io

import ipywidgets as W
from matplotlib.figure import Figure

import course.plots  # noqa: F401  (Korean font for the labels, before anything is drawn)

from kernels_numba.infra.errors import CourseInputError
from course.widgets import live
from course.widgets.controls import fit, row
from sim import pipeline

HATCHES = ("", "//", "..", "xx")         # one pattern per buffer (stages <= 4)
LABEL_MAX_TILES = 16                     # above this the chart zooms on the first ZOOM_TILES tiles
ZOOM_TILES = 12                          # enough to see the prologue and the steady state
FONT = 10                                # bar labels and ticks: readable at the widget's dpi
DEFAULT_MAX = {"t_load": 2000, "t_comp": 4096, "n_tiles": 512, "t_sync": 200}


def _whole(name, value):
    """The sliders hold whole numbers: reject anything else here, before a slider would silently round it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CourseInputError(
            f"위젯의 {name} 는 정수(사이클 수)만 받습니다 (받은 값: {value!r}).",
            f"the widget's {name} takes whole numbers (cycles) only, got {value!r}.",
            "정수를 넣거나, 소수 시간은 sim.pipeline.schedule(...) 을 직접 쓰세요.",
            "pass an int, or call sim.pipeline.schedule(...) directly for fractional times.")
    return value


class PipelineExplorer(live.LiveView):
    """Move t_load, t_comp, n_tiles, stages, t_sync, loads in flight; see the exact schedule and its summary.
    `maxima` overrides slider maxima (e.g. {"t_load": 20} for a model counted in small units)."""
    NAME_KO, NAME_EN = "파이프라인 타임라인", "pipeline timeline"

    def __init__(self, t_load=100, t_comp=10, n_tiles=4, stages=2, t_sync=0, loads_in_flight=1, maxima=None):
        args = {name: _whole(name, v) for name, v in (("t_load", t_load), ("t_comp", t_comp), ("n_tiles", n_tiles),
                                                       ("stages", stages), ("t_sync", t_sync),
                                                       ("loads_in_flight", loads_in_flight))}
        pipeline.schedule(**args)       # bad constructor arguments fail here, with the model's message
        unknown = sorted(set(maxima or {}) - set(DEFAULT_MAX))
        if unknown:
            raise CourseInputError(f"maxima 에 모르는 이름이 있습니다: {unknown}.", f"unknown names in maxima: {unknown}.",
                                   f"{sorted(DEFAULT_MAX)} 중에서 쓰세요.", f"use names from {sorted(DEFAULT_MAX)}.")
        top = {**DEFAULT_MAX, "stages": 4, "loads_in_flight": 4,
               **{k: _whole(k, v) for k, v in (maxima or {}).items()}}
        slider = lambda name, low, label: fit(W.IntSlider(       # noqa: E731
            value=args[name], min=low, max=max(top[name], args[name]), description=label,
            continuous_update=False), 240)
        self.t_load = slider("t_load", 0, "로드 시간 (t_load)")
        self.t_comp = slider("t_comp", 0, "연산 시간 (t_comp)")
        self.n_tiles = slider("n_tiles", 1, "타일 수 (N)")
        self.stages = slider("stages", 1, "버퍼 수 (stages)")
        self.t_sync = slider("t_sync", 0, "동기화 (t_sync)")
        self.loads_in_flight = slider("loads_in_flight", 1, "동시 로드 수 (loads in flight)")
        self.controls = {"t_load": self.t_load, "t_comp": self.t_comp, "n_tiles": self.n_tiles,
                         "stages": self.stages, "t_sync": self.t_sync, "loads_in_flight": self.loads_in_flight}
        self.summary = W.HTML()
        self.plot = W.Output()
        self.timeline = self.single = None
        self.error = None
        c = self.controls
        self.widget = live.mark(W.VBox([row([c["t_load"], c["t_comp"]]), row([c["n_tiles"], c["stages"]]),
                                        row([c["t_sync"], c["loads_in_flight"]]), self.summary, self.plot]))
        self.widget.add_class("sgemm-pipeline")
        for control in c.values():
            control.observe(self._update, names="value")
        self._update()

    def values(self):
        """The current slider values as schedule() keyword arguments."""
        return {name: control.value for name, control in self.controls.items()}

    def _update(self, change=None):
        # a model error becomes a message in the widget: raising from a callback would only reach a log
        v = self.values()
        try:
            self.timeline = pipeline.schedule(**v)
            self.single = pipeline.schedule(v["n_tiles"], v["t_load"], v["t_comp"], 1, v["t_sync"])
            self.error = None
        except CourseInputError as err:
            self.timeline = self.single = None
            self.error = str(err)
            self.summary.value = f"<pre style='color:#b00'>{html.escape(self.error)}</pre>"
            self.plot.outputs = ()
            return
        self.summary.value = self._summary_html()
        self._draw()

    def _summary_html(self):
        tl, single, v = self.timeline, self.single, self.values()
        L, C, T, S, k = v["t_load"], v["t_comp"], v["t_sync"], v["stages"], v["loads_in_flight"]
        period = pipeline.steady_period(L, C, S, T, k)
        hidden = pipeline.compute_bound(L, C, S, T, k)
        bound = ("연산 제한(compute-bound): 로드 시간이 연산 뒤에 숨겨짐" if hidden
                 else "로드 제한(load-bound): 연산 유닛이 로드를 기다림")
        ratio = single.total / tl.total if tl.total else 1.0
        lines = [
            f"<b>총 시간 (total): {_num(tl.total)}</b> · "
            f"싱글 버퍼 (stages=1) 총 시간: {_num(single.total)} · 속도 향상 (speedup): <b>{ratio:.3f}×</b>",
            f"연산 유닛 활용률 (compute utilisation): {tl.compute_utilisation:.1%} · "
            f"로드 유닛 활용률: {tl.load_utilisation:.1%}",
            f"정상 상태 타일당 시간 (steady state per tile): {_num(period)} — {bound}",
            f"닫힌 식 (closed form): {_num(pipeline.closed_form_total(**v))} "
            f"(시뮬레이션과 {'일치' if pipeline.closed_form_total(**v) == tl.total else '불일치'})",
        ]
        if S == 2 and T == 0 and k == 1:
            seed = pipeline.seed_formula(v["n_tiles"], L, C).double
            same = "모델과 같음" if seed == tl.total else f"모델보다 {_num(seed - tl.total)} 김 (L &gt; C)"
            lines.append(f"흔히 쓰는 공식 T_load + N·max(T_load, T_comp) = {_num(seed)} — {same}")
        return "<br>".join(lines)

    def figure(self):
        """Gantt chart: load lane(s), compute, sync; color = tile, hatch and label = buffer."""
        tl, rows = self.timeline, pipeline.gantt_rows(self.timeline)
        lanes = max((r["lane"] for r in rows["load"]), default=0) + 1
        names = [f"로드 {j}" if lanes > 1 else "로드" for j in range(lanes)] + ["연산"]
        if rows["sync"]:
            names.append("배리어")
        y = {name: len(names) - 1 - i for i, name in enumerate(names)}     # first name on top
        fig = Figure(figsize=(12, 1.8 + 0.65 * len(names)))
        ax = fig.add_subplot()
        zoom = tl.n_tiles > LABEL_MAX_TILES          # N = 512 drawn whole is a smear: show the first tiles instead
        if zoom:
            xmax = float(pipeline.gantt_window(tl, ZOOM_TILES)[1]) * 1.02
        else:
            xmax = float(max(tl.total, self.single.total, 1)) * 1.02   # single-buffer scale: S=1 vs S=2 by eye
        groups = {}                      # one bar collection per (row, color, hatch)
        for unit, unit_rows in rows.items():
            for r in unit_rows:
                if zoom and r["start"] >= xmax:
                    continue
                row = (f"로드 {r['lane']}" if lanes > 1 else "로드") if unit == "load" else {"compute": "연산", "sync": "배리어"}[unit]
                color = "0.55" if unit == "sync" else f"C{r['tile'] % 10}"
                groups.setdefault((row, color, HATCHES[r["buffer"] % len(HATCHES)]), []).append(
                    (float(r["start"]), float(r["width"])))
                if unit != "sync" and r["width"] >= 0.03 * xmax:
                    ax.text(float(r["start"] + r["width"] / 2), y[row], f"{r['tile']}|b{r['buffer']}",
                            ha="center", va="center", fontsize=FONT,
                            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "lw": 0})
        for (row, color, hatch), spans in groups.items():
            ax.broken_barh(spans, (y[row] - 0.35, 0.7), facecolors=color, edgecolor="black", linewidth=0.5,
                           hatch=hatch)
        if not zoom:
            ax.axvline(float(tl.total), color="black", linestyle="--", linewidth=0.8)
            ax.axvline(float(self.single.total), color="tab:red", linestyle=":", linewidth=0.8)
        ax.set_yticks([y[n] for n in names], names, fontsize=FONT + 1)
        ax.tick_params(axis="x", labelsize=FONT)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.set_xlim(0, xmax)
        ax.set_xlabel(f"처음 {ZOOM_TILES}개 타일만 확대 (전체 {tl.n_tiles}개의 총 시간은 제목과 요약) · 표시: 타일|버퍼, 빗금 = 버퍼"
                      if zoom else "시간 (표시: 타일|버퍼, 빗금 = 버퍼, 검은 점선 = 총 시간, 빨간 점선 = 싱글 버퍼 총 시간)",
                      fontsize=FONT)
        ratio = self.single.total / tl.total if tl.total else 1.0
        ax.set_title(f"버퍼 {tl.stages}개, 동시 로드 {tl.loads_in_flight}개, 로드 L={_num(tl.t_load)}, "
                     f"연산 C={_num(tl.t_comp)}, 배리어={_num(tl.t_sync)}, 타일 N={tl.n_tiles} | 총 {_num(tl.total)}, "
                     f"싱글 버퍼 {_num(self.single.total)}, 속도 향상(speedup) {ratio:.3f}, "
                     f"연산 활용률 {tl.compute_utilisation:.1%}", fontsize=FONT)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        return fig

    def _draw(self):
        # set the Output's data directly: no pyplot, no backend switch, nothing printed outside a kernel
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=90)
        png = base64.b64encode(buf.getvalue()).decode("ascii")
        text = f"total {_num(self.timeline.total)}, single-buffer {_num(self.single.total)}"
        self.plot.outputs = ({"output_type": "display_data", "metadata": {},
                              "data": {"image/png": png, "text/plain": text}},)


def _num(x):
    """A time for display: ints as ints, fractions to 3 significant decimals."""
    return str(int(x)) if x == int(x) else f"{float(x):.3f}"


def pipeline_explorer(**kwargs):
    """Build a PipelineExplorer (notebook shorthand)."""
    return PipelineExplorer(**kwargs)
