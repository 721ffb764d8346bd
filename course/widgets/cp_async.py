"""cp.async pipeline stepper: NUM_STAGES, K tiles and tail rule as controls, wired to sim.cp_async.pipeline_trace."""
import html

import ipywidgets as W

from sim import cp_async

COLORS = {cp_async.IDLE: "#eeeeee", cp_async.LOADING: "#ffe7a8", cp_async.READY: "#c8f0c8",
          cp_async.COMPUTING: "#a8d0ff"}
TAIL_LABELS = (("본문 그대로 (로드할 때만 commit)", "seed"), ("빈 그룹 commit (우리 커널)", "empty_commit"),
               ("꼬리에서 wait_group 0", "wait_all_tail"))


def step_html(step, num_stages):
    """One step as an HTML row: buffer states coloured, pending groups, the error in red."""
    cells = []
    for b, (state, tile) in enumerate(step.buffers):
        label = f"버퍼 {b}: {state}" + (f" (타일 {tile})" if tile is not None else "")
        bad = step.error and state == cp_async.COMPUTING
        color = "#ff9a9a" if bad else COLORS[state]
        cells.append(f'<td style="background:{color};padding:2px 6px">{html.escape(label)}</td>')
    pend = ", ".join(f"G{g}" for g in step.pending) or "없음"
    err = f'<div style="color:#c00;font-weight:bold">{html.escape(step.error)}</div>' if step.error else ""
    return (f"<div><b>[{step.phase} kt={step.kt}]</b> {html.escape(step.action)}"
            f'<table style="border-collapse:collapse"><tr>{"".join(cells)}</tr></table>'
            f"대기 중 그룹 (pending): {pend}{err}</div>")


class CpAsyncStepper:
    """Step through prologue, main loop and tail of the multistage cp.async loop; unsafe reads in red."""

    def __init__(self, num_stages=3, num_tiles=8, tail="seed"):
        style = {"description_width": "initial"}
        self.num_stages = W.IntSlider(value=num_stages, min=2, max=4, description="NUM_STAGES", style=style,
                                      continuous_update=False)
        self.num_tiles = W.IntSlider(value=num_tiles, min=1, max=12, description="K 타일 수", style=style,
                                     continuous_update=False)
        self.tail = W.Dropdown(options=TAIL_LABELS, value=tail, description="꼬리 처리", style=style)
        self.step = W.IntSlider(value=0, min=0, max=0, description="단계", style=style)
        self.view = W.HTML()
        self.summary = W.HTML()
        self.trace = None
        self.widget = W.VBox([W.HBox([self.num_stages, self.num_tiles]), self.tail, self.summary, self.step,
                              self.view])
        for c in (self.num_stages, self.num_tiles, self.tail):
            c.observe(self._rebuild, names="value")
        self.step.observe(self._show, names="value")
        self._rebuild()

    def _rebuild(self, change=None):
        self.trace = cp_async.pipeline_trace(self.num_stages.value, self.num_tiles.value, self.tail.value)
        self.step.max = len(self.trace.steps) - 1
        self.step.value = min(self.step.value, self.step.max)
        errs = self.trace.errors
        if errs:
            tiles = sorted({s.kt for s in errs})
            self.summary.value = (f'<span style="color:#c00"><b>보장되지 않은 읽기 {len(tiles)}번</b>: 타일 {tiles} '
                                  "이 wait_group 의 보장 없이 계산됩니다.</span>")
        else:
            self.summary.value = "<b>모든 타일이 wait_group 으로 완료가 보장된 뒤에 계산됩니다.</b>"
        self._show()

    def _show(self, change=None):
        self.view.value = step_html(self.trace.steps[self.step.value], self.num_stages.value)

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)


def cp_async_stepper(num_stages=3, num_tiles=8, tail="seed"):
    """The stepper widget (display it as the last expression of a cell)."""
    return CpAsyncStepper(num_stages, num_tiles, tail)
