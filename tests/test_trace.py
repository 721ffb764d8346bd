"""The shared-memory tracer records the kernel's real accesses."""
import collections

from kernels_numba.tools import trace


def test_tiled_trace_counts():
    r = trace.shared_accesses("tiled", 16, 16, 32)
    assert r["shapes"] == {"As": [16, 16], "Bs": [16, 16]}
    c = collections.Counter((a, op) for a, _, op, *_ in r["records"])
    # one block of 256 threads, 2 K tiles: 1 store each per tile, 16 loads each per tile
    assert c[("As", "store")] == c[("Bs", "store")] == 256 * 2
    assert c[("As", "load")] == c[("Bs", "load")] == 256 * 2 * 16


def test_padded_addresses_use_pitch_17():
    r = trace.shared_accesses("tiled_pad", 16, 16, 16)
    stores = {tid: addr for a, _, op, inst, tid, addr, _ in r["records"] if a == "As" and op == "store"}
    assert stores[16] == 17 * 4          # thread (tx=0, ty=1) stores As[1][0] at byte 68


def test_many_traces_in_one_subprocess_equal_the_traces_here(monkeypatch):
    # on a GPU shared_accesses_many runs every trace in ONE simulator subprocess: the records must be the same
    from kernels_numba.infra import device as dev
    from kernels_numba.tools import trace as tr
    reqs = [("tiled", 16, 16, 16, (0, 0)), ("tiled_pad", 16, 16, 32, (0, 0))]
    here = [tr.shared_accesses(n, M, N, K, b) for n, M, N, K, b in reqs] if dev.SIMULATOR else None
    monkeypatch.setattr(dev, "SIMULATOR", False)                 # take the subprocess path (SGEMM_DEVICE=sim there)
    there = tr.shared_accesses_many(reqs)
    assert len(there) == 2 and all(t["records"] and t["shapes"] for t in there)
    if here is not None:
        assert there == here
