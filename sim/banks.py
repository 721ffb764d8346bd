"""Shared-memory bank-conflict model: real warps, 4-byte words, 32 banks, wavefronts (pure Python)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from math import prod
from typing import NamedTuple

N_BANKS = 32
BANK_BYTES = 4
WARP_SIZE = 32
WAVEFRONT_BYTES = N_BANKS * BANK_BYTES   # one wavefront moves at most one word per bank: 128 B
WIDTHS = (1, 2, 4, 8, 16)
KINDS = ("load", "store")
WIDE_RULES = ("phases", "words")


def bank_of(addr: int) -> int:
    """Bank of a byte address."""
    return (addr // BANK_BYTES) % N_BANKS


def _dims(block_dim) -> tuple[int, int, int]:
    """Normalise an int or 1..3-tuple block shape to (bx, by, bz)."""
    dims = (block_dim,) if isinstance(block_dim, int) else tuple(int(d) for d in block_dim)
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise ValueError(f"block_dim must be 1..3 positive ints, got {block_dim!r}")
    return dims + (1,) * (3 - len(dims))


def linear_id(x: int, y: int, z: int, block_dim) -> int:
    """CUDA's linear thread id: x varies fastest, warps are cut from this order."""
    bx, by, _ = _dims(block_dim)
    return x + bx * (y + by * z)


def warps(block_dim) -> list[list[tuple[int, int, int]]]:
    """The block's warps: 32 consecutive linear ids each, as (x, y, z) in lane order; the last may be partial."""
    bx, by, bz = _dims(block_dim)
    threads = [(x, y, z) for z in range(bz) for y in range(by) for x in range(bx)]
    return [threads[i:i + WARP_SIZE] for i in range(0, len(threads), WARP_SIZE)]


@dataclass(frozen=True)
class Layout:
    """A row-major shared array whose last dimension is padded by `pad` elements."""
    shape: tuple
    itemsize: int = 4
    pad: int = 0
    base: int = 0

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(s) for s in self.shape))

    @property
    def declared(self) -> tuple:
        """The shape as declared in the kernel, padding included."""
        return self.shape[:-1] + (self.shape[-1] + self.pad,)

    @property
    def pitch_bytes(self) -> int:
        """Bytes from one row to the next (padding included)."""
        return self.itemsize * self.declared[-1]

    @property
    def nbytes(self) -> int:
        """Shared memory the declared (padded) array occupies."""
        return self.itemsize * prod(self.declared)

    def offset(self, index) -> int:
        """Byte address of element `index`; padding elements are not addressable."""
        try:
            index = tuple(int(i) for i in index)
        except TypeError:
            index = (int(index),)
        if len(index) != len(self.shape) or any(not 0 <= i < n for i, n in zip(index, self.shape)):
            raise IndexError(f"index {index} out of range for shape {self.shape}")
        flat = 0
        for i, n in zip(index, self.declared):
            flat = flat * n + i
        return self.base + flat * self.itemsize


class Access(NamedTuple):
    """One thread's part of a request: linear thread id, first byte address, bytes."""
    tid: int
    addr: int
    width: int = 4


@dataclass
class RequestReport:
    """What one warp-level shared-memory request costs and why."""
    kind: str
    width: int
    wide_rule: str
    lanes: list              # tids of the active threads, lane order
    banks: list              # per thread: banks it touches
    words: list              # distinct word addresses (byte address of each 4-byte word)
    distinct_words: int
    broadcasts: int          # threads that bring no new word: served by broadcast (or a duplicate store)
    wavefronts: int
    conflict_degree: int     # max distinct words in one bank (within one phase for wide_rule="phases")
    ideal_wavefronts: int    # ceil(bytes of distinct words / 128): the floor no layout can beat
    per_bank: dict           # bank -> sorted distinct word addresses
    word_tids: dict          # word address -> tids touching it

    def summary(self) -> str:
        """One Korean line: conflict or not, and the wavefront count."""
        w = self.wavefronts
        if not self.lanes:
            return "활성 스레드 없음: 웨이브프론트 0"
        if w <= self.ideal_wavefronts:
            return f"뱅크 충돌 없음: 웨이브프론트 {w}"
        if self.conflict_degree > 1:
            return f"{self.conflict_degree}-way 뱅크 충돌: 웨이브프론트 {w}"
        return (f"뱅크 충돌 없음, {self.width * 8}비트 접근의 단계 분할: "
                f"웨이브프론트 {w} (최소 {self.ideal_wavefronts})")


def _words(addr: int, width: int) -> list[int]:
    """Word addresses covered by one access."""
    first = addr // BANK_BYTES * BANK_BYTES
    return list(range(first, addr + width, BANK_BYTES))


