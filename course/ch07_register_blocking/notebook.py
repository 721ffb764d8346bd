"""Generator of notebooks/07_register_blocking.ipynb (run: python -m course.ch07_register_blocking.notebook; the committed ipynb is its output)."""
import sys
from pathlib import Path
from course.nbgen import Notebook
from course.figures import fill, fill_comments, ratios, record, tflops
from sim import occupancy as _occ
import ast
import json as _json




def _const(module, name, package="course"):
    """A constant of <package>/<module>.py, read from the source (importing course would pick a device)."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / package / f"{module}.py").read_text(encoding="utf-8"))
    return next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                and any(getattr(t, "id", None) == name for t in n.targets))

OUT = Path(__file__).resolve().parents[2] / "notebooks" / "07_register_blocking.ipynb"
NB = Notebook("nb07", OUT)
cells = NB.cells

# Every measured figure in the prose comes from the records here (tests/test_recorded_figures.py checks none is typed).
REC34, REC06 = record("gpu_h200_levels34"), record("gpu_h200_2026-11-21")
assert REC06.gpu == REC34.gpu, "the header names one GPU for the benchmark records ({{gpu}})"
_R, _T, _T6 = ratios(REC34), tflops(REC34), tflops(REC06)
_SIZES = sorted({n for _, n in _R})
FIG = {"gpu": REC34.gpu, "date": REC34.date, "n_big": _SIZES[-1], "n_mid": _SIZES[-2], "n_small": _SIZES[0],
       "tiled_best": f"{max(v for (k, _), v in _T6.items() if k == 'tiled'):.1f}"}
for _n in _SIZES:
    FIG[f"rb_over_tiled_{_n}"] = f"{_T['regblock', _n] / _T6['tiled', _n]:.2f}"
    for _k in ("regblock", "regblock_opt", "regblock_vec"):
        FIG[f"pct_{_k}_{_n}"] = f"{100 * _R[_k, _n]:.1f}"
    FIG[f"tf_regblock_{_n}"] = f"{_T['regblock', _n]:.1f}"
_P = REC34["ncu_stalls"]["metrics"]
for _k, _short in (("regblock_opt", "opt"), ("regblock_vec", "vec")):
    _p = _P[_k]["percent"]
    _mio = _p["short_scoreboard"] + _p["mio_throttle"]          # MIO waits, as lesson07.stall_table
    FIG[f"{_short}_shared_wait"] = f"{_mio:.1f}"                 # of all warp-cycles (selected included)
    FIG[f"{_short}_shared_wait_stalled"] = f"{100 * _mio / (100 - _p['selected']):.1f}"   # of the cycles not issuing
for _why in ("long_scoreboard", "barrier", "dispatch_stall", "not_selected"):
    FIG[f"vec_{_why}"] = f"{_P['regblock_vec']['percent'][_why]:.1f}"
FIG["ncu_n"] = REC34["ncu_stalls"]["n"]
# 4.10: how the benchmark measured each size (the record's method), and why the smallest size is short of blocks
FIG["bench_groups"] = int(REC34.run().method.split("median of ")[1].split()[0])
_BM, _BN = (_const("regblock", _c, "kernels_numba") for _c in ("BM", "BN"))     # regblock's block tile (4.3)
FIG.update(rb_bm=_BM, rb_bn=_BN, sm_count=REC34["device_facts"]["sm_count"],
           blocks_small=(-(-_SIZES[0] // _BM)) * (-(-_SIZES[0] // _BN)))
assert FIG["blocks_small"] < FIG["sm_count"], "4.10's prose: the smallest size does not fill the SMs"
_F = REC34["device_facts"]                                  # FP32 peak as §4.10's cell computes it
_PEAK = _F["sm_count"] * _F["fp32_lanes_per_sm"] * 2 * _F["max_sm_clock_mhz"] * 1e6 / 1e12
FIG["pct_peak_regblock"] = f"{100 * _T['regblock', _SIZES[-1]] / _PEAK:.0f}"
# 4.7's shared-memory limit: a warp FFMA per cycle per 32 FP32 lanes (sim/occupancy), one wavefront per cycle
FIG.update({f"ffma_clk_{_g.lower()}": _occ.GPUS[_g].fp32_lanes_per_sm // 32 for _g in ("H200", "A100")})
FIG.update({f"wf_limit_{_g.lower()}": f"{32 / _occ.GPUS[_g].fp32_lanes_per_sm:g}" for _g in ("H200", "A100")})
assert _occ.GPUS["H100"].fp32_lanes_per_sm == _occ.GPUS["H200"].fp32_lanes_per_sm, "4.7's prose: H200·H100 alike"
FIG["budget_s"] = f"{_const('measure', 'BUDGET_S'):g}"       # the benchmark cell's time budget, as the code uses it
# warps per scheduler time-averaged over the profiled grid (course.ch07_register_blocking.lesson.mean_warps, sim.occupancy)
_NS = REC34["ncu_stalls"]["n"]
_GRID = (_NS // 128) * (_NS // 128)                         # regblock_vec's 128 x 128 block tiles
_API = REC34["occupancy_api"]["regblock_vec"]
_VEC_WARPS = _occ.mean_warps_per_scheduler(_GRID, _API['blocks_per_sm'], _API['threads'] // 32,
                                            REC34['device_facts']['sm_count'])
_VEC_CPI = sum(REC34['ncu_stalls']['metrics']['regblock_vec']['cycles_per_issue'].values())
FIG["vec_warps"], FIG["vec_cpi"] = f"{_VEC_WARPS:.2f}", f"{_VEC_CPI:.2f}"
FIG["vec_issue"] = f"{100 * min(1, _VEC_WARPS / _VEC_CPI):.0f}"          # as §4.10's cell computes it
FIG["vec_grid"], FIG["vec_slots"] = _GRID, _API["blocks_per_sm"] * REC34["device_facts"]["sm_count"]
# 3.5: the points the recorded occupancy API answered, grouped by block size ("256 스레드에 레지스터 120–128개, ...")
_API_PTS = {}
for _k, _a in REC34["occupancy_api"].items():
    _API_PTS.setdefault(_a["threads"], []).append(REC34["resources"][_k]["registers"])
FIG["api_points"] = ", ".join(f"{_t} 스레드에 레지스터 " + (f"{min(_r)}–{max(_r)}" if min(_r) != max(_r) else f"{_r[0]}")
                              + "개" for _t, _r in sorted(_API_PTS.items(), key=lambda x: -len(x[1])))
# 3.5: notebook 06's occupancy check record: its block size that is not a whole number of warps (the block division's
# rows that counting whole warps fixes; tests/ch07/test_lesson07.py checks L7.check_rows_vs_shortcuts finds the same)
_CHK = record("occupancy_check_h200")
_CHK_B = sorted({_r[_CHK["row_fields"].index("block")] for _r in _CHK["rows"]} - set(range(0, 2049, 32)))
assert len(_CHK_B) == 1, "3.5's prose names one block size of the check record that is not a multiple of 32"
FIG.update(chk_block=_CHK_B[0], chk_warps=-(-_CHK_B[0] // 32), chk_slots=-(-_CHK_B[0] // 32) * 32)
FIG.update(warps_h100=_occ.GPUS["H100"].max_warps_per_sm, warps_rtx40=_occ.GPUS["RTX 4090"].max_warps_per_sm,
           warps_t4=_occ.GPUS["T4"].max_warps_per_sm)        # SM warp limits by generation (3.5)
_LC = record("launch_cost_h100")                       # the launch-cost lesson's record (benchmarks/launch_cost.py)
_LMR = [r.extra["launch_minus_raw_us"] for r in _LC.rows]       # course launch - Numba dispatch, median of batches
FIG.update(lc_check_lo=f"{min(_LMR):.1f}", lc_check_hi=f"{max(_LMR):.1f}",
           lc_raw_over=f"{max(r['raw_us'] - r['host_us'] for r in _LC['lesson']):.0f}",
           lc_batches=int(_LC.run().method.split("median of ")[1].split()[0]),
           lc_negative=("; 음수는 launch 쪽이 더 빨랐던 경우로, 검사 비용이 측정의 흔들림 안에 묻힌다는 뜻입니다"
                        if min(_LMR) < 0 else ""))
# 3.4's register counts: regblock's offline reports (the committed kernel x target matrix, which tests/test_targets.py
# keeps equal to a fresh compile, as the 3.4 cell prints) and the H200 record's loaded kernel (rec["resources"])
_RB = {r["target"]: r["registers"] for r in _json.loads((Path(__file__).resolve().parents[2] / "kernels_numba" / "infra" /
       "targets.json").read_text(encoding="utf-8"))["rows"] if r["kernel"] == "regblock"}
_RB_ALL = (_RB["sm_80"], _RB["sm_90"], REC34["resources"]["regblock"]["registers"])
FIG.update(rb_regs_min=min(_RB_ALL), rb_regs_extra=min(_RB_ALL) - 80)   # 80 = rC 64 + rA 8 + rB 8 (3.4's model)
# 3.5's note on notebook 06's tiled: its sm_90 registers (as the step cell prints them) and one register more on H100
_TL = next(r for r in _json.loads((Path(__file__).resolve().parents[2] / "kernels_numba" / "infra" / "targets.json")
           .read_text(encoding="utf-8"))["rows"] if r["kernel"] == "tiled" and r["target"] == "sm_90")["registers"]
_TO = [_occ.occupancy("H100", _TL + _d, 256, 2048).percent for _d in (0, 1)]
assert _TO[0] == 100 and _TO[1] < 100, "3.5's prose: tiled sits at the end of the 100% step"
FIG.update(tiled_regs=_TL, tiled_regs1=_TL + 1, tiled_pct1=f"{_TO[1]:.0f}")
# 07-1's text: how many shapes its checker runs (exercises.SHAPES), as a Korean numeral
FIG["ex_shapes"] = {2: "두", 3: "세", 4: "네", 5: "다섯"}[len(_const("ch07_register_blocking/exercises", "SHAPES"))]
# a loop time per call below the kernel's own GPU time (two separate measurements: perf_counter vs CUDA events)
_UNDER = [100 * (r["gpu_us"] - r["per_call_us"]) / r["gpu_us"] for r in _LC["lesson"] if r["per_call_us"] < r["gpu_us"]]
FIG["lc_loop_under"] = (f" 그래서 넷째 열이 첫째 열보다 조금 작은 행도 있습니다(기록에서 최대 {max(_UNDER):.0f}%): 루프의 1회가 "
                        "커널보다 빠를 수는 없으니, 그 차이는 두 측정의 흔들림입니다." if _UNDER else "")
FIG.update(lc_gpu=_LC.gpu, lc_date=_LC.date,
           lc_targets=", ".join(f"{t:g}" for t in _const("measure", "TARGETS_US")))


def md(s):
    """A markdown cell whose {{name}} fields are recorded figures (FIG)."""
    NB.md(fill(s, FIG))


def code(s):
    """A code cell; {{name}} fields in its comments (`# 예상 출력:`) are recorded figures (FIG), never typed."""
    NB.code(fill_comments(s, FIG))


md(r"""
# 07. Level 3 — 레지스터 블로킹 (Register Blocking)

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 8문항 중 **6문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | 산술 강도(arithmetic intensity)를 **어느 메모리 수준**에서 세는지, 3계층 타일(블록·스레드·K), 외적(outer product) 마이크로커널의 재사용, 실제 레지스터 수(ptxas)와 스필(spill), 점유율(occupancy)의 진짜 계산 규칙, ILP와 TLP, 결과 저장(에필로그, epilogue), 패딩·명시적 FMA가 SASS에서 실제로 바꾸는 것 |
| **실행 환경** | GPU 없이 실행됩니다: NVIDIA GPU가 없으면 Numba CUDA 시뮬레이터가 자동으로 선택되고 화면에 그렇게 표시됩니다. 레지스터·SASS는 GPU 없이 sm_80(A100)·sm_90(H100/H200)용으로 컴파일해서 읽습니다. compute capability(CC) 7.5 이상의 NVIDIA GPU가 있으면 GPU 모드가 선택되고, 이 노트북의 커널(Level 3)은 그런 GPU 어디서나 돌며 측정 셀이 실제로 잽니다. |
| **선수 노트북** | [`06_shared_memory_tiling.ipynb`](06_shared_memory_tiling.ipynb) (타일링, 협력적 로딩, 뱅크 충돌, FMA). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나(모델, 시뮬레이터 기록, 오프라인 컴파일) 측정한 값**입니다. 시뮬레이터 모드에서 GPU 수치가 필요한 곳은 실제 GPU에서 **기록한 값(recorded)** 을 쓰고 (대부분 {{gpu}}, 4.10절의 launch 비용 심화만 {{lc_gpu}}), 그렇다고 표시합니다.

핵심 계산은 셀에 그대로 적고, 긴 표를 만드는 도구(기록 → 뱅크 모델, SASS 루프 읽기, 점유율 비교, 측정 표)는 `course/ch07_register_blocking/lesson.py` 에 이름 붙은 함수로 둡니다. 궁금하면 함수의 소스를 열어 보세요 (`course.show_source(L7.ilp)` 처럼). "심화" 표시가 붙은 부분은 건너뛰어도 됩니다.
""")
code(r"""
import course
info = course.setup("07")                      # 장치를 고르고(GPU 또는 시뮬레이터) 배너를 보여 줍니다
import kernels_numba as kn
from course.ch07_register_blocking import lesson as L7
from kernels_numba.tools import resources, trace
from sim import occupancy as occ
rec = course.recorded("gpu_h200_levels34")     # device 도구로 H200에서 기록한 Level 3–4 측정값
rb = kn.get("regblock").module                   # 이 노트북의 커널: kernels_numba/regblock.py
print("모드:", info["mode"], "| 기록된 GPU 측정:", rec.gpu, rec.date)
""")
md(r"""
## 1. 학습 목표

이 노트북을 마치면 다음을 할 수 있습니다.

1. 산술 강도를 **어느 메모리 수준**(글로벌 → 공유, 공유 → 레지스터)에서 세는지 밝히고, 스레드 타일 TM × TN 의 공유 메모리 → 레지스터 산술 강도 `TM·TN / (2·(TM+TN))` 를 **유도**한다.
2. 3계층 타일 구조(블록·스레드·K)의 크기가 서로 맞는지 **계산**한다.
3. 외적(outer product) 마이크로커널의 재사용을 내적(dot product)과 **비교**한다.
4. 실제 레지스터 수를 컴파일러(ptxas)에서 **읽고**, 스필(spill)을 SASS의 `LDL`/`STL` 로 **확인**한다.
5. 점유율을 CUDA의 실제 규칙(할당 단위, 서브파티션(SM sub-partition), 블록 단위)으로 **계산**하고, 점유율이 낮아도 빠를 수 있는 이유(ILP)를 **설명**한다.

## 2. 사전 복습

답을 먼저 떠올린 뒤 펼쳐 보세요.

1. 노트북 06의 16×16 타일 커널에서 공유 메모리에 올린 원소 하나를 몇 스레드가 읽었나요? 그래서 무엇이 몇 배 줄었나요?
2. 노트북 06에서 +1 패딩(`As[16][17]`)은 우리 `tiled` 커널의 뱅크 충돌을 실제로 어떻게 바꿨나요?
3. 노트북 06에서 말한 산술 강도 0.25 → 4.0 FLOP/B 는 **어느 메모리 수준**의 바이트를 센 값인가요?

<details><summary>사전 복습 정답</summary>

