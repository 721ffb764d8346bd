"""Generator of notebooks/07_register_blocking.ipynb (run: python notebooks/src/nb07.py; the committed ipynb is its output)."""
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from _nbgen import Notebook  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "07_register_blocking.ipynb"
NB = Notebook("nb07", OUT)
cells, md, code = NB.cells, NB.md, NB.code


md(r"""
# 07. Level 3 — 레지스터 블로킹 (Register Blocking)

> **마스터리 체크포인트 모듈**: 끝의 퀴즈 8문항 중 **6문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | 산술 강도(arithmetic intensity)를 **어느 메모리 수준**에서 세는지, 3계층 타일(블록·스레드·K), 외적(outer product) 마이크로커널의 재사용, 실제 레지스터 수(ptxas)와 스필(spill), 점유율(occupancy)의 진짜 계산 규칙, ILP와 TLP, 결과 저장(epilogue), 패딩·명시적 FMA가 SASS에서 실제로 바꾸는 것 |
| **실행 환경** | GPU 없이 실행됩니다: NVIDIA GPU가 없으면 Numba CUDA 시뮬레이터가 자동으로 선택되고 화면에 그렇게 표시됩니다. 레지스터·SASS는 GPU 없이 sm_80(A100)·sm_90(H100/H200)용으로 컴파일해서 읽습니다. 연산 능력(compute capability) 7.5 이상의 NVIDIA GPU가 있으면 GPU 모드가 선택되고, 이 노트북의 커널(Level 3)은 그런 GPU 어디서나 돌며 측정 셀이 실제로 잽니다. |
| **선수 노트북** | [`06_shared_memory_tiling.ipynb`](06_shared_memory_tiling.ipynb) (타일링, 협력적 로딩, 뱅크 충돌, FMA). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나(모델, 시뮬레이터 기록, 오프라인 컴파일) 측정한 값**입니다. 시뮬레이터 모드에서 GPU 수치가 필요한 곳은 실제 H200에서 **기록한 값(recorded)** 을 쓰고, 그렇다고 표시합니다. 레지스터 블로킹에 대해 널리 퍼진 설명 가운데 우리 커널의 측정과 맞지 않는 것은 그 측정 바로 옆에서 한두 문장으로 바로잡습니다.

분석에 쓰는 도구(기록 → 뱅크 모델, SASS 루프 읽기, 점유율 비교, 측정 표)는 `course/lesson07.py` 에 이름 붙은 함수로 들어 있습니다. 셀은 그 함수를 부르고 결과를 보여 주기만 하므로, 궁금하면 함수의 소스를 열어 보세요 (`course.show_source(L7.ilp)` 처럼).
""")
code(r"""
import course
info = course.setup("07")                      # 장치를 고르고(GPU 또는 시뮬레이터) 배너를 보여 줍니다
import kernels_numba as kn
from course import lesson07 as L7
from kernels_numba.infra import resources, trace
from sim import occupancy as occ
rec = course.recorded("gpu_h200_levels34")     # device 도구로 H200에서 기록한 Level 3–4 측정값
rb = kn.get("regblock").module                   # 이 노트북의 커널: kernels_numba/regblock.py
print("모드:", info["mode"], "| 기록된 GPU 측정:", rec["gpu"], rec["date"])
""")
md(r"""
## 1. 학습 목표

이 노트북을 마치면 다음을 할 수 있습니다.

1. 산술 강도를 **어느 메모리 수준**(글로벌 → 공유, 공유 → 레지스터)에서 세는지 밝히고, 스레드 타일 TM × TN 의 공유 메모리 → 레지스터 산술 강도 `TM·TN / (2·(TM+TN))` 를 **유도**한다.
2. 3계층 타일 구조(블록·스레드·K)의 크기가 서로 맞는지 **계산**한다.
3. 외적(outer product) 마이크로커널의 재사용을 내적(dot product)과 **비교**한다.
4. 실제 레지스터 수를 컴파일러(ptxas)에서 **읽고**, 스필(spill)을 SASS의 `LDL`/`STL` 로 **확인**한다.
5. 점유율을 CUDA의 실제 규칙(할당 단위, 서브파티션, 블록 단위)으로 **계산**하고, 점유율이 낮아도 빠를 수 있는 이유(ILP)를 **설명**한다.

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

해결책은 **스레드 조잡화(thread coarsening)**, 곧 스레드 하나가 C 원소를 여러 개 맡게 하는 것입니다. `regblock` 은 스레드 하나가 C의 8×8 = 64 원소를 레지스터에 들고 있는 이 노트북의 커널입니다. 두 커널을 시뮬레이터에서 실제로 돌려, 스레드 하나가 FMA 한 번에 공유 메모리를 몇 번 읽는지 모든 접근의 기록(trace)으로 세고 모델(`sim/outer.py`)과 비교합니다.
""")
code(r"""
ai = L7.ai_by_trace()                          # 두 커널의 공유 메모리 읽기를 전부 기록해서 셈
print(ai)
assert ai["ai"] == ai["model"] == {"tiled": 0.25, "regblock": 2.0}
print("PASS")
# 예상 출력: tiled … AI 0.25 …, regblock … AI 2.00 … / PASS
""")
md(r"""
**일반화.** k 단계 하나에서 TM × TN 스레드 타일은 `rA` 에 TM개, `rB` 에 TN개를 읽고(4바이트씩) FMA를 TM·TN번 합니다. FMA 하나는 곱셈과 덧셈, 2 FLOP 입니다.

$$\text{AI}_{\text{공유→레지스터}} = \frac{2\,T_M T_N}{4\,(T_M + T_N)} = \frac{T_M T_N}{2\,(T_M + T_N)}, \qquad T_M = T_N = T \text{ 이면 } \frac{T}{4}.$$

분자(연산)는 TM·TN 으로 **곱**으로, 분모(읽기)는 TM + TN 으로 **합**으로 늘기 때문에 타일을 키울수록 좋아집니다. T = 1 (`tiled`) 이면 0.25, T = 8 (`regblock`) 이면 2.0 — 위 셀의 기록과 정확히 같습니다.

**어느 수준의 바이트인지가 중요합니다.** 노트북 06의 0.25 는 **나이브 커널이 글로벌 메모리**에서, 여기의 0.25 는 **`tiled` 가 공유 메모리**에서 FMA마다 4바이트 값 두 개를 읽는다는 뜻으로, 같은 숫자지만 다른 수준입니다. 흔히 "Level 2 → Level 3 에서 산술 강도가 0.25 → 2.0" 이라고만 말하지만, 그 말은 공유 메모리 → 레지스터 수준에서만 맞습니다. 블록 단위 **글로벌 → 공유** 산술 강도는 `BM·BN / (2·(BM+BN))` 이고(노트북 06의 타일링 4.0 이 이 식의 BM = BN = 16), `regblock` 의 128×128 블록 타일에서는 훨씬 큽니다. 아래 셀은 닫힌 식을 분수로 정확히 확인하고 두 블록 타일을 계산합니다.
""")
code(r"""
lv = L7.intensity_levels()
print(lv)
assert lv["exact"] and lv["block"] == {(16, 16): 4.0, (128, 128): 32.0}
print("PASS")
# 예상 출력: … 블록 16×16 … AI 4.0 FLOP/B, 블록 128×128 … AI 32.0 FLOP/B / PASS
""")
md(r"""
**이 산술 강도가 성능에 주는 상한.** 공유 메모리는 SM 하나에서 한 사이클에 웨이브프론트(wavefront) 1개 = 최대 128 B 를 처리하고(`sim/banks.py`), FP32 연산은 SM당 레인(lane) 수 × 2 FLOP/사이클입니다. 스레드가 요청한 바이트가 그대로 공유 메모리 대역폭을 쓴다고 보면(브로드캐스트와 충돌은 4.7절에서 따로 셉니다) 도달 가능한 비율은 `min(1, 128·AI / (레인 × 2))` 입니다.
""")
code(r"""
print(L7.shared_bound_table())
""")
md(r"""
A100 으로 계산하면 AI 0.25 에서 공유 메모리가 허락하는 연산은 피크의 약 4분의 1입니다. 흔히 이 계산을 A100 으로만 보여 주고 "연산 유닛의 약 24%" 라고 말하지만, 사양으로 다시 계산하면 25% 이고, 무엇보다 **Hopper(H100/H200)에서는 12.5%** 입니다: SM당 FP32 레인은 두 배(64 → 128)가 됐는데 공유 메모리는 여전히 SM당 사이클당 128 B 이기 때문입니다. 그래서 H200에서 FP32 피크에 닿으려면 이 모델로도 AI ≥ 2.0, 즉 **T = 8 이 최소**입니다.

**루프라인(roofline)과 리지 포인트(ridge point).** 같은 생각을 DRAM 수준에서 하면 루프라인 모델입니다: 커널이 낼 수 있는 성능은 `min(FP32 피크, DRAM 대역폭 × AI)` 이고, 두 직선이 만나는 **리지 포인트** = 피크 ÷ 대역폭 (FLOP/B) 보다 AI가 크면 연산이, 작으면 메모리가 한계입니다. `sim/roofline.py` 가 세 GPU의 리지 포인트을 계산합니다(FP32 피크는 SM 수 × 레인 × 2 × 클럭으로 계산, 대역폭은 데이터시트 값). 우리 커널의 블록 단위 글로벌 → 공유 AI(위 셀: `tiled` 4, `regblock` 32)를 나란히 놓습니다.
""")
code(r"""
from sim import roofline
roof = L7.roofline_position()
print(roof)
h = "H200"
print(f"{h} 리지 포인트 = {roofline.peak_tflops(h):.1f} TFLOP/s ÷ {roofline.DRAM_GBPS[h]:,.0f} GB/s = {roofline.ridge_point(h):.1f} FLOP/B")
assert roof["ai"]["tiled"] < min(roof["ridge"].values()) and roof["ai"]["regblock"] > max(roof["ridge"].values())
""")
md(r"""
* 리지 포인트은 A100 약 10, H200 약 14, H100 약 20 FLOP/B 입니다. GPU가 빨라질수록(피크 ÷ 대역폭이 커질수록) 연산에 묶이려면 더 큰 산술 강도가 필요합니다.
* `tiled` 의 블록 AI 4 는 세 GPU 모두에서 리지 포인트 **아래**(메모리 쪽), `regblock` 의 32 는 모두 **위**(연산 쪽)입니다. 레지스터 블로킹이 블록 타일을 16×16 에서 128×128 로 키운 덕분입니다.
* 주의: 여기의 AI 는 SM이 **요청한** 바이트로 센 값입니다. 같은 A, B 조각을 여러 블록이 읽을 때 L2 캐시가 DRAM 트래픽을 줄이므로, DRAM 기준 AI 는 이보다 **크거나 같습니다**. 요청 기준으로 이미 리지 포인트 위인 `regblock` 은 DRAM 기준으로도 위에 있습니다. 그래서 이 노트북의 나머지는 DRAM이 아니라 SM **안쪽**(공유 메모리, 레지스터, 명령 발행)을 봅니다.

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
th = L7.tile_hierarchy()
print(th)
assert th["ok"]
print("PASS")
# 예상 출력: 블록 = 16×16 = 256 스레드 … = 16,384 = 블록 타일 128×128 … 스레드당 4 + 4 개 로드, FMA 512번 / PASS
""")
md(r"""
### 3.3 외적(outer product) vs 내적(dot product)

같은 8 × 8 출력, 같은 FMA 수라도 **순서**가 재사용을 정합니다.

* **내적**(노트북 06의 스레드처럼 출력 하나를 끝내고 다음으로): FMA마다 A 값 하나, B 값 하나를 새로 읽습니다.
* **외적**(`regblock`): k 단계마다 `rA[0..7]`, `rB[0..7]` 을 한 번 읽어 레지스터에 두고, 64개 누산기 모두에 `rC[m][n] += rA[m]·rB[n]` 을 합니다. `rA[m]` 은 TN = 8 번, `rB[n]` 은 TM = 8 번 쓰입니다.

`sim/outer.py` 의 추적기(tracer)는 스레드 하나의 FMA를 한 단계씩 실행하며 공유 메모리 → 레지스터 읽기를 셉니다. K 타일 하나(BK = 8)를 끝까지 돌려 두 순서를 비교합니다.
""")
code(r"""
oc = L7.order_compare()
print(oc)
assert oc["outer"].loads * 8 == oc["dot"].loads
assert oc["outer"].a_uses[0] == (rb.TN,) * rb.TM and oc["outer"].b_uses[0] == (rb.TM,) * rb.TN
print("PASS")
# 예상 출력: outer: FMA 512, 공유 메모리 읽기 128 … / dot: FMA 512, 공유 메모리 읽기 1024 … / PASS
""")
md(r"""
재사용은 두 겹입니다: **레지스터 안**에서 값 하나를 8번(위 셀), **블록 안**에서 공유 메모리의 원소 하나를 여러 스레드가 읽습니다. 후자를 실제 커널의 기록으로 셉니다: `As[r, k]` 는 같은 `ty` 의 스레드 16개가, `Bs[k, c]` 는 같은 `tx` 의 스레드 16개가 읽습니다. 그러니 글로벌 메모리에서 가져온 원소 하나는 블록 안에서 16 스레드 × 8 FMA = 128번 쓰입니다.
""")
code(r"""
t_rb = trace.shared_accesses("regblock", M=rb.BM, N=rb.BN, K=rb.BK)   # 블록 1개, K 타일 1개의 모든 공유 메모리 접근
readers = L7.readers_per_element(t_rb["records"])
print("원소 하나를 읽는 스레드 수 → 원소 수:", {arr: dict(c) for arr, c in readers.items()})
assert all(set(c) == {rb.BLOCK[0]} for c in readers.values())
print("PASS")
# 예상 출력: 원소 하나를 읽는 스레드 수 → 원소 수: {'As': {16: 1024}, 'Bs': {16: 1024}} / PASS
""")
md(r"""
아래 위젯에서 **한 단계**를 눌러 외적 순서로 FMA를 하나씩 실행해 보세요. 초록 칸은 레지스터에 있는 값, 주황 테두리는 이번 FMA에서 새로 읽은 값, 칸 안의 숫자는 그 누산기를 갱신한 횟수입니다. 순서를 "내적"으로 바꾸면 FMA마다 두 값을 새로 읽는 것이 보입니다.
""")
code(r"""
from course.widgets.outer import outer_tracer
tracer_view = outer_tracer(TM=4, TN=4)
tracer_view.widget
""")
md(r"""
### 3.4 레지스터 예산: 추정 vs 컴파일러

스레드당 레지스터를 손으로 어림하면 "데이터 80개(`rC` 64 + `rA` 8 + `rB` 8) + 인덱스 등 ~24개 = 약 90–104개" 가 나옵니다. 데이터 부분은 모델로 정확히 셀 수 있지만(값 하나씩 흘려 쓰면 최소 64 + 8 + 1 = 73), 전체는 **ptxas 만 압니다.** GPU 없이 sm_80, sm_90 용으로 컴파일해 cubin 이 보고하는 값을 읽고, H200의 드라이버가 실제로 올린 커널의 기록과 비교합니다.
""")
code(r"""
reg = L7.registers()
rep = reg["rep"]                                  # {(8, 0): sm_80 보고, (9, 0): sm_90 보고}
print(reg)
print("H200 에 실제로 올라간 regblock (기록):", rec["resources"]["regblock"])
if not kn.device.SIMULATOR:
    print("지금 이 GPU 에 올라간 regblock:", resources.report("regblock")["registers"], "레지스터")
""")
md(r"""
흔히 레지스터를 약 90–104개로 어림하지만, 컴파일러가 보고하는 실제 값은 120개 이상입니다. 데이터 80개를 빼면 나머지가 인덱스·주소·루프 변수인데, Numba의 배열 인덱스는 **64비트 정수**(값 하나에 레지스터 두 개)이고 음수 인덱스를 처리하는 코드도 붙습니다 — 위 셀이 센 64비트 명령(`ISETP…EX`, `IMAD.WIDE…`)과 선택 명령 `SEL` 이 그 흔적입니다. 레지스터 수는 이런 것들과 컴파일러의 스케줄링이 함께 정하므로 손으로 정확히 셀 수 없습니다(4.8절의 `regblock_vec` 는 `SEL` 이 없어도 레지스터가 줄지 않습니다). 어림은 출발점일 뿐이고, 숫자는 항상 컴파일러에서 읽어야 합니다. 같은 소스라도 오프라인(nvJitLink)과 GPU 드라이버가 만든 값이 조금 다를 수 있습니다(위 셀의 기록값과 비교).

**스필(spill) 실험: TM = TN = 16.** 누산기만 256개 값이라 스레드당 상한 255개에 들어가지 않습니다. 흔히 "레지스터가 약 308개 필요하니 스필이 난다"고 설명하지만, 308개짜리 레지스터 할당은 존재할 수 없습니다. ptxas 가 실제로 무엇을 하는지 `kernels_numba/demos/regblock_t16.py` (레지스트리에 없는 교육용 커널)를 컴파일해 봅니다.
""")
code(r"""
sp = L7.spills(rec)
print(sp)
assert all(r["local_bytes"] > 0 and r["ldl"] > 0 and r["stl"] > 0 and r["registers"] <= 255 for r in sp["t16"].values())
assert all(r["local_bytes"] == 0 and r["ldl"] == r["stl"] == 0 for r in rep.values())
print("PASS: regblock 은 스필 없음, regblock_t16 은 상한 안의 레지스터 + 로컬 메모리 스필")
# 예상 출력: … regblock_t16 sm_80/sm_90: 레지스터 255개 이하, 로컬 메모리 0 B 보다 큼, STL·LDL 있음 … / PASS: …
""")
md(r"""
* 컴파일은 **성공**합니다. ptxas 는 레지스터를 상한 안에서 할당하고, 나머지 값을 스레드마다 있는 **로컬 메모리(local memory)** 로 내보냅니다(`STL` 로 쓰고 `LDL` 로 다시 읽음). 로컬 메모리는 글로벌 메모리와 같은 DRAM 주소 공간에 있고 L1/L2 캐시를 거칩니다.
* "255를 넘으면 스필, 그 아래는 안전" 이라는 설명도 정확하지 않습니다. 스필은 컴파일러가 정한 **상한**을 넘을 때 생기고, 그 상한은 런치 경계(launch bounds)나 `maxrregcount` 로 더 낮아질 수 있습니다. 판정은 항상 cubin 의 로컬 메모리 보고와 SASS의 `LDL`/`STL` 로 합니다.
* "≤128 안전, 129–200 …" 같은 레지스터 구간표도 쓰지 않습니다. 레지스터 수가 점유율을 바꾸는 지점은 다음 절에서 규칙으로 정확히 계산합니다.

### 3.5 점유율: 나눗셈 어림 vs 실제 규칙

흔한 어림: "65,536 / 90 = 728 스레드 → 22 워프 → 34.4%, 104개면 29.7%". 이 방법은 `sim.occupancy.seed_estimate` 로 재현됩니다. 실제 점유율 계산기(CUDA `cuda_occupancy.h`)의 규칙은 세 가지가 더 있습니다:

1. 레지스터는 **워프 단위로 256개씩** 할당됩니다 (스레드당 수를 8의 배수로 올림).
2. 레지스터 파일은 **서브파티션 4개**(각 16,384개)로 나뉘고 워프 하나는 그중 하나에 삽니다.
3. 블록은 **통째로** 올라갑니다: 256 스레드 블록이면 8 워프 단위로만 늘어납니다.

공유 메모리는 커널이 **선언한** 바이트(`regblock`: 8,192 B)를 넣습니다. 블록마다 시스템이 더 잡아 두는 몫은 모델이 따로 더합니다(아래 공유 메모리 셀).
""")
code(r"""
smem = rec["resources"]["regblock"]["shared_bytes"]          # 선언한 공유 메모리 (H200 에 올라간 커널의 속성)
regs = {cc: r["registers"] for cc, r in rep.items()}
print(L7.occupancy_rules(regs, smem))
print("\nH100 계산 과정 (regblock):")
print("\n".join("   " + s for s in occ.occupancy("H100", regs[(9, 0)], rb.THREADS, smem).steps))
""")
md(r"""
흔히 인용되는 34.4% 와 29.7% 는 둘 다 틀립니다: 90개도 104개도 실제로는 **25%** (SM당 2블록 = 16워프)입니다. 256 스레드 블록에서는 점유율이 **블록 단위(8워프 = 12.5%)로 양자화**되기 때문입니다. 레지스터 수에 따라 블록 수가 바뀌는 지점을 전부 계산해 봅니다.
""")
code(r"""
print(L7.register_steps("H100", rb.THREADS, smem))
tiled_regs = resources.report("tiled", (9, 0))["registers"]
print(f"\n참고: 노트북 06의 tiled (레지스터 {tiled_regs}개, 256 스레드):", occ.occupancy("H100", tiled_regs, 256, 2048).summary())
""")
md(r"""
* 256 스레드 블록이면 레지스터 **81–128개가 모두 같은 25%** 입니다. 120개를 90개로 줄여도 점유율은 그대로이고, 80개 이하가 되어야 한 단계(37.5%) 오릅니다.
* Level 2 의 점유율을 흔히 "~50–75%" 로 어림하지만, 우리 `tiled` 는 레지스터가 적어 **100%** 입니다. 그런데도 `regblock` 이 두 배 넘게 빠릅니다(4.10절) — 점유율은 목표가 아니라 지연을 숨기는 수단 중 하나입니다(3.6절).

모델을 믿기 전에 실제 GPU와 맞춰 봅니다. H200에서 CUDA 드라이버의 점유율 API(`cuOccupancyMaxActiveBlocksPerMultiprocessor`)가 답한 값(기록)과, 같은 커널의 레지스터·공유 메모리를 넣은 모델을 나란히 놓습니다.
""")
code(r"""
api = L7.occupancy_vs_api(rec)
print(api)
assert all(api["agree"].values())
print("PASS")
# 예상 출력: 모든 줄 끝이 ✓ / PASS
""")
md(r"""
아래 위젯으로 GPU, 레지스터 수, 블록 크기, 공유 메모리를 바꿔 보세요. 파란 계단이 실제 규칙, 회색 점선이 나눗셈 어림입니다. 블록을 128 스레드로 줄이면 계단이 어떻게 촘촘해지는지도 확인해 보세요.
""")
code(r"""
from course.widgets.occupancy import occupancy_explorer
occ_view = occupancy_explorer(gpu="H100", regs=regs[(9, 0)], threads=rb.THREADS, smem=smem)
occ_view.widget
""")
md(r"""
**공유 메모리 한도는 GPU마다 다릅니다.** "Ampere SM당 최대 공유 메모리 164 KB" 는 **A100(sm_80)** 의 값입니다. 같은 Ampere라도 sm_86(RTX 30xx 등)은 100 KB 이고, H100/H200 은 228 KB 입니다.

**블록마다 1 KB 시스템 예약.** 연산 능력 8.x 와 9.x 의 GPU는 모두 블록마다 공유 메모리 1 KB(1,024 B)를 시스템용으로 예약합니다(장치 속성 `RESERVED_SHARED_MEMORY_PER_BLOCK`; H200에서 읽은 값 1,024 가 기록에 있습니다). 점유율 계산은 블록마다 **선언한 바이트 + 1 KB** 를 셉니다. 이 예약은 커널의 속성에 들어 있지 않습니다: H200에 올라간 `regblock` 은 선언한 그대로 8,192 B 를 보고합니다. 헷갈리기 쉬운 것은 오프라인 **sm_90 cubin 보고**가 선언보다 1,024 B 큰 9,216 B 라는 점인데, 이것을 "Hopper만 예약하고 sm_80은 안 한다"로 읽으면 틀립니다: 예약은 A100에도 똑같이 있고, 점유율에 넣을 값은 선언한 바이트입니다.
""")
code(r"""
sl = L7.shared_limits("regblock", rec)
print(sl)
print("sm_86 의 최대 카브아웃(carveout):", occ._steps_for((8, 6))[-1], "KB")
assert sl["cubin"][(8, 0)] == sl["loaded"] == 2 * rb.BM * rb.BK * 4 and sl["cubin"][(9, 0)] == sl["loaded"] + 1024
assert set(sl["reserved"].values()) == {1024} and rec["occupancy_api"]          # A100, H100, H200 모두 1 KB
print("PASS")
# 예상 출력: regblock: cubin 보고 sm_80 8,192 B, sm_90 9,216 B | H200 … 8,192 B / A100·H100·H200 모두 (선언 8,192 + 시스템 예약 1,024) / PASS
""")
md(r"""
### 3.6 ILP vs TLP

지연(latency)을 숨기는 방법은 두 가지입니다.

* **TLP (thread-level parallelism)**: 한 워프가 기다리면 스케줄러가 **다른 워프**의 명령을 냅니다. 워프가 많을수록(점유율 ↑) 유리합니다.
* **ILP (instruction-level parallelism)**: **같은 워프** 안에서 서로 의존하지 않는 명령을 연달아 냅니다. 앞 명령의 결과를 기다릴 필요가 없습니다.

`regblock` 은 25% 점유율이면 SM당 16워프, 스케줄러(서브파티션) 4개에 **4워프씩**입니다. 대신 한 k 단계의 FFMA 64개가 서로 다른 누산기 64개에 쓰므로 서로 독립입니다. sm_90 SASS의 루프 본문에서, FFMA가 같은 본문 안의 앞선 FFMA 결과를 읽는 **의존 사슬**의 최대 길이를 셉니다 (1이면 모두 독립). `L7.loop_stats` 가 루프 본문의 명령을 차례로 읽으며 레지스터마다 "이 값을 만든 FFMA 사슬의 길이"를 기록하는 방식입니다.
""")
code(r"""
sass_rb = rep[(9, 0)]["sass_text"]
lp = L7.ilp(sass_rb, resources.report("tiled", (9, 0))["sass_text"])
print(lp)
inner, tl_loop = lp["regblock k 루프"], lp["tiled 타일 루프"]
assert inner["FFMA"] == rb.TM * rb.TN and inner["chain"] == 1 and inner["BAR"] == 0
assert tl_loop["chain"] == tl_loop["FFMA"]
print("25% 점유율의 스케줄러당 워프:", occ.occupancy("H100", regs[(9, 0)], rb.THREADS, smem).active_warps // 4)
print("PASS")
# 예상 출력: regblock k 루프 … FFMA 64 … 의존 사슬 최대 1 / tiled 타일 루프 … 사슬 = FFMA 수 / … 4 / PASS
""")
md(r"""
서로 독립인 FFMA가 64개면 한 워프만으로도 스케줄러는 여러 사이클 동안 앞 결과를 기다리지 않고 FFMA를 낼 수 있습니다. 그래서 `regblock` 은 워프가 적어도(TLP ↓) ILP로 연산 파이프를 채웁니다. 반대로 `tiled` 의 스레드는 누산기가 `acc` 하나라 FFMA가 모두 직전 FFMA에 의존하고(위 셀: 사슬 길이 = FFMA 수, ILP 없음), 대기 시간은 다른 워프로만 숨길 수 있습니다.

실제 H200에서 Nsight Compute 가 샘플링한 **워프가 멈춘 이유(stall reason)** 를 봅니다 (워프 상태 샘플의 %). `short_scoreboard` 와 `mio_throttle` 을 더한 값이 공유 메모리를 기다린 몫입니다.
""")
code(r"""
stalls = L7.stall_table(rec, [s.name for s in kn.by_level(3)])
print(stalls)
w, p = stalls["shared_wait"], stalls["share"]["regblock_opt"]
others = {k: v for k, v in p.items() if k not in ("selected", "not_selected", "short_scoreboard", "mio_throttle")}
print(f"regblock_opt: 공유 메모리 대기 {w['regblock_opt']:.1f}% vs 다른 이유 중 가장 큰 {max(others, key=others.get)} {max(others.values()):.1f}%")
assert w["regblock_opt"] > max(others.values()) and w["regblock_opt"] > 2 * w["regblock_vec"]
""")
md(r"""
* `selected` 는 워프가 명령을 낸 샘플, `not_selected` 는 낼 수 있었지만 같은 스케줄러의 다른 워프가 뽑힌 샘플입니다 — 두 값이 크면 스케줄러가 쉬지 않고 일하고 있다는 뜻입니다.
* `short_scoreboard` 는 **공유 메모리** 같은 MIO 명령의 결과를 기다리는 것, `mio_throttle` 은 그 명령 큐가 가득 차서 새 명령을 못 내는 것, `long_scoreboard` 는 글로벌/로컬 메모리를 기다리는 것입니다.
* 패딩과 명시적 FMA를 넣은 `regblock_opt`(4.7절)는 샘플의 약 3분의 1을 공유 메모리를 기다리며 보내고(멈춘 이유 중 가장 큼), 공유 메모리 읽기를 128비트로 바꾼 `regblock_vec`(4.8절)에서는 그 비율이 크게 줄었습니다. 공유 메모리 읽기가 왜 병목인지는 4.7절에서 웨이브프론트로 셉니다. (이 기록에는 `regblock` 자체의 stall 측정이 없습니다.)

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
**4.1 상수.** `BM, BN, BK, TM, TN` 과 여기서 나오는 `BLOCK = (BN // TN, BM // TM) = (16, 16)`, `A_TILE_ROW_STRIDE`, `B_TILE_ROW_STRIDE` 는 **모듈 상수**입니다. GPU에서는 공유·로컬 배열의 모양이 컴파일 시간 상수여야 하기 때문입니다(시뮬레이터는 아무 값이나 받아 주지만 GPU는 거부합니다).

**4.2 레지스터 배열.** `cuda.local.array((TM, TN), float32)` 는 이름은 "로컬"이지만, 모든 인덱스가 컴파일 시간에 정해지면(루프가 펼쳐져 `m`, `n` 이 상수가 되면) 컴파일러가 레지스터에 둡니다. 3.4절에서 `regblock` 의 로컬 메모리가 0 B 인 것이 그 증거입니다. 인덱스 하나라도 실행 중에 정해지면 배열 전체가 로컬 메모리로 갑니다.

**4.3 스레드 → 출력 매핑.** 스레드 `(tx, ty)` 는 블록 타일 안에서 행 `ty·TM .. ty·TM+7`, 열 `tx·TN .. tx·TN+7` 을 맡습니다. 예로 `(tx=3, ty=5)` 를 계산하고, 256 스레드가 블록 타일을 빈틈없이 한 번씩 덮는지 확인합니다.
""")
code(r"""
from collections import Counter
tx, ty = 3, 5
print(f"(tx={tx}, ty={ty}): 블록 타일의 행 {ty * rb.TM}..{ty * rb.TM + rb.TM - 1}, 열 {tx * rb.TN}..{tx * rb.TN + rb.TN - 1}")
owner = Counter((y * rb.TM + m, x * rb.TN + n) for y in range(rb.BLOCK[1]) for x in range(rb.BLOCK[0])
                for m in range(rb.TM) for n in range(rb.TN))
assert set(owner.values()) == {1} and len(owner) == rb.BM * rb.BN
print("PASS: 블록 타일의", len(owner), "원소를 스레드 256개가 정확히 한 번씩 맡음")
# 예상 출력: (tx=3, ty=5): 블록 타일의 행 40..47, 열 24..31 / PASS: 블록 타일의 16384 원소를 …
""")
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
assert L7.covers_once(amap, rb.BM, rb.BK) and L7.covers_once(bmap, rb.BK, rb.BN)
assert L7.stored_map(t_rb, "As") == amap and L7.stored_map(t_rb, "Bs") == bmap     # 기록된 커널의 저장과 같음
print("PASS: 두 지도가 타일을 정확히 한 번씩 덮고, 기록된 커널의 저장과 일치")
# 예상 출력: tid 13 이 채우는 As 원소: [(1, 5), (33, 5), (65, 5), (97, 5)] … / PASS: …
""")
md(r"""
B 로드에서는 같은 워프의 32 스레드가 `B` 의 한 행에서 연속한 32개 float 를 읽어(글로벌 코얼레싱), `Bs` 의 연속한 32 워드에 씁니다(공유 메모리 뱅크 충돌 없음). A 로드에서는 연속한 8 스레드가 `A` 의 한 행에서 연속한 8개(32 B)를 읽고, 한 워프는 4개 행을 읽습니다. 저장 쪽 충돌은 4.7절에서 기록으로 셉니다.

