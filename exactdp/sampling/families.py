"""Vectorised samplers of the noisy max and histogram families (``@sample.register``).

One call draws the noise of every run at once, shape ``(runs, n)``; the outputs are returned as
:class:`Draws`.  Randomness comes only from the ``numpy.random.Generator`` passed in.
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


@sample.register
def _(mech: NoisyMaxMechanism, queries, runs: int, rng: np.random.Generator) -> Draws:
    q = query_array(queries)
    noisy = mech.noise.sample(rng, (runs, q.size), loc=q)
    return Draws(noisy.max(axis=1) if mech.releases_value else noisy.argmax(axis=1))


@sample.register
def _(mech: HistogramMechanism, queries, runs: int, rng: np.random.Generator) -> Draws:
    q = query_array(queries)
    if mech.first_bin_only:
        return Draws(mech.noise.sample(rng, runs, loc=q[0]))
    return Draws(mech.noise.sample(rng, (runs, q.size), loc=q))
