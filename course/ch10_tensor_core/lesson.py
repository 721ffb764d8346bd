"""Analysis helpers of notebook 10 (Tensor Core mma): ptxas shape table, layout check, error vs K, padding, tables."""
import atexit
import contextlib
import itertools
import json
import os
import queue
import re
import statistics
import subprocess
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path

import numpy as np

import kernels_numba  # noqa: F401,I001  (first: picks GPU or simulator before numba is imported)
from kernels_numba.common import copy_tiles, store_fragment  # noqa: F401  (10-5's helpers live there; names stay)
from course import kit, records
from course.tc_check import _check_here, _check_in_simulator, _loaded, check_kernel, check_kernels  # noqa: F401,E501  (notebooks 10 and 11 share them)
from course.measure import here_label  # noqa: F401  (every lesson's label of 'this GPU' figures)
from sim.korean import josa
from kernels_numba.tools import offline
from dataclasses import replace
from sim import occupancy
from kernels_numba.tools import resources
from collections import Counter
from sim import mma
from sim import banks
from kernels_numba import tc
import kernels_numba as kn
from kernels_numba.infra import device
from kernels_numba.demos import mma_divergent as d
from kernels_numba.infra.simulator import errors as _errors, warp as _warp
from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import warp as _warp
import inspect
import operator
from numba import types
import sys
import csv
import gzip
import io
from kernels_numba import occupancy as kocc   # the GPU-side occupancy (loaded kernels, offline compiles); `occupancy` is sim's model

ROOT = Path(__file__).resolve().parents[2]          # the clone's root (the simulator child's PYTHONPATH)
# the GPU records this lesson reads (course/recorded/ and this chapter's records/, one schema: course.records), each
# loaded once
H200_LEVEL6 = records.load("gpu_h200_level6")             # level-6 kernels vs cuBLAS HGEMM (record_level6.py)
H200_EXPLORE = records.load("gpu_h200_level6_explore")    # tc.build_tiled configurations, kernels as loaded
FAST = records.load("gpu_h100_level6_fast")                # mma_swizzle -> mma_fast on the H100: runs 1-6, run7_graph
FAST_H200 = records.load("gpu_h200_level6_fast")           # the final mma_fast on an H200: h200_run1, h200_graph

# (shape, types as written in the instruction, registers a/b/c/d) for ptxas; the seed names m16n8k16, m16n8k8, m8n8k4
SHAPES = [
    ("m16n8k16", "f32.f16.f16.f32", "{f0,f1,f2,f3}, {a0,a1,a2,a3}, {a4,a5}, {f4,f5,f6,f7}"),
    ("m16n8k16", "f16.f16.f16.f16", "{a0,a1}, {a0,a1,a2,a3}, {a4,a5}, {a6,a7}"),
    ("m16n8k16", "f32.bf16.bf16.f32", "{f0,f1,f2,f3}, {a0,a1,a2,a3}, {a4,a5}, {f4,f5,f6,f7}"),
    ("m16n8k8", "f32.f16.f16.f32", "{f0,f1,f2,f3}, {a0,a1}, {a4}, {f4,f5,f6,f7}"),
    ("m16n8k8", "f32.tf32.tf32.f32", "{f0,f1,f2,f3}, {a0,a1,a2,a3}, {a4,a5}, {f4,f5,f6,f7}"),
    ("m16n8k4", "f32.tf32.tf32.f32", "{f0,f1,f2,f3}, {a0,a1}, {a4}, {f4,f5,f6,f7}"),
    ("m8n8k4", "f32.f16.f16.f32", "{f0,f1,f2,f3,f4,f5,f6,f7}, {a0,a1}, {a4,a5}, {f8,f9,f10,f11,f12,f13,f14,f15}"),
    # not in the PTX ISA's shape table for .tf32; with these operand vectors ptxas 13 still accepts it (see SASS)
    ("m8n8k4", "f32.tf32.tf32.f32", "{f0,f1,f2,f3,f4,f5,f6,f7}, {a0,a1,a2,a3}, {a4,a5,a6,a7}, {f8,f9,f10,f11,f12,f13,f14,f15}"),
    ("m8n8k4", "f64.f64.f64.f64", "{d0,d1}, {d2}, {d3}, {d0,d1}"),
]


def _ptxas():
    return offline._tool("ptxas")


def _probe(instruction, arch):
    """(ok, first error line, SASS text) of ptxas -arch=arch (memoised; computed on a side thread, see prefetch)."""
    return _side(("probe", instruction, arch), _probe_now, instruction, arch).result()


def _probe_now(instruction, arch):
    """(ok, first error line, SASS text) of ptxas -arch=arch on a kernel that runs `instruction` and stores every
    register it may write, so nothing it computes is dead code."""
    target = "sm_75" if arch == "sm_75" else "sm_80"          # .version 7.0: sm_80 code also assembles for sm_90
    text = (f".version 7.0\n.target {target}\n.address_size 64\n.visible .entry probe(.param .u64 p)\n{{\n"
            "    .reg .b32 a<8>;\n    .reg .f32 f<16>;\n    .reg .f64 d<4>;\n    .reg .b64 rd<2>;\n"
            "    ld.param.u64 rd0, [p];\n    " + instruction + "\n"
            + "".join(f"    st.global.f32 [rd0+{4 * i}], f{i};\n" for i in range(16))
            + "".join(f"    st.global.b32 [rd0+{64 + 4 * i}], a{i};\n" for i in range(8))
            + "".join(f"    st.global.f64 [rd0+{96 + 8 * i}], d{i};\n" for i in range(4)) + "    ret;\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.ptx")
        Path(src).write_text(text)
        cubin = os.path.join(tmp, "probe.cubin")
        p = _run_low([_ptxas(), f"-arch={arch}", src, "-o", cubin])
        sass = ""
        if p.returncode == 0:
            sass = _run_low([offline._tool("cuobjdump"), "-sass", cubin]).stdout
    err = next((l.split("error", 1)[1].strip(" :") for l in p.stderr.splitlines() if "error" in l), "")
    return p.returncode == 0, err, sass


def ptxas_check(instruction, arch):
    """(ok, first error line) of ptxas -arch=arch on a module whose kernel holds `instruction`."""
    return _probe(instruction, arch)[:2]


def _sass_ops(sass, prefixes=("HMMA", "DMMA", "LDSM", "LDGSTS")):
    """The tensor-core / ldmatrix / cp.async SASS instructions in `sass`; without any, what the kernel does instead."""
    ops = re.findall(r"\b((?:" + "|".join(prefixes) + r")[A-Z0-9.]*)", sass)
    if ops:
        return ", ".join(sorted(set(ops)))
    ffma, shfl = len(re.findall(r"\bFFMA\b", sass)), len(re.findall(r"\bSHFL\b", sass))
    if re.search(r"\bCALL\b", sass):
        return f"MMA 명령 없음: CALL 한 서브루틴(SHFL {shfl}, FFMA {ffma})"
    return f"MMA 명령 없음, FFMA {ffma}"


def _shape_instruction(shape, types, regs):
    return f"mma.sync.aligned.{shape}.row.col.{types} {regs};"


def mma_shape_table(archs=("sm_80", "sm_90")):
    """[{shape, types, sm_80, sm_90, SASS, error}] for every mma form in SHAPES: ptxas 13's verdict and the
    tensor-core instruction it emits for sm_80 ('없음': accepted, but no MMA instruction in the SASS)."""
    for shape, types, regs in SHAPES:           # all probes at once (each is a ptxas + cuobjdump subprocess)
        for arch in archs:
            _side(("probe", _shape_instruction(shape, types, regs), arch), _probe_now,
                  _shape_instruction(shape, types, regs), arch)
    rows = []
    for shape, types, regs in SHAPES:
        ins = _shape_instruction(shape, types, regs)
        row = {"shape": shape, "types": types}
        for arch in archs:
            ok, err, sass = _probe(ins, arch)
            row[arch] = "✅" if ok else "❌"
            if ok and arch == archs[0]:
                row["SASS"] = _sass_ops(sass)
            if not ok:
                row["error"] = err
        rows.append(row)
    return rows