### 4.5 외적 마이크로커널과 SASS: 루프는 정말 펼쳐졌나?

CUDA C 로 쓴 레지스터 블로킹 커널은 보통 `#pragma unroll` 로 `k`, `m`, `n` 루프를 모두 펼치고 "64개 FFMA가 연속 배치된다"고 설명합니다. Numba에는 `#pragma` 가 없습니다. 반복 횟수가 상수인 루프는 LLVM이 알아서 펼치는데, **어디까지** 펼쳤는지는 SASS가 말해 줍니다. 3.6절에서 찾은 sm_90 SASS의 두 루프를 자세히 봅니다.
""")
code(r"""
kt_loop = lp["regblock K 타일 루프"]
print(f"K 타일 루프: 명령 {kt_loop['n']}개 (배리어 {kt_loop['BAR']}) — 그 안의 k 루프: 명령 {inner['n']}개 = "
      f"FFMA {inner['FFMA']} + LDS {inner['LDS']} + 기타 {inner['n'] - inner['FFMA'] - inner['LDS']}")
print(f"k 루프 본문의 FFMA 비율 {100 * inner['FFMA'] / inner['n']:.0f}% | 커널 전체 FFMA {rep[(9, 0)]['ffma']} "
      f"= 외적 {inner['FFMA']} + 결과 기록 {rep[(9, 0)]['ffma'] - inner['FFMA']}")
