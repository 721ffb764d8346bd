"""Two views over sim.cp_async.run_loop, the group state machine of a K loop:

* the loop sandbox: compose one K-loop iteration (step order, wait_group N, stages, tail rule) and see the pending
  groups per step and every hazard;
* the group stepper: one of the notebook's loops (or any LoopSpec) one step at a time: the code line that runs, the
  groups it commits, the groups each wait_group(N) lands, every stage's state, the hazard the step completes."""
import html

import ipywidgets as W

from course.widgets import live
from course.widgets.controls import fit, row
from kernels_numba.infra.errors import CourseInputError
from sim import cp_async
from sim.korean import josa

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


class CpAsyncSandbox(live.LiveView):
    """Presets and controls compose one iteration; every change re-runs the model and redraws code, verdict, table."""
    NAME_KO, NAME_EN = "cp.async 루프 샌드박스", "cp.async loop sandbox"

    def __init__(self, preset="common", num_tiles=6):
        style = {"description_width": "initial"}
        opts = [(p.label, k) for k, p in cp_async.PRESETS.items()] + [("직접 구성", CUSTOM)]
        self.preset = W.Dropdown(options=opts, value=preset, description="출발점 (preset)", style=style,
                                 layout=W.Layout(width="560px"))
        self.slots = [W.Dropdown(options=STEP_LABELS, value="", description=f"{i + 1}", style=style,
                                 layout=W.Layout(width="250px")) for i in range(SLOTS)]
        self.wait_n = fit(W.IntSlider(min=0, max=cp_async.MAX_WAIT_N, description="wait_group N",
                                      continuous_update=False), 160)
        self.stages = fit(W.IntSlider(value=3, min=1, max=cp_async.MAX_STAGES, description="단 수 S",
                                      tooltip="NUM_STAGES: 공유 메모리의 타일 버퍼 수", continuous_update=False), 160)
        self.ahead = fit(W.IntSlider(value=2, min=0, max=cp_async.MAX_STAGES, continuous_update=False,
                                     description="미리 읽기 거리 D",
                                     tooltip="prefetch distance: 반복 kt 가 타일 kt+D 의 복사를 발행합니다"), 160)
        self.tail = W.Dropdown(options=TAIL_RULE_LABELS, description="꼬리 처리 (tail)", style=style,
                               layout=W.Layout(width="560px"))
        self.num_tiles = fit(W.IntSlider(value=num_tiles, min=1, max=12, description="K 타일 수",
                                         continuous_update=False), 160)
        self.code, self.summary, self.table = W.HTML(), W.HTML(), W.HTML()
        self.spec = self.run = None
        self._applying = False
        self.widget = W.VBox([self.preset, W.HTML("<b>한 반복의 순서</b> (— 는 비움)"),
                              W.HBox(self.slots[:3]), W.HBox(self.slots[3:]),
                              row([self.wait_n, self.stages]), row([self.ahead, self.num_tiles]), self.tail,
                              self.summary, self.code, self.table])
        live.mark(self.widget).add_class("sgemm-sandbox")
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



def cp_async_sandbox(preset="common", num_tiles=6):
    """The sandbox widget, starting from a preset ('common', 'async_copy', 'async_vec'); display it last in a cell."""
    preset = cp_async.OLD_NAMES.get(preset, preset) if isinstance(preset, str) else preset
    if preset not in cp_async.PRESETS:
        raise CourseInputError(f"preset 는 {list(cp_async.PRESETS)} 중 하나입니다 (받은 값: {preset!r}).",
                               f"preset must be one of {list(cp_async.PRESETS)}, not {preset!r}.",
                               "'async_vec' 처럼 고르세요.", "pick e.g. 'async_vec'.")
    if isinstance(num_tiles, bool) or not isinstance(num_tiles, int) or not 1 <= num_tiles <= 12:
        raise CourseInputError(f"K 타일 수는 1 이상 12 이하의 정수입니다 (받은 값: {num_tiles!r}).",
                               f"num_tiles must be an int in 1..12, not {num_tiles!r}.",
                               "예: num_tiles=6", "e.g. num_tiles=6")
    return CpAsyncSandbox(preset, num_tiles)


