"""Old path of the notebook 07 generator, now course/ch07_register_blocking/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb07.py moved: python -m course.ch07_register_blocking.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch07_register_blocking.notebook", run_name="__main__", alter_sys=True)
