"""Chen & Machanavajjhala's reconstruction attack with GPTT [1]_ (§5, Algorithms 3 and 4).

Algorithm 3 runs GPTT(ε1 = ε, ε2 = ∞, Δ = 1) on every difference query
``diff(u, v) = x_u − x_v`` of a histogram ``x`` with threshold ``θ = ⌈(1/ε) ln(1/δ)⌉``: the noisy
threshold is ``θ̃ = θ + ρ``, ``ρ ~ Lap(1/ε)``, and GPTT answers ⊤ for ``diff(u, v)`` exactly when
``x_u − x_v ≥ θ̃``.  With ``larger(v) = {u : ⊤ for diff(u, v)}``, the cells with equal larger-sets
form the parts of an ordered partition, bigger larger-sets (smaller counts) first.

Counts are integers, so ``x_u − x_v ≥ θ̃ ⇔ x_u − x_v ≥ t`` with ``t = ⌈θ̃⌉``, and
``larger(v) = {u : x_u ≥ x_v + t}``.  Two consecutive distinct counts ``c < c′`` then share a part
exactly when no cell has a count in ``[c + t, c′ + t)``: the partition follows from the sorted
distinct counts with two binary searches each, in ``O(|T| log |T|)``, without forming the
``|T|²`` queries (:func:`splits`).

Algorithm 4 splits ε = ε1 + ε2 (the paper uses ε1 = ε2 = ε/2), runs Algorithm 3 with ε1, adds
``Lap(1/ε2)`` to each part's total count and guesses ``round(noisy total / |P|)`` for every cell
of part ``P``.  Rounding is ``floor(a + 1/2)`` (halves go up); the exact computation does not
depend on the convention, a noisy average hitting a half being an event of probability 0.

References
----------
.. [1] Y. Chen and A. Machanavajjhala, "On the Privacy Properties of Variants on the Sparse
   Vector Technique", arXiv:1508.07306, 2015, §5: Definition 5.9, Algorithms 3 and 4,
   Lemma 5.10, Theorem 5.12, Tables 1–3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import ctx

from ..checks import check_positive, check_seed, check_simulation_size
from ..errors import InputError
from ..noise import Laplace
from ..precision import to_arb
from ..refinement import refine
from ..sequences import MAX_MAGNITUDE, to_fraction
from .datasets import Histogram

#: The paper's budget split: ε1 = ε2 = ε/2.
EVEN_SPLIT = Fraction(1, 2)
#: The paper's δ is not stated; this default is said wherever it is used.
DEFAULT_DELTA = Fraction(1, 20)
#: Table 3 measures the accuracy on cells with counts in [0, SMALL_COUNT].
SMALL_COUNT = 5
#: Largest number of simulated repetitions held in memory at once times the number of distinct
#: counts (the draws do not depend on it: every threshold noise is drawn first).
CHUNK_ENTRIES = 2**21
#: The budgets ε accepted, ``[10^-15, 10^15]``: the magnitudes of every number the exact engine
#: takes (:data:`~exactdp.sequences.MAX_MAGNITUDE`), for ε and its reciprocal.  Far below, the
#: threshold ``θ ≈ (2/ε) ln(1/δ)`` outgrows the working precision of the exact accuracy (at
#: ε = 10^-25 it no longer reaches 30 digits on a 100-cell Zipf histogram).
EPSILON_RANGE = (Fraction(1, MAX_MAGNITUDE), Fraction(MAX_MAGNITUDE))
#: The bits :func:`ceiling_log_ratio` works with first.
FIRST_CEILING_BITS = 128
#: Most bits :func:`ceiling_log_ratio` works with before it gives up.
MAX_CEILING_BITS = 2**16


@dataclass(frozen=True)
class Budget:
    """The parameters of Algorithm 3 (``epsilon1``) or Algorithm 4 (``epsilon1 + epsilon2``).

    Attributes
    ----------
    epsilon1 : Fraction
        Algorithm 3's budget: the threshold noise is ``Lap(1/ε1)``.
    epsilon2 : Fraction or None
        Algorithm 4's budget for the part totals, noise ``Lap(1/ε2)``; None for Algorithm 3
        alone.
    delta : Fraction
        The δ of the threshold ``θ = ⌈(1/ε1) ln(1/δ)⌉``, in (0, 1).
    """

    epsilon1: Fraction
    epsilon2: Fraction | None
    delta: Fraction

    @classmethod
    def algorithm_4(cls, epsilon, delta=DEFAULT_DELTA, split=EVEN_SPLIT) -> "Budget":
        """ε1 = split·ε, ε2 = (1 − split)·ε (each value an exact decimal or Fraction)."""
        epsilon, delta, split = (_epsilon(epsilon), _delta(delta), to_fraction(split, "split"))
        if not 0 < split < 1:
            raise InputError(f"split must be strictly between 0 and 1, got split={split}")
        return cls(split * epsilon, (1 - split) * epsilon, delta)

    @classmethod
    def algorithm_3(cls, epsilon, delta=DEFAULT_DELTA) -> "Budget":
        """Algorithm 3 alone with budget ε (Lemma 5.10 and Theorem 5.12)."""
        return cls(_epsilon(epsilon), None, _delta(delta))

    @property
    def epsilon(self) -> Fraction:
        """The total budget ε1 (+ ε2)."""
        return self.epsilon1 + (self.epsilon2 or 0)

    @property
    def threshold_noise(self) -> Laplace:
        """``Lap(1/ε1)`` (Δ = 1 for difference queries)."""
        return Laplace(1 / self.epsilon1)

    @property
    def count_noise(self) -> Laplace:
        """``Lap(1/ε2)``, added to each part's total count."""
        if self.epsilon2 is None:
            raise InputError("Algorithm 3 alone releases no noisy counts (epsilon2 is None)")
        return Laplace(1 / self.epsilon2)

    @property
    def threshold(self) -> int:
        """``θ = α = ⌈(1/ε1) ln(1/δ)⌉``."""
        return ceiling_log_ratio(self.delta, self.epsilon1)


