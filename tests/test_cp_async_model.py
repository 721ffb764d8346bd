"""sim.cp_async: group semantics, the pipeline trace, and the loop sandbox (presets read from the real kernels' source,
buggy compositions, and the model's verdicts against the simulator's race detector on kernels built from them)."""
import ast
import itertools
from pathlib import Path

import numpy as np
import pytest

from sim import cp_async
from sim.cp_async import PRESETS, AsyncCopyUnit, LoopSpec, first_unsafe_tile, loop_code, pipeline_trace, run_loop

ROOT = Path(__file__).resolve().parents[1]


def test_wait_group_completes_oldest_first():
    u = AsyncCopyUnit()
    for g in range(3):
        u.issue(g)
        u.commit()
    assert u.pending_groups == [0, 1, 2]
    assert u.wait_group(2) == [0] and u.pending_groups == [1, 2]
    assert u.wait_group(2) == []                       # already at most 2 pending: returns at once
    assert u.wait_group(0) == [1, 2] and u.pending_groups == []


def test_uncommitted_copies_are_not_waited_for():
    u = AsyncCopyUnit()
    u.issue("x")
    assert u.wait_group(0) == [] and u.uncommitted == ["x"]
    assert u.wait_all() == ["x"]


def test_empty_group_counts():
    u = AsyncCopyUnit()
    u.commit()
    u.issue("a")
    u.commit()
    assert u.pending_groups == [0, 1] and u.wait_group(1) == []      # the empty group was the oldest


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("tiles", [1, 2, 3, 4, 5, 8])
def test_empty_commit_tail_is_safe_seed_tail_is_not(stages, tiles):
    assert pipeline_trace(stages, tiles, "empty_commit").ok
    assert pipeline_trace(stages, tiles, "wait_all_tail").ok
    # the seed commits nothing in its last NUM_STAGES-1 iterations: the first of them is unguarded
    assert first_unsafe_tile(stages, tiles, "common") == max(0, tiles - (stages - 1))


def test_seed_six_iterations_match_the_text():
    """kt = 0..5 of the seed's 8-tile trace: wait_group(2) leaves {G(kt+1), G(kt+2)} pending, buffer kt%3 computed."""
    tr = pipeline_trace(3, 8, "common")
    waits = [s for s in tr.steps if s.action.startswith("wait_group")]
    for kt in range(6):
        assert waits[kt].pending == [kt + 1, kt + 2]
    computes = [s for s in tr.steps if "계산" in s.action]
    assert [next(b for b, (st, _) in enumerate(s.buffers) if st == cp_async.COMPUTING) for s in computes] == \
        [kt % 3 for kt in range(8)]
    assert [s.kt for s in tr.errors] == [6, 7]


def test_bad_arguments():
    for args in [(1, 4), (3, 0), (3, 2.5)]:
        with pytest.raises(ValueError):
            pipeline_trace(*args)
    with pytest.raises(ValueError):
        pipeline_trace(3, 4, "nope")


# ------------------------------------------------------------------------------------------ the sandbox's presets

def kernel_loop(path, stages):
    """LoopSpec of the K loop in a kernel file, read from its syntax tree: the top-level statements of
    `for kt in range(num_k_tiles)` in order, the wait's N evaluated with NUM_STAGES = stages, the tail rule from
    whether commit sits inside the `if nxt < num_k_tiles` (prologue: inside `if s < num_k_tiles`)."""
    tree = ast.parse(Path(ROOT, path).read_text(encoding="utf-8"))
    env = {"NUM_STAGES": stages, "kt": 0}
    for node in ast.walk(tree):                # WAIT_N = NUM_STAGES - 2 and the like
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                env.setdefault(node.targets[0].id, eval(ast.unparse(node.value), {}, dict(env)))
            except Exception:
                pass
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)]
    pro = next(n for n in loops if n.target.id in ("s", "p"))
    loop = next(n for n in loops if n.target.id == "kt")

    def calls(node):
        return {ast.unparse(c.func).split(".")[-1] for c in ast.walk(node) if isinstance(c, ast.Call)}

    def shared(node):
        return any(isinstance(n, ast.Name) and n.id in ("As", "Bs") for n in ast.walk(node))

    order, wait_n, tails, ahead = [], None, set(), None
    for st in loop.body:
        names = calls(st)
        if isinstance(st, ast.Assign) and ast.unparse(st.targets[0]) == "nxt":
            ahead = eval(ast.unparse(st.value), {}, dict(env))
        elif isinstance(st, ast.If) and "nxt" in ast.unparse(st.test):
            order.append("prefetch")
            if "cp_async_commit_group" in names:
                order.append("commit")
                tails.add("load_only")
        elif "cp_async_wait_group" in names:
            order.append("wait")
            wait_n = eval(ast.unparse(next(c for c in ast.walk(st) if isinstance(c, ast.Call)).args[0]), {}, env)
        elif "syncthreads" in names:
            order.append("barrier")
        elif "cp_async_commit_group" in names:
            order.append("commit")
            tails.add("always")
        elif shared(st) and not isinstance(st, ast.Assign) and order[-1:] != ["compute"]:
            order.append("compute")
    pro_if = next(n for n in pro.body if isinstance(n, ast.If))
    tails.add("load_only" if "cp_async_commit_group" in calls(pro_if) else "always")
    assert len(tails) == 1, tails                       # prologue and loop follow one rule
    return LoopSpec(tuple(order), wait_n, stages, tails.pop(), ahead)