# the instructions of this notebook's kernels, to see which compute capability each needs (ptxas, not a table)
FEATURES = [
    ("ldmatrix.x4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {a0,a1,a2,a3}, [a5];"),
    ("mma m16n8k8 f16→f32", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {f0,f1,f2,f3}, {a0,a1}, {a4}, {f4,f5,f6,f7};"),
    ("mma m16n8k16 f16→f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                              "{f0,f1,f2,f3}, {a0,a1,a2,a3}, {a4,a5}, {f4,f5,f6,f7};"),
    ("cp.async.cg 16 B", "cp.async.cg.shared.global [a5], [rd0], 16;"),
]


def feature_table(archs=("sm_75", "sm_80", "sm_90")):
    """[{instruction, sm_75, sm_80, sm_90}]: the SASS instruction ptxas emits for each arch, or ❌ and its error."""
    for _, ins in FEATURES:                     # all probes at once (subprocesses on side threads)
        for arch in archs:
            _side(("probe", ins, arch), _probe_now, ins, arch)
    rows = []
    for label, ins in FEATURES:
        row = {"명령": label}
        for arch in archs:
            ok, err, sass = _probe(ins, arch)
            row[arch] = _sass_ops(sass) if ok else f"❌ {err}"
        rows.append(row)
    return rows


# wgmma (Hopper's warp-group mma, what cuBLAS ran in 5.6) in a kernel that stores its result: PTX ISA 8.0, the
# target in the module must be the arch-specific sm_90a; ptxas refuses it for .target sm_90
WGMMA = ("wgmma.fence.sync.aligned;\n"
         "    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {f0,f1,f2,f3}, rd1, rd2, q, 1, 1, 0, 0;\n"
         "    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;")


def _wgmma_probe_now(target):
    text = (f".version 8.0\n.target {target}\n.address_size 64\n.visible .entry probe(.param .u64 p)\n{{\n"
            "    .reg .f32 f<4>;\n    .reg .b64 rd<3>;\n    .reg .b32 r0;\n    .reg .pred q;\n    ld.param.u64 rd0, [p];\n"
            # descriptors and scale-d loaded from memory: ptxas cannot fold the wgmma away (the GPU machine's ptxas dropped
            # HGMMA from a probe whose operands were constants)
            "    ld.global.u64 rd1, [rd0+16];\n    ld.global.u64 rd2, [rd0+24];\n    ld.global.u32 r0, [rd0+32];\n"
            "    setp.ne.b32 q, r0, 0;\n"
            + "".join(f"    mov.f32 f{i}, 0f00000000;\n" for i in range(4)) + "    " + WGMMA + "\n"
            + "".join(f"    st.global.f32 [rd0+{4 * i}], f{i};\n" for i in range(4)) + "    ret;\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = os.path.join(tmp, "probe.ptx"), os.path.join(tmp, "probe.cubin")
        Path(src).write_text(text)
        p = _run_low([_ptxas(), f"-arch={target}", src, "-o", cubin])
        sass = ""
        if p.returncode == 0:
            sass = _run_low([offline._tool("cuobjdump"), "-sass", cubin]).stdout
    err = next((l.split("error", 1)[1].strip(" :") for l in p.stderr.splitlines() if "error" in l), "")
    return p.returncode == 0, err, sass


def wgmma_targets(targets=("sm_90", "sm_90a")):
    """{target: 'SASS ops' or '❌ ptxas error'}: ptxas on a wgmma kernel whose PTX names that target."""
    for t in targets:
        _side(("wgmma", t), _wgmma_probe_now, t)
    out = {}
    for t in targets:
        ok, err, sass = _side(("wgmma", t), _wgmma_probe_now, t).result()
        out[t] = (", ".join(sorted(set(re.findall(r"\b((?:HGMMA|WARPGROUP)[A-Za-z0-9.]*)", sass))))
                  if ok else f"❌ {err}")
    return out


# Per-SM limits by compute capability, as CUDA 13's cuda_occupancy.h encodes them (cudaOccMaxBlocksPerMultiprocessor:
# 32 on 8.0 and 9.0, 24 on 8.9, 16 on 8.6) and the CUDA C++ Programming Guide's per-CC table (max resident warps:
# 64 on 8.0/9.0, 48 on 8.6/8.9). tests/ch10/test_lesson10.py checks the block limits against the header in the wheel.
CC_LIMITS = {(8, 0): (32, 64), (8, 6): (16, 48), (8, 9): (24, 48), (9, 0): (32, 64)}


def one_warp_occupancy(regs=32, smem=768):
    """[(cc, Occupancy)] of a one-warp block (mma_large) on CC 8.0/8.6/8.9/9.0 with sim/occupancy's rules."""
    base = occupancy.GPUS["A100"]
    out = []
    for cc, (blocks, warps) in CC_LIMITS.items():
        spec = replace(base, name=f"CC {cc[0]}.{cc[1]}", cc=cc, max_blocks_per_sm=blocks, max_warps_per_sm=warps)
        out.append((cc, occupancy.occupancy(spec, regs, 32, smem)))
    return out


def loop_mma(name, cc=(9, 0)):
    """[(HMMA, BAR) per loop] of kernel `name`'s offline SASS, and its total HMMA (why mma_large shows 5)."""
    ins = resources.parse_sass(compiled([(name, cc)])[(name, tuple(cc))]["sass"])
    loops = [ins[a:b + 1] for a, b in resources._loops(ins)]
    per = [(sum(i.base == "HMMA" for i in b), sum(i.base == "BAR" for i in b)) for b in loops]
    return [p for p in per if p[0]], sum(i.base == "HMMA" for i in ins)


def sass_iteration(name="mma_large", cc=(9, 0)):
    """SASS of one K step of kernel `name`: from the first LDGSTS to the barrier after the first HMMA."""
    ins = resources.parse_sass(compiled([(name, cc)])[(name, tuple(cc))]["sass"])
    a = next(n for n, i in enumerate(ins) if i.base == "LDGSTS")
    h = next(n for n, i in enumerate(ins) if i.base == "HMMA")
    b = next(n for n in range(h, len(ins)) if ins[n].base == "BAR")
    keep = ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "LDSM", "HMMA", "CALL")     # CALL: a call would show here
    return "\n".join(i.text() for i in ins[a:b + 1] if i.base in keep)


def iteration_facts(name="mma_large", cc=(9, 0)):
    """What 4.3's prose says about the K step sass_iteration prints and the loops loop_mma counts, read from that same
    compile (compilers differ): how many of each instruction, whether a CALL is there, whether the two ldmatrix come in
    the source's order (the A fragment's .x4 first), and how the K loop was split (HMMA per loop)."""
    text = sass_iteration(name, cc)
    ops = Counter(re.sub(r"^@!?P\w+\s+", "", l.split("*/", 1)[1].strip()).split()[0] for l in text.splitlines())
    ldsm = [o for o in (re.sub(r"^@!?P\w+\s+", "", l.split("*/", 1)[1].strip()).split()[0] for l in text.splitlines())
            if o.startswith("LDSM")]
    per_loop, total = loop_mma(name, cc)
    same = ldsm and ldsm[0].startswith("LDSM.16.M88")
    loops = " + ".join(f"HMMA {h}개 루프" for h, _ in per_loop)
    line = (f"이 컴파일러 (sm_{cc[0]}{cc[1]}): K 스텝 하나에 " + ", ".join(f"{o} {n}" for o, n in ops.items())
            + f" | CALL {'있음' if ops.get('CALL') else '없음'} | ldmatrix 순서: "
            + ("소스와 같음 (.x4 먼저)" if same else "소스와 다름 (.x2.trans 먼저)")
            + f" | K 루프: {loops} = 커널 전체 HMMA {total}개")
    return line, {"ops": dict(ops), "ldsm_order": ldsm, "per_loop": per_loop, "total": total, "source_order": same}


def call_sites(name="mma_large", cc=(9, 0)):
    """[(CALL instruction, the instruction after it, the instruction at the CALL's target)] of kernel `name`'s
    offline SASS: each CALL.REL.NOINC sits before the loop's back branch and targets the instruction after it."""
    lines = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", compiled([(name, cc)])[(name, tuple(cc))]["sass"])
    at = {int(a, 16): " ".join(t.split()) for a, t in lines}
    out = []
    for k, (addr, ins) in enumerate(lines):
        m = re.search(r"CALL\S*\s+(0x[0-9a-f]+)", ins)
        if m:
            tgt = int(m.group(1), 16)
            nxt = " ".join(lines[k + 1][1].split()) if k + 1 < len(lines) else "-"
            out.append((" ".join(ins.split()), nxt, f"{tgt:#06x}: {at.get(tgt, '?')}"
                        + (" (= BRA 다음 명령)" if k + 2 < len(lines) and int(lines[k + 2][0], 16) == tgt else "")))
    return out


def error_growth_summary():
    """{kernel: (max relative error at the largest K, log-log slope of error vs K)} and the f16/f32 ratio there."""
    rows = H200_LEVEL6["error_vs_k"]
    K = np.log([r["K"] for r in rows])
    out = {}
    for name in ("mma_pipe", "mma_pipe_f16out", "mma_pipe_f16acc"):
        e = np.array([r[name] for r in rows])
        out[name] = (float(e[-1]), float(np.polyfit(K, np.log(e), 1)[0]))
    return out, rows[-1]["K"], out["mma_pipe_f16acc"][0] / out["mma_pipe"][0]


def markdown(rows, columns):
    """A small Markdown table (IPython.display.Markdown renders it)."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        out.append("| " + " | ".join(str(r.get(c, "")) for c in columns) + " |")
    return "\n".join(out)


def layout_record(gpu="h200"):
    return records.load(f"mma_layout_{gpu}")


def compare_layout(gpu="h200"):
    """Element-by-element comparison of the GPU's record with sim/mma.py: {what: (agree, total)}."""
    rec = layout_record(gpu)
    out = {}
    for name, lanes in rec["ldmatrix"].items():
        num, trans = int(name[1]), name.endswith("trans")
        pairs = [(tuple(h), w) for lane, regs in enumerate(lanes)
                 for reg, want in zip(regs, mma.ldmatrix_elements(lane, num, trans)) for h, w in zip(reg, want)]
        out[f"ldmatrix.{name}"] = (sum(a == b for a, b in pairs), len(pairs))
    for m, fn in (("A", mma.a_elements), ("B", mma.b_elements), ("C", mma.c_elements)):
        pairs = [(tuple(e), w) for lane in range(32) for e, w in zip(rec["mma_m16n8k16"][m][lane], fn(lane))]
        out[f"mma {m}"] = (sum(a == b for a, b in pairs), len(pairs))
    return out


def bench_rows(n=None):
    """[{kernel, n, output, TFLOP/s, % of cuBLAS HGEMM (f32 out), % of the cuBLAS with the same output type}] of the
    recorded level-6 run; 'cuBLAS_f16out' is cuBLAS with f16 output, the baseline of the f16-output kernels."""
    rows = []
    for r in H200_LEVEL6.run().select(n=n, variant=""):
        same = r.extra.get("ratio_same_output")
        out = r.extra.get("output", "f16" if r.kernel == "cuBLAS_f16out" else "f32")
        rows.append({"커널": r.kernel, "n": r.n, "출력": out,
                     "TFLOP/s": f"{r.tflops:.1f}", "cuBLAS 대비": f"{100 * r.ratio:.1f}%",
                     "같은 출력 cuBLAS 대비": f"{100 * same:.1f}%" if same is not None else "-"})
    return rows


def best_kernel(n=4096):
    """{kernel, n, tflops, ratio, cublas_tflops} of the fastest of our level-6 kernels in the recorded run at size n."""
    run = H200_LEVEL6.run()
    base = run.row("cuBLAS", n)
    best = max((r for r in run.select(n=n, variant="") if not r.kernel.startswith("cuBLAS")), key=lambda r: r.tflops)
    return {"kernel": best.kernel, "n": n, "tflops": round(best.tflops, 1), "ratio": round(best.ratio, 3),
            "cublas_tflops": round(base.tflops, 1)}


def swizzle_demo(BN=128, BK=32, col=0, tile="B"):
    """(wavefronts, conflict degree) from sim/banks of one ldmatrix phase (8 rows at one 16-byte chunk) on the B tile
    (rows of BN f16) or the A tile (rows of BK f16): unpadded, padded by 16 B, and XOR-swizzled rows
    (kernels_numba.tc.swizzle_params)."""
    width = BN if tile == "B" else BK
    sh, mask = tc.swizzle_params(width // 8)
    layouts = {"패딩 없음": (2 * width, lambda r, c: c), "패딩 +16 B": (2 * (width + 8), lambda r, c: c),
               "스위즐": (2 * width, lambda r, c: c ^ (((r >> sh) & mask) << 3))}
    out = {}
    for name, (row_bytes, col_of) in layouts.items():
        rep = banks.analyze_request([(r, r * row_bytes + 2 * col_of(r, col), 16) for r in range(8)], "load")
        out[name] = (rep.wavefronts, rep.conflict_degree)
    return out


def bound_formula(A, B, alpha=1.0, beta=0.0, C0=None, acc="f32", out="f32", safety=2.0):
    """Section 8's bound written out term by term, the way the prose states it (tests: = tc.error_bound):
    gamma_K(2 u_acc) M + u_f32 M + u_out |C_exact| (+ u_f32 |C_exact| for f16 output) + t,
    M = |alpha| |A| |B| + |beta| |C0|, gamma_K(v) = K v / (1 - K v)."""
    A64, B64 = np.asarray(A, np.float64), np.asarray(B, np.float64)
    K = A64.shape[1]
    v = safety * tc.UNIT_ROUNDOFF[acc]
    gamma = K * v / (1 - K * v)
    C0_64 = np.zeros(A64.shape[0:1] + B64.shape[1:]) if C0 is None or beta == 0 else np.asarray(C0, np.float64)
    M = abs(alpha) * (np.abs(A64) @ np.abs(B64)) + abs(beta) * np.abs(C0_64)
    exact = alpha * (A64 @ B64) + beta * C0_64
    f32_sum = tc.UNIT_ROUNDOFF["f32"] * np.abs(exact) if out == "f16" else 0.0     # the f32 sum, rounded before f16
    return gamma * M + tc.UNIT_ROUNDOFF["f32"] * M + tc.UNIT_ROUNDOFF[out] * np.abs(exact) + f32_sum + tc.TINY[out]


def bound_check(M=32, N=16, K=272, seed=0):
    """What section 8's cell prints: the prose formula (bound_formula) against tc.error_bound on random f16 inputs
    for each accumulator/output pair (largest relative difference), gamma_K(2u) against 2 gamma_K(u) at that K,
    and the largest K with a bound per accumulator type."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(np.float32)
    diff = 0.0
    for acc, out in (("f32", "f32"), ("f32", "f16"), ("f16", "f16")):
        a = tc.error_bound(A, B, 1.5, -0.5, C0, acc=acc, out=out)
        b = bound_formula(A, B, 1.5, -0.5, C0, acc=acc, out=out)
        diff = max(diff, float(np.max(np.abs(a - b) / b)))
    u = tc.UNIT_ROUNDOFF["f16"]
    g = lambda v: K * v / (1 - K * v)                   # noqa: E731
    return {"식과 tc.error_bound 의 최대 상대 차이": diff,
            f"K={K}, f16 누적: γ_K(2u) ÷ 2·γ_K(u)": round(g(2 * u) / (2 * g(u)), 3),
            "한계가 있는 가장 큰 K (f32 누적, f16 누적)": (tc.bound_k_max("f32"), tc.bound_k_max("f16"))}


def error_growth_plot():
    """Max relative error vs K on the GPU (recorded) for f32 / f16 accumulation, with the K*u lines of the bound."""
    # local: matplotlib (course.plots) is heavy: loaded only when a figure is drawn
    from course import plots
    rows = H200_LEVEL6["error_vs_k"]
    K = np.array([r["K"] for r in rows], float)
    fig, ax = plots.subplots(figsize=(9.5, 4))
    labels = {"mma_pipe": "f32 누적·f32 출력", "mma_pipe_f16out": "f32 누적·f16 출력", "mma_pipe_f16acc": "f16 누적·f16 출력"}
    for name, label in labels.items():
        ax.loglog(K, [r[name] for r in rows], "o-", label=label)
    ax.loglog(K, K * 2.0 ** -24, "k:", label="K·2⁻²⁴ (f32 단위 반올림)")
    ax.loglog(K, K * 2.0 ** -11, "k--", label="K·2⁻¹¹ (f16 단위 반올림)")
    f16 = rows[0]["mma_pipe_f16acc"]
    ax.loglog(K, f16 * np.sqrt(K / K[0]), "-.", color="gray", label="√K 에 비례 (f16 누적의 첫 점 기준)")
    ax.set_xlabel("K (누적 길이)")
    ax.set_ylabel("최대 상대 오차 (최대 |C| 기준)")
    ax.set_title(f"K 가 커질수록 커지는 오차 ({H200_LEVEL6.gpu}, {H200_LEVEL6.date} 기록, 입력 U(0,1))", fontsize=10)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def padded_launch(spec, A, B, C, alpha=1.0, beta=0.0):
    """Run a level-6 kernel on any M, N, K: zero-pad A, B (and C) up to multiples of 16, 8, 16, copy the result back.
    Zero rows/columns add exact zeros to every dot product, so the result equals the unpadded one."""
    M, K = A.shape
    N = B.shape[1]
    Mp, Np, Kp = -(-M // 16) * 16, -(-N // 8) * 8, -(-K // 16) * 16
    Ap = np.zeros((Mp, Kp), np.float16)
    Ap[:M, :K] = A
    Bp = np.zeros((Kp, Np), np.float16)
    Bp[:K, :N] = B
    Cp = np.zeros((Mp, Np), C.dtype)
    Cp[:M, :N] = C
    spec.launch(Ap, Bp, Cp, alpha, beta)
    C[...] = Cp[:M, :N]
    return C


def loaded_resources():
    """{kernel: registers, shared/local bytes, SASS counts, blocks per SM} of the kernels as loaded on the H200."""
    res = H200_LEVEL6.get("resources")
    if isinstance(res, dict) and res and not any("error" in v for v in res.values()):
        return res
    return H200_EXPLORE["resources_loaded"]


def occupancy_rows(kernels=("mma_large", "mma_pipe"), gpu="H200"):
    """Occupancy from sim/occupancy with the registers recorded on the GPU (or the stated ones)."""
    res = loaded_resources()
    rows = []
    for name in kernels:
        spec = kn.get(name)
        threads = int(np.prod(spec.launch.block))
        regs = res.get(name, {}).get("registers", 32 if name == "mma_large" else 206)
        o = occupancy.occupancy(gpu, regs, threads, getattr(spec.module, "SMEM_BYTES", 768))
        rows.append({"커널": name, "스레드/블록": threads, "레지스터": regs, "공유 메모리 B": spec.module.SMEM_BYTES,
                     "결과": o.summary()})
    return rows


def divergence_message(which="kernel"):
    """The simulator's error for the split-warp demo (kernels_numba/demos/mma_divergent.py), first two lines.

    On a GPU the demo is not launched: a split warp at mma.sync is undefined behaviour there (it may hang).
    """
    if not device.SIMULATOR:
        return ("GPU 모드: 워프가 갈라진 mma.sync 는 하드웨어에서 정의되지 않은 동작(멈출 수 있음)이라 실행하지 않습니다. "
                "시뮬레이터(SGEMM_DEVICE=sim)에서 이 셀이 워프 0 의 오류를 보여 줍니다.")
    A = np.zeros((16, 16), np.float16)
    B = np.zeros((16, 8), np.float16)
    try:
        d.launch(A, B, np.zeros((16, 8), np.float32), which=which)
    except _errors.WarpCollectiveError as e:
        return "\n".join(str(e).splitlines()[:2])
    return "(오류 없음)"


def ptx_text(name):
    """The one instruction line of .ptx function `name` and the file it lives in."""
    fn = ptx.FUNCS[name]
    return f"{os.path.basename(fn.path)}:  {fn.instruction}"


def copy_pattern(BM=16, BN=8, BK=16):
    """16-byte cp.async chunks per K step for the A tile (BM x BK f16) and the B tile (BK x BN f16)."""
    a_row, b_row = BK * 2, BN * 2
    return {"A 행 바이트": a_row, "A 행당 16B 복사": a_row // 16, "A 복사 수": BM * a_row // 16,
            "B 행 바이트": b_row, "B 행당 16B 복사": b_row // 16, "B 복사 수": BK * b_row // 16}


def resource_rows():
    """Registers, shared/local bytes, blocks per SM and HMMA/LDSM counts of the kernels as loaded on the H200."""
    rows = []
    for name, r in loaded_resources().items():
        s = r.get("sass", {})
        rows.append({"커널": name, "레지스터": r["registers"], "공유 B": r["shared_bytes"], "로컬 B": r["local_bytes"],
                     "블록/SM": r["blocks_per_sm"], "HMMA": sum(v for k, v in s.items() if k.startswith("HMMA")),
                     "LDSM": sum(v for k, v in s.items() if k.startswith("LDSM"))})
    return rows


def explore_rows():
    """The block/warp/stage configurations tried on the H200 at 4096^3, each row naming its run and that run's cuBLAS
    (the two runs measured cuBLAS separately: compare % only within one run)."""
    rows = []
    runs = (("탐색 실행", H200_EXPLORE["explore"]), ("기록 실행", H200_LEVEL6.get("explore", [])))
    for label, entries in runs:
        for r in entries:
            if "tflops" in r:
                rows.append({"실행": label, "cuBLAS TFLOP/s": f"{r['tflops'] / r['ratio']:.0f}",
                             "BM×BN×BK": f"{r['BM']}×{r['BN']}×{r['BK']}", "워프 (M×N)": f"{r['WARPS_M']}×{r['WARPS_N']}",
                             "단": r["STAGES"], "launch_bounds": f"({32 * r['WARPS_M'] * r['WARPS_N']}, {r['MIN_BLOCKS']})" if r.get("MIN_BLOCKS") else "-",
                             "배치": "스위즐" if r.get("SWIZZLE") else "패딩", "레지스터": r["registers"],
                             "로컬 B": r["local_bytes"], "TFLOP/s": f"{r['tflops']:.0f}", "cuBLAS 대비": f"{100 * r['ratio']:.1f}%"})
    return rows


def check_numerics(rec):
    """Stand-in vs GPU on the recorded inputs: f32 accumulation within 2 ulp-of-|A||B| bound, f16 within its bound."""
    worst = {"f32": 0.0, "f16": 0.0}
    for s in rec["numerics"]:
        A, B = np.array(s["A"]), np.array(s["B"])
        ops32 = [tuple(s["Aregs"][l]) + tuple(s["Bregs"][l]) + tuple(np.float32(x) for x in s["Cin"][l]) for l in range(32)]
        ops16 = [tuple(s["Aregs"][l]) + tuple(s["Bregs"][l]) + tuple(s["Cin16"][l]) for l in range(32)]
        sim32 = np.array(_warp.mma_warp(ops32, "f32"), np.float64)
        sim16 = np.array(_warp.mma_warp(ops16, "f16"), np.uint32).view(np.float16).astype(np.float64)
        gpu32 = np.array(s["D"], np.float64)
        gpu16 = np.array(s["D16"], np.uint32).view(np.float16).astype(np.float64)
        mag = (np.abs(A) @ np.abs(B)).reshape(-1)[_warp._C_IDX]          # per lane, per register
        for acc, sim, gpu in (("f32", sim32, gpu32), ("f16", sim16, gpu16)):
            u = tc.UNIT_ROUNDOFF[acc]
            cin = np.abs(np.array(s["Cin"])) if acc == "f32" else np.abs(
                np.array(s["Cin16"], np.uint32).view(np.float16).astype(np.float64))
            bound = 2 * 17 * u * (mag + cin + np.abs(gpu)) + 1e-30
            assert (np.abs(sim - gpu) <= bound).all(), (acc, float(np.abs(sim - gpu).max()))
            worst[acc] = max(worst[acc], float((np.abs(sim - gpu) / bound).max()))
    return worst


def warp_tiling_plot():
    """Two panels: a 32x16 block tile of 2 warps (each 16x16 = 2 mma tiles), and build_tiled's 128x128 block tile of
    8 warps (2x4, each 64x32 = 4x4 mma tiles of 16x8). Warps in colour, mma tiles outlined; returns the figure."""
    # local: matplotlib is heavy: loaded only when a figure is drawn
    from matplotlib.patches import Rectangle
    # local: matplotlib (course.plots) is heavy: loaded only when a figure is drawn
    from course import plots
    fig, axes = plots.subplots(1, 2, figsize=(10, 4.6), gridspec_kw={"width_ratios": [1, 2.2]})
    cases = ((axes[0], 32, 16, 2, 1, "블록 32×16, 워프 2개 (2×1)\n워프마다 16×16 = mma 타일 1×2"),
             (axes[1], 128, 128, 2, 4, "블록 128×128, 워프 8개 (2×4)\n워프마다 64×32 = mma 타일 4×4"))
    colors = ["#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5"]
    for ax, BM, BN, WM_, WN_, title in cases:
        wm, wn = BM // WM_, BN // WN_
        for w in range(WM_ * WN_):
            r0, c0 = (w // WN_) * wm, (w % WN_) * wn
            ax.add_patch(Rectangle((c0, r0), wn, wm, facecolor=colors[w], edgecolor="black", lw=1.5))
            ax.text(c0 + wn / 2, r0 + wm / 2, f"워프 {w}", ha="center", va="center", fontsize=10)
            for mi in range(wm // 16):
                for ni in range(wn // 8):
                    ax.add_patch(Rectangle((c0 + ni * 8, r0 + mi * 16), 8, 16, fill=False, lw=0.4, ls=":"))
        ax.set_xlim(0, BN)
        ax.set_ylim(BM, 0)
        ax.set_aspect("equal")
        ax.set_xlabel("N (열)")
        ax.set_ylabel("M (행)")
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def tiling_source():
    """The lines of kernels_numba.tc.build_tiled that place a warp and its mma tiles (warp tile, compute loop)."""
    lines = inspect.getsource(tc.build_tiled).splitlines()
    keep = [l for l in lines if l.strip().startswith(("WM, WN =", "MI, NI =", "lane, warp =", "wm, wn ="))]
    a = next(n for n, l in enumerate(lines) if l.strip().startswith("def compute("))
    b = next(n for n in range(a + 1, len(lines)) if lines[n].strip().startswith("@cuda.jit"))
    return "\n".join(keep + [""] + [l for l in lines[a:b] if l.strip()])


# ---- mma_swizzle -> mma_fast (H100 record course/recorded/gpu_h100_level6_fast.json) ----
# the final kernel in each run: runs 3/4 timed 'fast' right after cuBLAS in every round (slow there), so their
# reference is its twin in another slot; runs 5/6 (rotated rounds) time 'fast', the final (lean) kernel, itself
FAST_REF = {"run3": "no_raster", "run4": "raster_g8", "run5": "fast", "run6": "fast"}
FINAL_RUNS = ("run5", "run6")
GRAPH_RUN = "run7_graph"            # cuBLAS and the kernels from CUDA-graph replays (benchmarks/graph_fast.py)
REF = "기준"
# (what the step adds, the variant without it, the variant with it; REF = the run's final kernel in FAST_REF)
FAST_STEPS = [
    ("스필 없는 본문 (워프 타일은 같은 64×32)", "mma_swizzle", "warp64x32_lb2"),
    ("워프 타일 64×32 → 64×64 (워프 8 → 4개)", "warp64x32_lb2", "barrier_at_tile_start"),
    ("프래그먼트 이중 버퍼 (prefetch)", "no_prefetch", "barrier_at_tile_start"),
    ("다음 타일 복사를 첫 mma 뒤로", "barrier_start_early_copy", "barrier_at_tile_start"),
    ("배리어 파이프라인", "barrier_at_tile_start", REF),
    ("스위즐 (패딩 없는 행)", "no_swizzle", REF),
    ("3단 (2단 대신)", "stages2", REF),
    ("launch_bounds(128, 2)", "no_launch_bounds", REF),
]
# the final runs' ablation: one row per switch, the two variants of a row differ in that switch alone
# (kernels_numba.mma_fast.VARIANTS; tests/ch10/test_lesson10.py checks it). The pipeline and lean are each measured
# with the other switch off and on: runs 5/6 timed barrier_at_tile_start (neither), no_lean (pipeline) and fast
# (both), not no_pipeline (lean alone), so two of the four rows wait for a run that has it (MISSING in their cells).
# The last row is the whole way from the previous best, not a switch.
FINAL_STEPS = [
    ("스위즐 (패딩 없는 행 대신)", "no_swizzle", REF),
    ("프래그먼트 이중 버퍼 (prefetch; 파이프라인·lean 없이)", "no_prefetch", "barrier_at_tile_start"),
    ("배리어 파이프라인 (lean 없이)", "barrier_at_tile_start", "no_lean"),
    ("배리어 파이프라인 (lean 과 함께)", "no_pipeline", REF),
    ("주소를 루프 앞에서 한 번 (lean; 파이프라인과 함께)", "no_lean", REF),
    ("주소를 루프 앞에서 한 번 (lean; 파이프라인 없이)", "barrier_at_tile_start", "no_pipeline"),
    ("3단 (2단 대신)", "stages2", REF),
    ("launch_bounds(128, 2)", "no_launch_bounds", REF),
    ("블록 래스터화 GROUP_M = 8", REF, "raster_g8"),
    ("mma_swizzle → mma_fast 전체", "mma_swizzle", REF),
]
WHOLE_WAY = "mma_swizzle"          # the last row's 'without': not one switch
MISSING = "기록 없음"               # a cell whose run did not time one of its two variants


def steps_measured(run="run6", steps=None):
    """The rows of FINAL_STEPS (or `steps`) whose two variants the run timed (at every size)."""
    tf = fast_tflops(run)
    return [s for s in (steps or FINAL_STEPS) if all((v, n) in tf for v in s[1:] for n in {n for _, n in tf})]


# configurations above the static 48 KiB (dynamic shared memory), measured beside the final kernel in runs 5/6
DYNAMIC = ("stages4_lean_dyn", "bk64_lean_dyn", "128x256_s4_dyn", "128x256x64_dyn")


def _steps(run):
    return FINAL_STEPS if run in final_kernel_runs(FAST) else FAST_STEPS


def variant_of(row):
    """The ablation's name of a row of the mma_fast records: 'fast' for the registered kernel, its configuration for
    another mma_fast (row.variant), else the kernel ('cuBLAS', 'mma_swizzle')."""
    if row.kernel != "mma_fast":
        return row.kernel
    return row.variant or "fast"


def ablation(run):
    """{(variant_of, n): Row} of a records.Run of the mma_fast records."""
    return {(variant_of(r), r.n): r for r in run.rows}


def fast_rows(run="run6"):
    """{(variant, n): Row} of one recorded H100 run (its id)."""
    return ablation(FAST.run(run))


def fast_tflops(run="run6"):
    """{(variant, n): TFLOP/s} of one recorded H100 run; REF is the run's final kernel (FAST_REF)."""
    tf = {k: r.tflops for k, r in fast_rows(run).items()}
    ref = FAST_REF.get(run) or ("fast" if run in final_kernel_runs(FAST) else None)
    for n in {n for _, n in tf}:
        if ref is not None:
            tf[(REF, n)] = tf[(ref, n)]
    return tf


def cublas_tflops(run="run6"):
    """{n: cuBLAS TFLOP/s} measured in the same run (the baseline of every % of that run)."""
    return {r.n: r.tflops for r in FAST.run(run).select("cuBLAS")}


def run_label(run="run6"):
    """'run 6 (NVIDIA H100 80GB HBM3, 2026-11-23; cuBLAS 619/592 TFLOP/s @2048³/4096³)' from the record."""
    raw = FAST.run(run)
    cub = cublas_tflops(run)
    return (f"{run.replace('run', 'run ')} ({raw.gpu}, {raw.date}; cuBLAS "
            + "/".join(f"{cub[n]:.0f}" for n in sorted(cub)) + " TFLOP/s @" + "³/".join(str(n) for n in sorted(cub)) + "³)")


def fast_steps(run="run6", sizes=(2048, 4096)):
    """[{step, without, with, TFLOP/s without/with and gain per size}] of one run's ablation."""
    tf = fast_tflops(run)
    rows = []
    for step, without, with_ in _steps(run):
        name = lambda v: FAST_REF[run] + " (최종)" if v == REF else v
        row = {"단계": step, "없는 변형": name(without), "있는 변형": name(with_)}
        for n in sizes:
            row[f"{n}³ TFLOP/s"] = f"{tf[(without, n)]:.0f} → {tf[(with_, n)]:.0f}"
            row[f"{n}³ 배"] = f"×{tf[(with_, n)] / tf[(without, n)]:.2f}"
        rows.append(row)
    return rows


def final_steps(runs=FINAL_RUNS, sizes=(2048, 4096)):
    """The final ablation side by side: one row per step, per run and size '×gain (without → with TFLOP/s)'; each
    column is one run (its own cuBLAS, run_label) and a gain never divides figures of two runs."""
    tfs = {run: fast_tflops(run) for run in runs}
    rows = []
    for step, without, with_ in FINAL_STEPS:
        row = {"단계": step, "없는 변형 → 있는 변형": f"{without} → {with_}".replace(REF, "fast")}
        for run in runs:
            for n in sizes:
                tf = tfs[run]
                row[f"{run} {n}³"] = (f"×{tf[(with_, n)] / tf[(without, n)]:.2f} ({tf[(without, n)]:.0f}→{tf[(with_, n)]:.0f})"
                                      if (with_, n) in tf and (without, n) in tf else MISSING)
        rows.append(row)
    return rows


def fast_gain(without, with_=REF, n=2048, run="run6"):
    """TFLOP/s of `with_` over `without` in one recorded run at size n."""
    tf = fast_tflops(run)
    return tf[(with_, n)] / tf[(without, n)]


def largest_step(n=4096, run="run6"):
    """(step, gain) of the largest single-switch gain in the run's ablation at size n (not the whole-way row)."""
    gains = [(step, fast_gain(w, v, n, run)) for step, w, v in steps_measured(run, _steps(run)) if w != WHOLE_WAY]
    return max(gains, key=lambda g: g[1])


def round_spread(variant="fast", n=4096, run="run6"):
    """(min, max) TFLOP/s over the rounds of one variant in one run: how far one timing moves within the run."""
    r = fast_rows(run)[(variant, n)]
    tf = [2.0 * n ** 3 / ms / 1e9 for ms in r.extra["rounds_ms"]]         # each round's median time
    return min(tf), max(tf)


def dynamic_rows(runs=FINAL_RUNS, n=4096):
    """The dynamic-shared-memory configurations (above 48 KiB) against the final kernel, per run at size n."""
    rows = []
    for v in DYNAMIC:
        r0 = fast_rows(runs[0])[(v, n)].extra
        row = {"변형": v, "공유 B": r0["shared_bytes"], "블록/SM": r0["blocks_per_sm"], "레지스터": r0["registers"]}
        for run in runs:
            tf = fast_tflops(run)
            row[f"{run} {n}³"] = f"×{tf[(v, n)] / tf[(REF, n)]:.2f} ({tf[(v, n)]:.0f})"
        rows.append(row)
    return rows


LAUNCH_COST_VARIANTS = ("cuBLAS", "fast", "no_lean", "bk64_lean_dyn", "mma_swizzle")


def graph_over_plain(run="run6", n=2048, variants=LAUNCH_COST_VARIANTS):
    """{variant: the run's CUDA-graph TFLOP/s ÷ its plain TFLOP/s} at size n, for the variants the graph timing has."""
    rows, graph = fast_rows(run), FAST.get(f"graph_tflops_{run}", {}).get(str(n), {})
    return {v: graph[v] / rows[(v, n)].tflops for v in variants if v in graph}


def launch_cost_rows(run="run6", n=2048, variants=LAUNCH_COST_VARIANTS):
    """Host time per launch against the GPU time per call of the plain timing at size n in one run, and the same
    run's CUDA-graph figure (Numba kernels only: CuPy refused cuBLAS calls during stream capture)."""
    rows = fast_rows(run)
    graph = FAST.get(f"graph_tflops_{run}", {}).get(str(n), {})
    ratio = graph_over_plain(run, n, variants)
    out = []
    for v in variants:
        r = rows[(v, n)]
        g = graph.get(v)
        out.append({"커널": v, "호스트 시간/실행 µs": f"{r.host_us:.0f}",
                    "GPU 시간/호출 µs": f"{1000 * r.ms:.0f}", "일반 TFLOP/s": f"{r.tflops:.0f}",
                    "그래프 TFLOP/s": f"{g:.0f}" if g else "-", "그래프 ÷ 일반": f"×{ratio[v]:.2f}" if g else "-"})
    return out


def timed_by_graph(run):
    """True when every row of a records.Run was timed from CUDA-graph replays (no Python between the calls)."""
    return bool(run.rows) and all(r.extra.get("timed_by") == "graph" for r in run.rows)


GRAPH_RUNS = (GRAPH_RUN, "h200_graph")    # CUDA-graph runs (benchmarks/graph_fast.py): the registered kernel, no config


def final_kernel_runs(rec):
    """The ids of every run of a level-6 record that timed the final mma_fast: its configuration is the record's final
    one (a run before lean had another or none), or a CUDA-graph run of the registered kernel (GRAPH_RUNS)."""
    return tuple(r.id for r in rec.runs
                 if r.extra.get("config") == rec["config"] or (r.id in GRAPH_RUNS and timed_by_graph(r)))


# every run of the H100 and H200 records that timed the final mma_fast (flagged ones too: shown and marked)
FINAL_RESULTS = ((FAST, final_kernel_runs(FAST)), (FAST_H200, final_kernel_runs(FAST_H200)))
ABLATION_RUNS = tuple(r for r in final_kernel_runs(FAST) if r not in GRAPH_RUNS)    # the final kernel's ablations


def timing_label(run):
    """How a records.Run timed its rows, per size where the sizes differ: 'CUDA 그래프', '일반 (실행마다 호출)' or
    '2048³ CUDA 그래프, 4096³ 일반'."""
    how = {n: "CUDA 그래프" if all(r.extra.get("timed_by") == "graph" for r in run.rows if r.n == n) else "일반"
           for n in run.sizes}
    if len(set(how.values())) == 1:
        return "CUDA 그래프" if timed_by_graph(run) else "일반 (실행마다 호출)"
    return ", ".join(f"{n}³ {h}" for n, h in how.items())


_FLAG = re.compile(r"(\d+)³ cuBLAS ([\d.]+) TFLOP/s is ([+-][\d.]+) % from the median ([\d.]+) of (\d+) earlier (\S+) runs")


def flag_ko(run):
    """'' for an unflagged records.Run, else why the record flagged it, in Korean (records.baseline_check wrote the
    reason when the run was saved: its cuBLAS further than BASELINE_SPREAD from earlier runs of the same engine)."""
    if not run.flagged:
        return ""
    parts = []
    for reason in run.flagged.split("; "):
        m = _FLAG.fullmatch(reason)
        if m is None:
            parts.append(reason)
            continue
        n, tf, dev, med, k, cls = m.groups()
        parts.append(f"{n}³ cuBLAS {tf} TFLOP/s 가 같은 측정 엔진으로 앞서 잰 {cls} 실행 {k}개의 중앙값 {med} 에서 "
                     f"{dev} % 벗어남 (허용 ±{100 * records.BASELINE_SPREAD:.0f} %)")
    return "⚑ 표시된 실행: " + "; ".join(parts)


def flag_figures(run):
    """[(size, cuBLAS TFLOP/s, deviation %, median, earlier runs)] of a flagged run's reasons as the record wrote them
    (records.baseline_check's sentence), [] for an unflagged run."""
    return [m.groups()[:5] for m in map(_FLAG.fullmatch, run.flagged.split("; ")) if m] if run.flagged else []


def flag_basis(run_id="run8"):
    """What records.baseline_check compared a flagged H100 run against, per flagged size: {size: (cuBLAS, deviation %,
    median, [(record name, run id, date, cuBLAS)])}. The earlier runs are records.baseline_sources' (same GPU class,
    same engine, unflagged, of that date or earlier) narrowed to the set of the count and median the record wrote:
    a run saved later the same day was not there when the flag was written."""
    run = FAST.run(run_id)
    out = {}
    for n, tf, dev, med, k in flag_figures(run):
        src = records.baseline_sources(run.gpu, run.baseline.split(" (")[0], int(n), exclude=(run.id,),
                                       engine=run.versions.get("engine"), before=run.date)
        sets = [c for c in itertools.combinations(src, int(k)) if f"{statistics.median(x[2] for x in c):.1f}" == med]
        assert len(sets) == 1, f"{run_id}: the record's median {med} of {k} runs is not one set of earlier runs"
        out[int(n)] = (float(tf), dev, float(med), [(name, r.id, r.date, x) for name, r, x in sets[0]])
    return out


def record_spread(n=4096, spread=records.BASELINE_SPREAD):
    """Every cuBLAS figure at n³ of the H100 record (every run, the record's order) against the median of the record's
    other runs: [{run, cuBLAS, median of the others, deviation, outside}] — the flag's ±spread applied within the record."""
    cub = {r.id: x.tflops for r in FAST.runs for x in r.select("cuBLAS", n)}
    rows = []
    for run, tf in cub.items():
        med = statistics.median(v for r, v in cub.items() if r != run)
        rows.append({"run": run, "cublas": tf, "median": med, "dev": tf / med - 1, "outside": abs(tf / med - 1) > spread})
    return rows


def record_spread_rows(n=4096):
    """record_spread as table rows (5.6's cell)."""
    return [{"실행": r["run"], f"cuBLAS {n}³ TFLOP/s": f"{r['cublas']:.0f}", "나머지 실행의 중앙값": f"{r['median']:.0f}",
             "차이": f"{100 * r['dev']:+.1f} %",
             f"±{100 * records.BASELINE_SPREAD:.0f} % 밖": "예" if r["outside"] else "",
             "기록의 표시": "⚑" if FAST.run(r["run"]).flagged else ""} for r in record_spread(n)]


def ablation_label(run):
    """run_label with how the run timed its rows and, for a flagged run, why (the 5.4 cell's header line per run)."""
    raw = FAST.run(run)
    return " ".join(x for x in (run_label(run), "—", timing_label(raw), flag_ko(raw)) if x)


def run_note(run):
    """A results table's note on a run: its flag (flag_ko), else ''."""
    return flag_ko(run) or ""


def final_results_rows():
    """mma_fast against cuBLAS in every run of the H100 and H200 records that timed the final kernel
    (final_kernel_runs), one row per run with its timing method, its own cuBLAS and the record's flag where it has one."""
    rows = []
    for rec, ids in FINAL_RESULTS:
        for run in map(rec.run, ids):
            res = ablation(run)
            row = {"실행": run.id, "GPU": run.gpu.replace("NVIDIA ", ""), "날짜": run.date, "시간 재기": timing_label(run)}
            for n in (2048, 4096):
                row[f"cuBLAS {n}³ TFLOP/s"] = f"{res[('cuBLAS', n)].tflops:.0f}"
                row[f"mma_fast {n}³"] = f"{res[('fast', n)].tflops:.0f} ({100 * res[('fast', n)].ratio:.1f} %)"
            row["표시"] = run_note(run)
            rows.append(row)
    return rows


BASELINE_RUNS = ("run3", "run4", "run5", "run6")    # H100 runs that timed cuBLAS at 2048³ and 4096³ (plain timing)
STEADY = "barrier_at_tile_start"                      # one kernel they all timed, unchanged where steady_runs says


def _group_m(run):
    """The default block order (GROUP_M) of mma_fast in one recorded H100 run."""
    return FAST.run(run).extra["config"]["GROUP_M"]


def steady_runs():
    """The runs of the H100 record whose STEADY is the same kernel as in the final runs: the run records its
    configuration and its default block order (GROUP_M) is the final one (run 3's default was GROUP_M = 8, so its
    STEADY was another kernel; runs 1/2 recorded no configuration)."""
    return tuple(r.id for r in FAST.runs if r.extra.get("config") and _group_m(r.id) == FAST["config"]["GROUP_M"]
                 and (STEADY, 4096) in fast_rows(r.id))


def baseline_rows(n=4096):
    """Every cuBLAS figure of the H100 record at n³ (every run, in the record's order) with what the same run measured
    of one unchanged kernel (STEADY) and of the final mma_fast: how far a % of cuBLAS moves with the baseline alone;
    then run 6's isolated ncu launches (time and same-clock ratio). A flagged run is shown and marked."""
    rows, same, final = [], steady_runs(), final_kernel_runs(FAST)
    for run in FAST.runs:
        tf = {k: r.tflops for k, r in ablation(run).items()}
        if ("cuBLAS", n) not in tf:
            continue
        cub = tf[("cuBLAS", n)]
        if run.id in same:
            st = f"{tf[(STEADY, n)]:.0f} ({100 * tf[(STEADY, n)] / cub:.1f} %)"
        elif (STEADY, n) not in tf:
            st = "- (재지 않음)"
        elif not run.extra.get("config"):
            st = "- (설정이 기록되지 않음)"
        else:
            st = f"- (GROUP_M = {_group_m(run.id)}: 다른 커널)"
        fast = tf[("fast", n)] if run.id in final else None
        rows.append({"실행": run.id, "날짜": run.date, "시간 재기": timing_label(run), "cuBLAS TFLOP/s": f"{cub:.0f}",
                     f"{STEADY} TFLOP/s (cuBLAS 대비)": st,
                     "mma_fast (cuBLAS 대비)": f"{fast:.0f} ({100 * fast / cub:.1f} %)" if fast else "- (lean 이전)",
                     "표시": run_note(run)})
    if n == 4096:                                     # ncu profiled 4096^3 only
        raw = ncu_csv("run6")
        t_ratio, cyc_ratio = ncu_ratio("run6")
        tf_of = lambda k: 2 * n ** 3 / raw[k]["duration_ns"] / 1e3           # noqa: E731  (TFLOP/s)
        rows.append({"실행": "run6 ncu", "날짜": FAST.run("run6").date, "시간 재기": "단독 실행 한 번 (클록 고정 안 함)",
                     "cuBLAS TFLOP/s": f"{tf_of('cublas'):.0f}", f"{STEADY} TFLOP/s (cuBLAS 대비)": "-",
                     "mma_fast (cuBLAS 대비)": f"{tf_of('mma_fast'):.0f} ({100 * t_ratio:.1f} %; 같은 클록 {100 * cyc_ratio:.1f} %)",
                     "표시": ""})
    return rows


def goal_evidence(n=4096):
    """The figures 5.6 and the summary state about the goal at n³: mma_fast's % of cuBLAS in each final run (FINAL_RUNS),
    in every H100 run of the final kernel (every: its own cuBLAS, flagged runs too) and in run7_graph, the isolated ncu
    time and same-clock ratios (4096³ only), how much lower the final runs' cuBLAS was than the earlier runs' of
    BASELINE_RUNS (fractions), STEADY's % of cuBLAS per run, the flagged runs (their reason) and the runs below the goal."""
    cub = {run: cublas_tflops(run)[n] for run in BASELINE_RUNS}
    early = [run for run in BASELINE_RUNS if run not in FINAL_RUNS]
    drops = [1 - cub[f] / cub[e] for f in FINAL_RUNS for e in early]
    every = {run: ablation(FAST.run(run))[("fast", n)].ratio for run in final_kernel_runs(FAST)}
    goal = FAST["goal"][str(n)]
    out = {"final": {run: fast_tflops(run)[("fast", n)] / cub[run] for run in FINAL_RUNS}, "every": every,
           "graph": ablation(FAST.run(GRAPH_RUN))[("fast", n)].ratio, "cublas": cub, "drop_lo": min(drops),
           "drop_hi": max(drops),
           "steady": {run: fast_tflops(run)[(STEADY, n)] / cublas_tflops(run)[n] for run in steady_runs()},
           "flagged": {run: flag_ko(FAST.run(run)) for run in every if FAST.run(run).flagged},
           "below": tuple(run for run, r in every.items() if r < goal), "goal": goal}
    if n == 4096:
        out["ncu_time"], out["ncu_clock"] = ncu_ratio("run6")
    return out


def promotion_rows():
    """Numba's result types for mixed integer operands (its typing context, the rules the CUDA target uses too): why
    mma_fast keeps every index term uint32. '<' and min() of uint64 with int64 go through float64; '+' gives int64,
    a signed index that gets negative-index wrap-around code."""
    # local: numba internals for this one probe only (not loaded by the lesson's other cells)
    from numba.core.registry import cpu_target
    ctx = cpu_target.typing_context
    ctx.refresh()
    pairs = ((types.uint64, types.int64), (types.uint32, types.int64), (types.uint32, types.uint32))
    rows = []
    for a, b in pairs:
        row = {"피연산자": f"{a} , {b}"}
        for label, op in (("a + b", operator.add), ("a < b", operator.lt), ("min(a, b)", min)):
            sig = ctx.resolve_function_type(op, (a, b), {})
            row[label] = f"{sig.return_type}" if label != "a < b" else f"{sig.args[0]} 로 비교"
        rows.append(row)
    return rows


_LEAN_CODE = """
import json, sys
from numba import cuda
from kernels_numba import mma_fast
from kernels_numba.tools import offline, resources
cc = {cc!r}
kernel, _, conf = mma_fast.make_kernel(**{switches!r})
bounds = getattr(kernel, "targetoptions", {{}}).get("launch_bounds")
with offline.offline_device(cc):
    ptx, _ = cuda.compile_ptx(kernel.py_func, mma_fast.SIG, cc=cc, launch_bounds=bounds)
sass, usage = offline.cubin_report(offline.ptx_to_cubin(ptx, cc))
json.dump({{"sass": sass, "usage": usage}}, sys.stdout)
"""


def _compile_fast_variant_now(switches, cc):
    """Offline sm_<cc> SASS and usage of mma_fast.make_kernel(**switches), in a subprocess (as offline.compile_kernel):
    Numba's offline compile swaps numba.cuda's current context for the whole process, so never in the notebook's."""
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = _run_low([sys.executable, "-c", _LEAN_CODE.format(cc=tuple(cc), switches=switches)], env=env)
    if out.returncode != 0:
        raise offline.OfflineCompileError(f"mma_fast {switches} sm_{cc[0]}{cc[1]}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def _compile_fast_variant_cached(switches, cc):
    """_compile_fast_variant_now through the offline compile cache on disk (when offline has one): a re-run is instant."""
    cached = getattr(offline, "_cached", None)
    fn = lambda: _compile_fast_variant_now(switches, cc)          # noqa: E731
    if cached is None:
        return fn()
    name = "mma_fast_" + "_".join(f"{k}-{v}" for k, v in sorted(switches.items()))
    return cached(name, tuple(cc), fn)


def _compile_fast_variant(switches, cc):
    """Offline sm_<cc> compile of an mma_fast variant (memoised; on a side thread, so prefetch can start it early)."""
    key = ("variant", tuple(sorted(switches.items())), tuple(cc))
    return _side(key, _compile_fast_variant_cached, dict(switches), tuple(cc))


def lean_rows(cc=(9, 0)):
    """Offline (no GPU) main K loop of mma_fast with and without lean addresses for sm_<cc>: static SASS
    instructions, of them HMMA and integer address arithmetic, and registers (the recorded H100 runs time both); ldsm_imm:
    one LDSM of the loop with a constant offset in its address (None if none)."""
    cc = tuple(cc)
    plain = _compile_fast_variant({"lean": False}, cc)                   # its own subprocess, beside the worker
    lean = _offline(("mma_fast", cc))                                    # the registered (final) kernel
    results = _wait([("fast (lean)", lean), ("no_lean", plain)], "오프라인 컴파일 (GPU 없이)")
    rows = []
    for name, r in zip(("fast (lean)", "no_lean"), results):
        loop = resources.main_loop(r["sass"])
        n = {op: sum(i.base == op for i in loop) for op in ("HMMA", "LDGSTS", "LDSM")}
        imm = next((f"{i.op} {i.operands}" for i in loop if i.base == "LDSM" and re.search(r"\+0x[0-9a-f]+\]", i.operands)),
                   None)              # an ldmatrix whose constant offset ptxas put into the instruction
        rows.append({"변형": name, "레지스터": r["usage"]["registers"], "K 루프 SASS 명령": len(loop),
                     "HMMA": n["HMMA"], "LDGSTS": n["LDGSTS"], "LDSM": n["LDSM"],
                     "그 밖 (주소 계산·분기 등)": len(loop) - sum(n.values()), "ldsm_imm": imm})
    return rows


def spill_rows(cc=(9, 0), names=("mma_swizzle", "mma_fast")):
    """Offline (no GPU) PTX/SASS facts of each kernel for sm_<cc>: registers, stack + local bytes, LDL/STL count and
    how many lie after the last HMMA (the epilogue), .local in the PTX, setp.eq.s64 compares after the last mma."""
    comp = compiled([(n, cc) for n in names])
    rows = []
    for name, r in ((n, comp[(n, tuple(cc))]) for n in names):
        ins = resources.parse_sass(r["sass"])
        last = max(k for k, i in enumerate(ins) if i.base == "HMMA")
        local = [k for k, i in enumerate(ins) if i.base in ("LDL", "STL")]
        epi = r["ptx"][r["ptx"].rindex("mma.sync"):]
        rows.append({"커널": name, "레지스터": r["usage"]["registers"],
                     "스택+로컬 B": r["usage"]["stack_bytes"] + r["usage"]["local_bytes"],
                     "LDL/STL": len(local), "그중 마지막 HMMA 뒤": sum(k > last for k in local),
                     "PTX 의 .local": ".local" in r["ptx"],
                     "에필로그 setp.eq.s64": len(re.findall(r"setp\.eq\.s64\s+%p\d+, %rd\d+, \d+;", epi))})
    return rows


NCU_STALLS = ("wait", "short_scoreboard", "barrier", "math_pipe_throttle", "long_scoreboard", "gmma")
NCU_CSV = {"run6": "ncu_fast_h100_run6.csv.gz"}       # the raw ncu export of a run (every metric, every stall)
_NCU_ORDER = ("mma_fast", "mma_swizzle", "cublas")       # launch order of benchmarks/ncu_fast.py


def ncu_csv(run="run6"):
    """{kernel: {stalls: every issue-stall reason (cycles per issued instruction), clock_ghz (SM clock during the
    profiled launch, gpc__cycles_elapsed.avg.per_second), gmma_pct (wgmma instructions, % of peak)}} from the raw
    ncu export of a run; {} when the run has none."""
    if run not in NCU_CSV:
        return {}
    with gzip.open(records.find(NCU_CSV[run]), "rt", encoding="utf-8") as f:
        lines = [l for l in f.read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head, data = rows[0], [r for r in rows[1:] if r[0] not in ("", "ID") and not r[0].startswith("(")]
    num = lambda v: float(v.replace(",", ""))
    out = {}
    for name, r in zip(_NCU_ORDER, data):
        rec = dict(zip(head, r))
        stalls = {m.group(1): num(v) for h, v in rec.items()
                  if (m := re.match(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$", h))}
        out[name] = {"stalls": stalls, "clock_ghz": num(rec["gpc__cycles_elapsed.avg.per_second"]) / 1e9,
                     "gmma_pct": num(rec["sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active"]),
                     "duration_ns": num(rec["gpu__time_duration.sum"]), "kernel_name": rec["Kernel Name"]}
    return out


def ncu_rows(run="run6"):
    """One row per kernel of a recorded ncu profile at 4096^3 (benchmarks/ncu_fast.py): tensor pipe, occupancy, L2,
    duration, SM clock and the issue-stall reasons (cycles per issued instruction; from the raw export where the run
    has one, else the record's top 8, '-' for a reason not among them)."""
    prof = FAST["ncu"][run]
    raw = ncu_csv(run)
    rows = []
    for name in ("mma_swizzle", "mma_fast", "cublas"):
        p = prof[name]
        stalls = raw[name]["stalls"] if raw else p["stalls_per_issue"]
        row = {"커널": name if name != "cublas" else "cuBLAS", "텐서 파이프 %": p["tensor_pipe_pct"],
               "점유율 %": p["achieved_occupancy_pct"], "L2 적중 %": p["l2_hit_pct"],
               "시간 µs": round(p["duration_ns"] / 1000, 1)}
        if raw:
            row["SM 클록 GHz"] = round(raw[name]["clock_ghz"], 2)
        row.update({f"스톨 {s}": stalls.get(s, "-") for s in NCU_STALLS})
        rows.append(row)
    return rows


def ncu_ratio(run="run6"):
    """(cuBLAS time / mma_fast time, the same in SM clock cycles) of the isolated ncu launches at 4096^3: the second
    takes out that the two ran at different clocks (ncu did not lock them)."""
    raw = ncu_csv(run)
    t = {k: raw[k]["duration_ns"] for k in ("mma_fast", "cublas")}
    cyc = {k: t[k] * raw[k]["clock_ghz"] for k in t}
    return t["cublas"] / t["mma_fast"], cyc["cublas"] / cyc["mma_fast"]


def race_gpu(names=("mma_w1_no_barrier_after_wait", "mma_w1_no_trailing_barrier",
                    "mma_w2_no_barrier_after_wait", "mma_w2_no_trailing_barrier")):
    """[{case, racecheck hazards, wrong plain runs}] from compute-sanitizer racecheck on the GPU (racecheck_h100.json)."""
    rec = records.load("racecheck_h100")
    out = []
    for n in names:
        c = rec["cases"][n]
        sev = sorted({h["severity"] for h in c["hazards"]})
        out.append({"경우": n, "워프": int(n[5]), "racecheck 보고": c["race_reports"], "심각도": ", ".join(sev),
                    "검사 없이 틀린 실행": f"{c['wrong_runs']}/{rec['runs']}"})
    return out


# ------------------------------------------------- GPU path: background offline work, checks, this GPU's figures
# Offline compiles (NVVM -> PTX -> ptxas) take 10-20 s of CPU each on a small machine, and so do Numba's JIT compiles
# of the level-6 kernels on a GPU (almost all of it Numba's Python front end: literal_unroll, inlining, typing).
# The offline ones run outside this process (the lead's compile worker, ptxas): prefetch() starts them while the
# student reads sections 1-4, one queue for the worker and a side queue for ptxas probes and the mma_fast variant;
# a cell that still has to wait shows a progress bar. Results are memoised per process (and on disk where
# kernels_numba.tools.offline keeps a cache).
# Background work never runs Numba in this process: offline.offline_device swaps numba.cuda's current context for
# the whole process, which on a thread would pull the GPU from under the student's cells. It runs at a lower CPU
# priority (nice +10), on one side thread where the machine has 2 cores or fewer (a free Colab host), on daemon
# threads whose queue is dropped at exit, so restarting the kernel does not wait for it.

_TASKS = {}
_TASKS_LOCK = threading.Lock()
_LANES = {}
_PROCS = set()                    # background subprocesses running now (killed at exit)
_CLOSING = threading.Event()

# the offline compiles of later cells, in notebook order: 4.3 (mma_large), 5.3 and 5.4.1 (mma_swizzle, mma_fast)
PREFETCH_COMPILES = (("mma_large", (9, 0)), ("mma_swizzle", (9, 0)), ("mma_fast", (9, 0)))
NICE = 10                         # how much lower background subprocesses run (POSIX nice increment)


def side_workers(cpus=None):
    """Side threads (each runs one subprocess at a time): 1 on a machine with 2 cores or fewer, where the compile
    worker and the student's cells (the simulator, Numba's JIT) already want both, else 2."""
    cpus = os.cpu_count() if cpus is None else cpus
    return 1 if (cpus or 1) <= 2 else 2


def _run_low(args, **kw):
    """subprocess.run(args, capture_output=True, text=True) at NICE lower CPU priority on POSIX (set on the child
    right after it starts: unlike preexec_fn, safe with threads), killed if the interpreter exits meanwhile."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):                 # e.g. the process already ended
            os.setpriority(os.PRIO_PROCESS, p.pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE))
    _PROCS.add(p)
    try:
        out, err = p.communicate()
    finally:
        _PROCS.discard(p)
    return subprocess.CompletedProcess(args, p.returncode, out, err)


class _Lane:
    """A queue of calls run by `workers` daemon threads. (ThreadPoolExecutor's threads are joined at interpreter exit
    after everything still queued has run: a notebook kernel restarting would wait minutes for prefetch's queue.)"""

    def __init__(self, name, workers):
        self.name, self.workers = name, workers
        self.jobs = queue.SimpleQueue()
        self.threads = []
        self.lock = threading.Lock()

    def submit(self, fn, *args):
        f = Future()
        self.jobs.put((f, fn, args))
        with self.lock:
            if len(self.threads) < self.workers:
                t = threading.Thread(target=self._run, name=f"lesson10-{self.name}-{len(self.threads)}", daemon=True)
                self.threads.append(t)
                t.start()
        return f

    def _run(self):
        while True:
            f, fn, args = self.jobs.get()
            if _CLOSING.is_set():
                f.cancel()
                continue
            if not f.set_running_or_notify_cancel():
                continue
            try:
                r = fn(*args)
            except BaseException as e:          # noqa: BLE001  (the waiting cell re-raises it)
                f.set_exception(e)
            else:
                f.set_result(r)


def _close():
    """At exit: drop what is still queued and kill the side subprocesses running now (nothing waits for them)."""
    _CLOSING.set()
    with _TASKS_LOCK:
        futures = list(_TASKS.values())
    for f in futures:
        f.cancel()                              # only those not started; a running one ends with its process
    for p in list(_PROCS):
        with contextlib.suppress(OSError):
            p.kill()


atexit.register(_close)


def _task(kind, key, fn, *args):
    """The Future of fn(*args) under `key`, submitted once per process (a failed or cancelled one is submitted again)."""
    with _TASKS_LOCK:
        f = _TASKS.get(key)
        if f is not None and not (f.cancelled() or (f.done() and f.exception() is not None)):
            return f
        f = _TASKS[key] = _lane(kind).submit(fn, *args)
        return f


def _lane(kind):
    """(with _TASKS_LOCK held) 'compile': one thread feeding the compile worker (one process, one request at a time);
    'side': side_workers() threads for subprocesses of their own (ptxas probes, the mma_fast variant)."""
    if kind not in _LANES:
        _LANES[kind] = _Lane(kind, 1 if kind == "compile" else side_workers())
    return _LANES[kind]


def _side(key, fn, *args):
    return _task("side", key, fn, *args)


def _offline(pair):
    """Future of kernels_numba.tools.offline.try_compile(name, cc) (the compile worker: another process)."""
    name, cc = pair[0], tuple(pair[1])
    return _task("compile", ("compile", name, cc), offline.try_compile, name, cc)


def _wait(items, desc):
    """[future.result()] of [(label, future)]; a progress bar while some are still running. The bar counts every item,
    finished ones included, so it ends at its total when all succeed (a bar closed short turns red in Jupyter)."""
    if all(f.done() for _, f in items):
        return [f.result() for _, f in items]
    # local: looked up at call time (tests replace course.steps' classes to record the bars)
    from course.steps import Bar
    out = []
    with Bar(len(items), desc, unit="개") as bar:
        for label, f in items:
            out.append(f.result())
            bar.update(1, label)
    return out


def _fetch_offline(pairs, desc):
    """{pair: offline.try_compile result}, one request at a time to the compile worker through this lesson's lanes
    (what prefetch() started is waited for, not compiled again; a progress bar while the cell waits)."""
    return dict(zip(pairs, _wait([(f"{n} sm_{cc[0]}{cc[1]}", _offline((n, cc))) for n, cc in pairs], desc)))


def compiled(pairs, desc=kit.COMPILE_DESC):
    """{(name, cc): offline compile (ptx, sass, usage)} of every pair (kit.compiled, fed by the lanes prefetch()
    started); OfflineCompileError where a target lacks an instruction."""
    return kit.compiled(pairs, desc, fetch=_fetch_offline)


def prefetch():
    """Start in the background what later cells compute outside this process: the offline compiles of 4.3, 5.3 and
    5.4.1 and the ptxas probes of section 6. Returns at once; each cell waits only for what is still running."""
    for pair in PREFETCH_COMPILES:
        _offline(pair)
    _compile_fast_variant({"lean": False}, (9, 0))
    for shape, types, regs in SHAPES:
        for arch in ("sm_80", "sm_90"):
            _side(("probe", _shape_instruction(shape, types, regs), arch), _probe_now,
                  _shape_instruction(shape, types, regs), arch)
    for _, ins in FEATURES:
        for arch in ("sm_75", "sm_80", "sm_90"):
            _side(("probe", ins, arch), _probe_now, ins, arch)


# ---- "지금 이 GPU": the figures of a kernel on the GPU in use, next to the recorded H200 / H100 ones ----
TURING = {"mma_simple": "mma_simple_turing", "mma_large": "mma_large_turing"}   # what runs on CC 7.5 instead


def _runs_on(name, gpu):
    need = kn.get(name).min_cc
    return need is None or tuple(gpu.cc) >= tuple(need)


def here_rows(kernels, gpu=None):
    """[{kernel, runs (the kernel that runs there; None: none can), registers, smem, blocks, warps, max_warps, percent,
    limiter, source}] of `kernels` on `gpu`. gpu None: the GPU in use ([] without one), from the kernel as loaded where
    an earlier cell has compiled it (kernels_numba.occupancy.occupancy_here; no new compile), else from the offline compile for
    its compute capability (kernels_numba.occupancy.kernel_occupancy, kernels_numba/infra/targets.json). A GpuSpec: offline.
    On CC 7.5 (T4) mma_simple / mma_large are replaced by their Turing versions, the ones that run there."""
    live = gpu is None
    gpu = gpu if gpu is not None else kocc.current_gpu()
    if gpu is None:
        return []
    rows = []
    for name in kernels:
        run = TURING.get(name, name) if not _runs_on(name, gpu) else name
        row = {"kernel": name, "runs": run if _runs_on(run, gpu) else None}
        if row["runs"] is not None:
            if live and _loaded(run):
                o, src = kocc.occupancy_here(run), "올라간 커널"
            else:
                try:
                    o, src = kocc.kernel_occupancy(run, gpu), f"오프라인 컴파일 {gpu.arch}"
                except Exception:           # no offline compile recorded for this arch (e.g. sm_87): say nothing
                    o = None
            if o is not None:
                row.update(registers=o.regs_per_thread, smem=o.smem_per_block, blocks=o.blocks_per_sm,
                           warps=o.active_warps, max_warps=o.max_warps, percent=o.percent, limiter=o.limiter,
                           source=src)
        rows.append(row)
    return rows


def here_lines(kernels, gpu=None):
    """One '지금 이 GPU (…): …' line per kernel of here_rows (nothing without a GPU)."""
    label = here_label(gpu)
    if label is None:
        return []
    lines = []
    for r in here_rows(kernels, gpu):
        if r["runs"] is None:
            need = kn.get(r["kernel"]).min_cc          # the registry's figure, not a typed 8.0
            lines.append(f"{label}: {josa(r['kernel'], '은/는')} CC {need[0]}.{need[1]} 이상이 필요해 이 GPU 에서는 "
                         "돌지 않습니다 (시뮬레이터에서만)")
        elif "registers" not in r:
            lines.append(f"{label}: {r['kernel']} 의 오프라인 컴파일 기록이 이 아키텍처에는 없습니다")
        else:
            who = r["kernel"] if r["runs"] == r["kernel"] else f"{r['kernel']} 대신 {r['runs']}"
            lines.append(f"{label}: {who} 레지스터 {r['registers']}개, 공유 메모리 {r['smem']:,} B → SM당 {r['blocks']}블록"
                         f" = {r['warps']}/{r['max_warps']} 워프, 점유율 {r['percent']:.1f} % "
                         f"(제한: {occupancy.LIMITER_KO[r['limiter']]}; {r['source']})")
    return lines


def here_table(kernels, gpu=None):
    """here_rows as table rows with the columns of resource_rows (커널, 레지스터, 공유 B, 블록/SM) plus 점유율 and 출처."""
    rows = []
    for r in here_rows(kernels, gpu):
        name = r["kernel"] if r["runs"] in (r["kernel"], None) else f"{r['kernel']} → {r['runs']}"
        if "registers" not in r:
            rows.append({"커널": name, "레지스터": "-", "공유 B": "-", "블록/SM": "-",
                         "점유율": "이 GPU 에서 돌지 않음" if r["runs"] is None else "-", "출처": "-"})
            continue
        rows.append({"커널": name, "레지스터": r["registers"], "공유 B": r["smem"], "블록/SM": r["blocks"],
                     "점유율": f"{r['percent']:.1f} %", "출처": r["source"]})
    return rows


def fast_recorded_line():
    """The H100 record of mma_swizzle and mma_fast as loaded there: registers, local bytes, shared bytes, blocks/SM."""
    parts = []
    for name, r in (("mma_swizzle", FAST["previous_best"]), ("mma_fast", FAST["final"])):
        parts.append(f"{name} 레지스터 {r['registers']}개, 로컬 {r['local_bytes']} B, 공유 {r['shared_bytes']:,} B, "
                     f"SM당 {r['blocks_per_sm']}블록")
    run = FAST.run(FINAL_RUNS[-1])                   # the final runs loaded the final kernel
    return f"{run.gpu} 에 올라간 커널 (기록, {run.date}): " + " | ".join(parts)
