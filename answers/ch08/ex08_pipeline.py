"""Solution, 08 직접 해보기 08-3: pipeline totals by hand (single buffer and double buffer), to be checked with sim/pipeline."""


def single_total(t_load, t_comp, n_tiles):
    """One buffer: every tile is loaded, then computed, one after the other (no barrier time)."""
    return n_tiles * (t_load + t_comp)


def double_total(t_load, t_comp, n_tiles):
    """Two buffers, one load unit: the first load and the last compute are exposed, the N-1 steps between
    them take max(load, compute) each (whichever is longer sets the pace)."""
    return t_load + t_comp + (n_tiles - 1) * max(t_load, t_comp)


def speedup(t_load, t_comp, n_tiles):
    return single_total(t_load, t_comp, n_tiles) / double_total(t_load, t_comp, n_tiles)


def totals(t_load, t_comp, n_tiles):
    """08-3: (single-buffer total, double-buffer total)."""
    return single_total(t_load, t_comp, n_tiles), double_total(t_load, t_comp, n_tiles)
