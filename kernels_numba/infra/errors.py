"""One error type for bad input: says in Korean and English what is wrong and what to do."""


class CourseInputError(ValueError, TypeError):
    """Bad input to a course function; the message names the problem and the fix in Korean and English."""

    def __init__(self, ko, en, fix_ko="", fix_en=""):
        self.ko, self.en, self.fix_ko, self.fix_en = ko, en, fix_ko, fix_en
        lines = [f"[입력 오류] {ko}"]
        if fix_ko:
            lines.append(f"  → 해결: {fix_ko}")
        lines.append(f"[Input error] {en}")
        if fix_en:
            lines.append(f"  → Fix: {fix_en}")
        super().__init__("\n".join(lines))


def show_briefly_in_ipython():
    """In IPython, print CourseInputError as its message only (no traceback) — the message is the help."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    if ip is None:
        return False

    def handler(shell, etype, value, tb, tb_offset=None):
        print(str(value))
        return None

    ip.set_custom_exc((CourseInputError,), handler)
    return True
