"""One error type for bad input: says in Korean and English what is wrong and what to do.

CourseInputError itself lives in sim/errors.py (sim/ is pure and raises it too); this is the same class.
"""
import os

from sim.errors import CourseInputError

__all__ = ["CourseInputError", "show_briefly_in_ipython", "positive_int_env"]



def show_briefly_in_ipython():
    """In IPython, print CourseInputError as its message only (no traceback) — the message is the help."""
    try:
        # local: IPython only inside a notebook; this module also runs in plain Python
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    if ip is None:
        return False

    def handler(shell, etype, value, tb, tb_offset=None):
        # an error output whose "traceback" is just the message: shown in red, it stops "run all" as any error does,
        # and a test runner (nbval) sees the cell failed. Printing it instead would hide the failure from both.
        shell._showtraceback(etype, value, [str(value)])
        return None

    ip.set_custom_exc((CourseInputError,), handler)
    return True


def positive_int_env(name, default, meaning_ko, meaning_en):
    """Integer value of environment variable `name` (> 0), `default` when unset or empty; CourseInputError otherwise."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = None
    if value is None or value < 1:
        raise CourseInputError(
            f"환경 변수 {name}={raw!r} 는 양의 정수가 아닙니다 ({meaning_ko}, 기본 {default:,}).",
            f"environment variable {name}={raw!r} is not a positive integer ({meaning_en}, default {default}).",
            f"{name}={default} 처럼 정수로 고치거나 변수를 지우세요.",
            f"set it to an integer such as {name}={default}, or unset it.")
    return value
