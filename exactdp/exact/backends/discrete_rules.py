"""Interpolatory rules for a sum over consecutive integers, ``Σ_{u=0}^{c} f(u)``, and a rigorous
bound on their error for an ``f`` analytic around ``[0, c]``.

Map ``[0, c]`` onto ``[−1, 1]`` by ``x(u) = (2u − c)/c``.  The rule's nodes are the integers
(or the multiples of a finer grid) ``u_j`` nearest the Chebyshev extreme points
``c(1 − cos(πj/N))/2``, ``j = 0 … N`` (nested: the nodes of ``N`` are among those of ``2N``),
and its weights ``w_j`` solve

    Σ_j w_j T_m(x(u_j)) = μ_m = Σ_{u=0}^{c} T_m(x(u)),      m = 0 … N,

so that the rule sums every polynomial of degree at most ``N`` exactly.  The discrete moments
``μ_m`` are exact rationals: ``μ_m = Σ_k τ_{m,k} ν_k`` with ``T_m(x) = Σ_k τ_{m,k} x^k`` and

    ν_k = Σ_u x(u)^k = c^{−k} Σ_i C(k, i) 2^i (−c)^{k−i} S_i,   S_i = Σ_{u=0}^{c} u^i,

``S_i`` by Faulhaber's formula, ``S_i = (1/(i+1)) Σ_{j≤i} C(i+1, j) B_j (c+1)^{i+1−j}`` with
``B_1 = −1/2`` (Graham, Knuth & Patashnik, *Concrete Mathematics*, 2nd ed., 1994, eq. 6.78).
The weights are balls from Arb's linear solver: they hold the exact solution, so the rule's ball
holds the exact rule's value.

*Error.*  If ``f ∘ u`` (``u`` the inverse map) is analytic in the open Bernstein ellipse ``E_ρ``
of ``[−1, 1]`` with ``|f| ≤ M`` there, its Chebyshev coefficients satisfy ``|a_0| ≤ M`` and
``|a_m| ≤ 2Mρ^{−m}`` (Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013,
Thm 8.1).  The rule is exact on ``T_0 … T_N``, and ``|rule(T_m)| ≤ W = Σ|w_j|``,
``|μ_m| ≤ c + 1``, so

    |rule(f) − Σ_u f(u)| ≤ Σ_{m>N} 2Mρ^{−m}(W + c + 1) = 2M(W + c + 1)ρ^{−N−1}/(1 − ρ^{−1}).

The weights used are an approximate solution, exact binary numbers; their residuals
``r_m = Σ_j w_j T_m(x_j) − μ_m`` (``m ≤ N``), computed in balls, add ``Σ_m |a_m||r_m| ≤
2M Σ_m |r_m|`` to the bound.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import NamedTuple

from flint import arb, arb_mat, ctx, fmpq


@functools.lru_cache(maxsize=512)
def _bernoulli(j: int) -> fmpq:
    """``B_j`` with ``B_1 = −1/2``."""
    return fmpq.bernoulli(j)


def power_sums(count: int, most: int) -> list[fmpq]:
    """``S_i = Σ_{u=0}^{count−1} u^i`` for ``i = 0 … most``, exactly (``0^0 = 1``)."""
    sums = []
    for i in range(most + 1):
        total = sum((math.comb(i + 1, j) * _bernoulli(j) * fmpq(count) ** (i + 1 - j)
                     for j in range(i + 1)), fmpq(0))
        sums.append(total / (i + 1))
    return sums


@functools.lru_cache(maxsize=64)
def _chebyshev_coefficients(order: int) -> tuple:
    """``τ_{m,k}``: ``T_m(x) = Σ_k τ_{m,k} x^k`` for ``m = 0 … order`` (integers)."""
    rows = [[1], [0, 1]]
    while len(rows) <= order:
        previous, last = rows[-2], rows[-1]
        rows.append([2 * a - b for a, b in
                     zip([0] + last, previous + [0] * (len(last) + 1 - len(previous)))])
    return tuple(tuple(row) for row in rows[:order + 1])


def chebyshev_moments(span: int, order: int) -> list[fmpq]:
    """``μ_m = Σ_{u=0}^{span} T_m((2u − span)/span)`` for ``m = 0 … order``, exactly."""
    sums = power_sums(span + 1, order)
    moments_x = []
    for k in range(order + 1):
        if k % 2:   # the points x(u) are symmetric about 0
            moments_x.append(fmpq(0))
            continue
        total = sum((math.comb(k, i) * 2 ** i * (-span) ** (k - i) * sums[i]
                     for i in range(k + 1)), fmpq(0))
        moments_x.append(total / fmpq(span) ** k)
    return [sum((tau * moments_x[k] for k, tau in enumerate(row) if tau), fmpq(0))
            for row in _chebyshev_coefficients(order)]


def rule_nodes(span: int, order: int, grid: int = 1) -> list[Fraction]:
    """The multiples of ``1/grid`` nearest ``span(1 − cos(πj/order))/2``, ``j = 0 … order``
    (distinct when ``span·grid`` is long enough, about ``order²/2`` or more:
    :func:`discrete_rule` checks)."""
    return [Fraction(round(grid * span * (1 - math.cos(math.pi * j / order)) / 2), grid)
            for j in range(order + 1)]


class DiscreteRule(NamedTuple):
    """A rule on ``{0, …, span}``: its ``nodes`` (rationals in ``[0, span]``), its ``weights``
    (exact binary balls),
    ``weight_sum ≥ Σ|w_j|`` and ``residual ≥ Σ_{m ≤ N} |Σ_j w_j T_m(x_j) − μ_m|``."""

    nodes: tuple
    weights: tuple
    weight_sum: arb
    residual: arb


@functools.lru_cache(maxsize=256)
def discrete_rule(span: int, order: int, bits: int, grid: int = 1) -> DiscreteRule:
    """The rule of the module docstring on ``{0, …, span}``, exact for degree ``≤ order`` up to
    its residuals: the weights are an approximate solution of the moment equations at
    ``bits + 2·order + 32`` bits (Arb's approximate solver loses about ``2·order`` bits here),
    taken as exact binary numbers, and the residuals, computed in balls, carry what they miss
    (:func:`rule_error`).  ``ValueError`` if two nodes coincide (too short a span for the
    order).  The nodes are multiples of ``1/grid``: integers by default, finer where ``f`` can
    be evaluated between the integers (the error bound holds for nodes anywhere in
    ``[0, span]``)."""
    nodes = rule_nodes(span, order, grid)
    if len(set(nodes)) != len(nodes):
        raise ValueError(f"{order + 1} nodes do not fit {span + 1} integers")
    moments = chebyshev_moments(span, order)
    with ctx.workprec(bits + 2 * order + 32):
        rows = []
        for u in nodes:   # T_m at the node by the three-term recurrence
            point = arb(fmpq((2 * u - span).numerator, (2 * u - span).denominator * span))
            values = [arb(1), point]
            while len(values) <= order:
                values.append(2 * point * values[-1] - values[-2])
            rows.append(values[:order + 1])
        system = arb_mat([[rows[j][m] for j in range(order + 1)] for m in range(order + 1)])
        right = arb_mat([[arb(moment)] for moment in moments])
        approximate = system.solve(right, algorithm="approx")
        weights = tuple(arb(approximate[j, 0].mid()) for j in range(order + 1))
        misses = system * arb_mat([[w] for w in weights]) - right
        residual = sum((abs(misses[m, 0]) for m in range(order + 1)), arb(0))
        weight_sum = sum((abs(w) for w in weights), arb(0))
    return DiscreteRule(tuple(nodes), weights, arb(weight_sum.upper()), arb(residual.upper()))


def rule_error(modulus: arb, rho: arb, rule: DiscreteRule) -> arb:
    """An exact upper bound on the error of ``rule`` (``N + 1`` nodes on ``{0, …, span}``) for
    ``|f| ≤ M = modulus`` on ``E_ρ``: every ``|a_m| ≤ 2M``, so its residuals on ``T_0 … T_N``
    cost at most ``2M·residual``, and the terms beyond ``N``
    ``2M(W + span + 1)ρ^{−N−1}/(1 − ρ^{−1})`` (module docstring)."""
    if not rho > 1:
        raise ValueError(f"the Bernstein ellipse needs rho > 1, got {rho}")
    order, span = len(rule.nodes) - 1, int(rule.nodes[-1])
    tail = (2 * modulus * (rule.weight_sum + span + 1)
            / (rho ** (order + 1) * (1 - 1 / rho)))
    return arb((tail + 2 * modulus * rule.residual).upper())
