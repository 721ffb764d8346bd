"""Solution, 07 직접 해보기 07-4: blocks per SM that the registers alone allow, by hand (CUDA's occupancy-calculator rules)."""
WARP = 32


def register_limited_blocks(regs, threads, regs_per_sm=65536, alloc_unit=256, sub_partitions=4, regs_per_block=65536):
    """Blocks of `threads` threads at `regs` registers each that fit one SM's register file.

    1. registers are given to whole warps in units of alloc_unit (= per-thread count rounded up to 8);
    2. a warp lives in one of the sub_partitions quarters of the register file, so count warps per quarter;
    3. blocks come whole: warps // warps per block.
    """
    warps = -(-threads // WARP)
    per_warp = -(-regs * WARP // alloc_unit) * alloc_unit
    if per_warp * (-(-warps // sub_partitions) * sub_partitions) > regs_per_block:
        return 0                                    # one block alone needs more than a block may have
    warps_per_sm = (regs_per_sm // sub_partitions // per_warp) * sub_partitions
    return warps_per_sm // warps


def register_limited_occupancy(regs, threads, max_warps=64, **kw):
    """Occupancy (0..1) if registers were the only limit (also capped by the warp slots)."""
    warps = -(-threads // WARP)
    blocks = min(register_limited_blocks(regs, threads, **kw), max_warps // warps)
    return blocks * warps / max_warps
