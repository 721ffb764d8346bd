"""GPU records: one schema, one loader. A record file holds runs; a run holds timing rows; the rest is `extra`.

    rec = records.load("gpu_h100_levels15")      # <name>.json in course/recorded/ or a chapter's records/
    run = rec.run()                              # the run (or rec.run("run6"))
    run.ratio("async_wide", 4096)                # % of the same run's baseline, as a fraction
    [r.tflops for r in run.select(n=4096)]

Where records live (`folders()`): a record that several chapters, the README tables' tools or the bench engine read
is in course/recorded/; one that a single chapter reads is in that chapter's folder, course/chNN_<slug>/records/
(course/chapters.py). Names are unique across them, so a record is loaded by name alone; `find` locates any record
file (a .json, or a .csv.gz or .log beside it). Every .json record has this layout (tests/test_records.py loads them
all):

    {"schema": "sgemm-record/1", "what": "...", "runs": [Run...], "extra": {...}}

A Run says where and how it was measured (gpu, cc, date, versions, baseline, method, clocks) and holds Rows of
kernel, variant, size, ms, tflops, ratio and correct. `extra` keeps what is not a timing row (ncu metrics, SASS
counts, correctness cases, sanitizer summaries, notes), per record, by the name the lessons use. Pure Python: no numba.
"""
import functools
import json
import math
import statistics
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from course import chapters

SCHEMA = "sgemm-record/1"
RECORDED = Path(__file__).resolve().parent / "recorded"
BASELINE_SPREAD = 0.05          # a run whose cuBLAS figure lies further than this from its GPU class's median: flagged


@dataclass(frozen=True)
class Row:
    """One timed (kernel, size): ms per call, TFLOP/s, ratio to the same run's baseline at that size."""
    kernel: str                         # registry name, or "cuBLAS" for the baseline
    n: int                              # M = N = K = n (square runs); `shape` when not square
    ms: float
    tflops: float
    ratio: float                        # baseline ms / this ms, in the same run (1.0 for the baseline itself; None
    #                                     in a run without a baseline, such as a launch-cost run)
    correct: bool = None                # checked against a float64 reference before timing (None: not recorded)
    variant: str = ""                   # a configuration of the kernel other than the registered one ("no_lean")
    rel_err: float = None
    spread: tuple = None                # (min, max) ratio over the rounds, where rounds were timed
    host_us: float = None               # host time of one launch, where measured
    shape: tuple = None                 # (M, N, K) when not n^3
    extra: dict = field(default_factory=dict)

    @property
    def label(self):
        return f"{self.kernel}[{self.variant}]" if self.variant else self.kernel


@dataclass(frozen=True)
class Run:
    """One measuring session on one GPU: who, where, how, and its rows."""
    id: str
    gpu: str
    cc: tuple
    date: str
    baseline: str                       # what the ratios divide by ("cuBLAS SGEMM (cublasSgemm, FP32, TF32 off)")
    method: str                         # how time was taken ("CUDA events around back-to-back launches, ...")
    rows: tuple = ()
    versions: dict = field(default_factory=dict)
    clocks: dict = field(default_factory=dict)      # SM clock / power during the run, where logged
    flagged: str = ""                   # why this run must not be used for a goal ("" = not flagged)
    note: str = ""
    extra: dict = field(default_factory=dict)       # what the run found besides timing rows (resources, checks)

    def select(self, kernel=None, n=None, variant=None):
        """Rows of this run, filtered by kernel name, size and variant (None: any)."""
        return [r for r in self.rows if (kernel is None or r.kernel == kernel) and (n is None or r.n == n)
                and (variant is None or r.variant == variant)]

    def row(self, kernel, n, variant=""):
        """The one row of (kernel, n, variant); KeyError naming what the run has otherwise."""
        hits = self.select(kernel, n, variant)
        if len(hits) != 1:
            have = sorted({(r.label, r.n) for r in self.rows})
            raise KeyError(f"run {self.id}: {len(hits)} rows for {kernel}[{variant}] at {n}; it has {have}")
        return hits[0]

    def ratio(self, kernel, n, variant=""):
        return self.row(kernel, n, variant).ratio

    def tflops(self, kernel, n, variant=""):
        return self.row(kernel, n, variant).tflops

    @property
    def sizes(self):
        return sorted({r.n for r in self.rows})

    @property
    def kernels(self):
        return list(dict.fromkeys(r.kernel for r in self.rows))

    @property
    def name(self):
        """'NVIDIA H100 80GB HBM3, 2026-11-26 (run id)': how a table names its run."""
        return f"{self.gpu}, {self.date} ({self.id})"

    @property
    def gpu_class(self):
        return gpu_class(self.gpu)


