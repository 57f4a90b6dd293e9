"""The noisy-sum family (CheckDP appendix D.3–D.4): declarations, exact densities, losses, sampler.

Reference densities are written out by hand from CheckDP's pseudo-code (``examples/*.c`` of
cmla-psu/checkdp): each noise variable is solved for from the output and the Laplace density
``ε/2·e^{−ε|x|}`` is applied to it.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

import exactdp
from exactdp.errors import InputError


def lap(x, b):
    """Laplace density e^{−|x|/b}/(2b) written out, independent of exactdp.noise, at 60 digits."""
    with mpmath.workdps(60):
        return mpmath.exp(-abs(mpmath.mpf(x)) / b) / (2 * b)


def test_catalogue_entries_and_claims():
    claims = {"partial_sum": 1, "bad_partial_sum": 1, "smart_sum": 2, "bad_smart_sum": 2}
    for name, claimed in claims.items():
        mech = exactdp.mechanism(name, eps=Fraction(1, 2))
        assert mech.claimed_eps == Fraction(claimed, 2)
    assert exactdp.mechanism("partial_sum", eps=2).noise_scale == Fraction(1, 2)
    assert exactdp.mechanism("bad_partial_sum", eps=2).noise_scale == Fraction(1, 4)
    assert exactdp.mechanism("bad_smart_sum").block_end_scale == 0
    assert exactdp.mechanism("smart_sum", eps=4).block_end_scale == Fraction(1, 4)


def test_smart_sum_terms_follow_checkdp_figure_17():
    # M = 3, T = 4 on 7 queries: positions 0..4; block ends at i = 2 (sum q0..q2) only.
    terms = exactdp.mechanism("smart_sum", M=3, T=4).terms(7)
    assert [(t.carry, t.first, t.last) for t in terms] == [
        (False, 0, 1), (True, 1, 2), (False, 0, 3), (True, 3, 4), (True, 4, 5)]


@pytest.mark.parametrize("bad_value, message", [
    ("T=-1", "T must be a non-negative integer, got T=-1"),
    ("T=1.5", "T must be a non-negative integer, got T=1.5"),
    ("M=0", "M must be a positive integer"),
])
def test_parameter_errors_name_the_value(bad_value, message):
    key, value = bad_value.split("=")
    with pytest.raises(InputError, match=message):
        exactdp.mechanism("smart_sum", **{key: value})


def test_partial_sum_density_by_hand():
    # Σq = 3, output 4.5: (ε/2)·e^{−ε·1.5} with ε = 1 (PartialSum) and 2ε (BadPartialSum).
    p = exactdp.probability(exactdp.mechanism("partial_sum"), [1, 2], "4.5")
    assert p.is_density and p.method == "certified closed"
    assert abs(p.value - lap(1.5, 1)) < mpmath.mpf(10) ** -30
    bad = exactdp.probability(exactdp.mechanism("bad_partial_sum"), [1, 2], "4.5")
    assert abs(bad.value - lap(1.5, 0.5)) < mpmath.mpf(10) ** -30


def test_smart_sum_density_by_hand():
    # M = 2, q = (1, 2, 3), o = (0.5, 4, 6): η_0 = 0.5 − 1, η_1 = 4 − (1 + 2), η_2 = 6 − 4 − 3.
    p = exactdp.probability(exactdp.mechanism("smart_sum", M=2), [1, 2, 3], "0.5,4,6", dps=40)
    with mpmath.workdps(60):
        expected = lap(-0.5, 1) * lap(1, 1) * lap(-1, 1)
        assert abs(p.value - expected) < expected * mpmath.mpf(10) ** -40
        assert p.error < expected * mpmath.mpf(10) ** -40


def test_smart_sum_density_integrates_to_one():
    # ∫∫ f(o0, o1) do1 do0 = 1 by nested scipy quadrature (an independent check of the Jacobian),
    # split at the kinks o0 = q0 and o1 = o0 + q1; the mass outside ±40 is below 1e-15.
    mech = exactdp.mechanism("smart_sum", M=3)

    def inner(o0):
        def density(o1):
            return float(exactdp.probability(mech, [1, 2], [o0, o1], dps=15).value)
        return integrate.quad(density, o0 - 40, o0 + 40, points=[o0 + 2], epsabs=1e-13)[0]

    total = integrate.quad(inner, -40, 40, points=[1], epsabs=1e-12)[0]
    assert abs(total - 1) < 1e-9


def test_bad_smart_sum_has_exact_zeros_and_infinite_loss():
    mech = exactdp.mechanism("bad_smart_sum", M=2)
    hit = exactdp.probability(mech, [0, 0, 0], "0.25,0,1")
    with mpmath.workdps(60):
        assert abs(hit.value - lap(0.25, 1) * lap(1, 1)) < mpmath.mpf(10) ** -30 and hit.is_density
    miss = exactdp.probability(mech, [0, 0, 0], "0.25,1e-300,1")
    assert miss.is_zero and miss.method == "exact zero"
    # CheckDP's violation: the block end releases q0 + q1 exactly (Wang, Ding, Kifer & Zhang, CCS
    # 2020 (arXiv:2008.07485), BadSmartSum).
    loss = exactdp.privacy_loss(mech, [0, 0, 0], [1, 0, 0], "0,0,0")
    assert loss.log_ratio == mpmath.inf and loss.p2.value == 0


def test_fully_deterministic_output_is_a_probability():
    mech = exactdp.mechanism("bad_smart_sum", M=1)
    p = exactdp.probability(mech, [2, 3], "2,3")
    assert (p.value, p.is_density) == (1, False)


@pytest.mark.parametrize("name, params, d2, expected", [
    # CheckDP's counterexample [0,0,0,0,0] vs [0,0,0,0,1]: ln ratio 2ε at the output 0.
    ("bad_partial_sum", {}, [0, 0, 0, 0, 1], 2),
    ("partial_sum", {}, [0, 0, 0, 0, 1], 1),
    # q1 enters its own term and the block end: 2ε, the claim of check(2ε).
    ("smart_sum", {"M": 2}, [0, 1, 0, 0, 0], 1),
    ("smart_sum", {"M": 2}, [1, 0, 0, 0, 0], 2),
    # beyond the horizon T the query is never read
    ("smart_sum", {"M": 2, "T": 2}, [0, 0, 0, 0, 1], 0),
])
def test_worst_point_losses(name, params, d2, expected):
    mech = exactdp.mechanism(name, eps=Fraction(1, 2), **params)
    d1 = [0, 0, 0, 0, 0]
    output = exactdp.exact.form.sums.noiseless_output(mech, d1)
    loss = exactdp.privacy_loss(mech, d1, d2, output)
    assert abs(loss.log_ratio - mpmath.mpf(expected) / 2) < 1e-25


@pytest.mark.parametrize("output, message", [
    ("1,2", "releases 1 number"),
    ("T", "releases 1 number"),
])
def test_outputs_of_the_wrong_shape_are_input_errors(output, message):
    with pytest.raises(InputError, match=message):
        exactdp.probability(exactdp.mechanism("partial_sum"), [1, 2], output)


def test_sampler_partial_sum_matches_laplace_cdf():
    # Pr[o ≤ 3.5] for Σq = 3, b = 1: scipy's Laplace CDF; 5σ binomial bound.
    runs = 200_000
    samples = exactdp.sample(exactdp.mechanism("partial_sum"), [1, 2], runs,
                             np.random.default_rng(2024))
    expected = stats.laplace.cdf(0.5)
    observed = np.count_nonzero(samples.values[:, 0] <= 3.5)
    assert abs(observed - runs * expected) < 5 * np.sqrt(runs * expected * (1 - expected))


def test_sampler_smart_sum_residuals_are_the_declared_noise():
    # The residuals r_j = o_j − carry·o_{j−1} − s_j of sampled outputs are i.i.d. Lap(b_j):
    # exactly 0 at BadSmartSum's block ends, Lap(1) elsewhere (Kolmogorov–Smirnov, seeded).
    mech = exactdp.mechanism("bad_smart_sum", M=3)
    q = [1, 2, 3, 4, 5]
    values = exactdp.sample(mech, q, 20_000, np.random.default_rng(7)).values
    previous = np.concatenate([np.zeros((values.shape[0], 1)), values[:, :-1]], axis=1)
    carry = np.array([t.carry for t in mech.terms(len(q))])
    sums = np.array([sum(q[t.first:t.last]) for t in mech.terms(len(q))])
    residuals = values - carry * previous - sums
    assert np.all(residuals[:, 2] == 0)
    for j in (0, 1, 3, 4):
        assert stats.kstest(residuals[:, j], stats.laplace.cdf).pvalue > 1e-4