print(resources.inner_loop_excerpt(sass_rb, max_lines=14))
""")
md(r"""
SASS가 보여 주는 사실:

* `m`, `n` 루프(외적 64번과 `rA`·`rB` 읽기 16번)는 **완전히 펼쳐졌습니다**: FFMA 64개가 서로 독립(의존 사슬 1)이고, `LDS` 는 상수 오프셋(`+0x4`, `+0x20` …)을 씁니다.
* 하지만 **`k` 루프는 펼쳐지지 않았습니다**: FFMA 64개 + LDS 16개 + 루프·주소 명령 몇 개가 한 반복이고, 뒤로 가는 `BRA` 로 8번 돕니다. "BK × TM × TN 이 전부 펼쳐져 분기가 없다" 는 흔한 설명은 우리 커널에 대해 사실이 아닙니다.
* `#pragma unroll` 을 빼면 몇십 % 느려진다는 수치도 자주 보이지만, 이 강좌는 측정하지 않은 수치를 옮기지 않습니다. 우리가 아는 것은 위 셀이 센 k 루프 본문의 FFMA 비율이고, 나머지 명령도 발행(issue) 슬롯을 씁니다. 루프를 완전히 펼친 `regblock_vec`(4.8절)와의 차이는 다른 변경과 섞여 있어 펼침만의 효과로 읽을 수 없습니다.

