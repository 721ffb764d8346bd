"""Checkpoint quizzes: `from course.quiz import show_quiz; show_quiz("06")` (widgets load lazily)."""
from .engine import QuizResult, grade, load_quiz

__all__ = ["show_quiz", "QuizWidget", "load_quiz", "grade", "QuizResult"]


def __getattr__(name):
    """Import the ipywidgets view only when it is asked for."""
    if name in ("show_quiz", "QuizWidget"):
        from . import widget
        return getattr(widget, name)
    raise AttributeError(f"module 'course.quiz' has no attribute {name!r}")
