"""Vectorised sampling of Sparse-Vector-family mechanisms from their declarative description.

Many runs are drawn at once: the loop goes over query positions, never over runs.  Per run the
state is the current noisy threshold and the number of ⊤'s so far; runs that reach the cutoff
leave the active set and are never drawn again, so the work follows the draws, not the number of
queries: once every run has stopped the remaining positions cost nothing.  Randomness comes only
from the ``numpy.random.Generator`` passed in, so a seeded generator reproduces every draw.

Two consumers share one walk over the positions (:func:`walk`): :func:`sample` stores every
answer (a ``runs × n`` matrix, for callers that want the outputs themselves), and the tester's
:func:`exactdp.sampling.streaming.sample_columns` accumulates only the statistics it counts, in
memory independent of ``n``.  Both consume the random stream identically.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator

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


@dataclass(frozen=True)
class Step:
    """The draws of one query position.

    Attributes
    ----------
    position : int
    active : numpy.ndarray of int
        The runs still going at this position (ascending); the others are absent here.
    above : numpy.ndarray of bool
        ⊤ for each active run.
    released : numpy.ndarray of float or None
        For a mechanism that releases numbers, the number released by each active run (NaN where
        it answered ⊥).
    """

    position: int
    active: np.ndarray
    above: np.ndarray
    released: np.ndarray | None


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


def walk(mech: ThresholdMechanism, queries: np.ndarray, runs: int,
         rng: np.random.Generator) -> Iterator[Step]:
    """The :class:`Step` of every position some run reaches, in order.

    The draws, in this order: the noisy threshold of every run; then at each position the query
    noise of the active runs, the release noise of those above (``FRESH_VALUE``) and their new
    threshold (``redraw_threshold``).  The walk ends when every run has stopped.
    """
    threshold = float(mech.threshold)
    threshold_noise, query_noise = mech.threshold_noise, mech.query_noise
    active = np.arange(runs)
    noisy_threshold = threshold_noise.sample(rng, runs, loc=threshold)
    tops = np.zeros(runs, dtype=np.int64)
    for i, answer in enumerate(queries):
        if active.size == 0:
            return
        noisy = query_noise.sample(rng, active.size, loc=answer)
        above = noisy >= noisy_threshold
        released = None
        if mech.release is Release.NOISY_VALUE:
            released = np.where(above, noisy, np.nan)
        elif mech.release is Release.GAP:
            released = np.where(above, noisy - noisy_threshold, np.nan)
        elif mech.release is Release.FRESH_VALUE:
            released = np.full(active.size, np.nan)
            released[above] = mech.release_noise.sample(rng, int(above.sum()), loc=answer)
        if mech.redraw_threshold:
            noisy_threshold[above] = threshold_noise.sample(rng, int(above.sum()),
                                                            loc=threshold)
        yield Step(i, active, above, released)
        if mech.cutoff is not None:
            tops += above
            going = np.flatnonzero(tops < mech.cutoff)
            if going.size < active.size:
                active, noisy_threshold, tops = active[going], noisy_threshold[going], tops[going]


@sample.register
def _(mech: ThresholdMechanism, queries, runs: int, rng: np.random.Generator) -> Samples:
    # Rows are positions while drawing, so each scatter writes one contiguous row; entries of
    # stopped runs stay ABSENT.
    q = query_array(queries)
    answers = np.full((q.size, runs), ABSENT, dtype=np.int8)
    values = np.full((q.size, runs), np.nan) if mech.releases_numbers else None
    for step in walk(mech, q, runs, rng):
        answers[step.position][step.active] = step.above
        if values is not None:
            values[step.position][step.active] = step.released
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
