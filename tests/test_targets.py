"""The kernel x target matrix (sm_75 ... sm_120, kernels_numba/infra/targets.json) and its README tables.

CI cost: the sm_80/sm_90 rows are recomputed for every kernel from the compiles tests/test_compile.py makes anyway
($SGEMM_OFFLINE_CACHE, one per run); of the other targets only SUBSET is recompiled (one subprocess). `make targets`
recompiles everything and rewrites the file; a stale file fails here with that advice.
"""
import pytest

import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba.tools import offline, table
from kernels_numba.infra import ptx as ptx_layer
from sim import occupancy as occ
from kernels_numba import occupancy as kocc

STALE = "targets.json 가 현재 커널과 다릅니다 / the matrix is stale: run `make targets`"
# cheap compiles that cover each new target: a level 1-3 kernel everywhere, a Tensor Core kernel where it exists,
# and two kernels that cannot exist on sm_75 (cp.async; cp.async + mma.m16n8k16)
SUBSET = (("naive", (7, 5)), ("tiled", (7, 5)), ("async_copy", (7, 5)), ("mma_simple", (7, 5)),
          ("tiled", (8, 6)), ("mma_large", (8, 6)), ("regblock", (8, 9)), ("mma_simple", (8, 9)),
          ("tiled", (12, 0)), ("mma_large", (12, 0)))


def _arch(cc):
    return f"sm_{cc[0]}{cc[1]}"


@pytest.fixture(scope="module")
def matrix():
    return table.load_targets()


@pytest.fixture(scope="module")
def rows(matrix):
    return {(r["kernel"], r["target"]): r for r in matrix["rows"]}


def test_matrix_covers_every_registered_kernel_and_target(matrix):
    want = [(s.name, _arch(cc)) for s in kn.REGISTRY for cc in offline.TARGETS]
    assert [(r["kernel"], r["target"]) for r in matrix["rows"]] == want, STALE


def _same_toolchain():
    why = table.toolchain_difference()
    if why:
        pytest.skip(f"registers depend on the compiler version: {why}; the matrix is checked where it was made (CI)")


@pytest.mark.parametrize("cc", offline.ARCHS, ids=_arch)
def test_sm80_sm90_rows_are_recomputed(rows, cc):
    _same_toolchain()
    for s in kn.REGISTRY:
        assert offline.target_row(s, cc) == rows[(s.name, _arch(cc))], (s.name, STALE)


def test_rows_of_the_other_targets_are_recomputed_for_a_subset(rows):
    _same_toolchain()
    specs = {n: kn.registry.get(n) for n, _ in SUBSET}
    compiled = offline.try_compile_many(SUBSET)
    for name, cc in SUBSET:
        assert offline.target_row(specs[name], cc, compiled[(name, cc)]) == rows[(name, _arch(cc))], (name, STALE)


@pytest.mark.parametrize("req", offline.REQUIREMENTS, ids=lambda q: q.name)
def test_requirements_are_what_ptxas_enforces(req):
    """Each instruction family assembles exactly on the targets its PTX ISA requirement names; below it ptxas says
    'requires .target sm_XY'. Where it assembles, ptxas gives an 'Advisory' warning (use sm_90a instead) exactly for
    the families marked advisory (TMA's .multicast::cluster: it is not sm_90a-only), and none on sm_90a itself."""
    for cc in offline.TARGETS:
        ok, log = offline.instruction_accepted(req.example, req.example_regs, req.check_cc(cc))
        assert ok == req.available(cc), (req.name, cc, log)
        if not ok:
            assert _refused(req, cc, log), (req.name, cc, log)
        elif req.advisory:
            assert f"instead of .target '{_arch(cc)}'" in log and "sm_90a" in log, (req.name, cc, log)
        else:
            assert log == "", (req.name, cc, log)
    if req.advisory:
        ok, log = offline.instruction_accepted(req.example, req.example_regs, (*req.min_cc, "a"))
        assert ok and log == "", (req.name, log)


def _refused(req, cc, text):
    """ptxas's words for an instruction a target lacks: 'requires .target sm_80', or (an arch-specific instruction such
    as wgmma, and some others such as fence.proxy.tensormap) 'not supported on .target 'sm_75''."""
    words = [f"not supported on .target '{_arch(cc)}'"]
    if not req.arch_specific:
        words.append(f"requires .target {_arch(req.min_cc)}")
    return any(w in text for w in words)


