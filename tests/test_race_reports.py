"""The race detector's reports as a student reads them: one hazard once with its true kind, program order decided by
the execution (across files and loop iterations, under every schedule), the student's line for a helper's access,
notebook cells named `In [n]`, interval numbers per block, fixes that never name a barrier already there, and every
pointer in a message leads somewhere."""
import importlib.util
import re
import textwrap

import numpy as np
import pytest
from numba import cuda, float32

import course
from course import racereport
from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import racecheck
from kernels_numba.infra.simulator import GlobalMemoryRaceError, SharedMemoryRaceError, UninitializedReadError
from kernels_numba.infra.simulator.scheduler import get_schedule, set_schedule

import racecases

pytestmark = pytest.mark.sim_only("the race detector is the simulator's")
SCHEDULES = [("forward", 0), ("reverse", 0), ("random", 5)]


def _under(order, seed, fn):
    prev = get_schedule()
    set_schedule(order, seed)
    try:
        return fn()
    finally:
        set_schedule(*prev)


def _barrier_lines(path):
    return {n for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1)
            if line.strip().startswith("cuda.syncthreads()")}


# --------------------------------------------------------------------------- notebook 10 §4.4's demos

@pytest.mark.parametrize("which,kind", [("no_barrier_after_wait", "RAW"), ("no_trailing_barrier", "WAR")])
def test_the_mma_demos_report_one_kind_and_a_fix_that_is_not_there_yet(which, kind):
    from kernels_numba.demos import mma_barriers
    out = racereport.run_demo(getattr(mma_barriers, "launch_" + which), 32, 16, 64, dtype=np.float16)
    rep = out["report"]
    assert rep.kinds == [kind], rep.summary()
    barriers = _barrier_lines(mma_barriers.__file__)
    for h in rep.hazards:
        between = re.search(r"(\d+)행(?:의 wait_group)? ?과 (\d+)행 사이", h.fix_ko)
        if between:                            # "put a barrier between line a and line b": none is there yet
            a, b = int(between.group(1)), int(between.group(2))
            assert a < b and not any(a < x < b for x in barriers), (h.fix_ko, barriers)
        else:                                  # the read, then the next iteration's copy: after the read
            assert kind == "WAR" and h.first_line[1] > h.second_line[1], h.fix_ko
            assert not any(x > h.first_line[1] for x in barriers if x < 60), (h.fix_ko, barriers)


def test_a_wait_inside_a_helper_is_named_at_the_kernels_line():
    # notebook 09 §4.1's showcase: the kernel calls cp_async_wait_group (a helper in async_copy.py); the fix names the
    # kernel's line of that call, between it and the read, never the helper's own line
    import os
    from kernels_numba.demos import async_no_barrier_after_wait as demo
    out = racereport.run_demo(demo.launch, 16, 16, 40)
    src = open(demo.__file__, encoding="utf-8").read().splitlines()
    barriers, named = _barrier_lines(demo.__file__), 0
    for h in out["report"].hazards:
        m = re.search(r"(\d+)행의 wait_group 과 (\d+)행 사이", h.fix_ko)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            assert "wait_group" in src[a - 1] and a < b and not any(a < x < b for x in barriers), (h.fix_ko, src[a - 1])
            assert f"복사가 {os.path.basename(demo.__file__)}:{a} 의 wait 에서 도착" in h.ko, h.ko
            named += 1
    assert named, out["report"].summary()


# --------------------------------------------------------------------------- program order under every schedule

@pytest.mark.parametrize("case", [c for c in racecases.CASES if c.expect], ids=lambda c: c.name)
def test_kind_and_order_do_not_depend_on_the_schedule(case, tmp_path):
    launch, lines = racecases.build(case, tmp_path)
    kind, first, second = case.expect
    for order, seed in SCHEDULES:
        with pytest.raises(SharedMemoryRaceError) as e:
            _under(order, seed, lambda: launch(np.random.default_rng(0)))
        h = e.value.hazard
        assert h.kind == kind, (order, str(e.value))
        assert h.first_site[1] in racecases.tag_lines(lines, first), (order, str(e.value))
        assert h.second_site[1] in racecases.tag_lines(lines, second), (order, str(e.value))
        _assert_labels(h)
        between = re.search(r"(\d+)행(?:의 wait_group)? ?과 (\d+)행 사이", h.fix_ko)
        if between:                   # the fix's barrier goes where there is none yet
            a, b = int(between.group(1)), int(between.group(2))
            barriers = _barrier_lines(tmp_path / f"race_{case.name}.py")
            assert a < b and not any(a < x < b for x in barriers), (h.fix_ko, barriers)


