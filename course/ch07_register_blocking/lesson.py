"""Analysis behind notebook 07 (register blocking): each function computes one table the lesson shows, as a Report."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np

import kernels_numba as kn
from kernels_numba.tools import offline, resources, trace
from kernels_numba.registry import module_of
from course import measure
from course.kit import (CCS, GPUS, Report, check, close, compiled, mean_warps, occupancy_lines,  # noqa: F401
                        shared_traces as traces, source_part, verify,  # (shared with other chapters: course/kit.py)
                        occupancy_vs_api, store_sectors, walkthrough)
from course.measure import here_label  # noqa: F401  (every lesson's label of 'this GPU' figures)
from sim import banks, outer, roofline
from sim import occupancy as occ
from kernels_numba import occupancy as kocc  # the GPU in use and registered kernels (sim/ is pure)
import re
import io

STALL_KEYS = ("selected", "not_selected", "short_scoreboard", "mio_throttle", "long_scoreboard", "barrier",
              "math_pipe_throttle", "wait")


def _rb():
    return kn.get("regblock").module


# ------------------------------------------------------------------ this GPU, compiles and traces a cell needs

def resources_here(names, gpu=None):
    """Report of each kernel's registers, local and shared bytes on `gpu`: as loaded on the GPU in use (gpu None;
    nothing without a GPU) or compiled offline for a GpuSpec's compute capability."""
    label = here_label(gpu)
    if label is None:
        return Report([], rows={})
    rows = {k: resources.report(k) if gpu is None else resources.report(k, gpu.cc) for k in names}
    how = "올라간 커널" if gpu is None else f"오프라인 {gpu.arch}"
    lines = [f"{label}, {how}: {k} 레지스터 {r['registers']}개, 로컬(스필) {r['local_bytes']} B/스레드, "
             f"공유 {r['shared_bytes']:,} B" for k, r in rows.items()]
    return Report(lines, rows=rows)


def occupancy_here(names=("regblock",), gpu=None):
    """'지금 이 GPU (…)' occupancy lines of `names` (kit.occupancy_lines; nothing without a GPU)."""
    return Report(occupancy_lines(names, gpu))


# ------------------------------------------------------------------ 3.1 arithmetic intensity, measured and modelled

def shared_loads_per_fma(name, M, N, K, fmas_per_thread):
    """Shared-memory loads per thread per FMA in one block of kernel `name`, counted from its simulator trace."""
    t = trace.shared_accesses(name, M=M, N=N, K=K)
    loads = sum(r[2] == "load" for r in t["records"])
    return loads / math.prod(t["block_dim"]) / fmas_per_thread


def ai_by_trace():
    """Shared->register AI of tiled and regblock from their traces next to sim.outer's model (FMA = 2 FLOP, 4 B)."""
    rb = _rb()
    per_fma = {"tiled": shared_loads_per_fma("tiled", 16, 16, 32, fmas_per_thread=32),
               "regblock": shared_loads_per_fma("regblock", 128, 128, 16, fmas_per_thread=16 * rb.TM * rb.TN)}
    model = {"tiled": outer.intensity(1, 1), "regblock": outer.intensity(rb.TM, rb.TN)}
    lines, ai = [], {}
    for name, pf in per_fma.items():
        ai[name], m = 2 / (pf * 4), model[name]
        lines.append(f"{name:9s} 기록: FMA당 공유 메모리 읽기 {pf:.3f}번 → AI {ai[name]:.2f} FLOP/B | 모델 "
                     f"TM={m['TM']}, TN={m['TN']}: 읽기 {m['loads']}번, FMA {m['fmas']}번 → AI {m['ai']:.2f}")
    return Report(lines, ai=ai, model={k: v["ai"] for k, v in model.items()})


def intensity_levels():
    """AI = T/4 exactly for square thread tiles, and the block-level global->shared AI of 16x16 and regblock's tile."""
    rb = _rb()
    exact = all(outer.intensity(T, T)["ai_exact"] == outer.ai_closed_form(T, T) == Fraction(T, 4) for T in (1, 2, 4, 8, 16))
    lines = [f"공유→레지스터 AI = T/4 (T = 1, 2, 4, 8, 16 에서 분수로 정확히 일치: {exact})"]
    block = {}
    for BM, BN, BK in ((16, 16, 16), (rb.BM, rb.BN, rb.BK)):
        b = outer.block_intensity(BM, BN, BK)
        block[(BM, BN)] = b["ai"]
        lines.append(f"글로벌→공유, 블록 {BM}×{BN} (BK={BK}): 타일마다 {b['loads']} floats 로드, FMA {b['fmas']:,d}번 → AI {b['ai']:.1f} FLOP/B")
    return Report(lines, exact=exact, block=block)


def shared_bound_table(ais=(0.25, 2.0)):
    """Fraction of FP32 peak the shared-memory bandwidth (128 B/clock/SM) allows at each shared->register AI."""
    lines = [f"{'GPU':5s} {'FP32 FLOP/사이클/SM':>18s} {'공유 B/사이클/SM':>16s}" + "".join(f" {'AI ' + str(a) + ' 상한':>12s}" for a in ais)]
    bound = {}
    for g in GPUS:
        s = occ.GPUS[g]
        flop_clk = 2 * s.fp32_lanes_per_sm
        bound[g] = [min(1.0, banks.WAVEFRONT_BYTES * a / flop_clk) for a in ais]
        lines.append(f"{g:5s} {flop_clk:18d} {banks.WAVEFRONT_BYTES:16d}" + "".join(f" {100 * b:11.1f}%" for b in bound[g]))
    a = occ.GPUS["A100"]
    bw = a.sm_count * banks.WAVEFRONT_BYTES * a.boost_clock_mhz * 1e6 / 1e9
    lines.append(f"A100 공유 메모리 대역폭 = {a.sm_count} SM × 128 B × {a.boost_clock_mhz} MHz = {bw:,.0f} GB/s → × 0.25 = "
                 f"{bw * 0.25:,.0f} GFLOP/s = 피크 {a.fp32_peak_tflops:.1f} TFLOP/s 의 {100 * bw * 0.25 / (a.fp32_peak_tflops * 1e3):.0f}%")
    return Report(lines, bound=bound, a100_shared_gbps=bw)


