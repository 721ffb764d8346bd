"""Old path of course/ch09_cp_async/lesson.py, kept for one round: a saved notebook's
`from course import lesson09` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch09_cp_async import lesson as _new

_moved.alias(__name__, _new)
