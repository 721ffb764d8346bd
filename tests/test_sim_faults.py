"""Faults the GPU has and the simulator now shows as clear errors (thread, block, kernel line), barriers deleted from
the course's own Tensor Core kernels, and the launch/environment checks found trying the course as a user would."""
import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import cuda, float32
from numba.types import float16

import kernels_numba as kn
from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import errors as E, racecheck

import shape_cases

ROOT = Path(__file__).resolve().parents[1]
sim_only = pytest.mark.sim_only("a property of the course's simulator (on a GPU these are hardware faults or races)")


# --------------------------------------------------------------------------------- shared memory declarations

@cuda.jit
def _two_on_one_line(out):
    a, b = cuda.shared.array(4, float32), cuda.shared.array(4, float32)
    i = cuda.threadIdx.x
    a[i] = float32(1.0)
    b[i] = float32(2.0)
    cuda.syncthreads()
    out[i] = a[i] + 10 * b[i]


@sim_only
def test_two_shared_arrays_on_one_line_are_two_arrays():
    out = np.zeros(4, np.float32)
    _two_on_one_line[1, 4](out)
    assert out.tolist() == [21.0] * 4           # aliased arrays would give 22


@cuda.jit
def _ldsm_unaligned(out):
    S = cuda.shared.array((16, 8), float16)       # BUG: no alignment=16
    lane = cuda.threadIdx.x
    if lane < 16:
        for j in range(8):
            S[lane, j] = float16(1.0)
    cuda.syncthreads()
    out[lane] = ptx.ldmatrix_x1(S, lane % 8, 0)


@cuda.jit
def _ldsm_odd_row(out):
    S = cuda.shared.array((16, 12), float16, alignment=16)   # rows of 24 B: row 1 starts at byte 24
    lane = cuda.threadIdx.x
    if lane < 16:
        for j in range(12):
            S[lane, j] = float16(1.0)
    cuda.syncthreads()
    out[lane] = ptx.ldmatrix_x1(S, lane % 8, 0)


@cuda.jit
def _ldsm_global(G, out):
    lane = cuda.threadIdx.x
    out[lane] = ptx.ldmatrix_x1(G, lane % 8, 0)    # BUG: ldmatrix reads shared memory only


@cuda.jit
def _ldsm_odd_column(out):
    S = cuda.shared.array((16, 16), float16, alignment=16)   # rows of 32 B, all 16-byte aligned
    lane = cuda.threadIdx.x
    if lane < 16:
        for j in range(16):
            S[lane, j] = float16(1.0)
    cuda.syncthreads()
    out[lane] = ptx.ldmatrix_x1(S, lane % 8, 1)              # BUG: column 1 is byte 2 of the row


@sim_only
@pytest.mark.parametrize("kernel,needle", [(_ldsm_unaligned, "alignment=16을"), (_ldsm_odd_row, "0x18"), (_ldsm_odd_row, "행 간격(stride)"),
                                           (_ldsm_odd_column, "열 인덱스가 원소 8개")])
def test_ldmatrix_misalignment_names_thread_and_line(kernel, needle):
    with pytest.raises(E.MisalignedAddressError) as e:
        kernel[1, 32](np.zeros(32, np.uint32))
    msg = str(e.value)
    assert needle in msg and "threadIdx" in msg and "test_sim_faults.py:" in msg, msg


@sim_only
def test_ldmatrix_from_global_memory_is_an_error():
    G = np.zeros((16, 8), np.float16)
    with pytest.raises(E.StateSpaceError, match=r"\.shared") as e:
        _ldsm_global[1, 32](G, np.zeros(32, np.uint32))
    assert "test_sim_faults.py:" in str(e.value)


@cuda.jit
def _cp_into_global(A, G):
    ptx.cp_async_ca_4(G, cuda.threadIdx.x, A, cuda.threadIdx.x)     # BUG: destination in global memory
    ptx.cp_async_wait_all()


@cuda.jit
def _cp_from_shared(A, G):
    S = cuda.shared.array(4, float32, alignment=16)
    T = cuda.shared.array(4, float32, alignment=16)
    S[cuda.threadIdx.x] = A[cuda.threadIdx.x]
    cuda.syncthreads()
    ptx.cp_async_ca_4(T, cuda.threadIdx.x, S, cuda.threadIdx.x)     # BUG: source in shared memory
    ptx.cp_async_wait_all()


