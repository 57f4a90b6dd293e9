"""Vectorised sampling of Sparse-Vector-family mechanisms from their declarative description.

Many runs are drawn at once: the loop goes over query positions, never over runs.  Per run the
state is the current noisy threshold and the number of ⊤'s so far; runs that reach the cutoff
leave the active set and are never drawn again, so the work follows the draws, not the number of
queries: once every run has stopped the remaining positions cost nothing.  Randomness comes only
from the ``numpy.random.Generator`` passed in, so a seeded generator reproduces every draw.

Two consumers share one walk over the positions (:func:`walk`, in blocks of positions):
:func:`sample` stores every answer (a ``runs × n`` matrix, for callers that want the outputs
themselves), and the tester's :func:`exactdp.sampling.streaming.sample_columns` accumulates only the
statistics it counts, in memory independent of ``n``.  Both consume the random stream identically.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..mechanisms.description import Release, ThresholdMechanism
from ..sampled_outputs import ABSENT, Samples
from ..sequences import as_queries

@dataclass(frozen=True)
class Block:
    """The draws of consecutive query positions ``start ≤ i < stop``, over which the set of runs
    still going does not change.

    Attributes
    ----------
    start, stop : int
    active : numpy.ndarray of int
        The runs going at these positions (ascending); the others are absent here.
    above : numpy.ndarray of bool, shape (stop − start, active.size)
        ⊤ for each position and active run.
    released : numpy.ndarray of float or None
        For a mechanism that releases numbers, the number released at each position by each
        active run (NaN where it answered ⊥); same shape as ``above``.
    """

    start: int
    stop: int
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


#: Most query-noise numbers drawn ahead for one block of positions.
BLOCK_DRAWS = 1 << 16
#: Fewest query-noise numbers drawn by one refill of the stream (the rest wait for later blocks).
REFILL_DRAWS = 1 << 12


class _Stream:
    """The query noise of the walk, read in the order it is drawn.

    numpy draws a law's numbers one after another from the generator's stream, and
    ``law.sample(rng, k) + loc`` equals ``law.sample(rng, k, loc)`` bit for bit, so numbers drawn
    ahead and read later are the numbers a draw at that moment would have given — provided
    nothing else is drawn meanwhile (no release noise, no threshold redraw).
    """

    def __init__(self, law, rng: np.random.Generator):
        self.law, self.rng = law, rng
        self.buffer, self.offset = np.empty(0), 0

    @property
    def buffered(self) -> int:
        """How many numbers were drawn ahead and not yet read."""
        return self.buffer.size - self.offset

    def peek(self, count: int) -> np.ndarray:
        """The next ``count`` numbers (drawn now if not yet, at least :data:`REFILL_DRAWS` at a
        time: one numpy call per few blocks of the tail), without consuming them."""
        if count > self.buffered:
            fresh = self.law.sample(self.rng, max(count - self.buffered, REFILL_DRAWS))
            self.buffer = (np.concatenate((self.buffer[self.offset:], fresh)) if self.buffered
                           else fresh)
            self.offset = 0
        return self.buffer[self.offset:self.offset + count]

    def consume(self, count: int) -> None:
        self.offset += count




def walk(mech: ThresholdMechanism, queries: np.ndarray, runs: int,
         rng: np.random.Generator) -> Iterator[Block]:
    """The :class:`Block` of positions of every run, in order, until every run has stopped.

    The draws, in this order: the noisy threshold of every run; then at each position the query
    noise of the active runs, the release noise of those above (``FRESH_VALUE``) and their new
    threshold (``redraw_threshold``).  With many runs going a block is one position.  With few
    (the tail of a cutoff) and no other noise drawn between positions, the query noise of up to
    :data:`BLOCK_DRAWS` numbers ahead is drawn at once (:class:`_Stream`) and the block runs up to
    the first position where a run reaches the cutoff (each block reaches at most twice as far as
    the last one went), so the tail costs a few numpy calls instead of one round per position; the
    numbers are those of one draw per position.
    """
    if mech.law.integer_valued:
        mech.check_queries(as_queries(queries.tolist()))
    threshold = float(mech.threshold)
    threshold_noise, query_noise = mech.threshold_noise, mech.query_noise
    ahead = mech.release is not Release.FRESH_VALUE and not mech.redraw_threshold
    stream = _Stream(query_noise, rng)
    active = np.arange(runs)
    noisy_threshold = threshold_noise.sample(rng, runs, loc=threshold)
    tops = np.zeros(runs, dtype=np.int64)
    i, reach = 0, 1
    while i < queries.size and active.size:
        # a block reaches twice as far as the last one went: little is drawn past a stop
        length = min(queries.size - i, max(1, BLOCK_DRAWS // active.size), 2 * reach) \
            if ahead else 1
        loc = queries[i:i + length, None]
        if length > 1 or stream.buffered:
            noisy = stream.peek(length * active.size).reshape(length, active.size) + loc
        else:  # one position, nothing drawn ahead: draw it now (a scalar shift: numpy's fast path)
            noisy = query_noise.sample(rng, active.size, loc=queries[i])[None, :]
        above = noisy >= noisy_threshold
        # every run stops at its next ⊤ (always with a cutoff of 1): no ⊤'s to count
        final = mech.cutoff is not None and tops.min() == mech.cutoff - 1
        if mech.cutoff is not None and length > 1:
            if final:
                reached = above.any(axis=1)
            else:
                reached = (tops + np.cumsum(above, axis=0, dtype=np.int32) >= mech.cutoff
                           ).any(axis=1)
            if reached.any():  # the block ends where the first run stops
                length = int(reached.argmax()) + 1
                noisy, above, loc = noisy[:length], above[:length], loc[:length]
        if stream.buffered:
            stream.consume(length * active.size)
        released = None
        if mech.release is Release.NOISY_VALUE:
            released = np.where(above, noisy, np.nan)
        elif mech.release is Release.GAP:
            released = np.where(above, noisy - noisy_threshold, np.nan)
        elif mech.release is Release.FRESH_VALUE:
            released = np.full(above.shape, np.nan)
            released[above] = mech.release_noise.sample(rng, int(above.sum()), loc=loc[0, 0])
        if mech.redraw_threshold:
            noisy_threshold[above[0]] = threshold_noise.sample(rng, int(above.sum()),
                                                               loc=threshold)
        yield Block(i, i + length, active, above, released)
        i, reach = i + length, length
        if mech.cutoff is not None:
            if final:  # the runs going had no ⊤ here, so their count stays cutoff − 1
                going = np.flatnonzero(~(above[0] if length == 1 else above.any(axis=0)))
            else:
                tops += above[0] if length == 1 else above.sum(axis=0)
                going = np.flatnonzero(tops < mech.cutoff)
            if going.size < active.size:
                active, noisy_threshold = active[going], noisy_threshold[going]
                tops = tops[:going.size] if final else tops[going]


@sample.register
def _(mech: ThresholdMechanism, queries, runs: int, rng: np.random.Generator) -> Samples:
    # Rows are positions while drawing, so each scatter writes contiguous rows; entries of
    # stopped runs stay ABSENT.
    q = query_array(queries)
    answers = np.full((q.size, runs), ABSENT, dtype=np.int8)
    values = np.full((q.size, runs), np.nan) if mech.releases_numbers else None
    for block in walk(mech, q, runs, rng):
        answers[block.start:block.stop, block.active] = block.above
        if values is not None:
            values[block.start:block.stop, block.active] = block.released
    return Samples(np.ascontiguousarray(answers.T),
                   None if values is None else np.ascontiguousarray(values.T))


def query_array(queries) -> np.ndarray:
    """The query answers as a float array (``"0*3,1"`` strings and sequences accepted; a float
    array is returned as it is)."""
    if isinstance(queries, np.ndarray) and queries.dtype == float:
        return queries
    return np.array([float(v) for v in as_queries(queries).expand()])


def output_counts(samples: Samples) -> dict[str, int]:
    """How often each ⊤/⊥ output occurred, keyed by its ``T,F,...`` spelling (absent entries
    dropped)."""
    rows, counts = np.unique(samples.answers, axis=0, return_counts=True)
    spell = {1: "T", 0: "F"}
    return {",".join(spell[int(a)] for a in row if a != ABSENT): int(c)
            for row, c in zip(rows, counts)}
