"""Programs whose compared noises form a group with three hubs: the closed form over the hubs'
space (``backends/hub_triples.py``).

References: nested ``mpmath.quad`` over two of the noises (the third hub integrated out by its
CDF) for two outputs of the noisy grid; seeded simulation in binomial intervals for every
output of it; for five i.i.d. noises compared around a cycle, the brute-force count of the
orderings that give each output; ``scipy.optimize.linprog`` for the Fourier–Motzkin test of
the cells; for Gaussian noise, a Gauss–Legendre rule in double precision, seeded simulation and
the count of orderings; the refusal of four hubs and of Gumbel noise.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from scipy import optimize
from scipy.special import ndtr, roots_legendre

import exactdp
from exactdp.errors import InputError, MethodUnavailableError
from exactdp.exact.backends.hub_triples import log_hubs
from exactdp.exact.form.nested_integral import feasible
from exactdp.programs import program
from exactdp.programs.exact import merged_paths
from exactdp.programs.relations import Relations
from exactdp.programs.trees import _NodeBuilder, hubs_of, neighbours_of
from tests.conftest import assert_encloses, assert_in_simulation
from tests.programs.compared_noises import noisy_grid, noisy_grid_gaussian

EPS = Fraction(7, 10)
GRID_QUERIES = [0, 1]


def laplace(location: int, scale: Fraction):
    """The density, CDF and survival function of ``location + Lap(scale)`` in mpmath."""
    b = mpmath.mpf(scale.numerator) / scale.denominator

    def pdf(x):
        return mpmath.exp(-abs(x - location) / b) / (2 * b)

    def cdf(x):
        y = x - location
        return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2
    return pdf, cdf, lambda x: 1 - cdf(x)


def split(points, low=-mpmath.inf, high=mpmath.inf):
    """``[low, the points strictly between, high]``: ``mpmath.quad``'s pieces at the kinks."""
    return [low] + sorted(p for p in set(points) if low < p < high) + [high]


def grid_laws():
    """The grid's cut points ``c + Lap(4/ε)`` for ``c = −1, 0, 1`` and queries ``q + Lap(2/ε)``."""
    cuts = [laplace(c, 4 / EPS) for c in (-1, 0, 1)]
    queries = [laplace(q, 2 / EPS) for q in GRID_QUERIES]
    return cuts, queries


def grid_probability(output: str):
    """The certified probability of an output of the grid, checked to be a three-hub group."""
    p = exactdp.probability(program(noisy_grid, epsilon=EPS), GRID_QUERIES, output, dps=20)
    assert "hub-triple" in p.method
    return p


def test_grid_both_in_the_middle_bucket_against_quadrature():
    """Both queries in bucket 2: ``low < mid < high`` and ``max(low, mid) < v_i < high``, which
    (as ``low < mid``) is ``∫ p_M(m)·F_L(m) ∫_m^∞ p_H(h)·Π_i (F_i(h) − F_i(m)) dh dm`` —
    the low cut point integrated out by its CDF, the engine's innermost hub (high) here
    integrated by ``mpmath.quad`` inside the middle one, at the kinks −1, 0, 1."""
    ((_, cdf_low, _), (pdf_mid, _, _), (pdf_high, _, _)), queries = grid_laws()
    with mpmath.workdps(12):
        def inner(m):
            return mpmath.quad(lambda h: pdf_high(h) * mpmath.fprod(
                cdf(h) - cdf(m) for _, cdf, _ in queries), split([0, 1], m))
        expected = mpmath.quad(lambda m: pdf_mid(m) * cdf_low(m) * inner(m),
                               split([-1, 0, 1]))
    assert_encloses(grid_probability("2,2"), expected, 10, slack=mpmath.mpf(10) ** -11)


def test_grid_a_chain_of_buckets_against_quadrature():
    """Query 0 in bucket 1 and query 1 in bucket 3: ``low < v₀ < mid < high < v₁`` (the other
    comparisons follow), ``∫ p_M(m)·(∫_{−∞}^m p₀(v)F_L(v) dv)·(∫_m^∞ p_H(h)S₁(h) dh) dm`` by
    nested ``mpmath.quad``."""
    ((_, cdf_low, _), (pdf_mid, _, _), (pdf_high, _, _)), queries = grid_laws()
    (pdf_first, _, _), (_, _, sf_second) = queries
    with mpmath.workdps(12):
        def below(m):
            return mpmath.quad(lambda v: pdf_first(v) * cdf_low(v), split([-1, 0], high=m))

        def above(m):
            return mpmath.quad(lambda h: pdf_high(h) * sf_second(h), split([1], m))
        expected = mpmath.quad(lambda m: pdf_mid(m) * below(m) * above(m), split([-1, 0, 1]))
    assert_encloses(grid_probability("1,3"), expected, 10, slack=mpmath.mpf(10) ** -11)


