"""Certified event probabilities (``event_probability(..., method="certified")``) against
independent references.

Every enclosure ``[lower, upper]`` must contain the reference, or, where the reference is
itself an enclosure, intersect it:

* the exact (rational) sum of the certified enclosures of ``exactdp.probability`` over every
  raw output in the event (brute-force enumeration of outputs, no generating polynomial);
* 60-digit mpmath quadrature of the conditional law ``G_E(z)`` written out below (Laplace CDFs
  in closed form, the elementary symmetric polynomial of the ⊥ probabilities);
* closed forms of noisy max values and histogram bins, written at 60 digits.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact.event_probability import threshold as threshold_events
from exactdp.exact.event_probability.rules import event_privacy_loss, event_probability
from exactdp.exact.losses.privacy_loss import CertifiedPrivacyLoss, possible_outputs
from exactdp.events import Additive, view_of
from exactdp.mechanisms.description import ThresholdMechanism
from exactdp.precision import CertifiedProbability


def exact(x: mpmath.mpf) -> Fraction:
    """An mpf (a binary number) as the exact rational it is."""
    sign, mantissa, exponent, _ = x._mpf_
    return (-1) ** sign * Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def assert_certified(p, dps: int):
    assert isinstance(p, CertifiedProbability) and p.method.startswith("certified")
    assert p.lower <= p.value <= p.upper
    assert p.relative_width <= mpmath.mpf(10) ** -dps


def assert_contains(p, reference: mpmath.mpf):
    assert exact(p.lower) <= exact(reference) <= exact(p.upper), (p, reference)


def summed_output_enclosures(mech, queries, statistic, value, dps):
    """``[Σ lower, Σ upper]`` over the raw outputs whose statistic is ``value``, summed exactly."""
    low = high = Fraction(0)
    for output in possible_outputs(mech, len(queries)):
        if statistic(output) == value:
            p = exactdp.probability(mech, queries, output, dps=dps, method="certified")
            low, high = low + exact(p.lower), high + exact(p.upper)
    return low, high


@pytest.fixture(params=["generating polynomial", "summed outputs"])
def engine(request, monkeypatch):
    """With ``MAX_SUMMED_OUTPUTS`` 0 every fixed-threshold event is integrated by the generating
    polynomial; by default a mechanism with few outputs sums its outputs' enclosures."""
    if request.param == "generating polynomial":
        monkeypatch.setattr(threshold_events, "MAX_SUMMED_OUTPUTS", 0)
    return request.param


def _sparse_vector_variants():
    names = []
    for entry in exactdp.catalogue():
        mech = exactdp.mechanism(entry.name)
        if isinstance(mech, ThresholdMechanism) and not mech.releases_numbers:
            names.append(entry.name)
    return names


SPARSE_VECTOR = _sparse_vector_variants()


def test_the_catalogue_has_sparse_vector_variants_to_test():
    assert {"svt1", "svt2", "svt6", "statdp.SVT", "statdp.iSVT1", "gptt"} <= set(SPARSE_VECTOR)


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(SPARSE_VECTOR),
       queries=st.lists(st.integers(-2, 2), min_size=1, max_size=4),
       target=st.integers(0, 4))
def test_statistic_encloses_the_sum_of_output_enclosures(name, queries, target):
    # independent: Σ over every enumerated raw output whose statistic (the view's first
    # additive one: Σ_i w_i(a_i), a_i ⊤ 0, ⊥ 1, absent 2) is the target, of its certified
    # enclosure
    mech = exactdp.mechanism(name)
    view = view_of(mech, queries)
    component, weights = next((n, c.weights) for n, c in view.components
                              if isinstance(c, Additive))

    def statistic(output):
        codes = [0 if a else 1 for a in output] + [2] * (len(queries) - len(output))
        return sum(w[code] for w, code in zip(weights, codes))
    low, high = summed_output_enclosures(mech, queries, statistic, target, 14)
    for maximum in (0, threshold_events.MAX_SUMMED_OUTPUTS):  # both engines
        original = threshold_events.MAX_SUMMED_OUTPUTS
        threshold_events.MAX_SUMMED_OUTPUTS = maximum
        try:
            p = event_probability(mech, queries, f"{component}={target}", dps=12,
                                  method="certified")
        finally:
            threshold_events.MAX_SUMMED_OUTPUTS = original
        if high == 0:
            assert p.is_zero
            continue
        assert_certified(p, 12)
        assert exact(p.lower) <= high and low <= exact(p.upper), (name, queries, p, low, high)


