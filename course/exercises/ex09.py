"""Old path of course/ch09_cp_async/exercises.py, kept for one round: a saved notebook's
`from course.exercises import ex09` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch09_cp_async import exercises as _new

_moved.alias(__name__, _new)
