"""Generate notebooks/09_cp_async_triple_buffering.ipynb (no outputs, fixed cell ids): python -m course.ch09_cp_async.notebook [--out PATH]."""
import argparse
import json
import re
import sys
from pathlib import Path
from course.nbgen import Notebook
from course import figures as _records
from course.figures import records
from sim import occupancy as _occ
from course.ch09_cp_async import lesson as _L9
from course import measure as _measure
import kernels_numba as _kn


ROOT = Path(__file__).resolve().parents[2]
REC = records.load("gpu_h200_level5")
_PCT = {(r.kernel, r.n): 100 * r.ratio for r in REC.rows}
# %p differences are taken between the values as the cells print them (one decimal), so that the prose's figure is
# the difference a student computes from the printed table (76.7 -> 78.6: 1.9, not the unrounded 1.8)
_SHOWN = {k: float(f"{v:.1f}") for k, v in _PCT.items()}
_TF = {(r.kernel, r.n): r.tflops for r in REC.rows}
# H200 FP32 peak of sim/occupancy (132 SMs x 128 lanes x 2 flops x 1980 MHz)
_PEAK = 132 * 128 * 2 * 1980e6 / 1e12
# figures stated in prose: filled in from the record here, never typed
_STAGE_VARIANTS = ("async_vec_s2", "async_vec", "async_vec_s4")      # BK = 8, NUM_STAGES 2 / 3 / 4


def _one(values, what):
    """The one value of a set the prose states for all of them ('세 변형 모두 ...')."""
    assert len(values) == 1, f"{what}: {sorted(values)}"
    return next(iter(values))