def check_budget(epsilon: Fraction, name: str, shown: str) -> Fraction:
    """``epsilon`` if it is a budget in :data:`EPSILON_RANGE`, else an :class:`InputError`
    naming ``name`` and the value as the user wrote it (``shown``)."""
    low, high = EPSILON_RANGE
    if epsilon <= 0:
        raise InputError(f"{name} must be positive, got {shown}")
    if not low <= epsilon <= high:
        raise InputError(f"{name} must lie in [{float(low):g}, {float(high):g}], got {shown}")
    return epsilon


def _epsilon(value) -> Fraction:
    return check_budget(to_fraction(value, "eps"), "eps", f"eps={value}")


def _delta(value) -> Fraction:
    delta = to_fraction(value, "delta")
    if not 0 < delta < 1:
        raise InputError(f"delta must be strictly between 0 and 1, got delta={value}")
    return delta


def ceiling_log_ratio(delta: Fraction, epsilon: Fraction) -> int:
    """``⌈ln(1/δ)/ε⌉`` for ``0 < δ < 1``, ``ε > 0``.

    ``ln(1/δ) = log1p((1 − δ)/δ)`` is irrational for rational ``δ ≠ 1`` (Lindemann–Weierstrass
    theorem: ``e^r`` is transcendental for rational ``r ≠ 0``), so the value is never an
    integer: it is enclosed in Arb balls of doubling precision
    (:func:`~exactdp.refinement.refine`) until one lies strictly between two integers
    (``log1p`` keeps the relative accuracy when ``δ`` is close to 1); a
    :class:`~exactdp.errors.PrecisionError` beyond :data:`MAX_CEILING_BITS` bits.

    Examples
    --------
    >>> ceiling_log_ratio(Fraction(1, 20), Fraction(1, 10))    # ⌈29.957…⌉
    30
    """
    def attempt(bits: int):
        with ctx.workprec(bits):
            value = to_arb((1 - delta) / delta).log1p() / to_arb(epsilon)
            floor = value.lower().floor()
            decided = floor == value.upper().floor()
            return decided, int(floor.unique_fmpz()) + 1 if decided else None

    return refine(attempt, FIRST_CEILING_BITS, MAX_CEILING_BITS,
                  lambda ceiling, bits: f"cannot decide ⌈ln(1/δ)/ε⌉ at {MAX_CEILING_BITS} bits")


@dataclass(frozen=True)
class DistinctCounts:
    """The sorted distinct counts ``values`` of a histogram and how many cells hold each
    (``cells``); ``index`` maps every cell to its value's position."""

    values: np.ndarray
    cells: np.ndarray
    index: np.ndarray

    @classmethod
    def of(cls, histogram: Histogram) -> "DistinctCounts":
        values, index, cells = np.unique(histogram.counts, return_inverse=True,
                                         return_counts=True)
        return cls(values, cells, index)

    @property
    def span(self) -> int:
        """``max count − min count``: every threshold ``t > span`` (and ``t ≤ −span``) puts all
        cells in one part."""
        return int(self.values[-1] - self.values[0])


def splits(values: np.ndarray, t) -> np.ndarray:
    """Where Algorithm 3's partition at integer threshold ``t`` separates consecutive distinct
    counts.

    Parameters
    ----------
    values : numpy.ndarray
        Sorted distinct counts ``c_0 < … < c_{n−1}``.
    t : int or numpy.ndarray
        ``⌈θ̃⌉`` (any shape).

    Returns
    -------
    numpy.ndarray of bool, shape ``t.shape + (n − 1,)``
        Entry ``i`` is True when ``c_i`` and ``c_{i+1}`` lie in different parts, i.e. when some
        count lies in ``[c_i + t, c_{i+1} + t)`` (then ``larger`` differs on them).
    """
    t = np.asarray(t, dtype=np.int64)[..., None]
    first = np.searchsorted(values, values[:-1] + t, side="left")
    last = np.searchsorted(values, values[1:] + t, side="left")
    return last > first


def part_labels(split: np.ndarray) -> np.ndarray:
    """The part (0 = smallest counts) of each distinct count, from :func:`splits`'s rows."""
    split = np.asarray(split)
    zeros = np.zeros(split.shape[:-1] + (1,), dtype=np.int64)
    return np.concatenate([zeros, np.cumsum(split, axis=-1)], axis=-1)


