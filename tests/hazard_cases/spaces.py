"""Address spaces: every PTX wrapper and numba's cache-hinted loads and stores given memory of the wrong state space
(shared or local where the opcode says global, global or local where it says shared). On the H100 these fault with
CUDA_ERROR_INVALID_ADDRESS_SPACE or touch other memory; the simulator raises StateSpaceError naming the array."""
import numpy as np
from numba import cuda, float32
from numba.types import float16

from kernels_numba.infra import ptx
from kernels_numba.infra.simulator import StateSpaceError as S

from . import Pair, rng

X = rng(6).standard_normal((8, 8)).astype(np.float32)
X16 = X.astype(np.float16)


def _run(k, *args, block=8):
    out = np.zeros(8, np.float32)
    k[1, block](*args, out)
    return out


# ---- ld.global.ca.f32
@cuda.jit
def ldca_shared(X, out):
    S_ = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    S_[t] = X[t, 0]
    cuda.syncthreads()
    out[t] = ptx.ld_global_ca_f32(S_, t)                 # BUG: a shared array


@cuda.jit
def ldca_local(X, out):
    L = cuda.local.array(8, float32)
    t = cuda.threadIdx.x
    for j in range(8):
        L[j] = X[t, j]
    out[t] = ptx.ld_global_ca_f32(L, 0)                  # BUG: a local array


@cuda.jit
def ldca_global(X, out):
    t = cuda.threadIdx.x
    out[t] = ptx.ld_global_ca_f32(X, t, 0)


# ---- st.global.v4.f32
@cuda.jit
def stv4_shared(X, out):
    S_ = cuda.shared.array((8, 4), float32, alignment=16)
    t = cuda.threadIdx.x
    ptx.st_global_v4_f32(S_, t, 0, X[t, 0], X[t, 1], X[t, 2], X[t, 3])     # BUG: shared
    cuda.syncthreads()
    out[t] = S_[t, 0]


@cuda.jit
def stv4_local(X, out):
    L = cuda.local.array(4, float32)
    t = cuda.threadIdx.x
    ptx.st_global_v4_f32(L, 0, X[t, 0], X[t, 1], X[t, 2], X[t, 3])        # BUG: local
    out[t] = L[0]


@cuda.jit
def stv4_shared_row(X, out):
    S_ = cuda.shared.array((8, 4), float32, alignment=16)
    t = cuda.threadIdx.x
    row = S_[t]
    ptx.st_global_v4_f32(row, 0, X[t, 0], X[t, 1], X[t, 2], X[t, 3])      # BUG: a view of a shared array
    cuda.syncthreads()
    out[t] = S_[t, 0]


@cuda.jit
def stv4_global(X, out):
    t = cuda.threadIdx.x
    G = cuda.local.array(1, float32)
    G[0] = X[t, 0]
    out[t] = G[0]


def _stv4_twin():
    C = np.zeros((8, 4), np.float32)
    _vstore_global[1, 8](X, C)
    return C[:, 0], X[:, 0]


@cuda.jit
def _vstore_global(X, C):
    t = cuda.threadIdx.x
    ptx.st_global_v4_f32(C, t, 0, X[t, 0], X[t, 1], X[t, 2], X[t, 3])


# ---- cp.async: destination must be shared, source global
@cuda.jit
def cp_dst_global(X, out):
    t = cuda.threadIdx.x
    ptx.cp_async_ca_4(out, t, X, t, 0)                  # BUG: destination in global memory
    ptx.cp_async_wait_all()


@cuda.jit
def cp_dst_local(X, out):
    L = cuda.local.array(4, float32)
    t = cuda.threadIdx.x
    ptx.cp_async_ca_4(L, 0, X, t, 0)                    # BUG: destination in local memory
    ptx.cp_async_wait_all()
    out[t] = L[0]


@cuda.jit
def cp_src_shared(X, out):
    S_ = cuda.shared.array(8, float32, alignment=16)
    T_ = cuda.shared.array(8, float32, alignment=16)
    t = cuda.threadIdx.x
    S_[t] = X[t, 0]
    cuda.syncthreads()
    ptx.cp_async_ca_4(T_, t, S_, t)                     # BUG: source in shared memory
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t]


