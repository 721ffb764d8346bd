"""Notebook 09 machinery: ptxas verdicts on PTX text, cp.async traces, layouts and bank counts, SASS counts, recorded runs."""
import os
import re
import subprocess
import tempfile

import kernels_numba  # noqa: F401,I001  (first: picks GPU or simulator before numba is imported)
from kernels_numba.common import S3, T8, compute_tile, issue_tile, prologue  # noqa: F401  (09-1's kernel helpers)
from course.kit import Report, compiled, gpu_here, here_label, kernel_resources, kernels_here  # course/kit.py
from sim.korean import josa
from kernels_numba.tools import offline
import numpy as np
from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import async_copy as _async_sim
from sim import banks
import csv
import gzip
import io
import course
from course import records
import json
import sys
from kernels_numba.tools import table
from sim import occupancy
import kernels_numba as kn
from kernels_numba import async_wide as W
from kernels_numba import registry
from kernels_numba.tools import resources
from sim.cp_async import first_unsafe_tile
import math
from sim import pipeline

HEADER = ".version 7.0\n.target sm_80\n.address_size 64\n"
# a helper often written for 4-byte copies: '.cg' with 4 bytes (ptxas rejects it)
SEED_CP_ASYNC_4 = "cp.async.cg.shared.global [dst], [src], 4;"
LEGAL_CP_ASYNC_4 = "cp.async.ca.shared.global [dst], [src], 4;"


def ptx_module(instruction, params=".reg .u32 dst, .reg .u64 src"):
    """A complete PTX module whose one .func wraps `instruction` (the shape of kernels_numba/infra/ptx/*.ptx)."""
    return HEADER + f"\n.visible .func f({params})\n{{\n    {instruction}\n    ret;\n}}\n"


