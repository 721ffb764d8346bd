"""ipywidgets view of a checkpoint quiz: inputs per question, 제출 button, result HTML (no print)."""
import html
import os

import ipywidgets as W

from course.widgets import live

from . import store
from .engine import KEYS_AFTER_PASS_NOTE, NO_ANSWERS_NOTE, load_quiz
from .text import inline, md, numbered_template  # noqa: F401 (re-exported: widget.md, widget.numbered_template)

BLOOM_KO = {"Remember": "기억", "Understand": "이해", "Apply": "적용", "Analyze": "분석",
            "Evaluate": "평가", "Create": "창조"}
RERUN_KO = "체크포인트 퀴즈가 보이지 않거나 'Error displaying widget' 이 보이면 이 셀을 다시 실행하세요"
RERUN_EN = "If the checkpoint quiz is missing or shows 'Error displaying widget', re-run this cell"
# Shown below the widget; hidden by CSS while the live widget is right above it. A reopened notebook has no widget
# model (JupyterLab prints "Error displaying widget: model not found"), so the note stays and says what to do.
RERUN_NOTE = ("<style>.jp-OutputArea-child:has(.sgemm-quiz) + .jp-OutputArea-child .sgemm-quiz-note,"
              ".output_area:has(.sgemm-quiz) + .output_area .sgemm-quiz-note{display:none}</style>"
              f'<div class="sgemm-quiz-note {live.NOTE_CLASS}" style="border-left:4px solid #e94;padding:4px 10px">'
              f"ℹ {RERUN_KO} (노트북을 다시 열면 위젯은 셀을 실행해야 다시 만들어집니다; 기록은 그대로입니다).<br>"
              f"<small>{RERUN_EN}: a reopened notebook has no live widget; your saved attempts are kept.</small></div>")


class QuizWidget:
    """One checkpoint quiz as widgets; headless use: set .inputs[qid].value, call .submit(), read .result."""

    def __init__(self, quiz_id="06", student=None, progress_path=None):
        self.quiz = load_quiz(quiz_id)
        self.progress_path = progress_path
        self.inputs, self.reveal_buttons, self.model_views = {}, {}, {}
        self.result = self.saved = None
        ask = ""
        try:
            default_student = student or store.student_id(progress_path)
        except store.CourseInputError:             # bad $SGEMM_STUDENT or a shared login without an ID yet
            default_student = ""
            if not os.environ.get(store.STUDENT_ENV, "").strip():
                ask = (f"<small>📝 이 로그인({html.escape(store.login_name())})은 여러 학생이 함께 씁니다: "
                       "<b>학생 ID</b> 칸에 학번을 쓰세요 (한 번만 묻고 기억합니다). / Shared login: type your "
                       "student ID once.</small>")
        self.student = W.Text(value=default_student, description="학생 ID", placeholder="학번 / student ID",
                              layout=W.Layout(width="320px"))
        rows = [W.HTML(f"<h3>{html.escape(self.quiz.title)}</h3>{md(self.quiz.intro)}"), self.student]
        if ask:
            rows.append(W.HTML(ask))
        for i, q in enumerate(self.quiz.questions, 1):
            head = f"<b>문제 {i}</b> <small>({BLOOM_KO.get(q.bloom, q.bloom)}, {q.bloom})</small>"
            rows.append(W.HTML(head + md(q.prompt)))
            rows.append(self._make_input(q))
        self.submit_button = W.Button(description="제출", button_style="primary", icon="check")
        self.submit_button.on_click(self.submit)
        self.output = W.HTML(value=self._history_html())
        # after a kernel restart the 제출 button does nothing: a line says so at the top and next to the button
        self.widget = live.mark(W.VBox(rows + [live.dead_line(), self.submit_button, self.output]))
        self.widget.add_class("sgemm-quiz")

    def _make_input(self, q):
        if q.type == "mc":
            w = W.RadioButtons(options=[(f"({cid}) {text}", cid) for cid, text in q.choices], value=None,
                               layout=W.Layout(width="auto"), style={"description_width": "0px"})
            self.inputs[q.id] = w
            return w
        if q.type == "numeric":
            w = W.Text(placeholder="숫자", description="답", layout=W.Layout(width="240px"))
            self.inputs[q.id] = w
            return w
        if q.free:           # the whole piece of code in one text area, below the code it goes into
            area = W.Textarea(value=q.starter, placeholder="여기에 코드를 쓰세요 (들여쓰기는 맞춰 넣습니다)",
                              layout=W.Layout(width="95%", height="170px"))
            area.add_class("sgemm-quiz-code")
            self.inputs[q.id] = [area]
            shown = q.template.replace("___", "▶ 여러분의 코드 (아래 칸)")
            return W.VBox([W.HTML(f"<pre>{html.escape(shown)}</pre>"),
                           W.HTML("<style>.sgemm-quiz-code textarea{font-family:monospace}</style>"), area])
        if q.type == "code":
            texts = [W.Text(placeholder=f"빈칸 {i}", description=f"[{i}]", layout=W.Layout(width="190px"),
                            style={"description_width": "30px"}) for i in range(1, q.blanks + 1)]
            self.inputs[q.id] = texts
            return W.VBox([W.HTML(f"<pre>{html.escape(numbered_template(q.template))}</pre>"), W.HBox(texts)])
        text = W.Textarea(placeholder="자신의 말로 답을 쓰세요", layout=W.Layout(width="95%", height="90px"))
        button = W.Button(description="모범 답안 보기", icon="eye")
        view = W.HTML()
        check = W.Checkbox(value=False, description="내 답이 핵심을 담았다", disabled=True, indent=False)
        button.on_click(lambda _b, q=q: self.reveal(q.id))
        self.inputs[q.id] = {"text": text, "self_ok": check}
        self.reveal_buttons[q.id], self.model_views[q.id] = button, view
        return W.VBox([text, button, view, check])

    def reveal(self, qid):
        """Show the model answer of an explain question, but only after the student wrote something."""
        box, view = self.inputs[qid], self.model_views[qid]
        if not box["text"].value.strip():
            view.value = "<i>먼저 자신의 답을 쓴 뒤에 모범 답안을 볼 수 있습니다.</i>"
            return
        try:
            view.value = ('<div style="border-left:4px solid #4a8;padding:4px 10px"><b>모범 답안</b>'
                          + md(self.quiz.model_answer(qid)) + "</div>")
        except Exception as e:      # noqa: BLE001 - damaged data: say so instead of raising in a callback
            view.value = f"<i>모범 답안을 읽지 못했습니다: {html.escape(str(e))}</i>"
        box["self_ok"].disabled = False

    def answers(self):
        """Current answers {qid: value} in the engine's format."""
        out = {}
        for qid, w in self.inputs.items():
            if isinstance(w, list):
                out[qid] = [t.value for t in w]
            elif isinstance(w, dict):
                out[qid] = {"text": w["text"].value, "self_ok": bool(w["self_ok"].value)}
            else:
                out[qid] = w.value
        return out

    def submit(self, _button=None):
        """Grade, save the attempt, render the result; returns the QuizResult (same as clicking 제출)."""
        self.submit_button.disabled = True
        self.output.value = "<i>채점 중… (코드 문제는 커널을 실제로 실행합니다)</i>"
        try:
            self.result, self.saved = store.grade_and_save(self.quiz, self.answers(),
                                                           self.student.value.strip() or None, self.progress_path)
            self.output.value = render_result(self.quiz, self.result, self.saved)
        except Exception as e:      # noqa: BLE001 - never raise out of a widget callback
            self.output.value = f"<b>채점 중 오류가 났습니다 / grading failed:</b> {html.escape(repr(e))}"
        finally:
            self.submit_button.disabled = False
        return self.result

    def _history_html(self):
        try:
            me = self.student.value.strip() or store.student_id(self.progress_path)
        except store.CourseInputError:
            me = self.student.value.strip()
        mine = [a for a in store.attempts(self.progress_path, self.quiz.id) if a.get("student") == me]
        if not mine:
            return ""
        best = max(a["score"] for a in mine)
        return f"<small>이전 시도 {len(mine)}회, 최고 점수 {best}/{self.quiz.total}</small>"

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, with a plain-text hint for viewers that cannot show widgets."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = f"[{self.quiz.title}] {RERUN_KO}. / {RERUN_EN}."
        return bundle


