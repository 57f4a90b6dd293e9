"""``zhuwang-gaussian-svt``: Zhu & Wang's RDP bound for the Gaussian Sparse Vector (c = 1).

References: the bounds are Theorem 8 and Proposition 10 of Y. Zhu and Y.-X. Wang, "Improving
Sparse Vector Technique with Rényi Differential Privacy", NeurIPS 2020, as stated by the
authors' library autodp (``autodp/rdp_bank.py``, ``RDP_gaussian_svt_c1``), re-evaluated here with
mpmath at 50 digits; the exact ``D_α`` of one query against a 60-digit mpmath quadrature of
``Pr[⊤] = ∫ φ(z/σ1)/σ1 · Q((T + z − q)/σ2) dz`` (Q the standard normal survival function;
the quadrature itself checked against ``Φ((q − T)/sqrt(σ1² + σ2²))``) and the two-outcome
formula ``D_α = ln(p^α q^{1−α} + (1−p)^α (1−q)^{1−α})/(α − 1)`` (Mironov, "Rényi Differential
Privacy", IEEE CSF 2017, Def. 3).
"""

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.claims import CONFIRMED, claim_ids
from exactdp.claims.zhuwang import ALPHAS, proposition10_bound, theorem8_bound
from exactdp.errors import InputError
from exactdp.exact.backends.piece_series import flint_context
from exactdp.precision import COMBINE_GUARD_DIGITS, working_bits
from tests.claims_cache import result
from tests.conftest import assert_encloses

CLAIM = "zhuwang-gaussian-svt"


def mp(value):
    value = Fraction(value)
    return mpmath.mpf(value.numerator) / value.denominator


def theorem8_reference(alpha, k, sigma1, sigma2, delta):
    """ln(k)/(α − 1) + αΔ²/σ1² + 2αΔ²/σ2² (autodp's Theorem 8)."""
    a, s1, s2, d = (mp(x) for x in (alpha, sigma1, sigma2, delta))
    return mpmath.log(k) / (a - 1) + a * d ** 2 / s1 ** 2 + 2 * a * d ** 2 / s2 ** 2


def proposition10_reference(alpha, sigma1, sigma2, threshold, delta, gamma):
    """αΔ²/σ1² + 2αΔ²/σ2² + ln(1 + sqrt(1+γ)(2π)^{γ/2}((T(1+γ)/σ1)^γ + 1)e^{γT²/(2σ1²)})
    / (γ(α − 1)) (autodp's Proposition 10)."""
    a, s1, s2, t, d, g = (mp(x) for x in (alpha, sigma1, sigma2, threshold, delta, gamma))
    inside = (mpmath.sqrt(1 + g) * (2 * mpmath.pi) ** (g / 2) * ((t * (1 + g) / s1) ** g + 1)
              * mpmath.exp(g * t ** 2 / (2 * s1 ** 2)))
    return a * d ** 2 / s1 ** 2 + 2 * a * d ** 2 / s2 ** 2 + mpmath.log(1 + inside) / (g * (a - 1))


#: The formulas' references at 50 digits are good to 10^-45; the balls are asked for 40 digits.
REFERENCE_ERROR, DIGITS = mpmath.mpf(10) ** -45, 40


@pytest.mark.parametrize("alpha, k, sigma1, sigma2, delta", [
    (2, 3, 1, 2, 1), (Fraction(3, 2), 10, Fraction(1, 2), 3, 2), (20, 1, 3, 7, 1)])
def test_theorem8_bound_against_the_formula(alpha, k, sigma1, sigma2, delta):
    with mpmath.workdps(50), flint_context(working_bits(60, guard=COMBINE_GUARD_DIGITS)):
        assert_encloses(theorem8_bound(alpha, k, sigma1, sigma2, delta),
                        theorem8_reference(alpha, k, sigma1, sigma2, delta), DIGITS,
                        absolute=True, slack=REFERENCE_ERROR)


@pytest.mark.parametrize("alpha, sigma1, sigma2, threshold, delta, gamma", [
    (2, 1, 2, 0, 1, 2), (5, 1, 2, 1, 1, 2), (Fraction(7, 2), 2, 5, Fraction(1, 3), 1, 3),
    (10, 1, 3, 2, Fraction(1, 2), Fraction(5, 2))])