@sim_only
@pytest.mark.parametrize("kernel,role", [(_cp_into_global, "destination"), (_cp_from_shared, "source")])
def test_cp_async_state_spaces(kernel, role):
    A = np.arange(4, dtype=np.float32)
    with pytest.raises(E.StateSpaceError) as e:
        kernel[1, 4](A, np.zeros(4, np.float32))
    assert role in str(e.value) and "threadIdx" in str(e.value) and "test_sim_faults.py:" in str(e.value)


# ------------------------------------------------------------------- the course's mma kernels, barriers deleted

@contextlib.contextmanager
def _barriers_deleted(path, lines):
    """Make cuda.syncthreads() at these lines of `path` a no-op, as if the student had deleted them."""
    from numba.cuda.simulator import kernelapi as api
    real = api.FakeCUDAModule.syncthreads

    def maybe(self):
        f = sys._getframe(1)
        if f.f_code.co_filename == str(path) and f.f_lineno in lines:
            return None
        return real(self)

    api.FakeCUDAModule.syncthreads = maybe
    try:
        yield
    finally:
        api.FakeCUDAModule.syncthreads = real


def _tc_barrier_lines():
    src = (ROOT / "kernels_numba/tc.py").read_text(encoding="utf-8").splitlines()
    start = next(i for i, l in enumerate(src) if re.match(r"\s+def kernel\(A, B, C, alpha, beta\)", l))
    return [i + 1 for i, l in enumerate(src) if i > start and l.strip() == "cuda.syncthreads()"]


@sim_only
@pytest.mark.parametrize("name,which", [("mma_warps", 0), ("mma_warps", 1), ("mma_warps", "both"), ("mma_pipe", 0)])
def test_course_mma_kernels_with_a_barrier_deleted_are_caught(name, which):
    lines = _tc_barrier_lines()
    assert len(lines) == 3                      # STAGES == 1: two barriers; pipelined: one
    mine = lines[:2] if name == "mma_warps" else lines[2:]
    drop = set(mine) if which == "both" else {mine[which]}
    rng = np.random.default_rng(0)
    A = rng.standard_normal((128, 64)).astype(np.float16)
    B = rng.standard_normal((64, 128)).astype(np.float16)
    with _barriers_deleted(ROOT / "kernels_numba/tc.py", drop), pytest.raises(racecheck.SharedMemoryRaceError):
        kn.get(name).launch(A, B, np.zeros((128, 128), np.float32))


# ----------------------------------------------------------------------------------------- launch checks

@pytest.mark.parametrize("value", [1e39, 2.0 ** 200, 10 ** 400, -3.5e38])
def test_alpha_beta_beyond_float32_are_clear_errors(value):
    A = np.ones((4, 4), np.float32)
    for kw in ({"alpha": value}, {"beta": value}):
        with pytest.raises(kn.CourseInputError, match="float32|finite|유한"):
            kn.get("tiled").launch(A, A, np.zeros((4, 4), np.float32), **kw)


@sim_only
@pytest.mark.parametrize("name,shape", [("tiled", (1, 1, 2 ** 24)), ("regblock", (16, 16, 65536)),
                                        ("naive", (1, 1, 2 ** 24))])
def test_simulator_bounds_the_work_the_grid_does(name, shape):
    M, N, K = shape
    A = np.broadcast_to(np.float32(1), (M, K))
    A = np.ascontiguousarray(A)
    B = np.ones((K, N), np.float32)
    with pytest.raises(kn.CourseInputError) as e:
        kn.get(name).launch(A, B, np.zeros((M, N), np.float32))
    assert "SGEMM_SIM_MAX_MNK" in str(e.value) and re.search(r"\d+(\.\d)?\s?(시간|분|초)", str(e.value)), str(e.value)


def test_read_only_inputs_run_as_on_the_gpu():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((20, 12)).astype(np.float32)
    B = rng.standard_normal((12, 9)).astype(np.float32)
    A.flags.writeable = B.flags.writeable = False
    C = kn.get("tiled").launch(A, B, np.zeros((20, 9), np.float32))
    assert np.allclose(C, A @ B, atol=1e-4)


def test_level6_size_error_english_line_is_english():
    A = np.zeros((20, 16), np.float16)
    B = np.zeros((16, 8), np.float16)
    with pytest.raises(kn.CourseInputError) as e:
        kn.get("mma_large").launch(A, B, np.zeros((20, 8), np.float32))
    en = [l for l in str(e.value).splitlines() if l.startswith("[Input error]")][0]
    assert not re.search(r"[\uac00-\ud7a3]", en), en


