"""Solution, 08 직접 해보기 08-1: the kt/buffer table and the shared-memory bytes of an S-stage pipeline (S = 2: double, 3: triple)."""


def stage_table(n_tiles, stages):
    """Rows (kt, buffer computed, tile prefetched or None, buffer it goes into or None) of the main loop.

    The prologue fills buffers 0 .. S-2 with tiles 0 .. S-2; iteration kt computes tile kt from buffer kt % S
    and prefetches tile kt + S - 1 into buffer (kt + S - 1) % S, the buffer computed in iteration kt - 1
    (free again after that iteration's barrier).
    """
    rows = []
    for kt in range(n_tiles):
        nxt = kt + stages - 1
        rows.append((kt, kt % stages, nxt if nxt < n_tiles else None, nxt % stages if nxt < n_tiles else None))
    return rows


def smem_bytes(stages, BM=128, BN=128, BK=8, pad=1, itemsize=4):
    """Shared memory of As[S][BM][BK+pad] and Bs[S][BK][BN+pad] in bytes (float32)."""
    return stages * (BM * (BK + pad) + BK * (BN + pad)) * itemsize