def test_presets_are_what_the_kernels_do():
    for key, preset in PRESETS.items():
        assert kernel_loop(preset.kernel, preset.spec.stages) == preset.spec, key
    assert "async_vec" in PRESETS["async_vec"].label and "async_copy" in PRESETS["async_copy"].label
    assert "async_common_tail" in PRESETS["common"].label


@pytest.mark.parametrize("path,stages", [("kernels_numba/async_vec.py", 2), ("kernels_numba/async_vec.py", 4),
                                         ("kernels_numba/async_bk16.py", 3), ("kernels_numba/async_wide.py", 3)])
def test_the_other_level5_kernels_follow_async_vec(path, stages):
    vec = PRESETS["async_vec"].spec
    assert kernel_loop(path, stages) == LoopSpec(vec.order, stages - 2, stages, vec.tail)
    assert run_loop(kernel_loop(path, stages), 7).ok


@pytest.mark.parametrize("tiles", [1, 2, 3, 5, 8])
def test_correct_presets_have_no_hazard(tiles):
    for key in ("async_copy", "async_vec"):
        run = run_loop(PRESETS[key].spec, tiles)
        assert run.ok, [str(h) for h in run.hazards]
        # nothing is in flight any more when the last tile is computed; S-1 tiles overlap a compute in the middle
        assert run.in_flight[tiles - 1] == []
    assert max(len(v) for v in run_loop(PRESETS["async_vec"].spec, 8).in_flight.values()) == 2


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("tiles", [1, 2, 3, 4, 5, 8])
def test_seed_preset_agrees_with_the_pipeline_trace(stages, tiles):
    seed = PRESETS["common"].spec
    run = run_loop(LoopSpec(seed.order, stages - 1, stages, "load_only"), tiles)
    assert [h.kt for h in run.hazards] == [s.kt for s in pipeline_trace(stages, tiles, "common").errors]
    assert {h.cause for h in run.hazards} <= {"tail"} and {h.kind for h in run.hazards} <= {"IN_FLIGHT"}
    assert run_loop(LoopSpec(seed.order, stages - 1, stages, "wait0_tail"), tiles).ok


def test_seed_preset_names_kt_stage_steps_and_fix():
    h6, h7 = run_loop(PRESETS["common"].spec, 8).hazards
    assert (h6.kt, h6.stage, h6.tile, h6.steps) == (6, 0, 6, ((4, "prefetch"), (6, "compute")))
    assert (h7.kt, h7.stage) == (7, 1)
    assert "빈 그룹" in h6.fix and "kt=6 버퍼 0" in str(h6) and "미리 읽기(kt=4)" in str(h6)


def test_pending_groups_per_step():
    run = run_loop(PRESETS["async_vec"].spec, 4)
    wait0 = next(e for e in run.of(0) if e.step == "wait")
    assert wait0.pending == [(1, [1])]                 # G0 (tile 0) done, G1 (tile 1) still in flight
    commits = [e for e in run.events if e.step == "commit"]
    assert [e.pending[-1] for e in commits] == [(2, [2]), (3, [3]), (4, []), (5, [])]    # empty groups in the tail
    assert "빈 그룹" in commits[-1].text


# ------------------------------------------------------------------------------------------ buggy compositions

SEED_ORDER = ("prefetch", "commit", "wait", "barrier", "compute", "barrier")
VEC_ORDER = ("wait", "barrier", "prefetch", "commit", "compute")

