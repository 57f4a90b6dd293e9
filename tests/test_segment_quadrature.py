"""Gauss–Legendre with the Bernstein-ellipse bound between the breakpoints
(``certified.integrate_piecewise``, ``vector_quadrature.integrate_vector``): the certified rule
of the Gaussian and Gumbel laws.

References are independent of the engine: ``mpmath.quad`` at 60 digits of the Gaussian Sparse
Vector integral written out here, the exact softmax of Gumbel noisy max (the exponential
mechanism: McSherry & Talwar, FOCS 2007), and ``∫ e^{−x²} = (√π/2)(erf b − erf a)`` from
mpmath's ``erf`` at 220 digits.
"""

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact.backends import vector_quadrature
from exactdp.exact.backends.gauss_legendre import ellipse_cover, error_bound, legendre_rule
from exactdp.exact.backends.node_planner import checked_nodes
from exactdp.precision import to_arb


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def _svt_reference(queries, output, sigma1, sigma2):
    """``∫ φ_{σ1}(z) Π_⊥ Φ_{σ2}(z − q_i) Π_⊤ (1 − Φ_{σ2}(z − q_i)) dz`` (threshold 0) at 60
    digits, split at 0 and ±2σ1, ±8σ1."""
    with mpmath.workdps(60):
        def integrand(z):
            value = mpmath.npdf(z, 0, sigma1)
            for q, top in zip(queries, output):
                below = mpmath.ncdf(z - _mpf(q), 0, sigma2)
                value *= (1 - below) if top else below
            return value
        return mpmath.quad(integrand, [-mpmath.inf, -8 * sigma1, -2 * sigma1, 0, 2 * sigma1,
                                       8 * sigma1, mpmath.inf])


def _check(result, reference, dps):
    with mpmath.workdps(60):
        assert result.lower <= reference <= result.upper
        assert result.upper - result.lower <= result.lower * mpmath.mpf(10) ** -dps


@pytest.mark.parametrize("dps", [15, 30])
@pytest.mark.parametrize("queries, output", [(["0.25"], [True]),
                                             (["-1.5", "0.75"], [False, True]),
                                             (["1", "-0.5", "2.25"], [True, False, False])])
def test_gaussian_svt_by_the_segment_rule_contains_the_60_digit_quadrature(queries, output,
                                                                          dps):
    mech = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=3, T=0)
    result = exactdp.probability(mech, queries, ",".join("T" if t else "F" for t in output),
                                 dps=dps)
    assert result.method == "certified segment-gauss"
    _check(result, _svt_reference(queries, output, 1, 2), dps)


def test_the_acb_integral_fallback_answers_when_the_rule_refuses(monkeypatch):
    mech = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=3, T=0)
    queries, output = ["1", "-0.5", "2.25"], [True, False, False]
    reference = _svt_reference(queries, output, 1, 2)

    def refuse(*_):
        raise exactdp.PrecisionError("refused")
    monkeypatch.setattr("exactdp.exact.backends.certified.integrate_vector", refuse)
    result = exactdp.probability(mech, queries, "T,F,F", dps=30)
    assert result.method == "certified integral"
    _check(result, reference, 30)


@pytest.mark.parametrize("dps", [15, 30])
@pytest.mark.parametrize("queries", [["0", "1", "-2"], ["0.5", "0.25", "3", "-1", "1.125"]])
def test_gumbel_noisy_max_is_the_exact_softmax(queries, dps):
    mech = exactdp.mechanism("noisy_max_gumbel", eps=1)
    b = _mpf(mech.noise.scale)
    for index in range(len(queries)):
        result = exactdp.probability(mech, queries, index, dps=dps)
        assert result.method == "certified segment-gauss"
        with mpmath.workdps(60):
            weights = [mpmath.exp(_mpf(q) / b) for q in queries]
            _check(result, weights[index] / mpmath.fsum(weights), dps)


@settings(max_examples=30, deadline=None)
@given(rho=st.sampled_from(vector_quadrature.RHOS), order=st.integers(2, 24),
       left_tenths=st.integers(-30, 20), width_tenths=st.integers(1, 25))
def test_the_ellipse_bound_exceeds_the_actual_error_for_a_gaussian(rho, order, left_tenths,
                                                                    width_tenths):
    """``∫_a^b e^{−x²} dx = (√π/2)(erf b − erf a)`` (mpmath, 220 digits) against the rule, its
    error below the bound with ``M`` from the cover of every ellipse the rule may choose."""
    a = Fraction(left_tenths, 10)
    b = a + Fraction(width_tenths, 10)
    with ctx.workprec(800):  # 240 digits: far below the smallest bound drawn (about 1e-111)
        middle, half = to_arb((a + b) / 2), to_arb((b - a) / 2)
        rule = half * sum((w * (-(middle + half * x) ** 2).exp()
                           for x, w in legendre_rule(order, 800)), arb(0))
        rho_ball = to_arb(rho)
        modulus = max(arb((-(z * z)).exp().abs_upper())
                      for z in ellipse_cover(middle, half, rho_ball, vector_quadrature.ARCS))
        bound = error_bound(modulus, rho_ball, order, half)
        with mpmath.workdps(220):
            exact = mpmath.sqrt(mpmath.pi) / 2 * (mpmath.erf(_mpf(b)) - mpmath.erf(_mpf(a)))
            # the 220-digit value as a ball whose radius covers its last digits
            exact = arb(mpmath.nstr(exact, 220), "1e-200")
        assert abs(rule - exact).upper() <= bound


