"""cp.async loop sandbox: compose one K-loop iteration (step order, wait_group N, stages, tail rule) wired to
sim.cp_async.run_loop, which shows the pending groups per step and names every hazard. The older stepper
(CpAsyncStepper, over sim.cp_async.pipeline_trace) stays below for the notebook cells that still call it."""
import html

import ipywidgets as W

from kernels_numba.infra.errors import CourseInputError
from sim import cp_async

SLOTS = 6                      # step slots of one iteration (async_copy uses all six)
STEP_LABELS = (("—", ""), ("wait_group N", "wait"), ("배리어 (__syncthreads)", "barrier"),
               ("미리 읽기 (prefetch): 타일 kt+D 복사 발행", "prefetch"), ("commit_group", "commit"), ("계산 (compute)", "compute"))
TAIL_RULE_LABELS = (("로드할 때만 commit (흔한 루프)", "load_only"),
                    ("매 반복 commit, 타일이 없으면 빈 그룹 (async_copy, async_vec)", "always"),
                    ("로드할 때만 commit + 꼬리에서 wait_group 0", "wait0_tail"))
CUSTOM = "custom"
RED, GREEN = "#c00", "#070"
MAX_LISTED = 12                # hazards listed one by one; the rest are counted


def groups_text(pending, uncommitted):
    """'G3[t3] G4[빈]' for the pending groups, then the copies not yet committed."""
    parts = [f"G{g}[{','.join(f't{t}' for t in tiles) or '빈'}]" for g, tiles in pending]
    if uncommitted:
        parts.append("commit 전: " + ",".join(f"t{t}" for t in uncommitted))
    return " ".join(parts) or "없음"


def hazard_cells(run):
    """{(kt, step): [hazards]}: where each hazard shows in the table (its second step)."""
    out = {}
    for h in run.hazards:
        out.setdefault(h.steps[1], []).append(h)
    return out


def table_html(run):
    """One row per iteration (the prologue first): each step with the pending groups after it; hazards in red."""
    marks = hazard_cells(run)
    order = run.spec.order
    head = "".join(f"<th>{i + 1}. {html.escape(cp_async.STEP_KO[s])}</th>" for i, s in enumerate(order))
    rows = []
    pro = run.of(-1)
    if pro:
        cells = " | ".join(f"{html.escape(e.text)}: {html.escape(groups_text(e.pending, e.uncommitted))}"
                           for e in pro)
        style = f' style="background:#ffd6d6;color:{RED}"' if marks.get((-1, "prologue")) else ""
        rows.append(f'<tr><td>프롤로그</td><td colspan="{len(order) + 1}"{style}>{cells}</td></tr>')
    for kt in range(run.num_tiles):
        cells = []
        for e in run.of(kt):
            bad = marks.get((kt, e.step))
            style = f' style="background:#ffd6d6;color:{RED}"' if bad else ""
            tip = f' title="{html.escape(" / ".join(h.title for h in bad))}"' if bad else ""
            cells.append(f"<td{style}{tip}>{html.escape(e.text)}<br><small>"
                         f"{html.escape(groups_text(e.pending, e.uncommitted))}</small></td>")
        flying = ", ".join(f"t{t}" for t in run.in_flight.get(kt, [])) or "없음"
        rows.append(f"<tr><td>kt={kt}</td>{''.join(cells)}<td>{flying}</td></tr>")
    return ('<table style="border-collapse:collapse;font-size:12px" border="1" cellpadding="3">'
            f"<tr><th>반복</th>{head}<th>계산 중 날아가는 타일</th></tr>{''.join(rows)}</table>")


def summary_html(run):
    """The verdict, then each cause once (its iterations and fix), then every hazard with kt, stage and steps."""
    if run.ok:
        most = max((len(v) for v in run.in_flight.values()), default=0)
        return (f'<b style="color:{GREEN}">위험(hazard) 없음</b>: 모든 타일이 도착이 보장되고 모든 스레드에게 보인 뒤 '
                f"계산되고, 읽는 중인 버퍼를 덮어쓰는 복사도 없습니다. 계산하는 동안 최대 {most}개 타일이 날아갑니다.")
    out = [f'<b style="color:{RED}">위험 {len(run.hazards)}건</b> (경쟁 검출기와 같은 규칙)<ul>']
    seen = {}
    for h in run.hazards:
        seen.setdefault(h.cause, h)
    for cause, kts in run.causes().items():
        h = seen[cause]
        out.append(f"<li><b>{html.escape(h.title)}</b> [{h.kind}] — kt={', '.join(map(str, kts))}<br>"
                   f"해결 (kt={h.kt} 의 경우): {html.escape(h.fix)}</li>")
    out.append("</ul><details><summary>위험 하나씩 보기</summary><ol>")
    out += [f"<li>{html.escape(str(h))}</li>" for h in run.hazards[:MAX_LISTED]]
    more = len(run.hazards) - MAX_LISTED
    out.append("</ol>" + (f"… 외 {more}건" if more > 0 else "") + "</details>")
    return "".join(out)


