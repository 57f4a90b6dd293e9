"""The probability that a passing query is among the first ``c`` passing queries of a uniformly
random order: ``E[min(1, c/(M_k + 1))]``, ``M_k`` the number of the other queries that pass.

With the generating polynomial ``G`` of the number of passing queries (``generating.py``)
and ``E[1/(M + 1)] = ∫_0^1 E[t^M] dt``,

    E[min(1, c/(M_k + 1))] = Σ_{m<c} (1 − c/(m + 1)) Pr[M_k = m]
                             + c·∫_0^1 G(t)/(F_k + S_k t) dt

(docs/mathematics.md §12.2; Sparse Vector in a random order, Lyu, Su & Li, "Understanding the
Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017, §6): the first term from
the truncated polynomial, the integral over ``t`` by a certified Gauss–Legendre rule.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from flint import arb, arb_poly, ctx

from ...precision import to_arb
from ..backends.gauss_legendre import legendre_rule
from ..backends.node_planner import checked_nodes
from .generating import (MAX_SERIES_TERMS, generating_value, log_generating_series, mean_passes,
                         weighted_others)


def fewer_random(passes: list, fails: list, counts: list, c: int, tolerance: arb,
                 log_generating=None) -> list:
    """``E[min(1, c/(M_k + 1))]`` for each distinct answer ``k`` (``counts[k]`` queries have it),
    ``M_k`` the number of the other queries that pass (the probability that a query with answer
    ``k``, if it passes, is among the first ``c`` passing queries of a uniformly random order;
    docs/mathematics.md §12.2), as
    ``Σ_{m<c} (1 − c/(m + 1)) Pr[M_k = m] + c·∫_0^1 Π_{j≠i}(F_j + S_j t) dt``
    (``E[1/(M + 1)] = ∫_0^1 E[t^M] dt``): the first term by the truncated generating
    polynomial, the second by :func:`mean_reciprocal` within ``tolerance/(8c)`` (given
    ``log_generating``, if any)."""
    corrections = [1 - arb(c) / (m + 1) for m in range(c)]
    head = weighted_others(passes, fails, counts, corrections, tolerance / 16)
    tail = mean_reciprocal(passes, fails, counts, tolerance / (8 * c), log_generating)
    return [h + c * t for h, t in zip(head, tail)]


#: Bernstein ellipse parameters tried for the integral over ``t`` in :func:`mean_reciprocal`.
T_RHOS = (Fraction(4), Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(9, 8))


def mean_reciprocal(passes: list, fails: list, counts: list, target: arb,
                    log_generating=None) -> list:
    """``∫_0^1 G(t)/(F_k + S_k t) dt`` for each distinct answer ``k``, with
    ``G(t) = Π_j (F_j + S_j t)^{n_j}`` (``n_j = counts[j]`` queries share the answer ``j``; real
    balls ``F_j, S_j ≥ 0``, ``F_j + S_j = 1``): the integral of ``Π`` over the other queries.

    Each factor ``F_j + S_j t`` increases with ``t`` and is at least ``t``, so on ``[0, t_0]`` the
    leave-one-out product is at most ``G(t_0)/t_0`` and its integral at most ``G(t_0)``; where
    many queries pass (``μ = Σ_j n_j S_j`` large) ``G(t) ≤ e^{−μ(1−t)}`` is negligible away from
    ``t = 1``, and ``t_0 = 1 − ln(8/target)/μ`` (kept when ``G(t_0) ≤ target/4``) leaves the rule
    a short interval.  On ``[t_0, 1]`` (half-width ``h``) the integrand is a polynomial of
    degree ``n − 1``: ``K = ⌈n/2⌉`` Gauss–Legendre nodes integrate it exactly; fewer suffice when
    the bound ``h·(64/15)·M·ρ^{2−2K}/(ρ² − 1)`` (``backends/gauss_legendre.py``) is below
    ``target/2``, with ``M = Π_j (F_j + S_j R)^{n_j}`` bounding it on the ellipse ``E_ρ`` of the
    interval, whose points have ``|t| ≤ R = (1 + t_0)/2 + h(ρ + ρ^{−1})/2`` (each factor ``≥ 1``
    there, so the whole product bounds every leave-one-out product).

    The rule's sum costs ``O(K·d)`` for ``d`` distinct answers (:func:`_reciprocal_sums`), or,
    where ``t_0 > 0`` and ``max_j S_j·(1 − t_0) ≤ 1/2``, ``O(d)`` operations per term of two
    series: of ``log G`` (:func:`log_generating_series`, which also gives ``M``) and of the sum
    (:func:`_reciprocal_series`); ``log_generating(reach, budget)`` gives the former
    (default: :func:`log_generating_series`; from closed forms,
    :meth:`~exactdp.exact.selection.pass_probabilities.PassProbabilities.log_generating`)."""
    n = sum(counts)
    if log_generating is None:
        log_generating = functools.partial(log_generating_series, passes, counts)
    start = negligible_start(passes, counts, target / 4)
    series = log_generating(1 - start, target / 64) if start > 0 else None

    def generating(x):
        """``G(x)``, from the series of its logarithm where there is one."""
        if series is None:
            return generating_value(passes, fails, counts, x)
        logarithm, rest = series
        return (logarithm(1 - x) + arb(0, rest.upper())).exp()

    dropped = arb(generating(start).upper()) if start > 0 else arb(0)
    if not dropped <= target / 4:
        start, series, dropped = arb(0), None, arb(0)

    middle, half = (1 + start) / 2, (1 - start) / 2
    order, error = max(1, -(-n // 2)), arb(0)
    for rho in T_RHOS:
        rho_ball = to_arb(rho)
        reach = middle + half * (rho_ball + 1 / rho_ball) / 2
        needed, bound = checked_nodes(generating(reach), rho_ball, half, target / 2)
        if needed < order and bound.is_finite():
            order, error = needed, bound
    rule = [(middle + half * node, weight) for node, weight in legendre_rule(order, ctx.prec)]
    totals = None
    if series is not None:
        totals = _reciprocal_series(passes, [(t, weight * generating(t)) for t, weight in rule],
                                    1 - start, target / 16)
    if totals is None:
        totals = _reciprocal_sums(passes, fails, counts, rule)
    radius = arb(0, (error + dropped).upper())
    return [half * total + radius for total in totals]


def _reciprocal_sums(passes: list, fails: list, counts: list, rule: list) -> list:
    """``Σ_l w_l G(t_l)/(F_k + S_k t_l)`` for each ``k``, over the rule's nodes and weights
    ``(t_l, w_l)``, ``G`` computed at each node (each factor is ``> 0`` at the nodes, so the
    division keeps the relative accuracy)."""
    totals = [arb(0)] * len(counts)
    for t, weight in rule:
        factors = [f + s * t for s, f in zip(passes, fails)]
        product = arb(1)
        for factor, count in zip(factors, counts):
            product *= factor ** count
        product *= weight
        totals = [total + product / factor for total, factor in zip(totals, factors)]
    return totals


def _reciprocal_series(passes: list, weighted: list, reach: arb, target: arb) -> list:
    """:func:`_reciprocal_sums` from the weighted values ``(t_l, w_l G(t_l))`` (all ``≥ 0``),
    for ``1 − t_l ≤ reach`` and ``max_j S_j·reach ≤ 1/2``: with ``s_l = 1 − t_l`` each
    ``F_k + S_k t_l = 1 − S_k s_l``, and

        Σ_l w_l G(t_l)/(1 − S_k s_l) = Σ_{r<R} S_k^r μ_r + E_k,   μ_r = Σ_l w_l G(t_l) s_l^r,
        0 ≤ E_k = Σ_l w_l G(t_l) (S_k s_l)^R/(1 − S_k s_l) ≤ S^R μ_R/(1 − S·reach)

    (``S = max_j S_j``): the moments once, then one polynomial of degree ``R − 1`` evaluated at
    each ``S_k``, ``R`` the fewest terms whose bound is within ``target`` (``None`` beyond
    :data:`MAX_SERIES_TERMS`)."""
    top = max(arb(s.upper()) for s in passes)
    shrink = 1 - top * reach
    gaps = [1 - t for t, _ in weighted]
    terms_at_nodes = [value for _, value in weighted]  # w_l G(t_l) s_l^r, r = 0 first
    moments = []
    for terms in range(MAX_SERIES_TERMS):
        moment = sum(terms_at_nodes, arb(0))
        rest = top ** terms * moment / shrink
        if rest <= target:
            series = arb_poly(moments)
            radius = arb(0, rest.upper())
            return [series(s) + radius for s in passes]
        moments.append(moment)
        terms_at_nodes = [term * gap for term, gap in zip(terms_at_nodes, gaps)]
    return None


def negligible_start(passes: list, counts: list, budget: arb) -> arb:
    """The left end ``t_0`` of the interval :func:`mean_reciprocal` integrates, if ``G(t_0)``
    may be at most ``budget``: ``t_0 = 1 − ln(2/budget)/μ`` (``G(t_0) ≤ e^{−μ(1−t_0)}``, ``μ``
    the mean number of passing queries), rounded down to a multiple of ``2^{−20}``; else 0."""
    mean = mean_passes(passes, counts)
    reach = math.log(2 / float(budget.mid())) / mean if mean > 0 else math.inf
    if not reach < 1:
        return arb(0)
    return arb(math.floor((1 - reach) * 2 ** 20)) / 2 ** 20
