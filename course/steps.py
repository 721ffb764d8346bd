"""Progress bars for cells that take more than a few seconds: tqdm's widget in Jupyter, a text bar elsewhere.

A bar must reach its total when the work succeeded: in Jupyter tqdm paints a bar that closes short of its total red
(the sign of a failure), so a one-step bar around one long call still calls update(1) when the call returns.

In Jupyter a bar leaves no widget behind: when it closes, its output becomes the same bar as plain text (a notebook
saved and reopened shows that line, not "Error displaying widget: model not found"), and its label never wraps
inside a word."""
import threading
import time

from tqdm import tqdm as _text_tqdm
from tqdm.auto import tqdm as _auto_tqdm
from tqdm.notebook import tqdm_notebook

DONE, STOPPED = "✔", "✘ 중단됨 / stopped"


class NotebookBar(_auto_tqdm):
    """tqdm's notebook bar, displayed with a display id so that close() can replace the widget by its final text."""

    def __init__(self, *args, **kwargs):
        # local: IPython only inside a notebook; this module also runs in plain Python
        from IPython.display import display
        kwargs["display"] = False
        super().__init__(*args, **kwargs)
        self.handle = None
        if self.disable:
            return
        label, bar, counts = self.container.children
        # the label and the counts keep their one-line width (never a wrap inside a Korean word); the bar takes the
        # rest and the whole bar moves to the next line only when even its smallest width does not fit
        label.layout.flex = counts.layout.flex = "0 0 auto"
        bar.layout.flex, bar.layout.min_width = "1 1 auto", "80px"
        self.container.layout.flex_flow, self.container.layout.width = "row wrap", "100%"
        self.handle = display(self.container, display_id=True)

    def final_text(self):
        """The bar as one line of text, with ✔ when it reached its total, else a stopped mark."""
        d = dict(self.format_dict, ncols=None, bar_format=None)
        line = _text_tqdm.format_meter(**d)
        return f"{line} {DONE if not self.total or self.n >= self.total else STOPPED}"

    def close(self):
        if self.disable or self.handle is None:
            return super().close()
        super().close()
        handle, self.handle = self.handle, None
        try:
            handle.update({"text/plain": self.final_text()}, raw=True)
        finally:
            for w in (*self.container.children, self.container):
                w.close()


def _pick():
    """NotebookBar in a Jupyter kernel with ipywidgets (where tqdm.auto picks its widget), else tqdm.auto's bar."""
    return NotebookBar if issubclass(_auto_tqdm, tqdm_notebook) else _auto_tqdm


tqdm = _pick()


def steps(items, desc, unit="단계"):
    """Iterate over `items` showing a progress bar named `desc` (Korean), e.g. `for k in steps(names, "컴파일"): ...`."""
    items = list(items)
    return tqdm(items, desc=desc, unit=unit, total=len(items), leave=True, mininterval=0.2)


class Bar:
    """A progress bar advanced by hand: `with Bar(total, desc) as bar: ...; bar.update(1)`. `bar.bar` is the tqdm."""

    def __init__(self, total, desc, unit="단계"):
        self.bar = tqdm(total=total, desc=desc, unit=unit, leave=True, mininterval=0.2)
        self.start = time.perf_counter()

    @property
    def _bar(self):                     # the earlier name of self.bar
        return self.bar

    def update(self, n=1, note=None):
        """Advance by n steps; `note` (e.g. the kernel just done) is shown after the bar."""
        if note is not None:
            self.bar.set_postfix_str(str(note), refresh=False)
        self.bar.update(n)

    def note(self, text):
        """Show `text` (what is being done now) after the bar without advancing it."""
        self.bar.set_postfix_str(str(text))

    def close(self):
        self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Progress(Bar):
    """A Bar whose elapsed time keeps moving during one long step (a compile in a subprocess, Numba's first JIT of a
    kernel): a thread redraws it every second. The thread only redraws the bar (tqdm's own lock); it never calls
    Numba or anything else of the work, which stays in the caller's thread."""

    def __init__(self, total, desc, unit="단계"):
        super().__init__(total, desc, unit)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()

    def _tick(self):
        while not self._stop.wait(1.0):
            self.bar.refresh()

    def close(self):
        self._stop.set()
        self._thread.join()
        super().close()