class CpAsyncSandbox:
    """Presets and controls compose one iteration; every change re-runs the model and redraws code, verdict, table."""

    def __init__(self, preset="seed", num_tiles=6):
        style = {"description_width": "initial"}
        opts = [(p.label, k) for k, p in cp_async.PRESETS.items()] + [("직접 구성", CUSTOM)]
        self.preset = W.Dropdown(options=opts, value=preset, description="출발점 (preset)", style=style,
                                 layout=W.Layout(width="560px"))
        self.slots = [W.Dropdown(options=STEP_LABELS, value="", description=f"{i + 1}", style=style,
                                 layout=W.Layout(width="250px")) for i in range(SLOTS)]
        self.wait_n = W.IntSlider(min=0, max=cp_async.MAX_WAIT_N, description="wait_group N", style=style,
                                  continuous_update=False)
        self.stages = W.IntSlider(value=3, min=1, max=cp_async.MAX_STAGES, description="단 수 S (NUM_STAGES)",
                                  style=style, continuous_update=False)
        self.ahead = W.IntSlider(value=2, min=0, max=cp_async.MAX_STAGES, style=style, continuous_update=False,
                                 description="미리 읽기 거리 D (prefetch distance)")
        self.tail = W.Dropdown(options=TAIL_RULE_LABELS, description="꼬리 처리 (tail)", style=style,
                               layout=W.Layout(width="560px"))
        self.num_tiles = W.IntSlider(value=num_tiles, min=1, max=12, description="K 타일 수", style=style,
                                     continuous_update=False)
        self.code, self.summary, self.table = W.HTML(), W.HTML(), W.HTML()
        self.spec = self.run = None
        self._applying = False
        self.widget = W.VBox([self.preset, W.HTML("<b>한 반복의 순서</b> (— 는 비움)"),
                              W.HBox(self.slots[:3]), W.HBox(self.slots[3:]),
                              W.HBox([self.wait_n, self.stages]), W.HBox([self.ahead, self.num_tiles]), self.tail,
                              self.summary, self.code, self.table])
        self.preset.observe(self._on_preset, names="value")
        self.stages.observe(self._on_stages, names="value")
        for c in (*self.slots, self.wait_n, self.ahead, self.tail, self.num_tiles):
            c.observe(self._update, names="value")
        self._on_preset()

    def _on_preset(self, change=None):
        if self.preset.value == CUSTOM:
            return
        spec = cp_async.PRESETS[self.preset.value].spec
        self._applying = True
        try:
            for i, slot in enumerate(self.slots):
                slot.value = spec.order[i] if i < len(spec.order) else ""
            self.stages.value, self.ahead.value = spec.stages, spec.ahead
            self.wait_n.value, self.tail.value = spec.wait_n, spec.tail
        finally:
            self._applying = False
        self._update()

    def _on_stages(self, change):
        old, new = change["old"], change["new"]
        if not self._applying:
            if self.ahead.value == old - 1:               # the distance followed S: keep it at S-1
                self.ahead.value = new - 1
            for lag in (1, 2):                            # N followed S as S-1 (async_copy) or S-2 (async_vec)
                if self.wait_n.value == old - lag and 0 <= new - lag <= cp_async.MAX_WAIT_N:
                    self.wait_n.value = new - lag
                    break
        self._update()

    def compose(self):
        """The LoopSpec the controls describe (CourseInputError when they describe no valid iteration)."""
        order = tuple(s.value for s in self.slots if s.value)
        return cp_async.LoopSpec(order, self.wait_n.value, self.stages.value, self.tail.value, self.ahead.value)

    def _update(self, change=None):
        if self._applying:
            return
        try:
            self.spec = self.compose()
        except CourseInputError as err:                  # shown in the widget, never raised from a callback
            self.spec = self.run = None
            self.summary.value = f'<pre style="color:{RED};white-space:pre-wrap">{html.escape(str(err))}</pre>'
            self.code.value = self.table.value = ""
            return
        key = self.preset.value
        if key != CUSTOM and cp_async.PRESETS[key].spec != self.spec:
            self._applying = True
            self.preset.value = CUSTOM
            self._applying = False
        self.run = cp_async.run_loop(self.spec, self.num_tiles.value)
        note = cp_async.PRESETS[key].note if self.preset.value != CUSTOM else ""
        self.code.value = (f'<pre style="font-size:12px">{html.escape(chr(10).join(cp_async.loop_code(self.spec)))}'
                           "</pre>" + (f"<small>{html.escape(note)}</small>" if note else ""))
        self.summary.value = summary_html(self.run)
        self.table.value = table_html(self.run)

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)


def cp_async_sandbox(preset="seed", num_tiles=6):
    """The sandbox widget, starting from a preset ('seed', 'async_copy', 'async_vec'); display it last in a cell."""
    if preset not in cp_async.PRESETS:
        raise CourseInputError(f"preset 는 {list(cp_async.PRESETS)} 중 하나입니다 (받은 값: {preset!r}).",
                               f"preset must be one of {list(cp_async.PRESETS)}, not {preset!r}.",
                               "'async_vec' 처럼 고르세요.", "pick e.g. 'async_vec'.")
    if isinstance(num_tiles, bool) or not isinstance(num_tiles, int) or not 1 <= num_tiles <= 12:
        raise CourseInputError(f"K 타일 수는 1 이상 12 이하의 정수입니다 (받은 값: {num_tiles!r}).",
                               f"num_tiles must be an int in 1..12, not {num_tiles!r}.",
                               "예: num_tiles=6", "e.g. num_tiles=6")
    return CpAsyncSandbox(preset, num_tiles)


# ------------------------------------------------------------------------- the older stepper (pipeline_trace)

COLORS = {cp_async.IDLE: "#eeeeee", cp_async.LOADING: "#ffe7a8", cp_async.READY: "#c8f0c8",
          cp_async.COMPUTING: "#a8d0ff"}
TAIL_LABELS = (("흔한 루프 (로드할 때만 commit)", "seed"), ("빈 그룹 commit (async_copy, async_vec)", "empty_commit"),
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
