"""Every registered kernel compiles for sm_80 and sm_90 without a GPU (NVVM -> PTX -> nvJitLink cubin)."""
import pytest

import kernels_numba as kn
from kernels_numba import offline


@pytest.mark.parametrize("cc", offline.ARCHS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("spec", kn.REGISTRY, ids=lambda s: s.name)
def test_compiles(spec, cc):
    r = offline.compile_kernel(spec.name, cc)
    assert f".target sm_{cc[0]}{cc[1]}" in r["ptx"]
    counts = offline.sass_counts(r["sass"])
    assert counts.get("FFMA", 0) > 0, "the inner product must be fused multiply-adds"
    assert r["usage"]["local_bytes"] == 0 and not any(k.startswith(("LDL", "STL")) for k in counts)
    assert offline.ptx_counts(r["ptx"])["call"] == 0
    if spec.level >= 2:
        assert counts.get("BAR.SYNC.DEFER_BLOCKING", 0) + counts.get("BAR.SYNC", 0) >= 2


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
