"""StatDP's p-value (Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (arXiv:1805.10277), §4.2) against
independent computations."""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from exactdp.errors import InputError
from exactdp.sampling import discrete_laws as laws
from exactdp.sampling.hypothesis import p_value


def enumerated_p_value(c1, c2, n, eps):
    """Σ_k Binomial(c1, e^{−ε})(k) · P[X ≥ k], X ~ Hypergeom(2n, n, k + c2), written out with exact
    integer binomial coefficients (math.comb) in mpmath — no scipy."""
    with mpmath.workdps(40):
        keep = mpmath.exp(-mpmath.mpf(eps))
        total = mpmath.mpf(0)
        for k in range(c1 + 1):
            draws = k + c2
            tail = sum(math.comb(n, j) * math.comb(n, draws - j)
                       for j in range(k, min(n, draws) + 1)) / mpmath.mpf(math.comb(2 * n, draws))
            total += math.comb(c1, k) * keep ** k * (1 - keep) ** (c1 - k) * tail
        return float(total)


@pytest.mark.parametrize("c1, c2, n, eps", [
    (3, 1, 5, 0.3), (5, 0, 5, 0.1), (5, 5, 5, 0.0), (0, 0, 4, 1.0), (7, 2, 12, 0.7),
    (40, 25, 60, 0.2), (120, 100, 200, 0.05), (200, 30, 200, 1.5),
])
def test_exact_expectation_matches_enumeration(c1, c2, n, eps):
    assert p_value(c1, c2, n, eps) == pytest.approx(enumerated_p_value(c1, c2, n, eps),
                                                   rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("c1, c2, n, eps", [(3000, 2000, 20000, 0.3), (6000, 5000, 100000, 0.2),
                                           (45000, 40000, 100000, 0.1)])
def test_recurrence_matches_scipy_term_by_term(c1, c2, n, eps):
    # The same sum over every k, each Fisher tail straight from scipy's hypergeom.sf (no
    # truncation of the binomial, no recurrence).
    k = np.arange(c1 + 1)
    direct = np.dot(stats.binom.pmf(k, c1, math.exp(-eps)),
                    stats.hypergeom.sf(k - 1, 2 * n, n, k + c2))
    assert p_value(c1, c2, n, eps) == pytest.approx(direct, rel=1e-8, abs=1e-14)


def test_statdp_average_converges_to_the_exact_expectation():
    # StatDP's estimator with K draws has standard error ≤ 0.5/√K; K = 20000 → 0.0035.
    exact = p_value(130, 100, 1000, 0.1)
    estimate = p_value(130, 100, 1000, 0.1, samples=20000, rng=np.random.default_rng(1))
    assert abs(estimate - exact) < 0.015
    again = p_value(130, 100, 1000, 0.1, samples=200, rng=np.random.default_rng(5))
    assert again == p_value(130, 100, 1000, 0.1, samples=200, rng=np.random.default_rng(5))


def test_p_value_is_monotone_in_eps_and_counts():
    values = [p_value(400, 250, 1000, eps) for eps in (0.0, 0.2, 0.4, 0.6)]
    assert values == sorted(values) and values[0] < 1e-6 and values[-1] > 0.5
    assert p_value(300, 250, 1000, 0.1) > p_value(400, 250, 1000, 0.1)


@pytest.mark.parametrize("args, message", [
    ((-1, 0, 10, 0.1), "c1 must be an integer from 0 to n=10, got c1=-1"),
    ((0, 11, 10, 0.1), "c2 must be an integer from 0 to n=10, got c2=11"),
    ((0, 0, 0, 0.1), "n must be a positive integer, got n=0"),
    ((0, 0, 10, -0.5), "eps must be finite and non-negative, got eps=-0.5"),
    ((0, 0, 10, float("nan")), "eps must be finite and non-negative, got eps=nan"),
    ((1.5, 0, 10, 0.1), "c1 must be an integer"),
])
def test_bad_inputs(args, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        p_value(*args)


def test_samples_need_a_generator():
    with pytest.raises(InputError, match="samples must be a positive integer, got samples=0"):
        p_value(1, 1, 10, 0.1, samples=0, rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="needs a seeded rng"):
        p_value(1, 1, 10, 0.1, samples=5)


def test_discrete_laws_equal_scipy_stats():
    # discrete_laws calls the scipy.special ufuncs behind scipy.stats.binom and .hypergeom (to
    # spare the tester the import of scipy.stats): the floats must be scipy.stats's, bit for bit,
    # including below, at and above the hypergeometric support.
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 10**6))
        c1, c2 = (int(x) for x in rng.integers(0, n + 1, 2))
        p = float(rng.random())
        q = float(rng.choice([1e-17, 0.025, 0.5, 0.975, float(rng.random())]))
        assert laws.binom_ppf(q, c1, p) == stats.binom.ppf(q, c1, p)
        assert laws.binom_interval(0.99, n, p) == stats.binom.interval(0.99, n, p)
        k = np.arange(0, c1 + 1, max(1, c1 // 50))
        assert np.array_equal(laws.binom_pmf(k, c1, p), stats.binom.pmf(k, c1, p))
        top = int(rng.integers(0, c1 + 1))
        assert laws.hypergeom_pmf(top, 2 * n, n, top + c2) == \
            stats.hypergeom.pmf(top, 2 * n, n, top + c2)
        assert laws.hypergeom_logpmf(top, 2 * n, n, top + c2) == \
            stats.hypergeom.logpmf(top, 2 * n, n, top + c2)
        thinned = np.append(k, [0, c1])
        assert np.array_equal(laws.hypergeom_sf(thinned - 1, 2 * n, n, thinned + c2),
                              stats.hypergeom.sf(thinned - 1, 2 * n, n, thinned + c2))
    # edges of the hypergeometric support [max(N − (M − n), 0), min(n, N)] on a small law
    for k in range(-2, 8):
        assert laws.hypergeom_sf(np.array([k]), 10, 4, np.array([6]))[0] == \
            stats.hypergeom.sf(k, 10, 4, 6)
    for p in (0.0, 1.0):
        assert laws.binom_interval(0.99, 50, p) == stats.binom.interval(0.99, 50, p)
