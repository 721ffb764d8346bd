"""Level-4 double-buffer kernels (db, db_overlap, db_ptx): edge shapes in the simulator, the one barrier per
iteration, db_ptx's vector stores, and what the SASS of the main loop does (offline, sm_80/sm_90)."""
import importlib
import inspect
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import ptx
from kernels_numba.tools import offline
from kernels_numba import db

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["db", "db_overlap", "db_ptx"]
sim_only = pytest.mark.sim_only("needs the simulator's deterministic schedule, or a misaligned store "
                                "that would kill the GPU context")


def _ref(A, B, C0, alpha, beta):
    return alpha * (A.astype(np.float64) @ B.astype(np.float64)) + beta * C0.astype(np.float64)


def _run(launch, M, N, K, alpha=1.0, beta=0.0, C=None, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32)
    if C is None:
        C = np.full((M, N), np.nan, np.float32) if beta == 0 else C0.copy()
    out = launch(A, B, C, alpha, beta)
    host = getattr(out, "_ary", out)
    return host, _ref(A, B, C0, alpha, beta)


def _close(C, ref, K):
    return np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4 * np.sqrt(K))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M,N,K", [
    (33, 40, 13),      # K not a multiple of BK: the last tile is partly zeros
    (20, 24, 8),       # exactly one K tile: no prefetch at all
    (16, 20, 5),       # one partial K tile
    (9, 12, 1),        # K = 1
    (130, 40, 12),     # two block rows, M not a multiple of 128
    (40, 131, 10),     # two block columns, N not a multiple of 128 (and N % 4 == 3)
    (24, 38, 20),      # N % 4 == 2
])
def test_edge_shapes(name, M, N, K):
    C, ref = _run(kn.get(name).launch, M, N, K)
    assert _close(C, ref, K)


@pytest.mark.parametrize("name", NAMES)
def test_alpha_beta(name):
    C, ref = _run(kn.get(name).launch, 50, 37, 19, alpha=1.5, beta=-0.5)
    assert _close(C, ref, 19)


# ------------------------------------------------------------ variants built from the kernels' own source

def _source_variant(name, old, new, count=1):
    """Source of kernels_numba/<name>.py with `old` replaced by `new` (`count` times, checked)."""
    src = inspect.getsource(importlib.import_module(f"kernels_numba.{name}"))
    assert src.count(old) == count, f"{old!r} found {src.count(old)} times in {name}"
    return src.replace(old, new)


def _load_variant(src, label):
    import linecache
    mod = types.ModuleType(f"kernels_numba._{label}")
    mod.__package__ = "kernels_numba"
    linecache.cache[f"<{label}>"] = (len(src), None, src.splitlines(True), f"<{label}>")   # source for reports
    exec(compile(src, f"<{label}>", "exec"), mod.__dict__)
    return mod


def _without_loop_barrier(name):
    """The kernel with the main loop's syncthreads (the last one in the file) removed."""
    src = inspect.getsource(importlib.import_module(f"kernels_numba.{name}"))
    i = src.rindex("cuda.syncthreads()")
    line_start = src.rindex("\n", 0, i) + 1
    assert src[line_start:i] == " " * 8, "the last barrier should be the one inside the K loop"
    return _load_variant(src[:i] + "pass" + src[i + len("cuda.syncthreads()"):], f"{name}_no_loop_barrier")


@sim_only
@pytest.mark.parametrize("name", NAMES)
def test_the_one_barrier_is_needed(name):
    """Without it the first thread to reach iteration 1 computes on buffer 1 before the others filled it: a wrong C,
    and the race detector names the hazard (collect mode lets the kernel run to its end)."""
    from kernels_numba.infra.simulator import racecheck
    launch = _without_loop_barrier(name).launch
    with racecheck.collect() as report:
        C, ref = _run(launch, 24, 20, 24)          # 3 K tiles
    assert not _close(C, ref, 24)
    assert report and {"As", "Bs"} & {h.array for h in report.hazards}, report.summary()
    C, ref = _run(kn.get(name).launch, 24, 20, 24)
    assert _close(C, ref, 24)


# ------------------------------------------------------------------------------- db_ptx's vector stores

