"""Generate notebooks/11_hopper_wgmma_tma.ipynb (no outputs, fixed cell ids): python -m course.ch11_hopper.notebook [--out PATH].

Measured figures come only from records (course/ch11_hopper/records/gpu_h100_level7.json, wgmma_layout_h100.json). Until those records
exist the prose says that no measurement exists yet and names the script that makes it; once they do, this generator
fills the figures in from them (FIG) — no number is typed."""
import argparse
import sys
from pathlib import Path
from course.nbgen import Notebook
from course.ch11_hopper import lesson as L11  #  (record readers shared with the notebook)
from course.figures import fill as _fill


PERF, LAYOUT = L11.PERF, L11.LAYOUT             # this chapter's records/ through the one loader; None until measured
_FAST4096 = L11.fast_ratios(4096)
FIG = {"fast_gpu": L11.FAST.run(L11.FAST_FINAL_RUNS[-1]).gpu, "fast_lo": f"{100 * min(_FAST4096):.1f}",
       "fast_hi": f"{100 * max(_FAST4096):.1f}"}
if PERF is not None:
    _RUN = PERF.run()
    _R = {(r.kernel, r.n): r for r in _RUN.rows if not r.variant}
    FIG.update(gpu=_RUN.gpu, date=_RUN.date, timed=L11.timing_note(PERF),
               **{f"{k}_{n}": f"{100 * r.ratio:.1f}" for (k, n), r in _R.items() if k != "cuBLAS"},
               **{f"cub_{n}": f"{r.tflops:.0f}" for (k, n), r in _R.items() if k == "cuBLAS"})
    _GOAL = L11.goal_runs(PERF)
    FIG.update(ws_goal=", ".join(f"`{i}` {100 * x:.1f} %" for i, x in _GOAL),
               ws_goal_verdict=(f"실행 {len(_GOAL)}개 중 {sum(x >= 0.75 for _, x in _GOAL)}개가 목표를 넘었습니다"
                                if _GOAL else "결과가 올바른 실행이 없습니다"))
FIG["next_step_line"] = (
    f"무엇부터 할지는 기록으로 고릅니다: 8절의 기록에서 `wgmma_ws` 는 4096³ 에서 실행마다 {FIG['ws_goal']} 였고, 남은 차이가 "
    "어디서 오는지(에필로그, L2, 클러스터)는 ncu 로 재어 볼 일입니다." if "ws_goal" in FIG else
    "성능의 근거가 되는 GPU 기록이 생기면 어느 것이 먼저인지 그 기록으로 고릅니다.")
_GC = L11.gpu_checks()
if _GC["check"] is not None and _GC["sanitize"] is not None:
    _c, _s = _GC["check"], _GC["sanitize"]
    _bad = [t for t, ok in _s["tools"].items() if not ok]
    FIG.update(chk_gpu=_c["gpu"], chk_date=_c["date"], chk_cases=_c["cases"], chk_kernels=_c["kernels"],
               chk_verdict=(f"무작위 입력 {_c['cases'] - _c['identity']}개는 모두 float64 기준값의 오차 한계 안이었고, "
                            f"A = I 인 {_c['identity']}개는 모두 B 와 정확히 같았습니다" if not _c["wrong"]
                            else f"{_c['wrong']}개가 틀렸습니다"),
               san_tools=" · ".join(_s["tools"]), san_shapes=", ".join("×".join(map(str, x)) for x in _s["shapes"]),
               san_verdict=("세 도구 모두 오류 0개였습니다" if not _bad
                            else "오류를 보고한 도구가 있었습니다: " + ", ".join(_bad)))
if LAYOUT is not None:
    _N, _AGREE, _ALIGNED = L11.layout_probes(LAYOUT)
    FIG.update(layout_gpu=LAYOUT.gpu, layout_date=LAYOUT.date,
               layout_agree=(f"{_N}개가 모두" if _AGREE == _N else f"{_N}개 중 {_AGREE}개만"),
               layout_aligned="에서 시작했습니다" if _ALIGNED else "에서 시작하지 않은 탐침이 있었습니다")

OUT = Path(__file__).resolve().parents[2] / "notebooks" / "11_hopper_wgmma_tma.ipynb"
NB = Notebook("nb11", OUT)
code = NB.code


def md(text):
    NB.md(_fill(text, FIG))


if PERF is None:
    PERF_LINE = ("레벨 7 커널의 GPU 측정 기록은 **아직 없습니다** (`course/ch11_hopper/records/gpu_h100_level7.json` 이 없음). 이 노트북의 "
                 "성능 문장은 그 기록이 생기면 생성기가 채웁니다.")
else:
    PERF_LINE = "GPU 성능 수치는 {{gpu}} 에서 **기록한 값**({{date}})입니다."
if LAYOUT is None:
    LAYOUT_LINE = ("누산기 레이아웃의 GPU 기록은 **아직 없습니다**: `benchmarks/record_wgmma_layout.py` 를 H100 에서 실행하면 "
                   "`course/ch11_hopper/records/wgmma_layout_h100.json` 이 생기고, 아래 셀이 그 기록과 모델을 원소마다 비교합니다. 그때까지는 "
                   "PTX ISA 의 그림과 그 예제(`tests/test_wgmma_model.py`)가 근거입니다.")
else:
    LAYOUT_LINE = ("{{layout_gpu}} 에서 기록한 레이아웃({{layout_date}})과 모델을 원소마다 비교합니다 "
                   "(`benchmarks/record_wgmma_layout.py`). 그 기록에서 일반 저장과 TMA 로 채운 타일, k16 단계 0–3 의 "
                   "레이아웃 탐침 {{layout_agree}} 모델(`sim/wgmma.py`)과 원소마다 같았고, `alignment=1024` 로 선언한 "
                   "동적 공유 메모리는 1024 바이트 경계{{layout_aligned}}.")