# ------------------------------------------------------------------------------------- the group stepper

STATE_COLORS = {cp_async.EMPTY: "#f4f4f4", cp_async.ISSUED: "#fff3c4", cp_async.IN_FLIGHT: "#ffd591",
                cp_async.LANDED: "#d4edc4", cp_async.VISIBLE: "#a8dba8", cp_async.COMPUTING: "#a8d0ff"}
GIVEN = "given"                # the dropdown entry of a LoopSpec passed by the caller


def group_text(g, tiles):
    """'G3[t3]' or 'G5[빈]' (an empty group)."""
    return f"G{g}[{','.join(f't{t}' for t in tiles) or '빈'}]"


def describe_event(run, i):
    """What step i of the run does, in one or two Korean sentences (the stepper's headline, also for tests)."""
    e = run.events[i]
    before = run.events[i - 1].pending if i else []
    where = "프롤로그" if e.kt < 0 else f"kt={e.kt}"
    if e.step == "wait":
        n = int(e.text.split()[-1])
        if e.landed:
            done = ", ".join(group_text(g, t) for g, t in e.landed)
            what = (f"대기 중 그룹 {len(before)}개 → {n}개 이하가 될 때까지 가장 오래된 그룹부터 끝냅니다. "
                    f"도착(landed): {done}")
        else:
            what = (f"대기 중 그룹이 {len(before)}개로 이미 {n}개 이하라 아무것도 기다리지 않고 지나갑니다 "
                    "(도착하는 그룹 없음)")
        return f"{where} · {e.text}: {what}."
    if e.step == "commit" and e.pending[len(before):]:
        g, tiles = e.pending[-1]
        if not tiles:
            return (f"{where} · commit_group: 발행한 복사가 없어도 빈 그룹 {group_text(g, tiles)} 하나를 commit 합니다 "
                    "(반복마다 그룹 수가 같아 wait_group N 의 셈이 꼬리에서도 맞습니다).")
        return f"{where} · commit_group: 그때까지 발행한 복사를 새 그룹 {josa(group_text(g, tiles), '으로/로')} 묶습니다."
    if e.step == "barrier":
        return (f"{where} · __syncthreads(): 모든 스레드가 여기까지 옵니다. 그 전에 wait 로 도착한 복사가 이제 "
                "블록 전체에 보입니다.")
    if e.step == "prologue" and e.pending[len(before):]:
        g, tiles = e.pending[-1]
        return f"{where} · {e.text}, commit → {group_text(g, tiles)}."
    return f"{where} · {e.text}."


def code_html(spec, event, position):
    """The loop's code with the lines of `event` (at `position` in its iteration) highlighted."""
    rows = []
    for tag, line in cp_async.loop_code(spec, tagged=True):
        on = tag == "prologue" if event.kt < 0 else tag == position
        style = "background:#ffe08a;font-weight:bold" if on else ""
        rows.append(f'<div style="{style}">{"▶ " if on else "  "}{html.escape(line)}</div>')
    return f'<pre style="font-size:12px;line-height:1.35;margin:0">{"".join(rows)}</pre>'


def queue_html(run, i):
    """The pending groups after step i, oldest first; the groups it landed struck through, a new group outlined."""
    e = run.events[i]
    before = {g for g, _ in run.events[i - 1].pending} if i else set()
    cells = [f'<span style="background:#d4edc4;text-decoration:line-through;padding:1px 4px;margin:2px">'
             f"{html.escape(group_text(g, t))} 도착</span>" for g, t in e.landed]
    for g, tiles in e.pending:
        new = "outline:2px solid #e67e22;" if g not in before else ""
        cells.append(f'<span style="background:#ffd591;{new}padding:1px 4px;margin:2px">'
                     f"{html.escape(group_text(g, tiles))}</span>")
    if e.uncommitted:
        cells.append(f'<span style="background:#fff3c4;padding:1px 4px;margin:2px">commit 전: '
                     f"{', '.join(f't{t}' for t in e.uncommitted)}</span>")
    body = "".join(cells) or "<i>없음</i>"
    return f"<b>대기 중 그룹 (pending groups, 오래된 것부터)</b><br>{body}"


