"""The piecewise Gauss–Legendre engine (``exactdp.exact.backends.piecewise_gauss``) against the
closed form
(an independent method: exact expansion, no quadrature) on integrals with many distinct
factors, and the honesty of its error bound."""

from fractions import Fraction

import flint
import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact.backends.closed_form import integrate_closed_form
from exactdp.exact.form.threshold import build_output_integral
from exactdp.exact.form.noisy_max import index_form
from exactdp.exact.backends.certified import closed_piece, log_integral
from exactdp.exact.backends.arithmetics import BALLS
from exactdp.exact.backends.exponential_sums import product_on_piece
from exactdp.exact.backends.gauss_legendre import error_bound, legendre_rule
from exactdp.exact.backends.piece_series import PiecewiseExponential
from exactdp.precision import to_arb
from exactdp.exact.backends.piecewise_gauss import (STEP, _ellipse_bounds, _layout, _subdivide,
                                           integrate_pieces, log_integral_certified)
from exactdp.sequences import as_queries

distinct_queries = st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=1000),
                            min_size=2, max_size=40, unique=True)


def log_pieces(integral, dps):
    log_scale, results = integrate_pieces(integral, dps)
    (scaled, error), _ = results
    with mpmath.workdps(dps + 30):
        return log_scale + mpmath.log(scaled), error / scaled


def log_closed(integral, dps):
    with mpmath.workdps(dps + 30):
        log_scale, scaled, error = integrate_closed_form(integral, dps)
        return log_scale + mpmath.log(scaled), error / scaled


def sparse_vector_integral(name, queries, data):
    mech = exactdp.mechanism(name, eps1="0.5", eps2="0.5") if name == "gptt" else \
        exactdp.mechanism(name, eps=1, c=1)
    if name == "gptt":
        output = data.draw(st.lists(st.sampled_from("TF"), min_size=len(queries),
                                    max_size=len(queries)))
    else:
        output = ["F"] * (len(queries) - 1) + ["T"]
    (term,) = build_output_integral(mech, queries, output).terms
    return term.integrals[0][0]


@settings(max_examples=12, deadline=None)
@given(queries=distinct_queries, name=st.sampled_from(["gptt", "svt1"]), data=st.data())
def test_sparse_vector_agrees_with_the_closed_form(queries, name, data):
    integral = sparse_vector_integral(name, queries, data)
    value, relative = log_pieces(integral, 30)
    reference, reference_relative = log_closed(integral, 40)
    assert reference_relative < mpmath.mpf(10) ** -40
    assert relative < mpmath.mpf(10) ** -30
    assert abs(value - reference) <= relative + reference_relative


@settings(max_examples=10, deadline=None)
@given(queries=distinct_queries, law=st.sampled_from(["laplace", "exponential"]),
       index=st.integers(min_value=0, max_value=39))
def test_noisy_max_agrees_with_the_closed_form(queries, law, index):
    mech = exactdp.mechanism(f"noisy_max_{law}", eps=1)
    form = index_form(mech, as_queries(queries), index % len(queries))
    integral = form.terms[0].integrals[0][0]
    value, relative = log_pieces(integral, 30)
    reference, reference_relative = log_closed(integral, 40)
    assert relative < mpmath.mpf(10) ** -30
    assert abs(value - reference) <= relative + reference_relative


@settings(max_examples=8, deadline=None)
@given(queries=distinct_queries, data=st.data())
def test_error_bound_covers_the_difference_from_a_50_digit_reference(queries, data):
    # The bound reported at 20 digits must cover the actual error, measured against the closed
    # form at 50 digits (whose own bound is far below).
    integral = sparse_vector_integral("gptt", queries, data)
    value, relative = log_pieces(integral, 20)
    reference, reference_relative = log_closed(integral, 50)
    assert reference_relative < mpmath.mpf(10) ** -50
    assert abs(value - reference) <= relative


def test_many_distinct_queries_against_the_closed_form():
    # 120 distinct queries: beyond the closed form's place in ``auto`` but within its budget.
    queries = [Fraction(3 * ((37 * i) % 241) - 360, 120) for i in range(120)]
    mech = exactdp.mechanism("gptt", eps1="0.5", eps2="0.5")
    output = ["T" if (i * 7) % 3 == 0 else "F" for i in range(120)]
    integral = build_output_integral(mech, queries, output).terms[0].integrals[0][0]
    value, relative = log_pieces(integral, 30)
    reference, reference_relative = log_closed(integral, 30)
    assert abs(value - reference) <= relative + reference_relative


@pytest.mark.parametrize("method, name", [("estimate", "estimate piecewise-gauss"),
                                          ("auto", "certified piecewise-gauss")])
def test_both_methods_use_it_and_leave_flint_settings_alone(method, name):
    before = flint.ctx.prec, flint.ctx.cap
    mech = exactdp.mechanism("gptt", eps1="0.5", eps2="0.5")
    queries = [Fraction(i, 7) for i in range(-20, 200)]
    p = exactdp.probability(mech, queries, ["F"] * 110 + ["T"] * 110, method=method)
    assert p.method == name and p.relative_error < mpmath.mpf(10) ** -30
    assert (flint.ctx.prec, flint.ctx.cap) == before


