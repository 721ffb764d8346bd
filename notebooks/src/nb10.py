"""Old path of the notebook 10 generator, now course/ch10_tensor_core/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb10.py moved: python -m course.ch10_tensor_core.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch10_tensor_core.notebook", run_name="__main__", alter_sys=True)
