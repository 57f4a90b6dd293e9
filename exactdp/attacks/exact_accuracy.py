"""Exact expected accuracy of Algorithm 4 and exact probabilities of Theorem 5.12's event.

Algorithm 3's partition depends on the noisy threshold ``θ̃ = θ + ρ`` only through the integer
``t = ⌈θ̃⌉`` (:mod:`exactdp.attacks.reconstruction`), and ``Pr[⌈θ + ρ⌉ = t] =
Pr[t − 1 − θ < ρ ≤ t − θ]`` is a Laplace interval probability.  Given the partition, Algorithm 4
guesses cell ``u`` of part ``P`` right when ``round((S_P + η)/|P|) = x_u``, ``S_P`` the part's
total and ``η ~ Lap(1/ε2)``, i.e. when ``η ∈ [|P|(x_u − ½) − S_P, |P|(x_u + ½) − S_P)`` — another
Laplace interval.  So the expected fraction of cells guessed right is the finite sum

    E[accuracy] = Σ_runs Pr[t ∈ run] · (1/|T|) Σ_P Σ_{u ∈ P} Pr[η ∈ I(P, x_u)],

over the runs of consecutive ``t`` that give the same partition: every ``t > span`` (and every
``t ≤ −span``) puts all cells in one part and forms one run; between them only ``t`` within a
window around θ are enumerated, the window wide enough that the Laplace mass outside it is below
``10^{-(dps + 3)}``.  That mass enters the error bound (the accuracy lies in [0, 1]), and the
window is widened until the bound meets the digits asked for.  The mathematics and the error
bound are in ``docs/reconstruction.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
from mpmath import mpf

from ..errors import InputError, PrecisionError
from ..precision import check_dps, require_digits, to_mpf, unit_roundoff, working_dps
from .datasets import Histogram
from .reconstruction import SMALL_COUNT, Budget, DistinctCounts, splits

#: What the summation ranges leave out starts at 10^-(dps + LEFT_OUT_GUARD) (absolute), so that
#: with rounding it stays below 10^-dps of any result above 10^-2.
LEFT_OUT_GUARD = 3
#: Give up widening the summation ranges beyond this many digits of left-out mass.
MAX_DIGITS = 4000
#: Threshold values examined per numpy block (bounds the memory of :func:`partition_runs`).
BLOCK = 512


@dataclass(frozen=True)
class Run:
    """Consecutive integer thresholds ``first ≤ t ≤ last`` (None: unbounded) that give the same
    partition, ``split`` (:func:`~exactdp.attacks.reconstruction.splits`), with probability
    ``probability`` at the working precision."""

    first: int | None
    last: int | None
    split: np.ndarray
    probability: mpf


@dataclass(frozen=True)
class Runs:
    """Every run of a threshold window, and the probability mass left out of it (``outside``)."""

    runs: list
    outside: mpf


def partition_runs(distinct: DistinctCounts, budget: Budget, width: int) -> Runs:
    """The runs of thresholds ``t`` within ``width`` of θ, plus the two one-part runs beyond
    ``±span``; call inside the working precision."""
    law, theta, span = budget.threshold_noise, budget.threshold, distinct.span
    one_part = np.zeros(distinct.values.size - 1, dtype=bool)
    if span == 0:
        return Runs([Run(None, None, one_part, mpf(1))], mpf(0))
    low, high = max(-span + 1, theta - width), min(span, theta + width)

    def mass(first, last):
        """Pr[first ≤ ⌈θ + ρ⌉ ≤ last] (None ends unbounded)."""
        return law.interval(-mpmath.inf if first is None else to_mpf(first - 1 - theta),
                            mpmath.inf if last is None else to_mpf(last - theta))

    runs = [Run(None, -span, one_part, mass(None, -span))]
    if low > high:                                  # θ lies farther than ``width`` from ±span
        return Runs(runs + [Run(span + 1, None, one_part, mass(span + 1, None))],
                    mass(-span + 1, span))
    outside = mass(-span + 1, low - 1) if low > -span + 1 else mpf(0)
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


def interval_error(ends_over_scale: mpf, width_over_scale: mpf) -> mpf:
    """Relative error bound of ``Laplace.interval`` for an interval of width ``w`` whose finite
    ends total ``|lo| + |hi| ≤ M`` (both in units of the scale):
    ``(4M + 16) u / min(1, w)`` (``docs/reconstruction.md``, "Error bound")."""
    return (4 * ends_over_scale + 16) * unit_roundoff() / min(mpf(1), width_over_scale)


def _threshold_ends(distinct: DistinctCounts, budget: Budget):
    """A bound on ``|lo| + |hi|`` (in units of the scale) of every threshold interval
    ``(t − 1 − θ, t − θ]`` that :func:`partition_runs` evaluates (``|t| ≤ span + 1``)."""
    return 2 * (distinct.span + abs(budget.threshold) + 2) * budget.epsilon1


def window_width(epsilon, digits: int) -> int:
    """``w`` with ``Pr[|η| > w] = e^{−εw} < 10^-digits`` for ``η ~ Lap(1/ε)``."""
    return int(mpmath.ceil(digits * mpmath.log(10) / to_mpf(epsilon))) + 1


@dataclass(frozen=True)
class ExactValue:
    """An exact figure and a bound on its absolute error."""

    value: mpf
    error: mpf


@dataclass(frozen=True)
class ExactAccuracy:
    """Algorithm 4's exact expected accuracy.

    Attributes
    ----------
    accuracy : ExactValue
        Expected fraction of all cells guessed right.
    accuracy_small : ExactValue or None
        Expected fraction of the cells with count in ``[0, 5]`` guessed right (None without such
        cells).
    by_count : dict
        ``{count: ExactValue}``: the probability that a cell with that count is guessed right
        (empty unless asked for).
    runs : int
        Number of threshold runs summed.
    """

    accuracy: ExactValue
    accuracy_small: ExactValue | None
    by_count: dict = field(default_factory=dict)
    runs: int = 0


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
    values, cells = distinct.values, distinct.cells
    count_law = budget.count_noise
    # The largest interval end in units of a scale bounds the rounding error of every term.
    count_ends = 2 * (histogram.domain * (int(values[-1]) + 1) + histogram.scale) \
        * budget.epsilon2
    digits = dps + LEFT_OUT_GUARD
    while True:
        threshold_ends = _threshold_ends(distinct, budget)
        with mpmath.workdps(working_dps(dps, max(count_ends, threshold_ends, 1))):
            result = _sum_runs(distinct, budget, digits, by_count, dps,
                               interval_error(to_mpf(threshold_ends), to_mpf(budget.epsilon1))
                               + interval_error(to_mpf(count_ends), to_mpf(budget.epsilon2)))
        if result is not None:
            return result
        if digits > MAX_DIGITS:
            raise PrecisionError(f"exact reconstruction accuracy: the terms left out stay above "
                                 f"10^-{dps} of the result; ask for fewer digits (dps)")
        digits *= 2


def _sum_runs(distinct, budget, digits, by_count, dps, term_error):
    """One evaluation with the threshold window and the count-noise reach of ``digits``; None
    when what they leave out is too big for ``dps``."""
    values, cells = distinct.values, distinct.cells
    count_law, small = budget.count_noise, values <= SMALL_COUNT
    runs = partition_runs(distinct, budget, window_width(budget.epsilon1, digits))
    # A guess is right only when |η| reaches the distance from S_P/|P| to the cell's count
    # (less |P|/2); values beyond ``reach`` are left out, each with mass at most e^{−reach·ε2}/2.
    reach = window_width(budget.epsilon2, digits)
    cache: dict[tuple[int, int], tuple] = {}

    rate = to_mpf(budget.epsilon2)

    def part(first: int, stop: int):
        """(Σ_u Pr[right], Σ over small u, {value index: Pr[right]}) for the distinct values
        ``first..stop−1`` forming one part."""
        key = (first, stop)
        if key not in cache:
            counts, multiplicity = values[first:stop], cells[first:stop]
            size, total = int(multiplicity.sum()), int(multiplicity @ counts)
            twice_low = 2 * size * counts - size - 2 * total     # 2·(|P|(c − ½) − S_P)
            near = np.flatnonzero((twice_low <= 2 * reach) & (twice_low + 2 * size >= -2 * reach))
            # An interval of width |P| on one side of 0 has mass ½e^{−dist/b}(1 − e^{−|P|/b}).
            one_side = -mpmath.expm1(-size * rate) / 2
            right = {}
            for j in near.tolist():
                low, high = int(twice_low[j]), int(twice_low[j]) + 2 * size
                right[first + j] = (one_side * mpmath.exp(-low * rate / 2) if low >= 0 else
                                    one_side * mpmath.exp(high * rate / 2) if high <= 0 else
                                    count_law.interval(to_mpf(low) / 2, to_mpf(high) / 2))
            weighted = [(int(cells[j]) * p, small[j]) for j, p in right.items()]
            cache[key] = (mpmath.fsum(w for w, _ in weighted),
                          mpmath.fsum(w for w, is_small in weighted if is_small), right)
        return cache[key]

    right_all, right_small = [], []
    per_value = [mpf(0)] * values.size if by_count else None
    for run in runs.runs:
        bounds = np.concatenate([[0], np.flatnonzero(run.split) + 1, [values.size]])
        parts = [part(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        right_all.append(run.probability * mpmath.fsum(p[0] for p in parts))
        right_small.append(run.probability * mpmath.fsum(p[1] for p in parts))
        if by_count:
            for p in parts:
                for j, q in p[2].items():
                    per_value[j] += run.probability * q
    # Every term is a product of two Laplace intervals (relative error term_error each) summed
    # in sums of at most |T| and len(runs) positive terms (relative error (count)·u each).
    relative = term_error + (2 * values.size + len(runs.runs) + 8) * unit_roundoff()
    # Left out, per cell: the threshold mass outside the window (at most 1 each) and the right
    # guesses beyond reach (at most e^{−reach·ε2}/2 per cell and threshold run).
    left_out = runs.outside + mpmath.exp(-reach * to_mpf(budget.epsilon2)) / 2

    def exact(total, weight) -> ExactValue | None:
        """``total/weight`` plus half of what was left out, with its error bound; None when
        what was left out keeps it from ``dps`` digits."""
        value = total / weight + left_out / 2
        error = value * relative + left_out / 2
        if error > value * mpf(10) ** -dps:
            return None
        require_digits(error / value, dps, "exact reconstruction accuracy")
        return ExactValue(+value, +error)

    small_cells = int(cells[small].sum())
    figures = [exact(mpmath.fsum(right_all), int(cells.sum())),
               exact(mpmath.fsum(right_small), small_cells) if small_cells else None]
    if by_count:
        figures += [exact(total, 1) for total in per_value]
    if figures[0] is None or (small_cells and figures[1] is None) or None in figures[2:]:
        return None
    counts = {int(c): figure for c, figure in zip(values, figures[2:])}
    return ExactAccuracy(figures[0], figures[1], counts, len(runs.runs))


def theorem_5_12_probability(histogram: Histogram, budget: Budget, last: int | None = None,
                             dps: int = 30) -> ExactValue:
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
        return ExactValue(mpf(0), mpf(0))     # some S_i (i ≤ m) is empty: P_i = S_i is impossible
    needed = min(last + 1, values.size - 1)
    digits = dps + LEFT_OUT_GUARD
    while True:
        ends = _threshold_ends(distinct, budget)
        with mpmath.workdps(working_dps(dps, max(ends, 1))):
            runs = partition_runs(distinct, budget, window_width(budget.epsilon1, digits))
            held = [run.probability for run in runs.runs if bool(np.all(run.split[:needed]))]
            total = mpmath.fsum(held) + runs.outside / 2
            relative = (interval_error(to_mpf(ends), to_mpf(budget.epsilon1))
                        + (len(runs.runs) + 4) * unit_roundoff())
            error = total * relative + runs.outside / 2
            if not runs.outside or error <= total * mpf(10) ** -dps:
                if total:
                    require_digits(error / total, dps, "Theorem 5.12 probability")
                return ExactValue(+total, +error)
        digits *= 2
