"""Vectorised sampling of the noisy-sum family from its declaration (``NoisySum.terms``).

The loop runs over output coordinates, never over runs: coordinate ``j`` of every run is
``carry_j·o_{j−1} + s_j + Lap(b_j)`` drawn at once for all runs.
"""

from __future__ import annotations

import numpy as np

from ..mechanisms.sums import NoisySum
from ..noise import noise_or_none
from .families import Draws
from .sampler import query_array
from .sampler import sample


@sample.register
def _(mech: NoisySum, queries, runs: int, rng: np.random.Generator) -> Draws:
    """``Draws.values`` of shape ``(runs, k)``: one output vector per run."""
    q = query_array(queries)
    prefix = np.concatenate(([0.0], np.cumsum(q)))
    terms = mech.terms(q.size)
    values = np.empty((runs, len(terms)))
    for j, term in enumerate(terms):
        previous = values[:, j - 1] if term.carry else 0.0
        values[:, j] = (previous + (prefix[term.last] - prefix[term.first])
                        + noise_or_none(term.scale).sample(rng, runs))
    return Draws(values)
