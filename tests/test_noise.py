"""Noise laws as values (``exactdp.noise``) and what the integral form gains from them: a new law
(Gumbel) is one class plus one catalogue line, and every error bound bounds."""

import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import exactdp
from exactdp.noise import DiscreteLaplace, Exponential, Gumbel, Kind, Laplace, NoNoise
from exactdp.precision import exact_mpf, to_mpf

LAWS = [Laplace(Fraction(3, 2)), Exponential(Fraction(2, 3)), Gumbel(Fraction(5, 4))]
#: scipy's own implementations of the same laws: an independent reference for the mpmath ones
SCIPY = {"Lap": stats.laplace, "Exp": stats.expon, "Gumbel": stats.gumbel_r}


@pytest.mark.parametrize("law", LAWS, ids=str)
@pytest.mark.parametrize("x", ["-2.5", "-0.1", "0.3", "4"])
def test_law_functions_match_scipy(law, x):
    # scipy.stats evaluates the same densities/CDFs in doubles: agreement to 1e-12 relative
    reference = SCIPY[law.symbol](scale=float(law.scale))
    with mpmath.workdps(30):
        point = mpmath.mpf(x)
        for kind, expected in ((Kind.PDF, reference.pdf(float(x))),
                               (Kind.CDF, reference.cdf(float(x))),
                               (Kind.SF, reference.sf(float(x)))):
            value = mpmath.exp(law.log(kind, point))
            assert float(value) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("law", LAWS, ids=str)
def test_derivatives_and_interval_are_consistent(law):
    # d/dx log g by central differences at 40 digits; Pr[a < η < b] by quadrature of the density
    with mpmath.workdps(40):
        for x in ("-1.3", "0.7", "2.2"):
            point = mpmath.mpf(x)
            for kind in Kind:
                if law.log(kind, point) == mpmath.mpf("-inf"):
                    continue
                log, dlog = law.functions(kind)
                numeric = mpmath.diff(log, point)
                assert abs(dlog(point) - numeric) < mpmath.mpf(10) ** -25
        # infinite ends are cut at ±200 scales, beyond which every law has mass below 1e-80
        far = 200 * law.b
        for low, high in ((-mpmath.inf, -1), (-1, 0.5), (0.25, 3), (2, mpmath.inf)):
            a, b = mpmath.mpf(low), mpmath.mpf(high)
            edges = sorted({max(a, -far), min(b, far)}
                           | {k for k in map(to_mpf, law.kink_points()) if a < k < b})
            by_quadrature = mpmath.quad(lambda t: mpmath.exp(law.logpdf(t)), edges)
            assert abs(law.interval(a, b) - by_quadrature) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("law", LAWS, ids=str)
def test_log_interval_ball_encloses_the_interval_probability(law):
    ends = (None, Fraction(-7, 2), Fraction(-1), Fraction(0), Fraction(1, 3), Fraction(5))
    with mpmath.workdps(40), ctx.workprec(140):
        for low in ends[:-1]:
            for high in (None, *ends[ends.index(low) + 1:]):
                mpf_ends = [mpmath.mpf(-mpmath.inf if low is None else to_mpf(low)),
                            mpmath.mpf(mpmath.inf if high is None else to_mpf(high))]
                probability = law.interval(*mpf_ends)
                log_ball = law.log_interval_ball(low, high)
                if probability == 0:
                    assert log_ball is None
                    continue
                assert log_ball.rad() < 1e-35
                assert abs(mpmath.log(probability) - exact_mpf(log_ball.mid())) < 1e-35
        assert law.log_interval_ball(Fraction(1), Fraction(1)) is None


def test_log_interval_ball_of_an_integer_law_includes_its_lower_end():
    law = DiscreteLaplace(Fraction(3, 2))
    with mpmath.workdps(40), ctx.workprec(140):
        for low, high in ((-3, 2), (0, 1), (1, 4), (-5, -2)):
            log_ball = law.log_interval_ball(Fraction(low), Fraction(high))
            closed = law.closed_interval(mpmath.mpf(low), mpmath.mpf(high - 1))
            assert abs(mpmath.log(closed) - exact_mpf(log_ball.mid())) < 1e-35


def test_a_vanishing_piece_is_none_not_an_error():
    law = Exponential(Fraction(2, 3))
    for kind in (Kind.PDF, Kind.CDF):
        assert law.piece(kind, Fraction(-1)) is None
        assert law.ball_log(kind, -1) is None
    assert law.piece(Kind.SF, Fraction(-1)) == (Fraction(1), Fraction(0), False)
    assert law.ball_log(Kind.SF, -1).value(arb(-5)) == 1


def test_gumbel_refuses_arguments_beyond_its_exponent_range():
    law = Gumbel(Fraction(1))
    with pytest.raises(exactdp.PrecisionError, match="beyond the range exactdp evaluates"):
        law.logcdf(mpmath.mpf("-1e25"))
    assert law.logcdf(mpmath.mpf("-1e6")) < 0   # e^{-e^{10^6}}: tiny, but an mpf


