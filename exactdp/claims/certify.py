"""Verdicts that are proofs: a claim's deciding (in)equalities judged on certified enclosures.

A claim's statements are judged on enclosures of the log ratio
(:class:`~exactdp.exact.losses.privacy_loss.CertifiedPrivacyLoss`, ball arithmetic): an inequality
is *decided*
when the whole enclosure lies on one side of the bound, an equality when the enclosure contains
the exact value and is at most ``10^{−dps}`` wide (relative to ``max(1, |value|)``); otherwise
it is undecided at this precision (``None``), never guessed.  Bounds are exact rationals and the
enclosures' ends exact binary numbers, so every comparison is exact.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

from flint import arb
from mpmath import mpf

from ..formatting import ball_bounds
from .families import DPS, Family
from .registry import UNDECIDED, verdict


def exact(value: mpf) -> Fraction | float:
    """An enclosure end (an exact binary mpf, or ``±inf``) as an exact number."""
    if not math.isfinite(value):
        return float(value)
    mantissa, exponent = value.man_exp
    return (-1 if value < 0 else 1) * Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def ball_ends(ball: arb) -> tuple[Fraction, Fraction]:
    """The ends of an Arb ball as exact numbers (:func:`ball_bounds`)."""
    return tuple(exact(end) for end in ball_bounds(ball))


def loss_ends(loss) -> tuple:
    """The ends of a certified loss's enclosure of the ln ratio as exact numbers."""
    return exact(loss.log_ratio_lower), exact(loss.log_ratio_upper)


def enclosed_below(left: tuple, right: tuple) -> bool | None:
    """``x < y`` for every ``x`` in ``left`` and ``y`` in ``right`` (enclosures ``(lower,
    upper)`` of exact numbers; a number is ``(value, value)``): true when ``left``'s upper end is
    below ``right``'s lower end, false when ``left``'s lower end is at or above ``right``'s
    upper end (then ``x ≥ y`` whatever the exact values), undecided otherwise."""
    if left[1] < right[0]:
        return True
    return False if left[0] >= right[1] else None


def ball_below(better: arb, worse: arb) -> bool | None:
    """Whether the exact number in the ball ``better`` is below that in ``worse``, decided on
    the enclosures (:func:`enclosed_below`; ``None``: undecided)."""
    return enclosed_below(ball_ends(better), ball_ends(worse))


def certified_loss(family: Family, size: int, dps: int = DPS):
    """The certified loss of the member of size ``size``."""
    return family.loss(size, dps, method="certified")


def above(loss, bound: Fraction) -> bool | None:
    """``ln ratio > bound``."""
    if exact(loss.log_ratio_lower) > bound:
        return True
    return False if exact(loss.log_ratio_upper) <= bound else None


def below(loss, bound: Fraction) -> bool | None:
    """``ln ratio < bound``."""
    if exact(loss.log_ratio_upper) < bound:
        return True
    return False if exact(loss.log_ratio_lower) >= bound else None


def at_most(loss, bound: Fraction) -> bool | None:
    """``ln ratio ≤ bound`` (the negation of :func:`above`)."""
    decided = above(loss, bound)
    return None if decided is None else not decided


def at_least(loss, bound: Fraction) -> bool | None:
    """``ln ratio ≥ bound`` (the negation of :func:`below`)."""
    decided = below(loss, bound)
    return None if decided is None else not decided


def within(loss, bound: Fraction) -> bool | None:
    """``|ln ratio| ≤ bound``."""
    return all_of((at_most(loss, bound), at_least(loss, -bound)))


def exceeds(loss, bound: Fraction) -> bool | None:
    """``|ln ratio| > bound`` (a violation of ``bound``-DP)."""
    decided = within(loss, bound)
    return None if decided is None else not decided


def equals(loss, value, dps: int = DPS) -> bool | None:
    """``ln ratio = value`` (``±inf`` allowed: a certified exact zero on one side): decided true
    when the enclosure contains ``value`` and is at most ``10^{−dps}·max(1, |value|)`` wide."""
    lower, upper = exact(loss.log_ratio_lower), exact(loss.log_ratio_upper)
    if isinstance(value, float) and math.isinf(value):
        return lower == upper == value
    value = Fraction(value)
    if not lower <= value <= upper:
        return False
    return True if upper - lower <= max(1, abs(value)) / Fraction(10) ** dps else None


def all_of(decisions: Iterable[bool | None]) -> bool | None:
    """The conjunction: ``False`` if one is certified false, else ``None`` if one is undecided."""
    decisions = list(decisions)
    if False in decisions:
        return False
    return None if None in decisions else True


def certified_verdict(decision: bool | None, others: bool = True) -> tuple[str, bool]:
    """``(verdict, certified)``: the verdict of the certified ``decision`` (and of the claim's
    remaining, uncertified parts ``others``), or :data:`UNDECIDED` when the enclosures could not
    decide."""
    if decision is None:
        return UNDECIDED, False
    return verdict(decision and others), True
