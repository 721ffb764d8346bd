"""Solutions, notebook 11 exercises 11-3 and 11-4: the mbarrier phases of the stage ring, and the consumer's
k-iteration of the warp-specialised kernel (kernels_numba/wgmma_ws.py), against the model sim/ws_ring.py."""


def ring_phase(it, stages):
    """(stage, parity the consumer waits for on full[s], parity the producer waits for on empty[s])."""
    rnd = it // stages                      # passes over the ring so far: each completes one phase per barrier
    return it % stages, rnd & 1, (rnd & 1) ^ 1     # the producer: the opposite parity (a fresh barrier's "phase -1")


def consumer_step(ring, it, kt):
    """One k-iteration of a consumer warpgroup."""
    s = it % ring.stages
    parity = (it // ring.stages) & 1
    ring.wait_full(s, parity)               # the TMA copies of stage s have landed
    ring.mma(s)                             # wgmma on stage s (asynchronous) ...
    ring.commit()                           # ... as one group
    ring.wait_mma(1)                        # the previous k-iteration's group is done (this one may still run)
    if kt > 0:                              # its stage is free; a tile's first k-iteration has no previous one here
        ring.release((it - 1) % ring.stages)
