"""Solution, 09 직접 해보기 2: shared memory of an S-stage pipeline and whether it fits the 48 KB static limit."""

STATIC_LIMIT = 48 * 1024          # bytes a kernel may declare statically (ptxas: 0xc000 max)


def smem_bytes(stages, BK=8, BM=128, BN=128, pad=0, itemsize=4):
    """Bytes of As[S][BM][BK+pad] + Bs[S][BK][BN+pad]."""
    return stages * (BM * (BK + pad) + BK * (BN + pad)) * itemsize


def fits_static(stages, BK=8, pad=0):
    return smem_bytes(stages, BK, pad=pad) <= STATIC_LIMIT


def table(BKs=(8, 16), stages=(2, 3, 4), pads=(0, 1)):
    """Rows (BK, S, pad, bytes, fits statically)."""
    return [(bk, s, p, smem_bytes(s, bk, pad=p), fits_static(s, bk, p)) for bk in BKs for s in stages for p in pads]


def max_static_stages(BK, pad=0):
    s = 1
    while fits_static(s + 1, BK, pad):
        s += 1
    return s
