"""Progress bars for cells that take more than a few seconds: tqdm's widget in Jupyter, a text bar elsewhere."""
import time

from tqdm.auto import tqdm


def steps(items, desc, unit="단계"):
    """Iterate over `items` showing a progress bar named `desc` (Korean), e.g. `for k in steps(names, "컴파일"): ...`."""
    items = list(items)
    return tqdm(items, desc=desc, unit=unit, total=len(items), leave=True, mininterval=0.2)


class Bar:
    """A progress bar advanced by hand: `with Bar(total, desc) as bar: ...; bar.update(1)`."""

    def __init__(self, total, desc, unit="단계"):
        self._bar = tqdm(total=total, desc=desc, unit=unit, leave=True, mininterval=0.2)
        self.start = time.perf_counter()

    def update(self, n=1, note=None):
        """Advance by n steps; `note` (e.g. the kernel just done) is shown after the bar."""
        if note is not None:
            self._bar.set_postfix_str(str(note), refresh=False)
        self._bar.update(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._bar.close()
        return False