@cuda.jit
def cp_src_local(X, out):
    L = cuda.local.array(4, float32)
    T_ = cuda.shared.array(8, float32, alignment=16)
    t = cuda.threadIdx.x
    L[0] = X[t, 0]
    ptx.cp_async_ca_4(T_, t, L, 0)                      # BUG: source in local memory
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t]


@cuda.jit
def cp16_src_shared(X, out):
    S_ = cuda.shared.array((8, 8), float32, alignment=16)
    T_ = cuda.shared.array((8, 8), float32, alignment=16)
    t = cuda.threadIdx.x
    for j in range(8):
        S_[t, j] = X[t, j]
    cuda.syncthreads()
    ptx.cp_async_cg_16(T_, t, 0, S_, t, 0)              # BUG: 16-byte copy from shared
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t, 0]


@cuda.jit
def cp16_dst_global(X, out, G):
    t = cuda.threadIdx.x
    ptx.cp_async_ca_16(G, t, 0, X, t, 0)                # BUG: 16-byte copy into global
    ptx.cp_async_wait_all()
    out[t] = G[t, 0]


@cuda.jit
def cpz_src_shared(X, out):
    S_ = cuda.shared.array((8, 8), float32, alignment=16)
    T_ = cuda.shared.array((8, 8), float32, alignment=16)
    t = cuda.threadIdx.x
    for j in range(8):
        S_[t, j] = X[t, j]
    cuda.syncthreads()
    ptx.cp_async_cg_16_zfill(T_, t, 0, S_, t, 0, 16)    # BUG: zfill copy from shared
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t, 0]


@cuda.jit
def cp_ok(X, out):
    T_ = cuda.shared.array(8, float32, alignment=16)
    t = cuda.threadIdx.x
    ptx.cp_async_ca_4(T_, t, X, t, 0)
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t]


@cuda.jit
def cp16_ok(X, out):
    T_ = cuda.shared.array((8, 8), float32, alignment=16)
    t = cuda.threadIdx.x
    ptx.cp_async_cg_16(T_, t, 0, X, t, 0)
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    out[t] = T_[t, 0]


# ---- ldmatrix: rows in shared memory
@cuda.jit
def ldsm_global(X16, out):
    lane = cuda.threadIdx.x
    r = ptx.ldmatrix_x1(X16, lane % 8, 0)               # BUG: rows in global memory
    if lane < 8:
        out[lane] = r & 0xFFFF


@cuda.jit
def ldsm_local(X16, out):
    L = cuda.local.array((8, 8), float16)
    lane = cuda.threadIdx.x
    for j in range(8):
        L[lane % 8, j] = X16[lane % 8, j]
    r = ptx.ldmatrix_x1(L, lane % 8, 0)                 # BUG: rows in local memory
    if lane < 8:
        out[lane] = r & 0xFFFF


@cuda.jit
def ldsm_trans_global(X16, out):
    lane = cuda.threadIdx.x
    b0, b1 = ptx.ldmatrix_x2_trans(X16, lane % 8, 0)    # BUG: rows in global memory
    if lane < 8:
        out[lane] = b0 & 0xFFFF


@cuda.jit
def ldsm_ok(X16, out):
    S_ = cuda.shared.array((8, 8), float16, alignment=16)
    lane = cuda.threadIdx.x
    if lane < 8:
        for j in range(8):
            S_[lane, j] = X16[lane, j]
    cuda.syncthreads()
    r = ptx.ldmatrix_x1(S_, lane % 8, 0)
    if lane < 8:
        out[lane] = r & 0xFFFF


