"""Interpolatory rules for sums over consecutive integers (``backends/discrete_rules.py``):
the exact moments against brute-force sums, exactness on polynomials, and the error bound
against a sum known in closed form."""

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx, fmpq

from exactdp.exact.backends.discrete_rules import (DiscreteRule, chebyshev_moments,
                                                   discrete_rule, power_sums, rule_error)


@pytest.mark.parametrize("count", [1, 2, 7, 40])
def test_power_sums_against_brute_force(count):
    # reference: Σ_{u < count} u^i summed term by term in Python integers
    assert power_sums(count, 9) == [sum(u ** i for u in range(count)) for i in range(10)]


@pytest.mark.parametrize("span", [1, 2, 9, 30])
def test_chebyshev_moments_against_brute_force(span):
    def chebyshev(m, x):   # T_m(x) by its recurrence, in exact rationals
        low, high = Fraction(1), x
        for _ in range(m):
            low, high = high, 2 * x * high - low
        return low

    expected = [sum(chebyshev(m, Fraction(2 * u - span, span)) for u in range(span + 1))
                for m in range(12)]
    assert chebyshev_moments(span, 11) == [fmpq(e.numerator, e.denominator) for e in expected]


def test_rule_sums_polynomials_of_its_degree_exactly():
    # reference: the sum of a degree-16 polynomial over 0..500, in Python integers
    span, order = 500, 16
    coefficients = [(-1) ** k * (3 * k + 1) for k in range(order + 1)]

    def poly(u):
        return sum(c * u ** k for k, c in enumerate(coefficients))

    exact = sum(poly(u) for u in range(span + 1))
    rule = discrete_rule(span, order, 200)
    with ctx.workprec(400):
        value = sum((w * arb(poly(int(u))) for u, w in zip(rule.nodes, rule.weights)), arb(0))
    assert abs(value - exact) <= abs(exact) * arb(10) ** -40


def _at(u):
    """A rational node as a ball."""
    return arb(fmpq(u.numerator, u.denominator))


def _reciprocal_case(span, order, rho, grid=1):
    """Σ_{u=0}^{span} 1/(u + span) = ψ(2·span + 1) − ψ(span) (mpmath at 60 digits); in
    ``x = (2u − span)/span`` the pole is at ``x = −3``, so on ``E_ρ`` (left vertex
    ``−(ρ + 1/ρ)/2``) ``|f| ≤ 2/(span·(3 − (ρ + 1/ρ)/2))``."""
    with mpmath.workdps(60):
        exact = mpmath.digamma(2 * span + 1) - mpmath.digamma(span)
    rule = discrete_rule(span, order, 200, grid)
    with ctx.workprec(200):
        rho_ball = arb(rho)
        modulus = 2 / (span * (3 - (rho_ball + 1 / rho_ball) / 2))
        value = sum((w / (_at(u) + span) for u, w in zip(rule.nodes, rule.weights)), arb(0))
        return rule, value, arb(mpmath.nstr(exact, 60)), rule_error(modulus, rho_ball, rule)


@pytest.mark.parametrize("order, span, grid", [(16, 2000, 1), (24, 2000, 1), (32, 2000, 1),
                                               (64, 300, 64)])
def test_error_bound_holds_for_a_sum_known_in_closed_form(order, span, grid):
    rule, value, exact, bound = _reciprocal_case(span, order, 5, grid)
    assert abs(value - exact) <= bound
    assert bound < arb(10) ** -8       # ρ = 5, N ≥ 16: the bound is small


def test_a_broken_rule_breaks_the_bound():
    # moving one weight by 10^-12 (far above the residuals) must exceed the bound
    rule, value, exact, bound = _reciprocal_case(2000, 32, 5)
    weights = (rule.weights[0] + arb(10) ** -12,) + rule.weights[1:]
    broken = DiscreteRule(rule.nodes, weights, rule.weight_sum, rule.residual)
    with ctx.workprec(200):
        moved = sum((w / (_at(u) + 2000) for u, w in zip(broken.nodes, broken.weights)),
                    arb(0))
    assert abs(value - exact) <= bound < abs(moved - exact)


def test_short_span_is_refused_on_integers_not_on_a_finer_grid():
    with pytest.raises(ValueError, match="do not fit"):
        discrete_rule(20, 16, 100)
    assert len(set(discrete_rule(20, 16, 100, 64).nodes)) == 17
