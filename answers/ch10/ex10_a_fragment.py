"""Solution, 10 직접 해보기 2: which A elements each lane's registers a0..a3 hold for mma.m16n8k16 (.row, f16)."""


def a_elements(lane):
    """[(row, col)] of A elements a_0..a_7: register a_r holds a_2r (low 16 bits) and a_2r+1 (high 16 bits)."""
    g, t = lane >> 2, lane % 4              # groupID picks the row, threadID_in_group the column pair
    out = []
    for reg in range(4):                    # a0: row g, cols 0-7 | a1: row g+8 | a2: cols 8-15 | a3: both
        row = g + 8 * (reg % 2)
        col = 2 * t + 8 * (reg // 2)
        out += [(row, col), (row, col + 1)]
    return out
