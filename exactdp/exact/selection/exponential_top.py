"""The exponential mechanism run ``c`` times without replacement (``em_top``) as a selection
kind: the top ``c`` of ``q_i + Gumbel(β)`` (McSherry & Talwar, "Mechanism Design via
Differential Privacy", FOCS 2007; Durfee & Rogers, "Practical differentially private top-k
selection with pay-what-you-get composition", NeurIPS 2019, §3), so

    P_i = ∫ g_β(x − q_i) Pr[fewer than c others exceed x] dx,

the last factor the first ``c`` coefficients of a leave-one-out generating polynomial
(:func:`~exactdp.exact.selection.generating.weighted_others`), every ``P_i`` integrated together
by the certified vector quadrature (``exact/backends/vector_quadrature.py``).  It does not depend
on the
order of the queries.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ...mechanisms.selection import ExponentialTopMechanism
from ...noise import Kind
from ...precision import to_arb
from ..backends.vector_quadrature import integrate_vector
from .generating import (at_least_bound, fewer_than_bound, largest_modulus, negligible_pieces,
                         product_bound, weighted_others)
from .kinds import EVALUATION_COST, SelectionKind, register_kind
from .pass_probabilities import answer_positions, hub_range


def exponential_top(mech: ExponentialTopMechanism, values: list, c: int, tolerance: arb,
                    progress, jobs: int) -> list:
    """``P_i`` of ``em_top`` (module docstring) within ``tolerance``: the range of ``x`` cut
    into pieces no wider than the Gumbel noise's scale; on the low pieces, where
    ``Pr[fewer than c others exceed x]`` is provably negligible
    (:func:`~exactdp.exact.selection.generating.fewer_than_bound`), the integrand is dropped
    with its bound; on the high ones, where ``Pr[at least c others exceed x]`` is
    (:func:`~exactdp.exact.selection.generating.at_least_bound`), it is the density alone,
    integrated in closed form; the rest by the certified vector quadrature.  ``progress`` and
    ``jobs`` as :func:`~exactdp.exact.backends.vector_quadrature.integrate_vector`."""
    noise = mech.noise
    distinct = sorted(set(values))
    low_hub, high_hub, tails = hub_range(noise, tolerance)
    low, high = distinct[0] + low_hub, distinct[-1] + high_hub
    steps = max(1, math.ceil((high - low) / noise.scale))
    cuts = [low + (high - low) * Fraction(k, steps) for k in range(steps + 1)]
    positions, counts = answer_positions(values, distinct)
    shifts = [to_arb(q) for q in distinct]
    density_of, below_of, above_of = (noise.ball_log(kind) for kind in (Kind.PDF, Kind.CDF,
                                                                          Kind.SF))

    def laws(x):
        """Each distinct query's noise density at ``x − q``, and ``Pr[q + η ≤ x]``,
        ``Pr[q + η > x]``."""
        return ([density_of.value(x - shift) for shift in shifts],
                [below_of.value(x - shift) for shift in shifts],
                [above_of.value(x - shift) for shift in shifts])

    def at_right_end(a: Fraction, b: Fraction) -> tuple:
        _, below, above = laws(to_arb(b))
        return above, below, arb(1)  # ∫ g(x − q) dx ≤ 1 on any piece

    def at_left_end(a: Fraction, b: Fraction) -> tuple:
        _, below, above = laws(to_arb(a))
        return above, below, arb(1)

    pieces = list(zip(cuts, cuts[1:]))
    # the integrand is at most Pr[fewer than c others exceed x], which increases with x
    split, dropped = negligible_pieces(pieces, at_right_end, fewer_than_bound, counts, c,
                                        tolerance / 8)
    # where Pr[at least c others exceed x] (decreasing) is negligible the integrand is the
    # density alone: its integral in closed form, less at most that probability
    closed, missed = negligible_pieces(pieces[split:][::-1], at_left_end, at_least_bound,
                                        counts, c, tolerance / 8)
    end = len(cuts) - 1 - closed

    def evaluate(x, _middle):
        densities, below, above = laws(x)
        fewer = weighted_others(above, below, counts, [arb(1)] * c, tolerance / 16)
        return [density * f for density, f in zip(densities, fewer)]

    def bound(x, _middle):
        densities, below, above = laws(x)
        return largest_modulus(densities) * product_bound(above, below, counts)

    if split == end:
        results = [arb(0, tails.upper())] * len(distinct)
    else:
        results = integrate_vector(evaluate, bound, cuts[split:end + 1], tails, tolerance / 2,
                                   progress, EVALUATION_COST, jobs=jobs)
    if end < len(cuts) - 1:
        start, stop = to_arb(cuts[end]), to_arb(cuts[-1])
        results = [r + below_of.value(stop - shift) - below_of.value(start - shift)
                   for r, shift in zip(results, shifts)]
    radius = arb(0, (dropped + missed).upper())
    return [results[k] + radius for k in positions]


def _probabilities(mech: ExponentialTopMechanism, values: list, c: int, order: str,
                   digits: int, tolerance: arb, progress, jobs: int) -> list:
    """:func:`exponential_top` (the order and the digits play no part)."""
    return exponential_top(mech, values, c, tolerance, progress, jobs)


register_kind(ExponentialTopMechanism, SelectionKind(
    cutoff=lambda mech: mech.c, check=lambda mech, queries: None,
    order=lambda mech, order: "given", probabilities=_probabilities))
