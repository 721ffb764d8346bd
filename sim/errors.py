"""The course's one error type for bad input, here at the bottom so that sim/ (pure) and kernels_numba both reach it."""


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