def test_no_noise_is_a_point_mass():
    law = NoNoise()
    assert law.is_point_mass and str(law) == "no noise"
    assert law.interval(mpmath.mpf(-1), mpmath.mpf(1)) == 1
    assert law.interval(mpmath.mpf(0.5), mpmath.mpf(1)) == 0
    assert np.all(law.sample(np.random.default_rng(0), 4) == 0)
    with pytest.raises(ValueError, match="no density"):
        law.positive_region(Kind.PDF)


@pytest.mark.parametrize("law", LAWS, ids=str)
def test_sampler_follows_the_cdf(law):
    # 20,000 seeded draws against the exact CDF at three points: two-sided binomial tests at a
    # Bonferroni-corrected level 1e-4 / 3 (deterministic, so never flaky)
    draws = law.sample(np.random.default_rng(12345), 20_000)
    for x in (-1, 0.5, 2):
        p = float(mpmath.exp(law.logcdf(mpmath.mpf(x))))
        count = int(np.count_nonzero(draws <= x))
        assert stats.binomtest(count, draws.size, p).pvalue > 1e-4 / 3


answers = st.lists(st.integers(-30, 30).map(lambda k: Fraction(k, 10)), min_size=1, max_size=3)


@settings(max_examples=5, deadline=None)
@given(queries=answers, eps=st.sampled_from([Fraction(1, 2), Fraction(13, 10), Fraction(3)]))
def test_gumbel_noisy_max_is_the_exponential_mechanism(queries, eps):
    # Report noisy max with Gumbel(2Δ/ε) noise picks i with probability softmax(ε q/(2Δ))_i
    # (McSherry & Talwar, FOCS 2007; Dwork & Roth 2014, §3.4): an independent closed form.
    mech = exactdp.mechanism("noisy_max_gumbel", eps=eps)
    with mpmath.workdps(60):
        weights = [mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator
                              * (mpmath.mpf(q.numerator) / q.denominator) / 2) for q in queries]
        softmax = [weight / mpmath.fsum(weights) for weight in weights]
    for index, expected in enumerate(softmax):
        p = exactdp.probability(mech, queries, str(index), dps=25)
        assert abs(p.value - expected) <= p.error + mpmath.mpf(10) ** -40
        assert p.relative_error <= mpmath.mpf(10) ** -25


def test_gumbel_noisy_max_is_declared_once():
    # one law class and one catalogue line: the entry exists, samples and tests like the others
    entry = exactdp.mechanisms.entry("noisy_max_gumbel")
    assert "Gumbel(2Δ/ε)" in entry.summary
    mech = entry.make(eps=1)
    assert isinstance(mech.noise, Gumbel) and mech.noise.scale == 2
    draws = exactdp.sample(mech, [0, 1, 2], 30_000, np.random.default_rng(7)).values
    for i in range(3):
        p = float(exactdp.probability(mech, [0, 1, 2], str(i), dps=10).value)
        assert stats.binomtest(int(np.count_nonzero(draws == i)), draws.size, p).pvalue > 1e-4 / 3


def test_exponential_value_density_at_the_lowest_answer():
    # One query: the released maximum is q + Exp(b), so its density at v = q is 1/b
    # (b = 2Δ/ε = 4/3 at ε = 1.5): 0.75, not an exact zero.
    mech = exactdp.mechanism("noisy_max_exponential_value", eps=1.5)
    p = exactdp.probability(mech, "-0.93", "-0.93")
    assert not p.is_zero
    assert abs(p.value - mpmath.mpf("0.75")) <= p.error
    # below every answer the maximum cannot be: an exact zero
    assert exactdp.probability(mech, "-0.93,0", "-1").is_zero


def test_closed_form_error_bound_bounds_tiny_densities():
    # statdp.iSVT4 at ε = 50, N = 3, Δ = 0.3: densities down to 1e-300 whose closed form loses
    # digits in exponentials of large arguments.  The closed form at 30 digits must be within its
    # reported bound of the peak-aware quadrature at 60 digits (an independent method).
    mech = exactdp.mechanism("statdp.iSVT4", eps=50, N=3, sensitivity=0.3)
    rng = random.Random(1)
    checked = 0
    for _ in range(12):
        n = rng.randint(2, 5)
        queries = [Fraction(round(rng.uniform(-3, 3), 1)).limit_denominator(10) for _ in range(n)]
        output, tops = [], 0
        for q in queries:
            if tops < 3 and rng.random() < 0.5:
                output.append(q + Fraction(rng.randint(-50, 50), 100))
                tops += 1
                if tops == 3:
                    break
            else:
                output.append(False)
        closed = exactdp.probability(mech, queries, output, dps=30, method="closed")
        reference = exactdp.probability(mech, queries, output, dps=60, method="quad")
        if closed.is_zero:
            assert reference.is_zero
            continue
        assert abs(closed.value - reference.value) <= closed.error
        checked += 1
    assert checked >= 6