def stages_html(event, bad):
    """Every stage (shared-memory buffer) with its tile and state after the step; a hazard's stage in red."""
    rows = []
    for s, (state, tile) in enumerate(event.stages):
        color = "#ff9a9a" if s in bad else STATE_COLORS[state]
        what = cp_async.STATE_KO[state] + ("" if tile is None else f" — 타일 {tile}")
        rows.append(f'<tr><td>버퍼 {s}</td><td style="background:{color};padding:1px 6px">{html.escape(what)}</td></tr>')
    return ('<b>버퍼 (stage)</b><table style="border-collapse:collapse;font-size:12px" border="1" cellpadding="2">'
            + "".join(rows) + "</table>")


class CpAsyncStepper(live.LiveView):
    """One loop of the notebook (a preset) or a given LoopSpec, step by step: `.step.value = i + 1` (the slider counts
    from 1, as the headline does), `.go(i)` or the buttons show event i of `.run` (sim.cp_async.run_loop): code line,
    groups committed and landed, stage states, hazards. `.position` is the event shown (from 0)."""
    NAME_KO, NAME_EN = "cp.async 그룹 상태 기계", "cp.async group state machine"

    def __init__(self, loop="common", num_tiles=8, loops=None, at=None):
        self.given = loop if isinstance(loop, cp_async.LoopSpec) else None
        keys = list(loops or cp_async.PRESETS)
        options = [(cp_async.PRESETS[k].label, k) for k in keys]
        if self.given is not None:
            options.insert(0, ("직접 준 루프 (LoopSpec)", GIVEN))
        self.loop = W.Dropdown(options=options, value=GIVEN if self.given is not None else loop,
                               description="루프", layout=W.Layout(width="560px"))
        self.num_tiles = fit(W.IntSlider(value=num_tiles, min=1, max=12, description="K 타일 수",
                                         continuous_update=False), 160)
        self.step = fit(W.IntSlider(value=1, min=1, max=1, description="단계", continuous_update=True), 300)
        self.back = W.Button(description="◀ 이전", layout=W.Layout(width="90px"))
        self.next = W.Button(description="다음 ▶", layout=W.Layout(width="90px"))
        self.next_wait = W.Button(description="다음 wait ▶▶", layout=W.Layout(width="120px"),
                                  tooltip="다음 cp_async_wait_group 단계로")
        self.headline, self.code, self.queue, self.stages, self.hazards = (W.HTML() for _ in range(5))
        self.summary = W.HTML()
        self.code.layout.margin = "0 24px 0 0"
        self.headline.add_class("sgemm-headline")
        self.spec = self.run = None
        legend = " ".join(f'<span style="background:{c};padding:0 4px;white-space:nowrap">'
                          f'{html.escape(cp_async.STATE_KO[s])}</span>' for s, c in STATE_COLORS.items())
        self.widget = W.VBox([row([self.loop, self.num_tiles]),
                              row([self.back, self.next, self.next_wait, self.step]), self.headline,
                              W.HBox([self.code, W.VBox([self.queue, self.stages])],
                                     layout=W.Layout(align_items="flex-start")),
                              self.hazards, W.HTML(f"<small>{legend}</small>"), self.summary])
        live.mark(self.widget).add_class("sgemm-stepper")
        self.loop.observe(self._rebuild, names="value")
        self.num_tiles.observe(self._rebuild, names="value")
        self.step.observe(self._show, names="value")
        self.back.on_click(lambda _: self.go(self.position - 1))
        self.next.on_click(lambda _: self.go(self.position + 1))
        self.next_wait.on_click(lambda _: self.go(self._next_wait()))
        self._rebuild()
        if at is not None:
            self.go(self.index(*at))

    def index(self, kt, step):
        """The index of the first event of iteration kt (-1: the prologue) doing `step`."""
        for i, e in enumerate(self.run.events):
            if e.kt == kt and e.step == step:
                return i
        raise CourseInputError(f"이 루프에는 kt={kt} 의 '{step}' 단계가 없습니다.",
                               f"this loop has no '{step}' step at kt={kt}.",
                               "kt 는 -1(프롤로그)부터 타일 수-1 까지, 단계는 루프에 있는 것으로 고르세요.",
                               "pick kt from -1 (prologue) to num_tiles-1 and a step the loop has.")

    @property
    def position(self):
        """The index (from 0) of the event shown."""
        return self.step.value - 1

    def go(self, i):
        """Show event i (from 0; clamped to the run)."""
        self.step.value = max(0, min(len(self.run.events) - 1, i)) + 1

    def _next_wait(self):
        later = [i for i, e in enumerate(self.run.events) if i > self.position and e.step == "wait"]
        return later[0] if later else len(self.run.events) - 1

    def _rebuild(self, change=None):
        key = self.loop.value
        self.spec = self.given if key == GIVEN else cp_async.PRESETS[key].spec
        self.run = cp_async.run_loop(self.spec, self.num_tiles.value)
        self.step.max = len(self.run.events)          # clamps the value
        causes = self.run.causes()
        if causes:
            kts = sorted({k for v in causes.values() for k in v})
            self.summary.value = (f'<span style="color:{RED}"><b>이 루프의 위험 {len(self.run.hazards)}건</b>: '
                                  f"kt={', '.join(map(str, kts))} (빨간 단계로 가 보세요)</span>")
        else:
            self.summary.value = f'<span style="color:{GREEN}"><b>이 루프에는 위험이 없습니다</b></span>'
        self._show()

    def describe(self, i=None):
        """The headline of step i (default: the one shown)."""
        return describe_event(self.run, self.position if i is None else i)

    def hazards_at(self, i=None):
        """The hazards whose second access is step i (default: the one shown)."""
        e = self.run.events[self.position if i is None else i]
        return hazard_cells(self.run).get((e.kt, e.step), [])

    def _show(self, change=None):
        i = self.position
        e = self.run.events[i]
        position = sum(1 for x in self.run.events[:i] if x.kt == e.kt)
        self.back.disabled, self.next.disabled = i == 0, i == len(self.run.events) - 1
        self.next_wait.disabled = not any(x.step == "wait" for x in self.run.events[i + 1:])
        self.headline.value = (f"<b>단계 {i + 1}/{len(self.run.events)}</b> — {html.escape(self.describe(i))}")
        bad = self.hazards_at(i)
        self.code.value = code_html(self.spec, e, position)
        self.queue.value = queue_html(self.run, i)
        self.stages.value = stages_html(e, {h.stage for h in bad})
        self.hazards.value = "".join(f'<div style="color:{RED}"><b>⚠ {html.escape(h.title)}</b> [{h.kind}] — '
                                     f"{html.escape(h.fix)}</div>" for h in bad)


