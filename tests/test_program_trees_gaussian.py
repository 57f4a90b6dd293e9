"""Gaussian and Gumbel noises compared in a tree or with two hubs: nested quadrature
(``exact/backends/nested_quadrature.py``).

References: nested ``mpmath.quad`` (its error estimate as slack) for a chain of four noises, a
hand-built chain of three nested integrals and Gaussian k-Min-Max; tensor Gauss–Legendre in
double precision for Gaussian m-Range; seeded simulation in
binomial intervals for m-Range; the outputs' probabilities summing to 1; a chain of four
Gumbel noises against nested ``mpmath.quad``, and Gumbel k-Min-Max against ``mpmath.quad``.
"""

from fractions import Fraction

import mpmath
import numpy as np
from flint import ctx
from scipy.special import ndtr, roots_legendre

import exactdp
from exactdp.exact.backends.nested_quadrature import log_nested_smooth
from exactdp.exact.form.nested_integral import Branch, NestedIntegral
from exactdp.noise import Gaussian
from exactdp.precision import exact_mpf
from exactdp.programs import program
from tests.conftest import assert_encloses, assert_in_simulation
from tests.programs.compared_noises import k_min_max_gaussian, m_range_gaussian

DPS = 12


def normal(sigma):
    """The density and the CDF of ``N(0, σ²)`` in mpmath."""
    return (lambda x: mpmath.npdf(x, 0, sigma)), (lambda x: mpmath.ncdf(x, 0, sigma))


def quad_with_error(f, points):
    """``mpmath.quad`` and its error estimate."""
    return mpmath.quad(f, points, error=True)


def test_chain_of_three_nested_integrals():
    """``Pr[a < 1/2, b < a + 1, c > b − 1/3]`` for ``a, b, c ~ N(0, 1), N(0, 2²), N(0, 1)``
    as a hand-built nested integral rooted at ``a`` (``a``'s message holds ``b``'s, which holds
    ``c``'s) against ``∫_{−∞}^{1/2} p_a(x) ∫_{−∞}^{x+1} p_b(y) S_c(y − 1/3) dy dx`` by nested
    ``mpmath.quad`` cut at ten standard deviations."""
    one, two = Gaussian(Fraction(1)), Gaussian(Fraction(2))
    leaf = Branch(one, lowers=((Fraction(-1, 3), Fraction(1)),))
    middle = Branch(two, uppers=((Fraction(1), Fraction(1)),), children=(leaf,))
    root = Branch(one, uppers=((Fraction(1, 2), Fraction(0)),), children=(middle,))
    with mpmath.workdps(15):
        pdf1, cdf1 = normal(1)
        pdf2, _ = normal(2)
        third = mpmath.mpf(1) / 3
        expected, error = quad_with_error(lambda x: pdf1(x) * mpmath.quad(
            lambda y: pdf2(y) * (1 - cdf1(y - third)), [-20, x + 1], method="gauss-legendre"),
            [-10, mpmath.mpf(1) / 2])
        error += mpmath.mpf(10) ** -22   # the mass beyond ten standard deviations
    with ctx.workprec(80):
        log_value = log_nested_smooth(NestedIntegral(root), 50)
    lower, upper = (exact_mpf(end) for end in (log_value.exp().lower(), log_value.exp().upper()))
    assert lower - 10 * error <= expected <= upper + 10 * error
    assert (upper - lower) / expected < mpmath.mpf(10) ** -DPS


def chain(prng, queries, epsilon):
    """Four Gaussian noises compared along a chain a — b — c — d (a tree that is not a star)."""
    a, b, c, d = (prng.normal(scale=1.0) for _ in range(4))
    return bool(a < b + queries[0]), bool(b > c - queries[1]), bool(c + 1 > d)


