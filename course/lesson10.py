"""Analysis helpers of notebook 10 (Tensor Core mma): ptxas shape table, layout check, error vs K, padding, tables."""
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

RECORDED = Path(__file__).resolve().parent / "recorded"

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
    from kernels_numba.infra import offline
    return offline._tool("ptxas")


def _probe(instruction, arch):
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
        p = subprocess.run([_ptxas(), f"-arch={arch}", src, "-o", cubin], capture_output=True, text=True)
        sass = ""
        if p.returncode == 0:
            from kernels_numba.infra import offline
            sass = subprocess.run([offline._tool("cuobjdump"), "-sass", cubin], capture_output=True, text=True).stdout
    err = next((l.split("error", 1)[1].strip(" :") for l in p.stderr.splitlines() if "error" in l), "")
    return p.returncode == 0, err, sass


def ptxas_check(instruction, arch):
    """(ok, first error line) of ptxas -arch=arch on a module whose kernel holds `instruction`."""
    return _probe(instruction, arch)[:2]


def _sass_ops(sass, prefixes=("HMMA", "DMMA", "LDSM", "LDGSTS")):
    """The tensor-core / ldmatrix / cp.async SASS instructions in `sass`; without any, what the kernel does instead."""
    import re
    ops = re.findall(r"\b((?:" + "|".join(prefixes) + r")[A-Z0-9.]*)", sass)
    if ops:
        return ", ".join(sorted(set(ops)))
    ffma, shfl = len(re.findall(r"\bFFMA\b", sass)), len(re.findall(r"\bSHFL\b", sass))
    if re.search(r"\bCALL\b", sass):
        return f"MMA 명령 없음: CALL 한 서브루틴(SHFL {shfl}, FFMA {ffma})"
    return f"MMA 명령 없음, FFMA {ffma}"


def mma_shape_table(archs=("sm_80", "sm_90")):
    """[{shape, types, sm_80, sm_90, SASS, error}] for every mma form in SHAPES: ptxas 13's verdict and the
    tensor-core instruction it emits for sm_80 ('없음': accepted, but no MMA instruction in the SASS)."""
    rows = []
    for shape, types, regs in SHAPES:
        ins = f"mma.sync.aligned.{shape}.row.col.{types} {regs};"
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
    rows = []
    for label, ins in FEATURES:
        row = {"명령": label}
        for arch in archs:
            ok, err, sass = _probe(ins, arch)
            row[arch] = _sass_ops(sass) if ok else f"❌ {err}"
        rows.append(row)
    return rows


# Per-SM limits by compute capability, as CUDA 13's cuda_occupancy.h encodes them (cudaOccMaxBlocksPerMultiprocessor:
# 32 on 8.0 and 9.0, 24 on 8.9, 16 on 8.6) and the CUDA C++ Programming Guide's per-CC table (max resident warps:
# 64 on 8.0/9.0, 48 on 8.6/8.9). tests/test_lesson10.py checks the block limits against the header in the wheel.
CC_LIMITS = {(8, 0): (32, 64), (8, 6): (16, 48), (8, 9): (24, 48), (9, 0): (32, 64)}


def one_warp_occupancy(regs=32, smem=768):
    """[(cc, Occupancy)] of a one-warp block (mma_large) on CC 8.0/8.6/8.9/9.0 with sim/occupancy's rules."""
    from dataclasses import replace
    from sim import occupancy
    base = occupancy.GPUS["A100"]
    out = []
    for cc, (blocks, warps) in CC_LIMITS.items():
        spec = replace(base, name=f"CC {cc[0]}.{cc[1]}", cc=cc, max_blocks_per_sm=blocks, max_warps_per_sm=warps)
        out.append((cc, occupancy.occupancy(spec, regs, 32, smem)))
    return out


def loop_mma(name, cc=(9, 0)):
    """[(HMMA, BAR) per loop] of kernel `name`'s offline SASS, and its total HMMA (why mma_large shows 5)."""
    from kernels_numba.infra import offline, resources
    ins = resources.parse_sass(offline.compile_kernel(name, cc)["sass"])
    loops = [ins[a:b + 1] for a, b in resources._loops(ins)]
    per = [(sum(i.base == "HMMA" for i in b), sum(i.base == "BAR" for i in b)) for b in loops]
    return [p for p in per if p[0]], sum(i.base == "HMMA" for i in ins)


def sass_iteration(name="mma_large", cc=(9, 0)):
    """SASS of one K step of kernel `name`: from the first LDGSTS to the barrier after the first HMMA."""
    from kernels_numba.infra import offline, resources
    ins = resources.parse_sass(offline.compile_kernel(name, cc)["sass"])
    a = next(n for n, i in enumerate(ins) if i.base == "LDGSTS")
    h = next(n for n, i in enumerate(ins) if i.base == "HMMA")
    b = next(n for n in range(h, len(ins)) if ins[n].base == "BAR")
    keep = ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "LDSM", "HMMA")
    return "\n".join(i.text() for i in ins[a:b + 1] if i.base in keep)


