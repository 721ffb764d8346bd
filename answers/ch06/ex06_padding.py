"""Solution, 06 직접 해보기 1: which paddings keep both the As store and the As load of the tiled kernel conflict-free?"""
from sim import banks

TILE = 16
BLOCK = (TILE, TILE)


def wavefronts(pad, k=0):
    """(max wavefronts of the As[ty][tx] store, of the As[ty][k] load) over the warps of a 16x16 block."""
    layout = banks.Layout((TILE, TILE), pad=pad)
    store = banks.analyze(layout, lambda x, y, z: (y, x), BLOCK, kind="store")
    load = banks.analyze(layout, lambda x, y, z: (y, k), BLOCK, kind="load")
    return max(r.wavefronts for r in store), max(r.wavefronts for r in load)


def conflict_free_pads(max_pad=4):
    """Paddings 0..max_pad for which every warp's store and load need one wavefront."""
    return [p for p in range(max_pad + 1) if wavefronts(p) == (1, 1)]
