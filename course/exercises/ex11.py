"""Old path of course/ch11_hopper/exercises.py, kept for one round: a saved notebook's
`from course.exercises import ex11` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch11_hopper import exercises as _new

_moved.alias(__name__, _new)
