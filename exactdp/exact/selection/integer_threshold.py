"""Sparse Vector whose threshold noise lives on the integers (``svt_discrete``): the integral
over the threshold noise is a sum over the integers,

    P_i = Σ_k Pr[ρ = k]·S_i(k)·(…),

the factor in brackets that of the given order (``given_order.py``) or of a random one
(``random_position.py``) at ``z = k`` (Lyu, Su & Li, "Understanding the Sparse Vector Technique
for Differential Privacy", PVLDB 10(6), 2017, Eq. 5, with discrete noise).
"""

from __future__ import annotations

import math

from flint import arb

from ...errors import MethodUnavailableError
from ...mechanisms.description import ThresholdMechanism
from ...noise import Kind
from .generating import fewer_before
from .given_order import NEGLIGIBLE
from .pass_probabilities import answer_positions
from .random_position import fewer_random


def integer_threshold(mech: ThresholdMechanism, values: list, c: int, order: str,
                      tolerance: arb, progress) -> list:
    """Sparse Vector whose threshold noise lives on the integers (``svt_discrete``): the
    integral over ``z`` is the sum ``P_i = Σ_k Pr[ρ = k]·S_i(k)·(…)`` over the integers ``k``,
    the factor in brackets as at a quadrature node (given order: :func:`fewer_before`; random
    order: :func:`fewer_random`), every term a ball.  The integers outside ``[k_L, k_R]``
    (:func:`_integer_range`), where ``ρ`` has mass at most ``tolerance/8``, are left out with
    that mass (each term is at most ``Pr[ρ = k]``).  ``progress`` is called after each term."""
    hub, noise = mech.threshold_noise, mech.query_noise
    if not noise.integer_valued:
        raise MethodUnavailableError(f"a sum over the integer-valued {hub} threshold noise "
                                     f"cannot carry {noise} query noise")
    distinct = sorted(set(values))
    positions, counts = answer_positions(values, distinct)
    first, last, tails = _integer_range(hub, tolerance / 8)
    totals = [arb(0)] * len(values)
    for done, k in enumerate(range(first, last + 1), start=1):
        mass = hub.log_ball_integer(Kind.PDF, k).exp()
        points = [mech.threshold + k - q for q in distinct]  # ν passes iff ν ≥ T + k − q
        passes = [noise.log_ball_at(Kind.SF, x).exp() for x in points]
        fails = [noise.log_ball_at(Kind.CDF, x).exp() for x in points]
        if order == "given":
            fewer, rest = fewer_before(passes, fails, positions, c, tolerance * NEGLIGIBLE)
            fewer = fewer + [rest] * (len(values) - len(fewer))
            terms = [mass * passes[j] * f for j, f in zip(positions, fewer)]
        else:
            fewer = fewer_random(passes, fails, counts, c, tolerance)
            terms = [mass * passes[j] * fewer[j] for j in positions]
        totals = [total + term for total, term in zip(totals, terms)]
        if progress is not None:
            progress(done)
    radius = arb(0, tails.upper())
    return [total + radius for total in totals]


def _integer_range(law, budget: arb) -> tuple:
    """``(k_L, k_R, tail)``: integers around the integer-valued law's centre with
    ``Pr[ρ < k_L] + Pr[ρ > k_R] ≤ tail ≤ budget``, each side's width the least whose tail is
    within ``budget/2`` (doubled until it is, then bisected)."""
    centre = math.floor(law.median * law.scale)
    ends, tail = [], arb(0)
    for kind, direction in ((Kind.CDF, -1), (Kind.SF, 1)):
        def beyond(width: int, kind=kind, direction=direction) -> arb:
            """``Pr[ρ < centre − width]`` or ``Pr[ρ > centre + width]``."""
            edge = centre + direction * width
            return law.log_ball_integer(kind, edge if direction < 0 else edge + 1).exp()

        wide = 1
        while not beyond(wide) <= budget / 2:
            wide *= 2
        narrow = wide // 2  # its tail exceeds the budget (or it is 0)
        while wide - narrow > 1:
            middle = (narrow + wide) // 2
            narrow, wide = (narrow, middle) if beyond(middle) <= budget / 2 else (middle, wide)
        ends.append(centre + direction * wide)
        tail += arb(beyond(wide).upper())
    return ends[0], ends[1], tail
