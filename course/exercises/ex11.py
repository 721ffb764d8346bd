"""Notebook 11 exercises: the wgmma accumulator layout, a B matrix descriptor, the mbarrier phases of the stage ring,
and the consumer's loop of the warp-specialised kernel. The truths are sim/wgmma.py, sim/tma.py and sim/ws_ring.py
(the same models the simulator's stand-ins use; the layout is checked against the GPU by
benchmarks/record_wgmma_layout.py)."""
import numpy as np

from sim import tma, wgmma, ws_ring

from .core import exercise, fail, passed

WG = 128
N = 64                                    # 11-1: m64n64k16, 32 registers per thread
MODEL_NAMES = {"accumulator_elements", "accumulator_index", "accumulator_owner", "fragments_from_tile",
               "tile_from_fragments", "acc_row_col", "descriptor_for_tile", "course_parities",
               "course_consumer_step"}


def _uses_model(fn):
    fn = getattr(fn, "py_func", fn)
    code, names, todo = getattr(fn, "__code__", None), set(), []
    if code is None:
        return False
    todo.append(code)
    while todo:
        c = todo.pop()
        names |= set(c.co_names)
        todo += [k for k in c.co_consts if hasattr(k, "co_names")]
    return bool(names & MODEL_NAMES)


def _model_used(ex_id):
    return fail(ex_id, "uses_model", "강좌 모델의 답(sim/wgmma.py, sim/ws_ring.py, hopper.acc_row_col 같은 함수)을 불러서 "
                "돌려주고 있습니다: 직접 계산하세요.")


# ------------------------------------------------------------------------------------ 11-1: accumulator layout

