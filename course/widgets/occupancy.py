"""Occupancy explorer: GPU / registers / threads / shared memory over sim.occupancy, with a register-sweep chart."""
import base64
import html
import io

import ipywidgets as W
from matplotlib.figure import Figure

import course.plots  # noqa: F401  (Korean font for the labels, before anything is drawn)

from course.widgets import live
from course.widgets.controls import fit, row
from kernels_numba import occupancy as kocc  # the GPU in use (sim/ is pure)
from sim import occupancy as occ
from kernels_numba.infra.errors import CourseInputError

CURRENT = "현재 GPU"
SMEM_MAX = max(g.smem_per_block_optin for g in occ.GPUS.values())


def _bundle(data):
    """One display_data output, set on the Output directly (nothing goes through stdout)."""
    return {"output_type": "display_data", "metadata": {}, "data": data}


def _limit_text(n):
    return "제한 없음" if n == occ.UNLIMITED else f"{n}블록"


class OccupancyExplorer(live.LiveView):
    """Pick a GPU, registers/thread, threads/block and shared memory/block; see blocks, warps and the limiter."""
    NAME_KO, NAME_EN = "점유율 탐색기", "occupancy explorer"

    def __init__(self, gpu="H100", regs=128, threads=256, smem=8192, current=None):
        self.current = kocc.current_gpu() if current is None else current   # GpuSpec of the GPU present, or None
        options = list(occ.GPUS) + ([CURRENT] if self.current else [])
        if gpu not in options:
            raise CourseInputError(f"GPU {gpu!r} 는 고를 수 없습니다.", f"GPU {gpu!r} is not available.",
                                   f"{', '.join(options)} 중 하나를 쓰세요.", f"use one of {', '.join(options)}.")
        style = {"description_width": "initial"}
        self.gpu = W.Dropdown(options=options, value=gpu, description="GPU", style=style)
        self.regs = fit(W.IntSlider(value=regs, min=1, max=255, description="스레드당 레지스터"), 255)
        self.threads = fit(W.IntSlider(value=threads, min=32, max=1024, step=32, description="블록당 스레드"), 255)
        self.smem = W.BoundedIntText(value=smem, min=0, max=SMEM_MAX, step=1024,
                                     description="블록당 공유 메모리 (B)", style=style)
        self.out = W.Output()     # the result table (HTML) and the chart (PNG), or the error message
        self.result = None        # latest sim.occupancy.Occupancy (None while the inputs are invalid)
        self.error = None         # latest CourseInputError from the model, shown in the widget instead of raised
        self.widget = live.mark(W.VBox([W.HBox([self.gpu, self.smem]), row([self.regs, self.threads]), self.out]))
        for control in (self.gpu, self.regs, self.threads, self.smem):
            control.observe(self._update, names="value")
        self._update()

    @property
    def spec(self):
        return self.current if self.gpu.value == CURRENT else occ.GPUS[self.gpu.value]

    def _update(self, change=None):
        try:
            self.result = occ.occupancy(self.spec, self.regs.value, self.threads.value, self.smem.value)
            self.error = None
        except CourseInputError as e:          # a model error is the help text: show it, never raise or print
            self.result, self.error = None, e
            message = (f'<div style="color:#a00"><b>입력 오류:</b> {html.escape(e.ko)}<br>'
                       f'→ {html.escape(e.fix_ko)}</div>')
            self.out.outputs = (_bundle({"text/html": message, "text/plain": f"입력 오류: {e.ko} → {e.fix_ko}"}),)
            return
        self.out.outputs = (_bundle({"text/html": self._table_html(), "text/plain": self.result.summary()}),
                            _bundle({"image/png": self._png(), "text/plain": "occupancy vs registers chart"}))

    def _table_html(self):
        r, spec = self.result, self.spec
        rows = [
            ("GPU", f"{spec.name} ({spec.arch}, SM {spec.sm_count}개)"),
            ("블록당 워프", f"{r.warps_per_block}"),
            ("할당 레지스터", f"스레드당 {r.regs_allocated_per_thread} · 워프당 {r.regs_per_warp} · "
                         f"블록당 {r.regs_per_block}"),
            ("할당 공유 메모리", f"블록당 {r.smem_allocated_per_block} B (예약 {spec.smem_reserved_per_block} B 포함)"
                           f" · SM 용량 {r.smem_capacity // 1024} KiB"),
            ("한도 (SM당 블록)", " · ".join(f"{occ.LIMITER_KO[k]} {_limit_text(v)}" for k, v in r.limits.items())),
            ("결과", f"<b>{r.blocks_per_sm}블록 × {r.warps_per_block}워프 = {r.active_warps}/{r.max_warps} 워프, "
                   f"점유율 {r.percent:.1f}%</b>"
                   + (f" (제한 요인: {occ.LIMITER_KO[r.limiter]})" if r.launchable else " — 실행 불가")),
        ]
        body = "".join(f"<tr><td style='text-align:left'>{k}</td><td style='text-align:left'>{v}</td></tr>"
                       for k, v in rows)
        steps = "".join(f"<li>{html.escape(s)}</li>" for s in r.steps)
        return f"<table>{body}</table><details><summary>계산 과정</summary><ol>{steps}</ol></details>"

    def figure(self):
        """Occupancy vs registers/thread for the current GPU, block and shared memory; the plain division dashed."""
        r, spec = self.result, self.spec
        sweep = occ.sweep_registers(spec, r.threads_per_block, r.smem_per_block)
        xs = [x for x, _ in sweep]
        fig = Figure(figsize=(7.5, 3.0))
        ax = fig.add_subplot()
        ax.step(xs, [o.percent for _, o in sweep], where="post", color="tab:blue",
                label=f"CUDA 규칙: 블록당 {r.threads_per_block} 스레드, 공유 메모리 {r.smem_per_block} B")
        seed = [100 * occ.division_estimate(x, spec.regs_per_sm, spec.max_threads_per_sm).occupancy for x in xs]
        ax.plot(xs, seed, "--", color="gray", lw=1, label="흔한 어림셈: 65536 / 레지스터 (워프 단위 내림만)")
        ax.plot([r.regs_per_thread], [r.percent], "o", color="tab:red", ms=8, zorder=3,
                label=f"지금: 레지스터 {r.regs_per_thread}개 → {r.percent:.1f}% (한도: {occ.LIMITER_KO.get(r.limiter, r.limiter)})")
        ax.set_xlim(0, 256)
        ax.set_ylim(0, 105)
        ax.set_xlabel("스레드당 레지스터 (registers per thread)")
        ax.set_ylabel("점유율 (occupancy, %)")
        ax.set_title(f"{spec.name}: {r.blocks_per_sm}블록 × {r.warps_per_block}워프 = "
                     f"{r.active_warps}/{r.max_warps} 워프", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        fig.tight_layout()
        return fig

    def _png(self):
        # render without pyplot: no backend switch, nothing printed outside a kernel
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=90)
        return base64.b64encode(buf.getvalue()).decode("ascii")


def occupancy_explorer(gpu="H100", regs=128, threads=256, smem=8192, **kwargs):
    """Build an OccupancyExplorer (notebook shorthand)."""
    return OccupancyExplorer(gpu=gpu, regs=regs, threads=threads, smem=smem, **kwargs)
