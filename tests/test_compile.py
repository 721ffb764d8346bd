"""Every registered kernel compiles for sm_80 and sm_90 without a GPU (NVVM -> PTX -> nvJitLink cubin)."""
import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.tools import offline


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("spec", kn.REGISTRY, ids=lambda s: s.name)
def test_compiles(spec, cc):
    if spec.arch_specific and tuple(cc) != tuple(spec.min_cc):
        # level 7 (sm_90a): no such instruction elsewhere; ptxas says so, naming wgmma
        r = offline.try_compile(spec.name, cc)
        assert "error" in r and "wgmma" in r["error"] and f"not supported on .target 'sm_{cc[0]}{cc[1]}'" in r["error"]
        return
    r = offline.compile_kernel(spec.name, cc)
    assert f".target sm_{cc[0]}{cc[1]}{'a' if spec.arch_specific else ''}" in r["ptx"]
    counts = offline.sass_counts(r["sass"])
    fp32 = spec.dtype == np.float32
    if fp32:
        assert counts.get("FFMA", 0) > 0, "the inner product must be fused multiply-adds"
    elif spec.level == 7:
        assert any(k.startswith("HGMMA") for k in counts), "a Hopper kernel must issue HGMMA (wgmma)"
    else:
        assert any(k.startswith("HMMA") for k in counts), "a Tensor Core kernel must issue HMMA"
    spills = r["usage"]["local_bytes"] > 0 or any(k.startswith(("LDL", "STL")) for k in counts)
    # a kernel may trade spills for occupancy on purpose (launch_bounds); its module says so with SPILLS = "why"
    assert spills == bool(getattr(spec.module, "SPILLS", "")), (r["usage"], getattr(spec.module, "SPILLS", ""))
    assert offline.ptx_counts(r["ptx"])["call"] == 0
    if spec.level >= 2:
        # two barriers (load, compute), except a pipeline whose one loop barrier also covers the prologue (async_vec)
        # and the one-warp Tensor Core kernels (one barrier after each copy; mma_simple has no loop)
        want = getattr(spec.module, "MIN_BARRIERS", 2 if fp32 else 1)
        assert counts.get("BAR.SYNC.DEFER_BLOCKING", 0) + counts.get("BAR.SYNC", 0) >= want


_ONE_PASS = r"""
import re, sys
from numba import cuda
from kernels_numba.tools import offline
from kernels_numba.registry import module_of

def same_up_to_names(ptx):
    names, smem = {}, {}
    ptx = re.sub(r"_Z\w+", lambda m: names.setdefault(m.group(0), f"SYM{len(names)}"), ptx)
    return re.sub(r"_cudapy_smem_\d+", lambda m: smem.setdefault(m.group(0), f"SMEM{len(smem)}"), ptx)

name = sys.argv[1]
kernel = offline._kernel_by_name(name)
sig = getattr(module_of(name), "SIG", offline.SIG)
both = offline._ptx_per_target(kernel, sig, list(offline.ARCHS), None)
for cc in offline.ARCHS:
    with offline.offline_device(cc):
        alone = cuda.compile_ptx(kernel.py_func, sig, cc=cc)[0]
    assert f".target sm_{cc[0]}{cc[1]}" in both[cc], cc
    assert same_up_to_names(both[cc]) == same_up_to_names(alone), cc
print("SAME")
"""


@pytest.mark.parametrize("name", ["tiled", "mma_simple"])
def test_one_front_end_pass_gives_each_targets_own_ptx(name):
    """offline compiles every target of a kernel from one pass of Numba's front end (_ptx_per_target); the PTX is the
    one a compile for that target alone gives, except the mangled symbol names (their ABI tag encodes the flags).
    Run as the compile worker runs (SGEMM_DEVICE=offline: Numba's real compiler, no GPU)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0")
    r = subprocess.run([sys.executable, "-c", _ONE_PASS, name], env=env, capture_output=True, text=True,
                       cwd=offline._ROOT)
    assert r.returncode == 0 and "SAME" in r.stdout, r.stderr[-3000:]


def test_fma_variant_identical_to_padded():
    """Numba's NVVM already contracts acc += a*b into fma.rn.f32: explicit cuda.fma changes nothing."""
    pad = offline.compile_kernel("tiled_pad", (9, 0))
    fma = offline.compile_kernel("tiled_fma", (9, 0))
    assert offline.ptx_counts(pad["ptx"])["fma.rn.f32"] == offline.ptx_counts(fma["ptx"])["fma.rn.f32"] > 0
    assert offline.ptx_counts(pad["ptx"])["mul.rn.f32"] == offline.ptx_counts(pad["ptx"])["add.rn.f32"] == 0
    assert offline.sass_counts(pad["sass"]) == offline.sass_counts(fma["sass"])


def test_unpadded_tile_gets_vector_loads():
    tiled = offline.sass_counts(offline.compile_kernel("tiled", (9, 0))["sass"])
    pad = offline.sass_counts(offline.compile_kernel("tiled_pad", (9, 0))["sass"])
    assert tiled.get("LDS.128", 0) == 4 and tiled["LDS"] == 16
    assert pad.get("LDS.128", 0) == 0 and pad["LDS"] == 32


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_t16_demo_spills(cc):
    """regblock_t16 (not registered) needs 256 accumulators: ptxas caps at 255 registers and spills to local memory."""
    r = offline.compile_kernel("regblock_t16", cc)
    counts = offline.sass_counts(r["sass"])
    assert r["usage"]["registers"] == 255
    assert r["usage"]["local_bytes"] + r["usage"]["stack_bytes"] > 0
    assert any(k.startswith("LDL") for k in counts) and any(k.startswith("STL") for k in counts)


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_regblock_vec_inner_loop_uses_lds128(cc):
    from kernels_numba.tools import resources
    body = resources.main_loop(offline.compile_kernel("regblock_vec", cc)["sass"])
    ops = [i.op for i in body]
    assert ops.count("LDS.128") == 32 and "LDS" not in ops          # 4 per k step, 8 k steps, no scalar LDS
    assert ops.count("FFMA") == 512                                  # fully unrolled: 8 x 64
    # <= 128 registers: two 256-thread blocks fit in an SM's 65536 registers
    assert offline.compile_kernel("regblock_vec", cc)["usage"]["registers"] <= 128


def test_regblock_explicit_fma_changes_nothing():
    """regblock_opt's cuda.fma: NVVM already contracts rC += rA*rB into fma.rn.f32, so the FMA counts are equal."""
    for cc in offline.ARCHS:
        base, opt = offline.compile_kernel("regblock", cc), offline.compile_kernel("regblock_opt", cc)
        p0, p1 = offline.ptx_counts(base["ptx"]), offline.ptx_counts(opt["ptx"])
        assert p0["fma.rn.f32"] == p1["fma.rn.f32"] > 0 and p0["mul.rn.f32"] == p0["add.rn.f32"] == 0
        assert offline.sass_counts(base["sass"])["FFMA"] == offline.sass_counts(opt["sass"])["FFMA"]


def test_offline_compiles_demo_modules_but_not_unknown_names():
    assert offline._kernel_by_name("regblock_t16").py_func.__module__ == "kernels_numba.demos.regblock_t16"
    with pytest.raises(kn.CourseInputError):
        offline._kernel_by_name("no_such_kernel")
    with pytest.raises(kn.CourseInputError):
        offline._kernel_by_name("launch")                            # a module without a kernel
