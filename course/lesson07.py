"""Old path of course/ch07_register_blocking/lesson.py, kept for one round: a saved notebook's
`from course import lesson07` still runs (the same module) and warns where the new one is."""
from course import _moved
from course.ch07_register_blocking import lesson as _new

_moved.alias(__name__, _new)
