"""Check sim.occupancy against the CUDA driver's occupancy calculator on this GPU; exit 1 on any mismatch.

Usage (GPU machine): python benchmarks/occupancy_check.py [--json out.json] [--record course/recorded/x.json]
Kernels: synthetic Numba kernels forced to many register counts (cuda.jit(max_registers=...)) and with static shared
arrays of several sizes, plus every registered SGEMM kernel. For each: block sizes 64..1024 x dynamic shared sizes,
asked of cuOccupancyMaxActiveBlocksPerMultiprocessor (numba: ctx.get_active_blocks_per_multiprocessor) and of the model,
three ways: function attributes untouched (dynamic <= 48 KB), after opting in to the largest dynamic size, and with
preferred shared-memory carveouts 0..100 %.
"""
import argparse
import datetime
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np                               # noqa: E402

import kernels_numba as kn                       # noqa: E402  (picks the device before numba is imported)
from sim import occupancy as occ                 # noqa: E402
from kernels_numba import occupancy as kocc       # noqa: E402

BLOCKS = (64, 96, 128, 192, 200, 256, 288, 384, 512, 640, 768, 1000, 1024)
DYNAMIC = (0, 1, 1000, 4096, 8192, 17472, 32768, 41984, 48 * 1024, 50000, 64 * 1024, 100 * 1024, 140000,
           163 * 1024, 200000, 227 * 1024)
REG_CAPS = (24, 32, 40, 48, 56, 64, 72, 80, 90, 96, 104, 122, 128, 136, 168, 200, 232, 255)
STATIC = (2048, 8736, 17472, 40960)              # bytes of static shared memory in the light kernels
CARVEOUTS = (0, 10, 25, 50, 75, 100)
CARVEOUT_DYNAMIC = (0, 4096, 17472, 41984, 64 * 1024, 100 * 1024)
RECORD_BLOCKS = (200, 256, 1024)                 # rows kept in the recorded JSON (the CI test replays them)
N_LIVE = 256                                     # live floats in the heavy kernel: more than 255 registers can hold
SIG = "void(float32[::1], float32[::1])"


def _heavy_source(n):
    """A kernel keeping n floats live across a loop, so ptxas uses every register max_registers allows."""
    lines = ["def heavy(x, out):", "    i = cuda.grid(1)", "    if i >= out.size:", "        return"]
    lines += [f"    a{j} = x[(i + {j}) % x.size]" for j in range(n)]
    lines += ["    for t in range(x.size):", "        s = float32(t)"]
    lines += [f"        a{j} = a{j} * a{(j + 1) % n} + s" for j in range(n)]
    lines += ["    out[i] = " + " + ".join(f"a{j}" for j in range(n))]
    return "\n".join(lines)


def _light_source(static_bytes):
    """A small kernel with one static shared array of static_bytes bytes (used, so it is not optimised away)."""
    n = static_bytes // 4
    return "\n".join([
        "def light(x, out):",
        f"    sm = cuda.shared.array({n}, float32)",
        "    i = cuda.grid(1)",
        f"    sm[cuda.threadIdx.x % {n}] = x[i % x.size]",
        "    cuda.syncthreads()",
        "    if i < out.size:",
        f"        out[i] = sm[(cuda.threadIdx.x + 1) % {n}]",
    ])


def _jit(source, name, max_registers=None):
    from numba import cuda, float32
    ns = {"cuda": cuda, "float32": float32}
    exec(compile(source, f"<{name}>", "exec"), ns)           # noqa: S102 — our own generated source
    fn = ns[source.split("(")[0].split()[-1]]
    kwargs = {"max_registers": max_registers} if max_registers else {}
    return cuda.jit(SIG, **kwargs)(fn)


def _cufunc(dispatcher):
    """The loaded function (numba CudaPythonFunction) of a dispatcher's single compiled overload."""
    overload = next(iter(dispatcher.overloads.values()))
    return overload._codelibrary.get_cufunc()


def _relinked(dispatcher, cap):
    """The same Numba kernel linked again with max_registers=cap (what cuda.jit(max_registers=cap) passes to the
    linker), reusing its PTX: one NVVM compile instead of one per cap."""
    import copy
    lib = copy.copy(next(iter(dispatcher.overloads.values()))._codelibrary)
    lib._max_registers = cap
    lib._cubin_cache, lib._cufunc_cache, lib._linkerinfo_cache = {}, {}, {}
    return lib.get_cufunc()


def synthetic_kernels():
    """[(label, cufunc)] of the heavy kernel at every register cap and the light kernels with static shared arrays."""
    out = []
    heavy_src = _heavy_source(N_LIVE)
    heavy = _jit(heavy_src, "heavy", REG_CAPS[-1])
    for cap in REG_CAPS:
        if cap == REG_CAPS[-1]:
            fn = _cufunc(heavy)
        else:
            try:
                fn = _relinked(heavy, cap)
            except Exception as e:               # noqa: BLE001 — numba internals moved: compile it the plain way
                print(f"relink failed ({e.__class__.__name__}: {e}); cuda.jit(max_registers={cap}) instead")
                fn = _cufunc(_jit(heavy_src, f"heavy{cap}", cap))
        out.append((f"heavy_maxreg{cap}", fn))
    for s in STATIC:
        out.append((f"light_static{s}", _cufunc(_jit(_light_source(s), f"light{s}"))))
    return out