def test_chain_of_four_against_nested_quadrature():
    """``Pr[a < b + q0, b > c − q1, c + 1 > d]`` = ``∫∫_{b > c − q1} p(b)p(c)·Φ(b + q0)·Φ(c + 1)``
    by nested ``mpmath.quad`` (the leaves a, d in closed form) cut at ten standard
    deviations."""
    q0, q1 = Fraction(1, 2), Fraction(-1, 3)
    with mpmath.workdps(25):   # 15 digits err by 2e-16, more than their error estimate
        pdf, cdf = normal(1)
        off = mpmath.mpf(q1.numerator) / q1.denominator
        expected, error = quad_with_error(lambda c: pdf(c) * cdf(c + 1) * mpmath.quad(
            lambda b: pdf(b) * cdf(b + mpmath.mpf(1) / 2), [c - off, 10],
            method="gauss-legendre"), [-10, 0, 10])
        error += mpmath.mpf(10) ** -22   # the mass beyond ten standard deviations
    result = exactdp.probability(program(chain, epsilon=1), [q0, q1], "T,T,T", dps=DPS)
    assert result.method == "certified nested quadrature"
    assert_encloses(result, expected, DPS, slack=10 * error)


def test_k_min_max_against_quadrature_and_sum():
    """Gaussian k-Min-Max on 3 queries: ⊤ (the third noisy query inside the noisy range of the
    first two, integrated over the two hubs) against the integral over the third noise,
    ``∫ p(x − q₂)·(F(x − q₀)S(x − q₁) + S(x − q₀)F(x − q₁)) dx`` by ``mpmath.quad``; ⊤ and ⊥
    sum to a ball holding 1."""
    queries, sigma = [0, 1, 0], 2
    mech = program(k_min_max_gaussian, epsilon=1, sigma=sigma)
    with mpmath.workdps(30):
        pdf, cdf = normal(sigma)
        expected = mpmath.quad(lambda x: pdf(x) * (cdf(x) * (1 - cdf(x - 1))
                                                   + (1 - cdf(x)) * cdf(x - 1)),
                               [-mpmath.inf, 0, 1, mpmath.inf])
    inside = exactdp.probability(mech, queries, "T", dps=DPS)
    assert_encloses(inside, expected, DPS, slack=mpmath.mpf(10) ** -25)
    outside = exactdp.probability(mech, queries, "F", dps=DPS)
    assert inside.lower + outside.lower <= 1 <= inside.upper + outside.upper


def m_range_both_inside(order: int) -> float:
    """``∫∫_{l < h} p_l(l) p_h(h) Π_{q ∈ {0, 1}} (Φ((h − q)/2) − Φ((l − q)/2)) dl dh`` for
    Gaussian m-Range (ends ``l ~ N(0, 4²)``, ``h ~ 1 + N(0, 4²)``, queries' noise ``N(0, 2²)``)
    by tensor Gauss–Legendre in double precision (numpy, scipy's ``ndtr``) of ``order`` nodes
    per axis, on ``h ∈ [1 − 40, 1 + 40]``, ``l ∈ [−40, h]`` (the ends' mass beyond ten
    standard deviations is below ``10^{−22}``)."""
    nodes, weights = roots_legendre(order)
    high = 1 + 40 * nodes
    low = -40 + (high[:, None] + 40) * (nodes[None, :] + 1) / 2
    low_weights = weights[None, :] * (high[:, None] + 40) / 2

    def end_pdf(x):
        return np.exp(-x ** 2 / 32) / (4 * np.sqrt(2 * np.pi))

    inside = ((ndtr(high[:, None] / 2) - ndtr(low / 2))
              * (ndtr((high[:, None] - 1) / 2) - ndtr((low - 1) / 2)))
    inner = (end_pdf(low) * inside * low_weights).sum(axis=1)
    return float((end_pdf(high - 1) * inner * weights * 40).sum())


def test_m_range_against_quadrature():
    """Gaussian m-Range on 2 queries, both inside, against :func:`m_range_both_inside` (its
    slack: the change from 400 to 800 nodes per axis, and the rounding of the sums)."""
    expected = m_range_both_inside(800)
    slack = 10 * abs(expected - m_range_both_inside(400)) + 1e-14
    result = exactdp.probability(program(m_range_gaussian, epsilon=1, sigma=2), [0, 1], "T,T",
                                 dps=DPS)
    assert_encloses(result, mpmath.mpf(expected), DPS, slack=slack)