1. 16 스레드 (기록으로 셌습니다). 그래서 글로벌 메모리 **로드 요청** 수가 나이브 커널의 1/16이 됐습니다.
2. 읽기 충돌은 애초에 없었고(한 워프에는 `ty` 두 개뿐), 패딩은 **저장에 2-way 충돌을 만들고** 128비트 읽기(`LDS.128`)를 막았습니다. ncu 측정도 같았습니다.
3. SM이 **글로벌 메모리에 요청한 로드 바이트** 기준입니다 (DRAM 트래픽이 아님). 이 노트북에서는 한 단계 안쪽, **공유 메모리 → 레지스터** 수준을 셉니다.
</details>
""")
md(r"""
## 3. 개념

### 3.1 진단: Level 2 는 공유 메모리 → 레지스터 수준에서 산술 강도가 낮다

노트북 06의 `tiled` 는 글로벌 메모리 요청을 1/16 로 줄였지만, 안쪽 루프 `acc += As[ty, k] * Bs[k, tx]` 는 **FMA 한 번마다 공유 메모리에서 값 두 개**를 읽습니다. 스레드 하나가 C 원소 **하나**만 계산하기 때문에, 읽은 값을 레지스터에서 다시 쓸 곳이 없습니다. 공유 메모리는 글로벌 메모리보다 훨씬 빠르지만 공짜는 아닙니다: SM 하나가 한 사이클에 처리하는 공유 메모리 요청에는 한계가 있고, 그 한계가 이제 FFMA를 묶습니다.

해결책은 **스레드 코어스닝(thread coarsening)**, 곧 스레드 하나가 C 원소를 여러 개 맡게 하는 것입니다. `regblock` 은 스레드 하나가 C의 8×8 = 64 원소를 레지스터에 들고 있는 이 노트북의 커널입니다. 두 커널을 시뮬레이터에서 실제로 돌려, 스레드 하나가 FMA 한 번에 공유 메모리를 몇 번 읽는지 모든 접근의 기록(trace)으로 세고 모델(`sim/outer.py`)과 비교합니다.
""")
code(r"""
from sim import outer
ok, cases = True, {"tiled": (16, 1, 1), "regblock": (rb.BM, rb.TM, rb.TN)}
tr = L7.traces([(name, tile, tile, 16) for name, (tile, _, _) in cases.items()])   # 블록 하나, K = 16 을 실제로 실행하며 기록
for (name, (tile, tm, tn)), t in zip(cases.items(), tr.values()):    # tr: trace.shared_accesses 의 결과, 한꺼번에
    threads = t["block_dim"][0] * t["block_dim"][1]
    loads = sum(r[2] == "load" for r in t["records"]) / threads    # 스레드 하나의 공유 메모리 읽기 (4 B 씩)
    fmas = 16 * tm * tn                                            # 스레드 하나의 FMA (2 FLOP 씩): 식 K·TM·TN
    ai_, model = 2 * fmas / (4 * loads), outer.intensity(tm, tn)["ai"]
    ok = ok and ai_ == model
    print(f"{name:9s} 기록: 읽기 {loads:.0f}번 | 식: FMA 16·{tm}·{tn} = {fmas}번 → AI {ai_:.2f} FLOP/B | 모델: AI {model:.2f}")
print("PASS: 기록 = 모델" if ok else "FAIL: 기록과 모델이 다름")     # 기록한 읽기 수로 센 AI = 모델의 AI
# 예상 출력: tiled 기록: 읽기 32번 | 식: FMA 16·1·1 = 16번 → AI 0.25 … / regblock 기록: 읽기 256번 | 식: FMA 16·8·8 = 1024번 → AI 2.00 … / PASS: 기록 = 모델
""")
md(r"""
**일반화.** k 단계 하나에서 TM × TN 스레드 타일은 `rA` 에 TM개, `rB` 에 TN개를 읽고(4바이트씩) FMA를 TM·TN번 합니다. FMA 하나는 곱셈과 덧셈, 2 FLOP 입니다.

$$\text{AI}_{\text{공유→레지스터}} = \frac{2\,T_M T_N}{4\,(T_M + T_N)} = \frac{T_M T_N}{2\,(T_M + T_N)}, \qquad T_M = T_N = T \text{ 이면 } \frac{T}{4}.$$

분자(연산)는 TM·TN 처럼 **곱**으로, 분모(읽기)는 TM + TN 처럼 **합**으로 늘기 때문에 타일을 키울수록 좋아집니다. T = 1 (`tiled`) 이면 0.25, T = 8 (`regblock`) 이면 2.0 — 위 셀의 기록과 정확히 같습니다.

**어느 수준의 바이트인지가 중요합니다.** 노트북 06의 0.25 는 **나이브 커널이 글로벌 메모리**에서, 여기의 0.25 는 **`tiled` 가 공유 메모리**에서 FMA마다 4바이트 값 두 개를 읽는다는 뜻으로, 같은 숫자지만 다른 수준입니다. "0.25 → 2.0" 은 공유 메모리 → 레지스터 수준의 이야기입니다. 블록 단위 **글로벌 → 공유** 산술 강도는 `BM·BN / (2·(BM+BN))` 이고(노트북 06의 타일링 4.0 이 이 식의 BM = BN = 16), `regblock` 의 128×128 블록 타일에서는 훨씬 큽니다. 아래 셀은 닫힌 식을 분수로 정확히 확인하고 두 블록 타일을 계산합니다.
""")
code(r"""
from fractions import Fraction
TM_, TN_ = Fraction(rb.TM), Fraction(rb.TN)
print("공유→레지스터 AI = 2·TM·TN / (4·(TM+TN)) =", 2 * TM_ * TN_ / (4 * (TM_ + TN_)), "FLOP/B (TM = TN = 8)")
for BM_, BN_ in ((16, 16), (rb.BM, rb.BN)):     # 블록 단위 글로벌→공유: 2·BM·BN·BK FLOP / (4·(BM+BN)·BK) B
    print(f"블록 {BM_}×{BN_}: 글로벌→공유 AI = BM·BN / (2·(BM+BN)) = {BM_ * BN_ / (2 * (BM_ + BN_)):.1f} FLOP/B")
# 예상 출력: … = 2 FLOP/B … / 블록 16×16: … 4.0 FLOP/B / 블록 128×128: … 32.0 FLOP/B
""")
md(r"""
**이 산술 강도가 성능에 주는 상한.** 공유 메모리는 SM 하나에서 한 사이클에 웨이브프론트(wavefront) 1개 = 최대 128 B 를 처리하고(`sim/banks.py`), FP32 연산은 SM당 레인(lane) 수 × 2 FLOP/사이클입니다. 스레드가 요청한 바이트가 그대로 공유 메모리 대역폭을 쓴다고 보면(브로드캐스트와 충돌은 4.7절에서 따로 셉니다) 도달 가능한 비율은 `min(1, 128·AI / (레인 × 2))` 입니다.
""")
code(r"""
from sim import banks
for g in L7.GPUS:
    flop_clk = 2 * occ.GPUS[g].fp32_lanes_per_sm              # SM 하나가 사이클당 할 수 있는 FP32 FLOP
    allowed = {a: min(1, banks.WAVEFRONT_BYTES * a / flop_clk) for a in (0.25, 2.0)}   # 128 B × AI = 허락되는 FLOP
    print(f"{g}: 레인 {flop_clk // 2}개 → FP32 {flop_clk} FLOP/사이클, 공유 메모리 {banks.WAVEFRONT_BYTES} B/사이클 | "
          + ", ".join(f"AI {a} 이면 피크의 {100 * v:.1f}%" for a, v in allowed.items()))
# 예상 출력: A100: 레인 64개 … AI 0.25 이면 피크의 25.0%, AI 2.0 이면 피크의 100.0% / H100, H200: 레인 128개 … 12.5%, 100.0%
""")
md(r"""
AI 0.25 에서 공유 메모리가 허락하는 연산은 A100 에서 피크의 25%, **Hopper(H100/H200)에서는 12.5%** 입니다: SM당 FP32 레인은 두 배(64 → 128)가 됐는데 공유 메모리는 여전히 SM당 사이클당 128 B 이기 때문입니다. 그래서 H200에서 FP32 피크에 닿으려면 **이 모델**(스레드가 요청한 바이트를 세고, 브로드캐스트는 없다고 봄)로는 AI ≥ 2.0, 즉 **T ≥ 8** 이 필요합니다. 이것은 엄밀한 하한이 아닙니다: 워프 안의 브로드캐스트와 128비트 읽기는 실제 웨이브프론트를 줄이고(4.8절), 뱅크 충돌은 반대로 늘립니다(4.7절). (이 계산을 A100 으로만 보여 주며 "약 24%" 라고 하는 설명도 있는데, 사양으로는 25% 이고 Hopper 에서는 그 절반입니다.)

**루프라인(roofline)과 리지 포인트(ridge point).** 같은 생각을 DRAM 수준에서 하면 루프라인 모델입니다: 커널이 낼 수 있는 성능은 `min(FP32 피크, DRAM 대역폭 × AI)` 이고, 두 직선이 만나는 **리지 포인트** = 피크 ÷ 대역폭 (FLOP/B) 보다 AI가 크면 연산이, 작으면 메모리가 한계입니다. `sim/roofline.py` 가 네 GPU(A100 은 80 GB SXM 과 40 GB 두 모델)의 리지 포인트를 계산합니다(FP32 피크는 SM 수 × 레인 × 2 × 클록으로 계산, 대역폭은 데이터시트 값). 우리 커널의 블록 단위 글로벌 → 공유 AI(위 셀: `tiled` 4, `regblock` 32)를 나란히 놓습니다. 이 AI 는 SM 이 **요청한** 바이트로 센 값이라, 리지 아래라는 것은 "요청한 바이트가 전부 DRAM 에서 온다면 메모리에 묶인다"는 뜻일 뿐입니다.
""")
code(r"""
from sim import roofline
print(L7.roofline_position())
h = "H200"
print(f"{h} 리지 포인트 = {roofline.peak_tflops(h):.1f} TFLOP/s ÷ {roofline.DRAM_GBPS[h]:,.0f} GB/s = {roofline.ridge_point(h):.1f} FLOP/B")
tiled_best = max(r.tflops for r in course.recorded().rows if r.kernel == "tiled")
print(f"{h}, AI 4 의 DRAM 지붕 (요청한 바이트가 전부 DRAM 에서 온다고 할 때) {roofline.attainable_tflops(4.0, h):.1f} TFLOP/s"
      f" | tiled 실측 최고 {tiled_best:.1f} TFLOP/s (노트북 06 기록)")
# 예상 출력: 표 (tiled 는 모두 리지 아래, regblock 은 모두 리지 위) / H200 리지 포인트 … 13.9 FLOP/B / … 19.2 … | … {{tiled_best}}
""")
md(r"""
* 리지 포인트는 GPU마다 다릅니다(위 표). 피크 ÷ 대역폭이 클수록 연산에 묶이려면 더 큰 산술 강도가 필요합니다.
* 같은 A, B 조각을 여러 블록이 읽을 때 L2 캐시가 DRAM 트래픽을 줄이므로, 로드가 DRAM 에서 가져온 32 B 섹터를 버리는 바이트 없이 쓰는 한, A, B 로드만 보면 DRAM 기준 AI 는 요청 기준보다 **크거나 같습니다**. 섹터의 일부만 쓰는 로드(행 시작이 32 B 경계에 맞지 않는 행렬의 가장자리 등)는 요청보다 많은 바이트를 DRAM 에서 가져올 수 있으므로 정리(theorem)는 아닙니다. DRAM 에는 C 의 쓰기(와 `beta ≠ 0` 이면 읽기)도 오가지만, C 는 원소마다 한 번이고 A, B 로드는 K 에 비례해 늘어나므로 K 가 클수록 무시할 만합니다. 그래서 그 조건에서는 요청 기준으로 이미 리지 위인 `regblock`(32)이 DRAM 기준으로도 위에 있습니다.
* `tiled` 의 요청 기준 AI 4 는 리지 아래지만, 그것으로 "`tiled` 는 DRAM 에 묶인다"고 할 수는 없습니다. 노트북 06 4.8절에서 본 대로, H200 에서 요청한 바이트가 전부 DRAM 에서 온다고 가장 나쁘게 잡은 지붕(위 셀)도 `tiled` 의 실측 최고({{tiled_best}} TFLOP/s)의 두 배가 넘고, `tiled` 의 한계는 공유 메모리(읽기와 저장을 합한 FFMA당 웨이브프론트)라고 해석했습니다 (그 기록에는 DRAM·L2 처리량 측정이 없어, 두 상한을 비교한 결론입니다).
* 그래서 이 노트북은 DRAM이 아니라 SM **안쪽**(공유 메모리, 레지스터, 명령 발행)을 봅니다.

### 3.2 3계층 타일 구조 (블록 → 스레드 → K)

| 계층 | 크기 (`regblock.py` 상수) | 누가 | 어디에 |
|---|---|---|---|
| 블록 타일 | BM × BN = 128 × 128 | 블록 하나 (256 스레드) | C 의 한 조각 |
| K 타일 | A: BM × BK, B: BK × BN (BK = 8) | 블록이 협력해서 로드 | 공유 메모리 `As`, `Bs` |
| 스레드 타일 | TM × TN = 8 × 8 | 스레드 하나 | 레지스터 `rC` (+ `rA[8]`, `rB[8]`) |

```
글로벌 메모리          공유 메모리               레지스터
A[M×K] ──(협력 로드)──► As[128×8] ──(rA[m] = As[thread_row+m, k])──► rA[8] ─┐
                                                                          ├─► rC[8][8] += rA[m]·rB[n]  (k마다 FMA 64번)
B[K×N] ──(협력 로드)──► Bs[8×128] ──(rB[n] = Bs[k, thread_col+n])──► rB[8] ─┘
```

세 계층이 서로 맞아야 합니다: 블록의 스레드 수 × 스레드 타일 = 블록 타일, 그리고 K 타일의 원소 수가 스레드 수로 나누어떨어져야 모든 스레드가 같은 횟수만큼 로드합니다. 모듈 상수로 확인합니다.
""")
code(r"""
threads = rb.BLOCK[0] * rb.BLOCK[1]
print(f"블록 {rb.BLOCK[0]}×{rb.BLOCK[1]} = {threads} 스레드 × 스레드 타일 {rb.TM}×{rb.TN} = {threads * rb.TM * rb.TN:,} "
      f"= 블록 타일 {rb.BM}×{rb.BN} = {rb.BM * rb.BN:,}")
for name, elems in (("As", rb.BM * rb.BK), ("Bs", rb.BK * rb.BN)):
    print(f"K 타일의 {name}: {elems} 원소 ÷ {threads} 스레드 = 스레드당 {elems // threads}개 (나머지 {elems % threads})")
print(f"스레드의 K 타일 하나: FMA {rb.BK}×{rb.TM}×{rb.TN} = {rb.BK * rb.TM * rb.TN}번")
# 예상 출력: … 16,384 = 블록 타일 128×128 = 16,384 / As: 1024 ÷ 256 = 4개 (나머지 0) / Bs: 4개 (나머지 0) / FMA 512번
""")
md(r"""
### 3.3 외적(outer product) vs 내적(dot product)

같은 8 × 8 출력, 같은 FMA 수라도 **순서**가 재사용을 정합니다.

