"""Every exercise: the blank template says "not implemented", the solution in answers/ passes, and each typical wrong
answer (tests/exercise_cases.py) gets its own diagnosis."""
import sys
from pathlib import Path

import pytest

from course import exercises
from course.exercises import core
from exercise_cases import CASES, import_source

ROOT = Path(__file__).resolve().parents[1]
ALL = core.catalog()


def _import(src, tmp_path):
    """Import source text as a module from a file (the simulator's race reports need real source lines)."""
    return import_source(src, tmp_path)


def _solution_src(ex):
    return (ROOT / ex.solution_file).read_text(encoding="utf-8")


def test_every_notebook_has_three_exercises_with_cases():
    by_nb = {}
    for ex in ALL:
        by_nb.setdefault(ex.id.split("-")[0], []).append(ex.id)
    assert sorted(by_nb) == list(core.NOTEBOOKS), by_nb
    assert all(3 <= len(v) <= 5 for v in by_nb.values()), by_nb
    for ex in ALL:
        assert len(CASES.get(ex.id, [])) >= 3, f"{ex.id}: at least three typical wrong answers"
        assert ex.template and ex.name and "NotImplementedError" in ex.template, ex.id


@pytest.mark.parametrize("ex", ALL, ids=lambda e: e.id)
def test_template_is_not_implemented(ex, tmp_path):
    mod = _import(ex.preamble + "\n" + ex.template + "\n", tmp_path)
    res = exercises.check(ex.id, getattr(mod, ex.name), save=False)
    assert not res.ok and res.code == "not_implemented", str(res)


@pytest.mark.parametrize("ex", ALL, ids=lambda e: e.id)
def test_solution_passes(ex, tmp_path):
    mod = _import(_solution_src(ex), tmp_path)
    res = exercises.check(ex.id, getattr(mod, ex.solution_name), save=False)
    assert res.ok and res.code == "pass", str(res)
    assert "PASS" in str(res)


