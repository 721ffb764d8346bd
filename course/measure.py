"""Live GPU measurements when a GPU is present (Nsight Compute, benchmark); otherwise None, and notebooks use recorded data."""
import csv
import io
import os
import shutil
import subprocess
import sys

import kernels_numba as kn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def have_gpu():
    return kn.device.MODE == "gpu"


def _script(name):
    """Path of benchmarks/<name> in a clone of the course, or None (with a notice) in a `pip install .` without it."""
    path = os.path.join(ROOT, "benchmarks", name)
    if os.path.exists(path):
        return path
    print(f"ℹ️ 실시간 측정에는 강좌 저장소의 benchmarks/{name} 가 필요합니다 (pip install . 로 설치하면 포함되지 않음): "
          f"기록된 값을 보여 줍니다. 측정하려면 저장소 폴더에서 pip install -e \".[gpu]\" 로 설치하세요. / live measurement "
          f"needs benchmarks/{name} from a clone of the course; showing the recorded figures.")
    return None


def ncu_shared(timeout=300):
    """Per kernel: shared-memory instructions, wavefronts, bank conflicts measured by ncu (GPU + ncu only, else None)."""
    ncu = shutil.which("ncu")
    if not have_gpu() or ncu is None:
        return None
    script = _script("ncu_banks.py")
    if script is None:
        return None
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    from ncu_banks import METRICS
    out = subprocess.run([ncu, "--clock-control", "none", "--metrics", ",".join(METRICS), "--csv",
                          sys.executable, script], capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        return None
    rows = list(csv.reader(io.StringIO("\n".join(l for l in out.stdout.splitlines() if not l.startswith("==")))))
    h = rows[0]
    ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    res = {}
    for r in rows[1:]:
        res.setdefault(r[ki].split("::")[0], {})[r[mi]] = int(r[vi].replace(",", ""))
    return res


def shared_table(metrics):
    """Rows (kernel, op, instructions, wavefronts, wavefronts per instruction) from ncu metrics."""
    rows = []
    for k, m in metrics.items():
        for op in ("ld", "st"):
            inst = m.get(f"smsp__inst_executed_op_shared_{op}.sum", 0)
            wf = m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", 0)
            if inst:
                rows.append((k, "load" if op == "ld" else "store", inst, wf, wf / inst))
    return rows


def benchmark(sizes=(1024, 2048, 4096), kernels=None, timeout=600):
    """Run benchmarks/bench_gpu.py on this GPU; its JSON result, or None without a GPU."""
    if not have_gpu():
        return None
    import json
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    script = _script("bench_gpu.py")
    if script is None:
        return None
    cmd = [sys.executable, script, "--json", path, "--sizes", *map(str, sizes)]
    if kernels:
        cmd += ["--kernels", *kernels]
    r = subprocess.run(cmd, timeout=timeout, check=False)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        print(f"ℹ️ 측정 스크립트가 실패했습니다 (종료 코드 {r.returncode}; cuBLAS 비교에는 CuPy 가 필요합니다: "
              "pip install -e \".[gpu]\"): 기록된 값을 보여 줍니다. / the benchmark failed; showing the recorded figures.")
        return None