def error_growth_summary(run=None):
    """{kernel: (max relative error at the largest K, log-log slope of error vs K)} and the f16/f32 ratio there."""
    run = run or level6_run()
    rows = run["error_vs_k"]
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
    with open(RECORDED / f"mma_layout_{gpu}.json", encoding="utf-8") as f:
        return json.load(f)


def compare_layout(gpu="h200"):
    """Element-by-element comparison of the GPU's record with sim/mma.py: {what: (agree, total)}."""
    from sim import mma
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


def level6_run():
    with open(RECORDED / "gpu_h200_level6.json", encoding="utf-8") as f:
        return json.load(f)


def bench_rows(run=None, n=None):
    """[{kernel, n, output, TFLOP/s, % of cuBLAS HGEMM (f32 out), % of the cuBLAS with the same output type}] of the
    recorded level-6 run; 'cuBLAS_f16out' is cuBLAS with f16 output, the baseline of the f16-output kernels."""
    run = run or level6_run()
    rows = []
    for r in run["benchmark"]:
        if n is not None and r["n"] != n or "tflops" not in r:
            continue
        same = r.get("ratio_same_output")
        rows.append({"커널": r["kernel"], "n": r["n"], "출력": r.get("output", "f16" if r["kernel"] == "cuBLAS_f16out" else "f32"),
                     "TFLOP/s": f"{r['tflops']:.1f}", "cuBLAS 대비": f"{100 * r['ratio']:.1f}%",
                     "같은 출력 cuBLAS 대비": f"{100 * same:.1f}%" if same is not None else "-"})
    return rows


def best_kernel(n=4096, run=None):
    """{kernel, n, tflops, ratio, cublas_tflops} of the fastest of our level-6 kernels in the recorded run at size n."""
    run = run or level6_run()
    rows = [r for r in run["benchmark"] if r["n"] == n and "tflops" in r]
    base = next(r for r in rows if r["kernel"] == "cuBLAS")
    best = max((r for r in rows if not r["kernel"].startswith("cuBLAS")), key=lambda r: r["tflops"])
    return {"kernel": best["kernel"], "n": n, "tflops": round(best["tflops"], 1), "ratio": round(best["ratio"], 3),
            "cublas_tflops": round(base["tflops"], 1)}