* **내적**(노트북 06의 스레드처럼 출력 하나를 끝내고 다음으로): FMA마다 A 값 하나, B 값 하나를 새로 읽습니다.
* **외적**(`regblock`): k 단계마다 `rA[0..7]`, `rB[0..7]` 을 한 번 읽어 레지스터에 두고, 64개 누산기(accumulator) 모두에 `rC[m][n] += rA[m]·rB[n]` 을 합니다. `rA[m]` 은 TN = 8번, `rB[n]` 은 TM = 8번 쓰입니다.

`sim/outer.py` 의 추적기(tracer)는 스레드 하나의 FMA를 한 단계씩 실행하며 공유 메모리 → 레지스터 읽기를 셉니다. K 타일 하나(BK = 8)를 끝까지 돌려 두 순서를 비교합니다.
""")
code(r"""
oc = L7.order_compare()
print(oc)
print("내적 ÷ 외적 읽기 =", oc["dot"].loads // oc["outer"].loads, "| 외적에서 k=0 의 rA[m] 하나가 쓰인 횟수:", oc["outer"].a_uses[0])
# 예상 출력: outer: FMA 512, 공유 메모리 읽기 128 … / dot: FMA 512, 공유 메모리 읽기 1024 … / 내적 ÷ 외적 읽기 = 8 | … (8, 8, 8, 8, 8, 8, 8, 8)
""")
md(r"""
재사용은 두 겹입니다: **레지스터 안**에서 값 하나를 8번(위 셀), **블록 안**에서 공유 메모리의 원소 하나를 여러 스레드가 읽습니다. 후자를 실제 커널의 기록으로 셉니다: `As[r, k]` 는 같은 `ty` 의 스레드 16개가, `Bs[k, c]` 는 같은 `tx` 의 스레드 16개가 읽습니다. 그러니 글로벌 메모리에서 가져온 원소 하나는 블록 안에서 16 스레드 × 8 FMA = 128번 쓰입니다.
""")
code(r"""
v = kn.get("regblock_vec").module                  # 4.7·4.8절의 두 커널도 지금 함께 기록 (GPU 에서는 시뮬레이터 프로세스 하나)
tr = L7.traces([("regblock", rb.BM, rb.BN, rb.BK), ("regblock_opt", rb.BM, rb.BN, rb.BK),
                ("regblock_vec", v.BM, v.BN, v.BK)])
t_rb = tr[("regblock", rb.BM, rb.BN, rb.BK)]        # 블록 1개, K 타일 1개의 모든 공유 메모리 접근
readers = L7.readers_per_element(t_rb["records"])
print("원소 하나를 읽는 스레드 수: 그런 원소의 수 =", {arr: dict(c) for arr, c in readers.items()})
# 예상 출력: 원소 하나를 읽는 스레드 수: 그런 원소의 수 = {'As': {16: 1024}, 'Bs': {16: 1024}}
""")
md(r"""
아래 위젯에서 **한 단계**를 눌러 외적 순서로 FMA를 하나씩 실행해 보세요. 초록 칸은 레지스터에 있는 값, 주황 테두리는 이번 FMA에서 새로 읽은 값, 칸 안의 숫자는 그 누산기를 갱신한 횟수입니다. 순서를 "내적"으로 바꾸면 FMA마다 두 값을 새로 읽는 것이 보입니다.
""")
code(r"""
from course.widgets.outer import outer_tracer
tracer_view = outer_tracer(TM=4, TN=4)
tracer_view
""")
md(r"""
### 3.4 레지스터 예산: 추정 vs 컴파일러

스레드의 데이터 레지스터는 모델로 셀 수 있습니다: `rC` 64 + `rA` 8 + `rB` 8 = 80개(값 하나씩 흘려 쓰면 최소 64 + 8 + 1 = 73). 인덱스·주소·루프 변수까지 더한 전체는 **ptxas 만 압니다.** GPU 없이 sm_80, sm_90 용으로 컴파일해 cubin 이 보고하는 값을 읽고, H200의 드라이버가 실제로 올린 커널의 기록과 비교합니다.
""")
code(r"""
reg = L7.registers()
rep = reg["rep"]                                  # {(8, 0): sm_80 보고, (9, 0): sm_90 보고}
print(reg)
print("H200 에 실제로 올라간 regblock (기록):", rec["resources"]["regblock"])
for line in L7.resources_here(("regblock",)).lines:        # GPU 가 있을 때만: 이 GPU 에 올라간 커널
    print(line)
""")
md(r"""
위 셀에서 컴파일러가 보고하는 값은 {{rb_regs_min}}개 이상이므로, 데이터 80개를 빼면 {{rb_regs_extra}}개 이상이 인덱스·주소·루프 변수입니다. Numba의 배열 인덱스는 **64비트 정수**(값 하나에 레지스터 두 개)이고, 음수 인덱스(`a[-1]` = 마지막 원소)를 처리하는 코드도 붙습니다. 위 셀이 센 명령이 그 흔적입니다:

* `ISETP…EX`: 정수 비교(Integer SET Predicate)의 확장형(`.EX`)으로, 64비트 비교의 상위 32비트를 비교하면서 앞의 하위 32비트 비교 결과(술어)를 이어 받아 64비트 비교 하나를 완성합니다. 인덱스 경계 검사.
* `IMAD.WIDE…`: 정수 곱셈-덧셈의 결과를 64비트로 내는 형태. 주소 = 기준 + 인덱스 × 4 계산.
* `SEL`: 조건에 따라 두 값 중 하나를 고르는 명령. 인덱스가 음수면 길이를 더하는 분기를 대신합니다.

레지스터 수는 이런 것들과 컴파일러의 스케줄링이 함께 정하므로 손으로 정확히 셀 수 없습니다(4.8절의 `regblock_vec` 은 `SEL` 이 없어도 레지스터가 줄지 않습니다). 숫자는 항상 컴파일러에서 읽습니다. 같은 소스라도 오프라인(nvJitLink)과 GPU 드라이버가 만든 값이 조금 다를 수 있습니다(위 셀의 기록값과 비교). ("약 90–104개" 같은 손 어림이 보이기도 하는데, 실제 값보다 적습니다.)

**스필(spill) 실험: TM = TN = 16.** 누산기만 256개 값이라 스레드당 상한 255개에 들어가지 않습니다. ptxas 가 실제로 무엇을 하는지 `kernels_numba/demos/regblock_t16.py` (레지스트리에 없는 교육용 커널)를 컴파일해 봅니다.
""")
code(r"""
print(f"누산기 rC 만 {16 * 16}개 값 (TM = TN = 16) > 스레드당 레지스터 상한 255")
L7.compiled([("regblock_t16", cc) for cc in L7.CCS])       # 두 컴파일을 한 번에 (진행 막대)
for cc in ((8, 0), (9, 0)):
    r = resources.report("regblock_t16", cc)               # GPU 없이 컴파일한 cubin 의 보고와 SASS 의 명령 수
    print(f"regblock_t16 sm_{cc[0]}{cc[1]}: 레지스터 {r['registers']}개, 로컬 메모리 {r['local_bytes']} B/스레드, "
          f"STL {r['stl']}개 / LDL {r['ldl']}개")
print("H200 에 올라간 regblock_t16 (기록):", rec["resources"]["regblock_t16"])
for line in L7.resources_here(("regblock_t16",)).lines:    # GPU 가 있을 때만: 이 GPU 에 올라간 커널
    print(line)
# 예상 출력: … regblock_t16 sm_80/sm_90: 레지스터 255개 이하, 로컬 메모리 0 B 보다 큼, STL·LDL 있음 …
""")
md(r"""
* 컴파일은 **성공**합니다. ptxas 는 레지스터를 상한 안에서 할당하고, 나머지 값을 스레드마다 있는 **로컬 메모리(local memory)** 로 내보냅니다(`STL` 로 쓰고 `LDL` 로 다시 읽음). 로컬 메모리는 글로벌 메모리와 같은 장치 메모리(DRAM)에 있고 L1/L2 캐시를 거칩니다.
* 스필은 컴파일러가 정한 **상한**을 넘을 때 생기고, 그 상한은 런치 경계(launch bounds)나 `maxrregcount` 로 255보다 낮아질 수 있습니다. 판정은 항상 cubin 의 로컬 메모리 보고와 SASS의 `LDL`/`STL` 로 합니다.
* 레지스터 수가 점유율을 바꾸는 지점은 다음 절에서 규칙으로 정확히 계산합니다.

### 3.5 점유율: 실제 규칙

점유율(occupancy)은 SM 에 동시에 올라가는 워프 수 ÷ SM 의 최대 워프 수입니다. 최대 워프 수는 세대마다 다릅니다: A100·H100·H200 은 {{warps_h100}}, RTX 30·40 계열(CC 8.6·8.9)은 {{warps_rtx40}}, T4(CC 7.5)는 {{warps_t4}} 입니다. 이 절의 예는 H100 기준입니다. CUDA 점유율 계산기(`cuda_occupancy.h`)가 레지스터에 쓰는 규칙은 세 가지입니다:

1. 레지스터는 **워프 단위로 256개씩** 할당됩니다 (스레드당 수를 8의 배수로 올림).
2. 레지스터 파일은 **서브파티션 4개**(각 16,384개)로 나뉘고 워프 하나는 그중 하나에 삽니다.
3. 블록은 **통째로** 올라갑니다: 256 스레드 블록이면 8워프 단위로만 늘어납니다.

공유 메모리는 커널이 **선언한** 바이트(`regblock`: 8,192 B)를 넣고, 모델이 블록마다 시스템 예약 1 KiB 를 더합니다(노트북 06 4.2절). 아래 셀은 이 규칙(`sim/occupancy.py`)과, 규칙 없이 "65,536 ÷ 레지스터 수" 로 나눈 어림(`division_estimate`)을 나란히 놓습니다.
""")
code(r"""
smem = rec["resources"]["regblock"]["shared_bytes"]          # 선언한 공유 메모리 (H200 에 올라간 커널의 속성)
regs = {cc: r["registers"] for cc, r in rep.items()}
print(L7.occupancy_rules(regs, smem))
print("\nH100 계산 과정 (regblock):")
print("\n".join("   " + s for s in occ.occupancy("H100", regs[(9, 0)], rb.THREADS, smem).steps))
for line in L7.occupancy_here(("regblock",)).lines:     # GPU 가 있을 때만: 이 GPU 에 올라간 regblock
    print(line)
""")
md(r"""
256 스레드 블록에서는 점유율이 **블록 단위(H100 에서 8워프 = 12.5%)로 양자화**됩니다. 나눗셈으로 낸 점유율(**나눗셈 %**, 예: 90개면 34.4%, 104개면 29.7%)은 할당 단위·서브파티션·블록 단위를 빠뜨린 값이고, 규칙으로는 둘 다 **25%** (SM당 2블록 = 16워프)입니다. 레지스터 수에 따라 블록 수가 바뀌는 지점을 전부 계산해 봅니다. 표의 줄마다 두 값이 있습니다: **레지스터 한도**는 레지스터만 따진 블록 수(위 계산 과정의 '레지스터 한도' 줄)이고, **SM당 블록**은 워프 수·블록 수·공유 메모리 한도까지 적용한 최솟값입니다. 레지스터가 적은 줄에서는 다른 한도가 먼저 잘라 둘이 다르고, 괄호 안에 그 한도를 적었습니다.
""")
code(r"""
print(L7.register_steps("H100", rb.THREADS, smem))
for line in L7.register_steps_here(rb.THREADS, smem).lines:     # GPU 가 있을 때만: 같은 계단을 이 GPU 에
    print(line)
tiled_regs = resources.report("tiled", (9, 0))["registers"]
print(f"\n참고: 노트북 06의 tiled (레지스터 {tiled_regs}개, 256 스레드):", occ.occupancy("H100", tiled_regs, 256, 2048).summary())
""")
md(r"""
* H100 에서 256 스레드 블록이면 레지스터 **81–128개가 모두 같은 25%** 입니다(다른 GPU 는 GPU 가 있을 때 위 셀의 "지금 이 GPU" 계단). 120개를 90개로 줄여도 점유율은 그대로이고, 80개 이하가 되어야 한 단계(37.5%) 오릅니다.
* 우리 `tiled` 는 H100 에서 점유율 **100%** 입니다. 레지스터의 여유는 따로 보세요: 위 셀 마지막 줄의 `tiled` 레지스터 {{tiled_regs}}개는 계단의 100% 구간 끝이라, 하나만 늘어도({{tiled_regs1}}개) 점유율이 {{tiled_pct1}}% 로 떨어집니다(06 4.2절). 그런데도 `regblock` 이 {{n_mid}}³·{{n_big}}³ 에서 {{rb_over_tiled_2048}}배·{{rb_over_tiled_4096}}배 빠릅니다({{n_small}}³ 에서는 {{rb_over_tiled_1024}}배; 4.10절). 점유율은 목표가 아니라 지연을 숨기는 수단 중 하나입니다(3.6절).
""")
NB.exercise("07-4", r"""
(번호가 07-4 인데 먼저 나오는 까닭: 07-1–07-3 은 4절에서 한 연습용 커널을 조각조각 완성하는 이어진 세 문제이고, 이 문제는 그와 별개인 점유율 계산입니다. 방금 본 표의 레지스터 한도 열을 직접 계산해 보기에 가장 좋은 자리가 여기라 이 절에 둡니다.)

위 표의 **레지스터 한도** 열을 만드는 세 규칙을 함수 하나로 씁니다: `my_register_limited_blocks(regs, threads)` 는 스레드당 레지스터 `regs` 개, 블록 `threads` 스레드일 때 **레지스터만 따져서** SM 하나에 올라가는 블록 수입니다 (SM 의 레지스터 파일 65,536개 = 서브파티션 4개 × 16,384개, 블록 하나도 65,536개까지). 워프 수·블록 수 한도는 넣지 않습니다: 표의 'SM당 … 블록' 은 그 한도까지 자른 값이라, 레지스터가 적은 줄에서는 이 함수의 답과 다릅니다. 확인 셀은 레지스터 1–255개와 블록 크기 22가지(32의 배수가 아닌 것과 32개보다 적은 것 포함)의 모든 조합을 모델(`sim/occupancy.py`)과 비교하고, 틀리면 어느 규칙(할당 단위, 서브파티션, 블록의 워프 수)을 빠뜨렸는지 알려 줍니다. 그 모델(`occ.occupancy(...)`)을 불러 답을 얻는 함수는 통과하지 않습니다: 확인 셀이 실행을 지켜보다 그 호출을 찾아 알려 줍니다.
""")
md(r"""
모델을 믿기 전에 실제 GPU와 맞춰 봅니다. H200에서 CUDA 드라이버의 점유율 API(`cuOccupancyMaxActiveBlocksPerMultiprocessor`)가 답한 값(기록)과, 같은 커널의 레지스터·공유 메모리를 넣은 모델을 나란히 놓습니다. 같은 점에서 레지스터 한도만 어림으로 바꾼 블록 수도 셉니다: **블록 나눗셈**(65,536 ÷ 레지스터 수를 워프, 다시 블록으로 내림. 3.5절 첫 셀의 나눗셈 %는 블록으로 내리지 않은 값이라 이것과 다릅니다), **할당 단위 없이**(256개 단위 올림을 뺀 규칙), **서브파티션 없이**(65,536개를 통째로 나눈 규칙). 어림이 모델과 다른 답을 내는 점이어야 API 의 답이 규칙을 가려 줍니다.
""")
code(r"""
api = L7.occupancy_vs_api(rec)
print(api)
print("PASS: 모델 = CUDA 점유율 API" if all(api["agree"].values()) else "FAIL: 모델과 API 가 다름")
cuts = L7.shortcuts_at_api(rec)          # 같은 점에서 레지스터 한도만 어림으로 바꾼 블록 수
print(cuts)
print("이 점들에서는 세 어림도 모델과 같은 답" if all(cuts["same"].values()) else "어림이 모델과 다른 점이 있음")
# 예상 출력: 모든 줄 끝이 ✓ / PASS: 모델 = CUDA 점유율 API / (어림 표) / 이 점들에서는 세 어림도 모델과 같은 답
""")
md(r"""
그러니 이 PASS 는 모델이 **이 커널들의** 블록 수를 맞힌다는 뜻일 뿐입니다. 기록된 커널은 {{api_points}}라, 블록 나눗셈으로 세어도, 할당 단위나 서브파티션 규칙을 빼도 같은 블록 수가 나옵니다(위 표). 이 비교는 할당 단위·서브파티션 규칙을 확인하지도, 블록 나눗셈을 반박하지도 않습니다. 규칙과 블록 나눗셈이 갈리는 곳을 모델로 계산하고, 그런 점을 잰 기록이 있는지 찾아봅니다.
""")
code(r"""
chk = course.recorded("occupancy_check_h200")      # 노트북 06 4.2절의 H200 점유율 검사 기록
print(L7.shortcut_example(33, rb.THREADS, (rec, chk)))   # 첫 줄은 모델로 계산한 값 (측정 없음)
print("\n06 기록(H200 점유율 API)의 줄 가운데 어림이 모델과 다른 줄:")
print(L7.check_rows_vs_shortcuts(chk))
# 예상 출력: H100, 레지스터 33개, 256 스레드 (모델 계산, 측정 아님): 모델 6블록/SM | 블록 나눗셈 7, 할당 단위 없이 7, 서브파티션 없이 6
# 256 스레드에서 블록 나눗셈이 규칙과 다른 레지스터 수: … / … 잰 레지스터 수: 없음 / 비교: 첫 셀의 나눗셈 %가 … 다른 레지스터 수: …
# (06 기록) 블록 나눗셈: … / 할당 단위 없이: 모델과 다른 줄 0개 / 서브파티션 없이: … / 블록 나눗셈이 다른 …줄 가운데 …
""")
md(r"""
* 256 스레드 블록(8워프)에서는 서브파티션 규칙이 블록 수를 바꾸지 않습니다: 블록의 워프 수가 4의 배수이면 서브파티션마다 똑같이 나뉘기 때문입니다. 그래서 **블록 나눗셈**과 규칙의 차이는 할당 단위에서만 나오고, 레지스터 수가 8의 배수가 아닌 몇 구간(둘째 줄)에서만 생깁니다. 첫 줄의 값은 `cuda_occupancy.h` 의 규칙을 옮긴 모델로 계산한 것입니다. **256 스레드 블록으로 그 구간을 잰 기록은 없습니다**(셋째 줄).
* 그 몇 구간은 블록 수로 내린 나눗셈의 이야기입니다. 3.5절 첫 셀의 나눗셈 %와 아래 위젯의 회색 점선은 블록으로 내리지 않은 어림이라, 블록 단위 규칙 때문에 훨씬 많은 레지스터 수에서 규칙과 다릅니다(넷째 줄: 첫 셀의 두 예도 여기에 듭니다).
* 노트북 06의 H200 점유율 검사 기록에는 워프 수가 4의 배수가 아닌 블록(셀 출력 마지막 네 줄의 블록 크기)의 줄에서 블록 나눗셈과 '서브파티션 없이' 어림이 모델과 다른 답을 낸 줄이 있습니다. 그 줄에서 API 가 모델과 같은 답을 냈는지는 그 네 줄 가운데 처음 세 줄이 셉니다. 블록 나눗셈이 다른 까닭은 둘입니다(마지막 줄). 블록은 워프 단위로 올라가므로 {{chk_block}} 스레드 블록은 워프 {{chk_warps}}개, 곧 스레드 자리 {{chk_slots}}개를 차지하는데, 블록 나눗셈은 SM 의 스레드를 블록의 스레드 수({{chk_block}})로 나눕니다. 블록의 워프 수로 나누면 사라지는 차이가 이것이고, 그래도 남는 줄은 '서브파티션 없이' 가 다른 줄과 같습니다. 그러니 그 기록에서 API 는 서브파티션 규칙과 '모자란 워프도 통째로 쓴다'는 규칙을 둘 다 모델 편에서 가려 줍니다. 반면 할당 단위만 빼서 답이 달라지는 줄은 그 기록에 없습니다. 할당 단위 규칙은 측정으로 가려 본 적이 없는, 모델(`cuda_occupancy.h`)의 규칙입니다.
""")
md(r"""
아래 위젯으로 GPU, 레지스터 수, 블록 크기, 공유 메모리를 바꿔 보세요. 파란 계단이 실제 규칙, 회색 점선이 첫 셀의 나눗셈 %(블록으로 내리지 않은 어림)입니다. 블록을 128 스레드로 줄이면 계단이 어떻게 촘촘해지는지도 확인해 보세요.
""")
code(r"""
from course.widgets.occupancy import occupancy_explorer
occ_view = occupancy_explorer(gpu="H100", regs=regs[(9, 0)], threads=rb.THREADS, smem=smem)
occ_view
""")
md(r"""
**공유 메모리 한도는 GPU마다 다릅니다.** "Ampere SM당 최대 공유 메모리 164 KiB" 는 **A100(sm_80)** 의 값입니다. 같은 Ampere라도 sm_86(RTX 30xx 등)은 100 KiB 이고, H100/H200 은 228 KiB 입니다.

블록마다 더해지는 시스템 예약 1 KiB 와, sm_90 cubin 이 선언보다 1,024 B 크게 보고한다는 것, 그리고 그 숫자를 점유율 계산에 쓰면 안 되는 이유(예약 1 KiB 를 두 번 세게 됨)는 노트북 06 4.2절의 심화에서 다뤘습니다. 점유율에 넣을 값은 선언한 바이트입니다.
""")
code(r"""
sl = L7.shared_limits("regblock", rec)
print(sl)
print("sm_86 의 최대 카브아웃(carveout: 공유 메모리에 떼어 줄 수 있는 L1 의 몫):", occ._steps_for((8, 6))[-1], "KiB")
# 예상 출력: regblock: cubin 보고 sm_80 8,192 B, sm_90 9,216 B | H200 … 8,192 B / … / sm_86 … 100 KiB
""")
md(r"""
### 3.6 ILP vs TLP

지연시간(latency)을 숨기는 방법(지연시간 은닉, latency hiding)은 두 가지입니다.

* **TLP (thread-level parallelism)**: 한 워프가 기다리면 스케줄러(warp scheduler)가 **다른 워프**의 명령을 냅니다. 워프가 많을수록(점유율 ↑) 유리합니다.
* **ILP (instruction-level parallelism)**: **같은 워프** 안에서 서로 의존하지 않는 명령을 연달아 냅니다. 앞 명령의 결과를 기다릴 필요가 없습니다.

`regblock` 은 25% 점유율이면 SM당 16워프, 스케줄러(서브파티션) 4개에 **4워프씩**입니다. 대신 한 k 단계의 FFMA 64개가 서로 다른 누산기 64개에 쓰므로 서로 독립입니다. sm_90 SASS의 루프 본문에서, FFMA가 같은 본문 안의 앞선 FFMA 결과를 읽는 **의존 사슬**(dependency chain)의 최대 길이를 셉니다 (1이면 모두 독립). `L7.loop_stats` 가 루프 본문의 명령을 차례로 읽으며 레지스터마다 "이 값을 만든 FFMA 사슬의 길이"를 기록하는 방식입니다.
""")
code(r"""
sass_rb = rep[(9, 0)]["sass_text"]
lp = L7.ilp(sass_rb, resources.report("tiled", (9, 0))["sass_text"])
print(lp)
inner, tl_loop = lp["regblock k 루프"], lp["tiled 타일 루프"]
print("25% 점유율의 스케줄러당 워프:", occ.occupancy("H100", regs[(9, 0)], rb.THREADS, smem).active_warps // 4)
# 예상 출력: regblock k 루프 … FFMA 64 … 의존 사슬 최대 1 / tiled 타일 루프 … (사슬 최대 = FFMA 수) / … 4
""")
md(r"""
서로 독립인 FFMA가 64개면 한 워프만으로도 스케줄러는 여러 사이클 동안 앞 결과를 기다리지 않고 FFMA를 낼 수 있습니다. 그래서 `regblock` 은 워프가 적어도(TLP ↓) ILP로 FFMA를 연달아 낼 **수 있습니다**. 연산 파이프가 실제로 얼마나 찼는지는 다른 문제입니다: 4.10절의 기록에서 `regblock` 은 {{n_big}}³ 에서 FP32 피크의 약 {{pct_peak_regblock}}% 이고, 그 한계는 다른 곳에 있습니다. 반대로 `tiled` 의 스레드는 누산기가 `acc` 하나라 FFMA가 모두 직전 FFMA에 의존하고(위 셀: 사슬 길이 = FFMA 수, FFMA 사이에는 ILP 없음), 대기 시간은 다른 워프로만 숨길 수 있습니다.

실제 H200에서 Nsight Compute(`ncu`)의 WarpStateStats 섹션이 센 **워프가 기다린 이유(stall reason)** 를 봅니다. 각 이유는 "발행한 명령 하나당 그 이유로 기다린 평균 사이클"이고, 표의 % 는 그것을 모든 상태의 합으로 나눈 비율입니다(샘플링이 아니라 카운터로 센 값). 이 합에는 워프가 명령을 낸 사이클 `selected` 도 들어 있으므로, 표의 % 는 '기다린 사이클'이 아니라 **워프-사이클 전체**의 몫입니다. `short_scoreboard` 와 `mio_throttle` 을 더한 값은 MIO(memory input/output) 파이프의 명령을 기다린 몫이고, 이 커널들에서 그 명령은 **주로** 공유 메모리 읽기·쓰기입니다 (MIO 에는 특수 함수 같은 다른 명령도 지나가므로 전부라고는 말할 수 없습니다). 표는 주요 상태만 한 줄씩 보이고 나머지 상태는 "그 밖의 상태 합" 한 줄로 모읍니다(그래서 열마다 합이 100%). 표의 마지막 두 줄이 MIO 대기의 합을 전체 중, 그리고 명령을 내지 못한 사이클(`selected` 를 뺀 나머지) 중의 몫으로 보여 줍니다.
""")
code(r"""
stalls = L7.stall_table(rec, [s.name for s in kn.by_level(3)])
print(stalls)
w, p = stalls["shared_wait"], stalls["share"]["regblock_opt"]
others = {k: v for k, v in p.items() if k not in ("selected", "not_selected", "short_scoreboard", "mio_throttle")}
print(f"regblock_opt: MIO(주로 공유 메모리) 대기 {w['regblock_opt']:.1f}% vs 다른 이유 중 가장 큰 {max(others, key=others.get)} {max(others.values()):.1f}%")
# 예상 출력: 표 … / regblock_opt: MIO(주로 공유 메모리) 대기 …% vs 다른 이유 중 가장 큰 …% (MIO 대기가 더 큼)
""")
md(r"""
* `selected` 는 워프가 명령을 낸 사이클(명령당 1), `not_selected` 는 낼 수 있었지만 같은 스케줄러의 다른 워프가 뽑힌 사이클입니다 — 두 값의 몫이 크면 스케줄러가 쉬지 않고 일하고 있다는 뜻입니다.
* `short_scoreboard` 는 **공유 메모리** 같은 MIO 명령의 결과를 기다리는 것, `mio_throttle` 은 그 명령 큐가 가득 차서 새 명령을 못 내는 것, `long_scoreboard` 는 글로벌/로컬 메모리를 기다리는 것, `barrier` 는 `syncthreads` 에서 기다리는 것, `math_pipe_throttle` 은 연산 파이프가 바빠 기다리는 것, `wait`(고정 대기)는 지연이 고정된(fixed latency) 명령의 결과를 정해진 사이클만큼 기다리는 것(예: 바로 앞 FFMA 의 결과를 쓰는 FFMA)입니다.
* 패딩과 명시적 FMA를 넣은 `regblock_opt`(4.7절)에서는 워프-사이클 전체의 {{opt_shared_wait}}% (명령을 내지 못한 사이클만 보면 {{opt_shared_wait_stalled}}%) 가 MIO, 주로 공유 메모리를 기다린 몫이고(이유 중 가장 큼), 공유 메모리 읽기를 128비트로 바꾼 `regblock_vec`(4.8절)에서는 {{vec_shared_wait}}% (명령을 내지 못한 사이클 중 {{vec_shared_wait_stalled}}%) 로 줄었습니다. 공유 메모리 읽기가 왜 병목인지는 4.7절에서 웨이브프론트로 셉니다. (이 기록에는 `regblock` 자체의 stall 측정이 없습니다.)

## 4. 코드 분석: 우리 `regblock` 커널

커널은 `kernels_numba/regblock.py` 입니다. 줄 번호는 아래 셀이 소스에서 찾으므로 파일이 바뀌어도 맞습니다. 모든 변형이 `launch(A, B, C, alpha=1.0, beta=0.0) → C` 로 실행됩니다.
""")
code(r"""
course.show_source(rb.kernel)
""")
code(r"""
walk = [("공유 메모리 As, Bs", "cuda.shared.array((BM"), ("레지스터 rC, rA, rB", "rC = cuda.local.array"),
        ("선형 스레드 번호 tid", "tid = ty"), ("스레드 타일의 위치", "thread_row = ty * TM"),
        ("A 로드 인덱스 (a_row, a_col)", "a_row = tid // BK"), ("B 로드 인덱스 (b_row, b_col)", "b_row = tid // BN"),
        ("K 타일 루프", "for k0 in range"), ("A 협력 로드 (4 패스)", "for off in range(0, BM"),
        ("B 협력 로드 (4 패스)", "for off in range(0, BK"), ("배리어 1", "cuda.syncthreads()"),
        ("rA 읽기", "rA[m] = As"), ("rB 읽기", "rB[n] = Bs"), ("외적 FMA", "rC[m, n] +="),
        ("배리어 2", "cuda.syncthreads()", 2), ("결과 기록 (beta == 0 처리)", "if beta == 0")]
print(L7.walkthrough(rb.kernel, walk, "regblock.py"))
""")
md(r"""
**4.1 상수.** `BM, BN, BK, TM, TN` 과 여기서 나오는 `BLOCK = (BN // TN, BM // TM) = (16, 16)`, `A_TILE_ROW_STRIDE`, `B_TILE_ROW_STRIDE` 는 **모듈 상수**입니다. GPU에서 Numba 는 공유·로컬 배열의 모양이 컴파일 시간 상수(정수 리터럴, 모듈 상수, 그런 값 하나만 대입된 지역 이름)일 때만 커널을 컴파일하기 때문입니다. `(BM, BK + 1)` 처럼 이름이 든 계산식도, `n = A.shape[0]` 처럼 실행할 때 정해지는 크기도 GPU에서는 `TypingError` 입니다. 이 과정의 시뮬레이터도 같은 모양을 거부하고, 무엇이 상수가 아닌지와 고치는 법(모듈 상수로 옮기기)을 알려 줍니다. 아래 셀이 입력 크기로 로컬 배열을 만들어 봅니다.
""")
code(r"""
import numpy as np
from numba import cuda, float32

@cuda.jit
def run_time_shape(A):
    n = A.shape[0]                    # 실행할 때 정해지는 크기: 배열 모양으로는 쓸 수 없습니다
    r = cuda.local.array(n, float32)
    A[0] = r[0]

print(L7.compile_error(run_time_shape, np.zeros(4, np.float32)))   # GPU 처럼 거부되는가
# 예상 출력: PASS: 거부됨 (SharedShapeError) / cuda.local.array 의 모양 `n` 에 컴파일 시점 상수가 아닌 `n`이 있습니다: …
""")
md(r"""
**4.2 레지스터 배열.** `cuda.local.array((TM, TN), float32)` 는 이름은 "로컬"이지만, 모든 인덱스가 컴파일 시간에 정해지면(루프가 펼쳐져 `m`, `n` 이 상수가 되면) 컴파일러가 레지스터에 둡니다. 3.4절에서 `regblock` 의 로컬 메모리가 0 B 인 것이 그 증거입니다. 인덱스 하나라도 실행 중에 정해지면 배열 전체가 로컬 메모리로 갑니다.

**4.3 스레드 → 출력 매핑.** 스레드 `(tx, ty)` 는 블록 타일 안에서 TM × TN = 8 × 8 부분 타일 하나를 맡습니다. 어느 부분인지는 커널이 하는 일에서 읽을 수 있습니다: 외적의 `rA` 는 그 스레드가 맡은 행들의 `As` 에서, `rB` 는 맡은 열들의 `Bs` 에서 읽으므로, 3.3절의 추적에서 스레드가 읽은 `As` 의 행과 `Bs` 의 열이 곧 그 스레드의 행과 열입니다. 아래 셀은 예로 `(tx=3, ty=5)` 의 것을 꺼내고, 256 스레드의 부분 타일이 블록 타일을 빈틈없이 한 번씩 덮는지 확인합니다. `tx`, `ty` 가 하나씩 늘 때 부분 타일이 어디로 옮겨 가는지는 직접 해보기 07-1 에서 여러분이 규칙으로 씁니다.
""")
code(r"""
from collections import Counter
tiles = L7.thread_tiles(t_rb)                  # (tx, ty) → (읽은 As 의 행, 읽은 Bs 의 열): 3.3절의 추적에서
rows, cols = tiles[3, 5]
print(f"(tx=3, ty=5): 블록 타일의 행 {rows[0]}..{rows[-1]}, 열 {cols[0]}..{cols[-1]}")
owner = Counter((r, c) for rows, cols in tiles.values() for r in rows for c in cols)
once = len(tiles) == rb.THREADS and set(owner.values()) == {1} and len(owner) == rb.BM * rb.BN
print("PASS: 블록 타일의", len(owner), "원소를 스레드 256개가 정확히 한 번씩 맡음" if once else "FAIL")
# 예상 출력: (tx=3, ty=5): 블록 타일의 행 40..47, 열 24..31 / PASS: 블록 타일의 16384 원소를 …
""")
NB.exercise("07-1", fill(r"""
이 지도를 직접 씁니다. 연습 문제 07-1–07-3 은 `regblock` 과 구조가 같고 크기만 작은 **연습용 커널**에 여러분의 장치 함수(device function)를 끼워 시뮬레이터에서 빨리 돌립니다: 블록 타일 32 × 32, BK = 8, 스레드 타일 **TM × TN = 4 × 2**, 블록 **16 × 8 = 128 스레드**(x 가 N 방향 16개, y 가 M 방향 8개). 블록이 정사각이 아니고 TM ≠ TN 이라 x 와 y, TM 과 TN 을 바꾸면 바로 드러납니다.

`my_thread_tile(tx, ty)` 가 스레드 `(tx, ty)` 의 부분 타일 왼쪽 위 `(thread_row, thread_col)` 을 **블록 타일 안의 위치**로 돌려주게 하세요(블록 오프셋은 커널이 더합니다). 확인 셀은 먼저 모든 스레드의 지도를 계산해 겹치거나 비거나 타일 밖으로 나가는 곳을 찾고, 그다음 연습용 커널을 타일 배수가 아닌 {{ex_shapes}} 모양(M, N 가운데 하나 이상이 블록 타일의 배수가 아님)으로 실행해 numpy 와 비교합니다. 틀리면 블록 타일의 원소마다 맡은 스레드 수와, C 의 틀린 원소 지도(heat map)를 보여 줍니다.
""", FIG))
md(r"""
### 4.4 협력적 로딩 (cooperative loading)

K 타일마다 256 스레드가 `As` (128 × 8 = 1024 원소)와 `Bs` (8 × 128 = 1024 원소)를 함께 채웁니다. 타일이 스레드 수보다 크므로 스레드마다 **여러 번**(패스, pass) 로드합니다.

* A: 한 행(BK = 8 원소)을 연속한 8 스레드가 맡습니다: `a_row = tid // BK`, `a_col = tid % BK`. 한 패스에 256 / 8 = 32 행 → `A_TILE_ROW_STRIDE = 32`, 128 / 32 = 4 패스.
* B: 한 행(BN = 128 원소)을 연속한 128 스레드가 맡습니다: `b_row = tid // BN`, `b_col = tid % BN`. 한 패스에 2 행 → `B_TILE_ROW_STRIDE = 2`, 8 / 2 = 4 패스.

모듈 상수로 `(tid, 패스) → (행, 열)` 지도를 만들어, 예로 `tid = 13` 이 무엇을 채우는지 보고, 지도가 타일을 정확히 한 번씩 덮는지, 그리고 **실제 커널이 시뮬레이터에서 기록한 저장 주소**와 같은지 확인합니다.
""")
code(r"""
amap = L7.load_map(rb.THREADS, rb.BM, rb.BK, rb.A_TILE_ROW_STRIDE)
bmap = L7.load_map(rb.THREADS, rb.BK, rb.BN, rb.B_TILE_ROW_STRIDE)
print("tid 13 이 채우는 As 원소:", [amap[(13, p)] for p in range(4)])
print("tid 13 이 채우는 Bs 원소:", [bmap[(13, p)] for p in range(4)], "| tid 200:", [bmap[(200, p)] for p in range(4)])
ok = L7.covers_once(amap, rb.BM, rb.BK) and L7.covers_once(bmap, rb.BK, rb.BN)
ok = ok and L7.stored_map(t_rb, "As") == amap and L7.stored_map(t_rb, "Bs") == bmap     # 기록된 커널의 저장과 같음
print("PASS: 두 지도가 타일을 정확히 한 번씩 덮고, 기록된 커널의 저장과 일치" if ok else "FAIL")
# 예상 출력: tid 13 이 채우는 As 원소: [(1, 5), (33, 5), (65, 5), (97, 5)] … / PASS: …
""")
md(r"""
B 로드에서는 같은 워프의 32 스레드가 `B` 의 한 행에서 연속한 32개 float 를 읽어(글로벌 코얼레싱, coalescing), `Bs` 의 연속한 32 워드에 씁니다(공유 메모리 뱅크 충돌 없음). A 로드에서는 연속한 8 스레드가 `A` 의 한 행에서 연속한 8개(32 B)를 읽고, 한 워프는 4개 행을 읽습니다. 저장 쪽 충돌은 4.7절에서 기록으로 셉니다.
""")
NB.exercise("07-2", r"""
협력적 로딩 지도를 장치 함수로 씁니다. `my_load_coords(tid, p, rows, cols)` 는 `THREADS` 개 스레드가 `rows × cols` 공유 타일을 채울 때 스레드 `tid` 가 패스 `p` 에서 저장하는 원소의 `(행, 열)` 입니다. 연습용 커널은 **같은 함수**로 `As` (BM × BK = 32 × 8)와 `Bs` (BK × BN = 8 × 32)를 채웁니다. 두 타일은 패스 간격(stride)이 다르므로 숫자를 박아 넣으면 한쪽이 틀립니다. 위 셀의 `L7.load_map` 은 파이썬 딕셔너리를 만드는 도우미라 커널 안에서는 부를 수 없습니다: 정수 연산(`//`, `%`, `*`, `+`)으로 쓰세요.

확인 셀은 모든 `(tid, p)` 의 지도를 계산해 타일 밖, 두 번 채운 원소, 아무도 채우지 않은 원소를 찾습니다(시뮬레이터는 아무도 쓰지 않은 공유 메모리를 NaN 으로 둡니다). 같은 규칙이 맞아야 하는 다른 타일 모양으로도 부릅니다. 그리고 연습용 커널을 경쟁 검출기(race detector)와 함께 실행해 그 결과와 C 의 틀린 원소 지도를 보여 줍니다. 값이 맞으면 마지막으로 워프의 로드 한 번이 글로벌 메모리의 32바이트 섹터를 몇 개 건드리는지 세어, 코얼레싱(coalescing)되지 않은 지도는 따로 알려 줍니다.
""")
md(r"""
### 4.5 외적 마이크로커널과 SASS: 루프는 정말 펼쳐졌나?

CUDA C 로 쓴 레지스터 블로킹 커널은 보통 `#pragma unroll` 로 `k`, `m`, `n` 루프를 모두 펼칩니다. Numba에는 `#pragma` 가 없습니다. 반복 횟수가 상수인 루프는 LLVM이 알아서 펼치는데, **어디까지** 펼쳤는지는 SASS가 말해 줍니다. 3.6절에서 찾은 sm_90 SASS의 두 루프를 자세히 봅니다.
""")
code(r"""
kt_loop = lp["regblock K 타일 루프"]
print(f"K 타일 루프: 명령 {kt_loop['n']}개 (배리어 {kt_loop['BAR']}) — 그 안의 k 루프: 명령 {inner['n']}개 = "
      f"FFMA {inner['FFMA']} + LDS {inner['LDS']} + 기타 {inner['n'] - inner['FFMA'] - inner['LDS']}")
print(f"k 루프 본문의 FFMA 비율 {100 * inner['FFMA'] / inner['n']:.0f}% | 커널 전체 FFMA {rep[(9, 0)]['ffma']} "
      f"= 외적 {inner['FFMA']} + 결과 기록 {rep[(9, 0)]['ffma'] - inner['FFMA']}")
excerpt = resources.inner_loop_excerpt(sass_rb, max_lines=14)
print(excerpt)
print(L7.excerpt_facts(excerpt))      # 위 발췌에서 읽은 것 (컴파일러마다 다름)
""")
md(r"""
SASS가 보여 주는 사실:

* `m`, `n` 루프(외적 TM·TN 번과 `rA`·`rB` 읽기 TM + TN 번)는 **완전히 펼쳐졌습니다**: 위 셀의 k 루프 본문에 FFMA 가 TM·TN = 64개 있고 (3.6절: 서로 독립, 의존 사슬 1), 발췌의 `LDS` 는 레지스터 주소에 **상수 오프셋**을 더해 읽습니다 (셀의 마지막 줄이 이 발췌의 오프셋을 모읍니다: 오프셋 값은 컴파일러가 정하는 배치라 컴파일러마다 다를 수 있습니다).
* 하지만 **`k` 루프는 펼쳐지지 않았습니다**: 셀의 첫 줄처럼 K 타일 루프 안에 k 루프가 따로 있고, 그 본문(FFMA + LDS + 루프·주소 명령 몇 개)이 한 반복이며, 뒤로 가는 `BRA` 로 BK = 8번 반복됩니다.
* 발췌의 `.reuse` 는 **피연산자 재사용 표시**(operand reuse; 하드웨어의 operand reuse cache 를 쓰라는 뜻으로 읽힘)입니다: 다음 명령도 같은 레지스터를 같은 자리에서 읽으므로, 레지스터 파일에서 다시 읽지 말고 방금 읽은 값을 쓰라는 컴파일러의 표시로 해석됩니다(NVIDIA 가 공식 문서로 설명하지 않은 표시입니다). 어느 레지스터에 몇 번 붙는지는 컴파일러가 정하므로, 셀의 마지막 줄이 이 발췌에서 찾아 보여 줍니다. 표시가 이어진 FFMA 들은 외적에서 값 하나(`rA` 나 `rB` 의 원소)를 여러 곱에 연달아 쓰는 자리입니다.
* 루프를 펼치지 않은 비용은 재지 않았습니다. 우리가 아는 것은 위 셀이 센 k 루프 본문의 FFMA 비율이고, 나머지 명령도 발행(issue) 슬롯을 씁니다. 루프를 완전히 펼친 `regblock_vec`(4.8절)와의 차이는 다른 변경과 섞여 있어 펼침만의 효과로 읽을 수 없습니다.
""")
NB.exercise("07-3", r"""
외적 마이크로커널을 직접 씁니다. `As`, `Bs` 가 이미 채워진 K 타일 하나에서, `k = 0..BK-1` 마다 이 스레드 몫의 `rA[TM]` 과 `rB[TN]` 을 공유 타일에서 읽고 TM × TN 개의 누산기 `rC` 모두에 외적을 더합니다(3.2절의 그림). `thread_row`, `thread_col` 은 07-1 의 값을 커널이 넘겨 주고, `rC` 는 커널이 K 루프 전에 한 번 0 으로 만듭니다.

확인 셀은 여러분의 함수를 연습용 커널(스레드 타일 4 × 2)에 끼워 numpy 와 비교합니다. `rA` 나 `rB` 의 인덱스에서 `+ m` 이나 `+ n` 을 빠뜨리면 모든 스레드에서 스레드 타일의 같은 행이나 열이 틀리고, 셀이 스레드 타일 안의 틀린 자리를 그림으로 보여 줍니다. `+=` 대신 `=` 을 쓰거나 k 루프가 모자라면, C 에 어떤 곱만 남았는지로 알려 줍니다. 값이 맞으면 스레드 하나가 K 타일 하나에서 공유 메모리를 몇 번 읽는지 세어, 같은 원소를 다시 읽는(레지스터에 두고 재사용하지 않는) 답은 따로 알려 줍니다.
""")
md(r"""
### 4.6 결과 저장: 에필로그(epilogue)

K 타일 루프가 끝나면 각 스레드의 `rC` 에 C 원소 64개의 최종 합이 있습니다. 마지막 단계는 이것을 글로벌 메모리에 쓰는 것이고, BLAS 의 SGEMM 규약 `C = alpha·A·B + beta·C` 를 따릅니다.
""")
code(r"""
print(L7.source_part(rb.kernel, "gr = block_row + thread_row + m", "beta * C[gr, gc]", before=1))
""")
md(r"""
* **경계 검사.** `if gr < M`, `if gc < N` 은 M, N 이 128 의 배수가 아닐 때 행렬 밖에 쓰지 않게 합니다. 가장자리 블록의 스레드 일부는 64개 중 일부만 씁니다. (타일 로드 쪽은 행렬 밖을 0 으로 채우므로 `rC` 에 쓰레기가 들어가지 않습니다.)
* **`beta == 0` 이면 C 를 읽지 않습니다.** BLAS 규약에서 이때 C 는 출력 전용이라 NaN 이나 초기화되지 않은 값이 들어 있어도 됩니다. `alpha·rC + 0·C` 로 계산하면 C 의 NaN 이 결과로 새어 나옵니다(NaN × 0 = NaN). 아래 셀이 NaN 으로 채운 C 로 이것을 확인합니다.
* **쓰기 패턴.** 스레드 `tx` 는 열 `tx·8 + n` 을 쓰므로, `(m, n)` 을 고정한 저장 명령 하나에서 워프의 32 스레드(16개 `tx` × 2개 `ty`)는 32 B 간격으로 떨어진 4 B 를 씁니다. 글로벌 메모리는 32 B **섹터(sector)** 단위로 움직이므로, 저장 한 번이 섹터 32개를 건드리면서 쓸모 있는 바이트는 128 B 뿐입니다. 4개씩 묶어 16 B 로 쓰면(`float4`, 노트북 08의 `db_ptx`) 같은 섹터 수로 4배를 씁니다. 횟수로 비교하면, 결과 저장은 스레드당 저장 64번으로 K 와 무관하고, K 타일 루프의 글로벌 로드는 K/BK 에 비례합니다(K = 4096 이면 스레드당 512 타일 × 8 = 4,096번). 이 비효율이 시간에 얼마나 보이는지는 재지 않았으므로 숫자로 말하지 않습니다.
""")
code(r"""
scalar, vec4 = L7.store_sectors(vector=1), L7.store_sectors(vector=4)
print(f"4 B 저장 한 번 (워프): 32 B 섹터 {scalar['sectors']}개, 쓸모 있는 {scalar['useful_bytes']} B → 섹터 효율 {scalar['efficiency']:.1%}")
print(f"16 B (float4) 저장 한 번: 섹터 {vec4['sectors']}개, {vec4['useful_bytes']} B → {vec4['efficiency']:.1%}")
ep = L7.epilogue_check("regblock")               # 130×70×21, alpha = 2: beta = 0 (C 는 NaN) 과 beta = -1
print("PASS: beta = 0 이면 NaN 으로 채운 C 를 읽지 않고, beta ≠ 0 이면 alpha·A·B + beta·C" if all(ep.values()) else f"FAIL {ep}")
# 예상 출력: … 섹터 32개, … 128 B → 12.5% / … 섹터 32개, 512 B → 50.0% / PASS: …
""")
md(r"""
### 4.7 최적화 버전 `regblock_opt`: 패딩과 명시적 FMA

레지스터 블로킹 커널의 "최적화 버전"에는 자주 두 가지가 더해집니다: (1) `As[BM][BK+1]`, `Bs[BK][BN+1]` +1 패딩, (2) 인라인 PTX `fma.rn.f32`. 우리 `regblock_opt.py` 는 (2)를 `cuda.fma(a, b, c)` 로 씁니다.

**(1) 패딩이 실제로 바꾸는 것.** 뱅크 충돌은 **한 워프의 한 요청** 안에서만 생깁니다(노트북 06). `rA[m] = As[thread_row + m, k]` 에서 `m` 은 명령마다 상수이므로, 한 요청에 함께 들어가는 것은 워프 안의 `ty = 2w, 2w+1` 두 스레드 행, 즉 `As` 의 **8행 떨어진** 두 행입니다.
""")
code(r"""
for pad in (0, 1):
    width = rb.BK + pad                                    # 행 하나의 워드 수
    rows = [0 * rb.TM, 1 * rb.TM]                          # 워프 0 의 ty = 0, 1 이 m = 0 에서 읽는 행
    print(f"As[{rb.BM}][{width}]: 워프 0 이 m=0, k=0 에서 함께 읽는 행 {rows} → 뱅크 {[(r * width) % 32 for r in rows]}")
# 예상 출력: As[128][8]: … 행 [0, 8] → 뱅크 [0, 0] (2-way) / As[128][9]: … 행 [0, 8] → 뱅크 [0, 8]
""")
md(r"""
(`As[0][k]` 와 `As[4][k]` 가 같은 뱅크라 패딩이 필요하다는 설명도 보이는데, 그 둘은 같은 스레드가 **다른 명령**(m = 0, m = 4)으로 읽으므로 한 요청에 함께 들어가지 않습니다.)

이제 두 커널을 시뮬레이터에서 실제로 돌려 **모든** 공유 메모리 접근을 기록하고, 워프 요청마다 웨이브프론트 수를 뱅크 모델로 셉니다 (노트북 06과 같은 방법). 한 요청의 웨이브프론트가 n 이면 그 요청은 n 사이클 동안 공유 메모리를 차지합니다(n-way 충돌).
""")
code(r"""
wf = {"regblock": L7.bank_rows(t_rb),
      "regblock_opt": L7.bank_rows(tr[("regblock_opt", rb.BM, rb.BN, rb.BK)])}       # 3.3절 셀에서 함께 기록한 것
for name, rows in wf.items():
    print(L7.bank_lines(name, rows))
# 예상 출력: regblock: As load 최대 2 (2-way), Bs load 최대 4 (4-way), As store 1 … / regblock_opt: As load 1, Bs load 4, As store 2
""")
md(r"""
**우리 커널에서 실제로 참인 것:**

* `rA` 읽기(`As`): 패딩 없이 **2-way** 충돌(8행 떨어진 두 행 = 64 워드 차이 = 같은 뱅크). 패딩(행 9 워드)이면 72 워드 차이 → 뱅크 8 차이 → 충돌 없음.
* `rB` 읽기(`Bs`): 스레드 `tx` 가 워드 `8·tx + n` 을 읽으므로 tx, tx+4, tx+8, tx+12 가 같은 뱅크 → **4-way 충돌**, 패딩과 무관하게 남습니다 (행 끝 패딩은 한 행 **안**의 배치를 바꾸지 못함). 4.7절 끝의 뱅크 위젯에서 접근 "rB: Bs[k][8·tx+n]" 을 골라 직접 볼 수 있습니다.
* 패딩은 `As` **저장**에 2-way 충돌을 새로 만듭니다(한 워프가 4행 × 8열을 쓰는데 행 간격 9워드).
* 합계: K 타일 하나·블록 하나의 공유 메모리 웨이브프론트를 워프 단위 FFMA 수와 비교합니다.
""")
code(r"""
warp_ffma = rb.BK * rb.TM * rb.TN * rb.THREADS // 32         # 블록 하나·K 타일 하나의 워프 FFMA 명령 수
wf_per_ffma = {}
for name, rows in wf.items():
    total = sum(r["total_wavefronts"] for r in rows.values())   # 읽기와 저장, 모든 워프 요청의 웨이브프론트
    wf_per_ffma[f"{name} (오프라인 SASS)"] = total / warp_ffma      # 4.10절: 올라간 커널과 구별하는 이름
    print(f"{name:13s} 웨이브프론트 {total} / 워프 FFMA {warp_ffma} = FFMA당 {total / warp_ffma:.3f}")
# 예상 출력: regblock 웨이브프론트 3136 / 워프 FFMA 4096 = FFMA당 0.766 / regblock_opt 2656 / 4096 = 0.648 (둘 다 {{wf_limit_h200}} 초과)
""")
md(r"""
웨이브프론트는 읽기와 저장을 모두 셉니다(노트북 06 4.8절과 같은 규칙). SM 하나는 한 사이클에 웨이브프론트 1개를 처리하고, 워프 단위 FFMA는 `FP32 레인 / 32` 개(H200·H100: {{ffma_clk_h200}}개, A100: {{ffma_clk_a100}}개)를 냅니다. 그래서 FFMA당 웨이브프론트가 그 역수(H200·H100: {{wf_limit_h200}}, A100: {{wf_limit_a100}})를 넘으면 **공유 메모리가 먼저 한계**에 닿습니다. 두 커널 모두 어느 쪽 값도 넘습니다. 이 상한을 4.10절에서 측정값과 비교합니다.

**(2) 명시적 FMA 가 바꾸는 것.** 노트북 06에서 본 대로 NVVM 은 `acc += a*b` 를 이미 `fma.rn.f32` 로 합칩니다(contraction). 두 커널의 PTX와 SASS를 비교합니다.
""")
code(r"""
from kernels_numba.tools import offline
mix, ffma = {}, {}
for k in ("regblock", "regblock_opt"):
    c = offline.ptx_counts(offline.compile_kernel(k, (8, 0))["ptx"])         # GPU 없이 만든 sm_80 PTX 의 명령 수
    mix[k] = {op: c[op] for op in ("fma.rn.f32", "mul.rn.f32", "add.rn.f32", "mul.f32", "add.f32")}
    sass_k = resources.report(k, (9, 0))
    loop = L7.loop_stats(resources.inner_loops(sass_k["sass_text"])[0])      # sm_90 SASS 의 k 루프
    ffma[k] = (loop["FFMA"], sass_k["ffma"])
    print(f"{k:13s} PTX {mix[k]} | SASS k 루프 FFMA {loop['FFMA']}/{loop['n']} 명령, 커널 전체 FFMA {sass_k['ffma']}")
print("PTX 명령 구성과 FFMA 수가 같은가:", mix["regblock"] == mix["regblock_opt"] and ffma["regblock"] == ffma["regblock_opt"])
# 예상 출력: 두 줄의 PTX 개수가 같음 (fma.rn.f32 128, mul.f32 128), k 루프 FFMA 는 같고 명령 수만 다름 (regblock_opt 쪽이 많음), 전체 FFMA 128 / … True
""")
md(r"""
* 두 커널의 PTX 명령 구성이 **같습니다**: `regblock` 의 `rC[m, n] += rA[m] * rB[n]` 이 이미 `fma.rn.f32` 입니다. 명시적 FMA로 얻을 것이 없습니다 (SASS의 FFMA 수도 같고, 명령 수 차이는 FFMA가 아닌 명령 — 패딩으로 바뀐 주소 계산 등 — 에서 옵니다).
* `fma.rn.f32` 128개 = 외적(펼쳐지지 않은 k 루프 한 번의 64) + 결과 저장의 `alpha·rC + beta·C`(64). `mul.f32` 128개도 결과 저장에 있습니다: `beta == 0` 길의 `alpha·rC` 64개와 `beta ≠ 0` 길의 곱셈 64개. 외적 루프에는 FMA 만 있습니다. (`mul.f32` 는 `.rn` 이 붙지 않은 곱셈이라 컴파일러가 뒤따르는 덧셈과 합칠 수 있는 형태입니다.)
* FFMA 하나가 FMUL + FADD 두 명령을 대신하므로 **명령 수**가 절반인 것은 맞지만, 우리 커널은 처음부터 FFMA만 씁니다. FFMA 가 "단일 사이클"이라는 말은 지연시간(latency)에 대해서는 맞지 않습니다: 의존하는 FFMA는 앞 결과를 여러 사이클 기다립니다(그래서 3.6절의 ILP가 필요). 이 노트북은 그 사이클 수를 재지 않으므로 숫자를 적지 않습니다.

아래 뱅크 위젯(노트북 06의 것)에 `regblock` 의 두 읽기를 더했습니다. 접근을 "rA: As[8·ty+m][k]" 또는 "rB: Bs[k][8·tx+n]" 으로 고르고 패딩, k, 스레드 타일 안의 위치(m 또는 n), 워프를 바꿔 보세요: `rB` 는 패딩을 몇으로 하든 한 뱅크에 서로 다른 워드 4개가 쌓이고(4-way), `rA` 는 패딩 1 이면 두 행이 갈라집니다.
""")
code(r"""
from course.widgets.banks import bank_explorer
rb_banks = bank_explorer(access="rB: Bs[k][8·tx+n] 읽기 (07 regblock, Bs[8][128])", column=0)
rb_banks
""")
md(r"""
### 4.8 우리의 최선 Level 3: `regblock_vec`

`regblock_vec.py` 는 같은 타일 크기(128 × 128 × 8, 스레드당 8 × 8)로, 공유 메모리 읽기의 웨이브프론트(4.7절: `rA` 의 2-way, `rB` 의 4-way 충돌, 32비트 읽기)를 줄이는 네 가지 변경을 합니다. `regblock_opt` 에서는 이것이 병목으로 보였습니다(3.6절: 대기 사이클의 가장 큰 몫이 공유 메모리 대기).

1. `As` 를 **전치**해서 저장합니다(`As[k][m]`, 행 간격 132 float). 스레드의 `rA` 8개가 연속 주소가 되어 16바이트 정렬된 **128비트 읽기(`LDS.128`)** 2번으로 읽힙니다.
2. 스레드의 열 8개를 `tx·4` 와 `64 + tx·4` 의 두 묶음으로 나눕니다. `rB` 도 `LDS.128` 2번이고, 반 워프의 16 스레드가 연속한 256 B를 읽어 `tx·8` 배치의 4-way 충돌이 사라집니다.
3. k 루프를 인라인 장치 함수(device function) 호출 8번으로 **완전히 펼칩니다** — Numba에는 `#pragma unroll` 이 없기 때문입니다.
4. 스레드·블록 번호를 부호 없는 정수(`uint32`)로 만들어 음수 인덱스 처리 코드(`SEL`)를 없애고, 행렬 안쪽 블록은 타일 로드의 경계 검사를 건너뜁니다.
""")
code(r"""
cmp_names = ("regblock", "regblock_opt", "regblock_vec")
print(resources.markdown(resources.table(cmp_names, (9, 0)), columns=("name", "cc", "registers", "local_bytes",
      "shared_bytes", "ffma", "lds", "sts", "loop_total", "loop_ffma", "loop_lds")))
vl = L7.vec_loop()
print(vl)
# 예상 출력: 표 / regblock_vec: k 루프 0개, K 타일 루프 … FFMA 512 … 사슬 최대 8 / SASS의 SEL: {… 'regblock_vec': 0}
""")
md(r"""
표의 `shared_bytes` 는 sm_90 cubin 이 보고한 값으로, 커널이 선언한 공유 메모리보다 1,024 B 큽니다. 블록마다 예약되는 1 KiB(3.5절)와 같은 크기이지만, 둘이 같은 것이라고 이 노트북이 보인 것은 아닙니다(노트북 06 4.2절의 심화). 점유율에는 선언한 바이트를 넣습니다.

`regblock_vec` 에는 k 루프가 없습니다(K 타일 루프 하나에 FFMA 512 = 8 × 64). 의존 사슬이 8 인 것은 k 8단계가 같은 `rC` 64개에 차례로 누적하기 때문이고, 한 단계(사슬의 고리 하나)의 FFMA 64개는 서로 다른 `rC` 에 쓰므로 서로 독립입니다. 이제 한 k 단계에서 워프는 `LDS.128` 4번(`rA` 2번, `rB` 2번)만 냅니다. 128비트 요청이 웨이브프론트 몇 개인지는 문서화된 규칙이 없어서(노트북 06), 뱅크 모델의 두 가정(`phases`: 8 스레드씩 4단계로 나눠 처리, `words`: 요청한 워드 수로 계산)의 값을 나란히 봅니다 (증명된 위아래 한계가 아닙니다: 노트북 06 에서 잰 한 경우는 두 값 사이였습니다). 4.7절과 같은 규칙으로 타일의 **저장** 웨이브프론트도 더합니다(시뮬레이터 기록).
""")
code(r"""
vw = L7.vec_wavefronts()
print(vw)
wf_per_ffma.update(vw["per_ffma"])
# H200·H100 (워프 FFMA {{ffma_clk_h200}}개/사이클): {{wf_limit_h200}} 웨이브프론트/FFMA 이하면 FP32 피크까지 공유 메모리가 버팀
for name, v in vw["per_ffma"].items():
    print(f"{name}: 공유 메모리가 허락하는 FP32 피크의 몫 = min(1, 0.25 / {v:.3f}) = {min(1, 0.25 / v):.0%}")
# 예상 출력: 'phases' 읽기 0.250 + 저장 0.016 = 0.266 → 94% / 'words' 읽기 0.094 + 저장 0.016 = 0.109 → 100%
""")
md(r"""
### 4.9 실행하고 검증하기

세 커널을 128 과 8 의 배수가 **아닌** 모양을 포함해 numpy와 비교합니다. C를 NaN으로 채우고 `beta = 0` 으로(그러면 C를 읽지 않아야 함), 그리고 `alpha, beta ≠ (1, 0)` 으로. 검사 함수 `L7.close` 는 결과에 NaN이 하나라도 있으면 실패합니다 — 최댓값 오차만 보는 검사는 NaN 을 놓칠 수 있으므로(`nan > tol` 은 거짓) 먼저 그것부터 확인합니다.
""")
code(r"""
import numpy as np
bad = np.ones((4, 4), np.float32)
bad[2, 3] = np.nan
print("NaN 이 하나 섞인 결과가 검사를 통과하는가:", L7.close(bad, np.ones((4, 4)), 4))
shapes = [(1, 1, 1), (130, 70, 21), (64, 200, 8), (128, 128, 16)]
for name, ok in L7.verify(cmp_names, shapes).items():
    bad_shapes = [k for k, v in ok.items() if not v]
    print(f"{name:13s} {'PASS' if not bad_shapes else 'FAIL ' + str(bad_shapes)} ({len(ok)}가지) — {kn.get(name).description}")
# 예상 출력: … 통과하는가: False / regblock, regblock_opt, regblock_vec 모두 PASS (5가지)
""")
md(r"""
### 4.10 성능: cuBLAS와 나란히

성능은 같은 실행에서 cuBLAS SGEMM(CuPy, TF32 끔)과 나란히 재고 **비율**로 말합니다. 아래 셀은 기록된 값을 보여 주고(아래 설명이 말하는 수치), GPU가 있으면 지금 이 GPU 에서도 재서 그 아래에 나란히 놓습니다: GPU 의 FP32 피크와 기록된 커널 속도로 걸릴 시간을(아직 컴파일하지 않은 커널의 컴파일까지) 어림해 셀이 약 {{budget_s}}초 안에 끝나도록 큰 크기는 건너뛰고(건너뛴 크기와 이유를 출력), 진행 막대가 (크기, 커널)마다 움직입니다. 노트북 06의 `tiled` 는 06의 기록(같은 H200, 같은 날의 다른 실행; 비율은 각 실행의 cuBLAS 대비)에서 가져옵니다.
""")
code(r"""
from course import measure
live = measure.benchmark(kernels=["tiled", *cmp_names]) if measure.have_gpu() else None   # 크기: GPU 속도로
print(f"기록(recorded) — {rec.gpu} {rec.date} (tiled: 노트북 06 기록)")
bt = L7.bench_table(L7.bench_rows(rec, course.recorded(), cmp_names))
print(bt)
val, n_big = bt["val"], max(n for _, n in bt["val"])
print(f"{n_big}³: regblock / tiled = {val[('regblock', n_big)][0] / val[('tiled', n_big)][0]:.2f}배, "
      f"regblock_opt / regblock = {val[('regblock_opt', n_big)][0] / val[('regblock', n_big)][0]:.3f}, "
      f"regblock_vec / regblock = {val[('regblock_vec', n_big)][0] / val[('regblock', n_big)][0]:.2f}배")
if live:                                             # 지금 이 GPU: 같은 표와 비율 (그 GPU 에서 잰 가장 큰 크기)
    print(L7.live_bench(live, cmp_names))
""")
md(r"""
이 기록({{gpu}}, {{date}}; 크기마다 벤치마크 한 번: 연속 launch 묶음 {{bench_groups}}개의 중앙값)에서:

* 기본 구조의 `regblock` 은 {{n_mid}}³·{{n_big}}³ 에서 cuBLAS 의 {{pct_regblock_2048}}%·{{pct_regblock_4096}}%, `tiled` 의 {{rb_over_tiled_2048}}배·{{rb_over_tiled_4096}}배입니다. {{n_small}}³ 에서는 {{pct_regblock_1024}}% 로 `tiled` 의 {{rb_over_tiled_1024}}배뿐입니다: {{rb_bm}} × {{rb_bn}} 블록 타일이면 {{n_small}}³ 은 블록 {{blocks_small}}개라, {{gpu}} 의 SM {{sm_count}}개를 다 채우지 못합니다.
* 패딩과 명시적 FMA를 넣은 "최적화 버전" `regblock_opt` 는 세 크기 모두에서 `regblock` 보다 **느립니다**. 4.7절에서 본 대로 명시적 FMA는 아무것도 바꾸지 않고, 패딩은 `rA` 충돌을 없애는 대신 `As` 저장 충돌을 만들며, 아래 심화가 보여 주듯 128비트 읽기도 막습니다.
* 우리의 `regblock_vec` 은 {{n_mid}}³·{{n_big}}³ 에서 {{pct_regblock_vec_2048}}%·{{pct_regblock_vec_4096}}%, {{n_small}}³ 에서는 {{pct_regblock_vec_1024}}% 입니다. (레지스터 블로킹이 "cuBLAS 의 50–70%" 에 이른다는 소개도 보이는데, 우리 기록에서는 커널과 크기에 따라 그 범위의 아래이거나 위입니다.)

**공유 메모리 상한과 측정.** 4.7–4.8절의 FFMA당 웨이브프론트(읽기 + 저장)로 공유 메모리 상한을 계산해 측정과 나란히 놓습니다. 한 가지 주의: H200 에 실제로 올라간 `regblock` 은 GPU 드라이버가 다시 컴파일한 것이라 공유 메모리 읽기 명령이 오프라인 SASS 와 다릅니다(`rB` 를 `LDS.128` 두 번으로 읽고, 32비트 `LDS` 가 하나 더 있음). 아래 셀은 그 경우도 같은 모델로 계산하되, k 단계마다 `rA` 의 `LDS` 8개와 `rB` 의 `LDS.128` 2개만 셉니다. 그 차이 자체는 이어지는 심화에서 봅니다.
""")
code(r"""
wf_per_ffma.update(L7.loaded_regblock_wavefronts(wf["regblock"]))   # 올라간 regblock: rB 를 LDS.128 두 번으로
f = rec["device_facts"]
ffma_clk = f["fp32_lanes_per_sm"] // 32                               # SM 하나가 사이클당 내는 워프 FFMA (H200: 4)
peak = f["sm_count"] * f["fp32_lanes_per_sm"] * 2 * f["max_sm_clock_mhz"] * 1e6 / 1e12
print(f"FP32 피크 {peak:.1f} TFLOP/s (기록된 SM 수·클록), cuBLAS {n_big}³ {val[('cuBLAS', n_big)][0]:.1f} TFLOP/s")
for name, wpf in wf_per_ffma.items():                                 # 공유 메모리는 사이클당 웨이브프론트 1개
    bound = peak * min(1, 1 / (wpf * ffma_clk))
    print(f"{name:32s} FFMA당 웨이브프론트 {wpf:.3f} → 상한 {bound:5.1f} TFLOP/s | 측정 {n_big}³ {val[(name.split()[0], n_big)][0]:5.1f}")
# 예상 출력: FP32 피크 66.9 … / 커널마다 FFMA당 웨이브프론트 → 공유 메모리 상한 TFLOP/s | 측정 4096³ …
""")
md(r"""
* `regblock_opt` 의 측정은 공유 메모리 상한 아래에 있고, 3.6절의 기록에서 대기의 가장 큰 몫이 MIO(주로 공유 메모리) 대기입니다: 이 커널은 공유 메모리 읽기에 묶여 있다고 해석합니다.
* H200 에 올라간 `regblock` 의 상한(두 가정에 따라 위 셀의 두 줄)은 측정({{n_big}}³ 에서 {{tf_regblock_4096}} TFLOP/s)보다 한참 높습니다. `regblock` 의 한계는 공유 메모리 웨이브프론트가 아니라 다른 곳(펼쳐지지 않은 k 루프의 나머지 명령, 배리어, 글로벌 메모리 대기 등)에 있다고 보이지만, 두 가지를 남겨 둡니다: 이 상한은 아래 심화의 아홉 번째 `LDS` 를 세지 않은 값이고(그 읽기가 k 루프 안에 있다면 실제 상한은 그 웨이브프론트만큼 낮음), 이 기록에는 `regblock` 의 스톨(stall) 측정이 없어 한계가 어디인지는 말할 수 없습니다. 모델은 상한일 뿐 예측이 아닙니다.
* `regblock_vec` 의 공유 메모리 상한은 두 가정에 따라 위 셀의 `regblock_vec (words)`·`regblock_vec (phases)` 두 줄이고, 4.8절 셀이 같은 상한을 FP32 피크의 몫으로 보여 줍니다. 측정은 둘 다보다 훨씬 아래라 남은 차이는 다른 곳에 있습니다. 아래 셀이 3.6절의 기록({{ncu_n}}³)에서 `regblock_vec` 의 큰 몫을 다시 꺼내고, 스케줄러가 명령을 낸 사이클의 비율을 어림합니다.
""")
code(r"""
v = rec["ncu_stalls"]["metrics"]["regblock_vec"]
print("regblock_vec:", ", ".join(f"{k} {v['percent'][k]:.1f}%" for k in
                                 ("not_selected", "long_scoreboard", "barrier", "dispatch_stall")))
total = sum(v["cycles_per_issue"].values())   # 명령 하나당 워프-사이클 = 평균 워프 수 × (전체 사이클 ÷ 명령을 낸 사이클)
per_sched = L7.mean_warps(rec, "regblock_vec")       # 스케줄러당 평균 워프: 그리드가 SM 자리를 다 채우는가
print(f"스케줄러당 평균 {per_sched:.2f}워프 ÷ {total:.2f} = 사이클의 약 {100 * min(1, per_sched / total):.0f}% 에 명령을 냄")
# 예상 출력: regblock_vec: not_selected {{vec_not_selected}}%, long_scoreboard {{vec_long_scoreboard}}%, barrier {{vec_barrier}}%, dispatch_stall {{vec_dispatch_stall}}%
#            스케줄러당 평균 {{vec_warps}}워프 ÷ {{vec_cpi}} = 사이클의 약 {{vec_issue}}% 에 명령을 냄
""")
md(r"""
* 가장 큰 몫은 `not_selected`({{vec_not_selected}}%)이고, 기다린 이유로는 글로벌 메모리 대기 `long_scoreboard` {{vec_long_scoreboard}}%, `barrier` {{vec_barrier}}%, `dispatch_stall` {{vec_dispatch_stall}}% 가 큽니다. `dispatch_stall` 은 3.6절 표에 없던 이유로, 스케줄러가 명령을 골랐지만 디스패치(dispatch) 단계가 그 명령을 받아 주지 못해 기다린 사이클입니다.
* 명령 하나당 워프-사이클의 합 = (스케줄러의 모든 워프-사이클) ÷ (낸 명령 수) = (평균 워프 수) × (전체 사이클 ÷ 명령을 낸 사이클) 입니다. 스케줄러는 명령을 낸 사이클마다 명령을 정확히 하나 내므로(`selected` 가 명령당 정확히 1) 낸 명령 수가 곧 명령을 낸 사이클 수이고, 그래서 평균 워프 수를 그 합으로 나누면 명령을 낸 사이클의 비율이 됩니다. 합({{vec_cpi}})이 스케줄러에 올라갈 수 있는 워프 수보다 큰 것은 명령을 내지 못한 사이클에도 워프-사이클이 쌓이기 때문입니다. 스케줄러에는 SM당 2블록이면 4워프까지 올라가지만, {{ncu_n}}³ 의 그리드는 블록 {{vec_grid}}개라 {{vec_slots}}자리를 다 채우지 못해 평균 {{vec_warps}}워프입니다 (`L7.mean_warps`: 블록마다 걸리는 시간이 같다고 봄). 그래서 약 {{vec_issue}}% 입니다. 블록마다 시간이 조금씩 다른 것은 무시한 어림입니다(노트북 08 4.9절이 다른 커널에도 같은 계산을 합니다).
* 글로벌 메모리 대기를 연산 뒤에 숨기는 것이 다음 노트북(더블 버퍼링)의 주제입니다.

<details><summary>심화: 오프라인 SASS 와 GPU 에 올라간 SASS 는 왜 다른가</summary>

GPU 없이 컴파일한 SASS(nvJitLink, CUDA 13)와, 같은 커널을 H200 에서 Numba 가 드라이버로 올렸을 때의 SASS(기록)는 컴파일 경로가 달라 명령 선택이 다를 수 있습니다. 바로 아래 셀이 세 커널의 공유 메모리 읽기 명령을 두 쪽에서 셉니다. 올라간 `regblock` 의 `LDS.128` 2개는 워드 8개입니다. 한 스레드가 k 단계마다 읽는 워드 가운데 주소가 이어진 8개는 `rB` 뿐이므로(`Bs[k, thread_col + n]`, `thread_col = tx * TN` 이라 배열 안에서 32 B 의 배수 위치에서 시작함. `rA` 의 `As[thread_row + m, k]` 는 행 하나가 BK = 8 워드라 32 B씩 떨어져 있음) 이것은 `rB` 를 128비트로 읽은 것입니다. 32비트 `LDS` 는 9개로 `rA` 의 8개보다 **하나 많습니다**. 이 기록에는 명령 종류별 개수만 있고 SASS 본문은 없어서, 아홉 번째가 무엇을 읽는지, k 루프 안에 있는지는 이 노트북에서 보일 수 없습니다. 위의 상한 계산이 그것을 세지 않은 까닭입니다. 이처럼 두 SASS 는 다를 수 있으므로, 성능을 설명할 때는 **측정한 GPU 에 실제로 올라간 SASS** 를 보고, 오프라인 SASS 는 구조(루프, 의존 사슬, 스필)를 보는 데 씁니다.
</details>
""")
code(r"""
print(L7.lds_loaded_vs_offline(rec))        # 심화: 기록된 H200 SASS 대 오프라인 sm_90 SASS 의 LDS 명령
""")
md(r"""
<details><summary>심화: Python 에서 launch 한 번은 얼마인가 — 작은 행렬이 느려 보이는 이유</summary>

`launch(A, B, C)` 한 번은 GPU 에 일을 맡기기 전에 호스트(CPU)에서 시간이 듭니다: 입력 검사, 그리고 Numba 의 디스패치(dispatch: 인자의 타입 확인, 실행 설정, 드라이버 호출). 그동안 GPU 는 앞서 맡은 커널을 계속 실행합니다. 커널이 이 시간보다 길면 Python 이 앞서 나가 다음 커널을 미리 줄 세우므로 GPU 는 쉬지 않습니다. 커널이 더 짧으면 GPU 는 다음 launch 를 기다리며 놀고, 루프 한 번의 시간은 커널이 아니라 **Python 의 launch 비용**이 됩니다:

호출 한 번의 시간 ≈ max(커널의 GPU 시간, launch 한 번의 호스트 시간)

그래서 작은 행렬은 Python 에서 재면 실제 커널보다 느려 보입니다. 아래 셀은 `regblock_vec` 을 이 GPU 에서 약 {{lc_targets}} µs 가 걸리는 크기로 골라 잽니다 (GPU 가 없으면 {{lc_gpu}} 의 기록, {{lc_date}}). 열은 차례로 커널 자체의 시간(CUDA 그래프로 잰, Python 이 끼지 않는 시간), `launch` 한 번의 호스트 시간, 커널을 Numba 로 직접 불렀을 때(입력 검사 없이 디스패치만)의 호스트 시간, Python 루프에서 한 번에 걸린 시간, GPU 가 쉰 비율, CUDA 그래프를 다시 실행할 때 launch 하나당 호스트 시간입니다.

첫째 열(CUDA 이벤트)과 넷째 열(Python 루프를 `perf_counter` 로 잼)도 따로 잰 값이라, 몇 % 안에서 서로 흔들립니다.{{lc_loop_under}} 둘째와 셋째 열은 **따로 잰 두 측정**입니다(각각 연달아 부른 호출 한 묶음의 평균). 셋째 열은 둘째 열의 일부가 아니고, 한 묶음의 호스트 시간은 그동안 호스트에서 일어난 다른 일(다른 프로세스, Python 의 가비지 컬렉션 등)에 따라 흔들립니다. 그래서 셋째 열이 둘째 열보다 큰 행도 있고(기록에서는 최대 {{lc_raw_over}} µs), 둘의 차이를 입력 검사의 비용으로 읽으면 안 됩니다. 그 비용은 같은 기록의 벤치마크(`benchmarks/launch_cost.py`: 세 방식을 번갈아 잰 묶음 {{lc_batches}}개의 중앙값)가 따로 재며, launch 와 Numba 만의 차이는 커널에 따라 {{lc_check_lo}} µs 에서 {{lc_check_hi}} µs 사이입니다{{lc_negative}}.

줄이는 방법은 두 가지입니다.
* **CUDA 그래프(CUDA graph)**: launch 여러 개를 한 번 기록(capture)해 두고 통째로 다시 실행합니다. 호스트는 그래프 하나만 맡기므로 launch 하나당 호스트 시간이 마지막 열로 줄어듭니다. 이 과정의 벤치마크(`course.bench`)도 launch 비용이 커널보다 긴 행은 이렇게 잽니다.
* **묶기(batching)**: 작은 행렬곱 여러 개를 커널 하나가 계산하게 해(batched GEMM: 격자의 한 차원으로 행렬을 고름) launch 횟수 자체를 줄입니다.
</details>
""")
code(r"""
rows = measure.launch_costs() if measure.have_gpu() else None          # GPU: 지금 잼 (몇 초)
lc = course.recorded("launch_cost_h100")                                 # 없으면: H100 기록
print("\n".join(measure.launch_cost_lines(rows or lc["lesson"], where=None if rows else f"기록: {lc.gpu}, {lc.date}")))
# 예상 출력: 크기마다 한 줄. 가장 작은 크기는 루프의 1회가 커널보다 길어 GPU 가 쉬는 비율이 크고, 3 ms 커널은 0% 근처
""")
md(r"""
## 5. 왜 이것이 작동하는가?

<details><summary>질문 1: 산술 강도가 정확히 2.0 이고 BK 와 무관한 이유는?</summary>

k 단계 하나에서 스레드는 16개(64 B)를 읽고 FMA 64번(128 FLOP)을 합니다: 128 / 64 = 2.0 (3.1절 기록과 모델이 정확히 일치). BK = 8 단계 전체는 읽기 128개(512 B)에 FMA 512번(1024 FLOP)으로 비율이 같습니다(3.3절 추적기: 외적 읽기 128, FMA 512). 비율을 바꾸는 것은 TM, TN 뿐입니다.
</details>

<details><summary>질문 2: 외적이 내적보다 재사용이 좋은 이유는?</summary>

같은 64 출력·같은 FMA 수에서 외적은 k 단계마다 값을 한 번 읽어 레지스터에서 8번 쓰고(`rA[m]` 은 TN번, `rB[n]` 은 TM번), 내적 순서는 FMA마다 두 값을 새로 읽습니다: K 타일 하나에 읽기 128 vs 1024 (3.3절). 레지스터 재사용에는 공유 메모리 요청이 전혀 들지 않습니다.
</details>

<details><summary>질문 3: A_TILE_ROW_STRIDE = 32 의 의미는?</summary>

`As` 의 한 행(8 원소)을 8 스레드가 맡으므로 256 스레드는 한 패스에 256 / 8 = 32행을 채우고, 다음 패스는 32행 아래에서 시작합니다. 128행은 4 패스 = 스레드당 4번 로드. 4.4절에서 이 지도가 타일을 정확히 한 번씩 덮고, 실제 커널이 기록된 저장과 일치함을 확인했습니다 (`tid = 13` → `As[1][5], As[33][5], As[65][5], As[97][5]`).
</details>

<details><summary>질문 4: 점유율 25% 인데 왜 빠른가?</summary>

(1) FMA당 공유 메모리에서 읽는 값(4 B)이 tiled 의 2개에서 0.25개로 줄었습니다(3.1절; 컴파일된 tiled 는 LDS.128 로 읽기 명령 수를 줄이지만, 읽는 값의 수는 그대로입니다). (2) k 단계의 FFMA 64개가 서로 다른 누산기에 써서 서로 독립이므로(3.6절 SASS: 의존 사슬 1), 스케줄러당 4워프만으로도 FFMA를 연달아 낼 수 있습니다(ILP). 반면 tiled 는 100% 점유율이지만 스레드당 누산기가 하나라 FFMA 사이에는 ILP가 없습니다(3.6절: 의존 사슬의 길이 = FFMA 수). 4.10절의 측정 비율이 결과입니다.
</details>

<details><summary>질문 5: 루프를 펼치지 않으면 왜 느려지는가? 우리 커널은 어떤가?</summary>

루프가 남으면 반복마다 카운터·비교·분기 명령이 발행 슬롯을 쓰고, 인덱스가 상수가 아니면 `rA`/`rB`/`rC` 를 레지스터에 둘 수 없습니다(로컬 메모리로 감). 우리 커널에서 `m`, `n` 루프는 완전히 펼쳐져 `rC` 가 레지스터에 있지만(로컬 0 B), `k` 루프는 남아 있어 반복마다 FFMA 64개 외의 명령이 있습니다(4.5절). 얼마나 느려지는지는 이 강좌에서 따로 측정하지 않았으므로 숫자로 말하지 않습니다.
</details>

## 6. 시뮬레이션 7: 외적 연산 추적기

### 6.1 축소 버전: TM = TN = 4, 한 단계씩

`rA = [a0..a3]`, `rB = [b0..b3]` 를 읽었다고 하고 외적 순서로 FMA를 진행합니다. 처음 여섯 FMA에서 무엇을 새로 읽는지, 그리고 끝난 뒤 `rC` 가 무엇인지 봅니다. 처음 네 FMA는 `rA[0]` 을 쓰면서 `rB` 를 하나씩 새로 읽고, 그다음부터는 행이 바뀔 때만 `rA` 를 하나 새로 읽습니다 (`rB` 는 이미 레지스터에 있습니다).
""")
code(r"""
from sim import outer
t4 = outer.OuterProductTracer(4, 4)
for _ in range(6):
    k, m, n = t4.step()
    s = t4.state()
    print(f"FMA {s.fmas:2d}: rC[{m}][{n}] += a{m}·b{n}  새로 읽음 {list(s.new_loads) or '없음'}, 누적 읽기 {s.loads}")
s4, i4 = t4.run(), outer.intensity(4, 4)
print("끝: rC[m][n] = a_m·b_n (m, n = 0..3) |", f"읽기 {s4.loads}개 = {i4['bytes']} B, FMA {s4.fmas}번 = {i4['flops']} FLOP → AI {i4['ai']:.2f}")
print("PASS: 읽기 TM + TN = 8, FMA TM·TN = 16" if (s4.loads, s4.fmas) == (8, 16) else "FAIL")
# 예상 출력: FMA 1 … 새로 읽음 [('A', 0), ('B', 0)] … / 끝: … 읽기 8개 = 32 B, FMA 16번 = 32 FLOP → AI 1.00 / PASS: …
""")
md(r"""
### 6.2 실제 버전 TM = TN = 8, 그리고 크기별 비교 표

`sim.outer.ai_table` 로 T = 1, 2, 4, 8, 16 과 비대칭 타일을 계산합니다. "데이터 레지스터"는 `rC + rA + rB` (값 하나를 흘려 쓰면 가능한 최소값도 함께)이고, 인덱스·주소용 레지스터는 여기에 더해집니다(3.4절: 그것은 ptxas 만 압니다).
""")
code(r"""
print(f"{'TM':>3s} {'TN':>3s} {'읽기':>5s} {'바이트':>6s} {'FMA':>5s} {'FLOP':>5s} {'AI':>6s} {'rC':>4s} {'데이터 레지스터':>14s}")
for r_ in outer.ai_table():
    print(f"{r_['TM']:3d} {r_['TN']:3d} {r_['loads']:5d} {r_['bytes']:6d} {r_['fmas']:5d} {r_['flops']:5d} {r_['ai']:6.3f} "
          f"{r_['acc_regs']:4d} {r_['data_regs']:7d} (최소 {r_['data_regs_min']})" + ("" if r_["fits"] else "  ← 255 초과: 스필"))
""")
md(r"""
* T 를 두 배로 하면 AI 도 두 배(T/4)지만, 누산기 레지스터는 네 배(T²)입니다. T = 8 (데이터 레지스터 80개)은 스레드당 255개 안에 여유 있게 들어가고, T = 16 은 AI 4.0 이지만 누산기만 256개라 스필합니다(3.4절의 `regblock_t16`).
* 표 아래쪽의 비대칭 타일(TM ≠ TN)은 6.4절에서 다룹니다.

### 6.3 산술 강도 그래프

정사각 타일은 AI = T/4 직선 위에 있고, 비대칭 타일은 같은 FMA 수(TM·TN)의 정사각 타일 위치(√(TM·TN))에 찍힙니다. 정사각 직선보다 아래에 있는 것이 보입니다.
""")
code(r"""
L7.show(L7.ai_figure())
""")
md(r"""
### 6.4 비대칭 타일: TM = 4, TN = 16

같은 FMA 64번을 8 × 8 대신 4 × 16 으로 나누면 무엇이 달라질까요? 먼저 읽기 수, 바이트, FMA 수, AI, 데이터 레지스터를 손으로 계산해 보고, 6.2절 표의 4 × 16 행과 비교하세요. 생각할 거리:

* 읽기는 TM + TN: 8 + 8 = 16 대 4 + 16 = 20 입니다. FMA 수가 같으니 AI 는 읽기에 반비례합니다.
* 누산기 `rC` 는 둘 다 64개, 그러나 `rA + rB` 는 16 대 20 입니다.
* 산술-기하 평균 부등식 `TM + TN ≥ 2·√(TM·TN)` 에서 등호는 TM = TN 일 때뿐입니다. 그래서 TM·TN 이 정해지면 **정사각 타일의 AI 가 가장 큽니다.**

데이터 레지스터는 위 표가 정확히 셉니다(80 대 84). 전체 레지스터는 3.4절처럼 컴파일해야 압니다(8 × 8 은 {{rb_regs_min}}개 이상).

## 7. 핵심 정리

* **레지스터 블로킹 = 스레드 코어스닝(thread coarsening)**: 스레드 하나가 8 × 8 = 64 출력을 레지스터 `rC` 에 듭니다. 블록 256 스레드 × 64 = 128 × 128 블록 타일.
* **산술 강도는 수준을 밝혀서**: 공유 메모리 → 레지스터 `TM·TN / (2·(TM+TN))`: tiled 0.25 → regblock 2.0 (기록으로 확인). 블록 단위 글로벌 → 공유는 `BM·BN / (2·(BM+BN))`: 4 → 32. 이것은 요청한 바이트 기준이라, 리지 포인트 위의 `regblock` 은 DRAM 기준으로도 위지만, 리지 아래의 `tiled` 가 DRAM 에 묶인다는 뜻은 아닙니다(노트북 06 4.8절).
* **외적**: k 단계마다 16번 읽고 64번 FMA, 값 하나를 레지스터에서 8번 재사용. TM·TN 이 같으면 정사각 타일의 AI 가 가장 큽니다(4 × 16: 1.6 < 8 × 8: 2.0).
* **레지스터는 컴파일러에서 읽는다**: 데이터 80개에 64비트 인덱스·주소가 더해져 {{rb_regs_min}}개 이상(3.4절의 ptxas·GPU 값). TM = TN = 16 은 컴파일되지만 레지스터 상한 안에서 할당되고 나머지는 로컬 메모리로 스필(`STL`/`LDL`).
* **점유율은 규칙으로**: 256 스레드 블록에서 81–128 레지스터는 모두 25% (할당 단위·서브파티션·블록 양자화). 공유 메모리는 블록마다 선언한 바이트 + 시스템 예약 1 KiB. 낮은 점유율의 대기는 독립 FFMA 64개의 ILP가 일부 메울 수 있습니다 (연산 파이프가 찬 것은 아닙니다: `regblock` 은 {{n_big}}³ 에서 FP32 피크의 약 {{pct_peak_regblock}}%).
* **결과 저장**: `alpha·rC + beta·C`, 경계 검사, `beta == 0` 이면 C 를 읽지 않음. 스레드당 8열씩 떨어진 4 B 저장은 32 B 섹터의 12.5% 만 씁니다.
* **패딩과 FMA**: +1 패딩은 `rA` 읽기의 2-way 충돌을 없애지만 `rB` 읽기의 4-way 충돌은 그대로이고 `As` 저장에 2-way 충돌을 만듭니다. 명시적 FMA는 PTX를 바꾸지 않습니다(이미 `fma.rn.f32`).
* **성능 ({{gpu}} 기록, 4.10절)**: `regblock` 은 {{n_mid}}³·{{n_big}}³ 에서 cuBLAS 의 {{pct_regblock_2048}}%·{{pct_regblock_4096}}%(`tiled` 의 {{rb_over_tiled_2048}}배·{{rb_over_tiled_4096}}배; {{n_small}}³ 에서는 {{rb_over_tiled_1024}}배), "최적화 버전" `regblock_opt` 는 그보다 느리고, 공유 메모리 읽기를 LDS.128 로 줄인 `regblock_vec` 은 {{n_mid}}³·{{n_big}}³ 에서 {{pct_regblock_vec_2048}}%·{{pct_regblock_vec_4096}}% ({{n_small}}³ 에서 {{pct_regblock_vec_1024}}%) 입니다.

## 8. 마스터리 체크포인트 퀴즈

8문항 중 6문항 이상이면 통과입니다. 제출하면 점수와 틀린 문항, 그 문항을 다시 읽을 절이 나옵니다. 정답과 해설은 통과한 뒤에 보입니다. 시도 기록은 로컬 진도 파일에 저장됩니다. 4번은 여러분의 답을 `regblock.py` 커널에 끼워 넣어 **실제로 실행**해서 채점합니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("07")
""")
md(r"""
## 9. 다음 단계 미리보기

지금 커널의 K 타일 루프는 **로드 → 배리어 → 연산 → 배리어** 가 차례로 일어납니다. **한 블록 안에서는** 글로벌 메모리에서 다음 타일을 가져오는 동안 그 블록의 FFMA가 멈추고, FFMA를 하는 동안 그 블록의 메모리 요청이 없습니다. SM 전체로 보면 같은 SM 의 다른 블록·워프가 그 빈틈을 일부 메웁니다 (점유율이 하는 일) — 한 블록 안에서 로드와 연산을 겹치는 것이 다음 노트북의 주제입니다. 다음 노트북(08, Level 4: 더블 버퍼링)은 공유 메모리 버퍼 두 개를 번갈아 쓰며 **다음 타일의 로드를 현재 타일의 연산과 겹치고**, 그 대가(공유 메모리 2배, 레지스터)와 이득을 파이프라인 모델과 실제 측정으로 비교합니다. 겹침이 정말 일어나는지는 소스가 아니라 SASS의 명령 순서가 정한다는 것도 보게 됩니다.
""")



def text():
    """The committed file's exact text."""
    return NB.text()


if __name__ == "__main__":
    NB.write()
    print("written", OUT, len(cells), "cells")
