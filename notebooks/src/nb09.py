"""Generate notebooks/09_cp_async_triple_buffering.ipynb (no outputs, fixed cell ids): python notebooks/src/nb09.py [--out PATH]."""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _nbgen import Notebook  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "09_cp_async_triple_buffering.ipynb"
NB = Notebook("nb09", OUT)
cells, md, code = NB.cells, NB.md, NB.code


md(r"""
# 09. Level 5 — 비동기 복사(cp.async)와 트리플 버퍼링 (Triple Buffering)

> **최종 마스터리 체크포인트**: 끝의 퀴즈 10문항 중 **8문항 이상** 맞히면 통과입니다.

| | |
|---|---|
| **배울 내용** | Ampere 의 비동기 복사 `cp.async` (SASS `LDGSTS`), PTX 명령 세 가지(`cp.async`, `cp.async.commit_group`, `cp.async.wait_group N`), 스레드별 그룹 상태 기계, 버퍼 3개를 고리(ring)로 돌리는 트리플 버퍼링, 파이프라인의 꼬리(tail)를 바르게 닫는 법, 16바이트 복사와 정렬된 공유 메모리 배치, SASS 확인, cuBLAS 대비 측정 |
| **실행 환경** | GPU 없이 실행됩니다 (Numba CUDA 시뮬레이터가 자동 선택됨). 시뮬레이터에는 cp.async 가 없으므로 이 과정의 PTX 계층이 **하드웨어와 같은 의미**의 파이썬 대체 함수를 씁니다: 복사는 그것을 보장하는 `wait_group` 에서야 공유 메모리에 도착합니다. SASS 는 GPU 없이 sm_80·sm_90 용으로 컴파일해 읽습니다. cp.async 는 **compute capability 8.0 이상**(Ampere, Hopper)에서만 돌고, 7.5 GPU 에서는 레벨 4 의 `db_overlap` 이 대신합니다. |
| **선수 노트북** | 07(레지스터 블로킹: 8×8 외적 마이크로커널), 08(더블 버퍼링: 프롤로그, 버퍼 교대, 반복당 배리어). 용어는 [`GLOSSARY.md`](GLOSSARY.md) 참고. |

이 노트북의 모든 수치는 노트북 안에서 **계산하거나 측정한 값**입니다: `ptxas` 의 판정, 상태 기계 모델, 뱅크 모델, GPU 없이 컴파일한 SASS, 시뮬레이터 실행, 그리고 H200 에서 **기록한 측정(recorded)** 입니다. 흔히 하는 설명이 측정과 다르면 그 자리에서 그렇다고 말합니다.
""")
code(r"""
import course
info = course.setup("09")          # 장치 선택(GPU 또는 시뮬레이터)과 배너
import numpy as np
import kernels_numba as kn
from course import lesson09 as L
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
4. SASS 에서 `LDGSTS`, `LDGDEPBAR`, `DEPBAR` 를 **찾는다**.
5. NUM_STAGES 를 바꾼 측정으로 트레이드오프를 **평가**한다.

## 2. 사전 복습

답을 먼저 떠올린 뒤 펼쳐 보세요.

1. 더블 버퍼링에서 프롤로그(prologue)는 무엇을 하나요?
2. 8×8 레지스터 블로킹 커널은 레지스터를 대략 몇 개 쓰고, 그것이 점유율에 어떤 한계를 주나요?
3. 롱 스코어보드(Long Scoreboard) 스톨은 무엇을 기다리는 상태인가요?

<details><summary>정답</summary>

1. 메인 루프에 들어가기 전에 첫 타일을 공유 메모리에 채워, 첫 반복부터 계산과 다음 로드를 겹칠 수 있게 합니다.
2. 노트북 07·08 에서 컴파일해 본 것처럼 120~128 개입니다. 256 스레드 블록이면 SM 의 65,536 개 레지스터로 블록 2개가 한계입니다 (129 개가 되면 1개).
3. 전역 메모리 로드(LDG)의 결과 레지스터를 읽으려는 명령이 로드가 끝나기를 기다리는 상태입니다.
</details>

## 3. cp.async: 전역 메모리에서 공유 메모리로 곧장

**구체적 비유.** 지금까지는 택배(전역 메모리의 데이터)가 반드시 사무실 책상(레지스터)에 올려졌다가 직원이 창고(공유 메모리)로 옮겼습니다. cp.async 는 택배 기사가 창고에 직접 넣는 것입니다. 직원은 "넣어 달라"고 주문만 하고 다른 일을 합니다. 대신 창고에 물건이 **언제** 들어왔는지는 따로 물어봐야 합니다 — 그것이 `wait_group` 입니다.

**표상 (데이터 흐름).**

```
이전 (노트북 08):  전역 --LDG--> 레지스터 --STS--> 공유      (명령 2개, 레지스터가 도착을 기다림)
cp.async:          전역 -------LDGSTS-------> 공유             (명령 1개, 레지스터 없음, 도착은 나중에)
```

**추상.** cp.async (Ampere, sm_80) 는 스레드가 *발행*하는 복사 명령입니다. 발행 직후 스레드는 다음 명령으로 넘어가고, 데이터는 나중에 공유 메모리에 씁니다. PTX 는 복사가 언제 도착하는지 아무것도 약속하지 않고, 대신 **그룹** 단위의 대기만 제공합니다.

### 3.1 세 가지 PTX 명령 — 우리 `.ptx` 파일

이 과정의 PTX 는 명령마다 `kernels_numba/infra/ptx/` 의 `.ptx` 파일 하나에 있고, 커널은 같은 이름의 함수로 그것을 부릅니다 (GPU 에서는 명령 텍스트가 커널 안에 그대로 들어가고, 시뮬레이터에서는 같은 의미의 파이썬 함수). 아래 셀은 파일 하나를 보여 줍니다.
""")
code(r"""
print(open(ptx.FUNCS["cp_async_cg_16"].path).read())
print("cp.async 계열 파일:", sorted(n for n in ptx.FUNCS if n.startswith("cp_async")))
""")
md(r"""
* `cp.async.cg.shared.global [dst], [src], 16;` — 16 바이트를 전역(`src`, 64비트 주소)에서 공유(`dst`, 32비트 공유 메모리 주소)로 복사합니다. `.cg` 는 L2 에만 캐시(L1 우회), `.ca` 는 L1 에도 캐시합니다.
* `cp.async.commit_group;` — 지금까지 이 스레드가 발행하고 아직 묶지 않은 복사 전부를 **그룹 하나**로 묶습니다. 복사가 하나도 없으면 **빈 그룹**이 생깁니다 (이것이 4절에서 중요합니다).
* `cp.async.wait_group N;` — 이 스레드의 대기 중 그룹이 **N 개 이하**가 될 때까지, 가장 오래된 그룹부터 완료를 기다립니다. N 은 즉시값(immediate)만 됩니다: 그래서 N 마다 파일이 하나씩 있고(`cp_async_wait_group_0` … `_3`), 커널은 컴파일 시간 상수로 고릅니다.
* `cp.async.wait_all;` — `commit_group` 다음 `wait_group 0` 과 같습니다.
* 경계용 **src-size 형태** `cp.async... [dst], [src], 16, src_size;` 는 `src_size` 바이트만 읽고 나머지를 0 으로 채웁니다 (zero-fill).

### 3.2 흔한 실수: `.cg` 에 4 바이트

흔히 4 바이트 복사도 `cp.async.cg.shared.global [dst], [src], 4;` 로 씁니다. `ptxas` 에게 직접 물어봅시다.
""")
code(r"""
for (ins, arch), (ok, msg) in L.ptxas_verdicts().items():
    print(f"{arch}  {ins:45s} -> {'통과' if ok else '거부'}")
    if not ok:
        print("      ptxas:", msg.splitlines()[0])
""")
md(r"""
`ptxas` 는 sm_80 과 sm_90 모두에서 `.cg` 에 4 를 거부합니다 ("expected to be 16"). `.cg` 는 16 바이트 전용이고, 4·8 바이트 복사는 `.ca` 로 써야 합니다. 그래서 우리 4 바이트 파일은 `cp_async_ca_4.ptx` 입니다. 아래는 각 파일이 어떤 SASS 명령 하나가 되는지 `ptxas` 와 `cuobjdump` 로 확인한 것입니다.
""")
code(r"""
for name, (ins, sass) in L.ptx_file_sass().items():
    print(f"{name:28s} {ins:48s} -> {sass}")
""")
md(r"""
`.ca` 4 바이트는 `LDGSTS.E`, `.cg` 16 바이트는 `LDGSTS.E.BYPASS.128` (BYPASS = L1 우회), `commit_group` 은 `LDGDEPBAR`, `wait_group 2` 는 `DEPBAR.LE SB0, 0x2` 입니다. LDGSTS 는 이름 그대로 "Load Global, Store Shared" 한 명령입니다.

## 4. 그룹 상태 기계 — 하드웨어가 약속하는 것만

PTX 의 약속을 그대로 모델로 옮긴 것이 `sim/cp_async.py` 의 `AsyncCopyUnit` 입니다. 복사는 발행 때 원본을 읽고, **그것을 보장하는 wait 에서야** 도착합니다 (하드웨어가 허락하는 가장 늦은 시점). 시뮬레이터의 대체 함수가 바로 이 모델을 씁니다.
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

시뮬레이터는 공유 메모리를 NaN 으로 채워 두고, 스레드 하나를 다음 배리어까지 혼자 실행합니다 (하드웨어에서도 합법적인 순서). 그래서 아래의 버그는 **매번** 틀린 답을 냅니다. 버그 데모는 `kernels_numba/demos/async_*.py` 의 실제 모듈로, 각각 올바른 커널 `async_copy` 에서 한 곳만 다릅니다: commit 없음, wait 없음, 너무 적게 기다림(`wait_group(NUM_STAGES)`), wait 뒤 배리어 없음, 대기 중인 버퍼에 또 복사(같은 바이트에 대한 두 대기 중 복사는 도착 순서가 정해지지 않으므로 모델은 그 값을 정의되지 않음 = NaN 으로 만듭니다).
""")
code(r"""
if SIM:                                 # GPU 에서는 버그가 운 좋게 맞을 수 있어 시뮬레이터에서만 보여 줍니다
    for r in L.demo_results():
        print(f"{r['name']:28s} NaN {r['nan']:3d}/{r['size']}  {'맞음' if r['ok'] else '틀림'}")
    print("PASS" if [r["ok"] for r in L.demo_results(("async_copy",))] == [True] else "FAIL")
# 예상 출력: 버그 데모 다섯 개는 NaN 256/256 틀림, async_copy 는 NaN 0/256 맞음, 마지막 줄 PASS
""")
md(r"""
### 4.2 트리플 버퍼링: 버퍼 3개를 고리로

NUM_STAGES = 3 이면 공유 메모리에 타일 버퍼가 3 세트 있고, 반복 `kt` 는 버퍼 `kt % 3` 으로 계산하면서 타일 `kt + 2` 를 버퍼 `(kt + 2) % 3` 으로 미리 읽습니다. 동시에 날아가는 로드가 2 개(더블 버퍼링은 1 개)라서 지연시간이 계산 시간의 두 배까지라도 숨길 수 있습니다. 대가는 공유 메모리입니다. 패딩된 배치 `As[S][128][9]`, `Bs[S][8][129]` 의 크기를 계산해 봅시다.
""")
code(r"""
for S in (2, 3, 4):
    print(f"NUM_STAGES={S}: 패딩 배치 {L.smem_bytes(S):6,} B | 정렬 배치(패딩 없음) {L.smem_bytes(S, pad=0):6,} B")
""")
md(r"""
NUM_STAGES = 3 의 패딩 배치는 26,208 B, 더블 버퍼링은 17,472 B 입니다. 세 변형 모두 정적 한도 48 KB 보다 훨씬 작아서, 공유 메모리가 SM 당 블록 수를 제한하지 않습니다 (제한은 레지스터: 5절).

### 4.3 파이프라인 구조와 반복 추적

흔히 쓰는 루프는 이렇습니다: 프롤로그에서 타일 `0 .. S-2` 를 발행하고 각각 commit, 메인 루프에서 `if kt+S-1 < 타일 수: 발행 + commit`, 그다음 `wait_group(S-1)`, 배리어, 계산, 배리어. 아래는 상태 기계로 그 루프를 S = 3, 타일 8 개에 대해 돌린 것입니다 (`pipeline_trace`, 버퍼 상태 Idle/Loading/Ready/Computing, 대기 중 그룹).
""")
code(r"""
tr = cp_async.pipeline_trace(3, 8, tail="seed")
for s in tr.steps:
    if "계산" in s.action or s.phase == "prologue":
        bufs = " ".join(f"{st[0]}{'' if t is None else t}" for st, t in s.buffers)
        print(f"{s.phase:8s} kt={s.kt:2d}  {s.action:28s} 버퍼[{bufs}]  대기 {s.pending}", "<- 보장 없음!" if s.error else "")
""")
md(r"""
kt = 0 … 5 에서는 흔한 설명 그대로입니다: 새 그룹을 하나 commit 하면 대기 중 그룹이 3 개가 되고, `wait_group(2)` 가 가장 오래된 그룹 — 바로 버퍼 `kt % 3` 의 타일 — 을 끝냅니다.

**그러나 마지막 두 반복은 다릅니다.** 흔히 "미리 읽을 타일이 없으면 wait_group(2) 가 즉시 통과하거나 남은 것을 기다린다"고 설명하지만, kt = 6 에서 대기 중 그룹은 {G6, G7} 두 개뿐이라 `wait_group(2)` 는 **아무것도 기다리지 않고** 통과하고, 타일 6 은 도착이 보장되지 않은 채 계산됩니다. kt = 7 도 마찬가지입니다. 아래 표는 타일 수마다 처음으로 보장 없이 읽히는 타일입니다 (흔한 루프 / 우리 루프).
""")
code(r"""
print("S  타일수  흔한 루프의 첫 무보장 타일  우리 루프")
for S, T, seed, ours in L.tail_table(stages=(2, 3, 4), tiles=(1, 2, 3, 4, 5, 8)):
    print(f"{S}  {T:5d}  {str(seed):>22s}  {str(ours):>9s}")
""")
md(r"""
타일 수와 상관없이 **마지막 S-1 개 타일**이 보장 없이 읽힙니다 (타일이 1 개면 그 하나). GPU 에서는 복사가 대개 제때 끝나서 맞는 답이 나올 때가 많지만, PTX 는 그것을 약속하지 않습니다. 시뮬레이터는 약속된 것만 하므로 이 루프(`demos/async_seed_tail.py`)는 틀린 답을 냅니다: 타일 5 개면 타일 3, 4 자리에 버퍼에 남아 있던 타일 0, 1 이 다시 더해집니다.

**고치는 법**: commit 을 로드 조건 밖으로 빼서 **매 반복 그룹을 하나씩** (타일이 없으면 빈 그룹) commit 합니다. 그러면 반복 kt 의 wait 직전에 항상 S + kt 개의 그룹이 commit 되어 있고, `wait_group(S-1)` 은 언제나 그룹 0 … kt, 즉 타일 kt 를 끝냅니다. 프롤로그도 타일이 모자라면 빈 그룹을 commit 합니다. CUTLASS 의 multistage 메인 루프가 같은 방법(매 반복 `cp_async_fence()` = commit)을 씁니다. 다른 방법은 꼬리에서 `wait_group 0` 으로 바꾸는 것입니다 (위젯의 세 번째 선택).
""")
code(r"""
if SIM:
    bad = L.check("async_seed_tail", 16, 16, 40)
    good = L.check("async_copy", 16, 16, 40)
    print("흔한 루프:", "맞음" if bad["ok"] else f"틀림 (최대 오차 {bad['max_err']:.1f})", "| 우리 루프:", "맞음" if good["ok"] else "틀림")
    print("PASS" if good["ok"] and not bad["ok"] else "FAIL")
# 예상 출력: 흔한 루프: 틀림 (최대 오차 ...) | 우리 루프: 맞음, 그리고 PASS
""")
md(r"""
## 5. 레지스터 우회 — 측정하면

흔히 "cp.async 는 레지스터를 거치지 않으므로 레지스터 압력이 줄어 점유율이 오른다"고 설명합니다. 이 과정의 두 커널을 H200 에 올려 읽은 값(기록된 측정)으로 확인합니다: 레지스터를 거치는 더블 버퍼링 `db_overlap` 과 cp.async 의 `async_vec`.
""")
code(r"""
rec, ratios, cublas = L.recorded_ratios()
for name in ("db_overlap", "async_copy", "async_vec"):
    r = rec["loaded"][name]
    print(f"{name:11s} 레지스터 {r['registers']:3d}  공유 {r['shared_bytes']:6,} B  SM당 블록 {r['blocks_per_sm']}  루프 {r['main_loop']}")
print("측정:", rec["gpu"], rec["date"])
""")
md(r"""
`db_overlap` 127 개, `async_vec` 128 개, 둘 다 SM 당 2 블록입니다. 스테이징 레지스터 8 개가 빠지는 이득은 누산기 64 개와 프래그먼트가 지배하는 이 커널에서는 보이지 않습니다: `async_vec` 는 `launch_bounds=(256, 2)` 로 128 개 상한을 걸어야 했고, 상한 없이 컴파일하면 130~141 개(SM 당 1 블록)였습니다. 점유율이 오르는 것이 아니라, **로드 명령과 그 결과를 기다리는 스톨이 루프에서 사라지는 것**이 차이입니다: `db_overlap` 의 루프에는 `LDG` 16 + `STS` 8 개가, `async_vec` 에는 `LDGSTS` 와 `LDGDEPBAR`·`DEPBAR` 가 있습니다.

## 6. 벡터화: 16 바이트 복사와 정렬된 배치

4 바이트 복사(`async_copy`)는 스레드가 타일마다 8 번 복사를 발행합니다. 16 바이트(`cp.async.cg ... 16`)면 A 한 번, B 한 번입니다: A 타일 128×8 은 256 스레드가 `tid // 2` 행, `(tid % 2) * 4` 열의 float4 하나씩, B 타일 8×128 은 `tid // 32` 행, `(tid % 32) * 4` 열.

**정렬 규칙**: 16 바이트 복사는 원본과 목적지가 모두 16 바이트 정렬이어야 합니다. 이전 레벨의 패딩 배치 `As[..][BK+1]` 은 행 간격이 36 B, `Bs[..][BN+1]` 은 516 B 라서 행 시작이 16 의 배수가 아닙니다. 타일당 256 번 복사 중 몇 번이 어긋나는지 세어 봅시다.
""")
code(r"""
print("패딩 배치 (BK+1, BN+1):", L.misaligned_copies(pad_k=1, pad_n=1))
print("정렬 배치 (패딩 없음)  :", L.misaligned_copies(pad_k=0, pad_n=0))
print(L.misaligned_copy_error()[:160], "...")
""")
md(r"""
패딩 배치에서는 A, B 모두 256 번 중 192 번이 어긋납니다 (4 행 중 3 행). GPU 에서는 "misaligned address" 오류로 커널이 멈추고, 시뮬레이터의 대체 함수도 주소와 배열 배치를 밝히며 멈춥니다. 그래서 `async_vec` 는 **패딩 없는** `As[S][128][8]`, `Bs[S][8][128]` 을 `alignment=16` 으로 선언합니다.

패딩은 뱅크 충돌을 피하려고 있었습니다. 없애면 무엇을 잃고 얻는지 뱅크 모델(`sim/banks.py`)로 마이크로커널의 공유 메모리 읽기를 세어 봅니다 (한 K 타일, 워프당 요청 수와 웨이브프론트 수).
""")
code(r"""
for layout, r in L.compute_read_wavefronts().items():
    print(f"{layout:8s} A: 요청 {r['A_requests']:2d}, 웨이브프론트 {r['A_wavefronts']:3d} | B: 요청 {r['B_requests']:2d}, 웨이브프론트 {r['B_wavefronts']:3d}")
""")
md(r"""
패딩 배치(`async_copy`, 스칼라 읽기)는 타일당 요청 128 개, 웨이브프론트 320 개입니다. 특히 B 는 한 워프의 16 스레드가 8 열씩 떨어진 열을 읽어 4-way 충돌이 납니다 (요청 64, 웨이브프론트 256). 정렬 배치(`async_vec`)는 A 를 k 방향으로 2 개씩(8 B), B 를 4 개씩 두 번(16 B, `tx*4` 와 `64 + tx*4`) 읽어 요청 48 개, 웨이브프론트 128 개입니다. A 읽기의 2 웨이브프론트는 한 워프의 두 스레드 행(8 행 차이 = 256 B)이 같은 뱅크에 떨어지는 2-way 충돌입니다. 패딩을 없앤 대가는 이것뿐이고, 명령 수가 줄어 얻는 것이 더 큽니다.

**경계**: 행렬 밖 원소는 읽지 않고 0 으로 채워야 합니다. `async_vec` 는 (1) 블록 전체가 행렬 안이고 행이 정렬되어 있으면 검사 없는 16 B 복사, (2) 벡터 4 개가 전부 밖이면 src-size 0 의 16 B 복사(읽지 않고 0 16 바이트), (3) 일부만 안이거나 행 시작이 어긋나면(K 또는 N 이 4 의 배수가 아님) 4 바이트 복사 4 번(각각 src-size 4 또는 0)을 씁니다. src-size 4~12 의 16 B 복사도 PTX 로는 합법이지만, H200 에서 compute-sanitizer memcheck 가 그것을 배열 끝을 넘는 16 바이트 읽기로 보고해서(기록된 실행) 경계에서는 쓰지 않습니다.

## 7. 우리 커널 전체 읽기: `kernels_numba/async_vec.py`

NUM_STAGES 는 모듈 상수이고 `make_kernel(NUM_STAGES)` 가 커널을 만듭니다 (`async_vec_s2`, `async_vec_s4` 는 같은 소스를 2 단, 4 단으로 만든 모듈). 아래 셀이 커널 소스를 줄 번호와 함께 보여 줍니다.
""")
code(r"""
course.show_source(kn.get("async_vec").module.make_kernel)
""")
md(r"""
읽는 순서:

* **공유 메모리**: `As = cuda.shared.array((NUM_STAGES, BM, BK), float32, alignment=16)` — `[단][m][k]`, 행 32 B. `Bs` 는 `[단][k][n]`, 행 512 B. 모든 16 B 복사의 목적지가 정렬됩니다.
* **프롤로그**: 타일 `0 .. S-2` 의 복사를 발행하고 **매번 commit** (타일이 모자라면 빈 그룹).
* **루프, 1단계 — wait**: 반복 kt 직전까지 `S-1+kt` 개 그룹이 commit 되었으므로 `wait_group(S-2)` 가 그룹 0 … kt, 곧 내 몫의 타일 kt 를 끝냅니다.
* **2단계 — 배리어 하나**: (1) 모든 스레드의 타일 kt 복사가 도착했고, (2) 모든 스레드가 타일 kt-1 계산을 마쳤습니다. (2) 덕분에 바로 다음에 버퍼 `(kt-1) % S` 를 다시 채울 수 있습니다. 흔한 루프(`async_copy`)는 미리 읽기를 wait 앞에 두어서 계산 뒤에 배리어가 하나 더 필요합니다 — 우리 순서는 타일당 배리어가 하나입니다.
* **3단계 — 미리 읽기**: 타일 kt+S-1 을 버퍼 `nxt_stage` 로. 고리 인덱스는 `%` 대신 1 씩 더하고 S 에서 0 으로 돌립니다 (`%` 는 나눗셈 서브루틴이 됩니다).
* **4단계 — commit (빈 그룹이라도)**, **5단계 — 계산**: `_outer_products` 4 번 = k 8 개, 외적 8×8.
* **에필로그**: beta = 0 이면 C 를 읽지 않습니다 (C 는 출력 전용, NaN 이어도 됨).

### 7.1 실행하고 확인하기

K 타일 1 … 5 개와 타일 배수가 아닌 모양(K = 13 은 A 의 행이 16 B 정렬이 아니어서 4 바이트 경로)을 numpy 와 비교합니다.
""")
code(r"""
shapes = [(12, 16, 8), (12, 16, 40), (33, 40, 13)]
results = [L.check("async_vec", *s) for s in shapes]
for r in results:
    print(r["shape"], "NaN", r["nan"], f"최대 오차 {r['max_err']:.1e}", "맞음" if r["ok"] else "틀림")
print("PASS" if all(r["ok"] for r in results) else "FAIL")
# 예상 출력: 세 모양 모두 NaN 0, 최대 오차 1e-06 정도, 맞음, 그리고 PASS
""")
md(r"""
테스트(`tests/test_level5.py`)는 레벨 5 의 여섯 커널을 K 타일 1~5 개, M·N·K 가 타일 배수가 아닌 모양, alpha/beta 로 모두 확인합니다. H200 에서도 같은 확인(C 를 NaN 으로 채우고 float64 기준)과 compute-sanitizer 의 memcheck·racecheck·synccheck 를 통과했습니다 (`benchmarks/sanitize_level5.sh`, 기록: `course/recorded/sanitize_level5_*.log`; 9.1 절의 `async_bk16` 과 9.2 절의 `async_wide` 는 나중에 추가되어 따로 잰 기록 `course/recorded/sanitize_level5_bk16_*.log`, `sanitize_level5_wide_*.log`).

## 8. SASS 확인

GPU 없이 sm_80 용으로 컴파일해 메인 루프(배리어가 있고 FFMA 가 가장 많은 루프)의 명령을 셉니다.
""")
code(r"""
s = L.sass_main_loop("async_vec", (8, 0))
print(s["cc"], "레지스터", s["registers"], "| 루프:", s["main_loop"])
print("LDGSTS 형태:", s["ldgsts_forms"])
print("루프 안의 CALL:", s["calls"])
ok = all(s["main_loop"].get(op, 0) >= 1 for op in ("LDGSTS", "LDGDEPBAR", "DEPBAR"))
print("PASS" if ok and s["main_loop"]["FFMA"] == 512 else "FAIL")
# 예상 출력: 레지스터 128, 루프에 LDGSTS·LDGDEPBAR 1·DEPBAR 1·BAR 1·FFMA 512, LDGSTS.E.BYPASS.128 포함, PASS
""")
md(r"""
`LDGSTS.E.BYPASS.128` (우리 16 B 복사), `LDGDEPBAR` (commit), `DEPBAR.LE` (wait), 배리어 1 개, FFMA 512 개(= 256 스레드가 아니라 한 스레드의 8×8×8). `LDG` + `STS` 쌍은 루프에 없습니다. 함수 호출도 없습니다: sm_80 에서 보이는 `CALL.REL.NOINC` 하나는 루프 끝의 분기 바로 다음 주소로 뛰는 것으로, `ptxas` 가 루프를 빠져나갈 때 쓰는 형태이지 PTX 함수 호출이 아닙니다 (테스트가 그 위치를 확인합니다). 모든 cp.async 명령은 `.ptx` 파일의 텍스트가 인라인 어셈블리로 커널 안에 들어갑니다.

### 8.1 공유 메모리 48 KB 의 벽

BK = 16 으로 키우면 공유 메모리가 두 배입니다. 정적으로 선언한 64 KB 를 `ptxas` 는 받지 않습니다.
""")
code(r"""
for S in (3, 4):
    n = L.smem_bytes(S, BK=16, pad=0)
    ok, msg = L.ptxas_static_shared(n)
    print(f"BK=16, NUM_STAGES={S}: {n:,} B ->", "통과" if ok else msg)
""")
md(r"""
48 KB(0xc000)를 넘는 정적 공유 메모리는 오류입니다. 넘기려면 동적 공유 메모리로 선언하고, 실행 전에 드라이버 API 로 커널의 "최대 동적 공유 메모리" 속성을 올려야 합니다 (numba-cuda 에는 그 API 가 없습니다). BK = 8 변형은 16~32 KiB 이고, 9.1 절의 `async_bk16` 과 9.2 절의 `async_wide` (BK = 16, 3 단)는 정확히 48 KiB = 0xc000 으로 정적 선언의 최대입니다. 4 단은 동적 공유 메모리가 있어야 해서 재지 않았습니다. `async_wide` 에서는 2 단과 3 단이 같은 속도였지만(9.2 절), `async_bk16` 에서는 3 단이 2 단보다 빨랐으므로(9.1 절) BK = 16 의 4 단이 도움이 될지는 이 과정에서 확인하지 않았습니다.

## 9. GPU 측정: 변형과 NUM_STAGES

아래 그래프는 H200 에서 한 번의 실행으로 잰 값입니다 (`benchmarks/record_level5.py`: cuBLAS SGEMM 은 CuPy, TF32 꺼짐, 같은 실행; 모든 커널은 측정 전에 C 를 NaN 으로 채워 정확도를 확인).
""")
code(r"""
fig = L.plot_sweep()
for name, row in ratios.items():
    print(f"{name:13s}", "  ".join(f"{n}³ {v:5.1f}%" for n, v in sorted(row.items())))
print("cuBLAS TFLOP/s:", {n: round(v, 1) for n, v in sorted(cublas.items())})
""")
md(r"""
아래 셀은 같은 기록에서 4096³ 의 값만 골라 비교합니다. 이 절의 글에는 숫자를 옮겨 적지 않았습니다: 수치는 모두 셀의 출력입니다.
""")
code(r"""
best, pct, at = L.best_at(4096)
print(f"4096³ 최고 레벨 5 커널: {best} {pct:.1f}%   같은 실행의 db_overlap {at['db_overlap']:.1f}%")
print("4 바이트 복사 async_copy:", f"{at['async_copy']:.1f}%")
print("BK=8, NUM_STAGES 2/3/4:", " / ".join(f"{at[k]:.1f}%" for k in ("async_vec_s2", "async_vec", "async_vec_s4")))
print("BK=16, NUM_STAGES 3 (async_bk16):", f"{at['async_bk16']:.1f}%")
print("목표 85%:", "도달" if pct >= 85 else f"미도달 ({85 - pct:.1f}%p 모자람)")
""")
md(r"""
* 4 바이트 복사(`async_copy`)가 가장 느립니다. 패딩 배치의 스칼라 읽기와 복사 명령 8 개, 타일당 배리어 2 개 때문입니다 (5 절 셀이 출력한 `async_copy` 의 루프: `LDGSTS` 8, `BAR` 2).
* 16 바이트 + 정렬 배치 + 배리어 하나(`async_vec`)는 2048³·4096³ 에서 같은 실행의 `db_overlap` 과 1%p 안에서 비슷합니다 (1024³ 에서는 9%p 가까이 느립니다).
* 2048³·4096³ 에서는 NUM_STAGES 를 2 → 3 → 4 로 바꿔도 한 단계마다 2%p 이내로만 달라집니다 (1024³ 는 블록이 64 개뿐이라 값이 크게 흔들립니다). 세 변형 모두 레지스터 128 개, SM 당 2 블록이라(`rec["loaded"]` 에서 확인할 수 있습니다) 점유율은 같습니다. 단을 늘려도 크게 나아지지 않는 이유는 9.3 절의 스톨 측정이 보여 줍니다.
* 큰 차이는 **K 타일의 깊이**(BK, 9.1 절의 `async_bk16`)와 **스레드당 타일의 크기**(9.2 절의 `async_wide`)에서 나왔습니다. 다만 BK = 16 에서는 3 단이 2 단보다 3%p 넘게 빨랐습니다 (9.1 절 표): BK 를 키운 이득은 3 단과 함께일 때 나왔습니다.

### 9.1 BK = 16: `async_bk16`

`kernels_numba/async_bk16.py` 는 `async_vec` 의 커널에서 BK 만 8 → 16 으로 바꿉니다. 스레드는 타일마다 A 와 B 에서 16 B 복사를 두 번씩(벡터 `tid` 와 `tid + 256`) 발행하고, 배리어 사이에 외적(outer product)을 8 번이 아니라 16 번 계산합니다. 그래서 FFMA 하나당 `wait_group`·배리어·루프 분기·고리 인덱스 계산이 절반입니다. 공유 메모리는 3 × (128×16 + 16×128) × 4 B = 48 KiB 로 정적 선언의 최대이고, 레지스터와 SM 당 블록 수는 그대로인지 H200 에 올린 값으로 확인합니다.
""")
code(r"""
for name in ("async_vec", "async_bk16"):
    r = rec["loaded"][name]
    loop = {k: r["main_loop"].get(k, 0) for k in ("FFMA", "LDS", "LDGSTS", "BAR", "DEPBAR")}
    print(f"{name:10s} 레지스터 {r['registers']}  공유 {r['shared_bytes']:,} B  SM당 블록 {r['blocks_per_sm']}  루프 {loop}")
print("\n".join(rec["explore_bk16"]["table"]))
""")
md(r"""
두 커널 모두 레지스터 128 개, SM 당 2 블록입니다. 루프 한 바퀴에 FFMA 가 두 배인데 배리어와 `DEPBAR` 는 한 개 그대로입니다 (`LDGSTS` 개수에는 경계 경로의 복사가 함께 세어집니다).

아래 표는 같은 장치 세션에서 기록 직전에 잰 탐색(`benchmarks/explore_bk16.py`)입니다. 2048³ 와 4096³ 에서 BK = 16 의 2 단(`s2`)은 3 단보다 3%p 넘게 느렸고, `launch_bounds=(256, 1)` 로 레지스터 상한을 풀면 4096³ 에서 2%p 느렸고 2048³ 에서는 같았습니다 (이 변형의 레지스터 수는 기록하지 않았습니다. 5 절에서 본 대로 상한 없이 128 개를 넘으면 SM 당 1 블록입니다). 1024³ 는 블록 64 개뿐이라 H200 의 SM 132 개를 다 채우지 못해 순위가 다릅니다. 48 KiB 로 3 단을 채우고 128 레지스터로 SM 당 2 블록을 지킨 것이 이 실행의 최선입니다.

### 9.2 스레드당 8×16: `async_wide`

`async_bk16` 의 스레드는 k 하나마다 공유 메모리 값 16 개(A 8, B 8)를 읽어 FFMA 64 개를 합니다. `kernels_numba/async_wide.py` 는 같은 128×128×16 블록 타일을 스레드 **128 개**가 나눠, 스레드마다 8×16 = 128 개의 누산기를 둡니다. 그러면 k 하나에 값 24 개(A 8, B 16)로 FFMA 128 개를 하므로, 공유 메모리 로드 명령(LDS) 하나가 먹이는 FFMA 가 늘어납니다. 대가는 레지스터입니다: 누산기만 128 개라 `launch_bounds=(128, 2)` 로 스레드당 최대 255 개를 허용하고, SM 에는 2 블록 × 4 워프 = 8 워프(스케줄러당 2 워프)만 남습니다. 아래는 H200 에 올린 두 커널의 값입니다.
""")
code(r"""
for name in ("async_bk16", "async_wide"):
    r = rec["loaded"][name]
    loop = {k: r["main_loop"].get(k, 0) for k in ("FFMA", "LDS", "BAR")}
    print(f"{name:10s} 스레드 {r['threads']}  레지스터 {r['registers']}  공유 {r['shared_bytes']:,} B  "
          f"SM당 블록 {r['blocks_per_sm']}  루프 {loop}  FFMA/LDS {loop['FFMA'] / loop['LDS']:.1f}")
""")
md(r"""
(경계 경로는 cp.async 만 쓰므로 루프의 LDS 는 모두 마이크로커널의 읽기입니다. 루프 한 바퀴가 펼쳐져 있어 정적 개수의 비율이 실행 비율과 같습니다.)

워프가 줄면 한 워프 안에서 지연을 숨겨야 합니다. `async_wide` 는 두 가지를 더 합니다.

* **레지스터 이중 버퍼**(register double buffering, 프리페치의 한 형태): k 의 FFMA 128 개를 시작하기 **전에** k+1 이 쓸 B 값(매 k)과 A 값(LDS.64 하나가 k 두 개를 담으므로 홀수 k 에서만)을 다른 레지스터 버퍼로 읽어 둡니다 (`_k_step`). 타일의 첫 k 는 배리어 뒤에 읽습니다. 왜 필요한지는 아래 셀이 보여 줍니다.
* **A 행의 스위즐(swizzle)**: A 타일의 행은 BK × 4 = 64 B 라서 행 r 과 r+2 가 같은 뱅크에서 시작합니다. 워프는 이웃한 4 행을 읽으므로, 비트 1 이 켜진 행은 32 B 반쪽 둘을 맞바꿔(`k ^ 8`) 저장하고 읽습니다. 32 B 반쪽을 통째로 맞바꾸므로(16 B 의 배수만큼 이동) 16 B cp.async 의 시작 주소는 여전히 16 B 정렬입니다.

아래 셀은 레지스터 이중 버퍼를 끈 변형(`prefetch=False`)을 Nsight Compute 의 소스 보기(SASS 명령마다 스톨 표본)로 잰 기록입니다. LDS 가 방금 채운 레지스터를 처음 읽는 FFMA 가 전체 FFMA 중 몇 % 이고, 스톨 표본 중 몇 % 를 차지하는지 셉니다. 숏 스코어보드(short scoreboard) 스톨은 공유 메모리 로드 같은 가변 지연 명령의 결과를 기다린 사이클이고, 디스패치 스톨(dispatch stall)은 발행할 준비가 된 명령을 디스패처가 붙잡아 둔 사이클입니다.
""")
code(r"""
fu = L.first_use_stalls()
print(f"처음 읽는 FFMA: FFMA 의 {fu['ffma']:.0f}%")
print(f"그 FFMA 에 걸린 스톨: short scoreboard 의 {fu['short_scoreboard']:.0f}%, dispatch 의 {fu['dispatch']:.0f}%")
print(f"dispatch 스톨이 가장 큰 FFMA 10 개 중 처음 읽는 것: {fu['top10_first_use']}")
""")
md(r"""
로드를 기다리는 스톨(short scoreboard)은 거의 전부, 막 읽은 값을 처음 쓰는 FFMA 에 있습니다. dispatch 스톨도 그 FFMA 들에 몫보다 많이 몰려 있고, dispatch 가 가장 큰 FFMA 대부분이 그것입니다. 그래서 로드를 FFMA 128 개 앞으로 당겼습니다.

아래 셀은 뱅크 모델(`sim.banks`)로 A 읽기의 웨이브프론트(wavefront)를 셉니다. 8 B 접근을 반 워프씩 처리한다는 규칙("phases")과 워프 전체를 한 번에 본다는 규칙("words")은 문서로 정해지지 않아 둘 다 보입니다.
""")
code(r"""
for sw in (False, True):
    w = L.wide_a_wavefronts(swizzle=sw)
    print(f"swizzle {str(sw):5s}: 요청 {w['requests']}  웨이브프론트 phases {w['phases']}  words {w['words']}")
""")
md(r"""
"phases" 규칙이면 스위즐은 아무것도 바꾸지 않고, "words" 규칙이면 A 읽기의 웨이브프론트를 절반으로 줄입니다. 어느 쪽인지 시간으로 확인해 봅니다. 아래 표는 같은 장치 세션에서 한 단계씩 끈 변형을 잰 값입니다 (`benchmarks/explore_wide.py`, cuBLAS 는 앞뒤로 두 번 재어 빠른 쪽).
""")
code(r"""
table, regs = L.explore_wide()
for name, row in table.items():
    cells = "  ".join(f"{n}³ {v:5.1f}%" for n, v in sorted(row.items()))
    print(f"{name:30s} {cells}   레지스터 {regs[name]}")
""")
md(r"""
* 스레드당 타일을 키우기만 한 변형(`no prefetch, no swizzle`)은 `async_bk16` 보다 조금 빠를 뿐입니다. LDS 가 줄어든 이득을, 워프가 절반이라 드러난 로드 지연이 거의 까먹었다고 해석합니다 (위의 소스 보기 기록과 맞는 해석).
* 스위즐의 이득은 레지스터 이중 버퍼가 없는 변형에서 두 크기 모두 1%p 남짓 이하로, 실행 간 흔들림과 구별하기 어렵습니다. 그래서 시간만으로는 "phases" 와 "words" 중 어느 규칙인지 가를 수 없었습니다 (직접 세려면 Nsight Compute 의 공유 메모리 웨이브프론트 지표가 필요합니다: `benchmarks/ncu_banks.py`). 가장 큰 이득은 레지스터 이중 버퍼에서 나왔습니다.
* NUM_STAGES 2 와 3 의 차이는 흔들림 안입니다. 등록된 `async_wide` 는 3 단입니다.
* 9 절 그래프의 1024³ 에서는 `async_wide` 가 `async_bk16` 보다 느립니다: 128×128 타일이 (1024/128)² = 64 개뿐이라 H200 의 SM 132 개를 다 채우지 못하고, 블록마다 워프가 절반(4 개)이라 일하는 워프가 더 적습니다. 큰 행렬에 맞춘 선택입니다.
* 위의 9 절 그래프와 최고 커널 출력은 탐색 뒤의 기록 실행이라 수치가 조금 다릅니다: 같은 커널의 비율이 실행마다 2%p 가까이 움직였고, 그중 일부는 cuBLAS 자체의 흔들림입니다 (두 실행의 cuBLAS TFLOP/s 가 위 두 셀에 나옵니다). 그래서 85% 를 넘은 폭은 이 흔들림과 비슷한 크기라는 점을 함께 기억하세요.

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

흔히 "cp.async + 트리플 버퍼링이면 cuBLAS 의 85~95%"라고 하지만, 트리플 버퍼링만으로는 그렇게 되지 않았습니다: BK = 8 의 세 변형은 2048³·4096³ 에서 단의 수와 관계없이 `db_overlap` 근처였고, 85% 를 넘긴 것은 스레드당 타일과 레지스터 버퍼까지 바꾼 `async_wide` 뿐입니다. 흔히 드는 이유 중 "cuBLAS 는 FP32 에서도 TF32 텐서 코어를 쓴다"는 이 측정에는 해당하지 않습니다: TF32 를 끈 cuBLAS 와 비교했습니다. 무엇이 막는지는 Nsight Compute 의 워프 상태(WarpStateStats)로 잽니다: 발행된 명령 하나당 워프가 각 이유로 기다린 사이클입니다 (4096³, 같은 장치 세션).
""")
code(r"""
for name, top in L.recorded_stalls().items():
    lsb = rec["ncu_stalls"]["kernels"][name]["cycles_per_issue"]["long_scoreboard"]
    print(f"{name:10s}", ", ".join(f"{reason} {v:.2f}" for reason, v in top), f"| long_scoreboard {lsb:.2f}")
""")
md(r"""
전역 메모리를 기다리는 `long_scoreboard` 는 세 커널 모두 명령당 0.1 사이클 미만으로 작습니다: cp.async 파이프라인이 로드 지연을 다 숨겼고, 단을 늘려도 얻을 것이 없다는 9 절의 결과와 맞습니다. `async_vec` 과 `async_bk16` 에서 가장 큰 항목 `not_selected` 는 "발행할 수 있었지만 스케줄러가 다른 워프를 골랐다"는 뜻으로, 스케줄러가 거의 매 사이클 무언가를 발행하고 있다는 신호입니다 (08 노트북의 추정대로 스케줄러당 워프 수 ÷ 명령당 사이클 합으로 어림할 수 있습니다). 곧 두 커널은 **명령 발행이 한계**라고 해석합니다: FFMA 가 아닌 명령(LDS, 주소 계산, 루프)이 발행 슬롯을 나눠 쓰고, `dispatch_stall`(발행할 준비가 된 명령을 디스패처가 붙잡아 둔 사이클)이 그 다음입니다.

`async_wide` 에서는 스케줄러당 워프가 2 개뿐이라 `not_selected` 가 작아졌고(고를 워프가 적음), 명령당 `dispatch_stall` 사이클도 줄었습니다. 발행하는 명령 중 FFMA 의 몫이 커져서 같은 발행 속도로 더 많이 계산한다고 해석합니다 (해석). 남은 차이는 이 과정이 고를 수 없는 곳에 있다고 해석합니다: 레지스터 배정과 명령 순서는 `ptxas` 가 정하고, cuBLAS 의 SGEMM 커널은 그 단계까지 조율되어 있습니다 (해석).

## 10. 왜 이렇게 동작하는가 — 네 가지 질문

<details><summary>질문 1. commit_group 을 부르지 않으면?</summary>

복사들이 어떤 그룹에도 속하지 않아 `wait_group` 이 그것을 기다리지 않습니다. 대기 중 그룹이 0 개이니 wait 는 바로 통과하고, 타일은 도착 보장 없이 읽힙니다. 4.1 의 `async_no_commit` 이 매번 NaN 을 냅니다. (`wait_all` 은 commit 을 포함하므로 예외입니다.)
</details>

<details><summary>질문 2. wait_group(NUM_STAGES-1) 이 현재 타일을 보장하는 이유는?</summary>

반복 kt 의 wait 직전까지 **매 반복 하나씩** commit 했다면 그룹은 S+kt 개이고, 대기 중 S-1 개 이하라는 것은 그룹 0 … kt 가 끝났다는 뜻입니다. 이 셈은 "매 반복 commit"에 기대므로, 로드할 때만 commit 하는 루프는 꼬리에서 틀립니다 (4.3). 그리고 이것은 **내** 복사만의 보장이라 배리어가 뒤따라야 합니다.
</details>

<details><summary>질문 3. 트리플 버퍼링이 더블 버퍼링보다 지연을 더 잘 숨기는 이유는?</summary>

동시에 날아가는 타일 로드가 S-1 개라서, 로드 지연이 계산 시간의 S-1 배까지 숨겨집니다. 9 절의 측정(BK = 8, 2048³·4096³)에서는 단을 늘린 효과가 단계마다 2%p 이내로 작았고 (BK = 16 에서는 2 → 3 단이 3%p 남짓), 9.3 절의 스톨 측정에서 전역 메모리를 기다리는 스톨은 명령당 0.1 사이클 미만이었습니다. SM 당 워프가 16 개(블록 2 × 8 워프)라 한 워프가 기다리는 동안 다른 워프가 계산할 수 있다는 것이 한 가지 설명입니다 (해석).
</details>

<details><summary>질문 4. LDGSTS 가 LDG + STS 보다 나은 하드웨어 이유는?</summary>

명령 하나(발행 대역폭), 결과 레지스터가 없으니 그것을 기다리는 롱 스코어보드 의존성도 없음, 데이터가 레지스터 파일을 거치지 않음 (주소 레지스터는 읽습니다). 레지스터 **개수**가 줄어 점유율이 오른다는 것은 5 절에서 본 대로 이 커널에서는 측정되지 않았습니다.
</details>

## 11. 시뮬레이션 9: 파이프라인 상태 기계

NUM_STAGES 와 K 타일 수를 바꾸고 "단계" 슬라이더로 프롤로그 → 메인 루프 → 꼬리를 한 걸음씩 따라가 보세요. 버퍼 색: 회색 Idle, 노랑 Loading, 초록 Ready, 파랑 Computing, **빨강**: 완료가 보장되지 않은 버퍼를 계산이 읽음. "꼬리 처리"를 바꿔 흔한 루프와 우리 루프를 비교하세요.
""")
code(r"""
from course.widgets.cp_async import cp_async_stepper
stepper = cp_async_stepper(num_stages=3, num_tiles=8, tail="seed")
print(len(stepper.trace.errors), "개의 보장 없는 읽기 (흔한 루프, S=3, 타일 8)")
stepper
""")
md(r"""
## 12. 직접 해보기

1. **꼬리 손으로 추적하기.** NUM_STAGES = 4, K 타일 6 개에서 흔한 루프(로드할 때만 commit)가 보장 없이 계산하는 타일을 손으로 찾으세요. 그다음 `unguarded_tiles(stages, tiles)` 를 직접 써서 위젯과 비교하세요. 풀이: `answers/ex09_tail.py`.
2. **공유 메모리 예산.** `As[S][BM][BK+pad]`, `Bs[S][BK][BN+pad]` 의 바이트 수와 "정적 48 KB 안에 드는가"를 돌려 주는 함수를 쓰고, BK = 8·16, S = 2…4, 패딩 0·1 의 표를 만드세요. BK = 16 에서 정적으로 선언할 수 있는 최대 S 는? 풀이: `answers/ex09_smem.py`.
""")
code(r"""
# 1번의 출발점: 위젯과 같은 모델로 확인해 보세요
print([s.kt for s in cp_async.pipeline_trace(4, 6, tail="seed").errors])
""")
md(r"""
## 13. 핵심 정리

* **cp.async** (sm_80+, SASS `LDGSTS`) 는 전역 → 공유 복사를 레지스터 없이 발행합니다. 복사는 나중에 도착하고, PTX 는 **그룹 단위의 대기**만 약속합니다.
* 명령 세 가지: `cp.async.{ca,cg}.shared.global` (`.cg` 는 16 B 만: `ptxas` 확인), `cp.async.commit_group` (빈 그룹도 셈), `cp.async.wait_group N` (즉시값, **내** 그룹만).
* 파이프라인의 올바른 셈: **매 반복 commit** (타일이 없으면 빈 그룹) + `wait_group` + 배리어. 로드할 때만 commit 하면 마지막 S-1 타일이 보장 없이 읽힙니다.
* 16 B 복사는 정렬이 필요합니다: 패딩 배치는 4 행 중 3 행이 어긋납니다. 정렬 배치의 대가는 A 읽기의 2-way 충돌뿐이었습니다.
* 측정(H200, TF32 끈 cuBLAS 대비, 9 절의 출력): NUM_STAGES 의 효과는 BK = 8 과 `async_wide` 에서는 작았고, BK = 16(`async_bk16`)에서는 2 단 → 3 단이 3%p 남짓이었습니다. 목표 85% 는 2048³·4096³ 에서 스레드당 8×16 타일에 레지스터 이중 버퍼와 A 행 스위즐을 더한 `async_wide` 만 넘었습니다 (넘은 폭은 실행 간 흔들림과 비슷한 크기이고, 1024³ 에서는 블록이 모자라 훨씬 낮습니다). 스톨 측정으로 보면 한계는 메모리 지연이 아니라 명령 발행입니다.

## 14. 최종 체크포인트 퀴즈

10 문항 중 **8 문항 이상**이면 통과입니다. 답은 브라우저를 닫아도 저장됩니다.
""")
code(r"""
from course.quiz import show_quiz
quiz = show_quiz("09")
""")
md(r"""
## 15. 다음 단계

FP32 FMA 로는 여기까지입니다: cuBLAS SGEMM 도 FP32 연산 유닛의 최대치 근처에 있습니다. 노트북 10 에서는 Tensor Core 의 `mma.sync.m16n8k16` 과 `ldmatrix` 를 같은 PTX 계층(`.ptx` 파일 + 인라인)으로 부르고, 이 노트북의 cp.async 파이프라인을 그대로 가져가 공유 메모리를 채웁니다.
""")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    print(NB.write(args.out))


if __name__ == "__main__":
    main()
