"""Analysis helpers of notebook 06 (shared-memory tiling): the notebook calls one and shows what it returns."""
import io
import math
from collections import Counter, defaultdict

import numpy as np

import kernels_numba as kn                    # first: it picks GPU or simulator before numba is imported
from numba import cuda, float32               # noqa: E402,I001
from kernels_numba.common import LAST_RACES, launch_square, load_or_zero, store_c, thread_coords  # noqa: F401,E501  (the 06-2 helpers live there; these names stay)
from kernels_numba.demos import races
from kernels_numba.tools import offline, resources, trace
from sim import banks, roofline
from sim import occupancy as occ
from kernels_numba import occupancy as kocc  # the GPU in use and registered kernels (sim/ is pure)
from course import measure
from course.kit import (RACE_BUDGET_S, RACE_CASES, compiled, occupancy_lines, occupancy_rows,  # noqa: F401
                        race_size, racy_demo, shared_traces)  # (shared with other chapters: defined once in course/kit.py)
from course.measure import here_label  # noqa: F401  (every lesson's label of 'this GPU' figures)
from sim.korean import josa
import course

LEVEL2 = ("tiled", "tiled_pad", "tiled_fma", "tiled_k32")
LD_WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST_WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LD_INST = "smsp__inst_executed_op_shared_ld.sum"


# ---- this GPU: compiles a cell needs, labels, figures for the GPU in use ----------------------------------------

def bench_lines(rec, live=None):
    """The recorded benchmark table (the prose talks about it) and, after a live run, this GPU's table below it."""
    lines = [f"기록(recorded) — {rec.gpu} {rec.date}"]
    lines += [f"{r.n:5d}³ {r.kernel:10s} {r.tflops:6.2f} TFLOP/s  cuBLAS의 {100 * r.ratio:5.1f}%" for r in rec.rows]
    if live:
        lines += measure.live_lines(live)
    return lines


# ---- 3.1 / 3.2: what the trace of one block says ------------------------------------------------------------------

