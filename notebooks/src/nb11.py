"""Old path of the notebook 11 generator, now course/ch11_hopper/notebook.py (one round only)."""
import runpy
import warnings

if __name__ == "__main__":
    warnings.warn("notebooks/src/nb11.py moved: python -m course.ch11_hopper.notebook", DeprecationWarning, stacklevel=1)
    runpy.run_module("course.ch11_hopper.notebook", run_name="__main__", alter_sys=True)