@dataclass(frozen=True)
class Record:
    """A record file (records.folders()): what it is, its runs, and everything else it keeps (`extra`)."""
    name: str
    what: str
    runs: tuple = ()
    extra: dict = field(default_factory=dict)

    def run(self, id=None):
        """The run called `id`, or the only (else the last) run of the record."""
        if id is None:
            if not self.runs:
                raise KeyError(f"record {self.name} has no timing runs")
            return self.runs[-1]
        for r in self.runs:
            if r.id == id:
                return r
        raise KeyError(f"record {self.name} has no run {id!r}; it has {[r.id for r in self.runs]}")

    @property
    def rows(self):
        """The rows of the record's run (its last, where it has several)."""
        return self.run().rows

    @property
    def gpu(self):
        return self.run().gpu

    @property
    def date(self):
        return self.run().date

    @property
    def cc(self):
        return self.run().cc

    def __getitem__(self, key):
        """extra[key]: the record's non-timing sections (ncu, SASS, correctness, notes)."""
        return self.extra[key]

    def get(self, key, default=None):
        return self.extra.get(key, default)


def gpu_class(name):
    """'NVIDIA H100 80GB HBM3' -> 'H100'; 'NVIDIA H200' -> 'H200'; others: the name without 'NVIDIA '."""
    words = str(name).replace("NVIDIA", "").split()
    for w in words:
        if w[:1] in "HABLTV" and any(c.isdigit() for c in w):
            return w
    return " ".join(words)


# ---- reading and writing ------------------------------------------------------------------------------------------

def _row(d):
    d = dict(d)
    for k in ("spread", "shape"):
        if d.get(k) is not None:
            d[k] = tuple(d[k])
    known = {f.name for f in fields(Row)}
    extra = {k: d.pop(k) for k in list(d) if k not in known}
    if extra:
        d["extra"] = {**d.get("extra", {}), **extra}
    return Row(**d)


def _run(d):
    d = dict(d)
    d["cc"] = tuple(d.get("cc") or ())
    d["rows"] = tuple(_row(r) for r in d.get("rows", ()))
    return Run(**d)


def from_dict(name, d):
    """A Record from the JSON layout above; ValueError saying what is missing otherwise."""
    if d.get("schema") != SCHEMA:
        raise ValueError(f"{name}: not a {SCHEMA} record (schema={d.get('schema')!r})")
    try:
        return Record(name=name, what=d["what"], runs=tuple(_run(r) for r in d.get("runs", ())),
                      extra=d.get("extra", {}))
    except TypeError as e:
        raise ValueError(f"{name}: {e}") from None


META = ("gpu", "cc", "date", "numba_cuda", "cupy")


def from_flat(name, d, run_id, method):
    """A Record without timing rows from a flat dict of findings (a layout probe, a sanitizer run, an occupancy
    check): gpu/cc/date/versions go into one row-less run, `what` stays, everything else becomes `extra`."""
    run = Run(id=run_id, gpu=d["gpu"], cc=tuple(d["cc"]), date=str(d.get("date", "")), baseline="none",
              method=method, versions={k: d[k] for k in ("numba_cuda", "cupy") if k in d})
    return Record(name, d.get("what") or method, (run,), {k: v for k, v in d.items() if k not in META + ("what",)})


def folders():
    """The folders records live in: course/recorded/ first, then each chapter's records/ (where it has one)."""
    return (RECORDED, *(c.records for c in chapters.CHAPTERS if c.records.is_dir()))


def find(filename, folder=None):
    """The path of a record file (`<name>.json`, or a raw export or log beside it) in `folder`, else in any folder."""
    where = (Path(folder),) if folder is not None else folders()
    for f in where:
        if (f / filename).exists():
            return f / filename
    raise FileNotFoundError(f"no record file {filename!r} in {', '.join(str(f) for f in where)}")


def load(name, folder=None):
    """The record <name>.json (in `folder`, else wherever it lives: folders())."""
    path = find(f"{name}.json", folder)
    st = path.stat()
    return _load(name, str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=1024)
def _load(name, path, _mtime_ns, _size):
    """Parsed once per file version: a live table reads every record several times (sizes, the baseline check), and
    parsing ~120 files took 0.4 s of a warm benchmark cell on the H100 host. Records are frozen dataclasses."""
    with open(path, encoding="utf-8") as f:
        return from_dict(name, json.load(f))


def names(folder=None):
    """Names of every record file (in `folder`, else in all folders())."""
    where = (Path(folder),) if folder is not None else folders()
    return sorted(p.stem for f in where for p in f.glob("*.json"))


def to_dict(record):
    """The JSON layout of a Record (inverse of from_dict)."""
    def clean(obj):
        if isinstance(obj, float) and not math.isfinite(obj):
            return None
        if isinstance(obj, tuple):
            return [clean(x) for x in obj]
        if isinstance(obj, list):
            return [clean(x) for x in obj]
        if isinstance(obj, dict):
            return {k: clean(v) for k, v in obj.items()}
        return obj

    def row(r):
        d = asdict(r)
        return {k: v for k, v in d.items() if v not in (None, "", {}) or k in ("kernel", "n", "ms", "tflops", "ratio")}

    runs = []
    for run in record.runs:
        d = {f.name: getattr(run, f.name) for f in fields(Run) if f.name != "rows"}
        d["rows"] = [row(r) for r in run.rows]
        runs.append(d)
    return clean({"schema": SCHEMA, "what": record.what, "runs": runs, "extra": record.extra})


