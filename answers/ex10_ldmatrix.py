"""Old path of answers/ch10/ex10_ldmatrix.py (one round only): loads it from there and warns."""
import importlib.util
import warnings
from pathlib import Path

_NEW = Path(__file__).resolve().parent / "ch10" / "ex10_ldmatrix.py"
warnings.warn("answers/ex10_ldmatrix.py moved to answers/ch10/ex10_ldmatrix.py", DeprecationWarning, stacklevel=2)
_spec = importlib.util.spec_from_file_location(__name__ + "__ch10", _NEW)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({k: v for k, v in vars(_mod).items() if not k.startswith("__")})