def roofline_position():
    """Ridge point (peak FLOP / DRAM byte) of A100/H100/H200 next to the global->shared AI of tiled (16x16) and regblock."""
    rb = _rb()
    ai = {"tiled": outer.block_intensity(16, 16, 16)["ai"], "regblock": outer.block_intensity(rb.BM, rb.BN, rb.BK)["ai"]}
    lines = [f"{'GPU':13s} {'FP32 피크':>10s} {'DRAM':>10s} {'리지 포인트(ridge)':>13s}  " + "  ".join(f"{k} (AI {v:g})" for k, v in ai.items())]
    ridge = {}
    for row in roofline.table():
        g = row["gpu"]
        ridge[g] = roofline.ridge_point(g)
        side = "  ".join(f"{'리지 위' if v >= ridge[g] else '리지 아래':>{len(k) + 9}s}" for k, v in ai.items())
        lines.append(f"{row['name']:13s} {row['peak_tflops']:7.1f} TF {row['dram_gbps']:7.0f} GB/s {ridge[g]:9.1f} FLOP/B  {side}")
    return Report(lines, ridge=ridge, ai=ai)


# ------------------------------------------------------------------ 3.2-3.3 tiles and reuse

def tile_hierarchy():
    """The three tile levels of regblock from its module constants (threads x thread tile = block tile)."""
    rb = _rb()
    threads = rb.BLOCK[0] * rb.BLOCK[1]
    lines = [f"블록 = {rb.BLOCK[0]}×{rb.BLOCK[1]} = {threads} 스레드, 스레드 타일 {rb.TM}×{rb.TN} = {rb.TM * rb.TN} 원소",
             f"스레드 수 × 스레드 타일 = {threads} × {rb.TM * rb.TN} = {threads * rb.TM * rb.TN:,d} = 블록 타일 {rb.BM}×{rb.BN}",
             f"K 타일마다: As {rb.BM}×{rb.BK} + Bs {rb.BK}×{rb.BN} floats → 스레드당 {rb.BM * rb.BK // threads} + "
             f"{rb.BK * rb.BN // threads} 개 로드, FMA {rb.BK * rb.TM * rb.TN}번"]
    ok = (rb.BLOCK == (rb.BN // rb.TN, rb.BM // rb.TM) and threads * rb.TM * rb.TN == rb.BM * rb.BN
          and (rb.BM * rb.BK) % threads == 0 and (rb.BK * rb.BN) % threads == 0)
    return Report(lines, ok=ok, threads=threads)


def order_compare():
    """One K tile of one thread in outer and dot order (sim.outer tracer): loads, loads per FMA, and for the values
    A[m=0][k=0] and B[k=0][n=0] how often each was read from shared memory and how many FMAs used it."""
    rb = _rb()
    res = {o: outer.OuterProductTracer(rb.TM, rb.TN, BK=rb.BK, order=o).run() for o in outer.ORDERS}
    lines = [f"{o:5s}: FMA {s.fmas}, 공유 메모리 읽기 {s.loads}, FMA당 {s.loads_per_fma:.3f} | 값 A[m=0, k=0]: 읽기 "
             f"{s.a_loads[0][0]}번 → FMA {s.a_uses[0][0]}번, 값 B[k=0, n=0]: 읽기 {s.b_loads[0][0]}번 → FMA "
             f"{s.b_uses[0][0]}번" for o, s in res.items()]
    return Report(lines, **res)


def readers_per_element(records):
    """How many threads read each shared element, per array: {array: Counter(readers -> elements)} from a trace."""
    readers = {}
    for arr, site, op, inst, tid, addr, width in records:
        if op == "load":
            readers.setdefault((arr, addr), set()).add(tid)
    return {arr: Counter(len(t) for (a, _), t in readers.items() if a == arr) for arr in sorted({a for a, _ in readers})}


# ------------------------------------------------------------------ 3.4 registers and spills

def registers():
    """ptxas's registers/local/shared for regblock at sm_80 and sm_90, the recorded H200 load, and 64-bit index ops."""
    compiled([("regblock", cc) for cc in CCS])
    rep = {cc: resources.report("regblock", cc) for cc in CCS}
    lines = [f"regblock {r['cc']}: 레지스터 {r['registers']}개, 로컬(스필) {r['local_bytes']} B, "
             f"SASS LDL {r['ldl']} / STL {r['stl']}" for r in rep.values()]
    ops = Counter(i.op for i in resources.parse_sass(rep[(9, 0)]["sass_text"]))
    wide = {"ISETP…EX": sum(v for k, v in ops.items() if k.startswith("ISETP") and ".EX" in k),
            "IMAD.WIDE…": sum(v for k, v in ops.items() if k.startswith("IMAD.WIDE")), "SEL": ops["SEL"]}
    lines.append("sm_90 SASS 의 64비트 인덱스 흔적: " + ", ".join(f"{k} {v}개" for k, v in wide.items()))
    return Report(lines, rep=rep, wide=wide)


def spills(rec):
    """regblock_t16 (16x16 per thread): registers within the limit, the rest in local memory (sm_80, sm_90, recorded H200)."""
    d16 = outer.intensity(16, 16)
    compiled([("regblock_t16", cc) for cc in CCS])
    t16 = {cc: resources.report("regblock_t16", cc) for cc in CCS}
    lines = [f"모델 TM=TN=16: 데이터 레지스터 {d16['data_regs']}개 (최소 {d16['data_regs_min']}개) > 상한 {outer.REG_LIMIT}"]
    lines += [f"regblock_t16 {r['cc']}: 레지스터 {r['registers']}개, 로컬 메모리 {r['local_bytes']} B/스레드, "
              f"STL {r['stl']}개 / LDL {r['ldl']}개" for r in t16.values()]
    lines.append(f"H200 에 올라간 regblock_t16 (기록): {rec['resources']['regblock_t16']}")
    return Report(lines, t16=t16)


# ------------------------------------------------------------------ 3.5 occupancy

DIVISION_EXAMPLES = (90, 104)       # 3.5's first cell: register counts where the division % and the rules differ


def occupancy_rules(regs_by_cc, smem):
    """Register division (65,536 / regs) next to the occupancy rules, for DIVISION_EXAMPLES and regblock on each GPU."""
    rb = _rb()
    lines, pct = [], {}
    for regs in DIVISION_EXAMPLES:
        s, o = occ.division_estimate(regs), occ.occupancy("H100", regs, rb.THREADS, smem)
        pct[regs] = (100 * s.occupancy, o.percent)
        lines.append(f"레지스터 {regs:3d}개 — 나눗셈: {s.warps}워프 → {100 * s.occupancy:.1f}% | 규칙: {o.summary()}")
    for g in GPUS:
        spec = occ.GPUS[g]
        o = occ.occupancy(spec, regs_by_cc[spec.cc], rb.THREADS, smem)
        pct[g] = o.percent
        lines.append(f"regblock ({spec.arch}, 레지스터 {regs_by_cc[spec.cc]}개) on {o.summary()}")
    return Report(lines, percent=pct)


# rule_variants' names of the three shortcuts; "블록 나눗셈" is the division floored to whole blocks, not the division %
# of 3.5's first cell and the widget's grey line (division_estimate), which is not floored to blocks
SHORTCUTS = ("블록 나눗셈", "할당 단위 없이", "서브파티션 없이")


def rule_variants(regs, threads, smem=0, gpu="H100", carveout=None):
    """Blocks per SM by the rule model (sim/occupancy) and by three shortcuts that change only its register limit
    (the warp, block and shared-memory limits stay): the division 65,536 // regs threads floored to whole warps, then
    to blocks; the rules without the 256-register allocation unit; the rules without the 4 sub-partitions.
    carveout: as sim.occupancy.occupancy (None: the default)."""
    spec = occ.get_spec(gpu)
    o = occ.occupancy(spec, regs, threads, smem, carveout)
    other = min(v for k, v in o.limits.items() if k != "registers")
    warps, part = -(-threads // 32), spec.regs_per_sm // spec.sub_partitions
    per_warp = -(-regs * 32 // spec.reg_alloc_unit) * spec.reg_alloc_unit
    reg = (occ.division_estimate(regs, spec.regs_per_sm).threads_in_warps // threads,
           part // (regs * 32) * spec.sub_partitions // warps, spec.regs_per_sm // per_warp // warps)
    return {"모델": o.blocks_per_sm, **{k: min(b, other) for k, b in zip(SHORTCUTS, reg)}}


def _variant_line(head, v):
    return f"{head}: 모델 {v['모델']}블록/SM | " + ", ".join(f"{k} {v[k]}" for k in SHORTCUTS)


def shortcuts_at_api(rec, gpu="H200"):
    """rule_variants at each kernel the recorded occupancy API answered; same[name]: the model and all three shortcuts
    give one block count there, so the API's answer cannot tell them apart."""
    lines, same = [], {}
    for name, api in rec["occupancy_api"].items():
        r = rec["resources"][name]
        v = rule_variants(r["registers"], api["threads"], r["shared_bytes"], gpu)
        same[name] = len(set(v.values())) == 1
        lines.append(_variant_line(f"{name:13s} 레지스터 {r['registers']:3d}, {api['threads']:3d} 스레드", v))
    return Report(lines, same=same)


def shortcut_differs(threads=256, smem=0, gpu="H100"):
    """Register counts 1..255 where the division shortcut gives another block count than the rules, as runs (lo, hi)."""
    runs = []
    for r in range(1, 256):
        v = rule_variants(r, threads, smem, gpu)
        if v[SHORTCUTS[0]] == v["모델"]:
            continue
        if runs and runs[-1][1] == r - 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return [tuple(x) for x in runs]


def recorded_register_counts(threads, *recs):
    """Register counts a record measured with blocks of `threads` threads: the occupancy_api entries of a benchmark
    record (gpu_h200_levels34) and the rows of the occupancy check record (benchmarks/occupancy_check.py)."""
    counts = set()
    for rec in recs:
        api = rec.get("occupancy_api")
        api = api if isinstance(api, dict) else {}          # the occupancy check record names its API there instead
        counts |= {rec["resources"][k]["registers"] for k, a in api.items() if a["threads"] == threads}
        if rec.get("row_fields", [])[:3] == ["regs", "static", "block"]:
            counts |= {row[0] for row in rec["rows"] if row[2] == threads}
    return counts


def shortcut_example(regs=33, threads=256, recs=(), gpu="H100"):
    """A model-only example where the rules and the division shortcut disagree, the register ranges where they do at
    this block size, and which of those register counts the records `recs` measured at it (covered; empty: none)."""
    v = rule_variants(regs, threads, 0, gpu)
    runs = shortcut_differs(threads, 0, gpu)
    differ = {r for a, b in runs for r in range(a, b + 1)}
    covered = differ & recorded_register_counts(threads, *recs)
    where = ", ".join(f"{a}–{b}" if a != b else f"{a}" for a, b in runs)
    pct = division_percent_differs(threads, 0, gpu)
    shown = [r for r in DIVISION_EXAMPLES if r in pct]
    lines = [_variant_line(f"{gpu}, 레지스터 {regs}개, {threads} 스레드 (모델 계산, 측정 아님)", v),
             f"{threads} 스레드에서 {SHORTCUTS[0]}이 규칙과 다른 레지스터 수: {where}",
             f"그중 기록(H200 점유율 API)이 {threads} 스레드로 잰 레지스터 수: "
             + (", ".join(map(str, sorted(covered))) if covered else "없음"),
             f"비교: 첫 셀의 나눗셈 %(블록으로 내리지 않은 어림)가 규칙의 점유율과 다른 레지스터 수: 1–255개 중 {len(pct)}개"
             + (f" ({', '.join(map(str, shown))} 포함)" if shown else "")]
    return Report(lines, variants=v, runs=runs, covered=covered, percent_differs=pct)


def division_percent_differs(threads=256, smem=0, gpu="H100"):
    """Register counts 1..255 where the division % (occ.division_estimate: 65,536 // regs threads floored to warps,
    not to blocks; 3.5's first cell and the widget's grey line) differs from the rules' occupancy."""
    spec = occ.get_spec(gpu)
    out = []
    for r in range(1, 256):
        d = occ.division_estimate(r, spec.regs_per_sm, spec.max_threads_per_sm)
        if abs(100 * d.occupancy - occ.occupancy(spec, r, threads, smem).percent) > 1e-9:
            out.append(r)
    return out


def check_rows_vs_shortcuts(check, gpu="H200"):
    """Rows of the recorded occupancy check (notebook 06's H200 record) where a shortcut's block count differs from the
    model's, by shortcut: (rows, rows where the API answered the model's count, block sizes of those rows)."""
    fields = check["row_fields"]
    out = {k: [0, 0, set()] for k in SHORTCUTS}
    by_threads, by_warps = [], []        # rows where the block division differs: gone / left when it counts whole warps
    sub_rows = set()
    for i, row in enumerate(check["rows"]):
        r = dict(zip(fields, row))
        carveout = None if r["carveout"] == -1 else r["carveout"]          # -1: the default, as the record writes it
        v = rule_variants(r["regs"], r["block"], r["static"] + r["dyn"], gpu, carveout)
        for k in SHORTCUTS:
            if v[k] != v["모델"]:
                out[k][0] += 1
                out[k][1] += r["api"] == v["모델"]
                out[k][2].add(r["block"])
        if v[SHORTCUTS[2]] != v["모델"]:
            sub_rows.add(i)
        if v[SHORTCUTS[0]] != v["모델"]:
            w = division_in_warps(r["regs"], r["block"], r["static"] + r["dyn"], gpu, carveout)
            (by_warps if w != v["모델"] else by_threads).append((i, r["block"]))
    lines = [f"{k}: 모델과 다른 줄 {n}개" + (f" (블록 {', '.join(map(str, sorted(b)))} 스레드), 그중 API 가 모델과 같은 "
                                          f"줄 {m}개" if n else "") for k, (n, m, b) in out.items()]
    if by_threads or by_warps:
        slots = ", ".join(f"{b} 스레드 = 워프 {-(-b // 32)}개 = 스레드 자리 {-(-b // 32) * 32}개"
                          for b in sorted({b for _, b in by_threads}))
        same = {i for i, _ in by_warps} == sub_rows
        lines.append(f"{SHORTCUTS[0]}이 다른 {len(by_threads) + len(by_warps)}줄 가운데 블록을 워프 수로 나누면 모델과 "
                     f"같아지는 줄 {len(by_threads)}개" + (f" ({slots})" if slots else "")
                     + f", 그래도 다른 줄 {len(by_warps)}개" + (" (= '서브파티션 없이' 가 다른 줄)" if same else ""))
    return Report(lines, counts={k: tuple(x[:2]) for k, x in out.items()}, blocks={k: x[2] for k, x in out.items()},
                  split=(len(by_threads), len(by_warps)), split_blocks={b for _, b in by_threads},
                  warps_left_are_sub_rows={i for i, _ in by_warps} == sub_rows)


def division_in_warps(regs, threads, smem=0, gpu="H100", carveout=None):
    """The block division counted in whole warps: (65,536 // regs threads floored to warps) // the block's warps
    (rounded up), capped by the other limits as rule_variants; it differs from rule_variants' block division only
    where a block's threads are not a multiple of 32."""
    spec = occ.get_spec(gpu)
    o = occ.occupancy(spec, regs, threads, smem, carveout)
    other = min(v for k, v in o.limits.items() if k != "registers")
    return min(occ.division_estimate(regs, spec.regs_per_sm).warps // -(-threads // 32), other)


def register_steps(gpu="H100", threads=256, smem=0):
    """Register ranges 1..255 with the same register limit and blocks per SM: [(lo, hi, register_blocks, blocks,
    percent)]. register_blocks counts registers only (07-4's answer); blocks is the minimum over every limit (warps,
    blocks, shared memory too), so the two differ where another limit cuts first. gpu: a name or a GpuSpec."""
    runs = []
    for regs, o in occ.sweep_registers(occ.get_spec(gpu), threads, smem):
        key = (o.limits["registers"], o.blocks_per_sm)
        if runs and tuple(runs[-1][2:4]) == key:
            runs[-1][1] = regs
        else:
            runs.append([regs, regs, *key, o.percent, o.limiter])
    lines = [f"레지스터 {lo:3d}–{hi:3d}개: 레지스터 한도 {rb:2d}블록 → SM당 {b}블록"
             + (f"({occ.LIMITER_KO[lim]} 한도)" if b < rb else "") + f" → 점유율 {p:5.1f}%"
             for lo, hi, rb, b, p, lim in runs]
    return Report(lines, runs=[tuple(r[:5]) for r in runs])


def register_steps_here(threads=256, smem=0, gpu=None):
    """register_steps for `gpu` (None: the GPU in use), headed '지금 이 GPU (…)'; empty without a GPU."""
    gpu = gpu if gpu is not None else kocc.current_gpu()
    if gpu is None:
        return Report([], runs=[])
    r = register_steps(gpu, threads, smem)
    return Report([f"{here_label(gpu)}, 블록 {threads} 스레드, 공유 {smem:,} B:"] + r.lines, runs=r["runs"])


def shared_limits(name, rec, gpu=None):
    """Declared shared bytes (sm_80 report, sm_90 report, loaded on the recorded H200) and the 1 KiB per-block system
    reserve on A100/H100/H200 (the recorded H200's loaded bytes), plus one line for `gpu` with that GPU's own figures:
    None: the GPU in use, from the kernel as loaded on it (kernels_numba.occupancy.occupancy_here; no line without a GPU);
    a GpuSpec: from the offline compile for its compute capability (kernels_numba.occupancy.kernel_occupancy)."""
    compiled([(name, cc) for cc in CCS])
    rep = {cc: resources.report(name, cc)["shared_bytes"] for cc in CCS}
    loaded = rec["resources"][name]["shared_bytes"]
    lines = [f"{name}: cubin 보고 sm_80 {rep[(8, 0)]:,} B, sm_90 {rep[(9, 0)]:,} B | H200 에 올라간 커널의 속성 {loaded:,} B"]
    regs = resources.report(name, (8, 0))["registers"]

    def line(head, s, o):
        return (f"{head}: SM당 공유 메모리 최대 {s.smem_per_sm // 1024} KiB, 블록당 할당 {o.smem_allocated_per_block:,} B "
                f"(선언 {o.smem_per_block:,} + 시스템 예약 {s.smem_reserved_per_block:,}) → 공유 메모리만으로는 "
                f"{o.limits['shared memory']}블록")
    for g in GPUS:
        s = occ.GPUS[g]
        lines.append(line(f"{g} ({s.arch})", s, occ.occupancy(s, regs, _rb().THREADS, loaded)))
    here = gpu if gpu is not None else kocc.current_gpu()
    if here is not None:
        o = kocc.occupancy_here(name) if gpu is None else kocc.kernel_occupancy(name, here)
        how = "올라간 커널" if gpu is None else f"오프라인 {here.arch} 컴파일"
        if o is not None:
            lines.append(line(f"{here_label(here)}, {how}", here, o))
    return Report(lines, cubin=rep, loaded=loaded, reserved={g: occ.GPUS[g].smem_reserved_per_block for g in GPUS})


# ------------------------------------------------------------------ 3.6 ILP in the SASS

def loop_stats(body):
    """One pass of a SASS loop body: instruction count, FFMA/LDS/BAR counts, longest FFMA -> FFMA dependency chain."""
    depth, chain = {}, 0
    for i in body:
        regs = [r.strip().split(".")[0] for r in i.operands.split(",")]
        if i.base == "FFMA":
            d = 1 + max(depth.get(r, 0) for r in regs[1:])
            depth[regs[0]], chain = d, max(chain, d)
        else:
            depth.pop(regs[0], None)          # another instruction overwrote the register
    return dict(n=len(body), FFMA=sum(i.base == "FFMA" for i in body), LDS=sum(i.base == "LDS" for i in body),
                BAR=sum(i.base == "BAR" for i in body), chain=chain)


def ilp(sass_rb, sass_tiled):
    """Loop statistics of regblock's K-tile loop, its inner k loop and tiled's tile loop (sm_90 SASS)."""
    loops = {"regblock K 타일 루프": loop_stats(resources.main_loop(sass_rb)),
             "regblock k 루프": loop_stats(resources.inner_loops(sass_rb)[0]),
             "tiled 타일 루프": loop_stats(resources.main_loop(sass_tiled))}
    lines = [f"{k:20s}: 명령 {v['n']:3d}개, FFMA {v['FFMA']:2d}, LDS {v['LDS']:2d}, BAR {v['BAR']}, FFMA 의존 사슬 최대 {v['chain']}"
             for k, v in loops.items()]
    return Report(lines, **loops)


def compile_error(kernel, *args):
    """4.1: launch `kernel[1, 1](*args)` expecting the GPU compiler's refusal (a shape that is not a compile-time
    constant); 'PASS: 거부됨 (error type)' and, on the simulator, the first line of its message (what and the fix)."""
    try:
        kernel[1, 1](*args)
    except Exception as e:                 # noqa: BLE001 - GPU: numba's TypingError; simulator: SharedShapeError
        first = str(e).splitlines()[0].split(": ", 1)[-1] if kn.device.SIMULATOR else ""
        return Report([f"PASS: 거부됨 ({type(e).__name__})"] + ([first] if first else []), error=e)
    return Report(["FAIL: 컴파일 시간 상수가 아닌 모양을 받아 주었습니다"], error=None)


def stall_table(rec, names=None, keys=STALL_KEYS):
    """Recorded ncu warp-state shares (%) per kernel, and MIO waits = short_scoreboard + mio_throttle (mostly shared
    memory in these kernels; special-function and some other instructions also go through the MIO pipe), as a share
    of all warp-cycles (selected, the cycles a warp issued, included) and of the cycles a warp did not issue. States
    not in `keys` are summed in one row, so every column adds up to 100 %."""
    st = rec["ncu_stalls"]
    names = [n for n in (names or st["metrics"]) if n in st["metrics"]]
    lines = [f"기록: {rec.gpu} {rec.date}, {st['n']}³, {st['tool']} — 워프-사이클을 상태별로 나눈 비율(%; "
             "selected 는 명령을 낸 사이클)",
             f"{'':20s}" + "".join(f"{n:>13s}" for n in names)]
    share = {n: st["metrics"][n]["percent"] for n in names}
    for k in keys:
        lines.append(f"{k:20s}" + "".join(f"{share[n].get(k, 0.0):12.1f}%" for n in names))
    rest = {n: sum(v for k, v in share[n].items() if k not in keys) for n in names}     # the states not shown
    lines.append(f"{'그 밖의 상태 합':14s}" + "".join(f"{rest[n]:12.1f}%" for n in names))
    wait = {n: share[n]["short_scoreboard"] + share[n]["mio_throttle"] for n in names}
    stalled = {n: 100 * wait[n] / (100 - share[n]["selected"]) for n in names}
    lines.append(f"{'MIO 대기, 전체 중':16s}" + "".join(f"{wait[n]:12.1f}%" for n in names))
    lines.append(f"{'  명령 못 낸 사이클 중':15s}" + "".join(f"{stalled[n]:12.1f}%" for n in names))
    return Report(lines, share=share, shared_wait=wait, shared_wait_stalled=stalled, rest=rest)


def excerpt_facts(excerpt):
    """What 4.5's prose says about a printed SASS excerpt, read from that excerpt (it differs between compilers): the
    constant offsets of its LDS, and its operands marked .reuse with how many instructions in a row carry the mark.
    Returns a Report whose one line the notebook prints under the excerpt."""
    offsets = sorted({int(m, 16) for m in re.findall(r"\bLDS[\w.]*\s+R\d+,\s*\[[^\]]*\+(0x[0-9a-f]+)\]", excerpt)})
    runs, last, best = {}, None, (None, 0)
    count = 0
    for line in excerpt.splitlines():
        marked = re.findall(r"\b(R\d+)\.reuse\b", line)
        for r in marked:
            runs[r] = runs.get(r, 0) + 1
        reg = marked[0] if marked else None
        count = count + 1 if reg is not None and reg == last else (1 if reg else 0)
        last = reg
        if reg and count > best[1]:
            best = (reg, count)
    off = ", ".join(f"+{o:#x}" for o in offsets) or "없음"
    if runs:
        reuse = (", ".join(f"{r} {n}번" for r, n in sorted(runs.items(), key=lambda x: -x[1]))
                 + f" (가장 길게 이어진 것: {best[0]}, 명령 {best[1]}개 연속)")
    else:
        reuse = "이 발췌에는 없음"
    return Report([f"이 발췌의 LDS 상수 오프셋: {off} | .reuse 가 붙은 피연산자: {reuse}"],
                  offsets=offsets, reuse=runs, longest=best)


# ------------------------------------------------------------------ 4 code walkthrough

def load_map(threads, rows, cols, stride):
    """(tid, pass) -> (row, column) each thread fills in a cooperative tile load (regblock's a_row/a_col formulas)."""
    return {(tid, p): (tid // cols + off, tid % cols) for tid in range(threads) for p, off in enumerate(range(0, rows, stride))}


def stored_map(t, arr):
    """(tid, pass) -> (row, column) of the stores to `arr` in a trace (the kernel really doing the load)."""
    return {(tid, inst): divmod(addr // 4, t["shapes"][arr][1])
            for a, site, op, inst, tid, addr, width in t["records"] if op == "store" and a == arr}


def thread_tiles(t):
    """(tx, ty) -> (As rows, Bs columns) the thread reads in a trace: the part of the block tile it computes, taken
    from what the kernel does (rA comes from its rows of As, rB from its columns of Bs), not from a formula."""
    bx = t["block_dim"][0]
    rows, cols = {}, {}
    for arr, site, op, inst, tid, addr, width in t["records"]:
        if op != "load" or arr not in ("As", "Bs"):
            continue
        for a in range(addr, addr + width, 4):
            r, c = divmod(a // 4, t["shapes"][arr][1])
            if arr == "As":
                rows.setdefault(divmod(tid, bx)[::-1], set()).add(r)
            else:
                cols.setdefault(divmod(tid, bx)[::-1], set()).add(c)
    return {k: (sorted(rows.get(k, ())), sorted(cols.get(k, ()))) for k in sorted(set(rows) | set(cols))}


def covers_once(mp, rows, cols):
    """True if the map fills every element of a rows x cols tile exactly once."""
    return Counter(mp.values()) == Counter((r, c) for r in range(rows) for c in range(cols))


# ------------------------------------------------------------------ 4.6 result store

def epilogue_check(name="regblock", M=130, N=70, K=21, seed=5):
    """Runs `name` with C full of NaN and beta = 0 (C must not be read) and with beta != 0; both against numpy."""
    spec = kn.get(name)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C0 = rng.standard_normal((M, N), dtype=np.float32)
    ref = A.astype(np.float64) @ B
    out0 = spec.launch(A, B, np.full((M, N), np.nan, np.float32), 2.0, 0.0)
    out1 = spec.launch(A, B, C0.copy(), 2.0, -1.0)
    return {"beta0": close(out0, 2 * ref, K), "beta1": close(out1, 2 * ref - C0, K)}


# ------------------------------------------------------------------ 4.6 padding, banks and FMA

def request_banks(pad):
    """Banks of the As rows warp 0 reads together at m = 0, k = 0 (thread rows 0 and 8) for a +pad layout."""
    rb = _rb()
    rows = sorted({y * rb.TM for x, y, z in banks.warps(rb.BLOCK)[0]})
    lay = banks.Layout((rb.BM, rb.BK), pad=pad)
    return {"rows": rows, "banks": [banks.bank_of(lay.offset((r, 0))) for r in rows]}


def bank_rows(t):
    """Wavefronts per warp request of every shared access site in a trace: {(array, op): row} (sim.banks)."""
    return {(r["array"], r["op"]): r for r in banks.analyze_trace(t["records"], t["block_dim"])}


def bank_lines(name, rows):
    """Text lines of bank_rows() for kernel `name`."""
    return Report([f"{name}:"] + [f"  {r['array']} {r['op']:5s} (줄 {r['site']:3d}): 요청 {r['requests']:4d}개, 웨이브프론트 평균 "
                                  f"{r['mean_wavefronts']:.2f}, 최대 {r['max_wavefronts']} ({r['max_conflict']}-way), 합 {r['total_wavefronts']}"
                                  for r in rows.values()])


def warp_ffma_per_tile():
    """Warp-level FFMA instructions of one block and one K tile of regblock."""
    rb = _rb()
    return rb.BK * rb.TM * rb.TN * rb.THREADS // 32


def wavefronts_per_ffma(wf):
    """Shared-memory wavefronts per warp FFMA, {kernel: value}, from bank_rows() of one block and one K tile."""
    return {name: sum(r["total_wavefronts"] for r in rows.values()) / warp_ffma_per_tile() for name, rows in wf.items()}


def fma_compare(inner_rb):
    """PTX instruction mix and sm_90 FFMA counts of regblock and regblock_opt (explicit cuda.fma)."""
    compiled([(k, cc) for k in ("regblock", "regblock_opt") for cc in CCS])
    ptx = {k: offline.ptx_counts(offline.compile_kernel(k, (8, 0))["ptx"]) for k in ("regblock", "regblock_opt")}
    rep = {k: resources.report(k, (9, 0)) for k in ("regblock", "regblock_opt")}
    inner = {"regblock": inner_rb, "regblock_opt": loop_stats(resources.inner_loops(rep["regblock_opt"]["sass_text"])[0])}
    lines = [f"{k:13s} PTX fma.rn.f32 {c['fma.rn.f32']}, mul.rn.f32 {c['mul.rn.f32']}, add.rn.f32 {c['add.rn.f32']}, "
             f"mul.f32 {c['mul.f32']}, add.f32 {c['add.f32']} | sm_90 k 루프 FFMA {inner[k]['FFMA']}/{inner[k]['n']} 명령, "
             f"커널 전체 FFMA {rep[k]['ffma']}, 레지스터 {rep[k]['registers']}" for k, c in ptx.items()]
    same = ptx["regblock"] == ptx["regblock_opt"] and rep["regblock"]["ffma"] == rep["regblock_opt"]["ffma"]
    return Report(lines, same=same, inner=inner)


# ------------------------------------------------------------------ 4.7 regblock_vec

def vec_loop():
    """regblock_vec's sm_90 SASS: inner k loops, K-tile loop statistics, and SEL counts of the three Level-3 kernels."""
    names = ("regblock", "regblock_opt", "regblock_vec")
    compiled([(k, (9, 0)) for k in names])
    sass = resources.report("regblock_vec", (9, 0))["sass_text"]
    kt = loop_stats(resources.main_loop(sass))
    sel = {k: Counter(i.op for i in resources.parse_sass(resources.report(k, (9, 0))["sass_text"]))["SEL"] for k in names}
    lines = [f"regblock_vec: k 루프 {len(resources.inner_loops(sass))}개, K 타일 루프 명령 {kt['n']}개 중 FFMA {kt['FFMA']} "
             f"({100 * kt['FFMA'] / kt['n']:.0f}%), FFMA 의존 사슬 최대 {kt['chain']}", f"SASS의 SEL (음수 인덱스 처리): {sel}"]
    return Report(lines, inner_loops=len(resources.inner_loops(sass)), ktile=kt, sel=sel)


def vec_wavefronts():
    """Wavefronts per warp FFMA of regblock_vec: its four LDS.128 requests per k step under both 128-bit rules of
    sim.banks, plus the tile stores (traced on the simulator), the same load + store convention as wavefronts_per_ffma."""
    v = kn.get("regblock_vec").module
    t = traces([("regblock_vec", v.BM, v.BN, v.BK)])[("regblock_vec", v.BM, v.BN, v.BK)]
    stores = sum(r["total_wavefronts"] for (a, op), r in bank_rows(t).items() if op == "store") / warp_ffma_per_tile()
    layA, layB = banks.Layout((v.BK, v.BM_PAD)), banks.Layout((v.BK, v.BN))
    requests = [(layA, lambda x, y, z: (0, y * v.TM)), (layA, lambda x, y, z: (0, y * v.TM + 4)),
                (layB, lambda x, y, z: (0, x * v.TN_HALF)), (layB, lambda x, y, z: (0, v.BN // 2 + x * v.TN_HALF))]
    per_ffma, lines = {}, []
    for rule in banks.WIDE_RULES:
        per_k = [max(r.wavefronts for r in banks.analyze(lay, fn, v.BLOCK, width=16, wide_rule=rule)) for lay, fn in requests]
        per_ffma[f"regblock_vec ({rule})"] = sum(per_k) / (v.TM * v.TN) + stores
        lines.append(f"규칙 '{rule}': k 단계마다 LDS.128 웨이브프론트 {per_k} = {sum(per_k)} → 읽기 FFMA당 "
                     f"{sum(per_k) / (v.TM * v.TN):.3f} + 저장 {stores:.3f} = {per_ffma[f'regblock_vec ({rule})']:.3f}")
    return Report(lines, per_ffma=per_ffma, stores=stores)


def loaded_regblock_wavefronts(wf_regblock):
    """Wavefronts per FFMA of the regblock the H200 driver loaded (rB as two LDS.128), under both 128-bit rules."""
    rb = _rb()
    layB = banks.Layout((rb.BK, rb.BN))
    rest = sum(r["total_wavefronts"] for key, r in wf_regblock.items() if key != ("Bs", "load")) / warp_ffma_per_tile()
    out = {}
    for rule in banks.WIDE_RULES:
        rB = sum(max(q.wavefronts for q in banks.analyze(layB, lambda x, y, z, c=c: (0, x * rb.TN + c), rb.BLOCK,
                                                         width=16, wide_rule=rule)) for c in (0, rb.TN // 2))
        out[f"regblock H200 SASS ({rule})"] = rest + rB / (rb.TM * rb.TN)
    return out


def lds_loaded_vs_offline(rec, names=("regblock", "regblock_opt", "regblock_vec")):
    """LDS opcodes of each kernel as loaded on the recorded GPU and as compiled offline for sm_90."""
    lines = []
    for k in names:
        loaded = {o: c for o, c in rec["sass_loaded"][k].items() if o.startswith("LDS")}
        off = {o: c for o, c in offline.sass_counts(resources.report(k, (9, 0))["sass_text"]).items() if o.startswith("LDS")}
        lines.append(f"{k:13s} H200 에 올라간 SASS {loaded} | 오프라인 sm_90 {off}")
    return Report(lines)


# ------------------------------------------------------------------ 4.8-4.9 run, verify, measure

def bench_rows(rec, rec06, names, live=None):
    """Benchmark rows of cuBLAS, tiled (notebook 06's run) and `names`: live ones if given, else the recorded runs."""
    if live:
        return [r for r in live.rows if r.kernel in ("cuBLAS", "tiled", *names)]
    return [r for r in rec.rows if r.kernel in ("cuBLAS", *names)] + [r for r in rec06.rows if r.kernel == "tiled"]


def live_bench(live, names):
    """'지금 이 GPU (…)' table of a live benchmark (measure.benchmark) and its ratios at the largest size measured."""
    bt = bench_table([r for r in live.rows if r.kernel in ("cuBLAS", "tiled", *names)])
    val, n = bt["val"], max(n for _, n in bt["val"])
    lines = measure.live_lines(live, ("tiled", *names))
    have = {k for k, _ in val}
    if {"tiled", "regblock", "regblock_opt", "regblock_vec"} <= have:
        lines.append(f"{n}³: regblock / tiled = {val[('regblock', n)][0] / val[('tiled', n)][0]:.2f}배, "
                     f"regblock_opt / regblock = {val[('regblock_opt', n)][0] / val[('regblock', n)][0]:.3f}, "
                     f"regblock_vec / regblock = {val[('regblock_vec', n)][0] / val[('regblock', n)][0]:.2f}배")
    return Report(lines, val=val, n=n)


def bench_table(rows):
    """Text table of benchmark rows (TFLOP/s and % of cuBLAS of the same run), and {(kernel, n): (tflops, ratio)}."""
    val = {}
    lines = []
    for r in sorted(rows, key=lambda r: (r.n, r.kernel != "cuBLAS", r.kernel != "tiled")):
        val[(r.kernel, r.n)] = (r.tflops, r.ratio)
        lines.append(f"{r.n:5d}³ {r.kernel:13s} {r.tflops:6.2f} TFLOP/s  cuBLAS의 {100 * r.ratio:5.1f}%")
    return Report(lines, val=val)


def shared_bound_vs_measured(rec, per_ffma, val):
    """Shared-memory ceiling (1 wavefront/clock/SM) in TFLOP/s for each wavefronts-per-FFMA figure, next to the measurement."""
    f = rec["device_facts"]
    ffma_per_clk = f["fp32_lanes_per_sm"] // 32
    peak = f["sm_count"] * f["fp32_lanes_per_sm"] * 2 * f["max_sm_clock_mhz"] * 1e6 / 1e12
    n = max(n for _, n in val)
    lines = [f"FP32 피크 {peak:.1f} TFLOP/s (기록된 SM 수·클록), cuBLAS {n}³ {val[('cuBLAS', n)][0]:.1f} TFLOP/s"]
    bound = {}
    for name, wpf in per_ffma.items():
        bound[name] = peak * min(ffma_per_clk, 1 / wpf) / ffma_per_clk
        lines.append(f"{name:32s} FFMA당 웨이브프론트 {wpf:.3f} → 공유 메모리 상한 {bound[name]:5.1f} TFLOP/s | "
                     f"측정 {n}³ {val[(name.split()[0], n)][0]:5.1f}")
    return Report(lines, bound=bound, peak=peak, n=n)


# ------------------------------------------------------------------ 6 figures

def show(fig, dpi=90):
    """Display a matplotlib Figure as a PNG (no pyplot: no backend switch, nothing printed)."""
    # local: IPython only inside a notebook; this module also runs in plain Python
    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    display(Image(buf.getvalue()))


def ai_figure(configs=None):
    """Figure: shared->register AI vs T (course.plots.ai_figure, the one definition)."""
    from course import plots        # deferred: the analysis above needs no matplotlib until a figure is drawn
    return plots.ai_figure(configs)