BUGGY = {   # name: (spec, {cause: kts} the model must report, 6 tiles)
    "vec_order_with_copy_wait": (LoopSpec(VEC_ORDER, 2, 3), {"wait_too_large": [0, 1, 2, 3, 4, 5]}),
    "no_barrier_after_wait": (LoopSpec(SEED_ORDER[:3] + SEED_ORDER[4:], 2, 3),
                              {"no_barrier_after_wait": [0, 1, 2, 3, 4, 5]}),
    "barrier_before_wait": (LoopSpec(("prefetch", "commit", "barrier", "wait", "compute", "barrier"), 2, 3),
                            {"no_barrier_after_wait": [0, 1, 2, 3, 4, 5]}),
    "no_trailing_barrier": (LoopSpec(SEED_ORDER[:5], 2, 3), {"war": [1, 2, 3]}),
    "vec_prefetch_before_barrier": (LoopSpec(("wait", "prefetch", "commit", "barrier", "compute"), 1, 3),
                                    {"war": [1, 2, 3]}),
    "no_wait": (LoopSpec(("prefetch", "commit", "barrier", "compute", "barrier"), 2, 3),
                {"no_wait": [0, 1, 2, 3, 4, 5], "overwrite_pending": [1, 2, 3]}),
    "no_commit": (LoopSpec(("prefetch", "wait", "barrier", "compute", "barrier"), 2, 3),
                  {"no_commit": [0, 1, 2, 3, 4, 5], "overwrite_pending": [1, 2, 3]}),
    "wait_after_compute": (LoopSpec(("prefetch", "commit", "barrier", "compute", "wait", "barrier"), 0, 3),
                           {"wait_after_compute": [0]}),
    "seed_tail": (PRESETS["common"].spec, {"tail": [4, 5]}),
    "prefetch_s_ahead": (LoopSpec(SEED_ORDER, 3, 3, ahead=3),
                         {"overwrite_pending": [0, 1, 2], "overwritten": [0, 1, 2]}),
    "single_buffer_prefetch_next": (LoopSpec(("wait",) + VEC_ORDER[1:] + ("barrier",), 0, 1, ahead=1),   # racecases
                                    {"overwritten": [0, 1, 2, 3, 4]}),
    "prefetch_too_far_in_the_prologue": (LoopSpec(SEED_ORDER, 0, 2, ahead=4),
                                         {"overwrite_pending": [-1, 0], "wrong_tile": [0, 1, 2, 3]}),
    "single_stage_compute_first": (LoopSpec(("compute", "barrier", "prefetch", "commit", "wait", "barrier"), 0, 1),
                                   {"not_copied": [0], "wrong_tile": [1, 2, 3, 4, 5]}),
}


@pytest.mark.parametrize("name", BUGGY)
def test_buggy_composition_reports_its_hazard(name):
    spec, causes = BUGGY[name]
    run = run_loop(spec, 6)
    assert run.causes() == causes
    for h in run.hazards:
        (k1, _), (k2, _) = h.steps
        assert k1 <= k2 == h.kt or h.cause == "war"
        assert 0 <= h.stage < spec.stages and h.fix.endswith(".") and h.title == cp_async.TITLES[h.cause]
        assert any(w in h.fix for w in ("wait", "commit", "__syncthreads()", "미리 읽기")), h.fix   # names a step


def test_fixes_name_the_right_n():
    h = run_loop(BUGGY["vec_order_with_copy_wait"][0], 6).hazards[0]
    assert "wait_group 1 입니다" in h.fix and h.kind == "IN_FLIGHT"
    h = run_loop(LoopSpec(SEED_ORDER, 3, 3), 6).hazards[0]         # async_copy's order waiting one group too few
    assert h.cause == "wait_too_large" and "wait_group 2 입니다" in h.fix


def test_wait_zero_is_safe_but_overlaps_nothing():
    run = run_loop(LoopSpec(SEED_ORDER, 0, 3), 6)
    assert run.ok and all(v == [] for v in run.in_flight.values())


@pytest.mark.parametrize("bad", [dict(order=("compute", "compute"), wait_n=0, stages=2),
                                 dict(order=("prefetch", "wait"), wait_n=0, stages=2),
                                 dict(order=("fetch", "compute"), wait_n=0, stages=2),
                                 dict(order=("compute",), wait_n=4, stages=2),
                                 dict(order=("compute",), wait_n=0, stages=0),
                                 dict(order=("compute",), wait_n=0, stages=2, tail="common")])
def test_bad_specs_are_course_input_errors(bad):
    from kernels_numba.infra.errors import CourseInputError
    with pytest.raises(CourseInputError) as e:
        LoopSpec(**bad)
    assert "해결" in str(e.value) and "Fix" in str(e.value)


def test_loop_code_shows_the_composition():
    code = "\n".join(loop_code(PRESETS["async_vec"].spec))
    assert code.index("cp_async_wait_group(1)") < code.index("cuda.syncthreads()") < code.index("issue_tile(nxt")
    inside = "if nxt < num_k_tiles:\n        cp_async_commit_group()"      # commit only with a load
    assert "    cp_async_commit_group()" in code and inside not in code
    assert inside in "\n".join(loop_code(PRESETS["common"].spec))