md(r"""
# 11. Level 7 — Hopper 의 `wgmma` 와 TMA: mma.sync 의 천장 너머로

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 8문항 중 **6문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | 워프그룹(warpgroup) 단위의 비동기 행렬곱 `wgmma.mma_async`, 누산기 레이아웃, 공유 메모리의 A·B 를 가리키는 행렬 디스크립터(matrix descriptor)와 128바이트 스위즐(swizzle), 텐서 메모리 가속기(TMA, Tensor Memory Accelerator)와 텐서 맵(tensor map), 단계(phase)와 트랜잭션 바이트를 세는 `mbarrier`, 일반 프록시와 비동기 프록시(async proxy)의 순서, 생산자·소비자로 나눈 워프 특화(warp specialization)와 영속 격자(persistent grid) |
| **실행 환경** | GPU 없이 실행됩니다 (Numba CUDA 시뮬레이터가 자동 선택됨). 시뮬레이터는 워프그룹의 128 스레드가 `wgmma` 에 모이면 디스크립터로 읽을 주소를 정해 검사하고, `wait_group` 때 그 순간의 공유 메모리로 결과를 계산해 레지스터에 넣고, TMA 복사는 mbarrier 의 단계가 끝날 때 도착시키며, 그 사이의 잘못된 접근을 보고합니다. `wgmma` 는 **sm_90a 전용**(compute capability 9.0: H100·H200)이라, 다른 GPU(A100, T4, RTX, Blackwell)에서는 레벨 7 커널을 **별도 프로세스의 시뮬레이터**로 보내고 그렇다고 알립니다. """ + PERF_LINE + r""" |
| **선수 노트북** | 09(cp.async 와 다단 버퍼링), 10(Tensor Core `mma.sync`, 프래그먼트 레이아웃, `mma_fast`). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 11절 참고. |

노트북 10 은 `mma.sync` 로 cuBLAS HGEMM 에 다가갔지만, cuBLAS 의 Hopper 커널은 다른 명령을 씁니다 (노트북 10 의 5.6절: ncu 가 본 cuBLAS 커널은 `wgmma`). 이 노트북은 그 명령들을 Python 에서, 같은 `.ptx` 파일 층으로 씁니다. 모든 수치는 이 노트북 안에서 모델·`ptxas`·시뮬레이터로 계산하거나 GPU 에서 기록한 것입니다.
""")
code(r"""
import course; course.setup("11")
import numpy as np
import kernels_numba as kn
from course.ch11_hopper import lesson as L
from sim import wgmma, tma as tma_model
print("모드:", "시뮬레이터" if kn.device.SIMULATOR else "GPU", "| 레벨 7 커널:", [s.name for s in kn.by_level(7)])
""")
md(r"""
## 1. 개요: `mma.sync` 에서 `wgmma` 로

`mma.sync` 는 워프 하나가 레지스터의 A·B 로 16×8×16 을 계산하고 바로 결과를 줍니다. Hopper 의 `wgmma.mma_async` 는 네 가지가 다릅니다:

* **워프그룹**: 워프 4개(128 스레드)가 함께 64×N×16 을 계산합니다 (N 은 8 … 256). 이 강좌는 N = 64, 128 을 씁니다.
* **디스크립터**: A·B 를 **공유 메모리**에서 직접 읽을 수 있습니다 (B 는 언제나, A 는 레지스터에서 읽는 형태도 있음; 이 강좌는 둘 다 공유 메모리). 스레드는 타일의 주소와 배치를 적은 64비트 값만 넘깁니다. `ldmatrix` 가 필요 없습니다.
* **비동기**: 명령을 낸 뒤 `commit_group` 으로 묶고 `wait_group` 이 끝나야 결과가 레지스터에 있습니다. 그사이 스레드는 다음 타일을 기다리거나 다른 일을 합니다.
* **비동기 프록시**: `wgmma` 와 TMA 는 공유 메모리를 "비동기 프록시" 로 접근합니다. 일반 저장(generic proxy)과의 순서는 배리어만으로는 정해지지 않고 `fence.proxy.async` 가 필요합니다.

아래 표의 각 칸은 `.ptx` 파일과 모델(`sim/mma.py`, `sim/wgmma.py`)에서 읽은 것입니다.
""")
code(r"""
from IPython.display import Markdown, display
display(Markdown(L.markdown(L.compare_rows(), ["", "mma.sync (노트북 10)", "wgmma (이 노트북)"])))
for name in ("wgmma_fence", "wgmma_m64n128k16_f32_f16", "wgmma_commit_group", "wgmma_wait_group_1"):
    print(L.ptx_text(name))
""")
md(r"""
네 줄이 한 묶음입니다: `wgmma.fence` (누산기 레지스터의 이전 접근을 wgmma 앞으로 정렬) → `mma_async` 여러 번 → `commit_group` → `wait_group N` (최근 N 그룹만 빼고 끝날 때까지 기다림). `mma_async` 의 끝에 붙은 `1, 1, 1, 0, 1` 은 scale-d(누적: D 도 읽음), A·B 의 부호(+1), A 의 전치 없음(K-major), B 의 전치(N-major: 행 우선 K×N 의 B 그대로)입니다. scale-d = 1 이라 누산기 레지스터는 결과이면서 입력이고, Python 에서는 스레드의 `cuda.local.array` 하나를 통째로 넘깁니다 (`ptx.wgmma_m64n128k16_f32_f16(acc, desc_a, desc_b)`; 상수 인덱스로만 읽고 써서 레지스터에 남음).

`wgmma` 는 **sm_90a** 에만 있습니다: `.target sm_90` 이나 Blackwell 의 `sm_100a` 로는 ptxas 가 거절합니다 (`tests/test_hopper_ptx.py` 가 그 오류를 확인). numba-cuda 0.30 은 CC 9.0 GPU 에서 컴파일할 때 스스로 `a` 를 붙입니다 (`codegen._ensure_cc`); GPU 가 없을 때는 강좌가 `cc=(9, 0, "a")` 로 청합니다.

## 2. 워프그룹과 누산기 레이아웃

m64nNk16 의 결과 64×N 은 스레드마다 f32 N/2 개의 레지스터에 나뉩니다 (PTX ISA "Matrix Fragments for wgmma.mma_async.m64nNk16"). 구조는 노트북 10 의 확장입니다: 워프그룹의 네 워프가 타일의 64행을 나눠 맡고, 한 워프 안에서는 노트북 10 의 `mma.sync` C 조각(c0..c3: 레인 네 개가 한 묶음, 레지스터 네 개가 두 행 × 이웃한 두 열)이 열 방향으로 되풀이됩니다. 스레드 t 의 레지스터 i 가 어느 `(행, 열)` 인지의 식은 직접 해보기 11-1 에서 여러분이 씁니다 (정리된 식과 모델이 주는 예는 11-1 바로 뒤에 접어 두었습니다).

""" + LAYOUT_LINE + r"""
""")
code(r"""
res = L.compare_layout(L.LAYOUT)
if res is None:
    print("GPU 기록 없음: benchmarks/record_wgmma_layout.py 를 H100 에서 실행하면 여기서 비교합니다")
else:
    for what, (agree, total) in res.items():
        print(f"{what}: {agree}/{total} 일치")
""")
NB.exercise("11-1", r"""
에필로그(누산기를 C 에 쓰기)는 이 레이아웃 하나에 달려 있습니다. 워프그룹의 스레드 `t` (0..127) 와 레지스터 번호 `i` (0..31, m64n64k16) 를 받아 그 레지스터가 담는 타일의 `(행, 열)` 을 돌려주세요. 모델 함수(`wgmma.accumulator_elements` 등)를 부르지 말고 계산하세요 (확인 셀은 함수를 실행하며 그런 함수를 부르는지 지켜봅니다). 확인 셀은 128×32 개를 모두 비교하고, 워프의 16행 오프셋을 빠뜨림, +8 행을 빠뜨림, 레지스터 순서, 행·열을 바꿈, 레인을 묶는 방법 같은 실수를 각각 알려 주며, 틀린 값을 만든 줄을 짚어 줍니다.
""")
md(r"""
<details><summary>정리: 누산기 레이아웃 (11-1 을 푼 뒤에 여세요)</summary>

워프 w (= t // 32) 는 16w 행부터 16행을 맡고, 그 안에서는 노트북 10 의 `mma.sync` C 조각(c0..c3)이 8열마다 되풀이됩니다: 스레드 t 의 레지스터 i 는 행 `16·(t // 32) + (t % 32) // 4 + 8·((i // 2) % 2)`, 열 `8·(i // 4) + 2·(t % 4) + i % 2`. 아래 셀은 이 규칙의 모델(`sim/wgmma.py`)이 주는 예입니다 (11-1 을 푼 뒤에 실행해 여러분의 답과 비교해 보세요).
</details>
""")
code(r"""
# 11-1 을 푼 뒤에 실행하세요: 모델(sim/wgmma.py)이 주는 값
print("스레드 37 (워프 1, 레인 5) 의 레지스터 0..5:", wgmma.accumulator_elements(37, 64)[:6])
print("원소 (63, 127) 의 주인 (스레드, 레지스터), N = 128:", wgmma.accumulator_owner(63, 127, 128))
rows, cols = wgmma.accumulator_index(64)
print("64×64 의 모든 원소를 정확히 한 번씩:", len(set(zip(rows.ravel(), cols.ravel()))) == 64 * 64)
# 예상 출력: ... [(17, 2), (17, 3), (25, 2), (25, 3), (17, 10), (17, 11)] / ... (127, 63) / ... True
""")
md(r"""
## 3. 공유 메모리 행렬 디스크립터와 128바이트 스위즐

디스크립터는 64비트입니다 (PTX ISA "Matrix Descriptor Format"): 비트 13–0 시작 주소, 29–16 LBO(leading dimension byte offset), 45–32 SBO(stride dimension byte offset) — 셋 다 `(x & 0x3FFFF) >> 4`, 곧 16바이트 단위 — 와 비트 63–62 스위즐 모드(0 없음, **1 = 128바이트**, 2 = 64, 3 = 32).

이 강좌의 타일은 모두 **128바이트 스위즐** 배치입니다. 한 줄(row)이 128바이트(f16 64개)이고, 줄 r 의 16바이트 조각 c 는 조각 `c ^ (r % 8)` 자리에 놓입니다. 8줄(1024바이트)마다 같은 무늬가 되풀이되므로 타일은 1024바이트 경계에서 시작해야 합니다 (`alignment=1024`). 같은 열의 여덟 조각이 서로 다른 뱅크로 흩어져 뱅크 충돌이 없고(노트북 10 의 스위즐과 같은 생각), TMA 가 이 배치로 쓰고 `wgmma` 가 이 배치로 읽습니다. 아래 표는 줄 r (행) 의 논리 조각 c (열) 가 가는 자리입니다.
""")
code(r"""
print(L.swizzle_grid())
# 예상 출력: 8×8 표 (행 r 은 0..7 을 r 과 XOR 한 순서)
""")
md(r"""
* **A (K-major)**: BM 행 × BK = 64 (한 줄 = K 64개). SBO = 8줄 = 1024 바이트, LBO 는 쓰지 않습니다 (관례로 1, 곧 16 바이트). k16 단계마다 줄 안에서 32바이트 옆이므로 디스크립터의 시작 주소 필드에 2 (= 32 >> 4) 를 더합니다. 스위즐은 주소 비트로 계산되므로 줄 중간에서 시작해도 맞습니다. 아래 셀은 공유 주소 5 KiB 에 놓인 A 타일의 디스크립터와 그 필드입니다 (`sim/wgmma.py` 의 모델).
* **B (N-major)**: 행 우선 K×N 그대로, 64열(128바이트)씩 자른 상자(box)들이 BK 줄씩 이어 놓입니다: 상자 하나가 BK 줄 × 128바이트이고, 그다음 64열의 상자가 바로 뒤에 옵니다. B 에서도 한 줄은 128바이트, 8줄이 스위즐 무늬 하나입니다. 다만 B 는 K 가 줄 방향이라, LBO 와 SBO 가 각각 무엇에서 무엇까지의 거리인지와 k16 단계마다 시작 주소가 어디로 움직이는지가 A 와 다릅니다: 직접 해보기 11-2 에서 여러분이 정합니다 (정리는 11-2 바로 뒤에 접어 두었습니다).
""")
code(r"""
d = wgmma.descriptor_for_tile(5 * 1024, "K", 64)       # A: BM 행 × BK = 64, K-major
print(hex(d), wgmma.decode(d))
# 예상 출력: 0x4000004000010140 {'start': 5120, 'lbo': 16, 'sbo': 1024, 'base_offset': 0, 'swizzle': 128}
""")
NB.exercise("11-2", r"""
TMA 가 공유 주소 `addr` 에 BK 행 × 64열 상자들로 놓은 B 타일에서, k16 단계 `kk` 를 wgmma 가 N-major 로 읽을 디스크립터(64비트 정수)를 만드세요. 확인 셀은 BK = 16 … 256, 공유 메모리 여기저기의 타일 주소(227 KiB 안), 모든 kk 에서 여러분의 디스크립터를 맞는 값과 비교하고, 틀리면 그 디스크립터로 wgmma 가 읽을 원소 16×256 개의 주소를 `sim/wgmma.py` 로 계산해 TMA 가 놓은 자리와 몇 개가 맞는지, 그리고 어느 필드가 틀렸는지(스위즐 모드 번호, 16바이트 단위로 바꾸는 계산, LBO·SBO 가 바뀜, k 단계의 이동, LBO 나 SBO 의 값)를 틀린 값을 만든 줄과 함께 알려 줍니다.
""")
md(r"""
<details><summary>정리: B 의 디스크립터 (11-2 를 푼 뒤에 여세요)</summary>

**B (N-major)**: SBO = 다음 8줄 묶음까지 = 8 × 128 = 1024 바이트, LBO = 다음 64열 상자까지 = BK·128 바이트. k16 단계는 16줄 아래, 곧 2048 바이트 뒤에서 시작합니다. 아래 셀은 BK = 64 인 B 타일의 디스크립터입니다 (11-2 를 푼 뒤에 실행해 여러분의 `b_descriptor(5 * 1024, 0, 64)` 와 비교해 보세요).
</details>

A 와 B 의 두 규칙(`sim/wgmma.py`)은 PTX ISA 의 canonical layout 표와 그 예제 다섯 개를 그대로 재현하고(`tests/test_wgmma_model.py`), TMA 가 놓은 자리와 디스크립터가 읽는 자리가 원소마다 같음도 같은 테스트가 확인합니다.
""")
code(r"""
# 11-2 를 푼 뒤에 실행하세요: 모델(sim/wgmma.py)이 주는 B 의 디스크립터
d = wgmma.descriptor_for_tile(5 * 1024, "MN", 64)      # B: 64열 상자, BK = 64 행
print(hex(d), wgmma.decode(d))
# 예상 출력: 0x4000004002000140 {'start': 5120, 'lbo': 8192, 'sbo': 1024, 'base_offset': 0, 'swizzle': 128}
""")
md(r"""
## 4. 1단계: 워프그룹 하나, `wgmma` 하나 — `wgmma_simple`

가장 작은 커널입니다. 블록은 워프그룹 하나(128 스레드)이고 C 의 64×64 를 맡습니다. K 타일(64)마다:

1. 128 스레드가 A[bm:+64, k0:+64] 와 B[k0:+64, bn:+64] 를 **일반 저장**으로 공유 메모리에 씁니다. 행렬 밖은 0 이고, 주소는 위의 스위즐 그대로 `(byte ^ ((byte >> 7) & 7) << 4) >> 1` 입니다.
2. `fence.proxy.async` 와 배리어: 저장은 일반 프록시, wgmma 의 읽기는 비동기 프록시입니다.
3. `wgmma.fence`, `mma_async` 네 번 (k = 0, 16, 32, 48), `commit_group`, `wait_group 0`.

블록이 워프그룹 하나뿐이므로 `wait_group 0` 을 지난 뒤에는 다음 타일의 저장을 바로 시작해도 됩니다: 네 워프 모두가 낸 wgmma 가 끝나야 어느 워프든 그 wait 를 지납니다.
""")
code(r"""
print(course.source(kn.get("wgmma_simple").kernel))
""")
md(r"""
M, N, K 가 타일 배수가 아닌 모양으로 실행해 float64 기준값과 비교합니다 (허용 오차는 노트북 10 의 8절에서 유도한 f16 입력·f32 누적의 한계, 단위행렬 검사 포함).
""")
code(r"""
r = L.check_kernels([("wgmma_simple", (70, 50, 100))])["wgmma_simple"]
print(r)
assert r["ok"] and r["identity"]
print("PASS: wgmma_simple = float64 기준값 (한계 이내), 단위행렬 검사 정확")
# 예상 출력: {'ok': True, 'worst': 0.00..., 'max_err': ..., 'identity': True} / PASS: wgmma_simple = ...
""")
md(r"""
### 4.1 문제: `fence.proxy.async` 를 빠뜨리면

`kernels_numba/demos/wgmma_no_proxy_fence.py` 는 같은 커널에서 그 한 줄만 뺐습니다. 배리어는 있으니 다른 스레드의 저장은 끝났지만, 그 저장이 비동기 프록시에 보인다는 보장이 없습니다. GPU 에서도 결과가 맞게 나올 수 있어(이 강좌는 이 데모를 GPU 에서 재지 않았습니다) 결과만 봐서는 드러나지 않는 버그입니다. 시뮬레이터는 wgmma 가 읽는 원소마다 "그 원소를 쓴 스레드가 쓴 뒤 fence 를 실행했는가" 를 확인해, 결과가 맞아도 보고합니다.
""")
code(r"""
r = L.bug_report("wgmma_no_proxy_fence", (70, 50, 100))
print("결과가 맞음:" if r["right"] else "결과가 틀림:", r["right"])
print(r["summary"])
""")
md(r"""
### 4.2 문제: `wgmma.wait_group` 을 빠뜨리면

`wgmma_no_wait.py` 는 commit 만 하고 기다리지 않습니다. 두 가지가 틀립니다: 다음 타일의 저장이 아직 wgmma 가 읽는 공유 메모리를 덮어쓰고(ASYNC_WAR), 에필로그가 결과가 오기 전의 누산기를 읽습니다(WGMMA_ACC). 시뮬레이터는 결과가 `wait_group` 때에야 레지스터에 들어가게 하므로 틀린 답(NaN)과 보고가 함께 나옵니다.
""")
code(r"""
r = L.bug_report("wgmma_no_wait", (64, 40, 130))
print("결과가 맞음:", r["right"])
print(r["summary"])
""")
md(r"""
GPU 에서는 어떨까요? 같은 커널을 sm_90a 로 오프라인 컴파일하면 ptxas 가 기다림을 **스스로 넣고** 알립니다 (아래 셀이 ptxas 의 정보 로그를 그대로 보여 줌). 로그의 까닭은 "GMMA 가 정의한 레지스터를 쓰기 위해", 곧 **누산기 레지스터**입니다: 다음 타일의 wgmma 와 에필로그가 같은 누산기를 씁니다. ptxas 는 공유 메모리를 보고 넣은 것이 아닙니다.
""")
code(r"""
for line in L.no_wait_ptxas_log():
    print(line)
""")
md(r"""
그 기다림이 SASS 의 어디에 들어갔는지는 올바른 `wgmma_simple` 과 나란히 보면 압니다. 아래 셀은 두 커널의 K 루프에서 마지막 `HGMMA` 부터 루프 처음으로 되돌아가는 분기까지의 명령과, 루프의 공유 메모리 저장(`STS`)이 `HGMMA` 앞뒤에 몇 개인지를 보여 주고, 기다림(`WARPGROUP.DEPBAR`)의 자리가 같은지 판정합니다.
""")
code(r"""
lines, same = L.compare_wait_sites("wgmma_no_wait", "wgmma_simple")
print("\n".join(lines))
""")
md(r"""
마지막 줄이 "같습니다" 라면, 이 컴파일러가 만든 GPU 바이너리는 `wgmma_simple` 과 같은 자리에서 기다립니다: 다음 타일의 `STS` 는 되돌아가는 분기 뒤(다음 반복)에 있으므로, 이 바이너리에서는 공유 메모리를 덮어쓰는 일도 느려지는 일도 없습니다. 그래도 이 커널은 틀렸습니다. 그 기다림은 PTX 가 보장하는 것이 아니라 ptxas 가 누산기 때문에 고른 자리이고, 누산기를 쓰는 곳이 다른 커널이나 다른 버전의 ptxas 에서는 다른 자리가 될 수 있습니다. 시뮬레이터는 PTX 의 규칙대로 두 문제(ASYNC_WAR, WGMMA_ACC)를 모두 보고합니다. GPU 에서 결과가 맞는다는 것은 안전하다는 뜻이 아닙니다.
""")
md(r"""
## 5. TMA 와 mbarrier

1단계에서는 128 스레드가 원소 하나하나를 복사하고, 복사와 계산이 겹치지 않습니다. Hopper 의 **TMA** 는 스레드 **하나**가 명령 하나로 2차원 상자(box) 전체를 전역 메모리에서 공유 메모리로 옮기게 합니다: 상자 크기·스위즐·행렬 밖의 0 채우기까지 텐서 맵(tensor map)에 적혀 있고, 스레드는 상자의 좌표만 줍니다.
""")
code(r"""
print(L.ptx_text("tma_load_2d"))
print(L.ptx_text("mbarrier_arrive_expect_tx"))
print(L.ptx_text("mbarrier_try_wait_parity"))
""")
md(r"""
**텐서 맵은 어디에?** CUDA C++ 에서는 128바이트 `CUtensorMap` 을 `const __grid_constant__` 커널 인자로 넘깁니다. Numba 는 그런 인자를 만들 수 없습니다: 레코드는 포인터 하나로(전역 메모리), 튜플은 스칼라 인자 여러 개로 넘깁니다 (`tests/test_hopper_ptx.py` 가 PTX 의 인자 목록으로 확인). 그래서 이 강좌는 텐서 맵을 **전역 메모리**(uint64[16] 장치 배열)에 두고, 블록마다 한 번 `fence.proxy.tensormap::generic.acquire` 로 가져옵니다 (CUDA C++ Programming Guide 의 규칙; 시뮬레이터는 빠뜨리면 TENSORMAP_FENCE 로 보고). 텐서 맵은 GPU 에서는 드라이버의 `cuTensorMapEncodeTiled` 로, 시뮬레이터에서는 같은 필드를 담은 자체 형식으로 만들고, 둘 다 드라이버의 규칙(행 간격이 16바이트의 배수 등)을 먼저 확인합니다 (`kernels_numba/infra/tma.py`). 열 수가 8의 배수가 아닌 f16 행렬은 0 으로 채운 복사본으로 바꿔 넘기므로 어떤 모양도 실행됩니다.

**mbarrier** 는 공유 메모리의 64비트 배리어로, 단계(phase)마다 도착(arrive) 수와 트랜잭션 바이트를 셉니다. 생산자가 `arrive.expect_tx(바이트)` 로 "이 단계에는 이만큼 온다" 고 알리고, TMA 가 그 바이트를 채우면(complete_tx) 단계가 끝나고 번호가 1 오릅니다. 기다리는 쪽은 `try_wait.parity(p)` 로 **짝홀이 p 인 단계가 끝났는지** 묻습니다. 아래는 그 규칙의 모델(`sim/tma.py`)입니다.
""")
code(r"""
b = tma_model.MBarrier(1)
print("새 barrier: parity 0 끝남?", b.test_wait(0), "| parity 1 끝남?", b.test_wait(1))
b.expect_tx(32768); b.arrive()
print("expect_tx + arrive 뒤: 단계", b.phase, "남은 바이트", b.tx)
b.complete_tx(32768)
print("복사 도착 뒤: 단계", b.phase, "| parity 0 끝남?", b.test_wait(0))
# 예상 출력: 새 barrier: parity 0 끝남? False | parity 1 끝남? True / ... 단계 0 남은 바이트 32768 / 복사 도착 뒤: 단계 1 | parity 0 끝남? True
""")
md(r"""
새 barrier 에서 parity 1 이 "끝남" 인 것에 주목하세요: 단계 0 이 진행 중이므로 그 앞 단계(짝홀 1)는 끝난 것으로 봅니다. 단계 고리(ring)를 도는 생산자가 첫 바퀴를 기다리지 않고 지나가는 방법이 이것입니다.
""")
NB.exercise("11-3", r"""
단계가 `stages` 개인 고리에서 k-반복 `it` 는 단계 `s` 를 씁니다. 소비자는 `full[s]` 를 기다리고 생산자는 `empty[s]` (소비자가 다 썼다는 표시)를 기다립니다. `(s, 소비자가 기다릴 full 의 parity, 생산자가 기다릴 empty 의 parity)` 를 돌려주세요. 확인 셀은 STAGES 1–8 의 고리에서 여러 바퀴 동안의 값을 모두 mbarrier 의 규칙과 비교합니다. 틀리면 여러분의 값으로 생산자·소비자 모델(`sim/ws_ring.py`: 복사는 기다릴 때 도착, wgmma 는 wait 까지 비동기)을 돌려, 멈춤(deadlock), 지난 바퀴의 데이터를 읽음, 도착하지 않은 복사를 읽음 가운데 무엇이 어느 k-반복에서 일어나는지 보여 줍니다.
""")
md(r"""
### 5.1 2단계: TMA 다단 파이프라인 — `wgmma_tma`

블록은 워프그룹 2개(256 스레드)로 C 의 128×128 을 맡고, 워프그룹 w 가 64w 행부터 64행을 `m64n128k16` 으로 계산합니다. 공유 메모리에는 단계(stage)가 4개 있고 (A 128×64 + B 64×128 = 32 KiB 씩, 동적 공유 메모리 128 KiB), 단계마다 `full` mbarrier 가 하나 있습니다. 스레드 0 이 단계를 채웁니다: `arrive.expect_tx(32768)` 뒤 TMA 세 번(A 상자 하나, B 의 64열 상자 둘). 모두가 `full[s]` 를 이번 바퀴의 parity 로 기다린 뒤 wgmma 네 번을 내고, `wait_group 1` 로 **앞** 타일의 wgmma 가 끝났음을 확인한 다음, 배리어를 지나면 스레드 0 이 그 앞 단계를 다음 타일로 다시 채웁니다.
""")
code(r"""
print(course.source(kn.get("wgmma_tma").kernel))
""")
code(r"""
r = L.check_kernels([("wgmma_tma", (100, 72, 300))])["wgmma_tma"]
print(r)
assert r["ok"] and r["identity"]
print("PASS: wgmma_tma = float64 기준값 (K 타일 5개가 단계 4개를 한 바퀴 넘게 돎)")
# 예상 출력: {'ok': True, ...} / PASS: wgmma_tma = float64 기준값 (...)
""")
md(r"""
### 5.2 문제: parity 를 바꾸지 않으면, 바이트 수를 틀리면

두 가지 흔한 실수를 버그 쌍둥이로 봅니다. `tma_wrong_parity` 는 소비자가 언제나 parity 0 을 기다립니다: 첫 바퀴는 맞지만, 둘째 바퀴에서는 그 barrier 가 이미 parity 0 단계를 지났으므로 기다림이 곧바로 통과하고, 새 복사가 도착하기 전의 단계를 읽습니다. `tma_short_expect_tx` 는 단계의 바이트를 절반(A 타일만큼)만 알립니다: 복사 세 개(A 상자 하나, B 상자 둘)가 도착하는 순서는 정해져 있지 않고, 알린 바이트만큼 먼저 도착하면 단계가 끝나 나머지를 기다리지 않습니다. TMA 는 상자 **전체**의 바이트를 세므로 (행렬 밖을 0 으로 채운 부분도), expect_tx 는 언제나 상자들의 전체 크기입니다.
""")
code(r"""
cases = [("tma_wrong_parity", (64, 40, 300)), ("tma_short_expect_tx", (64, 40, 130))]
for (name, _), r in zip(cases, L.bug_reports(cases)):     # GPU: 시뮬레이터 프로세스 둘이 동시에
    print(f"{name}: 결과가 맞음 = {r['right']}\n{r['summary']}\n")
""")
md(r"""
## 6. 워프 특화와 영속 격자

2단계의 배리어는 매 K 타일 256 스레드 모두를 한곳에 모읍니다. 스레드 0 은 wgmma 를 내는 워프그룹의 일원이라, 단계를 다시 채우는 동안 그 워프그룹의 wgmma 도 늦어집니다. 3단계 `wgmma_ws` 는 역할을 나눕니다:

* **생산자** 워프그룹(0번)의 스레드 하나는 데이터만 옮깁니다: 단계가 비기를(`empty[s]`) 기다리고, 바이트를 알리고, TMA 다섯 번(A 상자 하나, B 의 64열 상자 넷: 타일 128×256).
* **소비자** 워프그룹 둘(1, 2번)은 wgmma 만 냅니다: `full[s]` 를 기다리고, 64×256 을 두 누산기 배열(64×128 씩, `m64n128k16`)로 계산하고, `wait_group 1` 뒤에 앞 단계를 `empty` 에 돌려줍니다 (워프그룹마다 한 스레드가 arrive, `empty` 의 도착 수 2).
* **영속 격자**: 블록은 SM 마다 하나이고, 블록이 타일을 차례로 맡습니다 (`tile = blockIdx.x, + gridDim.x, …`). 소비자가 한 타일을 C 에 쓰는 동안 생산자는 이미 다음 타일의 단계를 채웁니다. 단계 고리는 타일을 넘어 계속 돌고, k-반복 카운터 `it` 하나가 단계(`it % 4`)와 parity(`(it // 4) & 1`)를 정합니다.

아래는 그 고리의 모델이 보여 주는 복사 순서입니다 (타일 2개 × K 타일 3개).
""")
code(r"""
log, done = L.ring_demo(stages=4, tiles=2, k_tiles=3)
print("\n".join(log))
print("계산된 k-반복:", done)
""")
NB.exercise("11-4", r"""
소비자의 k-반복 하나를 써 보세요. `ring` 에는 다섯 가지가 있습니다: `wait_full(s, parity)` (그 단계의 복사가 도착할 때까지), `mma(s)` (단계 s 로 wgmma 를 냄, 비동기), `commit()` (낸 것을 한 그룹으로), `wait_mma(n)` (가장 최근 n 그룹만 남기고 끝날 때까지), `release(s)` (단계 s 를 empty 에 돌려줌). 한 그룹은 날아가는 채로 두어(다음 단계를 기다리는 동안 Tensor Core 가 일하도록), 다 읽힌 단계만 돌려주세요. 타일의 마지막 단계는 타일 끝에서 `wait_mma(0)` 뒤에 돌려주므로 이미 주어져 있습니다. 확인 셀은 단계 고리의 여러 모양(STAGES 2–5, 타일마다 k-타일 1–7개)을 생산자가 먼저 달리는 순서와 소비자가 먼저인 순서로 끝까지 돌려, 일찍 돌려준 단계(생산자가 wgmma 가 읽는 중인 단계를 덮어씀), 두 번 돌려준 단계, 기다리지 않은 단계, 멈춤, 겹침이 없는 루프를 각각 그 호출이 있는 줄과 함께 알려 줍니다.
""")
code(r"""
print(course.source(kn.get("wgmma_ws").module.consume))
""")
code(r"""
r = L.check_kernels([("wgmma_ws", (136, 264, 130))])["wgmma_ws"]
print(r)
assert r["ok"] and r["identity"]
print("PASS: wgmma_ws = float64 기준값 (시뮬레이터의 블록 2개가 타일 4개를 나눠 맡음)")
# 예상 출력: {'ok': True, ...} / PASS: wgmma_ws = float64 기준값 (...)
""")
if "chk_cases" in FIG:
    md(r"""
**실제 GPU 에서도** ({{chk_gpu}}, {{chk_date}}; `benchmarks/check_level7.py`): 레벨 7 커널 {{chk_kernels}}개를 자투리 모양과 alpha·beta 를 섞은 {{chk_cases}}개 경우로 돌린 결과, {{chk_verdict}}. 같은 커널을 compute-sanitizer ({{san_tools}}) 아래에서 {{san_shapes}} 모양으로 돌린 결과: {{san_verdict}} (`benchmarks/sanitize_level7.py`).
""")
md(r"""
### 6.1 문제: 단계를 너무 일찍 돌려주면, 생산자의 parity 를 틀리면

`ws_release_before_wait` 의 소비자는 commit 직후에 단계를 돌려줍니다. 생산자는 곧바로 그 단계를 다음 K 타일로 채우는데, wgmma 는 아직 읽고 있습니다. 답이 맞게 나올 수도 있지만(복사가 늦게 도착하면) 경쟁은 그대로이고, 검출기는 결과와 상관없이(복사가 언제 도착했든) 보고합니다. `ws_producer_parity` 의 생산자는 소비자와 같은 parity 로 `empty` 를 기다려 첫 기다림이 영원히 끝나지 않습니다: GPU 에서는 커널이 멈추고(hang), 시뮬레이터는 모든 스레드가 어느 barrier 의 어느 parity 를 기다리는지 밝힌 오류를 냅니다.
""")
code(r"""
early, parity = L.bug_reports([("ws_release_before_wait", (40, 24, 300)), ("ws_producer_parity", (40, 24, 24))])
print("결과가 맞음:", early["right"])
print(early["summary"])
print("\n".join(parity["first"].splitlines()[:4]))
""")
md(r"""
## 7. 컴파일된 코드: SASS 와 ptxas 가 한 말

세 커널을 sm_90a 로 오프라인 컴파일한 결과입니다 (NVVM → PTX → nvJitLink, GPU 없이). `HGMMA` 는 wgmma 의 SASS, `WARPGROUP.ARRIVE` 는 `wgmma.fence` 입니다: 루프의 wgmma 묶음마다 하나면 ptxas 가 wgmma 를 **직렬화하지 않은** 것입니다. ptxas 는 wgmma 를 직렬화하면 그 까닭을 C75xx 번호의 정보 메시지로, 기다림을 넣으면 C7517 을 알립니다 (4.2절의 셀이 그 한 예). 이 강좌는 그런 경고가 없도록 세 가지를 했습니다 (`tests/test_hopper_kernels.py` 가 지킴): `wgmma.fence`·`wait_group` 이 누산기 배열을 "읽고 쓰는" 것으로 선언해 컴파일러가 그 사이에 누산기를 옮기지 않게 함(CUTLASS 의 `warpgroup_fence_operand` 와 같은 일), 에필로그가 누산기를 상수 인덱스로만 읽게 함(로컬 메모리 0), 실행 시간 값으로 나누는 64비트 정수 나눗셈(SASS 에서 서브루틴 호출이 됨)을 32비트 `div.u32` 로 바꿈.
""")
code(r"""
rows = L.compiled_rows()
display(Markdown(L.markdown(rows, ["커널", "대상", "레지스터", "로컬 메모리 B", "HGMMA", "WARPGROUP.ARRIVE",
                                   "UTMALDG", "ptxas 경고"])))
""")
md(r"""
**Numba 로는 여기까지: `setmaxnreg`.** CUTLASS 의 워프 특화 커널은 생산자 워프그룹의 레지스터를 줄이고(`setmaxnreg.dec`) 소비자에게 더 줍니다(`setmaxnreg.inc`). 명령은 `.ptx` 파일로 있고 ptxas 가 받아들이지만, numba-cuda 는 커널의 PTX 를 nvJitLink 로 **재배치 가능 코드**로 링크하고, 그러면 ptxas 는 "컴파일 단위 사이의 호환성을 위해" setmaxnreg 를 무시합니다. 아래 셀은 같은 PTX 를 두 방법으로 컴파일해 그 말을 보여 줍니다. 그래서 `wgmma_ws` 는 setmaxnreg 를 쓰지 않고 `launch_bounds(384, 1)` 의 168 레지스터 안에서 누산기 128개를 스필 없이 둡니다 (위 표).
""")
code(r"""
linked, whole, rc = L.setmaxnreg_evidence()
print("Numba 의 링크 (nvJitLink):", linked or "경고 없음")
print("ptxas 로 한 프로그램으로:", whole or "경고 없음", "| 종료 코드", rc)
""")
md(r"""
## 8. 성능
""" + ("""
기록된 측정({{gpu}}, {{date}}; `benchmarks/bench_level7.py`: 같은 실행의 cuBLAS HGEMM — `cublasGemmEx` f16×f16→f32 — 대비 비율). 커널마다 먼저 float64 기준값과 맞는지 확인한 뒤, 모든 항목을 라운드마다 돌아가며 쟀습니다. 호출 한 번의 Python 실행 비용(호스트 시간)이 GPU 시간에 비해 작지 않은 크기는 CUDA 그래프로 재어 Python 이 아니라 커널을 잽니다 ({{timed}}):
""" if PERF is not None else """
레벨 7 커널의 **GPU 측정 기록은 아직 없습니다.** H100 에서 `python benchmarks/bench_level7.py` 를 실행하면 같은 실행의 cuBLAS HGEMM (`cublasGemmEx` f16×f16→f32) 과 나란히 2048³, 4096³ 을 재서 `course/ch11_hopper/records/gpu_h100_level7.json` 을 쓰고, 이 절의 문장과 표는 생성기가 그 기록으로 채웁니다. 목표는 4096³ 에서 cuBLAS 의 75 % 입니다 (노트북 10 의 `mma_fast` 는 `mma.sync` 로 {{fast_gpu}} 의 두 기록 실행에서 {{fast_lo}} %, {{fast_hi}} %). 기록이 없으므로 아래 셀은 그렇다고만 말합니다.
""") + r"""
""")
code(r"""
tables = L.perf_tables(L.PERF)          # one table per recorded run, each naming its run
for title, rows in tables:
    display(Markdown(f"**{title}**\n\n" + L.markdown(rows, L.PERF_COLUMNS)))
if not tables:
    print("측정 기록 없음 (course/ch11_hopper/records/gpu_h100_level7.json): 숫자를 보여 줄 수 없습니다")
""")
if PERF is not None:
    md(r"""
목표는 4096³ 에서 같은 실행 cuBLAS 의 75 % 였습니다. `wgmma_ws` 는 기록된 실행마다 {{ws_goal}} 를 냈습니다 ({{ws_goal_verdict}}). cuBLAS 자신도 라운드마다 흔들리므로 (표의 제목 줄과 라운드별 범위 열: 한 라운드만 느린 행은 범위가 넓습니다), 비율은 같은 실행 안에서, 가운데 값으로 비교합니다. 1단계의 `wgmma_simple` 이 수 % 에 머무는 것은 속도를 노린 커널이 아니기 때문입니다: 블록 하나(워프그룹 하나)가 64×64 타일 하나를 맡고, 128 스레드가 원소를 하나씩(2바이트) 읽어 공유 메모리에 쓰며(`load_tile`), 타일마다 `wait_group 0` 을 기다린 뒤에야 다음 복사를 시작하므로 복사와 wgmma 가 겹치지 않습니다. 2단계 `wgmma_tma` 는 128×128 타일을 TMA 로 4단에 걸쳐 복사와 계산을 겹치고, 3단계 `wgmma_ws` 는 128×256 타일을 워프 특화와 영속 격자로 계산합니다.
""")
md(r"""
**지금 이 GPU**: Hopper GPU(CC 9.0)에서는 아래 셀이 세 커널과 `mma_fast`, cuBLAS 를 이 프로세스에서 잽니다 (2048³, 몇 초). 다른 GPU 에는 wgmma 가 없고, 시뮬레이터는 시간을 재지 않으므로 그렇다고 말합니다.
""")
code(r"""
live = L.live_benchmark()
if live is None:
    print("시뮬레이터 또는 CC 9.0 이 아닌 GPU: 레벨 7 의 시간은 여기서 잴 수 없습니다")
else:
    print(L.here_label())
    display(Markdown(L.markdown(live, L.PERF_COLUMNS)))
""")
md(r"""
## 9. 정리와 남은 것

* `wgmma` 는 워프그룹이 공유 메모리의 A·B 를 디스크립터로 읽어 비동기로 계산합니다. 누산기 레이아웃은 워프마다 `mma.sync` 의 C 조각을 8열씩 되풀이한 것이고, 결과는 `wait_group` 뒤에야 레지스터에 있습니다.
* TMA 는 스레드 하나로 상자 전체를 128바이트 스위즐 배치로 옮기고, 그 바이트가 mbarrier 의 단계를 끝냅니다. parity 는 단계 고리를 한 바퀴 돌 때마다 바뀌고, 생산자는 반대 parity 로 첫 바퀴를 지나갑니다.
* 비동기 프록시(TMA, wgmma)와 일반 저장 사이에는 `fence.proxy.async`, mbarrier 초기화 뒤에도 `fence.proxy.async`, 전역 메모리의 텐서 맵에는 acquire fence 가 필요합니다. 시뮬레이터는 이 규칙과 wait 전의 누산기·공유 메모리 접근을 모두 보고하고, 멈추는 barrier 는 이름을 대고 멈춥니다.
* 아직 하지 않은 것: 클러스터와 TMA multicast(블록 둘이 B 타일을 함께 받기), 소비자 둘이 타일을 번갈아 맡는 ping-pong, 에필로그를 공유 메모리와 TMA 저장으로 모으기, `setmaxnreg` (Numba 의 링크 방식에서는 무시됨: 7절). {{next_step_line}}

## 10. 체크포인트 퀴즈
""")
code(r"""
from course.quiz import show_quiz
show_quiz("11")
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(OUT))
    print(NB.write(ap.parse_args().out))


if __name__ == "__main__":
    main()