def test_offline_mode_refuses_to_launch_clearly():
    code = ("import numpy as np, kernels_numba as kn\n"
            "A = np.ones((4, 4), np.float32)\n"
            "try:\n    kn.get('tiled').launch(A, A, np.zeros((4, 4), np.float32))\n"
            "except kn.CourseInputError as e:\n    print('CLEAR', e)\n")
    env = dict(os.environ, SGEMM_DEVICE="offline", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert "CLEAR" in p.stdout and "offline" in p.stdout, p.stdout + p.stderr[-2000:]


def test_bad_answers_dir_is_not_swallowed(monkeypatch, tmp_path):
    from course.quiz import engine
    monkeypatch.setenv(engine.ANSWERS_ENV, str(tmp_path / "nope"))
    with pytest.raises(kn.CourseInputError, match=engine.ANSWERS_ENV):
        engine.load_answers("06")


TILE = 8
TILE_PAD = TILE + 1


@cuda.jit
def _shape_arith(out):
    S = cuda.shared.array((TILE, TILE + 1), float32)        # BUG on the GPU: TILE + 1 is not a literal
    S[0, 0] = 1.0
    out[0] = S[0, 0]


@cuda.jit
def _shape_module_constant(out):
    S = cuda.shared.array((TILE, TILE_PAD), float32)        # fine: module-level constants
    S[0, 0] = 1.0
    out[0] = S[0, 0]


@sim_only
def test_shared_shape_must_be_compile_time_constants_as_on_the_gpu():
    from kernels_numba.infra.simulator.memory import SharedShapeError
    with pytest.raises(SharedShapeError, match="TILE \\+ 1"):
        _shape_arith[1, 1](np.zeros(1, np.float32))
    out = np.zeros(1, np.float32)
    _shape_module_constant[1, 1](out)
    assert out[0] == 1.0


@sim_only
@pytest.mark.parametrize("case", sorted(shape_cases.CASES))
def test_array_shapes_the_gpu_rejects_are_rejected_with_the_fix(case):
    """cuda.shared.array / cuda.local.array: the simulator accepts exactly the shapes Numba on the GPU compiles; a
    run-time shape (an argument, `A.shape[0]`, a name assigned twice) is an error naming it and the fix."""
    from kernels_numba.infra.simulator.memory import SharedShapeError
    fn, ok = shape_cases.CASES[case]
    A = np.ones(4, np.float32)
    if ok:
        cuda.jit(fn)[1, 1](A)
        assert A[0] == 1.0
        return
    with pytest.raises(SharedShapeError) as err:
        cuda.jit(fn)[1, 1](A)
    msg = str(err.value)
    assert shape_cases.CULPRIT[case] in msg and "컴파일 시점 상수" in msg and "모듈 수준 상수" in msg
    assert "shape_cases.py:" in msg and "TypingError" in msg


def test_shape_cases_match_numba_cuda_compiler():
    """The expectations above are the GPU compiler's: numba-cuda's compile_ptx (no GPU needed) on every case."""
    # as the offline compile worker runs: Numba's real compiler, no GPU context (on a GPU machine, too)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", SGEMM_DEVICE="offline",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))   # keep the machine's path
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "shape_cases.py")], env=env, capture_output=True,
                       text=True, timeout=300, cwd=ROOT)
    if r.returncode != 0 and "NVVM" in r.stderr:
        pytest.skip("no libNVVM here: " + r.stderr.strip().splitlines()[-1])
    assert r.returncode == 0, r.stderr[-2000:]
    verdicts = json.loads(r.stdout.strip().splitlines()[-1])
    for name, (_, ok) in shape_cases.CASES.items():
        assert (verdicts[name] is True) == ok, (name, verdicts[name])
        if not ok:
            assert verdicts[name] == "TypingError", (name, verdicts[name])


# ------------------------------------------------------------------- every PTX wrapper checks its address spaces

_WRONG = {"global": ("shared", "local"), "shared": ("global", "local"),
          "generic": ("shared", "local")}     # fence.proxy.tensormap's generic address names a tensor map: global memory


