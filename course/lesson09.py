"""Notebook 09 machinery: ptxas verdicts on PTX text, cp.async traces, layouts and bank counts, SASS counts, recorded runs."""
import os
import re
import subprocess
import tempfile

HEADER = ".version 7.0\n.target sm_80\n.address_size 64\n"
# the seed writes this helper for 4-byte copies: '.cg' with 4 bytes
SEED_CP_ASYNC_4 = "cp.async.cg.shared.global [dst], [src], 4;"
LEGAL_CP_ASYNC_4 = "cp.async.ca.shared.global [dst], [src], 4;"


def ptx_module(instruction, params=".reg .u32 dst, .reg .u64 src"):
    """A complete PTX module whose one .func wraps `instruction` (the shape of kernels_numba/infra/ptx/*.ptx)."""
    return HEADER + f"\n.visible .func f({params})\n{{\n    {instruction}\n    ret;\n}}\n"


def ptxas(text, arch="sm_80"):
    """Run ptxas on PTX text: (accepted, ptxas's own messages with the temp path removed)."""
    from kernels_numba.infra import offline
    tool = offline._tool("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "check.ptx")
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([tool, "-c", f"-arch={arch}", src, "-o", os.path.join(d, "check.o")],
                           capture_output=True, text=True)
    msg = (p.stdout + p.stderr).replace(src, "check.ptx").strip()
    return p.returncode == 0, msg


def ptxas_verdicts(instructions=(SEED_CP_ASYNC_4, LEGAL_CP_ASYNC_4), archs=("sm_80", "sm_90")):
    """{(instruction, arch): (accepted, message)} for each instruction wrapped in a module."""
    return {(ins, a): ptxas(ptx_module(ins), a) for ins in instructions for a in archs}
