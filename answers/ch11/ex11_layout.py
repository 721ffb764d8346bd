"""Solution, notebook 11 exercise 11-1: which element of the 64 x 64 tile register i of warpgroup thread t holds."""


def acc_element(t, i):
    """wgmma.mma_async.m64n64k16 (f32): (row, col) of accumulator register i (0..31) of thread t (0..127)."""
    w, lane = t // 32, t % 32               # warp w of the warpgroup owns rows 16w .. 16w + 15
    g, q = lane >> 2, lane % 4              # as mma.sync's C fragment: groupID and threadID_in_group
    row = 16 * w + g + 8 * ((i // 2) % 2)   # registers 2, 3 of every four: row g + 8
    col = 8 * (i // 4) + 2 * q + i % 2      # every four registers: the next 8 columns
    return row, col
