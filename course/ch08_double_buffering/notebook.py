"""Generate notebooks/08_double_buffering.ipynb (no outputs, fixed cell ids): python -m course.ch08_double_buffering.notebook [--out PATH]."""
import argparse
import sys
from pathlib import Path
from course.nbgen import Notebook
from course.figures import fill, fill_comments, ratios, record
import kernels_numba as _kn
from sim import occupancy as _occ
from kernels_numba.tools import table as _table
from course.ch08_double_buffering import exercises as _ex08


OUT = Path(__file__).resolve().parents[2] / "notebooks" / "08_double_buffering.ipynb"
NB = Notebook("nb08", OUT)
cells = NB.cells

# Every measured figure in the prose comes from the record here (tests/test_recorded_figures.py checks none is typed).
REC34 = record("gpu_h200_levels34")
_R, _ST = ratios(REC34), REC34["ncu_stalls"]["metrics"]
_SIZES = sorted({n for _, n in _R})


def _warps(k):
    """Warps per scheduler, time-averaged over the profiled grid (as course.ch07_register_blocking.lesson.mean_warps)."""
    m, api, n = _kn.get(k).module, REC34["occupancy_api"][k], REC34["ncu_stalls"]["n"]
    return _occ.mean_warps_per_scheduler(-(-n // m.BM) * -(-n // m.BN), api["blocks_per_sm"], api["threads"] // 32,
                                         REC34["device_facts"]["sm_count"])


_USE = {k: _warps(k) / sum(v["cycles_per_issue"].values()) for k, v in _ST.items()}
_PAIRS = (("regblock_opt", "db"), ("regblock_opt", "db_ptx"), ("regblock_vec", "db_overlap"))
FIG = {"gpu": REC34.gpu, "date": REC34.date, "n_big": _SIZES[-1], "n_mid": _SIZES[-2], "n_small": _SIZES[0]}
for _s, _d in _PAIRS:
    for _n in _SIZES:
        FIG[f"pair_{_d}_{_n}"] = f"{_R[_d, _n] / _R[_s, _n]:.3f}"
    FIG[f"pair_lo_{_d}"] = f"{min(_R[_d, _n] / _R[_s, _n] for _n in _SIZES):.2f}"   # §4.8's expected output
    FIG[f"pair_hi_{_d}"] = f"{max(_R[_d, _n] / _R[_s, _n] for _n in _SIZES):.2f}"
for _k in ("db", "db_ptx", "db_overlap", "regblock_opt", "regblock_vec"):
    for _n in _SIZES:
        FIG[f"pct_{_k}_{_n}"] = f"{100 * _R[_k, _n]:.1f}"
    FIG[f"use_{_k}"] = f"{100 * _USE[_k]:.0f}"
    FIG[f"use1_{_k}"] = f"{100 * _USE[_k]:.1f}"                  # as L8.issue_use prints it (§4.9)
    FIG[f"cpi_{_k}"] = f"{sum(_ST[_k]['cycles_per_issue'].values()):.2f}"
    for _why, _v in _ST[_k]["percent"].items():
        FIG[f"st_{_k}_{_why}"] = f"{_v:.1f}"
FIG["regs_db"] = REC34["resources"]["db"]["registers"]
FIG["max_math_pipe"] = f"{max(v['percent']['math_pipe_throttle'] for v in _ST.values()):.1f}"
_N = REC34["ncu_stalls"]["n"]
FIG.update(ncu_n=_N, grid_blocks=(_N // _kn.get("db").module.BM) * (_N // _kn.get("db").module.BN),
           sms=REC34["device_facts"]["sm_count"], slots=REC34["device_facts"]["sm_count"] * REC34["occupancy_api"]["db"]["blocks_per_sm"],
           mean_warps=f"{_warps('db'):.2f}")
# 3.5's offline register counts of db: the committed kernel x target matrix (kernels_numba/infra/targets.json, made
# by compiling each kernel for each target; tests/ch08/test_lesson08.py checks it equals the cell's offline compile), and
# the occupancy they give (sim/occupancy.py), never typed

_DBROWS = {r["target"]: r for r in _table.load_targets()["rows"] if r["kernel"] == "db"}
_DBOCC = {g: _occ.occupancy(g, _DBROWS[_occ.GPUS[g].arch]["registers"], _DBROWS["sm_80"]["threads"],
                            _DBROWS["sm_80"]["smem_static"]) for g in ("A100", "H100", "H200")}
assert len({(o.blocks_per_sm, o.active_warps, o.percent) for o in _DBOCC.values()}) == 1, "3.5's prose: one figure"
# the register counts for which db gets the same blocks per SM on A100/H100/H200 with 1-3 buffer sets: the prose
# states this range (it holds for any compiler whose count falls in it), the cell shows this compiler's count
_SAME = [r for r in range(1, 256) if all(
    _occ.occupancy(g, r, _DBROWS["sm_80"]["threads"], S * _DBROWS["sm_80"]["smem_static"] // 2).blocks_per_sm
    == _DBOCC["A100"].blocks_per_sm for g in ("A100", "H100", "H200") for S in (1, 2, 3))]
assert _SAME == list(range(_SAME[0], _SAME[-1] + 1)) and all(_SAME[0] <= _DBROWS[t]["registers"] <= _SAME[-1]
                                                                 for t in ("sm_80", "sm_90"))
FIG.update(same_lo=_SAME[0], same_hi=_SAME[-1])
# the exercises' own cases (course/ch08_double_buffering/exercises.py), so the text cannot drift from what the checks run

_T8 = _ex08.T8
FIG.update(ex082_tiles=", ".join(f"{-(-k // _T8)}개" for _, _, k, _, _ in _ex08.DB_SHAPES),
           ex082_ks=", ".join(str(k) for _, _, k, _, _ in _ex08.DB_SHAPES),
           ex081_s_lo=min(S for _, S in _ex08.STAGE_CASES), ex081_s_hi=max(S for _, S in _ex08.STAGE_CASES))
assert all(k % _T8 for _, _, k, _, _ in _ex08.DB_SHAPES), "08-2's text: no K is a multiple of 8"
# 3.3: the barrier-less db on a GPU (compute-sanitizer racecheck, then plain runs: benchmarks/racecheck_gpu.py)
_RACE = record("racecheck_h100")
_RACE_DB = _RACE["cases"]["demo_db_no_loop_barrier"]
assert _RACE_DB["race_reports"] > 0 and 0 < _RACE_DB["wrong_runs"] < _RACE["runs"], \
    "3.3 says racecheck reports the race and the plain runs are sometimes right and sometimes wrong"
FIG.update(race_gpu=_RACE.gpu, race_date=_RACE.date, race_runs=_RACE["runs"], race_db_reports=_RACE_DB["race_reports"],
           race_db_right=_RACE["runs"] - _RACE_DB["wrong_runs"], race_db_wrong=_RACE_DB["wrong_runs"])
# the share double buffering alone adds (db_overlap ÷ regblock_vec), its range over the recorded sizes (§4.8)
_GAIN = {_n: _R["db_overlap", _n] / _R["regblock_vec", _n] for _n in _SIZES}
FIG.update(gain_list=", ".join(f"{_n}³ {_g:.3f}" for _n, _g in _GAIN.items()))
assert min(_GAIN.values()) >= 1, "§4.8's sentence says db_overlap is nowhere slower than regblock_vec"
FIG["idle1_db_overlap"] = f"{100 - float(FIG['use1_db_overlap']):.1f}"
FIG.update(regs_db_sm80=_DBROWS["sm_80"]["registers"], regs_db_sm90=_DBROWS["sm_90"]["registers"],
           nvjitlink=_table.load_targets()["toolchain"]["nvidia-nvjitlink"],
           db_blocks=_DBOCC["A100"].blocks_per_sm, db_warps=_DBOCC["A100"].active_warps,
           db_occ=f"{_DBOCC['A100'].percent:.0f}", db_smem_blocks_a100=_DBOCC["A100"].limits["shared memory"])


def md(s):
    """A markdown cell whose {{name}} fields are recorded figures (FIG)."""
    NB.md(fill(s, FIG))


def code(s):
    """A code cell; {{name}} fields in its comments (`# 예상 출력:`) are recorded figures (FIG), never typed."""
    NB.code(fill_comments(s, FIG))


md(r"""
# 08. Level 4 — 더블 버퍼링 (Double Buffering, 소프트웨어 파이프라이닝)

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 7문항 중 **6문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | 글로벌 메모리 지연시간(latency)을 연산 뒤에 숨기는 소프트웨어 파이프라이닝(software pipelining), 버퍼 2개의 교대(`kt % 2`), 프롤로그(prologue)·메인 루프·에필로그(epilogue), 반복당 `syncthreads` 한 번이 충분한 이유, 프리페치(prefetch)가 **한 워프 안에서** 정말 겹치는지 SASS 로 확인하기, PTX 캐시 힌트 `ld.global.ca` 가 실제로 바꾸는 것, 결과 저장과 벡터 저장, 공유 메모리 압박과 점유율(occupancy), 워프 스톨(warp stall) 분석 |
| **실행 환경** | GPU 없이 실행됩니다: NVIDIA GPU가 없으면 Numba CUDA 시뮬레이터가 자동으로 선택되고 화면에 그렇게 표시됩니다. SASS 는 GPU 없이 sm_80(A100)·sm_90(H100/H200)용으로 컴파일해서 읽습니다. compute capability(CC) 7.5 이상의 NVIDIA GPU가 있으면 GPU 모드가 선택되고, 이 노트북의 커널(Level 4)은 그런 GPU 어디서나 돌며 측정 셀이 실제로 잽니다. |
| **선수 노트북** | 06(공유 메모리 타일링: 배리어 두 번, 뱅크 충돌), 07(레지스터 블로킹: 8×8 외적 마이크로커널, 레지스터와 점유율). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나 측정한 값**입니다 (파이프라인·점유율 모델, GPU 없이 컴파일한 SASS, 시뮬레이터 실행). GPU 성능 수치는 실제 H200에서 **기록한 값(recorded)** 을 그렇다고 표시해서 보여 주고, GPU가 있으면 다시 잽니다.

긴 표를 만드는 도구(파이프라인 그림, 버퍼 표, SASS 순서, 점유율 비교, 측정 표)는 `course/ch08_double_buffering/lesson.py` 에, 일부러 틀리게 만든 커널은 `kernels_numba/demos/` 에 있습니다. 핵심 계산은 셀에 그대로 적고, 긴 표만 그 함수가 만듭니다. "심화" 표시가 붙은 부분은 건너뛰어도 본문을 따라가는 데 지장이 없습니다.
""")
code(r"""
import course
info = course.setup("08")                      # 장치를 고르고(GPU 또는 시뮬레이터) 배너를 보여 줍니다
import kernels_numba as kn
from course.ch08_double_buffering import lesson as L8
from kernels_numba.tools import resources
from sim import occupancy, outer, pipeline
DB = kn.get("db").module                        # 이 노트북이 가르치는 커널: kernels_numba/db.py
rec34 = course.recorded("gpu_h200_levels34")    # device 도구로 H200 에서 기록한 레벨 3·4 측정값
print("모드:", info["mode"], "| 기록:", rec34.gpu, rec34.date, f"| db: BM={DB.BM}, BN={DB.BN}, BK={DB.BK}, TM={DB.TM}, TN={DB.TN}, {DB.THREADS} 스레드")
""")
md(r"""
## 1. 학습 목표

이 노트북을 마치면 다음을 할 수 있습니다.

1. 글로벌 메모리 지연시간이 성능에 미치는 영향을 파이프라인 모델로 **정량적으로 분석**한다.
2. 더블 버퍼링의 파이프라인 구조(버퍼 교대, 프롤로그·메인 루프·에필로그)를 **설명**하고 **구현**한다.
3. 컴파일된 SASS 의 명령 순서로 프리페치가 한 워프 안에서 연산과 겹치는지 **판단**한다.
4. 공유 메모리를 두 배로 쓰는 것이 점유율에 미치는 영향을 실제 레지스터 수로 **계산**한다.
5. Nsight Compute 의 스톨 분석에서 지연시간 은닉(latency hiding) 효과를 **평가**한다.

## 2. 사전 복습

답을 먼저 떠올린 뒤 펼쳐 보세요.

1. 레지스터 블로킹의 외적(outer product) 마이크로커널은 데이터를 어떻게 재사용하는가?
2. 뱅크 충돌을 피하려고 행 끝에 덧붙이는 패딩(padding)은 보통 얼마이고, 노트북 06에서 본 주의점은?
3. 레지스터 블로킹 커널의 산술 강도(arithmetic intensity)는 어떻게 계산하는가?

<details><summary>사전 복습 정답</summary>

1. 스레드가 k 한 단계에서 `As` 의 한 열 조각 TM개를 `rA` 에, `Bs` 의 한 행 조각 TN개를 `rB` 에 올리고, `rA[m]` 하나를 TN번, `rB[n]` 하나를 TM번 씁니다: 공유 메모리 읽기 TM+TN 번으로 FMA TM·TN 번 (아래 셀이 계산).
2. 한 행에 4바이트 워드 하나(+1). 다만 노트북 06에서 본 것처럼 패딩의 효과는 **실제 워프의 접근 패턴**에 달려 있어서, 충돌이 없던 접근에 패딩을 넣으면 오히려 저장에 충돌이 생기거나 128비트 읽기를 막을 수 있습니다. 이 노트북의 `db` 는 널리 쓰이는 형태 그대로 `As[2][128][9]`, `Bs[2][8][129]` 로 +1 패딩을 씁니다.
3. 연산량 ÷ 옮긴 바이트를 **어느 메모리 수준에서** 세는지 밝혀서 계산합니다: 공유 메모리 → 레지스터(스레드, k 한 단계)와 글로벌 → 공유 메모리(블록, BK 타일 하나)가 다릅니다 (아래 셀).
</details>
""")
code(r"""
ai = outer.intensity(DB.TM, DB.TN)
blk = outer.block_intensity(DB.BM, DB.BN, DB.BK)
print(f"1. k 한 단계: 공유 메모리 읽기 {ai['loads']}번 → FMA {ai['fmas']}번 (rA 하나를 {ai['reuse_a']}번, rB 하나를 {ai['reuse_b']}번 사용)")
print(f"3. 산술 강도: 공유→레지스터 {ai['ai']} FLOP/B (스레드, k 한 단계), 글로벌→공유 {blk['ai']} FLOP/B (블록, BK 타일 하나)")
# 예상 출력: 1. ... 읽기 16번 → FMA 64번 ... / 3. 산술 강도: 공유→레지스터 2.0 FLOP/B ..., 글로벌→공유 32.0 FLOP/B ...
""")
md(r"""
## 3. 개념

### 3.1 지연시간 문제 (구체 → 표현 → 추상)

**구체 (Concrete).** 요리사(연산 유닛)가 재료(데이터)를 기다립니다. 재료 배달에 100분, 요리에 1분이 걸리는데 "주문 → 도착 → 요리 → 다음 주문" 순서로만 일하면 요리사는 거의 내내 기다립니다: 101분 중 100분, 99.0% 입니다. 해결책은 **지금 요리를 하면서 다음 재료를 미리 주문하는 것**입니다. GPU에서는 현재 타일로 계산하는 동안 다음 타일을 글로벌 메모리에서 미리 읽어 두는 것이 더블 버퍼링입니다.

**표현 (Representational).** 타일 하나의 로드에 8, 연산에 2 단위가 걸린다고 **가정**하고, 타임라인을 손으로 그리는 대신 파이프라인 모델(`sim/pipeline.py`)이 계산하게 합니다. 모델의 규칙: 로드 유닛 하나와 연산 유닛 하나, 타일 i 는 버퍼 `i % S` 에 들어가고, 버퍼는 그 버퍼를 읽는 연산이 끝난 뒤에야 다시 채울 수 있으며, 모든 일은 규칙이 허락하는 가장 이른 시각에 시작합니다. 아래 그림에서 숫자는 타일 번호, 한 글자가 1 단위 시간입니다.
""")
code(r"""
for S, name in ((1, "싱글 버퍼 (Level 3)"), (2, "더블 버퍼 (Level 4)")):
    print(f"{name}: 로드 8, 연산 2, 타일 3개")
    print(L8.gantt(pipeline.schedule(3, 8, 2, stages=S)))
tl4 = L8.bars(pipeline.schedule(4, 8, 2, stages=2))
print("더블 버퍼, 타일 4개:", tl4, sep="\n")
# 예상 출력: 싱글 버퍼 총 시간 30, 더블 버퍼 총 시간 26 / 타일 4개: … 총 34
""")
md(r"""
싱글 버퍼는 로드 → 연산 → 로드 …가 줄지어 3 × (8 + 2) = 30, 더블 버퍼는 로드가 쉬지 않고 이어지고 연산은 그 뒤에 숨어 8 × 3 + 2 = 26 입니다. 타일이 4개면 로드가 0, 8, 16, 24 에 시작하고 총 34 입니다.

이 예에서는 로드(8)가 연산(2)보다 길기 때문에, 숨겨지는 것은 **연산**이고 총 시간은 로드가 정합니다(N·8 + 2). "로드 시간 뒤에 연산이 완전히 숨겨진다" 가 정확한 표현입니다. 지연시간을 숨기려면 반대로 연산이 로드보다 길어야 합니다.

**추상 (Abstract).** 그러면 우리 커널에서 타일 하나의 연산은 얼마나 걸릴까요? 스레드의 누산기(accumulator) `rC` 64개는 서로 독립이라 FFMA 가 파이프라인으로 겹쳐 실행됩니다(노트북 07 3.6절). 그래서 연산 시간은 명령 하나의 지연시간이 아니라 **처리량(throughput)** 으로 셉니다: SM 의 FP32 레인(lane) 하나가 한 사이클에 FMA 하나. 블록의 K 타일 하나는 FMA BM·BN·BK 번이고, 이것을 SM 의 레인이 나눠 처리합니다. SM당 레인 수와 부스트 클록은 `sim/occupancy.py` 의 GPU 사양(아키텍처 백서; H200 의 값은 이 과정의 H200 에서 읽은 장치 정보와 같음, `tests/ch08/test_lesson08.py`)입니다.
""")
code(r"""
fmas_per_tile = DB.BM * DB.BN * DB.BK                       # 블록의 K 타일 하나
for g in L8.GPUS:
    spec = occupancy.GPUS[g]
    cycles = fmas_per_tile // spec.fp32_lanes_per_sm        # 레인 하나가 사이클마다 FMA 하나
    print(f"{g}: {fmas_per_tile:,} FMA ÷ SM당 FP32 레인 {spec.fp32_lanes_per_sm} = {cycles} 사이클 "
          f"= {cycles / spec.boost_clock_mhz * 1e3:.0f} ns ({spec.boost_clock_mhz} MHz)")
here = L8.tile_time_here()                                 # GPU 가 있으면 지금 이 GPU 의 값도
if here:
    print(here)
# 예상 출력: A100: 131,072 FMA ÷ 64 = 2048 사이클 … / H100, H200: ÷ 128 = 1024 사이클 …
""")
md(r"""
FP32 레인이 두 배인 H100/H200 에서는 같은 타일이 절반의 사이클에 끝납니다. 이 값은 FFMA 만 센, 블록 하나가 SM 을 혼자 쓸 때의 **최소 시간**입니다: LDS 같은 다른 명령도 발행 슬롯을 쓰고, SM 을 다른 블록과 나눠 쓰면 더 오래 걸립니다. ("FMA 지연시간 4 사이클 × 스레드당 512 FMA = 2048" 이라는 계산도 보이는데, 지연시간과 스레드 하나의 FMA 수를 곱한 것이라 뜻이 다르고, A100 에서 같은 수가 나오는 것은 우연입니다.)

글로벌 메모리 지연시간은 이 과정에서 재지 않았습니다. 6절에서 자주 인용되는 400 사이클을 **가정**으로 넣어 "이 지연시간이 숨겨지는가"를 판정합니다.

### 3.2 더블 버퍼 구조

공유 메모리를 **두 세트** 둡니다: `As[2][BM][BK+1]`, `Bs[2][BK][BN+1]`. 반복 `kt` 에서 버퍼 `kt % 2` 로 계산하고, 다른 버퍼 `(kt + 1) % 2` 에 다음 타일을 채웁니다. 식을 믿는 대신, **실제 커널**이 시뮬레이터에서 한 모든 공유 메모리 접근을 기록(`trace.shared_accesses`)해서, 스레드 0 이 어느 버퍼에 쓰고 어느 버퍼를 읽었는지로 표를 만듭니다 (K 타일 4개).
""")
code(r"""
bt = L8.buffer_table(n_tiles=4)
print(bt)
same = bt["table"] == [(kt, kt % 2, (kt + 1) % 2 if kt + 1 < 4 else None) for kt in range(4)]
print("PASS: 커널은 kt % 2 로 읽고 (kt + 1) % 2 에 쓰며, 마지막 반복은 미리 읽지 않는다" if same else "FAIL")
# 예상 출력: … kt 0 | 0 | 1 … kt 3 | 1 | - … / PASS: …
""")
md(r"""
읽기와 쓰기가 같은 반복 안에서 **서로 다른 버퍼**를 건드린다는 것이 핵심입니다. `As[2]` 의 `2` 가 버퍼 세트 수이고, 패딩 `+1` 은 노트북 07 의 `regblock_opt` 와 같은 배치입니다 (그 효과는 노트북 07 4.7절).

### 3.3 프롤로그 — 메인 루프 — 에필로그

```
[프롤로그]             [메인 루프: kt = 0 .. num_k_tiles-1]               [에필로그]
타일 0 → 버퍼 0        if kt+1 < num_k_tiles: 타일 kt+1 → 버퍼 (kt+1)%2    C = alpha·rC + beta·C
syncthreads()          버퍼 kt%2 로 계산 (rC += ...)
                       syncthreads()      ← 반복당 한 번
```

**프롤로그가 왜 필요한가?** 메인 루프는 타일 kt+1 만 미리 읽습니다. 타일 0 을 읽는 곳은 프롤로그뿐이므로, 빼면 kt = 0 이 아무도 채우지 않은 버퍼 0 으로 계산합니다 (이 과정의 시뮬레이터에서는 공유 메모리가 NaN 으로 시작하므로 결과가 NaN).

**배리어는 왜 반복당 한 번이면 되는가?** 한 반복 안에서는 쓰기(`next_buf`)와 읽기(`curr_buf`)가 다른 버퍼라 서로 부딪히지 않습니다. 남는 위험은 반복 **경계**를 넘는 두 가지뿐이고, 반복 끝의 배리어 하나가 둘 다 막습니다.

| 위험 | 상황 | 반복 끝 배리어가 없으면 |
|---|---|---|
| 쓰기 후 읽기 (RAW) | 반복 kt+1 은 반복 kt 에서 **다른 스레드들이** 채운 `next_buf` 로 계산 | 아직 채워지지 않은 원소를 읽음 |
| 읽기 후 쓰기 (WAR) | 반복 kt+1 은 타일 kt+2 를 `(kt+2) % 2 == curr_buf` 에 채움 | 느린 스레드가 아직 타일 kt 를 읽는 버퍼를 빠른 스레드가 덮어씀 |

배리어나 프롤로그를 빼면 정말 틀리는지 확인합니다. 틀린 커널 두 개는 `kernels_numba/demos/` 의 실제 모듈입니다: `db_no_loop_barrier.py` 는 반복당 배리어를, `db_no_prologue.py` 는 프롤로그의 타일 0 로드를 뺀 `db` 이고, 각 파일의 설명(docstring)이 무엇이 빠졌고 왜 틀리는지 적고 있습니다. 이 과정의 시뮬레이터는 블록의 스레드를 한 번에 하나씩 다음 배리어까지 실행하므로(Volta 이후 하드웨어에서도 허용되는 순서) 경쟁 상태(race condition)가 매번 같은 방식으로 드러납니다. GPU 에서는 타이밍이 결과를 정합니다: 작은 문제에서는 배리어 없는 `db` 도 **맞는 답**을 낼 때가 있습니다. {{race_gpu}} 의 기록({{race_date}}, `course/recorded/racecheck_h100.json`)에서 `db_no_loop_barrier` 를 작은 크기로 검사 없이 {{race_runs}}번 실행하면 {{race_db_right}}번은 맞는 답이었고 {{race_db_wrong}}번만 틀렸습니다. 같은 커널에서 `compute-sanitizer --tool racecheck` 는 경쟁 {{race_db_reports}}건을 보고했습니다. 그래서 GPU 에서는 블록이 많은 큰 크기로 여러 번 실행해 틀린 횟수를 세고, 그 옆에 시뮬레이터가 같은 커널에서 찾은 경쟁을 보여 줍니다: 결과(틀렸다)와 원인(어느 두 줄이 부딪혔는가)을 함께 봅니다.
""")
code(r"""
bv = L8.broken_variants()     # 시뮬레이터: 24×20×24 (K 타일 3개) / GPU: 큰 크기에서 여러 번 + 시뮬레이터의 경쟁 보고
print(bv)
# 예상 출력: (시뮬레이터) db 일치 True·NaN False / db_no_loop_barrier 일치 False / db_no_prologue 일치 False·NaN True
# (GPU) db 는 틀린 실행 0번, 두 버그 커널은 틀린 실행이 있고(몇 번인지는 GPU 와 타이밍에 달림), 옆에 시뮬레이터가 찾은 경쟁(두 줄과 고칠 곳)이 나옵니다.
""")
NB.exercise("08-1", fill(r"""
버퍼가 둘이면 규칙은 3.2절의 표 그대로입니다. 다음 노트북(09)은 버퍼를 **S 개**로 늘리므로, 여기서 그 일반형을 스스로 세어 봅니다. 프롤로그는 타일 0 … S−2 를 버퍼 0 … S−2 에 미리 채우고(버퍼 하나는 비워 둠), 반복 kt 는 타일 kt 를 계산하면서 아직 버퍼에 없는 타일 하나를 비어 있는 버퍼에 미리 읽습니다. 반복마다 **(kt, 계산하는 버퍼, 미리 읽는 타일, 그 타일을 넣는 버퍼)** 를 돌려주는 함수를 쓰세요. 미리 읽을 타일이 없으면(번호가 `n_tiles` 이상) 뒤의 두 값은 `None` 입니다. 3.3절의 두 위험을 기억하세요: 지금 계산하는 버퍼에 쓰면 같은 반복의 다른 스레드와 부딪히고(WAR), 아직 계산하지 않은 타일이 든 버퍼에 쓰면 그 타일을 잃습니다. 확인 셀은 버퍼 {{ex081_s_lo}}–{{ex081_s_hi}}개에서 표를 한 줄씩 따라가며, 버퍼마다 어떤 타일이 들어 있는지 세어 처음 틀린 줄과 그 이유를 알려 줍니다.
""", FIG))
md(r"""
### 3.4 PTX 캐시 힌트: `ld.global.ca`

인라인 PTX 로 쓴 더블 버퍼 커널은 글로벌 로드에 캐시 연산자(cache operator)를 붙이기도 합니다: `ld.global.ca.f32`. PTX ISA 문서의 정의는 이렇습니다.

| 연산자 | 의미 (PTX ISA) |
|---|---|
| `.ca` | cache at all levels: L1 과 L2 에 캐시. **ld 의 기본값** ("The default load instruction cache operation is ld.ca") |
| `.cg` | cache global: L2 에만 캐시, L1 을 거치지 않음 |

(캐시 연산자는 이 둘 말고도 `.cs`, `.lu`, `.cv` 가 있습니다. `ld.global.nc` 의 `.nc` 는 캐시 연산자가 아니라, 읽기 전용(non-coherent) 데이터 경로로 읽게 하는 **별개의 한정자(qualifier)** 입니다.)

PTX ISA 는 캐시 연산자를 "성능 힌트"일 뿐이라고 적고, 캐시 연산자를 써도 프로그램의 **메모리 일관성(memory consistency) 동작은 바뀌지 않는다**고 분명히 말합니다. `.ca` 는 정의된 연산자이지만 기본값이므로, **캐시 정책으로는** 명시해도 기본 `ld.global` 에 보태는 것이 없습니다 (문서상 둘 다 L1·L2 에 캐시). 그렇다고 같은 명령이 되는 것은 아닙니다: 아래 심화의 탐침에서 명시적 `.ca` 는 기본 로드와 **다른** SASS 명령이 됩니다.

**이 커널에서 재사용은 어디서 일어나는가?** A, B 의 원소 하나는 블록 안에서 128번 쓰이지만(노트북 07 3.3절: 16 스레드 × 8 FMA), 그 재사용은 전부 **공유 메모리와 레지스터**에서 일어납니다: 스레드는 K 타일마다 자기 몫을 글로벌 메모리에서 **한 번만** 읽어 `As`/`Bs` 에 저장합니다. 같은 원소를 다시 읽는 것은 **다른 블록**이고, 다른 블록은 대개 다른 SM 에 있어 그 SM 의 L1 을 공유하지 않습니다(블록 사이의 재사용은 L2 에서 일어남). 그래서 이 커널에서 L1 에 둘지 말지는 재사용을 좌우하지 않습니다.

우리 `db_ptx` 는 `db` 와 같은 구조에 세 명령만 PTX 로 바꿨습니다: `ld.global.ca.f32`, `fma.rn.f32`, 그리고 C 에 4개씩 쓰는 `st.global.v4.f32`. 명령은 `.ptx` 파일 하나에 적혀 있고 `kernels_numba/infra/ptx/` 가 그 줄을 Numba 커널 안에 인라인합니다(함수 호출 없이).
""")
code(r"""
from kernels_numba.infra import ptx
print(open(ptx.FUNCS["ld_global_ca_f32"].path, encoding="utf-8").read())
print("커널에 인라인되는 명령:", ptx.FUNCS["ld_global_ca_f32"].instruction)
""")
md(r"""
두 커널을 GPU 없이 sm_80·sm_90 용으로 컴파일해 메인 루프의 LDG·FFMA, C 저장(STG), 그리고 PTX 의 명령 수를 셉니다.
""")
code(r"""
pv = L8.ptx_vs_db()
print(pv)
# 예상 출력: db 메인 루프 {'LDG.E': 8, 'FFMA': 64} … / db_ptx {'LDG.E.STRONG.SM': 8, 'FFMA': 64} | C 저장 … 'STG.E.128': 16 …
""")
md(r"""
읽는 법:

* **메인 루프**: 위 셀에서 두 커널 모두 LDG 8개(스레드 몫 A 4 + B 4)와 FFMA 64개(펼쳐지지 않은 k 루프 한 번: 8 × 8)입니다 (이 강좌의 컴파일러로 센 값: 루프를 얼마나 펼치는지는 컴파일러가 정하므로, 다른 버전에서는 셀의 수를 보세요). 다른 것은 LDG 의 접미사뿐입니다: 명시적 `.ca` 는 `LDG.E` 가 아니라 `LDG.E.STRONG.SM` 이 됩니다(아래 심화에서 그 뜻을 봅니다).
* **PTX 의 수** (셀의 `PTX:` 줄. 펼친 루프의 명령은 펼친 횟수만큼, 나머지는 소스에 적힌 곳마다 하나씩이므로 소스의 자리로 셉니다): `db_ptx` 의 `ld.global.ca.f32` 16개 = 타일 로드 8개가 두 곳(프롤로그와 메인 루프의 프리페치)에 적혀 있기 때문입니다. `db` 의 `ld.global.f32` 80개 = 같은 타일 로드 16개 + `beta ≠ 0` 일 때 C 를 읽는 64개(`rC` 원소마다 하나)이고, `fma.rn.f32` 128개 = 펼쳐지지 않은 k 루프 본문의 외적 64개 + 결과 저장의 `alpha·rC + beta·C` 64개입니다. `db_ptx` 는 결과 저장이 두 길(16 B 벡터 저장과 원소별 저장, 4.5절)이라 C 읽기가 64 × 2 = 128개(`ld.global.f32`), `fma.rn.f32` 가 64 + 64 × 2 = 192개입니다. `db` 의 `rA[m] * rB[n]` 누적도 이미 `fma.rn.f32` 이므로(노트북 06), 명시적 `fma.rn.f32` 는 같은 명령을 낼 뿐입니다.
* **C 저장**: `db` 의 `STG.E` 128개 = `rC` 원소 64개 × `beta == 0` 인 길과 아닌 길(소스의 저장문 두 개). `db_ptx` 에는 16 B 저장 `STG.E.128` 이 16개(행 8개 × 16 B 두 번) 생깁니다. N 이 4의 배수가 아니거나 주소가 16 B 정렬이 아니면 원소 하나씩 저장하는 길(`STG.E`)로 갑니다(4.5절, 4.7절이 그 경우를 검증).
* 성능 차이는 추론하지 않고 **같은 실행에서 잰 값**(4.8절 `db` 대 `db_ptx`)으로 판단합니다.

> **심화 (선택): 명시적 `.ca` 는 SASS 에서 무엇이 되는가.** 로드 한 줄만 다른 아주 작은 PTX 커널(`L8.PROBE`)을 여러 변형으로 만들어 `nvJitLink` 로 sm_80·sm_90 기계어로 바꾸고 SASS 의 로드 명령을 봅니다 (GPU 불필요).
""")
code(r"""
probe = L8.ldg_probe()
print(probe)
# 예상 출력: ld.global … ['LDG.E'] / ld.global.ca … ['LDG.E.STRONG.SM'] / ld.relaxed.cta.global … ['LDG.E.STRONG.SM'] / …
""")
md(r"""
> 기본 `ld.global` (문서상 `.ca`) 은 `LDG.E` 이고, **명시적 `.ca` 는 메모리 모델의 `ld.relaxed.cta` (블록 범위의 "strong" 로드)와 같은 `LDG.E.STRONG.SM`** 이 됩니다. `.cg` 도 `ld.relaxed.gpu` 와 같은 `LDG.E.STRONG.GPU` 입니다. 이 탐침이 보여 주는 것은 **이 컴파일러(nvJitLink {{nvjitlink}})가 명시적 캐시 연산자를 `ld.relaxed` 와 같은 SASS 형태로 옮긴다**는 것까지입니다. PTX 프로그램의 뜻은 그대로입니다: 캐시 연산자는 성능 힌트라 `.ca` 를 적는다고 메모리 순서가 생기지는 않고(PTX ISA, Cache Operators), relaxed 로드도 무엇의 순서를 정해 주지는 않습니다. SASS 접미사가 하드웨어의 캐시 동작을 어떻게 바꾸는지는 NVIDIA 가 문서화하지 않았으므로 여기서는 주장하지 않습니다. (심화 끝)

**PTX 의 순서는 SASS 의 순서가 아닙니다.** PTX 에 로드를 어디에 적든 ptxas 가 명령을 다시 배치합니다. 그래서 로드가 연산과 겹치는지는 **SASS 의 명령 순서**로 판단합니다(4.4절). 4.6절에서는 ptxas 가 로드를 옮겨 겹침을 없애 버리는 경우도 봅니다.

### 3.5 공유 메모리 압박과 점유율

버퍼가 늘면 블록당 공유 메모리가 늘어납니다. 우리 커널의 모양으로 계산하고, 컴파일러(cubin)와 H200 에 실제로 올라간 커널이 보고한 값과 맞춰 봅니다.
""")
code(r"""
per_stage = DB.BM * DB.BK_PAD * 4 + DB.BK * DB.BN_PAD * 4     # As[BM][BK+1] + Bs[BK][BN+1], float32
print(f"버퍼 한 세트 = {DB.BM}×{DB.BK_PAD}×4 + {DB.BK}×{DB.BN_PAD}×4 = {per_stage:,} B")
sb = L8.shared_by_stages(rec34)
print(sb)
# 예상 출력: 버퍼 한 세트 = 8,736 B / 버퍼 1개 … 8,736 / 2개 … 17,472 / 3개 … 26,208 B / db 의 보고: sm_80 17,472, sm_90 18,496, H200 17,472
""")
md(r"""
선언한 공유 메모리는 17,472 B 이고, sm_80 cubin 과 H200 에 올라간 커널이 모두 그 값을 보고합니다. 점유율 모델(`sim/occupancy.py`, CUDA 점유율 계산기 `cuda_occupancy.h` 의 규칙)에는 이 선언한 바이트를 넣고, 모델이 블록마다 시스템 예약 1 KiB 를 더합니다. (sm_90 cubin 만 1,024 B 크게 보고하는 이유와 예약 1 KiB 는 노트북 06 4.2절의 심화에서 한 번 다룹니다.) 이제 **이 커널이 실제로 쓰는 레지스터 수**를 넣어, 버퍼 수에 따라 SM 에 블록이 몇 개 올라가는지 계산합니다.
""")
code(r"""
ob = L8.occupancy_by_stages(sb["regs"])
print(ob)
occ_db = ob["occ"]
print("\n".join(occ_db["A100", 2].steps))
# 예상 출력: A100·H100·H200 의 모든 버퍼 수에서 2블록 (A100 버퍼 2개: 공유 메모리만 보면 9블록, 레지스터로는 2블록) …
#            (GPU 가 있으면 "지금 이 GPU (이름, CC)" 줄도: 그 GPU 에 올라간 db 의 레지스터로 계산)
""")
md(r"""
모델을 실제 GPU 와 맞춰 봅니다. H200 에 **실제로 올라간** 커널의 레지스터 수(드라이버가 컴파일하므로 위의 오프라인 값과 조금 다를 수 있음)와 공유 메모리를 넣은 모델 값과, 같은 실행에서 CUDA 점유율 API(`cuOccupancyMaxActiveBlocksPerMultiprocessor`)가 답한 값입니다.
""")
code(r"""
api = L8.occupancy_vs_api(rec34, names=("db", "db_overlap", "db_ptx"))
print(api)
print("PASS: 모델 = CUDA 점유율 API" if all(api["agree"].values()) else "FAIL: 모델과 API 가 다름")
here = L8.kernels_here(("db", "db_overlap", "db_ptx"))      # GPU 가 있으면: 지금 이 GPU 에 올라간 커널로 계산한 모델
if here:
    print(here)
# 예상 출력: db, db_overlap, db_ptx 모두 API 2블록/SM = 모델 2블록/SM ✓ / PASS: 모델 = CUDA 점유율 API
""")
md(r"""
* 공유 메모리만 보면 A100 에 {{db_smem_blocks_a100}}블록이 들어가지만, 실제 한도는 레지스터입니다: 스레드당 레지스터가 위 셀의 값(셀의 'db 의 보고' 줄: 이 컴퓨터의 컴파일러로 센 오프라인 값이라 컴파일러 버전마다 조금 다를 수 있고, H200 에 올라간 커널은 {{regs_db}}개)이고 블록이 256 스레드라 A100·H100·H200 에서는 SM 에 **{{db_blocks}}블록**({{db_warps}}워프, 점유율 {{db_occ}}%)만 올라가고, 이것은 버퍼가 1개든 2개든 3개든 같습니다. 레지스터가 {{same_lo}}–{{same_hi}}개이면 같은 모델에서 이 결론이 그대로이므로(생성기가 `sim.occupancy` 로 계산한 범위), 컴파일러가 그 안의 어느 수를 주든 달라지지 않습니다. (SM당 워프 한도가 다른 GPU 에서는 점유율 % 가 다릅니다: GPU 가 있으면 위 두 셀이 그 GPU 의 값도 보여 줍니다.)
* 그래서 이 커널에서 더블 버퍼링의 공유 메모리 비용은 점유율로는 **공짜**입니다. 버퍼를 늘려 점유율이 떨어지는 것은 공유 메모리가 한도인 커널의 이야기입니다.
* 그 대신 SM 에 워프가 {{db_warps}}개(A100·H100·H200)뿐이어서, 한 워프가 로드를 기다릴 때 대신 발행할 워프가 많지 않습니다. 그래서 4.4절의 질문, "한 워프 **안에서** 로드와 연산이 겹치는가"가 중요해집니다.

## 4. 코드 분석: 우리 `db` 커널

커널은 `kernels_numba/db.py` 이고, 타일 로드와 계산은 Numba 장치 함수(`@cuda.jit(device=True)`) 셋(`load_A_tile`, `load_B_tile`, `compute_tile`)으로 나뉘어 있습니다. 실행은 모든 커널이 같습니다: `launch(A, B, C, alpha=1.0, beta=0.0) → C`.
""")
code(r"""
course.show_source(DB.kernel)
""")
code(r"""
course.show_source(DB.load_A_tile)
course.show_source(DB.compute_tile)
""")
code(r"""
walk = [("공유 메모리 2세트 선언", "As = cuda.shared.array"), ("타일 수 (올림 나눗셈)", "num_k_tiles ="),
        ("프롤로그: 타일 0 → 버퍼 0", "load_A_tile(A, As, 0, 0"), ("프롤로그 배리어", "cuda.syncthreads()"),
        ("메인 루프", "for kt in range"), ("버퍼 번호", "curr_buf = kt % 2"),
        ("프리페치 조건 (마지막 반복 제외)", "if kt + 1 < num_k_tiles"), ("현재 버퍼로 계산", "compute_tile(As, Bs, curr_buf"),
        ("반복당 배리어 (하나뿐)", "cuda.syncthreads()", 2), ("결과 기록 (beta == 0 처리)", "if beta == 0")]
print(L8.walkthrough(DB.kernel, walk, "db.py"))
print(L8.walkthrough(DB.load_A_tile, [("A 타일 로드의 경계 검사", "if grow < M and gcol < K")], "db.py"))
""")
md(r"""
**4.1 공유 메모리 선언.** `cuda.shared.array((2, BM, BK_PAD), float32)`: 모양은 모듈 상수(`BK_PAD = BK + 1`)라 GPU 에서도 컴파일 시간 상수입니다. 첫 차원 `2` 가 더블 버퍼입니다.

**4.2 장치 함수.** `load_A_tile` 은 256 스레드가 128 × 8 타일을 나눠 올리므로 스레드당 4번(`range(0, BM, A_ROW_STRIDE)`, 스트라이드 32행), `load_B_tile` 도 4번(스트라이드 2행)입니다. 행렬 밖은 0 을 저장합니다. 로드 명령은 발행된 뒤 완료를 기다리지 않고 다음 명령으로 넘어가지만, `As[buf, row, a_col] = A[grow, gcol]` 은 **읽은 값을 곧바로 공유 메모리에 저장**하는 문장이고, 저장은 그 값을 기다려야 합니다. 이것이 무엇을 뜻하는지 4.4절에서 SASS 로 봅니다.

**4.3 프롤로그와 메인 루프.** 3.3절의 그림 그대로입니다. `num_k_tiles = (K + BK - 1) // BK` 는 올림 나눗셈이고, 마지막 타일의 모자란 열은 경계 검사가 0 으로 채웁니다. 프롤로그 뒤의 배리어는 반복 0 이 다른 스레드가 채운 버퍼 0 을 읽기 전에 필요하고, 메인 루프의 배리어는 반복마다 하나입니다(3.3절 표). K 타일이 하나뿐이면(K ≤ BK) 메인 루프는 프리페치 없이 한 번 실행됩니다.

### 4.4 프리페치는 한 워프 안에서 정말 연산과 겹치는가? (SASS 순서)

GPU 의 워프는 명령을 **순서대로** 발행하고, 어떤 명령의 입력 레지스터가 아직 로드 중이면 그 명령에서 멈춥니다(이때의 스톨 이유가 **long scoreboard**). 그러니 프리페치가 한 워프 안에서 연산과 겹치려면 SASS 가 **LDG(글로벌 로드) → FFMA 들(연산) → STS(공유 메모리 저장, LDG 결과를 씀)** 순서여야 합니다. `db` 의 메인 루프를 GPU 없이 sm_80·sm_90 용으로 컴파일해서 명령 순서를 봅니다 (`L8.loop_phases`: 메인 루프 안의 LDG, STS, LDS, FFMA, BAR 를 순서대로, 같은 종류가 이어지면 `종류×개수` 로 묶어서).
""")
code(r"""
ov = L8.overlap_table()       # 커널·타깃마다 메인 루프의 순서, 그리고 그 순서에서 읽은 것 (컴파일러마다 순서가 다름)
print(ov)
# 예상 출력: db … LDG×? → STS×? → … → 계산(LDS+FFMA)×… → BAR×1 / db_overlap … LDG×16 → 계산(LDS+FFMA)×544 → STS×8 → BAR×1
#            … db: 첫 LDG 와 첫 STS 사이 FFMA 0개, 모든 STS 가 계산 앞 / db_overlap: … FFMA 512개, 모든 STS 가 계산 뒤
#            … db: 메인 루프 안의 안쪽 루프 1개 … / db_overlap: 메인 루프 안의 안쪽 루프 없음 (완전히 펼쳐짐)
""")
md(r"""
* `db`: 숫자는 명령의 **개수**입니다. 스레드 몫의 LDG(A 4 + B 4)와 STS 를 `ptxas` 가 어떤 순서로 섞어 놓는지는 컴파일러 버전과 타깃마다 다릅니다 (위 셀의 `db` 줄; STS 가 LDG 보다 많은 것은 값을 저장하는 길과 행렬 밖에 0을 저장하는 길이 따로 있기 때문). 달라지지 않는 것은 셀의 마지막 줄들이 이 순서에서 읽어 보여 줍니다: **첫 LDG 와 첫 STS 사이에 FFMA 가 하나도 없고**, 모든 STS 가 계산보다 앞에 있습니다. STS 는 LDG 가 가져온 레지스터를 저장하므로, 워프는 **STS 에서 자기 로드가 도착할 때까지 멈춘 뒤에야** 계산을 시작합니다. 한 워프 안에서는 로드와 연산이 겹치지 않고, 그 시간을 메우는 것은 같은 SM 의 **다른 워프**(다른 블록 포함)뿐입니다. 3.5절에서 본 것처럼 SM 에 워프가 {{db_warps}}개뿐입니다 (A100·H100·H200). 계산(LDS+FFMA)의 수는 펼쳐지지 않은 k 루프 한 번의 몫이고, 그 루프가 BK = 8번 반복됩니다.
* 왜 컴파일러가 STS 를 계산 뒤로 미루지 않을까요? 이것은 SASS 에서 읽은 사실이 아니라 **해석**이고, 이유로 둘을 생각할 수 있습니다. (1) 셀의 마지막 줄들이 보여 주듯 `db` 의 메인 루프 안에는 안쪽 루프, 곧 펼쳐지지 않은 k 루프가 있습니다. STS 를 계산 뒤로 옮기려면 저장을 이 루프 너머로 옮겨야 하고, 그동안 LDG 로 받은 값 8개(A 4 + B 4)를 담은 레지스터를 루프 내내 살려 두어야 합니다. 컴파일러는 보통 메모리 명령을 루프 경계 너머로 옮기지 않습니다. (2) 프리페치는 `As[next_buf, ...]` 에 쓰고 계산은 `As[curr_buf, ...]` 를 읽는데, 버퍼 번호가 실행 중에 정해지므로(`kt % 2`) 컴파일러가 둘이 겹치지 않는다는 것을 증명하기 어렵습니다. 둘 중 무엇이 실제 이유인지는 이 노트북에서 시험하지 않았습니다 (버퍼 번호가 상수가 되게 kt 루프를 두 번씩 펼친 변형의 SASS 를 보면 가릴 수 있습니다). 어느 쪽이든 결론은 같습니다: 이 순서는 컴파일러에 맡길 수 없습니다.
* 처방은 소스에서 순서를 직접 바꾸는 것입니다: **글로벌 → 레지스터(LDG)를 계산 전에, 레지스터 → 공유 메모리(STS)를 계산 뒤에.** `db_overlap` 의 SASS 가 바로 그 순서입니다 (셀의 `db_overlap` 줄): LDG 가 모두 계산 앞에(다음 타일의 스레드 몫과, 경계 검사가 있는 가장자리용 같은 수, 4.6절), 그 뒤에 타일 하나의 계산(완전히 펼친 k 루프: FFMA BK·TM·TN = 512개와 LDS)이, 그 뒤에 STS 가 옵니다. 첫 LDG 와 첫 STS 사이의 FFMA 가 512개, 곧 타일 하나의 계산 전부입니다.
""")
NB.exercise("08-2", fill(r"""
이 처방을 작은 커널에 직접 써 봅니다. 06-2 의 8×8 타일 커널(블록당 64 스레드, 스레드마다 C 원소 하나)을 더블 버퍼로 바꾼 것입니다: `As`, `Bs` 는 `[버퍼][8][8]` 이고, 스레드는 K 타일마다 A 타일과 B 타일의 원소를 하나씩 맡습니다(06-2 처럼 타일 t 의 원소는 `load_or_zero(A, row, t * T8 + tx)`, `load_or_zero(B, t * T8 + ty, col)`). 프롤로그(타일 0 → 버퍼 0, 배리어)는 채워 두었습니다: 겹칠 계산이 아직 없으니 곧바로 공유 메모리에 넣습니다. 여러분이 쓸 곳은 두 군데입니다.

* **메인 루프의 본문** (`kt = 0 … n_tiles − 2`): 다음 타일을 레지스터로 읽고(`a = load_or_zero(...)`, `b = ...`), 지금 타일을 계산하고(`acc += tile_dot(As, Bs, 버퍼, ty, tx)`), 레지스터를 공유 메모리에 저장하고, 배리어. 어느 타일을 읽고 어느 버퍼에 저장하는지, 배리어가 몇 개 어디에 필요한지가 여러분의 몫입니다.
* **에필로그**: 이 루프는 `db` 처럼 `if kt + 1 < n_tiles` 로 마지막 반복의 프리페치를 건너뛰는 대신, 마지막 반복을 루프 **밖으로** 꺼냈습니다(루프 안에 분기가 없음). 그래서 루프가 끝나면 아직 계산하지 않은 타일이 하나 남아 있고, 그 계산이 결과 저장(3.3절 그림의 에필로그) 앞에 붙습니다.

`load_or_zero`, `store_c`, `thread_coords` 는 06-2 의 도우미이고, `tile_dot` 은 아래 셀이 정의합니다. 확인 셀은 K 타일이 {{ex082_tiles}}인 모양(K = {{ex082_ks}}: 어느 것도 8의 배수가 아님)으로 numpy 와 비교하고, 경쟁 검출기의 보고, 틀린 C 가 **K 타일마다 몇 번 더해졌는지**(두 번 더해진 타일, 빠진 타일), 그리고 실행을 지켜본 순서로 반복마다 다음 타일을 계산 중인 버퍼가 아닌 다른 버퍼에 저장하는지(버퍼 하나로 맞는 값은 더블 버퍼링이 아님), 배리어가 하나인지, 다음 타일의 글로벌 로드가 계산보다 앞이고 공유 메모리 저장이 계산보다 뒤인지(아니면 `db` 처럼 겹침이 없음)를 알려 줍니다.
""", FIG))
md(r"""
### 4.5 결과 저장 (epilogue)

모든 K 타일을 누적한 뒤, 스레드는 `rC` 의 64개를 `C = alpha·rC + beta·C` 로 글로벌 메모리에 씁니다(BLAS 의 SGEMM 규약). `db` 의 결과 저장은 노트북 07 4.6절의 `regblock` 과 같습니다: 경계 검사(`grow < M`, `gcol < N`), `beta == 0` 이면 C 를 읽지 않음(이때 C 는 출력 전용이라 NaN 이 들어 있어도 됨), 원소마다 4 B 저장.
""")
code(r"""
print(L8.source_part(DB.kernel, "grow = block_row + thread_row + m", "beta * C[grow, gcol]", before=1))
""")
md(r"""
`db_ptx` 는 같은 값을 **4개씩 묶어** `st.global.v4.f32`(SASS `STG.E.128`)로 씁니다: 스레드의 한 행 8개가 16 B 저장 두 번이 됩니다. 16 B 저장은 주소가 16 B 로 정렬되어 있어야 하므로, 행의 끝(N 이 4의 배수가 아님)이나 정렬되지 않은 C 에서는 원소 하나씩 쓰는 길로 돌아갑니다. 그 검사를 빼면 하드웨어에서 잘못 정렬된 주소(misaligned address) 오류가 나고, 이 과정의 시뮬레이터도 같은 오류를 냅니다(`tests/test_db.py`).
""")
code(r"""
ptx_store = L8.source_part(kn.get("db_ptx").module.store_C_row, "if gcol + VEC <= N", "ptx.st_global_v4_f32")
print(ptx_store)
s1, s4 = L8.store_sectors(vector=1), L8.store_sectors(vector=4)
print(f"워프의 저장 명령 하나: 4 B 씩이면 섹터 {s1['sectors']}개에 {s1['useful_bytes']} B ({s1['efficiency']:.1%}), "
      f"16 B 씩이면 섹터 {s4['sectors']}개에 {s4['useful_bytes']} B ({s4['efficiency']:.1%})")
# 예상 출력: … 4 B 씩이면 섹터 32개에 128 B (12.5%), 16 B 씩이면 섹터 32개에 512 B (50.0%)
""")
md(r"""
스레드 `tx` 는 열 `tx·8 ..` 을 맡으므로 워프의 저장 명령 하나에서 스레드들의 주소는 32 B 씩 떨어져 있습니다. 4 B 저장이면 섹터(32 B) 32개를 건드려 128 B 를 쓰고, 16 B 저장이면 같은 섹터 32개로 512 B 를 씁니다: 명령 수가 4분의 1, 섹터당 쓸모 있는 바이트가 4배입니다. 다만 결과 저장은 블록마다 한 번이고 메인 루프는 K/BK 번 돌기 때문에, 이 차이가 전체 시간에 얼마나 보이는지는 모델로 말하지 않고 4.8절의 측정(`db` 대 `db_ptx`)으로 봅니다.

### 4.6 고친 커널: `db_overlap`

`kernels_numba/db_overlap.py` 는 같은 타일 크기(128×128×8, 스레드당 8×8)에 노트북 07의 가장 빠른 레벨 3 커널 `regblock_vec` 의 배치(전치한 `As`, 128비트 공유 메모리 읽기)를 쓰고, 다음 타일이 **레지스터를 거쳐** 가도록 메인 루프를 세 단계로 나눴습니다. 메인 루프만 봅니다.
""")
code(r"""
ovm = kn.get("db_overlap").module
print(L8.source_part(ovm.kernel, "for kt in range", "cuda.syncthreads()"))
print(L8.overlap_resources())                             # GPU 가 있으면 지금 이 GPU 의 줄도
""")
md(r"""
1. `load_tile_to_registers`: 타일 kt+1 의 스레드 몫 4 + 4개를 레지스터 `ra`, `rb` 로 읽기 시작합니다(LDG 8개). 이 값을 쓰는 명령은 3단계에 있으므로 워프는 멈추지 않고 다음으로 갑니다.
2. `compute_tile`: 현재 버퍼로 512 FFMA. 이 동안 1단계의 로드가 메모리 시스템에서 진행됩니다.
3. `store_tile_to_shared`: 이제야 `ra`, `rb` 를 공유 메모리에 씁니다. 로드가 아직 안 왔으면 여기서 기다리지만, 기다릴 시간은 FFMA 512개만큼 줄어 있습니다.

다음 타일을 들고 있을 레지스터 `ra`, `rb` 가 필요하지만, 위 셀처럼 레지스터 수는 `db` 와 같은 수준이라 점유율도 같고(A100·H100 에서 SM당 2블록), 배리어도 그대로 반복당 하나입니다.

`load_tile_to_registers` 에는 길이 둘 있습니다: 타일 전체가 행렬 안에 있는 블록(대부분)은 검사 없는 로드를, 가장자리 타일만 경계를 검사하는 로드를 씁니다. 검사하는 길 하나로도 답은 맞는데 왜 둘일까요? 한 가지 함정이 PTX 순서와 SASS 순서가 다르다는 것(3.4절)을 잘 보여 줍니다. 아래 셀은 `db_overlap` 과, 검사하는 길만 남긴 교육용 변형 `db_overlap_checked_only` (`kernels_numba/demos/`, 소스의 세 단계 순서는 똑같음)를 GPU 없이 sm_80·sm_90 용으로 컴파일해 4.4절처럼 메인 루프의 순서를 보여 주고, 그 순서에서 FFMA 가 첫 LDG 앞에 몇 개 있는지 읽습니다.
""")
code(r"""
sink = L8.sunk_loads()        # db_overlap 과 검사하는 로드만 있는 변형: 메인 루프의 순서와 LDG 의 자리
print(sink)
# 예상 출력: db_overlap … LDG×16 → 계산(LDS+FFMA)×544 → STS×8 → BAR×1
#            db_overlap_checked_only … 계산(LDS+FFMA)×… → LDG×8 → … → STS×8 → BAR×1
#            … db_overlap: FFMA 512개 중 0개가 첫 LDG 앞 → LDG 가 계산의 앞쪽 … / …checked_only: … 계산의 뒤쪽으로 옮겨짐 …
""")
md(r"""
소스에서는 두 커널 모두 로드를 계산 **앞에** 적었습니다. 그런데 셀의 마지막 줄들이 보여 주듯, 이 과정의 ptxas 는 경계 검사가 있는 로드만 있으면 LDG 를 FFMA 들의 **뒤쪽으로 옮겨** 저장(STS) 바로 앞에 두어, 로드와 겹치는 계산이 거의 남지 않습니다. 검사 없는 로드는 그대로 계산 앞에 남습니다. 그래서 `db_overlap` 은 안쪽 블록에 검사 없는 길을 둡니다. ptxas 가 왜 이렇게 배치하는지는 SASS 에 적혀 있지 않으므로 이 노트북은 이유를 말하지 않고, 정확한 자리는 ptxas 버전에 따라 다를 수 있어 셀이 지금 컴파일러의 순서에서 읽어 보여 줍니다 (`tests/test_db.py` 가 이 판정을 확인합니다). 교훈은 4.4절과 같습니다: 겹침은 소스의 순서가 아니라 **SASS 의 순서**로 확인합니다.

### 4.7 실행하고 검증하기

세 커널(`db`, `db_overlap`, `db_ptx`)을 numpy 와 비교합니다. 타일 경계를 일부러 건드리는 모양을 고릅니다: K 가 BK 보다 작아 **K 타일이 하나뿐**인 경우(메인 루프에 프리페치가 없음), K 가 BK 의 배수가 **아닌** 경우(마지막 타일에 0 채움), N 이 4의 배수가 **아닌** 경우(`db_ptx` 가 벡터 저장 대신 원소별 저장으로 가는 길)와 4의 배수인 경우(벡터 저장 길). `beta = 0` 이면 C 를 NaN 으로 채워 두고, 비교(`L8.close`)는 NaN 이 통과할 수 없게 `isfinite` 를 먼저 확인합니다.
""")
code(r"""
import numpy as np
print("NaN 으로 채운 결과가 검사를 통과하는가:", L8.close(np.full((2, 2), np.nan, np.float32), np.zeros((2, 2)), 1))
shapes = [(1, 1, 1), (5, 7, 3), (20, 16, DB.BK), (33, 130, 21), (33, 132, 21), (129, 131, 17)]
for name, ok in L8.verify(("db", "db_overlap", "db_ptx"), shapes).items():      # 커널마다 진행 막대
    bad = [k for k, v in ok.items() if not v]
    print(f"{name:10s} {'PASS' if not bad else 'FAIL ' + str(bad)} ({len(ok)}가지 모양) — {kn.get(name).description}")
# 예상 출력: NaN … 통과하는가: False / db, db_overlap, db_ptx 모두 PASS (7가지 모양: 위의 6개 + verify 가 더하는 alpha=1.5·beta=-0.5 한 경우)
""")
md(r"""
모양의 뜻: 1×1×1, K < BK (K 타일 1개), K = BK (타일 정확히 1개), K % BK ≠ 0 이고 N % 4 ≠ 0 (원소별 저장), N % 4 = 0 (벡터 저장), 블록 2×2 와 행렬 가장자리, 그리고 alpha = 1.5, beta = −0.5.

### 4.8 성능: cuBLAS 와 나란히

성능은 같은 실행에서 cuBLAS SGEMM(CuPy, TF32 끔)과 나란히 재고 **비율**로 말합니다 (`benchmarks/bench_gpu.py`). 아래 셀은 H200 에서 기록한 값을 보여 주고, GPU 가 있으면 그 GPU 에서 지금 잰 표를 그 아래에 덧붙입니다 (크기는 GPU 의 속도에 맞춰 고르고, 진행 막대가 보입니다).
""")
code(r"""
from course import measure
live = measure.benchmark(kernels=[s.name for s in kn.REGISTRY if s.level in (3, 4)]) if measure.have_gpu() else None
print(L8.bench_table(rec34, live))        # 기록한 표, 그리고 GPU 가 있으면 그 아래에 지금 이 GPU 에서 잰 표
print("기록의 numba-cuda:", rec34.run().versions["numba_cuda"])
""")
md(r"""
같은 실행의 cuBLAS 대비 비율로만 비교합니다. 레벨 4 커널은 **같은 공유 메모리 배치의 레벨 3 커널**과 짝지어 봐야 더블 버퍼링만의 효과가 보입니다: `db`·`db_ptx` 의 싱글 버퍼 짝은 같은 +1 패딩 배치의 `regblock_opt`, `db_overlap` 의 짝은 같은 배치(전치 `As`, 128비트 읽기)의 `regblock_vec` 입니다. 아래 표는 크기마다 그 비(1보다 크면 더블 버퍼가 빠름)와 cuBLAS 대비 비율입니다. (기록한 값으로 계산합니다. GPU 모드의 새 측정은 위 표에 있습니다.)
""")
code(r"""
pr = L8.pair_ratios(rec34)
print(f"기록: {rec34.gpu} {rec34.date}, 크기마다 한 번의 실행")
print(pr)
R = {(r.kernel, r.n): r.ratio for r in rec34.rows}     # cuBLAS 대비 비율 (같은 실행)
n = max(n for _, n in R)
print(f"{n}³: db_overlap {R['db_overlap', n]:.3f} ÷ regblock_vec {R['regblock_vec', n]:.3f} = {R['db_overlap', n] / R['regblock_vec', n]:.3f}")
# 예상 출력: db ÷ regblock_opt {{pair_lo_db}}–{{pair_hi_db}}, db_ptx ÷ regblock_opt {{pair_lo_db_ptx}}–{{pair_hi_db_ptx}},
#            db_overlap ÷ regblock_vec {{pair_lo_db_overlap}}–{{pair_hi_db_overlap}} …
#            마지막 줄: 표의 4096³ db_overlap ÷ regblock_vec 와 같은 값
""")
md(r"""
이 기록({{gpu}}, {{date}})에서 읽을 수 있는 것과 없는 것:

* 기본 구조 그대로인 `db` 는 어느 크기에서도 같은 배치의 싱글 버퍼 `regblock_opt` 보다 빠르지 않습니다({{n_big}}³ 에서 {{pair_db_4096}}). 4.4절의 SASS 로 읽은 해석입니다(측정으로 가른 것은 아닙니다): 워프는 여전히 자기 로드를 기다린 뒤에 계산하고, 그 시간을 SM 의 다른 워프가 메우는 것은 싱글 버퍼 커널도 마찬가지입니다.
* {{n_big}}³ 에서는 `db_ptx` ({{pair_db_ptx_4096}}) 와 `db_overlap` ({{pair_db_overlap_4096}}) 둘 다 짝보다 몇 % 빠르고, {{n_mid}}³ 에서는 `db_overlap` 의 이득이 {{pair_db_overlap_2048}} 로 작습니다. 크기마다 한 번씩 잰 기록이라 실행 사이의 흔들림을 모르므로, 몇 % 차이로 두 커널의 순위를 정하지 않습니다. 이 기록에서 더블 버퍼링만의 몫(`db_overlap` ÷ `regblock_vec`)은 {{gain_list}} 입니다. 실행 사이의 흔들림(노트북 09 9.1절에서 같은 커널을 여러 번 잰 값)과 1024³ 의 큰 흔들림(블록이 64개뿐)을 생각하면, 한 번의 기록으로 말할 수 있는 것은 크기별 이득의 크기가 아니라 "`db_overlap` 이 어느 크기에서도 느려지지는 않았다"까지입니다.
* cuBLAS 대비로는 `db_overlap` 이 {{n_mid}}³·{{n_big}}³ 에서 {{pct_db_overlap_2048}}%·{{pct_db_overlap_4096}}% 이고 {{n_small}}³ 에서는 {{pct_db_overlap_1024}}% 입니다. 그 성능의 대부분은 노트북 07 에서 얻은 배치(`regblock_vec` 이 이미 {{pct_regblock_vec_4096}}%) 덕분입니다. 더블 버퍼링이 "cuBLAS 의 70–85%" 에 이른다는 소개를 보기도 하는데, 우리 기록에서 그 범위에 드는 레벨 4 커널은 큰 행렬({{n_mid}}³ 이상)의 `db_overlap` 뿐이고(싱글 버퍼 `regblock_vec` 도 이미 그 범위입니다), 기본 구조 `db` 는 {{pct_db_4096}}% 입니다.
* `db_ptx` 와 `db` 의 차이는 세 가지(로드 명령, C 의 벡터 저장, 그에 따라 컴파일러가 바꾼 레지스터·명령 배치)가 한꺼번에 바뀐 결과라 원인을 하나로 돌릴 수 없습니다.

### 4.9 워프 스톨: 기록한 ncu

Nsight Compute(`ncu`)의 WarpStateStats 섹션은 워프가 명령을 내지 못하고 기다린 이유를 셉니다. 각 이유의 값은 "발행한 명령 하나당, 워프가 그 이유로 기다린 평균 사이클"(`smsp__average_warps_issue_stalled_<이유>_per_issue_active`)이고, 아래 표의 % 는 그 값을 모든 이유의 합으로 나눈 **비율**입니다(샘플링이 아니라 카운터로 센 값). 표에 나오는 이유:

* `selected`: 명령을 낸 사이클(명령당 정확히 1). `not_selected`: 낼 수 있었지만 같은 스케줄러의 다른 워프가 뽑힘.
* `long_scoreboard`: 글로벌/로컬 메모리 로드의 결과를 기다림. `short_scoreboard`: 공유 메모리 같은 MIO 명령의 결과를 기다림. `mio_throttle`: 그 MIO 명령 큐가 가득 참.
* `math_pipe_throttle`: 낼 연산 명령이 있는데 그 연산 파이프가 바쁨. `barrier`: `syncthreads` 에서 블록의 다른 워프를 기다림.
* `wait`: 컴파일러가 명령에 붙여 둔 **고정 대기 사이클**(앞 명령의 결과가 나올 때까지 정해진 수만큼 기다림). `dispatch_stall`: 명령을 골랐지만 디스패치(dispatch) 단계가 받아 주지 못함.
""")
code(r"""
ss = L8.stall_shares(rec34)
print(ss)
share = ss["share"]
cpi = rec34["ncu_stalls"]["metrics"]["db_overlap"]["cycles_per_issue"]     # 이유별: 명령당 워프-사이클
print(f"db_overlap 의 long_scoreboard: {cpi['long_scoreboard']:.2f} ÷ 합 {sum(cpi.values()):.2f} = "
      f"{100 * cpi['long_scoreboard'] / sum(cpi.values()):.1f}%")
# 예상 출력: 이유 × 커널 표 (%) — db_overlap 의 long_scoreboard {{st_db_overlap_long_scoreboard}}%, not_selected {{st_db_overlap_not_selected}}% …
#            마지막 줄: … = {{st_db_overlap_long_scoreboard}}%
""")
md(r"""
* 기본 구조의 `db` 는 싱글 버퍼 `regblock_opt` 보다 `long_scoreboard` 가 오히려 **많고**({{st_db_long_scoreboard}}% 대 {{st_regblock_opt_long_scoreboard}}%), 워프가 STS 에서 자기 로드를 기다리는 자리(4.4절)가 그대로입니다. 한 워프 안에서 겹치는 `db_overlap` 에서는 {{st_db_overlap_long_scoreboard}}% 로 거의 **사라졌습니다**.
* 사라진 대기는 `math_pipe_throttle` 로 가지 않았습니다(어느 커널에서도 {{max_math_pipe}}% 이하). `db_overlap` 에서 가장 큰 몫은 `not_selected`({{st_db_overlap_not_selected}}%)입니다.
* 비율은 기다린 사이클을 이유별로 나눈 몫이라, 전체 시간이 같아도 바뀔 수 있습니다. 그래서 항상 4.8절의 시간(cuBLAS 대비 비율)과 함께 읽습니다.
* 더블 버퍼링 뒤 "Long Scoreboard 40–50% → 20–30%, Math Pipe Throttle 10–20% → 30–40%" 같은 숫자가 인용되기도 하지만, 어떤 커널·GPU·지표로 잰 것인지 알 수 없고 우리 기록과는 맞지 않습니다.

**스케줄러는 사이클의 몇 %에 명령을 냈나?** 위 표의 마지막 줄(명령당 워프-사이클의 합)은 "명령을 낸 사이클 하나마다 스케줄러에 있던 워프 수"와 같습니다(`selected` 가 명령당 정확히 1 이기 때문). 기록한 H200 에는 SM 에 2블록 × 8워프 = 16워프까지, 스케줄러 4개면 스케줄러당 4워프까지 올라갑니다. 그러나 {{ncu_n}}³ 의 그리드는 128×128 블록 {{grid_blocks}}개뿐이라 SM {{sms}}개 × 2블록 = {{slots}}자리를 다 채우지 못하고, 스케줄러에 있는 워프는 평균 {{mean_warps}}개입니다 (`sim.occupancy.mean_warps_per_scheduler`: 블록마다 걸리는 시간이 같다고 봄). 그래서 **명령을 낸 사이클의 비율 ≈ 스케줄러당 평균 워프 수 ÷ 그 합**입니다. 블록마다 걸리는 시간이 조금씩 다른 것은 무시한 추정입니다.
""")
code(r"""
print(L8.issue_use(rec34))      # 커널마다: 스케줄러당 평균 워프 수 ÷ 명령당 워프-사이클의 합
# 예상 출력: regblock_opt … {{mean_warps}} / {{cpi_regblock_opt}} = {{use1_regblock_opt}}%, db … {{use1_db}}%, db_ptx … {{use1_db_ptx}}%,
#            regblock_vec … {{use1_regblock_vec}}%, db_overlap … {{mean_warps}} / {{cpi_db_overlap}} = {{use1_db_overlap}}%
""")
md(r"""
`db_overlap` 의 스케줄러는 사이클의 약 {{use1_db_overlap}}% 에 명령을 냈고(`db` {{use1_db}}%, `db_ptx` {{use1_db_ptx}}%, `regblock_opt` {{use1_regblock_opt}}%, `regblock_vec` {{use1_regblock_vec}}%), 가장 큰 몫은 "준비됐지만 뽑히지 못함"(`not_selected`)입니다. 사이클당 명령 하나만 낼 수 있는 스케줄러 앞에 준비된 워프가 줄을 서 있다는 뜻이므로, "한계가 메모리 지연시간이 아니라 **명령 발행**에 가깝다" 는 것이 이 기록에서 나오는 **해석**입니다. 명령을 내지 못한 나머지 약 {{idle1_db_overlap}}% 의 사이클을 이 기록은 이유별로 나누지 않습니다. 워프의 대기 가운데 큰 몫은 `short_scoreboard` {{st_db_overlap_short_scoreboard}}%, `dispatch_stall` {{st_db_overlap_dispatch_stall}}%, `wait` {{st_db_overlap_wait}}% 이고, `barrier` 는 {{st_db_overlap_barrier}}% 뿐입니다.

## 5. 왜 이것이 작동하는가?

<details><summary>질문 1: 로드와 연산이 진정으로 동시에 실행되는 하드웨어 메커니즘은 무엇인가?</summary>

SM 의 로드/저장 유닛(LSU)과 FP32 유닛은 따로 있어서, 워프 스케줄러는 로드를 발행한 뒤 결과를 기다리지 않고 **입력이 준비된** 다음 명령을 발행할 수 있습니다. 그 다음 명령은 같은 워프의 독립 명령(ILP)이거나 다른 워프의 명령(TLP)입니다. 중요한 단서: 같은 워프는 명령을 **순서대로** 발행하므로, 로드 결과를 쓰는 명령에 먼저 도달하면 그 워프는 멈춥니다. 4.4절의 SASS 에서 기본 구조의 `db` 는 LDG 의 값을 쓰는 STS 가 모두 계산보다 앞에 있어서, 한 워프 안에서는 겹침이 없고 겹침은 **다른 워프·블록**이 만듭니다. 우리 커널은 A100·H100·H200 에서 SM당 2블록(16워프, 3.5절)이라 그 여유가 크지 않습니다.
</details>

<details><summary>질문 2: 왜 한 타일의 연산 시간이 글로벌 메모리 지연시간보다 길어야 하는가?</summary>

연산이 먼저 끝나면 다음 반복은 아직 도착하지 않은 타일을 기다려야 합니다. 그래서 로드가 숨겨지는 조건은 연산 ≥ 로드입니다. 정상 상태의 한 걸음이 얼마인지는 6절의 위젯으로 직접 세어 보고 08-3 에서 총 시간의 식으로 씁니다(풀이는 08-3 뒤의 '닫힌 식'). 연산 시간은 처리량으로 셉니다: 블록 타일의 FMA 를 SM 의 FP32 레인으로 나눈 값(3.1절), 워프 하나로 보면 그 워프가 FFMA 512개를 내는 데 드는 사이클(6절). 단, 이 조건은 로드가 연산 **동안** 진행되는 커널에만 적용됩니다(`db_overlap`; 4.4절).
</details>

<details><summary>질문 3: __syncthreads() 가 메인 루프에서 한 번이면 되는 이유는?</summary>

한 반복 안에서 쓰기(`next_buf`)와 읽기(`curr_buf`)가 다른 버퍼이기 때문입니다(3.2절에서 커널의 실제 접근으로 확인). 남는 두 위험(반복 경계를 넘는 RAW 와 WAR)은 반복 끝의 배리어 하나가 모두 막습니다(3.3절 표). 그 배리어를 뺀 `db_no_loop_barrier` 는 시뮬레이터에서 틀린 결과를 냅니다(3.3절).
</details>

<details><summary>질문 4: 더블 버퍼링 뒤에도 Long Scoreboard 가 0% 가 되지 않는 이유는?</summary>

우리 커널에서 가장 큰 이유는 설계에 있습니다: 기본 구조에서는 **워프가 STS 에서 자기 LDG 를 기다리는 것이 명령 순서에 들어 있습니다**(4.4절). 그 밖의 이유(프롤로그 로드는 숨길 연산이 없음, 에필로그의 C 읽기(beta ≠ 0 일 때), 대역폭 포화, 연산이 로드보다 짧은 경우)도 가능하지만, 프롤로그와 에필로그는 블록마다 한 번씩이고 메인 루프는 K 타일 수(4.9절 셀의 첫 줄: ncu 를 잰 크기에서 K/BK 개)만큼 돌므로 비율로는 작습니다. 마지막 반복은 프리페치가 없어 LDG 를 내지 않으므로 이 대기를 보태지 않습니다. 4.9절의 기록이 이것을 보여 줍니다: 기본 구조의 `db` 에는 Long Scoreboard 가 남고, 워프 안에서 겹치는 `db_overlap` 에서는 거의 0 입니다.
</details>

## 6. 시뮬레이션 8: 파이프라인 타임라인 빌더

아래 위젯은 파이프라인 모델(`sim/pipeline.py`)을 그대로 그립니다. 로드 시간, 연산 시간, 타일 수, 버퍼 수(stages), 배리어 시간(t_sync), 동시에 진행할 수 있는 로드 수를 바꿔 보세요. 시작 값은 로드 100, 연산 10, 타일 4개, 배리어 무시입니다.
""")
code(r"""
from course.widgets.pipeline import pipeline_explorer
explorer = pipeline_explorer(t_load=100, t_comp=10, n_tiles=4, stages=2)
explorer
""")
NB.exercise("08-3", r"""
위젯의 막대를 보며, 로드 시간 L, 연산 시간 C, 타일 N 개일 때 **싱글 버퍼와 더블 버퍼의 총 시간**을 L, C, N 의 식으로 쓰세요 (로드 유닛 하나, 배리어 시간 0: 위젯의 시작 설정). 로드가 더 긴 경우(위젯의 시작 값)와 연산이 더 긴 경우(예: 로드 80 / 연산 100), 타일이 하나뿐인 경우를 모두 그려 보고 식이 셋 다 맞는지 따져 보세요. 모델(`pipeline.schedule`)을 부르지 말고 식으로 써야 합니다. 확인 셀은 여러 (L, C, N) 에서 모델과 비교하고, 자주 쓰이는 틀린 식이면 어디서 틀리는지 알려 줍니다. 아래 문단들이 이 식을 풀어 설명하므로 먼저 풀어 보고 읽으세요.
""")
md(r"""
**두 예를 손으로 계산한 값과 맞춰 봅니다.** 로드 100 / 연산 10 과 로드 80 / 연산 100 (둘 다 타일 4개)을 싱글·더블 버퍼로 손으로 계산하면 440, 410, 720, 480 입니다. 모델이 같은 값을 내는지 확인합니다.
""")
code(r"""
by_hand = {(100, 10, 1): 440, (100, 10, 2): 410, (80, 100, 1): 720, (80, 100, 2): 480}
same = True
for (L, C, S), total in by_hand.items():
    tl = pipeline.schedule(4, L, C, stages=S)
    same = same and tl.total == total
    print(f"로드 {L:3d}, 연산 {C:3d}, {'싱글' if S == 1 else '더블'} 버퍼: 모델 {tl.total:4d} (손 계산 {total}), 연산 활용률 {tl.compute_utilisation:.1%}")
print("PASS: 네 계산이 모델과 같다" if same else "FAIL")
# 예상 출력: 440 / 410 / 720 / 480 … / PASS: 네 계산이 모델과 같다
""")
md(r"""
**닫힌 식.** 더블 버퍼에서 처음 로드(L)와 마지막 연산(C)은 숨길 수 없고, 그 사이 N−1 걸음이 각각 max(L, C) 입니다(정상 상태에서 타일당 시간은 max(로드, 연산): 두 유닛이 함께 일하는 걸음은 긴 쪽이 끝나야 끝납니다): **L + C + (N−1)·max(L, C)**. 연산이 로드보다 길면(C ≥ L) 이것은 L + N·C 와 같습니다. 모델이 이 식과 같은지, 그리고 자주 보이는 공식 L + N·max(L, C) 와 어디서 갈리는지 표로 봅니다.
""")
code(r"""
mf = L8.model_vs_formula()
print(mf)
for r in mf["rows"]:
    closed = r["L"] + r["C"] + (r["N"] - 1) * max(r["L"], r["C"])
    print(f"L={r['L']}, C={r['C']}, N={r['N']}: 닫힌 식 {closed:,} = 모델 {r['double']:,}: {closed == r['double']}")
# 예상 출력: 표 … 100 10 4 | 440 410 500 … / 다섯 줄 모두 … : True
""")
md(r"""
로드가 더 길면(L > C) L + N·max(L, C) 는 L − C 만큼 깁니다. 로드 100 / 연산 10 에 쓰면 500 이 되어 "더블 버퍼가 더 느리다"(440/500 = 0.88)는 틀린 결론이 나오고, 손 계산(410)과 모순입니다. N 이 크면 차이는 작습니다(400/200/512: 205,000 대 205,200).

**로드 유닛이 하나라는 가정.** 위 모델은 로드 하나(예: 400 사이클)가 끝나기 전에 다음 로드를 시작하지 못한다고 가정합니다. 그러나 400 사이클은 **지연시간**이지 유닛이 바쁜 시간이 아니고, 실제 GPU 는 여러 로드를 동시에 진행시킵니다. 위젯의 "동시 로드 수"가 그 차이를 보여 줍니다(9절에서 다시).

**버퍼 재사용 규칙이 막대를 정합니다.** 로드 80 / 연산 100 을 더블 버퍼로 그릴 때 로드를 0, 80, 160, 240 에 빈틈없이 그리기 쉽지만, 버퍼가 2개면 타일 2 는 버퍼 0 을 읽는 연산 0 이 끝난(180) 뒤에야 버퍼 0 에 들어갈 수 있습니다(총 시간 480 은 같음). 모델의 막대:
""")
code(r"""
for L, C in ((100, 10), (80, 100)):
    print(f"로드 {L} / 연산 {C}, 더블 버퍼:", L8.bars(pipeline.schedule(4, L, C, stages=2)), sep="\n")
# 예상 출력: 100/10: 로드 [(0, 100), (100, 200), (200, 300), (300, 400)], 연산 [(100, 110), …]
#            80/100: 로드 [(0, 80), (80, 160), (180, 260), (280, 360)]
""")
md(r"""
**점근 속도 향상.** N 이 크면 속도 향상은 (L + C) / max(L, C) 로 갑니다. 최대값은 L = C 일 때 2 입니다: 더블 버퍼링은 많아야 2배입니다.
""")
code(r"""
for L, C in ((400, 2048), (400, 200), (300, 300)):
    big = pipeline.speedup(20_000, L, C)                      # 모델을 타일 20,000개로 (N 이 클수록 점근식에 가까움)
    print(f"L={L}, C={C}: N=20,000 에서 모델 {big:.4f}, 점근식 (L+C)/max(L,C) = {(L + C) / max(L, C):.4f}")
""")
md(r"""
속도 향상 **배수**는 로드가 더 긴 L=400, C=200 쪽이 L=400, C=2048 보다 큽니다. 그렇다고 그쪽이 더 좋은 것은 아닙니다: 싱글 버퍼가 그만큼 나빴을 뿐이고, 총 시간은 여전히 로드가 정합니다(≈ N·L). 로드 지연시간이 사라지는 것, 곧 타일당 시간이 해야 할 일(연산)로 정해지는 것은 연산이 로드보다 긴 쪽입니다.
""")
md(r"""
**"연산 ≥ 지연시간" 조건을 우리 타일로.** 프리페치한 타일 kt+1 은 현재 타일 kt 의 연산이 끝난 뒤에야 쓰입니다. 로드가 **연산하는 동안 진행되는 커널**이라면, 워프가 LDG 를 내고 그 값을 쓰는 STS 에 닿기까지의 시간 안에 로드가 돌아오면 워프는 멈추지 않습니다. 그 시간은 적어도 얼마일까요? 워프는 그 사이에 FFMA 512개(BK·TM·TN)를 내야 하고, 워프 FFMA 하나는 스케줄러의 FP32 레인(SM 레인 ÷ 스케줄러 4개)을 32 ÷ 레인 사이클 동안 씁니다. 같은 스케줄러의 다른 워프가 끼어들면 이 시간은 더 길어질 뿐이므로, 이것이 워프 하나의 **발행 창(issue window)의 하한**입니다.
""")
code(r"""
ffma_per_warp = DB.BK * DB.TM * DB.TN                       # LDG 와 STS 사이의 FFMA (db_overlap)
window = {}
for g in L8.GPUS:
    lanes = occupancy.GPUS[g].fp32_lanes_per_sm // 4         # 스케줄러 하나의 FP32 레인
    window[g] = ffma_per_warp * 32 // lanes                  # 워프 FFMA 하나 = 32 ÷ 레인 사이클
    print(f"{g}: 스케줄러당 레인 {lanes} → FFMA {ffma_per_warp} × {32 // lanes} 사이클 = 창 ≥ {window[g]} 사이클")
here = L8.issue_window_here()                             # GPU 가 있으면 지금 이 GPU 의 창도
if here:
    print(here)
print("LDG 와 STS 사이에 FFMA 가 있는 커널 (4.4절 SASS):", [k for (k, cc), n in ov["between"].items() if n and cc == (9, 0)])
# 예상 출력: A100 … 창 ≥ 1024 / H100, H200 … 창 ≥ 512 / … ['db_overlap']
""")
md(r"""
이 과정에서 재지 않은 가정값 400 사이클(자주 인용되는 글로벌 메모리 지연시간)을 넣으면 창(A100 1024, H100/H200 512 사이클)보다 짧으므로, `db_overlap` 의 워프는 STS 에서 기다리지 않아야 합니다. `db` 에는 이 논증이 **적용되지 않습니다**: 워프가 계산을 시작하기 전에 STS 에서 자기 로드를 기다리기 때문입니다(4.4절). 두 가지 단서: 부하가 걸린 메모리 시스템의 실제 지연시간은 재지 않았고, 지연시간이 로드마다 같다고 가정했습니다. 측정(4.9절)은 논증과 같은 쪽을 가리킵니다: `db_overlap` 의 Long Scoreboard 는 {{st_db_overlap_long_scoreboard}}%, `db` 는 {{st_db_long_scoreboard}}% 입니다.

<details><summary>심화: 블록 전체로 센 타일 시간과는 무엇이 다른가</summary>

3.1절의 1024 사이클(H100/H200)은 블록 하나가 SM 의 레인을 **모두** 혼자 쓸 때 블록의 타일 전체가 걸리는 시간입니다. SM 에 2블록이 있으면 두 블록이 레인을 늘 나눠 쓴다고 가정해 2배로 잡을 수도 있지만, 두 블록이 언제나 동시에 FFMA 를 낸다는 보장이 없으므로 그것은 하한이 아닙니다. 워프 하나의 창은 그런 가정 없이 성립합니다: 워프는 자기 FFMA 512개를 한 사이클에 하나보다 빨리 낼 수 없습니다(H100/H200: 스케줄러당 레인 32).
</details>
""")
md(r"""
## 7. 핵심 정리

* **더블 버퍼링 = 로드와 연산의 시간적 중첩.** 버퍼 두 세트(`As[2]`, `Bs[2]`)를 `kt % 2`, `(kt + 1) % 2` 로 번갈아 씁니다(실제 커널의 공유 메모리 접근으로 확인).
* **프롤로그**가 타일 0 을 채워야 첫 반복이 계산할 수 있고, **반복당 배리어 하나**가 반복 경계의 RAW·WAR 두 위험을 모두 막습니다(빼면 시뮬레이터에서 틀림: `demos/db_no_prologue.py`, `demos/db_no_loop_barrier.py`).
* **파이프라인 모델**: 더블 버퍼 총 시간 = L + C + (N−1)·max(L, C) (손 계산: 로드 100 / 연산 10 이면 410). 속도 향상은 최대 2배((L+C)/max(L,C)).
* **연산 시간은 처리량으로.** 블록 타일 FMA ÷ SM 의 FP32 레인: A100 2048, H100/H200 1024 사이클(블록 하나가 SM 을 혼자 쓸 때). 프리페치가 숨길 수 있는 지연시간의 기준은 워프 하나의 창: FFMA 512개를 내는 시간(A100 1024, H100/H200 512 사이클 이상). 로드가 연산 동안 진행되는 커널에만 적용됩니다.
* **겹침은 SASS 순서가 정합니다.** 기본 구조(`db`)는 모든 STS 가 계산보다 앞이라 워프가 STS 에서 자기 로드를 기다린 뒤에 계산합니다. `db_overlap` 처럼 레지스터로 먼저 읽고, 계산하고, 나중에 저장해야 한 워프 안에서 겹칩니다. PTX 에 적은 순서가 아니라 ptxas 가 배치한 순서가 중요합니다.
* **결과 저장**: `alpha·rC + beta·C`, 경계 검사, `beta == 0` 이면 C 를 읽지 않음. `db_ptx` 의 16 B 벡터 저장은 정렬된 곳에서만, 같은 섹터 수로 4배를 씁니다.
* **성능({{gpu}} 기록, 4.8절)**: 기본 구조의 `db` 는 같은 배치의 싱글 버퍼보다 빠르지 않습니다. {{n_big}}³ 에서 `db_ptx` 와 `db_overlap` 은 짝보다 몇 % 빠르고(한 번의 실행), `db_overlap` 은 {{n_mid}}³ 이상에서 cuBLAS 의 {{pct_db_overlap_2048}}–{{pct_db_overlap_4096}}%, {{n_small}}³ 에서는 {{pct_db_overlap_1024}}% 입니다.
* **스톨 (WarpStateStats 비율)**: `db_overlap` 에서 Long Scoreboard 는 거의 사라지고({{st_db_overlap_long_scoreboard}}%), Math Pipe Throttle 로 옮겨 가지 않았습니다. 스케줄러는 약 {{use1_db_overlap}}% 의 사이클에 명령을 내며 가장 큰 몫은 `not_selected` 입니다(명령 발행이 한계에 가깝다는 해석).
* **공유 메모리 압박**: 더블 버퍼는 17,472 B(버퍼 하나의 2배)지만 점유율을 정하는 것은 레지스터라 A100·H100·H200 에서 SM당 2블록으로 그대로입니다(H200 에서 모델 = CUDA 점유율 API).
* **PTX 캐시 힌트**: `.ca` 는 PTX ISA 가 정의한 연산자이자 ld 의 기본값이라, 캐시 정책으로는 명시해도 기본 로드에 보태는 것이 없습니다. 하지만 SASS 는 다릅니다: 이 컴파일러에서 명시적 `.ca` 는 기본 로드의 `LDG.E` 가 아니라 `ld.relaxed.cta` 와 같은 SASS(`LDG.E.STRONG.SM`)가 됩니다 (3.4절 심화의 탐침). PTX 에서 캐시 연산자는 성능 힌트일 뿐 메모리 일관성 동작을 바꾸지 않습니다(PTX ISA, Cache Operators). 이 커널의 재사용은 공유 메모리에서 일어납니다. `fma.rn.f32` 는 컴파일러가 이미 내는 FFMA 와 같습니다.

## 8. 마스터리 체크포인트 퀴즈

7문항 중 6문항 이상이면 통과입니다. 제출하면 점수와 틀린 문항, 그 문항을 다시 읽을 절이 나옵니다. 정답과 해설은 통과한 뒤에 보입니다. 시도 기록은 로컬 진도 파일에 저장됩니다. 7번은 더블 버퍼 커널의 에필로그(마지막 타일과 결과 저장: 08-2 의 에필로그와 같은 자리)를 직접 쓰는 문제이고, 채점기가 그 코드를 커널에 넣어 **실행**해서 확인합니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("08")
""")
md(r"""
## 9. 다음 단계 미리보기

지금 구조에서 글로벌 메모리의 타일은 **레지스터를 거쳐** 공유 메모리로 갑니다(LDG → 레지스터 → STS). 그래서 (1) 로드한 값을 담을 레지스터가 필요하고, (2) 저장 명령이 로드 결과를 기다리므로 4.4절처럼 명령 순서가 겹침을 좌우합니다. 다음 노트북(09, Level 5: 비동기 복사)에서는 `cp.async` 로 글로벌 → 공유 메모리를 **레지스터 없이 직접, 비동기로** 복사하고(SASS `LDGSTS`), 버퍼를 3개 이상으로 늘려 로드 여러 개를 동시에 진행시킵니다. `cp.async` 는 CC 8.0(sm_80, Ampere) 이상이 필요합니다: 7.5 GPU 에서는 노트북 09 가 그 커널의 실행을 별도 프로세스의 시뮬레이터로 보내고 그렇다고 알립니다 (결과는 같고, 시간은 재지 않음). 6절의 모델에서 "동시 로드 수"를 늘려 보면 왜 버퍼를 늘리는 것이 의미가 있는지 미리 볼 수 있습니다: 로드 유닛이 하나뿐이면 버퍼를 3개로 늘려도 총 시간이 2개와 같습니다.
""")
code(r"""
for S, k in ((2, 1), (3, 1), (3, 2)):
    print(f"버퍼 {S}개, 동시 로드 {k}개: 로드 400 / 연산 200 / 타일 512 → 총 {pipeline.schedule(512, 400, 200, S, loads_in_flight=k).total:,}")
""")


def write(out=OUT):
    return NB.write(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=OUT)
    print("written", write(ap.parse_args().out), len(cells), "cells")
