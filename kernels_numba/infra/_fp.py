"""Exact float32 arithmetic for the simulator: fma.rn.f32 rounds once, like the hardware."""
import math

import numpy as np

_F32_MAX = float(np.finfo(np.float32).max)
_F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)


def _f32(x):
    return x if type(x) is np.float32 else np.float32(x)


def fma_rn_f32(a, b, c):
    """fma.rn.f32 with one rounding: float32*float32 is exact in a double; the sum is rounded once to double,
    and if that lands exactly halfway between two float32 values, the exact remainder (TwoSum) breaks the tie."""
    p, c = float(_f32(a)) * float(_f32(b)), float(_f32(c))
    s = p + c
    if not abs(s) < _F32_MAX * 2:               # overflow, inf or nan: no ties to worry about
        with np.errstate(over="ignore", invalid="ignore"):
            return np.float32(s)
    if abs(s) >= _F32_MIN_NORMAL:               # fast path: only a double exactly halfway between floats can go wrong
        t = math.frexp(s)[0] * 33554432.0       # significand scaled to 25 bits
        if t != int(t) or not int(t) & 1:
            return np.float32(s)
    r = np.float32(s)
    if float(r) != s:
        bb = s - p
        err = (p - (s - bb)) + (c - bb)         # exact: p + c == s + err
        if err != 0.0:
            q = np.nextafter(r, np.float32(np.inf) if float(r) < s else np.float32(-np.inf))
            if abs(s - float(r)) == abs(float(q) - s):     # a tie only because of the first rounding
                r = max(r, q) if err > 0 else min(r, q)
    return r
