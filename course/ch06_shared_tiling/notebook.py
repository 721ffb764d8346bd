"""Generator of notebooks/06_shared_memory_tiling.ipynb (run: python -m course.ch06_shared_tiling.notebook; the committed ipynb is its output)."""
import sys
from pathlib import Path
from course.nbgen import Notebook
from course.figures import fill, fill_comments, record, wrong_clause
from sim import occupancy as _occ
from sim import roofline as _roofline
import ast
import re
import json as _json




def _const(module, name):
    """A constant of course/<module>.py, read from the source (importing course would pick a device)."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "course" / f"{module}.py").read_text(encoding="utf-8"))
    return next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                and any(getattr(t, "id", None) == name for t in n.targets))

OUT = Path(__file__).resolve().parents[2] / "notebooks" / "06_shared_memory_tiling.ipynb"
NB = Notebook("nb06", OUT)
cells = NB.cells

# Every measured figure in the prose comes from the record here (tests/test_recorded_figures.py checks none is typed).
REC = record("gpu_h200_2026-11-21")
_F, _NS = REC["device_facts"], REC["ncu_shared"]
_BEST = {k: max(r.tflops for r in REC.rows if r.kernel == k) for k in ("tiled", "tiled_pad", "cuBLAS")}
_R4096 = {r.kernel: r.ratio for r in REC.rows if r.n == 4096}
_R1024 = {r.kernel: r.ratio for r in REC.rows if r.n == 1024}


def _wf(kernel, parts=("ld", "st")):
    """Shared wavefronts (load + store, or parts="ld"/"st" alone) per warp FFMA of the recorded ncu run (§4.8)."""
    m = _NS["metrics"][kernel]
    parts = (parts,) if isinstance(parts, str) else parts
    wf = sum(m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{p}.sum"] for p in parts)
    return wf / (_NS["n"] ** 3 / 32)


def _bound(kernel):
    """Shared-memory ceiling of notebook 06 §4.8 (load + store wavefronts per warp FFMA), as lesson06.shared_bound."""
    return _F["sm_count"] * 64 * _F["max_sm_clock_mhz"] * 1e6 / 1e12 / _wf(kernel)


FIG = {"gpu": REC.gpu, "date": REC.date, "race_n": REC["races"]["n"], "race_runs": REC["races"]["runs"],
       "race_inputs": {"fresh": "실행마다 새 난수 입력으로", "one": "GPU에 한 번 올린 한 입력으로"}[REC["races"]["inputs"]],
       "wrong1_c": wrong_clause(REC["races"]["cases"]["no_sync1"]["wrong_runs"], REC["races"]["runs"], last=False),
       "wrong2_c": wrong_clause(REC["races"]["cases"]["no_sync2"]["wrong_runs"], REC["races"]["runs"]),
       "bound_tiled": f"{_bound('tiled'):.1f}", "bound_pad": f"{_bound('tiled_pad'):.1f}",
       "best_tiled": f"{_BEST['tiled']:.1f}", "best_pad": f"{_BEST['tiled_pad']:.1f}",
       "pct_tiled_4096": f"{100 * _R4096['tiled']:.0f}", "pct_pad_4096": f"{100 * _R4096['tiled_pad']:.0f}",
       "pct_tiled_1024_1": f"{100 * _R1024['tiled']:.1f}",
       "pct_tiled_2048_1": f"{100 * REC.run().ratio('tiled', 2048):.1f}",
       "bound_pct": f"{100 * _bound('tiled') / _BEST['cuBLAS']:.0f}",
       # §4.8's expected output, filled like the prose (the cell prints these from the same record)
       "wf_tiled": f"{_wf('tiled'):.2f}", "wf_pad": f"{_wf('tiled_pad'):.2f}",
       # the two parts of that difference, loads and stores per warp FFMA (§4.8's prose after the bound cell)
       **{f"{part}_{k.split('_')[-1]}": f"{_wf(k, part):.2f}" for part in ("ld", "st") for k in ("tiled", "tiled_pad")},
       "best_tiled_2": f"{_BEST['tiled']:.2f}", "best_pad_2": f"{_BEST['tiled_pad']:.2f}",
       "best_cublas": f"{_BEST['cuBLAS']:.1f}",
       "peak": f"{_F['sm_count'] * _F['fp32_lanes_per_sm'] * 2 * _F['max_sm_clock_mhz'] * 1e6 / 1e12:.1f}",
       # time budgets of the GPU path, stated in the prose from the constants the code uses
       "budget_s": f"{_const('measure', 'BUDGET_S'):g}", "race_budget_s": f"{_const('kit', 'RACE_BUDGET_S'):g}"}


# 3.4's ncu figures per instruction and per warp-tile (the 3.4 cell prints them from the same record: lesson06.ncu_rows)
_TILE = ast.literal_eval(next(ln.split("=", 1)[1] for ln in (Path(__file__).resolve().parents[2] / "kernels_numba" /
                              "tiled.py").read_text(encoding="utf-8").splitlines() if ln.startswith("TILE_SIZE =")))
_WARP_TILES = (_NS["n"] ** 2 // 32) * (_NS["n"] // _TILE)         # warps x tiles of the ncu run


def _ncu(kernel, what, op):
    """ncu's shared `op` ("ld"/"st") wavefronts or instructions (what = "wf"/"inst") of `kernel` in the record."""
    return _NS["metrics"][kernel][{"wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_",
                                   "inst": "smsp__inst_executed_op_shared_"}[what] + op + ".sum"]


for _k, _s in (("tiled", "tiled"), ("tiled_pad", "pad")):
    for _op in ("ld", "st"):                                       # wavefronts per instruction, as the table prints
        FIG[f"{_op}_per_inst_{_s}"] = f"{_ncu(_k, 'wf', _op) / _ncu(_k, 'inst', _op):.2f}"
    # the store wavefronts ncu counts beyond one per instruction (its bank-conflict metric), which 3.4 states
    FIG[f"st_inst_{_s}"] = f"{_ncu(_k, 'inst', 'st'):,}"
    FIG[f"st_extra_{_s}"] = f"{_ncu(_k, 'wf', 'st') - _ncu(_k, 'inst', 'st'):,}"
    FIG[f"st_extra_pct_{_s}"] = f"{100 * (_ncu(_k, 'wf', 'st') / _ncu(_k, 'inst', 'st') - 1):.1f}"
    FIG[f"ld_wf_tile_{_s}"] = f"{_ncu(_k, 'wf', 'ld') / _WARP_TILES:.1f}"      # load wavefronts per warp per tile
# tiled's load instructions per warp-tile (ncu) split into 32-bit LDS and LDS.128: each thread reads 2·TILE floats a
# tile, so lds + lds128 = instructions and lds + 4·lds128 = 2·TILE (the 3.4 cell's SASS counts them too); then the
# LDS.128 wavefronts solved as lesson06.lds128_from_ncu does (each 32-bit LDS = 1 wavefront)
_INST_TILE = _ncu("tiled", "inst", "ld") // _WARP_TILES
_LDS128 = (2 * _TILE - _INST_TILE) // 3
_LDS = _INST_TILE - _LDS128
FIG["lds128_wf"] = f"{(_ncu('tiled', 'wf', 'ld') / _WARP_TILES - _LDS) / _LDS128:.2f}"
assert _LDS + _LDS128 == _INST_TILE and _LDS + 4 * _LDS128 == 2 * _TILE, "3.4's prose: tiled's loads are LDS and LDS.128"
FIG.update(lds_tile=_LDS, lds128_tile=_LDS128)


# 3.3: the racecheck record's note (how many hazards the report shows at most, and whose they are)
_RC_NOTE = REC["racecheck"]["note"]
assert "all shown are in no_sync1" in _RC_NOTE, "3.3's prose: racecheck's report shows no_sync1's hazards only"
FIG["rc_limit"] = int(re.search(r"first (\d+) hazards", _RC_NOTE).group(1))
FIG["rc_raw"] = REC["racecheck"]["no_sync1_RAW_hazard_reports_shown"]
FIG["rc_rest"] = FIG["rc_limit"] - FIG["rc_raw"]      # counted toward the limit, not itemized by the record
assert FIG["rc_rest"] > 0, "3.3's prose: names the reports of the first rc_limit that are not RAW"


# §7's ridge points: computed by sim/roofline.py like 4.8's table, never typed
FIG.update({f"ridge_{_g.replace('-', '_')}": f"{_roofline.ridge_point(_g):.1f}" for _g in ("H200", "A100", "A100-40GB")})
# 4.2's register step: tiled's offline register count (the committed kernel x target matrix, which
# tests/test_targets.py keeps equal to a fresh compile) and the occupancy one register more gives (sim/occupancy.py)
_TROWS = {r["target"]: r for r in _json.loads((Path(__file__).resolve().parents[2] / "kernels_numba" / "infra" /
                                               "targets.json").read_text(encoding="utf-8"))["rows"] if r["kernel"] == "tiled"}
_STEP = {g: tuple((_o.blocks_per_sm, _o.percent) for _o in
                  (_occ.occupancy(g, _TROWS[_occ.GPUS[g].arch]["registers"] + d, _TROWS["sm_80"]["threads"],
                                  _TROWS["sm_80"]["smem_static"]) for d in (0, 1)))
         + (_TROWS[_occ.GPUS[g].arch]["registers"],) for g in ("A100", "H100", "H200")}
assert len(set(_STEP.values())) == 1, "4.2's prose states one register step for A100, H100, H200"
(_b0, _p0), (_b1, _p1), _r0 = next(iter(_STEP.values()))
assert _b1 < _b0, "4.2's prose: one register more costs blocks"
FIG.update(tiled_regs=_r0, tiled_regs1=_r0 + 1, tiled_blocks0=_b0, tiled_blocks1=_b1, tiled_pct1=f"{_p1:.0f}",
           tiled_pct0=f"{_p0:.1f}")


def md(s):
    """A markdown cell whose {{name}} fields are recorded figures (FIG)."""
    NB.md(fill(s, FIG))


def code(s):
    """A code cell; {{name}} fields in its comments (`# 예상 출력:`) are recorded figures (FIG), never typed."""
    NB.code(fill_comments(s, FIG))