def test_proposition10_bound_against_the_formula(alpha, sigma1, sigma2, threshold, delta, gamma):
    with mpmath.workdps(50), flint_context(working_bits(60, guard=COMBINE_GUARD_DIGITS)):
        assert_encloses(proposition10_bound(alpha, sigma1, sigma2, threshold, delta, gamma),
                        proposition10_reference(alpha, sigma1, sigma2, threshold, delta, gamma),
                        DIGITS, absolute=True, slack=REFERENCE_ERROR)


def test_proposition10_refuses_small_query_noise():
    with pytest.raises(InputError, match="needs sigma2 ≥ sqrt"):
        proposition10_bound(2, 1, Fraction(17, 10), 0, 1)          # 1.7 < sqrt(3)


def test_claim_is_registered_twelfth():
    assert claim_ids()[11] == CLAIM and claim_ids().count(CLAIM) == 1


def test_claim_is_confirmed_and_certified_with_parsable_points():
    claim = result(CLAIM)
    assert claim.verdict == CONFIRMED and claim.certified
    assert "autodp" in claim.detail and "could not be consulted" in claim.detail
    assert len(claim.points) == 2 * len(ALPHAS)
    for point in claim.points:
        lower, value, upper = (Decimal(point[key]) for key in
                               ("divergence_lower", "divergence", "divergence_upper"))
        assert 0 < lower <= value <= upper
        bound, margin = Decimal(point["bound"]), Decimal(point["margin"])
        assert margin > 0 and abs(bound - value - margin) < Decimal("1e-25")
        for key in ("bound_error", "margin_error"):
            assert Decimal(point[key]) < Decimal("1e-25")


HAND_PICKED = [((0, 0, 0), (1, 1, 0)), ((0, 0, 1), (1, 0, 0)), ((1, 0, 1), (0, 0, 0)),
               ((0, 1, 0), (0, 0, 0)), ((1, 1, 1), (1, 1, 0))]


def test_worst_grid_pair_beats_hand_picked_pairs():
    # pairs with a query that does not move, outside the grid d2 = d1 ± 1
    mech = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=1)
    worst = {p["alpha"]: Decimal(p["divergence_lower"]) for p in result(CLAIM).points
             if p["series"].startswith("every grid pair")}
    for d1, d2 in HAND_PICKED:
        for first, second in ((d1, d2), (d2, d1)):
            for alpha, point in zip(ALPHAS, exactdp.renyi_divergence(mech, first, second,
                                                                      ALPHAS, dps=15)):
                assert worst[str(alpha)] > Decimal(str(point.divergence.upper))


def two_outcome_divergence(p, q, alpha):
    return mpmath.log(p ** alpha * q ** (1 - alpha)
                      + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (alpha - 1)


@pytest.mark.parametrize("threshold", [0, 1])
def test_one_query_against_quadrature(threshold):
    sigma1, sigma2 = mpmath.mpf(1), mpmath.mpf(2)
    with mpmath.workdps(60):
        def top(q):
            def integrand(z):
                return (mpmath.npdf(z / sigma1) / sigma1
                        * mpmath.erfc((threshold + z - q) / (sigma2 * mpmath.sqrt(2))) / 2)
            return mpmath.quad(integrand, [-mpmath.inf, -5, 0, threshold, 5, mpmath.inf])

        p, q = top(0), top(1)
        # the quadrature itself against Pr[q + ν − ρ ≥ T] = Φ((q − T)/sqrt(σ1² + σ2²))
        assert abs(p - mpmath.ncdf(-threshold / mpmath.sqrt(5))) < mpmath.mpf(10) ** -50
        mech = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=1, T=threshold)
        points = exactdp.renyi_divergence(mech, [0], [1], ALPHAS, dps=40)
        for alpha, point in zip(ALPHAS, points):
            reference = two_outcome_divergence(p, q, alpha)
            assert_encloses(point.divergence, reference, DIGITS, slack=REFERENCE_ERROR)