def grid_counts(cuts, queries) -> dict:
    """``output → the runs giving it`` of the grid, from seeded draws of its cut points
    ``cuts`` and noisy queries ``queries`` (arrays of the runs)."""
    low, mid, high = cuts
    ordered = (low < mid) & (mid < high)
    buckets = [np.where(v < low, 0, np.where(v < mid, 1, np.where(v < high, 2, 3)))
               for v in queries]
    counts = {"-1,-1": ~ordered}
    for first, second in itertools.product(range(4), repeat=2):
        counts[f"{first},{second}"] = ordered & (buckets[0] == first) & (buckets[1] == second)
    return counts


@pytest.mark.parametrize("function", [noisy_grid, noisy_grid_gaussian])
def test_grid_against_seeded_simulation(function):
    """Every output of the grid on two queries, Laplace or Gaussian noise, against 400,000
    seeded runs of the program: each exact probability lies in the 99.99% Clopper–Pearson
    interval of its count, and the enclosures sum to a ball holding 1."""
    runs = 400_000
    mech = program(function, epsilon=EPS)
    rng = np.random.default_rng(20261128)
    if function is noisy_grid:
        def cut_noise():
            return rng.laplace(0, 4 / float(EPS), runs)

        def query_noise():
            return rng.laplace(0, 2 / float(EPS), runs)
    else:
        def cut_noise():
            return rng.normal(0, 4, runs)

        def query_noise():
            return rng.normal(0, 2, runs)
    cuts = [c + cut_noise() for c in (-1, 0, 1)]
    counts = grid_counts(cuts, [q + query_noise() for q in GRID_QUERIES])
    lower, upper = assert_in_simulation(mech, GRID_QUERIES, counts, runs, dps=10)
    assert lower <= 1 <= upper and upper - lower < 1e-9


def twisted_grid(prng, queries, epsilon):
    """A grid of three cut points of different laws (one exponential), compared with each other
    and with the queries through scaled and shifted bounds."""
    a = prng.laplace(scale=2.0)
    b = 1 + prng.exponential(scale=1.5)
    c = prng.laplace(scale=1.0)
    if not (a < b + 1 and c < 2 * b and a - 1 < 3 * c):
        return [-1] * len(queries)
    out = []
    for query in queries:
        v = query + prng.laplace(scale=1.0)
        out.append(0 if v < 0.5 * a else 1 if 2 * v < b + 1 else 2 if v > c - 1 else 3)
    return out


def test_twisted_grid_against_seeded_simulation():
    """Every output of :func:`twisted_grid` on two queries against 400,000 seeded runs (99.99%
    Clopper–Pearson intervals), its 17 enclosures summing to a ball of width below 10⁻¹⁸ that
    holds 1; most outputs are three-hub groups."""
    queries, runs = [0, 1], 400_000
    rng = np.random.default_rng(20261129)
    a = rng.laplace(0, 2, runs)
    b = 1 + rng.exponential(1.5, runs)
    c = rng.laplace(0, 1, runs)
    ordered = (a < b + 1) & (c < 2 * b) & (a - 1 < 3 * c)
    buckets = [np.where(v < a / 2, 0, np.where(2 * v < b + 1, 1, np.where(v > c - 1, 2, 3)))
               for v in (q + rng.laplace(0, 1, runs) for q in queries)]
    counts = {"-1,-1": ~ordered}
    counts |= {f"{first},{second}": ordered & (buckets[0] == first) & (buckets[1] == second)
               for first, second in itertools.product(range(4), repeat=2)}
    mech = program(twisted_grid, epsilon=EPS)
    lower, upper = assert_in_simulation(mech, queries, counts, runs, dps=20)
    assert lower <= 1 <= upper and upper - lower < 1e-18
    assert "hub-triple" in exactdp.probability(mech, queries, "2,1", dps=10).method