def _ldsm(k):
    out = np.zeros(8, np.float32)
    k[1, 32](X16, out)
    # ldmatrix_x1: lane l gets row l // 4, columns 2 (l % 4) and +1: lane 0..7 -> low halves of rows 0, 0, 0, 0, 1, ...
    want = np.array([X16[l // 4, 2 * (l % 4)].view(np.uint16) for l in range(8)], np.float32)
    return out, want


# ---- numba's cache-hinted loads and stores (ld.global.* / st.global.*)
@cuda.jit
def ldcg_shared(X, out):
    S_ = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    S_[t] = X[t, 0]
    cuda.syncthreads()
    out[t] = cuda.ldcg(S_, t)                            # BUG: shared


@cuda.jit
def ldca_local_hint(X, out):
    L = cuda.local.array(8, float32)
    t = cuda.threadIdx.x
    L[0] = X[t, 0]
    out[t] = cuda.ldca(L, 0)                             # BUG: local


@cuda.jit
def ldlu_shared(X, out):
    S_ = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    S_[t] = X[t, 0]
    cuda.syncthreads()
    out[t] = cuda.ldlu(S_, t)                            # BUG: shared


@cuda.jit
def stcs_shared(X, out):
    S_ = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    cuda.stcs(S_, t, X[t, 0])                            # BUG: shared
    cuda.syncthreads()
    out[t] = S_[t]


@cuda.jit
def stwt_local(X, out):
    L = cuda.local.array(8, float32)
    t = cuda.threadIdx.x
    cuda.stwt(L, 0, X[t, 0])                             # BUG: local
    out[t] = L[0]


@cuda.jit
def hint_ok(X, out):
    t = cuda.threadIdx.x
    cuda.stcg(out, t, cuda.ldcg(X, (t, 0)))


def _col0(k, block=8):
    return _run(k, X, block=block), X[:, 0]


PAIRS = [
    Pair("space", "ld_global_ca_shared", lambda: _col0(ldca_shared), lambda: _col0(ldca_global), S),
    Pair("space", "ld_global_ca_local", lambda: _col0(ldca_local), lambda: _col0(ldca_global), S),
    Pair("space", "st_global_v4_shared", lambda: _col0(stv4_shared), _stv4_twin, S),
    Pair("space", "st_global_v4_local", lambda: _col0(stv4_local), _stv4_twin, S),
    Pair("space", "st_global_v4_shared_view", lambda: _col0(stv4_shared_row), _stv4_twin, S),
    Pair("space", "cp_async_dst_global", lambda: (_run(cp_dst_global, X), X[:, 0]), lambda: _col0(cp_ok), S),
    Pair("space", "cp_async_dst_local", lambda: _col0(cp_dst_local), lambda: _col0(cp_ok), S),
    Pair("space", "cp_async_src_shared", lambda: _col0(cp_src_shared), lambda: _col0(cp_ok), S),
    Pair("space", "cp_async_src_local", lambda: _col0(cp_src_local), lambda: _col0(cp_ok), S),
    Pair("space", "cp_async_16_src_shared", lambda: _col0(cp16_src_shared), lambda: _col0(cp16_ok), S),
    Pair("space", "cp_async_16_dst_global",
         lambda: (_run(cp16_dst_global, X, np.zeros((8, 8), np.float32)), X[:, 0]), lambda: _col0(cp16_ok), S),
    Pair("space", "cp_async_zfill_src_shared", lambda: _col0(cpz_src_shared), lambda: _col0(cp16_ok), S),
    Pair("space", "ldmatrix_global", lambda: _ldsm(ldsm_global), lambda: _ldsm(ldsm_ok), S),
    Pair("space", "ldmatrix_local", lambda: _ldsm(ldsm_local), lambda: _ldsm(ldsm_ok), S),
    Pair("space", "ldmatrix_trans_global", lambda: _ldsm(ldsm_trans_global), lambda: _ldsm(ldsm_ok), S),
    Pair("space", "ldcg_shared", lambda: _col0(ldcg_shared), lambda: _col0(hint_ok), S),
    Pair("space", "ldca_local", lambda: _col0(ldca_local_hint), lambda: _col0(hint_ok), S),
    Pair("space", "ldlu_shared", lambda: _col0(ldlu_shared), lambda: _col0(hint_ok), S),
    Pair("space", "stcs_shared", lambda: _col0(stcs_shared), lambda: _col0(hint_ok), S),
    Pair("space", "stwt_local", lambda: _col0(stwt_local), lambda: _col0(hint_ok), S),
]