@pytest.mark.parametrize("width", [Fraction(1, 4), Fraction(1), Fraction(3)])
def test_the_chosen_ellipse_needs_no_more_nodes_than_the_first(width):
    """``_rule`` starts at ``FIRST_RHO`` and only moves to an ellipse needing fewer nodes."""
    def bound(z, _middle):
        return abs((-(z * z) * 4).exp())
    with ctx.workprec(200):
        middle, half = Fraction(1, 3), width / 2
        share = arb(2) ** -150
        start = vector_quadrature.RHOS.index(vector_quadrature.FIRST_RHO)
        order, error, _ = vector_quadrature._rule(bound, middle, to_arb(middle), to_arb(half),
                                                  share, start)
        rho = to_arb(vector_quadrature.RHOS[start])
        modulus = vector_quadrature._modulus(bound, middle, to_arb(middle), to_arb(half), rho)
        first = None if modulus is None else checked_nodes(modulus, rho, to_arb(half), share)
        assert error <= share
        assert first is None or first[0] > vector_quadrature.MAX_ORDER or order <= first[0]


def test_the_segment_integrals_enclose_a_gaussian_integral():
    # ∫_{-2}^{3} e^{−x²} = (√π/2)(erf 3 + erf 2), through integrate_vector with its ρ choice
    with ctx.workprec(200):
        (value,) = vector_quadrature.integrate_vector(
            lambda z, _m: [(-(z * z)).exp()], lambda z, _m: abs((-(z * z)).exp()),
            [Fraction(-2), Fraction(0), Fraction(3)], arb(0), arb(2) ** -160)
        exact = arb.pi().sqrt() / 2 * (arb(3).erf() + arb(2).erf())
        assert value.overlaps(exact) and value.rad() < 2.0 ** -150


def test_the_quadrature_rule_is_the_rule_integrate_vector_applies():
    # the same integral by the rule's nodes and weights, summed here, within its error: the
    # same enclosure as integrate_vector's, and for a second integrand under the same bound
    # (e^{−x²}·cos x, |cos z| ≤ cosh(Im z) ≤ e^{|Im z|} is covered by e^{−x²}'s bound times
    # that) the rule's sum with the bound's error holds the exact value too
    with ctx.workprec(200):
        def bound(z, _middle):
            return abs((-(z * z)).exp()) * abs(z.imag).exp()

        cuts = [Fraction(-2), Fraction(0), Fraction(3)]
        nodes, error = vector_quadrature.quadrature_rule(bound, cuts, arb(0), arb(2) ** -160)
        assert error < 2.0 ** -160 and all(weight > 0 for _, weight, _ in nodes)
        assert all(any(a < middle < b for a, b in zip(cuts, cuts[1:])) for _, _, middle in nodes)
        gaussian = sum((w * (-(z * z)).exp() for z, w, _ in nodes), arb(0))
        exact = arb.pi().sqrt() / 2 * (arb(3).erf() + arb(2).erf())
        assert (gaussian + arb(0, error.upper())).overlaps(exact)
        (value,) = vector_quadrature.integrate_vector(
            lambda z, _m: [(-(z * z)).exp()], bound, cuts, arb(0), arb(2) ** -160)
        assert value.overlaps(gaussian) and abs(value.mid() - gaussian.mid()) < 2.0 ** -190
        # ∫ e^{−x²} cos x over [−2, 3] = Re ∫ e^{−x² + ix}, by mpmath at 60 digits
        with mpmath.workdps(60):
            reference = mpmath.quad(lambda x: mpmath.exp(-x * x) * mpmath.cos(x), [-2, 0, 3])
        cosine = sum((w * (-(z * z)).exp() * z.cos() for z, w, _ in nodes), arb(0))
        assert (cosine + arb(0, error.upper())).overlaps(arb(mpmath.nstr(reference, 55)))


def test_balls_cross_from_worker_processes_whole():
    # the integers a worker's sums are pickled as give back the same midpoint and the radius,
    # rounded up by at most a unit in the last place of Arb's 30-bit radius: the same ball as
    # the sums of the parent process are given
    from exactdp.exact.backends.vector_quadrature import (_ball_to_integers, _integers_to_ball,
                                                          _received)

    with ctx.workprec(200):
        for ball in (arb(1) / 3, arb(0), arb(-7, 2) * arb(2) ** -900, arb(10) ** 400 / 7,
                     arb(5, arb(2) ** -60)):
            back = _integers_to_ball(_ball_to_integers(ball))
            assert back.mid() == ball.mid() and ball.rad() <= back.rad()
            assert back.rad() <= ball.rad() * (1 + arb(2) ** -28)
            here = _received(ball)
            assert here.mid() == back.mid() and here.rad() == back.rad()
        unbounded = arb(0, float("inf"))
        assert not _integers_to_ball(_ball_to_integers(unbounded)).is_finite()
        assert not _received(unbounded).is_finite()
