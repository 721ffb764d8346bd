"""Solution, 10 직접 해보기 3: which B elements each lane's registers b0, b1 hold for mma.m16n8k16 (.col, f16)."""


def b_elements(lane):
    """[(k, n)] of B elements b_0..b_3: register b_r holds b_2r (low 16 bits) and b_2r+1 (high 16 bits)."""
    g, t = lane >> 2, lane % 4              # groupID picks the column n, threadID_in_group the k pair
    out = []
    for reg in range(2):                    # b0: k 0-7, b1: k 8-15; the two halves are adjacent k of one column
        k = 2 * t + 8 * reg
        out += [(k, g), (k + 1, g)]
    return out
