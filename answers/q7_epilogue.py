"""Old path of answers/ch08/q7_epilogue.py (one round only): loads it from there and warns."""
import importlib.util
import warnings
from pathlib import Path

_NEW = Path(__file__).resolve().parent / "ch08" / "q7_epilogue.py"
warnings.warn("answers/q7_epilogue.py moved to answers/ch08/q7_epilogue.py", DeprecationWarning, stacklevel=2)
_spec = importlib.util.spec_from_file_location(__name__ + "__ch08", _NEW)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({k: v for k, v in vars(_mod).items() if not k.startswith("__")})
