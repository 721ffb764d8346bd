"""Old path of course/ch07_register_blocking/exercises.py, kept for one round: a saved notebook's
`from course.exercises import ex07` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch07_register_blocking import exercises as _new

_moved.alias(__name__, _new)