def cp_async_stepper(loop="common", num_tiles=8, loops=None, at=None):
    """The group stepper over one of the notebook's loops ('common', 'async_copy', 'async_vec') or a LoopSpec;
    `loops` limits the dropdown, `at=(kt, step)` opens at that step (kt=-1: the prologue)."""
    old = lambda k: cp_async.OLD_NAMES.get(k, k) if isinstance(k, str) else k      # noqa: E731
    loop, keys = old(loop), [old(k) for k in (loops or cp_async.PRESETS)]
    bad = [k for k in keys if k not in cp_async.PRESETS]
    if not isinstance(loop, cp_async.LoopSpec) and loop not in keys:
        bad.append(loop)
    if bad:
        raise CourseInputError(f"루프는 {list(cp_async.PRESETS)} 중 하나이거나 LoopSpec 입니다 (받은 값: {bad}).",
                               f"a loop is one of {list(cp_async.PRESETS)} or a LoopSpec, not {bad}.",
                               "'async_copy' 처럼 고르세요.", "pick e.g. 'async_copy'.")
    if isinstance(num_tiles, bool) or not isinstance(num_tiles, int) or not 1 <= num_tiles <= 12:
        raise CourseInputError(f"K 타일 수는 1 이상 12 이하의 정수입니다 (받은 값: {num_tiles!r}).",
                               f"num_tiles must be an int in 1..12, not {num_tiles!r}.",
                               "예: num_tiles=8", "e.g. num_tiles=8")
    return CpAsyncStepper(loop, num_tiles, keys, at)