def _scalars(x, most=None):
    return isinstance(x, list) and all(not isinstance(v, (dict, list)) for v in x) and (most is None or len(x) <= most)


def dumps(obj, indent=0, in_list=False):
    """JSON text with one key per line, but a list of numbers or strings on one line (tables stay short to read), and
    inside a list, a list of short tuples too (a thread's [row, col] pairs: one line per thread, not per pair)."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if _scalars(obj) or (in_list and obj and all(_scalars(x, 4) for x in obj)):
            return json.dumps(obj, ensure_ascii=False)
        return "[\n" + ",\n".join(inner + dumps(x, indent + 1, True) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def save(record, folder=None):
    """Write `record` as <name>.json in `folder`; by default where it already lives, a new one in course/recorded/."""
    if folder is None:
        try:
            folder = find(f"{record.name}.json").parent
        except FileNotFoundError:
            folder = RECORDED
    path = Path(folder) / f"{record.name}.json"
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(to_dict(record)) + "\n")
    return path


def all_runs(folder=None):
    """Every run of every record, with its record's name: [(record name, Run)]."""
    return [(name, run) for name in names(folder) for run in load(name, folder).runs]


def reference(gpu, kernel, n, baseline_kind, folder=None, variant="", engine=None):
    """(Row, Run) of the newest unflagged recorded run on the same GPU class that timed (kernel, n, variant) against
    a baseline starting with `baseline_kind`; engine: only runs timed by that engine (versions["engine"]; earlier
    harnesses timed cuBLAS differently: the same kernel's ratio moved by 12-15 % through the baseline alone). None
    where no such record exists."""
    best = None
    for _name, run in all_runs(folder):
        if run.flagged or run.gpu_class != gpu_class(gpu) or not run.baseline.startswith(baseline_kind):
            continue
        if engine is not None and run.versions.get("engine") != engine:
            continue
        for r in run.select(kernel, n, variant):
            if best is None or run.date >= best[1].date:
                best = (r, run)
    return best


# ---- trusting a baseline -----------------------------------------------------------------------------------------

def baseline_sources(gpu, baseline_kind, n, folder=None, exclude=(), engine=None, before=None):
    """[(record name, Run, cuBLAS TFLOP/s)] at size n in earlier unflagged runs of the same GPU class whose baseline
    starts with `baseline_kind` ("cuBLAS SGEMM" / "cuBLAS HGEMM"); engine: only runs timed by that engine
    (versions["engine"]: like is compared with like — earlier harnesses timed cuBLAS through CuPy's handle, 12-15 %
    apart between runs); before: only runs of that date or earlier."""
    out = []
    for name, run in all_runs(folder):
        if run.id in exclude or run.flagged or run.gpu_class != gpu_class(gpu):
            continue
        if (engine is not None and run.versions.get("engine") != engine) or (before and run.date > before):
            continue
        if not run.baseline.startswith(baseline_kind):
            continue
        out += [(name, run, r.tflops) for r in run.select("cuBLAS", n) if _gpu_bound(r)]
    return out


def baseline_history(gpu, baseline_kind, n, folder=None, exclude=(), engine=None, before=None):
    """cuBLAS TFLOP/s of baseline_sources (the figures baseline_check takes the median of)."""
    return [tf for _name, _run, tf in baseline_sources(gpu, baseline_kind, n, folder, exclude, engine, before)]


def _gpu_bound(row):
    """True if a row's time is the GPU's: timed from a CUDA graph, or long enough (>= 0.1 ms) that back-to-back
    launches kept the GPU busy (a 17 us cuBLAS call timed by events measures Python's launch rate, not cuBLAS)."""
    return row.extra.get("timed_by") == "graph" or row.ms >= 0.1


def baseline_check(run, baseline_kind, folder=None, spread=BASELINE_SPREAD):
    """'' if every cuBLAS figure of `run` lies within `spread` of the median of its GPU class's earlier runs timed by
    the same engine (or no such history exists), else a sentence saying which size is off and by how much."""
    off = []
    for r in run.select("cuBLAS"):
        hist = baseline_history(run.gpu, baseline_kind, r.n, folder, exclude=(run.id,),
                                engine=run.versions.get("engine"), before=run.date)
        if not hist:
            continue
        med = statistics.median(hist)
        dev = r.tflops / med - 1
        if abs(dev) > spread:
            off.append(f"{r.n}³ cuBLAS {r.tflops:.1f} TFLOP/s is {100 * dev:+.1f} % from the median {med:.1f} of "
                       f"{len(hist)} earlier {run.gpu_class} runs")
    return "; ".join(off)
