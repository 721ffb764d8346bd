"""The simulator is one subpackage whose imports run one way: the PTX layer uses it, it never imports the PTX layer,
and inside it each module imports only the ones listed before it (no cycles)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "kernels_numba/infra/simulator"
ORDER = ["state", "errors", "limits", "racecheck", "memory", "warp", "async_copy", "async_proxy", "warpgroup", "tma",
         "stand_ins", "scheduler", "__init__"]


def _relative_imports(path):
    """Module names a file imports relatively ('..ptx', '.memory', ...)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = "." * node.level + (node.module or "")
            out += [base] if node.module else [base + a.name for a in node.names]
    return out


def test_every_module_has_a_place_in_the_order():
    assert sorted(p.stem for p in SIM.glob("*.py")) == sorted(ORDER)


def test_imports_run_one_way():
    for i, name in enumerate(ORDER):
        for imp in _relative_imports(SIM / f"{name}.py"):
            assert "ptx" not in imp, f"simulator/{name}.py imports the PTX layer ({imp}): the PTX layer uses the simulator"
            if imp.startswith(".") and not imp.startswith(".."):
                target = imp[1:].split(".")[0]
                assert target in ORDER[:i], f"simulator/{name}.py imports .{target}, which comes later in {ORDER}"


def test_ptx_layer_reaches_the_simulator_through_stand_ins_only():
    imps = _relative_imports(ROOT / "kernels_numba/infra/ptx/__init__.py")
    sim = [i for i in imps if i.startswith("..simulator")]
    assert sim and all(i.split(".")[3] in ("stand_ins", "errors", "memory") for i in sim), sim