def count_wavefronts(lane_words, width: int, wide_rule: str = "phases") -> tuple[int, int]:
    """(wavefronts, conflict degree) for [(lane, words), ...] of one request.

    A MODEL, to be checked against Nsight Compute (l1tex__data_pipe_lsu_wavefronts_mem_shared):
    within a group of lanes, threads on the same word share it (broadcast), and a bank holding
    n distinct words costs n wavefronts.
    "phases": the documented pre-Volta rule for wide accesses; 8 B accesses are served per
    half-warp, 16 B per quarter-warp (128 // width lanes), phases add up. For 4 B it is one group.
    "words": one wavefront serves any set of words with at most one per bank, whole warp at once.
    The real count for e.g. a broadcast 128-bit load is not documented; the two rules bracket it.
    """
    if wide_rule not in WIDE_RULES:
        raise ValueError(f"wide_rule must be one of {WIDE_RULES}, got {wide_rule!r}")
    size = min(WARP_SIZE, WAVEFRONT_BYTES // width) if wide_rule == "phases" else WARP_SIZE
    groups = defaultdict(lambda: defaultdict(set))
    for lane, words in lane_words:
        for word in words:
            groups[lane // size][bank_of(word)].add(word)
    depths = [max(len(ws) for ws in by_bank.values()) for by_bank in groups.values()]
    return sum(depths), max(depths, default=0)


def analyze_request(accesses, kind: str = "load", wide_rule: str = "phases") -> RequestReport:
    """Cost of ONE warp-level request: the accesses of one warp's active threads for one instruction."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    accesses = sorted((Access(*a) for a in accesses), key=lambda a: a.tid)
    tids = [a.tid for a in accesses]
    widths = {a.width for a in accesses}
    if len(set(tids)) != len(tids) or len({t // WARP_SIZE for t in tids}) > 1 or min(tids, default=0) < 0:
        raise ValueError(f"a request holds each thread of ONE warp at most once, got tids {tids}")
    if len(widths) > 1 or not widths <= set(WIDTHS):
        raise ValueError(f"one request has one width out of {WIDTHS}, got {sorted(widths)}")
    width = widths.pop() if widths else 4
    if any(a.addr < 0 or a.addr % a.width for a in accesses):
        raise ValueError("addresses must be non-negative and aligned to the access width")
    lane_words = [(a.tid % WARP_SIZE, _words(a.addr, a.width)) for a in accesses]
    word_tids, per_bank, broadcasts = defaultdict(list), defaultdict(set), 0
    for a, (_, words) in zip(accesses, lane_words):
        broadcasts += all(w in word_tids for w in words)   # every word already fetched by an earlier lane
        for w in words:
            word_tids[w].append(a.tid)
            per_bank[bank_of(w)].add(w)
    wavefronts, degree = count_wavefronts(lane_words, width, wide_rule)
    return RequestReport(
        kind=kind, width=width, wide_rule=wide_rule, lanes=tids,
        banks=[[bank_of(w) for w in words] for _, words in lane_words],
        words=sorted(word_tids), distinct_words=len(word_tids), broadcasts=broadcasts,
        wavefronts=wavefronts, conflict_degree=degree,
        ideal_wavefronts=-(-len(word_tids) * BANK_BYTES // WAVEFRONT_BYTES),
        per_bank={b: sorted(ws) for b, ws in sorted(per_bank.items())},
        word_tids=dict(sorted(word_tids.items())))


def analyze(layout: Layout, index_fn, block_dim, width: int = 4, kind: str = "load",
            active=None, wide_rule: str = "phases") -> list[RequestReport]:
    """One report per warp of the block for `layout[index_fn(x, y, z)]` (None or not active(x, y, z): idle)."""
    reports = []
    for w, warp in enumerate(warps(block_dim)):
        accesses = []
        for lane, (x, y, z) in enumerate(warp):
            index = None if active is not None and not active(x, y, z) else index_fn(x, y, z)
            if index is not None:
                accesses.append(Access(w * WARP_SIZE + lane, layout.offset(index), width))
        reports.append(analyze_request(accesses, kind, wide_rule))
    return reports


def analyze_trace(records, block_dim, wide_rule: str = "phases") -> list[dict]:
    """Per (array, site, op) summary rows of traced accesses, each row's `reports` keyed by (instance, warp)."""
    n_threads = prod(_dims(block_dim))
    groups = defaultdict(list)
    for array, site, op, instance, tid, addr, width in records:
        if not 0 <= tid < n_threads:
            raise ValueError(f"tid {tid} outside a block of {n_threads} threads")
        groups[(array, site, op), (instance, tid // WARP_SIZE)].append(Access(tid, addr, width))
    per_site = defaultdict(dict)
    for (key, req), accesses in sorted(groups.items()):
        per_site[key][req] = analyze_request(accesses, key[2], wide_rule)
    rows = []
    for (array, site, op), reports in sorted(per_site.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        wf = [r.wavefronts for r in reports.values()]
        rows.append(dict(array=array, site=site, op=op, requests=len(wf),
                         mean_wavefronts=sum(wf) / len(wf), max_wavefronts=max(wf),
                         total_wavefronts=sum(wf),
                         max_conflict=max(r.conflict_degree for r in reports.values()),
                         broadcasts=sum(r.broadcasts for r in reports.values()), reports=reports))
    return rows


def paper_exercise(pad: int, col: int = 5, rows: int = 16):
    """The textbook's hypothetical: ty=0..rows-1 read float smem[ty][col] of smem[16][16+pad] as ONE request.

    Returns ([(ty, byte address, bank), ...], report). Lanes are ty, which real warps of a
    (16, 16) block never are: there a warp holds only two rows (see `warps`).
    """
    layout = Layout((rows, 16), pad=pad)
    accesses = [Access(ty, layout.offset((ty, col))) for ty in range(rows)]
    table = [(a.tid, a.addr, bank_of(a.addr)) for a in accesses]
    return table, analyze_request(accesses)
