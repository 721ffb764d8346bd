"""The producer/consumer ring of a warp-specialised Hopper GEMM (kernels_numba/wgmma_ws.py) as a pure model.

STAGES shared-memory stages; for k-iteration `it` (counted across tiles) the producer fills stage it % STAGES with a
TMA copy and the consumer computes on it with wgmma. Each stage has two mbarriers (sim.tma.MBarrier):
* full[s]  (1 arrival per phase): the producer's arrive.expect_tx; the phase completes when the copy has landed;
* empty[s] (1 arrival per phase here: one consumer): the consumer's arrive once its wgmma no longer read the stage.
The wgmma are asynchronous: issued on a stage, committed as a group, done only at a wait_mma(n) (wgmma.wait_group n)
that covers the group. The model checks, for a consumer written against a small API (Ring), what the simulator checks
in the real kernel:
* the consumer's wgmma read the copy of their own k-iteration, landed (not the previous round's data, not a copy in
  flight): TMA_IN_FLIGHT / STALE;
* the producer never refills a stage that an in-flight wgmma still reads: ASYNC_WAR;
* no wait can hang: DEADLOCK (both sides wait, nothing can complete);
* every stage release matches one use: DOUBLE_RELEASE; every k-iteration is computed once (a second wgmma
  of the same k-iteration adds its product twice: DOUBLE_MMA), in order.
Copies land as late as the hardware allows (when the consumer has to wait for them); `eager=True` runs the producer as
far ahead as the barriers let it after every consumer step (the schedule that finds early releases). Pure Python:
course/ch11_hopper/exercises.py and notebook 11 use it.
"""
import numbers

from .korean import josa
from .tma import MBarrier


class ProtocolError(Exception):
    """A broken ring: kind (TMA_IN_FLIGHT, STALE, ASYNC_WAR, DEADLOCK, DOUBLE_RELEASE, ORDER), the k-iteration, why."""

    def __init__(self, kind, it, ko):
        self.kind, self.it, self.ko = kind, it, ko
        super().__init__(f"[{kind}] it={it}: {ko}")


def course_parities(it, stages):
    """(stage, full parity, empty parity) of k-iteration it: the consumer waits for this round's parity of full[s];
    the producer waits for the opposite parity of empty[s] (a fresh barrier's phase "-1" counts as complete)."""
    rnd = it // stages
    return it % stages, rnd & 1, (rnd & 1) ^ 1


