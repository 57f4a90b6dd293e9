"""Vectorised sampling of Sparse-Vector-family mechanisms from their declarative description.

Many runs are drawn at once: the loop goes over query positions (a handful), never over runs.
Per run the state is the current noisy threshold and the number of ⊤'s so far; runs that reach
the cutoff leave the active set and are not drawn again.  Randomness comes only from the ``numpy.random.Generator``
passed in, so a seeded generator reproduces every draw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..mechanisms.description import Release, ThresholdMechanism
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
    # Active set: only the runs still going are drawn at each position (on StatDP's SVT test
    # with N = 1 most runs stop within two queries).  Rows are positions while drawing, so each
    # scatter writes one contiguous row; entries of stopped runs stay ABSENT.
    q = query_array(queries)
    answers = np.full((q.size, runs), ABSENT, dtype=np.int8)
    values = np.full((q.size, runs), np.nan) if mech.releases_numbers else None
    threshold = float(mech.threshold)
    threshold_noise, query_noise = mech.threshold_noise, mech.query_noise
    active = np.arange(runs)
    noisy_threshold = threshold_noise.sample(rng, runs, loc=threshold)
    tops = np.zeros(runs, dtype=np.int64)
    for i, answer in enumerate(q):
        if active.size == 0:
            break
        noisy = query_noise.sample(rng, active.size, loc=answer)
        above = noisy >= noisy_threshold
        answers[i][active] = above
        if mech.release is Release.NOISY_VALUE:
            values[i][active[above]] = noisy[above]
        elif mech.release is Release.GAP:
            values[i][active[above]] = (noisy - noisy_threshold)[above]
        elif mech.release is Release.FRESH_VALUE:
            values[i][active[above]] = mech.release_noise.sample(rng, int(above.sum()),
                                                                 loc=answer)
        if mech.redraw_threshold:
            noisy_threshold[above] = threshold_noise.sample(rng, int(above.sum()),
                                                            loc=threshold)
        if mech.cutoff is not None:
            tops += above
            going = np.flatnonzero(tops < mech.cutoff)
            active, noisy_threshold, tops = active[going], noisy_threshold[going], tops[going]
    return Samples(np.ascontiguousarray(answers.T),
                   None if values is None else np.ascontiguousarray(values.T))


def query_array(queries) -> np.ndarray:
    """The query answers as a float array (``"0*3,1"`` strings and sequences accepted)."""
    return np.array([float(v) for v in as_queries(queries).expand()])


def output_counts(samples: Samples) -> dict[str, int]:
    """How often each ⊤/⊥ output occurred, keyed by its ``T,F,...`` spelling (absent entries
    dropped)."""
    rows, counts = np.unique(samples.answers, axis=0, return_counts=True)
    spell = {1: "T", 0: "F"}
    return {",".join(spell[int(a)] for a in row if a != ABSENT): int(c)
            for row, c in zip(rows, counts)}
