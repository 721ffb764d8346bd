"""The shared-memory tracer records the kernel's real accesses."""
import collections

from kernels_numba.infra import trace


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
