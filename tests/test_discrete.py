"""Discrete Laplace noise: the law, the Sparse Vector on integers (a sum over the integer hub),
traced programs drawing ``discrete_laplace``, the samplers and the refusals.

References are independent of the engine: the mass ``(1 − p)/(1 + p)·p^{|k|}``, ``p = e^{−1/b}``
(Inusah & Kozubowski 2006; Canonne, Kamath & Steinke, NeurIPS 2020, §2) summed term by term in
mpmath at 60 digits over a truncated range, with the mass left out bounded explicitly.
"""

import itertools
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
from exactdp import InputError, MethodUnavailableError, discrete_laplace
from exactdp.exact.form.integral_form import IntegralBuilder
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.noise import DiscreteLaplace, Kind
from exactdp.precision import exact_mpf
from exactdp.programs.locations import TracingError

from .conftest import assert_encloses

REFERENCE_DPS = 60
SCALES = (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(3))


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


class BruteForce:
    """``DLap(b)`` by its mass summed over ``|k| ≤ J``, with ``J`` so large that the mass left
    out, ``Pr[|η| > J] = 2p^{J+1}/(1 + p) ≤ 2p^{J+1}``, is below ``10^{−55}``."""

    def __init__(self, scale):
        self.p = mpmath.exp(-1 / _mpf(scale))
        self.reach = int(mpmath.ceil(56 * mpmath.log(10) * _mpf(scale))) + 1
        self.dropped = 2 * self.p ** (self.reach + 1)
        mass = [(1 - self.p) / (1 + self.p) * self.p ** abs(k)
                for k in range(-self.reach, self.reach + 1)]
        # at_least[i] = Σ_{j ≥ i − reach} mass (within the range), summed from the right
        self.at_least = list(itertools.accumulate(reversed(mass)))[::-1] + [mpmath.mpf(0)]
        self.mass = mass

    def pmf(self, k: int):
        return self.mass[k + self.reach] if abs(k) <= self.reach else mpmath.mpf(0)

    def sf(self, k: int):
        """``Pr[η ≥ k]`` (within ``dropped``)."""
        index = min(max(k + self.reach, 0), 2 * self.reach + 1)
        return self.at_least[index]


def reference_svt(mech, queries, output, brute_force=BruteForce):
    """``Σ_ρ Pr[ρ] Π_⊥ Pr[ν < T + ρ − q] Π_⊤ Pr[ν ≥ T + ρ − q]`` over ``|ρ| ≤ J_ρ``, and a bound
    on its error: the dropped threshold mass plus, per factor, the dropped query mass.
    ``brute_force(scale)`` gives the law's ``pmf``, ``sf``, ``reach`` and ``dropped`` (the
    discrete Laplace law here, the discrete Gaussian in ``test_discrete_gaussian.py``)."""
    with mpmath.workdps(REFERENCE_DPS):
        rho, nu = brute_force(mech.threshold_scale), brute_force(mech.query_scale)
        total = mpmath.mpf(0)
        for z in range(-rho.reach, rho.reach + 1):
            term = rho.pmf(z)
            for q, top in zip(queries, output):
                x = int(mech.threshold) + z - q
                term *= nu.sf(x) if top else 1 - nu.sf(x)
            total += term
        return total, rho.dropped + len(output) * nu.dropped


# --- the law ----------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(scale=st.sampled_from(SCALES), a=st.integers(-6, 6), width=st.integers(0, 6),
       x=st.fractions(-7, 7, max_denominator=4))