def test_every_ptx_file_is_accepted_on_every_target_that_has_its_instruction():
    """kernels_numba/infra/ptx/*.ptx: each instruction, wrapped for each target, assembles there iff the target has it."""
    for path in ptx_layer.ptx_files():
        for f in ptx_layer.parse_file(path):
            reqs = offline.uses(f.instruction)
            regs = [(p.type, p.name) for p in f.results + f.operands]
            for cc in offline.TARGETS:
                ask = next((q.check_cc(cc) for q in reqs if q.arch_specific), cc)
                ok, log = offline.instruction_accepted(f.instruction, regs, ask)
                assert ok == (cc >= device.MIN_CC and all(q.available(cc) for q in reqs)), (f.name, cc, log)


def test_a_kernel_exists_exactly_where_its_instructions_do(rows):
    """compiles <=> target >= the newest requirement of the instructions in its PTX; the registry's min_cc says the same
    (None: the course's oldest GPU, device.MIN_CC), and a kernel that cannot exist names the instruction and target."""
    for s in kn.REGISTRY:
        derived = None
        for cc in offline.TARGETS:
            r = rows[(s.name, _arch(cc))]
            used = [q for q in offline.REQUIREMENTS if q.name in r["uses"]]
            assert r["compiles"] == (cc >= device.MIN_CC and all(q.available(cc) for q in used)), (s.name, cc)
            need = max((q.min_cc for q in used), default=device.MIN_CC)
            assert r["needs"] == (max(used, key=lambda q: (q.min_cc, q.arch_specific)).target if used else None)
            derived = derived or (need, any(q.arch_specific for q in used))
            if not r["compiles"]:
                lacking = [q for q in used if not q.available(cc)]
                assert lacking and r["why_not"] == "; ".join(q.why for q in lacking)
                assert all(any(_refused(q, cc, line) for line in r["ptxas"]) for q in lacking), (s.name, cc)
        assert (tuple(s.min_cc or device.MIN_CC), s.arch_specific) == derived, (s.name, s.min_cc, derived)


@pytest.mark.parametrize("cc", offline.TARGETS, ids=_arch)
def test_runs_here_agrees_with_what_compiled(rows, monkeypatch, cc):
    monkeypatch.setattr(device, "SIMULATOR", False)
    monkeypatch.setattr(device, "GPU", (f"offline {_arch(cc)}", cc))
    for s in kn.REGISTRY:
        assert s.runs_here() == rows[(s.name, _arch(cc))]["compiles"], (s.name, cc)


def test_compiled_kernels_show_the_instructions_the_lessons_claim(rows):
    """LDGSTS for cp.async, LDSM for ldmatrix, HMMA for mma, on every target where the kernel exists."""
    for r in rows.values():
        if r["compiles"]:
            used = [q for q in offline.REQUIREMENTS if q.name in r["uses"]]
            assert all(r["sass"][q.sass] > 0 for q in used), (r["kernel"], r["target"], r["sass"])
            assert set(r["sass"]) == {q.sass for q in used}


