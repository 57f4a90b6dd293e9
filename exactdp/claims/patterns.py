"""Ways of judging a family that several claims share: an exact zero on one side, a closed form
matched digit for digit, and the approach to a limit from below.

Each function evaluates the families exactly, judges the paper's statement, and returns the
points and figure panels; the claim modules only state the families and the paper's numbers.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import mpmath
from mpmath import mpf

from ..exact import PrivacyLoss
from ..formatting import format_value
from .certify import all_of, equals
from .families import DPS, Family, loss_point, tolerance
from .figure_spec import EXACT, STATEMENT, Curve, Panel, horizontal

#: Axis label of every privacy-loss axis.
LOSS_AXIS = "privacy loss ln(Pr[M(D)=a] / Pr[M(D′)=a])  (nats)"


def evaluate(family: Family, sizes: Sequence[int], progress: Callable[[], None],
             dps: int = DPS) -> list[tuple[int, PrivacyLoss]]:
    """``[(t, loss of the member of size t)]`` for every ``t`` in ``sizes``."""
    results = []
    for size in sizes:
        results.append((size, family.loss(size, dps)))
        progress()
    return results


def fmt(value, digits: int = 6) -> str:
    """A number in a sentence, to ``digits`` significant digits."""
    return format_value(mpf(value), digits)


def loss_curve(label: str, evaluated, color: int) -> Curve:
    """The exact log ratios of ``evaluated`` as a curve against the size."""
    return Curve(label, tuple(float(size) for size, _ in evaluated),
                 tuple(float(loss.log_ratio) for _, loss in evaluated), EXACT, color)


def structural_zero(series: Sequence[tuple[Family, mpf, str]], sizes: Sequence[int],
                    progress: Callable[[], None], closed_form: str, size_axis: str):
    """Judge "``Pr[M(D')=a]`` is an exact zero and ``Pr[M(D)=a]`` equals its closed form".

    Parameters
    ----------
    series : sequence of (Family, mpf, str)
        Each family with the closed-form value of ``Pr[M(D)=a]`` and its formula for the legend.
    sizes : sequence of int
        Family sizes (copies) to evaluate.
    closed_form : str
        The closed form in words, for the verdict sentence.
    size_axis : str
        x-axis label.

    Returns
    -------
    (bool, str, list of dict, tuple of Panel, bool or None)
        Whether the statement holds, the deciding sentence, the points, the figure panels, and
        whether certified enclosures prove the infinite loss (``Pr[M(D)=a]`` enclosed above 0
        against the exact zero; ``claims/certify.py``).
    """
    points, curves, holds, decisions = [], [], True, []
    worst = mpf(0)
    for color, (family, expected, formula) in enumerate(series):
        evaluated = evaluate(family, sizes, progress)
        for size, loss in evaluated:
            decisions.append(equals(family.loss(size, method="certified"), math.inf))
            deviation = abs(loss.p1.value - expected) / expected
            worst = max(worst, deviation)
            holds &= loss.p2.is_zero and mpmath.isinf(loss.log_ratio) and deviation <= tolerance()
            points.append(loss_point(family, size, loss, closed_form=format_value(expected, DPS)))
        xs = tuple(float(size) for size in sizes)
        curves.append(Curve(f"Pr[M(D)=a], {family.label} (exact)", xs,
                            tuple(float(loss.p1.value) for _, loss in evaluated), EXACT, color))
        curves.append(horizontal(f"{formula} = {fmt(expected, 5)} (closed form)", float(expected),
                                 xs, color))
    curves.append(Curve("Pr[M(D′)=a], every series (exact zero)", curves[0].x,
                        (0.0,) * len(sizes), EXACT, -1))
    detail = (f"Pr[M(D′)=a] is an exact zero at every size ({sizes[0]} to {sizes[-1]}), so the "
              f"loss is +∞; Pr[M(D)=a] equals {closed_form} to a relative {fmt(worst, 2)} "
              f"(tolerance {fmt(tolerance(), 1)})")
    panel = Panel("exact output probabilities; ln ratio = +∞ at every size", size_axis,
                  "probability of the output a", tuple(curves), xscale="log",
                  note="Pr[M(D′)=a] = 0 exactly:\nan empty interval for the threshold noise")
    return holds, detail, points, (panel,), all_of(decisions)


def approach_limit(series: Sequence[tuple[Family, mpf, str]], sizes: Sequence[int],
                   progress: Callable[[], None], claimed: float, size_axis: str):
    """Judge "the ln ratio rises to its limit and never exceeds it".

    Parameters
    ----------
    series : sequence of (Family, mpf, str)
        Each family with its limit and the limit's formula for the legend.
    sizes : sequence of int
        Sizes, increasing.
    claimed : float
        The mechanism's claimed ε (drawn as a grey line).

    Returns
    -------
    (bool, str, list of dict, tuple of Panel)
        The statement holds when every ln ratio is at most its limit (up to the rounding
        tolerance of :func:`~exactdp.claims.families.tolerance`), the distance to the limit never
        grows, and at the largest size it is below ``1e-6``.
    """
    points, loss_curves, gap_curves, sentences, holds = [], [], [], [], True
    for color, (family, limit, formula) in enumerate(series):
        evaluated = evaluate(family, sizes, progress)
        gaps = [limit - loss.log_ratio for _, loss in evaluated]
        slack = tolerance(scale=limit)
        holds &= all(gap >= -slack for gap in gaps) and gaps[-1] < mpf("1e-6")
        holds &= all(later - earlier <= slack for earlier, later in zip(gaps, gaps[1:]))
        points += [loss_point(family, size, loss, limit=format_value(limit, DPS),
                              gap_to_limit=format_value(gap, 6))
                   for (size, loss), gap in zip(evaluated, gaps)]
        loss_curves.append(loss_curve(f"{family.label} (exact)", evaluated, color))
        loss_curves.append(horizontal(f"limit {formula} = {fmt(limit, 4)}", float(limit), sizes,
                                      color))
        resolved = [(size, gap) for (size, _), gap in zip(evaluated, gaps) if gap > slack]
        gap_curves.append(Curve(f"{family.label}: {formula} − ln ratio",
                                tuple(float(size) for size, _ in resolved),
                                tuple(float(gap) for _, gap in resolved), EXACT, color))
        first, last = evaluated[0], evaluated[-1]
        sentences.append(f"{family.label}: {fmt(first[1].log_ratio)} at {first[0]}, within "
                         f"{fmt(gaps[-1], 2)} of {formula} at {last[0]}, never above it")
    loss_curves.append(horizontal(f"claimed ε = {claimed:g}", claimed, sizes, -1))
    panels = (Panel("exact ln ratio and its limit", size_axis, LOSS_AXIS, tuple(loss_curves),
                    xscale="log"),
              Panel("distance to the limit (positive: below it)", size_axis,
                    "limit − ln ratio  (nats, log scale)", tuple(gap_curves), yscale="log"))
    return holds, "; ".join(sentences), points, panels


def closed_form_match(series: Sequence[tuple[Family, Callable[[int], mpf], str]],
                      sizes: Sequence[int], progress: Callable[[], None]):
    """Judge "the ln ratio equals a closed form in the size" digit for digit.

    Parameters
    ----------
    series : sequence of (Family, callable, str)
        Each family with its closed form ``size → ln ratio`` and the formula for the legend.

    Returns
    -------
    (bool, mpf, list of dict, list of Curve, dict)
        Whether every value matches within :func:`~exactdp.claims.families.tolerance`, the
        largest deviation, the points, the curves (exact and closed form), and the evaluated
        losses by family label.
    """
    points, curves, evaluated_by_label, holds = [], [], {}, True
    worst = mpf(0)
    for color, (family, closed, formula) in enumerate(series):
        evaluated = evaluate(family, sizes, progress)
        evaluated_by_label[family.label] = evaluated
        for size, loss in evaluated:
            expected = closed(size)
            deviation = abs(loss.log_ratio - expected)
            worst = max(worst, deviation)
            holds &= deviation <= tolerance(scale=expected)
            points.append(loss_point(family, size, loss, closed_form=format_value(expected, DPS)))
        positive = [(size, loss) for size, loss in evaluated if loss.log_ratio > 0]
        curves.append(loss_curve(f"{family.label} (exact)", positive, color))
        grid = _log_grid(sizes)
        curves.append(Curve(f"{formula} (Lyu et al. closed form)", grid,
                            tuple(float(closed(size)) for size in grid), STATEMENT, color))
    return holds, worst, points, curves, evaluated_by_label


def _log_grid(sizes: Sequence[int], count: int = 60) -> tuple:
    low, high = mpmath.log(max(min(sizes), 1)), mpmath.log(max(sizes))
    return tuple(float(mpmath.exp(low + (high - low) * k / (count - 1))) for k in range(count))


def first_above(values: Sequence[tuple[int, PrivacyLoss]], bound) -> int | None:
    """The smallest size whose ln ratio exceeds ``bound`` by more than the rounding tolerance
    (None if none does): a ratio equal to ``e^bound`` is not a violation."""
    return next((size for size, loss in values
                 if loss.log_ratio - bound > tolerance(scale=bound)), None)