def ptxas(text, arch="sm_80", whole=False):
    """Run ptxas on PTX text: (accepted, ptxas's own messages with the temp path removed).

    whole=False assembles .func code with -c; whole=True links a kernel as the driver would load it (the check
    of a kernel's shared-memory size happens only then)."""
    tool = offline._tool("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "check.ptx")
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([tool, *([] if whole else ["-c"]), f"-arch={arch}", src, "-o", os.path.join(d, "check.o")],
                           capture_output=True, text=True)
    msg = (p.stdout + p.stderr).replace(src, "check.ptx").strip()
    return p.returncode == 0, msg


# every cache operator x copy size of cp.async (PTX ISA: .ca with 4, 8, 16 bytes; .cg with 16 only)
CP_ASYNC_FORMS = tuple(f"cp.async.{op}.shared.global [dst], [src], {n};" for op in ("ca", "cg") for n in (4, 8, 16))


def ptxas_verdicts(instructions=CP_ASYNC_FORMS, archs=("sm_80", "sm_90")):
    """{(instruction, arch): (accepted, message)} for each instruction wrapped in a module."""
    return {(ins, a): ptxas(ptx_module(ins), a) for ins in instructions for a in archs}


# ------------------------------------------------------------------------------------ shared memory size

def smem_bytes(num_stages, BK=8, BM=128, BN=128, pad=1):
    """Bytes of As[S][BM][BK+pad] + Bs[S][BK][BN+pad] (float32)."""
    return 4 * num_stages * (BM * (BK + pad) + BK * (BN + pad))


def ptxas_static_shared(nbytes, arch="sm_80"):
    """ptxas on a kernel with a static .shared array of nbytes that it reads: (accepted, message). Limit: 48 KiB."""
    text = HEADER + (f"\n.visible .entry k(.param .u64 p)\n{{\n    .shared .align 16 .b8 smem[{nbytes}];\n"
                     "    .reg .u32 %r<3>;\n    .reg .u64 %rd<2>;\n    ld.param.u64 %rd1, [p];\n"
                     f"    mov.u32 %r1, smem;\n    ld.shared.u32 %r2, [%r1+{nbytes - 4}];\n"
                     "    st.global.u32 [%rd1], %r2;\n    ret;\n}\n")
    return ptxas(text, arch, whole=True)


# ------------------------------------------------------------------------------------ layouts and banks

def misaligned_copies(pad_k=1, pad_n=1, BM=128, BK=8, BN=128, threads=256):
    """How many of a tile's 16-byte copies (async_vec's thread mapping) start off a 16-byte boundary, per matrix."""
    a = b = 0
    for tid in range(threads):
        r, c = tid // (BK // 4), (tid % (BK // 4)) * 4
        a += ((r * (BK + pad_k) + c) * 4) % 16 != 0
        r, c = tid // (BN // 4), (tid % (BN // 4)) * 4
        b += ((r * (BN + pad_n) + c) * 4) % 16 != 0
    return {"A": a, "B": b, "copies": threads}


def misaligned_copy_error():
    """The simulator's error for one 16-byte cp.async into the padded layout As[BM][BK+1] (row 1 starts at 36 B)."""
    As = np.full((128, 9), np.nan, np.float32)
    buf = np.zeros(64, np.float32)
    start = (-(buf.ctypes.data // 4)) % 4
    A = buf[start:start + 32].reshape(4, 8)
    try:
        ptx.STAND_INS["cp_async_cg_16"](As, 1, 0, A, 1, 0)
    except ptx.AsyncCopyAlignmentError as e:
        return str(e)
    finally:
        _async_sim.reset()
    return None


def compute_read_wavefronts(wide_rule="words"):
    """Requests and wavefronts per warp of the micro-kernel's shared loads over one K tile (BK=8), from sim.banks.

    'padded' is async_copy (As[m][k] pitch 9, Bs[k][n] pitch 129, scalar loads, thread_col = tx*8);
    'aligned' is async_vec as compiled (sass_main_loop: 32 LDS.128 in the loop, no LDS.64): As[m][k..k+3] and
    As[m][k+4..k+7] as 16-byte loads (NVVM merges the source's 2-float reads of consecutive k; ptxas keeps them), Bs[k][n] pitch 128
    read as 2x4 floats at tx*4 and 64+tx*4. wide_rule: sim.banks.count_wavefronts's rule for 8/16-byte accesses.
    """
    block = (16, 16)
    out = {}
    A = banks.Layout((128, 9))
    B = banks.Layout((8, 129))
    wf = lambda reps: max(r.wavefronts for r in reps)                      # noqa: E731
    a = sum(wf(banks.analyze(A, lambda x, y, z, m=m, k=k: (y * 8 + m, k), block)) for m in range(8) for k in range(8))
    b = sum(wf(banks.analyze(B, lambda x, y, z, n=n, k=k: (k, x * 8 + n), block)) for n in range(8) for k in range(8))
    out["padded"] = {"A_requests": 64, "A_wavefronts": a, "B_requests": 64, "B_wavefronts": b}
    A = banks.Layout((128, 8))
    B = banks.Layout((8, 128))
    a = sum(wf(banks.analyze(A, lambda x, y, z, m=m, k=k: (y * 8 + m, k), block, width=16, wide_rule=wide_rule))
            for m in range(8) for k in (0, 4))
    b = sum(wf(banks.analyze(B, lambda x, y, z, h=h, k=k: (k, h * 64 + x * 4), block, width=16, wide_rule=wide_rule))
            for h in range(2) for k in range(8))
    out["aligned"] = {"A_requests": 16, "A_wavefronts": a, "B_requests": 16, "B_wavefronts": b}
    return out


def warp_requests_per_tile(BM=128, BN=128, BK=8, threads=256):
    """Warp-level copy instructions per block and K tile for 4-byte vs 16-byte cp.async, and the bytes they move.

    A warp's 32 copies of 4 B cover 128 contiguous bytes (4 sectors); of 16 B, 512 B (16 sectors): the same
    sectors of the tile are read either way, by 4x fewer warp instructions."""
    tile_bytes = 4 * (BM * BK + BK * BN)
    warps = threads // 32
    return {width: {"copies_per_thread": tile_bytes // width // threads,
                    "warp_instructions": tile_bytes // width // 32, "per_warp": tile_bytes // width // 32 // warps,
                    "sectors": tile_bytes // 32}
            for width in (4, 16)}


def _ncu_source_rows(name="ncu_source_wide_no_prefetch.csv.gz"):
    """(column index by header, instruction rows) of a recorded ncu source listing (this chapter's records/)."""
    with gzip.open(records.find(name), "rt", encoding="utf-8") as f:
        rows = list(csv.reader(io.StringIO(f.read())))
    start = next(i for i, r in enumerate(rows) if "Source" in r and "stall_dispatch" in r)
    col = {k: i for i, k in enumerate(rows[start])}
    return col, [r for r in rows[start + 1:] if len(r) == len(rows[start]) and r[col["Source"]].strip()]


def wait_group_samples(name="ncu_source_wide_no_prefetch.csv.gz"):
    """Stall samples on the loop's wait_group (SASS DEPBAR.LE) in the recorded ncu source listing of async_wide
    without prefetch: {'samples', 'total', 'selected', 'reasons' (not-issued reasons with samples)}."""
    col, rows = _ncu_source_rows(name)
    n = lambda r, k: int(float(r[col[k]] or 0))                               # noqa: E731
    form = lambda r: next(w for w in r[col["Source"]].split() if not w.startswith("@"))   # noqa: E731  (no guard)
    dep = [r for r in rows if form(r) == "DEPBAR.LE"]
    reasons = {}
    for k in col:
        if k.startswith("stall_") and "(" not in k and k != "stall_selected":
            v = sum(n(r, k) for r in dep)
            if v:
                reasons[k[len("stall_"):]] = v
    return {"samples": sum(n(r, "# Samples") for r in dep), "total": sum(n(r, "# Samples") for r in rows),
            "selected": sum(n(r, "stall_selected") for r in dep), "reasons": reasons, "static": len(dep)}


def ncu_listing(run="gpu_h200_level5", name="ncu_source_wide_no_prefetch.csv.gz"):
    """Per SASS form in the recorded ncu source listing (async_wide without prefetch): static count, instructions
    executed, predicated-on thread instructions and L1 shared wavefronts. '@!PT' marks ptxas's never-true guard."""
    col, rows = _ncu_source_rows(name)
    out = {}
    for r in rows:
        words = r[col["Source"]].split()
        form = words[1] if words[0].startswith("@") else words[0]
        if words[0] == "@!PT":
            form = "@!PT " + form
        d = out.setdefault(form, {"static": 0, "executed": 0, "thread_executed": 0, "wavefronts": 0})
        d["static"] += 1
        d["executed"] += int(float(r[col["Instructions Executed"]] or 0))
        d["thread_executed"] += int(float(r[col["Predicated-On Thread Instructions Executed"]] or 0))
        d["wavefronts"] += int(float(r[col["L1 Wavefronts Shared"]] or 0))
    return out


def lds_ratio_rows(names=("async_vec", "async_bk16", "async_wide"), cc=(9, 0), run="gpu_h200_level5"):
    """Per kernel: the recorded loop's LDS count (loaded on the H200), the offline sm_90 loop's real LDS and
    '@!PT LDS' placeholders (never executed), FFMA, and FFMA per real LDS. The compiles (async_wide alone takes
    about half a minute of CPU: Numba inlines its device functions) show a progress bar."""
    rec = course.recorded(run)["loaded"]
    compiled([(n, cc) for n in names], "컴파일 (GPU 없이 sm_90)")
    rows = []
    for name in names:
        s = sass_main_loop(name, cc)
        real = sum(v for k, v in s["forms"].items() if k.startswith("LDS"))
        rows.append({"name": name, "recorded_lds": rec[name]["main_loop"]["LDS"], "real_lds": real,
                     "placeholders": s["placeholders"], "forms": {k: v for k, v in s["forms"].items() if k.startswith("LDS")},
                     "ffma": s["main_loop"]["FFMA"], "ratio": s["main_loop"]["FFMA"] / real})
    return rows


def ptx_division_ops(name="async_copy", cc=(8, 0)):
    """{opcode: count} of integer remainder/division (rem.*, div.*) and multiply-high (mul.hi.*) in kernel `name`'s PTX:
    with a constant divisor NVVM replaces % by a multiply-high and shifts."""
    text = compiled([(name, cc)])[name, tuple(cc)]["ptx"]
    counts = {"rem": 0, "div": 0, "mul.hi": 0}
    for op in re.findall(r"^\s*(rem|div|mul\.hi)\.", text, re.M):
        counts[op] += 1
    return counts


_UNBOUNDED = {}         # (kernel, cc) -> registers without launch_bounds, for this process


def registers_unbounded_many(name="async_vec", ccs=((8, 0), (9, 0)), desc="컴파일 (launch_bounds 없이, GPU 없이)"):
    """{cc: registers} of kernel `name` compiled offline WITHOUT its launch_bounds (what ptxas picks on its own), for
    every cc; those not known in this process are read from offline's disk cache, and the first one missing there
    starts ONE subprocess (one Python start-up) that compiles it and the rest, reporting one cc per line.

    With `desc`, a progress bar advances one step per cc not known in this process (a compile takes seconds of CPU)."""
    # local: looked up at call time (tests replace course.steps' classes to record the bars)
    from course.steps import Progress
    ccs = [tuple(cc) for cc in ccs]
    todo = [cc for cc in ccs if (name, cc) not in _UNBOUNDED]
    if not todo:
        return {cc: _UNBOUNDED[name, cc] for cc in ccs}
    results, proc = {}, {}

    def start(rest):
        code = ("import json, sys; from numba import cuda; from kernels_numba.tools import offline as o\n"
                f"k = o._kernel_by_name({name!r})\n"
                # one front-end pass for every cc (o._ptx_per_target; NVVM and ptxas per cc): the pass is ~90 % of it
                f"ptxs = o._ptx_per_target(k, o.SIG, [tuple(cc) for cc in {rest!r}], None)\n"
                f"for cc in {rest!r}:\n"
                "    print(json.dumps([cc, o.cubin_report(o.ptx_to_cubin(ptxs[tuple(cc)], cc))[1]]), flush=True)\n")
        env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0")
        env["PYTHONPATH"] = offline._ROOT + os.pathsep + env.get("PYTHONPATH", "")
        proc["err"] = tempfile.TemporaryFile(mode="w+")     # a file, not a pipe: Numba's warnings cannot fill it up
        proc["p"] = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=proc["err"],
                                     text=True, env=env)

    def compile_fn(cc):
        if "p" not in proc:
            start(todo[todo.index(cc):])
        while cc not in results:                            # the subprocess answers in the order of `todo`
            line = proc["p"].stdout.readline()
            if not line:
                proc["p"].wait()
                proc["err"].seek(0)
                raise offline.OfflineCompileError(f"{name} sm_{cc[0]}{cc[1]} (launch_bounds 없이) 컴파일 실패 / "
                                                  f"compile failed:\n{proc['err'].read()[-2000:]}")
            got, usage = json.loads(line)
            results[tuple(got)] = usage
        return {"usage": results[cc]}

    bar = Progress(len(todo), desc, unit="CC") if desc else None
    try:
        for cc in todo:
            if bar:
                bar.note(f"{name} sm_{cc[0]}{cc[1]}")
            _UNBOUNDED[name, cc] = offline._cached(name + "-unbounded", cc, lambda cc=cc: compile_fn(cc))["usage"]["registers"]
            if bar:
                bar.update(1, f"{name} sm_{cc[0]}{cc[1]}")
    finally:
        if bar:
            bar.close()
        if "p" in proc:                     # what it still compiles was in the disk cache already: not needed
            if proc["p"].poll() is None:
                proc["p"].kill()
            proc["p"].wait()
            proc["p"].stdout.close()
            proc["err"].close()
    return {cc: _UNBOUNDED[name, cc] for cc in ccs}


def registers_unbounded(name="async_vec", cc=(8, 0)):
    """Registers of kernel `name` compiled offline WITHOUT its launch_bounds (what ptxas picks on its own)."""
    return registers_unbounded_many(name, (cc,))[tuple(cc)]


# the recorded GPUs of each offline target (sim.occupancy.GPUS)
RECORDED_GPUS = {(8, 0): ("A100",), (9, 0): ("H100", "H200")}


def _declared_smem(name):
    """Static + dynamic shared bytes kernel `name` declares (offline kernel x target matrix; the same on every target)."""
    row = next(r for r in table.load_targets()["rows"] if r["kernel"] == name)
    return row["smem_static"] + row["smem_dynamic"]


def unbounded_blocks(name="async_vec", ccs=((8, 0), (9, 0)), gpu=None):
    """Registers of `name` without its launch_bounds and the blocks per SM they give (sim.occupancy, not 65536 / regs):
    on the recorded GPUs of each cc, and on the present GPU (or `gpu`), compiled for its compute capability.
    Report with regs {cc: n}, blocks {gpu name: n}, bounded {gpu name: n} (with launch_bounds), here (line or None)."""
    ks = kn.get(name)
    spec, live = gpu_here(gpu)
    want = [tuple(cc) for cc in ccs]
    runs_here = spec is not None and (ks.min_cc is None or spec.cc >= tuple(ks.min_cc))
    if runs_here and spec.cc not in want:
        want.append(spec.cc)
    regs = registers_unbounded_many(name, want)
    smem, lines, blocks, bounded = _declared_smem(name), [], {}, {}
    for cc in ccs:
        cc = tuple(cc)
        per = []
        for g in RECORDED_GPUS.get(cc, ()):
            o = occupancy.occupancy(g, regs[cc], ks.threads, smem)
            blocks[g] = o.blocks_per_sm
            per.append(f"{g} {o.blocks_per_sm}블록 (제한 요인: {occupancy.LIMITER_KO[o.limiter]})")
        lines.append(f"sm_{cc[0]}{cc[1]}: launch_bounds 없이 레지스터 {regs[cc]}개 -> {ks.threads} 스레드 블록이 SM당 "
                     + ", ".join(per))
    here = None
    if spec is not None:
        if not runs_here:
            here = f"{here_label(spec)}: {josa(name, '은/는')} 이 GPU 에서 돌지 않습니다 (CC {ks.min_cc[0]}.{ks.min_cc[1]} 이상 필요)"
        else:
            o = occupancy.occupancy(spec, regs[spec.cc], ks.threads, smem)
            blocks[spec.name] = o.blocks_per_sm
            r = kernel_resources(name, None if live else spec)
            ob = occupancy.occupancy(spec, r["registers"], r["threads"], r["shared_bytes"])
            bounded[spec.name] = ob.blocks_per_sm
            here = (f"{here_label(spec)}: launch_bounds 없이 레지스터 {regs[spec.cc]}개 -> SM당 {o.blocks_per_sm}블록 "
                    f"| launch_bounds 로 {r['registers']}개 -> {ob.blocks_per_sm}블록")
        lines.append(here)
    return _report(lines, regs=regs, blocks=blocks, bounded=bounded, here=here)


def _report(lines, **values):
    return Report(lines, **values)


def stage_limits(gpu, regs=128, threads=256, stages=(2, 3, 4)):
    """{S: Occupancy} of the padded layout of S stages with `regs` registers and `threads` threads on `gpu` (a GpuSpec
    or a name in sim.occupancy.GPUS); a stage count whose shared memory exceeds the block's opt-in maximum is left out."""
    spec = occupancy.get_spec(gpu)
    return {S: occupancy.occupancy(spec, regs, threads, smem_bytes(S)) for S in stages
            if smem_bytes(S) <= spec.smem_per_block_optin}


def stage_limiters(name="async_copy", regs=128, threads=256, stages=(2, 3, 4), gpus=None):
    """{GPU name: {S: every resource that allows exactly its blocks per SM (Occupancy.limiters), or ("too big",)}} for
    the GPUs of sim.occupancy.GPUS (or `gpus`) that run kernel `name` (compute capability >= its min_cc): what 4.2's
    prose says about GPUs other than the H200. Ties stay ties: at 4 stages a 100-KiB GPU is bound by registers and
    shared memory alike (2 blocks each), and a tie is not 'registers'."""
    need = tuple(kn.get(name).min_cc or (0, 0))
    out = {}
    for g in (gpus or occupancy.GPUS):
        spec = occupancy.get_spec(g)
        if tuple(spec.cc) >= need:
            occ = stage_limits(spec, regs, threads, stages)
            out[spec.name] = {S: tuple(occ[S].limiters) if S in occ else ("too big",) for S in stages}
    return out


def stage_limiter_report(name="async_copy", regs=128, threads=256, stages=(2, 3, 4), gpus=None):
    """4.2's per-GPU lines: on each GPU of sim.occupancy.GPUS (or `gpus`) that runs kernel `name`, the blocks per SM of
    the padded layout of S stages and every resource that allows exactly that many (stage_limiters; ties: all)."""
    lim = stage_limiters(name, regs, threads, stages, gpus)
    need = kn.get(name).min_cc or (0, 0)
    lines = [f"{josa(name, '이/가')} 도는 GPU (CC {need[0]}.{need[1]} 이상), 레지스터 {regs}개·{threads} 스레드: 단마다 SM당 "
             "블록 수 (그 수를 정하는 자원, 동률이면 모두)"]
    for g, by in lim.items():
        occ = stage_limits(g, regs, threads, stages)
        parts = [f"{S}단 " + ("블록당 한도 초과" if S not in occ else f"{occ[S].blocks_per_sm}블록 ("
                                                + "·".join(occupancy.LIMITER_KO.get(x, x) for x in by[S]) + ")")
                 for S in stages]
        lines.append(f"  {g:<9} " + " | ".join(parts))
    return Report(lines, limiters=lim)


def stage_limits_here(regs=128, threads=256, stages=(2, 3, 4), gpu=None, name="async_copy"):
    """4.2's table (blocks per SM for the padded layout of S stages, `regs` registers) on the present GPU (or `gpu`);
    None without one; one line (no figures) where kernel `name` (the padded layout's kernel) does not run there."""
    spec, _ = gpu_here(gpu)
    if spec is None:
        return None
    need = kn.get(name).min_cc
    if need and tuple(spec.cc) < tuple(need):
        return _report([f"{here_label(spec)}: {josa(name, '은/는')} 이 GPU 에서 돌지 않습니다 (cp.async: CC {need[0]}.{need[1]} "
                        "이상 필요) -> 이 표의 값이 없습니다"], occ={}, gpu=spec.name, runs=False)
    lines, occ = [], {}
    for S in stages:
        if smem_bytes(S) > spec.smem_per_block_optin:
            lines.append(f"{here_label(spec)} NUM_STAGES={S}: 공유 {smem_bytes(S):,} B > 블록당 최대 "
                         f"{spec.smem_per_block_optin:,} B -> 실행 불가")
            continue
        o = occ[S] = occupancy.occupancy(spec, regs, threads, smem_bytes(S))
        lines.append(f"{here_label(spec)} NUM_STAGES={S}: SM당 블록 한도: 공유 메모리 {o.limits['shared memory']}, "
                     f"레지스터 {o.limits['registers']} -> {o.blocks_per_sm}")
    return _report(lines, occ=occ, gpu=spec.name, runs=True)


def loaded_here(names, gpu=None):
    """Registers, shared bytes and blocks per SM of kernels `names` on the present GPU (or `gpu`), next to what
    rec['loaded'] recorded on the H200; None without a GPU."""
    return kernels_here(names, gpu)


def ptx_inline_excerpt(name="cp_async_one", cc=(8, 0), opcode="cp.async.cg.shared.global"):
    """The lines of kernel `name`'s PTX that compute one cp.async's shared address, and the inline instruction."""
    lines = compiled([(name, cc)])[name, tuple(cc)]["ptx"].splitlines()
    i = next(n for n, line in enumerate(lines) if opcode in line)
    start = max(j for j in range(i) if "smem" in lines[j] or j == 0)
    return "\n".join(line.strip() for line in lines[start:i + 2])


def ptx_lines(name="cp_async_one", opcode="cvta", cc=(8, 0)):
    """Every instruction of kernel `name`'s PTX whose opcode starts with `opcode` (e.g. 'cvta': which address-space
    conversions the compiled kernel really makes)."""
    lines = compiled([(name, cc)])[name, tuple(cc)]["ptx"].splitlines()
    return [" ".join(line.split()) for line in lines if line.strip().startswith(opcode)]


def bk16_runs(run="gpu_h200_level5", n=4096):
    """async_bk16's % of cuBLAS at size n in each of the three runs the record holds, labelled, with cuBLAS TFLOP/s."""
    rec = course.recorded(run)
    bench = {(r.kernel, r.n): r for r in rec.rows}
    out = [("기록 실행 (benchmark)", 100 * bench[("async_bk16", n)].ratio, bench[("cuBLAS", n)].tflops)]
    for line in rec["explore_bk16"]["table"][1:]:
        cells = line.split()
        if int(cells[0]) == n:
            out.append(("탐색 explore_bk16 (기록 전)", float(re.findall(r"([\d.]+)%", line)[1]), float(cells[-1])))
    row = next(r for r in rec["explore_wide"]["rows"] if r["n"] == n)
    out.append(("탐색 explore_wide (기록 전)", row["percent"]["async_bk16"], row["cublas_tflops"]))
    return out


def bk16_table(run="gpu_h200_level5"):
    """The recorded explore_bk16 table as rows of short cells: [(size, {column: '% (TF)'}, cuBLAS TFLOP/s)]."""
    lines = course.recorded(run)["explore_bk16"]["table"]
    cols = ["async_vec", "bk16 s3 lb(256,2)", "bk16 s2 lb(256,2)", "bk16 s3 lb(256,1)"]
    rows = []
    for line in lines[1:]:
        cells = re.findall(r"([\d.]+)% \(\s*([\d.]+) TF\)", line)
        rows.append((int(line.split()[0]), {c: f"{float(p):.1f}%" for c, (p, _) in zip(cols, cells)},
                     float(line.split()[-1])))
    return cols, rows


def wide_a_wavefronts(swizzle=True):
    """Wavefronts per warp of async_wide's A loads (LDS.64, 8 per 2 k) over one K tile, both wide-access rules.

    A thread reads rows ty + 16 m at column k ^ 8 where bit 1 of the row is set (swizzle), else k; a warp holds
    4 consecutive ty. Returns {"requests": n, "phases": wavefronts, "words": wavefronts} (see sim.banks.count_wavefronts).
    """
    A = banks.Layout((W.BM, W.BK))
    col = lambda row, k: k ^ (8 if swizzle and row & 2 else 0)             # noqa: E731  (the kernel's swz)
    out = {"requests": 0}
    for rule in ("phases", "words"):
        total = 0
        for m in range(W.TM):
            for k in range(0, W.BK, W.KV):
                reps = banks.analyze(A, lambda x, y, z, m=m, k=k: (y + W.ROW_STEP * m, col(y + W.ROW_STEP * m, k)),
                                     W.BLOCK, width=8, wide_rule=rule)
                total += max(r.wavefronts for r in reps)
        out[rule] = total
    out["requests"] = W.TM * W.BK // W.KV
    return out


def explore_wide(run="gpu_h200_level5"):
    """{label: {n: % of cuBLAS}} of the recorded async_wide ablation (benchmarks/explore_wide.py), and its registers."""
    ew = course.recorded(run)["explore_wide"]
    table = {}
    for row in ew["rows"]:
        for name, pct in row["percent"].items():
            table.setdefault(name, {})[row["n"]] = pct
    return table, ew["registers"]


def first_use_stalls(run="gpu_h200_level5"):
    """Shares (%) of async_wide-without-prefetch FFMAs, and of their dispatch / short-scoreboard stall samples, that
    fall on an FFMA reading a value an LDS just loaded (its first reader), from the recorded ncu source view."""
    r = course.recorded(run)["ncu_source_no_prefetch"]
    pct = lambda a, b: 100.0 * r[a] / r[b]                                 # noqa: E731
    return {"ffma": pct("ffma_first_use", "ffma"),
            "dispatch": pct("dispatch_samples_ffma_first_use", "dispatch_samples_ffma"),
            "short_scoreboard": pct("short_scoreboard_samples_ffma_first_use", "short_scoreboard_samples_ffma"),
            "top10_first_use": sum(t["first_use"] for t in r["top10_by_dispatch"])}


# ------------------------------------------------------------------------------------ runs and SASS

def check(name, M, N, K, seed=0):
    """Run kernel or demo `name` (C starts as NaN) and compare with numpy: dict with max_err, nan, ok.

    Outside the simulator a bar shows the time: the first launch compiles the kernel for this GPU (async_wide: about
    half a minute of CPU, Numba inlining its device functions), or on a GPU below CC 8.0 runs it on the simulator."""
    # local: looked up at call time (tests replace course.steps' classes to record the bars)
    from course.steps import Progress
    # below sm_80 (a T4) the launch itself runs this kernel on the simulator in a subprocess and says so (subsim)
    module_of = registry.module_of
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = np.full((M, N), np.nan, np.float32)
    if kn.device.SIMULATOR:
        module_of(name).launch(A, B, C)
    else:
        with Progress(1, f"{name} {M}×{N}×{K}: 컴파일(처음 한 번)·실행", unit="실행") as bar:
            module_of(name).launch(A, B, C)
            bar.update(1)                 # done: the bar reaches its total (short of it, Jupyter paints it red)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    nan = int(np.isnan(C).sum())
    err = float(np.nanmax(np.abs(C - ref))) if nan < C.size else float("nan")
    ok = nan == 0 and bool(np.allclose(C, ref, rtol=1e-4, atol=1e-4 * np.sqrt(K)))
    return {"name": name, "shape": (M, N, K), "max_err": err, "nan": nan, "size": C.size, "ok": ok}


LDGSTS_OPS = ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "LDS", "STS", "LDG", "FFMA", "CALL")


def sass_main_loop(name, cc=(8, 0)):
    """Offline SASS of kernel `name`: registers and the main loop's counts of the cp.async-related opcodes."""
    r = compiled([(name, cc)])[name, tuple(cc)]
    loop = resources.main_loop(r["sass"])
    counts = {}
    for i in loop:
        if i.base in LDGSTS_OPS:
            counts[i.base] = counts.get(i.base, 0) + 1
    ldgsts = sorted({m.group(0) for i in loop if i.base == "LDGSTS"
                     for m in [re.search(r"LDGSTS[\w.]*", i.text())] if m})
    forms = {}
    for i in loop:
        if i.base in ("LDS", "FFMA") and i.pred != "@!PT":               # '@!PT': never executed (ptxas padding)
            forms[i.op] = forms.get(i.op, 0) + 1
    inner = [{"FFMA": sum(i.base == "FFMA" for i in b), "LDS": sum(i.base == "LDS" and i.pred != "@!PT" for i in b)}
             for b in resources.inner_loops(r["sass"])]
    ptx_loads = {w: len(re.findall(rf"\bld\.shared{w}\.f32\b", r["ptx"])) for w in (".v4", ".v2", "")}
    return {"name": name, "cc": f"sm_{cc[0]}{cc[1]}", "registers": r["usage"]["registers"], "main_loop": counts,
            "ldgsts_forms": ldgsts, "calls": [i.text() for i in loop if i.base == "CALL"], "forms": forms,
            "placeholders": sum(i.base == "LDS" and i.pred == "@!PT" for i in loop), "inner_loops": inner,
            "ptx_shared_loads": {f"ld.shared{w}.f32": n for w, n in ptx_loads.items()}}


def read_widths(name="async_vec", ccs=((8, 0), (9, 0))):
    """Who merges the shared-memory reads: per target, the PTX's ld.shared forms (NVVM's output, the whole kernel) and
    the main loop's LDS forms (ptxas's), then one line saying from the data whether NVVM already emitted 16-byte
    reads only, and whether every executed LDS of the loop is LDS.128."""
    lines = []
    ok_ptx = ok_sass = True
    for cc in ccs:
        s = sass_main_loop(name, cc)
        lds = {k: v for k, v in s["forms"].items() if k.startswith("LDS")}
        lines.append(f"{s['cc']}: PTX {s['ptx_shared_loads']} → 메인 루프 SASS {lds}")
        ok_ptx &= s["ptx_shared_loads"]["ld.shared.f32"] == s["ptx_shared_loads"]["ld.shared.v2.f32"] == 0
        ok_sass &= set(lds) == {"LDS.128"}
    who = ("NVVM 이 PTX 에서 이미 16 B 읽기(ld.shared.v4.f32)만 냈고" if ok_ptx else
           "PTX 에 16 B 보다 좁은 공유 메모리 읽기가 있고")
    lines.append(f"이 컴파일러: {who}, 메인 루프의 공유 메모리 읽기는 "
                 + ("모두 LDS.128 입니다." if ok_sass else "LDS.128 만이 아닙니다."))
    return _report(lines, ptx_only_v4=ok_ptx, sass_only_128=ok_sass)


def recorded_ratios(run="gpu_h200_level5"):
    """{kernel: {n: % of cuBLAS}} and cuBLAS TFLOP/s per size from a recorded run."""
    rec = course.recorded(run)
    ratios, cublas = {}, {}
    for r in rec.rows:
        if r.kernel == "cuBLAS":
            cublas[r.n] = r.tflops
        else:
            ratios.setdefault(r.kernel, {})[r.n] = 100 * r.ratio
    return rec, ratios, cublas


def best_at(n=4096, run="gpu_h200_level5", level=5):
    """(name, % of cuBLAS) of the fastest recorded kernel of `level` at size n, and {kernel: %} of every kernel at n."""
    _, ratios, _ = recorded_ratios(run)
    at_n = {k: row[n] for k, row in ratios.items() if n in row}
    mine = {k: v for k, v in at_n.items() if any(s.name == k for s in kn.by_level(level))}
    best = max(mine, key=mine.get)
    return best, mine[best], at_n


def recorded_stalls(run="gpu_h200_level5", top=4):
    """{kernel: [(stall reason, warp cycles per issued instruction)] largest first} from the recorded ncu run."""
    st = course.recorded(run)["ncu_stalls"]["kernels"]
    return {k: sorted(((r, v) for r, v in d["cycles_per_issue"].items() if r != "selected"),
                      key=lambda x: -x[1])[:top] for k, d in st.items()}


def issue_use(run="gpu_h200_level5"):
    """08's estimate of the share of cycles a scheduler issued, per kernel of the recorded ncu run: warps per scheduler
    (time-averaged over the profiled grid of its block tiles: sim.occupancy) / the summed warp cycles per issue."""
    rec = course.recorded(run)
    st, n, sms = rec["ncu_stalls"]["kernels"], rec["ncu_stalls"]["n"], occupancy.GPUS["H200"].sm_count
    lines, use = [f"기록: {rec.gpu} {rec.date}, {n}³ (08 노트북의 어림: 스케줄러당 평균 워프 수 ÷ 명령당 워프-사이클 합)"], {}
    for k, d in st.items():
        m, ld = kn.get(k).module, rec["loaded"][k]
        warps = occupancy.mean_warps_per_scheduler(-(-n // m.BM) * -(-n // m.BN), ld["blocks_per_sm"],
                                                   ld["threads"] // 32, sms)
        cpi = sum(d["cycles_per_issue"].values())
        use[k] = min(1.0, warps / cpi)
        lines.append(f"{k:11s} 스케줄러가 명령을 낸 사이클 ≈ {warps:.2f} / {cpi:.2f} = {100 * use[k]:.0f}%")
    return Report(lines, use=use)


def plot_sweep(run="gpu_h200_level5"):
    """Bar chart: % of cuBLAS per kernel and size (recorded GPU run, named in the title); legend below the axes."""
    # local: matplotlib (course.plots) is heavy: loaded only when a figure is drawn
    from course import plots
    rec, ratios, cublas = recorded_ratios(run)
    sizes = sorted(next(iter(ratios.values())))
    fig, ax = plots.subplots(figsize=(9, 4.6))
    width = 0.8 / len(ratios)
    for i, (name, row) in enumerate(ratios.items()):
        ax.bar([j + i * width for j in range(len(sizes))], [row[n] for n in sizes], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))],
                  [f"{n}³ (cuBLAS {cublas[n]:.1f} TFLOP/s)" for n in sizes])
    ax.axhline(85, color="gray", ls="--", lw=1, label="목표 85%")
    ax.set_ylabel("cuBLAS SGEMM 대비 (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"레벨 5 변형과 NUM_STAGES 비교: {rec.gpu}, {rec.date} 기록, 같은 실행의 cuBLAS SGEMM(TF32 꺼짐) = 100%",
                 fontsize=10)
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
    fig.tight_layout()
    return fig


def tail_table(stages=(2, 3, 4), tiles=(1, 2, 3, 4, 5, 8)):
    """Rows (NUM_STAGES, K tiles, first unguarded tile for the common loop / ours)."""
    return [(s, t, first_unsafe_tile(s, t, "common"), first_unsafe_tile(s, t, "empty_commit"))
            for s in stages for t in tiles]


CORE_FILES = ("cp_async_ca_4", "cp_async_cg_16", "cp_async_commit_group", "cp_async_wait_group_2")


def ptx_file_sass(names=CORE_FILES, arch="sm_80"):
    """{file name: (the PTX instruction, its SASS instruction)} for the named cp.async .ptx files (None: all)."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for fn in sorted(ptx.FUNCS.values(), key=lambda f: f.name):
            if not fn.name.startswith("cp_async") or (names is not None and fn.name not in names):
                continue
            obj = os.path.join(d, fn.name + ".o")
            subprocess.run([offline._tool("ptxas"), "-c", f"-arch={arch}", fn.path, "-o", obj], check=True)
            sass = subprocess.run([offline._tool("cuobjdump"), "-sass", obj], capture_output=True, text=True).stdout
            ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d\s+)?((?:LDGSTS|LDGDEPBAR|DEPBAR)[^;]*)", sass)
            out[os.path.basename(fn.path)] = (fn.instruction, "; ".join(o.strip() for o in ops))
    return out


def demo_results(names=("async_no_commit", "async_no_wait", "async_wait_too_little", "async_no_barrier_after_wait",
                        "async_overwrite_pending", "async_copy"), M=16, N=16, K=40):
    """check() for each bug demo and the correct kernel (5 K tiles)."""
    return [check(n, M, N, K) for n in names]


def timeline(stages, n_tiles=6, t_load=6, t_comp=2):
    """Text timeline (sim.pipeline) of a cp.async pipeline with `stages` buffers: stages-1 tile loads in flight.

    One character per time unit, the tile number in each bar, one row per load slot; returns (lines, total)."""
    tl = pipeline.schedule(n_tiles, t_load, t_comp, stages=stages, loads_in_flight=max(1, stages - 1))
    width = math.ceil(tl.total)
    lines = []
    slots = sorted({e.lane for e in tl.of("load")})
    for lane in slots:
        row = [" "] * width
        for e in tl.of("load"):
            if e.lane == lane:
                row[int(e.start):math.ceil(e.end)] = str(e.tile) * (math.ceil(e.end) - int(e.start))
        lines.append(f"  로드{lane + 1} |{''.join(row)}|")
    row = [" "] * width
    for e in tl.of("compute"):
        row[int(e.start):math.ceil(e.end)] = str(e.tile) * (math.ceil(e.end) - int(e.start))
    lines.append(f"  연산  |{''.join(row)}|")
    return lines, tl.total
