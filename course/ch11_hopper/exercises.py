"""Notebook 11 exercises: the wgmma accumulator layout, a B matrix descriptor, the mbarrier phases of the stage ring,
and the consumer's loop of the warp-specialised kernel. The truths are sim/wgmma.py, sim/tma.py and sim/ws_ring.py
(the same models the simulator's stand-ins use; the layout is checked against the GPU by
benchmarks/record_wgmma_layout.py).

How they judge, by behaviour only: 11-1 and 11-3 compare every value over the whole domain the exercise allows (every
thread and register; every stage count 1..8 over many rounds); 11-2 compares the descriptor for BK = 16 .. 256,
tiles across the whole shared memory and every k16 step, and shows what the wgmma would read with it; 11-4 runs the
student's step in the producer/consumer model (sim/ws_ring.py) over several ring shapes in both orders, with every
call noted at the student's line. Calls into the course's models are found by watching the run (probe.recording),
never by reading the source; the line a diagnosis blames is found by watching which line produced the wrong value
(probe.value_site) or made the call that broke the ring."""
import os
import random

import numpy as np

from kernels_numba.infra import hopper
from sim import tma, wgmma, ws_ring
from sim.korean import josa

from course.exercises import probe
from course.exercises.core import VARIANT, exercise, fail, passed, technique

WG = 128
N = 64                                    # 11-1: m64n64k16, 32 registers per thread
REGS = N // 2


