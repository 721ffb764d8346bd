"""Solution, 07 6.4절 손 계산 (tests/ch07/test_lesson07.py): one k step of an asymmetric TM x TN thread tile, by hand."""


def asym_tile(TM=4, TN=16, itemsize=4):
    """Shared->register loads, bytes, FMAs, AI (FLOP/B) and data registers (rC + rA + rB) of one k step."""
    loads = TM + TN                    # rA[0..TM-1] and rB[0..TN-1], each read once per k step
    fmas = TM * TN                     # rC[m][n] += rA[m] * rB[n] for every (m, n)
    nbytes = loads * itemsize
    return {"loads": loads, "bytes": nbytes, "fmas": fmas, "ai": 2 * fmas / nbytes, "data_regs": TM * TN + TM + TN}


def best_split(product):
    """(TM, TN) with TM * TN == product and the largest AI: TM + TN is smallest when TM = TN (AM-GM)."""
    pairs = [(m, product // m) for m in range(1, product + 1) if product % m == 0]
    return max(pairs, key=lambda p: (asym_tile(*p)["ai"], -abs(p[0] - p[1])))
