"""Solution of notebook 10's exercise: which lane (and which of its four registers) holds C/D element (row, col)."""


def c_owner(row, col):
    """(lane, i) with c_i of that lane = D[row][col] for mma.m16n8k16 (PTX ISA C/D fragment layout)."""
    if not (0 <= row < 16 and 0 <= col < 8):
        raise ValueError(f"C/D is 16x8: no element ({row}, {col})")
    group_id = row % 8                      # rows g and g + 8 belong to the same group of 4 lanes
    tid = col // 2                          # two adjacent columns per lane
    lane = 4 * group_id + tid
    i = (col % 2) + (2 if row >= 8 else 0)  # c0, c1: row g; c2, c3: row g + 8
    return lane, i


def smem_bytes(BM, BN, BK, STAGES, PAD=8):
    """Shared memory of the tiled kernels: STAGES x (As[BM][BK+PAD] + Bs[BK][BN+PAD]) f16 elements x 2 B."""
    return STAGES * (BM * (BK + PAD) + BK * (BN + PAD)) * 2