def _sim_device_array(M, N, offset_floats):
    """A C whose element [0, 0] sits offset_floats*4 bytes past a 16-byte boundary (simulator device array)."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    buf = np.full(M * N + 8, np.nan, np.float32)
    start = (-(buf.ctypes.data // 4)) % 4 + offset_floats
    return FakeCUDAArray(buf[start:start + M * N].reshape(M, N))


def _expected_vector_stores(M, N, offset_floats):
    """Row segments of 4 (at columns 0, 4, 8, ...) that lie inside the row and start 16-byte aligned."""
    return sum(1 for r in range(M) for c in range(0, N - 3, 4) if (offset_floats + r * N + c) % 4 == 0)


@sim_only
@pytest.mark.parametrize("M,N,offset", [(24, 32, 0), (24, 37, 0), (20, 40, 1), (20, 40, 2), (13, 131, 3)])
@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_db_ptx_vector_store_where_aligned(monkeypatch, M, N, offset, beta):
    calls = []
    stand_in = ptx.st_global_v4_f32

    def counting(*args):
        calls.append(args[1:3])
        return stand_in(*args)

    monkeypatch.setattr(ptx, "st_global_v4_f32", counting)
    C = _sim_device_array(M, N, offset)
    if beta:
        C._ary[...] = np.random.default_rng(1).standard_normal((M, N), dtype=np.float32)
    C0 = C._ary.copy()
    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, 9), dtype=np.float32)
    B = rng.standard_normal((9, N), dtype=np.float32)
    kn.get("db_ptx").launch(A, B, C, 1.0, beta)
    assert _close(C._ary, _ref(A, B, C0 if beta else np.zeros_like(C0), 1.0, beta), 9)
    assert len(calls) == _expected_vector_stores(M, N, offset)   # all 4-segments of an aligned row, no more
    assert (len(calls) > 0) == (offset == 0 or N % 4 != 0)      # an unaligned C with N % 4 == 0: none at all


@sim_only
@pytest.mark.parametrize("M,N,offset", [(8, 40, 1), (8, 37, 0)])
def test_db_ptx_without_alignment_check_faults(M, N, offset):
    """The alignment test is what keeps st.global.v4.f32 legal: dropped, the store faults on an unaligned C
    and on rows that do not start at a multiple of 16 bytes (N % 4 != 0)."""
    src = _source_variant("db_ptx", " and ptx.element_address(C, grow, gcol) % 16 == 0", "")
    launch = _load_variant(src, "db_ptx_unchecked").launch
    rng = np.random.default_rng(0)
    A = rng.standard_normal((M, 5), dtype=np.float32)
    B = rng.standard_normal((5, N), dtype=np.float32)
    with pytest.raises(ptx.MisalignedAddressError):
        launch(A, B, _sim_device_array(M, N, offset))


# ----------------------------------------------------------------------------------- SASS (offline)

@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_db_stores_before_it_computes(cc):
    """db: the prefetched values go to shared memory (STS) before the first FFMA, and a store needs its data,
    so the warp waits for the global load before it computes."""
    order = db.sass_order(offline.compile_kernel("db", cc)["sass"])
    ldg, sts, ffma = (db.first_last(order, k) for k in ("LDG", "STS", "FFMA"))
    assert ldg[0] < sts[0] and sts[1] < ffma[0], order


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_db_overlap_loads_then_computes_then_stores(cc):
    order = db.sass_order(offline.compile_kernel("db_overlap", cc)["sass"], kinds=("LDG", "STS", "FFMA", "BAR"))
    ldg, sts, ffma = (db.first_last(order, k) for k in ("LDG", "STS", "FFMA"))
    assert ldg[1] < ffma[0] and ffma[1] < sts[0], order
    assert [k for k, _ in order] == ["LDG", "FFMA", "STS", "BAR"]


def _compile_source(src, cc=(9, 0)):
    code = (
        "import json, sys, types\n"
        "import kernels_numba\n"
        "from kernels_numba.tools import offline\n"
        "from numba import cuda\n"
        "mod = types.ModuleType('kernels_numba._variant'); mod.__package__ = 'kernels_numba'\n"
        "exec(compile(sys.stdin.read(), '<variant>', 'exec'), mod.__dict__)\n"
        f"cc = {tuple(cc)!r}\n"
        "with offline.offline_device(cc):\n"
        "    ptx, _ = cuda.compile_ptx(mod.kernel.py_func, offline.SIG, cc=cc)\n"
        "sass, usage = offline.cubin_report(offline.ptx_to_cubin(ptx, cc))\n"
        "json.dump({'sass': sass, 'usage': usage}, sys.stdout)\n")
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], input=src, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_db_overlap_checked_loads_only_get_sunk():
    """Why db_overlap has an unchecked path for interior tiles: with the bounds-checked loads alone, ptxas moves
    the LDGs from before the FFMAs to after them, next to the stores, and the overlap is gone."""
    src = _source_variant("db_overlap", "    if block_row + BM <= M and block_col + BN <= N and k0 + BK <= K:",
                          "    if False:")
    order = db.sass_order(_compile_source(src)["sass"], kinds=("LDG", "STS", "FFMA"))
    ldg, ffma = db.first_last(order, "LDG"), db.first_last(order, "FFMA")
    assert ldg[0] > (ffma[0] + ffma[1]) // 2, order


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_checked_only_demo_is_that_variant(cc):
    """Notebook 08 4.6 shows the sinking with kernels_numba/demos/db_overlap_checked_only: its kernel is db_overlap's
    with the checked loads only (the same source apart from the load function), and ptxas sinks its LDGs as above."""
    from kernels_numba.demos import db_overlap_checked_only as demo
    ov = importlib.import_module("kernels_numba.db_overlap")
    body = inspect.getsource(ov.kernel.py_func).replace("load_tile_to_registers(", "load_checked_to_registers(")
    assert inspect.getsource(demo.kernel.py_func) == body
    def stripped(f):
        return [ln.split("#")[0].strip() for ln in inspect.getsource(f.py_func).splitlines()]
    full = stripped(ov.load_tile_to_registers)
    edge = [ln for ln in full[full.index("else:") + 1:] if ln]
    assert edge and edge == [ln for ln in stripped(demo.load_checked_to_registers)[3:] if ln]
    order = db.sass_order(offline.compile_kernel("db_overlap_checked_only", cc)["sass"], kinds=("LDG", "STS", "FFMA"))
    ldg, ffma = db.first_last(order, "LDG"), db.first_last(order, "FFMA")
    assert ldg[0] > (ffma[0] + ffma[1]) // 2, order


def test_checked_only_demo_is_correct():
    """The demo gives db_overlap's answer (only the schedule differs): a partial tile in every direction."""
    from kernels_numba.demos import db_overlap_checked_only as demo
    rng = np.random.default_rng(1)
    A = rng.standard_normal((9, 13), dtype=np.float32)
    B = rng.standard_normal((13, 7), dtype=np.float32)
    C = demo.launch(A, B, np.full((9, 7), np.nan, np.float32))
    np.testing.assert_allclose(np.asarray(C), A @ B, rtol=1e-5, atol=1e-5)


