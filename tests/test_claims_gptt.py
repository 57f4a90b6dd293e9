"""``gptt-inf``, ``gptt-copies`` and ``chenm-proof-flaw`` against independent values."""

import mpmath
import pytest
from mpmath import mpf

from exactdp.claims import CONFIRMED

from .claims_cache import result, series
from .independent import close, log_ratio, output_probability, scale
from .reference import gptt_family_probability, lap_cdf, lap_sf


@pytest.mark.parametrize("eps1", [0.25, 0.5, 1.0])
def test_gptt_inf_is_an_exact_zero_against_the_closed_form(eps1):
    # Chen & Machanavajjhala, proof of Thm 4.7: Pr_D = Pr[0 < ρ ≤ 1] = ½(1 − e^{−ε1}) for
    # ρ ~ Lap(1/ε1), whatever the number of copies; Pr_D' = 0.
    with mpmath.workdps(50):
        expected = (1 - mpmath.exp(-1 / scale(eps1))) / 2
    points = series("gptt-inf", f"ε1 = {eps1},")
    assert sorted(points) == [1, 10, 100, 1000, 10**4]
    for point in points.values():
        assert point["p2"] == "0" and point["log_ratio"] == "inf"
        assert close(point["p1"], expected, 28)
    assert result("gptt-inf").verdict == CONFIRMED


@pytest.mark.parametrize("eps1, eps2, first", [(0.5, 0.5, 2), (0.25, 0.75, 1), (0.75, 0.25, 4),
                                               (1.0, 1.0, 2)])
def test_gptt_copies_first_t_above_two_eps1(eps1, eps2, first):
    # Independent: the GPTT family integral (Chen & Machanavajjhala, 2015, arXiv:1508.07306,
    # Thm 4.7 and its proof) by mpmath.quad at 50 digits.  It decides which t is the first with ln
    # ratio > 2ε1.
    points = series("gptt-copies", f"ε1 = {eps1}, ε2 = {eps2}")
    for t in range(1, first + 1):
        d = (((0, t),), ((1, t),))        # ⊥ at the t zeros, ⊤ at the t ones
        d2 = (((1, t),), ((0, t),))
        expected = log_ratio(scale(eps1), scale(eps2), d, d2)
        assert close(points[t]["log_ratio"], expected, 25)
        assert (expected > 2 * eps1) == (t == first)
    assert f"({eps1}, {eps2}) from t = {first}," in result("gptt-copies").detail


def test_gptt_copies_large_t_against_independent_references():
    # ln P1 by tests/reference.py (Gauss–Legendre on a fine window around the peak, located with
    # scipy; its own error estimate is returned), ln P2 by the closed form below.
    point = series("gptt-copies", "ε1 = 0.5, ε2 = 0.5")[1000]
    t = 1000
    with mpmath.workdps(60):
        log_p1, log_p1_error = gptt_family_probability(t, 0.5, 0.5, with_error=True)
        expected = log_p1 - mpmath.log(_mirror_probability(t, mpf(2)))
        # Tolerance: the claim's reported error of its ln ratio, the rounding of its 30
        # printed significant digits (value ≈ 897: 5·10^-28), the reference quadrature's error
        # estimate, and 10^-50 for the closed form at 60 digits.
        bound = (mpf(point["log_ratio_error"]) + 5 * mpf(10) ** -28 + log_p1_error
                 + mpf(10) ** -50)
        assert abs(mpf(point["log_ratio"]) - expected) <= bound


def _mirror_probability(t, b):
    """Pr[GPTT(1^t, 0^t) = (⊥^t, ⊤^t)] = ∫ p_b(z) (F_b(z − 1) S_b(z))^t dz when ε1 = ε2 (both
    scales b), in closed form.  With a = e^{−1/b}: on [0, 1] the factor F_b(z − 1)S_b(z) is the
    constant a/4, giving (a/4)^t·½(1 − a); on z < 0 (u = e^{z/b}) and on z > 1
    (w = e^{−(z−1)/b}) the integral becomes (a/2)^t·½·∫_0^1 u^t(1 − u/2)^t du, times a for
    z > 1, and ∫_0^1 u^t(1 − u/2)^t du = 2^{t+1}·B_{1/2}(t+1, t+1) = 2^t·(t!)²/(2t+1)! by the
    symmetry of the beta integrand about 1/2."""
    a = mpmath.exp(-1 / b)
    beta = mpf(2) ** t * mpmath.factorial(t) ** 2 / mpmath.factorial(2 * t + 1)
    return (a / 2) ** t * (beta / 2 * (1 + a) + mpf(2) ** -t * (1 - a) / 2)