def test_the_order_of_the_hubs_does_not_matter():
    """The noisy grid's output ``1,3`` and the twisted grid's ``3,2`` with their three hubs taken
    as outer, middle and inner in each of the six orders (other sheets, walls and cells): six
    enclosures of 30 digits that overlap."""
    for function, output in ((noisy_grid, (1, 3)), (twisted_grid, (3, 2))):
        mech = program(function, epsilon=EPS)
        (path,) = [path for path in merged_paths(mech, GRID_QUERIES) if path.result == output]
        groups = Relations(path, []).by_noise_set()
        neighbours = neighbours_of(set().union(*groups), groups)
        hubs = hubs_of(neighbours)
        assert len(hubs) == 3
        values = []
        for order in itertools.permutations(hubs):
            integral, _ = _NodeBuilder(path, groups, neighbours).hub_triple(*order)
            with ctx.workprec(200):
                values.append(log_hubs(integral).exp())
        for value in values:
            assert value.rad() < value.mid() * arb(10) ** -30
            assert all(value.overlaps(other) for other in values)


def five_cycle(prng, queries, epsilon):
    """Five noises, each compared with the next around a cycle: three hubs (η1, η3, η4) and
    every other noise compared with two of them."""
    n = [prng.laplace(scale=1.0) for _ in range(5)]
    return [bool(n[i] > n[(i + 1) % 5]) for i in range(5)]


def five_cycle_exponential(prng, queries, epsilon):
    """:func:`five_cycle` with exponential noise."""
    n = [prng.exponential(scale=1.0) for _ in range(5)]
    return [bool(n[i] > n[(i + 1) % 5]) for i in range(5)]


@pytest.mark.parametrize("function", [five_cycle, five_cycle_exponential])
def test_five_cycle_is_the_count_of_orderings(function):
    """For i.i.d. continuous noise every ordering of the five values has probability 1/5!, so
    an output's probability is the number of the 120 permutations giving it over 120 (brute
    force); the output of five ⊤ is impossible: an exact zero."""
    mech = program(function, epsilon=EPS)
    counts: dict = {}
    for ranks in itertools.permutations(range(5)):
        output = ",".join("T" if ranks[i] > ranks[(i + 1) % 5] else "F" for i in range(5))
        counts[output] = counts.get(output, 0) + 1
    for output, count in counts.items():
        p = exactdp.probability(mech, [0], output, dps=20)
        assert_encloses(p, Fraction(count, math.factorial(5)), 20)
    for output in ("T,T,T,T,T", "F,F,F,F,F"):
        assert output not in counts
        p = exactdp.probability(mech, [0], output, dps=20)
        assert p.value == 0 and p.upper == 0


def seven_cycle(prng, queries, epsilon, extra=False):
    """Seven noises compared around a cycle (four hubs needed); with ``extra``, an eighth noise
    compared with the first."""
    n = [prng.laplace(scale=1.0) for _ in range(7)]
    out = [bool(n[i] > n[(i + 1) % 7]) for i in range(7)]
    return out + [bool(queries[0] + prng.laplace(scale=1.0) > n[0])] if extra else out


@pytest.mark.parametrize("extra, output, group", [
    (False, "T,F,T,F,T,F,F", ""),
    (True, "T,F,T,F,T,F,F,T", " in the group η1, η2, η3, η4, η5, η6, η7, η8")])
def test_seven_cycle_is_refused_naming_it(extra, output, group):
    """Four hubs are refused: one line naming the cycle, and the group when it is larger."""
    with pytest.raises(InputError, match=r"^η1, η2, η3, η4, η5, η6, η7 form a cycle of "
                                         r"comparisons \(drawn at test_program_hub_triples\.py "
                                         r"lines \d+(, \d+){6}\)" + group + r": not a tree of "
                                         r"one-dimensional integrals nor a group of at most "
                                         r"three hubs$") as error:
        exactdp.probability(program(seven_cycle, epsilon=EPS, extra=extra), [0], output)
    assert "\n" not in str(error.value)


