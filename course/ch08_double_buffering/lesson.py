"""Analysis behind notebook 08 (double buffering): each function computes one table the lesson shows, as a Report."""
import contextlib
import math
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from itertools import groupby

import numpy as np

import kernels_numba as kn
from kernels_numba.tools import offline, resources, trace
from kernels_numba.registry import module_of
from kernels_numba import occupancy as kocc  # the GPU in use and registered kernels (sim/ is pure)
from sim import occupancy, pipeline

from course.steps import Progress  # noqa: F401  (lesson09 and the notebook use it from here too)
from course.kit import (CCS, GPUS, Report, check, close, compiled, gpu_here, kernel_resources,  # noqa: F401
                        kernels_here, mean_warps, race_size, racy_demo, source_part, verify as verify7,  # course/kit.py
                        occupancy_vs_api, store_sectors, walkthrough)
from course import measure
from course.measure import here_label  # noqa: F401  (every lesson's label of 'this GPU' figures)
from sim.korean import josa
from numba import cuda
from course.steps import steps
from kernels_numba.tools import subsim
import os
import unicodedata

LOADS = ("ld.global", "ld.global.ca", "ld.relaxed.cta.global", "ld.global.cg", "ld.relaxed.gpu.global", "ld.global.nc")
STALLS = ("long_scoreboard", "math_pipe_throttle", "short_scoreboard", "mio_throttle", "barrier", "wait",
          "dispatch_stall", "not_selected", "selected")
STALL_KERNELS = ("regblock_opt", "db", "db_ptx", "regblock_vec", "db_overlap")


def _db():
    return kn.get("db").module


# ------------------------------------------------------------------ progress, compiles, "on your GPU"

LANES_UNKNOWN = "모름 (이 GPU 의 FP32 유닛 수를 표에서 찾지 못함)"


def _lanes_unknown(spec):
    """The line for a GPU whose FP32 lanes per SM sim.occupancy's per-CC table lacks (spec_from_attributes gives 0 for
    a CC it does not know, e.g. 8.7, 10.x, 12.1): a figure built on them cannot be computed there."""
    return f"{here_label(spec)}: {LANES_UNKNOWN}"


# ------------------------------------------------------------------ 3.1 pipeline pictures and tile time

def gantt(tl):
    """Text Gantt chart of a sim.pipeline Timeline: one character per time unit, the tile number in each bar."""
    lines = []
    for unit, label in (("load", "로드"), ("compute", "연산")):
        row = [" "] * math.ceil(tl.total)
        for e in tl.of(unit):
            row[int(e.start):math.ceil(e.end)] = str(e.tile) * (math.ceil(e.end) - int(e.start))
        lines.append(f"  {label:4s}|{''.join(row)}|")
    lines.append(f"  총 시간 {tl.total}, 연산 유닛 활용률 {tl.compute_utilisation:.1%}")
    return Report(lines, total=tl.total)


def bars(tl):
    """(start, end) of every load and compute bar of a Timeline."""
    return Report([f"로드 {[(e.start, e.end) for e in tl.of('load')]}", f"연산 {[(e.start, e.end) for e in tl.of('compute')]}"],
                  load=[(e.start, e.end) for e in tl.of("load")], compute=[(e.start, e.end) for e in tl.of("compute")],
                  total=tl.total)


def tile_compute_times(blocks_per_sm=1):
    """Cycles and ns one block's K tile takes when the SM's FP32 lanes do its BM*BN*BK FMAs (throughput, not latency)."""
    DB = _db()
    lines, t = [], {}
    for g in GPUS:
        spec = occupancy.GPUS[g]
        r = pipeline.fma_time_per_tile(DB.BM, DB.BN, DB.BK, DB.THREADS, spec.fp32_lanes_per_sm, blocks_per_sm=blocks_per_sm)
        cyc = r.cycles_alone if blocks_per_sm == 1 else r.cycles_shared
        t[g] = (cyc, float(cyc) / spec.boost_clock_mhz * 1e3)
        lines.append(f"{g}: 블록 타일 FMA {r.fmas_per_block:,} ÷ SM당 FP32 레인 {spec.fp32_lanes_per_sm}"
                     + (f" × SM당 블록 {blocks_per_sm}" if blocks_per_sm > 1 else "")
                     + f" = {cyc} 사이클 = {t[g][1]:.0f} ns ({spec.boost_clock_mhz} MHz)")
    return Report(lines, cycles={g: v[0] for g, v in t.items()}, ns={g: v[1] for g, v in t.items()})


