"""Checkpoint quizzes: `from course.quiz import show_quiz; show_quiz("06")` (widgets load lazily)."""
from .engine import QuizResult, grade, load_quiz
from .store import grade_and_save

__all__ = ["show_quiz", "QuizWidget", "load_quiz", "grade", "QuizResult", "submit"]


def submit(quiz_id, answers, student=None, progress_path=None):
    """Grade `answers` {qid: value} for checkpoint `quiz_id` and save the attempt, as the 제출 button does.

    Returns (QuizResult, store.Saved); saving problems are in saved.messages, never raised. Keys and
    explanations are in the result only after a pass (or the instructor's SGEMM_REVEAL_AFTER failures).
    """
    return grade_and_save(load_quiz(quiz_id), answers, student, progress_path)


def __getattr__(name):
    """Import the ipywidgets view only when it is asked for."""
    if name in ("show_quiz", "QuizWidget"):
        from . import widget      # local: ipywidgets loads only when a quiz is shown (import course stays light)
        return getattr(widget, name)
    raise AttributeError(f"module 'course.quiz' has no attribute {name!r}")