@pytest.mark.parametrize("power", [1, 10**6])
def test_few_factors_with_large_powers(power):
    # Few distinct factors are evaluated directly (no series); the closed form of gptt's family
    # is the reference (Chen & Machanavajjhala 2015, proof of Thm 4.7) at t = 1.
    mech = exactdp.mechanism("gptt", eps1="0.5", eps2="0.5")
    integral = build_output_integral(mech, f"0*{power},1*{power}",
                                     f"F*{power},T*{power}").terms[0].integrals[0][0]
    value, relative = log_pieces(integral, 30)
    assert relative < mpmath.mpf(10) ** -30
    if power == 1:
        reference, reference_relative = log_closed(integral, 40)
        assert abs(value - reference) <= relative + reference_relative


# --- the certified rule: piecewise Gauss–Legendre with a proven error bound per piece ---------

def certified_log(integral, goal=110):
    with flint.ctx.workprec(goal + 40):
        return log_integral_certified(integral, goal)


def contains(ball, value):
    """Whether the arb ``ball`` contains the mpf ``value`` (compared exactly)."""
    return ball.lower() <= flint.arb(value) <= ball.upper()


@settings(max_examples=12, deadline=None)
@given(queries=distinct_queries, name=st.sampled_from(["gptt", "svt1"]), data=st.data())
def test_certified_enclosure_contains_the_closed_form(queries, name, data):
    # The closed form (exact expansion in mpmath, backends/closed_form.py) at 60 digits is
    # independent of the quadrature; its own error bound is far below the enclosure's width.
    integral = sparse_vector_integral(name, queries, data)
    enclosure = certified_log(integral)
    reference, reference_relative = log_closed(integral, 60)
    assert reference_relative < mpmath.mpf(10) ** -55
    with mpmath.workdps(80):
        assert contains(enclosure, reference)
    assert enclosure.rad() < flint.arb(2) ** -100


@settings(max_examples=8, deadline=None)
@given(queries=distinct_queries, law=st.sampled_from(["laplace", "exponential"]),
       index=st.integers(min_value=0, max_value=39))
def test_certified_noisy_max_contains_the_closed_form(queries, law, index):
    mech = exactdp.mechanism(f"noisy_max_{law}", eps=1)
    form = index_form(mech, as_queries(queries), index % len(queries))
    integral = form.terms[0].integrals[0][0]
    enclosure = certified_log(integral)
    reference, _ = log_closed(integral, 60)
    with mpmath.workdps(80):
        assert contains(enclosure, reference)


@settings(max_examples=15, deadline=None)
@given(queries=st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=20),
                        min_size=1, max_size=6, unique=True),
       order=st.integers(min_value=2, max_value=6), data=st.data())
def test_ellipse_bound_exceeds_the_actual_error_of_the_rule(queries, order, data):
    # On each piece of a Sparse Vector integrand the n-point rule's actual error — against the
    # piece's exact integral by the expansion in balls (certified.closed_piece) — is at most the
    # bound from the ellipse; few nodes, so that the error is far from zero.
    integral = sparse_vector_integral("gptt", queries, data)
    with flint.ctx.workprec(200), mpmath.workprec(200):
        g = PiecewiseExponential(integral)
        points, reference, _ = _layout(g, integral, 60.0)
        pieces = _subdivide(g, points, STEP)
        rhos, bounds = _ellipse_bounds(g, pieces, reference)
        rule = legendre_rule(order, 200)
        for (a, b, _, _), rho, (log_modulus, _) in zip(pieces, rhos, bounds):
            middle, half = to_arb((a + b) / 2), to_arb((b - a) / 2)
            nodes = [middle + half * x for x, _ in rule]
            (values,) = g.log_values([(a, b)], [nodes], 190)
            rule_value = half * sum((w * (v - reference).exp() for (_, w), v in
                                     zip(rule, values)), flint.arb(0))
            exact = closed_piece(product_on_piece(integral, (a + b) / 2, BALLS), a, b) \
                / reference.exp()
            actual = abs(rule_value - exact)
            bound = error_bound(log_modulus.exp(), to_arb(rho), order, half)
            assert actual.upper() <= bound


def test_certified_falls_back_to_acb_integral_where_a_piece_is_too_close_to_a_zero(monkeypatch):
    # The fallback path: with the rule refused, log_integral answers by Gauss–Legendre on the
    # segments between the breakpoints, and with that refused too, by acb.integral; the
    # enclosures overlap (three rigorous methods on one integral).
    mech = exactdp.mechanism("gptt", eps1="0.5", eps2="0.5")
    queries = [Fraction(i, 7) for i in range(-20, 200)]
    integral = build_output_integral(mech, queries, ["F"] * 110 + ["T"] * 110
                                     ).terms[0].integrals[0][0]
    with flint.ctx.workprec(150):
        rule, name = log_integral(integral, 110)
        assert name == "piecewise-gauss"

        def refuse(*_):
            raise exactdp.PrecisionError("refused")
        monkeypatch.setattr("exactdp.exact.backends.certified.log_integral_certified", refuse)
        segments, name = log_integral(integral, 110)
        assert name == "segment-gauss" and rule.overlaps(segments)
        monkeypatch.setattr("exactdp.exact.backends.certified.integrate_vector", refuse)
        fallback, name = log_integral(integral, 110)
        assert name == "integral" and rule.overlaps(fallback)