def _int(v):
    """v as a Python int when it is an integer (not a bool), else None."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    return None


def _model_used(ex_id, call, why):
    """A failure when the student's function called one of the course's models (found by watching the run)."""
    site = probe.line_text(call.site)
    # the name in parentheses, with no particle after it: an English identifier is read as words, not letter by letter
    return fail(ex_id, "uses_model", f"강좌의 모델 함수를 불러 답을 얻고 있습니다 (`{call.name}`, "
                f"{os.path.relpath(call.file, probe.ROOT)}): 그 함수가 바로 확인 셀이 비교하는 정답이라, 이렇게 하면 "
                f"아무것도 확인하지 못합니다. {why}", f"  부른 곳: {site}" if site else "", where=site)


def _watched_values(student, keys, models, counts=lambda call: True):
    """({key: student(*key)}, the calls into the course's models that count): the student's function for every key,
    watched for calls into `models`; it stops at the first call that counts (a search that asks the model thousands
    of times per value would take a minute to reach a verdict that is known after its first call)."""
    raw = {}
    with probe.recording(model_files=models) as rec:
        for k in keys:
            raw[k] = student(*k)
            if any(counts(c) for c in rec.model_calls):
                break
    return raw, [c for c in rec.model_calls if counts(c)]


def _line(site):
    """The detail line naming the student's line a diagnosis blames ('' when unknown)."""
    return f"  이 값을 만든 줄: {site}" if site else ""


def _spread(items, n=8):
    """Up to n items of the list, the first one first, the others drawn from all of it (a fixed draw)."""
    items = list(items)
    return items[:1] + random.Random(len(items)).sample(items[1:], min(n - 1, len(items) - 1)) if items else []


# ------------------------------------------------------------------------------------ 11-1: accumulator layout

TRUTH = {(t, i): rc for t in range(WG) for i, rc in enumerate(wgmma.accumulator_elements(t, N))}
LAYOUT_MODELS = (probe.model_file(wgmma), probe.model_file(hopper))


def _layout(t, i, lane=None, groups=None, half=True, block=4):
    """The accumulator layout with one knob turned (the shape of a typical mistake)."""
    w, l = t // 32, (t % 32 if lane is None else lane(t))
    g, q = (l >> 2, l & 3) if groups is None else groups(l)
    return 16 * w + g + (8 * ((i >> 1) & 1) if half else 0), 8 * (i // block) + 2 * q + (i & 1)


GROUPS = (
    (lambda l: (l & 3, l >> 2), "묶음 번호와 묶음 안의 번호를 바꿔 썼습니다 (묶음 번호를 레인 % 4 로, 묶음 안의 번호를 레인 // 4 로)"),
    (lambda l: (l & 7, l >> 3), "레인을 8개씩 묶었습니다"),
    (lambda l: (l >> 3, l & 7), "레인을 8개씩 묶었습니다"),
    (lambda l: (l >> 1, l & 1), "레인을 2개씩 묶었습니다"),
)


def _pair(v):
    try:
        r, c = v
    except (TypeError, ValueError):
        return None
    r, c = _int(r), _int(c)
    return None if r is None or c is None else (r, c)


def _coverage_picture(count):
    """Element by element, the 16 rows of the first warp whose rows hold a mistake: how many registers hold each."""
    w = next(w for w in range(4) if (count[16 * w:16 * w + 16] != 1).any())
    rows = [f"  행 {16 * w}–{16 * w + 15} (워프 {w})의 원소마다 그것을 가진 레지스터 수 (· 하나로 맞음, 0 아무도 없음, "
            "2 이상 겹침):"]
    for r in range(16 * w, 16 * w + 16):
        rows.append("  " + "".join("·" if k == 1 else str(min(k, 9)) for k in count[r]))
    return "\n".join(rows)


@exercise("11-1", "wgmma 누산기: 스레드 t 의 레지스터 i 는 타일의 어느 원소인가", "2절",
          hints=("핵심은 두 가지입니다: 워프그룹의 네 워프가 타일의 64행을 어떻게 나눠 맡는지, 그리고 한 워프 안에서 노트북 "
                 "10 의 mma.sync C 조각이 열 방향으로 어떻게 되풀이되는지. 스레드 번호는 워프 번호와 레인으로, 레지스터 번호는 "
                 "되풀이 번호와 그 안의 자리로 나누어 생각하세요.",
                 "스레드 37 은 몇 번째 워프의 몇 번째 레인인가요? 그 스레드의 레지스터 0 과 레지스터 4 는 같은 행에 있나요, "
                 "몇 열 떨어져 있나요?"),
          questions={
              "transposed": "여러분의 답에서 워프 번호와 레인 묶음 번호는 행과 열 중 어느 쪽을 정하나요? 2절의 설명과 "
                            "비교해 보세요.",
              "warp_rows": "이 줄에서 워프 번호는 행에 어떻게 들어가나요? 워프 하나가 맡는 행은 몇 개인가요?",
              "row_offset": "레지스터 네 개 가운데 뒤의 두 개는 앞의 두 개와 같은 행에 있나요? 이 줄은 그 차이를 어디서 "
                            "더하나요?",
              "register_order": "레지스터 번호가 하나 늘 때 먼저 바뀌는 것은 열인가요, 행인가요? 이 줄의 계산은 어느 쪽을 "
                                "먼저 바꾸나요?",
              "lane_groups": "레인 몇 개가 한 묶음인가요? 이 줄은 묶음 번호와 묶음 안의 번호를 레인에서 어떻게 나누었나요?",
              "thread_not_lane": "이 줄에서 묶음 번호를 구할 때 쓴 것은 워프 안의 레인인가요, 워프그룹 전체의 스레드 "
                                 "번호인가요?",
              "column_blocks": "8열 블록은 레지스터 몇 개마다 다음 블록으로 넘어가나요? 이 줄에서는 몇 개마다 넘어가나요?",
              "out_of_range": "이 줄의 값이 63 을 넘는 스레드나 레지스터는 어느 것인가요? 각 항이 가질 수 있는 가장 큰 값을 "
                              "더해 보세요.",
              "rows": "열은 모두 맞습니다. 이 줄이 계산하는 행에는 워프, 레인 묶음, 레지스터가 각각 얼마씩 더해지나요?",
              "columns": "행은 모두 맞습니다. 이 줄이 계산하는 열에서 되풀이 번호, 묶음 안의 번호, 레지스터의 짝홀은 각각 "
                         "몇 열씩 움직이나요?",
              "coverage": "그림에서 두 레지스터가 같은 원소를 갖는 칸은 어디인가요? 그 두 스레드(또는 레지스터)는 무엇이 "
                          "다른가요?",
              "wrong_elements": "모든 원소를 한 번씩 덮지만 짝이 틀렸습니다. 틀린 예의 스레드들은 어떤 공통점이 있나요 (같은 "
                                "워프, 같은 레인 묶음)?",
              "uses_model": "이 함수가 부르는 것은 무엇인가요? 스레드 번호와 레지스터 번호만으로 계산할 수 있나요?",
              "input": "함수가 스레드와 레지스터 하나마다 (행, 열) 정수 두 개를 돌려주나요?",
          },
          solution="answers/ch11/ex11_layout.py::acc_element", name="acc_element",
          template='''
def acc_element(t, i):
    """wgmma.mma_async.m64n64k16 (f32): 워프그룹의 스레드 t(0..127)가 가진 누산기 레지스터 i(0..31)에 담긴
    64×64 타일 D 의 (행, 열)."""
    # TODO: 스레드 번호를 워프 번호와 레인으로 나누고, 행과 열을 계산하세요
    raise NotImplementedError("TODO: (행, 열)을 돌려주세요")
''')
def check_layout(student):
    ex_id = "11-1"
    raw, used = _watched_values(student, [(t, i) for t in range(WG) for i in range(REGS)], LAYOUT_MODELS)
    if used:
        return _model_used(ex_id, used[0], "스레드 번호와 레지스터 번호에서 직접 계산하세요.")
    got = {}
    for k, v in raw.items():
        rc = _pair(v)
        if rc is None:
            return fail(ex_id, "input", f"스레드 {k[0]} 레지스터 {k[1]}: (행, 열) 두 정수를 돌려주세요 "
                        f"(받은 값 {v!r:.60}).")
        got[k] = rc
    if got == TRUTH:
        return passed(ex_id, "128 스레드 × 32 레지스터가 모두 PTX ISA 의 누산기 레이아웃(sim/wgmma.py)과 같습니다.")
    bad = [k for k in TRUTH if got[k] != TRUTH[k]]
    threads = sorted({t for t, _ in bad})
    spots = (f"  틀린 곳: 레지스터 {len(bad)}/{len(TRUTH)}개, 스레드 {len(threads)}개 "
             f"({threads[:6]}{'…' if len(threads) > 6 else ''})")
    ex = [f"  스레드 {t} 레지스터 {i}: 맞는 값 {TRUTH[(t, i)]}, 받은 값 {got[(t, i)]}" for t, i in _spread(bad, 3)]

    def out(code, message, comp=None, *extra):
        calls = [k for k in bad if comp is None or got[k][comp] != TRUTH[k][comp]]
        # the wrong value, unless it is the other component's value too (then the return line mixed them up)
        pick = (lambda a, r: set()) if comp is None else (lambda a, r, c=comp: {_int(r[c])} - {_int(r[1 - c])})
        site = probe.value_site(student, _spread(calls), pick)
        return fail(ex_id, code, message, spots, *ex, *extra, _line(site), where=site)

    def same(f):
        return all(got[k] == f(*k) for k in TRUTH)

    rows_ok = all(got[k][0] == TRUTH[k][0] for k in TRUTH)
    cols_ok = all(got[k][1] == TRUTH[k][1] for k in TRUTH)
    if same(lambda t, i: TRUTH[(t, i)][::-1]):
        return out("transposed", "행과 열이 바뀌었습니다: 모든 원소가 (열, 행) 순서로 나옵니다. 워프 번호와 레인의 묶음 "
                   "번호(레인 // 4)가 행을, 묶음 안의 번호(레인 % 4)와 레지스터 번호가 열을 정합니다.")
    if same(lambda t, i: _layout(t, i, lane=lambda t: t)):
        return out("thread_not_lane", "묶음 번호를 워프 안의 레인이 아니라 스레드 번호 t 에서 구했습니다: t // 4 는 "
                   "8·w + 레인 // 4 라서 워프 w 의 행이 8·w 만큼 더 밀리고, 워프 3 은 타일 밖으로 나갑니다. 레인 = t % 32 "
                   "이고, 묶음 번호는 그 레인 // 4 입니다.", 0)
    if cols_ok:
        off = {(got[k][0] - TRUTH[k][0], k[0] // 32) for k in TRUTH}
        per = {d // w if w else None for d, w in off if (w == 0 and d == 0) or (w and d % w == 0)}
        if len(off) > 1 and all((w == 0 and d == 0) or (w and d % w == 0) for d, w in off) and len(per - {None}) == 1:
            step = 16 + next(iter(per - {None}))
            text = "모든 워프가 0–15행을 씁니다" if step == 0 else f"워프마다 {step}행씩 떨어져 있습니다"
            return out("warp_rows", f"{text}: 워프그룹의 워프 w (= t // 32) 는 16·w 행부터 16행을 맡습니다 (m64 = 워프 "
                       "4개 × 16행).", 0)
    if same(lambda t, i: _layout(t, i, half=False)):
        return out("row_offset", "레지스터 2, 3 (그리고 6, 7, …) 의 +8 행이 빠졌습니다: 레지스터 네 개의 묶음에서 앞의 두 "
                   "개는 행 g, 뒤의 두 개는 행 g + 8 입니다 (노트북 10 의 c0, c1 과 c2, c3 처럼).", 0)
    if all(sorted(got[(t, i)] for i in range(REGS)) == sorted(TRUTH[(t, i)] for i in range(REGS)) for t in range(WG)):
        comp = 0 if not rows_ok else 1
        return out("register_order", "스레드마다 원소는 맞는데 레지스터 순서가 틀렸습니다: i 의 짝홀(i % 2)은 이웃한 두 "
                   "열, 그다음 자리((i // 2) % 2)는 8행 아래, i // 4 는 다음 8열 블록입니다 (c0, c1 → 행 g; c2, c3 → "
                   "행 g + 8).", comp)
    for groups, text in GROUPS:
        if same(lambda t, i, gr=groups: _layout(t, i, groups=gr)):
            return out("lane_groups", f"레인에서 묶음을 나누는 계산이 틀렸습니다: {text}. 레인 4개가 한 묶음입니다: "
                       "레인 // 4 인 묶음 번호(groupID, 0–7)가 행을, 레인 % 4 인 묶음 안의 번호(0–3)가 열 쌍을 "
                       "고릅니다.", 0)
    for block in (2, 1):
        if same(lambda t, i, b=block: _layout(t, i, block=b)):
            return out("column_blocks", f"8열 블록이 레지스터 {block}개마다 바뀝니다: 한 블록은 레지스터 4개(두 행 × "
                       "이웃한 두 열)이므로, 다음 8열 블록은 레지스터 4개마다입니다 (i // 4).", 1)
    outside = [k for k in TRUTH if not (0 <= got[k][0] < 64 and 0 <= got[k][1] < N)]
    if outside:
        t, i = outside[0]
        comp = 0 if not 0 <= got[(t, i)][0] < 64 else 1
        what = "행" if comp == 0 else "열"
        return out("out_of_range", f"타일 밖의 (행, 열)이 있습니다: 스레드 {t} 레지스터 {i} 의 {josa(what, '이/가')} "
                   f"{got[(t, i)][comp]} 입니다. 행과 열은 모두 0..63 입니다 (밖으로 나간 레지스터 {len(outside)}개).",
                   comp)
    if cols_ok:
        return out("rows", "열은 모두 맞고 행이 틀렸습니다: 행은 16·워프 + 묶음 번호(레인 // 4) + 8·((i // 2) % 2) "
                   "입니다.", 0)
    if rows_ok:
        return out("columns", "행은 모두 맞고 열이 틀렸습니다: 열은 8·(i // 4) + 2·(레인 % 4) + i % 2 입니다. 8열 "
                   "블록은 레지스터 4개마다 바뀝니다.", 1)
    count = np.zeros((64, N), int)
    for r, c in got.values():
        count[r, c] += 1
    comp = 0 if got[bad[0]][0] != TRUTH[bad[0]][0] else 1
    if (count != 1).any():
        return out("coverage", f"64×64 타일의 원소 {int((count == 0).sum())}개는 아무 레지스터도 갖지 않고 "
                   f"{int((count > 1).sum())}개는 둘 이상이 갖습니다: 128 스레드 × 32 레지스터가 타일의 4,096개 원소를 "
                   "정확히 한 번씩 덮어야 합니다.", comp, _coverage_picture(count))
    return out("wrong_elements", "타일의 원소를 한 번씩 덮기는 하지만 스레드·레지스터와 원소의 짝이 틀렸습니다: 행은 "
               "16·워프 + 레인 // 4 + 8·((i // 2) % 2), 열은 8·(i // 4) + 2·(레인 % 4) + i % 2 입니다.", comp)


# ------------------------------------------------------------------------------------ 11-2: B descriptor

DESC_MODELS = (probe.model_file(wgmma), probe.model_file(hopper))
SMEM = 227 * 1024                 # shared memory a block of an H100 can have: every tile lies below it
DESC_BKS = (16, 32, 64, 128, 256)
BOXES = 4                         # the check reads 16 x 256 elements: four 64-column boxes (wgmma n up to 256)
FIELDS = {"start": 0, "lbo": 16, "sbo": 32}
RESERVED = ~((0x3FFF << 0) | (0x3FFF << 16) | (0x3FFF << 32) | (7 << 49) | (3 << 62)) & (2 ** 64 - 1)
MODE_TEXT = {0: "스위즐 없음", 1: "128바이트 스위즐", 2: "64바이트 스위즐", 3: "32바이트 스위즐"}


def _tma_b_positions(addr, BK, BN):
    m = tma.TensorMap(0, "float16", 4096, 4096, 8192, BK, 64, 128)
    return np.concatenate([tma.box_addresses(m, addr + j * BK * 128) for j in range(BN // 64)], axis=1)


def _desc_cases():
    """(addr, kk, BK): every BK, every k16 step, tiles from the bottom to the top of shared memory."""
    rng = np.random.default_rng(1102 + 7919 * VARIANT[0])
    out = []
    for BK in DESC_BKS:
        top = (SMEM - BOXES * BK * 128) // 1024
        for a in sorted({0, 5, 37, top, int(rng.integers(1, top))}):
            out += [(a * 1024, kk, BK) for kk in range(BK // 16)]
    return out


def _want_desc(addr, kk, BK):
    return wgmma.make_descriptor(addr + kk * 16 * 128, BK * 128, 1024, 128)


def _raw(d, field):
    return (d >> FIELDS[field]) & 0x3FFF


@exercise("11-2", "행렬 디스크립터: TMA 가 놓은 B 타일을 wgmma 가 읽게 하기", "3절",
          hints=("디스크립터는 세 주소 필드(시작 주소, LBO, SBO)와 스위즐 모드를 정해진 비트 자리에 나눠 담습니다. 주소 "
                 "필드는 바이트가 아니라 16바이트 단위이고, 스위즐 모드 번호는 크기 순서가 아닙니다. N-major 의 B 에서 LBO 와 "
                 "SBO 가 각각 무엇에서 무엇까지의 거리인지, k16 단계마다 시작 주소가 어디로 움직이는지 그림으로 확인하세요.",
                 "B 타일에서 다음 64열 상자는 몇 바이트 뒤에 있나요? 8행 묶음 하나는 몇 바이트인가요? 두 값 가운데 어느 것이 "
                 "LBO 이고 어느 것이 SBO 인가요?"),
          questions={
              "swizzle_mode": "비트 63–62 에 넣은 값은 몇인가요? 3절에서 128바이트 스위즐의 모드 번호는 몇인가요?",
              "not_shifted": "이 줄이 필드에 넣는 값의 단위는 바이트인가요, 16바이트인가요?",
              "mask_bytes": "이 줄은 0x3FFF 마스크를 바이트 수에 거나요, 16바이트 단위로 바꾼 값에 거나요? 16384 바이트보다 "
                            "큰 주소는 그 마스크 뒤에 얼마가 남나요?",
              "lbo_sbo_swapped": "이 줄에서 비트 16 자리와 비트 32 자리에 들어가는 것은 각각 무엇인가요? N-major 에서 다음 "
                                 "64열 상자까지의 거리는 어느 필드인가요?",
              "k_step": "kk 가 하나 늘면 B 타일에서 몇 행 아래로 내려가나요? 한 행은 몇 바이트인가요?",
              "start": "kk 가 0 일 때 이 줄이 주는 시작 주소는 addr 와 같나요?",
              "lbo": "다음 64열 상자는 BK 행짜리 상자 하나 뒤에 있습니다. 이 줄의 LBO 는 BK 가 바뀌면 함께 바뀌나요?",
              "sbo": "8행 묶음(스위즐 무늬 한 번) 하나는 몇 바이트인가요? 이 줄의 SBO 와 같나요?",
              "base_offset": "타일이 1024바이트 경계에서 시작할 때 base offset 은 얼마여야 하나요? 이 줄은 비트 51–49 에 "
                             "무엇을 넣나요?",
              "reserved_bits": "이 줄이 켜는 비트 가운데 시작 주소, LBO, SBO, base offset, 스위즐 모드 어느 필드에도 속하지 "
                               "않는 것이 있나요?",
              "uses_model": "이 함수가 부르는 것은 무엇인가요? 필드 값과 비트 자리만으로 디스크립터를 만들 수 있나요?",
              "input": "함수가 0 이상 2^64 미만의 파이썬 정수 하나를 돌려주나요?",
          },
          solution="answers/ch11/ex11_descriptor.py::b_descriptor", name="b_descriptor",
          template='''
def b_descriptor(addr, kk, BK):
    """공유 주소 addr(1024의 배수)에 TMA 가 128바이트 스위즐로 놓은 B 타일(BK 행 × 64열 상자들이 차례로; BK 는 16의
    배수)에서 k16 단계 kk 를 wgmma 가 N-major 로 읽을 64비트 행렬 디스크립터 (파이썬 int)."""
    # TODO: 시작 주소, LBO, SBO, 스위즐 모드를 디스크립터의 비트 필드에 넣으세요
    raise NotImplementedError("TODO: 디스크립터를 만드세요")
''')
def check_descriptor(student):
    ex_id = "11-2"
    cases = _desc_cases()
    values, used = _watched_values(student, cases, DESC_MODELS)
    if used:
        return _model_used(ex_id, used[0], "시작 주소, LBO, SBO 를 바이트로 구하고 비트 자리에 직접 넣으세요.")
    raw = list(values.items())
    bad = []
    for c, v in raw:
        d = _int(v)
        if d is None:
            return fail(ex_id, "input", f"addr = {c[0]}, kk = {c[1]}, BK = {c[2]}: 정수 디스크립터 하나를 돌려주세요 "
                        f"(받은 값 {v!r:.60}).")
        if not 0 <= d < 2 ** 64 and (d >> 62) not in (32, 64, 128):
            return fail(ex_id, "input", f"디스크립터는 64비트 부호 없는 정수입니다 (addr = {c[0]}, kk = {c[1]}, "
                        f"BK = {c[2]} 에서 받은 값 {d}" + (f", 비트 {d.bit_length() - 1}까지 켜져 있음" if d > 0 else "")
                        + "): 0 이상, 2^64 미만이어야 합니다.")
        if d != _want_desc(*c):
            bad.append((c, d))
    if not bad:
        return passed(ex_id, f"BK = 16 … 256, 공유 메모리의 여러 주소, 모든 k16 단계({len(cases)}가지)에서 wgmma 가 읽는 B "
                      "원소의 공유 주소가 TMA 가 놓은 자리와 같습니다.")
    (addr, kk, BK), d = bad[0]
    want = _want_desc(addr, kk, BK)
    f, w = wgmma.decode(d), wgmma.decode(want)
    at = f"  addr = {addr}, kk = {kk}, BK = {BK}: 받은 값 0x{d:016x}, 맞는 값 0x{want:016x} (틀린 경우 {len(bad)}/{len(cases)}개)"
    fields = [k for k in ("start", "lbo", "sbo", "swizzle", "base_offset") if f[k] != w[k]]
    field_line = ("  필드: " + ", ".join(f"{k} {f[k]} (맞는 값 {w[k]})" for k in fields)) if fields else ""
    behaviour = _read_diff(d, addr, kk, BK)

    def out(code, message, values=None, calls=None):
        calls = calls or [c for c, _ in bad]
        site = probe.value_site(student, _spread(calls), values or (lambda a, r: set()))
        return fail(ex_id, code, message, at, field_line, behaviour, _line(site), where=site)

    big = [(c, x) for c, x in bad if x >= 2 ** 64 or ((x >> 62) & 3) != 1]
    if big:
        (c, x) = big[0]
        mode = x >> 62
        said = (f"모드 필드(비트 63–62)에 바이트 수 {josa(mode, '을/를')} 그대로 넣어 64비트를 넘었습니다" if x >= 2 ** 64 else
                f"스위즐 모드 필드(비트 63–62)가 {mode}({MODE_TEXT[mode]})입니다")
        return out("swizzle_mode", f"{said}: 128바이트 스위즐은 모드 1 입니다 (2 = 64바이트, 3 = 32바이트; 크기 순서가 "
                   "아닙니다).", lambda a, r: {_int(r) >> 62, (_int(r) >> 62) << 62})
    names = {"start": "시작 주소", "lbo": "LBO", "sbo": "SBO"}
    coded, one_code = {}, True                # bytes -> the field value the student gave them, over every case
    for c, x in ((c, _int(v)) for c, v in raw):
        for k in FIELDS:
            one_code &= coded.setdefault(_bytes(c, k), _raw(x, k)) == _raw(x, k)
    wrong = {k: [c for c, x in bad if _raw(x, k) != _raw(_want_desc(*c), k)] for k in FIELDS}
    # (a field that is 0 both ways, e.g. an LBO of 16384 bytes cut to 14 bits, says nothing about the units)
    as_bytes = {k: cs for k, cs in wrong.items() if cs and all(_raw(x, k) == _bytes(c, k) & 0x3FFF for c, x in bad
                                                              if c in cs) and any(_raw(x, k) for c, x in bad if c in cs)}
    # the 14-bit mask put on the bytes before the shift: right below 16 KiB, the high bits lost above
    masked = {k: cs for k, cs in wrong.items() if cs and all(_raw(x, k) == (_bytes(c, k) & 0x3FFF) >> 4 for c, x in bad
                                                            if c in cs)}
    if masked and any(_raw(x, k) for k, cs in masked.items() for c, x in bad if c in cs):
        seen = {}
        for k, cs in masked.items():
            for c in cs:
                seen.setdefault(_bytes(c, k), (_bytes(c, k) & 0x3FFF) >> 4)
        ex = ", ".join(f"{b} → {v} (맞는 값 {wgmma.encode(b)})" for b, v in sorted(seen.items())[:3])
        which = ", ".join(names[k] for k in masked)
        k0 = next(iter(masked))
        return out("mask_bytes", f"{which} 필드의 바이트 수를 0x3FFF(14비트)로 자른 뒤 16바이트 단위로 바꿨습니다: 그러면 "
                   f"16 KiB(16384 바이트) 이상인 주소와 거리는 윗비트를 잃습니다 ({ex}). 필드의 14비트는 16바이트 "
                   "단위로 바꾼 값의 비트이므로, 바이트로는 18비트를 남기고 16 으로 나눕니다: (x & 0x3FFFF) >> 4.",
                   lambda a, r, k=k0: {_raw(_int(r), k)} - {wgmma.encode(_bytes(a, k))}, masked[k0])
    if one_code and all(wrong.values()):
        ex = ", ".join(f"{b} → {v} (맞는 값 {wgmma.encode(b)})" for b, v in sorted(coded.items())[1:4])
        k0 = next(iter(wrong))
        said = ("바이트 수를 16바이트 단위로 바꾸지 않고 그대로 넣었습니다" if len(as_bytes) == len(FIELDS) else
                "바이트 수를 필드 값으로 바꾸는 계산이 틀렸습니다")
        return out("not_shifted", f"세 주소 필드(시작 주소, LBO, SBO)에 {said} ({ex}): 주소 필드는 16바이트 단위, 곧 "
                   "(x & 0x3FFFF) >> 4 입니다.",
                   lambda a, r, k=k0: {_raw(_int(r), k)} - {wgmma.encode(_bytes(a, k))}, wrong[k0])
    left = {k: cs for k, cs in wrong.items() if cs and all(_raw(x, k) == (_bytes(c, k) << 4) & 0x3FFF for c, x in bad
                                                          if c in cs)}
    if "start" in left:
        return out("not_shifted", "주소를 16바이트 단위로 바꿀 때 오른쪽이 아니라 왼쪽으로 밀었습니다 (x << 4): 주소 필드는 "
                   "바이트 수를 16 으로 나눈 값, 곧 (x & 0x3FFFF) >> 4 입니다 (시작 주소, LBO, SBO 모두). 왼쪽으로 민 "
                   "값은 14비트 필드를 넘쳐 옆 필드까지 덮습니다.",
                   lambda a, r: {_raw(_int(r), "start")} - {wgmma.encode(_bytes(a, "start"))}, left["start"])
    if as_bytes:
        which = ", ".join(names[k] for k in as_bytes)
        k0 = next(iter(as_bytes))
        return out("not_shifted", f"{josa(which, '을/를')} 바이트 그대로 넣었습니다: 디스크립터의 주소 필드는 16바이트 "
                   "단위, 곧 (x & 0x3FFFF) >> 4 입니다 (시작 주소, LBO, SBO 모두).",
                   lambda a, r, k=k0: {_raw(_int(r), k), _raw(_int(r), k) << FIELDS[k]}, as_bytes[k0])
    if all(x == wgmma.make_descriptor(c[0] + c[1] * 2048, 1024, c[2] * 128, 128) for c, x in bad):
        return out("lbo_sbo_swapped", "LBO 와 SBO 가 바뀌었습니다: N-major(전치된 B)에서 LBO 는 다음 64열 상자까지 "
                   "(BK·128 바이트), SBO 는 다음 8행 묶음까지 (8 × 128 = 1024 바이트) 입니다.")
    based = [(c, x) for c, x in bad if (x >> 49) & 7]
    if based:
        v = (based[0][1] >> 49) & 7
        return out("base_offset", f"base offset 필드(비트 51–49)가 {v} 입니다: 타일이 1024바이트 경계에서 시작하므로 "
                   "스위즐 무늬가 주소와 맞아 있고, base offset 은 0 입니다.",
                   lambda a, r: {(_int(r) >> 49) & 7, ((_int(r) >> 49) & 7) << 49}, [c for c, _ in based])
    starts = [(c, wgmma.decode(x)["start"]) for c, x in bad if wgmma.decode(x)["start"] != wgmma.decode(
        _want_desc(*c))["start"]]
    if starts:
        calls = [c for c, _ in starts]
        values = lambda a, r: _field_values(_int(r), "start")   # noqa: E731
        (a0, kk0, BK0), s0 = starts[0]
        if all(kk > 0 for (_, kk, _), _ in starts):
            steps = {(s - a) // kk for (a, kk, _), s in starts if (s - a) % kk == 0}
            step = next(iter(steps)) if len(steps) == 1 and all((s - a) % kk == 0 for (a, kk, _), s in starts) else None
            if step == 0:
                text = "k16 단계마다 시작 주소가 움직이지 않습니다"
            elif step == 32:
                text = "k16 단계마다 시작 주소가 32바이트씩 움직입니다 (A 처럼: A 는 K 가 한 행 안에 있지만, B 는 K 가 행 방향)"
            elif step is not None:
                text = f"k16 단계마다 시작 주소가 {step}바이트씩 움직입니다"
            else:
                text = f"kk = {kk0} 에서 시작 주소가 {s0} 입니다 (맞는 값 {a0 + kk0 * 2048})"
            return out("k_step", f"{text}: kk 번째 단계는 16행 아래, 곧 addr + kk·16행·128바이트 (= kk·2048) 에서 "
                       "시작합니다.", values, calls)
        return out("start", f"kk = 0 에서도 시작 주소가 {s0} 입니다 (맞는 값 {a0}): 첫 k16 단계는 타일의 시작 addr 그대로"
                   "입니다. 더하거나 나눈 것이 없는지 보세요.", values, calls)
    lbos = [(c, wgmma.decode(x)["lbo"]) for c, x in bad if wgmma.decode(x)["lbo"] != c[2] * 128]
    if lbos:
        got = {v for _, v in lbos}
        fixed = (f" BK 와 상관없이 언제나 {got.pop()} 바이트입니다." if len(got) == 1 and len({c[2] for c, _ in lbos}) > 1
                 else "")
        (c0, v0) = lbos[0]
        return out("lbo", f"LBO 가 {v0} 바이트입니다 (BK = {c0[2]} 에서 맞는 값 {c0[2] * 128}).{fixed} 다음 64열 상자는 "
                   "BK 행 × 128바이트 뒤에 있습니다.",
                   lambda a, r: _field_values(_int(r), "lbo"), [c for c, _ in lbos])
    sbos = [(c, wgmma.decode(x)["sbo"]) for c, x in bad if wgmma.decode(x)["sbo"] != 1024]
    if sbos:
        v0 = sbos[0][1]
        return out("sbo", f"SBO 가 {v0} 바이트입니다: 8행 묶음(스위즐 무늬 한 번)은 8 × 128 = 1024 바이트입니다.",
                   lambda a, r: _field_values(_int(r), "sbo"), [c for c, _ in sbos])
    bits = [b for b in range(64) if (d & RESERVED) >> b & 1]
    which = josa("비트 " + ", ".join(map(str, bits)), "이/가")
    return out("reserved_bits", f"필드는 모두 맞지만 예약된 {which} 켜져 있습니다: 시작 주소(13–0), LBO(29–16), "
               "SBO(45–32), base offset(51–49), 스위즐 모드(63–62) 밖의 비트는 0 입니다.",
               lambda a, r: {_int(r) & RESERVED})


def _field_values(d, field):
    """The integers a student's line may have made a descriptor field's value as: the bytes (also before the 18-bit
    mask of the encoding: a start address past 256 KiB, addr + kk * BK * 128), the 14-bit field, and that field at
    its bit position (value_site looks for them)."""
    b = wgmma.decode(d)[field]
    return {b + (m << 18) for m in range(4)} | {b >> 4, (b >> 4) << FIELDS[field]}


def _bytes(case, field):
    addr, kk, BK = case
    return {"start": addr + kk * 2048, "lbo": BK * 128, "sbo": 1024}[field]


def _read_diff(d, addr, kk, BK):
    """What the wgmma would read with descriptor d: how many of the 16 x 256 B elements are the right ones."""
    try:
        got = wgmma.operand_addresses(d & (2 ** 64 - 1), 16, 64 * BOXES, "MN")
    except wgmma.DescriptorError as e:
        return f"  (이 디스크립터로 wgmma 가 읽을 자리는 계산하지 않았습니다: {str(e).split(' / ')[0]})"
    want = _tma_b_positions(addr, BK, 64 * BOXES)[kk * 16:(kk + 1) * 16]
    ok = int((got == want).sum())
    return f"  이 디스크립터로 wgmma 가 읽을 B 원소 16×256개 가운데 TMA 가 놓은 자리를 읽는 것: {ok}개"


# ------------------------------------------------------------------------------------ 11-3: mbarrier phases

RING_MODELS = (probe.model_file(ws_ring),)
STAGE_COUNTS = tuple(range(1, 9))
ITERATIONS = tuple(range(40)) + (97, 1000, 4099)
RING_ORDER = (4, 2, 3, 1, 5, 6, 7, 8)           # stage counts in the order a diagnosis looks at them


def _ring_key(k):
    """(it, stages) in the order a diagnosis looks at them: STAGES 4, 2, 3 first, then the others; early it first."""
    return RING_ORDER.index(k[1]), k[0]


def _triple(v):
    try:
        s, pf, pe = v
    except (TypeError, ValueError):
        return None
    s = _int(s)
    pf, pe = (int(x) if isinstance(x, (bool, np.bool_)) else _int(x) for x in (pf, pe))
    return None if None in (s, pf, pe) else (s, pf, pe)


def _ring_consequence(student, S, first_it):
    """What the ring does with the student's parities (sim/ws_ring.py), STAGES = S: the first error, or ''."""
    if S < 2 or first_it > 38:                      # the ring's k-iterations stay inside the probed ones
        return []
    k_tiles = max(first_it + 1, S + 1)
    for eager in (True, False):
        try:
            ws_ring.run(parities=lambda it, st: _triple(student(it, st)), stages=S, tiles=1, k_tiles=k_tiles,
                        eager=eager)
        except ws_ring.ProtocolError as e:
            return [f"  생산자·소비자 모델에서 (STAGES = {S}, k-반복 {k_tiles}개, "
                    f"{'생산자가 먼저' if eager else '소비자가 먼저'}): {e.ko}"]
        except Exception:                # noqa: BLE001  (the values were checked; the consequence is only a picture)
            return []
    return []


def _reused(student, calls, comp, got, truth):
    """The return line, when the wrong parity (comp 1 or 2) is the other parity's right value, made by one line of
    the student's code for both: that line is right (for the other barrier), and the return line put its value in
    both places (`p = (it // stages) & 1` then `return it % stages, p, p`). '' otherwise."""
    other = 3 - comp
    if comp not in (1, 2) or not all(got[k][comp] == got[k][other] == truth[k][other] for k in calls):
        return ""
    made, ret = set(), None
    try:
        for k in calls[:8]:
            tr = probe.trace_values(student, *k)
            made.add(frozenset(site for v, site, _ in tr.produced if v == got[k][comp]))
            ret = ret or tr.return_site
    except Exception:                    # noqa: BLE001  (watching must never change the verdict)
        return ""
    return probe.line_text(ret) if len(made) == 1 and len(next(iter(made))) == 1 else ""


@exercise("11-3", "mbarrier 의 단계(phase): 어느 단계를, 어떤 parity 로 기다리나", "5절",
          hints=("고리의 단계는 차례로 돌아가며 쓰이고, mbarrier 는 단계(phase) 하나가 끝날 때마다 단계 번호가 하나 오릅니다. "
                 "try_wait.parity 는 그 번호의 짝홀만 봅니다. 고리를 몇 바퀴 돌았는지, 그리고 새 mbarrier 에서 어느 parity 가 "
                 "이미 끝난 것으로 보이는지 생각하세요.",
                 "STAGES = 4 일 때 k-반복 5 는 어느 단계를 쓰고, 그 단계의 full barrier 는 그때까지 단계(phase)를 몇 번 "
                 "마쳤나요? 생산자가 처음 empty 를 기다릴 때 그 barrier 는 어떤 상태인가요?"),
          questions={
              "stage": "STAGES 가 4 가 아닐 때도 이 줄의 단계 번호가 0 부터 STAGES − 1 까지 차례로 도나요?",
              "parity_range": "try_wait.parity 가 받는 값은 몇 가지인가요? 이 줄의 값은 그 안에 드나요?",
              "consumer_parity": "소비자가 기다리는 full 의 parity 는 언제 바뀌나요: k-반복마다인가요, 고리를 한 바퀴 돌 "
                                 "때마다인가요? 이 줄의 값은 언제 바뀌나요?",
              "producer_parity": "생산자가 empty 를 기다리는 parity 는 바퀴마다 어떻게 바뀌나요? 첫 바퀴에서는 새 mbarrier 의 "
                                 "어느 parity 를 기다려야 곧바로 지나가나요? 이 줄의 값은 그렇게 하나요?",
              "parities_swapped": "이 줄에서 소비자(full)의 parity 와 생산자(empty)의 parity 는 각각 어느 값인가요? 첫 "
                                  "바퀴에 기다리지 않고 지나가야 하는 쪽은 누구인가요?",
              "uses_model": "이 함수가 부르는 것은 무엇인가요? it 와 stages 만으로 계산할 수 있나요?",
              "input": "함수가 (단계, full 의 parity, empty 의 parity) 세 정수를 돌려주나요?",
          },
          solution="answers/ch11/ex11_ring.py::ring_phase", name="ring_phase",
          template='''
def ring_phase(it, stages):
    """단계가 stages 개인 고리에서 k-반복 it 의 (단계 s, 소비자가 full[s] 를 기다릴 parity, 생산자가 empty[s] 를
    기다릴 parity)."""
    # TODO: 단계 번호와 두 parity 를 it 와 stages 로 계산하세요
    raise NotImplementedError("TODO: (s, full_parity, empty_parity)")
''')
def check_ring(student):
    ex_id = "11-3"
    keys = [(it, S) for S in STAGE_COUNTS for it in ITERATIONS]
    raw, calls = _watched_values(student, keys, RING_MODELS, lambda call: call.name == "course_parities")
    if calls:
        return _model_used(ex_id, calls[0], "고리를 몇 바퀴 돌았는지에서 직접 계산하세요.")
    got = {}
    for k, v in raw.items():
        r = _triple(v)
        if r is None:
            return fail(ex_id, "input", f"it = {k[0]}, stages = {k[1]}: (s, full_parity, empty_parity) 세 정수를 "
                        f"돌려주세요 (받은 값 {v!r:.60}).")
        got[k] = r
    truth = {k: ws_ring.course_parities(*k) for k in keys}
    if got == truth:
        return passed(ex_id, "STAGES 1–8 의 모든 단계 고리에서 k-반복마다 단계와 두 parity 가 mbarrier 의 규칙과 같습니다: "
                      "이 규칙을 따르면 생산자와 소비자가 어떤 순서로 만나든 멈춤도, 지난 바퀴의 데이터를 읽는 일도 없습니다.")

    def table(S):
        n = min(2 * S + 2, 12)
        return (f"  STAGES = {S}, it → (s, full, empty) 받은 값: "
                + ", ".join(f"{it}→{got[(it, S)]}" for it in range(n))
                + "\n  맞는 값: " + ", ".join(f"{it}→{truth[(it, S)]}" for it in range(n)))

    def out(code, message, comp, wrong, ring=True):
        it, S = wrong[0]
        # the wrong value, unless the stage is the same number (then the return line mixed them up); the two parities
        # are both 0 or 1, so one may equal the other without being taken from it
        site = _reused(student, _spread(wrong), comp, got, truth) or probe.value_site(
            student, _spread(wrong), lambda a, r, c=comp: (
                {_triple(r)[c]} - ({_triple(r)[0]} if c else set(_triple(r)[1:]))) if _triple(r) else set())
        return fail(ex_id, code, message, table(S), *(_ring_consequence(student, S, it) if ring else ()), _line(site),
                    where=site)

    stage_bad = sorted((k for k in keys if got[k][0] != truth[k][0]), key=_ring_key)
    if stage_bad:
        it, S = stage_bad[0]
        s = got[(it, S)][0]
        wrong_S = sorted({k[1] for k in stage_bad})
        if all(got[k][0] == k[0] % 4 for k in keys):
            why = "단계 번호가 STAGES 와 상관없이 it % 4 입니다: STAGES 가 4 가 아니면 고리의 크기가 다릅니다"
        elif all(got[k][0] in (k[0] // k[1], (k[0] // k[1]) % k[1]) for k in keys):
            why = "단계 번호 자리에 바퀴 번호(it // STAGES)를 썼습니다"
        else:
            why = f"STAGES = {S}, it = {it} 에서 단계가 {s} 입니다 (맞는 값 {it % S})"
        return out("stage", f"{why}. 고리의 단계는 k-반복마다 하나씩 차례로 돌아갑니다: 0, 1, …, STAGES − 1, 다시 0 "
                   f"(틀린 STAGES: {wrong_S}).", 0, stage_bad, ring=False)
    for c, name in ((1, "full"), (2, "empty")):
        out_of = sorted((k for k in keys if got[k][c] not in (0, 1)), key=_ring_key)
        if out_of:
            it, S = out_of[0]
            return out("parity_range", f"{name} 의 parity 가 {got[(it, S)][c]} 입니다 (it = {it}, STAGES = {S}): "
                       "try_wait.parity 는 단계 번호의 짝홀, 곧 0 또는 1 을 받습니다.", c, out_of, ring=False)
    full_bad = sorted((k for k in keys if got[k][1] != truth[k][1]), key=_ring_key)
    empty_bad = sorted((k for k in keys if got[k][2] != truth[k][2]), key=_ring_key)
    if full_bad and empty_bad and all(got[k][1:] == truth[k][:0:-1] for k in keys):
        return out("parities_swapped", "소비자와 생산자의 parity 가 둘 다 반대입니다 (두 값이 서로 바뀌었거나, 바퀴 번호가 "
                   "하나 어긋났습니다): 소비자는 이번 바퀴의 parity((it // STAGES) & 1)로 full 을, 생산자는 그 반대로 empty 를 "
                   "기다립니다. 반대인 채로는 첫 바퀴에서 생산자가 멈추고, 소비자는 도착하지 않은 복사를 읽습니다.", 1, full_bad)

    fb = full_bad[0] if full_bad else None
    eb = empty_bad[0] if empty_bad else None
    linked = all(got[k][2] == got[k][1] ^ 1 for k in keys)     # the producer's is the opposite: the round is wrong
    # at one k-iteration the producer waits first; with the opposite parity linked, the round itself is wrong
    if eb is not None and (fb is None or _ring_key(eb) <= _ring_key(fb)) and not (linked and fb is not None):
        it, S = eb
        if all(got[k][2] == got[k][1] for k in keys):
            why = ("생산자가 소비자와 같은 parity 로 empty 를 기다립니다: 첫 바퀴에서 parity 0 을 기다리면, 새 mbarrier 는 "
                   "단계 0 에 있고 아직 아무도 arrive 하지 않았으니 영원히 끝나지 않습니다")
        elif got[(0, S)][2] == 0:
            why = ("생산자가 첫 바퀴에서 empty 를 parity 0 으로 기다려 멈춥니다: 새 mbarrier 에서 이미 끝난 것으로 보이는 것은 "
                   "parity 1 입니다")
        else:
            why = (f"생산자가 k-반복 {it} (STAGES = {S})에서 기다리는 empty 의 parity 가 {got[eb][2]} 입니다 (맞는 값 "
                   f"{truth[eb][2]})")
        return out("producer_parity", f"{why}. 생산자의 parity 는 한 바퀴마다 바뀌고, 소비자의 full parity 와 늘 "
                   "반대입니다.", 2, empty_bad)
    it, S = fb
    rule = "parity 는 바퀴 번호 it // STAGES 의 짝홀입니다"
    if all(got[k][1] == k[0] & 1 for k in keys):
        why = ("소비자의 parity 가 k-반복마다 바뀝니다: 한 단계의 barrier 는 고리를 한 바퀴 돌 때 한 번만 단계가 끝나므로, "
               f"{rule}.")
    elif all(got[k][1] == (k[0] % k[1]) & 1 for k in keys):
        why = f"소비자의 parity 를 단계 번호의 짝홀로 구했습니다: 단계 번호는 고리 안의 자리일 뿐이고, {rule}."
    elif len({got[k][1] for k in keys}) == 1:
        why = (f"소비자의 parity 가 언제나 {got[fb][1]} 입니다: 고리를 한 바퀴 돌 때마다 그 barrier 의 단계가 하나 올라 "
               f"짝홀이 바뀌므로, {rule}.")
    else:
        why = (f"k-반복 {it} (STAGES = {S})의 소비자가 기다리는 full 의 parity 가 {got[fb][1]} 입니다 (맞는 값 "
               f"{truth[fb][1]}): {rule}.")
    both = (" 생산자의 parity 는 그 반대로 계산해 함께 틀립니다." if linked and empty_bad else "")
    return out("consumer_parity", f"{why} 틀린 parity 는 기다림을 너무 일찍 통과하거나(지난 바퀴의 데이터, 아직 도착하지 "
               f"않은 복사) 영원히 멈춥니다.{both}", 1, full_bad)


# ------------------------------------------------------------------------------------ 11-4: the consumer loop

CONSUMER_CONFIGS = ((4, 2, 3), (2, 3, 5), (3, 1, 7), (2, 2, 4), (5, 2, 1), (3, 2, 6))


class _Notes:
    """What the student's steps did on one ring: calls (it, kt, name, args, site), early releases (it, stage, site,
    'uncommitted' or 'in_flight'), whether a wgmma was issued while the previous group flew, the sites of waits that
    left no group in flight, and the student's call during which the model found a broken ring (None when it was
    found elsewhere: at a tile's end, in the producer, or when the run ended)."""

    def __init__(self):
        self.calls, self.early, self.overlap, self.drained, self.failed = [], [], False, [], None


class _Watched:
    """The ring as the student's step sees it: the five calls go through to the model, each noted with the student's
    line; a release of a stage that an unfinished wgmma still reads, and a wgmma issued while the previous group is
    still in flight (the overlap the exercise asks for), are noted as they happen. Only ring.stages, .tiles and
    .k_tiles are visible besides the five calls (a loop polling the model's barriers would never end)."""

    PUBLIC = ("stages", "tiles", "k_tiles")

    def __init__(self, ring, notes):
        self.__dict__.update(_ring=ring, _notes=notes, _kt=0)

    def __getattr__(self, name):
        if name in self.PUBLIC:
            return getattr(self._ring, name)
        raise AttributeError(f"이 문제의 ring 에는 {josa(f'`{name}`', '이/가')} 없습니다: ring.stages 와 다섯 가지"
                             "(wait_full, mma, commit, wait_mma, release)만 씁니다.")

    def _call(self, name, args, run):
        """Note the call with the student's line, run it on the model, and remember it if the model broke there."""
        call = (self._ring.it, self._kt, name, args, probe.caller_site())
        self._notes.calls.append(call)
        try:
            return run()
        except ws_ring.ProtocolError:
            self._notes.failed = self._notes.failed or call
            raise

    def wait_full(self, s, parity):
        return self._call("wait_full", (s, parity), lambda: self._ring.wait_full(s, parity))

    def mma(self, s):
        if self._kt > 0 and self._ring.groups:
            self._notes.overlap = True
        return self._call("mma", (s,), lambda: self._ring.mma(s))

    def commit(self):
        return self._call("commit", (), self._ring.commit)

    def wait_mma(self, n):
        out = self._call("wait_mma", (n,), lambda: self._ring.wait_mma(n))
        if not self._ring.groups and not self._ring.uncommitted:
            self._notes.drained.append(self._notes.calls[-1][4])
        return out

    def release(self, s):
        r = self._ring
        how = ("uncommitted" if any(st == s for st, _ in r.uncommitted) else
               "in_flight" if any(st == s for g in r.groups for st, _ in g) else None)
        if how:
            self._notes.early.append((r.it, s, probe.caller_site(), how))
        return self._call("release", (s,), lambda: r.release(s))


def _stage_line(s, stages):
    return f"단계 {s}" if _int(s) is not None and 0 <= s < stages else f"단계 번호 {s!r}"


@exercise("11-4", "소비자 루프: 기다리고, wgmma 를 내고, 다 읽은 단계를 돌려주기", "6절",
          hints=("소비자의 한 k-반복은 기다리고, 내고, 묶고, 끝난 것을 돌려주는 순서입니다. 단계를 돌려주어도 되는 때는 그 "
                 "단계를 읽는 wgmma 가 끝났다는 보장이 있을 때뿐이고, 그 보장은 wgmma 쪽의 기다림이 줍니다. 그룹 하나는 "
                 "날아가는 채로 두어야 다음 단계를 기다리는 동안 Tensor Core 가 일합니다.",
                 "wait_mma 로 그룹 하나를 남기면, 그 뒤에 끝났다고 확신할 수 있는 것은 어느 k-반복의 wgmma 인가요? 타일의 첫 "
                 "k-반복에도 그런 앞 단계가 있나요?"),
          questions={
              "release_before_wait": "이 줄에서 돌려주는 단계를 읽는 wgmma 는 이 줄보다 앞의 wait_mma 로 끝났나요?",
              "double_release": "이 줄이 돌려주는 단계는 이미 돌려준 것이거나 아직 쓰지 않은 것이 아닌가요? 타일의 첫 "
                                "k-반복과 타일 끝에서는 각각 무엇이 돌려지나요?",
              "deadlock": "생산자가 기다리는 단계는 언제 누가 돌려주나요? 이 줄은 다 읽은 단계를 빠짐없이 돌려주나요?",
              "wait_full": "이 줄의 wgmma 가 읽는 단계의 복사가 도착했는지는 어디서 확인하나요?",
              "parity": "이 줄이 기다리는 parity 는 이번 바퀴의 것인가요? 고리를 한 바퀴 돌면 parity 는 어떻게 바뀌나요?",
              "stage": "이 k-반복이 써야 하는 단계는 몇 번인가요? 이 줄은 어느 단계를 쓰나요?",
              "stage_range": "단계 번호는 0 부터 몇까지인가요? 이 줄의 계산이 그 밖으로 나가는 k-반복이 있나요?",
              "double_mma": "한 k-반복에서 wgmma 를 몇 번 내나요? 같은 단계를 두 번 곱하면 누산기에는 무엇이 남나요?",
              "no_mma": "이 k-반복에서 mma 는 어느 줄에서 부르나요? 모든 k-반복이 그 줄을 지나나요?",
              "not_committed": "이 줄에서 낸 wgmma 는 commit 으로 그룹에 묶였나요? 묶이지 않은 wgmma 를 wait_mma 가 기다려 "
                               "주나요?",
              "no_overlap": "이 줄의 wait_mma 뒤에 날아가는 wgmma 그룹이 남나요? 다음 단계를 기다리는 동안 Tensor Core 는 "
                            "무엇을 하나요?",
              "wait_too_large": "wait_mma(n) 은 가장 최근 몇 그룹을 남기나요? 이 줄에서 돌려줄 단계를 읽은 그룹 뒤에 commit 한 "
                                "그룹은 몇 개인가요?",
              "wait_before_commit": "이 줄의 wait_mma 가 실행될 때 이번 k-반복의 wgmma 는 벌써 commit 으로 그룹에 묶였나요? "
                                    "묶이지 않은 wgmma 는 wait_mma 가 세는 그룹에 드나요?",
              "uses_model": "이 함수가 부르는 것은 무엇인가요? ring 의 다섯 가지만으로 쓸 수 있나요?",
          },
          solution="answers/ch11/ex11_ring.py::consumer_step", name="consumer_step",
          template='''
def consumer_step(ring, it, kt):
    """소비자 워프그룹의 k-반복 it (지금 타일의 kt 번째): 단계 s 를 기다리고, wgmma 를 내고, 다 읽은 단계를 돌려줍니다.
    ring.wait_full(s, parity), ring.mma(s), ring.commit(), ring.wait_mma(n), ring.release(s) 를 씁니다 (단계 수는
    ring.stages)."""
    # TODO: 이 k-반복의 단계 s 와 full[s] 를 기다릴 parity 를 구하고 (11-3 의 규칙),
    #       알맞은 순서로 ring 의 다섯 가지를 부르세요 (wgmma 그룹 하나는 날아가는 채로 두기)
    raise NotImplementedError("TODO: 소비자의 k-반복")
''')
def check_consumer(student):
    ex_id = "11-4"
    rng = np.random.default_rng(1104 + 7919 * VARIANT[0])
    configs = CONSUMER_CONFIGS + ((int(rng.integers(2, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 8))),)
    overlapped, drained = False, []
    for stages, tiles, k_tiles in configs:
        for eager in (True, False):
            cfg = f"  (STAGES = {stages}, 타일 {tiles}개 × k-타일 {k_tiles}개, {'생산자가 먼저' if eager else '소비자가 먼저'})"
            notes, watched = _Notes(), {}

            def step(ring, it, kt, notes=notes, watched=watched):
                w = watched.setdefault(id(ring), _Watched(ring, notes))
                w.__dict__["_kt"] = kt
                student(w, it, kt)
            err = crash = None
            with probe.recording(model_files=RING_MODELS) as rec:
                try:
                    ws_ring.run(consumer_step=step, stages=stages, tiles=tiles, k_tiles=k_tiles, eager=eager)
                except ws_ring.ProtocolError as e:
                    err = e
                except Exception as e:           # noqa: BLE001  (explained below, unless the model was called)
                    crash = e
            used = [c for c in rec.model_calls if c.name == "course_consumer_step"]
            if used:
                return _model_used(ex_id, used[0], "ring 의 다섯 가지를 직접 부르세요.")
            if crash is not None:
                raise crash
            if err is not None or notes.early:
                return _ring_failure(ex_id, err, notes, stages, cfg)
            overlapped = overlapped or notes.overlap
            drained += notes.drained
    if not overlapped:
        site = probe.line_text(drained[0]) if drained else ""
        return technique(ex_id, "no_overlap", "wgmma 와 기다림의 겹침", "모든 k-반복이 자기 데이터로 계산되지만, 다음 "
                         "wgmma 를 낼 때마다 앞 그룹이 이미 끝나 있습니다 (wait_mma(0)으로 모두 기다렸음). 다음 단계를 "
                         "기다리는 동안 Tensor Core 가 놉니다: 이 문제는 앞 k-반복의 그룹 하나를 날아가는 채로 남기는 "
                         "wait_mma(1)을 씁니다.", f"  모든 그룹을 기다린 곳: {site}" if site else "", where=site)
    return passed(ex_id, f"단계 고리 {len(configs)}가지(STAGES 2–5, 타일마다 k-타일 1–7개)를 두 가지 순서로 끝까지 "
                  "돌렸습니다: 모든 k-반복이 자기 데이터로 한 번씩 계산되고, 단계는 wgmma 가 다 읽은 뒤에만 돌아가며, "
                  "한 그룹이 날아가는 동안 다음 단계를 기다립니다.")


def _useless_wait(calls, at, s):
    """For an early release (calls[at], stage s, read by a wgmma of an earlier k-iteration): the student's wait_mma of
    the release's k-iteration that should have finished that wgmma's group and did not, as (the wait, the k-iteration
    of that wgmma, the groups committed after its group when the wait ran, whether the wait ran before its
    k-iteration's wgmma was committed); None when the release had no wait before it in its k-iteration (then the release
    came too early) or released the stage of its own k-iteration."""
    it = calls[at][0]
    mma = next((i for i in range(at - 1, -1, -1) if calls[i][2] == "mma" and calls[i][3][0] == s), None)
    if mma is None or calls[mma][0] == it:
        return None
    closed = next((i for i in range(mma + 1, at) if calls[i][2] == "commit"), None)
    waits = [i for i in range(at) if calls[i][0] == it and calls[i][2] == "wait_mma" and (closed is None or i > closed)]
    if closed is None or not waits or _int(calls[waits[-1]][3][0]) is None:
        return None
    w = waits[-1]
    after = sum(1 for i in range(closed + 1, w) if calls[i][2] == "commit")
    last_commit = max((i for i in range(w) if calls[i][2] == "commit"), default=-1)
    pending = any(calls[i][2] == "mma" for i in range(last_commit + 1, w)) or \
        any(calls[i][2] == "commit" and calls[i][0] == it for i in range(w + 1, at))    # this k-iteration's group
    if not pending and calls[w][3][0] <= after:
        return None
    return calls[w], calls[mma][0], after, pending


def _ring_failure(ex_id, e, notes, stages, cfg):
    """The diagnosis of a broken ring, at the student's call that broke it (notes: every call, with its line). An
    early release is the diagnosis wherever it happened, even when the model found no overwrite in this schedule: on
    the GPU the producer may refill the stage at once."""
    last = notes.calls[-1] if notes.calls else None
    head = [f"  생산자·소비자 모델이 멈춘 곳: {e.ko}"] if e is not None else []

    def out(code, message, call):
        site = probe.line_text(call[4]) if call else ""
        return fail(ex_id, code, message, *head, cfg, f"  위치: {site}" if site else "", where=site)

    def stage(s):
        return josa(_stage_line(s, stages), "을/를")
    done = {c[0] for c in notes.calls if c[2] == "mma"}
    current = last[0] if e is not None and last is not None else None      # the k-iteration the ring broke in
    missing = sorted(x for x in {c[0] for c in notes.calls} - done if x != current)
    if missing:
        it = missing[0]
        call = next(c for c in notes.calls if c[0] == it)
        return out("no_mma", f"k-반복 {it}에서 wgmma 를 내지 않았습니다 (mma 를 부르지 않음): 그 K 타일은 C 에 더해지지 않고, "
                   "그 단계를 돌려주면 아무도 읽지 않은 데이터를 버립니다.", call)
    if notes.early:
        it, s, site, how = notes.early[0]
        call = next(c for c in notes.calls if c[4] == site and c[2] == "release")
        if how == "uncommitted":
            mma = next((c for c in notes.calls if c[2] == "mma" and c[0] <= it and c[3][0] == s), call)
            return out("not_committed", f"k-반복 {it}에서 {stage(s)} 돌려줄 때 그 단계를 읽는 wgmma 가 아직 commit 되지 "
                       "않았습니다: 묶이지 않은 wgmma 는 어느 그룹에도 들지 않아 wait_mma 가 기다려 주지 않고, 끝났다는 "
                       "보장도 없습니다. mma 다음에 commit 으로 그룹을 묶으세요.", mma)
        wait = _useless_wait(notes.calls, notes.calls.index(call), s)
        if wait is not None:
            w, j, after, pending = wait
            n = w[3][0]
            if pending:
                return out("wait_before_commit", f"k-반복 {it}에서 {josa(f'wait_mma({n})', '을/를')} commit 보다 먼저 "
                           "불렀습니다: 그때 이번 k-반복의 wgmma 는 아직 그룹에 묶이지 않아 wait_mma 가 세는 그룹에 들지 "
                           f"않으므로, {josa(f'wait_mma({n})', '은/는')} k-반복 {j}의 그룹({josa(f'단계 {s}', '을/를')} "
                           f"읽음)을 남겨 둔 채 지나갑니다. 그 뒤에 {stage(s)} 돌려주면 생산자가 wgmma 가 읽는 중인 단계를 "
                           "덮어씁니다. mma → commit → wait_mma 순서로, 이번 wgmma 를 그룹으로 묶은 뒤에 기다리세요.", w)
            return out("wait_too_large", f"k-반복 {it}의 {josa(f'wait_mma({n})', '이/가')} "
                       f"{josa(f'단계 {s}', '을/를')} 읽는 그룹(k-반복 {j})을 기다리지 않고 지나갑니다: wait_mma(n) 은 가장 "
                       f"최근 n 그룹을 날아가는 채로 두는데, 그 그룹 뒤에 commit 한 그룹은 {after}개뿐이라 그 그룹도 "
                       f"남아도 되는 그룹에 듭니다 (wait_mma({after}) 이하여야 끝남). 그 뒤에 {stage(s)} 돌려주면 생산자가 "
                       "wgmma 가 읽는 중인 단계를 덮어씁니다.", w)
        return out("release_before_wait", f"k-반복 {it}에서 {stage(s)} 돌려주었는데, 그 단계를 읽는 wgmma 그룹이 아직 "
                   "끝나지 않았습니다: 생산자는 돌려받은 단계를 곧바로 다음 복사로 덮어씁니다. release 는 그 단계를 읽은 "
                   "그룹이 wait_mma 로 끝난 뒤에만 합니다.", call)
    kind, it = e.kind, e.it
    s_right = it % stages if _int(it) is not None else None
    calls = [c for c in notes.calls if c[0] == it]
    bad = notes.failed or last
    if kind == "ORDER" and bad is not None and bad[2] in ("wait_full", "mma", "release") and \
            not (_int(bad[3][0]) is not None and 0 <= bad[3][0] < stages):
        return out("stage_range", f"k-반복 {bad[0]}에서 {stage(bad[3][0])} 썼습니다: 단계는 0 부터 "
                   f"STAGES − 1 = {stages - 1} 까지입니다.", bad)
    if kind == "DOUBLE_MMA":
        return out("double_mma", f"k-반복 {it}의 wgmma 를 두 번 냈습니다: 누산기에 그 K 타일의 곱이 두 번 더해집니다. "
                   "ring.mma(s) 하나가 그 단계 전체(k16 단계 네 번의 wgmma)를 내므로, 한 k-반복에 mma 는 한 번입니다.",
                   last)
    if kind == "DOUBLE_RELEASE":
        mine = notes.failed if notes.failed and notes.failed[2] == "release" else None
        if mine:
            s = mine[3][0]
            said = f"k-반복 {mine[0]}에서 {stage(s)} 돌려주었는데, 그 단계는 이미 돌려주었거나 아직 아무 wgmma 도 읽지 않았습니다"
            rel = mine
        else:                                # the tile's end released its last stage a second time
            s = (it % stages) if _int(it) is not None else None
            rel = next((c for c in reversed(notes.calls) if c[2] == "release" and c[3][0] == s), last)
            said = ("타일 끝에서 마지막 단계를 돌려주려는데, 그 단계는 이미 돌려준 것입니다"
                    + (f" (여러분의 release: k-반복 {rel[0]}, {_stage_line(s, stages)})" if rel and rel[2] == "release"
                       else ""))
        return out("double_release", f"{said}. 한 번 쓴 단계는 한 번만 empty 에 돌려줍니다: 타일의 첫 k-반복에는 돌려줄 "
                   "앞 단계가 없고(앞 타일의 마지막 단계는 타일 끝에서 돌아감), 이번 단계는 다음 k-반복에서 돌려줍니다.", rel)
    if kind in ("TMA_IN_FLIGHT", "STALE", "OVERFLOW"):
        mma = next((c for c in reversed(calls) if c[2] == "mma"), None)
        s = mma[3][0] if mma else s_right
        before = notes.calls[:notes.calls.index(mma)] if mma else notes.calls
        waits = [c for c in before if c[0] == it and c[2] == "wait_full"]
        if mma is not None and s != s_right:
            return out("stage", f"k-반복 {it}의 wgmma 가 {josa(_stage_line(s, stages), '을/를')} 읽습니다: 이 k-반복의 "
                       f"데이터는 단계 {s_right} (it % STAGES)에 있습니다.", mma)
        same = [c for c in waits if c[3][0] == s]
        if waits and not same:
            w = waits[-1]
            return out("stage", f"k-반복 {it}에서 {stage(w[3][0])} 기다렸는데 wgmma 는 단계 {josa(s, '을/를')} 읽습니다: 이 "
                       f"k-반복의 단계는 {s_right} (it % STAGES)입니다.", w)
        if not same or (same[-1][3][1] & 1) == ((it // stages) & 1):
            return out("wait_full", f"k-반복 {it}에서 {stage(s)} 기다리지 않고 wgmma 를 냈습니다: 그 단계의 TMA 복사가 "
                       "도착했는지 먼저 wait_full 로 확인해야 합니다 (아니면 도착하지 않은 복사나 지난 바퀴의 데이터를 "
                       "읽습니다).", mma or last)
        w = same[-1]
        right = (it // stages) & 1
        return out("parity", f"k-반복 {it}에서 {josa(f'full[{s}]', '을/를')} parity {josa(w[3][1], '으로/로')} "
                   f"기다렸습니다 (이번 바퀴의 parity 는 {right}): 그 parity 의 단계는 이미 끝나 있어 기다림이 곧바로 "
                   "통과하고, 아직 도착하지 않은 복사나 지난 바퀴의 데이터를 읽습니다.", w)
    if kind == "DEADLOCK":
        rel = [c for c in notes.calls if c[2] == "release"]
        return out("deadlock", "멈춥니다: 생산자가 기다리는 단계를 소비자가 돌려주지 않았습니다. 다 읽은 단계를 돌려주지 "
                   "않으면 생산자가 그 단계를 다시 채울 수 없고, 소비자는 그 복사를 영원히 기다립니다."
                   + ("" if rel else " (소비자가 release 를 한 번도 부르지 않았습니다.)"), rel[-1] if rel else last)
    mma = next((c for c in notes.calls if c[2] == "mma"), last)
    return out("not_committed", "k-반복이 모두 계산되지 않았습니다: 낸 wgmma 가 commit 으로 그룹에 묶이고, 그 그룹을 "
               "wait_mma 가 기다려야 계산이 끝납니다.", mma)
