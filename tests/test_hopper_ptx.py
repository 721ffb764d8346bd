"""Hopper's PTX files (wgmma, mbarrier, TMA, proxy fences, setmaxnreg): ptxas accepts each for exactly the targets
that have it, the parser reads their new shapes, and a Numba kernel using them compiles for sm_90a without a GPU
(NVVM -> PTX -> nvJitLink) with every instruction inlined: HGMMA, UTMALDG, SYNCS in the SASS, no CALL, no local memory."""
import json
import os
import re
import subprocess
import sys

import pytest

from kernels_numba.infra import ptx
from kernels_numba.tools import offline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = [f for f in ptx.ptx_files() if ptx.parse_file(f)[0].target in ("sm_90", "sm_90a")]
# .target sm_90a files: wgmma exists on sm_90a only (not on sm_90, nor on Blackwell's sm_100a / sm_120a); setmaxnreg
# on the arch-specific targets sm_90a, sm_100a, sm_120a. .target sm_90 files (mbarrier, TMA, fences) exist on sm_90
# and every later target.
ARCHS = {"sm_90a": ("sm_90a",), "sm_90": ("sm_90", "sm_90a", "sm_100", "sm_120")}
SETMAXNREG_ARCHS = ("sm_90a", "sm_100a", "sm_120a")


def _ptxas():
    try:
        return offline._tool("ptxas")
    except offline.OfflineCompileError:
        pytest.skip("ptxas not found: pip install nvidia-cuda-nvcc")


def _assemble(text, arch, tmp_path):
    src = tmp_path / f"k_{arch}.ptx"
    src.write_text(text)
    return subprocess.run([_ptxas(), f"-arch={arch}", str(src), "-o", str(tmp_path / "k.o")], capture_output=True,
                          text=True)


def test_hopper_files_exist():
    names = {f.name for f in map(lambda p: ptx.parse_file(p)[0], HOPPER)}
    assert {"wgmma_fence", "wgmma_commit_group", "wgmma_wait_group_0", "wgmma_wait_group_1",
            "wgmma_m64n64k16_f32_f16", "wgmma_m64n128k16_f32_f16", "wgmma_m64n256k16_f32_f16",
            "wgmma_m64n128k16_f32_bf16", "mbarrier_init", "mbarrier_arrive", "mbarrier_arrive_expect_tx",
            "mbarrier_try_wait_parity", "tma_load_2d", "fence_proxy_async", "fence_proxy_tensormap_acquire",
            "setmaxnreg_dec_40", "setmaxnreg_inc_232"} <= names


@pytest.mark.parametrize("path", HOPPER, ids=os.path.basename)
def test_ptxas_accepts_for_every_target_that_has_it(path, tmp_path):
    text = open(path).read()
    target = ptx.parse_file(path)[0].target
    archs = SETMAXNREG_ARCHS if os.path.basename(path).startswith("setmaxnreg") else ARCHS[target]
    assert re.search(r"^\.version 8\.[0-9]$", text, re.M) and re.search(r"^\.address_size 64$", text, re.M)
    for arch in archs:
        t = text.replace(f".target {target}\n", f".target {arch}\n")
        if arch not in ("sm_90", "sm_90a"):          # a later target needs a later PTX ISA version to be named
            t = re.sub(r"^\.version 8\.[0-9]$", f".version {offline.CHECK_PTX_VERSION}", t, flags=re.M)
        r = _assemble(t, arch, tmp_path)
        assert r.returncode == 0, f"ptxas -arch={arch} rejected {path}:\n{r.stderr}"


@pytest.mark.parametrize("name", ["wgmma_fence.ptx", "wgmma_m64n64k16_f32_f16.ptx", "wgmma_wait_group_0.ptx"])
def test_sm90a_only_instructions_are_rejected_elsewhere(name, tmp_path):
    """The evidence for 'sm_90a, not sm_90': ptxas refuses wgmma for plain sm_90 and for Blackwell's sm_100a."""
    text = open(os.path.join(ptx.PTX_DIR, name)).read()
    plain = _assemble(text.replace(".target sm_90a", ".target sm_90"), "sm_90", tmp_path)
    assert plain.returncode != 0 and "not supported on .target 'sm_90'" in plain.stderr, plain.stderr
    newer = _assemble(text.replace(".version 8.0", ".version 8.7").replace(".target sm_90a", ".target sm_100a"),
                      "sm_100a", tmp_path)
    assert newer.returncode != 0 and "not supported on .target 'sm_100a'" in newer.stderr, newer.stderr


