"""What two or more lessons share, defined once (a chapter never imports another chapter's lesson module): offline
compiles for a cell (compiled), the GPU "on your GPU" figures are for (gpu_here, here_label, kernels_here), the
Report a notebook displays, running a kernel against numpy (close, check, verify), source excerpts, the race demo's
sizing, occupancy lines, shared-memory traces and ncu warp averages. The lessons import these names from here."""
import contextlib
import math

import numpy as np

import course
import kernels_numba as kn
from kernels_numba import occupancy as kocc  # the GPU in use and registered kernels (sim/ is pure)
from kernels_numba.tools import offline, trace
from kernels_numba.infra.simulator import racecheck
from kernels_numba.registry import module_of
from course.steps import Progress
from sim import occupancy as occ
from sim.korean import josa

CCS = offline.ARCHS                     # the compute capabilities every lesson's SASS claim is checked on (8.0, 9.0)
GPUS = tuple(name for name, g in occ.GPUS.items() if g.cc in CCS)     # the course's GPUs of those: A100, H100, H200
COMPILE_DESC = "오프라인 컴파일 (GPU 없이)"


def here_label(gpu=None):
    """'지금 이 GPU (<name>, CC x.y)': the label of a figure computed for `gpu` (a GpuSpec or a name in
    sim.occupancy.GPUS; None: the GPU in use) next to the recorded one; None without a GPU."""
    spec = occ.get_spec(gpu) if gpu is not None else kocc.current_gpu()
    return None if spec is None else f"지금 이 GPU ({spec.name}, CC {spec.cc[0]}.{spec.cc[1]})"


