"""Gaussian noise: the law's functions, the Gaussian Sparse Vector and report noisy max, traced
programs drawing ``prng.normal``.

References are independent of the engine: mpmath's ``ncdf``/``npdf`` (its own normal
distribution functions) and ``mpmath.quad`` at 60 digits of the integrals written out here.
"""

from fractions import Fraction

import mpmath
import pytest
from flint import acb, arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.programs import load_program
from exactdp.cli import main
from exactdp.exact.probability import probability
from exactdp.noise import Gaussian, Kind
from exactdp.precision import to_arb

PROGRAMS = "tests/programs"


def _mpf(number):
    """An exact rational (or int) as an mpf at the working precision."""
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def _reference_svt(queries, output, sigma1, sigma2, threshold=0):
    """``∫ φ_{σ1}(z) Π_⊥ Φ_{σ2}(T + z − q_i) Π_⊤ (1 − Φ_{σ2}(T + z − q_i)) dz`` at 60 digits
    (⊤ when ``q_i + ν_i ≥ T + ρ``: Zhu & Wang, NeurIPS 2020), split at 0 and ±8σ1."""
    with mpmath.workdps(60):
        sigma1, sigma2 = _mpf(sigma1), _mpf(sigma2)

        def integrand(z):
            value = mpmath.npdf(z, 0, sigma1)
            for q, flag in zip(queries, output):
                below = mpmath.ncdf(threshold + z - _mpf(q), 0, sigma2)
                value *= (1 - below) if flag else below
            return value
        s = sigma1
        return mpmath.quad(integrand, [-mpmath.inf, -8 * s, -2 * s, 0, 2 * s, 8 * s, mpmath.inf])


def _contains(result, reference):
    """The certified enclosure ``[lower, upper]`` contains ``reference`` (a 60-digit mpf)."""
    with mpmath.workdps(60):
        return result.lower <= reference <= result.upper


@pytest.mark.parametrize("x", ["-40", "-3.5", "-0.25", "0", "1", "7", "38"])
@pytest.mark.parametrize("sigma", [Fraction(1), Fraction(5, 2)])
def test_the_law_agrees_with_mpmaths_normal_distribution(x, sigma):
    law = Gaussian(sigma)
    with mpmath.workdps(60):
        x = mpmath.mpf(x)
        expected = {Kind.CDF: mpmath.ncdf(x, 0, sigma), Kind.SF: mpmath.ncdf(-x, 0, sigma),
                    Kind.PDF: mpmath.npdf(x, 0, sigma)}
        for kind, value in expected.items():
            assert abs(law.log(kind, x) - mpmath.log(value)) < mpmath.mpf(10) ** -50
        # the derivatives of the logs: p/F, −p/S and −x/σ²
        assert abs(law.dlogcdf(x) - expected[Kind.PDF] / expected[Kind.CDF]) < 1e-50 * (1 + abs(x))
        assert abs(law.dlogsf(x) + expected[Kind.PDF] / expected[Kind.SF]) < 1e-50 * (1 + abs(x))
    with ctx.workprec(200), mpmath.workdps(60):
        for kind, value in expected.items():
            ball = law.ball_log(kind).log(to_arb(Fraction(str(x))))
            assert ball.rad() < 1e-45
            assert abs(mpmath.mpf(ball.mid().str(55, radius=False)) - mpmath.log(value)) < 1e-45


def test_the_ball_functions_continue_to_complex_arguments():
    """``value`` on a complex ball against mpmath's complex ``erfc`` and ``exp``."""
    law = Gaussian(Fraction(2))
    z = mpmath.mpc("0.75", "0.5")
    with mpmath.workdps(50), ctx.workprec(160):
        point = acb("0.75", "0.5")
        expected = {Kind.CDF: mpmath.erfc(-z / (2 * mpmath.sqrt(2))) / 2,
                    Kind.SF: mpmath.erfc(z / (2 * mpmath.sqrt(2))) / 2,
                    Kind.PDF: mpmath.exp(-z ** 2 / 8) / (2 * mpmath.sqrt(2 * mpmath.pi))}
        for kind, value in expected.items():
            ball = law.ball_log(kind).value(point)
            assert abs(complex(ball.mid()) - complex(value)) < 1e-14
            assert ball.rad() < 1e-40


@pytest.mark.parametrize("centre, radius", [((0.5, 1.0), 0.5), ((-2.0, 0.5), 1.0),
                                             ((3.0, 2.0), 1.5), ((5.0, 3.0), 2.0),
                                             ((0.0, 0.0), 0.3)])