@exercise("11-1", "wgmma 누산기: 스레드 t 의 레지스터 i 는 타일의 어느 원소인가", "2. 워프그룹과 누산기 레이아웃",
          hints=("워프 w = t // 32 가 16행씩을 맡고, 그 안에서는 mma.sync 의 C 조각(노트북 10 의 c0..c3)이 8열마다 "
                 "반복됩니다. 레지스터 i 의 네 개 묶음 번호 i // 4 가 8열 블록입니다.",
                 "lane = t % 32, g = lane >> 2, q = lane % 4: 행 = 16·w + g + 8·((i // 2) % 2), "
                 "열 = 8·(i // 4) + 2·q + i % 2."),
          solution="answers/ex11_layout.py::acc_element", name="acc_element",
          template='''
def acc_element(t, i):
    """wgmma.mma_async.m64n64k16 (f32): 워프그룹의 스레드 t (0..127) 의 누산기 레지스터 i (0..31) 가 담는
    64×64 타일 D 의 (행, 열)."""
    # TODO: 워프 번호 w = t // 32, 레인 = t % 32 에서 행과 열을 계산하세요
    raise NotImplementedError("TODO: (행, 열) 을 돌려주세요")
''')
def check_layout(student):
    ex_id = "11-1"
    if _uses_model(student):
        return _model_used(ex_id)
    got = {}
    for t in range(WG):
        for i in range(N // 2):
            v = student(t, i)
            try:
                r, c = (int(x) for x in v)
            except (TypeError, ValueError):
                return fail(ex_id, "input", f"스레드 {t} 레지스터 {i}: 정수 (행, 열) 쌍을 돌려주세요 (받은 값 {v!r:.60}).")
            got[(t, i)] = (r, c)
    truth = {(t, i): rc for t in range(WG) for i, rc in enumerate(wgmma.accumulator_elements(t, N))}
    if got == truth:
        return passed(ex_id, "128 스레드 × 32 레지스터가 모두 PTX ISA 의 누산기 레이아웃(sim/wgmma.py)과 같습니다.")
    bad = [k for k in truth if got[k] != truth[k]]
    ex = [f"  스레드 {t} 레지스터 {i}: {truth[(t, i)]} 이어야 하는데 {got[(t, i)]}" for t, i in bad[:3]]
    where = f"  틀린 곳: {len(bad)}/{len(truth)} 개, 스레드 {sorted({t for t, _ in bad})[:6]}…"
    if any(not (0 <= r < 64 and 0 <= c < N) for r, c in got.values()):
        return fail(ex_id, "out_of_range", "타일 밖의 (행, 열) 이 있습니다: 행은 0..63, 열은 0..63 입니다.", where, *ex)
    if all(got[k] == truth[k][::-1] for k in truth):
        return fail(ex_id, "transposed", "행과 열이 바뀌었습니다: 워프와 groupID 가 행을, threadID_in_group 과 레지스터 "
                    "번호가 열을 정합니다.", where, *ex)
    if all(got[(t, i)] == truth[(t % 32, i)] for t, i in truth):
        return fail(ex_id, "warp_rows", "모든 워프가 0–15 행을 씁니다: 워프그룹의 워프 w (= t // 32) 는 16·w 행부터 16행을 "
                    "맡습니다 (m64 = 4 워프 × 16 행).", where, *ex)
    if all(sorted(got[(t, i)] for i in range(32)) == sorted(truth[(t, i)] for i in range(32)) for t in range(WG)):
        return fail(ex_id, "register_order", "스레드마다 원소는 맞는데 레지스터 순서가 틀렸습니다: i 의 (i % 2) 는 이웃한 "
                    "두 열, (i // 2) % 2 는 8행 아래, i // 4 는 8열 블록입니다 (c0, c1 → 행 g; c2, c3 → 행 g+8).",
                    where, *ex)
    rows_ok = all(got[k][0] == truth[k][0] for k in truth)
    cols_ok = all(got[k][1] == truth[k][1] for k in truth)
    if cols_ok and all(got[k][0] == truth[k][0] - 8 * ((k[1] // 2) % 2) for k in truth):
        return fail(ex_id, "row_offset", "레지스터 2, 3 (그리고 6, 7, …) 의 +8 행이 빠졌습니다: 각 4개 묶음의 뒤 두 개는 "
                    "행 g + 8 입니다.", where, *ex)
    if rows_ok:
        return fail(ex_id, "columns", "행은 모두 맞고 열이 틀렸습니다: 열 = 8·(i // 4) + 2·(레인 % 4) + i % 2 — 8열 블록은 "
                    "레지스터 4개마다 바뀝니다.", where, *ex)
    if cols_ok:
        return fail(ex_id, "rows", "열은 모두 맞고 행이 틀렸습니다: 행 = 16·워프 + 레인 // 4 + 8·((i // 2) % 2).", where,
                    *ex)
    return fail(ex_id, "wrong", "누산기 레이아웃과 다릅니다.", where, *ex)


# ------------------------------------------------------------------------------------ 11-2: B descriptor

def _tma_b_positions(addr, BK, BN):
    m = tma.TensorMap(0, "float16", 4096, 4096, 8192, BK, 64, 128)
    return np.concatenate([tma.box_addresses(m, addr + j * BK * 128) for j in range(BN // 64)], axis=1)


@exercise("11-2", "행렬 디스크립터: TMA 가 놓은 B 타일을 wgmma 가 읽게 하기", "3. 공유 메모리 행렬 디스크립터와 128바이트 스위즐",
          hints=("B 타일은 64열짜리 상자(box)들이 BK 행씩 이어져 있고, 한 행은 128바이트입니다. N-major 의 LBO 는 다음 64열 상자까지, "
                 "SBO 는 다음 8행까지의 바이트 수이고, 세 주소 필드는 모두 (x & 0x3FFFF) >> 4 로 넣습니다.",
                 "desc = enc(addr + kk·16·128) | enc(BK·128) << 16 | enc(1024) << 32 | 1 << 62 (enc(x) = (x & 0x3FFFF) >> 4; "
                 "스위즐 모드 1 이 128바이트)."),
          solution="answers/ex11_descriptor.py::b_descriptor", name="b_descriptor",
          template='''
def b_descriptor(addr, kk, BK):
    """공유 주소 addr (1024의 배수) 에 TMA 가 128바이트 스위즐로 놓은 B 타일 (BK 행 × 64열 상자들이 차례로) 에서
    k16 단계 kk 를 wgmma 가 N-major 로 읽을 64비트 행렬 디스크립터 (파이썬 int)."""
    # TODO: 시작 주소, LBO, SBO, 스위즐 모드를 디스크립터의 비트 필드에 넣으세요
    raise NotImplementedError("TODO: 디스크립터를 만드세요")
''')
def check_descriptor(student):
    ex_id = "11-2"
    if _uses_model(student):
        return _model_used(ex_id)
    cases = [(5 * 1024, kk, 64) for kk in range(4)] + [(37 * 1024, kk, 128) for kk in range(8)]
    for addr, kk, BK in cases:
        try:
            d = int(student(addr, kk, BK))
        except (TypeError, ValueError) as e:
            return fail(ex_id, "input", f"정수 디스크립터를 돌려주세요 ({e}).")
        if not 0 <= d < 2 ** 64:
            return fail(ex_id, "input", f"디스크립터는 64비트 부호 없는 정수입니다 (받은 값 {d}).")
        want = wgmma.make_descriptor(addr + kk * 16 * 128, BK * 128, 1024, 128)
        if d == want:
            continue
        f, w = wgmma.decode(d), wgmma.decode(want)
        raw = d & 0x3FFF
        at = f"  addr = {addr}, kk = {kk}, BK = {BK}: 받은 값 0x{d:016x}, 맞는 값 0x{want:016x}"
        fields = "  " + ", ".join(f"{k} {f[k]} (맞는 값 {w[k]})" for k in ("start", "lbo", "sbo", "swizzle", "base_offset")
                                  if f[k] != w[k])
        behaviour = _read_diff(d, addr, kk, BK)
        if f["swizzle"] != 128:
            mode = (d >> 62) & 3
            return fail(ex_id, "swizzle_mode", f"스위즐 모드 필드(비트 63–62)가 {mode} 입니다: 128바이트 스위즐은 모드 1 입니다 "
                        "(2 = 64바이트, 3 = 32바이트; 크기 순서가 아닙니다).", at, fields, behaviour)
        if raw == ((addr + kk * 2048) & 0x3FFF) and raw != w["start"] >> 4:
            return fail(ex_id, "not_shifted", "시작 주소를 바이트 그대로 넣었습니다: 디스크립터의 주소 필드는 16바이트 단위, "
                        "곧 (x & 0x3FFFF) >> 4 입니다 (LBO, SBO 도 같음).", at, fields, behaviour)
        if (f["lbo"], f["sbo"]) == (w["sbo"], w["lbo"]):
            return fail(ex_id, "lbo_sbo_swapped", "LBO 와 SBO 가 바뀌었습니다: N-major(전치된 B) 에서 LBO 는 다음 64열 상자까지 "
                        "(BK·128 바이트), SBO 는 다음 8행까지 (8 × 128 = 1024 바이트) 입니다.", at, fields, behaviour)
        if f["start"] == addr and kk:
            return fail(ex_id, "k_step", "k16 단계마다 시작 주소가 움직이지 않습니다: kk 번째 단계는 16행 아래, 곧 "
                        "kk·16·128 바이트 뒤에서 시작합니다.", at, fields, behaviour)
        if f["start"] != w["start"]:
            return fail(ex_id, "k_step", f"시작 주소가 {f['start']} 입니다 (맞는 값 {w['start']}): kk 번째 k16 단계는 "
                        "addr + kk·16행·128바이트 입니다 (A 처럼 32바이트씩이 아님: B 는 K 가 행 방향).", at, fields,
                        behaviour)
        if f["lbo"] != w["lbo"]:
            return fail(ex_id, "lbo", f"LBO 가 {f['lbo']} 바이트입니다: 다음 64열 상자는 BK 행 × 128 바이트 뒤에 있습니다.",
                        at, fields, behaviour)
        if f["sbo"] != w["sbo"]:
            return fail(ex_id, "sbo", f"SBO 가 {f['sbo']} 바이트입니다: 8행 묶음(스위즐 원자)은 8 × 128 = 1024 바이트입니다.",
                        at, fields, behaviour)
        return fail(ex_id, "wrong", "디스크립터가 다릅니다.", at, fields, behaviour)
    return passed(ex_id, "모든 경우에 wgmma 가 읽는 B 원소의 공유 주소가 TMA 가 놓은 자리와 같습니다 (BK = 64, 128; "
                  "k16 단계 전부).")


def _read_diff(d, addr, kk, BK):
    """What the wgmma would read with descriptor d: how many of the 16 x 256 B elements are the right ones."""
    try:
        got = wgmma.operand_addresses(d, 16, 256, "MN")
    except wgmma.DescriptorError as e:
        return f"  ({e})"
    want = _tma_b_positions(addr, BK, 256)[kk * 16:(kk + 1) * 16]
    ok = int((got == want).sum())
    return f"  이 디스크립터로 wgmma 가 읽는 B 원소 16×256 중 맞는 자리: {ok}개"


# ------------------------------------------------------------------------------------ 11-3: mbarrier phases

CONFIGS = ((4, 2, 3), (2, 3, 5), (3, 1, 7))


@exercise("11-3", "mbarrier 의 단계(phase): 어느 단계를, 어떤 parity 로 기다리나", "5. TMA 와 mbarrier",
          hints=("k-반복 it 는 단계 it % STAGES 를 씁니다. 단계 고리를 한 바퀴 돌 때마다(it // STAGES) full 과 empty 의 "
                 "단계(phase) 번호가 하나씩 오르고, try_wait.parity 는 그 번호의 짝홀을 봅니다.",
                 "소비자: full[s] 를 parity (it // STAGES) & 1 로. 생산자: empty[s] 를 그 반대 parity 로 — 새 mbarrier 는 "
                 "단계 0 이라 parity 1 기다림은 바로 통과합니다 (첫 바퀴는 비어 있으니 기다리지 않아야 함)."),
          solution="answers/ex11_ring.py::ring_phase", name="ring_phase",
          template='''
def ring_phase(it, stages):
    """k-반복 it 의 (단계 s, 소비자가 full[s] 를 기다릴 parity, 생산자가 empty[s] 를 기다릴 parity)."""
    # TODO: 단계 번호와 두 parity 를 it 와 stages 로 계산하세요
    raise NotImplementedError("TODO: (s, full_parity, empty_parity)")
''')
def check_ring(student):
    ex_id = "11-3"
    if _uses_model(student):
        return _model_used(ex_id)
    for it in range(12):
        v = student(it, 4)
        try:
            s, pf, pe = (int(x) for x in v)
        except (TypeError, ValueError):
            return fail(ex_id, "input", f"it = {it}: 정수 세 개 (s, full_parity, empty_parity) 를 돌려주세요 ({v!r:.60}).")
        if s != it % 4:
            return fail(ex_id, "stage", f"it = {it}, STAGES = 4: 단계가 {s} 인데 it % STAGES = {it % 4} 여야 합니다 "
                        "(고리의 단계는 차례로 돌아갑니다).")
        if pf not in (0, 1) or pe not in (0, 1):
            return fail(ex_id, "parity_range", f"it = {it}: parity 는 0 또는 1 입니다 (받은 값 {pf}, {pe}).")
    for stages, tiles, k_tiles in CONFIGS:
        for eager in (True, False):
            try:
                ws_ring.run(parities=lambda it, S: tuple(int(x) for x in student(it, S)), stages=stages, tiles=tiles,
                            k_tiles=k_tiles, eager=eager)
            except ws_ring.ProtocolError as e:
                cfg = f"  (STAGES = {stages}, 타일 {tiles}개 × k-타일 {k_tiles}개, {'생산자가 먼저' if eager else '소비자가 먼저'})"
                rows = [tuple(int(x) for x in student(i, stages)) for i in range(tiles * k_tiles)]
                table = "  it → (s, full, empty): " + ", ".join(f"{i}→{r}" for i, r in enumerate(rows[:2 * stages + 1]))
                right = [ws_ring.course_parities(i, stages) for i in range(tiles * k_tiles)]
                bad_full = next((i for i, (r, w) in enumerate(zip(rows, right)) if r[1] != w[1]), None)
                bad_empty = next((i for i, (r, w) in enumerate(zip(rows, right)) if r[2] != w[2]), None)
                if bad_empty is not None and (bad_full is None or bad_empty <= bad_full):
                    why = ("생산자가 첫 바퀴에서 empty 를 parity 0 으로 기다려 멈춥니다: 새 mbarrier 는 단계 0 이고 아직 아무도 "
                           "arrive 하지 않았으니, 생산자는 소비자와 반대 parity 를 기다려야 첫 바퀴를 그냥 지나갑니다."
                           if rows[0][2] == 0 else
                           f"생산자가 k-반복 {bad_empty} 에서 기다리는 empty 의 parity 가 틀렸습니다: 한 바퀴마다 바뀌고, 소비자의 "
                           "full parity 와 늘 반대입니다.")
                    return fail(ex_id, "producer_parity", why, e.ko, cfg, table)
                if bad_full is not None:
                    return fail(ex_id, "consumer_parity", f"k-반복 {bad_full} 의 소비자가 기다리는 full 의 parity 가 틀렸습니다: "
                                "parity 는 단계 고리를 한 바퀴 돌 때마다 바뀝니다 ((it // STAGES) & 1). 틀린 parity 는 "
                                "기다림을 너무 일찍 통과하거나(지난 바퀴의 데이터) 영원히 멈춥니다.", e.ko, cfg, table)
                return fail(ex_id, e.kind.lower(), "단계 고리가 어긋납니다.", e.ko, cfg, table)
    return passed(ex_id, "단계 고리(STAGES 2, 3, 4)를 생산자가 먼저 달리는 순서와 소비자가 먼저인 순서로 끝까지 돌렸습니다: "
                  "멈춤도, 덜 도착한 타일을 읽는 일도, 읽는 중인 단계를 덮어쓰는 일도 없습니다.")


# ------------------------------------------------------------------------------------ 11-4: the consumer loop

@exercise("11-4", "소비자 루프: 기다리고, wgmma 를 내고, 다 읽은 단계를 돌려주기", "6. 워프 특화와 영속 격자",
          hints=("순서가 전부입니다: 단계가 도착했는지 기다리고(wait_full), 그 단계로 wgmma 를 내고 커밋하고(mma, commit), "
                 "그 뒤 wgmma 가 다 읽은 단계만 돌려줍니다(release). 'wgmma 가 다 읽었다'는 것은 wait_mma 가 보장합니다.",
                 "wait_mma(1) 뒤에는 바로 앞 k-반복의 그룹이 끝나 있습니다: 그 단계 (it - 1) % stages 를 release 하세요 — "
                 "단 타일의 첫 k-반복(kt == 0)에는 앞 단계가 이미 타일 끝에서 풀렸습니다."),
          solution="answers/ex11_ring.py::consumer_step", name="consumer_step",
          template='''
def consumer_step(ring, it, kt):
    """소비자 워프그룹의 k-반복 it (지금 타일의 kt 번째): 단계 s 를 기다리고, wgmma 를 내고, 다 읽은 단계를 돌려줍니다.
    ring.wait_full(s, parity), ring.mma(s), ring.commit(), ring.wait_mma(n), ring.release(s) 를 씁니다."""
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    # TODO: 알맞은 순서로 ring 의 다섯 가지를 부르세요 (wgmma 그룹 하나는 날아가는 채로 두기)
    raise NotImplementedError("TODO: 소비자의 k-반복")
''')
def check_consumer(student):
    ex_id = "11-4"
    if _uses_model(student):
        return _model_used(ex_id)
    overlapped = False
    for stages, tiles, k_tiles in CONFIGS:
        for eager in (True, False):
            cfg = f"  (STAGES = {stages}, 타일 {tiles}개 × k-타일 {k_tiles}개, {'생산자가 먼저' if eager else '소비자가 먼저'})"
            probe = _Probe(student)
            try:
                ws_ring.run(consumer_step=probe, stages=stages, tiles=tiles, k_tiles=k_tiles, eager=eager)
            except ws_ring.ProtocolError as e:
                code, why = {
                    "ASYNC_WAR": ("release_before_wait", "wgmma 가 아직 읽는 단계를 돌려주었습니다: release 는 그 단계를 읽은 "
                                  "그룹이 wait_mma 로 끝난 뒤에만 합니다."),
                    "DOUBLE_RELEASE": ("double_release", "같은 단계를 두 번 돌려주었습니다 (타일의 첫 k-반복에 앞 단계를 또 "
                                       "풀었거나, 이번 단계를 바로 풀었음)."),
                    "DEADLOCK": ("deadlock", "멈춥니다: 단계를 돌려주지 않으면 생산자가 다시 채울 수 없습니다."),
                    "TMA_IN_FLIGHT": ("wait_full", "도착하지 않은 단계로 wgmma 를 냈습니다: 먼저 wait_full."),
                    "STALE": ("wait_full", "지난 바퀴의 데이터를 읽었습니다: 이번 parity 로 wait_full 하세요."),
                }.get(e.kind, ("order", "k-반복이 모두 계산되지 않았습니다 (commit 이나 wait_mma 를 빠뜨렸나요?)."))
                return fail(ex_id, code, why, e.ko, cfg)
            overlapped = overlapped or probe.overlap
    if not overlapped:
        return fail(ex_id, "no_overlap", "결과는 맞지만 wgmma 그룹이 하나도 날아가는 채로 남지 않습니다 (wait_mma(0) 만 쓰면 "
                    "다음 단계를 기다리는 동안 Tensor Core 가 놉니다): 이 문제는 앞 k-반복의 그룹 하나를 남기는 "
                    "wait_mma(1) 를 씁니다.")
    return passed(ex_id, "단계 고리를 두 가지 순서로 끝까지 돌렸습니다: 모든 k-반복이 자기 데이터로 계산되고, 단계는 wgmma 가 "
                  "다 읽은 뒤에만 돌아가며, 한 그룹이 날아가는 동안 다음 단계를 기다립니다.")


class _Probe:
    """Calls the student's consumer step and notes whether a wgmma group is still in flight after it (overlap)."""

    def __init__(self, student):
        self.student, self.overlap = student, False

    def __call__(self, ring, it, kt):
        self.student(ring, it, kt)
        if ring.groups and kt + 1 < ring.k_tiles:
            self.overlap = True