FIG = {
    "gpu": REC.gpu, "date": REC.date,
    "regs_db": REC["loaded"]["db_overlap"]["registers"], "regs_vec": REC["loaded"]["async_vec"]["registers"],
    "s_regs": _one({REC["loaded"][k]["registers"] for k in _STAGE_VARIANTS}, "9: the three NUM_STAGES variants' registers"),
    "s_blocks": _one({REC["loaded"][k]["blocks_per_sm"] for k in _STAGE_VARIANTS}, "9: their blocks per SM"),
    "blocks_vec": REC["loaded"]["async_vec"]["blocks_per_sm"], "regs_bk16": REC["loaded"]["async_bk16"]["registers"],
    "blocks_bk16": REC["loaded"]["async_bk16"]["blocks_per_sm"],
    "db_4096": f"{_PCT[('db_overlap', 4096)]:.1f}", "vec_4096": f"{_PCT[('async_vec', 4096)]:.1f}",
    "cublas_4096": f"{_TF[('cuBLAS', 4096)]:.1f}", "peak": f"{_PEAK:.0f}",
    "cublas_of_peak": f"{100 * _TF[('cuBLAS', 4096)] / _PEAK:.0f}",
    "vec_db_gap_1024": f"{_SHOWN[('db_overlap', 1024)] - _SHOWN[('async_vec', 1024)]:.1f}",
    "vec_db_gap_big": f"{max(abs(_SHOWN[('async_vec', n)] - _SHOWN[('db_overlap', n)]) for n in (2048, 4096)):.1f}",
    "stage_step_big": f"{max(abs(_SHOWN[(a, n)] - _SHOWN[(b, n)]) for n in (2048, 4096) for a, b in (('async_vec_s2', 'async_vec'), ('async_vec', 'async_vec_s4'))):.1f}",
}
# §10 question 3: warps per SM of the three stall-measured kernels (blocks per SM x warps per block, as loaded on the H200)
_WPS = {k: (REC["loaded"][k]["blocks_per_sm"], REC["loaded"][k]["threads"] // 32) for k in ("async_vec", "async_bk16", "async_wide")}
_WPS_TEXT = {}
for _k, (_b, _w) in _WPS.items():
    _WPS_TEXT.setdefault((_b, _w), []).append(f"`{_k}`")
FIG["warps_per_sm"] = ", ".join(f"{'·'.join(ks)} {b * w}개 = 블록 {b} × {w}워프" for (b, w), ks in _WPS_TEXT.items())
# compute-sanitizer racecheck on the GPU over the same demos (benchmarks/racecheck_gpu.py)
RACE = records.load("racecheck_h100")
# the common loop's demo (async_common_tail) was named async_seed_tail when this record was made
_COMMON_RACE = RACE["cases"].get("demo_async_common_tail") or RACE["cases"]["demo_async_seed_tail"]
_ASYNC_DEMOS = ["demo_" + n for n in ("async_no_commit", "async_no_wait", "async_wait_too_little",
                                      "async_no_barrier_after_wait", "async_overwrite_pending")]  # §4.1's five
R34 = records.load("gpu_h200_levels34")
_DBS = R34["ncu_stalls"]["metrics"]["db_overlap"]
_B16 = {int(l.split()[0]): [float(x) for x in re.findall(r"([\d.]+)%", l)] for l in REC["explore_bk16"]["table"][1:]}
FIG.update({
    "db_lsb": f"{_DBS['cycles_per_issue']['long_scoreboard']:.2f}", "db_lsb_pct": f"{_DBS['percent']['long_scoreboard']:.1f}",
    "db_ncu_n": R34["ncu_stalls"]["n"], "db_date": R34.date,
    # 08's estimate (lesson.issue_use): warps per scheduler, time-averaged over the profiled grid (sim.occupancy; at
    # 4096³ 1024 blocks of 8 warps run in 4 waves of 264 slots, the last partly empty: 3.88) / sum of cycles per issue
    **{f"issue_{k.split('_')[1]}": f"{100 * u:.0f}" for k, u in _L9.issue_use()["use"].items()},   # as the §9.3 cell prints
    "bk16_gain": "–".join(f"{g:.1f}" for g in sorted({round(_B16[n][1] - _B16[n][2], 1) for n in (2048, 4096)})),
    "race_gpu": RACE.gpu, "race_date": RACE.date, "race_runs": RACE["runs"],
    "race_demos": len(_ASYNC_DEMOS),
    "race_flagged": sum(1 for k in _ASYNC_DEMOS if RACE["cases"][k]["race_reports"]),
    "race_lucky": sum(1 for k in _ASYNC_DEMOS if RACE["cases"][k]["wrong_runs"] == 0),
    "race_common_reports": _COMMON_RACE["race_reports"],
    "race_common_wrong": _records.wrong_clause(_COMMON_RACE["wrong_runs"], RACE["runs"]),
})
# 8.1: a 64 KiB static shared array on the H100 through numba-cuda's linker (benchmarks/gpu_hazards.py)
HAZ = records.load("gpu_hazards_h100")
_S64_NAME = "limits-static_shared_64k"
_S64 = HAZ["cases"][_S64_NAME]["bug"]
_S64_TOOLS = [_S64[t] for t in ("racecheck", "memcheck")]
assert _S64["error"] is None and all(t["rc"] == 0 and not t["errors"] and not t["race_reports"] for t in _S64_TOOLS), \
    "8.1 says the 64 KiB static array ran and compute-sanitizer reported nothing: the record no longer says so"
FIG.update({
    "s64_gpu": HAZ.gpu, "s64_date": HAZ.date, "s64_case": _S64_NAME, "s64_runs": _S64["runs"],
    "s64_kib": int(re.search(r"(\d+)k$", _S64_NAME).group(1)),
    "s64_wrong": _records.wrong_clause(_S64["wrong_runs"], _S64["runs"], last=False),
})
# 4.2's model figures: computed here with sim/occupancy.py and course/ch09_cp_async/lesson.py, never typed

# 9.3 / 13: the wait at wait_group (SASS DEPBAR.LE) in the recorded ncu source view of async_wide without prefetch
_WG = _L9.wait_group_samples()
FIG.update(wg_samples=f"{_WG['samples']:,}", wg_total=f"{_WG['total']:,}", wg_selected=f"{_WG['selected']:,}",
           wg_pct=f"{100 * _WG['samples'] / _WG['total']:.2f}", wg_static=_WG['static'])
assert _WG["samples"] < _WG["total"] / 100, "9.3 says the loop hardly waited at wait_group: the record no longer says so"

_LIM = _L9.stage_limiters("async_copy")                  # GPUs of the table that run cp.async (CC >= 8.0)
_REG = [g for g, by in _LIM.items() if set(by.values()) == {("registers",)} and g != "H200"]
_TIES = {}                                                # (stages tied, resources) -> GPUs
_OTHER = {}                                               # GPUs where registers do not bind at some stage count
for _g, _by in _LIM.items():
    if _g in _REG or _g == "H200":
        continue
    if all("registers" in lim for lim in _by.values()):
        _t = tuple(S for S, lim in _by.items() if lim != ("registers",))
        _TIES.setdefault((_t, tuple(sorted({x for S in _t for x in _by[S]} - {"registers"}))), []).append(_g)
    else:
        _OTHER[_g] = _by


assert all(by[2] == by[3] == ("registers",) for by in _LIM.values()), "4.2's prose: 2 and 3 stages register-bound"


def _stages(t):
    return "·".join(str(S) for S in t) + "단"
_NEED = _kn.get("async_copy").min_cc
FIG.update({
    "h200_smem_kib": _occ.GPUS["H200"].smem_per_sm // 1024,
    "static_kib": _occ.GPUS["H200"].smem_per_block_default // 1024,
    "need_cc": f"{_NEED[0]}.{_NEED[1]}",
    "agree": f"{_measure.AGREE_POINTS:g}",
    "reg_limited": ", ".join(_REG),
    "tied": "".join(f" {', '.join(gs)} 에서는 {_stages(t)}이면 {'·'.join(_occ.LIMITER_KO.get(x, x) for x in res)}도 "
                    f"레지스터와 같은 블록 수에서 걸립니다 (동률: 둘 중 하나만 줄여서는 블록이 늘지 않음)."
                    for (t, res), gs in _TIES.items()),
    "other_limited": "".join(f" {g} 에서는 단마다 제한 요인이 "
                             + ", ".join(f"{S}단 {'·'.join(_occ.LIMITER_KO.get(x, x) for x in lim)}" for S, lim in by.items())
                             + " 입니다." for g, by in _OTHER.items()),
})
def fill(text):
    """Replace each {{name}} by FIG[name], {{name|pair}} by it and its particle (an unknown name is an error)."""
    return _records.fill(text, FIG)



OUT = Path(__file__).resolve().parents[2] / "notebooks" / "09_cp_async_triple_buffering.ipynb"
NB = Notebook("nb09", OUT)
cells, code = NB.cells, NB.code


def md(text):
    NB.md(fill(text))


md(r"""
# 09. Level 5 — 비동기 복사(cp.async)와 트리플 버퍼링 (Triple Buffering)

> **마스터리 체크포인트**: 끝의 퀴즈 10문항 중 **8문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | Ampere 의 비동기 복사 `cp.async` (SASS `LDGSTS`), PTX 명령 세 가지(`cp.async`, `cp.async.commit_group`, `cp.async.wait_group N`), 스레드별 그룹 상태 기계, 버퍼 3개를 링 버퍼(ring buffer)로 돌려 쓰는 트리플 버퍼링, 파이프라인의 꼬리(tail)를 바르게 닫는 법, 16바이트 복사와 정렬된 공유 메모리 배치, SASS 확인, cuBLAS 대비 측정 |
| **실행 환경** | GPU 없이 실행됩니다 (Numba CUDA 시뮬레이터가 자동 선택됨). 시뮬레이터에는 cp.async 가 없으므로 이 과정의 PTX 계층이 **하드웨어와 같은 의미**의 파이썬 대체 함수를 씁니다 (원본을 읽는 시점만 단순화: 4절): 복사는 그것을 보장하는 `wait_group` 에서야 공유 메모리에 도착합니다. SASS 는 GPU 없이 sm_80·sm_90 용으로 컴파일해 읽습니다. cp.async 는 **compute capability 8.0 이상**(Ampere, Hopper)의 GPU 에서만 실행됩니다. 7.5 GPU(예: T4)에서는 레벨 5 커널의 실행을 **별도 프로세스의 시뮬레이터**로 보내고 그렇다고 알립니다 (`kernels_numba/tools/subsim.py`: 결과는 같고, 시간은 재지 않으며, 시뮬레이터의 크기 한도가 적용됩니다). 그래서 노트북은 7.5 GPU 에서도 끝까지 실행되지만 레벨 5 의 GPU 측정은 없습니다. cp.async 없이 로드와 계산을 겹치는 GPU 커널은 노트북 08 의 `db_overlap` 입니다. |
| **선수 노트북** | 07(레지스터 블로킹: 8×8 외적 마이크로커널), 08(더블 버퍼링: 프롤로그, 버퍼 교대, 반복당 배리어). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나 측정한 값**입니다: `ptxas` 의 판정, 상태 기계 모델, 뱅크 모델, GPU 없이 컴파일한 SASS, 시뮬레이터 실행, 그리고 {{gpu}} 에서 **기록한 측정(recorded, {{date}})** 입니다. 글에 나오는 측정값은 노트북을 만들 때 기록 파일에서 채워 넣은 값입니다.
""")
code(r"""
import course
info = course.setup("09")          # 장치 선택(GPU 또는 시뮬레이터)과 배너
import numpy as np
import kernels_numba as kn
from course.ch09_cp_async import lesson as L
from kernels_numba.infra import ptx
from sim import cp_async

SIM = kn.device.SIMULATOR
print("모드:", info["mode"], "| 레벨 5 커널:", [s.name for s in kn.by_level(5)])
""")
md(r"""
## 1. 학습 목표

1. cp.async 의 PTX 명령 세 가지를 **설명**하고, 합법적인 형태를 `ptxas` 로 **확인**한다.
2. 스레드별 그룹과 `wait_group N` 의 의미로 트리플 버퍼링 파이프라인을 **설계**한다 — 꼬리(tail)까지.
3. 레지스터를 거치지 않는 복사의 이점을 **측정값으로 분석**한다 (흔한 설명과 비교해서).
4. SASS 에서 `LDGSTS` (복사), `LDGDEPBAR` (commit), `DEPBAR` (wait) 를 **찾는다** (3.3절에서 각각이 어느 PTX 명령인지 봅니다).
5. NUM_STAGES 를 바꾼 측정으로 트레이드오프를 **평가**한다.

## 2. 사전 복습

답을 먼저 떠올린 뒤 펼쳐 보세요.

1. 더블 버퍼링에서 프롤로그(prologue)는 무엇을 하나요?
2. 8×8 레지스터 블로킹 커널은 레지스터를 대략 몇 개 쓰고, 그것이 점유율에 어떤 한계를 주나요?
3. 롱 스코어보드(Long Scoreboard) 스톨은 무엇을 기다리는 상태인가요?

<details><summary>정답</summary>

1. 메인 루프에 들어가기 전에 첫 타일을 공유 메모리에 채워, 첫 반복부터 계산과 다음 로드를 겹칠 수 있게 합니다.
2. 노트북 07·08 에서 컴파일해 본 것처럼 120~128개입니다. 256 스레드 블록이면 SM 의 65,536개 레지스터로 블록 2개가 한계입니다 (129개가 되면 1개).
3. L1 캐시·텍스처 장치(L1TEX)를 거치는 메모리 연산(글로벌·로컬 메모리, 텍스처·서피스)의 결과 레지스터를 읽으려는 명령이 그 연산이 끝나기를 기다리는 상태입니다. 노트북 08 의 커널에서는 주로 글로벌 메모리 로드(LDG)입니다.
</details>

## 3. cp.async: 글로벌 메모리에서 공유 메모리로 곧장

**구체적 비유.** 지금까지는 택배(글로벌 메모리의 데이터)가 반드시 사무실 책상(레지스터)에 올려졌다가 직원이 창고(공유 메모리)로 옮겼습니다. cp.async 는 택배 기사가 창고에 직접 넣는 것입니다. 직원은 "넣어 달라"고 주문만 하고 다른 일을 합니다. 대신 창고에 물건이 **언제** 들어왔는지는 따로 물어봐야 합니다 — 그것이 `wait_group` 입니다.

**표상 (데이터 흐름).**

```
이전 (노트북 08):  글로벌 --LDG--> 레지스터 --STS--> 공유      (명령 2개, 레지스터가 도착을 기다림)
cp.async:          글로벌 -------LDGSTS-------> 공유             (명령 1개, 레지스터 없음, 도착은 나중에)
```

**추상.** cp.async (Ampere, sm_80) 는 스레드가 *발행*하는 복사 명령입니다. 발행 직후 스레드는 다음 명령으로 넘어가고, 데이터는 나중에 공유 메모리에 씁니다. PTX 는 복사가 언제 도착하는지 아무것도 약속하지 않고, 대신 기다리는 방법을 줍니다. 이 노트북이 쓰는 것은 **그룹** 단위의 대기입니다 (이전 cp.async 들의 완료를 mbarrier 로 알리는 `cp.async.mbarrier.arrive` 도 있지만 여기서는 쓰지 않습니다).

### 3.1 세 가지 PTX 명령 — 우리 `.ptx` 파일

이 과정의 PTX 는 명령마다 `kernels_numba/infra/ptx/` 의 `.ptx` 파일 하나에 있고, 커널은 같은 이름의 함수로 그것을 부릅니다 (GPU 에서는 명령 텍스트가 커널 안에 그대로 들어가고, 시뮬레이터에서는 같은 의미의 파이썬 함수). 아래 셀은 파일 하나를 보여 줍니다.
""")
code(r"""
print(open(ptx.FUNCS["cp_async_cg_16"].path).read())
print("cp.async 계열 파일:", sorted(n for n in ptx.FUNCS if n.startswith("cp_async")))
""")
md(r"""
* `cp.async.cg.shared.global [dst], [src], 16;` — 16바이트를 글로벌(`src`, 64비트 주소)에서 공유(`dst`, 32비트 공유 메모리 주소)로 복사합니다. `.cg` 는 L2 에만 캐시(L1 우회), `.ca` 는 L1 에도 캐시합니다.
* `cp.async.commit_group;` — 지금까지 이 스레드가 발행하고 아직 묶지 않은 복사 전부를 **그룹 하나**로 묶습니다. 복사가 하나도 없으면 **빈 그룹**이 생깁니다 (이것이 4절에서 중요합니다).
* `cp.async.wait_group N;` — 이 스레드의 대기 중 그룹(pending group: commit 했지만 아직 완료가 보장되지 않은 그룹)이 **N개 이하**가 될 때까지, 가장 오래된 그룹부터 완료를 기다립니다. N 은 즉시값(immediate)만 됩니다: 그래서 N 마다 파일이 하나씩 있고(`cp_async_wait_group_0` … `_3`), 커널은 컴파일 시간 상수로 고릅니다.
* `cp.async.wait_all;` — `commit_group` 다음 `wait_group 0` 과 같습니다.
* 경계용 **src-size 형태** `cp.async... [dst], [src], 16, src_size;` 는 `src_size` 바이트만 읽고 나머지를 0 으로 채웁니다 (zero-fill).

### 3.2 `.ptx` 파일의 명령이 커널 안으로 들어가는 길

Numba 에는 인라인 PTX API 가 없습니다. 그래서 `kernels_numba/infra/ptx/__init__.py` 가 `.ptx` 파일의 명령 한 줄을 읽어 Numba 의 `@intrinsic` 하나를 만들고, 그 intrinsic 이 LLVM 의 인라인 어셈블리(`llvmlite.ir.InlineAsm`)로 명령 텍스트를 커널 코드 안에 그대로 넣습니다. 필요한 것은 세 가지입니다.

1. **템플릿**: 파라미터 이름을 LLVM 의 `$0, $1, …` 로 바꾼 명령 텍스트 (`asm_template`).
2. **제약 문자열(constraint string)**: 각 `$N` 이 어떤 종류의 레지스터인지 LLVM 에게 알려 줍니다. 문자는 PTX 레지스터 타입에서 나옵니다 (`REG_TYPES`): `r` = 32비트(`.u32`/`.b32`), `l` = 64비트(`.u64`), `f` = `.f32`, `h` = 16비트. 결과에는 앞에 `=` 가 붙습니다. 끝의 `~{memory}` 는 **메모리 클로버(memory clobber)**: "이 명령은 메모리를 읽거나 쓴다"고 선언해서, LLVM 이 공유 메모리 읽기를 이 명령 앞뒤로 옮기지 못하게 합니다. 주소 피연산자가 없는 `commit_group`·`wait_group` 에도 붙는 이유입니다: 없으면 컴파일러가 `As` 읽기를 그것을 지키는 `wait_group` 위로 올릴 수 있습니다.
3. **주소 변환**: 배열 원소 `(As, stage, row, col)` 를 받아 Numba 의 인덱싱과 같은 식으로 주소를 계산합니다. `.shared` 피연산자에는 일반(generic) 주소를 공유 메모리 창(window)의 32비트 주소로 바꿔 넘기고(`cvta.to.shared` 에 해당하는 addrspacecast), `.global` 피연산자에는 64비트 주소를 그대로 넘깁니다.

아래 셀은 우리 PTX 계층이 위 파일에서 만드는 템플릿과 제약 문자열, 그리고 작은 커널 `cp_async_one` 을 GPU 없이 sm_80 용으로 컴파일한 PTX 에서 그 명령이 들어간 자리를 보여 줍니다. `cp_async_one` (`kernels_numba/demos/cp_async_one.py`)은 스레드마다 `async_vec` 과 같은 꼴의 호출 `ptx.cp_async_cg_16(As, stage, row, col, A, row, col)` 을 한 번 하는 커널입니다. GEMM 커널보다 훨씬 짧은 커널이라 컴파일을 덜 기다리고, 호출이 PTX 로 내려가는 모양은 어느 커널에서나 같습니다 (`async_vec` 의 PTX 에서도 같은 세 줄 — 공유 주소 계산, `cvt.u32.u64`, 인라인 명령 — 이 나오는 것을 테스트가 확인합니다).
""")
code(r"""
for name in ("cp_async_cg_16", "cp_async_commit_group"):
    fn = ptx.FUNCS[name]
    print(f"{name:22s} 템플릿: {fn.asm_template():42s} 제약: {fn.constraints()!r}")
print("PTX 타입 -> 제약 문자:", {t: letter for t, (_, letter) in ptx.REG_TYPES.items() if t in ("u32", "u64", "f32", "b16")})
print(L.ptx_inline_excerpt("cp_async_one"))
print("이 커널 PTX 의 cvta 줄 전부:", L.ptx_lines("cp_async_one", "cvta"))
""")
md(r"""
컴파일된 PTX 에서 공유 배열은 심볼 `_cudapy_smem_…` 이고, 그 주소에 원소 오프셋을 더한 값을 32비트로 줄여(`cvt.u32.u64`) `[%r…]` 로 넘깁니다: 공유 메모리 창 안의 주소입니다. 위에서 말한 `cvta.to.shared` 는 보이지 않습니다 (마지막 줄: 이 커널의 `cvta` 는 글로벌 쪽의 `cvta.to.global` 뿐). `.shared` 변수의 이름을 `mov` 로 읽으면 일반 주소가 아니라 그 변수의 **공유 메모리 창 안의 주소**가 나오기 때문입니다 (PTX ISA 의 `mov`: 변수의 주소는 그 상태 공간(state space) 안의 주소이고, 일반 주소가 필요하면 `cvta` 로 바꿈). 그래서 LLVM 이 '일반 → 공유' 변환(addrspacecast)을 접어 없앴고, 창 안의 주소는 32비트에 들어가므로 32비트로 줄여도 값이 그대로입니다. 글로벌 주소 `[%rd…]` 는 64비트 그대로입니다. `// begin inline asm` 과 `// end inline asm` 사이가 `.ptx` 파일의 명령 한 줄이고, 함수 호출(`call`)은 없습니다.

### 3.3 어느 캐시 연산자에 어느 크기를 쓸 수 있나

`cp.async` 에는 캐시 연산자 `.ca` 와 `.cg`, 크기 4·8·16 바이트가 있습니다. 어느 조합이 허용되는지 `ptxas` 에게 직접 물어봅시다 (sm_80, sm_90).
""")
code(r"""
for (ins, arch), (ok, msg) in L.ptxas_verdicts().items():
    print(f"{arch}  {ins:45s} -> {'통과' if ok else '거부'}")
    if not ok:
        print("      ptxas:", msg.splitlines()[0])
""")
md(r"""
`ptxas` 는 sm_80 과 sm_90 모두에서 `.cg` 에 4 와 8 을 거부하고 ("expected to be 16"), `.ca` 는 4·8·16 을 모두 받습니다. `.cg` 는 16바이트 전용이고, 4·8바이트 복사는 `.ca` 로 써야 합니다. 그래서 우리 4바이트 파일은 `cp_async_ca_4.ptx` 입니다 (`.cg` 에 4 를 쓴 예제를 보더라도 ptxas 를 통과하지 못합니다). 아래는 각 파일이 어떤 SASS 명령 하나가 되는지 `ptxas` 와 `cuobjdump` 로 확인한 것입니다.
""")
code(r"""
for name, (ins, sass) in L.ptx_file_sass().items():
    print(f"{name:28s} {ins:48s} -> {sass}")
""")
md(r"""
`.ca` 4바이트는 `LDGSTS.E`, `.cg` 16바이트는 `LDGSTS.E.BYPASS.128` (BYPASS = L1 우회), `commit_group` 은 `LDGDEPBAR`, `wait_group 2` 는 `DEPBAR.LE SB0, 0x2` 입니다. LDGSTS 는 이름 그대로 "Load Global, Store Shared" 한 명령입니다.

## 4. 그룹 상태 기계 — PTX 의 약속을 모델로

PTX 의 그룹 규칙을 모델로 옮긴 것이 `sim/cp_async.py` 의 `AsyncCopyUnit` 입니다. 복사는 **그것을 보장하는 wait 에서야** 공유 메모리에 도착합니다 (PTX 가 허락하는 가장 늦은 시점). 원본은 발행 때 읽는 것으로 단순화했습니다: PTX 는 원본을 언제 읽는지도 약속하지 않으므로, 복사가 끝나기 전에 원본(글로벌 메모리)을 바꾸는 코드의 잘못은 이 모델이 잡지 못합니다 (우리 커널은 A, B 를 바꾸지 않습니다). 시뮬레이터의 대체 함수가 바로 이 모델을 씁니다.
""")
code(r"""
u = cp_async.AsyncCopyUnit()
for tile in range(3):                 # 타일 0, 1, 2 를 발행하고 각각 commit -> G0, G1, G2
    u.issue(f"타일 {tile}")
    u.commit()
print("대기 중 그룹:", u.pending_groups)
print("wait_group(2) 가 도착시키는 것:", u.wait_group(2), "| 남은 그룹:", u.pending_groups)
u.issue("타일 3")                      # commit 하지 않은 복사
print("wait_group(0):", u.wait_group(0), "| commit 안 한 복사:", u.uncommitted)
""")
md(r"""
마지막 줄이 핵심입니다: **commit 하지 않은 복사는 어떤 `wait_group` 도 기다리지 않습니다.** 그리고 그룹은 **스레드마다 따로** 입니다. 한 타일은 256 스레드가 나눠 복사하므로, 내 `wait_group` 은 내 몫만 보장합니다. 타일 전체는 모든 스레드가 기다린 뒤의 `__syncthreads()` 가 보장합니다.

### 4.1 빠뜨리면 어떻게 되나 — 시뮬레이터에서 매번

시뮬레이터는 공유 메모리를 NaN 으로 채워 두고, 스레드 하나를 다음 배리어까지 혼자 실행합니다 (하드웨어에서도 합법적인 순서). 그래서 아래의 버그는 **매번** 틀린 답을 냅니다. 버그 데모는 `kernels_numba/demos/async_*.py` 의 실제 모듈로, 각각 올바른 커널 `async_copy` 와 버그 하나만큼 다르고, 그 버그가 바꾼 줄은 한 줄에서 세 줄입니다 (데모 파일의 `# BUG` 주석): commit 없음(프롤로그와 루프의 commit, 두 줄), wait 없음, 너무 적게 기다림(`wait_group(NUM_STAGES)`), wait 뒤 배리어 없음, 대기 중인 버퍼에 또 복사(프롤로그가 버퍼 NUM_STAGES 개를 모두 채우고, 미리 읽기가 한 타일 더 앞서고, wait 의 N 도 그에 맞춘 세 줄. 같은 바이트에 대한 두 대기 중 복사는 도착 순서가 정해지지 않으므로 모델은 그 값을 정의되지 않음 = NaN 으로 만듭니다).
""")
code(r"""
if SIM:                                 # GPU 에서는 버그가 운 좋게 맞을 수 있어 시뮬레이터에서만 보여 줍니다
    for r in L.demo_results():
        print(f"{r['name']:28s} NaN {r['nan']:3d}/{r['size']}  {'맞음' if r['ok'] else '틀림'}")
    print("PASS" if [r["ok"] for r in L.demo_results(("async_copy",))] == [True] else "FAIL")
# 예상 출력: 버그 데모 다섯 개는 NaN 256/256 틀림, async_copy 는 NaN 0/256 맞음, 마지막 줄 PASS
""")
md(r"""
틀린 답은 "무언가 틀렸다"만 알려 줍니다. 시뮬레이터는 **경쟁 검출기**(race detector)도 함께 돌립니다. 공유 메모리에서는 GPU의 `compute-sanitizer --tool racecheck` 에 해당하고, racecheck 가 보지 않는 글로벌 메모리의 경쟁(예: 블록들이 원자 연산 없이 같은 C 원소에 더하기)과, 블록의 어떤 스레드도 아직 쓰지 않은 공유 메모리를 읽는 것(초기화되지 않은 읽기, uninitialised read)도 보고합니다. 배리어와 배리어 사이의 한 구간에서 서로 다른 두 스레드가 같은 원소를 건드리고 그중 하나가 쓰기이면 경쟁입니다. cp.async 의 쓰기는 발행부터 그것을 보장하는 wait 까지 "날아가는 중"(in flight)이라, 그 사이의 접근은 (복사한 스레드 자신의 접근이라도) 경쟁이고, wait 뒤라도 배리어 전의 다른 스레드의 접근은 경쟁입니다.

검출기가 기억하는 것은 원소마다 그 구간의 **마지막 쓰기 하나와 읽은 스레드 둘**(원자 연산이면 둘 더)입니다. 새 접근을 그것들과 맞춰 보므로, 스레드를 어떤 순서로 돌렸는지와 상관없이 경쟁이 있는 원소는 반드시 보고되고 한 가지 실행 순서로는 틀린 답이 나오지 않는 경쟁도 잡힙니다. 다만 가능한 **모든 접근의 쌍**을 보고하지는 않습니다: 한 원소를 셋 이상이 읽으면 기억한 접근과의 쌍만, 그리고 같은 종류·같은 두 줄의 경쟁은 한 번만(횟수와 함께) 보고합니다. 두 접근 중 프로그램 순서(program order)로 무엇이 앞인지(그래서 쓰기 후 읽기인지 읽기 후 쓰기인지, 배리어를 어디에 둘지)는 줄 번호가 아니라 각 스레드가 그 구간에서 실제로 지난 줄로 정합니다. 보고의 "프로그램 순서 앞 / 뒤" 가 그 순서이고, 시뮬레이터가 이번에 어느 쪽을 먼저 실행했는지는 따로 한 줄로 나옵니다. 보고는 두 스레드, 두 커널 줄(노트북 셀이면 `셀 In [n] 3행` 처럼 셀 번호로), K 타일 `kt`, 고치는 법을 말합니다. 못 보는 것도 있습니다: 시간(성능), 블록 사이를 깃발(flag)과 메모리 펜스로 동기화하는 코드(경쟁으로 보고됨), 글로벌·로컬 메모리의 초기화되지 않은 읽기 (전체 목록: README 의 "시뮬레이터가 보장하는 것과 못 보는 것"). 버그 데모는 검출기를 "모으기" 모드로 돌려, 커널이 끝까지 돌아 틀린 답을 내고 보고도 남깁니다 (평소 커널은 첫 보고에서 오류로 멈춤).

GPU 에서는 어떨까요? {{race_gpu}} 에서 ({{race_date}}) 위 데모 중 {{race_demos}}개를 `compute-sanitizer --tool racecheck` 로 돌리면 {{race_flagged}}개 모두 경쟁으로 보고되지만, 검사 없이 {{race_runs}}번씩 실행하면 그중 {{race_lucky}}개는 {{race_runs}}번 모두 **맞는 답**을 냈습니다 (`course/recorded/racecheck_h100.json`). 하드웨어에서는 복사가 대개 제때 끝나기 때문으로 보입니다 (해석). 4.3절의 꼬리 버그(`async_common_tail`)도 racecheck 는 경쟁 {{race_common_reports}}건을 보고했지만, 검사 없이 실행하면 {{race_common_wrong}}. 맞는 답은 경쟁이 없다는 증거가 아닙니다.
""")
code(r"""
from course import racereport
from kernels_numba.demos import async_no_barrier_after_wait as demo
racereport.show(racereport.run_demo(demo.launch, 16, 16, 40))
# 예상 출력 (시뮬레이터): 틀린 답, RAW 경쟁 요약, 그리고 첫 경쟁의 두 스레드·두 줄·kt·해결 (GPU 에서는 안내 한 줄)
""")
md(r"""
### 4.2 트리플 버퍼링: 버퍼 3개를 링 버퍼로

NUM_STAGES = 3 이면 공유 메모리에 타일 버퍼가 3세트 있고, 반복 `kt` 는 버퍼 `kt % 3` 으로 계산하면서 타일 `kt + 2` 를 버퍼 `(kt + 2) % 3` 으로 미리 읽습니다. 버퍼를 이렇게 돌려 쓰는 구조가 링 버퍼(ring buffer)입니다. 아직 도착하지 않은(in flight) 타일 로드가 동시에 2개(더블 버퍼링은 1개)까지 있을 수 있어서, 로드 지연이 계산 시간의 두 배에 가까워도 숨길 수 있습니다. 아래 셀은 노트북 08 의 파이프라인 모델(`sim/pipeline.py`)로 로드 6, 계산 2단위인 타일 6개의 총 시간을 셈하고, 같은 모델을 노트북 08 의 타임라인 위젯으로 그립니다. 위젯은 트리플 버퍼링(버퍼 3개, 동시 로드 2개)에서 열립니다: 막대의 `타일|버퍼` 표시와 빗금이 링 버퍼를 보여 주고, 로드 줄은 동시에 진행 중인 로드마다 하나입니다. **버퍼 수를 2, 동시 로드 수를 1 로** 바꾸면 더블 버퍼링입니다. 모델의 가정입니다: 실제 커널의 로드·계산 시간은 아닙니다.
""")
code(r"""
from course.widgets.pipeline import pipeline_explorer
for S in (2, 3):                                  # 더블 버퍼링(로드 1개 진행), 트리플 버퍼링(로드 2개 진행)
    print(f"버퍼 {S}개, 동시 로드 {S - 1}개: 총 {L.timeline(S)[1]} 단위")
timeline = pipeline_explorer(t_load=6, t_comp=2, n_tiles=6, stages=3, loads_in_flight=2,
                             maxima={"t_load": 20, "t_comp": 20, "n_tiles": 16, "t_sync": 10})
timeline
""")
md(r"""
더블 버퍼링에서는 로드가 한 번에 하나라 계산이 매번 다음 로드를 기다립니다(위젯의 연산 줄에 긴 빈칸). 트리플 버퍼링에서는 두 로드가 겹쳐 진행되어, 같은 6타일이 더 짧은 시간에 끝납니다(총 시간). 이 가정에서는 로드가 계산보다 세 배 길어서 트리플 버퍼링에서도 계산이 조금씩 기다립니다. 대가는 공유 메모리입니다. 패딩된 배치 `As[S][128][9]`, `Bs[S][8][129]` (`async_copy`) 와 패딩 없는 배치(`async_vec`)의 크기, 그리고 그것이 SM당 블록 수를 제한하는지를 점유율 모델(`sim/occupancy.py`, H200, 레지스터 128개, 256 스레드)로 계산해 봅시다.
""")
code(r"""
from sim import occupancy
for S in (2, 3, 4):
    o = occupancy.occupancy("H200", 128, 256, L.smem_bytes(S))
    print(f"NUM_STAGES={S}: 패딩 {L.smem_bytes(S):6,} B | 패딩 없음 {L.smem_bytes(S, pad=0):6,} B | SM당 블록 한도: "
          f"공유 메모리 {o.limits['shared memory']}, 레지스터 {o.limits['registers']} -> {o.blocks_per_sm}")
print(L.stage_limiter_report("async_copy"))   # 같은 모델, cp.async 가 도는 다른 GPU 들 (패딩 배치)
here = L.stage_limits_here()          # GPU 가 있으면 같은 계산을 지금 이 GPU 의 한도로
if here:
    print(here)
""")
md(r"""
SM 하나의 공유 메모리(H200 에서 최대 {{h200_smem_kib}} KiB 까지 배정)는 이 크기의 블록을 여러 개 담으므로 H200 에서는 공유 메모리가 블록 수를 제한하지 않고, 제한은 레지스터입니다 (5절). 같은 모델로 계산하면(레지스터 128개, 256 스레드일 때; 위 셀의 GPU별 줄) cp.async 가 도는(CC {{need_cc}} 이상) 다른 GPU 에서도 2단과 3단의 제한은 레지스터이고, {{reg_limited}} 에서는 4단도 레지스터입니다.{{tied}}{{other_limited}} CC {{need_cc}} 미만 GPU 에서는 cp.async 커널이 돌지 않으므로 이 표가 없습니다. GPU 가 있으면 위 셀이 그 GPU 의 값(또는 돌지 않는다는 한 줄)을 보여 줍니다. 블록당 {{static_kib}} KiB 라는 정적 선언의 한도(8.1절)는 **블록 하나**의 크기 한도이지 SM당 블록 수의 한도가 아닙니다.

### 4.3 파이프라인 구조와 반복 추적

먼저 commit 을 로드 조건 안에 둔 루프(이 노트북에서 "흔한 루프"라고 부름)를 봅니다: 프롤로그에서 타일 `0 .. S-2` 를 발행하고 각각 commit, 메인 루프에서 `if kt+S-1 < 타일 수: 발행 + commit`, 그다음 `wait_group(S-1)`, 배리어, 계산, 배리어.

아래 위젯은 4절의 그룹 규칙(`sim/cp_async.py` 의 `run_loop`)으로 그 루프를 S = 3, 타일 8개에 대해 **한 단계씩** 돌립니다. 왼쪽은 지금 실행하는 코드 줄, 오른쪽은 대기 중 그룹(오래된 것부터, 새로 commit 한 그룹은 주황 테두리, 이번 wait 에서 도착한 그룹은 줄을 그어 "도착")과 버퍼마다의 상태입니다: 발행됨 → commit 되어 날아가는 중 → wait 로 도착(이 스레드 몫만) → 배리어 뒤 블록 전체에 보임 → 계산. **다음 ▶** 은 한 단계, **다음 wait ▶▶** 은 다음 `wait_group` 으로 갑니다. 위젯은 꼬리의 첫 wait(kt = 6)에서 열립니다: 단계 슬라이더를 0 으로 돌려 프롤로그부터 따라가 보고, "루프" 를 `async_copy` 로 바꿔 같은 자리를 비교해 보세요.
""")
code(r"""
from course.widgets.cp_async import cp_async_stepper
stepper = cp_async_stepper("common", num_tiles=8, loops=("common", "async_copy"), at=(6, "wait"))
print(stepper.describe())                 # 위젯이 연 단계를 글로
# 예상 출력: kt=6 · wait_group 2: 대기 중 그룹이 2개로 이미 2개 이하라 아무것도 기다리지 않고 지나갑니다 (도착하는 그룹 없음).
stepper
""")
md(r"""
kt = 0 … 5 에서는 의도대로입니다: 새 그룹을 하나 commit 하면 대기 중 그룹이 3개가 되고, `wait_group(2)` 가 가장 오래된 그룹 — 바로 버퍼 `kt % 3` 의 타일 — 을 끝냅니다 (위젯에서 kt = 0 의 wait: "도착(landed): G0[t0]").

**그러나 마지막 두 반복은 다릅니다.** kt = 6 에서 대기 중 그룹은 {G6, G7} 두 개뿐이라 `wait_group(2)` 는 **아무것도 기다리지 않고** 통과하고, 타일 6 은 도착이 보장되지 않은 채 계산됩니다. kt = 7 도 마찬가지입니다. 아래 표는 타일 수마다 보장 없이 처음 읽히는 타일입니다 (흔한 루프 / 우리 루프, None 은 그런 타일이 없음).
""")
code(r"""
print("S  타일수  흔한 루프: 보장 없이 처음 읽히는 타일  우리 루프")
for S, T, common, ours in L.tail_table(stages=(2, 3, 4), tiles=(1, 2, 3, 4, 5, 8)):
    print(f"{S}  {T:5d}  {str(common):>22s}  {str(ours):>9s}")
""")
md(r"""
타일 수와 상관없이 **마지막 S-1개 타일**이 보장 없이 읽힙니다 (타일이 S-1개 이하이면 모든 타일). GPU 에서는 복사가 대개 제때 끝나서 맞는 답이 나올 때가 많지만, PTX 는 그것을 약속하지 않습니다. 시뮬레이터는 약속된 것만 하므로 이 루프(`demos/async_common_tail.py`)는 틀린 답을 냅니다: 타일 5개면 타일 3, 4 자리에 버퍼에 남아 있던 타일 0, 1 이 다시 더해집니다.

**고치는 법**: commit 을 로드 조건 밖으로 빼서 **매 반복 그룹을 하나씩** (타일이 없으면 빈 그룹) commit 합니다. 그러면 반복 kt 의 wait 직전에 항상 S + kt개의 그룹이 commit 되어 있고, `wait_group(S-1)` 은 언제나 그룹 0 … kt, 즉 타일 kt 를 끝냅니다. 프롤로그도 타일이 모자라면 빈 그룹을 commit 합니다. CUTLASS 의 multistage 메인 루프도 같은 방법을 씁니다: CUTLASS 에서 `commit_group` 을 감싼 함수의 이름이 `cp_async_fence()` 이고, 그 루프는 매 반복 그것을 부릅니다. 다른 방법은 꼬리에서 `wait_group 0` 으로 바꾸는 것입니다 (11절 샌드박스의 꼬리 처리 세 번째 선택).
""")
code(r"""
if SIM:
    bad = L.check("async_common_tail", 16, 16, 40)
    good = L.check("async_copy", 16, 16, 40)
    print("흔한 루프:", "맞음" if bad["ok"] else f"틀림 (최대 오차 {bad['max_err']:.1f})", "| 우리 루프:", "맞음" if good["ok"] else "틀림")
    print("PASS" if good["ok"] and not bad["ok"] else "FAIL")
# 예상 출력: 흔한 루프: 틀림 (최대 오차 ...) | 우리 루프: 맞음, 그리고 PASS
""")
NB.exercise("09-1", r"""
이제 루프를 직접 씁니다. 작은 3단 커널입니다: 블록 하나가 C 의 8×8 타일을 맡고 스레드 64개(8×8)가 C 원소 하나씩 계산하며, K 타일도 8 입니다. 준비된 장치 함수 세 개를 씁니다.

* `issue_tile(A, B, As, Bs, stage, t)`: 이 스레드가 K 타일 `t` 의 A 원소 하나, B 원소 하나를 4바이트 cp.async 로 버퍼 `stage` 에 발행합니다 (행렬 밖은 src-size 0 으로 0). commit 은 하지 않습니다.
* `prologue(A, B, As, Bs, n_tiles)`: 타일 0, 1 을 버퍼 0, 1 에 발행하고 각각 commit 합니다 (타일이 모자라면 빈 그룹).
* `compute_tile(As, Bs, stage, acc)`: 버퍼 `stage` 의 k 8개를 이 스레드의 `acc` 에 더해 돌려줍니다.

반복 하나를 **배리어 하나**로 쓰세요: wait → 배리어 → 타일 `kt + 2` 발행(있을 때만, 버퍼 `(kt + 2) % 3`) → commit → 계산. 위의 흔한 루프와 순서가 다르므로 `wait_group` 의 N 은 직접 세어 정하세요: 이 반복의 wait 직전까지 commit 한 그룹이 몇 개이고, 타일 kt 의 그룹까지 끝나려면 몇 개가 대기 중으로 남아도 되나요? N 은 즉시값이라 `ptx.cp_async_wait_group_0()` … `_3()` 중 하나를 부릅니다. 확인 셀은 K 타일 1·2·5개의 모양을 (GPU 가 없으면 시뮬레이터의 경쟁 검출기와 함께) 돌리고, 루프가 실제로 부른 wait·배리어·발행·commit·계산의 순서와 인자를 지켜봅니다. 틀리면 어느 반복의 어느 규칙(N, 배리어, 미리 읽는 거리, 버퍼, 꼬리의 commit)이 어긋났는지 그 줄과 함께 알려 주고, 값이 맞아도 반복에 배리어가 둘이거나 다음 타일의 복사까지 기다려 겹침이 없으면 따로 알려 줍니다.
""")
md(r"""
## 5. 레지스터 우회 — 측정하면

cp.async 의 복사는 레지스터를 거치지 않습니다. 그러면 커널의 레지스터가 줄어 SM 에 블록이 더 올라갈까요? 이 과정의 두 커널을 H200 에 올려 읽은 값(기록된 측정)으로 봅니다: 레지스터를 거치는 더블 버퍼링 `db_overlap` 과 cp.async 의 `async_vec`.
""")
code(r"""
rec, ratios, cublas = L.recorded_ratios()
for name in ("db_overlap", "async_copy", "async_vec"):
    r = rec["loaded"][name]
    loop = {k: v for k, v in r["main_loop"].items() if k != "LDS"}        # LDS: 8절
    print(f"{name:11s} 레지스터 {r['registers']:3d}  공유 {r['shared_bytes']:6,} B  SM당 블록 {r['blocks_per_sm']}  루프 {loop}")
print("측정:", rec.gpu, rec.date)
here = L.loaded_here(("db_overlap", "async_copy", "async_vec"))    # GPU 가 있으면 지금 이 GPU 에 올라간 값
if here:
    print(here)
""")
md(r"""
{{gpu}} 에서 `db_overlap` 은 레지스터 {{regs_db}}개, `async_vec` 은 {{regs_vec}}개이고 둘 다 SM당 {{blocks_vec}}블록입니다. 노트북 08 의 `db_overlap` 은 다음 타일을 `LDG` 로 레지스터에 읽어 두었다가 계산 뒤에 `STS` 로 공유 메모리에 씁니다. 그 사이 값을 들고 있는 레지스터가 **스테이징 레지스터(staging register)** 이고, 스레드당 8개입니다. cp.async 에서는 이것이 필요 없지만, 그 이득은 누산기(accumulator) 64개와 공유 메모리에서 읽은 A·B 원소를 담는 레지스터 배열(`a`, `rB`)이 레지스터의 대부분을 차지하는 이 커널에서는 보이지 않습니다. `async_vec` 은 오히려 `launch_bounds=(256, 2)` 를 달아야 했습니다. 이 옵션은 컴파일러에게 "블록당 스레드 256개, SM당 최소 2블록"을 약속하는 것으로, `ptxas` 는 스레드당 레지스터를 65,536 / (256 × 2) = 128개 이하로 맞춥니다. 상한 없이 컴파일하면 몇 개가 되는지 아래 셀이 GPU 없이 컴파일해 세고, 그 레지스터로 SM당 블록 수를 점유율 모델(`sim/occupancy.py`)로 계산합니다.
""")
code(r"""
ub = L.unbounded_blocks("async_vec")    # sm_80 → A100, sm_90 → H100·H200 (GPU 가 있으면 지금 이 GPU 도)
print(ub)
# 예상 출력: sm_80, sm_90 모두 레지스터 128개 초과 -> A100, H100, H200 에서 SM당 1블록 (제한 요인: 레지스터)
""")
md(r"""
상한 없이는 128개를 넘어 A100·H100·H200 에서 SM당 1블록이 됩니다. "cp.async 로 레지스터가 줄어 점유율이 오른다"는 설명은 이 커널들에는 맞지 않습니다. cp.async 의 차이는 점유율이 아니라 **루프의 명령**에 있습니다: `db_overlap` 의 루프에는 `LDG` 16 + `STS` 8개가, `async_vec` 에는 `LDGSTS` 와 `LDGDEPBAR`·`DEPBAR` 가 있습니다. 기다림이 없어지는 것은 아닙니다: `db_overlap` 은 `STS` 가 `LDG` 의 결과 레지스터를 기다리고, `async_vec` 은 `DEPBAR.LE` (`wait_group`) 에서 복사 그룹을 기다립니다. `db_overlap` 의 스톨은 노트북 08 4.9절의 다른 기록({{db_date}}, {{db_ncu_n}}³)에서 쟀습니다: `long_scoreboard` 는 명령당 {{db_lsb}} 사이클({{db_lsb_pct}}%)로 거의 없습니다 (크기·날짜가 달라 9.3절과 나란히 비교하지 않습니다). 같은 실행의 속도는 4096³ 에서 `db_overlap` {{db_4096}} %, `async_vec` {{vec_4096}} % 로 같은 수준입니다.

## 6. 벡터화: 16바이트 복사와 정렬된 배치

4바이트 복사(`async_copy`)는 스레드가 타일마다 8번 복사를 발행합니다. 16바이트(`cp.async.cg ... 16`)면 A 한 번, B 한 번입니다: A 타일 128×8 은 256 스레드가 `tid // 2` 행, `(tid % 2) * 4` 열의 float4 하나씩, B 타일 8×128 은 `tid // 32` 행, `(tid % 32) * 4` 열. 읽는 바이트와 섹터(sector, 32 B)는 그대로이고 워프 단위 명령 수가 4분의 1 로 줄어듭니다. 아래 셀이 두 폭의 명령·섹터 수를 셉니다.
""")
code(r"""
for width, w in L.warp_requests_per_tile().items():
    print(f"{width:2d} B 복사: 스레드당 {w['copies_per_thread']}번, 블록의 워프 명령 {w['warp_instructions']}개, 읽는 섹터 {w['sectors']}개")
""")
md(r"""
**정렬 규칙**: 그런데 16바이트 복사에는 조건이 있습니다. 원본과 목적지가 모두 16바이트 정렬이어야 합니다. 이전 레벨의 패딩 배치 `As[..][BK+1]` 은 행 간격이 36 B, `Bs[..][BN+1]` 은 516 B 라서 행 시작이 16 의 배수가 아닙니다. 타일당 256번 복사 중 몇 번이 어긋나는지 세어 봅시다.
""")
code(r"""
print("패딩 배치 (BK+1, BN+1):", L.misaligned_copies(pad_k=1, pad_n=1))
print("정렬 배치 (패딩 없음)  :", L.misaligned_copies(pad_k=0, pad_n=0))
print(L.misaligned_copy_error()[:160], "...")
""")
md(r"""
패딩 배치에서는 A, B 모두 256번 중 192번이 어긋납니다 (4행 중 3행). GPU 에서는 "misaligned address" 오류로 커널이 멈추고, 시뮬레이터의 대체 함수도 주소와 배열 배치를 밝히며 멈춥니다. 그래서 `async_vec` 은 **패딩 없는** `As[S][128][8]`, `Bs[S][8][128]` 을 `alignment=16` 으로 선언합니다.
""")
NB.exercise("09-2", r"""
정렬 규칙을 지키는 매핑을 직접 써 봅시다. 블록 타일 32×32, K 타일 8, 스레드 64개인 작은 커널에서 스레드 `tid` 는 A 타일(32×8)의 float4 하나와 B 타일(8×32)의 float4 하나를 `ptx.cp_async_cg_16(As, stage, 행, 열, A, 글로벌 행, 글로벌 열)` 로 복사합니다. 공유 배열은 패딩 없이 `alignment=16` 으로 선언되어 있고, 이번에는 행렬 안의 타일만 다룹니다 (경계는 다음 해보기). 6절 처음의 매핑은 128×8·8×128 타일의 것이었습니다: 그 규칙(한 행에 float4 가 몇 개인가)을 이 타일 모양에 맞게 A 와 B 에 따로 적용하세요. 확인 셀은 블록 4개 × 버퍼 3개를 복사해 공유 메모리에 도착한 값을 원소마다 비교하고, 시뮬레이터가 본 복사가 스레드마다 16바이트 두 번인지도 봅니다 (4바이트 복사 여러 번이나 일반 읽기·쓰기로 채운 타일은 값이 맞아도 PASS 가 아닙니다). 한 워프(tid 0–31)의 복사가 건드리는 섹터(32 B) 수도 셉니다: 이웃한 tid 가 한 행을 이어 읽으면 섹터를 꽉 채워 쓰고, 다른 행으로 흩어지면 섹터마다 일부만 쓰고 나머지를 다른 워프가 다시 요청합니다 (값이 맞아도 PASS 가 아닙니다). 파이프라인에서처럼 버퍼 번호 `stage` 와 K 타일 번호 `kt` 는 다릅니다(버퍼 0·1·2 에 K 타일 3·0·4). 어긋난 주소는 시뮬레이터가 스레드를 밝혀 멈춥니다.
""")
md(r"""
패딩은 뱅크 충돌을 피하려고 있었습니다. 없애면 무엇을 잃고 얻는지 보려면 먼저 컴파일된 커널이 공유 메모리를 **어떤 명령으로** 읽는지 알아야 합니다. 소스의 `_outer_products` 는 A 를 k 두 개씩(8 B) 읽지만, 루프가 펼쳐져 있어서 이웃한 두 호출의 읽기가 16 B 읽기 하나로 합쳐질 수 있습니다. 누가 합칠까요? 아래 셀은 GPU 없이 컴파일해, NVVM(LLVM)이 낸 PTX 의 공유 메모리 읽기(`ld.shared` 의 폭별 개수)와 `ptxas` 가 낸 메인 루프의 SASS 읽기 명령을 나란히 셉니다 (8절에서 SASS 를 더 봅니다). 마지막 줄이 그 데이터에서 답을 읽습니다.
""")
code(r"""
print(L.read_widths("async_vec"))      # 타깃마다: PTX 의 ld.shared 폭별 개수 → 메인 루프의 LDS 종류별 개수
# 예상 출력: sm_80: PTX {'ld.shared.v4.f32': 32, …: 0} → 메인 루프 SASS {'LDS.128': 32} / sm_90 … / 이 컴파일러: NVVM 이 … 16 B 읽기 … 모두 LDS.128 입니다.
""")
md(r"""
이 강좌의 컴파일러(`kernels_numba/infra/targets.json` 의 도구 모음)에서는 NVVM 이 PTX 를 만들 때 이미 두 호출의 읽기를 `ld.shared.v4.f32` 하나로 합쳤고, `ptxas` 는 그것을 `LDS.128` 로 옮길 뿐입니다. 모든 읽기가 16 B 이면 그 수는 소스가 정합니다: 타일당 A 16개(행 8개 × k 4개씩 2번), B 16개(k 8개 × 두 번). 다른 컴파일러에서는 위 셀의 수가 다를 수 있고, 그때는 셀의 마지막 줄이 그렇다고 말합니다. 이것을 뱅크 모델(`sim/banks.py`)로 세어 봅니다 (한 K 타일, 워프당 요청 수와 웨이브프론트(wavefront) 수). 16 B 접근을 하드웨어가 어떻게 나눠 처리하는지는 문서에 없어서, 모델에는 두 규칙이 있습니다: 워프 전체를 한 번에 보는 "words" 와 4분의 1워프씩 처리하는 "phases" (9.2절에서 기록으로 확인하는 것은 8 B 접근의 규칙입니다).
""")
code(r"""
for rule in ("words", "phases"):
    for layout, r in L.compute_read_wavefronts(rule).items():
        print(f"{rule:6s} {layout:8s} A: 요청 {r['A_requests']:2d}, 웨이브프론트 {r['A_wavefronts']:3d} | "
              f"B: 요청 {r['B_requests']:2d}, 웨이브프론트 {r['B_wavefronts']:3d}")
""")
md(r"""
패딩 배치(`async_copy`, 스칼라 읽기)는 타일당 요청 128개, 웨이브프론트 320개입니다 (4 B 접근이라 두 규칙이 같습니다). 특히 B 는 한 워프의 16 스레드가 8열씩 떨어진 열을 읽어 4-way 충돌이 납니다 (요청 64, 웨이브프론트 256). 정렬 배치(`async_vec`)는 요청 32개로 4분의 1 이고, 웨이브프론트는 "words" 규칙으로 64개, "phases" 규칙으로 128개입니다. "words" 규칙에서 A 읽기 하나가 웨이브프론트 2개인 것은, 한 워프의 두 스레드 행(8행 차이 = 256 B)이 같은 뱅크에 떨어지는 2-way 충돌입니다. 어느 규칙이든 패딩을 없앤 배치가 요청도 웨이브프론트도 적습니다.

**경계**: 행렬 밖 원소는 읽지 않고 0 으로 채워야 합니다. `async_vec` 은 (1) 블록 전체가 행렬 안이고 행이 정렬되어 있으면 검사 없는 16 B 복사, (2) 벡터 4개가 전부 밖이면 src-size 0 의 16 B 복사(읽지 않고 0 16바이트), (3) 일부만 안이거나 행 시작이 어긋나면(K 또는 N 이 4 의 배수가 아님) 4바이트 복사 4번(각각 src-size 4 또는 0)을 씁니다. src-size 4~12 의 16 B 복사 하나도 PTX 로는 합법이지만 우리 커널은 쓰지 않습니다. 7절의 기록된 compute-sanitizer 실행이 확인한 것은 4바이트 복사를 쓰는 이 형태입니다.
""")
NB.exercise("09-3", r"""
경계를 16바이트 복사 **하나**로 처리해 봅시다: src-size 형태 `cp.async.cg.shared.global [dst], [src], 16, src_size;` 는 `src_size` 바이트만 읽고 나머지를 0 으로 씁니다 (`ptx.cp_async_cg_16_zfill(S, stage, srow, scol, X, r, c, src_size)`). 여기서는 X 의 행 길이를 4 의 배수로 늘려 두어 모든 행이 16 B 정렬입니다. 그래서 행렬의 열 수 `cols` 는 X 의 행 길이보다 작을 수 있습니다: 경계는 `rows`, `cols` 로만 판단하세요. 행렬 밖의 float 는 읽지 말고(0 으로 도착) 안의 float 는 모두 읽어야 합니다. 하나도 읽지 않는 복사(src-size 0)에도 이 과정은 `async_vec` 처럼 X 안의 주소를 줍니다. 확인 셀은 경계에 걸친 float4 (안쪽 float 가 1, 2, 3개)와 통째로 밖인 float4 가 있는 일곱 모양에서 복사된 타일을 원소마다 비교하고, 틀리면 복사마다 넘긴 src-size 를 보고 어느 스레드의 어떤 값이 틀렸는지 알려 줍니다 (X 의 행렬 밖 자리에는 7777 이 들어 있습니다). 값이 맞으면 시뮬레이터가 본 복사도 봅니다: 스레드마다 16바이트 cp.async 하나여야 합니다 (통째로 밖인 float4 도 src-size 0 의 복사 하나). 4바이트 복사 여러 번이나 일반 읽기·쓰기로 채운 타일은 값이 맞아도 PASS 가 아닙니다.
""")
md(r"""
## 7. 우리 커널 전체 읽기: `kernels_numba/async_vec.py`

NUM_STAGES 는 모듈 상수이고 `make_kernel(NUM_STAGES)` 가 커널을 만듭니다 (`async_vec_s2`, `async_vec_s4` 는 같은 소스를 2단, 4단으로 만든 모듈). 아래 셀이 커널 소스를 줄 번호와 함께 보여 줍니다.
""")
code(r"""
course.show_source(kn.get("async_vec").module.make_kernel)
""")
md(r"""
커널이 부르는 장치 함수(device function) 세 개입니다: `copy_vec` (경계를 처리하는 16 B 복사), `_outer_products` (k 두 개의 외적 8×8), `store_C` (에필로그, epilogue).
""")
code(r"""
vec = kn.get("async_vec").module
for f in (vec.copy_vec, vec._outer_products, vec.store_C):
    course.show_source(f)
""")
md(r"""
읽는 순서:

* **공유 메모리**: `As = cuda.shared.array((NUM_STAGES, BM, BK), float32, alignment=16)` — `[버퍼][m][k]`, 행 32 B. `Bs` 는 `[버퍼][k][n]`, 행 512 B. 모든 16 B 복사의 목적지가 정렬됩니다.
* **프롤로그**: 타일 `0 .. S-2` 의 복사를 발행하고 **매번 commit** (타일이 모자라면 빈 그룹).
* **루프 ① wait**: 반복 kt 직전까지 `S-1+kt` 개 그룹이 commit 되었으므로 `wait_group(S-2)` 가 그룹 0 … kt, 곧 내 몫의 타일 kt 를 끝냅니다.
* **루프 ② 배리어 하나**: (1) 모든 스레드의 타일 kt 복사가 도착했고, (2) 모든 스레드가 타일 kt-1 계산을 마쳤습니다. (2) 덕분에 바로 다음에 버퍼 `(kt-1) % S` 를 다시 채울 수 있습니다. `async_copy` 의 루프(4.3절의 흔한 루프와 같은 순서에 commit 만 매 반복)는 미리 읽기를 wait 앞에 두어서 계산 뒤에 배리어가 하나 더 필요합니다 — 우리 순서는 타일당 배리어가 하나입니다. (이 노트북에서 '흔한 루프'는 4.3절의, commit 을 로드 조건 안에 둔 루프 하나만 가리킵니다.)
* **루프 ③ 미리 읽기**: 타일 kt+S-1 을 버퍼 `nxt_stage` 로. 링 버퍼 인덱스 `cur`, `nxt_stage` 는 1 씩 더하고 S 에서 0 으로 돌립니다. `kt % NUM_STAGES` 라고 써도 나눗셈은 생기지 않습니다: NUM_STAGES 가 컴파일 시간 상수라 NVVM 이 곱셈(상위 절반, `mul.hi`)과 시프트로 바꿉니다 (아래 셀: `kt % NUM_STAGES` 를 쓰는 `async_copy` 의 PTX). 1 씩 더하는 형태는 의도를 드러낼 뿐입니다.
* **루프 ④ commit (빈 그룹이라도)**, **⑤ 계산**: `_outer_products` 4번 = k 8개, 외적 8×8.
* **에필로그** (`store_C`): beta = 0 이면 C 를 읽지 않습니다 (C 는 출력 전용, NaN 이어도 됨).
""")
code(r"""
print("async_copy 의 PTX:", L.ptx_division_ops("async_copy"))
# 예상 출력: rem 0, div 0 (나눗셈·나머지 명령 없음), mul.hi 몇 개
""")
md(r"""
### 7.1 실행하고 확인하기

세 모양을 numpy 와 비교합니다 (BK = 8): K = 8 은 K 타일 1개, K = 40 은 5개(3단 링이 한 바퀴 넘게 돎), K = 13 은 2개이면서 타일 배수가 아닌 모양입니다 (A 의 행이 52 B 라 시작이 16 B 정렬이 아닌 행이 생기고, 그런 행과 행렬 끝의 벡터는 4바이트 복사 네 번으로 갑니다). 셀이 모양마다 K 타일 수를 함께 찍습니다.
""")
code(r"""
shapes = [(12, 16, 8), (12, 16, 40), (33, 40, 13)]
results = [L.check("async_vec", *s) for s in shapes]
BK = kn.get("async_vec").module.BK
for r in results:
    print(r["shape"], f"K 타일 {-(-r['shape'][2] // BK)}개", "NaN", r["nan"], f"최대 오차 {r['max_err']:.1e}", "맞음" if r["ok"] else "틀림")
print("PASS" if all(r["ok"] for r in results) else "FAIL")
# 예상 출력: K 타일 1개, 5개, 2개: 세 모양 모두 NaN 0, 최대 오차 1e-06 정도, 맞음, 그리고 PASS
""")
md(r"""
테스트(`tests/test_level5.py`)는 레벨 5 의 여섯 커널을 K 타일 1~5개, M·N·K 가 타일 배수가 아닌 모양, alpha/beta 로 모두 확인합니다. H200 에서도 같은 확인(C 를 NaN 으로 채우고 float64 기준)과 compute-sanitizer 의 memcheck·racecheck·synccheck 를 통과했습니다 (`benchmarks/sanitize_level5.sh`, 기록: `course/ch09_cp_async/records/sanitize_level5_*.log`; 9.1절의 `async_bk16` 과 9.2절의 `async_wide` 는 나중에 추가되어 따로 잰 기록 `course/ch09_cp_async/records/sanitize_level5_bk16_*.log`, `sanitize_level5_wide_*.log`; 로그마다 첫 줄 `@@gpu` 가 돌린 GPU 를 적습니다).

## 8. SASS 확인

GPU 없이 sm_80 용으로 컴파일해 메인 루프(배리어가 있고 FFMA 가 가장 많은 루프)의 명령을 셉니다.
""")
code(r"""
s = L.sass_main_loop("async_vec", (8, 0))
print(s["cc"], "레지스터", s["registers"], "| 루프:", s["main_loop"])
print("LDGSTS 형태:", s["ldgsts_forms"], "| 실행되는 LDS/FFMA 형태:", s["forms"], "| @!PT LDS:", s["placeholders"])
print("루프 안의 CALL:", s["calls"])
ok = all(s["main_loop"].get(op, 0) >= 1 for op in ("LDGSTS", "LDGDEPBAR", "DEPBAR"))
print("PASS" if ok and s["main_loop"]["FFMA"] == 512 else "FAIL")
# 예상 출력: 레지스터 128, 루프에 LDGSTS·LDGDEPBAR 1·DEPBAR 1·BAR 1·FFMA 512, LDGSTS.E.BYPASS.128 포함, PASS
""")
md(r"""
`LDGSTS.E.BYPASS.128` (우리 16 B 복사), `LDGDEPBAR` (commit), `DEPBAR.LE` (wait), 배리어 1개, FFMA 512개(= 256 스레드가 아니라 한 스레드의 8×8×8). `LDG` + `STS` 쌍은 루프에 없습니다. 루프의 `LDS` 개수에는 `@!PT LDS RZ, [RZ]` 라는 줄이 섞여 있습니다: 술어(predicate) `!PT` 는 "항상 거짓"이라 **어떤 스레드에서도 실행되지 않는**(켜진 스레드 0) 자리 채움(placeholder) 명령으로, `ptxas` 가 넣은 것입니다 (같은 종류의 줄이 9.2절의 Nsight Compute 기록(`async_wide` 변형)에서 실행된 스레드 0, 웨이브프론트 0 이었습니다). 그래서 LDS 를 셀 때는 이것을 빼야 합니다. 함수 호출도 없습니다: sm_80 에서 보이는 `CALL.REL.NOINC` 하나는 루프 끝의 분기 바로 다음 주소로 뛰는 것으로, `ptxas` 가 루프를 빠져나갈 때 쓰는 형태이지 PTX 함수 호출이 아닙니다 (테스트가 그 위치를 확인합니다). 모든 cp.async 명령은 `.ptx` 파일의 텍스트가 인라인 어셈블리로 커널 안에 들어갑니다.

`async_copy` 의 루프는 모양이 다릅니다: FFMA 가 64개뿐입니다. 아래 셀이 그 이유를 보여 줍니다.
""")
code(r"""
s = L.sass_main_loop("async_copy", (8, 0))
print("async_copy 메인 루프:", s["main_loop"], "| 그 안의 안쪽 루프:", s["inner_loops"])
""")
md(r"""
`async_copy` 의 `compute_tile` 안 `for k in range(BK)` 루프는 펼쳐지지 않았습니다: 타일 루프 안에 FFMA 64개(한 k 의 8×8 외적)를 담은 안쪽 루프가 있고, 그것이 뒤로 가는 분기로 타일마다 BK = 8번 반복됩니다. `async_vec` 은 k 8개를 펼쳐 FFMA 512개가 한 줄로 이어집니다.

### 8.1 정적 공유 메모리 48 KiB 의 벽

BK = 16 으로 키우면 공유 메모리가 두 배입니다. `ptxas` 에게 물어봅시다: 패딩 없는 3단·4단, 그리고 패딩한(`BK+1`, `BN+1`) 3단.
""")
code(r"""
for S, pad in ((3, 0), (4, 0), (3, 1)):
    n = L.smem_bytes(S, BK=16, pad=pad)
    ok, msg = L.ptxas_static_shared(n)
    print(f"BK=16, NUM_STAGES={S}, 패딩 {pad}: {n:,} B ->", "통과" if ok else msg)
""")
md(r"""
`ptxas` 는 블록당 48 KiB (49,152 B = 0xc000) 를 넘는 정적 공유 메모리를 거부합니다 (위 셀; `nvcc` 도 같은 `ptxas` 로 어셈블합니다). 패딩한 3단은 48 KiB 를 조금 넘어서 거부되므로, BK = 16 의 3단은 패딩 없는 배치여야 정적으로 선언할 수 있습니다. numba-cuda 의 링크 경로는 다를 수 있습니다: {{s64_gpu}} 의 기록({{s64_date}}, `course/recorded/gpu_hazards_h100.json` 의 `{{s64_case}}`)에서 numba-cuda 의 링커는 {{s64_kib}} KiB 정적 배열을 받아 실행했고, {{s64_runs}}번 실행에서 {{s64_wrong}}, compute-sanitizer 의 racecheck·memcheck 도 오류를 보고하지 않았습니다. 그래도 `ptxas` 로는 컴파일되지 않는 코드이고 다른 GPU·드라이버에서도 된다는 기록은 없으므로, 이 과정은 **정적 공유 메모리는 48 KiB 까지**를 이식 가능한 규칙으로 지키고, 시뮬레이터도 그 한도를 넘는 커널을 멈추고 알립니다. 블록당 48 KiB 보다 많이 쓰는 길은 동적 공유 메모리(dynamic shared memory)입니다: 크기를 실행 때 정하는 공유 배열로 선언하고, 실행 전에 커널의 "최대 동적 공유 메모리" 속성(`MAX_DYNAMIC_SHARED_SIZE_BYTES`)을 올려야 합니다. numba-cuda 에는 이 속성을 설정하는 API 가 없어서, 이 과정은 드라이버 함수(`cuKernelSetAttribute`)를 직접 부르는 `set_max_dynamic_smem` 을 씁니다 (`kernels_numba/infra/device.py`; 노트북 10 의 5.6절의 `mma_fast` 와 노트북 11 의 TMA 커널이 부름). BK = 8 변형은 16~32 KiB 이고, 9.1절의 `async_bk16` 과 9.2절의 `async_wide` (BK = 16, 3단)는 정확히 48 KiB 로 정적 선언의 최대입니다. 4단은 동적 공유 메모리가 있어야 해서 재지 않았습니다. `async_wide` 에서는 2단과 3단이 같은 속도였지만(9.2절), `async_bk16` 에서는 3단이 2단보다 빨랐으므로(9.1절) BK = 16 의 4단이 도움이 될지는 이 과정에서 확인하지 않았습니다.

## 9. GPU 측정: 변형과 NUM_STAGES

아래 그래프는 {{gpu}} 에서 한 번의 실행({{date}})으로 잰 값입니다 (`benchmarks/record_level5.py`: cuBLAS SGEMM 은 CuPy, TF32 꺼짐, 같은 실행; 모든 커널은 측정 전에 C 를 NaN 으로 채워 정확도를 확인).
""")
code(r"""
fig = L.plot_sweep()
for name, row in ratios.items():
    print(f"{name:13s}", "  ".join(f"{n}³ {v:5.1f}%" for n, v in sorted(row.items())))
print("cuBLAS TFLOP/s:", {n: round(v, 1) for n, v in sorted(cublas.items())})
""")
md(r"""
아래 셀은 같은 기록에서 4096³ 의 값만 골라 비교합니다. 아래 글머리의 수치(%p 차이)는 생성기가 같은 기록에서 계산해 채운 값으로, 셀들이 찍는 소수 한 자리 값끼리의 차이입니다. 비교할 원래 값은 위와 아래 셀의 출력입니다.
""")
code(r"""
best, pct, at = L.best_at(4096)
print(f"4096³ 최고 레벨 5 커널: {best} {pct:.1f}%   같은 실행의 db_overlap {at['db_overlap']:.1f}%")
print("4바이트 복사 async_copy:", f"{at['async_copy']:.1f}%")
print("BK=8, NUM_STAGES 2/3/4:", " / ".join(f"{at[k]:.1f}%" for k in ("async_vec_s2", "async_vec", "async_vec_s4")),
      "| 레지스터·SM당 블록:", " / ".join(f"{rec['loaded'][k]['registers']}·{rec['loaded'][k]['blocks_per_sm']}"
                                     for k in ("async_vec_s2", "async_vec", "async_vec_s4")))
print("BK=16, NUM_STAGES 3 (async_bk16):", f"{at['async_bk16']:.1f}%")
print("목표 85%:", "도달" if pct >= 85 else f"미도달 ({85 - pct:.1f}%p 모자람)")
""")
md(r"""
**지금 이 GPU 에서.** GPU 가 있으면 아래 셀이 같은 커널을 이 GPU 에서 cuBLAS 와 **같은 실행** 안에서 잽니다 (`course.bench`: 커널마다 먼저 float64 기준과 맞는지 확인하고, 커널과 cuBLAS 를 라운드마다 순서를 돌려 가며 CUDA 이벤트로 잽니다). 표의 "호스트 µs" 는 Python 이 `launch` 한 번에 쓰는 시간입니다: 커널보다 길면 GPU 가 다음 커널을 기다리며 놀게 되어 이벤트가 커널이 아니라 Python 을 재므로, 그런 행은 Python 이 끼지 않는 CUDA 그래프로 다시 잽니다. 같은 종류 GPU 의 기록과 {{agree}}%p 넘게 다르면 셀이 그렇다고 말합니다. GPU 가 없으면 아무것도 재지 않습니다 (시뮬레이터의 시간은 GPU 의 시간이 아닙니다).
""")
code(r"""
from course import measure
live = measure.benchmark(kernels=["db_overlap", *[s.name for s in kn.by_level(5)]]) if measure.have_gpu() else None
print("\n".join(measure.live_lines(live)) if live else "GPU 없음: 위의 기록만 봅니다.")
# 예상 출력: (시뮬레이터) GPU 없음: 위의 기록만 봅니다.
# (GPU) 크기별 cuBLAS 와 커널 7개의 TFLOP/s, cuBLAS 대비 %, 호스트 µs, 그리고 같은 종류 GPU 기록과의 비교 한 줄
""")
md(r"""
* 4바이트 복사(`async_copy`)가 가장 느립니다. 이 커널은 여러 가지가 한꺼번에 다릅니다: 펼쳐지지 않은 k 루프(8절: FFMA 64개짜리 안쪽 루프가 타일마다 8번 돌고, 그때마다 분기), 패딩 배치의 스칼라 읽기, 스레드당 복사 명령 8개, 타일당 배리어 2개 (5절 셀의 루프: `LDGSTS` 8, `BAR` 2; 같은 줄의 `STS` 는 cp.async 가 공유 메모리에 쓰는 길이 아니라, 행렬 밖 원소에 0 을 직접 쓰는 경계 경로(`issue_tile` 의 `else`)이며 타일 전체가 행렬 안인 블록에서는 실행되지 않습니다). 이 측정만으로는 어느 것이 얼마를 차지하는지 가를 수 없습니다.
* 16바이트 + 정렬 배치 + 배리어 하나(`async_vec`)는 2048³·4096³ 에서 같은 실행의 `db_overlap` 과 {{vec_db_gap_big}}%p 안에서 비슷합니다 (1024³ 에서는 {{vec_db_gap_1024}}%p 느립니다).
* 2048³·4096³ 에서는 NUM_STAGES 를 2 → 3 → 4 로 바꿔도 한 번 바꿀 때마다 {{stage_step_big}}%p 이내로만 달라집니다 (1024³ 에서는 블록이 64개뿐이라 값이 크게 흔들립니다). 세 변형 모두 레지스터 {{s_regs}}개, SM당 {{s_blocks}}블록이라(위 셀의 첫 줄 끝, H200 에 올린 값) 점유율은 같습니다. 단을 늘려도 크게 나아지지 않는 이유에 대한 **해석**은 9.3절의 스톨 측정에서 나옵니다 (그 측정은 `async_vec`, `async_bk16`, `async_wide` 를 잰 것이고, `wait_group` 의 대기를 따로 나눠 재지는 않았습니다).
* 큰 차이는 **K 타일의 깊이**(BK, 9.1절의 `async_bk16`)와, 스레드당 타일을 키운 `async_wide` 에 더한 **레지스터 이중 버퍼**(9.2절: 타일만 키운 변형은 `async_bk16` 보다 조금 빠를 뿐)에서 나왔습니다. 다만 BK = 16 에서는 3단이 2단보다 빨랐습니다 (9.1절 표): BK 를 키운 이득은 3단과 함께일 때 나왔습니다.

### 9.1 BK = 16: `async_bk16`

`kernels_numba/async_bk16.py` 는 `async_vec` 의 커널에서 BK 만 8 → 16 으로 바꿉니다. 스레드는 타일마다 A 와 B 에서 16 B 복사를 두 번씩(벡터 `tid` 와 `tid + 256`) 발행하고, 배리어 사이에 외적(outer product)을 8번이 아니라 16번 계산합니다. 그래서 FFMA 하나당 `wait_group`·배리어·루프 분기·링 버퍼 인덱스 계산이 절반입니다. 글로벌 메모리 트래픽은 줄지 않습니다: 블록 타일의 산술 강도(arithmetic intensity, 읽은 바이트당 FLOP)는 2·BM·BN·BK / (4·(BM+BN)·BK) = BM·BN / (2·(BM+BN)) 로 BK 가 약분됩니다 (아래 셀). 공유 메모리는 3 × (128×16 + 16×128) × 4 B = 48 KiB 로 정적 선언의 최대이고, 레지스터와 SM당 블록 수는 그대로인지 H200 에 올린 값으로 확인합니다.
""")
code(r"""
for BK in (8, 16):
    print(f"BK={BK:2d}: 블록 타일의 산술 강도 {2 * 128 * 128 * BK / (4 * (128 + 128) * BK):.0f} FLOP/B")
for name in ("async_vec", "async_bk16"):
    r = rec["loaded"][name]
    loop = {k: r["main_loop"].get(k, 0) for k in ("FFMA", "LDGSTS", "BAR", "DEPBAR")}
    print(f"{name:10s} 레지스터 {r['registers']}  공유 {r['shared_bytes']:,} B  SM당 블록 {r['blocks_per_sm']}  루프 {loop}")
here = L.loaded_here(("async_vec", "async_bk16"))          # 위는 H200 기록, GPU 가 있으면 지금 이 GPU 의 값
if here:
    print(here)
""")
md(r"""
산술 강도는 BK 와 무관하게 같습니다. {{gpu}} 에서 두 커널 모두 레지스터 {{regs_bk16}}개, SM당 {{blocks_bk16}}블록입니다. 루프 한 바퀴에 FFMA 가 두 배인데 배리어와 `DEPBAR` 는 한 개 그대로입니다 (`LDGSTS` 개수에는 경계 경로의 복사가 함께 세어집니다).

아래 표는 같은 장치 세션에서 기록 직전에 잰 탐색(`benchmarks/explore_bk16.py`, cuBLAS 대비 %)입니다. 열 이름의 `s2`/`s3` 은 NUM_STAGES, `lb(256,2)` 는 `launch_bounds=(256, 2)` 입니다.
""")
code(r"""
cols, rows = L.bk16_table()
print(f"{'크기':>4s}", *(f"{c:>18s}" for c in cols), f"{'cuBLAS TFLOP/s':>15s}")      # 한글은 두 칸
for n, row, cub in rows:
    print(f"{n:>5d}³", *(f"{row[c]:>18s}" for c in cols), f"{cub:>15.1f}")
""")
md(r"""
2048³ 와 4096³ 에서 BK = 16 의 2단(`s2`)은 3단보다 느렸고, `launch_bounds=(256, 1)` 로 레지스터 상한을 풀면 4096³ 에서 느렸고 2048³ 에서는 같은 수준이었습니다 (이 변형의 레지스터 수는 기록하지 않았습니다. 5절에서 본 대로 상한 없이 128개를 넘으면 SM당 1블록입니다). 1024³ 에서는 블록이 64개뿐이라 H200 의 SM 132개를 다 채우지 못해 순위가 다릅니다. 48 KiB 로 3단을 채우고 128 레지스터로 SM당 2블록을 지킨 것이 이 실행의 최선입니다.

같은 커널 `async_bk16` 의 4096³ 값은 이 노트북의 기록 파일에 세 번 나옵니다: 9절 그래프의 기록 실행, 위 표의 탐색, 그리고 9.2절의 탐색입니다. 세 값과 각 실행의 cuBLAS 입니다.
""")
code(r"""
for label, pct, cub in L.bk16_runs(n=4096):
    print(f"async_bk16 {pct:5.1f}%   같은 실행의 cuBLAS {cub:.1f} TFLOP/s   ← {label}")
""")
md(r"""
같은 커널의 값이 실행마다 다릅니다 (위 출력). 그래서 서로 다른 실행의 값을 한 표에 섞지 않고, 비교는 같은 실행 안에서만 합니다.

### 9.2 스레드당 8×16: `async_wide`

`async_bk16` 의 스레드는 k 하나마다 공유 메모리 값 16개(A 8, B 8)를 읽어 FFMA 64개를 합니다. `kernels_numba/async_wide.py` 는 같은 128×128×16 블록 타일을 스레드 **128개**가 나눠, 스레드마다 8×16 = 128개의 누산기를 둡니다. 그러면 k 하나에 값 24개(A 8, B 16)로 FFMA 128개를 하므로, 공유 메모리 로드 명령(LDS) 하나당 FFMA 수가 늘어납니다. 대가는 레지스터입니다: 누산기만 128개라 `launch_bounds=(128, 2)` 로 스레드당 최대 255개를 허용하고, SM 에는 2블록 × 4워프 = 8워프(스케줄러당 2워프)만 남습니다 (H200 기록; 레지스터 파일이 SM당 65,536개인 GPU 면 같음). 아래는 H200 에 올린 두 커널의 값입니다.
""")
code(r"""
for name in ("async_bk16", "async_wide"):
    r = rec["loaded"][name]
    print(f"{name:10s} 스레드 {r['threads']}  레지스터 {r['registers']}  공유 {r['shared_bytes']:,} B  SM당 블록 {r['blocks_per_sm']}")
here = L.loaded_here(("async_bk16", "async_wide"))         # GPU 가 있으면 지금 이 GPU 에 올라간 값
if here:
    print(here)
""")
code(r"""
# 루프의 LDS: H200 기록(자리 채움 포함) = 실행되는 것 + @!PT (처음 한 번 GPU 없이 sm_90 컴파일: 진행 막대)
for r in L.lds_ratio_rows():
    print(f"{r['name']:10s} 루프 LDS {r['recorded_lds']:3d} = {r['real_lds']:3d} {r['forms']} + @!PT {r['placeholders']:2d}"
          f"  FFMA {r['ffma']:4d}  FFMA/LDS {r['ratio']:.1f}")
""")
md(r"""
루프의 LDS 개수는 H200 에 올린 커널의 기록이고, 그중 실행되는 것과 `@!PT` 자리 채움(8절)의 나눔은 GPU 없이 sm_90 용으로 컴파일한 SASS 에서 셉니다 (합이 기록과 같습니다). 자리 채움을 빼면 LDS 하나당 FFMA 가 `async_bk16` 은 `async_vec` 과 같고 `async_wide` 는 조금 많습니다. 정적 개수의 비율이 실행된 비율과 같은지는, 기록된 Nsight Compute 소스 보기(9.2절 뒤쪽에서 쓰는 기록: `async_wide` 에서 레지스터 이중 버퍼만 끈 변형, 커널 전체)로 확인할 수 있습니다.
""")
code(r"""
nl = L.ncu_listing()
real = [k for k in nl if k.startswith("LDS")]
print("실행된 FFMA / 실행된 LDS:", round(nl["FFMA"]["executed"] / sum(nl[k]["executed"] for k in real), 2))
print("@!PT LDS: 정적", nl["@!PT LDS"]["static"], "| 켜진 스레드로 실행", nl["@!PT LDS"]["thread_executed"],
      "| 웨이브프론트", nl["@!PT LDS"]["wavefronts"])
""")
md(r"""
그 변형의 실행 비율은 `async_wide` 루프의 정적 비율과 같고, `@!PT LDS` 는 켜진 스레드 없이 지나갑니다.

워프가 줄면 한 워프 안에서 지연을 숨겨야 합니다. `async_wide` 는 두 가지를 더 합니다.

* **레지스터 이중 버퍼**(register double buffering, 프리페치의 한 형태): k 의 FFMA 128개를 시작하기 **전에** k+1 이 쓸 B 값(매 k)과 A 값(LDS.64 하나가 k 두 개를 담으므로 홀수 k 에서만)을 다른 레지스터 버퍼로 읽어 둡니다 (`_k_step`). 타일의 첫 k 는 배리어 뒤에 읽습니다. 왜 필요한지는 아래 셀이 보여 줍니다.
* **A 행의 스위즐(swizzle)**: A 타일의 행은 BK × 4 = 64 B 라서 행 r 과 r+2 가 같은 뱅크에서 시작합니다. 워프는 이웃한 4행을 읽으므로, 비트 1 이 켜진 행은 32 B 반쪽 둘을 맞바꿔(`k ^ 8`) 저장하고 읽습니다. 32 B 반쪽을 통째로 맞바꾸므로(16 B 의 배수만큼 이동) 16 B cp.async 의 시작 주소는 여전히 16 B 정렬입니다.

아래 셀은 레지스터 이중 버퍼를 끈 변형(`prefetch=False`)을 Nsight Compute 의 소스 보기(SASS 명령마다 스톨 표본)로 잰 기록입니다. LDS 가 방금 채운 레지스터를 처음 읽는 FFMA 가 전체 FFMA 중 몇 % 이고, 스톨 표본 중 몇 % 를 차지하는지 셉니다. 숏 스코어보드(short scoreboard) 스톨은 공유 메모리 로드 같은 가변 지연 명령의 결과를 기다린 사이클이고, 디스패치 스톨(dispatch stall)은 발행할 준비가 된 명령을 디스패처가 붙잡아 둔 사이클입니다.
""")
code(r"""
fu = L.first_use_stalls()
print(f"처음 읽는 FFMA: FFMA 의 {fu['ffma']:.0f}%")
print(f"그 FFMA 에 걸린 스톨: short scoreboard 의 {fu['short_scoreboard']:.0f}%, dispatch 의 {fu['dispatch']:.0f}%")
print(f"dispatch 스톨이 가장 큰 FFMA 10개 중 처음 읽는 것: {fu['top10_first_use']}")
""")
md(r"""
로드를 기다리는 스톨(short scoreboard)은 거의 전부, 막 읽은 값을 처음 쓰는 FFMA 에 있습니다. dispatch 스톨도 그 FFMA 들에 몫보다 많이 몰려 있고, dispatch 가 가장 큰 FFMA 대부분이 그것입니다. 그래서 로드를 FFMA 128개 앞으로 당겼습니다.

아래 셀은 뱅크 모델(`sim.banks`)로 A 읽기의 웨이브프론트(wavefront)를 셉니다. 8 B 접근을 반 워프씩 처리한다는 규칙("phases")과 워프 전체를 한 번에 본다는 규칙("words")은 문서로 정해지지 않아 둘 다 보이고, 그다음 셀에서 기록으로 가립니다.
""")
code(r"""
for sw in (False, True):
    w = L.wide_a_wavefronts(swizzle=sw)
    print(f"swizzle {str(sw):5s}: 요청 {w['requests']}  웨이브프론트 phases {w['phases']}  words {w['words']}")
""")
md(r"""
"phases" 규칙이면 스위즐은 아무것도 바꾸지 않고, "words" 규칙이면 A 읽기의 웨이브프론트를 절반으로 줄입니다. 기록된 Nsight Compute 소스 보기에는 명령마다 L1 공유 메모리 웨이브프론트(L1 Wavefronts Shared)가 있습니다. 그 변형은 스위즐을 켠 상태입니다.
""")
code(r"""
lds64 = nl["LDS.64"]
print(f"스위즐한 A 읽기 LDS.64: 정적 {lds64['static']}개, 실행 {lds64['executed']:,}번, "
      f"웨이브프론트 {lds64['wavefronts']:,} -> 명령당 {lds64['wavefronts'] / lds64['executed']:.2f}")
w = L.wide_a_wavefronts(swizzle=True)
print(f"모델의 요청당 웨이브프론트: phases {w['phases'] / w['requests']:.2f}, words {w['words'] / w['requests']:.2f}")
""")
md(r"""
스위즐한 LDS.64 하나가 웨이브프론트 1.00개: "words" 규칙과 맞습니다. 그러면 시간으로는 어땠는지 봅니다. 아래 표는 같은 장치 세션에서 한 단계씩 끈 변형을 잰 값입니다 (`benchmarks/explore_wide.py`, cuBLAS 는 앞뒤로 두 번 재어 빠른 쪽).
""")
code(r"""
table, regs = L.explore_wide()
for name, row in table.items():
    cells = "  ".join(f"{n}³ {v:5.1f}%" for n, v in sorted(row.items()))
    print(f"{name:30s} {cells}   레지스터 {regs[name]}")
""")
md(r"""
* 스레드당 타일을 키우기만 한 변형(`no prefetch, no swizzle`)은 `async_bk16` 보다 조금 빠를 뿐입니다. LDS 가 줄어든 이득을, 워프가 절반이라 드러난 로드 지연이 거의 상쇄했다고 해석합니다 (위의 소스 보기 기록과 맞는 해석).
* 스위즐은 웨이브프론트를 줄였지만(위 기록, "words" 규칙), 시간의 이득은 레지스터 이중 버퍼가 없는 변형에서 두 크기 모두 실행 간 흔들림과 구별하기 어려운 크기입니다 (표). 가장 큰 이득은 레지스터 이중 버퍼에서 나왔습니다.
* NUM_STAGES 2 와 3 의 차이는 흔들림 안입니다. 등록된 `async_wide` 는 3단입니다.
* 9절 그래프의 1024³ 에서는 `async_wide` 가 `async_bk16` 보다 느립니다: 128×128 타일이 (1024/128)² = 64개뿐이라 H200 의 SM 132개를 다 채우지 못하고, 블록마다 워프가 절반(4개)이라 일하는 워프가 더 적습니다. 큰 행렬에 맞춘 선택입니다.
* 위의 9절 그래프와 최고 커널 출력은 탐색 뒤의 기록 실행이라 수치가 조금 다릅니다: 같은 커널의 비율이 실행마다 2%p 가까이 움직였고, 그중 일부는 cuBLAS 자체의 흔들림입니다 (두 실행, 곧 기록 실행과 `explore_wide` 의 cuBLAS TFLOP/s 는 9.1절의 `L.bk16_runs` 셀에 나옵니다). 그래서 85% 를 넘은 폭은 이 흔들림과 비슷한 크기라는 점을 함께 기억하세요.

시뮬레이터에서도 같은 커널을 타일 배수가 아닌 모양으로 돌려 확인합니다 (C 는 NaN 으로 시작).
""")
code(r"""
r = L.check("async_wide", 133, 70, 37)
print(r["shape"], "최대 오차", f"{r['max_err']:.1e}", "NaN", r["nan"])
assert r["ok"] and r["nan"] == 0
print("PASS")
# 예상 출력: (133, 70, 37) 최대 오차 1e-05 미만 (예: 6.3e-06) NaN 0, 마지막 줄 PASS
""")
md(r"""
### 9.3 왜 100% 가 아닌가 — 스톨 측정

9절의 측정에서 BK = 8 의 세 변형은 2048³·4096³ 에서 단의 수와 관계없이 `db_overlap` 근처였고, 85% 를 넘긴 것은 스레드당 타일과 레지스터 버퍼까지 바꾼 `async_wide` 뿐입니다: "트리플 버퍼링이면 cuBLAS 의 85~95%" 라는 목표는 트리플 버퍼링만으로는 이루어지지 않았습니다. 비교한 cuBLAS 는 TF32 를 끈 SGEMM 이므로, 남은 차이는 텐서 코어(Tensor Core) 때문이 아닙니다. 무엇이 막는지는 Nsight Compute 의 워프 상태(WarpStateStats)로 잽니다: 발행된 명령 하나당 워프가 각 이유로 기다린 사이클입니다 (4096³, 같은 장치 세션).
""")
code(r"""
for name, top in L.recorded_stalls().items():
    lsb = rec["ncu_stalls"]["kernels"][name]["cycles_per_issue"]["long_scoreboard"]
    extra = "" if "long_scoreboard" in dict(top) else f" | long_scoreboard {lsb:.2f}"     # already in its top
    print(f"{name:10s}", ", ".join(f"{reason} {v:.2f}" for reason, v in top) + extra)
print(L.issue_use())                 # 08 노트북 4.9절의 어림: 스케줄러가 명령을 낸 사이클의 몫
""")
md(r"""
L1TEX 연산(글로벌 메모리 로드 `LDG`, 그리고 `LDGSTS` 같은 비동기 복사)의 스코어보드를 기다리는 `long_scoreboard` 는 세 커널 모두 명령당 0.1 사이클 미만으로 작습니다. 그렇다고 복사를 기다리지 않았다는 뜻은 아닙니다: 루프는 `DEPBAR.LE` (`wait_group`) 에서 복사 그룹을 기다리고, 이 워프 상태 기록은 그 대기를 따로 나눠 보여 주지 않습니다. 명령마다 스톨 표본이 있는 소스 보기 기록(9.2절의 `async_wide` 변형, 레지스터 이중 버퍼를 끈 것)에서는 셀 수 있습니다:
""")
code(_records.fill_comments(r"""
wg = L.wait_group_samples()       # 기록된 ncu 소스 보기: 루프의 wait_group 이 된 SASS 명령 DEPBAR.LE
print(f"DEPBAR.LE {wg['static']}개에 걸린 표본 {wg['samples']:,} / 전체 {wg['total']:,} "
      f"({100 * wg['samples'] / wg['total']:.2f}%), 그중 명령을 낸 표본(selected) {wg['selected']:,}, 기다린 이유 {wg['reasons']}")
# 예상 출력: DEPBAR.LE {{wg_static}}개에 걸린 표본 {{wg_samples}} / 전체 {{wg_total}} ({{wg_pct}}%), 그중 명령을 낸 표본(selected) {{wg_selected}}, …
""", FIG))
md(r"""
그 변형은 `wait_group` 에서 거의 기다리지 않았습니다: `DEPBAR.LE` 의 표본은 전체 {{wg_total}}개 중 {{wg_samples}}개이고, 그중 {{wg_selected}}개는 명령을 낸 표본입니다. `async_vec`·`async_bk16` 의 소스 보기는 기록하지 않았습니다. 그 두 커널에 대해서는 단을 늘려도 크게 나아지지 않았다는 9절의 결과가 그 대기가 작다는 쪽과 맞을 뿐입니다. `async_vec` 과 `async_bk16` 에서 가장 큰 항목 `not_selected` 는 "발행할 수 있었지만 스케줄러가 다른 워프를 골랐다"는 뜻으로, 준비된 워프가 줄을 서 있다는 신호입니다: 08 노트북의 어림(스케줄러당 평균 워프 수 ÷ 명령당 사이클 합)으로 스케줄러는 사이클의 약 {{issue_vec}}%(`async_vec`)·{{issue_bk16}}%(`async_bk16`)에 명령을 냈습니다. 곧 두 커널은 **명령 발행이 한계**라고 해석합니다: FFMA 가 아닌 명령(LDS, 주소 계산, 루프)이 발행 슬롯을 나눠 쓰고, `dispatch_stall`(발행할 준비가 된 명령을 디스패처가 붙잡아 둔 사이클)이 그 다음입니다.

`async_wide` 에서는 스케줄러당 워프가 2개뿐이라 `not_selected` 가 작아졌고(고를 워프가 적음), 명령당 `dispatch_stall` 사이클도 줄었습니다. 같은 어림으로 명령을 낸 사이클은 {{issue_wide}}% 로 `async_vec` 의 {{issue_vec}}% 와 비슷합니다. 발행하는 명령 중 FFMA 의 몫이 커져서 비슷한 발행 속도로 더 많이 계산한다고 해석합니다 (해석). 남은 차이는 이 과정이 고를 수 없는 곳에 있다고 해석합니다: 레지스터 배정과 명령 순서는 `ptxas` 가 정하고, cuBLAS 의 SGEMM 커널은 그 단계까지 조율되어 있습니다 (해석).

## 10. 왜 이렇게 동작하는가 — 네 가지 질문

<details><summary>질문 1. commit_group 을 부르지 않으면?</summary>

복사들이 어떤 그룹에도 속하지 않아 `wait_group` 이 그것을 기다리지 않습니다. 대기 중 그룹이 0개이니 wait 는 바로 통과하고, 타일은 도착 보장 없이 읽힙니다. 4.1 의 `async_no_commit` 이 매번 NaN 을 냅니다. (`wait_all` 은 commit 을 포함하므로 예외입니다.)
</details>

<details><summary>질문 2. wait_group(NUM_STAGES-1) 이 현재 타일을 보장하는 이유는?</summary>

미리 읽기·commit 이 wait 앞에 오는 순서(`async_copy`: 발행 → commit → wait)에서, 반복 kt 의 wait 직전까지 **매 반복 하나씩** commit 했다면 그룹은 S+kt개이고, 대기 중 S-1개 이하라는 것은 그룹 0 … kt 가 끝났다는 뜻입니다. 이 셈은 "매 반복 commit"에 기대므로, 로드할 때만 commit 하는 루프는 꼬리에서 틀립니다 (4.3). 그리고 이것은 **내** 복사만의 보장이라 배리어가 뒤따라야 합니다. wait 가 미리 읽기 앞에 오는 이 노트북의 커널(`async_vec`, 직접 해보기 1)에서는 wait 직전의 그룹이 S-1+kt개라 N = S-2 입니다 (7절 ①).
</details>

<details><summary>질문 3. 트리플 버퍼링이 더블 버퍼링보다 지연을 더 잘 숨기는 이유는?</summary>

동시에 진행 중인 타일 로드가 S-1개까지라서, 로드 지연이 계산 시간의 S-1배까지 숨겨집니다 (4.2절의 타임라인). 9절의 측정(BK = 8, 2048³·4096³)에서는 단을 늘린 효과가 한 번에 {{stage_step_big}}%p 이내로 작았고 (BK = 16 에서는 2 → 3단이 더 컸습니다), 9.3절의 워프 상태 기록에서 L1TEX 스코어보드 대기(`long_scoreboard`)는 세 커널 모두 명령당 0.1 사이클 미만이었습니다. 복사 그룹을 기다리는 `wait_group`(`DEPBAR.LE`)의 대기는 그 기록이 따로 나누지 않고, 소스 보기로 센 `async_wide` 변형에서 표본의 {{wg_pct}}% 였습니다 (`async_vec`·`async_bk16` 은 재지 않음). H200 에서 SM당 워프가 여럿이라({{warps_per_sm}}) 한 워프가 기다리는 동안 다른 워프가 계산할 수 있다는 것이 한 가지 설명입니다 (해석).
</details>

<details><summary>질문 4. LDGSTS 가 LDG + STS 보다 나은 하드웨어 이유는?</summary>

명령 하나(발행 대역폭), 결과 레지스터가 없으니 그것을 기다리는 롱 스코어보드 의존성도 없음, 데이터가 레지스터 파일을 거치지 않음 (주소 레지스터는 읽습니다). 레지스터 **개수**가 줄어 점유율이 오른다는 것은 5절에서 본 대로 이 커널에서는 측정되지 않았습니다.
</details>

## 11. 시뮬레이션 9: cp.async 루프 샌드박스

K 루프의 **한 반복**을 직접 짜 봅니다. 단계는 다섯 가지입니다: `wait_group N`, 배리어(`syncthreads`), 미리 읽기(prefetch: 타일 kt+D 의 복사 발행), `commit_group`, 계산. 단 수 S(NUM_STAGES), N, 미리 읽기 거리 D, 꼬리 처리(tail)도 고릅니다. 그러면 모델(`sim/cp_async.py` 의 `run_loop`)이 프롤로그와 모든 반복을 돌려, 단계마다 대기 중 그룹(pending group)을 표로 보여 주고 위험(hazard)을 빠짐없이 알려 줍니다: 반복 kt, 버퍼, 관련된 두 단계, 고치는 법. 판정 규칙은 4.1절 경쟁 검출기의 규칙과 같고, 테스트가 프리셋과 여러 순서를 실제 커널로 만들어 검출기의 판정과 비교합니다.

"출발점"의 세 루프는 실제 코드 그대로입니다: 흔한 루프(4.3절, 데모 `async_common_tail`), `async_copy`, `async_vec`(7절; `async_bk16`, `async_wide` 도 같은 순서). 먼저 `async_vec` 의 순서에 흔한 루프의 N(= S-1)을 쓰면 어떻게 되는지 봅시다.
""")
code(r"""
from sim.cp_async import PRESETS, LoopSpec, run_loop
vec = PRESETS["async_vec"].spec
print(PRESETS["async_vec"].label, "|", vec.order, "N =", vec.wait_n, "|", "위험 없음" if run_loop(vec, 6).ok else "위험")
wrong = LoopSpec(vec.order, wait_n=2, stages=3, tail=vec.tail)    # wait 를 앞으로 옮기고 N 은 그대로 S-1
for h in run_loop(wrong, 6).hazards[:2]:
    print(h)
# 예상 출력: async_vec … 위험 없음, 그다음 kt=0 버퍼 0 과 kt=1 버퍼 1 의 "wait_group N 이 너무 큼 … 맞는 값은 wait_group 1 입니다"
""")
md(r"""
wait 를 미리 읽기 앞으로 옮기면 wait 시점에 commit 된 그룹이 하나 적어서, 같은 타일을 끝내려면 N 이 S-2 여야 합니다. 이제 위젯에서 바꿔 보세요:

1. `async_copy` 에서 계산 뒤의 배리어(6번 칸)를 "—" 로 비우면?
2. `async_vec` 에서 미리 읽기를 배리어 앞으로 옮기면?
3. 흔한 루프에서 꼬리 처리만 "매 반복 commit" 으로 바꾸면?
4. `async_copy` 를 S = 4 로 두고 N 을 3, 2, 0 으로 줄이면? 위험은 없지만 "계산 중 날아가는 타일" 열이 줄어듭니다: 로드와 계산의 겹침(overlap)이 줄어듭니다.

만든 루프를 4.3절의 위젯으로 한 단계씩 보려면 새 셀에서 `cp_async_stepper(sandbox.spec)` 를 실행하세요.
""")
code(r"""
from course.widgets.cp_async import cp_async_sandbox
sandbox = cp_async_sandbox("async_copy", num_tiles=6)
sandbox
""")
md(r"""
## 12. 직접 해보기 — 정리

이 노트북의 직접 해보기 세 개는 그 내용을 배운 자리에 있습니다: **09-1** 3단 파이프라인의 K 루프 (4.3절: wait_group N, 배리어, 미리 읽기, commit, 꼬리), **09-2** 16바이트 복사의 스레드 → float4 매핑 (6절, 정렬 규칙), **09-3** src-size 로 경계를 0 으로 채우는 16바이트 복사 (6절, 경계). 아직 PASS 하지 못한 것이 있으면 그 절로 돌아가 확인 셀을 다시 실행하세요.

## 13. 핵심 정리

* **cp.async** (sm_80+, SASS `LDGSTS`) 는 글로벌 → 공유 복사를 레지스터 없이 발행합니다. 복사는 나중에 도착하고, PTX 는 **그룹 단위의 대기**만 약속합니다.
* 명령 세 가지: `cp.async.{ca,cg}.shared.global` (`.cg` 는 16 B 만: `ptxas` 확인), `cp.async.commit_group` (빈 그룹도 셈), `cp.async.wait_group N` (즉시값, **내** 그룹만).
* 파이프라인의 올바른 셈: **매 반복 commit** (타일이 없으면 빈 그룹) + `wait_group` + 배리어. 로드할 때만 commit 하면 마지막 S-1 타일이 보장 없이 읽힙니다.
* 16 B 복사는 정렬이 필요합니다: 패딩 배치는 4행 중 3행이 어긋납니다. 16 B 복사는 같은 섹터를 4분의 1 의 워프 명령으로 읽습니다. 컴파일된 `async_vec` 은 A 도 B 도 `LDS.128` 로 읽고, 뱅크 모델로 정렬 배치의 대가는 A 읽기의 2-way 충돌("words" 규칙)이었습니다.
* SASS 의 `@!PT LDS` 는 실행되지 않는 자리 채움입니다: LDS 를 셀 때 빼야 합니다.
* 측정(H200, TF32 끈 cuBLAS 대비, 9절의 출력): NUM_STAGES 의 효과는 BK = 8 과 `async_wide` 에서는 작았고, BK = 16(`async_bk16`)에서는 2048³·4096³ 에서 2단 → 3단이 {{bk16_gain}}%p 였습니다 (9.1절 탐색; 1024³ 에서는 2단이 조금 빨랐음). 목표 85% 는 2048³·4096³ 에서 스레드당 8×16 타일에 레지스터 이중 버퍼와 A 행 스위즐을 더한 `async_wide` 만 넘었습니다 (넘은 폭은 실행 간 흔들림과 비슷한 크기이고, 1024³ 에서는 블록이 모자라 훨씬 낮습니다). 스톨 측정(9.3절)에서 L1TEX 대기(`long_scoreboard`)는 세 커널 모두 작았고, `wait_group` 의 대기는 `async_wide` 변형의 소스 보기에서만 세어 표본의 {{wg_pct}}% 였습니다. 한계가 명령 발행이라는 것은 거기서 나온 **해석**입니다.

## 14. 체크포인트 퀴즈

10 문항 중 **8 문항 이상**이면 통과입니다. 제출하면 점수와 틀린 문항, 그 문항을 다시 읽을 절이 나옵니다. 정답과 해설은 통과한 뒤에 보입니다. 시도 기록은 로컬 진도 파일에 저장됩니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("09")
""")
md(r"""
## 15. 다음 단계

이 노트북의 FP32 FMA 커널은 여기까지입니다. 기록된 실행에서 cuBLAS SGEMM 은 4096³ 에서 {{cublas_4096}} TFLOP/s 로, H200 의 FP32 최대치(132 SM × 128레인 × 2 FLOP × 1980 MHz ≈ {{peak}} TFLOP/s, `sim/occupancy.py`)의 약 {{cublas_of_peak}} % 였습니다. 노트북 10 에서는 Tensor Core 의 `mma.sync.m16n8k16` 과 `ldmatrix` 를 같은 PTX 계층(`.ptx` 파일 + 인라인)으로 부르고, 이 노트북의 cp.async 파이프라인을 그대로 가져가 공유 메모리를 채웁니다.
""")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    print(NB.write(args.out))


if __name__ == "__main__":
    main()
