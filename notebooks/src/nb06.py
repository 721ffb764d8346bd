"""Old path of the notebook 06 generator, now course/ch06_shared_tiling/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb06.py moved: python -m course.ch06_shared_tiling.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch06_shared_tiling.notebook", run_name="__main__", alter_sys=True)