# ------------------------------------------------------------------------------ against the real race detector

T = 8
KERNEL = '''
from numba import cuda, float32
from kernels_numba.infra import ptx
T = {T}
S = {S}
D = {D}


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((S, T, T), float32, alignment=16)
    Bs = cuda.shared.array((S, T, T), float32, alignment=16)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bm = cuda.blockIdx.y * T
    bn = cuda.blockIdx.x * T
    acc = float32(0.0)
    nk = A.shape[1] // T
    for p in range(D):
        if p < nk:
            ptx.cp_async_ca_4(As, p % S, ty, tx, A, bm + ty, p * T + tx)  # <P_A>
            ptx.cp_async_ca_4(Bs, p % S, ty, tx, B, p * T + ty, bn + tx)  # <P_B>
{PCOMMIT}
    for kt in range(nk):
        nxt = kt + D
{BODY}
    C[bm + ty, bn + tx] = acc
'''


class SpecCase:
    """A kernel built from a LoopSpec (4-byte cp.async, T x T threads, each thread reads others' elements)."""
    template = "spec"

    def __init__(self, name, spec, tiles):
        self.name, self.spec, self.tiles = name, spec, tiles

    def source(self):
        s = self.spec
        cond = s.tail != "always"
        commit = "ptx.cp_async_commit_group()"
        pcommit = f"            {commit}" if cond else f"        {commit}"
        body = []
        for i, step in enumerate(s.order):
            if step == "wait":
                w = f"ptx.cp_async_wait_group_{s.wait_n}()  # <WAIT>"
                body += ([f"if nxt < nk:", f"    {w}", "else:", "    ptx.cp_async_wait_group_0()  # <WAIT0>"]
                         if s.tail == "wait0_tail" else [w])
            elif step == "barrier":
                body.append(f"cuda.syncthreads()  # <SYNC{i}>")
            elif step == "prefetch":
                body += ["if nxt < nk:",
                         "    ptx.cp_async_ca_4(As, nxt % S, ty, tx, A, bm + ty, nxt * T + tx)  # <ISSUE_A>",
                         "    ptx.cp_async_ca_4(Bs, nxt % S, ty, tx, B, nxt * T + ty, bn + tx)  # <ISSUE_B>"]
            elif step == "commit":
                body += ["if nxt < nk:", f"    {commit}  # <COMMIT>"] if cond else [f"{commit}  # <COMMIT>"]
            else:
                body += ["for k in range(T):", "    acc += As[kt % S, ty, k] * Bs[kt % S, k, tx]  # <READ>"]
        return KERNEL.format(T=T, S=s.stages, D=s.ahead, PCOMMIT=pcommit if "commit" in s.order else "",
                             BODY="\n".join("        " + b for b in body))

    def shape(self):
        return T, 2 * T, self.tiles * T, np.float32, (2, 1), (T, T)


STEP_OF_TAG = {"P": "prologue", "ISSUE": "prefetch", "READ": "compute", "WAIT": "wait", "WAIT0": "wait"}

# The detector's kind for a conflict between a copy and a compute depends on which thread the simulator ran first
# (IN_FLIGHT, RAW, or WAR after its program-order guess; tests/test_racecheck.py: "the kind may flip"): what both
# must agree on is which two steps conflict. STALE (the wrong tile, or none) is no race: the detector is silent.
def signature(kind, first, second):
    return ("WAW", first, second) if kind == "WAW" else ("RW", frozenset((first, second)))


def model_signature(h):
    if h.kind == "WAW":
        return signature("WAW", h.steps[0][1], h.steps[1][1])
    return signature(h.kind, h.issued[1], "compute")


def detector_verdict(spec, tiles, tmp_path, name):
    """(signatures of what the race detector reports, C is right) for the kernel built from spec."""
    import racecases
    from kernels_numba.infra.simulator import racecheck
    launch, lines = racecases.build(SpecCase(name, spec, tiles), tmp_path)
    step = {n: STEP_OF_TAG.get(t.split("_")[0], t) for t, n in lines.items()}
    with racecheck.collect() as report:
        C, ref = launch(np.random.default_rng(0))
    found = {signature(h.kind, step[h.first_site[1]], step[h.second_site[1]]) for h in report.races}
    return (found, bool(report.uninitialised)), bool(np.allclose(C, ref, rtol=1e-4, atol=1e-4))


