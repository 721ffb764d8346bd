"""Solutions of notebook 09's exercises agree with the course's model (sim.cp_async), lesson09 and ptxas."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "answers"))
import ex09_smem  # noqa: E402
import ex09_tail  # noqa: E402

from course import lesson09  # noqa: E402
from sim.cp_async import pipeline_trace  # noqa: E402


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("tiles", [1, 2, 3, 4, 5, 6, 8, 11])
def test_tail_by_hand_equals_the_model(stages, tiles):
    assert ex09_tail.unguarded_tiles(stages, tiles) == [s.kt for s in pipeline_trace(stages, tiles, "seed").errors]


def test_tail_notebook_case():
    assert ex09_tail.unguarded_tiles(4, 6) == [3, 4, 5]


def test_smem_matches_lesson_and_ptxas():
    for bk, s, p, n, fits in ex09_smem.table():
        assert n == lesson09.smem_bytes(s, BK=bk, pad=p)
    assert ex09_smem.max_static_stages(16) == 3 and ex09_smem.max_static_stages(8) == 6
    assert lesson09.ptxas_static_shared(ex09_smem.smem_bytes(3, 16))[0]
    assert not lesson09.ptxas_static_shared(ex09_smem.smem_bytes(4, 16))[0]
