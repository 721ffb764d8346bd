"""What a course widget says when nothing drives it any more (a reopened notebook, a restarted kernel).

* Kernel restarted (by the student, or after a crash: the server restarts it), or the widget restored from saved
  state: ipywidgets marks every view of a model without a live kernel connection `.jupyter-widgets-disconnected`.
  Each course widget carries a line at its top, hidden by CSS until its view gets that class; then it says the
  widget is dead and to re-run the cell.
* Notebook reopened: JupyterLab saves no widget models by default, so the output reads "Error displaying widget:
  model not found" (or, untrusted, the text/plain fallback). `show` prints a note below the widget that says to re-run
  the cell; CSS hides it while the live widget is right above it.
Both texts are Korean with English below; the CSS lives in the outputs themselves (no JupyterLab extension needed)."""
import html

import ipywidgets as W

ROOT_CLASS = "sgemm-widget"            # the root box of every course widget
NOTE_CLASS = "sgemm-widget-note"       # the re-run note printed below it
DEAD_CLASS = "sgemm-dead"              # the line inside it that shows once its kernel is gone
DISCONNECTED = "jupyter-widgets-disconnected"     # ipywidgets' class for a view whose model has no live comm

DEAD_KO = "커널이 다시 시작되어 이 위젯은 더 이상 반응하지 않습니다: 이 셀을 다시 실행하세요"
DEAD_EN = "The kernel restarted, so this widget no longer responds: re-run this cell"
AGAIN_KO = "새 커널에는 앞 셀들이 만든 이름이 없으니, NameError 가 나면 Run ▸ Run All Above Selected Cell 로 위의 셀부터"
AGAIN_EN = ("the new kernel lacks the names earlier cells made: after a NameError, "
            "Run ▸ Run All Above Selected Cell first")
DEAD_HTML = (f"<style>.{DEAD_CLASS}{{display:none !important}}"
             f".{DEAD_CLASS}.{DISCONNECTED}{{display:block !important}}</style>"
             '<div style="border-left:4px solid #c00;background:#fff0f0;padding:4px 10px;word-break:keep-all">'
             f"⚠ <b>{DEAD_KO}</b> ({AGAIN_KO}).<br><small>{DEAD_EN} ({AGAIN_EN}).</small></div>")


def dead_line():
    """The line that shows inside a widget once its kernel is gone (hidden while the widget is live)."""
    line = W.HTML(DEAD_HTML)
    line.add_class(DEAD_CLASS)
    return line


def mark(box, top=True):
    """Make `box` a course widget's root: class sgemm-widget and the dead-kernel line (first child, or last); `box`."""
    box.add_class(ROOT_CLASS)
    box.children = (dead_line(), *box.children) if top else (*box.children, dead_line())
    return box


def rerun_note(name_ko, name_en, extra_class=""):
    """HTML below a widget: shown where the widget cannot be (reopened notebook), hidden next to a live widget."""
    cls = f"{NOTE_CLASS} {extra_class}".strip()
    hide = ", ".join(f"{area}:has(.{ROOT_CLASS}) + {area} .{NOTE_CLASS}"
                     for area in (".jp-OutputArea-child", ".output_area"))
    return (f"<style>{hide}{{display:none}}</style>"
            f'<div class="{cls}" style="border-left:4px solid #e94;padding:4px 10px;word-break:keep-all">'
            f"ℹ {html.escape(name_ko)} 위젯이 보이지 않거나 'Error displaying widget' 이 보이면 이 셀을 다시 실행하세요 "
            "(다시 연 노트북에는 실행 중인 위젯이 없습니다. 셀을 실행하면 다시 만들어집니다. NameError 가 나면 "
            "Run ▸ Run All Above Selected Cell 로 위의 셀부터 실행하세요).<br>"
            f"<small>If the {html.escape(name_en)} is missing or shows 'Error displaying widget', re-run this cell "
            "(after a NameError, Run ▸ Run All Above Selected Cell first): a reopened notebook has no live widget."
            "</small></div>")


def hint(name_ko, name_en):
    """The text/plain of a widget output (what a viewer without widgets shows)."""
    return f"[{name_ko} 위젯: 이 셀을 실행하면 나타납니다 / {name_en} widget: run this cell to see it]"


def bundle(box, name_ko, name_en):
    """The widget's display data with a readable text/plain."""
    data = dict(box._repr_mimebundle_() or {})
    data["text/plain"] = hint(name_ko, name_en)
    return data


def show(box, name_ko, name_en):
    """Display the widget `box`, then the re-run note below it."""
    # local: IPython only inside a notebook; this module also runs in plain Python
    from IPython.display import HTML, display
    display(bundle(box, name_ko, name_en), raw=True)
    display(HTML(rerun_note(name_ko, name_en)))


class LiveView:
    """Mixin for a view class with `.widget` (its root box) and NAME_KO/NAME_EN: displaying the object shows the
    widget and the re-run note. Call `mark(self.widget)` when the box is built."""
    NAME_KO = NAME_EN = ""

    def _ipython_display_(self):
        show(self.widget, self.NAME_KO, self.NAME_EN)

    def _repr_mimebundle_(self, **kwargs):
        return bundle(self.widget, self.NAME_KO, self.NAME_EN)