@pytest.mark.parametrize("ex_id,label,edits,code",
                         [(k, lab, ed, c) for k, cases in CASES.items() for lab, ed, c in cases],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_wrong_answer_gets_its_diagnosis(ex_id, label, edits, code, tmp_path):
    from kernels_numba.infra import device
    if not device.SIMULATOR:
        pytest.skip("the diagnoses are the simulator's (race detector, NaN-filled shared memory, bounds and alignment "
                    "checks); on a GPU a wrong kernel may also leave the CUDA context unusable (error 700)")
    ex = core.get(ex_id)
    src = _solution_src(ex)
    for old, new in edits:
        assert old in src, f"{ex_id}/{label}: the edit no longer matches the solution: {old!r}"
        src = src.replace(old, new)
    mod = _import(src, tmp_path)
    res = exercises.check(ex_id, getattr(mod, ex.solution_name), save=False)
    assert not res.ok, f"{ex_id}/{label} passed"
    assert res.code == code, f"{ex_id}/{label}: {res.code} != {code}\n{res}"
    assert len(res.message) > 20 and "힌트" in str(res)


def test_unknown_exercise_is_a_clear_error():
    from kernels_numba.infra.errors import CourseInputError
    with pytest.raises(CourseInputError, match="06-9"):
        exercises.check("06-9", print)


def test_hints_go_two_levels_then_name_the_solution(capsys):
    for level in (1, 2, 3):
        exercises.hint("06-2", level)
    out = capsys.readouterr().out
    assert out.count("[06-2 힌트") == 3 and "answers/ch06/ex06_tile8.py" in out
    assert "answers/" not in out.split("[06-2 힌트 3]")[0]


def test_simulator_check_in_a_subprocess(tmp_path):
    """GPU mode checks a kernel on the simulator first, in a subprocess: a missing barrier is found there."""
    ex = core.get("06-2")
    src = _solution_src(ex)
    right = _import(src, tmp_path)
    wrong = _import(src.replace("        cuda.syncthreads()          # barrier 2", "        pass  # barrier 2"), tmp_path)
    res, why = core.simulate(ex, right.tiled8)
    assert why is None and res.ok, (res, why)
    res, why = core.simulate(ex, wrong.tiled8)
    assert why is None and not res.ok and res.code == "race" and "해결" in str(res), (res, why)


def test_the_simulator_copy_of_a_student_function_carries_the_globals_it_uses(tmp_path, monkeypatch):
    # on a GPU, check() first runs the student's function in a simulator subprocess from its source: names the
    # student imported or defined in earlier notebook cells (uint32, a constant, a helper) must come along
    import sys
    from course.exercises import core
    from course.ch09_cp_async import exercises as ex09  # noqa: F401  (registers 09-3)
    (tmp_path / "nb_cells.py").write_text(
        "import numpy as np\nfrom numba import cuda, uint32\nLANES = 4\n\n"
        "@cuda.jit(device=True)\ndef helper(x):\n    return x + LANES\n\n"
        "@cuda.jit(device=True)\ndef mine(S, stage, srow, scol, X, grow, gcol, rows, cols):\n"
        "    n = uint32(helper(0))\n    return np.float32(n)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import nb_cells
    for f in (nb_cells.helper, nb_cells.mine):                  # as if typed in a notebook cell: the function and,
        f.py_func.__module__ = "__main__"                            # on a GPU, the dispatcher (which copies the
        try:                                                         # function's __module__ when it is made)
            f.__module__ = "__main__"
        except (AttributeError, TypeError):
            pass
    src = core.student_module(core.EXERCISES["09-3"], nb_cells.mine)
    ns = {}
    exec(compile(src, "student_code.py", "exec"), ns)
    assert {"np", "uint32", "LANES", "helper", "my_copy16"} <= set(ns)
    assert ns["LANES"] == 4 and ns["uint32"] is nb_cells.uint32 and ns["np"] is nb_cells.np
    assert "def helper" in src                                       # copied from the notebook, with its own LANES
    sys.modules.pop("nb_cells", None)


def test_an_exception_in_a_kernel_keeps_the_shape_it_ran_on(tmp_path):
    # the ordinary failures start with the (M, N, K) line; an exception inside the student's kernel keeps it too
    ex = core.get("06-2")
    src = _solution_src(ex).replace("As[ty, tx] = load_or_zero(A, row, t * T8 + tx)",
                                    "As[ty, tx + 1] = load_or_zero(A, row, t * T8 + tx)")
    res = exercises.check("06-2", getattr(_import(src, tmp_path), ex.solution_name), save=False)
    assert res.code == "out_of_bounds" and "(M, N, K) = (12, 11, 13)" in str(res) and "행" in res.where, str(res)


def test_a_negative_global_index_is_named_at_its_line(tmp_path):
    # numpy (under the simulator) and Numba on the GPU both wrap A[-1, ...] to the last row (a wrong answer with no
    # word); the checker names the negative index at its line instead
    ex = core.get("10-5")
    src = _solution_src(ex).replace("copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane)",
                                    "copy_tiles(A, B, As, Bs, tile_m - 1, tile_n, k0, lane)")
    res = exercises.check("10-5", getattr(_import(src, tmp_path), ex.solution_name), save=False)
    assert not res.ok and res.code == "out_of_bounds" and "음수 인덱스" in str(res), str(res)


def test_the_model_call_message_names_the_split_of_the_lane_each_exercise_uses():
    """10-1..10-3 build fragments from groupID/threadID_in_group (lane >> 2, lane % 4); 10-4's ldmatrix rows are 8j + r
    (lane % 16, lane // 16): calling sim/mma.py gets the hint of its own exercise."""
    from course.ch10_tensor_core import exercises as ex10

    def a_frag(lane):
        from sim import mma
        return mma.a_elements(lane)

    def rows(lane):
        from sim import mma
        return mma.ldmatrix_for_mma()["A"][lane], mma.ldmatrix_for_mma()["B"][lane]

    for ex_id, fn, want, not_want in (("10-2", a_frag, "lane >> 2, lane % 4", "lane % 16"),
                                      ("10-4", rows, "lane % 16, lane // 16", "lane >> 2")):
        res = exercises.check(ex_id, fn, save=False)
        assert res.code == "uses_model" and want in res.message and not_want not in res.message, (ex_id, res.message)
    assert all(core.get(k) for k in ex10._FROM_LANE)


def test_06_1_bool_list_is_named():
    """A True/False per p (not the p values) is told so, not read as p = 0 and 1 (bool is an int in Python)."""
    import importlib
    sol = importlib.import_module("answers.ch06.ex06_padding")
    res = exercises.check("06-1", lambda max_pad=4: [sol.wavefronts(p) == (1, 1) for p in range(max_pad + 1)],
                          save=False)
    assert not res.ok and res.code == "input" and "True/False" in res.message, str(res)
    res = exercises.check("06-1", lambda max_pad=4: [True, 2], save=False)        # a bool among ints: also input
    assert not res.ok and res.code == "input", str(res)


def test_06_1_names_max_pad():
    """range(max_pad) leaves out p = max_pad: the diagnosis says that p is max_pad itself."""
    from sim import banks  # noqa: F401

    def pads(max_pad=4):
        import importlib
        sol = importlib.import_module("answers.ch06.ex06_padding")
        return [p for p in range(max_pad) if sol.wavefronts(p) == (1, 1)]
    res = exercises.check("06-1", pads, save=False)
    assert res.code == "missing_pad" and "range(max_pad + 1)" in res.message, str(res)


def test_06_1_a_fixed_list_is_not_told_about_the_range():
    """An answer that ignores max_pad (a fixed list, right for the first pads, review round 14 M-1) misses max_pad too,
    but has no range to fix: the diagnosis says to count each p, not to change a range."""
    res = exercises.check("06-1", lambda max_pad: [0], save=False)
    assert res.code == "missing_pad" and "range(max_pad + 1)" not in res.message, str(res)
    assert "따르지 않습니다" in res.message and "banks.analyze" in res.message, str(res)


def test_06_3_calling_the_given_load_or_zero_does_not_pass(tmp_path):
    """Review r18 M-1: 06-2's shipped load_or_zero is still imported when the student writes 06-3; an answer that only
    calls it (the reviewer's `return load_or_zero(X, r, c)`) is told to write the check, with its line. An answer in
    the same namespace that writes the comparison itself passes."""
    head = "from numba import cuda, float32\nfrom kernels_numba.common import load_or_zero\n\n@cuda.jit(device=True)\n"
    mod = import_source(head + "def my_load_or_zero(X, r, c):\n    return load_or_zero(X, r, c)\n", tmp_path)
    res = exercises.check("06-3", mod.my_load_or_zero, save=False)
    assert res.code == "shipped_helper" and "X.shape[0]" in res.message, str(res)
    assert any("return load_or_zero(X, r, c)" in d for d in res.details), str(res)
    mod = import_source(head + "def my_load_or_zero(X, r, c):\n    if r < X.shape[0] and c < X.shape[1]:\n"
                        "        return X[r, c]\n    return float32(0.0)\n", tmp_path)
    assert exercises.check("06-3", mod.my_load_or_zero, save=False).ok


def test_06_2_a_k_tile_added_twice_names_the_tile_offset_not_a_buffer(tmp_path):
    """Review r18 I-2: 06-2 has one buffer, so a kernel that always loads tile 0 is pointed at the t·8 of its
    load_or_zero calls; the pipelined chapters keep 'buffer number' (diagnose.RECOMPUTED is the default)."""
    from course.exercises import diagnose
    src = (Path(__file__).resolve().parents[1] / "answers" / "ch06" / "ex06_tile8.py").read_text(encoding="utf-8")
    src = src.replace("load_or_zero(A, row, t * T8 + tx)", "load_or_zero(A, row, tx)") \
             .replace("load_or_zero(B, t * T8 + ty, col)", "load_or_zero(B, ty, col)")
    res = exercises.check("06-2", import_source(src, tmp_path).tiled8, save=False)
    assert res.code == "k_tile_counts" and "t·8" in res.message and "버퍼" not in res.message, str(res)
    assert "버퍼 번호" in diagnose.RECOMPUTED


def test_07_4_the_register_limit_is_not_the_tables_blocks_per_sm():
    """07-4 asks for the register limit, the §3.5 table's '레지스터 한도' column (review r19 M-1): a right answer that
    gives 32 blocks at 8 registers, 256 threads passes although the table's 'SM당' column says 8; an answer capped by
    the warp or block slots (the table's 'SM당' column) is told which column to follow."""
    import importlib
    from course.ch07_register_blocking import lesson as L7
    sol = importlib.import_module("answers.ch07.ex07_occupancy").register_limited_blocks
    steps = L7.register_steps("H100", 256)["runs"]
    assert sol(8, 256) == steps[0][2] == 32 and steps[0][3] == 8        # register column 32, blocks per SM 8

    def right(regs, threads):                   # a right answer of another shape: count the warps that fit, one by one
        warps, per_warp = -(-threads // 32), -(-regs // 8) * 8 * 32
        if per_warp * (-(-warps // 4) * 4) > 65536:
            return 0
        fit = sum(16384 // per_warp for _ in range(4))
        return fit // warps
    res = exercises.check("07-4", right, save=False)
    assert res.ok and res.code == "pass", str(res)
    for capped in (lambda r, t: min(sol(r, t), 64 // -(-t // 32)), lambda r, t: min(sol(r, t), 32)):
        res = exercises.check("07-4", capped, save=False)
        assert not res.ok and res.code == "other_limits", str(res)
        assert "'레지스터 한도' 열" in res.message and "레지스터 8개면 레지스터 한도 32블록, SM당 8블록" in res.message, str(res)
    res = exercises.check("07-4", lambda r, t: sol(r, t) + 1, save=False)
    assert res.code == "mismatch" and "'레지스터 한도' 열" in str(res) and "256 스레드 블록만" in str(res), str(res)


def test_07_4_a_block_counted_in_threads_is_told_to_count_whole_warps():
    """Review r21 I-3: right allocation unit and sub-partitions but the SM's threads divided by the block's threads
    (a 33-thread block takes 2 whole warps) agrees with the 256-thread table everywhere: the diagnosis names the block's
    warps, not that table."""
    def threads_not_warps(regs, threads):
        per_warp = -(-regs * 32 // 256) * 256
        return (16384 // per_warp) * 4 * 32 // threads
    res = exercises.check("07-4", threads_not_warps, save=False)
    assert not res.ok and res.code == "block_threads", str(res)
    assert "워프 2개" in res.message and "계단 표" not in str(res), str(res)


def test_07_1_overlap_says_a_barrier_is_not_the_fix(tmp_path):
    """07-1's kernel is the checker's: under the detector's WAW report the diagnosis says the map, not a barrier, is the
    fix (review r19 I-2), as 07-2's overlap does, and 07-2 says it once."""
    from kernels_numba.infra import device
    if not device.SIMULATOR:
        pytest.skip("the race report is the simulator's")
    ex = core.get("07-1")
    src = _solution_src(ex).replace("thread_row = ty * TM ", "thread_row = ty ").replace("thread_col = tx * TN ",
                                                                                         "thread_col = tx ")
    res = exercises.check("07-1", getattr(_import(src, tmp_path), ex.solution_name), save=False)
    assert res.code == "overlap" and "WAW" in str(res) and "배리어로 고칠 문제가 아닙니다" in str(res), str(res)
    ex = core.get("07-2")
    src = _solution_src(ex).replace("return tid // cols + p * stride, tid % cols", "return tid // cols + p, tid % cols")
    res = exercises.check("07-2", getattr(_import(src, tmp_path), ex.solution_name), save=False)
    assert res.code == "overlap" and str(res).count("배리어로 고칠") == 1, str(res)


def test_06_1_wrong_index_is_told_which_indices_to_count():
    """Both accesses counted but the store at As[tx][ty] (review r19 I-3): the diagnosis names the indices to use."""
    from sim import banks

    def pads(max_pad=4):
        out = []
        for p in range(max_pad + 1):
            layout = banks.Layout((16, 16), pad=p)
            st = banks.analyze(layout, lambda x, y, z: (x, y), (16, 16), kind="store")
            ld = banks.analyze(layout, lambda x, y, z: (y, 0), (16, 16), kind="load")
            if max(r.wavefronts for r in st) == max(r.wavefronts for r in ld) == 1:
                out.append(p)
        return out
    res = exercises.check("06-1", pads, save=False)
    assert res.code == "extra_pad" and "`As[ty][tx]`" in res.message and "`As[ty][k]`" in res.message, str(res)


def _notebook_cells(*cells, first=7):
    """Run code as consecutive notebook cells In [first], In [first+1], ... (IPython's way: a file name per cell, its
    text in linecache, __name__ == '__main__'); returns the namespace and the cells' file names."""
    import linecache
    from kernels_numba.infra.simulator import state
    ns, names = {"__name__": "__main__"}, []
    for n, code in enumerate(cells, start=first):
        name = f"/tmp/ipykernel_0/cell{n}_{abs(hash(code))}.py"             # not a file: as IPython's cells
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        state.name_cell(name, f"In [{n}]")
        exec(compile(code, name, "exec"), ns)
        names.append(name)
    return ns, names


def test_the_simulator_subprocess_names_the_students_cells_and_lines():
    # review r22 M-1: on a GPU, check() runs the student's kernel on the simulator in a subprocess first; its race
    # report must name the notebook's cells and lines (as the in-process simulator does), not those of the module the
    # subprocess was given. The preamble's helper (tile_dot) is named at its own cell too.
    ex = core.get("08-2")
    sol = _solution_src(ex)
    body = sol[sol.index("@cuda.jit\ndef db8"):sol.index("\n\ndef run")].replace("def db8", "def my_db8")
    body = body.replace("        cuda.syncthreads()          # next iteration", "        pass  # next iteration")
    ns, (pre, cell) = _notebook_cells(ex.preamble + "\n", body + "\n")
    res, why = core.simulate(ex, ns["my_db8"])                  # the subprocess path (_gpu_check calls it on a GPU)
    assert why is None and res.code == "race", (res, why)
    lines = body.splitlines()
    compute = 1 + next(i for i, s in enumerate(lines) if "acc += tile_dot(As, Bs, kt % 2" in s)
    store = 1 + next(i for i, s in enumerate(lines) if s.strip().startswith("As[(kt + 1) % 2"))
    helper = 1 + next(i for i, s in enumerate(ex.preamble.splitlines()) if "s += As[buf" in s)
    text = str(res)
    assert "student_code" not in text + res.where, text
    assert f"셀 In [8] {compute}행 ↔ 셀 In [8] {store}행" in text, text
    assert f"{compute}행과 {store}행 사이에" in text and f"도우미 `tile_dot` 안: 셀 In [7] {helper}행" in text, text
    assert res.where.startswith(f"{store}행 `As[(kt + 1) % 2"), res.where


def _fresh_kernel(*cells):
    """Run cells in a fresh interpreter without a GPU (CUDA_VISIBLE_DEVICES="" hides any; no device variables): a
    notebook kernel just restarted, whose student jumps to an exercise without the notebook's first cell."""
    import os
    import subprocess
    code = "ns = {'__name__': '__main__'}\n" + "".join(f"exec({c!r}, ns)\n" for c in cells)
    env = {k: v for k, v in os.environ.items() if k not in ("SGEMM_DEVICE", "NUMBA_ENABLE_CUDASIM")}
    env.update(CUDA_VISIBLE_DEVICES="", PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)


def test_an_exercise_run_first_after_a_restart_picks_the_simulator_or_says_what_to_do():
    # review r22 W-1: the exercise's set-up cell used to import numba before the course; after a restart, without a
    # GPU, the device choice said "gpu" and a right answer failed at driver init. Now the set-up cell (every exercise's:
    # core.exercise refuses one that imports numba first) picks the simulator, and a student's own numba-first cell
    # gets a clear refusal instead of a wrong device.
    ex = core.get("08-2")
    sol = _solution_src(ex)
    kernel = sol[sol.index("@cuda.jit\ndef db8"):sol.index("\n\ndef run")].replace("def db8", "def my_db8")
    check = ("from course.exercises import check\nfrom kernels_numba.infra import device\n"
             "r = check('08-2', my_db8, save=False)\nprint('MODE', device.MODE, r.ok, r.code)\nprint(r)\n")
    out = _fresh_kernel(ex.preamble, kernel, check)
    assert out.returncode == 0 and "MODE sim True pass" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]
    old_cell = ex.preamble.split("\n", 1)[1]                    # the set-up cell as it was: numba first
    assert old_cell.startswith("from numba import cuda")
    out = _fresh_kernel(old_cell, kernel, check)
    assert out.returncode != 0 and "CudaSupportError" not in out.stdout + out.stderr
    assert "DeviceChoiceError" in out.stderr and "numba.cuda 가 이 강좌의 패키지" in out.stderr and "첫 셀" in out.stderr, \
        out.stderr[-2000:]


def test_no_exercise_cell_imports_numba_before_the_course():
    # every set-up and template cell of every notebook (06-11) lets the course pick the device first
    for ex in ALL:
        for cell in (ex.preamble, ex.template):
            assert core.numba_before_course(cell) is None, (ex.id, cell)
    assert core.numba_before_course("from numba import cuda\nimport course\n") == "line 1: `from numba import cuda`"
    assert core.numba_before_course("import numpy as np\nfrom kernels_numba import common\nfrom numba import cuda\n") is None
    with pytest.raises(ValueError, match="imports numba before the course"):
        core.exercise("06-9", "t", "s", ("a", "b"), "answers/ch06/x.py", preamble="from numba import cuda")(lambda s: s)


def test_a_wrong_buffer_number_comes_before_the_detectors_per_race_suggestions(tmp_path):
    # review r22 I-3: prefetching into the buffer being computed; the detector's per-race advice (a wait covering the
    # copy) would compute the wrong tile, so the checker says first to fix the buffer number
    ex = core.get("09-1")
    src = _solution_src(ex).replace("issue_tile(A, B, As, Bs, (kt + S3 - 1) % S3,", "issue_tile(A, B, As, Bs, kt % S3,")
    res = exercises.check("09-1", getattr(_import(src, tmp_path), ex.solution_name), save=False)
    text = str(res)
    assert res.code == "overwrite_stage" and "경쟁 검출기 보고" in text, text
    assert text.index("먼저 위의 진단(버퍼 번호)을 고치고") < text.index("경쟁 검출기 보고"), text


def _edited(ex_id, edits, tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    ex = core.get(ex_id)
    src = _solution_src(ex)
    for old, new in edits:
        assert old in src, old
        src = src.replace(old, new)
    return exercises.check(ex_id, getattr(_import(src, tmp_path), ex.solution_name), save=False)


def test_06_2_writing_the_input_a_is_a_global_race_fixed_by_deleting_the_write(tmp_path):
    # review r25 U4: the headline said shared memory and the fix said atomics; the probe's index check showed as a
    # helper `setitem` in probe.py
    res = _edited("06-2", [("    store_c(C, row, col, acc, alpha, beta)",
                            "    if row < A.shape[0] and col < A.shape[1]:\n        A[row, col] = float32(0.0)\n"
                            "    store_c(C, row, col, acc, alpha, beta)")], tmp_path)
    text = str(res)
    assert res.code == "race" and res.message.startswith("전역 메모리 경쟁"), text
    assert "입력 행렬 A에" in res.message and "지우세요" in res.message and "A[row, col] = float32(0.0)" in res.where, text
    assert "probe.py" not in text and "`setitem`" not in text and "`getitem`" not in text, text


def test_08_2_a_race_in_tile_dot_points_at_the_students_calling_line(tmp_path):
    # review r25 U6: `where` was tile_dot's line in the preamble (`s += As[buf, ty, k] ...`), not the student's line
    # that called it
    compute = "        acc += tile_dot(As, Bs, kt % 2, ty, tx)       # 2. compute tile kt while the loads are on their way"
    res = _edited("08-2", [(compute, compute + "\n        cuda.syncthreads()"),
                           ("        cuda.syncthreads()          # next iteration", "        pass  # next iteration")],
                  tmp_path)
    assert res.code == "race" and "tile_dot(As, Bs" in res.where and "s +=" not in res.where, str(res)


def test_08_2_store_into_current_warns_off_the_detectors_barrier_advice(tmp_path):
    # review r25 U5: the detector's "put a barrier between 25 and 26" contradicted the headline
    res = _edited("08-2", [("As[(kt + 1) % 2, ty, tx] = a", "As[kt % 2, ty, tx] = a"),
                           ("Bs[(kt + 1) % 2, ty, tx] = b", "Bs[kt % 2, ty, tx] = b")], tmp_path)
    text = str(res)
    assert res.code == "store_into_current", text
    assert text.index("검출기의 줄별 제안(배리어 추가)을 따르지 말고") < text.index("distinct hazard"), text


def test_messages_of_review_25(tmp_path):
    # U1, U3, U7, U10: the message names the cause
    res = _edited("07-3", [("rC[m, n] += rA[m] * rB[n]", "rC[m, n] += rA[n] * rB[n]")], tmp_path)
    assert "threadIdx" not in res.message and "rA" in res.message, str(res)
    res = _edited("07-3", [("        for m in range(TM):                    # TM + TN loads feed TM * TN multiply-adds\n"
                            "            for n in range(TN):\n                rC[m, n] += rA[m] * rB[n]",
                            "        for m in range(TN):\n            for n in range(TM):\n"
                            "                rC[m, n] += rA[n] * rB[m]")], tmp_path / "b")
    assert "rC" in res.message and "TM×TN" in res.message, str(res)
    res = _edited("08-1", [("nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None",
                            "nxt if nxt < n_tiles else -1, nxt % stages if nxt < n_tiles else -1")], tmp_path / "c")
    assert "None 으로 나타냅니다" in res.message and "행렬 밖" not in res.message, str(res)
    res = _edited("08-3", [("return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)",
                            "return double_total(t_load, t_comp, n_tiles), single_total(t_load, t_comp, n_tiles)")],
                  tmp_path / "d")
    assert res.code == "swapped" and "순서가 바뀌었습니다" in res.message, str(res)
