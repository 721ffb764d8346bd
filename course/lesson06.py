"""Old path of course/ch06_shared_tiling/lesson.py, kept for one round: a saved notebook's
`from course import lesson06` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch06_shared_tiling import lesson as _new

_moved.alias(__name__, _new)
