"""Old path of answers/ch11/ex11_layout.py (one round only): loads it from there and warns."""
import importlib.util
import warnings
from pathlib import Path

_NEW = Path(__file__).resolve().parent / "ch11" / "ex11_layout.py"
warnings.warn("answers/ex11_layout.py moved to answers/ch11/ex11_layout.py", DeprecationWarning, stacklevel=2)
_spec = importlib.util.spec_from_file_location(__name__ + "__ch11", _NEW)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({k: v for k, v in vars(_mod).items() if not k.startswith("__")})
