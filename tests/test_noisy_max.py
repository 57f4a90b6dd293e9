"""Report Noisy Max (Laplace / exponential, index / value): exact engine and sampler."""

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

import exactdp
from exactdp.errors import InputError, MethodUnavailableError
from exactdp.exact.event_probability.rules import event_probability
from exactdp.events import parse_event, view_of


def two_query_laplace(d, b):
    """Pr[q1 + η1 > q2 + η2], d = q1 − q2 ≥ 0, η i.i.d. Lap(b): the difference of two Laplace
    variables has CDF 1 − ½e^{−d/b}(1 + d/(2b)) (convolution of the two densities, by hand)."""
    return 1 - 0.5 * math.exp(-d / b) * (1 + d / (2 * b))


def two_query_exponential(d, b):
    """Pr[q1 + X1 > q2 + X2], d ≥ 0, X i.i.d. Exp(b): X2 − X1 is Laplace(b), so 1 − ½e^{−d/b}."""
    return 1 - 0.5 * math.exp(-d / b)


@pytest.mark.parametrize("name, reference", [("noisy_max_laplace", two_query_laplace),
                                             ("noisy_max_exponential", two_query_exponential)])
@pytest.mark.parametrize("d", [0.0, 0.5, 3.0])
def test_two_queries_closed_form(name, reference, d):
    mech = exactdp.mechanism(name, eps=1)  # b = 2Δ/ε = 2
    p = exactdp.probability(mech, [d, 0], "0", dps=20)
    assert float(p.value) == pytest.approx(reference(d, 2.0), rel=1e-14)
    assert p.relative_error < 1e-20


@pytest.mark.parametrize("name", ["noisy_max_laplace", "statdp.noisy_max_v2a"])
def test_index_probabilities_sum_to_one_and_respect_eps(name):
    mech = exactdp.mechanism(name, eps=0.5)
    d1, d2 = [1, 1, 0, 2], [2, 0, 1, 1]
    with mpmath.workdps(30):
        p1 = [exactdp.probability(mech, d1, str(i), dps=15).value for i in range(4)]
        p2 = [exactdp.probability(mech, d2, str(i), dps=15).value for i in range(4)]
        assert abs(mpmath.fsum(p1) - 1) < 1e-14
        # Report Noisy Max with Lap(2/ε) or Exp(2/ε) is ε-DP (Dwork & Roth Thm 3.9 / §3.3).
        assert max(abs(mpmath.log(a / b)) for a, b in zip(p1, p2)) <= 0.5


@pytest.mark.parametrize("name, lower", [("noisy_max_laplace_value", -mpmath.inf),
                                         ("statdp.noisy_max_v2b", 2)])
def test_value_density_integrates_to_one(name, lower):
    mech = exactdp.mechanism(name, eps=1)
    with mpmath.workdps(20):
        total = mpmath.quad(lambda v: exactdp.probability(mech, [0, 1, 2], v, dps=15).value,
                            [lower, 0, 1, 2, mpmath.inf] if lower < 0 else [2, mpmath.inf])
    assert abs(total - 1) < 1e-12


def test_exponential_value_is_not_private():
    # StatDP's noisy max v2b (Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (arXiv:1805.10277);
    # CheckDP's BadNoisyMax): with all queries one higher, a max below 2 is impossible.
    mech = exactdp.mechanism("statdp.noisy_max_v2b", eps=1)
    loss = [exactdp.probability(mech, d, "1.5") for d in ([1] * 3, [2] * 3)]
    assert loss[0].value > 0 and loss[1].is_zero


def test_value_interval_event_matches_integrated_density():
    mech = exactdp.mechanism("noisy_max_laplace_value", eps=1)
    view = view_of(mech, [0, 1])
    p = event_probability(mech, [0, 1], parse_event("value in (0.5, 2)", view))
    with mpmath.workdps(25):
        expected = mpmath.quad(lambda v: exactdp.probability(mech, [0, 1], v).value, [0.5, 1, 2])
    assert abs(p.value - expected) < 1e-14


@pytest.mark.parametrize("name", ["noisy_max_laplace", "noisy_max_exponential"])
def test_sampler_matches_exact(name):
    mech = exactdp.mechanism(name, eps=1)
    q = [1, 0, 2]
    indices = exactdp.sample(mech, q, 30_000, np.random.default_rng(11)).values
    for i in range(3):
        p = float(exactdp.probability(mech, q, str(i), dps=10).value)
        low, high = binom.interval(0.999, 30_000, p)
        assert low <= np.count_nonzero(indices == i) <= high


def test_bad_outputs():
    mech = exactdp.mechanism("noisy_max_laplace")
    with pytest.raises(InputError, match="an index from 0 to 2, got '3'"):
        exactdp.probability(mech, [0, 1, 2], "3")
    with pytest.raises(MethodUnavailableError, match="no closed form for integrals of Gumbel"):
        exactdp.probability(exactdp.mechanism("noisy_max_gumbel"), [0, 1, 2], "1",
                            method="closed")


@pytest.mark.parametrize("name", ["noisy_max_laplace", "noisy_max_exponential"])
def test_index_closed_form_agrees_with_quadrature(name):
    # both laws are piecewise exponential, so Pr[argmax = i] has a closed form; the two methods
    # are independent and must agree within the sum of their error bounds
    mech = exactdp.mechanism(name, eps=0.7)
    queries = "0.3,-1.2,0.3,2.5,0"
    for index in range(5):
        closed = exactdp.probability(mech, queries, str(index), dps=30, method="closed")
        quad = exactdp.probability(mech, queries, str(index), dps=30, method="quad")
        assert abs(closed.value - quad.value) <= closed.error + quad.error


def test_one_entry_sequences_are_accepted_as_the_output():
    # the same output spelled as a number, a string, a list and Runs gives the same value
    from exactdp.sequences import as_output

    mech = exactdp.mechanism("noisy_max_laplace_value")
    values = {exactdp.probability(mech, [0, 1], spelled).value
              for spelled in ("1.5", 1.5, [1.5], as_output("1.5"))}
    assert len(values) == 1
    with pytest.raises(exactdp.InputError, match="one number, got 2 entries"):
        exactdp.probability(exactdp.mechanism("noisy_max_laplace"), [0, 1], [1, 0])


def test_index_probability_against_brute_force_quadrature():
    # Independent reference: Pr[argmax = 3] = ∫ p(x − q_3) Π_{j≠3} F(x − q_j) dx for Lap(2)
    # (ε = 1, Δ = 1), integrated by plain mpmath.quad at 50 digits split at every answer (ten
    # distinct answers, no large powers, so plain tanh-sinh is accurate here).  The engine before
    # the integral-form rewrite was wrong here from the 17th digit.
    queries = "-0.63,1.81,-0.33,2.61,2.27,-2.42,-2.18,-1.7,2.79,-0.38"
    with mpmath.workdps(50):
        answers = [mpmath.mpf(x) for x in queries.split(",")]
        b = mpmath.mpf(2)

        def cdf(x):
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

        def integrand(x):
            density = mpmath.exp(-abs(x - answers[3]) / b) / (2 * b)
            return density * mpmath.fprod(cdf(x - q) for j, q in enumerate(answers) if j != 3)

        reference = mpmath.quad(integrand, [-mpmath.inf] + sorted(answers) + [mpmath.inf])
    p = exactdp.probability(exactdp.mechanism("noisy_max_laplace", eps=1), queries, "3", dps=30)
    assert abs(p.value - reference) <= p.error + mpmath.mpf(10) ** -45
