"""The tester's statistics of many runs, accumulated while drawing (:func:`sample_columns`).

The tester counts events on a few *components* of each output (``exactdp.events``): additive
statistics ``Σ_i w_i(a_i)`` of the ⊤/⊥/absent answers (counts, Hamming distances) and the last
entry.  For the Sparse Vector family these are accumulated position by position over the runs still
going (the blocks of :func:`exactdp.sampling.sampler.walk`): a run that stopped costs nothing more,
and the memory is a few numbers per run, whatever the number of queries.  With absent entries
weighted ``w_i(absent)``, the statistic of a run is

    Σ_i w_i(absent) + Σ_{i reached} (w_i(a_i) − w_i(absent)),

so only the positions a run reaches are visited.  The draws are exactly those of
:func:`exactdp.sampling.sampler.sample`: the columns equal those computed from its samples.
Other components (the raw ⊤/⊥ vector) and other families fall back to :func:`sample`.
"""

from __future__ import annotations

import numpy as np

from ..events import Additive, LastEntry
from ..mechanisms.description import ThresholdMechanism
from ..sampled_outputs import Columns
from .sampler import query_array, sample, walk


def sample_columns(mech, queries, runs: int, rng: np.random.Generator, components):
    """The columns of ``components`` over ``runs`` runs of ``mech`` on ``queries``: a
    :class:`Columns` when they are accumulated while drawing, else the sampler's own output
    (from which each component reads its column).

    Parameters
    ----------
    mech : a mechanism description
    queries : sequence of numbers
    runs : int
    rng : numpy.random.Generator
        The only source of randomness; the same draws as :func:`sample` makes.
    components : iterable of event components (``exactdp.events``)
    """
    components = list({id(c): c for c in components}.values())  # one hash per component
    if isinstance(mech, ThresholdMechanism) and all(
            isinstance(c, (Additive, LastEntry)) for c in components):
        return _streamed(mech, query_array(queries), runs, rng, components)
    return sample(mech, [float(q) for q in queries], runs, rng)


def _streamed(mech: ThresholdMechanism, q: np.ndarray, runs: int, rng: np.random.Generator,
              components: list) -> Columns:
    sums, lasts = [], []
    for component in components:
        if isinstance(component, Additive):
            sums.append(_Accumulator(component, runs))
        else:
            lasts.append((component, np.full(runs, np.nan)))
    for block in walk(mech, q, runs, rng):
        for accumulator in sums:
            accumulator.add(block, whole=block.active.size == runs)
        for component, column in lasts:  # the last row present is the last entry so far
            released = None if block.released is None else block.released[-1]
            column[block.active] = component.entries(block.above[-1], released)
    return Columns({**{a.component: a.column for a in sums},
                    **{component: column for component, column in lasts}})


class _Accumulator:
    """One additive statistic ``Σ_i w_i(a_i)`` of every run, accumulated block by block.

    With ``top_i = w_i(⊤) − w_i(absent)`` and ``bottom_i = w_i(⊥) − w_i(absent)``, a block adds
    to each of its runs ``Σ_{i in block} bottom_i + Σ_{i in block} (top_i − bottom_i)·[a_i = ⊤]``:
    the first sum is one number per block (prefix sums over the positions), the second one
    matrix-vector product.  Positions where both weights vanish are skipped (prefix counts).
    """

    def __init__(self, component, runs: int):
        weights = np.array(component.weights, dtype=np.int64).reshape(-1, 3)
        top, bottom = weights[:, 0] - weights[:, 2], weights[:, 1] - weights[:, 2]
        self.component = component
        self.column = np.full(runs, weights[:, 2].sum())
        self.difference = top - bottom
        self.differences = self.difference.tolist()
        self.bottom_sums = [0, *np.cumsum(bottom).tolist()]
        self.weighted = [0, *np.cumsum((top != 0) | (bottom != 0)).tolist()]

    def add(self, block, whole: bool) -> None:
        """Add the statistic over ``block``'s positions to its runs (every run when ``whole``)."""
        start, stop = block.start, block.stop
        if self.weighted[stop] == self.weighted[start]:
            return
        base = self.bottom_sums[stop] - self.bottom_sums[start]
        if stop - start == 1:  # integer arithmetic, several times faster than where
            increment = block.above[0] * self.differences[start] + base
        else:
            increment = self.difference[start:stop] @ block.above + base
        if whole:
            self.column += increment
        else:  # ufunc.at: one pass over the runs, no gathered copy
            np.add.at(self.column, block.active, increment)