def registered_kernels():
    """[(label, cufunc, BLOCK)] of every registered kernel, compiled by one small launch; failures reported."""
    out, skipped = [], []
    rng = np.random.default_rng(0)
    for spec in kn.REGISTRY:
        try:
            A = rng.random((64, 48), dtype=np.float32)
            B = rng.random((48, 80), dtype=np.float32)
            with warnings.catch_warnings():      # the tiny grid's NumbaPerformanceWarning says nothing here
                warnings.simplefilter("ignore")
                spec.launch(A, B, np.zeros((64, 80), np.float32))
            out.append((spec.name, _cufunc(spec.kernel), tuple(spec.module.BLOCK)))
        except Exception as e:                   # noqa: BLE001 — another helper's kernel may be mid-edit
            skipped.append(f"{spec.name}: {e.__class__.__name__}: {str(e)[:200]}")
    return out, skipped


class Driver:
    """The driver's occupancy answer and the two function attributes that change it."""

    def __init__(self):
        from numba import cuda
        from numba.cuda.cudadrv.driver import binding, driver
        self.ctx, self.binding, self.driver = cuda.current_context(), binding, driver
        self.dev = cuda.get_current_device().id
        self.how = None

    def blocks(self, fn, block, dyn):
        if self.how != "cuKernelGetFunction":
            try:
                n = int(self.ctx.get_active_blocks_per_multiprocessor(fn, block, dyn))
                self.how = "numba ctx.get_active_blocks_per_multiprocessor"
                return n
            except Exception:                    # noqa: BLE001 — CUkernel handle refused: resolve the CUfunction
                if self.how is not None:
                    raise
        b = self.binding
        err, func = b.cuKernelGetFunction(fn.handle)
        assert err == b.CUresult.CUDA_SUCCESS, err
        err, n = b.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, block, dyn)
        assert err == b.CUresult.CUDA_SUCCESS, err
        self.how = "cuKernelGetFunction + cuOccupancyMaxActiveBlocksPerMultiprocessor"
        return int(n)

    def _set(self, fn, attr, value):
        a = getattr(self.binding.CUfunction_attribute, attr)
        self.driver.cuKernelSetAttribute(a, int(value), fn.handle, self.dev)

    def max_dynamic(self, fn, nbytes):
        self._set(fn, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", nbytes)

    def carveout(self, fn, percent):
        self._set(fn, "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT", percent)


def _table_key(name):
    for key in occ.GPUS:
        if key in name:
            return key
    return None


PRODUCT_FIELDS = ("sm_count", "boost_clock_mhz")      # differ between SXM / PCIe / NVL boards of one chip
RULE_FIELDS = ("cc", "smem_per_sm", "smem_per_block_optin", "smem_per_block_default",
               "smem_reserved_per_block", "regs_per_sm", "regs_per_block", "max_warps_per_sm", "max_blocks_per_sm",
               "max_threads_per_block")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None, help="write every row here")
    ap.add_argument("--record", default=None, help="write the summary + replayable rows here")
    args = ap.parse_args()
    if kn.device.MODE != "gpu":
        sys.exit("occupancy_check.py needs a GPU: the occupancy API is the driver's.")
    t0 = time.time()
    spec = kocc.current_gpu()
    attrs = kocc.device_attributes()
    key = _table_key(spec.name)
    table = occ.GPUS.get(key)
    table_diff = {f: [getattr(table, f), getattr(spec, f)] for f in RULE_FIELDS
                  if table and getattr(table, f) != getattr(spec, f)}
    product_diff = {f: [getattr(table, f), getattr(spec, f)] for f in PRODUCT_FIELDS
                    if table and getattr(table, f) != getattr(spec, f)}
    print(f"GPU {spec.name} sm_{spec.cc[0]}{spec.cc[1]}, table entry {key}: rules "
          + ("agree with the device attributes" if not table_diff else f"DIFFER {table_diff}")
          + (f"; board differs {product_diff}" if product_diff else "; SM count and clock agree too"))
    print("device attributes:", attrs)

    drv = Driver()
    kernels = [(label, fn, None) for label, fn in synthetic_kernels()]
    reg_kernels, skipped = registered_kernels()
    kernels += reg_kernels
    print(f"compiled {len(kernels)} kernels in {time.time() - t0:.1f} s; skipped: {skipped or 'none'}")

    rows, info, errors = [], [], []
    for label, fn, block in kernels:
        regs, static = int(fn.attrs.regs), int(fn.attrs.shared)
        info.append({"kernel": label, "registers": regs, "static_shared": static, "local_bytes": int(fn.attrs.local),
                     "max_threads": int(fn.attrs.maxthreads), "block": block})

        def check(block_size, dyn, carveout, optin, fn=fn, label=label, regs=regs, static=static):
            try:
                api = drv.blocks(fn, block_size, dyn)
            except Exception as e:               # noqa: BLE001 — an error is an answer too: "cannot launch"
                api = 0
                errors.append(f"{label} block={block_size} dyn={dyn}: {e.__class__.__name__}: {str(e)[:120]}")
            model = occ.occupancy(spec, regs, block_size, static + dyn, carveout).blocks_per_sm
            rows.append({"kernel": label, "regs": regs, "static": static, "block": block_size, "dyn": dyn,
                         "carveout": -1 if carveout is None else carveout, "optin": optin, "api": api,
                         "model": model})

        # 1) attributes untouched: dynamic shared memory up to the 48 KB default per-block limit
        for b in BLOCKS:
            for d in DYNAMIC:
                if static + d <= spec.smem_per_block_default:
                    check(b, d, None, 0)
        # 2) opted in to the largest dynamic size this kernel can have
        drv.max_dynamic(fn, spec.smem_per_block_optin - static)
        for b in BLOCKS:
            for d in DYNAMIC:
                if static + d <= spec.smem_per_block_optin:
                    check(b, d, None, 1)
        # 3) preferred carveouts (still opted in), then back to the default (-1)
        if label.startswith("light") or label in ("heavy_maxreg32", "heavy_maxreg64", "heavy_maxreg128"):
            for c in CARVEOUTS:
                drv.carveout(fn, c)
                for b in BLOCKS:
                    for d in CARVEOUT_DYNAMIC:
                        if static + d <= spec.smem_per_block_optin:
                            check(b, d, c, 1)
            drv.carveout(fn, -1)

    bad = [r for r in rows if r["api"] != r["model"]]
    by_pass = {}
    for r in rows:
        p = "carveout" if r["carveout"] != -1 else ("optin" if r["optin"] else "default")
        agree, total = by_pass.get(p, (0, 0))
        by_pass[p] = (agree + (r["api"] == r["model"]), total + 1)

    print(f"\n{'kernel':28s} {'regs':>4s} {'static':>6s} {'rows':>5s} {'agree':>5s}  api blocks at 256 threads, dyn 0")
    for k in info:
        mine = [r for r in rows if r["kernel"] == k["kernel"]]
        at256 = next((r["api"] for r in mine if r["block"] == 256 and r["dyn"] == 0 and r["carveout"] == -1), "-")
        print(f"{k['kernel']:28s} {k['registers']:4d} {k['static_shared']:6d} {len(mine):5d} "
              f"{sum(r['api'] == r['model'] for r in mine):5d}  {at256}")
    print("\nby pass:", {p: f"{a}/{t}" for p, (a, t) in by_pass.items()})
    for r in bad[:40]:
        print("MISMATCH", r)
    for e in errors[:10]:
        print("API ERROR (counted as 0 blocks)", e)
    print(f"\n{len(rows) - len(bad)}/{len(rows)} configurations agree ({len(bad)} mismatches); "
          f"occupancy API via {drv.how}; {time.time() - t0:.1f} s")

    registry_summary = []
    for label, fn, block in reg_kernels:
        threads = int(np.prod(block))
        o = occ.occupancy(spec, int(fn.attrs.regs), threads, int(fn.attrs.shared))
        registry_summary.append({"kernel": label, "block": list(block), "registers": int(fn.attrs.regs),
                                 "static_shared": int(fn.attrs.shared), "api_blocks": drv.blocks(fn, threads, 0),
                                 "model_blocks": o.blocks_per_sm, "occupancy": round(o.occupancy, 4),
                                 "limiter": o.limiter})
    try:
        import numba_cuda
        nc_version = numba_cuda.__version__
    except Exception:                            # noqa: BLE001
        nc_version = "?"
    summary = {
        "what": "benchmarks/occupancy_check.py: sim.occupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor",
        "gpu": spec.name, "cc": list(spec.cc), "date": datetime.date.today().isoformat(), "numba_cuda": nc_version,
        "occupancy_api": drv.how, "device_attributes": attrs, "table_entry": key, "table_vs_device": table_diff,
        "board_vs_table": product_diff,
        "total": len(rows), "agree": len(rows) - len(bad), "by_pass": {p: list(v) for p, v in by_pass.items()},
        "mismatches": bad[:200], "api_errors": errors[:50], "n_api_errors": len(errors),
        "skipped_kernels": skipped, "kernels": info, "registry": registry_summary,
        "row_fields": ["regs", "static", "block", "dyn", "carveout", "optin", "api"],
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(summary, rows=rows), f, indent=1)
    if args.record:
        seen, kept = set(), []
        for r in rows:
            t = tuple(r[k] for k in summary["row_fields"])
            if r["block"] in RECORD_BLOCKS and t[:-1] not in seen:
                seen.add(t[:-1])
                kept.append(t)
        from course import records               # the one record schema (rows one per line: small, diffable)
        path = os.path.abspath(args.record)
        records.save(records.from_flat(os.path.splitext(os.path.basename(path))[0],
                                       dict(summary, rows=[list(t) for t in kept]), "occupancy",
                                       "sim.occupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor "
                                       "(benchmarks/occupancy_check.py)"), os.path.dirname(path))
    return 1 if bad or table_diff else 0


if __name__ == "__main__":
    sys.exit(main())