def test_law_functions_agree_with_sums_of_the_mass(scale, a, width, x):
    law, b = DiscreteLaplace(scale), a + width
    with mpmath.workdps(REFERENCE_DPS):
        brute = BruteForce(scale)
        tolerance = brute.dropped + mpmath.mpf(10) ** -50
        interval = mpmath.fsum(brute.pmf(k) for k in range(a, b + 1))
        assert abs(law.closed_interval(a, b) - interval) < tolerance
        # open ends: the integers strictly between a − ½ and b + 1 are a..b
        assert abs(law.interval(_mpf(a) - 0.5, _mpf(b) + 1) - interval) < tolerance
        ceil = -((-x.numerator) // x.denominator)
        at_least = brute.sf(ceil)                       # Pr[η ≥ x] = Pr[η ≥ ⌈x⌉]
        assert abs(mpmath.exp(law.logsf(_mpf(x))) - at_least) < tolerance
        assert abs(mpmath.exp(law.logcdf(_mpf(x))) - (1 - at_least)) < tolerance
        pmf = brute.pmf(int(x)) if x.denominator == 1 else mpmath.mpf(0)
        assert abs(mpmath.exp(law.logpdf(_mpf(x))) - pmf) < tolerance
        expected = ((Kind.SF, at_least), (Kind.CDF, 1 - at_least), (Kind.PDF, pmf))
    with ctx.workprec(200):
        for kind, value in expected:
            ball = law.log_ball_at(kind, x)
            if value == 0:
                assert ball is None  # the mass off the integers is an exact zero
                continue
            lower, upper = (exact_mpf(e) for e in (ball.exp().lower(), ball.exp().upper()))
            with mpmath.workdps(REFERENCE_DPS):
                assert lower - tolerance <= value <= upper + tolerance


def test_the_whole_line_has_mass_one():
    with mpmath.workdps(40):
        law = DiscreteLaplace(Fraction(2))
        assert law.closed_interval(-mpmath.inf, mpmath.inf) == 1
        assert law.closed_interval(3, 2) == 0


# --- the Sparse Vector on integers -------------------------------------------------------------

#: The Sparse Vector's cutoff, threshold, integer queries and output drawn for the brute-force
#: comparisons (with each law's scales; also ``test_discrete_gaussian.py``).
SVT_CASES = dict(c=st.integers(1, 2), threshold=st.integers(-2, 2),
                 queries=st.lists(st.integers(-3, 3), min_size=1, max_size=3), data=st.data())


@settings(max_examples=15, deadline=None)
@given(b_rho=st.sampled_from(SCALES), b_nu=st.sampled_from(SCALES), **SVT_CASES)
def test_svt_discrete_agrees_with_the_brute_force_sum(b_rho, b_nu, c, threshold, queries, data):
    mech = exactdp.mechanism("svt_discrete", threshold_scale=b_rho, query_scale=b_nu, c=c,
                             T=threshold)
    check_against_brute_force(mech, queries, data, BruteForce)


def check_against_brute_force(mech, queries, data, brute_force):
    """An output drawn from ``data``: its certified probability at 30 digits encloses the
    brute-force sum of :func:`reference_svt` (within its error), 29 digits wide."""
    output = data.draw(st.sampled_from(list(possible_outputs(mech, len(queries)))))
    result = exactdp.probability(mech, queries, output, dps=30)
    reference, error = reference_svt(mech, queries, output, brute_force)
    assert result.method == "certified discrete sum"
    with mpmath.workdps(REFERENCE_DPS):
        assert_encloses(result, reference, 29, slack=error)


@settings(max_examples=8, deadline=None)
@given(b_rho=st.sampled_from(SCALES), b_nu=st.sampled_from(SCALES), c=st.integers(1, 3),
       threshold=st.integers(-2, 2), queries=st.lists(st.integers(-4, 4), min_size=1, max_size=4))
def test_every_output_together_has_probability_one(b_rho, b_nu, c, threshold, queries):
    mech = exactdp.mechanism("svt_discrete", threshold_scale=b_rho, query_scale=b_nu, c=c,
                             T=threshold)
    results = [exactdp.probability(mech, queries, output, dps=25)
               for output in possible_outputs(mech, len(queries))]
    with mpmath.workdps(50):
        assert mpmath.fsum(r.lower for r in results) <= 1 <= mpmath.fsum(r.upper for r in results)


def test_far_queries_reach_the_geometric_tails():
    # the mass sits 40 scales away from the threshold: the sum runs through the right tail
    mech = exactdp.mechanism("svt_discrete", threshold_scale=1, query_scale=1, c=1, T=0)
    queries = [-40, -40, 40]
    result = exactdp.probability(mech, queries, "F,F,T", dps=30)
    reference, error = reference_svt(mech, queries, [False, False, True])
    with mpmath.workdps(REFERENCE_DPS):
        assert result.lower - error <= reference <= result.upper + error


def test_an_integer_hub_without_integers_between_its_bounds_is_empty():
    builder = IntegralBuilder(DiscreteLaplace(Fraction(1)))
    builder.bound_below(Fraction(1, 3))
    builder.bound_above(Fraction(1))
    assert builder.build().is_empty
    builder = IntegralBuilder(DiscreteLaplace(Fraction(1)))
    builder.bound_below(Fraction(1, 3))
    builder.bound_above(Fraction(5, 4))
    assert not builder.build().is_empty  # k = 1
    builder = IntegralBuilder(DiscreteLaplace(Fraction(1)))
    builder.add(DiscreteLaplace(Fraction(2)), Kind.PDF, Fraction(1, 2))
    assert builder.build().is_empty  # a mass at k − ½ is zero at every integer k


def test_the_estimate_methods_refuse_discrete_noise():
    mech = exactdp.mechanism("svt_discrete")
    for method in ("estimate", "closed", "quad"):
        with pytest.raises(MethodUnavailableError, match="discrete noise is summed"):
            exactdp.probability(mech, [0, 1], "F,T", method=method)


# --- programs ---------------------------------------------------------------------------------

def svt_program(prng, queries, threshold_scale, query_scale, c, T):
    rho = discrete_laplace(prng, scale=threshold_scale)
    out, count = [], 0
    for q in queries:
        if q + discrete_laplace(prng, scale=query_scale) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt_program_strict(prng, queries, threshold_scale, query_scale, c, T):
    """The same mechanism written with ``>``: ``q + ν ≥ T + ρ`` is ``q + ν > T + ρ − 1`` on
    the integers."""
    rho = discrete_laplace(prng, scale=threshold_scale)
    nus = discrete_laplace(prng, scale=query_scale, size=len(queries))
    out, count = [], 0
    for q, nu in zip(queries, nus):
        above = T + rho - 1 < q + nu
        out.append(bool(above))
        count += bool(above)
        if count >= c:
            break
    return out


@pytest.mark.parametrize("function", [svt_program, svt_program_strict])
def test_a_traced_program_agrees_with_svt_discrete(function):
    check_program_agrees(function, "svt_discrete",
                         dict(threshold_scale=Fraction(3, 2), query_scale=3, c=2, T=1))


def check_program_agrees(function, name: str, params: dict):
    """``function`` traced and the catalogue's ``name`` with the same ``params`` give
    overlapping enclosures on every output of the queries 0, 2, 1."""
    traced = exactdp.program(function, **params)
    mech = exactdp.mechanism(name, **params)
    queries = [0, 2, 1]
    for output in possible_outputs(mech, len(queries)):
        a = exactdp.probability(traced, queries, output, dps=25)
        b = exactdp.probability(mech, queries, output, dps=25)
        assert a.lower <= b.upper and b.lower <= a.upper, (output, a.value, b.value)


def equality(prng, queries):
    return discrete_laplace(prng, scale=1) == queries[0]


def half_coefficient(prng, queries):
    return discrete_laplace(prng, scale=1) + discrete_laplace(prng, scale=1) / 2 > queries[0]


@pytest.mark.parametrize("function,message", [
    (equality, r"cannot trace == or != of a discrete noise"),
    (half_coefficient, r"cannot trace a comparison of discrete noises with coefficients"),
])
def test_untraceable_uses_of_discrete_noise_are_refused(function, message):
    with pytest.raises(TracingError, match=message):
        exactdp.probability(exactdp.program(function), [0], [True])


def test_a_program_run_draws_plain_integers():
    rng = np.random.default_rng(3)
    assert isinstance(discrete_laplace(rng, scale=2), int)
    draws = discrete_laplace(rng, scale=2, size=5)
    assert draws.dtype.kind == "i" and draws.shape == (5,)
    assert discrete_laplace(rng, scale=0) == 0
    with pytest.raises(InputError, match="non-negative number, got -1"):
        discrete_laplace(rng, scale=-1)


# --- samplers ---------------------------------------------------------------------------------

def test_sampler_frequencies_lie_in_binomial_intervals():
    runs, scale = 200_000, Fraction(3, 2)
    draws = DiscreteLaplace(scale).sample(np.random.default_rng(11), runs)
    brute = BruteForce(scale)
    for k in range(-4, 5):
        # two-sided binomial interval with 1e-6 tail mass per value
        low, high = binom.interval(1 - 1e-6, runs, float(brute.pmf(k)))
        assert low <= np.count_nonzero(draws == k) <= high, k


# --- bad inputs -------------------------------------------------------------------------------

def test_bad_inputs_are_one_line_errors():
    with pytest.raises(InputError, match=r"T must be an integer, got T=1/2"):
        exactdp.mechanism("svt_discrete", T=Fraction(1, 2))
    with pytest.raises(InputError,
                       match=r"threshold_scale must be positive, got threshold_scale=0"):
        exactdp.mechanism("svt_discrete", threshold_scale=0)
    with pytest.raises(InputError, match=r"query_scale must be positive, got query_scale=-1"):
        exactdp.mechanism("svt_discrete", query_scale=-1)
    mech = exactdp.mechanism("svt_discrete")
    with pytest.raises(InputError, match=r"svt_discrete takes integer query answers, got 0.5"):
        exactdp.probability(mech, [0, 0.5], "F,F")
    with pytest.raises(InputError, match=r"svt_discrete takes integer query answers, got 0.5"):
        exactdp.sample(mech, [0, 0.5], 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive Fraction scale"):
        DiscreteLaplace(Fraction(0))


def test_the_command_line_names_a_non_integer_query_and_exits_2():
    done = subprocess.run([sys.executable, "-m", "exactdp", "prob", "svt_discrete", "--queries",
                           "0,1/3", "--output", "F,F"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "exactdp: error: svt_discrete takes integer query answers, got 1/3"]


def mixed_noises(prng, queries):
    rho = discrete_laplace(prng, scale=2)
    return [q + prng.laplace(scale=4) >= rho for q in queries]


def test_discrete_and_continuous_noise_in_one_integral_are_refused():
    with pytest.raises(MethodUnavailableError, match="DLap"):
        exactdp.probability(exactdp.program(mixed_noises), [0, 1], "F,T")


COMPARISONS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
               "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}


@pytest.mark.parametrize("operator_name", sorted(COMPARISONS))
@pytest.mark.parametrize("threshold", [Fraction(-2), Fraction(0), Fraction(1), Fraction(3, 2)])
def test_each_comparison_of_a_traced_discrete_noise_keeps_its_strictness(operator_name,
                                                                         threshold):
    compare = COMPARISONS[operator_name]

    def program(prng, queries):
        return compare(discrete_laplace(prng, scale=2) - discrete_laplace(prng, scale=1),
                       queries[0])

    result = exactdp.probability(exactdp.program(program), [threshold], [True], dps=25)
    # independent: Σ over |a|, |b| ≤ J of Pr[η1 = a] Pr[η2 = b] 1[a − b op t]
    with mpmath.workdps(REFERENCE_DPS):
        first, second = BruteForce(2), BruteForce(1)
        reference = mpmath.fsum(first.pmf(a) * second.pmf(b)
                                for a in range(-first.reach, first.reach + 1)
                                for b in range(-second.reach, second.reach + 1)
                                if compare(a - b, threshold))
        error = first.dropped + second.dropped
        assert result.lower - error <= reference <= result.upper + error


def noisy_argmax(prng, queries):
    noisy = np.asarray(queries) + discrete_laplace(prng, scale=1, size=len(queries))
    return int(np.argmax(noisy))


@pytest.mark.parametrize("queries", [[0, 0], [1, 0], [0, 2]])
def test_a_traced_argmax_of_discrete_noise_breaks_ties_by_the_first_index(queries):
    check_traced_argmax(noisy_argmax, BruteForce, queries)


def check_traced_argmax(function, brute_force, queries):
    """The traced ``function`` (the argmax of ``queries`` plus one draw of scale 1 each)
    against the brute-force sum over the masses of ``brute_force(1)`` (``pmf``, ``reach``,
    ``dropped``)."""
    traced = exactdp.program(function)
    with mpmath.workdps(REFERENCE_DPS):
        noise = brute_force(1)
        span = range(-noise.reach, noise.reach + 1)
        # independent: Pr[q0 + a ≥ q1 + b] (numpy's argmax returns the first of equal entries)
        first_wins = mpmath.fsum(noise.pmf(a) * noise.pmf(b) for a in span for b in span
                                 if queries[0] + a >= queries[1] + b)
        references = ((0, first_wins), (1, 1 - first_wins))
    for index, reference in references:
        result = exactdp.probability(traced, queries, [index], dps=25)
        with mpmath.workdps(REFERENCE_DPS):
            assert_encloses(result, reference, 24, slack=2 * noise.dropped)


def test_the_search_scores_discrete_noise_with_the_certified_sum():
    from exactdp.search import search
    mech = exactdp.mechanism("svt_discrete", threshold_scale=1, query_scale=2, c=1)
    result = search(mech, max_length=3, seed=0, max_evaluations=10)
    witness = result.witness
    # the witness's loss is the certified ratio of its two probabilities
    p1, p2 = (exactdp.probability(mech, list(d.expand()), list(witness.output.expand()), dps=20)
              for d in (witness.d1, witness.d2))
    with mpmath.workdps(40):
        assert abs(mpmath.log(p1.value / p2.value) - witness.loss.log_ratio) < mpmath.mpf(10) ** -12
    assert result.verdict == "within claim"  # Alg. 1's proof: ε = 1/b_ρ + 2c/b_ν = 2