### 4.6 결과 저장 (epilogue)

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
assert ep == {"beta0": True, "beta1": True}
print("PASS: beta = 0 이면 NaN 으로 채운 C 를 읽지 않고, beta ≠ 0 이면 alpha·A·B + beta·C")
# 예상 출력: … 섹터 32개, … 128 B → 12.5% / … 섹터 32개, 512 B → 50.0% / PASS: …
""")
md(r"""
### 4.7 최적화 버전 `regblock_opt`: 패딩과 명시적 FMA

레지스터 블로킹 커널의 "최적화 버전"으로 흔히 두 가지를 더합니다: (1) `As[BM][BK+1]`, `Bs[BK][BN+1]` +1 패딩, (2) 인라인 PTX `fma.rn.f32`. 우리 `regblock_opt.py` 는 (2)를 `cuda.fma(a, b, c)` 로 씁니다.

**(1) 패딩이 실제로 바꾸는 것.** 흔한 논리는 이렇습니다: "`As[128][8]` 에서 `As[0][k]` 와 `As[4][k]` 는 같은 뱅크 → 충돌, 패딩하면 뱅크 k 와 4+k 로 갈라진다." 그런데 이 논리는 **한 워프의 한 요청에 어떤 주소가 함께 들어가는지**를 보지 않았습니다. `rA[m] = As[thread_row + m, k]` 에서 `m` 은 명령마다 상수이므로, `As[0][k]` 와 `As[4][k]` 는 같은 스레드가 **다른 명령**(m = 0, m = 4)으로 읽습니다. 한 요청에 함께 들어가는 것은 워프 안의 `ty = 2w, 2w+1` 두 스레드 행, 즉 `As` 의 **8행 떨어진** 두 행입니다.
""")
code(r"""
for pad in (0, 1):
    r = L7.request_banks(pad)
    print(f"As[{rb.BM}][{rb.BK + pad}]: 워프 0 이 m=0, k=0 에서 함께 읽는 행 {r['rows']} → 뱅크 {r['banks']}")
