"""Exact expected accuracy of Algorithm 4 and exact probabilities of Theorem 5.12's event.

Algorithm 3's partition depends on the noisy threshold ``θ̃ = θ + ρ`` only through the integer
``t = ⌈θ̃⌉`` (:mod:`exactdp.attacks.reconstruction`), and ``Pr[⌈θ + ρ⌉ = t] =
Pr[t − 1 − θ < ρ ≤ t − θ]`` is a Laplace interval probability.  Given the partition, Algorithm 4
guesses cell ``u`` of part ``P`` right when ``round((S_P + η)/|P|) = x_u``, ``S_P`` the part's
total and ``η ~ Lap(1/ε2)``, i.e. when ``η ∈ [|P|(x_u − ½) − S_P, |P|(x_u + ½) − S_P)`` — another
Laplace interval.  So the expected fraction of cells guessed right is the finite sum

    E[accuracy] = Σ_runs Pr[t ∈ run] · (1/|T|) Σ_P Σ_{u ∈ P} Pr[η ∈ I(P, x_u)]
                = (1/|T|) Σ_P w(P) Σ_{u ∈ P} Pr[η ∈ I(P, x_u)],   w(P) = Σ_{runs ∋ P} Pr[t ∈ run],

over the runs of consecutive ``t`` that give the same partition: every ``t > span`` (and every
``t ≤ −span``) puts all cells in one part and forms one run; between them only ``t`` within a
window around θ are enumerated, the window wide enough that the Laplace mass outside it is below
``10^{-(dps + 3)}``.  The second line sums each distinct part once, with the total probability
``w(P)`` of the runs it occurs in.

Every interval end is an integer in a suitable unit, so every Laplace mass is a short
expression in ``e^{−λk}`` for integers ``k``; they are evaluated in python-flint's ``arb`` ball
arithmetic (each ``e^{−λk}`` once), whose radius is a rigorous bound on every rounding error.
The mass left out of the windows is non-negative and bounded: it enters the enclosure as a ball
``[0, L]`` added to the computed sum, so every figure is an enclosure ``[lower, upper]``, and the
windows are widened until its width meets the digits asked for.  The mathematics and the error
bound are in ``docs/reconstruction.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from flint import arb, ctx
from mpmath import mpf

from ..errors import InputError
from ..precision import Enclosure, check_dps, exact_mpf, require_digits, to_arb, working_bits
from ..refinement import refine
from .datasets import Histogram
from .reconstruction import SMALL_COUNT, Budget, DistinctCounts, splits

#: What the summation ranges leave out starts at 10^-(dps + LEFT_OUT_GUARD) (absolute), so that
#: it stays below 10^-dps of any result above 10^-2.
LEFT_OUT_GUARD = 3
#: Give up widening the summation ranges beyond this many digits of left-out mass.
MAX_DIGITS = 4000
#: Threshold values examined per numpy block (bounds the memory of :func:`partition_runs`).
BLOCK = 512


class LaplaceMasses:
    r"""Laplace masses of intervals with integer ends, as arb balls at the current flint
    precision (create it inside ``flint.ctx.workprec``): the ball-arithmetic counterpart of
    :meth:`exactdp.noise.Laplace.interval` for the intervals of this module.

    For ``η ~ Lap(1/λ)`` measured in a unit ``h`` (``rate = λh``, an exact rational) and integers
    ``a < b`` (None for ``∓∞``), with ``E(k) = e^{−λhk}``:

    .. math::

        \Pr[a h < η < b h] = \begin{cases}
            ½ E(a) (1 − E(b − a)) & 0 ≤ a, \\
            ½ E(−b) (1 − E(b − a)) & b ≤ 0, \\
            1 − ½ E(−a) − ½ E(b) & a < 0 < b,
        \end{cases}

    (``E(∞) = 0``).  Each ``E(k)`` and ``1 − E(k) = −expm1(−λhk)`` is computed once and cached:
    the intervals of one computation share few distinct ``k``.
    """

    def __init__(self, rate: Fraction):
        self.rate = to_arb(rate)
        self._decay: dict[int, arb] = {}
        self._gap: dict[int, arb] = {}

    def decay(self, k: int | None) -> arb:
        """``E(k) = e^{−λhk}`` for an integer ``k ≥ 0`` (None: ``E(∞) = 0``)."""
        if k is None:
            return arb(0)
        if k not in self._decay:
            self._decay[k] = (-self.rate * k).exp()
        return self._decay[k]

    def gap(self, k: int | None) -> arb:
        """``1 − E(k)`` without cancellation, for an integer ``k > 0`` (None: 1)."""
        if k is None:
            return arb(1)
        if k not in self._gap:
            self._gap[k] = -(-self.rate * k).expm1()
        return self._gap[k]

    def interval(self, low: int | None, high: int | None) -> arb:
        """``Pr[low·h < η < high·h]`` (None ends unbounded; empty intervals have mass 0)."""
        if low is not None and high is not None and low >= high:
            return arb(0)
        width = None if low is None or high is None else high - low
        if low is not None and low >= 0:
            return self.decay(low) * self.gap(width) / 2
        if high is not None and high <= 0:
            return self.decay(-high) * self.gap(width) / 2
        return 1 - (self.decay(None if low is None else -low) + self.decay(high)) / 2


def ball_to_mpf(ball: arb) -> tuple[mpf, mpf]:
    """The midpoint of ``ball`` and its radius as exact mpf values (no rounding)."""
    return exact_mpf(ball.mid()), exact_mpf(ball.rad())


@dataclass(frozen=True)
class Run:
    """Consecutive integer thresholds ``first ≤ t ≤ last`` (None: unbounded) that give the same
    partition, ``split`` (:func:`~exactdp.attacks.reconstruction.splits`), and
    ``Pr[first ≤ t ≤ last]`` as an arb ball."""

    first: int | None
    last: int | None
    split: np.ndarray
    probability: arb


@dataclass(frozen=True)
class Runs:
    """Every run of a threshold window, and the probability mass left out of it (``outside``,
    an arb ball)."""

    runs: list
    outside: arb


def partition_runs(distinct: DistinctCounts, budget: Budget, width: int) -> Runs:
    """The runs of thresholds ``t`` within ``width`` of θ, plus the two one-part runs beyond
    ``±span``; call inside ``flint.ctx.workprec``.

    ``Pr[first ≤ ⌈θ + ρ⌉ ≤ last] = Pr[first − 1 − θ < ρ ≤ last − θ]``, an interval with integer
    ends for ``ρ ~ Lap(1/ε1)`` (:class:`LaplaceMasses` with unit 1).
    """
    theta, span = budget.threshold, distinct.span
    law = LaplaceMasses(budget.epsilon1)
    one_part = np.zeros(distinct.values.size - 1, dtype=bool)
    if span == 0:
        return Runs([Run(None, None, one_part, arb(1))], arb(0))
    low, high = max(-span + 1, theta - width), min(span, theta + width)

    def mass(first, last):
        """Pr[first ≤ ⌈θ + ρ⌉ ≤ last] (None ends unbounded)."""
        return law.interval(None if first is None else first - 1 - theta,
                            None if last is None else last - theta)

    runs = [Run(None, -span, one_part, mass(None, -span))]
    if low > high:                                  # θ lies farther than ``width`` from ±span
        return Runs(runs + [Run(span + 1, None, one_part, mass(span + 1, None))],
                    mass(-span + 1, span))
    outside = mass(-span + 1, low - 1) if low > -span + 1 else arb(0)
    current_first, current = low, None
    for start in range(low, high + 1, BLOCK):
        block = splits(distinct.values, np.arange(start, min(start + BLOCK, high + 1)))
        changes = np.flatnonzero(np.any(block[1:] != block[:-1], axis=1)) + 1
        if current is not None and np.any(block[0] != current):
            runs.append(Run(current_first, start - 1, current, mass(current_first, start - 1)))
            current_first = start
        for change in changes.tolist():
            runs.append(Run(current_first, start + change - 1, block[change - 1],
                            mass(current_first, start + change - 1)))
            current_first = start + change
        current = block[-1]
    runs.append(Run(current_first, high, current, mass(current_first, high)))
    if high < span:
        outside += mass(high + 1, span)
    runs.append(Run(span + 1, None, one_part, mass(span + 1, None)))
    return Runs(runs, outside)


def window_width(epsilon, digits: int) -> int:
    """``w`` with ``Pr[|η| > w] = e^{−εw} < 10^-digits`` for ``η ~ Lap(1/ε)`` (the ``+ 1``
    absorbs the rounding of ``ln 10``; the mass actually left out is computed in arb, so ``w``
    only decides whether the digits are reached)."""
    return math.ceil(Fraction(digits * math.log(10)) / Fraction(epsilon)) + 1


def largest_exponent(distinct: DistinctCounts, histogram: Histogram, budget: Budget):
    """The largest exponent ``λk`` met (threshold and count intervals), at least 1: the
    magnitude whose bits the flint precision adds (:func:`~exactdp.precision.working_bits`)."""
    threshold_ends = 2 * (distinct.span + abs(budget.threshold) + 2) * budget.epsilon1
    count_ends = 2 * (histogram.domain * (int(distinct.values[-1]) + 1) + histogram.scale) \
        * (budget.epsilon2 or 0)
    return max(threshold_ends, count_ends, 1)


def _exact_value(ball: arb, left_out: arb, dps: int, what: str) -> Enclosure | None:
    """The figure whose true value lies in the enclosure ``ball + [0, L]``, ``ball`` the
    computed sum and ``L`` the upper end of ``left_out``, a bound on the non-negative mass the
    summation windows leave out.  None when ``L`` alone exceeds ``10^-dps`` of the value
    (widening the sums helps); a :class:`PrecisionError` when the rounding (the ball's radius)
    keeps it from ``dps`` digits."""
    left = left_out.upper()
    figure = Enclosure.of_ball(ball + arb(left / 2, left / 2))
    value, error = figure.value, figure.error
    if error <= value * mpf(10) ** -dps:
        return figure
    if not value or ball_to_mpf(left)[0] > value * mpf(10) ** -dps:
        return None
    require_digits(error / value, dps, what)
    return figure


@dataclass(frozen=True)
class ExactAccuracy:
    """Algorithm 4's exact expected accuracy.

    Attributes
    ----------
    accuracy : Enclosure
        Expected fraction of all cells guessed right.
    accuracy_small : Enclosure or None
        Expected fraction of the cells with count in ``[0, 5]`` guessed right (None without such
        cells).
    by_count : dict
        ``{count: Enclosure}``: the probability that a cell with that count is guessed right
        (empty unless asked for).
    runs : int
        Number of threshold runs summed.
    terms : int
        Number of count-noise Laplace masses summed (one per distinct count of each distinct
        part, those beyond reach left out).
    """

    accuracy: Enclosure
    accuracy_small: Enclosure | None
    by_count: dict = field(default_factory=dict)
    runs: int = 0
    terms: int = 0


def left_out_failure(what: str, dps: int, left: str = "terms") -> str:
    """The message when the summation windows, widened up to :data:`MAX_DIGITS`, still leave
    out more than ``10^{−dps}`` of the figure ``what``."""
    return (f"{what}: the {left} left out stay above 10^-{dps} of the result; ask for fewer "
            f"digits (dps)")


def exact_accuracy(histogram: Histogram, budget: Budget, dps: int = 30,
                   by_count: bool = False) -> ExactAccuracy:
    """The exact expected accuracy of Algorithm 4 on ``histogram`` (module docstring).

    Parameters
    ----------
    histogram : Histogram
    budget : Budget
        From :meth:`Budget.algorithm_4`.
    dps : int
        Significant digits required of every figure (a :class:`PrecisionError` otherwise).
    by_count : bool
        Also the probability of a right guess for each distinct count (for figures).
    """
    dps = check_dps(dps)
    if budget.epsilon2 is None:
        raise InputError("exact_accuracy needs Algorithm 4's budget (epsilon2 is None)")
    distinct = DistinctCounts.of(histogram)
    bits = working_bits(dps, largest_exponent(distinct, histogram, budget))

    def attempt(digits: int):
        with ctx.workprec(bits):
            result = _sum_parts(distinct, budget, digits, by_count, dps)
        return result is not None, result

    return refine(attempt, dps + LEFT_OUT_GUARD, MAX_DIGITS,
                  lambda result, digits: left_out_failure("exact reconstruction accuracy", dps))


def count_intervals(distinct: DistinctCounts, parts: np.ndarray, reach: int):
    """The count-noise intervals of every distinct count of every part that lie within
    ``reach`` of 0 (the others are left out, each with mass below ``½e^{−reach·ε2}``).

    Cell ``u`` of part ``P`` is guessed right when ``η ∈ [|P|(x_u − ½) − S_P,
    |P|(x_u + ½) − S_P)``; in half units the ends are the integers ``a = 2|P|x_u − |P| − 2S_P``
    and ``b = a + 2|P|``, and the interval is within reach when ``a ≤ 2·reach`` and
    ``b ≥ −2·reach``.  All parts at once, vectorised.

    Parameters
    ----------
    distinct : DistinctCounts
    parts : numpy.ndarray, shape (p, 2)
        Each part as the range ``first, stop`` of its distinct counts.
    reach : int

    Returns
    -------
    tuple of four numpy.ndarray
        Per interval kept: the part's row in ``parts``, the distinct count's index, ``a`` and
        ``b``.
    """
    values, cells = distinct.values, distinct.cells
    # int64 is exact: |a|, |b| ≤ 2·|T|·(max count + 2) + 2·(number of tuples) < 2^62
    # (datasets.MAX_DOMAIN, datasets.MAX_COUNT).
    first, stop = parts[:, 0], parts[:, 1]
    size_prefix = np.concatenate([[0], np.cumsum(cells)])
    total_prefix = np.concatenate([[0], np.cumsum(cells * values)])
    size, total = size_prefix[stop] - size_prefix[first], total_prefix[stop] - total_prefix[first]
    lengths = stop - first
    part = np.repeat(np.arange(parts.shape[0]), lengths)
    index = np.arange(part.size) - np.repeat(np.cumsum(lengths) - lengths, lengths) \
        + np.repeat(first, lengths)
    low = 2 * size[part] * values[index] - size[part] - 2 * total[part]
    high = low + 2 * size[part]
    kept = np.flatnonzero((low <= 2 * reach) & (high >= -2 * reach))
    return part[kept], index[kept], low[kept], high[kept]


def _sum_parts(distinct, budget, digits, by_count, dps):
    """One evaluation with the threshold window and the count-noise reach of ``digits``; None
    when what they leave out is too big for ``dps``."""
    values, cells = distinct.values, distinct.cells
    small = values <= SMALL_COUNT
    runs = partition_runs(distinct, budget, window_width(budget.epsilon1, digits))
    # w(P): the total probability of the runs in which each distinct part occurs.
    weight: dict[tuple[int, int], arb] = {}
    for run in runs.runs:
        bounds = np.concatenate([[0], np.flatnonzero(run.split) + 1, [values.size]]).tolist()
        for part in zip(bounds[:-1], bounds[1:]):
            weight[part] = weight[part] + run.probability if part in weight \
                else run.probability
    reach = window_width(budget.epsilon2, digits)
    terms = count_intervals(distinct, np.array(list(weight), dtype=np.int64).reshape(-1, 2),
                            reach)
    # Count intervals in half units: rate ε2/2; w(P)·Σ_{u∈P} q(P, u) summed per part.
    count_law = LaplaceMasses(budget.epsilon2 / 2)
    part_all, part_small = [arb(0)] * len(weight), [arb(0)] * len(weight)
    for part, j, low, high in zip(*(column.tolist() for column in terms)):
        right = count_law.interval(low, high)
        part_all[part] += int(cells[j]) * right
        if small[j]:
            part_small[part] += int(cells[j]) * right
    weights = list(weight.values())
    right_all = sum((w * p for w, p in zip(weights, part_all)), arb(0))
    right_small = sum((w * p for w, p in zip(weights, part_small)), arb(0))
    per_value = [arb(0)] * values.size
    if by_count:
        for part, j, low, high in zip(*(column.tolist() for column in terms)):
            per_value[j] += weights[part] * count_law.interval(low, high)
    # Left out, per cell: the threshold mass outside the window (at most 1 each) and the right
    # guesses beyond reach (at most e^{−reach·ε2}/2 per cell and threshold run).
    left_out = runs.outside + LaplaceMasses(budget.epsilon2).decay(reach) / 2
    what = "exact reconstruction accuracy"
    small_cells = int(cells[small].sum())
    figures = [_exact_value(right_all / int(cells.sum()), left_out, dps, what),
               _exact_value(right_small / small_cells, left_out, dps, what)
               if small_cells else None]
    if by_count:
        figures += [_exact_value(total, left_out, dps, what) for total in per_value]
    if figures[0] is None or (small_cells and figures[1] is None) or None in figures[2:]:
        return None
    counts = {int(c): figure for c, figure in zip(values, figures[2:])}
    return ExactAccuracy(figures[0], figures[1], counts, len(runs.runs), terms[0].size)


def theorem_5_12_probability(histogram: Histogram, budget: Budget, last: int | None = None,
                             dps: int = 30) -> Enclosure:
    """The exact probability that Algorithm 3 (budget ε1) outputs ``P_i = S_i`` for every
    ``i ≤ m`` (Theorem 5.12's event; ``S_i`` the cells with count ``i``).

    Parameters
    ----------
    histogram : Histogram
    budget : Budget
        Algorithm 3's budget (only ``epsilon1`` and ``delta`` are used).
    last : int or None
        ``m``; by default the theorem's ``m = k − 2α`` (``k`` = :attr:`Histogram.support_k`,
        ``α = θ``), which must be ≥ 0 (the theorem's hypothesis ``k > 2α``).
    dps : int
        Significant digits (the event is decided per run; only the Laplace masses are rounded).
    """
    dps = check_dps(dps)
    alpha = budget.threshold
    if last is None:
        last = histogram.support_k - 2 * alpha
        if last < 0:
            raise InputError(f"Theorem 5.12 needs k > 2α: k = {histogram.support_k}, "
                             f"α = {alpha}")
    distinct = DistinctCounts.of(histogram)
    values = distinct.values
    # P_i = S_i for i ≤ m needs the counts 0..m present and a split after each of them.
    present = values.size > last and np.array_equal(values[:last + 1], np.arange(last + 1))
    if not present:
        return Enclosure.exact(0)     # some S_i (i ≤ m) is empty: P_i = S_i is impossible
    needed = min(last + 1, values.size - 1)
    bits = working_bits(dps, largest_exponent(distinct, histogram, budget))

    def attempt(digits: int):
        with ctx.workprec(bits):
            runs = partition_runs(distinct, budget, window_width(budget.epsilon1, digits))
            held = sum((run.probability for run in runs.runs if bool(np.all(run.split[:needed]))),
                       arb(0))
            result = _exact_value(held, runs.outside, dps, "Theorem 5.12 probability")
        return result is not None, result

    return refine(attempt, dps + LEFT_OUT_GUARD, MAX_DIGITS,
                  lambda result, digits: left_out_failure("Theorem 5.12 probability", dps,
                                                          "thresholds"))