def test_compiled_kernels_fit_their_target(rows):
    """Registers <= 255, static shared <= 48 KB, at least one block per SM; on sm_80/sm_90 spills exactly where the
    module says so (its SPILLS; elsewhere the matrix shows what that target's ptxas did)."""
    for (name, target), r in rows.items():
        if not r["compiles"]:
            continue
        spec = kn.registry.get(name)
        assert r["fits"] and not r["limits_broken"] and r["blocks_per_sm"] >= 1, (name, target, r["limits_broken"])
        if target in ("sm_80", "sm_90"):
            assert r["spills"] == bool(getattr(spec.module, "SPILLS", "")), (name, target, r["stack_bytes"])
        # cuobjdump's SHARED is the declared bytes, plus 1 KB on sm_90 and sm_120 cubins of kernels that declare any;
        # with dynamic shared memory aligned to A bytes (level 7: 1024) the static part is rounded up to A
        extra = 1024 if target in ("sm_90", "sm_120") and r["smem_static"] else 0
        align = r.get("dynamic_align") or 1
        assert r["smem_cubin"] - -(-r["smem_static"] // align) * align == extra, (name, target, r["smem_cubin"])


def test_launch_bounds_block_counts_hold_where_the_lessons_claim_them(rows):
    """launch_bounds(T, 2) kernels are taught as '2 blocks per SM' (measured on the H100/H200): true on sm_80 and sm_90;
    on every other target the matrix gives the count the student's GPU gets."""
    for (name, target), r in rows.items():
        if r["compiles"] and r["launch_bounds"]:
            threads, min_blocks = r["launch_bounds"]
            assert threads == r["threads"]
            if target in ("sm_80", "sm_90"):
                assert r["blocks_per_sm"] >= min_blocks, (name, target)


def test_toolchain_supports_sm_75_and_sm_120(matrix):
    """CUDA 13's nvJitLink still assembles sm_75 and already sm_120 (the matrix has compiled rows for both)."""
    for t in ("sm_75", "sm_120"):
        assert any(r["compiles"] for r in matrix["rows"] if r["target"] == t)
    assert set(matrix["toolchain"]) >= {"numba-cuda", "nvidia-nvjitlink"}


def test_readme_target_matrix_is_generated(matrix):
    assert table.readme_section("target-matrix") == table.targets_markdown(matrix["rows"])


def test_readme_occupancy_table_is_generated(matrix):
    assert table.readme_section("occupancy-table") == table.occupancy_markdown(matrix["rows"])


def test_occupancy_table_is_the_model_per_gpu(matrix):
    """Each cell is sim/occupancy for that GPU with the registers compiled for its compute capability; GPUs of one
    compute capability agree (the per-SM limits are the architecture's), and a kernel without its instructions is '—'."""
    cells = table.occupancy_rows(matrix["rows"])
    for s in kn.REGISTRY:
        for g in table.OCC_GPUS:
            o, spec = cells[(s.name, g)], occ.GPUS[g]
            absent = s.min_cc is not None and (spec.cc < s.min_cc or (s.arch_specific and spec.cc != s.min_cc))
            assert (o is None) == absent, (s.name, g)
            if o is not None:
                assert o == kocc.kernel_occupancy(s.name, g)
                assert o.blocks_per_sm * o.warps_per_block <= spec.max_warps_per_sm
        for a, b in (("RTX 3060", "RTX 3090"), ("RTX 4090", "L4"), ("H100", "H200")):
            ca, cb = cells[(s.name, a)], cells[(s.name, b)]
            assert (ca is None and cb is None) or (ca.blocks_per_sm, ca.percent) == (cb.blocks_per_sm, cb.percent)


def test_regblock_occupancy_depends_on_the_gpu(matrix):
    """The same 2 blocks of 8 warps are 25 % of an A100/H100 SM (64 warps) but 33 % of an RTX 30xx/40xx/50xx SM (48)
    and 50 % of a T4 SM (32): an occupancy figure holds for one architecture."""
    cells = table.occupancy_rows(matrix["rows"])
    got = {g: (cells[("regblock", g)].blocks_per_sm, round(cells[("regblock", g)].percent, 1))
           for g in ("T4", "A100", "RTX 3090", "RTX 4090", "H100", "RTX 5090")}
    assert got == {"T4": (2, 50.0), "A100": (2, 25.0), "RTX 3090": (2, 33.3), "RTX 4090": (2, 33.3),
                   "H100": (2, 25.0), "RTX 5090": (2, 33.3)}


def test_kernel_occupancy_errors_and_here():
    with pytest.raises(kn.CourseInputError):
        kocc.kernel_occupancy("no_such_kernel", "H100")
    with pytest.raises(kn.CourseInputError):
        kocc.kernel_occupancy("tiled", "V100")
    assert kocc.kernel_occupancy("mma_large", "T4") is None            # cp.async and m16n8k16: not on 7.5
    if device.MODE != "gpu":
        assert kocc.occupancy_here("tiled") is None


@pytest.mark.gpu_only("occupancy_here reads the loaded kernel and the device attributes")
@pytest.mark.parametrize("name", ["tiled", "regblock", "async_vec", "mma_large", "mma_large_turing", "mma_fast"])
def test_occupancy_here_is_the_drivers_answer(name):
    """On the GPU in use: the model with the loaded kernel's registers and shared memory gives the blocks per SM of
    the driver's occupancy API (cuOccupancyMaxActiveBlocksPerMultiprocessor, via numba's max_cooperative_grid_blocks).
    Passed on an H100 (2026-11-23) for these six kernels."""
    from kernels_numba.registry import module_of
    spec = kn.registry.get(name)
    o = kocc.occupancy_here(name)
    if not spec.runs_here():
        assert o is None
        return
    k = spec.kernel.compile(getattr(module_of(name), "SIG", offline.SIG))
    assert (o.regs_per_thread, o.threads_per_block) == (k.regs_per_thread, spec.threads)
    sms = kocc.current_gpu().sm_count
    assert o.blocks_per_sm == k.max_cooperative_grid_blocks(spec.threads, spec.dynamic_smem) // sms
    assert 0 < o.percent <= 100