assert L7.request_banks(0)["banks"] == [0, 0] and len(set(L7.request_banks(1)["banks"])) == 2
print("PASS: 패딩 없이는 한 요청의 두 행이 같은 뱅크(2-way), 패딩하면 갈라짐")
# 예상 출력: As[128][8]: … 행 [0, 8] → 뱅크 [0, 0] / As[128][9]: … 행 [0, 8] → 뱅크 [0, 8] / PASS: …
""")
md(r"""
이제 두 커널을 시뮬레이터에서 실제로 돌려 **모든** 공유 메모리 접근을 기록하고, 워프 요청마다 웨이브프론트 수를 뱅크 모델로 셉니다 (노트북 06과 같은 방법). 한 요청의 웨이브프론트가 n 이면 그 요청은 n 사이클 동안 공유 메모리를 차지합니다(n-way 충돌).
""")
code(r"""
wf = {"regblock": L7.bank_rows(t_rb),
      "regblock_opt": L7.bank_rows(trace.shared_accesses("regblock_opt", M=rb.BM, N=rb.BN, K=rb.BK))}
for name, rows in wf.items():
    print(L7.bank_lines(name, rows))
assert [wf["regblock"][(a, "load")]["max_wavefronts"] for a in ("As", "Bs")] == [2, 4]
assert [wf["regblock_opt"][(a, "load")]["max_wavefronts"] for a in ("As", "Bs")] == [1, 4]
assert wf["regblock"][("As", "store")]["max_wavefronts"] == 1 and wf["regblock_opt"][("As", "store")]["max_wavefronts"] == 2
print("PASS")
# 예상 출력: regblock: As load 최대 2 (2-way), Bs load 최대 4 (4-way) … / regblock_opt: As load 1, Bs load 4, As store 2 / PASS
""")
md(r"""
**우리 커널에서 실제로 참인 것:**

