"""Register blocking models: an FMA-by-FMA outer/dot product tracer and arithmetic intensity per memory level."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

ORDERS = ("outer", "dot")
REG_LIMIT = 255                    # max registers per thread (sm_80 and sm_90): ptxas spills beyond it
SQUARE = (1, 2, 4, 8, 16)          # T for the square thread tiles TM = TN = T
ASYMMETRIC = ((4, 16), (16, 4), (8, 4), (4, 8), (2, 32))
DEFAULT_CONFIGS = tuple((t, t) for t in SQUARE) + ASYMMETRIC


def _positive(**values):
    """Raise ValueError unless every value is a positive int."""
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")


def schedule(TM: int, TN: int, BK: int = 1, order: str = "outer") -> list[tuple[int, int, int]]:
    """The (k, m, n) of every FMA in execution order.

    outer: for k, for m, for n  (the register-blocked micro-kernel of one k step)
    dot:   for m, for n, for k  (one output element finished before the next, as a notebook-06 thread does)
    """
    _positive(TM=TM, TN=TN, BK=BK)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if order == "outer":
        return [(k, m, n) for k in range(BK) for m in range(TM) for n in range(TN)]
    return [(k, m, n) for m in range(TM) for n in range(TN) for k in range(BK)]


@dataclass(frozen=True)
class TracerState:
    """Plain snapshot of an OuterProductTracer (tuples of ints, safe to keep)."""
    TM: int
    TN: int
    BK: int
    order: str
    fmas: int                      # FMAs done
    total_fmas: int                # TM * TN * BK
    loads: int                     # shared -> register loads (4-byte words) so far
    loads_per_fma: float | None    # None before the first FMA
    current: tuple | None          # (k, m, n) of the last FMA, None before the first
    new_loads: tuple               # ("A", m) / ("B", n) loaded for the last FMA
    k: int | None                  # k of the last FMA
    a_held: tuple                  # per m: does a register hold A[m][k] for the current k
    b_held: tuple                  # per n: does a register hold B[k][n] for the current k
    a_loads: tuple                 # [k][m]: times A[m][k] was loaded
    b_loads: tuple                 # [k][n]: times B[k][n] was loaded
    a_uses: tuple                  # [k][m]: FMAs that used A[m][k]
    b_uses: tuple                  # [k][n]: FMAs that used B[k][n]
    updates: tuple                 # [m][n]: FMAs into rC[m][n]
    done: bool

    def as_dict(self) -> dict:
        """The state as a dict."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


class OuterProductTracer:
    """Step through one thread's FMAs rC[m][n] += rA[m] * rB[n] and count shared -> register loads.

    outer: rA[0..TM-1] and rB[0..TN-1] stay in registers for the whole k step; a value is loaded
           the first time it is needed in that k (the kernel issues the same loads before its
           FMAs; the count per k, TM + TN, is the same).
    dot:   the thread holds one A and one B value, like a notebook-06 thread, so both operands
           are loaded for every FMA: 2 loads per FMA.
    """

    def __init__(self, TM: int = 4, TN: int = 4, BK: int = 1, order: str = "outer"):
        self.TM, self.TN, self.BK, self.order = TM, TN, BK, order
        self._schedule = schedule(TM, TN, BK, order)
        self.reset()

    @property
    def total_fmas(self) -> int:
        """TM * TN * BK."""
        return len(self._schedule)

    @property
    def done(self) -> bool:
        """True once every FMA has run."""
        return self.fmas == self.total_fmas

    def reset(self) -> None:
        """Back to before the first FMA: nothing loaded, rC untouched."""
        TM, TN, BK = self.TM, self.TN, self.BK
        self.fmas = 0
        self.loads = 0
        self.current = None
        self.new_loads = ()
        self.a_held = [False] * TM
        self.b_held = [False] * TN
        self.a_loads = [[0] * TM for _ in range(BK)]
        self.b_loads = [[0] * TN for _ in range(BK)]
        self.a_uses = [[0] * TM for _ in range(BK)]
        self.b_uses = [[0] * TN for _ in range(BK)]
        self.updates = [[0] * TN for _ in range(TM)]

    def step(self) -> tuple | None:
        """Run the next FMA; return its (k, m, n), or None when all are done."""
        if self.done:
            return None
        k, m, n = self._schedule[self.fmas]
        if self.current is None or self.current[0] != k or self.order == "dot":
            # new k (outer), or every FMA (dot: one A and one B register, overwritten each time)
            self.a_held = [False] * self.TM
            self.b_held = [False] * self.TN
        new = []
        if not self.a_held[m]:
            self.a_held[m] = True
            self.a_loads[k][m] += 1
            new.append(("A", m))
        if not self.b_held[n]:
            self.b_held[n] = True
            self.b_loads[k][n] += 1
            new.append(("B", n))
        self.loads += len(new)
        self.a_uses[k][m] += 1
        self.b_uses[k][n] += 1
        self.updates[m][n] += 1
        self.fmas += 1
        self.current, self.new_loads = (k, m, n), tuple(new)
        return self.current

    def run(self) -> TracerState:
        """Run every remaining FMA; return the final state."""
        while self.step() is not None:
            pass
        return self.state()

    def state(self) -> TracerState:
        """Snapshot for views and tests."""
        rows = lambda grid: tuple(tuple(r) for r in grid)  # noqa: E731
        return TracerState(
            TM=self.TM, TN=self.TN, BK=self.BK, order=self.order,
            fmas=self.fmas, total_fmas=self.total_fmas, loads=self.loads,
            loads_per_fma=self.loads / self.fmas if self.fmas else None,
            current=self.current, new_loads=self.new_loads,
            k=self.current[0] if self.current else None,
            a_held=tuple(self.a_held), b_held=tuple(self.b_held),
            a_loads=rows(self.a_loads), b_loads=rows(self.b_loads),
            a_uses=rows(self.a_uses), b_uses=rows(self.b_uses),
            updates=rows(self.updates), done=self.done)