def test_the_tails_on_a_wide_complex_ball_bound_every_point_of_it(centre, radius):
    """On a ball of a radius at least 1/8 (``noise._erfc``: a disc from ``erfc(x)·e^{y²}``
    and ``2 + erfc(−x)·e^{y²}``) the CDF and the survival function are at most the ball's
    modulus bound at every point of a 21 × 21 grid of the ball (corners included), by mpmath's
    complex ``erfc`` at 40 digits, and that bound is within 4 times the largest of them."""
    law = Gaussian(Fraction(1))
    ball = acb(arb(centre[0], radius), arb(centre[1], radius))
    with mpmath.workdps(40):
        grid = [mpmath.mpc(centre[0] + radius * (i / 10 - 1), centre[1] + radius * (j / 10 - 1))
                for i in range(21) for j in range(21)]
        for kind, sign in ((Kind.CDF, -1), (Kind.SF, 1)):
            bound = mpmath.mpf(law.ball_log(kind).value(ball).abs_upper().str(30, radius=False))
            largest = max(abs(mpmath.erfc(sign * w / mpmath.sqrt(2))) / 2 for w in grid)
            assert largest <= bound <= 4 * largest


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-12, 12), min_size=1, max_size=4),
       st.integers(0, 15), st.sampled_from([(2, 4), (1, 3), (Fraction(1, 2), 1)]))
def test_gaussian_svt_enclosures_contain_the_60_digit_quadrature(halves, pattern, sigmas):
    queries = [Fraction(h, 4) for h in halves]
    output = [bool(pattern >> i & 1) for i in range(len(queries))]
    if True in output:  # the run stops at the first ⊤ (c = 1)
        output = output[:output.index(True) + 1]
        queries = queries[:len(output)]
    mech = exactdp.mechanism("svt_gaussian", sigma1=sigmas[0], sigma2=sigmas[1], c=1)
    text = ",".join("T" if flag else "F" for flag in output)
    result = probability(mech, queries, text)
    assert result.method.startswith("certified")
    assert _contains(result, _reference_svt(queries, output, *sigmas))
    assert result.upper - result.lower <= result.lower * mpmath.mpf(10) ** -30


def test_gaussian_noisy_max_index_probabilities_sum_to_one_and_match_quadrature():
    queries = [Fraction(1, 2), Fraction(-1), Fraction(2)]
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    results = [probability(mech, queries, str(index)) for index in range(3)]
    with mpmath.workdps(60):
        lower = sum(r.lower for r in results)
        upper = sum(r.upper for r in results)
        assert lower <= 1 <= upper
        # Pr[argmax = j] = ∫ φ_σ(x − q_j) Π_{i≠j} Φ_σ(x − q_i) dx
        for j, result in enumerate(results):
            reference = mpmath.quad(
                lambda x, j=j: mpmath.npdf(x, queries[j], 2) * mpmath.fprod(
                    mpmath.ncdf(x, q, 2) for i, q in enumerate(queries) if i != j),
                [-mpmath.inf, -10, 0, 2, 10, mpmath.inf])
            assert _contains(result, reference)


def test_a_traced_program_drawing_prng_normal_is_the_catalogue_gaussian_svt():
    program = load_program(f"{PROGRAMS}/gaussian.py:gaussian_svt")
    catalogue = exactdp.mechanism("svt_gaussian", sigma1=2, sigma2=4, c=1)
    queries, output = [Fraction(1, 2), Fraction(-1), Fraction(2)], "F,F,T"
    traced = probability(program, queries, output)
    declared = probability(catalogue, queries, output)
    with mpmath.workdps(60):
        assert traced.lower <= declared.upper and declared.lower <= traced.upper
        assert _contains(traced, _reference_svt(queries, [False, False, True], 2, 4))


def test_a_negated_gaussian_draw_keeps_its_law():
    """``−η`` for a symmetric law is the same law: ``T − prng.normal()`` is traced."""
    program = load_program(f"{PROGRAMS}/gaussian.py:negated_threshold")
    result = probability(program, [Fraction(1)], "T")
    with mpmath.workdps(60):  # q + ν − ρ ≥ 0 with ν − ρ ~ N(0, 1 + 4): Pr = Φ(1/√5)
        assert _contains(result, mpmath.ncdf(1, 0, mpmath.sqrt(5)))


@pytest.mark.parametrize("param", ["sigma1=0", "sigma2=-1"])
def test_a_non_positive_standard_deviation_is_one_line(capsys, param):
    argv = ["prob", "svt_gaussian", "--queries", "0,1", "--output", "F,T", "--param", param]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be positive" in err and param in err