def swizzle_demo(BN=128, BK=32, col=0):
    """(wavefronts, conflict degree) from sim/banks of one ldmatrix phase on B (8 k rows at one n chunk): unpadded,
    padded by 16 B, and XOR-swizzled rows (kernels_numba.infra.tc.swizzle_params)."""
    from sim import banks
    from kernels_numba.infra import tc
    sh, mask = tc.swizzle_params(BN // 8)
    layouts = {"패딩 없음": (2 * BN, lambda r, c: c), "패딩 +16 B": (2 * (BN + 8), lambda r, c: c),
               "스위즐": (2 * BN, lambda r, c: c ^ (((r >> sh) & mask) << 3))}
    out = {}
    for name, (row_bytes, col_of) in layouts.items():
        rep = banks.analyze_request([(r, r * row_bytes + 2 * col_of(r, col), 16) for r in range(8)], "load")
        out[name] = (rep.wavefronts, rep.conflict_degree)
    return out


def error_growth_plot(run=None):
    """Max relative error vs K on the GPU (recorded) for f32 / f16 accumulation, with the K*u lines of the bound."""
    from course import plots
    run = run or level6_run()
    rows = run["error_vs_k"]
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
    ax.set_title(f"K 가 커질수록 커지는 오차 ({run.get('gpu', 'H200')}, {run.get('date', '')} 기록, 입력 U(0,1))", fontsize=10)
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


def explore_run():
    with open(RECORDED / "gpu_h200_level6_explore.json", encoding="utf-8") as f:
        return json.load(f)


def loaded_resources():
    """{kernel: registers, shared/local bytes, SASS counts, blocks per SM} of the kernels as loaded on the H200."""
    run = level6_run()
    res = run.get("resources")
    if isinstance(res, dict) and res and not any("error" in v for v in res.values()):
        return res
    return explore_run()["resources_loaded"]


def occupancy_rows(kernels=("mma_large", "mma_pipe"), gpu="H200"):
    """Occupancy from sim/occupancy with the registers recorded on the GPU (or the stated ones)."""
    from sim import occupancy
    import kernels_numba as kn
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


def check_kernel(name, M, N, K, alpha=1.0, beta=0.0, seed=0):
    """Run kernel `name` on random f16 inputs; compare with float64 within tc.error_bound. Returns a result dict."""
    import kernels_numba as kn
    from kernels_numba.infra import tc
    spec = kn.get(name)
    cd = getattr(spec.module, "C_DTYPE", np.float32)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C0 = rng.standard_normal((M, N)).astype(cd)
    C = C0.copy() if beta else np.full((M, N), np.nan, cd)       # NaN: an element never written shows up
    spec.launch(A, B, C, alpha, beta)
    acc = getattr(spec.module, "CONFIG", {}).get("acc", "f32")
    bound = tc.error_bound(A, B, alpha, beta, C0, acc=acc, out="f16" if cd == np.float16 else "f32")
    err = np.abs(C.astype(np.float64) - tc.reference(A, B, alpha, beta, C0))
    eye = np.zeros((M, N), cd)
    spec.launch(np.eye(M, K, dtype=np.float16), B, eye)
    ident = bool(np.array_equal(eye[:min(M, K)], B[:min(M, K)].astype(cd)))
    return {"ok": bool(np.isfinite(C).all() and (err <= bound).all()), "worst": float((err / bound).max()),
            "max_err": float(err.max()), "identity": ident}


def divergence_message(which="kernel"):
    """The simulator's error for the split-warp demo (kernels_numba/demos/mma_divergent.py), first two lines.

    On a GPU the demo is not launched: a split warp at mma.sync is undefined behaviour there (it may hang).
    """
    from kernels_numba.infra import device
    if not device.SIMULATOR:
        return ("GPU 모드: 워프가 갈라진 mma.sync 는 하드웨어에서 정의되지 않은 동작(멈출 수 있음)이라 실행하지 않습니다. "
                "시뮬레이터(SGEMM_DEVICE=sim)에서 이 셀이 워프 0 의 오류를 보여 줍니다.")
    from kernels_numba.demos import mma_divergent as d
    from kernels_numba.infra.simulator import errors as _errors, warp as _warp
    A = np.zeros((16, 16), np.float16)
    B = np.zeros((16, 8), np.float16)
    try:
        d.launch(A, B, np.zeros((16, 8), np.float32), which=which)
    except _errors.WarpCollectiveError as e:
        return "\n".join(str(e).splitlines()[:2])
    return "(오류 없음)"


def ptx_text(name):
    """The one instruction line of .ptx function `name` and the file it lives in."""
    from kernels_numba.infra import ptx
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
    runs = (("탐색 실행", explore_run()["explore"]), ("기록 실행", level6_run().get("explore", [])))
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
    from kernels_numba.infra import tc
    from kernels_numba.infra.simulator import warp as _warp
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
    from matplotlib.patches import Rectangle
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
    """The lines of kernels_numba.infra.tc.build_tiled that place a warp and its mma tiles (warp tile, compute loop)."""
    import inspect
    from kernels_numba.infra import tc
    lines = inspect.getsource(tc.build_tiled).splitlines()
    keep = [l for l in lines if l.strip().startswith(("WM, WN =", "MI, NI =", "lane, warp =", "wm, wn ="))]
    a = next(n for n, l in enumerate(lines) if l.strip().startswith("def compute("))
    b = next(n for n in range(a + 1, len(lines)) if lines[n].strip().startswith("@cuda.jit"))
    return "\n".join(keep + [""] + [l for l in lines[a:b] if l.strip()])


# ---- mma_swizzle -> mma_fast (H100 record course/recorded/gpu_h100_level6_fast.json) ----
FAST_REF = {"run3": "no_raster", "run4": "raster_g8"}     # the final kernel, in a run position not right after cuBLAS
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


def fast_record():
    with open(RECORDED / "gpu_h100_level6_fast.json", encoding="utf-8") as f:
        return json.load(f)


def fast_tflops(run="run4", rec=None):
    """{(variant, n): TFLOP/s} of one recorded H100 run; REF is the run's final kernel (FAST_REF)."""
    rows = (rec or fast_record())["runs"][run]["ablation"]
    tf = {(r["variant"], r["n"]): r["tflops"] for r in rows if "tflops" in r}
    for n in {n for _, n in tf}:
        tf[(REF, n)] = tf[(FAST_REF[run], n)]
    return tf


def fast_steps(run="run4", sizes=(2048, 4096), rec=None):
    """[{step, without, with, TFLOP/s without/with and gain per size}] of one run's ablation (FAST_STEPS)."""
    tf = fast_tflops(run, rec)
    rows = []
    for step, without, with_ in FAST_STEPS:
        row = {"단계": step, "없는 변형": without, "있는 변형": FAST_REF[run] + " (최종)" if with_ == REF else with_}
        for n in sizes:
            row[f"{n}³ TFLOP/s"] = f"{tf[(without, n)]:.0f} → {tf[(with_, n)]:.0f}"
            row[f"{n}³ 배"] = f"×{tf[(with_, n)] / tf[(without, n)]:.2f}"
        rows.append(row)
    return rows


def fast_gain(without, with_=REF, n=2048, run="run4", rec=None):
    """TFLOP/s of `with_` over `without` in one recorded run at size n."""
    tf = fast_tflops(run, rec)
    return tf[(with_, n)] / tf[(without, n)]


def largest_step(n=2048, run="run4", rec=None):
    """(step, gain) of the largest gain in the run's ablation at size n."""
    gains = [(step, fast_gain(w, v, n, run, rec)) for step, w, v in FAST_STEPS]
    return max(gains, key=lambda g: g[1])


def spill_rows(cc=(9, 0), names=("mma_swizzle", "mma_fast")):
    """Offline (no GPU) PTX/SASS facts of each kernel for sm_<cc>: registers, stack + local bytes, LDL/STL count and
    how many lie after the last HMMA (the epilogue), .local in the PTX, setp.eq.s64 compares after the last mma."""
    import re
    from concurrent.futures import ThreadPoolExecutor
    from kernels_numba.infra import offline, resources
    with ThreadPoolExecutor(len(names)) as pool:          # each compile is a subprocess: both at once
        compiled = list(pool.map(lambda n: offline.compile_kernel(n, cc), names))
    rows = []
    for name, r in zip(names, compiled):
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


def ncu_rows(run="run4", rec=None):
    """One row per kernel of a recorded ncu profile at 4096^3 (benchmarks/ncu_fast.py): tensor pipe, occupancy, L2,
    duration and the issue-stall reasons (cycles per issued instruction)."""
    prof = (rec or fast_record())["ncu"][run]
    rows = []
    for name in ("mma_swizzle", "mma_fast", "cublas"):
        p = prof[name]
        row = {"커널": name if name != "cublas" else "cuBLAS", "텐서 파이프 %": p["tensor_pipe_pct"],
               "점유율 %": p["achieved_occupancy_pct"], "L2 적중 %": p["l2_hit_pct"],
               "시간 µs": round(p["duration_ns"] / 1000, 1)}
        row.update({f"스톨 {s}": p["stalls_per_issue"].get(s, 0) for s in NCU_STALLS})
        rows.append(row)
    return rows


def race_gpu(names=("mma_w1_no_barrier_after_wait", "mma_w1_no_trailing_barrier",
                    "mma_w2_no_barrier_after_wait", "mma_w2_no_trailing_barrier")):
    """[{case, racecheck hazards, wrong plain runs}] from compute-sanitizer racecheck on the GPU (racecheck_h100.json)."""
    with open(RECORDED / "racecheck_h100.json", encoding="utf-8") as f:
        rec = json.load(f)
    return [{"경우": n, "워프": int(n[5]), "racecheck 보고": rec["cases"][n]["race_reports"],
             "검사 없이 틀린 실행": f"{rec['cases'][n]['wrong_runs']}/{rec['runs']}"} for n in names]


# ------------------------------------------------------------- 직접 해보기 10-5: the one-warp kernel's copy and store
import kernels_numba  # noqa: E402,F401  (device choice before numba)
from numba import cuda  # noqa: E402


@cuda.jit(device=True)
def copy_tiles(A, B, As, Bs, tile_m, tile_n, k0, lane):
    """As <- A[tile_m:+16, k0:+16], Bs <- B[k0:+16, tile_n:+8]: each of the 32 lanes copies 8 A and 4 B elements."""
    for i in range(8):
        e = lane * 8 + i
        As[e // 16, e % 16] = A[tile_m + e // 16, k0 + e % 16]
    for i in range(4):
        e = lane * 4 + i
        Bs[e // 8, e % 8] = B[k0 + e // 8, tile_n + e % 8]


@cuda.jit(device=True)
def store_fragment(C, tile_m, tile_n, lane, c0, c1, c2, c3, alpha, beta):
    """C <- alpha·D + beta·C for the lane's four D elements (c0, c1: row g; c2, c3: row g + 8; columns 2t, 2t + 1)."""
    g, t = lane // 4, lane % 4
    r, c = tile_m + g, tile_n + 2 * t
    if beta == 0:                            # C is not read when beta == 0 (BLAS)
        C[r, c], C[r, c + 1], C[r + 8, c], C[r + 8, c + 1] = alpha * c0, alpha * c1, alpha * c2, alpha * c3
    else:
        C[r, c] = alpha * c0 + beta * C[r, c]
        C[r, c + 1] = alpha * c1 + beta * C[r, c + 1]
        C[r + 8, c] = alpha * c2 + beta * C[r + 8, c]
        C[r + 8, c + 1] = alpha * c3 + beta * C[r + 8, c + 1]