md(r"""
# 06. Level 2 — 공유 메모리 타일링 (Shared Memory Tiling)

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 8문항 중 **6문항 이상**(75 %) 맞히면 통과입니다. 타일링, 동기화, 뱅크 충돌은 뒤의 모든 최적화의 바탕이므로 통과한 뒤 다음 노트북으로 넘어가기를 권합니다.

| | |
|---|---|
| **배울 내용** | 타일링(tiling)과 데이터 재사용, 협력적 로딩(cooperative loading), `cuda.syncthreads()` 가 두 번 필요한 이유, 뱅크 충돌(bank conflict)과 패딩(padding)이 우리 커널에서 실제로 하는 일, FMA(fused multiply-add)가 PTX·SASS에서 어떻게 보이는지, 이 커널의 성능을 정하는 상한 |
| **실행 환경** | GPU 없이 실행됩니다. GPU 모드는 compute capability(CC) 7.5 이상의 NVIDIA GPU가 있을 때 선택되고, 그 밖에는 Numba CUDA 시뮬레이터가 자동으로 선택됩니다(첫 코드 셀이 어느 모드인지 화면에 알려 줍니다). 같은 커널 소스가 두 모드에서 돌고, GPU 모드에서는 측정 셀이 실제로 잽니다. Level 1–4 커널(이 노트북의 Level 1–2 포함)은 그런 GPU 어디서나 실행됩니다. 노트북 09의 cp.async 와 노트북 10의 mma.m16n8k16 은 CC 8.0(sm_80, Ampere) 이상이 필요하고(ldmatrix 와 f16 mma.m16n8k8 은 7.5 에서도 어셈블됩니다), 7.5 GPU에서는 그런 커널의 실행을 별도 프로세스의 시뮬레이터로 보내고 그렇다고 알립니다(결과는 같고, 시간은 재지 않음). 오프라인 컴파일과 SASS 확인은 sm_80과 sm_90을 대상으로 합니다(GPU 없이). |
| **선수 노트북** | 없음 — 이 과정의 첫 노트북입니다. CUDA의 스레드·블록·그리드, 워프(warp, 32 스레드), 글로벌 메모리 코얼레싱(coalescing)을 안다고 가정하고, 스레드마다 C 원소 하나를 계산하는 나이브(naive) 커널(`kernels_numba/naive.py`)에서 출발합니다. 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나 측정한 값**입니다. 시뮬레이터 모드에서는 GPU 수치를 실제 H200에서 **기록한 값(recorded)** 으로, 그렇다고 표시해서 보여 줍니다. 긴 분석(기록 → 뱅크 모델, SASS 세기, 측정 표)은 `course/ch06_shared_tiling/lesson.py` 에 이름 붙은 함수로 있고(테스트: `tests/ch06/test_lesson06.py`), 핵심 계산은 셀에 그대로 적습니다. "심화" 표시가 붙은 부분은 건너뛰어도 됩니다.
""")
code(r"""
import course
info = course.setup("06")          # 장치를 고르고(GPU 또는 시뮬레이터) 배너를 보여 줍니다
import numpy as np
import kernels_numba as kn
from course.ch06_shared_tiling import lesson as lesson06        # 이 노트북의 분석 도구
from kernels_numba.tools import trace
from sim import banks

rec = course.recorded()            # device 도구로 H200에서 기록한 측정값
SIM = kn.device.SIMULATOR
TILE = kn.get("tiled").module.TILE_SIZE
print("모드:", info["mode"], "| 기록된 GPU 측정:", rec.gpu, rec.date, "| TILE_SIZE =", TILE)
""")
md(r"""
배너의 `KernelSpec.min_cc` 는 커널 레지스트리(`kernels_numba/registry.py`)가 커널마다 적어 둔 최소 compute capability 이고, `runs_here()` 는 그 커널이 지금 장치에서 돌 수 있는지(시뮬레이터에서는 항상 참) 답하는 메서드입니다. 이 노트북의 커널은 모두 `min_cc` 가 없어 어디서나 실행됩니다.
""")
md(r"""
## 1. 학습 목표

이 노트북을 마치면 다음을 할 수 있습니다.

1. 공유 메모리 타일링의 원리와 데이터 재사용 효과를 **설명**한다.
2. 협력적 로딩 패턴을 **구현**한다.
3. 타일 루프 안에 `cuda.syncthreads()` 가 두 번 필요한 이유를 **설명**하고, 하나를 빼면 무엇이 틀리는지 **보인다**.
4. 뱅크 충돌의 발생 조건을 실제 워프 단위로 **분석**하고, +1 패딩이 우리 커널에서 실제로 무엇을 바꾸는지 **판단**한다.
5. FMA 명령을 PTX(`fma.rn.f32`)와 SASS(`FFMA`)에서 **해석**한다.

## 2. 사전 복습

답을 먼저 떠올린 뒤 펼쳐 보세요.

1. 128비트(16바이트) 벡터 로드는 SASS에서 어떻게 표기되나요?
2. 공유 메모리와 글로벌 메모리는 물리적으로 어디에 있고, 그래서 지연시간(latency)은 어떻게 다른가요?
3. 나이브 커널의 산술 강도(arithmetic intensity)가 낮은 근본 원인은 무엇인가요?

<details><summary>사전 복습 정답</summary>

1. 명령 이름 뒤에 폭이 붙습니다: 글로벌 메모리는 `LDG.E.128`, 공유 메모리는 `LDS.128`. 3.4절에서 우리 `tiled` 커널의 SASS에 `LDS.128` 이 실제로 나오는 것을 봅니다.
2. 공유 메모리는 SM 안의 온칩(on-chip) SRAM이고, 글로벌 메모리는 칩 밖의 DRAM(HBM)에 있으며 L2·L1 캐시를 거칩니다. 그래서 공유 메모리의 지연시간이 훨씬 짧습니다. 몇 사이클인지는 GPU 세대와 재는 방법에 따라 다르고 이 노트북은 재지 않으므로 숫자로 말하지 않습니다.
3. 재사용이 없기 때문입니다. C 원소 하나를 계산하는 스레드가 A의 한 행(K개)과 B의 한 열(K개)을 각자 글로벌 메모리에 요청하므로, 같은 A 원소가 N번, 같은 B 원소가 M번 요청됩니다.
</details>

## 3. 개념

### 3.1 타일링 (CRA: 구체 → 표현 → 추상)

**구체 (Concrete).** 스터디 모임의 여러 사람이 모두 같은 책 여러 권을 읽어야 합니다(사람 수와 책 수는 아래 셀에 있습니다).

* 비효율적인 방법: 저마다 서고에 가서 읽을 책을 1권씩 가져왔다가 돌려놓습니다. 같은 책이 사람 수만큼 서고를 오갑니다.
* 효율적인 방법: 한 사람이 한 권씩 맡아 책상에 가져다 놓고, 모두가 책상 위의 책을 함께 봅니다. 책마다 서고를 한 번만 오갑니다.

**서고 = 글로벌 메모리, 책상 = 공유 메모리, 책상 위의 책들 = 타일, 모임 = 타일을 함께 쓰는 스레드들**입니다. 핵심은 왕복을 크게 묶는 것이 아니라, 한 번 가져온 데이터를 여러 스레드가 다시 쓰는 것(재사용)입니다. 한 사람이 한 권씩 맡아 오는 것이 뒤에 나올 협력적 로딩입니다. 왕복 횟수는 아래 셀이 계산합니다.
""")
code(r"""
people, books = 16, 16                       # 같은 책을 읽는 사람 수, 읽을 책 수
alone = people * books                       # 저마다 빌리면: 사람마다 책마다 한 번씩
together = books                             # 한 권씩 맡아 책상에 두면: 책마다 한 번
print(f"각자 빌리면: {alone}번 왕복 / 한 권씩 맡아 함께 보면: {together}번 왕복 ({alone // together}배 적음)")
# 예상 출력: 각자 빌리면: 256번 왕복 / 한 권씩 맡아 함께 보면: 16번 왕복 (16배 적음)
""")
md(r"""
**표현 (Representational).** 블록 하나가 C의 16×16 조각을 맡습니다. K 방향으로 타일을 하나씩 옮기며, 블록의 256 스레드가 A 타일과 B 타일을 **함께** 공유 메모리에 올리고, 각자 자기 C 원소의 부분 내적을 누적합니다.

```
 A (M×K)                         B (K×N)
 ┌────┬────┬────┐                ┌────┬────┐
 │    │    │    │                │ t=0│    │  ← B 타일 (16×16)
 ├────┼────┼────┤                ├────┼────┤
 │t=0 │t=1 │t=2 │ ← A 타일       │ t=1│    │
 ├────┼────┼────┤   (16×16)      ├────┼────┤
 │    │    │    │                │ t=2│    │
 └────┴────┴────┘                └────┴────┘
        │  협력적 로딩 (스레드당 A 1개 + B 1개)  │
        ▼                                       ▼
   As[16][16]  (공유 메모리)          Bs[16][16]  (공유 메모리)
        └──────────► acc += As[ty, k] * Bs[k, tx]  (k = 0..15, FMA 16번) ◄──┘
                                   │ 모든 타일이 끝나면
                                   ▼
                 C[row, col] = alpha·acc + beta·C[row, col]
```

타일 루프는 이렇게 흘러갑니다 (타일 수 T = ⌈K / 16⌉):

```
t = 0    : A의 열 0..15,  B의 행 0..15  를 올림 → 부분합 계산
t = 1    : A의 열 16..31, B의 행 16..31 을 올림 → 부분합에 누적
...
t = T−1  : 마지막 타일을 올림 → 최종 합 완성 → C에 기록
```

**추상 (Abstract).** 재사용 팩터(reuse factor)는 `TILE_SIZE` 입니다. 공유 메모리에 올린 원소 하나는 글로벌 메모리에서 **한 번** 읽히고, 내적에서 **TILE_SIZE번** 쓰입니다.

* `As[ty, k]` 는 같은 행(`ty`)을 맡은 16 스레드(`tx = 0..15`)가 모두 읽습니다.
* `Bs[k, tx]` 는 같은 열(`tx`)을 맡은 16 스레드(`ty = 0..15`)가 모두 읽습니다.

이 말이 우리 커널에서 정말 맞는지, 실제 커널을 시뮬레이터에서 돌리며 공유 메모리 접근을 전부 **기록(trace)** 해서 셉니다. `trace.shared_accesses` 는 한 블록이 한 모든 공유 메모리 읽기·쓰기를 (배열, 소스 줄, 읽기/쓰기, 몇 번째 실행, 스레드 번호, 바이트 주소, 폭)으로 돌려줍니다.
""")
code(r"""
tr = trace.shared_accesses("tiled", M=16, N=16, K=32)       # 블록 1개, K 타일 2개를 실제로 실행하며 기록
from collections import Counter, defaultdict
readers = defaultdict(set)                                  # (배열, 타일, 바이트 주소) → 그 원소를 읽은 스레드들
for array, site, op, inst, tid, addr, width in tr["records"]:
    if op == "load":
        readers[(array, inst // TILE, addr)].add(tid)       # inst: 그 줄의 몇 번째 실행 (k 16번 = 타일 하나)
print("원소 하나를 읽은 스레드 수: 그런 원소의 개수 =", dict(Counter(len(t) for t in readers.values())))
# 예상 출력: 원소 하나를 읽은 스레드 수: 그런 원소의 개수 = {16: 1024}   (타일 2개 × 배열 2개 × 256 원소)
""")
md(r"""
그래서 글로벌 메모리에 보내는 **로드 요청** 수가 나이브 커널의 1/16이 됩니다.

산술 강도(arithmetic intensity, AI)는 "연산량 ÷ 옮긴 바이트"인데, **어느 메모리 수준에서 센 바이트인지**를 꼭 밝혀야 합니다. C 원소 하나(FMA K번 = 2K FLOP)에 대해, SM이 글로벌 메모리에 **요청한** 로드 바이트로 세면:

```
나이브:  2K FLOP / (2K × 4 B)            = 0.25 FLOP/B
타일링:  2K FLOP / (2K / TILE × 4 B)     = 0.25 × TILE = 4.0 FLOP/B   (TILE = 16, 나이브의 16배)
```

DRAM 수준에서는 값이 전혀 다릅니다: 같은 원소를 여러 블록이 요청해도 L2 캐시가 재사용을 잡아 주기 때문입니다. 행렬곱 전체로 보면 A·B를 DRAM에서 한 번씩 읽고 C를 한 번 쓰는 것이 최소 트래픽입니다. 이 구분은 4.8절에서 루프라인(roofline)을 볼 때 다시 중요해집니다.
""")
code(r"""
K = 4096
flops = 2 * K                                               # C 원소 하나: FMA K번
ai = {"naive": flops / (2 * K * 4),                         # A 의 행과 B 의 열을 K개씩, 4 B 씩 요청
      "tiled": flops / (2 * K * 4 / TILE)}                  # 타일링: 요청 1/TILE
print(f"글로벌 로드 요청 기준 AI: 나이브 {ai['naive']:.2f}, 타일링 {ai['tiled']:.2f} FLOP/B (×{ai['tiled'] / ai['naive']:.0f})")
dram_min = 2 * K ** 3 / (3 * K * K * 4)                     # 행렬곱 전체: A, B 한 번 읽기 + C 한 번 쓰기
print(f"참고: {K}³ 행렬곱의 DRAM 최소 트래픽이면 AI = {dram_min:.0f} FLOP/B")
# 예상 출력: 글로벌 로드 요청 기준 AI: 나이브 0.25, 타일링 4.00 FLOP/B (×16) / ... AI = 683 FLOP/B
""")
md(r"""
### 3.2 협력적 로딩 (Cooperative Loading)

타일링이 동작하려면 블록의 모든 스레드가 **협력해서** 타일을 공유 메모리에 올려야 합니다.

* 블록 크기: 16 × 16 = **256 스레드**
* 타일마다 각 스레드가 `As` 에 **1개**, `Bs` 에 **1개**를 저장
* 타일당 256 + 256 = **512개** float

256 스레드가 나눠 맡으므로 타일 전체가 한 번에 올라가고, 한 스레드가 여러 원소를 올릴 필요가 없습니다. 아래 셀은 3.1절의 같은 기록에서 스레드별 저장 횟수를 셉니다.
""")
code(r"""
stores = Counter((array, tid) for array, site, op, inst, tid, addr, width in tr["records"] if op == "store")
per_thread = {a: {n // 2 for (arr, _), n in stores.items() if arr == a} for a in ("As", "Bs")}   # 타일 2개로 나눔
print("타일당 스레드 1개의 저장 횟수:", per_thread, "| 타일당 블록 전체 저장 원소 수:", sum(stores.values()) // 2)
# 예상 출력: 타일당 스레드 1개의 저장 횟수: {'As': {1}, 'Bs': {1}} | 타일당 블록 전체 저장 원소 수: 512
""")
md(r"""
스레드 `(ty, tx)` 가 저장하는 원소 (우리 Numba 커널 `kernels_numba/tiled.py`):

```python
a_col = t * TILE_SIZE + tx
As[ty, tx] = A[row, a_col]        # 행렬 밖이면 0.0
b_row = t * TILE_SIZE + ty
Bs[ty, tx] = B[b_row, col]        # 행렬 밖이면 0.0
```

`tx` 가 연속인 스레드들이 `A` 의 한 행에서 연속된 16개를, `B` 의 한 행에서 연속된 16개를 읽으므로 글로벌 메모리 읽기도 코얼레싱됩니다.

### 3.3 동기화: `cuda.syncthreads()` 두 번

타일 루프 안에는 배리어(barrier)가 **두 번** 필요합니다. 하나라도 빠지면 경쟁 상태(race condition)가 생기고, 결과가 틀릴 수 있습니다.

**첫 번째 배리어: 저장이 끝난 뒤에 읽는다.**

```python
As[ty, tx] = ...                  # 각 스레드가 자기 원소를 저장
Bs[ty, tx] = ...
cuda.syncthreads()                # [1] 블록의 모든 스레드가 저장을 마칠 때까지 기다림
for k in range(TILE_SIZE):
    acc += As[ty, k] * Bs[k, tx]  # 다른 스레드가 저장한 원소를 읽음
```

이것이 없으면: `Bs[3, 5]` 는 스레드 `(tx=5, ty=3)`(워프 1)이 저장하는데, 스레드 `(tx=5, ty=14)`(워프 7)이 `k = 3` 에서 그 원소를 **저장되기 전에** 읽을 수 있습니다. 그러면 이전 타일의 값이나 초기화되지 않은 값을 씁니다.

**두 번째 배리어: 모두 다 읽은 뒤에 덮어쓴다.**

```python
for k in range(TILE_SIZE):
    acc += As[ty, k] * Bs[k, tx]  # 현재 타일로 계산
cuda.syncthreads()                # [2] 블록의 모든 스레드가 계산을 마칠 때까지 기다림
# 다음 반복: As, Bs 에 다음 타일을 덮어씀
```

이것이 없으면: 빠른 스레드 `(tx=5, ty=3)` 이 다음 타일의 값을 `Bs[3, 5]` 에 이미 써 버렸는데, 느린 스레드 `(tx=5, ty=14)` 가 아직 현재 타일의 `k = 3` 단계라면 **덮어쓰인 값**으로 계산합니다. 다음 반복의 첫 번째 배리어는 빠른 스레드가 저장을 **마친 뒤**에 있으므로 이것을 막지 못합니다.

| 배리어 | 위치 | 보장하는 것 | 빼면 |
|---|---|---|---|
| 첫 번째 | 저장 후, 내적 전 | 타일 전체가 저장된 뒤에 읽는다 (쓰기 후 읽기, RAW) | 아직 저장되지 않은 원소(이전 타일 값이나 쓰레기)를 읽는다 |
| 두 번째 | 내적 후, 다음 저장 전 | 모두 다 읽은 뒤에 덮어쓴다 (읽기 후 쓰기, WAR) | 다음 타일 값이 현재 타일 계산에 섞인다 |

우리 커널에서 두 배리어가 있는 줄:
""")
code(r"""
tiled_k = kn.get("tiled").kernel
print("barrier 1: tiled.py", course.line_of(tiled_k, "cuda.syncthreads()", 1), "줄")
print("barrier 2: tiled.py", course.line_of(tiled_k, "cuda.syncthreads()", 2), "줄")
""")
md(r"""
**하나를 빼면 정말 틀리는가?** 경쟁 상태는 타이밍에 달려 있어서, 운이 좋으면 맞게 나오기도 합니다. 그래서 "한 번 돌려 보니 맞았다"는 버그가 없다는 증거가 못 됩니다.

이 과정의 시뮬레이터에는 경쟁 검출기(race detector)가 있습니다. 기본 설정에서는 배리어 없이 만나는 두 접근을 찾는 즉시 멈추고, 두 스레드·두 줄·고치는 법을 알려 줍니다. 직접 해보기 06-2 의 확인 셀은 멈추는 대신 경쟁을 모두 모아, 같은 보고와 틀린 원소 지도를 함께 보여 줍니다. 보고는 두 접근을 **프로그램 순서(program order)**, 곧 커널 코드에서 어느 접근이 앞인지로 적고("프로그램 순서 앞 / 뒤"), 시뮬레이터가 이번에 실제로 어느 쪽을 먼저 실행했는지는 따로 한 줄로 알려 줍니다: 배리어가 없으면 둘의 실행 순서는 보장되지 않습니다. 아래 셀은 틀린 답 자체를 보이려고 검출기가 멈추지 않게 하고(`lesson06.racy_demo()`; 데모의 launch 는 경쟁을 조용히 모아 두기만 합니다) 실행합니다. 그때 시뮬레이터는 블록의 스레드를 **한 번에 하나씩, 다음 배리어까지** 실행합니다. CUDA 프로그래밍 모델은 배리어 사이에서 스레드들이 어떤 순서로 진행할지 보장하지 않으므로, 이것도 허용되는 실행 순서 가운데 하나입니다. 그리고 결정적(deterministic)이라 **매번 같은 방식으로 틀립니다**. 또 공유 메모리는 블록 시작 때 NaN으로 채워지므로, 아무도 쓰지 않은 값을 읽으면 결과에 NaN이 보입니다.

`kernels_numba/demos/races.py` 에는 `tiled` 에서 배리어를 하나씩 뺀 `no_sync1`(첫 번째 없음), `no_sync2`(두 번째 없음)가 있습니다. 여러 번 돌려(시뮬레이터는 매번 새 난수 입력, GPU 는 GPU 메모리에 한 번 올린 같은 입력으로: 결과를 바꾸는 것은 데이터가 아니라 타이밍입니다. 아래에 보여 줄 {{gpu}} 기록은 {{race_inputs}} 잰 것입니다), 몇 번 틀렸는지와 가장 큰 상대 오차를 봅니다. GPU 에서는 행렬 크기를 그 GPU 의 FP32 속도로 골라 세 커널의 실행이 모두 약 {{race_budget_s}}초 안에 끝나게 합니다(처음 실행하면 세 커널을 컴파일하는 시간이 더해집니다). 시뮬레이터에서는 결과가 결정적이므로 판정(PASS)하고, GPU에서는 결과만 보여 줍니다: 경쟁 상태가 GPU에서 몇 번 드러나는지는 GPU와 타이밍에 달려 있어 판정할 수 없기 때문입니다.
""")
code(r"""
n, runs = (48, 3) if SIM else lesson06.race_size()        # GPU: 이 GPU 의 FP32 피크로 크기를 고름
out = lesson06.race_outcomes(n=n, runs=runs, seed=0)       # o["worst"]: 여러 번 가운데 가장 큰 상대 오차
where = "시뮬레이터" if SIM else lesson06.here_label()
for name, o in out.items():
    print(f"{where}: {name:9s} {n}³, {runs}회 중 {o['wrong']}회 틀림, 최대 상대 오차 {o['worst']:.2e}")
if SIM:   # 시뮬레이터의 실행 순서는 결정적: 배리어가 빠진 커널은 매번 틀리고 tiled 는 매번 맞다
    print("PASS" if [o["wrong"] for o in out.values()] == [0, runs, runs] else "FAIL")
# 예상 출력: (시뮬레이터) tiled 0회, no_sync1 3회(오차 inf = NaN), no_sync2 3회 틀림 / PASS
""")
md(r"""
같은 입력을 **다른 합법적 실행 순서**(정방향, 역방향, 무작위)로 돌려 보면 경쟁 상태가 한눈에 보입니다: 올바른 커널은 순서와 무관하게 비트 단위로 같은 답을, 배리어가 빠진 두 커널은 이 셀의 입력(K 타일이 둘 이상)에서 순서마다 다른 답을 냅니다. (실행 순서를 고를 수 있는 시뮬레이터에서만 하는 실험) 거꾸로, 같은 답이 나온다고 경쟁이 없다는 뜻은 아닙니다: 두 번째 배리어가 빠진 커널은 K 타일이 하나뿐이면 덮어쓸 다음 타일이 없어 어느 순서에서도 같은 답을 냅니다(5절 질문 2).
""")
code(r"""
if SIM:
    for name, same in lesson06.schedule_outcomes(n=32).items():
        print(f"{name:9s} 실행 순서 3가지의 결과가 {'모두 같다' if same else '서로 다르다 → 경쟁 상태'}")
else:
    print("GPU 모드: 실행 순서는 하드웨어가 정합니다 (위 셀이 GPU에서 반복 실행한 결과).")
""")
md(r"""
실제 GPU에서는 어땠을까요? device 도구로 {{gpu}}에서 {{race_n}}³ 행렬곱을 {{race_runs}}번씩 돌린 기록과, `compute-sanitizer --tool racecheck`(공유 메모리 경쟁 검사기)의 보고입니다.
""")
code(r"""
r = rec["races"]
inputs = {"fresh": "실행마다 새 난수 입력으로", "one": "GPU에 한 번 올린 한 입력으로"}[r["inputs"]]   # 기록 방식
print(f"기록: {rec.gpu} ({rec.date}), {r['n']}³, {inputs} {r['runs']}회씩")
for name, c in r["cases"].items():
    print(f"  {name:9s} 틀린 횟수 {c['wrong_runs']:2d}/{r['runs']}, 최대 상대 오차 {c['worst_rel_err']:.2e}")
rc = rec["racecheck"]
print(f"racecheck ({rc['problem']}): no_sync1 에서 RAW(쓰기 후 읽기) 위험 보고 {rc['no_sync1_RAW_hazard_reports_shown']}건 표시")
""")
md(r"""
이 기록의 H200 실행에서 `no_sync1` 은 {{wrong1_c}}, `no_sync2` 는 {{wrong2_c}}. racecheck 는 `no_sync1` 에서 "한 스레드가 쓴 공유 메모리를 다른 스레드가 배리어 없이 읽는다"(RAW hazard)를 보고했습니다. 그렇다고 "GPU에서도 항상 틀린다"는 규칙은 아닙니다. 다른 GPU, 다른 크기, 다른 부하에서는 운 좋게 맞는 실행이 섞일 수 있습니다. 버그의 증거는 횟수가 아니라, **어떤 합법적 순서에서는 틀린다**는 것(시뮬레이터)과 검사기의 보고입니다. racecheck 의 보고는 처음 {{rc_limit}}건에서 멈추었습니다. 그 가운데 위 셀이 센 RAW 보고가 {{rc_raw}}건이고, 나머지 {{rc_rest}}건이 무엇이었는지는 기록에 남아 있지 않습니다. 표시된 위험은 모두 `no_sync1` 의 것이라, `no_sync2` 의 WAR(읽기 후 쓰기) 위험은 이 기록에 검사기의 보고가 없습니다. 그 버그는 시뮬레이터가 보여 줍니다: 앞의 시뮬레이터 실행에서 본 틀린 답, 그리고 직접 해보기 06-2(4절)에서 시뮬레이터의 경쟁 검출기가 짚어 주는 두 스레드와 두 줄입니다.

### 3.4 뱅크 충돌 (핵심)

공유 메모리는 **32개 뱅크(bank)** 로 나뉘고, 연속된 4바이트 워드(word)가 연속된 뱅크에 놓입니다.

```
바이트 주소:  0   4   8   12  ...  124   128  132  ...
뱅크 번호:    0   1   2   3   ...   31     0    1  ...        뱅크 = (바이트 주소 // 4) % 32
```

**뱅크 충돌**은 **한 워프의 한 요청(request) 안에서** 서로 다른 스레드가 **같은 뱅크의 서로 다른 워드**를 건드릴 때 생깁니다. 그러면 그 요청이 여러 웨이브프론트(wavefront)로 나뉘어 차례로 처리됩니다(직렬화). 같은 **워드**를 여러 스레드가 읽으면 브로드캐스트(broadcast)로 한 번에 처리되므로 충돌이 아닙니다.

먼저 `As[16][16]`(패딩 없음)과 `As[16][17]`(+1 패딩)의 처음 네 행이 어느 뱅크에 놓이는지 계산합니다.
""")
code(r"""
for pad in (0, 1):
    width = 16 + pad                                          # 행 하나의 워드 수
    print(f"As[16][{width}]:")
    for row in range(4):
        bs = [(row * width + c) % 32 for c in range(16)]      # 워드 번호 = row·width + c, 뱅크 = 워드 % 32
        print(f"  As[{row}][0..15] → 바이트 {4 * row * width:4d}..{4 * (row * width + 15):4d}, 뱅크 {bs[0]:2d}..{bs[-1]:2d}  ({bs})")
# 예상 출력: 패딩 없음: 행 0, 2 는 뱅크 0..15, 행 1, 3 은 16..31 / +1 패딩: 행마다 시작 뱅크가 17씩 밀림 (0, 17, 2, 19)
""")
md(r"""
패딩이 없으면 한 행이 16 × 4 = 64바이트 = 뱅크 16개분이라, 두 행마다 같은 뱅크로 돌아옵니다(행 0과 2, 행 1과 3). +1 패딩이면 한 행이 17워드라 행마다 시작 뱅크가 17씩 밀립니다.

행 0 과 행 2 가 같은 뱅크라는 것이 충돌을 뜻하려면 두 행이 **한 워프의 한 요청**에 함께 들어 있어야 합니다. 워프는 **선형 스레드 번호(`tx + 16·ty`)가 연속인 32개** 스레드이므로, 16×16 블록의 한 워프에는 `ty = 2w, 2w+1` 두 행만 들어 있습니다. 행 0과 행 2는 서로 다른 워프에 있습니다.
""")
code(r"""
w0 = banks.warps((16, 16))[0]
print("워프 0의 (tx, ty, tz):", w0[:2], "...", w0[15:17], "...", w0[-1])
print("워프 w 에 들어 있는 ty:", lesson06.rows_per_warp((16, 16)))
# 예상 출력: 워프 w 에 들어 있는 ty: [[0, 1], [2, 3], ..., [14, 15]]
""")
md(r"""
이제 3.1절처럼 실제 커널의 **접근 전부**를 기록해 뱅크 모델(`sim/banks.py`)에 넣고, 워프 요청마다 웨이브프론트 수를 셉니다. 패딩 없는 `tiled` 와 +1 패딩 `tiled_pad` 를 비교합니다. 뱅크 모델은 "같은 뱅크의 서로 다른 워드 n개 = 웨이브프론트 n개, 같은 워드는 브로드캐스트"라는 규칙을 한 워프의 한 요청에 적용합니다.
""")
code(r"""
wf = {}
for name, rows in lesson06.bank_tables(("tiled", "tiled_pad")).items():   # 블록 하나를 시뮬레이터에서 기록 → 뱅크 모델
    print(name)
    for r in rows:
        print(f"  {r['array']} {r['op']:5s} (줄 {r['site']:3d}): 요청 {r['requests']:4d}개, "
              f"요청당 웨이브프론트 평균 {r['mean']:.2f}, 최대 {r['max']} ({r['conflict']}-way)")
    wf[name] = lesson06.max_wavefronts(rows)
""")
code(r"""
for name, worst in wf.items():                                 # (배열, 연산) → 가장 나쁜 요청의 웨이브프론트
    print(name, worst)
# 예상 출력: tiled 모두 1 / tiled_pad ('As', 'store'): 2, ('Bs', 'store'): 2, 읽기는 1
""")
md(r"""
**우리 커널에서 실제로 참인 것:**

* 패딩이 없어도 내적 루프의 읽기 `As[ty, k]` 는 충돌이 없습니다. 한 워프의 두 행은 뱅크 `k` 와 `k+16` 에 있고, 같은 행의 16 스레드는 같은 워드를 읽으므로(브로드캐스트) 서로 다른 워드는 2개뿐입니다. `Bs[k, tx]` 도 연속 16워드라 충돌이 없습니다.
* +1 패딩은 충돌을 없애는 것이 아니라 **저장에 2-way 충돌을 만듭니다.** 행 `2w+1` 이 17워드 뒤에서 시작하므로 `(ty=2w+1, tx=15)` 의 워드가 `(ty=2w, tx=0)` 과 같은 뱅크에 떨어집니다.

모델의 예측을 실제 GPU의 Nsight Compute(`ncu`) 측정과 나란히 놓습니다. ncu의 공유 메모리 웨이브프론트 지표(`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st`; ncu 화면에서는 Memory Workload Analysis 의 공유 메모리 표)를 명령 수로 나누면 **명령당 웨이브프론트**가 나옵니다. 32비트 접근이면 1.0 이 충돌 없는 이상값입니다. 128비트 접근(`LDS.128`)은 다릅니다: 워프의 32 스레드가 서로 다른 16바이트를 읽으면 32 × 16 B = 512 B 이고 웨이브프론트 하나는 최대 128 B 이므로, 충돌이 없어도 적어도 512 ÷ 128 = 4개입니다 (같은 주소를 읽는 스레드가 있으면 그보다 적을 수 있습니다: 아래 심화). 셀은 기록한 값을 보여 줍니다(아래 설명이 말하는 수치). GPU와 `ncu` 가 있으면 셀 첫 줄을 `LIVE_NCU = True` 로 바꿔 지금 GPU 에서도 잴 수 있습니다: ncu 는 커널마다 여러 번 다시 실행하며 카운터를 모으므로 1분 넘게 걸릴 수 있고, 그동안 진행 막대가 커널 수를 셉니다.
""")
code(r"""
LIVE_NCU = False     # True: 이 GPU 에서 ncu 로 직접 잼 (GPU 와 ncu 필요, 1분 넘게 걸릴 수 있음)
from course import measure
where, metrics = lesson06.ncu_metrics(rec)                    # 기록된 값: 아래 설명이 말하는 수치
live = lesson06.ncu_live(rec, LIVE_NCU)                       # GPU 가 있고 LIVE_NCU = True 일 때만 잼
for src, m in [(where, metrics)] + ([lesson06.ncu_metrics(rec, live)] if live else []):
    print("측정:", src)
    print(f"{'커널':10s} {'연산':5s} {'명령 수':>12s} {'웨이브프론트':>12s} {'명령당':>7s}")
    for k, op, inst, wfs, per in lesson06.ncu_rows(m, ("tiled", "tiled_pad", "tiled_fma")):
        print(f"{k:10s} {op:5s} {inst:12,d} {wfs:12,d} {per:7.2f}")
""")
md(r"""
* `tiled_pad` 저장: 명령당 **{{st_per_inst_pad}}** 웨이브프론트 — 모델이 예측한 2-way 충돌이 측정에도 보입니다. `tiled` 저장은 {{st_per_inst_tiled}}: 모델은 충돌이 없다고 보는데, ncu는 저장 명령 {{st_inst_tiled}}개에 웨이브프론트를 {{st_extra_tiled}}개({{st_extra_pct_tiled}} %) 더 세어 뱅크 충돌(`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st`)로 보고합니다. 한 워프의 한 요청만 보는 모델로는 설명되지 않는 이 차이는 이 기록만으로는 원인을 가릴 수 없습니다(`tiled_pad` 도 2-way 의 예측보다 조금 많습니다). 어림한 값(`tiled` 는 충돌 없음, `tiled_pad` 는 2-way)은 모델과 측정이 같습니다. (+1 패딩이면 이 값이 1.0 이 된다는 설명을 보기도 하는데, 우리 커널에서는 저장이 {{st_per_inst_pad|이/가}} 됩니다.)
* `tiled_pad` 읽기: 명령당 {{ld_per_inst_pad}} — 충돌 없음. 패딩이 읽기에서 없앤 충돌은 애초에 없었습니다.
* `tiled` 읽기가 {{ld_per_inst_tiled}}인 이유는 충돌이 아니라 **벡터화**입니다. 패딩이 없으면 `As` 한 행이 64바이트이고 배열을 16바이트로 정렬(`alignment=16`)했으므로, 컴파일러가 `As[ty, k..k+3]` 네 개를 **128비트 읽기 한 번(`LDS.128`)** 으로 합칩니다. 패딩이 있으면 행이 68바이트라 행 `ty` 의 시작 주소 68·`ty` 가 16의 배수인 것은 `ty` 가 4의 배수인 행뿐이고 (나머지 행은 16바이트 경계에서 4, 8, 12 바이트 어긋납니다: 아래 셀의 첫 줄), 컴파일러는 모든 행에 맞는 한 가지 명령을 내야 하므로 합칠 수 없습니다.

SASS로 확인합니다(GPU 없이 sm_90용으로 컴파일: 처음 실행할 때는 컴파일하는 동안 진행 막대가 보이고, 결과는 디스크에 남아 다시 실행하면 바로 나옴). 셀은 SASS 에서 배리어가 있는 루프, 즉 **타일 루프의 몸체 한 번**의 명령을 셉니다(괄호 안은 루프 밖까지 더한 커널 전체의 FFMA). 타일 하나의 명령 수에 워프 수 × 타일 수를 곱하면 ncu가 센 읽기 명령 수가 나와야 합니다.
""")
code(r"""
row_bytes = (TILE + 1) * 4                                      # tiled_pad 의 한 행 (패딩 포함)
print(f"tiled_pad 행 ty 의 시작 바이트 mod 16 (ty = 0..7): {[row_bytes * ty % 16 for ty in range(8)]}")
sass = lesson06.sass_shared_loads(("tiled", "tiled_pad"), cc=(9, 0))
n_ncu = rec["ncu_shared"]["n"]
for k, (lds, lds128, ffma, ffma_all) in sass.items():                # 타일 루프 한 번 + 커널 전체 FFMA
    pred = lesson06.predicted_load_instructions(lds, lds128, n_ncu, TILE)
    same = "같음" if pred == metrics[k][lesson06.LD_INST] else "다름"
    print(f"{k:10s} 타일당 LDS(32비트) {lds:2d}개, LDS.128 {lds128}개, FFMA {ffma}개 (커널 전체 FFMA {ffma_all}개) → "
          f"{n_ncu}³ 읽기 명령 예측 {pred:,d} / ncu {metrics[k][lesson06.LD_INST]:,d} ({same})")
# 예상 출력: … [0, 4, 8, 12, 0, 4, 8, 12] / tiled 16 + 4, FFMA 16 (전체 17) → 41,943,040 / 41,943,040, tiled_pad 32 + 0 → 67,108,864 / 67,108,864
""")
md(r"""
이 강좌의 컴파일러(`kernels_numba/infra/targets.json` 의 도구 모음)로는 SASS 로 예측한 읽기 명령 수가 H200 에서 ncu 가 센 수와 정확히 같습니다 (셀의 괄호: 다른 컴파일러에서는 다를 수 있고, 그러면 '다름' 이 나옵니다). `tiled` 는 타일당 32비트 `LDS` 와 `LDS.128` 을 함께 쓰고 `tiled_pad` 는 32비트 `LDS` 만 씁니다: `As[ty, k]` 의 16개 읽기를 `tiled` 는 `LDS.128` 네 개로 합치고 `tiled_pad` 는 하나씩 읽으므로, 타일 하나에서 워프가 내는 공유 메모리 읽기 명령이 `tiled` 쪽이 적습니다 (셀의 타일당 개수). 4.8절에서 이것이 FFMA당 웨이브프론트와 속도 차이로 이어지는 것을 봅니다.

<details><summary>심화: LDS.128 하나는 웨이브프론트 몇 개인가 (답이 나지 않는 질문)</summary>

한 워프의 `LDS.128` 은 서로 다른 16바이트 조각 2개(행 `2w` 와 `2w+1` 의 `k..k+3`)만 읽습니다. 128비트 접근을 하드웨어가 어떤 단위로 나눠 처리하는지는 문서화되어 있지 않아서, 뱅크 모델은 **두 가지 가정**을 나란히 계산합니다.

* `phases`: 128비트 접근은 1/4 워프(8 스레드)씩 나눠 처리한다 (Volta 이전 세대 문서에 있던 규칙을 그대로 가정).
* `words`: 뱅크마다 워드 하나씩이면 워프 전체를 한 번에 처리한다.

측정에서 거꾸로 구한 값과 비교합니다. 역산은 32비트 `LDS` 한 번이 웨이브프론트 1개라고 놓고(위 표에서 `tiled_pad` 읽기가 명령당 1.00), 나머지를 `LDS.128` 에 돌립니다 (아래 셀, 이어서 읽어도 되고 건너뛰어도 됩니다).
</details>
""")
code(r"""
for rule in ("phases", "words"):
    print(f"모델 가정 '{rule}': LDS.128 한 번 = {lesson06.lds128_model(rule)} 웨이브프론트")
lds, lds128 = sass["tiled"][:2]                              # 타일 루프 한 번의 LDS, LDS.128 (위 셀)
print(f"ncu 에서 역산: LDS.128 한 번 ≈ {lesson06.lds128_from_ncu(metrics, n_ncu, TILE, lds, lds128):.2f} 웨이브프론트")
""")
md(r"""
(심화 계속) 역산한 값({{lds128_wf}})은 모델의 두 가정(4 와 1) 어느 쪽과도 다릅니다. 이 요청을 **반 워프(half-warp)씩** 처리한다고 보면 2가 나오지만, 그것은 ncu 지표 하나(읽기 웨이브프론트 합계)에서 위의 가정을 두고 거꾸로 푼 **추정**이지 문서화된 규칙이 아닙니다. 모델은 가정이고, 판정은 측정이 합니다. 규칙과 무관하게, ncu 가 센 읽기 웨이브프론트를 워프·타일 수로 나누면 `tiled` 는 타일당 {{ld_wf_tile_tiled}}(≈ LDS {{lds_tile}}개 × 1 + LDS.128 {{lds128_tile}}개 × {{lds128_wf}}), `tiled_pad` 는 {{ld_wf_tile_pad}} 입니다. (심화 끝)

**+1 패딩의 수학 자체는 맞습니다.** `17` 과 `32` 는 서로소(최대공약수 1)이므로 `ty·17 mod 32` 는 `ty = 0..31` 에서 모두 다르고, 행 폭이 16이면 두 행마다 같은 뱅크로 돌아옵니다. 다만 그것은 "한 열을 여러 행이 한 요청으로 읽는" 접근에 대한 이야기이고, 우리 커널은 그런 요청을 만들지 않습니다.
""")
code(r"""
import math
print("ty·17 mod 32 의 서로 다른 값 개수:", len({(ty * 17) % 32 for ty in range(32)}), "/ gcd(17, 32) =", math.gcd(17, 32))
print("ty·16 mod 32 의 서로 다른 값 개수:", len({(ty * 16) % 32 for ty in range(32)}), "/ gcd(16, 32) =", math.gcd(16, 32))
# 예상 출력: 32 / gcd 1, 그리고 2 / gcd 16
""")
NB.exercise("06-1", r"""
패딩 `p = 0..4` 마다 `As[ty][tx]` 저장과 `As[ty][k]` 읽기(k = 0)의 워프별 최대 웨이브프론트를 `banks.analyze` 로 세고, **둘 다 1인 `p` 를 모두** 돌려주는 함수를 쓰세요 (`p = 0..max_pad`; 확인 셀은 `max_pad` 를 0, 4, 31, 32 로 바꿔 가며 부릅니다). `banks.analyze(banks.Layout((16, 16), pad=p), lambda x, y, z: (y, x), (16, 16), kind="store")` 는 워프마다 보고서 하나를 돌려주고, 보고서의 `.wavefronts` 가 웨이브프론트 수입니다. 답을 짐작하지 말고 세어 보세요: 확인 셀은 답만이 아니라, 넣거나 뺀 `p` 마다 어느 접근이 몇-way 충돌인지 알려 줍니다.
""")
md(r"""
통과했다면 여러분이 센 두 값을 `p` 마다 나란히 보세요. 이 블록에서는 읽기 때문에 빠지는 `p` 가 하나도 없습니다: 저장이 충돌 없는 `p` 에서는 읽기도 충돌이 없습니다. 왜 그런지 생각해 보세요(힌트: 저장이 충돌 없으면 워프 하나가 쓰는 행들은 서로 겹치지 않는 뱅크 범위에 있고, `As[ty][k]` 는 그 행마다 워드 하나를 읽습니다). 그래도 읽기를 따로 세는 습관은 버리지 마세요. 6절의 `smem[ty][5]` 처럼 한 요청이 한 **열**을 읽는 접근은, 행을 따라 저장하는 접근과 달리 패딩이 없으면 충돌합니다(6절에서 셉니다).
""")
md(r"""
### 3.5 FMA: `fma.rn.f32` 와 `FFMA`

CUDA C로 쓴 타일 커널에서는 내적을 인라인 PTX(inline PTX)로 쓰기도 합니다.

```cuda
asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(sum) : "f"(a), "f"(b));
```

| 구성 | 의미 |
|---|---|
| `fma` | 곱하고 더하기를 한 명령으로 (fused multiply-add) |
| `.rn` | 가장 가까운 값으로, 동점이면 짝수로 반올림 (round to nearest even), **한 번만** |
| `.f32` | 32비트 단정밀도 |
| `%0` | 출력이자 덧셈 입력 = `sum` (`"+f"` 는 읽고 쓰는 피연산자) |
| `%1`, `%2` | 곱셈의 두 입력 = `a`(`As` 에서 읽은 값), `b`(`Bs` 에서 읽은 값) |

PTX의 일반형은 `fma.rn.f32 d, a, b, c;` → `d = a·b + c` 이고, 위 코드는 `sum = a·b + sum` 입니다. 우리 `tiled_fma` 는 같은 뜻을 Numba의 `acc = cuda.fma(As[ty, k], Bs[k, tx], acc)` 로 씁니다. FMA 명령 하나가 2 FLOP(곱셈 + 덧셈)으로 세어지는 이유이기도 합니다.

Numba(NVVM)는 기본 설정에서 `acc += a * b` 를 이미 `fma.rn.f32` 로 **합칩니다**(contraction: 곱셈과 덧셈을 한 명령으로). 패딩 커널 `tiled_pad` 와, 그것과 FMA 줄만 다른 `tiled_fma` 를 GPU 없이 컴파일해서 비교합니다.
""")
code(r"""
ev = lesson06.fma_evidence(("tiled_pad", "tiled_fma"))      # PTX(sm_80)와 SASS(sm_90)
for k, (ptx, sass90) in ev.items():
    print(f"{k:10s} PTX:", ", ".join(f"{op} {n}개" for op, n in ptx.items()), f"| SASS FFMA {sass90['FFMA']}개")
print("마지막 배리어 뒤(k 루프 밖)의 산술:", lesson06.after_last_barrier("tiled_pad"))
print("두 커널의 sm_90 SASS 명령 구성이 완전히 같은가:", ev["tiled_pad"][1] == ev["tiled_fma"][1])
# 예상 출력: 두 커널 모두 fma.rn.f32 17, mul.f32 1, 나머지 0 / 루프 밖: mul.f32 (alpha·acc), fma.rn.f32 (+ beta·C) / 같은가: True
""")
md(r"""
두 커널의 PTX 는 같은 구성이고 SASS 명령 구성도 같습니다. k 루프의 곱셈·덧셈은 모두 `fma.rn.f32` 로 합쳐졌습니다: 마지막 배리어 뒤, 즉 루프 밖에 남은 것은 결과를 쓸 때의 `alpha·acc` (`mul.f32`)와 `+ beta·C` (`fma.rn.f32`, beta ≠ 0 일 때)뿐입니다. 그래서 "컴파일러가 MUL + ADD 로 나눌 수 있으니 인라인 PTX 로 FMA 를 강제해야 한다"는 조언은 우리 커널에는 해당하지 않습니다.

오프라인 컴파일 결과가 실제로 GPU에 올라간 커널과 같은지도 봅니다. GPU가 있으면 지금 올라간 커널의 SASS를, 없으면 H200에서 기록한 것을 그 GPU 의 compute capability 로 한 오프라인 컴파일(H200 이면 위 셀의 sm_90)과 나란히 놓습니다.
""")
code(r"""
where, counts, arch, off, same = lesson06.loaded_vs_offline(rec, "tiled_fma")   # 기록에 있는 명령 전부의 개수
print(where, counts)
if off is None:
    print(f"오프라인 {arch}: 오프라인 컴파일 대상이 아닌 compute capability 라 비교하지 않음")
else:
    print(f"오프라인 {arch}:", off, "→", "같음" if same else "다름")
# 예상 출력: (기록) LDG.E 3, STS 2, BAR.SYNC.DEFER_BLOCKING 2, LDS 32, FFMA 17, FMUL 1, STG.E 2 / 오프라인 sm_90: 같은 명령, 같은 수 → 같음
""")
md(r"""
비교하는 것은 기록이 남긴 명령 종류마다의 **개수**뿐입니다. 명령의 순서, 피연산자, 레지스터는 비교하지 않습니다. 이 커널은 기록된 H200 에서 같았지만 늘 같은 것은 아닙니다: 노트북 07 4.10절의 심화에서 `regblock` 은 H200 에 올라간 SASS 의 공유 메모리 읽기 명령(`LDS.128` 과 `LDS`)이 오프라인 컴파일과 다릅니다. 성능을 설명할 때는 측정한 GPU 에 실제로 올라간 SASS 를 봅니다.

FMA가 **한 번만** 반올림한다는 것은 숫자로 확인할 수 있습니다. `x = 1 + 2⁻¹²` 일 때 `x·x − 1` 의 정확한 값은 `2⁻¹¹ + 2⁻²⁴` 입니다. float32 곱셈을 먼저 반올림하면 `2⁻²⁴` 가 사라지고, FMA는 정확한 곱에 더한 뒤 한 번만 반올림하므로 남습니다. 정확도는 대개 좋아지지만 결과 비트가 MUL + ADD 와 달라질 수 있다는 뜻이기도 합니다. 그래서 이 과정의 검증은 항상 허용 오차로 비교합니다.
""")
code(r"""
x = np.float32(1 + 2.0 ** -12)
two_roundings = np.float32(x * x) - np.float32(1)                    # 곱을 float32 로 반올림한 뒤 빼기: 두 번 반올림
one_rounding = np.float32(np.float64(x) * np.float64(x) - 1.0)      # float64 에서는 곱이 정확: 마지막에 한 번만 반올림 (FMA)
exact = 2.0 ** -11 + 2.0 ** -24
print("MUL 후 ADD:", float(two_roundings), "| FMA(한 번 반올림):", float(one_rounding), "| 정확한 값:", exact)
# 예상 출력: MUL 후 ADD: 0.00048828125 | FMA(한 번 반올림): 0.0004883408546447754 | 정확한 값: 0.0004883408546447754
""")
md(r"""
## 4. 코드 분석: 우리 `tiled` 커널

커널은 `kernels_numba/tiled.py` 에 있고, 모든 변형이 같은 방식으로 실행됩니다: `launch(A, B, C, alpha=1.0, beta=0.0) → C` (BLAS의 `C = alpha·A·B + beta·C`). 먼저 전체 소스를 줄 번호와 함께 보고, 부분마다 몇째 줄인지 찾은 뒤 하나씩 읽습니다.
""")
code(r"""
course.show_source(kn.get("tiled").kernel)
""")
code(r"""
for what, line in lesson06.walkthrough(kn.get("tiled").kernel):
    print(f"{what:28s} → tiled.py {line}줄")
""")
md(r"""
**4.1 인자.** `A, B, C` 는 2차원 float32 배열, `alpha, beta` 는 float32. CUDA C 커널이라면 포인터와 `M, N, K`, 행 간격 `lda, ldb, ldc` 를 따로 받고, 드라이버 API로 이름을 찾기 위해 `extern "C"`, 포인터끼리 겹치지 않는다고 알려 주는 `__restrict__` 를 붙입니다. Numba에서는 배열이 모양을 알고(`M, K = A.shape`), 런처가 세 배열이 행 우선 연속(C-contiguous) float32 인지 확인합니다(잘못된 입력은 4.7절).

**4.2 공유 메모리 선언.** `cuda.shared.array((TILE_SIZE, TILE_SIZE), float32, alignment=16)` 가 블록 하나가 함께 쓰는 배열을 만듭니다. 모양은 **컴파일 시간 상수**여야 GPU에서 컴파일됩니다(그래서 `tiled_pad.py` 는 `TILE_PAD = TILE_SIZE + 1` 을 모듈 상수로 둡니다). `alignment=16` 은 3.4절의 `LDS.128` 을 가능하게 합니다. 크기는 `2 × 16 × 16 × 4 = 2048` 바이트, 패딩 버전은 `2 × 16 × 17 × 4 = 2176` 바이트(약 2.1 KiB)입니다. 선언한 크기와, 컴파일러·드라이버가 보고하는 크기를 비교합니다.
""")
code(r"""
occ_rec = course.recorded("occupancy_check_h200")        # H200에서 기록한 장치 속성과 올라간 커널의 속성
for r in lesson06.shared_sizes(occ_rec, ("tiled", "tiled_pad")):
    print(f"{r['kernel']:10s} 선언 {r['declared']} B | cubin 보고 sm_80 {r['sm_80']} B, sm_90 {r['sm_90']} B | "
          f"H200에 올라간 커널(기록) {r['loaded']} B")
print("H200 장치 속성 RESERVED_SHARED_MEMORY_PER_BLOCK (기록):",
      occ_rec["device_attributes"]["RESERVED_SHARED_MEMORY_PER_BLOCK"], "B")
# 예상 출력: tiled 2048 | 2048, 3072 | 2048 / tiled_pad 2176 | 2176, 3200 | 2176 / 1024 B
""")
md(r"""
<details><summary>심화: 블록마다 예약되는 1 KiB 와 sm_90 cubin 의 숫자 (노트북 07·08 이 이곳을 가리킵니다)</summary>

**시스템 예약 공유 메모리.** CUDA는 **compute capability 8.0 이상의 GPU(A100의 8.0, H100·H200의 9.0 모두)에서 블록마다 공유 메모리 1 KiB를 시스템용으로 예약**합니다(장치 속성 `RESERVED_SHARED_MEMORY_PER_BLOCK`; 위 셀의 H200 기록 1024 B). 이 1 KiB는 커널이 쓰는 크기에 들어가지 않고, SM에 블록이 몇 개 들어가는지 셀 때 **블록마다 더해집니다**. 우리 점유율(occupancy) 모델(`sim/occupancy.py`)도 A100과 H100/H200 모두에 같은 1 KiB를 더합니다 (아래 셀).

sm_90 cubin 의 `cuobjdump` 보고(3072 B)만 1 KiB 가 더 큽니다. 같은 커널을 H200에 올렸을 때 드라이버가 보고한 크기는 2048 B 로 선언과 같고, 예약은 A100에도 있습니다. 그러니 sm_90 cubin 의 숫자를 "Hopper 만 1 KiB 를 더 쓴다"로 읽거나 커널 사용량으로 쓰면 안 됩니다: 점유율 계산에서 1 KiB 를 두 번 세게 됩니다. 아래 셀이 블록 하나의 할당을 계산합니다.
</details>
""")
code(r"""
for g, (reserved, alloc, smem_blocks) in lesson06.reserved_per_block(2048).items():     # 심화
    print(f"{g}: tiled 블록 하나 = 2048 B + 예약 {reserved} B → 할당 {alloc} B, 공유 메모리만으로는 SM당 {smem_blocks}블록")
for g, (regs, o) in lesson06.offline_occupancy("tiled").items():   # 레지스터(오프라인 컴파일)까지 넣은 점유율
    print(f"tiled 레지스터 {regs}개 →", o.summary(), f"| 블록 한도: 레지스터 {o.limits['registers']}, 워프 {o.limits['warps']}")
for line in lesson06.occupancy_lines(("tiled", "tiled_pad")):     # GPU 가 있을 때만: 올라간 커널의 값
    print(line)
# 예상 출력: A100 ... 할당 3072 B, 54블록 / H100, H200 ... 할당 3072 B, 76블록 /
# tiled 레지스터 {{tiled_regs}}개 → A100: SM당 {{tiled_blocks0}}블록 × 8워프 = 64/64 워프, 점유율 {{tiled_pct0}}% (제한 요인: 워프 수) (H100, H200 도 같음)
# (GPU 가 있으면 "지금 이 GPU (…)" 두 줄)
""")
md(r"""
공유 메모리만으로는 SM당 수십 블록이 들어가지만, 위 셀의 둘째 묶음처럼 오프라인 컴파일의 레지스터 수까지 넣어 계산하면 A100·H100·H200 에서 실제 한도는 워프 수(SM당 64워프 ÷ 블록당 8워프 = 8블록, 점유율 100%)입니다. 같은 줄의 레지스터 한도도 보세요: 블록 수가 워프 한도와 같다는 것만으로 경계에 있다는 뜻은 아니지만, `tiled` 의 레지스터 {{tiled_regs}}개는 {{tiled_blocks0}}블록 구간의 마지막 값이라 하나만 늘어도({{tiled_regs1}}개) 레지스터 한도가 {{tiled_blocks1}}블록, 점유율 {{tiled_pct1}}% 로 떨어집니다 (노트북 07 3.5절의 계단: 레지스터는 워프 단위로 올림해 할당됩니다). SM당 워프 한도는 GPU 세대마다 다르므로, GPU 가 있으면 위 셀의 "지금 이 GPU" 줄이 그 GPU 에 올라간 커널로 블록 수와 제한 요인을 계산합니다. 이 커널에서 공유 메모리는 점유율을 제한하지 않습니다. (점유율은 노트북 07에서 자세히 다룹니다.)

**4.3 인덱스.** `(ty, tx)` 는 블록 안 위치(0..15), `row = blockIdx.y·16 + ty`, `col = blockIdx.x·16 + tx` 가 이 스레드가 맡은 C 원소입니다.

**4.4 타일 수.** `(K + TILE_SIZE − 1) // TILE_SIZE` 는 올림 나눗셈(ceiling division)입니다. K가 16의 배수가 아니면 마지막 타일의 모자란 부분을 0으로 채웁니다. 0을 곱해 더하면 합이 변하지 않기 때문입니다.
""")
code(r"""
K_ = 50
n_tiles = (K_ + TILE - 1) // TILE
print(f"K = {K_}: 타일 {n_tiles}개, 마지막 타일의 유효 열 {K_ - (n_tiles - 1) * TILE}개 (나머지 {n_tiles * TILE - K_}개는 0)")
# 예상 출력: K = 50: 타일 4개, 마지막 타일의 유효 열 2개 (나머지 14개는 0)
""")
md(r"""
**4.5 타일 루프.** 반복마다 다섯 단계입니다.

1. **A 타일 로드**: `a_col = t·16 + tx`; `row < M and a_col < K` 이면 `As[ty, tx] = A[row, a_col]`, 아니면 `0.0`. 타일 번호 `t` 에 따라 열 위치가 옮겨 갑니다.
2. **B 타일 로드**: `b_row = t·16 + ty`; `b_row < K and col < N` 이면 `Bs[ty, tx] = B[b_row, col]`, 아니면 `0.0`.
3. **배리어 1**: 256 스레드가 모두 저장을 마칠 때까지 기다립니다.
4. **내적**: `for k in range(TILE_SIZE): acc += As[ty, k] * Bs[k, tx]`. 여기가 재사용이 일어나는 곳입니다: `As[ty, k]` 는 `tx` 가 다른 16 스레드가, `Bs[k, tx]` 는 `ty` 가 다른 16 스레드가 씁니다. CUDA C에서는 `#pragma unroll` 로 루프를 펼치라고 지시하지만, Numba에는 그 지시문이 없습니다. 이 루프는 반복 횟수가 컴파일 시간 상수이고, 컴파일러가 스스로 완전히 펼쳤습니다: 3.4절 SASS 셀이 센 타일 루프 한 번의 FFMA 수가 `TILE_SIZE` 와 같습니다(내적 한 번에 FFMA 하나). 커널 전체의 FFMA 가 그보다 많은 만큼은 루프 밖의 결과 계산입니다(3.5절의 `+ beta·C`). 상수라고 늘 펼치는 것은 아닙니다. 어디까지 펼쳤는지는 SASS가 말해 줍니다(노트북 07 4.5절에서 반복 횟수가 상수인데도 펼쳐지지 않은 루프를 봅니다).
5. **배리어 2**: 모두 현재 타일을 다 읽은 뒤에 다음 반복이 덮어씁니다.

**4.6 결과 기록.** 모든 타일의 부분합이 `acc` 에 모인 뒤, 경계 안(`row < M and col < N`)이면 `C = alpha·acc + beta·C` 를 씁니다. 단, `beta == 0` 이면 C를 **읽지 않습니다.** BLAS 규약상 이때 C는 출력 전용이라 NaN이 들어 있어도 됩니다. 흔한 한 줄짜리 `alpha·sum + beta·C` 는 `0·NaN = NaN` 을 내므로 이 규약을 어깁니다. 아래 검증은 C를 NaN으로 채워 이것을 확인합니다.

""")
NB.exercise("06-2", r"""
`TILE = 8`(블록당 64 스레드)인 타일 커널의 **협력적 로딩 두 줄**과 **배리어 두 개**를 스스로 넣고, 배리어마다 **왜** 필요한지 주석으로 적으세요. 셀이 짧도록 세 가지 도우미를 씁니다(`kernels_numba/common.py`): `thread_coords(T8)` 는 `(tx, ty, row, col)` 을(4.3절), `load_or_zero(X, r, c)` 는 행렬 안이면 `X[r, c]`, 밖이면 0 을(4.5절의 경계 검사), `store_c(...)` 는 4.6절의 결과 기록을 합니다. 확인 셀은 타일 배수가 아닌 네 모양(K 타일 1개부터 6개까지, 정사각이 아닌 모양)으로 numpy 와 비교하고, 시뮬레이터의 경쟁 검출기(race detector)가 찾은 것(두 스레드, 두 줄, 고치는 법)과 틀린 원소의 지도를 보여 줍니다. 값이 맞아도 끝이 아닙니다: 확인 셀은 실행을 지켜보며 k 루프가 공유 메모리 타일을 읽는지, 스레드마다 타일당 한 원소씩 나눠 올리는지(협력적 로딩)도 봅니다.
""")
NB.exercise("06-3", r"""
이번에는 `load_or_zero` 를 직접 씁니다: 행렬 안이면 `X[r, c]`, 밖이면 0. 06-2 에서 가져온 `load_or_zero` 는 아직 이 노트북에 있지만, 그것을 부르는 답은 통과하지 않습니다(확인 셀이 실행을 지켜보다 그 호출을 찾아 알려 줍니다). 확인 셀은 먼저 5×7 행렬의 모든 칸과 각 경계를 두 칸까지 넘는 `(r, c)` 로 함수를 직접 불러 어느 칸에서 틀리는지 알려 주고, 그다음 06-2 의 커널에 끼워 넣어 타일 배수가 아닌 모양으로 실행합니다. 검사가 빠지면 배열 밖을 읽고, 0 이 아닌 값을 채우면 K 가 타일 배수가 아닐 때만 결과가 틀립니다.
""")
md(r"""
### 4.7 실행하고 검증하기

Level 1–2 커널을 모두, 타일 배수가 **아닌** 모양을 포함해 numpy(float64)와 비교합니다. C를 NaN으로 채우고 `beta = 0` 으로 세 모양, `alpha, beta = 1.5, −0.5` 로 한 번. 결과에 NaN이나 inf가 하나라도 있으면 실패입니다.
""")
code(r"""
for spec in kn.REGISTRY:
    if spec.level <= 2:
        ok = lesson06.check_all(spec.launch)
        print(f"L{spec.level} {spec.name:10s} {'PASS' if ok else 'FAIL'}  — {spec.description}")
# 예상 출력: L1 naive PASS, L2 tiled / tiled_pad / tiled_fma / tiled_k32 PASS (5줄)
""")
md(r"""
잘못된 입력은 무엇이 틀렸고 어떻게 고치는지 한국어와 영어로 알려 줍니다 (예: float64 배열).
""")
code(r"""
try:
    kn.get("tiled").launch(np.ones((4, 3)), np.ones((3, 5), np.float32), np.zeros((4, 5), np.float32))
except kn.CourseInputError as e:
    print(e)
""")
md(r"""
### 4.8 성능: cuBLAS와 나란히

성능은 같은 실행에서 cuBLAS SGEMM(CuPy, TF32 끔)과 나란히 재고 **비율**로 말합니다 (`benchmarks/bench_gpu.py`). 아래 셀은 기록된 값을 보여 주고, GPU가 있으면 지금 이 GPU 에서도 재서 그 아래에 나란히 놓습니다. 셀이 약 {{budget_s}}초 안에 끝나도록 GPU 의 FP32 피크와 기록된 커널 속도로 걸릴 시간을(아직 컴파일하지 않은 커널의 컴파일까지) 어림해 너무 큰 크기는 건너뛰고(건너뛴 크기와 이유를 출력), 진행 막대가 (크기, 커널)마다 움직입니다.
""")
code(r"""
bench = measure.benchmark(kernels=["naive", *lesson06.LEVEL2]) if measure.have_gpu() else None   # 크기: GPU 속도로
for line in lesson06.bench_lines(rec, bench):        # 기록(설명이 말하는 값), 그리고 GPU 가 있으면 지금 이 GPU
    print(line)
""")
md(r"""
{{gpu}} 기록({{date}})으로는 4096³에서 `tiled` 가 cuBLAS 의 약 {{pct_tiled_4096}}%, `tiled_pad` 가 약 {{pct_pad_4096}}% 이고, 2048³ 에서 `tiled` 는 {{pct_tiled_2048_1}}% 입니다. cuBLAS 가 덜 빠른 1024³ 에서는 `tiled` 가 {{pct_tiled_1024_1}}% 입니다. (타일링만으로 cuBLAS 의 20–40% 에 이른다는 소개도 보이는데, 큰 행렬(2048³·4096³)에서는 이 기록과 맞지 않습니다. 1024³ 의 값은 그 범위의 아래 끝 근처이고, 그것은 `tiled` 가 빨라서가 아니라 그 크기의 cuBLAS 가 느려서입니다: 위 셀의 cuBLAS TFLOP/s 를 크기끼리 비교해 보세요.)

**왜 이 정도에서 멈출까요?** 공유 메모리의 처리량(throughput)으로 상한을 계산해 봅니다. 모델의 가정: SM 하나는 한 사이클에 공유 메모리 웨이브프론트 1개(최대 128 B)를 처리하고, 워프의 FFMA 하나는 32 레인(lane) × 2 FLOP입니다. 그러면 상한은 `SM 수 × (1 / FFMA당 웨이브프론트) × 64 FLOP × 클록` 입니다. FFMA당 웨이브프론트는 기록된 ncu 웨이브프론트(3.4절)를 **읽기와 저장 모두** 더해 내적의 워프 FFMA 수(`n³ / 32`)로 나눈 값입니다(이 과정의 한 가지 규칙: 노트북 07도 같음). `tiled` 의 읽기만 보면 타일당 {{ld_wf_tile_tiled}} / 16 ≈ {{ld_tiled}} 이고, 저장이 조금 더해집니다.
""")
code(r"""
f, m, n3 = rec["device_facts"], rec["ncu_shared"]["metrics"], rec["ncu_shared"]["n"] ** 3
for k in ("tiled", "tiled_pad"):
    wf = (m[k][lesson06.LD_WF] + m[k][lesson06.ST_WF]) / (n3 / 32)          # 읽기 + 저장, 워프 FFMA 하나당
    bound = f["sm_count"] / wf * 64 * f["max_sm_clock_mhz"] * 1e6 / 1e12   # TFLOP/s
    print(f"{k:10s} FFMA당 웨이브프론트 {wf:.2f} → 상한 {bound:5.1f} TFLOP/s, 실측 최고 {lesson06.best(rec.rows, k):.2f}")
print(f"FP32 이론 최고치 {lesson06.fp32_peak(rec):.1f} TFLOP/s, cuBLAS 최고 실측 {lesson06.best(rec.rows, 'cuBLAS'):.1f} TFLOP/s")
# 예상 출력: tiled {{wf_tiled}} → {{bound_tiled}} TFLOP/s, 실측 최고 {{best_tiled_2}} / tiled_pad {{wf_pad}} → {{bound_pad}}, 실측 최고 {{best_pad_2}} / … {{peak}} … {{best_cublas}}
""")
md(r"""
두 커널의 상한({{bound_tiled}} : {{bound_pad}} TFLOP/s)과 실측({{best_tiled}} : {{best_pad}})이 같은 방향이고, 패딩 없는 `tiled` 가 빠릅니다: 주로 3.4절의 `LDS.128` 덕분입니다 (FFMA당 읽기 웨이브프론트 {{ld_tiled}} 대 {{ld_pad}}). 패딩 배치의 저장에서 생기는 뱅크 충돌도 조금 보탭니다 (FFMA당 저장 웨이브프론트 {{st_tiled}} 대 {{st_pad}}). `tiled_k32`(K 타일 32, 타일당 배리어 수는 같지만 전체 배리어 수는 절반)도 `tiled` 와 거의 같은 속도라, 배리어보다 FMA당 공유 메모리 읽기가 한계라는 해석과 맞습니다.

**글로벌 메모리는 아직 병목일까?** 루프라인(roofline) 모델에서 GPU는 산술 강도가 **리지 포인트(ridge point) = FP32 피크 ÷ DRAM 대역폭** 보다 낮으면 메모리 대역폭에, 높으면 연산에 묶입니다. 피크는 SM 수 × FP32 레인 × 2 × 클록으로 계산하고, 대역폭은 각 GPU 데이터시트 값입니다(`sim/roofline.py`; A100 은 80 GB SXM 과 40 GB 두 모델의 대역폭이 달라 리지 포인트도 다릅니다). 표의 마지막 열은 3.1절의 요청 기준 AI 4.0 FLOP/B 를 그대로 DRAM에 넣었을 때의 지붕, 즉 **요청한 바이트가 전부 DRAM에서 왔다고 가장 나쁘게 잡은** 상한입니다.
""")
code(r"""
print(f"{'GPU':14s} {'FP32 피크':>12s} {'DRAM 대역폭':>12s} {'리지 포인트':>12s} {'AI 4.0 의 DRAM 지붕':>16s}")
for r in lesson06.dram_roofs(ai["tiled"]):
    print(f"{r['name']:14s} {r['peak']:6.1f} TFLOP/s {r['dram_gbps']:7,.0f} GB/s {r['ridge']:6.1f} FLOP/B {r['roof']:9.1f} TFLOP/s")
b = lesson06.shared_bound(rec, "tiled")
print(f"{rec.gpu} tiled: 실측 최고 {b['measured']:.1f}, 공유 메모리 상한 {b['bound']:.1f} TFLOP/s")
for line in lesson06.bound_vs_roof_lines(rec, ai["tiled"]):    # 같은 FFMA당 웨이브프론트를 A100 의 SM 수·클록에
    print(line)
if here := lesson06.bound_here_line(rec):                  # GPU 가 있을 때만: 같은 모델을 지금 이 GPU 에
    print(here)
# 예상 출력: A100 80GB … 9.6 / 8.2, A100 40GB … 12.5 / 6.2, H100 … 20.0 / 13.4, H200 … 13.9 / 19.2 / tiled {{best_tiled}}, {{bound_tiled}} / A100 80GB SXM 모델 … 6.0 / 8.2 … (분명히 낮음) / A100 40GB 모델 … 6.0 / 6.2 … (가릴 수 없음)
""")
md(r"""
4.0 은 **SM이 요청한 바이트** 기준이라 DRAM 루프라인에 그대로 넣으면 가장 나쁜 경우가 됩니다: L2 캐시가 블록 사이의 재사용을 잡아 실제 DRAM 바이트는 훨씬 적습니다. H200에서 그렇게 가장 나쁘게 잡은 DRAM 지붕도 `tiled` 의 실측 최고의 2배가 넘고, 공유 메모리 상한이 그보다 낮으며 실측에 더 가깝습니다(위 셀). 그래서 "이 커널에서 글로벌 메모리(DRAM)는 병목이 아니고, 공유 메모리가 한계"라는 것은 **해석**입니다: 이 기록에는 DRAM·L2 처리량 측정이 없으므로, 측정으로 확인한 사실이 아니라 두 상한을 비교한 결론입니다. A100 에서는 제품에 따라 다릅니다 (위 셀의 A100 두 줄: 같은 FFMA당 웨이브프론트를 A100 의 SM 수·클록에 넣은 공유 메모리 상한은 두 제품이 같고, DRAM 대역폭만 다릅니다). 80 GB SXM 제품에서는 공유 메모리 상한이 가장 나쁜 DRAM 지붕보다 분명히 낮아 H200 과 같은 쪽을 가리킵니다. 40 GB 제품에서는 두 상한이 몇 % 차이뿐이라, 어림한 두 상한으로는 어느 쪽이 먼저 한계인지 말할 수 없습니다. (AI 4.0 이 "A100 의 리지 포인트 약 100 FLOP/B 에 못 미쳐 메모리 바운드"라는 설명을 보기도 하는데, 계산한 리지 포인트는 위 표의 값이고, 요청 기준 AI 를 그대로 비교할 수도 없습니다.)

그림으로 모아 보면 (막대: 실측, 빨간 선: 공유 메모리 상한, 모두 같은 실행의 cuBLAS 대비):
""")
code(r"""
lesson06.show(lesson06.perf_figure(rec, n=4096))
""")
md(r"""
## 5. 왜 이것이 작동하는가?

"무엇"이 아니라 "왜"를 설명할 수 있는지 스스로 답해 본 뒤 펼쳐 보세요.

<details><summary>질문 1: 데이터 재사용이 정확히 TILE_SIZE 배인 이유는?</summary>

`As[ty, k]` 는 `ty` 가 같고 `tx = 0..15` 인 16 스레드가 모두 읽고, `Bs[k, tx]` 는 `tx` 가 같은 16 스레드가 읽습니다. 글로벌 메모리에서 한 번 올린 원소를 16번 쓰는 것입니다. 3.1절의 기록에서 모든 원소를 읽은 스레드 수가 정확히 16이었습니다. 그래서 글로벌 메모리 로드 **요청**이 1/16 로 줍니다.
</details>

<details><summary>질문 2: syncthreads 를 하나만 쓰면 구체적으로 무엇이 틀리는가?</summary>

**첫 번째만 빼면**: `Bs[3, 5]` 를 저장하는 스레드 `(tx=5, ty=3)` 보다 그것을 `k = 3` 에서 읽는 스레드 `(tx=5, ty=14)` 가 먼저 가면, 아직 저장되지 않은 값(시뮬레이터에서는 첫 타일이면 NaN, 그 뒤로는 이전 타일의 값; GPU에서는 이전 타일 값이나 쓰레기)을 씁니다. 결과 전체에 오류가 퍼집니다.

**두 번째만 빼면**: 빠른 스레드가 다음 타일(t+1)의 값을 `Bs[3, 5]` 에 이미 저장했는데 느린 스레드가 아직 타일 t 의 `k = 3` 단계라면, 타일 t+1 의 값이 타일 t 의 계산에 섞입니다. 타일이 하나뿐이면(K ≤ 16) 덮어쓸 다음 타일이 없어 드러나지 않습니다.

3.3절에서 두 경우 모두 시뮬레이터에서는 매번 틀렸습니다. 기록된 H200 실행에서는 `no_sync1` 이 {{wrong1_c}}, `no_sync2` 가 {{wrong2_c}}. GPU에서의 횟수는 타이밍에 달려 있습니다.
</details>

<details><summary>질문 3: +1 패딩이면 충분한가? 패딩이 해가 되는 경우는?</summary>

"한 열을 여러 행이 한 요청으로 읽는" 접근이라면, 행 간격(워드 수)이 32와 서로소일 때 모든 행이 다른 뱅크에서 시작하므로 16 + 1 = 17 로 충분합니다. 행 폭이 31이면 31 이 이미 32와 서로소라 패딩이 필요 없고, 오히려 +1 을 하면 32 가 되어 모든 행이 같은 뱅크에서 시작합니다. float32 에서는 폭 w 와 w + 1 가운데 하나는 홀수(32와 서로소)이므로 0 이나 +1 이면 늘 충분하고, +2 가 필요한 폭은 없습니다. 일반적으로 `(행 폭 + 패딩)` 과 32가 서로소가 되게 고릅니다.

하지만 **우리 커널에는 그 접근이 없고**, +1 패딩은 저장에 2-way 충돌을 만들며 128비트 읽기를 막았습니다(3.4절). 패딩은 접근 패턴을 워프 단위로 분석한 뒤에 결정해야 합니다 (직접 해보기 06-1).
</details>

<details><summary>질문 4: 타일링만으로는 왜 cuBLAS에 한참 못 미치는가?</summary>

(1) 스레드당 출력이 1개라 FMA 한 번마다 공유 메모리 읽기가 필요하고(`Bs` 1번 + `As` 1/4번), 공유 메모리 웨이브프론트 처리량이 상한을 정합니다(4.8절: H200에서 cuBLAS 최고치의 약 {{bound_pct}}%). DRAM 대역폭은 가장 나쁘게 잡아도 그보다 높은 지붕이라 한계로 보이지 않습니다(해석, 4.8절). (2) 한 타일 안에서 워프는 로드 → 배리어 → 연산 순서로 진행하므로, 자기 로드와 배리어를 기다리는 동안 그 워프는 명령을 내지 못합니다. 그 시간은 같은 SM 의 다른 워프가 메울 수 있습니다: `tiled` 는 A100·H100·H200 에서 점유율 100% (SM당 64워프, 제한 요인은 워프 수: 4.2절 셀; 다른 GPU 는 같은 셀의 "지금 이 GPU" 줄)이고, FP32 레인은 특정 워프가 아니라 스케줄러(warp scheduler)에 딸려 있어 준비된 아무 워프나 씁니다. 그 대기가 얼마나 메워지는지는 이 노트북에서 재지 않았습니다. (1)은 Level 3 레지스터 블로킹(노트북 07), 한 워프 안에서 로드와 연산을 겹치는 것은 Level 4 더블 버퍼링(노트북 08)이 다룹니다.
</details>

## 6. 시뮬레이션 6: 뱅크 충돌 검출기

뱅크 번호를 직접 계산해 충돌을 찾는 연습입니다. 종이로 먼저 해 보고 셀과 비교하세요.

**문제.** `float smem[16][16]`(패딩 없음)을 선언했고, 16 스레드(`ty = 0..15`)가 **한 요청으로** `smem[ty][5]` 를 읽는다고 **가정**합니다. 스레드마다 바이트 주소와 뱅크를 계산하세요.

```
주소 = (ty × 16 + 5) × 4            뱅크 = (ty × 16 + 5) % 32
```

**해결.** `float smem[16][17]`(+1 패딩)로 바꾸면 `뱅크 = (ty × 17 + 5) % 32` 입니다. 두 경우를 계산합니다(`*` = 앞선 스레드와 같은 뱅크의 다른 워드, 즉 충돌).
""")
code(r"""
table, summaries = lesson06.paper_table(col=5)
print(" ty | smem[16][16]: 주소 → 뱅크 | smem[16][17]: 주소 → 뱅크")
for ty, a0, b0, hit0, a1, b1, hit1 in table:
    print(f"{ty:3d} | {a0:8d} → {b0:2d} {'*' if hit0 else ' '}          | {a1:8d} → {b1:2d} {'*' if hit1 else ' '}")
print("패딩 없음:", summaries[0], "| +1 패딩:", summaries[1])
# 예상 출력: 패딩 없음은 뱅크 5 와 21 만, 8-way 뱅크 충돌: 웨이브프론트 8 | +1 패딩: 뱅크 충돌 없음: 웨이브프론트 1
""")
md(r"""
패딩이 없으면 짝수 `ty` 는 모두 뱅크 5, 홀수는 뱅크 21 → 두 뱅크에서 동시에 **8-way 충돌**이고, 이 요청은 웨이브프론트 8개(충돌 없을 때의 8배)가 걸립니다. +1 패딩이면 16 스레드의 뱅크가 모두 달라 웨이브프론트 1개입니다. 17과 32가 서로소라 `ty·17 mod 32` 가 모두 다르기 때문입니다(3.4절).

그러나 이 요청은 **가정**입니다. 실제 16×16 블록의 워프는 `ty` 두 개만 담으므로, 같은 접근(`smem[ty][5]`)을 실제 워프 8개로 나누면 아래와 같습니다.
""")
code(r"""
for pad in (0, 1):                                   # 스레드 (tx, ty) 가 smem[ty][5] 를 읽는 요청, 실제 워프 8개로
    reports = banks.analyze(banks.Layout((16, 16), pad=pad), lambda tx, ty, tz: (ty, 5), (16, 16))
    print(f"smem[16][{16 + pad}]: 워프별 웨이브프론트 {[r.wavefronts for r in reports]}")
# 예상 출력: 두 경우 모두 [1, 1, 1, 1, 1, 1, 1, 1]
""")
md(r"""
아래 위젯으로 패딩, 열 `k`, 접근 종류, 워프를 바꿔 가며 뱅크 지도를 직접 보세요. 가로축이 뱅크, 세로로 쌓인 점이 그 뱅크의 서로 다른 워드입니다. 한 뱅크의 점이 n개면 n-way 충돌이고 웨이브프론트가 n개 필요합니다. 접근 목록의 "가상의 요청"이 위 연습의 요청입니다.
""")
code(r"""
from course.widgets.banks import bank_explorer
explorer = bank_explorer()
explorer
""")
md(r"""
## 7. 핵심 정리

* **타일링 = 재사용.** 공유 메모리에 올린 원소 하나를 16 스레드가 읽어(기록으로 확인), 글로벌 로드 요청이 1/16, 요청 기준 산술 강도가 0.25 → 4.0 FLOP/B 가 됩니다. 이 4.0 은 DRAM 바이트 기준이 아니므로 루프라인의 리지 포인트(H200 {{ridge_H200}}, A100 80 GB SXM {{ridge_A100}}, A100 40 GB {{ridge_A100_40GB}} FLOP/B; 4.8절 표)와 바로 비교하면 안 됩니다.
* **협력적 로딩**: 타일마다 스레드당 `As`·`Bs` 각 1개, 블록당 512개.
* **배리어 두 번**: 저장 완료(1, 쓰기 후 읽기)와 읽기 완료(2, 읽기 후 쓰기). 하나만 빠져도 시뮬레이터에서는 매번 틀리고(두 번째는 K 타일이 둘 이상일 때: 5절 질문 2), GPU에서는 타이밍에 따라 틀립니다(기록된 H200 실행: `no_sync1` 은 {{wrong1_c}}, `no_sync2` 는 {{wrong2_c}}).
* **뱅크 충돌은 워프 단위로.** 우리 커널의 읽기에는 충돌이 없고, +1 패딩은 저장에 2-way 충돌을 만들며(ncu로 명령당 {{st_per_inst_pad}}) 128비트 읽기를 막습니다. 패딩은 워프 단위로 접근을 분석한 뒤에 정합니다.
* **공유 메모리 크기**: 선언 2048 B(`tiled`). CC 8.0 이상의 모든 GPU가 블록마다 1 KiB를 따로 예약하고, 점유율 계산에서 블록마다 더합니다.
* **FMA**: Numba는 `acc += a*b` 를 이미 `fma.rn.f32` → `FFMA` 로 만듭니다. 명시적 `cuda.fma` 는 같은 SASS 명령 구성을 냅니다(3.5절 셀의 비교). FMA는 한 번만 반올림합니다.
* **성능**: {{gpu}} 기록에서 4096³ 기준 cuBLAS의 약 {{pct_tiled_4096}}%(`tiled`), {{pct_pad_4096}}%(`tiled_pad`). 상한 비교로 보면 한계는 FMA당 공유 메모리 웨이브프론트(읽기 + 저장)입니다.

## 8. 마스터리 체크포인트 퀴즈

8문항 중 6문항 이상이면 통과입니다. 제출하면 점수와 틀린 문항, 그 문항을 다시 읽을 절이 나옵니다. 정답과 해설은 통과한 뒤에 보입니다. 시도 기록은 로컬 진도 파일에 저장됩니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("06")
""")
md(r"""
## 9. 다음 단계 미리보기

지금 커널은 스레드마다 C 원소 **1개**를 계산하므로, FMA 한 번마다 공유 메모리를 읽어야 합니다(공유 메모리 → 레지스터 수준의 산술 강도 0.25 FLOP/B). 다음 노트북(07, Level 3: 레지스터 블로킹)에서는 스레드 하나가 8×8 = 64개 원소를 레지스터에 들고, 한 k 단계에서 공유 메모리 읽기 16번으로 FMA 64번을 하는 외적(outer product) 마이크로커널을 만듭니다. 그 수준의 산술 강도가 8배(2.0 FLOP/B)가 되는 것을 유도하고, 얼마나 빨라지는지는 그 노트북에서 cuBLAS와 나란히 측정합니다.
""")


if __name__ == "__main__":
    print(NB.write())