def test_m_range_against_seeded_simulation():
    """Every output of Gaussian m-Range on two queries against 400,000 seeded runs: each exact
    probability lies in the 99.99% Clopper–Pearson interval of its count, and the enclosures
    sum to a ball holding 1."""
    queries, runs, sigma = [0, 1], 400_000, 2
    mech = program(m_range_gaussian, epsilon=1, sigma=sigma)
    rng = np.random.default_rng(20261128)
    high = 1 + rng.normal(0, 2 * sigma, runs)
    low = rng.normal(0, 2 * sigma, runs)
    first, second = (q + rng.normal(0, sigma, runs) for q in queries)
    inside = [(low < v) & (v < high) for v in (first, second)]
    counts = {"T,T": inside[0] & inside[1], "T,F": inside[0] & ~inside[1], "F": ~inside[0]}
    lower, upper = assert_in_simulation(mech, queries, counts, runs, DPS)
    assert lower <= 1 <= upper


def gumbel_chain(prng, queries, epsilon):
    """:func:`chain` with Gumbel noise of scale 1."""
    a, b, c, d = (prng.gumbel(scale=1.0) for _ in range(4))
    return bool(a < b + queries[0]), bool(b > c - queries[1]), bool(c + 1 > d)


def test_gumbel_chain_of_four_against_nested_quadrature():
    """The chain of four with Gumbel noise (density ``e^{−x − e^{−x}}``, CDF ``exp(−e^{−x})``)
    against nested ``mpmath.quad`` on ``[−4, 40]`` (the mass beyond: below ``10^{−17}``)."""
    q0, q1 = Fraction(1, 2), Fraction(-1, 3)
    with mpmath.workdps(15):
        def pdf(x):
            return mpmath.exp(-x - mpmath.exp(-x))

        def cdf(x):
            return mpmath.exp(-mpmath.exp(-x))
        off = mpmath.mpf(q1.numerator) / q1.denominator
        expected, error = quad_with_error(lambda c: pdf(c) * cdf(c + 1) * mpmath.quad(
            lambda b: pdf(b) * cdf(b + mpmath.mpf(1) / 2), [c - off, 40],
            method="gauss-legendre"), [-4, 0, 10, 40])
        error += 2 * mpmath.exp(-40) + cdf(-4)   # the mass beyond the range, per noise
    result = exactdp.probability(program(gumbel_chain, epsilon=1), [q0, q1], "T,T,T", dps=DPS)
    assert result.method == "certified nested quadrature"
    assert_encloses(result, expected, DPS, slack=10 * error)


def k_min_max_gumbel(prng, queries, epsilon):
    """:func:`~tests.programs.compared_noises.k_min_max_gaussian` with Gumbel noise of scale
    1."""
    low = high = queries[0] + prng.gumbel(scale=1.0)
    second = queries[1] + prng.gumbel(scale=1.0)
    if second > high:
        high = second
    elif second < low:
        low = second
    return [bool(low < query + prng.gumbel(scale=1.0) < high) for query in queries[2:]]


def test_gumbel_k_min_max_against_quadrature():
    """Gumbel k-Min-Max on 3 queries (two hubs whose running integrals' integrands grow double
    exponentially off the real line beyond a strip), ⊤ against
    ``∫ p(x − q₂)·(F(x − q₀)S(x − q₁) + S(x − q₀)F(x − q₁)) dx`` by ``mpmath.quad`` at 30
    digits on ``[−10, 80]`` (the mass beyond: below ``10^{−30}``)."""
    queries = [0, 1, 0]
    with mpmath.workdps(30):
        def pdf(x):
            return mpmath.exp(-x - mpmath.exp(-x))

        def cdf(x):
            return mpmath.exp(-mpmath.exp(-x))
        expected = mpmath.quad(lambda x: pdf(x) * (cdf(x) * (1 - cdf(x - 1))
                                                   + (1 - cdf(x)) * cdf(x - 1)),
                               [-10, 0, 1, 10, 80])
    result = exactdp.probability(program(k_min_max_gumbel, epsilon=1), queries, "T", dps=DPS)
    assert result.method == "certified nested quadrature"
    assert_encloses(result, expected, DPS, slack=mpmath.mpf(10) ** -25)