def agree(spec, tiles, tmp_path, name):
    """The model and the detector find the same conflicting step pairs; a hazard-free model means a silent detector
    and the right C. Of the model's STALE hazards, a stage computed before any copy reached it (not_copied) is the
    detector's uninitialised read (UNINIT); a stage holding another tile's data (wrong_tile) the detector cannot see,
    and it still gives a wrong C."""
    (found, uninit), right = detector_verdict(spec, tiles, tmp_path, name)
    run = run_loop(spec, tiles)
    model = {model_signature(h) for h in run.hazards if h.kind != "STALE"}
    assert model == found, (spec, model, found)
    assert uninit == any(h.kind == "STALE" and h.cause == "not_copied" for h in run.hazards), (spec, uninit)
    if run.ok:
        assert right, spec
    elif not model:
        assert not right, spec
    return run, found


CROSS = {"async_copy": PRESETS["async_copy"].spec, "async_vec": PRESETS["async_vec"].spec,
         "common": PRESETS["common"].spec, **{k: v[0] for k, v in BUGGY.items()}}


@pytest.mark.sim_only("the race detector is part of the simulator")
@pytest.mark.parametrize("name", CROSS)
def test_model_agrees_with_the_race_detector(name, tmp_path):
    run, found = agree(CROSS[name], 6, tmp_path, name)
    assert run.ok == (name in ("async_copy", "async_vec"))


@pytest.mark.sim_only("the race detector is part of the simulator")
def test_model_agrees_with_the_race_detector_on_sampled_orders(tmp_path):
    """A fixed sample of compositions: every step once (barrier up to twice) in any order, N, S, tail; 5 tiles."""
    rng = np.random.default_rng(19)
    steps = ("wait", "barrier", "prefetch", "commit", "compute", "barrier")
    orders = sorted({o for n in (5, 6) for o in itertools.permutations(steps, n) if len(set(o)) == 5})   # 480
    causes = set()
    for i in range(40):
        spec = LoopSpec(orders[rng.integers(len(orders))], int(rng.integers(0, 3)), int(rng.integers(1, 5)),
                        ("load_only", "always", "wait0_tail")[rng.integers(3)])
        causes |= set(agree(spec, 5, tmp_path, f"sample{i}")[0].causes())
    assert len(causes) >= 8                            # the sample reaches most of the model's diagnoses


# ------------------------------------------------------------------------------ events for the group stepper

@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.parametrize("tiles", [1, 2, 5, 8])
def test_events_record_landing_and_stage_states(key, tiles):
    """A wait's event lists exactly the groups that left the queue (oldest first); its tiles are LANDED in their stage
    until the next barrier, VISIBLE after it; a commit adds one group; the compute step's stage is COMPUTING."""
    from sim import cp_async as ca
    spec = PRESETS[key].spec
    run = run_loop(spec, tiles)
    prev = []
    for e in run.events:
        gone = [g for g in prev if g not in e.pending]
        assert e.landed == gone and (not gone or e.step == "wait")
        if e.step == "commit" and len(e.pending) > len(prev) - len(gone):
            assert e.pending[:-1] == [g for g in prev if g not in gone]
        for g, tiles_landed in e.landed:
            for t in tiles_landed:
                assert e.stages[t % spec.stages] == (ca.LANDED, t)
        if e.step == "barrier":
            assert all(state != ca.LANDED for state, _ in e.stages)
        if e.step == "compute":
            assert e.stages[e.kt % spec.stages] == (ca.COMPUTING, e.kt)
        assert len(e.stages) == spec.stages and all(state in ca.STAGE_STATES for state, _ in e.stages)
        prev = e.pending


def test_loop_code_tags_every_step_of_the_order():
    spec = PRESETS["async_copy"].spec
    tagged = loop_code(spec, tagged=True)
    assert [line for _, line in tagged] == loop_code(spec)
    assert {t for t, _ in tagged if isinstance(t, int)} == set(range(len(spec.order)))
    waits = [line for t, line in tagged if t == spec.order.index("wait")]
    assert waits == ["    cp_async_wait_group(2)"] and [t for t, _ in tagged].count("prologue") == 3


def test_the_common_loop_is_named_common_and_its_old_name_still_works():
    # the names a student sees say "common" (the notebook's 흔한 루프); "seed", its name before, is still accepted
    from sim.cp_async import OLD_NAMES, TAILS
    assert "seed" not in PRESETS and "seed" not in TAILS and OLD_NAMES == {"seed": "common"}
    assert "async_common_tail" in PRESETS["common"].label and "seed" not in PRESETS["common"].label
    assert first_unsafe_tile(3, 5, "seed") == first_unsafe_tile(3, 5, "common") == 3
