"""answers/ch11/ex11_*.py (notebook 11's exercises) agree with the models the simulator and the kernels use."""
import importlib.util
from pathlib import Path

from sim import wgmma, ws_ring

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "answers" / "ch11" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_layout_answer_is_the_model():
    ex = _load("ex11_layout")
    assert all(ex.acc_element(t, i) == wgmma.accumulator_elements(t, 64)[i] for t in range(128) for i in range(32))


def test_descriptor_answer_is_what_the_kernels_build():
    ex = _load("ex11_descriptor")
    for BK in (64, 128):
        for kk in range(BK // 16):
            assert ex.b_descriptor(3072, kk, BK) == wgmma.descriptor_for_tile(3072 + kk * 2048, "MN", BK)


def test_ring_answers_run_the_ring():
    ex = _load("ex11_ring")
    assert all(ex.ring_phase(it, s) == ws_ring.course_parities(it, s) for s in (2, 3, 4) for it in range(20))
    for eager in (True, False):
        assert len(ws_ring.run(consumer_step=ex.consumer_step, stages=3, tiles=2, k_tiles=4, eager=eager).done) == 8