def tile_time_here(gpu=None):
    """The K tile's FMA time (3.1) on the present GPU (or `gpu`): None without one."""
    spec, _ = gpu_here(gpu)
    if spec is None:
        return None
    if not spec.fp32_lanes_per_sm:
        return Report([_lanes_unknown(spec)], cycles=None, ns=None, gpu=spec.name)
    DB = _db()
    fmas = DB.BM * DB.BN * DB.BK
    cycles = fmas // spec.fp32_lanes_per_sm
    ns = cycles / spec.boost_clock_mhz * 1e3
    return Report([f"{here_label(spec)}: {fmas:,} FMA ÷ SM당 FP32 레인 {spec.fp32_lanes_per_sm} = {cycles} 사이클 "
                   f"= {ns:.0f} ns ({spec.boost_clock_mhz} MHz)"], cycles=cycles, ns=ns, gpu=spec.name)


# ------------------------------------------------------------------ 3.2-3.3 buffers and the bugs

def buffer_table(n_tiles=4):
    """From db's simulator trace: for each iteration kt, the buffer thread 0 computed on and the buffer it prefetched into."""
    if kn.device.SIMULATOR:
        tr = trace.shared_accesses("db", M=16, N=16, K=n_tiles * _db().BK)
    else:                                   # on a GPU the trace runs the simulator in a subprocess: a few seconds
        with Progress(1, "시뮬레이터에서 db 블록 하나 실행·기록", unit="실행") as bar:
            tr = trace.shared_accesses("db", M=16, N=16, K=n_tiles * _db().BK)
            bar.update(1)                          # done: the bar reaches its total (short of it, Jupyter paints it red)
    buf_bytes = {a: s[1] * s[2] * 4 for a, s in tr["shapes"].items()}
    seq = [(op, addr // buf_bytes[arr]) for arr, site, op, inst, tid, addr, w in tr["records"] if tid == 0]
    runs = [key for key, _ in groupby(seq)]
    table, i = [], 1
    while i < len(runs):                          # one iteration = (prefetch store?) + reads
        nxt = runs[i][1] if runs[i][0] == "store" else None
        i += nxt is not None
        table.append((len(table), runs[i][1], nxt))
        i += 1
    lines = [f"배열 모양 {tr['shapes']}, 버퍼 하나 {buf_bytes} B", "스레드 0: 프롤로그 쓰기 buf0, 그다음 반복마다:",
             " kt | 계산이 읽은 버퍼 | 미리 채운 버퍼 | kt % 2, (kt + 1) % 2"]
    lines += [f" {kt:2d} | {cur:^15d} | {('-' if nxt is None else nxt):^13} | {kt % 2}, {(kt + 1) % 2}" for kt, cur, nxt in table]
    return Report(lines, first=runs[0], table=table)


def broken_variants(names=("db", "db_no_loop_barrier", "db_no_prologue"), M=24, N=20, K=24, seed=3):
    """Runs db and its bug demos (kernels_numba/demos): {name: (matches numpy, has NaN)}.

    Simulator: one small problem. GPU: where a barrier bug shows reliably (timing decides: at the small size the
    barrier-less db is often right on an H100, at 1024^3 it was wrong every time, issue 24): the largest size that fits
    the race demo's time budget (kit.race_size), `runs` launches each, counted; and beside it the simulator's race
    report of the small problem (a simulator subprocess), so the cause is named as well as the effect."""
    rng = np.random.default_rng(seed)
    if not kn.device.SIMULATOR:
        return _broken_variants_gpu(names, M, N, K, rng)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    ref = A.astype(np.float64) @ B
    res = {}
    for name in names:
        with racy_demo():
            C = module_of(name).launch(A, B, np.zeros((M, N), np.float32))
        C = getattr(C, "_ary", C)
        res[name] = (close(C, ref, K), bool(np.isnan(C).any()))
    lines = [f"{n:20s} numpy 와 일치: {ok}, NaN 이 섞임: {nan}" for n, (ok, nan) in res.items()]
    return Report(lines, **res)


def _broken_variants_gpu(names, M, N, K, rng):
    n, runs = race_size()
    A = rng.standard_normal((n, n), dtype=np.float32)
    B = rng.standard_normal((n, n), dtype=np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32)
    As = rng.standard_normal((M, K), dtype=np.float32)
    Bs = rng.standard_normal((K, N), dtype=np.float32)
    res, lines = {}, [f"GPU: {n}³, 커널마다 {runs}번 실행 (같은 입력) | 시뮬레이터: {M}×{N}×{K} 에서 경쟁 검사"]
    # the simulator's reports come from subprocesses (a Python start-up and a simulation, 1-2 s each): side threads
    # run them all at once (each simulated() call keeps its own races), while this thread runs the GPU launches
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        sims = {name: pool.submit(subsim.simulated, module_of(name).launch, As, Bs, np.zeros((M, N), np.float32))
                for name in names}
        for name in steps(names, "컴파일(JIT)·실행·시뮬레이터 검사"):
            launch = module_of(name).launch
            wrong = nan = 0
            for _ in range(runs):
                launch(dA, dB, dC)
                C = dC.copy_to_host()
                nan += bool(np.isnan(C).any())
                wrong += not close(C, ref, n)
            res[name] = (wrong == 0, nan > 0)
            _, report = sims[name].result()
            lines.append(f"{name:20s} GPU 에서 틀린 실행 {wrong}/{runs} (NaN {nan}번) | 시뮬레이터: "
                         + (report.summary(limit=2).replace(chr(10), " ") if report else "경쟁 없음"))
    return Report(lines, runs=runs, n=n, **res)


# ------------------------------------------------------------------ 3.4 ld.global.ca

PROBE = '''.version 7.0
.target sm_80
.address_size 64
.visible .entry probe(.param .u64 src, .param .u64 dst)
{
    .reg .u64 %rd<3>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    LOAD.f32 %f1, [%rd1];
    st.global.f32 [%rd2], %f1;
    ret;
}'''


def ldg_opcodes_many(loads, cc):
    """{load: SASS LDG opcodes} of PROBE with each load instruction, compiled offline with nvJitLink for sm_<cc>.

    The probes are entries probe_0, probe_1, ... of one PTX module (each exactly PROBE's body): one nvJitLink and one
    cuobjdump run per target instead of one per load."""
    header, body = PROBE.split(".visible", 1)
    ptx = header + "".join(".visible" + body.replace("probe(", f"probe_{i}(").replace("LOAD", ld) + "\n"
                           for i, ld in enumerate(loads))
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(offline.ptx_to_cubin(ptx, cc))
    try:
        sass = subprocess.run([offline._tool("cuobjdump"), "-sass", f.name], capture_output=True, text=True,
                              check=True).stdout
    finally:
        os.unlink(f.name)
    parts = dict(re.findall(r"Function : probe_(\d+)(.*?)(?=Function : |\Z)", sass, re.S))
    return {ld: [op for op in offline.sass_counts(parts[str(i)]) if op.startswith("LDG")] for i, ld in enumerate(loads)}


def ldg_opcodes(load, cc):
    """SASS LDG opcodes of a one-load PTX kernel whose load instruction is `load` (compiled offline with nvJitLink)."""
    return ldg_opcodes_many((load,), cc)[load]


def ldg_probe(loads=LOADS):
    """{load: (sm_80 LDG opcodes, sm_90 LDG opcodes)} for each PTX load form."""
    by_cc = {cc: ldg_opcodes_many(loads, cc) for cc in CCS}
    res = {ld: tuple(by_cc[cc][ld] for cc in CCS) for ld in loads}
    return Report([f"{ld:22s} sm_80 {a}  sm_90 {b}" for ld, (a, b) in res.items()], **res)


def ptx_vs_db():
    """Main-loop LDG/FFMA counts and C stores (STG) of db and db_ptx at sm_80/sm_90, and their PTX instruction counts."""
    DB, lines, loop = _db(), [], {}
    comp = compiled([(k, cc) for k in ("db", "db_ptx") for cc in CCS], "컴파일 (GPU 없이 sm_80·sm_90)")
    for k in ("db", "db_ptx"):
        for cc in CCS:
            s = comp[k, cc]["sass"]
            cnt = {}
            for _, op, _ in DB.sass_main_loop(s):
                if op.startswith(("LDG", "FFMA")):
                    cnt[op] = cnt.get(op, 0) + 1
            stg = {op: n for op, n in sorted(offline.sass_counts(s).items()) if op.startswith("STG")}
            loop[k, cc] = (cnt, stg)
            lines.append(f"{k:7s} sm_{cc[0]}{cc[1]}: 메인 루프 {cnt} | C 저장 {stg}")
    p = {k: offline.ptx_counts(comp[k, (8, 0)]["ptx"], ("fma.rn.f32", "ld.global.f32", "ld.global.ca.f32"))
         for k in ("db", "db_ptx")}
    lines.append(f"PTX: {p}")
    return Report(lines, loop=loop, ptx=p)


# ------------------------------------------------------------------ 3.5 shared memory and occupancy

def smem_per_stage():
    """Bytes of one buffer set As[BM][BK+1] + Bs[BK][BN+1] (float32) of db."""
    DB = _db()
    return DB.BM * DB.BK_PAD * 4 + DB.BK * DB.BN_PAD * 4


def shared_by_stages(rec):
    """Shared bytes for 1-3 buffer sets, next to what the sm_80/sm_90 cubins and the kernel loaded on the H200 report."""
    DB, per = _db(), smem_per_stage()
    lines = [f"버퍼 {S}개: As {S * DB.BM * DB.BK_PAD * 4:6,d} B + Bs {S * DB.BK * DB.BN_PAD * 4:6,d} B = {S * per:6,d} B" for S in (1, 2, 3)]
    comp = compiled([("db", cc) for cc in CCS])          # compiled in 3.4 already (ptx_vs_db)
    rep = {cc: comp["db", cc]["usage"] for cc in CCS}
    loaded = rec["resources"]["db"]["shared_bytes"]
    lines.append(f"db 의 보고: sm_80 cubin {rep[(8, 0)]['shared_bytes']:,} B, sm_90 cubin {rep[(9, 0)]['shared_bytes']:,} B, "
                 f"H200 에 올라간 커널 {loaded:,} B | 레지스터 sm_80 {rep[(8, 0)]['registers']}, sm_90 {rep[(9, 0)]['registers']}")
    return Report(lines, per_stage=per, cubin={cc: r["shared_bytes"] for cc, r in rep.items()}, loaded=loaded,
                  regs={cc: r["registers"] for cc, r in rep.items()})


def occupancy_by_stages(regs_by_cc, stages=(1, 2, 3), gpu=None):
    """Blocks per SM of db for 1-3 buffer sets on A100/H100/H200 with the compiled register counts: {(gpu, S): Occupancy};
    with a GPU present (or `gpu` given) also on that GPU with db's registers there (occ_here: {S: Occupancy})."""
    DB, per, occ, lines = _db(), smem_per_stage(), {}, []
    for g in GPUS:
        r = regs_by_cc[occupancy.GPUS[g].cc]
        for S in stages:
            o = occ[g, S] = occupancy.occupancy(g, r, DB.THREADS, S * per)
            lines.append(f"{g} 버퍼 {S}개: 공유 메모리만 보면 {o.limits['shared memory']:2d}블록, 레지스터({r}개)로는 "
                         f"{o.limits['registers']}블록 → {o.blocks_per_sm}블록, 점유율 {o.percent:.1f}%")
    spec, live = gpu_here(gpu)
    here = {}
    if spec is not None:
        r = kernel_resources("db", None if live else spec)["registers"]
        for S in stages:
            o = here[S] = occupancy.occupancy(spec, r, DB.THREADS, S * per)
            lines.append(f"{here_label(spec)} 버퍼 {S}개: 공유 메모리만 보면 {o.limits['shared memory']:2d}블록, "
                         f"레지스터({r}개)로는 {o.limits['registers']}블록 → {o.blocks_per_sm}블록, 점유율 {o.percent:.1f}%")
    return Report(lines, occ=occ, occ_here=here)


# ------------------------------------------------------------------ 4.3 SASS order

def loop_phases(name, cc):
    """Main-loop order of kernel `name` (db.sass_order), with LDS and FFMA runs folded into one compute phase."""
    order = _db().sass_order(compiled([(name, cc)])[name, tuple(cc)]["sass"])
    phases = []
    for kind, n in order:
        kind = "계산(LDS+FFMA)" if kind in ("LDS", "FFMA") else kind
        if phases and phases[-1][0] == kind:
            phases[-1] = (kind, phases[-1][1] + n)
        else:
            phases.append((kind, n))
    return order, phases


def ffma_between(order, first, then):
    """FFMAs issued after the first `first` instruction and before the first `then` instruction of an order."""
    seen, count = False, 0
    for kind, n in order:
        if kind == then and seen:
            return count
        seen = seen or kind == first
        count += n if (seen and kind == "FFMA") else 0
    return count


def order_facts(order):
    """What 4.4's prose says about a main-loop order [(kind, count)], read from that order (compilers order the loads
    and stores differently): LDG and STS counts, LDGs before the first STS, FFMAs between the first LDG and the first
    STS, and whether every STS comes before the first compute instruction (LDS/FFMA) or after the last one."""
    flat = [k for k, n in order for _ in range(n)]
    compute = [i for i, k in enumerate(flat) if k in ("LDS", "FFMA")]
    sts = [i for i, k in enumerate(flat) if k == "STS"]
    ldg = [i for i, k in enumerate(flat) if k == "LDG"]
    return {"ldg": len(ldg), "sts": len(sts), "ldg_before_sts": sum(i < sts[0] for i in ldg) if sts else len(ldg),
            "ffma_between": ffma_between(order, "LDG", "STS"),
            "sts_before_compute": bool(sts and compute and max(sts) < min(compute)),
            "sts_after_compute": bool(sts and compute and min(sts) > max(compute)),
            "ldg_before_compute": bool(ldg and compute and max(ldg) < min(compute))}


def _facts_line(name, cc, f):
    where = ("모든 STS 가 계산 앞" if f["sts_before_compute"] else
             "모든 STS 가 계산 뒤" if f["sts_after_compute"] else "STS 가 계산 사이에 섞임")
    return (f"  {name} sm_{cc[0]}{cc[1]}: LDG {f['ldg']}개 중 {f['ldg_before_sts']}개가 첫 STS 앞, STS {f['sts']}개, "
            f"첫 LDG 와 첫 STS 사이 FFMA {f['ffma_between']}개, {where}"
            + (", 모든 LDG 가 계산 앞" if f["ldg_before_compute"] else ""))


def overlap_table(names=("db", "db_overlap")):
    """Main-loop phases of each kernel at sm_80/sm_90 and what the prose reads from them (order_facts)."""
    lines, between, facts = [], {}, {}
    compiled([(n, cc) for n in names for cc in CCS], "컴파일 (GPU 없이 sm_80·sm_90)")
    for name in names:
        for cc in CCS:
            order, phases = loop_phases(name, cc)
            facts[name, cc] = order_facts(order)
            between[name, cc] = facts[name, cc]["ffma_between"]
            lines.append(f"{name:10s} sm_{cc[0]}{cc[1]}: " + " → ".join(f"{k}×{n}" for k, n in phases))
    lines.append("이 컴파일러의 순서에서 읽은 것:")
    lines += [_facts_line(name, cc, facts[name, cc]) for name in names for cc in CCS]
    # loops nested in the main loop (a k loop the compiler left rolled): a store moved below the compute would have to
    # cross it (4.4's second bullet)
    inner = {(name, cc): [sum(i.base == "FFMA" for i in body) for body in
                          resources.inner_loops(compiled([(name, cc)])[name, tuple(cc)]["sass"])]
             for name in names for cc in CCS}
    lines += [f"  {name} sm_{cc[0]}{cc[1]}: 메인 루프 안의 안쪽 루프 "
              + (f"{len(x)}개 (FFMA {'·'.join(map(str, x))}개, 배리어 없음)" if x else "없음 (완전히 펼쳐짐)")
              for (name, cc), x in inner.items()]
    return Report(lines, between=between, facts=facts, inner=inner)


def sink_facts(order):
    """What 4.6 reads from a main-loop order: FFMAs in all, FFMAs before the first LDG, FFMAs between the first LDG and
    the first STS, and whether the loads were sunk (first LDG past the middle of the FFMAs, as tests/test_db.py asks)."""
    flat = [k for k, n in order for _ in range(n)]
    total = flat.count("FFMA")
    before = flat[:flat.index("LDG")].count("FFMA") if "LDG" in flat else total
    return {"ffma": total, "ffma_before_ldg": before, "ffma_between": ffma_between(order, "LDG", "STS"),
            "sunk": before > total // 2}


def _sink_line(name, cc, f):
    verdict = (f"LDG 가 계산의 뒤쪽으로 옮겨짐: 로드와 겹치는 계산은 FFMA {f['ffma_between']}개뿐" if f["sunk"] else
               f"LDG 가 계산의 앞쪽: 로드와 겹치는 계산 FFMA {f['ffma_between']}개")
    return f"  {name} sm_{cc[0]}{cc[1]}: FFMA {f['ffma']}개 중 {f['ffma_before_ldg']}개가 첫 LDG 앞 → {verdict}"


def sunk_loads(names=("db_overlap", "db_overlap_checked_only")):
    """4.6: db_overlap next to its variant with the bounds-checked loads only (kernels_numba/demos), compiled offline at
    sm_80/sm_90: each main loop's phases and where ptxas put the LDGs (sink_facts)."""
    lines, facts = [], {}
    compiled([(n, cc) for n in names for cc in CCS], "컴파일 (GPU 없이 sm_80·sm_90)")
    for name in names:
        for cc in CCS:
            order, phases = loop_phases(name, cc)
            facts[name, cc] = sink_facts(order)
            lines.append(f"{name:23s} sm_{cc[0]}{cc[1]}: " + " → ".join(f"{k}×{n}" for k, n in phases))
    lines.append("이 컴파일러의 순서에서 읽은 것:")
    lines += [_sink_line(name, cc, facts[name, cc]) for name in names for cc in CCS]
    return Report(lines, facts=facts)


def overlap_resources(gpu=None):
    """db_overlap's registers, shared and local bytes at sm_80/sm_90 and the occupancy they give (A100, H100), and
    with a GPU present (or `gpu` given) its blocks per SM there."""
    ov = kn.get("db_overlap").module
    lines, blocks = [], {}
    comp = compiled([("db_overlap", cc) for cc in CCS])             # compiled in 4.4 already (overlap_table)
    for cc, g in zip(CCS, ("A100", "H100")):
        u = comp["db_overlap", cc]["usage"]
        local = u["local_bytes"] + u.get("stack_bytes", 0)          # spills: LOCAL or the stack frame (resources.report)
        o = occupancy.occupancy(g, u["registers"], ov.THREADS, 2 * ov.BK * (ov.BM_PAD + ov.BN) * 4)
        blocks[g] = o.blocks_per_sm
        lines.append(f"db_overlap sm_{cc[0]}{cc[1]}: 레지스터 {u['registers']}, 공유 메모리 {u['shared_bytes']:,} B, "
                     f"로컬(스필) {local} B → {g} 에서 {o.blocks_per_sm}블록/SM, 점유율 {o.percent:.1f}%")
    here = kernels_here(("db_overlap",), gpu)
    if here:
        lines += here.lines
    return Report(lines, blocks=blocks, here=here)


# ------------------------------------------------------------------ 4.6-4.7 measurements

def _bench_lines(rows, names):
    sizes = sorted({r.n for r in rows})
    cell = {(r.kernel, r.n): r for r in rows}
    lines = [_ljust("커널", 13) + "".join(f"{str(n) + '³':>22s}" for n in sizes)]
    for name in ["cuBLAS", *names]:
        if any((name, n) in cell for n in sizes):
            lines.append(f"{name:13s}" + "".join(f"{cell[name, n].tflops:7.2f} TFLOP/s {100 * cell[name, n].ratio:5.1f}%"
                                                 if (name, n) in cell else " " * 22 for n in sizes))
    return lines, cell, sizes


def bench_table(rec, live=None, names=None):
    """TFLOP/s and % of cuBLAS (same run) of cuBLAS and the level 3-4 kernels: the recorded run, and under it the run
    just made on this GPU when `live` (measure.benchmark's result) is given, each labelled with its GPU and date."""
    names = names or [s.name for s in kn.REGISTRY if s.level in (3, 4)]
    lines, cell, sizes = _bench_lines(rec.rows, names)
    lines.insert(0, f"기록(recorded) — {rec.gpu} {rec.date}")
    values = {"ratio": {k: r.ratio for k, r in cell.items()}, "sizes": sizes}
    if live:
        lines += ["", *measure.live_lines(live, names)]
        lcell = {(r.kernel, r.n): r for r in live.rows}
        values.update(live_ratio={k: r.ratio for k, r in lcell.items()}, live_sizes=live.sizes)
    return Report(lines, **values)


def _ljust(text, width):
    """Left-justify for a monospace screen: Hangul and other wide characters take two columns."""
    cols = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - cols)


def pair_ratios(rec):
    """At every recorded size: each double-buffer kernel / its single-buffer kernel with the same shared layout."""
    R = {(r.kernel, r.n): r.ratio for r in rec.rows}
    sizes = sorted({r.n for r in rec.rows})
    pairs = (("regblock_opt", "db"), ("regblock_opt", "db_ptx"), ("regblock_vec", "db_overlap"))
    by_n = {n: {d: R[d, n] / R[s, n] for s, d in pairs} for n in sizes}
    lines = [" " * 27 + "".join(f"{str(n) + '³':>9s}" for n in sizes)]
    lines += [_ljust(d + " ÷ " + s, 27) + "".join(f"{by_n[n][d]:9.3f}" for n in sizes) for s, d in pairs]
    lines += [_ljust(k + " (cuBLAS 대비)", 27) + "".join(f"{100 * R[k, n]:8.1f}%" for n in sizes)
              for k in ("db", "db_ptx", "db_overlap")]
    n = sizes[-1]
    return Report(lines, pair=by_n[n], by_n=by_n, ratio={k: R[k, n] for k in ("db", "db_ptx", "db_overlap")},
                  ratios={(k, m): R[k, m] for k in ("db", "db_ptx", "db_overlap") for m in sizes}, n=n, sizes=sizes)


def stall_shares(rec, names=STALL_KERNELS, reasons=STALLS):
    """Recorded ncu shares (%) of each stall reason per kernel, and the sum of cycles per issue."""
    st = rec["ncu_stalls"]
    share = {k: st["metrics"][k]["percent"] for k in names}
    cpi = {k: sum(st["metrics"][k]["cycles_per_issue"].values()) for k in names}
    lines = [f"기록: {rec.gpu} {rec.date}, {st['n']}³ (K 타일 {st['n'] // _db().BK}개), {st['tool']}",
             " " * 24 + "".join(f"{k:>13s}" for k in names)]
    lines += [f"{r:24s}" + "".join(f"{share[k].get(r, 0.0):12.1f}%" for k in names) for r in reasons]
    lines.append(_ljust("합: 명령당 워프-사이클", 24) + "".join(f"{cpi[k]:13.2f}" for k in names))
    return Report(lines, share=share, cpi=cpi)


def issue_use(rec, names=STALL_KERNELS):
    """Share of cycles a scheduler issued, from the recorded ncu figures: warps per scheduler / summed cycles per issue.

    ncu's per-issue stall figures sum to (resident warps x cycles) / issue cycles; `selected` is 1 per issue. The warps
    per scheduler are their time average over the profiled grid (kit.mean_warps: at 2048³ the 256 blocks of
    8 warps fill 256 of the 132 x 2 slots, 3.88 per scheduler): an estimate, as blocks do not all take the same time.
    """
    st = rec["ncu_stalls"]["metrics"]
    warps = {k: mean_warps(rec, k) for k in names}
    use = {k: min(1.0, warps[k] / sum(st[k]["cycles_per_issue"].values())) for k in names}
    lines = [f"{k:13s} 명령당 워프-사이클 합 {sum(st[k]['cycles_per_issue'].values()):5.2f} → 스케줄러가 명령을 낸 사이클 ≈ "
             f"{warps[k]:.2f} / {sum(st[k]['cycles_per_issue'].values()):.2f} = {100 * use[k]:5.1f}%" for k in names]
    return Report(lines, use=use, warps=warps)


# ------------------------------------------------------------------ 6 pipeline model and our tile

def model_vs_formula(cases=((100, 10, 4), (80, 100, 4), (8, 2, 3), (400, 2048, 512), (400, 200, 512))):
    """Single/double-buffer totals of the model, its closed form, and the often-quoted L + N*max(L, C)."""
    lines = [" L    C    N | 모델 싱글  모델 더블  흔한 공식 | 속도 향상: 모델  흔한 공식"]
    rows = []
    for L, C, N in cases:
        single, double = pipeline.schedule(N, L, C, 1).total, pipeline.schedule(N, L, C, 2).total
        sf = pipeline.seed_formula(N, L, C)
        rows.append(dict(L=L, C=C, N=N, single=single, double=double, closed=pipeline.closed_form_total(N, L, C, 2),
                         formula=sf.double, formula_single=sf.single))
        lines.append(f"{L:3d} {C:4d} {N:4d} | {single:9,d} {double:9,d} {sf.double:10,d} | {single / double:13.4f} {sf.speedup:10.4f}")
    return Report(lines, rows=rows)


def issue_window(gpus=GPUS):
    """Per GPU: the fewest cycles one warp needs to issue its tile's BK*TM*TN FFMAs (a warp FFMA occupies its scheduler's
    FP32 lanes for 32 / lanes-per-scheduler cycles), i.e. the least time between a warp's prefetch and its use in a kernel
    that puts the tile's FFMAs between them. Other warps sharing the scheduler only make the window longer."""
    DB = _db()
    fmas = DB.BK * DB.TM * DB.TN
    cyc = {g: fmas * 32 // (occupancy.GPUS[g].fp32_lanes_per_sm // 4) for g in gpus}
    ns = {g: cyc[g] / occupancy.GPUS[g].boost_clock_mhz * 1e3 for g in gpus}
    lines = [f"{g}: 스케줄러당 FP32 레인 {occupancy.GPUS[g].fp32_lanes_per_sm // 4} → 워프 FFMA 하나에 "
             f"{32 // (occupancy.GPUS[g].fp32_lanes_per_sm // 4)} 사이클 × {fmas} = {cyc[g]} 사이클 ({ns[g]:.0f} ns)"
             for g in gpus]
    return Report(lines, cycles=cyc, ns=ns, fmas=fmas)


def issue_window_here(gpu=None):
    """issue_window() for the present GPU (or `gpu`): None without one."""
    spec, _ = gpu_here(gpu)
    if spec is None:
        return None
    if spec.fp32_lanes_per_sm < 4:                 # 0: the per-CC table does not know this GPU
        return Report([_lanes_unknown(spec)], cycles=None, gpu=spec.name)
    DB = _db()
    fmas, lanes = DB.BK * DB.TM * DB.TN, spec.fp32_lanes_per_sm // 4
    cycles = fmas * 32 // lanes
    return Report([f"{here_label(spec)}: 스케줄러당 레인 {lanes} → FFMA {fmas} × {32 // lanes} 사이클 = 창 ≥ {cycles} 사이클"],
                  cycles=cycles, gpu=spec.name)


def verify(names, shapes):
    """kit.verify, one kernel at a time with a progress bar (each kernel's first launch compiles it)."""
    out = {}
    for name in steps(names, "실행·비교" if kn.device.SIMULATOR else "컴파일(JIT)·실행·비교", unit="커널"):
        out.update(verify7((name,), shapes))
    return out


def hideable_latency(between):
    """Per GPU: the per-warp issue window of issue_window(), and which kernels keep their load in flight during it
    (FFMAs between LDG and STS in their SASS)."""
    w = issue_window()
    overlapping = sorted({name for (name, cc), n in between.items() if n > 0})
    lines = [*w.lines, f"LDG 와 STS 사이에 FFMA 가 있는 커널(SASS): {overlapping}; 나머지는 계산 전에 자기 로드를 기다림"]
    return Report(lines, cycles=w["cycles"], ns=w["ns"], overlapping=overlapping, fmas=w["fmas"])