def test_gptt_copies_growth_rate():
    # Laplace's method (see test_claims_symbolic): slope → 2 ln(2e^{ε2/2} − 1), written out here.
    for eps1, eps2 in [(0.5, 0.5), (0.25, 0.75), (0.75, 0.25), (1.0, 1.0)]:
        points = series("gptt-copies", f"ε1 = {eps1}, ε2 = {eps2}")
        with mpmath.workdps(50):
            slope = ((mpf(points[10**6]["log_ratio"]) - mpf(points[10**5]["log_ratio"]))
                     / (10**6 - 10**5))
            rate = 2 * mpmath.log(2 * mpmath.exp(1 / (2 * scale(eps2))) - 1)
        assert abs(slope - rate) < 1e-5
    assert result("gptt-copies").verdict == CONFIRMED


@pytest.mark.parametrize("label, b_rho, b_nu, copy", [
    ("GPTT", 2, 2, ((0, 1, False), (1, 0, True))),     # ε1 = ε2 = 0.5: Lap(2) and Lap(2)
    ("Alg. 1", 2, 4, ((0, 1, False),)),                # ε = 1, c = 1: Lap(2/ε), Lap(4/ε)
])
def test_proof_flaw_quantities(label, b_rho, b_nu, copy):
    # Chen & Machanavajjhala proof 4.8 (Lyu et al. Appendix 9.3): α = Pr_D'(a), δ = |F^{-1}(α/4)|
    # of Lap(b_ρ) = b_ρ ln(2/α), κ = min over [−δ, δ] of the per-copy integrand ratio (found here
    # on a grid of 2001 points plus both ends at 60 digits, not assumed to sit at an end), bound
    # κ^t/2.  The claim's enclosures (ends rounded outward to 25 digits) must contain them.
    points = series("chenm-proof-flaw", label)
    for t in (1, 2, 5, 10):
        bottoms2 = tuple((q2, t) for _, q2, top in copy if not top)
        tops2 = tuple((q2, t) for _, q2, top in copy if top)
        with mpmath.workdps(60):
            alpha = output_probability(b_rho, b_nu, bottoms2, tops2)
            delta = b_rho * mpmath.log(2 / alpha)

            def kappa(z):
                ratio = mpf(1)
                for q, q2, top in copy:
                    factor = lap_sf if top else lap_cdf
                    ratio *= factor(z - q, b_nu) / factor(z - q2, b_nu)
                return ratio

            grid = [-delta + 2 * delta * k / 2000 for k in range(2001)]
            kappa_min = min(kappa(z) for z in grid)
            bound = t * mpmath.log(kappa_min) - mpmath.log(2)
            point = points[t]
            assert mpf(point["kappa_lower"]) <= kappa_min <= mpf(point["kappa_upper"])
            assert (mpf(point["log_argument_bound_lower"]) <= bound
                    <= mpf(point["log_argument_bound_upper"]))
        assert close(point["alpha"], alpha, 10)
        assert close(point["delta"], delta, 10)
        assert close(point["kappa"], kappa_min, 10)
        # the fixed-t argument is valid: the exact ratio is above its bound
        assert mpf(point["log_argument_bound"]) < mpf(point["log_ratio"])


def test_proof_flaw_bound_stays_bounded_for_alg1():
    # Lyu et al. Lemma 1: Alg. 1's all-⊥ ratio is at most e^{ε/2}; the argument's κ(t)^t levels
    # off (t·ln κ(t) rises to a limit below ln 2 + ε/2), so κ(t)^t/2 never shows a violation.
    points = series("chenm-proof-flaw", "Alg. 1")
    powers = [mpf(points[t]["log_kappa_power"]) for t in sorted(points)]
    assert all(a <= b for a, b in zip(powers, powers[1:]))
    assert powers[-1] - powers[-2] < 1e-5
    assert max(powers) < mpmath.log(2) + mpf("0.5")
    assert all(mpf(p["log_ratio"]) - mpf("0.5") < 1e-29 for p in points.values())
    assert result("chenm-proof-flaw").verdict == CONFIRMED
    assert result("chenm-proof-flaw").certified
