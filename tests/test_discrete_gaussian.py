"""The discrete Gaussian law: its normaliser, CDF and survival function, the Sparse Vector with
discrete Gaussian noise, traced programs drawing ``discrete_gaussian``, the sampler and the
refusals.

References are independent of the engine: ``mpmath.jtheta`` for the normaliser
``Σ_j e^{−j²/(2σ²)} = θ₃(0, e^{−1/(2σ²)})`` (Canonne, Kamath & Steinke, NeurIPS 2020, Def. 1),
and the mass summed term by term in mpmath at 60 digits over ``|k| ≤ J``, the mass left out
bounded by the integral comparison ``Σ_{k>J} e^{−k²/(2σ²)} ≤ ∫_J^∞ e^{−x²/(2σ²)} dx
= σ√(π/2)·erfc(J/(σ√2))`` (the summand decreases on ``x ≥ 0``), a bound the engine does not use.
"""

import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import ctx
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import exactdp
from exactdp import InputError, MethodUnavailableError, PrecisionError, discrete_gaussian
from exactdp.discrete_gaussian_law import DiscreteGaussian, _tails
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.noise import Kind

from .conftest import assert_encloses
from .test_discrete import (SVT_CASES, check_against_brute_force, check_program_agrees,
                            check_traced_argmax)
from .test_discrete import reference_svt as discrete_reference_svt

REFERENCE_DPS = 60
SIGMAS = (Fraction(1, 3), Fraction(1), Fraction(3, 2), Fraction(7, 2))


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


class BruteForce:
    """``N_ℤ(0, σ²)`` by its weights ``e^{−k²/(2σ²)}`` summed over ``|k| ≤ J``, normalised by the
    same truncated sum; ``dropped`` bounds the error of every probability read from it (the mass
    beyond ``J`` on both sides, by the integral comparison of the module docstring, is below
    ``10^{−55}`` of the whole)."""

    def __init__(self, sigma):
        self.sigma = _mpf(sigma)
        # at least 16, beyond the points the tests read (|x| ≤ 12), so that a far tail is a sum
        # of masses, accurate relative to itself
        self.reach = max(16, int(mpmath.ceil(self.sigma * mpmath.sqrt(2 * 57 * mpmath.log(10))))
                         + 1)
        weights = [mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * self.sigma ** 2))
                   for k in range(-self.reach, self.reach + 1)]
        self.total = mpmath.fsum(weights)
        beyond = self.sigma * mpmath.sqrt(mpmath.pi / 2) * mpmath.erfc(
            self.reach / (self.sigma * mpmath.sqrt(2)))
        # each probability read off the truncated, renormalised sum is off by at most the
        # relative mass left out, twice (numerator and normaliser)
        self.dropped = 4 * beyond / self.total
        self.mass = [w / self.total for w in weights]

    def pmf(self, k: int):
        return self.mass[k + self.reach] if abs(k) <= self.reach else mpmath.mpf(0)

    def sf(self, k: int):
        """``Pr[η ≥ k]`` (within ``dropped``)."""
        return mpmath.fsum(self.mass[max(k + self.reach, 0):])


def reference_svt(mech, queries, output):
    """The Sparse Vector's brute-force double sum (``test_discrete.reference_svt``) over the
    discrete Gaussian's masses: each factor a sum of the masses of ``ν``."""
    return discrete_reference_svt(mech, queries, output, BruteForce)


# --- the law ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sigma", [*SIGMAS, Fraction(40), Fraction(1000)])
def test_the_normaliser_is_the_theta_function(sigma):
    """``log Z`` in balls against ``mpmath.jtheta(3, 0, q)`` at 50 digits (mpmath's series at
    ``q`` near 1 loses digits, about 6 at ``σ = 1000``: it is run at 90)."""
    with mpmath.workdps(90):
        reference = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * _mpf(sigma) ** 2)))
    with ctx.workprec(200):  # the ball's ends are read at its precision
        ball = _tails(sigma, 200).log_normaliser.exp()
        assert_encloses(ball, reference, 50, slack=mpmath.mpf(10) ** -58 * reference)