def gaussian_grid_references() -> dict:
    """The Gaussian grid's outputs ``2,2`` and ``1,3`` (cut points ``c + N(0, 4²)``, queries
    ``q + N(0, 2²)``) by the formulas of the Laplace tests above, each integral a Gauss–Legendre
    rule of 400 nodes in double precision on ``[−40, 41]`` (ten standard deviations of the cut
    points: tails below 10⁻²²), tensor products for the inner integrals."""
    nodes, weights = roots_legendre(400)

    def rule(low, high):
        """Nodes and weights on ``[low, high]`` (arrays: one rule per row)."""
        low, high = np.asarray(low, float)[..., None], np.asarray(high, float)[..., None]
        return low + (high - low) * (nodes + 1) / 2, weights * (high - low) / 2

    def pdf(x, location, sigma):
        return np.exp(-((x - location) / sigma) ** 2 / 2) / (sigma * np.sqrt(2 * np.pi))

    def cdf(x, location, sigma):
        return ndtr((x - location) / sigma)
    m, w = rule(-40, 41)
    h, v = rule(m, 41)
    middle = (pdf(h, 1, 4) * (cdf(h, 0, 2) - cdf(m[:, None], 0, 2))
              * (cdf(h, 1, 2) - cdf(m[:, None], 1, 2)) * v).sum(axis=1)
    below_x, below_w = rule(-40, m)
    below = (pdf(below_x, 0, 2) * cdf(below_x, -1, 4) * below_w).sum(axis=1)
    above = (pdf(h, 1, 4) * (1 - cdf(h, 1, 2)) * v).sum(axis=1)
    return {"2,2": (pdf(m, 0, 4) * cdf(m, -1, 4) * middle * w).sum(),
            "1,3": (pdf(m, 0, 4) * below * above * w).sum()}


def test_gaussian_grid_against_tensor_gauss_legendre():
    """Gaussian cut points and queries: the three hubs by nested running integrals
    (``backends/nested_quadrature.py``) against the two integrals of the Laplace tests by a
    Gauss–Legendre rule in double precision (:func:`gaussian_grid_references`)."""
    mech = program(noisy_grid_gaussian, epsilon=EPS)
    for output, expected in gaussian_grid_references().items():
        p = exactdp.probability(mech, GRID_QUERIES, output, dps=10)
        assert p.method == "certified nested quadrature"
        assert_encloses(p, expected, 10, slack=1e-13)


def five_cycle_gaussian(prng, queries, epsilon):
    """:func:`five_cycle` with Gaussian noise."""
    n = [prng.normal(scale=1.0) for _ in range(5)]
    return [bool(n[i] > n[(i + 1) % 5]) for i in range(5)]


def test_gaussian_five_cycle_is_the_count_of_orderings():
    """Five i.i.d. Gaussian noises around a cycle by nested running integrals: three outputs
    against the count of the orderings that give them (brute force over the 120)."""
    mech = program(five_cycle_gaussian, epsilon=EPS)
    for output, count in (("T,T,F,T,F", 8), ("F,F,F,F,T", 1), ("T,T,T,F,F", 3)):
        assert sum(all((ranks[i] > ranks[(i + 1) % 5]) == (side == "T")
                       for i, side in enumerate(output.split(",")))
                   for ranks in itertools.permutations(range(5))) == count
        assert_encloses(exactdp.probability(mech, [0], output, dps=10),
                        Fraction(count, math.factorial(5)), 10)


def test_gumbel_three_hubs_are_refused_in_one_line():
    """Three hubs of Gumbel noise have no rule: one line saying so."""
    def five_cycle_gumbel(prng, queries, epsilon):
        n = [prng.gumbel(scale=1.0) for _ in range(5)]
        return [bool(n[i] > n[(i + 1) % 5]) for i in range(5)]
    with pytest.raises(MethodUnavailableError, match=r"^a group of noises compared with three "
                                                     r"hubs has a certified rule for Laplace, "
                                                     r"exponential and Gaussian noise, not for "
                                                     r"Gumbel\(1\) noise$") as error:
        exactdp.probability(program(five_cycle_gumbel, epsilon=EPS), [0], "T,T,F,T,F", dps=10)
    assert "\n" not in str(error.value)


def test_feasible_against_linear_programming():
    """The Fourier–Motzkin test of strict inequalities ``c₀ + c₁z₁ + c₂z₂ > 0`` against
    ``scipy.optimize.linprog`` (the largest common slack ``t ≤ 1`` is positive exactly when
    they have a solution) on 300 seeded random systems of 2 to 6 small integer
    inequalities."""
    rng = np.random.default_rng(7)
    decided = set()
    for _ in range(300):
        rows = [tuple(Fraction(int(x)) for x in rng.integers(-3, 4, 3))
                for _ in range(rng.integers(2, 7))]
        # maximise t subject to −c₁z₁ − c₂z₂ + t ≤ c₀, t ≤ 1
        result = optimize.linprog([0, 0, -1], A_ub=[[-float(c[1]), -float(c[2]), 1]
                                                    for c in rows],
                                  b_ub=[float(c[0]) for c in rows],
                                  bounds=[(None, None), (None, None), (None, 1)])
        expected = result.status == 0 and -result.fun > 1e-9
        assert feasible(rows) == expected, rows
        decided.add(expected)
    assert decided == {True, False}
