"""Old path of course/ch10_tensor_core/exercises.py, kept for one round: a saved notebook's
`from course.exercises import ex10` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch10_tensor_core import exercises as _new

_moved.alias(__name__, _new)
