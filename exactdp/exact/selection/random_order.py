"""Sparse Vector with one threshold noise ``z`` and queries examined in a uniformly random
order: the probability averaged over every order,

    P_i = ∫ p_ρ(z) S_i(z) E[min(1, c/(M_i + 1)) | z] dz,

``M_i`` the number of the other queries that pass (``random_position.py``; Lyu, Su & Li,
"Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017, §6;
docs/mathematics.md §12.2), every ``P_i`` integrated together by the certified vector
quadrature (``exact/backends/vector_quadrature.py``).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from flint import arb

from ...precision import to_arb
from ..backends.vector_quadrature import RHOS, integrate_vector
from .generating import fewer_than_bound, negligible_pieces
from .kinds import EVALUATION_COST, PiecesInTurn
from .pass_probabilities import PassProbabilities
from .random_position import fewer_random, mean_reciprocal

#: :data:`~exactdp.exact.selection.kinds.EVALUATION_COST` for the random order where only the
#: integral over ``t`` is left (:func:`random_order_probabilities`), against its ``O(1)`` bound
#: (:meth:`PassProbabilities.reciprocal_bound`), with every ellipse of ``RHOS`` tried (that
#: integrand barely grows off the real line): on the Zipf workload at n = 10,000 an evaluation
#: costs about 12 bounds, and with both these pieces need half the nodes.
TAIL_EVALUATION_COST = 12


def random_order_probabilities(laws: PassProbabilities, c: int, tolerance: arb, progress,
                               jobs: int) -> list:
    """Random order: ``P_i`` depends on ``q_i`` alone (the queries are exchangeable), so one
    integrand per distinct answer, ``p_ρ(z)·S_k(z)·E[min(1, c/(M_k + 1))]``, ``M_k`` the number of
    the other queries that pass (:func:`fewer_random`).  Where even the sum of the first ``c``
    terms, ``Pr[M_k < c]``, is negligible — the left end of the threshold noise's range, where
    many queries pass — it is left out with its bound (:func:`negligible_pieces`)."""
    counts = laws.counts
    share = tolerance / 2

    def at_right_end(a: Fraction, b: Fraction) -> tuple:
        _, passes, fails = laws.distinct_values(to_arb(b), (a + b) / 2)
        return passes, fails, (c - 1) * laws.hub_mass(a, b)

    split, dropped = negligible_pieces(list(zip(laws.cuts, laws.cuts[1:])), at_right_end,
                                        fewer_than_bound, counts, c, share / 8)

    def evaluate_full(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        fewer = fewer_random(passes, fails, counts, c, tolerance,
                              functools.partial(laws.log_generating, z, middle, passes))
        return [density * s * f for s, f in zip(passes, fewer)]

    def evaluate_tail(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        tail = mean_reciprocal(passes, fails, counts, tolerance / (8 * c),
                                functools.partial(laws.log_generating, z, middle, passes))
        return [c * density * s * t for s, t in zip(passes, tail)]

    def bound_tail(z, middle):
        return c * laws.reciprocal_bound(z, middle)

    results = [arb(0)] * len(counts)
    in_turn = PiecesInTurn(progress)
    if split > 0:
        results = integrate_vector(evaluate_tail, bound_tail, laws.cuts[:split + 1], laws.tails,
                                   share, in_turn.next(), TAIL_EVALUATION_COST,
                                   largest_rho=RHOS[-1], jobs=jobs)
    if split < len(laws.cuts) - 1:
        tails = arb(0) if split > 0 else laws.tails
        rest = integrate_vector(evaluate_full, laws.bound, laws.cuts[split:], tails, share,
                                in_turn.next(), EVALUATION_COST, jobs=jobs)
        results = [r + x for r, x in zip(results, rest)]
    radius = arb(0, dropped.upper())
    return [results[k] + radius for k in laws.positions]
