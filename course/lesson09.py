"""Notebook 09 machinery: ptxas verdicts on PTX text, cp.async traces, layouts and bank counts, SASS counts, recorded runs."""
import os
import re
import subprocess
import tempfile

HEADER = ".version 7.0\n.target sm_80\n.address_size 64\n"
# the seed writes this helper for 4-byte copies: '.cg' with 4 bytes
SEED_CP_ASYNC_4 = "cp.async.cg.shared.global [dst], [src], 4;"
LEGAL_CP_ASYNC_4 = "cp.async.ca.shared.global [dst], [src], 4;"


def ptx_module(instruction, params=".reg .u32 dst, .reg .u64 src"):
    """A complete PTX module whose one .func wraps `instruction` (the shape of kernels_numba/infra/ptx/*.ptx)."""
    return HEADER + f"\n.visible .func f({params})\n{{\n    {instruction}\n    ret;\n}}\n"


def ptxas(text, arch="sm_80", whole=False):
    """Run ptxas on PTX text: (accepted, ptxas's own messages with the temp path removed).

    whole=False assembles .func code with -c; whole=True links a kernel as the driver would load it (the check
    of a kernel's shared-memory size happens only then)."""
    from kernels_numba.infra import offline
    tool = offline._tool("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "check.ptx")
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([tool, *([] if whole else ["-c"]), f"-arch={arch}", src, "-o", os.path.join(d, "check.o")],
                           capture_output=True, text=True)
    msg = (p.stdout + p.stderr).replace(src, "check.ptx").strip()
    return p.returncode == 0, msg


def ptxas_verdicts(instructions=(SEED_CP_ASYNC_4, LEGAL_CP_ASYNC_4), archs=("sm_80", "sm_90")):
    """{(instruction, arch): (accepted, message)} for each instruction wrapped in a module."""
    return {(ins, a): ptxas(ptx_module(ins), a) for ins in instructions for a in archs}


# ------------------------------------------------------------------------------------ shared memory size

def smem_bytes(num_stages, BK=8, BM=128, BN=128, pad=1):
    """Bytes of As[S][BM][BK+pad] + Bs[S][BK][BN+pad] (float32)."""
    return 4 * num_stages * (BM * (BK + pad) + BK * (BN + pad))


def ptxas_static_shared(nbytes, arch="sm_80"):
    """ptxas on a kernel with a static .shared array of nbytes that it reads: (accepted, message). Limit: 48 KB."""
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
    import numpy as np
    from kernels_numba.infra import ptx
    from kernels_numba.infra.ptx import _async_sim
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


def compute_read_wavefronts():
    """Wavefronts per warp of the micro-kernel's shared loads, one K tile (BK=8), from sim.banks.

    'padded' is async_copy (As[m][k] pitch 9, Bs[k][n] pitch 129, scalar loads, thread_col = tx*8);
    'aligned' is async_vec (As[m][k] pitch 8 read as 2 floats, Bs[k][n] pitch 128 read as 2x4 floats at tx*4, 64+tx*4).
    """
    from sim import banks
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
    a = sum(wf(banks.analyze(A, lambda x, y, z, m=m, k=k: (y * 8 + m, k), block, width=8))
            for m in range(8) for k in range(0, 8, 2))
    b = sum(wf(banks.analyze(B, lambda x, y, z, h=h, k=k: (k, h * 64 + x * 4), block, width=16))
            for h in range(2) for k in range(8))
    out["aligned"] = {"A_requests": 32, "A_wavefronts": a, "B_requests": 16, "B_wavefronts": b}
    return out


def wide_a_wavefronts(swizzle=True):
    """Wavefronts per warp of async_wide's A loads (LDS.64, 8 per 2 k) over one K tile, both wide-access rules.

    A thread reads rows ty + 16 m at column k ^ 8 where bit 1 of the row is set (swizzle), else k; a warp holds
    4 consecutive ty. Returns {"requests": n, "phases": wavefronts, "words": wavefronts} (see sim.banks.count_wavefronts).
    """
    from kernels_numba import async_wide as W
    from sim import banks
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
    import course
    ew = course.recorded(run)["explore_wide"]
    table = {}
    for row in ew["rows"]:
        for name, pct in row["percent"].items():
            table.setdefault(name, {})[row["n"]] = pct
    return table, ew["registers"]


def first_use_stalls(run="gpu_h200_level5"):
    """Shares (%) of async_wide-without-prefetch FFMAs, and of their dispatch / short-scoreboard stall samples, that
    fall on an FFMA reading a value an LDS just loaded (its first reader), from the recorded ncu source view."""
    import course
    r = course.recorded(run)["ncu_source_no_prefetch"]
    pct = lambda a, b: 100.0 * r[a] / r[b]                                 # noqa: E731
    return {"ffma": pct("ffma_first_use", "ffma"),
            "dispatch": pct("dispatch_samples_ffma_first_use", "dispatch_samples_ffma"),
            "short_scoreboard": pct("short_scoreboard_samples_ffma_first_use", "short_scoreboard_samples_ffma"),
            "top10_first_use": sum(t["first_use"] for t in r["top10_by_dispatch"])}


# ------------------------------------------------------------------------------------ runs and SASS

def check(name, M, N, K, seed=0):
    """Run kernel or demo `name` (C starts as NaN) and compare with numpy: dict with max_err, nan, ok."""
    import numpy as np
    from kernels_numba import registry
    if any(sp.name == name for sp in registry.REGISTRY) and not registry.get(name).runs_here():
        print(f"{name}: 이 GPU 는 compute capability 8.0 미만이라 cp.async 가 없습니다 -> db_overlap(레지스터 경유 "
              f"더블 버퍼링)으로 대신 실행합니다 / no cp.async below sm_80: running db_overlap instead")
        name = "db_overlap"
    module_of = registry.module_of
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = np.full((M, N), np.nan, np.float32)
    module_of(name).launch(A, B, C)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    nan = int(np.isnan(C).sum())
    err = float(np.nanmax(np.abs(C - ref))) if nan < C.size else float("nan")
    ok = nan == 0 and bool(np.allclose(C, ref, rtol=1e-4, atol=1e-4 * np.sqrt(K)))
    return {"name": name, "shape": (M, N, K), "max_err": err, "nan": nan, "size": C.size, "ok": ok}


LDGSTS_OPS = ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "LDS", "STS", "LDG", "FFMA", "CALL")


