"""직접 해보기 (exercises): `check("06-2", my_kernel)` runs your code and explains what is wrong; `hint("06-2")` helps.

Each notebook's exercises live in `course/exercises/exNN.py`; solutions stay in `answers/`.
"""
from .core import EXERCISES, Result, check, exercise, get, hint, template

__all__ = ["EXERCISES", "Result", "check", "exercise", "get", "hint", "template"]
