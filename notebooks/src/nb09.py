"""Old path of the notebook 09 generator, now course/ch09_cp_async/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb09.py moved: python -m course.ch09_cp_async.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch09_cp_async.notebook", run_name="__main__", alter_sys=True)