def test_sass_order_reads_nvdisasm_labels():
    """kernel.inspect_sass() (nvdisasm) writes branch targets as labels; the loop is still found."""
    sass = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0020*/                   FFMA R3, R2, R2, R3 ;
        /*0030*/                   STS [R5], R2 ;
        /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0050*/               @P0 BRA `(.L_x_0) ;
        /*0060*/                   EXIT ;
"""
    assert db.sass_order(sass) == [("LDG", 1), ("FFMA", 1), ("STS", 1), ("BAR", 1)]


def _tile_loads(name, cc):
    """LDG opcodes of the main loop (the tile loads; the epilogue's beta reads of C are outside it)."""
    return {op for _, op, _ in db.sass_main_loop(offline.compile_kernel(name, cc)["sass"]) if op.startswith("LDG")}


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_what_ca_changes(cc):
    """ld.global.ca is a *strong* load at SM scope (LDG.E.STRONG.SM); Numba's plain load is a weak LDG.E.
    Nothing else in the instruction differs: global loads are cached in L1 by default on sm_80/sm_90 anyway."""
    assert _tile_loads("db", cc) == {"LDG.E"}
    assert _tile_loads("db_ptx", cc) == {"LDG.E.STRONG.SM"}


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_db_ptx_vector_store_and_same_math(cc):
    r, base = offline.compile_kernel("db_ptx", cc), offline.compile_kernel("db", cc)
    counts = offline.sass_counts(r["sass"])
    assert counts.get("STG.E.128") == 16 and "STG.E.128" not in offline.sass_counts(base["sass"])
    ffma = [sum(op == "FFMA" for _, op, _ in db.sass_main_loop(x["sass"])) for x in (r, base)]
    assert ffma[0] == ffma[1] > 0, "explicit fma.rn.f32 gives the FFMAs the compiler already made"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_no_call_no_local_memory(name, cc):
    """No function call anywhere. On sm_80 ptxas ends the K loop with `@!P0 CALL.REL.NOINC <next>; BRA head`:
    a jump to the loop exit right behind it (its convergence idiom), not a call of another function."""
    r = offline.compile_kernel(name, cc)
    assert offline.ptx_counts(r["ptx"])["call"] == 0
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0
    insns = db.sass_instructions(r["sass"])
    for i, (addr, op, args) in enumerate(insns):
        if op.startswith("CALL"):
            assert cc == (8, 0) and op == "CALL.REL.NOINC", (op, args)
            assert insns[i + 1][1] == "BRA" and int(args.split()[0], 16) == insns[i + 2][0], insns[i:i + 3]
    assert r["usage"]["registers"] <= 128, "two 256-thread blocks per SM need <= 128 registers"