def test_setmaxnreg_needs_an_arch_specific_target(tmp_path):
    text = open(os.path.join(ptx.PTX_DIR, "setmaxnreg_dec_40.ptx")).read()
    plain = _assemble(text.replace(".target sm_90a", ".target sm_90"), "sm_90", tmp_path)
    assert plain.returncode != 0, plain.stderr


def test_parser_reads_the_hopper_shapes():
    wg = ptx.FUNCS["wgmma_m64n64k16_f32_f16"]
    assert wg.accumulates and len(wg.results) == 32 and wg.target == "sm_90a"
    cons = wg.constraints().split(",")
    # 32 outputs, the same 32 registers tied as inputs, two 64-bit descriptors, the memory clobber
    assert cons[:32] == ["=f"] * 32 and cons[32:64] == [str(i) for i in range(32)]
    assert cons[64:] == ["l", "l", "~{memory}"] and wg.side_effect
    assert wg.asm_template().endswith("}, $64, $65, 1, 1, 1, 0, 1;")
    tma = ptx.FUNCS["tma_load_2d"]
    assert [(p.name, p.space) for p in tma.operands] == [("dst", "shared"), ("tmap", "global"), ("c0", None),
                                                         ("c1", None), ("bar", "shared")]
    assert tma.asm_template().endswith("[$0], [$1, {$2, $3}], [$4];") and tma.side_effect
    wait = ptx.FUNCS["mbarrier_try_wait_parity"]
    assert [p.type for p in wait.results] == ["pred"] and wait.constraints() == "=b,r,r,~{memory}"
    assert wait.side_effect                  # a wait must never be removed or merged
    for name in ("wgmma_fence", "wgmma_commit_group", "wgmma_wait_group_0", "fence_proxy_async"):
        assert ptx.FUNCS[name].constraints() == "~{memory}", name
    assert not ptx.FUNCS["mma_m16n8k16_f32"].accumulates


KERNEL = r'''
from numba import cuda, float32, uint32, uint64
from numba.types import float16
from kernels_numba.infra import ptx

def kernel(C, tmap, da):
    As = cuda.shared.array((128, 64), float16, alignment=1024)
    bars = cuda.shared.array(2, uint64)
    acc = cuda.local.array(64, float32)
    t = cuda.threadIdx.x
    for i in range(64):
        acc[i] = 0.0
    if t == 0:
        ptx.mbarrier_init(bars, 0, 1)
        ptx.fence_proxy_async()
    cuda.syncthreads()
    if t == 0:
        ptx.fence_proxy_tensormap_acquire(tmap, 0)
        ptx.mbarrier_arrive_expect_tx(bars, 0, 16384)
        ptx.tma_load_2d(As, 0, 0, tmap, 0, 0, 0, bars, 0)
    while not ptx.mbarrier_try_wait_parity(bars, 0, 0):
        pass
    ptx.wgmma_fence()
    for k in range(4):
        ptx.wgmma_m64n128k16_f32_f16(acc, da + uint64(2 * k), da + (ptx.shared_address(As, 0, 0) >> 4))
    ptx.wgmma_commit_group()
    ptx.wgmma_wait_group_0()
    for i in range(64):
        C[t, i] = acc[i]
'''

RUNNER = r'''
import json, sys, types
import kernels_numba
from kernels_numba.tools import offline
from numba import cuda
mod = types.ModuleType("hopper_test_kernels")
exec(compile(sys.stdin.read(), "<hopper kernels>", "exec"), mod.__dict__)
with offline.offline_device((9, 0)):
    ptx, _ = cuda.compile_ptx(mod.kernel, "void(float32[:, ::1], uint64[::1], uint64)", cc=(9, 0, "a"))
cubin, log = offline.ptx_to_cubin(ptx, (9, 0, "a"), with_log=True)
sass, usage = offline.cubin_report(cubin)
json.dump({"ptx": ptx, "sass": sass, "usage": usage, "log": log}, sys.stdout)
'''


