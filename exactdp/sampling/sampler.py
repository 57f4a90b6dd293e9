"""Vectorised sampling of Sparse-Vector-family mechanisms from their declarative description.

Many runs are drawn at once: the loop goes over query positions (a handful), never over runs.
Per run the state is the current threshold noise, the number of ⊤'s so far and whether the run
is still going (the cutoff is a mask).  Randomness comes only from the ``numpy.random.Generator``
passed in, so a seeded generator reproduces every draw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..mechanisms.description import Release, ThresholdMechanism
from ..noise import laplace_noise
from ..sequences import as_queries

#: Code of a position the run never reached (it stopped at the cutoff).
ABSENT = -1


@dataclass(frozen=True)
class Samples:
    """The outputs of ``runs`` independent runs on ``n`` queries.

    Attributes
    ----------
    answers : numpy.ndarray of int8, shape (runs, n)
        1 for ⊤, 0 for ⊥, :data:`ABSENT` after the run stopped.
    values : numpy.ndarray of float, shape (runs, n), or None
        The released numbers at ⊤ positions (NaN elsewhere) for mechanisms that release numbers.
    """

    answers: np.ndarray
    values: np.ndarray | None


@functools.singledispatch
def sample(mech, queries, runs: int, rng: np.random.Generator) -> Samples:
    """Draw ``runs`` independent outputs of ``mech`` on ``queries``.

    A generic function on the description type: a new family registers its sampler with
    ``@sample.register``.

    Parameters
    ----------
    mech : ThresholdMechanism
    queries : str or sequence of numbers
    runs : int
    rng : numpy.random.Generator
        The only source of randomness (seed it for reproducibility).
    """
    raise TypeError(f"no sampler for mechanisms of type {type(mech).__name__}")


@sample.register
def _(mech: ThresholdMechanism, queries, runs: int, rng: np.random.Generator) -> Samples:
    q = np.array([float(v) for v in as_queries(queries).expand()])
    threshold_scale = float(mech.threshold_scale)
    query_scale = float(mech.query_scale)
    threshold = float(mech.threshold)
    answers = np.full((runs, q.size), ABSENT, dtype=np.int8)
    values = np.full((runs, q.size), np.nan) if mech.releases_numbers else None
    rho = laplace_noise(rng, threshold_scale, runs)
    tops = np.zeros(runs, dtype=np.int64)
    running = np.ones(runs, dtype=bool)
    for i, answer in enumerate(q):
        noisy = answer + laplace_noise(rng, query_scale, runs)
        above = noisy >= threshold + rho
        answers[:, i] = np.where(running, above, ABSENT)
        released = running & above
        if mech.release is Release.NOISY_VALUE:
            values[released, i] = noisy[released]
        elif mech.release is Release.GAP:
            gap = noisy - (threshold + rho)
            values[released, i] = gap[released]
        elif mech.release is Release.FRESH_VALUE:
            fresh = answer + laplace_noise(rng, float(mech.release_scale), runs)
            values[released, i] = fresh[released]
        if mech.redraw_threshold:
            rho = np.where(released, laplace_noise(rng, threshold_scale, runs), rho)
        tops += released
        if mech.cutoff is not None:
            running &= tops < mech.cutoff
    return Samples(answers, values)


def output_counts(samples: Samples) -> dict[str, int]:
    """How often each ⊤/⊥ output occurred, keyed by its ``T,F,...`` spelling (absent entries
    dropped)."""
    rows, counts = np.unique(samples.answers, axis=0, return_counts=True)
    spell = {1: "T", 0: "F"}
    return {",".join(spell[int(a)] for a in row if a != ABSENT): int(c)
            for row, c in zip(rows, counts)}
