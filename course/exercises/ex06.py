"""Old path of course/ch06_shared_tiling/exercises.py, kept for one round: a saved notebook's
`from course.exercises import ex06` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch06_shared_tiling import exercises as _new

_moved.alias(__name__, _new)
