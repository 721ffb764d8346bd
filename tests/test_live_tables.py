"""On an H100 or H200: the live tables the notebooks show agree with the record of the same GPU class (within
measure.AGREE_POINTS at 2048³ and 4096³), and mma_fast through the course's launch reaches its record."""
import pytest

from course import bench, chapters, measure, records

pytestmark = pytest.mark.gpu_only("times kernels on the GPU against cuBLAS")


@pytest.fixture(autouse=True)
def _gpu_alone():
    """Timing needs the GPU to itself: beside other pytest-xdist workers launching kernels the engine (rightly) flags
    the run as busy. In a parallel run these skip, saying how to run them alone (`make test-gpu-timing`)."""
    import os
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        pytest.skip("times the GPU: other workers of this parallel run share it; run `make test-gpu-timing` alone")


def _device_name():
    from numba import cuda
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else name


def _gpu_class():
    return records.gpu_class(_device_name())


@pytest.mark.parametrize("number", ["06", "07", "08", "09"])
def test_live_table_agrees_with_the_record(number):
    pytest.importorskip("cupy", reason="the benchmark compares with cuBLAS through CuPy")
    if _gpu_class() not in ("H100", "H200"):
        pytest.skip(f"records exist for H100 and H200, not {_gpu_class()}")
    names = [k for k in chapters.get(number).kernels if k != "naive"]     # naive at 4096³: 0.1 s a call, 2 % anyway
    run = measure.benchmark(sizes=(2048, 4096), kernels=names, progress=False)
    assert run is not None and not run.flagged, run and run.flagged
    off = []
    for r in run.rows:
        if r.kernel == "cuBLAS":
            continue
        assert r.correct, r
        ref = records.reference(run.gpu, r.kernel, r.n, "cuBLAS SGEMM")
        assert ref is not None, f"no {run.gpu_class} record of {r.kernel} at {r.n}³"
        if abs(100 * (r.ratio - ref[0].ratio)) > measure.AGREE_POINTS:
            off.append((r.kernel, r.n, round(100 * r.ratio, 1), round(100 * ref[0].ratio, 1), ref[1].id))
    assert not off, off


def test_mma_fast_through_launch_reaches_its_record():
    pytest.importorskip("cupy", reason="the benchmark compares with cuBLAS through CuPy")
    if _gpu_class() not in ("H100", "H200"):
        pytest.skip(f"records exist for H100 and H200, not {_gpu_class()}")
    ref = records.reference(_device_name(), "mma_fast", 4096, "cuBLAS HGEMM", engine=bench.ENGINE)
    if ref is None:     # an older harness's record timed cuBLAS differently (12-15 % apart): no like to compare with
        pytest.skip(f"no {_gpu_class()} record of mma_fast timed by {bench.ENGINE} "
                    "(python benchmarks/record_level6_fast.py --variants fast makes one)")
    run = bench.run(["mma_fast"], (4096,), rounds=3)
    r = run.row("mma_fast", 4096)
    assert r.correct and r.extra.get("timed_by") != "graph"          # through launch: the host stays ahead
    assert 100 * r.ratio >= 100 * ref[0].ratio - measure.AGREE_POINTS, (r.ratio, ref[0].ratio, ref[1].id)


def test_launch_adds_little_to_numbas_dispatch():
    """The course's launch with device arrays costs at most 10 us more host time than Numba's own dispatch of the
    same kernel (a process holding thousands of modules, as a notebook's does)."""
    import sys
    import types
    import numpy as np
    from numba import cuda
    import kernels_numba as kn
    for i in range(max(0, 3000 - len(sys.modules))):
        sys.modules[f"_notebook_like_{i}"] = types.ModuleType(f"_notebook_like_{i}")
    spec = kn.get("regblock_vec")
    dA, dB, dC = (cuda.to_device(np.ones((1024, 1024), np.float32)) for _ in range(3))
    grid = (1024 // spec.launch.tile[1], 1024 // spec.launch.tile[0])
    a, b = np.float32(1), np.float32(0)
    launch = lambda: spec.launch(dA, dB, dC, 1.0, 0.0)                            # noqa: E731
    raw = lambda: spec.kernel[grid, spec.launch.block](dA, dB, dC, a, b)          # noqa: E731
    launch()
    cuda.synchronize()
    costs = {k: min(bench.host_us(f, n=200) for _ in range(5)) for k, f in (("launch", launch), ("raw", raw))}
    assert costs["launch"] - costs["raw"] <= 10.0, costs