def readers_per_element(records, tile):
    """{n: how many (array, tile, element) were read by exactly n threads} from trace records of one block."""
    readers = defaultdict(set)
    for arr, _site, op, inst, tid, addr, _width in records:
        if op == "load":
            readers[(arr, inst // tile, addr)].add(tid)   # the k loop runs `tile` times per tile: instance // tile
    return dict(Counter(len(t) for t in readers.values()))


def stores_per_thread(records, tiles):
    """({array: set of per-tile store counts of one thread}, stores per tile of the whole block)."""
    stores = Counter((arr, tid) for arr, _s, op, _i, tid, _a, _w in records if op == "store")
    per = {arr: {n // tiles for (a, _), n in stores.items() if a == arr} for arr in sorted({a for a, _ in stores})}
    return per, sum(stores.values()) // tiles


def request_intensity(K, tile):
    """FLOP per byte requested from global memory for one C element (naive and tiled) and the DRAM floor of a K³ GEMM."""
    flops = 2 * K
    naive = flops / (2 * K * 4)
    tiled = flops / (2 * K * 4 / tile)
    return {"naive": naive, "tiled": tiled, "dram_min": 2 * K ** 3 / (3 * K * K * 4)}


# ---- 3.3: races -----------------------------------------------------------------------------------------------------

def launcher(name):
    """launch(A, B, C) of a registered kernel or of a barrier-less copy in kernels_numba/demos/races.py."""
    return getattr(races, "launch_" + name, None) or kn.get(name).launch


def rel_error(C, A, B):
    """Relative Frobenius error of C against float64 A @ B (inf if C holds NaN or inf)."""
    ref = A.astype(np.float64) @ B.astype(np.float64)
    return math.inf if not np.isfinite(C).all() else float(np.linalg.norm(C - ref) / np.linalg.norm(ref))


def race_outcomes(n, runs, seed=0, names=RACE_CASES, tol=1e-5):
    """{kernel: {'wrong': runs with error > tol, 'runs': runs, 'worst': largest relative error}}.

    Simulator: fresh n×n inputs every run. GPU: one input put on the device once and its float64 reference computed
    once; each run only launches and copies C back (the race shows up run to run through timing, not the data), so the
    cell costs the launches, not `runs` CPU matrix products."""
    if not kn.device.SIMULATOR:
        return _race_outcomes_gpu(n, runs, seed, names, tol)
    with racy_demo():
        return _race_outcomes(n, runs, seed, names, tol)


def _race_outcomes_gpu(n, runs, seed, names, tol):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n), dtype=np.float32)
    B = rng.standard_normal((n, n), dtype=np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    norm = np.linalg.norm(ref)
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
    C = np.empty((n, n), np.float32)
    out = {}
    for name in names:
        errs = []
        for _ in range(runs):
            launcher(name)(dA, dB, dC)
            dC.copy_to_host(C)
            errs.append(math.inf if not np.isfinite(C).all() else float(np.linalg.norm(C - ref) / norm))
        out[name] = {"wrong": sum(e > tol for e in errs), "runs": runs, "worst": max(errs)}
    return out


def _race_outcomes(n, runs, seed, names, tol):
    rng = np.random.default_rng(seed)
    out = {}
    for name in names:
        errs = []
        for _ in range(runs):
            A = rng.standard_normal((n, n), dtype=np.float32)
            B = rng.standard_normal((n, n), dtype=np.float32)
            errs.append(rel_error(launcher(name)(A, B, np.zeros((n, n), np.float32)), A, B))
        out[name] = {"wrong": sum(e > tol for e in errs), "runs": runs, "worst": max(errs)}
    return out


def schedule_outcomes(n=32, orders=("forward", "reverse", "random"), seed=1, names=RACE_CASES):
    """Simulator only: {kernel: True if every thread order gives bit-identical C} for one input."""
    # local: simulator only: the scheduler patches numba's simulator launch; GPU mode never loads it
    from kernels_numba.infra.simulator import scheduler as _simfast
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n), dtype=np.float32)
    B = rng.standard_normal((n, n), dtype=np.float32)
    same = {}
    try:
        for name in names:
            outs = []
            for order in orders:
                _simfast.set_schedule(order, seed=seed)
                with racy_demo():
                    outs.append(launcher(name)(A, B, np.zeros((n, n), np.float32)).copy())
            same[name] = all(np.array_equal(outs[0], o, equal_nan=True) for o in outs[1:])
    finally:
        _simfast.set_schedule("forward")
    return same


# ---- 3.4: banks -----------------------------------------------------------------------------------------------------

def bank_rows(pad, rows=4, width=16):
    """[(row, first byte, last byte, banks of the row's elements)] of float smem[..][width + pad]."""
    lay = banks.Layout((max(rows, 1), width), pad=pad)
    return [(r, lay.offset((r, 0)), lay.offset((r, width - 1)), [banks.bank_of(lay.offset((r, c))) for c in range(width)])
            for r in range(rows)]


def rows_per_warp(block=(16, 16)):
    """The thread-row numbers (ty) that each warp of the block holds."""
    return [sorted({y for _x, y, _z in w}) for w in banks.warps(block)]


def bank_tables(kernels=("tiled", "tiled_pad"), M=32, N=32, K=32):
    """{kernel: bank_table(kernel)}, the traces taken together (one simulator subprocess on a GPU)."""
    shared_traces([(k, M, N, K) for k in kernels])
    return {k: bank_table(k, M, N, K) for k in kernels}


def bank_table(kernel_name, M=32, N=32, K=32):
    """Bank model of every shared access of one traced block: [{array, op, site, requests, mean, max, conflict}]."""
    t = shared_traces([(kernel_name, M, N, K)])[(kernel_name, M, N, K)]
    return [{"array": r["array"], "op": r["op"], "site": r["site"], "requests": r["requests"],
             "mean": r["mean_wavefronts"], "max": r["max_wavefronts"], "conflict": r["max_conflict"]}
            for r in banks.analyze_trace(t["records"], t["block_dim"])]


def max_wavefronts(rows):
    """{(array, op): largest wavefronts per request} from bank_table rows."""
    out = {}
    for r in rows:
        out[(r["array"], r["op"])] = max(out.get((r["array"], r["op"]), 0), r["max"])
    return out


NCU_KERNELS = ("tiled", "tiled_pad", "tiled_fma")


def ncu_live(rec, live=False, kernels=NCU_KERNELS):
    """ncu metrics measured now on this GPU when `live` is True (the student's opt-in: it takes a minute or more), at
    the recorded run's size so the SASS predictions of the next cell still apply; else None (one line says how)."""
    if not measure.have_gpu():
        return None
    if not live:
        print("ℹ️ 이 GPU 에서 직접 재려면 위의 LIVE_NCU = True 로 바꾸고 다시 실행하세요 (ncu 필요, 1분 이상 걸릴 수 "
              "있음). / set LIVE_NCU = True to profile this GPU (needs ncu; a minute or more).")
        return None
    return measure.ncu_shared(kernels=list(kernels), n=rec["ncu_shared"]["n"])


def ncu_metrics(rec, live=None):
    """(where the numbers come from, per-kernel ncu metrics): live ones if given, else the recorded run's."""
    if live:
        return f"{here_label() or '지금 이 GPU'} 에서 ncu, {rec['ncu_shared']['n']}³", live
    ns = rec["ncu_shared"]
    return f"기록(recorded) — {rec.gpu} {rec.date}, {ns['tool']}, {ns['n']}³", ns["metrics"]


def ncu_rows(metrics, kernels=LEVEL2[:3]):
    """[(kernel, 'load'|'store', instructions, wavefronts, wavefronts per instruction)] for the chosen kernels."""
    rows = []
    for k in kernels:
        for op in ("ld", "st"):
            inst = metrics[k].get(f"smsp__inst_executed_op_shared_{op}.sum", 0)
            wf = metrics[k].get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", 0)
            if inst:
                rows.append((k, "load" if op == "ld" else "store", inst, wf, wf / inst))
    return rows


def sass_shared_loads(kernels=("tiled", "tiled_pad"), cc=(9, 0)):
    """{kernel: (32-bit LDS, LDS.128, FFMA) in one pass of the SASS tile loop (the loop with the barriers), and the
    kernel's FFMA in all}, compiled offline for sm_<cc>: {kernel: (lds, lds128, ffma_loop, ffma_kernel)}."""
    comp = compiled([(k, cc) for k in kernels])
    out = {}
    for k in kernels:
        text = comp[(k, tuple(cc))]["sass"]
        loop = Counter(i.op for i in resources.main_loop(text))
        out[k] = (loop["LDS"], loop["LDS.128"], loop["FFMA"], offline.sass_counts(text).get("FFMA", 0))
    return out


def predicted_load_instructions(lds, lds128, n, tile=16):
    """Warp-level shared-load instructions of an n³ run: warps × tiles × LDS instructions per tile."""
    return (n * n // 32) * (n // tile) * (lds + lds128)


def lds128_model(rule):
    """Wavefronts the bank model gives one warp's LDS.128 of As[ty][k..k+3] (rows 2w, 2w+1) under `rule`."""
    lay = banks.Layout((16, 16))
    req = [banks.Access(x + 16 * y, lay.offset((y, 0)), 16) for x, y, _z in banks.warps((16, 16))[0]]
    return banks.analyze_request(req, wide_rule=rule).wavefronts


def lds128_from_ncu(metrics, n, tile=16, lds=16, lds128=4):
    """Wavefronts per LDS.128 solved from ncu's load wavefronts of `tiled`, taking each 32-bit LDS as 1 wavefront."""
    per_tile = (n * n // 32) * (n // tile)
    return (metrics["tiled"][LD_WF] - per_tile * lds) / (per_tile * lds128)


# ---- 3.5: FMA -------------------------------------------------------------------------------------------------------

FMA_OPS = ("fma.rn.f32", "mul.f32", "add.f32", "mul.rn.f32", "add.rn.f32")


def fma_evidence(kernels=("tiled_pad", "tiled_fma")):
    """{kernel: ({PTX op: count} for FMA_OPS, sm_90 SASS opcode counts)} compiled offline."""
    comp = compiled([(k, cc) for k in kernels for cc in ((8, 0), (9, 0))])
    out = {}
    for k in kernels:
        c = offline.ptx_counts(comp[(k, (8, 0))]["ptx"], FMA_OPS)
        out[k] = (c, offline.sass_counts(comp[(k, (9, 0))]["sass"]))
    return out


def after_last_barrier(kernel="tiled_pad", ops=("mul.f32", "add.f32", "fma.rn.f32")):
    """The PTX (sm_80) arithmetic lines of `kernel` after its last bar.sync: the epilogue, outside the k loop."""
    lines = offline.compile_kernel(kernel, (8, 0))["ptx"].splitlines()
    last = max(i for i, ln in enumerate(lines) if "bar.sync" in ln)
    return [ln.strip() for ln in lines[last + 1:] if ln.strip().split(" ")[0].split("\t")[0] in ops]


def first_fma_line(kernel="tiled_pad"):
    """The first PTX line of `kernel` (sm_80) that holds fma.rn.f32."""
    return next(ln.strip() for ln in offline.compile_kernel(kernel, (8, 0))["ptx"].splitlines() if "fma.rn.f32" in ln)


def loaded_sass(rec, kernel="tiled_fma", prefixes=("FFMA", "LDS", "BAR")):
    """(where from, SASS opcode counts) of the kernel as loaded on this GPU, or as recorded on the H200."""
    if kn.device.SIMULATOR:
        counts, where = rec["sass_loaded"][kernel], f"기록된 {rec.gpu} SASS (실제로 올라간 커널)"
    else:
        spec = kn.get(kernel)
        ones = np.ones((16, 16), np.float32)
        spec.launch(ones, ones, np.zeros((16, 16), np.float32))         # compile it for this GPU
        k = spec.kernel
        counts, where = offline.sass_counts(k.inspect_sass(k.signatures[0])), "이 GPU에 올라간 SASS"
    return where, {o: c for o, c in counts.items() if o.startswith(prefixes)}


def loaded_vs_offline(rec, kernel="tiled_fma", prefixes=None):
    """(where from, loaded counts, 'sm_XY', offline counts or None, same) for the SASS opcodes starting with `prefixes`
    (None: every opcode the record keeps for the kernel): the kernel as loaded (this GPU, or the record's GPU in the
    simulator; loaded_sass) next to the offline compile for that GPU's compute capability (None where the offline
    toolchain has no such target). Counts per opcode only: not their order, operands or registers."""
    prefixes = tuple(rec["sass_loaded"][kernel]) if prefixes is None else prefixes
    where, counts = loaded_sass(rec, kernel, prefixes)
    cc = tuple(rec.cc) if kn.device.SIMULATOR else tuple(kn.device.compute_capability())
    arch = f"sm_{cc[0]}{cc[1]}"
    if cc not in offline.TARGETS:
        return where, counts, arch, None, None
    off = offline.sass_counts(compiled([(kernel, cc)])[(kernel, cc)]["sass"])
    off = {o: c for o, c in off.items() if o.startswith(prefixes)}
    return where, counts, arch, off, off == counts


def rounding_demo():
    """(MUL then ADD in float32, FMA's single rounding, exact value) of x·x − 1 for x = 1 + 2⁻¹²."""
    x = np.float32(1 + 2.0 ** -12)
    two = np.float32(x * x) - np.float32(1)
    one = np.float32(np.float64(x) * np.float64(x) - 1.0)     # exact in float64, then one rounding: what fma.rn.f32 gives
    return float(two), float(one), 2.0 ** -11 + 2.0 ** -24


# ---- 4: code walkthrough, shared memory size ------------------------------------------------------------------------

WALK = (("공유 메모리 선언", "cuda.shared.array", 1), ("스레드·전역 인덱스", "row = ", 1), ("타일 루프", "for t in range", 1),
        ("A 타일 로드(경계 검사)", "if row < M and a_col < K", 1), ("B 타일 로드(경계 검사)", "if b_row < K and col < N", 1),
        ("배리어 1", "cuda.syncthreads()", 1), ("내적", "acc += As", 1), ("배리어 2", "cuda.syncthreads()", 2),
        ("결과 기록(beta == 0 처리)", "if beta == 0", 1))


def walkthrough(kernel):
    """[(what, file line)] of the parts of a tiled kernel the walkthrough names."""
    return [(what, course.line_of(kernel, needle, nth)) for what, needle, nth in WALK]


def shared_sizes(rec_occ, kernels=("tiled", "tiled_pad")):
    """[{kernel, declared, sm_80 cubin, sm_90 cubin, loaded on the GPU}] shared bytes per block (loaded: recorded)."""
    loaded = {r["kernel"]: r["static_shared"] for r in rec_occ["registry"]}
    comp = compiled([(k, cc) for k in kernels for cc in ((8, 0), (9, 0))])
    rows = []
    for k in kernels:
        m = kn.get(k).module
        width = getattr(m, "TILE_PAD", m.TILE_SIZE)
        rows.append({"kernel": k, "declared": 2 * m.TILE_SIZE * width * 4,
                     "sm_80": comp[(k, (8, 0))]["usage"]["shared_bytes"],
                     "sm_90": comp[(k, (9, 0))]["usage"]["shared_bytes"], "loaded": loaded[k]})
    return rows


def offline_occupancy(kernel="tiled", gpus=("A100", "H100", "H200")):
    """{gpu: (registers, Occupancy)}: registers from the offline compile for each GPU's compute capability, shared
    memory as declared (the size the loaded kernel reports, 4.2), the kernel's block size: what limits blocks per SM."""
    specs = [occ.get_spec(g) for g in gpus]
    comp = compiled([(kernel, s.cc) for s in specs])
    m, ks = kn.get(kernel).module, kn.get(kernel)
    smem = 2 * m.TILE_SIZE * getattr(m, "TILE_PAD", m.TILE_SIZE) * 4
    out = {}
    for s in specs:
        regs = comp[(kernel, s.cc)]["usage"]["registers"]
        out[s.name] = (regs, occ.occupancy(s, regs, ks.threads, smem))
    return out


def reserved_per_block(smem, regs=32, threads=256, gpus=("A100", "H100", "H200")):
    """{gpu: (reserved bytes, bytes allocated per block, blocks per SM shared memory alone allows)} from sim.occupancy.
    gpus: names in sim.occupancy.GPUS or GpuSpecs (keyed by their name)."""
    out = {}
    for g in gpus:
        spec = occ.get_spec(g)
        o = occ.occupancy(spec, regs, threads, smem)
        out[spec.name] = (spec.smem_reserved_per_block, o.smem_allocated_per_block, o.limits["shared memory"])
    return out


# ---- 4.7: run and verify --------------------------------------------------------------------------------------------

def check(launch, M, N, K, alpha=1.0, beta=0.0, seed=6):
    """True if launch(A, B, C, alpha, beta) matches float64 numpy (C starts as NaN when beta == 0, so it must not be read)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32) if beta else np.full((M, N), np.nan, np.float32)
    C = launch(A, B, C0.copy(), alpha, beta)
    ref = alpha * (A.astype(np.float64) @ B) + (beta * C0.astype(np.float64) if beta else 0.0)
    return bool(np.isfinite(C).all() and np.allclose(C, ref, rtol=1e-4, atol=1e-4 * math.sqrt(K)))


def check_all(launch, shapes=((1, 1, 1), (17, 33, 5), (100, 70, 50))):
    """check() on shapes that are not tile multiples with beta = 0, then once with alpha, beta = 1.5, -0.5."""
    return all(check(launch, *s) for s in shapes) and check(launch, 19, 21, 23, 1.5, -0.5)


# ---- 4.8: performance and its bounds --------------------------------------------------------------------------------

def best(rows, kernel, n=None):
    """Highest TFLOP/s of `kernel` in benchmark rows (at size n if given)."""
    return max(r.tflops for r in rows if r.kernel == kernel and (n is None or r.n == n))


def shared_bound(rec, kernel, gpu=None):
    """{wf_per_ffma, bound TFLOP/s, measured best, cuBLAS best}: the ceiling set by 1 shared wavefront per SM per cycle.

    Wavefronts count loads and stores (the course's one convention, also in notebook 07), per warp-level FFMA of the
    dot products, from the recorded ncu run. With `gpu` the same wavefronts-per-FFMA go into that GPU's SM count and
    clock (sim.occupancy): a model of that GPU, not a measurement on it."""
    f, ns = rec["device_facts"], rec["ncu_shared"]
    ffma_warp = ns["n"] ** 3 / 32                              # warp-level FFMA of the dot products
    m = ns["metrics"][kernel]
    wf_per_ffma = (m[LD_WF] + m[ST_WF]) / ffma_warp
    spec = None if gpu is None else occ.get_spec(gpu)          # a name in sim.occupancy.GPUS or a GpuSpec
    sms, mhz = (f["sm_count"], f["max_sm_clock_mhz"]) if spec is None else (spec.sm_count, spec.boost_clock_mhz)
    bound = sms * (1 / wf_per_ffma) * 32 * 2 * mhz * 1e6 / 1e12
    return {"wf_per_ffma": wf_per_ffma, "load_only": m[LD_WF] / ffma_warp, "bound": bound,
            "measured": best(rec.rows, kernel), "cublas": best(rec.rows, "cuBLAS")}


def bound_here_line(rec, kernel="tiled", gpu=None):
    """'지금 이 GPU (…) 모델: …' — the shared-memory ceiling of `kernel` with the recorded wavefronts per FFMA put into
    `gpu`'s SM count and clock (None: the GPU in use; nothing without one). A model of that GPU, not a measurement.
    A GPU the course's table lacks (FP32 lanes per SM 0, or no clock): the line says the figure is unknown."""
    gpu = gpu if gpu is not None else kocc.current_gpu()
    if gpu is None:
        return None
    if not gpu.boost_clock_mhz:
        return f"{here_label(gpu)}: SM 클록을 알 수 없어 공유 메모리 상한을 계산하지 않습니다. / unknown SM clock."
    b = shared_bound(rec, kernel, gpu=gpu)
    peak = (f"이 GPU 의 FP32 피크 {gpu.fp32_peak_tflops:.1f} TFLOP/s" if gpu.fp32_peak_tflops else
            f"이 GPU 의 FP32 피크는 모름: CC {gpu.cc[0]}.{gpu.cc[1]} 의 SM 당 FP32 레인 수가 과정의 표에 없음")
    return (f"{here_label(gpu)} 모델: {kernel} 의 FFMA당 웨이브프론트 {josa(format(b['wf_per_ffma'], '.2f'), '을/를')} SM {gpu.sm_count}개·"
            f"{gpu.boost_clock_mhz} MHz 에 넣은 공유 메모리 상한 {b['bound']:.1f} TFLOP/s ({peak})")


def fp32_peak(rec):
    """FP32 peak of the recorded GPU in TFLOP/s: SMs × FP32 lanes × 2 × max SM clock."""
    f = rec["device_facts"]
    return f["sm_count"] * f["fp32_lanes_per_sm"] * 2 * f["max_sm_clock_mhz"] * 1e6 / 1e12


GPU_NAMES = roofline.NAMES                 # the display names notebook 07 uses too


def dram_roofs(ai, gpus=("A100", "A100-40GB", "H100", "H200")):
    """[{gpu, name, peak, dram_gbps, ridge, roof}]: roof = min(peak, bandwidth × ai), the DRAM ceiling at intensity `ai`."""
    return [{"gpu": g, "name": GPU_NAMES[g], "peak": roofline.peak_tflops(g), "dram_gbps": roofline.DRAM_GBPS[g],
             "ridge": roofline.ridge_point(g), "roof": roofline.attainable_tflops(ai, g)} for g in gpus]


SEPARATES = 0.10     # two model ceilings closer than this (relative) do not say which one binds


def bound_vs_roofs(rec, ai, kernel="tiled", gpus=("A100", "A100-40GB")):
    """[{gpu, name, bound, roof, margin, clear}]: `kernel`'s shared-memory ceiling (recorded wavefronts per FFMA in
    that GPU's SM count and clock) against the worst-case DRAM roof at intensity `ai`; margin = 1 - bound / roof, and
    clear when the margin is at least SEPARATES (closer ceilings are within the models' own error)."""
    out = []
    for r in dram_roofs(ai, gpus):
        b = shared_bound(rec, kernel, gpu=r["gpu"].split("-")[0])["bound"]       # A100-40GB: the A100's SMs, clock
        margin = 1 - b / r["roof"]
        out.append({"gpu": r["gpu"], "name": r["name"], "bound": b, "roof": r["roof"], "margin": margin,
                    "clear": margin >= SEPARATES})
    return out


def bound_vs_roof_lines(rec, ai, kernel="tiled", gpus=("A100", "A100-40GB")):
    """One line per GPU: which model ceiling is lower and by how much, and whether that margin says anything."""
    lines = []
    for r in bound_vs_roofs(rec, ai, kernel, gpus):
        verdict = ("공유 메모리 상한이 분명히 낮음" if r["clear"] else
                   f"차이가 {100 * SEPARATES:.0f}% 보다 작아 이 모델로는 어느 쪽이 먼저 한계인지 가릴 수 없음")
        lines.append(f"{r['name']} 모델: {kernel} 공유 메모리 상한 {r['bound']:.1f} / 가장 나쁜 DRAM 지붕 "
                     f"{r['roof']:.1f} TFLOP/s → 상한이 {100 * r['margin']:.0f}% 낮음 ({verdict})")
    return lines


def perf_figure(rec, n=4096, kernels=("naive",) + LEVEL2):
    """Bar chart (Korean labels) of each kernel's share of cuBLAS at n³, with the shared-memory ceilings as marks."""
    # local: matplotlib is heavy: loaded only when a figure is drawn
    from matplotlib.figure import Figure
    from course import plots  # noqa: F401  (Korean font)
    rows = {r.kernel: r for r in rec.rows if r.n == n}
    cub = rows["cuBLAS"].tflops
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    ax.bar(kernels, [100 * rows[k].ratio for k in kernels], color="tab:blue", label="실측 (cuBLAS 대비)")
    labelled = False
    for i, k in enumerate(kernels):
        if k in rec["ncu_shared"]["metrics"] and rec["ncu_shared"]["metrics"][k][LD_WF]:
            b = 100 * shared_bound(rec, k)["bound"] / cub
            ax.hlines(b, i - 0.4, i + 0.4, color="tab:red", label=None if labelled else "공유 메모리 상한")
            labelled = True
    ax.set_ylim(0, 1.4 * ax.get_ylim()[1])                    # room for the legend above the bars
    ax.set_ylabel("cuBLAS 대비 성능 (%)")
    ax.set_xlabel("커널 (kernel)")
    ax.set_title(f"{n}³ SGEMM: cuBLAS 대비 성능과 공유 메모리 상한 ({rec.gpu} 기록)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def show(fig):
    """Display a matplotlib Figure as a PNG (no pyplot, no backend switch)."""
    # local: IPython only inside a notebook; this module also runs in plain Python
    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    display(Image(buf.getvalue()))


# ---- 6: the paper exercise ------------------------------------------------------------------------------------------

def paper_table(col=5, rows=16):
    """([(ty, addr, bank, conflict, addr+1pad, bank+1pad, conflict+1pad)], [2 summaries]) for the one-request exercise."""
    cols, summaries = [], []
    for pad in (0, 1):
        table, rep = banks.paper_exercise(pad, col=col, rows=rows)
        seen = {}
        marks = []
        for _ty, addr, bank in table:
            marks.append(bank in seen and seen[bank] != addr)    # an earlier thread has another word in this bank
            seen.setdefault(bank, addr)
        cols.append([(addr, bank, hit) for (_ty, addr, bank), hit in zip(table, marks)])
        summaries.append(rep.summary())
    return [(ty, *cols[0][ty], *cols[1][ty]) for ty in range(rows)], summaries


def real_warp_wavefronts(pad, col=5):
    """Wavefronts of each real warp of a 16×16 block reading smem[ty][col] of smem[16][16 + pad]."""
    return [r.wavefronts for r in banks.analyze(banks.Layout((16, 16), pad=pad), lambda x, y, z: (y, col), (16, 16))]


# ---- 직접 해보기 2: the device helpers of the 8×8 exercise are in kernels_numba/common.py ------------------------

def race_hint():
    """Print the first race the detector found in the last launch_square, with its fix (nothing if none)."""
    if LAST_RACES:
        h = LAST_RACES[0]
        print(f"경쟁 검출기: {len(LAST_RACES)}종 — 예: {h.kind} {h.array}{list(h.index)}, "
              f"{getattr(h, 'lines_text', None) or f'{h.first_site[1]}행 ↔ {h.second_site[1]}행'}. 해결: {h.fix_ko}")