class Report(dict):
    """Values of one analysis (a dict) that a notebook displays as the text lines it was computed with."""

    def __init__(self, lines, **values):
        super().__init__(values)
        self.lines = list(lines)

    def __str__(self):
        return "\n".join(self.lines)

    __repr__ = __str__

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def mean_warps(rec, kernel, n=None, sm_count=None):
    """Warps per scheduler, time-averaged over the recorded ncu run of `kernel` at n³ (default: the record's size): its
    block tile's grid, the recorded blocks per SM and threads, the recorded GPU's SMs, every block taking the same time
    (sim.occupancy.mean_warps_per_scheduler: at 2048³ 256 blocks fill 256 of 264 slots, 3.88 warps, not 4)."""
    n = n or rec["ncu_stalls"]["n"]
    m = kn.get(kernel).module
    api = rec["occupancy_api"][kernel]
    sms = sm_count or rec["device_facts"]["sm_count"]
    return occ.mean_warps_per_scheduler(-(-n // m.BM) * -(-n // m.BN), api["blocks_per_sm"], api["threads"] // 32, sms)


def source_part(kernel, start, end, nth_end=1, before=0):
    """Numbered source lines of `kernel` from the first line containing `start` (and `before` lines above it) to the
    nth_end line after it containing `end`."""
    lines = course.source(kernel).splitlines()
    i = next(j for j, ln in enumerate(lines) if start in ln)
    hits = [j for j, ln in enumerate(lines) if j >= i and end in ln]
    return "\n".join(lines[i - before:hits[nth_end - 1] + 1])


def close(C, ref, K):
    """True if C is all finite and matches ref to float32 accuracy for a K-long sum (NaN can never pass)."""
    C = getattr(C, "_ary", C)
    return bool(np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4 * math.sqrt(K)))


def check(name, M, N, K, alpha=1.0, beta=0.0, seed=7):
    """Runs kernel `name` once against numpy; with beta = 0, C starts as NaN (the kernel must not read it)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32) if beta else np.full((M, N), np.nan, np.float32)
    C = module_of(name).launch(A, B, C0.copy(), alpha, beta)
    ref = alpha * (A.astype(np.float64) @ B) + (beta * C0.astype(np.float64) if beta else 0.0)
    return close(C, ref, K)


def verify(names, shapes, alpha_beta_shape=(19, 21, 23)):
    """check() of every kernel on every shape, plus alpha = 1.5, beta = -0.5: {name: {case: bool}}."""
    out = {}
    for name in names:
        ok = {f"{M}×{N}×{K}": check(name, M, N, K) for M, N, K in shapes}
        ok["alpha=1.5, beta=-0.5"] = check(name, *alpha_beta_shape, 1.5, -0.5)
        out[name] = ok
    return out


_COMPILED = {}          # (kernel, cc) -> offline.try_compile result, for this process (a notebook's kernel)


def compile_results(pairs, desc=COMPILE_DESC):
    """{(kernel, cc): offline.try_compile result (ptx, sass, usage; or 'error')} for the pairs (duplicates once, cc as
    tuples), each compiled once per process.

    What is missing compiles through offline.try_compile_many, one batch per kernel (all its targets together); with
    `desc` (None: no bar), a progress bar advances per kernel."""
    pairs = list(dict.fromkeys((n, tuple(cc)) for n, cc in pairs))
    names = list(dict.fromkeys(n for n, cc in pairs if (n, cc) not in _COMPILED))
    if names:
        bar = Progress(len(names), desc, unit="커널") if desc else contextlib.nullcontext()
        with bar:
            for name in names:
                if desc:
                    bar.note(name)
                _COMPILED.update(offline.try_compile_many([p for p in pairs if p[0] == name and p not in _COMPILED]))
                if desc:
                    bar.update(1)
    return {p: _COMPILED[p] for p in pairs}


def compiled(pairs, desc=COMPILE_DESC, fetch=None):
    """{(kernel, cc): offline compile (ptx, sass, usage)} for the pairs; OfflineCompileError where a target lacks one
    of the kernel's instructions (as offline.compile_kernel does). The one body of every lesson's compiled():
    fetch(pairs, desc) -> {pair: result} says where the results come from (default compile_results; notebook 10 waits
    on the compiles its background lanes started)."""
    pairs = list(dict.fromkeys((n, tuple(cc)) for n, cc in pairs))
    got = (fetch or compile_results)(pairs, desc)
    for n, cc in pairs:
        if "error" in got[n, cc]:
            raise offline.OfflineCompileError(f"{n} sm_{cc[0]}{cc[1]} 컴파일 실패 / compile failed:\n"
                                              f"{got[n, cc]['error']}")
    return {p: got[p] for p in pairs}


def gpu_here(gpu=None):
    """(GpuSpec, live) of the GPU to compute "on your GPU" figures for: `gpu` (a name in sim.occupancy.GPUS or a GpuSpec;
    live False: kernel resources come from the offline kernel x target matrix) or, if None, the GPU in use (live True:
    resources of the kernels as loaded on it); (None, False) without a GPU."""
    if gpu is not None:
        return occ.get_spec(gpu), False
    spec = kocc.current_gpu()
    return spec, spec is not None


def kernel_resources(name, gpu=None):
    """{'registers', 'shared_bytes', 'threads'} of registered kernel `name` on the GPU of gpu_here(gpu), or None where
    it cannot run there (e.g. cp.async below CC 8.0) or there is no GPU."""
    spec, live = gpu_here(gpu)
    if spec is None:
        return None
    o = kocc.occupancy_here(name) if live else kocc.kernel_occupancy(name, spec)
    if o is None:
        return None
    return {"registers": o.regs_per_thread, "shared_bytes": o.smem_per_block, "threads": o.threads_per_block}


def kernels_here(names, gpu=None):
    """One line per kernel: registers, shared memory and blocks per SM on the present GPU (or `gpu`); None without one."""
    spec, live = gpu_here(gpu)
    if spec is None:
        return None
    lines, by_name = [], {}
    # live: reading a kernel's resources compiles it for this GPU if nothing launched it yet (async_wide: ~30 s of CPU)
    bar = Progress(len(names), "이 GPU 용 컴파일(JIT, 처음 한 번)", unit="커널") if live else contextlib.nullcontext()
    with bar:
        res = {}
        for name in names:
            res[name] = kernel_resources(name, spec if not live else None)
            if live:
                bar.update(1, name)
    for name in names:
        r = res[name]
        if r is None:
            need = kn.get(name).min_cc
            by_name[name] = None
            lines.append(f"{here_label(spec)}: {josa(name, '은/는')} 이 GPU 에서 돌지 않습니다"
                         + (f" (CC {need[0]}.{need[1]} 이상 필요)" if need else ""))
            continue
        o = by_name[name] = occ.occupancy(spec, r["registers"], r["threads"], r["shared_bytes"])
        lines.append(f"{here_label(spec)}: {name} 레지스터 {r['registers']}, 공유 {r['shared_bytes']:,} B, "
                     f"{r['threads']} 스레드 → SM당 {o.blocks_per_sm}블록, 점유율 {o.percent:.1f}% "
                     f"(제한 요인: {occ.LIMITER_KO[o.limiter]})")
    return Report(lines, occ=by_name, gpu=spec.name, source="loaded" if live else "offline")


RACE_CASES = ("tiled", "no_sync1", "no_sync2")


def occupancy_rows(kernels=("tiled", "tiled_pad"), gpu=None):
    """[{kernel, registers, smem, reserved, allocated, blocks, ...}] of `kernels` on `gpu` (occupancy and its parts).

    gpu None: the GPU in use, from the kernels as loaded on it (kernels_numba.occupancy.occupancy_here); [] without a GPU.
    A GpuSpec: from the offline compile for its compute capability (kernels_numba.occupancy.kernel_occupancy)."""
    here = gpu is None
    gpu = gpu if gpu is not None else kocc.current_gpu()
    if gpu is None:
        return []
    rows = []
    for k in kernels:
        o = kocc.occupancy_here(k) if here else kocc.kernel_occupancy(k, gpu)
        if o is None:
            continue
        rows.append({"kernel": k, "registers": o.regs_per_thread, "smem": o.smem_per_block,
                     "reserved": gpu.smem_reserved_per_block, "allocated": o.smem_allocated_per_block,
                     "smem_blocks": o.limits["shared memory"], "blocks": o.blocks_per_sm, "limiter": o.limiter,
                     "warps": o.active_warps, "max_warps": o.max_warps, "percent": o.percent})
    return rows


def occupancy_lines(kernels=("tiled", "tiled_pad"), gpu=None):
    """'지금 이 GPU (…)' lines of occupancy_rows (nothing without a GPU): shared bytes, blocks per SM, occupancy."""
    label = here_label(gpu)
    if label is None:
        return []
    return [f"{label}: {r['kernel']:10s} 레지스터 {r['registers']}개, 공유 {r['smem']:,} B + 예약 {r['reserved']:,} B → "
            f"할당 {r['allocated']:,} B (공유 메모리만으로는 SM당 {r['smem_blocks']}블록) | SM당 {r['blocks']}블록 = "
            f"{r['warps']}/{r['max_warps']} 워프, 점유율 {r['percent']:.0f}% (제한: {occ.LIMITER_KO[r['limiter']]})"
            for r in occupancy_rows(kernels, gpu)]


_TRACES = {}


def shared_traces(requests):
    """{(kernel, M, N, K): trace.shared_accesses(kernel, M=M, N=N, K=K)} for every request, kept for the next call.

    On a GPU a trace runs on the simulator in a subprocess; all the requests not traced yet share ONE subprocess here
    (one Python and Numba start-up instead of one per trace)."""
    todo = [tuple(r) for r in dict.fromkeys(tuple(r) for r in requests) if tuple(r) not in _TRACES]
    for req, t in zip(todo, trace.shared_accesses_many([(*req, (0, 0)) for req in todo])):
        _TRACES[req] = t
    return {tuple(r): _TRACES[tuple(r)] for r in requests}


def racy_demo():
    """Context for running the deliberately racy demos: the simulator's race checker (where the simulator has one) is
    turned off, so the wrong result itself shows instead of the checker's error."""
    return racecheck.mode("off")


RACE_BUDGET_S = 1.0       # GPU seconds of the race demo's launches (the notebook's prose states it from here)


def race_size(gpu=None, runs=20, budget_s=RACE_BUDGET_S, sizes=(1024, 512, 256)):
    """(n, runs) for the GPU race demo: the largest n whose 3 kernels × runs launches fit budget_s on `gpu` (a GpuSpec;
    None: this GPU), assuming the barrier kernels reach 10% of the FP32 peak (tiled on the H200: about 12%).
    A GPU whose FP32 peak the course does not know (fp32_peak_tflops 0): the smallest size."""
    gpu = gpu if gpu is not None else kocc.current_gpu()
    peak = gpu.fp32_peak_tflops if gpu is not None else 0
    if not peak:
        return sizes[-1], runs
    for n in sizes:
        if len(RACE_CASES) * runs * 2 * n ** 3 / (0.1 * peak * 1e12) <= budget_s:
            return n, runs
    return sizes[-1], runs


# ---- shared by notebooks 07 and 08 (their lessons re-export them: L7.walkthrough, L8.walkthrough)

def occupancy_vs_api(rec, gpu="H200", names=None):
    """Model blocks/SM for the kernels loaded on the recorded GPU next to the CUDA occupancy API's answer (`names`:
    those kernels only; None: every kernel the record has)."""
    lines, agree = [], {}
    for name, api in rec["occupancy_api"].items():
        if names is not None and name not in names:
            continue
        r = rec["resources"][name]
        model = occ.occupancy(occ.GPUS[gpu], r["registers"], api["threads"], r["shared_bytes"]).blocks_per_sm
        agree[name] = model == api["blocks_per_sm"]
        lines.append(f"{name:13s} 레지스터 {r['registers']:3d}, 공유 {r['shared_bytes']:5d} B → API {api['blocks_per_sm']}블록/SM, "
                     f"모델 {model}블록/SM {'✓' if agree[name] else '✗'}")
    return Report(lines, agree=agree)


def walkthrough(kernel, items, file):
    """'what -> file line' for (what, needle[, nth]) items found in the kernel's source (course.line_of)."""
    lines = []
    for item in items:
        what, needle, nth = (*item, 1)[:3]
        lines.append(f"{what:28s} → {file} {course.line_of(kernel, needle, nth)}줄")
    return Report(lines)


def store_sectors(cols_per_thread=8, vector=1, threads_x=16, threads_y=2, row_floats=4096):
    """32-byte sectors one warp store instruction touches in the epilogue (thread tx writes columns tx*cols_per_thread..).

    vector = floats per store (1: STG.E, 4: STG.E.128); threads_x x threads_y threads of the warp, rows row_floats apart.
    """
    addrs = {(ty * row_floats + tx * cols_per_thread) * 4 for ty in range(threads_y) for tx in range(threads_x)}
    sectors = {(a + b) // 32 for a in addrs for b in range(0, 4 * vector, 4)}
    useful = len(addrs) * 4 * vector
    return {"sectors": len(sectors), "useful_bytes": useful, "efficiency": useful / (32 * len(sectors))}