def laplace_cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def laplace_pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def elementary_symmetric(values, k):
    """The coefficient of ``x^k`` in ``Π_i (1 − f_i + x f_i)``, ``f_i = values[i]``: the
    probability of exactly k ⊥'s among independent answers, ⊥ with probability ``f_i``."""
    coefficients = [mpmath.mpf(1)]
    for f in values:
        coefficients = [(coefficients[j] if j < len(coefficients) else 0) * (1 - f)
                        + (coefficients[j - 1] * f if j >= 1 else 0)
                        for j in range(len(coefficients) + 1)]
    return coefficients[k]


@pytest.mark.parametrize("queries, k", [([0, 1, 2, 0, 1], 2), ([3, -1, 0, 0, 2, 1], 5),
                                        ([0] * 7, 0)])
def test_svt6_false_count_matches_quadrature_of_the_conditional_law(queries, k, engine):
    # svt6 (Lyu et al. Alg. 6): ρ ~ Lap(2), ν_i ~ Lap(2), T = 0, no cutoff; given ρ = z the
    # answers are independent, ⊥ with F(z − q_i): Pr[#⊥ = k] = ∫ p(z) e_k(F(z − q_i)) dz
    mech = exactdp.mechanism("svt6", eps=1)
    p = event_probability(mech, queries, f"false_count={k}", dps=25, method="certified")
    assert_certified(p, 25)
    assert ("summed" in p.method) == (engine == "summed outputs")
    with mpmath.workdps(60):
        def integrand(z):
            return laplace_pdf(z, 2) * elementary_symmetric(
                [laplace_cdf(z - q, 2) for q in queries], k)
        kinks = sorted({mpmath.mpf(0), *(mpmath.mpf(q) for q in queries)})
        reference = mpmath.quad(integrand, [-mpmath.inf, *kinks, mpmath.inf])
        assert_contains(p, reference)


def test_redrawn_threshold_encloses_the_sum_of_output_enclosures():
    mech = exactdp.mechanism("svt2", eps=1, c=2)
    queries = [1, 0, 2, 1]
    p = event_probability(mech, queries, "false_count=1", dps=20, method="certified")
    assert_certified(p, 20)
    low, high = summed_output_enclosures(mech, queries, lambda out: out.count(False), 1, 22)
    assert exact(p.lower) <= high and low <= exact(p.upper)


def test_isvt4_released_value_matches_integrated_output_densities():
    # N = 1: Pr[#⊥ = 1 and last ∈ (0.5, 2)] = ∫_{0.5}^{2} density of the output (⊥, v) dv,
    # the densities certified by exactdp.probability, integrated by mpmath.quad at 30 digits
    mech = exactdp.mechanism("statdp.iSVT4", eps=0.7, N=1, T=1)
    queries = [1, 0, 2, 1]
    p = event_probability(mech, queries, "false_count=1 & last in (0.5, 2)", dps=20,
                          method="certified")
    assert_certified(p, 20)
    with mpmath.workdps(30):
        reference = mpmath.quad(
            lambda v: exactdp.probability(mech, queries, ["F", v], dps=28).value, [0.5, 1, 2])
        assert abs(reference - p.value) <= mpmath.mpf(10) ** -20 * reference


