"""Solution, notebook 11 exercise 11-2: the wgmma descriptor of k16 step kk of a TMA-written B tile."""


def enc(x):
    """matrix-descriptor-encode: 16-byte units, 14 bits."""
    return (x & 0x3FFFF) >> 4


def b_descriptor(addr, kk, BK):
    """N-major B (imm-trans-b = 1), 128-byte swizzle, boxes of BK rows x 64 columns one after another at addr."""
    start = addr + kk * 16 * 128            # k16 step kk: 16 rows of 128 bytes further
    lbo = BK * 128                          # N-major: from one 64-column box to the next
    sbo = 8 * 128                           # from one group of 8 rows (a 1024-byte swizzle atom) to the next
    return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | 1 << 62     # swizzle mode 1 = 128 bytes
