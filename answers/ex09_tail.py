"""Solution, 09 직접 해보기 1: which tiles the commit-only-when-loading loop computes before a wait guarantees them.

Before iteration kt's wait, that loop has committed min(S-1, T) prologue groups plus one per iteration whose prefetch
tile kt'+S-1 < T, i.e. g(kt) = min(S-1, T) + max(0, min(kt+1, T-S+1)) groups, each holding one tile (group i = tile i).
wait_group(S-1) leaves up to S-1 of them pending, so it completes groups 0 .. g(kt)-S. Tile kt is guaranteed iff
kt <= g(kt) - S, which fails exactly for the last S-1 tiles (all of them if T < S).
"""


def groups_committed(kt, stages, tiles):
    return min(stages - 1, tiles) + max(0, min(kt + 1, tiles - stages + 1))


def unguarded_tiles(stages, tiles):
    """Tiles the seed's loop computes without a covering wait_group(stages - 1)."""
    return [kt for kt in range(tiles) if kt > groups_committed(kt, stages, tiles) - stages]
