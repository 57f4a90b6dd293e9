"""The piecewise Gauss–Legendre engine (``exactdp.exact.piecewise_gauss``) against the closed form
(an independent method: exact expansion, no quadrature) on integrals with many distinct
factors, and the honesty of its error bound."""

from fractions import Fraction

import flint
import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact.closed_form import integrate_closed_form
from exactdp.exact.integrand import build_output_integral
from exactdp.exact.noisy_max import index_form
from exactdp.exact.piecewise_gauss import integrate_pieces
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


def test_auto_uses_it_and_leaves_flint_settings_alone():
    before = flint.ctx.prec, flint.ctx.cap
    mech = exactdp.mechanism("gptt", eps1="0.5", eps2="0.5")
    queries = [Fraction(i, 7) for i in range(-20, 200)]
    p = exactdp.probability(mech, queries, ["F"] * 110 + ["T"] * 110)
    assert p.method == "piecewise-gauss" and p.relative_error < mpmath.mpf(10) ** -30
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
