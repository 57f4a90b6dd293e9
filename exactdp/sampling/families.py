"""Vectorised samplers of the noisy max and histogram families (``@sample.register``).

The noise of many runs is drawn at once, shape ``(runs, n)`` (noisy max: in blocks of runs, so the
memory does not grow with ``runs × n``); the outputs are returned as :class:`Draws`.  Randomness
comes only from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..mechanisms.histogram import HistogramMechanism
from ..mechanisms.noisy_max import NoisyMaxMechanism
from .sampler import query_array, sample


@dataclass(frozen=True)
class Draws:
    """The outputs of ``runs`` runs of a mechanism whose output is one number or a vector.

    Attributes
    ----------
    values : numpy.ndarray, shape (runs,) or (runs, n)
        One row per run: an index (int), a noisy value, or the vector of noisy bins.
    """

    values: np.ndarray


#: Most noise draws held at once by the noisy max sampler (8 MB of floats).
BLOCK_DRAWS = 1 << 20


@sample.register
def _(mech: NoisyMaxMechanism, queries, runs: int, rng: np.random.Generator) -> Draws:
    # Blocks of whole runs: numpy fills a (runs, n) draw row by row, so drawing the rows in
    # blocks gives the same numbers while the memory stays bounded whatever n is.
    q = query_array(queries)
    rows = max(1, BLOCK_DRAWS // q.size)
    out = np.empty(runs, dtype=float if mech.releases_value else np.int64)
    for start in range(0, runs, rows):
        noisy = mech.noise.sample(rng, (min(rows, runs - start), q.size), loc=q)
        out[start:start + rows] = noisy.max(axis=1) if mech.releases_value else \
            noisy.argmax(axis=1)
    return Draws(out)


@sample.register
def _(mech: HistogramMechanism, queries, runs: int, rng: np.random.Generator) -> Draws:
    q = query_array(queries)
    if mech.first_bin_only:
        return Draws(mech.noise.sample(rng, runs, loc=q[0]))
    return Draws(mech.noise.sample(rng, (runs, q.size), loc=q))
