"""Solution, 10 직접 해보기 4: the row address each lane gives to ldmatrix.x4 (A) and ldmatrix.x2.trans (B)."""


def ldsm_rows(lane):
    """((row, col) in As[16][16] for ldmatrix.x4, (row, col) in Bs[16][8] for ldmatrix.x2.trans) of `lane`."""
    a = (lane % 16, 8 * (lane // 16))       # lanes 0-15: rows 0-15 at col 0 (a0, a1); lanes 16-31: col 8 (a2, a3)
    b = (lane % 16, 0)                      # lanes 0-15: k rows 0-15 (b0, b1); .x2 ignores lanes 16-31
    return a, b