* `rA` 읽기(`As`): 패딩 없이 **2-way** 충돌(8행 떨어진 두 행 = 64 워드 차이 = 같은 뱅크). 패딩(행 9 워드)이면 72 워드 차이 → 뱅크 8 차이 → 충돌 없음. "패딩이 `As` 읽기를 돕는다" 는 결론은 맞지만, 흔히 드는 이유(`As[0]` vs `As[4]`)는 틀렸습니다.
* `rB` 읽기(`Bs`): 스레드 `tx` 가 워드 `8·tx + n` 을 읽으므로 tx, tx+4, tx+8, tx+12 가 같은 뱅크 → **4-way 충돌**, 패딩과 무관하게 남습니다 (행 끝 패딩은 한 행 **안**의 배치를 바꾸지 못함). 흔한 설명은 이 충돌을 언급하지 않습니다.
* 패딩은 `As` **저장**에 2-way 충돌을 새로 만듭니다(한 워프가 4행 × 8열을 쓰는데 행 간격 9워드).
* 합계: K 타일 하나·블록 하나의 공유 메모리 웨이브프론트를 워프 단위 FFMA 수와 비교합니다.
""")
code(r"""
wf_per_ffma = L7.wavefronts_per_ffma(wf)
for name, v in wf_per_ffma.items():
    print(f"{name:13s} 웨이브프론트 / 워프 FFMA {L7.warp_ffma_per_tile()} = FFMA당 {v:.3f}")
""")
md(r"""
SM 하나는 한 사이클에 웨이브프론트 1개를 처리하고, 워프 단위 FFMA는 `FP32 레인 / 32` 개(H200: 4개)를 냅니다. FFMA당 웨이브프론트가 0.25 를 넘으면 **공유 메모리가 먼저 한계**에 닿습니다. 두 커널 모두 0.25 를 넘습니다. 이 상한을 4.10절에서 측정값과 비교합니다.

**(2) 명시적 FMA 가 바꾸는 것.** 흔한 설명: "컴파일러가 `a*b + c` 를 곱셈과 덧셈으로 나눌 수 있으니 인라인 PTX로 FMA를 강제한다, FMA는 단일 사이클이라 2배 처리량." 노트북 06에서 본 대로 NVVM 은 `acc += a*b` 를 이미 `fma.rn.f32` 로 합칩니다(contraction). 두 커널의 PTX와 SASS를 비교합니다.
""")
code(r"""
fc = L7.fma_compare(inner)
print(fc)
assert fc["same"] and fc["inner"]["regblock_opt"]["FFMA"] == 64
print("PASS: 명시적 FMA 는 PTX 의 FMA 수도, SASS 의 FFMA 수도 바꾸지 않는다")
# 예상 출력: 두 줄의 PTX 개수가 같음, k 루프 FFMA 64 / PASS: …
""")
md(r"""
* 두 커널의 PTX 명령 구성이 **같습니다**: `regblock` 의 `rC[m, n] += rA[m] * rB[n]` 이 이미 `fma.rn.f32` 입니다. 명시적 FMA로 얻을 것이 없습니다 (SASS의 FFMA 수도 같고, 명령 수 차이는 FFMA가 아닌 명령 — 패딩으로 바뀐 주소 계산 등 — 에서 옵니다).
* "FMA는 단일 사이클이라 2배 처리량": FFMA 하나가 FMUL + FADD 두 명령을 대신하므로 **명령 수**가 절반인 것은 맞지만, 우리 커널은 처음부터 FFMA만 쓰므로 비교 대상이 없습니다. "단일 사이클"은 지연(latency)에 대한 주장으로는 틀립니다: 의존하는 FFMA는 앞 결과를 여러 사이클 기다립니다(그래서 3.6절의 ILP가 필요). 이 노트북은 그 사이클 수를 재지 않으므로 숫자를 적지 않습니다.

### 4.8 우리의 최선 Level 3: `regblock_vec`

`regblock_vec.py` 는 같은 타일 크기(128 × 128 × 8, 스레드당 8 × 8)로, 4.7절의 병목(공유 메모리 읽기)을 줄이는 네 가지 변경을 합니다.

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
assert vl["inner_loops"] == 0 and vl["ktile"]["FFMA"] == rb.BK * rb.TM * rb.TN and vl["sel"]["regblock_vec"] == 0
""")
md(r"""
`regblock_vec` 에는 k 루프가 없습니다(K 타일 루프 하나에 FFMA 512 = 8 × 64). 의존 사슬이 8 인 것은 k 8단계가 같은 `rC` 64개에 차례로 누적하기 때문이고, 사슬의 고리 사이마다 서로 독립인 FFMA 64개가 있습니다. 이제 한 k 단계에서 워프는 `LDS.128` 4번(`rA` 2번, `rB` 2번)만 냅니다. 128비트 요청이 웨이브프론트 몇 개인지는 문서화된 규칙이 없어서(노트북 06), 뱅크 모델의 두 가정(`phases`: 8 스레드씩 4단계로 나눠 처리, `words`: 요청한 워드 수로 계산)으로 위아래를 잡습니다.
""")
code(r"""
vw = L7.vec_wavefronts()
print(vw)
wf_per_ffma.update(vw["per_ffma"])
assert max(vw["per_ffma"].values()) <= 0.25
print("PASS: 두 가정 모두 FFMA당 0.25 이하 — 공유 메모리가 더 이상 FFMA를 묶지 않음")
# 예상 출력: 규칙 'phases': … → FFMA당 0.250 이하 / 규칙 'words': … / PASS: …
""")
md(r"""
### 4.9 실행하고 검증하기

세 커널을 128 과 8 의 배수가 **아닌** 모양을 포함해 numpy와 비교합니다. C를 NaN으로 채우고 `beta = 0` 으로(그러면 C를 읽지 않아야 함), 그리고 `alpha, beta ≠ (1, 0)` 으로. 검사 함수 `L7.close` 는 결과에 NaN이 하나라도 있으면 실패합니다 — NaN 은 어떤 비교와도 같지 않지만, 최댓값 오차만 보는 검사 등은 NaN 을 놓칠 수 있으므로 먼저 그것부터 확인합니다.
""")
code(r"""
import numpy as np
bad = np.ones((4, 4), np.float32)
bad[2, 3] = np.nan
assert not L7.close(bad, np.ones((4, 4)), 4) and L7.close(np.ones((4, 4), np.float32), np.ones((4, 4)), 4)
shapes = [(1, 1, 1), (130, 70, 21), (64, 200, 8), (128, 128, 16)]
for name, ok in L7.verify(cmp_names, shapes).items():
    assert all(ok.values()), (name, ok)
    print(f"{name:13s} PASS ({len(ok)}가지) — {kn.get(name).description}")
# 예상 출력: regblock, regblock_opt, regblock_vec 모두 PASS (5가지)
""")
md(r"""
### 4.10 성능: cuBLAS와 나란히

