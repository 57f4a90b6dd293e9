"""The piecewise-exponential kernel (``exact/backends/exponential_sums.py``) in both arithmetics
against references computed without it."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest

from exactdp.exact.backends.arithmetics import BALLS, MPF
from exactdp.exact.backends.exponential_sums import exp_integral, integrate, product_on_piece
from exactdp.exact.form.integral_form import IntegralBuilder, interior_point
from exactdp.noise import Exponential, Kind, Laplace
from exactdp.precision import to_mpf
from tests.conftest import assert_encloses

DPS = 30


def _integral(hub, factors):
    builder = IntegralBuilder(hub)
    for law, kind, shift, power in factors:
        builder.add(law, kind, Fraction(shift), power)
    return builder.build()


def _integrand(integral):
    """``p_hub(z)·Π g_j(z − s_j)^{m_j}`` from the laws' mpmath log functions (not their
    pieces)."""
    def f(z):
        total = integral.hub.log(Kind.PDF, z)
        for factor in integral.factors:
            total += factor.power * factor.law.log(factor.kind, z - factor.shift)
        return mpmath.exp(total)
    return f


CASES = [
    (Laplace(Fraction(2)), [(Laplace(Fraction(1)), Kind.CDF, 1, 3),
                            (Laplace(Fraction(1)), Kind.SF, "-1/2", 2)]),
    (Laplace(Fraction(1)), [(Laplace(Fraction(1, 2)), Kind.SF, 0, 1),
                            (Laplace(Fraction(1, 2)), Kind.CDF, 2, 4)]),
    (Exponential(Fraction(1)), [(Exponential(Fraction(3)), Kind.CDF, "1/3", 2),
                                (Exponential(Fraction(3)), Kind.SF, 1, 1)]),
]


@pytest.mark.parametrize("hub, factors", CASES)
def test_each_piece_in_both_arithmetics_matches_quadrature(hub, factors):
    # Reference: mpmath.quad of the integrand written with the laws' log functions, piece by
    # piece (tanh-sinh on an analytic integrand, 50 digits; its error is far below 1e-30).
    integral = _integral(hub, factors)
    f = _integrand(integral)
    for lo, hi in integral.pieces:
        with mpmath.workdps(50):
            reference = mpmath.quad(f, [-mpmath.inf if lo is None else to_mpf(lo),
                                        mpmath.inf if hi is None else to_mpf(hi)])
        point = interior_point(lo, hi)
        with flint.ctx.workprec(200):
            ball = integrate(product_on_piece(integral, point, BALLS), lo, hi, BALLS)
            assert_encloses(ball, reference, DPS, slack=reference * mpmath.mpf(10) ** -40)
        with mpmath.workdps(60):
            value = integrate(product_on_piece(integral, point, MPF), lo, hi, MPF)
        assert abs(value - reference) <= mpmath.mpf(10) ** -DPS * reference


def test_exponential_integrals_at_infinite_ends():
    # ∫_{−∞}^{0} e^{2z} dz = 1/2 and ∫_{1}^{∞} e^{−z} dz = e^{−1} (by hand); ∫_{0}^{∞} e^{z} dz
    # and ∫ e^{0·z} over a half-line diverge; a zero rate over [a, b] is the width b − a.
    with flint.ctx.workprec(120):
        assert_encloses(exp_integral(Fraction(2), None, Fraction(0), BALLS), Fraction(1, 2), DPS)
        with mpmath.workdps(50):
            reference = mpmath.exp(-1)
        assert_encloses(exp_integral(Fraction(-1), Fraction(1), None, BALLS), reference, DPS,
                        slack=mpmath.mpf(10) ** -45)
        assert exp_integral(Fraction(1), Fraction(0), None, BALLS) == flint.arb("inf")
        assert exp_integral(Fraction(0), None, Fraction(0), BALLS) == flint.arb("inf")
        assert_encloses(exp_integral(Fraction(0), Fraction(1, 3), Fraction(2), BALLS),
                        Fraction(5, 3), DPS)
    with mpmath.workdps(40):
        assert exp_integral(Fraction(2), None, Fraction(0), MPF) == mpmath.mpf(1) / 2
