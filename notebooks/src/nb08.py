"""Old path of the notebook 08 generator, now course/ch08_double_buffering/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb08.py moved: python -m course.ch08_double_buffering.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch08_double_buffering.notebook", run_name="__main__", alter_sys=True)
