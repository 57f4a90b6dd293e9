"""Running integrals (``exact/backends/running_integrals.py``) against closed forms.

References: ``∫_a^y φ = Φ(y) − Φ(a)`` and ``∫_a^y φΦ = (Φ(y)² − Φ(a)²)/2`` (``φ``, ``Φ`` the
standard normal density and CDF), evaluated by ``mpmath.ncdf`` at 40 digits; and the bound
off the real line against ``|H(y)|`` by ``mpmath.quad`` along the straight path.
"""

from fractions import Fraction

import mpmath
import pytest
from flint import acb, arb, ctx

from exactdp.exact.backends.running_integrals import RunningIntegral
from exactdp.precision import exact_mpf
from tests.conftest import assert_encloses

START, END = Fraction(-10), Fraction(10)


def normal_pair(s):
    """``[φ(s), φ(s)·Φ(s)]`` at a real or complex ball."""
    density = (-(s * s) / 2).exp() / (2 * arb.pi()).sqrt()
    return [density, density * (-s / arb(2).sqrt()).erfc() / 2]


def running(tolerance_bits: int = 110) -> RunningIntegral:
    return RunningIntegral(normal_pair,
                           lambda s: [acb(value).abs_upper() for value in normal_pair(s)],
                           START, END, Fraction(1), arb(2) ** -tolerance_bits)


def closed_forms(y):
    """``[Φ(y) − Φ(−10), (Φ(y)² − Φ(−10)²)/2]`` in mpmath."""
    start = mpmath.ncdf(START.numerator)
    return [mpmath.ncdf(y) - start, (mpmath.ncdf(y) ** 2 - start ** 2) / 2]


@pytest.mark.parametrize("order", ["increasing", "decreasing", "scattered"])
def test_values_against_closed_forms(order):
    """Points asked in any order (each from its nearer known neighbour) enclose the closed forms
    to 30 digits, absolute; a point asked twice gives the same ball."""
    points = [Fraction(k, 7) for k in range(-63, 70, 9)] + [END]
    if order == "decreasing":
        points.reverse()
    elif order == "scattered":
        points = points[::3] + points[1::3] + points[2::3]
    with ctx.workprec(140), mpmath.workdps(40):
        integral = running()
        found = []
        for point in points:
            values = integral.at(to_ball(point))
            expected = closed_forms(mpmath.mpf(point.numerator) / point.denominator)
            for value, reference in zip(values, expected):
                assert_encloses(value, reference, 30, absolute=True)
            found.append(values)
        again = integral.at(to_ball(points[0]))
        assert [(v.mid(), v.rad()) for v in again] == [(v.mid(), v.rad()) for v in found[0]]


@pytest.mark.parametrize("middle", ["0.3", "-13.5"])
def test_ball_point_holds_every_point_of_the_ball(middle):
    """At a ball ``y`` the value holds ``H`` at both of its ends (the ``r·M`` spread), inside
    the range and in its margin beyond the smallest rectangle."""
    with ctx.workprec(140), mpmath.workdps(40):
        integral = running()
        y = arb(middle) + arb(0, 2.0 ** -60)
        values = integral.at(y)
        for end in (y.lower(), y.upper()):
            for value, reference in zip(values, closed_forms(exact_mpf(end))):
                assert_encloses(value, reference, 17, absolute=True)


def test_off_axis_bound_holds():
    """``moduli_at`` bounds ``|H_k(y)|`` at complex points inside and beyond the range, against
    ``|Φ(Re y) − Φ(−10) + ∫_{Re y}^{y} φ|`` and its ``φΦ`` counterpart by ``mpmath.quad``."""
    with ctx.workprec(64), mpmath.workdps(20):
        integral = running(60)
        for x, v in ((0, Fraction(1, 2)), (3, 2), (-4, 1), (12, Fraction(1, 3)), (-11, 5)):
            y = acb(arb(x), to_ball(v))
            bounds = integral.moduli_at(y, arb(1))
            base = closed_forms(mpmath.mpf(x))
            for k, bound in enumerate(bounds):
                def f(t, k=k, x=x):
                    z = mpmath.mpc(x, t)
                    density = mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)
                    return density if k == 0 else density * mpmath.erfc(-z / mpmath.sqrt(2)) / 2
                path = mpmath.quad(f, [0, mpmath.mpf(v.numerator) / v.denominator]) * 1j
                assert abs(base[k] + path) <= exact_mpf(bound.upper())


def to_ball(value: Fraction) -> arb:
    return arb(value.numerator) / value.denominator


def test_point_beyond_the_range_is_refused():
    """A point beyond the range and its margin is a programming error, said so."""
    with ctx.workprec(64):
        with pytest.raises(ValueError, match="asked at"):
            running(40).at(arb(40))
