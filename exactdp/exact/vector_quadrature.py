"""Certified integrals of many integrands at once: piecewise Gauss–Legendre in ball arithmetic
with the Bernstein-ellipse error bound, every integrand evaluated at the same nodes.

The selection probabilities of a mechanism (``exactdp/utility.py``) are ``n`` integrals over
one noise ``z`` whose integrands share all their work (one polynomial recursion over the
queries per node), so they are integrated together:

1. ``[z_L, z_R]`` is cut at the given points (the kinks of every factor: each piece's integrand
   is entire, the analytic continuation of the formulas on that side of each kink); outside it
   the caller bounds the integrals rigorously (``tails``).
2. On a piece ``[m − h, m + h]`` the largest modulus ``M`` of every integrand on the Bernstein
   ellipse ``E_ρ`` (``ρ = 4``) is bounded by the caller's ``bound`` on complex balls covering
   its boundary (:func:`~exactdp.exact.gauss_legendre.ellipse_cover`; maximum modulus
   principle), and the fewest nodes ``N`` whose bound ``h·(64/15)·M·ρ^{2−2N}/(ρ² − 1)``
   (:func:`~exactdp.exact.gauss_legendre.error_bound`) fits the piece's share of the tolerance
   are used; a piece needing more than :data:`MAX_ORDER` nodes (or whose ``M`` is not finite) is
   halved.
3. The result is, for each integrand, the rule's sum (a ball: rounding is tracked) plus the ball
   ``[−E, E]``, ``E`` the sum of the pieces' bounds and the tails: a certified enclosure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

from flint import arb, ctx

from ..errors import PrecisionError
from ..precision import to_arb
from .gauss_legendre import ellipse_cover, error_bound, legendre_rule

#: Bernstein ellipse parameter (each node gains ``2·log10 4 ≈ 1.2`` digits).
RHO = Fraction(4)
#: Arcs of the complex balls covering the upper half of a piece's ellipse.
ARCS = 12
#: Largest number of nodes on one piece before it is halved instead.
MAX_ORDER = 48
#: Largest number of pieces (a guard against an integrand no subdivision tames).
MAX_PIECES = 1_000_000


def integrate_vector(evaluate: Callable, bound: Callable, cuts: Sequence[Fraction], tails: arb,
                     tolerance: arb, progress=None) -> list:
    """``∫_{z_L}^{z_R} f_i(z) dz + [−tails, tails]`` for every ``i``, as Arb balls, with absolute
    error at most about ``tolerance`` (module docstring).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(z, middle)`` → the list of ``f_i(z)`` for a real ball ``z`` (``arb``) in the
        piece containing the exact point ``middle``.
    bound : callable
        ``bound(z, middle)`` → an upper bound (``arb``) on every ``|f_i(z)|`` for a complex ball
        ``z`` (``acb``), each ``f_i`` continued analytically from the piece containing
        ``middle``.
    cuts : sequence of Fraction
        ``z_L``, the kinks between, ``z_R`` (increasing).
    tails : arb
        A bound on ``|∫ f_i|`` outside ``[z_L, z_R]`` for every ``i``.
    tolerance : arb
        The absolute error to aim at (the pieces share what the tails leave).
    progress : callable, optional
        Called with the number of finished pieces, to report progress.

    Raises
    ------
    PrecisionError
        If more than :data:`MAX_PIECES` pieces would be needed.
    """
    rho = to_arb(RHO)
    share = tolerance / (4 * max(1, len(cuts) - 1))
    # each piece with its share of the tolerance (halved with the piece)
    pending = [(cuts[k], cuts[k + 1], share) for k in range(len(cuts) - 1)]
    totals, errors, finished = None, arb(0), 0
    while pending:
        a, b, share = pending.pop()
        middle, half = (a + b) / 2, (b - a) / 2
        middle_ball, half_ball = to_arb(middle), to_arb(half)
        order, error = _order(bound, middle, middle_ball, half_ball, rho, share)
        if order is None:
            if finished + len(pending) > MAX_PIECES:
                raise PrecisionError("the selection integrals need more than "
                                     f"{MAX_PIECES} Gauss–Legendre pieces")
            pending.extend(((a, middle, share / 2), (middle, b, share / 2)))
            continue
        piece = None
        for node, weight in legendre_rule(order, ctx.prec):
            values = evaluate(middle_ball + half_ball * node, middle)
            terms = [weight * value for value in values]
            piece = terms if piece is None else [p + t for p, t in zip(piece, terms)]
        piece = [half_ball * p for p in piece]
        totals = piece if totals is None else [t + p for t, p in zip(totals, piece)]
        errors += error
        finished += 1
        if progress is not None:
            progress(finished)
    radius = arb(0, (errors + tails).upper())
    return [total + radius for total in totals]


def _order(bound: Callable, middle: Fraction, middle_ball: arb, half_ball: arb, rho: arb,
           share: arb):
    """The fewest nodes (at most :data:`MAX_ORDER`) whose error bound on the piece is at most
    ``share``, and that bound; ``(None, None)`` if there is none."""
    modulus = arb(0)
    for ball in ellipse_cover(middle_ball, half_ball, rho, ARCS):
        size = bound(ball, middle)
        if not size.is_finite():
            return None, None
        modulus = max(modulus, arb(size.upper()))
    for order in range(2, MAX_ORDER + 1):
        error = error_bound(modulus, rho, order, half_ball)
        if error <= share:
            return order, error
    return None, None
