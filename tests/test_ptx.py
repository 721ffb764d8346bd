"""kernels_numba/infra/ptx/*.ptx and kernels_numba.infra.ptx: ptxas accepts every file, the parser reads the exact instruction,
the simulator stand-ins behave like the hardware, and the GPU intrinsics inline the instruction (no CALL)."""
import fractions
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import kernels_numba as kn
from kernels_numba.infra import ptx
from kernels_numba.tools import offline
from numba import cuda, float32     # module level: the simulator swaps a kernel's global `cuda` for its own

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ptx.ptx_files()
# Hopper's files (.target sm_90 / sm_90a, PTX ISA 8.x) are checked by tests/test_hopper_ptx.py
PRE_HOPPER = [f for f in FILES if ptx.parse_file(f)[0].target in ("sm_75", "sm_80")]
f32 = np.float32


def _ptxas():
    """ptxas from the nvidia-cuda-nvcc wheel (a project dependency), else the one on PATH."""
    try:
        return offline._tool("ptxas")
    except offline.OfflineCompileError:
        pytest.skip("ptxas not found: pip install nvidia-cuda-nvcc")


def _assemble(path, arch, tmp_path):
    """SASS of a .ptx file's functions (ptxas -c keeps the non-kernel .func code)."""
    obj = tmp_path / (os.path.basename(path) + f".{arch}.o")
    # a .func with several results (mma, ldmatrix) is legal PTX but not ABI-conformant, and ptxas -c requires the
    # ABI: those files are checked by a whole-module assembly instead (their SASS is checked in the kernels)
    several = any(len(f.results) > 1 for f in ptx.parse_file(str(path)))
    p = subprocess.run([_ptxas(), *([] if several else ["-c"]), f"-arch={arch}", str(path), "-o", str(obj)],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"ptxas -arch={arch} rejected {path}:\n{p.stderr}"
    return subprocess.run([offline._tool("cuobjdump"), "-sass", str(obj)], capture_output=True, text=True,
                          check=True).stdout


def test_every_instruction_has_a_file():
    assert {"fma_rn_f32", "ld_global_ca_f32", "st_global_v4_f32"} <= set(ptx.FUNCS)
    assert len(FILES) >= 3


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("path", PRE_HOPPER, ids=os.path.basename)
def test_ptxas_accepts(path, arch, tmp_path):
    text = open(path).read()
    # every instruction needs sm_80 except Turing's mma.m16n8k8 (sm_75; tests/test_turing_mma.py assembles it for sm_75)
    target = "sm_75" if os.path.basename(path) == "mma_m16n8k8_f32.ptx" else "sm_80"
    assert re.search(r"^\.version 7\.0$", text, re.M) and re.search(rf"^\.target {target}$", text, re.M)
    assert re.search(r"^\.address_size 64$", text, re.M)
    _assemble(path, arch, tmp_path)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_each_file_assembles_to_its_instruction(arch, tmp_path):
    """One SASS instruction per PTX instruction, and what .ca becomes: LDG.E.STRONG.SM, not a cache bit."""
    want = {"fma_rn_f32.ptx": "FFMA", "ld_global_ca_f32.ptx": "LDG.E.STRONG.SM", "st_global_v4_f32.ptx": "STG.E.128"}
    for name, op in want.items():
        counts = offline.sass_counts(_assemble(os.path.join(ptx.PTX_DIR, name), arch, tmp_path))
        assert counts.get(op) == 1, (name, counts)
    # the same file with the plain (weak) load: LDG.E, the load Numba emits for A[i, j]
    plain = tmp_path / "ld_global_f32.ptx"
    plain.write_text(open(os.path.join(ptx.PTX_DIR, "ld_global_ca_f32.ptx")).read().replace("ld.global.ca.f32",
                                                                                           "ld.global.f32"))
    assert offline.sass_counts(_assemble(plain, arch, tmp_path)).get("LDG.E") == 1


def test_parser_reads_the_exact_instruction():
    for fn in ptx.FUNCS.values():
        lines = [l.strip() for l in open(fn.path).read().splitlines()]
        assert fn.instruction in lines, f"{fn.name}: {fn.instruction!r} is not a line of {fn.path}"
    fma, ld, st = ptx.FUNCS["fma_rn_f32"], ptx.FUNCS["ld_global_ca_f32"], ptx.FUNCS["st_global_v4_f32"]
    assert fma.instruction == "fma.rn.f32 d, a, b, c;"
    assert (fma.asm_template(), fma.constraints(), fma.side_effect) == ("fma.rn.f32 $0, $1, $2, $3;", "=f,f,f,f", False)
    assert ld.instruction == "ld.global.ca.f32 d, [addr];"
    assert (ld.asm_template(), ld.constraints()) == ("ld.global.ca.f32 $0, [$1];", "=f,l,~{memory}")
    assert [p.space for p in ld.operands] == ["global"]
    assert st.instruction == "st.global.v4.f32 [addr], {x, y, z, w};"
    assert (st.asm_template(), st.constraints(), st.side_effect) == (
        "st.global.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f,~{memory}", True)


HEADER = ".version 7.0\n.target sm_80\n.address_size 64\n"


def test_parser_future_shapes():
    """Several results, a shared-space address and a second address in another space (cp.async-like)."""
    text = HEADER + """
.visible .func (.reg .b32 d0, .reg .b32 d1, .reg .b32 d2, .reg .b32 d3) ldsm(.reg .u32 addr)
{
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {d0, d1, d2, d3}, [addr];
    ret;
}
.visible .func cp_async_4(.reg .u32 dst, .reg .u64 src)
{
    cp.async.ca.shared.global [dst], [src], 4;
    ret;
}
"""
    ldsm, cp = ptx.parse_text(text)
    assert ldsm.asm_template() == "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];"
    assert ldsm.constraints() == "=r,=r,=r,=r,r,~{memory}" and not ldsm.side_effect
    assert [(p.name, p.space) for p in cp.operands] == [("dst", "shared"), ("src", "global")]
    assert cp.side_effect and cp.asm_template() == "cp.async.ca.shared.global [$0], [$1], 4;"


@pytest.mark.parametrize("body,msg", [
    ("fma.rn.f32 d, a, b, c;\n    fma.rn.f32 d, d, b, c;\n    ret;", "exactly one instruction"),
    ("ret;", "exactly one instruction"),
])
def test_parser_rejects_more_or_less_than_one_instruction(body, msg):
    text = HEADER + ".visible .func (.reg .f32 d) f(.reg .f32 a, .reg .f32 b, .reg .f32 c)\n{\n    " + body + "\n}\n"
    with pytest.raises(ptx.PtxFileError, match=msg):
        ptx.parse_text(text)


def test_parser_rejects_param_space_and_incomplete_module():
    with pytest.raises(ptx.PtxFileError, match=".reg"):
        ptx.parse_text(HEADER + ".visible .func f(.param .f32 a)\n{\n    ret;\n}\n")
    with pytest.raises(ptx.PtxFileError, match="complete PTX module"):
        ptx.parse_text(".visible .func (.reg .f32 d) f(.reg .f32 a)\n{\n    mov.f32 d, a;\n    ret;\n}\n")


# ------------------------------------------------------------------------------------ simulator stand-ins

def test_every_instruction_has_a_stand_in():
    assert set(ptx.FUNCS) <= set(ptx.STAND_INS)


def test_fma_rounds_once():
    a = b = f32(1 + 2 ** -12)                  # a*b = 1 + 2^-11 + 2^-24 exactly
    c = f32(-(1 + 2 ** -11))
    assert ptx.STAND_INS["fma_rn_f32"](a, b, c) == f32(2 ** -24)        # fused: the 2^-24 survives
    assert f32(a * b) + c == f32(0.0)                                    # rounded product first: lost


def test_fma_no_double_rounding():
    """A case where rounding to double and then to float32 is wrong: the exact result lies just below a
    float32 midpoint, the double sum lands on it, ties-to-even goes up. Hardware (H200) gives 1 + 2^-23."""
    a, b, c = f32(1 + 2 ** -15), f32(2 ** -24 * (1 - 2 ** -15)), f32(1 + 2 ** -23)
    assert ptx.STAND_INS["fma_rn_f32"](a, b, c) == f32(1 + 2 ** -23)
    assert f32(float(a) * float(b) + float(c)) == f32(1 + 2 ** -22)     # the double-rounded answer


def test_fma_matches_exact_rounding():
    rng = np.random.default_rng(0)
    fma = ptx.STAND_INS["fma_rn_f32"]
    for _ in range(2000):
        x, y, z = (f32(v) for v in rng.standard_normal(3) * np.exp2(rng.integers(-20, 20, 3)))
        r = fma(x, y, z)
        exact = fractions.Fraction(float(x)) * fractions.Fraction(float(y)) + fractions.Fraction(float(z))
        err = abs(fractions.Fraction(float(r)) - exact)
        for nb in (np.nextafter(r, f32(np.inf)), np.nextafter(r, f32(-np.inf))):
            assert err <= abs(fractions.Fraction(float(nb)) - exact)


def test_ld_global_ca_is_a_load():
    A = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert ptx.STAND_INS["ld_global_ca_f32"](A, 2, 1) == A[2, 1]
    with pytest.raises(IndexError):
        ptx.STAND_INS["ld_global_ca_f32"](A, -1, 0)     # no wraparound: the GPU would read before the array
    with pytest.raises(IndexError):
        ptx.STAND_INS["ld_global_ca_f32"](A, 0, 4)


def _aligned(n, offset_floats):
    """A float32 array of n elements whose first element is offset_floats*4 bytes past a 16-byte boundary."""
    buf = np.zeros(n + 8, np.float32)
    start = (-(buf.ctypes.data // 4)) % 4 + offset_floats
    return buf[start:start + n]


def test_st_global_v4_writes_four():
    """The stand-in itself (plain Python on any device); the kernel test below runs the active device's version."""
    C = _aligned(16, 0).reshape(2, 8)
    ptx.STAND_INS["st_global_v4_f32"](C, 1, 4, 1.0, 2.0, 3.0, 4.0)
    assert C[1].tolist() == [0, 0, 0, 0, 1, 2, 3, 4] and not C[0].any()
    assert ptx._element(C, (1, 4))[2] == C.ctypes.data + 48      # the simulator's element_address


def _v4_store_kernel():
    @cuda.jit
    def store(C, addr):
        if cuda.threadIdx.x == 0 and cuda.blockIdx.x == 0:
            ptx.st_global_v4_f32(C, 1, 4, float32(1.0), float32(2.0), float32(3.0), float32(4.0))
            addr[0] = ptx.element_address(C, 0, 0)
            addr[1] = ptx.element_address(C, 1, 4)
    return store


def test_st_global_v4_in_a_kernel():
    """ptx.st_global_v4_f32 and ptx.element_address inside a kernel on the active device: the GPU intrinsic
    (st.global.v4.f32 inlined) or the simulator stand-in write the same four floats, and nothing else."""
    C = _aligned(16, 0).reshape(2, 8)
    addr = np.zeros(2, np.uint64)
    if kn.device.SIMULATOR:
        _v4_store_kernel()[1, 32](C, addr)          # the simulator runs on a copy of C: its address is unknown here
    else:
        dC, dA = cuda.to_device(C), cuda.to_device(addr)     # device allocations are 256-byte aligned
        _v4_store_kernel()[1, 32](dC, dA)
        C, addr = dC.copy_to_host(), dA.copy_to_host()
        assert int(addr[0]) == dC.device_ctypes_pointer.value
    assert C[1].tolist() == [0, 0, 0, 0, 1, 2, 3, 4] and not C[0].any()
    assert int(addr[0]) % 16 == 0 and int(addr[1]) == int(addr[0]) + 48


@pytest.mark.parametrize("offset,row,col", [(0, 0, 1), (0, 0, 2), (1, 0, 0), (3, 1, 4)])
def test_st_global_v4_misaligned_faults(offset, row, col):
    C = _aligned(16, offset).reshape(2, 8)
    with pytest.raises(ptx.MisalignedAddressError, match="16"):
        ptx.STAND_INS["st_global_v4_f32"](C, row, col, 1.0, 2.0, 3.0, 4.0)
    assert not C.any(), "a faulting store writes nothing"


def test_st_global_v4_past_the_row_end_is_an_error():
    C = _aligned(16, 0).reshape(4, 4)
    C2 = _aligned(18, 0).reshape(3, 6)
    with pytest.raises(IndexError):
        ptx.STAND_INS["st_global_v4_f32"](C2, 0, 4, 1.0, 2.0, 3.0, 4.0)   # would write into row 1
    ptx.STAND_INS["st_global_v4_f32"](C, 3, 0, 1.0, 2.0, 3.0, 4.0)


@pytest.mark.sim_only("in GPU mode the module names are the inline-PTX intrinsics")
def test_module_names_are_the_stand_ins_in_the_simulator():
    for name in ptx.FUNCS:
        assert getattr(ptx, name) is ptx.STAND_INS[name]


@pytest.mark.gpu_only("in simulator mode the module names are the Python stand-ins")
def test_module_names_are_intrinsics_on_the_gpu():
    from numba.cuda.extending import _Intrinsic      # what numba.cuda.extending.intrinsic returns
    for name in [*ptx.FUNCS, "element_address"]:
        assert isinstance(getattr(ptx, name), _Intrinsic), name


# ---------------------------------------------------------------------------------- GPU intrinsics, offline

KERNEL_SRC = '''
from numba import cuda, float32
from kernels_numba.infra import ptx

def kernel(A, B, C, alpha, beta):
    i = cuda.threadIdx.x
    acc = float32(0.0)
    for k in range(A.shape[1]):
        acc = ptx.fma_rn_f32(ptx.ld_global_ca_f32(A, i, k), ptx.ld_global_ca_f32(B, k, i), acc)
    if ptx.element_address(C, i, 0) % 16 == 0:
        ptx.st_global_v4_f32(C, i, 0, acc, alpha, beta, acc)

sh_src = """.version 7.0
.target sm_80
.address_size 64
.visible .func (.reg .f32 d) ld_shared_f32(.reg .u64 addr)
{
    ld.shared.f32 d, [addr];
    ret;
}
"""
ld_shared_f32 = ptx._build_intrinsics({f.name: f for f in ptx.parse_text(sh_src)})["ld_shared_f32"]

def kernel_shared(A, B, C, alpha, beta):
    S = cuda.shared.array((4, 32), float32)
    i = cuda.threadIdx.x
    S[1, i] = A[0, i]
    cuda.syncthreads()
    C[0, i] = ld_shared_f32(S, 1, 31 - i)
'''

RUNNER = r'''
import json, sys, types
import kernels_numba
from kernels_numba.tools import offline
from numba import cuda
mod = types.ModuleType("ptx_test_kernels")
exec(compile(sys.stdin.read(), "<test kernels>", "exec"), mod.__dict__)
out = {}
for name in ("kernel", "kernel_shared"):
    with offline.offline_device((9, 0)):
        ptx, _ = cuda.compile_ptx(getattr(mod, name), offline.SIG, cc=(9, 0))
    sass, usage = offline.cubin_report(offline.ptx_to_cubin(ptx, (9, 0)))
    out[name] = {"ptx": ptx, "sass": sass, "usage": usage}
json.dump(out, sys.stdout)
'''


@pytest.fixture(scope="module")
def compiled():
    env = dict(os.environ, SGEMM_DEVICE="offline", NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", RUNNER], input=KERNEL_SRC, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_intrinsics_inline_the_file_text(compiled):
    r = compiled["kernel"]
    # the .ptx instruction, operands replaced by registers (cp.async: tests/test_cp_async_ptx.py; mma/ldmatrix: tests/test_tc_kernels.py)
    for fn in (ptx.FUNCS[n] for n in ("fma_rn_f32", "ld_global_ca_f32", "st_global_v4_f32")):
        pattern = re.escape(fn.opcode) + r"\s"
        assert re.search(pattern, r["ptx"]), fn.opcode
    assert re.search(r"st\.global\.v4\.f32 \[%rd\d+\], \{%f\d+, %f\d+, %f\d+, %f\d+\};", r["ptx"])
    assert offline.ptx_counts(r["ptx"])["call"] == 0
    counts = offline.sass_counts(r["sass"])
    assert counts.get("FFMA", 0) >= 1 and counts.get("LDG.E.STRONG.SM", 0) >= 2 and counts.get("STG.E.128") == 1
    assert not any(op.startswith("CALL") for op in counts), counts
    assert r["usage"]["local_bytes"] == 0 and r["usage"]["stack_bytes"] == 0


def test_shared_space_address_is_converted(compiled):
    """An address operand in .shared space gets a shared-window address (addrspacecast; NVVM folds it into the
    shared symbol's address here), not the generic one, which ld.shared would misread."""
    r = compiled["kernel_shared"]
    assert re.search(r"ld\.shared\.f32 %f\d+, \[%rd\d+\];", r["ptx"])
    assert "cvta.shared" not in r["ptx"]          # no shared -> generic conversion feeding it
    assert offline.sass_counts(r["sass"]).get("LDS", 0) >= 1