@pytest.mark.parametrize("name, scale, cdf", [
    ("noisy_max_laplace_value", 2, laplace_cdf),
    ("noisy_max_exponential_value", 2, lambda x, b: 1 - mpmath.exp(-x / b) if x > 0 else 0),
])
@pytest.mark.parametrize("low, high", [(2.5, 4), (None, 3), (3, None), (-1, 2.5)])
def test_noisy_max_value_matches_closed_form(name, scale, cdf, low, high):
    # Pr[a < max_j (q_j + η_j) < b] = Π_j F(b − q_j) − Π_j F(a − q_j)
    queries = [0, 1, 2]
    mech = exactdp.mechanism(name, eps=1)
    event = " and ".join(([f"value > {low}"] if low is not None else [])
                         + ([f"value < {high}"] if high is not None else []))
    p = event_probability(mech, queries, event, dps=30, method="certified")
    with mpmath.workdps(60):
        def product(end):
            if end is None:
                return mpmath.mpf(0)
            return mpmath.fprod(cdf(mpmath.mpf(end) - q, scale) for q in queries)
        reference = (1 if high is None else product(high)) - product(low)
    if reference == 0:
        assert p.is_zero
        return
    assert_certified(p, 30)
    assert_contains(p, reference)


def test_histogram_bins_match_closed_form():
    # bins independent: Π_i (F(b_i − q_i) − F(a_i − q_i)), Laplace(1) (ε = 1, Δ = 1)
    queries = [0, 1, 2]
    mech = exactdp.mechanism("histogram", eps=1)
    p = event_probability(mech, queries, "out0 in (0.5, 2) and out2 > 40", dps=30,
                          method="certified")
    assert_certified(p, 30)
    with mpmath.workdps(60):
        reference = (laplace_cdf(mpmath.mpf(2), 1) - laplace_cdf(mpmath.mpf(0.5), 1)) \
            * (1 - laplace_cdf(mpmath.mpf(38), 1))
    assert_contains(p, reference)


def test_event_privacy_loss_is_an_enclosure():
    # statdp.SVT, ε = 1, N = 1: ρ ~ Lap(2), ν ~ Lap(4), T = 0; "false_count=0" is "the first
    # answer is ⊤": Pr = ∫ p_ρ(z) (1 − F_ν(z − q_0)) dz (60-digit quadrature), q_0 = 1 vs 2
    mech = exactdp.mechanism("statdp.SVT", eps=1, N=1)
    loss = event_privacy_loss(mech, [1, 1, 1, 1, 1], [2, 0, 2, 2, 2], "false_count=0",
                              dps=20, allow_any_pair=True, method="certified")
    assert isinstance(loss, CertifiedPrivacyLoss)
    assert loss.log_ratio_lower <= loss.log_ratio <= loss.log_ratio_upper
    with mpmath.workdps(60):
        def first_top(q):
            return mpmath.quad(lambda z: laplace_pdf(z, 2) * (1 - laplace_cdf(z - q, 4)),
                               [-mpmath.inf, 0, q, mpmath.inf])
        reference = mpmath.log(first_top(1)) - mpmath.log(first_top(2))
        assert exact(loss.log_ratio_lower) <= exact(reference) <= exact(loss.log_ratio_upper)


def test_noisy_sums_are_certified():
    # partial_sum, ε = 1: out0 = q0 + q1 + Lap(1) = 3 + Lap(1), so
    # Pr[out0 ∈ (0, 1)] = F(−2) − F(−3) = (e^{−2} − e^{−3}) / 2 (Laplace CDF, docs/mathematics.md)
    mech = exactdp.mechanism("partial_sum")
    p = event_probability(mech, [1, 2], "out0 in (0, 1)", dps=30)
    assert isinstance(p, CertifiedProbability)
    with mpmath.workdps(60):
        reference = (mpmath.exp(-2) - mpmath.exp(-3)) / 2
    assert exact(p.lower) <= exact(reference) <= exact(p.upper)
    assert p.upper - p.lower <= 1e-30 * reference


def test_estimate_is_todays_estimate():
    mech = exactdp.mechanism("noisy_max_gumbel")
    p = event_probability(mech, [0, 1, 2], "index=1", dps=15, method="estimate")
    assert not isinstance(p, CertifiedProbability)