성능은 같은 실행에서 cuBLAS SGEMM(CuPy, TF32 끔)과 나란히 재고 **비율**로 말합니다. GPU가 있으면 아래 셀이 지금 재고(약 1–2분), 없으면 기록된 값을 보여 줍니다. 노트북 06의 `tiled` 는 06의 기록(같은 H200, 같은 날의 다른 실행; 비율은 각 실행의 cuBLAS 대비)에서 가져옵니다.
""")
code(r"""
from course import measure
live = measure.benchmark(kernels=["tiled", *cmp_names]) if measure.have_gpu() else None
print("측정: 지금 이 GPU" if live else f"기록(recorded) — {rec['gpu']} {rec['date']} (tiled: 노트북 06 기록)")
bt = L7.bench_table(L7.bench_rows(rec, course.recorded(), cmp_names, live))
print(bt)
val, n_big = bt["val"], max(n for _, n in bt["val"])
print(f"{n_big}³: regblock / tiled = {val[('regblock', n_big)][0] / val[('tiled', n_big)][0]:.2f}배, "
      f"regblock_opt / regblock = {val[('regblock_opt', n_big)][0] / val[('regblock', n_big)][0]:.3f}, "
      f"regblock_vec / regblock = {val[('regblock_vec', n_big)][0] / val[('regblock', n_big)][0]:.2f}배")
""")
md(r"""
레지스터 블로킹은 흔히 "cuBLAS의 **50–70%**" 에 이른다고 소개됩니다. 측정은 이렇습니다(위 셀):

* 기본 구조 그대로의 `regblock` 은 큰 행렬에서 약 40%로 **그 범위 아래**입니다. 그래도 `tiled` 보다 두 배 넘게 빠릅니다 — 레지스터 블로킹의 효과는 진짜입니다.
* 패딩과 명시적 FMA를 넣은 "최적화 버전" `regblock_opt` 는 `regblock` 보다 **오히려 느립니다** (비율이 1보다 작음). 4.7절대로 명시적 FMA는 아무것도 바꾸지 않고, 패딩은 `rA` 충돌을 없애는 대신 `As` 저장 충돌을 만들며, 아래 셀이 보여 주듯 128비트 읽기도 막습니다.
* 우리의 `regblock_vec` 는 1024³ 에서는 범위 아래, 2048³·4096³ 에서는 **범위 위**입니다. "50–70%" 라는 한 구간은 어느 커널의 측정과도 맞지 않습니다.

**왜 그런지 — 공유 메모리 상한과 실제로 올라간 SASS.** 4.7절의 FFMA당 웨이브프론트로 공유 메모리 상한을 계산합니다. 주의할 점: H200에 실제로 올라간 `regblock` 은 GPU 드라이버가 다시 컴파일한 것이라, 오프라인 SASS와 공유 메모리 읽기 명령이 다릅니다(기록된 SASS). 먼저 그 차이를 보고, 그 경우도 같은 모델로 계산합니다.
""")
code(r"""
print(L7.lds_loaded_vs_offline(rec))
""")
code(r"""
wf_per_ffma.update(L7.loaded_regblock_wavefronts(wf["regblock"]))   # 올라간 regblock: rB 를 LDS.128 두 번으로
sb = L7.shared_bound_vs_measured(rec, wf_per_ffma, val)
print(sb)
assert sb["bound"]["regblock_opt"] < sb["peak"] and min(v for k, v in sb["bound"].items() if "vec" in k) >= sb["peak"] - 1e-9
""")
md(r"""
* `regblock_opt` 의 측정은 공유 메모리 상한의 아래에 있고, 3.6절의 stall 기록에서 멈춘 이유 중 공유 메모리 대기가 가장 큽니다: 이 커널은 공유 메모리 읽기에 묶여 있습니다.
* H200의 `regblock` 은 드라이버가 `rB` 를 128비트로 읽어 상한이 더 높지만, 측정은 그 상한보다 한참 아래입니다. 웨이브프론트 수만으로는 다 설명되지 않는다는 뜻이고(k 루프의 나머지 명령, 배리어, 글로벌 메모리 대기 등), 모델은 상한일 뿐 예측이 아닙니다.
* `regblock_vec` 는 두 가정 모두에서 공유 메모리 상한이 FP32 피크에 닿습니다. 남은 차이는 다른 곳(3.6절 stall: 글로벌 메모리 대기 `long_scoreboard`, 배리어)에 있고, 그것이 다음 노트북(더블 버퍼링)의 주제입니다.

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

(1) FMA당 공유 메모리 읽기가 tiled 의 2번에서 0.25번으로 줄었습니다(3.1절). (2) k 단계의 FFMA 64개가 서로 다른 누산기에 써서 서로 독립이므로(3.6절 SASS: 의존 사슬 1), 스케줄러당 4워프만으로도 FFMA를 연달아 낼 수 있습니다(ILP). 반면 tiled 는 100% 점유율이지만 스레드당 누산기가 하나라 ILP가 없습니다. 4.10절의 측정 비율이 결과입니다.
</details>

<details><summary>질문 5: 루프를 펼치지 않으면 왜 느려지는가? 우리 커널은 어떤가?</summary>

루프가 남으면 반복마다 카운터·비교·분기 명령이 발행 슬롯을 쓰고, 인덱스가 상수가 아니면 `rA`/`rB`/`rC` 를 레지스터에 둘 수 없습니다(로컬 메모리로 감). 우리 커널에서 `m`, `n` 루프는 완전히 펼쳐져 `rC` 가 레지스터에 있지만(로컬 0 B), `k` 루프는 남아 있어 반복마다 FFMA 64개 외의 명령이 있습니다(4.5절). 얼마나 느려지는지는 이 강좌에서 따로 측정하지 않았으므로 숫자로 말하지 않습니다.
</details>

## 6. 시뮬레이션 7: 외적 연산 추적기

### 6.1 축소 버전: TM = TN = 4, 한 단계씩

`rA = [a0..a3]`, `rB = [b0..b3]` 를 읽었다고 하고 외적 순서로 FMA를 진행합니다. 처음 여섯 FMA에서 무엇을 새로 읽는지, 그리고 끝난 뒤 `rC` 가 무엇인지 봅니다. 처음 네 FMA는 `rA[0]` 을 쓰면서 `rB` 를 하나씩 새로 읽고, 그다음부터는 `rA` 만 하나씩 새로 읽습니다.
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
assert (s4.loads, s4.fmas, i4["ai"]) == (8, 16, 1.0)
print("PASS")
# 예상 출력: FMA 1 … 새로 읽음 [('A', 0), ('B', 0)] … / 끝: … 읽기 8개 = 32 B, FMA 16번 = 32 FLOP → AI 1.00 / PASS
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
* 표 아래쪽의 비대칭 타일(TM ≠ TN)은 6.4절의 연습 문제에서 다룹니다.

### 6.3 산술 강도 그래프

정사각 타일은 AI = T/4 직선 위에 있고, 비대칭 타일은 같은 FMA 수(TM·TN)의 정사각 타일 위치(√(TM·TN))에 찍힙니다. 정사각 직선보다 아래에 있는 것이 보입니다.
""")
code(r"""
L7.show(L7.ai_figure())
""")
md(r"""
### 6.4 비대칭 타일: TM = 4, TN = 16

같은 FMA 64번을 8 × 8 대신 4 × 16 으로 나누면 무엇이 달라질까요? 직접 해보기 3 에서 손으로 계산한 뒤 모델과 비교합니다. 생각할 거리:

* 읽기는 TM + TN: 8 + 8 = 16 대 4 + 16 = 20 입니다. FMA 수가 같으니 AI 는 읽기에 반비례합니다.
* 누산기 `rC` 는 둘 다 64개, 그러나 `rA + rB` 는 16 대 20 입니다.
* 산술-기하 평균 부등식 `TM + TN ≥ 2·√(TM·TN)` 에서 등호는 TM = TN 일 때뿐입니다. 그래서 TM·TN 이 정해지면 **정사각 타일의 AI 가 가장 큽니다.**

레지스터를 "데이터 + 인덱스 약 24개" 로 어림해 4 × 16 을 약 108개, 8 × 8 을 약 90개라고 하는 설명도 흔합니다. 데이터 레지스터는 위 표가 정확히 세고(80 대 84), 전체 레지스터는 3.4절처럼 컴파일해야 압니다(8 × 8 은 실제로 120개 이상).