def sass_main_loop(name, cc=(8, 0)):
    """Offline SASS of kernel `name`: registers and the main loop's counts of the cp.async-related opcodes."""
    from kernels_numba.infra import offline, resources
    r = offline.compile_kernel(name, cc)
    loop = resources.main_loop(r["sass"])
    counts = {}
    for i in loop:
        if i.base in LDGSTS_OPS:
            counts[i.base] = counts.get(i.base, 0) + 1
    ldgsts = sorted({m.group(0) for i in loop if i.base == "LDGSTS"
                     for m in [re.search(r"LDGSTS[\w.]*", i.text())] if m})
    return {"name": name, "cc": f"sm_{cc[0]}{cc[1]}", "registers": r["usage"]["registers"], "main_loop": counts,
            "ldgsts_forms": ldgsts, "calls": [i.text() for i in loop if i.base == "CALL"]}


def recorded_ratios(run="gpu_h200_level5"):
    """{kernel: {n: % of cuBLAS}} and cuBLAS TFLOP/s per size from a recorded run."""
    import course
    rec = course.recorded(run)
    ratios, cublas = {}, {}
    for r in rec["benchmark"]:
        if r["kernel"] == "cuBLAS":
            cublas[r["n"]] = r["tflops"]
        else:
            ratios.setdefault(r["kernel"], {})[r["n"]] = 100 * r["ratio"]
    return rec, ratios, cublas


def best_at(n=4096, run="gpu_h200_level5", level=5):
    """(name, % of cuBLAS) of the fastest recorded kernel of `level` at size n, and {kernel: %} of every kernel at n."""
    import kernels_numba as kn
    _, ratios, _ = recorded_ratios(run)
    at_n = {k: row[n] for k, row in ratios.items() if n in row}
    mine = {k: v for k, v in at_n.items() if any(s.name == k for s in kn.by_level(level))}
    best = max(mine, key=mine.get)
    return best, mine[best], at_n


def recorded_stalls(run="gpu_h200_level5", top=4):
    """{kernel: [(stall reason, warp cycles per issued instruction)] largest first} from the recorded ncu run."""
    import course
    st = course.recorded(run)["ncu_stalls"]["kernels"]
    return {k: sorted(((r, v) for r, v in d["cycles_per_issue"].items() if r != "selected"),
                      key=lambda x: -x[1])[:top] for k, d in st.items()}


def plot_sweep(run="gpu_h200_level5"):
    """Bar chart: % of cuBLAS per kernel and size (recorded GPU run); returns the figure."""
    from course import plots
    rec, ratios, _ = recorded_ratios(run)
    sizes = sorted(next(iter(ratios.values())))
    fig, ax = plots.subplots(figsize=(8, 3.6))
    width = 0.8 / len(ratios)
    for i, (name, row) in enumerate(ratios.items()):
        ax.bar([j + i * width for j in range(len(sizes))], [row[n] for n in sizes], width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))], [f"{n}³" for n in sizes])
    ax.axhline(85, color="gray", ls="--", lw=1, label="목표 85%")
    ax.set_ylabel("cuBLAS SGEMM 대비 (%)")
    ax.set_title(f"레벨 5 변형과 NUM_STAGES 비교 ({rec['gpu']}, 기록된 측정)")
    ax.legend(fontsize=8, ncol=3, loc="lower right")
    return fig


def tail_table(stages=(2, 3, 4), tiles=(1, 2, 3, 4, 5, 8)):
    """Rows (NUM_STAGES, K tiles, first unguarded tile for the seed's loop / ours)."""
    from sim.cp_async import first_unsafe_tile
    return [(s, t, first_unsafe_tile(s, t, "seed"), first_unsafe_tile(s, t, "empty_commit"))
            for s in stages for t in tiles]


CORE_FILES = ("cp_async_ca_4", "cp_async_cg_16", "cp_async_commit_group", "cp_async_wait_group_2")


def ptx_file_sass(names=CORE_FILES, arch="sm_80"):
    """{file name: (the PTX instruction, its SASS instruction)} for the named cp.async .ptx files (None: all)."""
    from kernels_numba.infra import offline, ptx
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