def _wrapper_kernel(fn, bad_operand, space, tmp_path):
    """A kernel calling ptx.<fn> from all 32 lanes, operand `bad_operand` in `space`, the others as the opcode wants."""
    args, decls = [], []
    for k, p in enumerate(fn.operands):
        if p.is_address:
            where = space if p.name == bad_operand else ("global" if p.space == "generic" else p.space)
            if where == "global":
                args.append(f"G{k}, 0, 0")
            elif where == "shared":
                decls.append(f"    S{k} = cuda.shared.array((16, 16), float32, alignment=16)")
                args.append(f"S{k}, 0, 0")
            else:
                decls.append(f"    L{k} = cuda.local.array((16, 16), float32)")
                args.append(f"L{k}, 0, 0")
        else:
            args.append("4" if p.name == "src_size" else "0")
    src = "\n".join([
        "from numba import cuda, float32", "from kernels_numba.infra import ptx", "",
        "@cuda.jit", f"def kernel({', '.join(f'G{k}' for k in range(len(fn.operands)))}):", *decls,
        f"    ptx.{fn.name}({', '.join(args)})", ""])
    path = tmp_path / f"wrapper_{fn.name}_{bad_operand}_{space}.py"
    path.write_text(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kernel, len(fn.operands), path.name


@sim_only
@pytest.mark.parametrize("case", [(n, p.name, sp) for n, f in ptx.FUNCS.items() for p in f.operands if p.is_address
                                  for sp in _WRONG[p.space]], ids=lambda c: "-".join(c))
def test_every_ptx_wrapper_refuses_memory_of_the_wrong_state_space(case, tmp_path):
    """Loops over every .ptx function with an address operand (a new wrapper is covered without a new test): memory
    of another state space than its opcode names is a StateSpaceError naming the operand's array and the line."""
    name, operand, space = case
    kernel, n, fname = _wrapper_kernel(ptx.FUNCS[name], operand, space, tmp_path)
    arrays = [np.zeros((16, 16), np.float32) for _ in range(n)]
    with pytest.raises(E.StateSpaceError) as e:
        kernel[1, 32](*arrays)
    assert f"{fname}:" in str(e.value) and f".{space}" in str(e.value), str(e.value)


@sim_only
def test_every_ptx_wrapper_with_an_address_is_covered():
    spaces = {p.space for f in ptx.FUNCS.values() for p in f.operands if p.is_address}
    assert spaces <= set(_WRONG), spaces


def _plain_load(X, r, c):
    return X[r, c]


@cuda.jit(device=True)
def _guarded_load(X, r, c):
    try:                                          # BUG: the GPU's Numba has no exception handling in a kernel
        return X[r, c]
    except IndexError:
        return float32(0.0)


@cuda.jit
def _calls_plain(X, out):
    out[0] = _plain_load(X, 0, 0)                 # BUG: no @cuda.jit(device=True) on _plain_load


@cuda.jit
def _calls_guarded(X, out):
    out[0] = _guarded_load(X, 5, 5)


def _make_with_closure(helper):
    @cuda.jit
    def k(X, out):
        out[0] = helper(X, 0, 0)                  # the helper comes in through a closure cell (as in make_kernel)
    return k


@sim_only
@pytest.mark.parametrize("kernel,needles", [
    (_calls_plain, ("함수(`_plain_load`, ", "Untyped global name '_plain_load'", "@cuda.jit(device=True)")),
    (_calls_guarded, ("장치 함수(`_guarded_load`)에 try/except", "if 로 확인하세요")),
    (_make_with_closure(_plain_load), ("함수(`_plain_load`, ", "Untyped global name 'helper'")),
])
def test_code_the_gpu_cannot_compile_is_refused_at_the_launch(kernel, needles):
    """Review r25 (students 06-08): a try/except standing in for a bounds check, and a helper without
    @cuda.jit(device=True), ran on the simulator while the GPU's Numba refuses both (TypingError). The launch refuses
    them too, naming the line and the fix; a helper that is a device function (global or closure) still runs."""
    X, out = np.ones((2, 2), np.float32), np.zeros(1, np.float32)
    with pytest.raises(E.NotCompilableError) as e:
        kernel[1, 1](X, out)
    msg = str(e.value)
    assert all(n in msg for n in needles) and "test_sim_faults.py:" in msg, msg
    _make_with_closure(cuda.jit(device=True)(_plain_load))[1, 1](X, out)
    assert out[0] == 1.0
