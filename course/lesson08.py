"""Old path of course/ch08_double_buffering/lesson.py, kept for one round: a saved notebook's
`from course import lesson08` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch08_double_buffering import lesson as _new

_moved.alias(__name__, _new)