def _assert_labels(h):
    """The report labels its pair as what it is: program order for two threads of a block (then one line says which
    the simulator ran first), the order run where program order does not decide, no order between two blocks."""
    program = ("프로그램 순서 앞 / earlier in program order", "프로그램 순서 뒤 / later in program order")
    run = ("먼저 실행 / ran first", "나중 실행 / ran second")
    labels = {racecheck.PROGRAM: program, racecheck.REVERSED: program, racecheck.RUN: run,
              racecheck.BLOCKS: ("블록 하나 / one block", "다른 블록 / another block")}[h.order]
    assert all(lab in h.ko for lab in labels) and "먼저 / first" not in h.ko and "나중 / second" not in h.ko, h.ko
    line = "시뮬레이터가 이번에 실행한 순서 / as the simulator ran them: "
    if h.order in (racecheck.PROGRAM, racecheck.REVERSED) and h.first_thread is not h.second_thread:
        assert line + ("뒤 → 앞" if h.order == racecheck.REVERSED else "앞 → 뒤") in h.ko, h.ko
    else:
        assert line not in h.ko, h.ko


@cuda.jit
def _no_barrier(A, out):
    S = cuda.shared.array((8, 8), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    S[ty, tx] = A[ty, tx]                       # line +4: the store
    out[ty, tx] = S[ty, (tx + 1) % 8]           # line +5: the neighbour's element, no barrier in between


@pytest.mark.parametrize("order,ran", [("forward", "뒤 → 앞"), ("reverse", "앞 → 뒤")])
def test_the_pair_is_in_program_order_and_says_which_ran_first(order, ran):
    # forward: thread 0 runs first and reads S[0, 1] before thread 1 stores it, so the report's later access (the
    # read) ran first; reverse: thread 63 stores S[7, 7] before thread 62 reads it, as in program order
    A = np.ones((8, 8), np.float32)
    with pytest.raises(SharedMemoryRaceError) as e:
        _under(order, 0, lambda: _no_barrier[1, (8, 8)](A, np.zeros((8, 8), np.float32)))
    h = e.value.hazard
    line0 = _no_barrier.py_func.__code__.co_firstlineno
    assert h.kind == "RAW" and h.first_what == "write" and h.second_what == "read", str(e.value)
    assert (h.first_line[1], h.second_line[1]) == (line0 + 4, line0 + 5), str(e.value)
    assert h.order == (racecheck.REVERSED if order == "forward" else racecheck.PROGRAM), str(e.value)
    assert "시뮬레이터가 이번에 실행한 순서 / as the simulator ran them: " + ran in h.ko, h.ko
    _assert_labels(h)


@cuda.jit
def _one_line(out):
    s = cuda.shared.array(1, float32)
    if cuda.threadIdx.x == 0:
        s[0] = 0.0
    cuda.syncthreads()
    s[0] += 1.0                                 # every thread reads and writes one element on one line
    cuda.syncthreads()
    out[0] = s[0]


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_a_pair_on_one_line_is_labelled_as_run(order):
    # one line: program order does not decide which is first, so the report gives the order the simulator ran them
    with pytest.raises(SharedMemoryRaceError) as e:
        _under(order, 0, lambda: _one_line[1, 4](np.zeros(1, np.float32)))
    h = e.value.hazard
    assert h.order == racecheck.RUN and h.first_line == h.second_line, str(e.value)
    ran_first = 3 if order == "reverse" else 0
    assert h.first_thread.thread_id == ran_first, (order, str(e.value))
    _assert_labels(h)


HELPER = '''
from numba import cuda, float32
T = 8


@cuda.jit(device=True)
def tile_dot(S, ty, tx):
    s = float32(0.0)
    for k in range(T):
        s += S[ty, k]          # <READ>
    return s
'''

KERNEL = '''
from numba import cuda, float32
from {helper} import tile_dot, T


@cuda.jit
def kernel(A, out):
    S = cuda.shared.array((T, T), float32)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    acc = float32(0.0)
    for kt in range(A.shape[1] // T):
        S[ty, tx] = A[ty, kt * T + tx]          # <STORE>
        {SYNC1}
        acc += tile_dot(S, ty, tx)              # <CALL>
        {SYNC2}
    out[ty, tx] = acc
'''


def _helper_case(tmp_path, sync1, sync2, tag):
    (tmp_path / f"helper_{tag}.py").write_text(HELPER)
    src = KERNEL.format(helper=f"helper_{tag}", SYNC1=sync1, SYNC2=sync2)
    path = tmp_path / f"student_{tag}.py"
    path.write_text(src)
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location(f"student_{tag}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(tmp_path))
    lines = {t: n for n, line in enumerate(src.splitlines(), 1) for t in re.findall(r"# <(\w+)>", line)}
    A = np.random.default_rng(0).standard_normal((8, 24)).astype(np.float32)
    return (lambda: mod.kernel[1, (8, 8)](A, np.zeros((8, 8), np.float32))), lines


@pytest.mark.parametrize("missing,kind", [("sync1", "RAW"), ("sync2", "WAR")])
def test_a_race_inside_a_helper_in_another_file_is_ordered_by_execution_and_named_at_the_students_line(
        missing, kind, tmp_path):
    S = "cuda.syncthreads()"
    run, lines = _helper_case(tmp_path, "pass" if missing == "sync1" else S, "pass" if missing == "sync2" else S,
                              missing)
    for order, seed in SCHEDULES:
        with pytest.raises(SharedMemoryRaceError) as e:
            _under(order, seed, run)
        h = e.value.hazard
        assert h.kind == kind, (order, str(e.value))
        helper_access = h.second_site if kind == "RAW" else h.first_site
        assert len(helper_access) == 5 and helper_access[4] == "tile_dot", helper_access
        assert h.second_line[1] if kind == "RAW" else h.first_line[1] == lines["CALL"]
        text = str(e.value)
        assert "이 줄에서 부른 도우미 `tile_dot`" in text and f"student_{missing}.py:{lines['CALL']}" in text, text
        store, call = lines["STORE"], lines["CALL"]
        if kind == "RAW":       # the store, then the helper's read: the barrier goes between the student's two lines
            assert f"{store}행과 {call}행 사이" in h.fix_ko, h.fix_ko
        else:                   # the helper's read, then the next iteration's store: at the end of the loop body
            assert "반복의 끝" in h.fix_ko and f"{store}행 앞" in h.fix_ko, h.fix_ko


# --------------------------------------------------------------------------- notebook cells as In [n]

def test_notebook_cells_are_named_as_ipython_numbers_them(tmp_path):
    from IPython.core.interactiveshell import InteractiveShell
    sh = InteractiveShell.instance()
    cells = [
        "from numba import cuda, float32\nimport numpy as np\n",
        "@cuda.jit\ndef k(out):\n    s = cuda.shared.array(32, float32)\n    t = cuda.threadIdx.x\n"
        "    s[t] = t\n    out[t] = s[(t + 1) % 32]\n",
        "from kernels_numba.infra.simulator import racecheck\nwith racecheck.collect() as rep:\n"
        "    k[1, 32](np.zeros(32, np.float32))\nTEXT = str(rep.hazards[0])\n",
    ]
    first = sh.execution_count
    for c in cells:
        r = sh.run_cell(c, store_history=True)
        assert r.error_in_exec is None, r.error_in_exec
    text = sh.user_ns["TEXT"]
    cell = first + 1                                    # the cell that defines the kernel
    assert f"셀 In [{cell}] 5행" in text and f"셀 In [{cell}] 6행" in text, text
    assert ".py:" not in text.split("\n  → 해결")[0], text           # no ipykernel file name


# --------------------------------------------------------------------------- interval numbers, per block

@cuda.jit
def _late_race(out):
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    s[t] = 1.0
    cuda.syncthreads()
    s[t] = 2.0
    cuda.syncthreads()
    if cuda.blockIdx.x == 1:
        s[t] = 3.0
        out[t] = s[(t + 1) % 32]          # a race in block 1, after two barriers


def test_interval_numbers_count_the_blocks_barriers():
    for _ in range(2):                    # the same number in a second launch
        with pytest.raises(SharedMemoryRaceError) as e:
            _late_race[2, 32](np.zeros(32, np.float32))
        assert e.value.hazard.interval == 2 and "배리어 구간 #3 (이 블록이 syncthreads 를 2번 지난 뒤)" in str(e.value)


# --------------------------------------------------------------------------- two copies of one thread

@cuda.jit
def _two_copies(A, out):
    S = cuda.shared.array(32, float32, alignment=16)
    t = cuda.threadIdx.x
    ptx.cp_async_ca_4(S, t, A, t)
    ptx.cp_async_ca_4(S, t, A, (t + 1) % 32)        # the same destination, other data, the first not waited for
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = S[t]


def test_two_pending_copies_of_one_thread_are_described_as_such():
    A = np.arange(32, dtype=np.float32)
    with pytest.raises(SharedMemoryRaceError) as e:
        _two_copies[1, 32](A, np.zeros(32, np.float32))
    h = e.value.hazard
    assert h.first_thread is h.second_thread and h.kind == "WAW"
    assert "같은 스레드" in h.fix_ko and "다른 스레드" not in h.fix_ko and "same thread" in h.en, str(e.value)


# --------------------------------------------------------------------------- other messages

@cuda.jit
def _negative(out):
    S = cuda.shared.array((4, 4), float32)
    t = cuda.threadIdx.x
    S[t, 0] = 1.0
    cuda.syncthreads()
    out[t] = S[t, t - 1]


def test_negative_index_message_says_what_numba_does_on_the_gpu():
    with pytest.raises(IndexError) as e:
        _negative[1, 4](np.zeros(4, np.float32))
    msg = str(e.value)
    assert "S[0, 3]" in msg and "wrap" in msg and "배열 밖이 아니라" in msg, msg


@cuda.jit
def _split_k(A, C):
    C[cuda.threadIdx.x] += A[cuda.blockIdx.x, cuda.threadIdx.x]


def test_global_report_names_both_blocks_lines_and_the_fix():
    with pytest.raises(GlobalMemoryRaceError) as e:
        _split_k[2, 8](np.ones((2, 8), np.float32), np.zeros(8, np.float32))
    text = str(e.value)
    for needle in ("전역 메모리 경쟁", "blockIdx 0", "blockIdx 1", "서로 다른 두 블록", "cuda.atomic.add",
                   "give each block its own slice", "test_race_reports.py:"):
        assert needle in text, (needle, text)


@cuda.jit
def _uninit(out):
    S = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    if t < 7:
        S[t] = 1.0
    cuda.syncthreads()
    m = float32(0.0)
    for i in range(8):
        m = max(m, S[i])          # S[7]'s NaN is absorbed by max: the answer is "right"
    out[t] = m


def test_uninitialised_read_is_reported_even_when_the_nan_disappears():
    out = np.zeros(8, np.float32)
    with racecheck.mode("off"):
        _uninit[1, 8](out)
    assert (out == 1).all()
    with pytest.raises(UninitializedReadError, match=r"S\[7\]"):
        _uninit[1, 8](np.zeros(8, np.float32))


def test_the_pointer_to_the_whole_report_works():
    from kernels_numba.demos import mma_barriers
    out = racereport.run_demo(mma_barriers.launch_no_trailing_barrier, 32, 16, 64, dtype=np.float16)
    text = out["report"].summary(0)
    pointer = re.search(r"모두 보기: (.+)\)$", text, re.M).group(1)
    assert pointer == "course.race_report().summary()"
    assert eval(pointer, {"course": course}) == out["report"].summary()


def test_exercise_results_carry_their_report(tmp_path):
    from course.exercises import check
    src = textwrap.dedent('''
        from numba import cuda, float32
        from kernels_numba.common import load_or_zero, store_c, thread_coords
        T8 = 8

        @cuda.jit
        def tiled8(A, B, C, alpha, beta):
            As = cuda.shared.array((T8, T8), float32)
            Bs = cuda.shared.array((T8, T8), float32)
            tx, ty, row, col = thread_coords(T8)
            acc = float32(0.0)
            for kt in range((A.shape[1] + T8 - 1) // T8):
                As[ty, tx] = load_or_zero(A, row, kt * T8 + tx)
                Bs[ty, tx] = load_or_zero(B, kt * T8 + ty, col)
                cuda.syncthreads()
                for k in range(T8):
                    acc += As[ty, k] * Bs[k, tx]
            store_c(C, row, col, acc, alpha, beta)
        ''')
    path = tmp_path / "student_tiled8.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("student_tiled8", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = check("06-2", mod.tiled8, save=False)
    assert not res.ok and res.report and "WAR" in res.report.kinds, str(res)
    assert "course.race_report()" not in str(res) or course.race_report() is res.report
