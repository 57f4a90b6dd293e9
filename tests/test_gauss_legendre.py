"""The rigorous Gauss–Legendre error bound (``exactdp.exact.backends.gauss_legendre``) against the
actual
error on integrands whose integral is known in closed form."""

from __future__ import annotations

import pytest
from flint import acb, arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

import math

from exactdp.exact.backends.gauss_legendre import (ellipse_cover, error_bound, legendre_rule,
                                                   log_error_bound)


def _rule_sum(f, middle: arb, half: arb, order: int, bits: int) -> arb:
    return half * sum((w * f(middle + half * x) for x, w in legendre_rule(order, bits)), arb(0))


@settings(max_examples=40, deadline=None)
@given(rate=st.integers(-40, 40), order=st.integers(2, 12), rho_tenths=st.integers(11, 60),
       left=st.integers(-5, 5), width_tenths=st.integers(1, 30))
def test_the_ellipse_bound_exceeds_the_actual_error_of_exponentials(rate, order, rho_tenths,
                                                                    left, width_tenths):
    """``∫_a^b e^{λz} dz = (e^{λb} − e^{λa})/λ`` exactly; the rule's actual error (in balls at 300
    bits, far below the errors compared) must be at most the bound with ``M`` from the cover."""
    with ctx.workprec(300):
        lam = arb(rate) / 4 if rate else arb(1) / 8
        a, b = arb(left), arb(left) + arb(width_tenths) / 10
        middle, half = (a + b) / 2, (b - a) / 2
        exact = ((lam * b).exp() - (lam * a).exp()) / lam
        rule = _rule_sum(lambda z: (lam * z).exp(), middle, half, order, 300)
        rho = arb(rho_tenths) / 10
        cover = ellipse_cover(middle, half, rho, 64)
        modulus = max((acb(lam) * z).exp().abs_upper() for z in cover)
        bound = error_bound(arb(modulus), rho, order, half)
        actual = abs(rule - exact)
        assert actual.upper() <= bound


def test_the_cover_contains_points_of_the_ellipse():
    """Points ``m + h(ρe^{iθ} + ρ^{−1}e^{−iθ})/2`` on the upper half lie in some ball of the
    cover."""
    import math
    middle, half, rho = arb(1) / 3, arb(2), arb(3) / 2
    cover = ellipse_cover(middle, half, rho, 16)
    for k in range(101):
        theta = math.pi * k / 100
        u = complex(1.5 * math.cos(theta), 1.5 * math.sin(theta))
        z = 1 / 3 + 2 * (u + 1 / u) / 2
        point = acb(z.real, z.imag)
        assert any(ball.contains(point) for ball in cover)


def test_rho_must_exceed_one():
    with pytest.raises(ValueError, match="rho > 1"):
        error_bound(arb(1), arb(1), 5, arb(1))


@pytest.mark.parametrize("half, rho, order, log_modulus", [
    (0.5, 4.0, 2, 0.0), (3.0, 1.5, 17, -40.0), (0.003, 1024.0, 7, 250.0)])
def test_the_log_bound_is_the_log_of_the_ball_bound(half, rho, order, log_modulus):
    # the double-precision log against the ball bound's own upper end
    with ctx.workprec(128):
        ball = error_bound(arb(log_modulus).exp(), arb(rho), order, arb(half))
        expected = float(arb(ball).log().mid())
    assert math.isclose(log_error_bound(half, rho, order, log_modulus), expected, rel_tol=1e-12,
                        abs_tol=1e-12)
