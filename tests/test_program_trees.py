"""Programs whose compared noises form a tree, or a group with a few hubs: nested integrals.

References: the catalogue's Report Noisy Max (its one-dimensional integral) for the running best,
which sums 2^(n−1) paths of nested integrals, or their merge into n stars; nested
``mpmath.quad`` for a chain of four noises; ``mpmath.quad`` over another noise for k-Min-Max
and three mutually compared noises; seeded simulation in binomial intervals for m-Range.  Three
hubs and the refusal of four: ``tests/test_program_hub_triples.py``.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

import exactdp
from exactdp.exact.form.integral_form import Integral
from exactdp.programs import program
from exactdp.exact.form.nested_integral import NestedIntegral
from exactdp.programs.exact import (SignedForm, evaluate_signed, merged_paths, path_terms,
                                    traced_paths)
from exactdp.programs.path_merging import merge_paths
from exactdp.programs.tracing import trace
from tests.conftest import assert_encloses, assert_in_simulation
from tests.programs.compared_noises import (k_min_max, m_range, running_best,
                                            running_best_exponential, running_best_gaussian,
                                            running_best_value)

EPS = Fraction(7, 10)
QUERIES = [0, 1, 0, 2, 1]


def depth_first(mech, queries):
    """Every path of a program, traced depth first (``traced_paths`` merges the runs of a
    running best while tracing)."""
    return trace(mech.func, queries, mech.arguments)


def laplace(b: Fraction):
    """The density and the CDF of ``Lap(b)`` in mpmath, at the working precision."""
    scale = mpmath.mpf(b.numerator) / b.denominator

    def pdf(x):
        return mpmath.exp(-abs(x) / scale) / (2 * scale)

    def cdf(x):
        return mpmath.exp(x / scale) / 2 if x < 0 else 1 - mpmath.exp(-x / scale) / 2
    return pdf, cdf


@pytest.mark.parametrize("function, catalogue", [(running_best, "noisy_max_laplace"),
                                                 (running_best_exponential,
                                                  "noisy_max_exponential")])
def test_running_best_is_the_catalogue_noisy_max(function, catalogue):
    """Each index's probability, the sum of the nested integrals of the 2^(n−1) traced paths
    whose last record it is (not merged), equals the one integral of the catalogue's noisy max
    (independent: Dwork & Roth's ``∫ p(z − q_i) Π_{j≠i} F(z − q_j) dz``)."""
    mech = program(function, epsilon=EPS)
    reference = exactdp.mechanism(catalogue, eps=EPS)
    paths, nested = depth_first(mech, QUERIES), 0
    for index in range(len(QUERIES)):
        expected = exactdp.probability(reference, QUERIES, str(index), dps=40)
        form = SignedForm.of((t for path in paths if path.result == (index,)
                              for t in path_terms(path, [])), False)
        nested += sum(isinstance(integral, NestedIntegral)
                      for term in form.plus.terms for integral, _ in term.integrals)
        assert_encloses(evaluate_signed(form, 25, "certified", "test"), expected.value, 25,
                        slack=expected.error)
    assert nested > len(QUERIES)


def chain(prng, queries, epsilon):
    """Four noises compared along a chain a — b — c — d (a tree that is not a star)."""
    a, b, c, d = (prng.laplace(scale=1.0 / epsilon) for _ in range(4))
    return bool(a < b + queries[0]), bool(b > c - queries[1]), bool(c + 1 > d)


def test_chain_against_nested_quadrature():
    """``Pr[a < b + q0, b > c − q1, c + 1 > d]`` = ``∫∫ p(b)p(c)·F(b + q0)·[b > c − q1]·F(c + 1)``
    by nested ``mpmath.quad`` split at the kinks (the leaves a, d in closed form)."""
    q0, q1, b = Fraction(1, 2), Fraction(-1, 3), 1 / EPS
    mech = program(chain, epsilon=EPS)
    with mpmath.workdps(15):
        pdf, cdf = laplace(b)
        off, half = mpmath.mpf(q1.numerator) / q1.denominator, mpmath.mpf(1) / 2
        inner = lambda c: pdf(c) * cdf(c + 1) * mpmath.quad(  # noqa: E731
            lambda y: pdf(y) * cdf(y + half),
            [c - off] + [k for k in (-half, 0) if k > c - off] + [mpmath.inf])
        # kinks of the integrand in c: c + 1 = 0, c = 0, and c − q1 at −1/2 and 0
        expected = mpmath.quad(inner, [-mpmath.inf, -1, -half + off, off, 0, mpmath.inf])
    assert_encloses(exactdp.probability(mech, [q0, q1], "T,T,T", dps=12), expected, 12,
                    slack=mpmath.mpf(10) ** -13)


def test_k_min_max_against_quadrature():
    """k-Min-Max's ⊤ (the third noisy query inside the noisy range of the first two), which the
    engine integrates over the two hubs, against the integral over the third noise instead:
    ``∫ p(x − q₂)·(F(x − q₀)S(x − q₁) + S(x − q₀)F(x − q₁)) dx`` by ``mpmath.quad``."""
    queries, b = [0, 1, 0], 2 / EPS
    with mpmath.workdps(30):
        pdf, cdf = laplace(b)
        expected = mpmath.quad(lambda x: pdf(x) * (cdf(x) * (1 - cdf(x - 1))
                                                   + (1 - cdf(x)) * cdf(x - 1)),
                               [-mpmath.inf, 0, 1, mpmath.inf])
    assert_encloses(exactdp.probability(program(k_min_max, epsilon=EPS), queries, "T", dps=25),
                    expected, 25, slack=mpmath.mpf(10) ** -28)


def test_m_range_against_seeded_simulation():
    """Every output of m-Range on two queries against 400,000 seeded runs of the program:
    each exact probability lies in the 99.99% Clopper–Pearson interval of its count, and the
    probabilities sum to 1."""
    queries, runs = [0, 1], 400_000
    mech = program(m_range, epsilon=EPS)
    rng = np.random.default_rng(20251128)
    eps = float(EPS)
    high = 1 + rng.laplace(0, 4 / eps, runs)
    low = rng.laplace(0, 4 / eps, runs)
    first, second = (q + rng.laplace(0, 2 / eps, runs) for q in queries)
    inside = [(low < v) & (v < high) for v in (first, second)]
    counts = {"T,T": inside[0] & inside[1], "T,F": inside[0] & ~inside[1], "F": ~inside[0]}
    lower, upper = assert_in_simulation(mech, queries, counts, runs)
    assert abs(lower - 1) < 1e-14 and abs(upper - 1) < 1e-14


def triangle(prng, queries, epsilon):
    """Three noises each compared with the other two: a cycle that two hubs explain."""
    a, b, c = (q + prng.laplace(scale=1.0 / epsilon) for q in queries)
    return bool(a > b), bool(a > c), bool(b > c)


def test_triangle_is_the_order_of_three_noises():
    """``Pr[a > b > c]`` for independent Laplace noises, the output ``T,T,T`` of three
    comparisons, against ``∫ p_b(z)·S_a(z)·F_c(z) dz`` — the catalogue's one-dimensional
    integral written by hand with mpmath.quad."""
    queries, b = [Fraction(1, 2), 0, Fraction(-1, 3)], 1 / EPS
    with mpmath.workdps(30):
        pdf, cdf = laplace(b)
        half, third = mpmath.mpf(1) / 2, mpmath.mpf(1) / 3
        expected = mpmath.quad(lambda z: pdf(z) * (1 - cdf(z - half)) * cdf(z + third),
                               [-mpmath.inf, -third, 0, half, mpmath.inf])
    assert_encloses(exactdp.probability(program(triangle, epsilon=EPS), queries, "T,T,T",
                                        dps=25), expected, 25, slack=mpmath.mpf(10) ** -28)


def test_running_best_merges_into_one_star_per_index():
    """The 2^(n−1) paths of the running best merge into n, each the star of report noisy max
    (every comparison with the winner's noise): one integral over one hub per index."""
    n = 8
    queries = [(7 * i) % 5 for i in range(n)]
    mech = program(running_best, epsilon=EPS)
    assert len(depth_first(mech, queries)) == 2 ** (n - 1)
    merged = merge_paths(depth_first(mech, queries))
    assert sorted(path.result for path in merged) == [(i,) for i in range(n)]
    for path in merged:
        (winner,) = path.result
        assert all(any(noise == winner for noise, _ in key) for key in path.intervals)
        ((_, term),) = path_terms(path, [])
        assert all(isinstance(integral, Integral) for integral, _ in term.integrals)


def test_a_union_that_is_not_convex_is_not_merged():
    """Index 3 of the running best on 4 queries via records {0, 3} (η1, η2 below η0) and via
    records {0, 1, 3} (η2 below η1): their union, ``η3 > max(η0, η1) > η2``, is not an
    intersection of difference constraints, so the two paths stay apart."""
    mech = program(running_best, epsilon=EPS)
    chosen = [path for path in depth_first(mech, [0, 1, 0, 2]) if path.result == (3,)
              and {frozenset(k for k, _ in key) for key in path.intervals} in (
                  {frozenset({0, 1}), frozenset({0, 2}), frozenset({0, 3})},
                  {frozenset({0, 1}), frozenset({1, 2}), frozenset({1, 3})})]
    assert len(chosen) == 2
    assert merge_paths(chosen) == chosen


def test_gaussian_running_best_is_the_catalogue_noisy_max():
    """Gaussian noise: once merged, the running best is report noisy max, whose certified
    quadrature the catalogue's ``noisy_max_gaussian`` computes on its own."""
    queries = [0, 1, 0, 2, 1]
    mech = program(running_best_gaussian, epsilon=EPS, sigma=2)
    reference = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    for index in range(len(queries)):
        expected = exactdp.probability(reference, queries, str(index), dps=20)
        assert_encloses(exactdp.probability(mech, queries, str(index), dps=12),
                        expected.value, 12, slack=expected.error)


def test_running_best_releasing_its_value():
    """``(index, best value)``: the released value is solved for the winner's noise, a density
    inside the nested integrals (paths with a release are not merged).  Reference: the joint
    density ``p(v − q_i) Π_{j≠i} F(v − q_j)`` written with mpmath."""
    queries, b = [0, 1, 0, 2], 2 / EPS
    mech = program(running_best_value, epsilon=EPS)
    with mpmath.workdps(40):
        pdf, cdf = laplace(b)
        for value in (Fraction(5, 2), Fraction(3, 10), Fraction(-1)):
            v = mpmath.mpf(value.numerator) / value.denominator
            for index, query in enumerate(queries):
                expected = pdf(v - query) * mpmath.fprod(
                    cdf(v - other) for j, other in enumerate(queries) if j != index)
                assert_encloses(exactdp.probability(mech, queries, f"{index},{value}", dps=20),
                                expected, 20, slack=expected * mpmath.mpf(10) ** -35)


def best_two(prng, queries, epsilon):
    """A running best that also keeps the second best: its paths compare each query with two
    moving records (cycles of comparisons), but its index is report noisy max's."""
    best = second = index = None
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        if best is None or noisy > best:
            second, best, index = best, noisy, i
        elif second is None or noisy > second:
            second = noisy
    return index


def test_merging_decides_paths_with_cycles():
    """Keeping the second best puts cycles of three compared noises on many of the 54 paths
    (each alone refused); merged, they are the 5 stars of the catalogue's noisy max."""
    mech = program(best_two, epsilon=EPS)
    assert len(traced_paths(mech, QUERIES)) == 54
    assert len(merged_paths(mech, QUERIES)) == len(QUERIES)
    reference = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    for index in range(len(QUERIES)):
        expected = exactdp.probability(reference, QUERIES, str(index), dps=30)
        assert_encloses(exactdp.probability(mech, QUERIES, str(index), dps=25), expected.value,
                        25, slack=expected.error)
