"""Divergences of a count released with discrete Gaussian noise, against brute-force sums.

Every reference is a direct sum over the integers ``|k| ≤ 400`` at 80 digits of
``p(k) = e^{−k²/(2σ²)}/Z`` (``Z`` summed the same way): for ``σ ≤ 5`` the terms left out are below
``e^{−400²/50} < 10^{−1389}``, far below the digits compared.  None of it goes through the engine's
theta functions or tail bounds.  Rounding in the 80-digit sums leaves each reference within
:data:`SLACK` of the exact value.
"""

from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.errors import MethodUnavailableError
from tests.conftest import assert_encloses

DIGITS = 25
#: The references' own error (module docstring).
SLACK = Fraction(1, 10 ** 70)


def _masses(sigma: Fraction):
    """``k → p(k)`` on ``|k| ≤ 400`` (module docstring)."""
    s = mpmath.mpf(sigma.numerator) / sigma.denominator
    weights = {k: mpmath.exp(-mpmath.mpf(k * k) / (2 * s * s)) for k in range(-400, 401)}
    total = mpmath.fsum(weights.values())
    return {k: w / total for k, w in weights.items()}


def _delta(sigma, distance, eps):
    with mpmath.workdps(80):
        p = _masses(sigma)
        factor = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        return mpmath.fsum(max(0, p[k] - factor * p.get(k - distance, 0)) for k in p)


def _renyi(sigma, distance, alpha):
    with mpmath.workdps(80):
        p = _masses(sigma)
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        total = mpmath.fsum(p[k] ** a * p[k - distance] ** (1 - a)
                            for k in p if k - distance in p)
        return mpmath.log(total) / (a - 1)


def _mechanism(sigma):
    return exactdp.mechanism("count_discrete_gaussian", sigma=sigma)


@pytest.mark.parametrize("sigma", [Fraction(7, 10), Fraction(2), Fraction(5)])
@pytest.mark.parametrize("distance", [1, 3])
def test_profile_matches_the_sum_over_the_integers(sigma, distance):
    eps_list = [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(2)]
    points = exactdp.privacy_profile(_mechanism(sigma), [0, 4], [distance, 4], eps_list, DIGITS,
                                     allow_any_pair=True)
    for point in points:
        reference = _delta(sigma, distance, point.eps)
        assert reference > 0
        assert_encloses(point.delta, reference, DIGITS, slack=SLACK)


@pytest.mark.parametrize("sigma", [Fraction(7, 10), Fraction(2)])
@pytest.mark.parametrize("alpha", [Fraction(3, 2), Fraction(2), Fraction(7, 3), Fraction(13, 4)])
def test_renyi_matches_the_sum_over_the_integers(sigma, alpha):
    point, = exactdp.renyi_divergence(_mechanism(sigma), [0], [1], [alpha], DIGITS)
    assert_encloses(point.divergence, _renyi(sigma, 1, alpha), DIGITS, slack=SLACK)


def test_renyi_falls_below_the_continuous_gaussian_between_integer_orders():
    # with σ = 0.7 the theta ratio of a non-integer offset is visibly below 1 (≈ 1 − 10^{-4})
    sigma, alpha = Fraction(7, 10), Fraction(3, 2)
    point, = exactdp.renyi_divergence(_mechanism(sigma), [0], [1], [alpha], DIGITS)
    bound = alpha / (2 * sigma ** 2) * (1 - Fraction(1, 10 ** 6))
    assert point.divergence.upper < mpmath.mpf(bound.numerator) / bound.denominator


@pytest.mark.parametrize("sigma", [Fraction(7, 10), Fraction(2)])
def test_rho_is_the_largest_brute_force_divergence_per_order(sigma):
    # ρ = Δ²/(2σ²) (Canonne, Kamath & Steinke, NeurIPS 2020): no order exceeds it, α = 2 reaches it
    result = exactdp.zcdp(_mechanism(sigma), [0], [1], DIGITS)
    assert_encloses(result.rho, 1 / (2 * sigma ** 2), DIGITS)
    orders = [Fraction(k, 4) for k in range(5, 40)]
    with mpmath.workdps(80):
        largest = max(_renyi(sigma, 1, a) / a for a in orders)
        assert largest <= result.rho.upper + mpmath.mpf(10) ** -70
    assert result.alpha.value == 2


def test_a_shift_off_the_integers_has_disjoint_supports():
    mech = _mechanism(Fraction(2))
    point, = exactdp.privacy_profile(mech, [0], [Fraction(1, 2)], [Fraction(3)], DIGITS)
    assert point.delta.lower == point.delta.upper == 1
    divergence, = exactdp.renyi_divergence(mech, [0], [Fraction(1, 2)], [2], DIGITS)
    assert divergence.divergence.lower == mpmath.inf


def test_the_largest_loss_is_approached_far_from_the_second_count():
    result = exactdp.max_privacy_loss(_mechanism(Fraction(2)), [0], [1], DIGITS)
    assert result.loss.log_ratio == mpmath.inf and result.approached == "out0 → -inf"


def test_its_privacy_loss_distribution_is_refused_in_one_line():
    with pytest.raises(MethodUnavailableError, match="infinitely many losses"):
        exactdp.privacy_loss_distribution(_mechanism(Fraction(2)), [0], [1])