@settings(max_examples=30, deadline=None)
@given(sigma=st.sampled_from(SIGMAS), x=st.fractions(-12, 12, max_denominator=4))
def test_cdf_and_survival_function_agree_with_sums_of_the_mass(sigma, x):
    law = DiscreteGaussian(sigma)
    ceil = -((-x.numerator) // x.denominator)
    with mpmath.workdps(REFERENCE_DPS):
        brute = BruteForce(sigma)
        at_least = brute.sf(ceil)  # Pr[η ≥ x] = Pr[η ≥ ⌈x⌉]
        below = brute.sf(1 - ceil)  # Pr[η < x] = Pr[η ≥ 1 − ⌈x⌉] (symmetry; no cancellation)
        pmf = brute.pmf(int(x)) if x.denominator == 1 else None
        expected = ((Kind.SF, at_least), (Kind.CDF, below), (Kind.PDF, pmf))
        tolerance = brute.dropped + mpmath.mpf(10) ** -50
        assert abs(mpmath.exp(law.logsf(_mpf(x))) - at_least) < tolerance
        assert abs(mpmath.exp(law.logcdf(_mpf(x))) - below) < tolerance
        assert mpmath.fsum([at_least, below]) - 1 < tolerance
    with ctx.workprec(200):
        for kind, value in expected:
            ball = law.log_ball_at(kind, x)
            if value is None:
                assert ball is None  # the mass off the integers is an exact zero
                continue
            assert_encloses(ball.exp(), value, 50, slack=tolerance)


def test_far_tails_are_enclosed_with_relative_accuracy():
    """``Pr[η ≥ 30]`` for ``σ = 1``: about ``e^{−450}``, far below the absolute tolerance of the
    test above; the reference is ``Σ_{30 ≤ k ≤ 80}`` (the rest is below ``e^{−3200}``)."""
    law = DiscreteGaussian(Fraction(1))
    with mpmath.workdps(REFERENCE_DPS):
        q = mpmath.exp(-mpmath.mpf(1) / 2)
        reference = mpmath.fsum(mpmath.exp(-mpmath.mpf(k) ** 2 / 2)
                                for k in range(30, 81)) / mpmath.jtheta(3, 0, q)
    with ctx.workprec(200):
        ball = law.log_ball_integer(Kind.SF, 30).exp()
        assert_encloses(ball, reference, 50, slack=mpmath.mpf(10) ** -58 * reference)


def test_a_tail_sum_beyond_its_term_limit_is_refused(monkeypatch):
    """``T(0)`` of ``σ = 1000`` needs about 13,000 terms at 100 bits; with the limit at 1000 the
    law refuses instead of summing on."""
    import exactdp.discrete_gaussian_law as module
    monkeypatch.setattr(module, "MAX_TERMS", 1000)
    with ctx.workprec(100), pytest.raises(PrecisionError, match="more than 1000 terms"):
        module._Tails(Fraction(1000), 100).log_tail(1)


def test_interval_probabilities_sum_the_mass_strictly_inside():
    law = DiscreteGaussian(Fraction(3, 2))
    with mpmath.workdps(40):
        brute = BruteForce(Fraction(3, 2))
        expected = mpmath.fsum(brute.pmf(k) for k in range(-1, 3))  # integers in (−1.5, 3)
        assert abs(law.interval(mpmath.mpf(-1.5), mpmath.mpf(3)) - expected) < 1e-35
        assert abs(law.interval(-mpmath.inf, mpmath.inf) - 1) < 1e-35
        assert law.interval(mpmath.mpf(2), mpmath.mpf(3)) == 0  # no integer strictly inside


# --- the Sparse Vector on integers -------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(sigma1=st.sampled_from(SIGMAS), sigma2=st.sampled_from(SIGMAS), **SVT_CASES)
def test_svt_agrees_with_the_brute_force_double_sum(sigma1, sigma2, c, threshold, queries, data):
    mech = exactdp.mechanism("svt_discrete_gaussian", sigma1=sigma1, sigma2=sigma2, c=c,
                             T=threshold)
    check_against_brute_force(mech, queries, data, BruteForce)


def test_far_queries_reach_the_tails():
    """The mass sits 12 standard deviations from the threshold: the sum runs into the right
    tail, bounded by the ratio of consecutive terms (log-concavity)."""
    mech = exactdp.mechanism("svt_discrete_gaussian", sigma1=1, sigma2=1, c=1, T=0)
    queries = [-12, -12, 12]
    result = exactdp.probability(mech, queries, "F,F,T", dps=30)
    reference, error = reference_svt(mech, queries, [False, False, True])
    with mpmath.workdps(REFERENCE_DPS):
        assert_encloses(result, reference, 29, slack=error)


def test_every_output_together_has_probability_one():
    mech = exactdp.mechanism("svt_discrete_gaussian", sigma1=Fraction(3, 2), sigma2=3, c=2, T=1)
    queries = [0, 3, -1, 2]
    results = [exactdp.probability(mech, queries, output, dps=25)
               for output in possible_outputs(mech, len(queries))]
    with mpmath.workdps(50):
        assert mpmath.fsum(r.lower for r in results) <= 1 <= mpmath.fsum(r.upper for r in results)


def test_selection_probabilities_are_the_brute_force_sums():
    """``exactdp utility``'s ``P_i`` (a sum over the integer threshold noise) against the
    double sums of the outputs ⊤ and ⊥⊤ (c = 1, given order): ``P_1 = Pr[⊤]``,
    ``P_2 = Pr[⊥⊤]``."""
    from exactdp.exact.selection import selection_probabilities
    mech = exactdp.mechanism("svt_discrete_gaussian", sigma1=Fraction(3, 2), sigma2=3, c=1, T=1)
    queries = [2, 0]
    balls = selection_probabilities(mech, queries, digits=20)
    for ball, output in zip(balls, ([True], [False, True])):
        reference, error = reference_svt(mech, queries, output)
        with ctx.workprec(200):
            assert_encloses(ball, reference, 18, absolute=True, slack=error)


# --- noisy counts -----------------------------------------------------------------------------

def test_noisy_counts_have_the_product_of_the_masses():
    mech = exactdp.mechanism("count_discrete_gaussian", sigma=Fraction(3, 2))
    result = exactdp.probability(mech, [3, 5], [1, 6], dps=30)
    assert not result.is_density
    with mpmath.workdps(REFERENCE_DPS):
        brute = BruteForce(Fraction(3, 2))
        reference = brute.pmf(-2) * brute.pmf(1)
        assert_encloses(result, reference, 29, slack=2 * brute.dropped * reference)
    assert exactdp.probability(mech, [3, 5], [1, Fraction(11, 2)]).is_zero  # off the integers


@pytest.mark.parametrize("event,integers", [
    ("out0 in [3, 5]", range(3, 6)), ("out0 in (3, 5)", range(4, 5)),
    ("out0 in [3, 5)", range(3, 5)), ("out0 > 4", range(5, 40)), ("out0 >= 4", range(4, 40)),
])
@pytest.mark.parametrize("method", ["certified", "estimate"])
def test_a_count_event_keeps_its_closed_ends(event, integers, method):
    from exactdp.exact.event_probability.rules import event_probability
    mech = exactdp.mechanism("count_discrete_gaussian", sigma=2)
    result = event_probability(mech, [4, 1], event, dps=20, method=method)
    with mpmath.workdps(REFERENCE_DPS):
        brute = BruteForce(2)
        # independent: the masses of the integers v in the event, at η = v − 4 (beyond 40 the
        # mass is below 10^{−80})
        reference = mpmath.fsum(brute.pmf(v - 4) for v in integers)
        assert abs(result.value - reference) <= result.error + brute.dropped


def test_the_worst_output_search_of_noisy_counts_is_refused_in_one_line():
    # their largest loss is +∞, approached far from the second count (test_discrete_shift.py)
    mech = exactdp.mechanism("count_discrete_gaussian")
    with pytest.raises(MethodUnavailableError, match="grows without bound"):
        from exactdp.search import search
        search(mech, max_length=2, seed=0, max_evaluations=5)


# --- programs ---------------------------------------------------------------------------------

def svt_program(prng, queries, sigma1, sigma2, c, T):
    rho = discrete_gaussian(prng, sigma=sigma1)
    nus = discrete_gaussian(prng, sigma=sigma2, size=len(queries))
    out, count = [], 0
    for q, nu in zip(queries, nus):
        above = q + nu >= T + rho
        out.append(bool(above))
        count += bool(above)
        if count >= c:
            break
    return out


def test_a_traced_program_agrees_with_the_catalogue_entry():
    check_program_agrees(svt_program, "svt_discrete_gaussian",
                         dict(sigma1=Fraction(3, 2), sigma2=3, c=2, T=1))


def test_a_program_run_draws_plain_integers():
    rng = np.random.default_rng(3)
    assert isinstance(discrete_gaussian(rng, sigma=2), int)
    draws = discrete_gaussian(rng, sigma=2, size=5)
    assert draws.dtype.kind == "i" and draws.shape == (5,)


@pytest.mark.parametrize("sigma", [0, -1])
def test_a_sigma_that_is_not_positive_is_refused(sigma):
    with pytest.raises(InputError, match=f"discrete Gaussian sigma must be a positive number, "
                                         f"got {sigma}"):
        discrete_gaussian(np.random.default_rng(0), sigma=sigma)

    def program(prng, queries):
        return queries[0] + discrete_gaussian(prng, sigma=sigma) > 0

    with pytest.raises(InputError, match="discrete Gaussian sigma must be a positive number"):
        exactdp.probability(exactdp.program(program), [0], [True])


def noisy_argmax(prng, queries):
    noisy = np.asarray(queries) + discrete_gaussian(prng, sigma=1, size=len(queries))
    return int(np.argmax(noisy))


@pytest.mark.parametrize("queries", [[0, 0], [1, 0], [0, 2]])
def test_a_traced_argmax_of_discrete_gaussian_noise_breaks_ties_by_the_first_index(queries):
    check_traced_argmax(noisy_argmax, BruteForce, queries)


def test_report_noisy_max_refuses_integer_valued_noise():
    from exactdp.mechanisms.noisy_max import NoisyMaxMechanism
    with pytest.raises(InputError, match=r"ties have probability 0, which N_Z\(0, 2²\) noise "
                                         r"does not meet: write it as a program"):
        NoisyMaxMechanism(name="noisy_max_dgauss", noise=DiscreteGaussian(Fraction(2)),
                          releases_value=False)


# --- the sampler ------------------------------------------------------------------------------

@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(3, 2), Fraction(5)])
def test_sampler_frequencies_lie_in_binomial_intervals(sigma):
    runs = 100_000
    draws = DiscreteGaussian(sigma).sample(np.random.default_rng(11), runs)
    assert draws.shape == (runs,)
    with mpmath.workdps(30):
        brute = BruteForce(sigma)
        for k in range(-6, 7):
            p = float(brute.pmf(k))
            # two-sided binomial interval with 1e-6 tail mass per value (seeded: no flakiness)
            low, high = binom.interval(1 - 1e-6, runs, p)
            assert low <= np.count_nonzero(draws == k) <= high, k


