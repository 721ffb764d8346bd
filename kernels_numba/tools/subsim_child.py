"""The simulator subprocess of kernels_numba.tools.subsim: `python -m kernels_numba.tools.subsim_child FOLDER` runs
launch.run_kernel of the kernel the folder's spec.json names on its in.npz, and writes out.npy (or error.json), plus
hazards.json when the race detector collects."""
import importlib
import json
import sys
from pathlib import Path

import numpy as np

from .. import launch
from ..infra.errors import CourseInputError
from ..infra.simulator import racecheck
from .subsim import _FIELDS


def main(folder):
    d = Path(folder)
    spec = json.loads(Path(d, "spec.json").read_text())
    arrays = np.load(d / "in.npz")
    A, B, C = arrays["A"], arrays["B"], arrays["C"].copy()
    kernel = getattr(importlib.import_module(spec["module"]), spec["kernel"])
    grid = tuple(spec["grid"]) if isinstance(spec["grid"], list) else spec["grid"]
    block = tuple(spec["block"]) if isinstance(spec["block"], list) else spec["block"]
    try:
        with (racecheck.collect() if racecheck.MODE == "collect" else _nothing()) as report:
            launch.run_kernel(kernel, grid, block, A, B, C, np.float32(spec["alpha"]), np.float32(spec["beta"]),
                              tile=tuple(spec["tile"]) if spec["tile"] else None)
        if report is not None:
            (d / "hazards.json").write_text(json.dumps([
                {f: (list(v) if isinstance(v, tuple) else v) for f in _FIELDS
                 for v in [getattr(h, f, None)]} for h in report.hazards], default=str))
    except CourseInputError as e:
        (d / "error.json").write_text(json.dumps({"ko": getattr(e, "ko", str(e)), "en": getattr(e, "en", ""),
                                                  "fix_ko": getattr(e, "fix_ko", ""),
                                                  "fix_en": getattr(e, "fix_en", "")}))
        return
    np.save(d / "out.npy", C)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main(sys.argv[1])
