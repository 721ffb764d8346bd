"""Shared/local array shapes: which ones Numba on the GPU compiles (True) and which it rejects (False, a TypingError).

Plain functions (no @cuda.jit): tests/test_sim_faults.py runs each on the simulator and checks the simulator's
verdict, and compiles each with numba-cuda's compiler (no GPU needed) to check that the expectations are the GPU's.
"""
from numba import cuda, float32

T = 16
T_PAD = T + 1                    # computed at module level: a constant by the time the kernel is compiled
SHAPE = (16, 17)


def module_constants(A):
    s = cuda.shared.array((T, T_PAD), float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def literal_arithmetic(A):
    s = cuda.shared.array((16, 16 + 1), float32)      # Python folds 16 + 1 before Numba sees it
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def local_name_literal(A):
    n = 16
    s = cuda.shared.array((n, n), float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def local_name_of_constant(A):
    n = T
    shp = (n, T_PAD)
    s = cuda.shared.array(shp, float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def module_tuple(A):
    s = cuda.shared.array(SHAPE, float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def keyword_shape(A):
    r = cuda.local.array(shape=T, dtype=float32)
    r[0] = 1.0
    A[0] = r[0]


def local_literal(A):
    n = 4
    r = cuda.local.array(n, float32)
    r[0] = 1.0
    A[0] = r[0]


def _closure(n):
    def closure_constant(A):
        s = cuda.shared.array(n, float32)
        s[0] = 1.0
        A[0] = s[0]
    return closure_constant


closure_constant = _closure(8)


def arithmetic_on_names(A):
    s = cuda.shared.array((T, T + 1), float32)        # BUG on the GPU
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def name_from_arithmetic(A):
    n = T + 1                                          # BUG: the same sum, through a name
    s = cuda.shared.array((n, n), float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def shape_from_input(A):
    n = A.shape[0]                                     # BUG: a run-time size
    s = cuda.shared.array((n, n), float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


def local_from_input(A):
    n = A.shape[0]                                     # BUG: a run-time size, local memory
    r = cuda.local.array((n,), float32)
    r[0] = 1.0
    A[0] = r[0]


def local_arithmetic(A):
    r = cuda.local.array((T + 1,), float32)            # BUG on the GPU
    r[0] = 1.0
    A[0] = r[0]


def two_values(A):
    n = 16
    if A[0] > 0:
        n = 8                                          # BUG: n is 16 or 8, not one constant
    s = cuda.shared.array(n, float32)
    s[0] = 1.0
    A[0] = s[0]


def augmented(A):
    n = 16
    n += 1                                             # BUG
    s = cuda.shared.array(n, float32)
    s[0] = 1.0
    A[0] = s[0]


def over_lines(A):
    s = cuda.shared.array(
        (A.shape[0], 4),                               # BUG, written over several lines
        float32)
    s[0, 0] = 1.0
    A[0] = s[0, 0]


@cuda.jit(device=True)
def _fill(A, n):
    s = cuda.shared.array(n, float32)     # a device function's parameter: a constant when its caller passes one
    s[0] = 1.0
    A[0] = s[0]


@cuda.jit(device=True)
def _fill_twice_removed(A, m):
    _fill(A, m)


def device_literal(A):
    _fill(A, 8)


def device_module_constant(A):
    _fill(A, T)


def device_through_two_calls(A):
    _fill_twice_removed(A, 4)


def device_from_input(A):
    _fill(A, A.shape[0])                                # BUG: the caller passes a run-time size


def device_two_calls_from_input(A):
    k = A.shape[0]                                      # BUG, two calls away
    _fill_twice_removed(A, k)


CASES = {f.__name__: (f, ok) for ok, fs in (
    (True, (module_constants, literal_arithmetic, local_name_literal, local_name_of_constant, module_tuple,
            keyword_shape, local_literal, closure_constant, device_literal, device_module_constant,
            device_through_two_calls)),
    (False, (arithmetic_on_names, name_from_arithmetic, shape_from_input, local_from_input, local_arithmetic,
             two_values, augmented, over_lines, device_from_input, device_two_calls_from_input))) for f in fs}
# what the error names: the part of the shape that is not a constant
CULPRIT = {"arithmetic_on_names": "T + 1", "name_from_arithmetic": "n = T + 1", "shape_from_input": "A.shape[0]",
           "local_from_input": "A.shape[0]", "local_arithmetic": "T + 1", "two_values": "n = 8",
           "augmented": "n += 1", "over_lines": "A.shape[0]", "device_from_input": "A.shape[0]",
           "device_two_calls_from_input": "k = A.shape[0]"}


if __name__ == "__main__":      # with NUMBA_ENABLE_CUDASIM=0: what numba-cuda's compiler says, one line per case
    import json

    from kernels_numba.tools.offline import offline_device    # device functions ask for a device's CC
    out = {}
    for name, (f, _) in CASES.items():
        try:
            with offline_device((8, 0)):
                cuda.compile_ptx(f, (float32[:],), cc=(8, 0))
            out[name] = True
        except Exception as e:  # noqa: BLE001 - the compiler's verdict is what we record
            out[name] = type(e).__name__
    print(json.dumps(out))
