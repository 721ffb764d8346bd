"""Helpers of notebook 11 (Hopper: wgmma, TMA, mbarrier, warp specialisation): tables computed from the .ptx files
and offline compiles, the layout and performance records (when they exist), the bug demos' reports."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from course import records, tc_check
from course.measure import here_label  # noqa: F401  (every lesson's label of 'this GPU' figures)
from kernels_numba.infra import ptx, sass
from sim import mma, wgmma
from kernels_numba.tools import offline
import re
from sim import wgmma
from concurrent.futures import ThreadPoolExecutor
from kernels_numba.infra import device
import contextlib
import io
from sim import ws_ring
from kernels_numba.infra import device, hopper
from course import bench

ROOT = Path(__file__).resolve().parents[2]
LEVEL7 = ("wgmma_simple", "wgmma_tma", "wgmma_ws")
LAYOUT_RECORD = "wgmma_layout_h100"          # benchmarks/record_wgmma_layout.py writes it
PERF_RECORD = "gpu_h100_level7"              # benchmarks/bench_level7.py writes it
FAST_FINAL_RUNS = ("run5", "run6")           # mma_fast's final H100 runs (course.ch10_tensor_core.lesson.FINAL_RUNS)


def _load(name):
    """The record <name>.json (course.records: this chapter's records/), or None where it has not been made yet."""
    try:
        return records.load(name)
    except FileNotFoundError:
        return None


# the records this lesson reads, each loaded once: the two level-7 ones are None until they are measured on an H100
LAYOUT = _load(LAYOUT_RECORD)
PERF = _load(PERF_RECORD)
CHECK = _load("gpu_h100_level7_check")       # benchmarks/check_level7.py: every kernel vs float64 on the GPU
SANITIZE = _load("sanitize_level7")          # benchmarks/sanitize_level7.py: compute-sanitizer's three tools
FAST = records.load("gpu_h100_level6_fast")   # mma_fast (notebook 10): the step before level 7


# ---------------------------------------------------------------------------------- PTX and compiled facts

def ptx_text(name):
    """The one instruction line of .ptx function `name` and the file it lives in."""
    fn = ptx.FUNCS[name]
    return f"{os.path.basename(fn.path)} (.target {fn.target}):  {fn.instruction}"


def compare_rows():
    """mma.sync (notebook 10) vs wgmma (this notebook), each fact read from the .ptx files or the model."""
    old, new = ptx.FUNCS["mma_m16n8k16_f32"], ptx.FUNCS["wgmma_m64n128k16_f32_f16"]
    return [
        ("실행 단위", "워프 (32 스레드)", f"워프그룹 (연속 워프 4개, {wgmma.WARPGROUP} 스레드)"),
        ("한 명령의 모양", "m16n8k16", "m64nNk16, N = 8 … 256 (여기서는 64, 128)"),
        ("A, B 피연산자", f"레지스터 ({len(old.operands) - 4}개 .b32: 레인마다 A 8원소, B 4원소)",
         f"공유 메모리: 64비트 디스크립터 {len([p for p in new.operands if p.name.startswith('desc')])}개"),
        ("누산기", f"레인마다 f32 {len(mma.c_elements(0))}개", f"스레드마다 f32 N/2 개 (N = 128 이면 {len(new.results)}개)"),
        ("완료", "동기: 다음 명령에서 결과 사용", "비동기: commit_group 후 wait_group 이 끝나야 결과가 레지스터에"),
        ("메모리 순서", "일반 로드/저장 (generic proxy)", "비동기 프록시(async proxy): fence.proxy.async 로 일반 저장과 순서"),
        ("대상", f".target {old.target} 이상", f".target {new.target} 전용 (sm_100a 등에는 없음)"),
    ]


def markdown(rows, columns):
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def compiled_rows(names=LEVEL7):
    """Offline sm_90a compiles of the level-7 kernels: registers, shared memory, SASS counts, ptxas's remarks."""
    rows = []
    for n in names:
        r = offline.compile_kernel(n, (9, 0))
        c = offline.sass_counts(r["sass"])
        hg = sum(v for k, v in c.items() if k.startswith("HGMMA"))
        tma = sum(v for k, v in c.items() if k.startswith("UTMALDG"))
        rows.append((n, r["arch"], r["usage"]["registers"], r["usage"]["local_bytes"] + r["usage"]["stack_bytes"],
                     hg, c.get("WARPGROUP.ARRIVE", 0), tma, _remarks(r.get("ptxas_log", ""))))
    return rows


def _remarks(log):
    codes = sorted(set(re.findall(r"\((C\d{4})\)", log)))
    return ", ".join(codes) if codes else "없음"


def no_wait_ptxas_log():
    """ptxas's info log for the bug demo without wgmma.wait_group (offline, sm_90a): the wait it inserts (C7517)."""
    r = offline.compile_kernel("wgmma_no_wait", (9, 0))
    return [line.split(" in function")[0].strip() for line in r.get("ptxas_log", "").splitlines() if "C75" in line]


def wait_site(name):
    """Where the wgmma wait sits in kernel `name`'s sm_90a SASS (offline): in the K loop (the loop whose body holds the
    HGMMA), the instructions between its last HGMMA and its back edge, and how many STS of the loop come before the
    first HGMMA (the next tile's stores, which run after the back edge)."""
    loops = [body for body in sass.loop_bodies(offline.compile_kernel(name, (9, 0))["sass"])
             if any(i.op.startswith("HGMMA") for i in body)]
    body = max(loops, key=len)                     # the K loop (load_tile's inner loops hold no HGMMA)
    mmas = [n for n, i in enumerate(body) if i.op.startswith("HGMMA")]
    tail = body[mmas[-1]:]                         # last HGMMA .. back edge
    return {"name": name, "tail": [i.text() for i in tail],
            "tail_ops": [i.op for i in tail],
            "sts_before_mma": sum(i.base == "STS" for i in body[:mmas[0]]),
            "sts_after_mma": sum(i.base == "STS" for i in body[mmas[0]:])}


def compare_wait_sites(bug="wgmma_no_wait", right="wgmma_simple"):
    """Lines to print: each kernel's loop tail (last HGMMA .. back edge) and whether the wait ptxas injected into `bug`
    sits where `right` waits (same instructions between the last HGMMA and the back edge)."""
    a, b = wait_site(bug), wait_site(right)
    out = []
    for s in (a, b):
        out.append(f"{s['name']}: 루프의 STS {s['sts_before_mma']}개는 첫 HGMMA 앞(다음 반복의 저장), "
                   f"HGMMA 뒤의 STS {s['sts_after_mma']}개; 마지막 HGMMA 부터 되돌아가는 분기까지:")
        out += ["    " + t for t in s["tail"]]
    same = a["tail_ops"] == b["tail_ops"] and a["sts_after_mma"] == b["sts_after_mma"] == 0
    out.append("기다림의 자리: " + ("두 커널이 같습니다 (마지막 HGMMA 뒤, 다음 타일의 저장으로 돌아가는 분기 앞)" if same
                                  else "두 커널이 다릅니다 (위 두 목록을 비교하세요)"))
    return out, same


def setmaxnreg_evidence():
    """(nvJitLink's remark, ptxas whole-program's remark) on the setmaxnreg probe: Numba links PTX as relocatable
    code, and ptxas then ignores setmaxnreg (C7504); the same PTX compiled as one program keeps it."""
    r = offline.compile_kernel("setmaxnreg_probe", (9, 0))
    linked = [ln.split(" in the function")[0].strip() for ln in r.get("ptxas_log", "").splitlines() if "C7504" in ln]
    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "k.ptx")
        src.write_text(r["ptx"])
        p = subprocess.run([offline._tool("ptxas"), "-arch=sm_90a", str(src), "-o", str(Path(d, "k.cubin"))],
                           capture_output=True, text=True)
    whole = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if "C75" in ln]
    return linked, whole, p.returncode


