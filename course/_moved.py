"""Old import paths kept for one round after issue 30 moved each chapter into course/chNN_<slug>/: the old modules
(course/lessonNN.py, course/exercises/exNN.py) call `alias(__name__, new_module)`, the one alias rule of the tree
(kernels_numba/_moved.py: the old name *is* the new module, with a DeprecationWarning naming the new path, pointed at
the line that imported the old name)."""
from kernels_numba._moved import alias  # noqa: F401