def intensity(TM: int, TN: int, itemsize: int = 4) -> dict:
    """Shared memory -> register traffic of ONE thread for ONE k step of a TM x TN thread tile.

    Bytes are those the thread requests (words it loads into rA/rB), not shared-memory wavefronts:
    what the shared-memory pipe spends on them depends on the warp's addresses (sim.banks).
    Registers count data values only (rC, rA, rB as 32-bit words); indices, addresses and loop
    counters come on top and are only known from ptxas.
    """
    _positive(TM=TM, TN=TN, itemsize=itemsize)
    loads, fmas = TM + TN, TM * TN
    ai = Fraction(2 * fmas, loads * itemsize)
    acc = TM * TN
    declared = acc + TM + TN
    # Fewest live data registers with each value loaded once per k: all of rC, the shorter
    # fragment, and one value of the longer one streamed through (any schedule needs
    # min(TM, TN) + 1 fragment values live at one moment: see tests/test_outer.py).
    minimum = acc + min(TM, TN) + 1
    return dict(
        TM=TM, TN=TN, level="shared->register, per thread, per k",
        loads=loads, bytes=loads * itemsize, fmas=fmas, flops=2 * fmas,
        ai=float(ai), ai_exact=ai, loads_per_fma=loads / fmas,
        reuse_a=TN, reuse_b=TM,           # FMAs per loaded rA[m] / rB[n]
        acc_regs=acc, frag_regs=TM + TN,
        data_regs=declared, data_regs_min=minimum,
        reg_fraction=declared / REG_LIMIT, reg_fraction_min=minimum / REG_LIMIT,
        acc_fits=acc <= REG_LIMIT, fits=minimum <= REG_LIMIT)


def ai_closed_form(TM: int, TN: int) -> Fraction:
    """TM*TN / (2*(TM+TN)) FLOP/byte for float32 (T/4 when TM = TN = T)."""
    return Fraction(TM * TN, 2 * (TM + TN))


def ai_table(configs=DEFAULT_CONFIGS, itemsize: int = 4) -> list[dict]:
    """intensity() for each (TM, TN) in configs."""
    return [intensity(TM, TN, itemsize) for TM, TN in configs]


def block_intensity(BM: int, BN: int, BK: int, itemsize: int = 4, pad: int = 0) -> dict:
    """Global -> shared traffic of ONE block for ONE BK tile (load requests, as notebook 06 counts them).

    AI = BM*BN / (2*(BM+BN)) FLOP/byte for float32, independent of BK. DRAM traffic is lower
    because L2 serves tiles that other blocks also load.
    `pad` adds elements to each row of As[BM][BK] and Bs[BK][BN] for the shared-memory footprint.
    """
    _positive(BM=BM, BN=BN, BK=BK, itemsize=itemsize)
    loads, fmas = (BM + BN) * BK, BM * BN * BK
    ai = Fraction(2 * fmas, loads * itemsize)
    smem = (BM * (BK + pad) + BK * (BN + pad)) * itemsize
    return dict(BM=BM, BN=BN, BK=BK, level="global->shared, per block, per BK tile",
                loads=loads, bytes=loads * itemsize, fmas=fmas, flops=2 * fmas,
                ai=float(ai), ai_exact=ai, smem_bytes=smem)


def threads_per_block(BM: int, BN: int, TM: int, TN: int) -> tuple[int, int]:
    """(BM/TM, BN/TN): threads along M and N when each thread owns a TM x TN tile."""
    _positive(BM=BM, BN=BN, TM=TM, TN=TN)
    if BM % TM or BN % TN:
        raise ValueError(f"BM={BM}, BN={BN} must be multiples of TM={TM}, TN={TN}")
    return BM // TM, BN // TN


def roofline_bound(ai: float, peak_flops: float, bandwidth: float) -> float:
    """min(peak, bandwidth * AI); units as given (e.g. GFLOP/s and GB/s with AI in FLOP/byte)."""
    if ai < 0 or peak_flops <= 0 or bandwidth <= 0:
        raise ValueError("ai must be >= 0, peak_flops and bandwidth > 0")
    return min(peak_flops, bandwidth * ai)