def algorithm_3(histogram: Histogram, noisy_threshold: float) -> np.ndarray:
    """Algorithm 3's ordered partition for a given noisy threshold ``θ̃``: the part of every cell
    (0 holds the smallest counts), computed in ``O(|T| log |T|)`` from the distinct counts."""
    distinct = DistinctCounts.of(histogram)
    labels = part_labels(splits(distinct.values, math.ceil(noisy_threshold)))
    return labels[distinct.index]


def algorithm_3_pairwise(counts: np.ndarray, noisy_threshold: float) -> np.ndarray:
    """Algorithm 3 as written: all ``|T|²`` answers, larger-sets, parts ordered by decreasing
    larger-set (``O(|T|²)`` memory; for small domains and for checking :func:`algorithm_3`).

    The larger-sets of Algorithm 3 are nested (``larger(v) = {u : x_u ≥ x_v + θ̃}`` shrinks as
    ``x_v`` grows), so ordering by decreasing size is the order of Algorithm 3, line 7.
    """
    counts = np.asarray(counts)
    top = (counts[:, None] - counts[None, :]) >= noisy_threshold     # top[u, v]: diff(u, v)
    larger = [frozenset(np.flatnonzero(top[:, v]).tolist()) for v in range(counts.size)]
    ordered = sorted(set(larger), key=len, reverse=True)
    for first, second in zip(ordered, ordered[1:]):
        if not second < first:
            raise AssertionError("larger-sets are not nested")
    rank = {members: position for position, members in enumerate(ordered)}
    return np.array([rank[members] for members in larger], dtype=np.int64)


@dataclass(frozen=True)
class Simulation:
    """Seeded repetitions of Algorithm 4.

    Attributes
    ----------
    accuracy : numpy.ndarray
        Per repetition, the fraction of cells whose count is guessed right.
    accuracy_small : numpy.ndarray
        Per repetition, the same fraction over the cells with count in ``[0, 5]`` (NaN when there
        is none).
    """

    accuracy: np.ndarray
    accuracy_small: np.ndarray

    @property
    def repetitions(self) -> int:
        return int(self.accuracy.size)


def check_repetitions(histogram: Histogram, repetitions, name: str = "repetitions") -> int:
    """``repetitions`` as an ``int`` if it is a positive integer whose draws on ``histogram``
    (a threshold noise and one count noise per distinct count, each repetition) stay within
    :data:`~exactdp.checks.MAX_SIMULATED_ENTRIES`; refused in one line before any work."""
    repetitions = check_positive(name, repetitions)
    check_simulation_size(name, repetitions, DistinctCounts.of(histogram).values.size + 1,
                          "draws")
    return repetitions


def simulate(histogram: Histogram, budget: Budget, repetitions: int, seed: int) -> Simulation:
    """Run Algorithm 4 ``repetitions`` times, vectorised over repetitions
    (:func:`check_repetitions` bounds them).

    The draws come from ``numpy.random.default_rng(seed)``: all threshold noises first, then
    for each block of repetitions one ``Lap(1/ε2)`` per repetition and distinct count (the first
    ``p`` of a row serve the ``p`` parts), so the result depends on the seed only.
    """
    repetitions, seed = check_repetitions(histogram, repetitions), check_seed(seed)
    distinct = DistinctCounts.of(histogram)
    values, cells, n = distinct.values, distinct.cells, distinct.values.size
    rng = np.random.default_rng(seed)
    noisy = budget.threshold_noise.sample(rng, repetitions, loc=float(budget.threshold))
    # Beyond ±(span + 1) every threshold gives one part; clipping keeps the sums in int64.
    np.clip(np.ceil(noisy, out=noisy), -distinct.span - 1, distinct.span + 1, out=noisy)
    t = noisy.astype(np.int64)
    del noisy
    small = values <= SMALL_COUNT
    small_cells = cells[small].sum()
    accuracy, accuracy_small = np.empty(repetitions), np.empty(repetitions)
    block = max(1, CHUNK_ENTRIES // n)
    for start in range(0, repetitions, block):
        rows = t[start:start + block]
        done = slice(start, start + rows.size)
        labels = part_labels(splits(values, rows))                      # (rows, n)
        flat = (labels + n * np.arange(rows.size)[:, None]).ravel()
        size = np.bincount(flat, np.tile(cells, rows.size), rows.size * n).reshape(-1, n)
        total = np.bincount(flat, np.tile(cells * values, rows.size).astype(float),
                            rows.size * n).reshape(-1, n)
        noise = budget.count_noise.sample(rng, (rows.size, n))
        with np.errstate(invalid="ignore", divide="ignore"):           # parts beyond the last
            guess = np.floor((total + noise) / size + 0.5)
        right = np.take_along_axis(guess, labels, axis=1) == values
        accuracy[done] = right @ cells / cells.sum()
        accuracy_small[done] = right[:, small] @ cells[small] / small_cells if small_cells \
            else np.nan
    return Simulation(accuracy, accuracy_small)