def render_result(quiz, result, saved=None):
    """HTML for a graded submission: score, 통과/미통과, per-question feedback, where to reread, save status.

    Keys and explanations only when result.revealed (a pass, or the instructor's setting).
    """
    verdict = ('<span style="color:#080">통과 ✅</span>' if result.passed
               else '<span style="color:#b00">미통과 ❌</span>')
    parts = [f"<h4>점수: {result.score}/{result.total} — {verdict} "
             f"<small>(통과 기준: {result.pass_at}/{result.total} 이상)</small></h4><ol>"]
    for r, q in zip(result.results, quiz.questions):
        mark = "✔" if r.correct else "✘"
        color = "#080" if r.correct else "#b00"
        item = f'<span style="color:{color}">{mark}</span> {html.escape(r.feedback)}'
        if not r.correct and r.section:
            item += (f' <small>— 다시 읽을 곳 / reread: 노트북 {html.escape(quiz.id)} '
                     f'§{inline(r.section)}</small>')
        if r.explanation and result.revealed:
            item += f'<div style="margin:4px 0 8px 16px;color:#333">{md(r.explanation)}</div>'
        parts.append(f"<li>{item}</li>")
    parts.append("</ol>")
    if not result.revealed:
        parts.append(f"<p><i>{html.escape(KEYS_AFTER_PASS_NOTE)}.</i></p>")
    elif not result.has_explanations:
        parts.append(f"<p><i>{NO_ANSWERS_NOTE}.</i></p>")
    if saved is not None:
        for m in saved.messages:
            parts.append(f'<p style="color:#a60">{html.escape(m).replace(chr(10), "<br>")}</p>')
        if saved.ok:
            parts.append(f"<p><small>진행 기록을 저장했습니다: {html.escape(str(saved.path))} "
                         f"(체크포인트 {html.escape(quiz.id)} 시도 {saved.attempts}회)</small></p>")
    return "".join(parts)


def show_quiz(quiz_id="06", student=None, progress_path=None):
    """Display the checkpoint quiz `quiz_id` and, below it, a note that shows only where the widget cannot.

    Returns nothing, so it shows once.
    """
    # local: IPython only inside a notebook; this module also runs in plain Python
    from IPython.display import HTML, display
    display(QuizWidget(quiz_id, student, progress_path))
    display(HTML(RERUN_NOTE))