@pytest.fixture(scope="module")
def compiled():
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", RUNNER], input=KERNEL, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_numba_compiles_hopper_intrinsics_for_sm90a(compiled):
    assert ".target sm_90a" in compiled["ptx"]
    for opcode in ("wgmma.fence.sync.aligned", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
                   "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0", "mbarrier.init.shared::cta.b64",
                   "mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64",
                   "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                   "fence.proxy.async.shared::cta", "fence.proxy.tensormap::generic.acquire.sys"):
        assert opcode in compiled["ptx"], opcode
    assert offline.ptx_counts(compiled["ptx"])["call"] == 0
    counts = offline.sass_counts(compiled["sass"])
    assert counts.get("HGMMA.64x128x16.F32", 0) == 4 or sum(v for k, v in counts.items() if k.startswith("HGMMA")) == 4
    assert counts.get("UTMALDG.2D") == 1 and counts.get("SYNCS.ARRIVE.TRANS64") == 1
    assert any(k.startswith("SYNCS.PHASECHK") for k in counts) and counts.get("WARPGROUP.ARRIVE") == 1
    assert not any(k.startswith("CALL") for k in counts)
    # the 64 accumulators stay in registers: the intrinsic indexes the local array with constants only
    assert compiled["usage"]["local_bytes"] == 0 and compiled["usage"]["stack_bytes"] == 0
    assert ".local" not in compiled["ptx"]
    # ptxas did not have to serialise the wgmma chain or inject a wait (C7515 / C7517)
    assert "C7515" not in compiled["log"] and "C7517" not in compiled["log"], compiled["log"]


ENSURE_CC = r'''
import json
import kernels_numba
from numba.cuda import codegen
from numba.cuda.cudadrv import nvrtc

class Dev:
    compute_capability = (9, 0)

codegen.devices.get_context = lambda *a: type("C", (), {"device": Dev()})()
cc = codegen.CUDACodeLibrary._ensure_cc(None, None)
print(json.dumps([list(cc), nvrtc.get_arch_option(*cc)]))
'''


def test_numba_appends_a_for_a_cc90_device():
    """On a CC 9.0 GPU numba-cuda 0.30 compiles for compute_90a without being asked (codegen._ensure_cc, with the
    device query answered here by a stand-in), which is what lets the same kernels run there; offline the course asks
    for cc=(9, 0, 'a') itself."""
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", ENSURE_CC], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert json.loads(p.stdout) == [[9, 0, "a"], "compute_90a"]


NO_GRID_CONSTANT = r'''
import json, re, sys
import numpy as np
import kernels_numba
from kernels_numba.tools import offline
from numba import cuda, types, from_dtype
rec = from_dtype(np.dtype([("w", np.uint64, (16,))], align=True))
def by_record(tm, out):
    out[0] = tm.w[3]
def by_tuple(tm, out):
    out[0] = tm[3]
out = {}
with offline.offline_device((9, 0)):
    for name, f, ty in (("record", by_record, rec), ("tuple", by_tuple, types.UniTuple(types.uint64, 16))):
        ptx, _ = cuda.compile_ptx(f, (ty, types.uint64[::1]), cc=(9, 0, "a"))
        params = re.search(r"\.entry\s+\S+\(([^)]*)\)", ptx, re.S).group(1)
        out[name] = re.findall(r"\.param\s+(\.align\s+\d+\s+)?\.(\w+)", params)
json.dump(out, sys.stdout)
'''


def test_a_tensor_map_cannot_be_passed_by_value_from_numba():
    """The rule of kernels_numba/infra/tma.py: a CUtensorMap is 128 bytes that TMA reads from .param (a
    `const __grid_constant__` parameter in CUDA C++), .const or .global memory. Numba passes a record by pointer (one
    .u64 parameter: the record lives in global memory) and flattens a tuple into separate scalar parameters (16 x .u64,
    no 128-byte .param object), so the map goes to global memory, acquired with fence.proxy.tensormap."""
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", NO_GRID_CONSTANT], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout)
    record_params, tuple_params = got["record"], got["tuple"]
    # record: a pointer (u64) where a by-value struct would be one .param .align 64 .b8 [128]
    assert all(t == "u64" for _, t in record_params) and not any(a for a, _ in record_params)
    assert sum(1 for _, t in tuple_params if t == "u64") >= 16 and not any(t == "b8" for _, t in tuple_params)
