"""Solutions, notebook 10: which C/D element each lane holds (10-1), and the inverse lookup and shared-memory size."""


def c_elements(lane):
    """[(row, col)] of the C/D elements c0..c3 that `lane` holds for mma.m16n8k16 (one f32 register each)."""
    g, t = lane >> 2, lane % 4              # groupID: row pair (g, g + 8); threadID_in_group: column pair
    return [(g, 2 * t), (g, 2 * t + 1),     # c0, c1: row g
            (g + 8, 2 * t), (g + 8, 2 * t + 1)]   # c2, c3: row g + 8


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