## 직접 해보기

**직접 해보기 1 — 협력적 로딩 지도.** BK = 16 으로 바꾸면 `As` 는 128 × 16 입니다. 256 스레드가 이 타일을 채우는 `{(tid, 패스): (행, 열)}` 지도를 만들어, 모든 원소를 **정확히 한 번씩** 채우는지 확인하세요. 패스 간격(stride)과 스레드당 로드 횟수는 얼마인가요? (풀이: `answers/ex07_coop_load.py`)
""")
code(r"""
def my_load_map(threads, rows, cols):
    # TODO: cols 개의 연속 스레드가 한 행을 맡고, 패스마다 threads // cols 행씩 내려가도록 채우세요
    return {}

m16 = my_load_map(rb.THREADS, rb.BM, 16)
ok = L7.covers_once(m16, rb.BM, 16) if m16 else False
print("정답입니다!" if ok else "아직입니다. 힌트: 4.4절의 L7.load_map 에서 stride 를 threads // cols 로 계산해 보세요.")
""")
md(r"""
**직접 해보기 2 — 레지스터가 허락하는 블록 수.** 3.5절의 세 규칙(워프당 256개 단위 할당, 서브파티션 4개, 블록 단위)으로 "레지스터 `regs` 개, 블록 `threads` 스레드일 때 레지스터만으로 SM에 올라가는 블록 수"를 계산하는 함수를 쓰고, 레지스터 1–255개 전부에서 모델(`occ.occupancy(...).limits["registers"]`)과 비교하세요. (풀이: `answers/ex07_occupancy.py`)
""")
code(r"""
def my_register_limited_blocks(regs, threads):
    # TODO: 1) 워프당 레지스터 = ceil(regs·32 / 256)·256   2) 서브파티션(16,384개)당 워프 수 × 4   3) // 블록당 워프 수
    return 0

mine = [my_register_limited_blocks(r_, 256) for r_ in range(1, 256)]
model = [occ.occupancy("H100", r_, 256).limits["registers"] for r_ in range(1, 256)]
wrong = sum(a != b for a, b in zip(mine, model))
print("정답입니다!" if wrong == 0 else f"아직입니다: 레지스터 수 255가지 중 {wrong}가지에서 모델과 다릅니다.")
""")
md(r"""
**직접 해보기 3 — 비대칭 타일 (6.4절).** TM = 4, TN = 16 일 때 k 단계 하나의 (1) 공유 메모리 읽기 수, (2) 바이트, (3) FMA 수, (4) 산술 강도(FLOP/B), (5) 데이터 레지스터 수(`rC + rA + rB`)를 손으로 계산해 넣으세요. 셀이 `sim.outer.intensity(4, 16)` 과 비교하고, 8 × 8 과의 차이를 보여 줍니다. (풀이: `answers/ex07_asym.py`)
""")
code(r"""
my_asym = {"loads": 0, "bytes": 0, "fmas": 0, "ai": 0.0, "data_regs": 0}     # TODO: TM = 4, TN = 16

want = {k: outer.intensity(4, 16)[k] for k in my_asym}
wrong = [k for k in my_asym if abs(my_asym[k] - want[k]) > 1e-9]
print("정답입니다!" if not wrong else f"아직입니다: {wrong} 가 다릅니다. 힌트: 읽기는 TM + TN, FMA 는 TM·TN, AI = 2·FMA / 바이트.")
i8 = outer.intensity(8, 8)
print(f"비교 8×8: 읽기 {i8['loads']}, AI {i8['ai']:.2f}, 데이터 레지스터 {i8['data_regs']}")
""")
md(r"""
## 7. 핵심 정리

* **레지스터 블로킹 = 스레드 조잡화(thread coarsening)**: 스레드 하나가 8 × 8 = 64 출력을 레지스터 `rC` 에 듭니다. 블록 256 스레드 × 64 = 128 × 128 블록 타일.
* **산술 강도는 수준을 밝혀서**: 공유 메모리 → 레지스터 `TM·TN / (2·(TM+TN))`: tiled 0.25 → regblock 2.0 (기록으로 확인). 블록 단위 글로벌 → 공유는 `BM·BN / (2·(BM+BN))`: 4 → 32. 리지 포인트(A100 약 10, H200 약 14, H100 약 20 FLOP/B)과 비교하면 `tiled` 는 메모리 쪽, `regblock` 은 연산 쪽입니다.
* **외적**: k 단계마다 16번 읽고 64번 FMA, 값 하나를 레지스터에서 8번 재사용. TM·TN 이 같으면 정사각 타일의 AI 가 가장 큽니다(4 × 16: 1.6 < 8 × 8: 2.0).
* **레지스터는 컴파일러에서 읽는다**: 흔한 어림 ~90–104 보다 실제(3.4절의 ptxas·GPU 값)가 많습니다. TM = TN = 16 은 컴파일되지만 레지스터 상한 안에서 할당되고 나머지는 로컬 메모리로 스필(`STL`/`LDL`).
* **점유율은 규칙으로**: 256 스레드 블록에서 81–128 레지스터는 모두 25%. 나눗셈 어림의 34.4% / 29.7% 는 할당 단위·서브파티션·블록 양자화를 빠뜨린 값. 공유 메모리는 블록마다 선언한 바이트 + 시스템 예약 1 KB (A100, H100, H200 모두). 낮은 점유율은 독립 FFMA 64개의 ILP가 메웁니다.
* **결과 저장**: `alpha·rC + beta·C`, 경계 검사, `beta == 0` 이면 C 를 읽지 않음. 스레드당 8열씩 떨어진 4 B 저장은 32 B 섹터의 12.5% 만 씁니다.
* **패딩과 FMA**: +1 패딩은 `rA` 읽기의 2-way 충돌을 없애지만 `rB` 읽기의 4-way 충돌은 그대로이고 `As` 저장에 2-way 충돌을 만듭니다. 명시적 FMA는 PTX를 바꾸지 않습니다(이미 `fma.rn.f32`).
* **성능 (H200 기록, 4.10절)**: 기본 구조의 `regblock` 은 큰 행렬에서 cuBLAS의 약 40%(`tiled` 의 두 배 넘게), "최적화 버전" `regblock_opt` 는 그보다 느리고, 공유 메모리 읽기를 LDS.128 로 줄인 `regblock_vec` 는 약 74–77% 입니다. 흔히 말하는 "50–70%"는 어느 커널의 측정과도 맞지 않습니다.

## 8. 마스터리 체크포인트 퀴즈

8문항 중 6문항 이상이면 통과입니다. 제출하면 점수와 해설이 나오고, 시도 기록이 로컬 진도 파일에 저장됩니다. 4번은 여러분의 답을 `regblock.py` 커널에 끼워 넣어 **실제로 실행**해서 채점합니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("07")
""")
md(r"""
## 9. 다음 단계 미리보기

지금 커널의 K 타일 루프는 **로드 → 배리어 → 연산 → 배리어** 가 차례로 일어납니다. 글로벌 메모리에서 다음 타일을 가져오는 동안 FFMA가 놀고, FFMA를 하는 동안 메모리 요청이 없습니다. 다음 노트북(08, Level 4: 더블 버퍼링)은 공유 메모리 버퍼 두 개를 번갈아 쓰며 **다음 타일의 로드를 현재 타일의 연산과 겹치고**, 그 대가(공유 메모리 2배, 레지스터)와 이득을 파이프라인 모델과 실제 측정으로 비교합니다. 겹침이 정말 일어나는지는 소스가 아니라 SASS의 명령 순서가 정한다는 것도 보게 됩니다.
""")



def text():
    """The committed file's exact text."""
    return NB.text()


if __name__ == "__main__":
    NB.write()
    print("written", OUT, len(cells), "cells")