# ---------------------------------------------------------------------------------- layouts and records

def compare_layout(rec):
    """{what: (agree, total)} of a wgmma layout record (LAYOUT: its 'accumulators' as the GPU wrote them) against
    sim/wgmma.py, or None without a record."""
    if rec is None:
        return None
    out = {}
    for n_text, frags in rec["accumulators"].items():
        n = int(n_text)
        want = [wgmma.accumulator_elements(t, n) for t in range(128)]
        pairs = [(tuple(g), w) for t in range(128) for g, w in zip(frags[t], want[t])]
        out[f"m64n{n}k16 누산기"] = (sum(a == b for a, b in pairs), len(pairs))
    return out


def layout_probes(rec):
    """(layout probes, of them agreeing with sim/wgmma.py element for element, dynamic shared memory 1024-aligned in
    every probe) of a wgmma layout record: the stores and TMA probes of patterns rc and k at every k16 step."""
    probes = [p for p in rec["probes"] if p["pattern"] != "random"]
    return (len(probes), sum(p["agree"] == p["total"] for p in probes),
            all(p["smem_address_mod_1024"]["dynamic"] == 0 for p in rec["probes"]))


def swizzle_grid(rows=8):
    """The 16-byte chunk each logical chunk c of row r lands in, 128-byte swizzle (sim.wgmma.swizzle)."""
    return np.array([[wgmma.swizzle(r * 128 + c * 16, 128) % 128 // 16 for c in range(8)] for r in range(rows)])


def fast_ratios(n=4096):
    """mma_fast's share of cuBLAS HGEMM at n³ in each of its final H100 runs (notebook 10's record)."""
    return [FAST.run(run).row("mma_fast", n).ratio for run in FAST_FINAL_RUNS]


TIMED_BY = {"events": "CUDA 이벤트", "graph": "CUDA 그래프"}
PERF_COLUMNS = ["커널", "n", "TFLOP/s", "cuBLAS 대비", "라운드별 범위", "시간 재기", "호스트 µs/호출"]


def perf_rows(rec):
    """(kernel, n, TFLOP/s, % of cuBLAS in the same run, how it was timed, host µs per launch) of a level-7 record
    (its last run) or of a records.Run (a live course.bench run); [] without one. A kernel whose result was wrong
    (checked before timing) shows no speed."""
    if rec is None:
        return []
    run = rec.run() if isinstance(rec, records.Record) else rec
    return [(r.label, r.n, f"{r.tflops:.0f}" if r.correct is not False else "결과 틀림",
             f"{100 * r.ratio:.1f}%" if r.correct is not False else "-",
             f"{100 * r.spread[0]:.1f}–{100 * r.spread[1]:.1f}%" if r.spread and r.correct is not False else "-",
             TIMED_BY.get(r.extra.get("timed_by"), "-"),
             f"{r.host_us:.0f}" if r.host_us is not None else "-") for r in run.rows]


def cublas_wobble(run):
    """How far cuBLAS's own time moved between the rounds of a run: max over sizes of (slowest / fastest - 1), or None
    where the rounds were not kept."""
    moves = [max(r.extra["rounds_ms"]) / min(r.extra["rounds_ms"]) - 1 for r in run.rows
             if r.kernel == "cuBLAS" and r.extra.get("rounds_ms")]
    return max(moves) if moves else None


def perf_tables(rec):
    """[(title, rows)] of every unflagged run of a level-7 record, oldest first: each table names its run (id, GPU,
    date, cuBLAS HGEMM TFLOP/s per size), so runs are never mixed."""
    if rec is None:
        return []
    out = []
    for run in rec.runs:
        if run.flagged:
            continue
        cub = ", ".join(f"{n}³ {run.tflops('cuBLAS', n):.0f}" for n in sorted(run.sizes))
        wobble = cublas_wobble(run)
        caution = (f" — 이 실행에서 cuBLAS 자신의 시간이 라운드 사이에 최대 {100 * wobble:.0f} % 달랐습니다 "
                   "(바쁘거나 클록이 내려간 GPU 일 수 있음: 라운드별 범위 열을 보세요)" if wobble and wobble > 0.05 else "")
        out.append((f"실행 `{run.id}` — {run.gpu}, {run.date}; 같은 실행의 cuBLAS HGEMM TFLOP/s: {cub}{caution}",
                    perf_rows(run)))
    return out


def goal_runs(rec, kernel="wgmma_ws", n=4096):
    """[(run id, share of cuBLAS)] of `kernel` at n³ in every unflagged run of a level-7 record whose result was
    correct."""
    return [(run.id, run.row(kernel, n).ratio) for run in rec.runs
            if not run.flagged and run.row(kernel, n).correct is not False]


def gpu_checks(check=None, sanitize=None):
    """What the GPU records say of the level-7 kernels: {'cases', 'wrong', 'gpu', 'date'} from the float64 check and
    {'tools': {tool: errors-free?}, 'shapes', 'gpu', 'date'} from compute-sanitizer; None where a record is missing."""
    check, sanitize = check or CHECK, sanitize or SANITIZE
    out = {"check": None, "sanitize": None}
    if check is not None:
        cases = [c for v in check["results"].values() for c in v]
        out["check"] = {"cases": len(cases), "wrong": sum(not c["ok"] for c in cases), "kernels": len(check["results"]),
                        "identity": sum(bool(c.get("identity")) for c in cases),
                        "gpu": check.run().gpu, "date": check.run().date}
    if sanitize is not None:
        out["sanitize"] = {"tools": {t: bool(v.get("clean")) for t, v in sanitize["tools"].items()},
                           "shapes": [tuple(s) for s in sanitize["shapes"]], "gpu": sanitize.run().gpu,
                           "date": sanitize.run().date}
    return out


def timing_note(rec):
    """How each size of a level-7 record was timed, in words for the prose: '2048³ CUDA 그래프, 4096³ CUDA 이벤트'."""
    run = rec.run() if isinstance(rec, records.Record) else rec
    how = {}
    for r in run.rows:
        how.setdefault(r.n, set()).add(TIMED_BY.get(r.extra.get("timed_by"), "?"))
    return ", ".join(f"{n}³ {' · '.join(sorted(h))}" for n, h in sorted(how.items()))


# ---------------------------------------------------------------------------------- running kernels and demos

def check_kernels(cases, alpha=1.0, beta=0.0, seed=0):
    """{name: {'ok', 'worst', 'max_err', 'identity'}} (course.tc_check.check_kernels: float64 reference within
    tc.error_bound; kernels this device cannot run go to a simulator subprocess)."""
    return tc_check.check_kernels(cases, alpha, beta, seed)


_DEMO_CODE = r"""
import json, sys
import numpy as np
from kernels_numba.registry import module_of
from kernels_numba import tc
name, M, N, K = sys.argv[1], *map(int, sys.argv[2:5])
rng = np.random.default_rng(0)
A = rng.standard_normal((M, K)).astype(np.float16)
B = rng.standard_normal((K, N)).astype(np.float16)
C = np.full((M, N), np.nan, np.float32)
try:
    module_of(name).launch(A, B, C)
    err = np.abs(C.astype(np.float64) - tc.reference(A, B))
    right = bool(np.isfinite(C).all() and (err <= tc.error_bound(A, B)).all())
    rep = module_of(name).launch.last_report
    out = {"right": right, "summary": rep.summary(), "kinds": rep.kinds, "first": str(rep.hazards[0]) if rep else ""}
except Exception as e:
    out = {"right": False, "summary": type(e).__name__, "kinds": [type(e).__name__], "first": str(e)}
print("@@L11@@" + json.dumps(out))
"""


def bug_report(name, shape):
    """Run bug demo `name` (kernels_numba/demos) on the simulator with the detector collecting: {'right', 'summary',
    'kinds', 'first'}. On a GPU it runs in a simulator subprocess: the detector exists only there."""
    return bug_reports([(name, shape)])[0]


def bug_reports(cases):
    """bug_report for each (name, shape) of `cases`, in order. On a GPU (or a simulated older CC) each runs in a
    simulator subprocess of its own, all at once (a Python start-up and a simulation each: seconds), and the report is
    kept in the offline cache for the next session."""
    if device.SIMULATOR and not device.SIM_CC:
        return [_parse_bug(name, _bug_here(name, shape)) for name, shape in cases]
    env = dict(os.environ, SGEMM_DEVICE="sim", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop(device.SIM_CC_ENV, None)
    env.pop(device.SIM_ENV, None)

    def child(case):
        name, shape = case

        def simulate():
            return _parse_bug(name, subprocess.run([sys.executable, "-c", _DEMO_CODE, name, *map(str, shape)],
                                                   env=env, cwd=str(ROOT), capture_output=True, text=True).stdout)
        # the simulator's run is deterministic: kept in the offline cache, keyed like a compile by the sources of
        # kernels_numba (the demo, the simulator) and sim, the toolchain, and this child's own code
        key = hashlib.sha256(_DEMO_CODE.encode()).hexdigest()[:12]
        return offline._cached(f"bugdemo-{name}-{'x'.join(map(str, shape))}-{key}", (0, 0), simulate)
    with ThreadPoolExecutor(max_workers=len(cases) or 1) as pool:
        return list(pool.map(child, cases))


def _bug_here(name, shape):
    """The demo's report line, run in this (simulator) process."""
    code = _DEMO_CODE.replace("name, M, N, K = sys.argv[1], *map(int, sys.argv[2:5])", "")
    ns = dict(name=name, M=shape[0], N=shape[1], K=shape[2])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<bug demo>", "exec"), ns)
    return buf.getvalue()


def _parse_bug(name, text):
    hit = [x for x in text.splitlines() if x.startswith("@@L11@@")]
    if not hit:
        raise RuntimeError(f"bug demo {name} did not report:\n{text[-2000:]}")
    return json.loads(hit[-1][len("@@L11@@"):])


def ring_demo(consumer_step=None, stages=4, tiles=2, k_tiles=3, eager=True):
    """The producer/consumer ring model (sim/ws_ring.py) run to the end: its copy/mma log as text lines."""
    ring = ws_ring.run(consumer_step or ws_ring.course_consumer_step, stages=stages, tiles=tiles, k_tiles=k_tiles,
                       eager=eager)
    return [f"TMA 복사 k-반복 {it} → 단계 {s}" for _, it, s in ring.log], ring.done


KERNELS_TIMED = LEVEL7 + ("mma_fast",)         # what benchmarks/bench_level7.py and the live cell time


def live_benchmark(sizes=(2048,), rounds=3):
    """On a Hopper GPU: the level-7 kernels, mma_fast and cuBLAS HGEMM timed in this process by the course's engine
    (course.bench.run: checked first, rotated rounds, CUDA graphs where Python's launch cost would be timed), as
    perf_rows; None elsewhere (the simulator runs no timing; another GPU has no wgmma)."""
    if device.SIMULATOR or hopper.lacks_hopper():
        return None
    why = bench.available()
    if why:
        print(f"cuBLAS 와 비교할 수 없습니다: {why}")
        return None
    return perf_rows(bench.run(list(KERNELS_TIMED), sizes=sizes, rounds=rounds))