def test_the_catalogue_sampler_runs_the_mechanism():
    mech = exactdp.mechanism("svt_discrete_gaussian", sigma1=1, sigma2=2, c=1)
    samples = exactdp.sample(mech, [0, 1, 2], 2000, np.random.default_rng(5))
    assert samples.answers.shape[0] == 2000


# --- bad inputs -------------------------------------------------------------------------------

def test_bad_parameters_are_one_line_errors():
    with pytest.raises(InputError, match=r"sigma1 must be positive, got sigma1=0"):
        exactdp.mechanism("svt_discrete_gaussian", sigma1=0)
    with pytest.raises(InputError, match=r"sigma2 must be positive, got sigma2=-1"):
        exactdp.mechanism("svt_discrete_gaussian", sigma2=-1)
    with pytest.raises(InputError, match=r"takes integer query answers, got 0.5"):
        exactdp.probability(exactdp.mechanism("svt_discrete_gaussian"), [0, 0.5], "F,F")
    with pytest.raises(ValueError, match="positive Fraction scale"):
        DiscreteGaussian(Fraction(0))


@pytest.mark.parametrize("value", ["0", "-2"])
def test_the_command_line_refuses_a_sigma_that_is_not_positive(value):
    done = subprocess.run([sys.executable, "-m", "exactdp", "prob", "svt_discrete_gaussian",
                           "--param", f"sigma1={value}", "--queries", "0,1", "--output", "F,T"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"exactdp: error: sigma1 must be positive, got sigma1={value}"]