class Ring:
    """The stages, barriers and asynchronous units; the consumer calls wait_full / mma / commit / wait_mma / release."""

    def __init__(self, stages=4, tiles=2, k_tiles=3, parities=course_parities, eager=False):
        self.stages, self.tiles, self.k_tiles, self.eager = stages, tiles, k_tiles, eager
        self.parities = parities
        self.iters = tiles * k_tiles
        self.full = [MBarrier(1) for _ in range(stages)]
        self.empty = [MBarrier(1) for _ in range(stages)]
        self.landed = [None] * stages           # k-iteration whose data the stage holds
        self.flying = [None] * stages           # k-iteration whose copy into the stage is in flight
        self.uncommitted, self.groups = [], []  # wgmma not committed / committed groups: [(stage, it), ...]
        self.released = [0] * stages            # releases since the stage was last read
        self.used = [0] * stages
        self.done = []                          # k-iterations whose wgmma finished
        self.issued = set()                     # k-iterations whose wgmma was issued
        self.it = None
        self.log = []
        self._producer = self._produce()
        self._blocked = None                    # what the producer waits for, or ("done",)

    # ---- producer (the course's, correct apart from the parity it is given)
    def _produce(self):
        for it in range(self.iters):
            s, _, pe = self.parities(it, self.stages)
            while not self.empty[s].test_wait(pe):
                yield ("empty", s, pe, it)
            for g in self.groups + [self.uncommitted]:
                for st, git in g:
                    if st == s:
                        raise ProtocolError("ASYNC_WAR", it, f"생산자가 k-반복 {it} 의 TMA 복사로 단계 {josa(s, '을/를')} 다시 채우는데, "
                                            f"k-반복 {git} 의 wgmma 가 아직 그 단계를 읽는 중입니다 (wait_group 으로 끝나기 "
                                            "전에 empty 에 arrive 했습니다).")
            if self.full[s].pending < 1 or self.flying[s] is not None:
                raise ProtocolError("OVERFLOW", it, f"생산자가 {josa(f'k-반복 {it}', '으로/로')} 단계 {josa(s, '을/를')} "
                                    "다시 채우는데 그 단계의 "
                                    f"앞 복사(k-반복 {self.flying[s]})를 아직 아무도 기다리지 않았습니다: full[{s}] 에 "
                                    "한 단계에 허용된 것보다 많은 arrive (하드웨어에서는 정의되지 않은 동작).")
            self.full[s].expect_tx(1)
            self.full[s].arrive()
            self.flying[s], self.landed[s] = it, None
            self.used[s], self.released[s] = 0, 0
            self.log.append(("copy", it, s))
        while True:
            yield ("done",)

    def _step_producer(self):
        """Advance the producer until it waits; True if it made progress."""
        before = len(self.log)
        self._blocked = next(self._producer)
        return len(self.log) > before

    def run_producer(self):
        while self._step_producer():
            pass

    def _land(self, s):
        if self.flying[s] is not None:
            self.landed[s], self.flying[s] = self.flying[s], None
            self.full[s].complete_tx(1)

    # ---- consumer API
    def wait_full(self, s, parity):
        """mbarrier.try_wait.parity on full[s], in a loop."""
        self._check_stage(s)
        while not self.full[s].test_wait(parity):
            self._land(s)
            if self.full[s].test_wait(parity):
                break
            if not self._step_producer():
                self._land(s)
                if self.full[s].test_wait(parity):
                    break
                b = self._blocked
                prod = ("생산자는 끝났습니다" if b[0] == "done" else
                        f"생산자는 empty[{b[1]}] 의 parity {josa(b[2], '을/를')} 기다립니다 (k-반복 {b[3]}, 그 barrier 의 단계 "
                        f"{self.empty[b[1]].phase})")
                raise ProtocolError("DEADLOCK", self.it, f"소비자가 full[{s}] 의 parity {josa(parity, '을/를')} 기다리는데 (그 barrier 는 "
                                    f"단계 {self.full[s].phase}) {prod}: 어느 쪽도 진행할 수 없습니다 — GPU 에서는 멈춥니다.")

    def mma(self, s):
        """wgmma.mma_async on stage s for the current k-iteration (asynchronous until wait_mma)."""
        self._check_stage(s)
        if self.landed[s] != self.it:
            if self.flying[s] == self.it:
                raise ProtocolError("TMA_IN_FLIGHT", self.it, f"k-반복 {self.it} 의 wgmma 가 단계 {josa(s, '을/를')} 읽는데 그 TMA 복사가 "
                                    "아직 도착하지 않았습니다: full 을 이번 단계의 parity 로 기다리세요.")
            held = (f"k-반복 {self.landed[s]} 의 데이터를" if self.landed[s] is not None else
                    "아직 아무 복사도 도착하지 않은 자리를")
            raise ProtocolError("STALE", self.it, f"k-반복 {self.it} 의 wgmma 가 단계 {s} 에서 {held} 읽습니다 (이번 "
                                "복사는 아직이거나 다른 단계로 갔습니다): 기다린 parity 나 단계 번호를 확인하세요.")
        if self.it in self.issued:
            raise ProtocolError("DOUBLE_MMA", self.it, f"k-반복 {self.it} 의 wgmma 를 두 번 냈습니다: scale-d = 1 인 wgmma 는 "
                                "누산기에 더하므로, 그 K 타일의 곱이 C 에 두 번 들어갑니다.")
        self.issued.add(self.it)
        self.uncommitted.append((s, self.it))
        self.used[s] += 1

    def commit(self):
        self.groups.append(self.uncommitted)
        self.uncommitted = []

    def wait_mma(self, n):
        """wgmma.wait_group n: all but the newest n committed groups are done."""
        while len(self.groups) > n:
            for s, it in self.groups.pop(0):
                if it not in self.done:
                    self.done.append(it)

    def release(self, s):
        """mbarrier.arrive on empty[s]: the consumer is done with stage s."""
        self._check_stage(s)
        self.released[s] += 1
        if self.released[s] > 1 or not self.used[s]:
            raise ProtocolError("DOUBLE_RELEASE", self.it, f"단계 {josa(s, '을/를')} 두 번 (또는 쓰기 전에) 풀었습니다: 한 번 쓴 단계는 "
                                "한 번만 empty 에 arrive 합니다 (타일의 첫 k-반복에는 풀 앞 단계가 없습니다).")
        self.empty[s].arrive()
        if self.eager:
            self.run_producer()

    def _check_stage(self, s):
        if not isinstance(s, numbers.Integral) or isinstance(s, bool) or not 0 <= s < self.stages:
            raise ProtocolError("ORDER", self.it, f"단계 번호 {josa(repr(s), '은/는')} 0..{self.stages - 1} 이어야 합니다.")


def course_consumer_step(ring, it, kt):
    """The consumer's k-iteration of kernels_numba/wgmma_ws.py, against the model."""
    s, pf, _ = ring.parities(it, ring.stages)
    ring.wait_full(s, pf)
    ring.mma(s)
    ring.commit()
    ring.wait_mma(1)
    if kt > 0:
        ring.release((it - 1) % ring.stages)


def tile_end(ring, it_last):
    """After a tile's last k-iteration: wait for every wgmma, release the last stage."""
    ring.wait_mma(0)
    ring.release(it_last % ring.stages)


def run(consumer_step=course_consumer_step, parities=course_parities, stages=4, tiles=2, k_tiles=3, eager=False):
    """Run the ring to the end with this consumer step; the Ring (its log, done) or ProtocolError."""
    ring = Ring(stages, tiles, k_tiles, parities, eager)
    if eager:
        ring.run_producer()
    it = 0
    for _ in range(tiles):
        for kt in range(k_tiles):
            ring.it = it
            consumer_step(ring, it, kt)
            if eager:
                ring.run_producer()
            it += 1
        tile_end(ring, it - 1)
        if eager:
            ring.run_producer()
    ring.run_producer()
    if sorted(ring.done) != list(range(ring.iters)) or ring._blocked != ("done",):
        missing = sorted(set(range(ring.iters)) - set(ring.done))
        raise ProtocolError("ORDER", it, f"끝났는데 계산되지 않은 k-반복이 있습니다: {missing} (또는 생산자가 끝나지 못함).")
    return ring
