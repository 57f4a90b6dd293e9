"""Rényi divergences D_α(M(d1) ‖ M(d2)) (``exactdp.renyi_divergence`` and ``exactdp renyi``).

References are independent of the code under test: Mironov, "Rényi Differential Privacy", IEEE
CSF 2017, Propositions 6 (Laplace) and 7 (Gaussian) at 60 digits, ``mpmath.quad`` of the
defining integral, and brute-force sums over the outputs of each output's probability from
``exactdp.probability`` (one output at a time, not the shared enumeration).
"""

import json
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.losses.privacy_loss import possible_outputs
from .conftest import assert_encloses


def gaussian_release(prng, queries, sigma=1):
    return queries[0] + prng.normal(scale=sigma)


def laplace_release(prng, queries, b=1):
    return queries[0] + prng.laplace(scale=b)


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def mironov_laplace(alpha, b):
    """Mironov 2017, Proposition 6 (sensitivity 1, scale b):
    D_α = (1/(α−1)) ln[(α/(2α−1)) e^{(α−1)/b} + ((α−1)/(2α−1)) e^{−α/b}]."""
    alpha, b = _mpf(alpha), _mpf(b)
    return mpmath.log(alpha / (2 * alpha - 1) * mpmath.exp((alpha - 1) / b)
                      + (alpha - 1) / (2 * alpha - 1) * mpmath.exp(-alpha / b)) / (alpha - 1)


def brute_force_divergence(mech, d1, d2, outputs, alpha):
    """(1/(α−1)) ln Σ p1^α p2^{1−α} over ``outputs``, each probability from
    ``exactdp.probability`` at 50 digits on its own."""
    alpha = _mpf(alpha)
    total = mpmath.mpf(0)
    for output in outputs:
        p1, p2 = (exactdp.probability(mech, d, output, dps=50).value for d in (d1, d2))
        total += p1 ** alpha * p2 ** (1 - alpha)
    return mpmath.log(total) / (alpha - 1)


@pytest.mark.parametrize("b", ["0.5", "1", "3"])
def test_laplace_release_matches_mironov_proposition_6(b):
    mech = exactdp.program(laplace_release, b=b)
    points = exactdp.renyi_divergence(mech, [1], [0], ["1.01", "1.5", 2, 10, 64, "inf"], dps=30)
    with mpmath.workdps(60):
        for point in points[:-1]:
            assert_encloses(point.divergence, mironov_laplace(point.alpha, b), 30)
            width = point.divergence.upper - point.divergence.lower
            assert width <= mpmath.mpf(10) ** -29 * point.divergence.value
        # α = ∞: the largest log ratio, 1/b
        assert_encloses(points[-1].divergence, 1 / _mpf(b), 30)


@pytest.mark.parametrize("sigma", ["0.5", "1", "2.5"])
def test_gaussian_release_matches_mironov_proposition_7(sigma):
    mech = exactdp.program(gaussian_release, sigma=sigma)
    points = exactdp.renyi_divergence(mech, [0], [1], ["1.5", 2, 7, "inf"], dps=30)
    with mpmath.workdps(60):
        for point in points[:-1]:  # α/(2σ²) at sensitivity 1
            assert_encloses(point.divergence, _mpf(point.alpha) / (2 * _mpf(sigma) ** 2), 30)
    assert points[-1].divergence.value == mpmath.inf


def test_gaussian_release_matches_quadrature_of_the_definition():
    mech = exactdp.program(gaussian_release, sigma="1.5")
    point, = exactdp.renyi_divergence(mech, [2], [0], ["2.5"], dps=20, allow_any_pair=True)
    with mpmath.workdps(40):
        alpha, sigma = mpmath.mpf("2.5"), mpmath.mpf("1.5")
        integral = mpmath.quad(lambda x: mpmath.npdf(x, 2, sigma) ** alpha
                               * mpmath.npdf(x, 0, sigma) ** (1 - alpha), [-mpmath.inf, 0, 2, 4,
                                                                           mpmath.inf])
        assert_encloses(point.divergence, mpmath.log(integral) / (alpha - 1), 20)


@pytest.mark.parametrize("name, params, d1, d2", [
    ("svt1", {"eps": 1}, [0, 0, 1], [1, 1, 0]),
    ("svt1", {"eps": "0.5", "c": 2}, [0, 1, 0], [1, 0, 1]),
    ("svt2", {"eps": 1, "c": 2}, [0, 0, 1], [1, 1, 0]),
])
def test_threshold_mechanisms_match_the_brute_force_sum(name, params, d1, d2):
    mech = exactdp.mechanism(name, **params)
    outputs = [list(output) for output in possible_outputs(mech, len(d1))]
    points = exactdp.renyi_divergence(mech, d1, d2, ["1.5", 2, 5], dps=25)
    with mpmath.workdps(50):
        for point in points:
            assert_encloses(point.divergence,
                            brute_force_divergence(mech, d1, d2, outputs, point.alpha), 25)


def test_infinite_order_is_the_largest_log_ratio_of_max_privacy_loss():
    mech = exactdp.mechanism("svt1", eps=1)
    d1, d2 = [0, 0, 0], [1, 1, 1]
    worst = exactdp.max_privacy_loss(mech, d1, d2).loss
    assert worst.log_ratio > 0  # the direction d1 → d2 holds the largest |loss| here
    point, = exactdp.renyi_divergence(mech, d1, d2, ["inf"])
    assert point.alpha == math.inf
    assert point.divergence.lower <= worst.log_ratio_upper
    assert worst.log_ratio_lower <= point.divergence.upper


def test_noisy_max_index_outputs_match_the_brute_force_sum():
    mech = exactdp.mechanism("noisy_max_laplace", eps=1)
    d1, d2 = [0, 1, 1], [1, 0, 1]
    point, = exactdp.renyi_divergence(mech, d1, d2, [3], dps=25)
    with mpmath.workdps(50):
        assert_encloses(point.divergence,
                        brute_force_divergence(mech, d1, d2, [[0], [1], [2]], 3), 25)


def test_order_near_one_keeps_its_digits():
    # D_α → D_1, the Kullback–Leibler divergence, as α → 1⁺: at α − 1 = 2^{−100} the sum
    # Σ p1^α p2^{1−α} is 1 + (α − 1)D_1 + …, which the probabilities to the digits asked cannot
    # resolve if 1 is subtracted from it; reference: the exponential mechanism's two-outcome
    # distributions (report noisy max with Gumbel(1) noise, softmax of the scores) at 120 digits
    mech = exactdp.mechanism("noisy_max_gumbel", eps=2)
    alpha = 1 + Fraction(1, 2 ** 100)
    point, = exactdp.renyi_divergence(mech, [0, 0], [1, -1], [alpha], dps=25)
    with mpmath.workdps(120):
        p1 = [mpmath.mpf(1) / 2] * 2
        p2 = [1 / (1 + mpmath.exp(-2)), 1 / (1 + mpmath.exp(2))]
        order = _mpf(alpha)
        reference = mpmath.log(sum(a ** order * b ** (1 - order) for a, b in zip(p1, p2))) \
            / (order - 1)
        assert_encloses(point.divergence, reference, 25)


def test_divergence_grows_with_the_order():
    # D_α is nondecreasing in α (van Erven & Harremoës, "Rényi Divergence and Kullback-Leibler
    # Divergence", IEEE Trans. Inf. Theory 2014, Theorem 3)
    mech = exactdp.mechanism("svt1", eps=1, c=2)
    points = exactdp.renyi_divergence(mech, [0] * 4, [1] * 4, ["1.1", 2, 4, 16, "inf"])
    values = [point.divergence.value for point in points]
    assert all(a < b for a, b in zip(values, values[1:]))


def test_equal_inputs_give_exactly_zero_and_an_impossible_output_infinity():
    mech = exactdp.mechanism("svt1")
    assert exactdp.renyi_divergence(mech, [0, 1], [0, 1], [2])[0].divergence.upper == 0
    gptt = exactdp.mechanism("gptt", eps1="0.5", eps2="inf")  # F,T has p2 = 0 on [1, 0]
    point, = exactdp.renyi_divergence(gptt, [0, 1], [1, 0], [2])
    assert point.divergence.value == mpmath.inf


@settings(max_examples=10, deadline=None)
@given(st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=8),
       st.fractions(min_value=Fraction(9, 8), max_value=20, max_denominator=8))
def test_laplace_hypothesis(b, alpha):
    mech = exactdp.program(laplace_release, b=str(float(b)))
    point, = exactdp.renyi_divergence(mech, [1], [0], [alpha], dps=20)
    with mpmath.workdps(50):
        assert_encloses(point.divergence, mironov_laplace(alpha, Fraction(str(float(b)))), 20)


@pytest.mark.parametrize("alphas, message", [
    ([], "must not be empty"), ([1], "greater than 1"), (["0.5"], "greater than 1"),
    (["nan"], "finite"), (["x"], "must be a number"), ([float("-inf")], "finite"),
])
def test_bad_alpha_is_one_input_error(alphas, message):
    with pytest.raises(InputError, match=message):
        exactdp.renyi_divergence(exactdp.mechanism("svt1"), [0], [1], alphas)


def test_cli_renyi_json_records_hold_their_printed_values(capsys):
    assert main(["renyi", "svt1", "--d1", "0,0", "--d2", "1,1", "--alpha", "1.5,2,inf",
                 "--dps", "12", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [record["alpha"] for record in records] == ["1.5", "2", "inf"]
    for record in records:
        assert set(record) == {"alpha", "divergence", "lower", "upper"}
        assert mpmath.mpf(record["lower"]) <= mpmath.mpf(record["divergence"]) \
            <= mpmath.mpf(record["upper"])


@pytest.mark.parametrize("alpha, message", [
    ("1", "alpha must be greater than 1"), ("0.3", "alpha must be greater than 1"),
    ("two", "alpha must be a number"), ("", "--alpha must be a comma-separated list"),
])
def test_cli_renyi_bad_input_is_one_line_and_exit_2(alpha, message, capsys):
    assert main(["renyi", "svt1", "--d1", "0", "--d2", "1", "--alpha", alpha]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_laplace_histogram_is_mironov_proposition_6_of_the_differing_bin():
    mech = exactdp.mechanism("histogram", eps="0.5")   # b = 2; bins 1 and 2 agree
    points = exactdp.renyi_divergence(mech, [7, 3, 5], [7, 3, 4], [2, 5, "inf"], dps=30)
    with mpmath.workdps(60):
        for point in points[:-1]:
            assert_encloses(point.divergence, mironov_laplace(point.alpha, 2), 30)
        assert_encloses(points[-1].divergence, mpmath.mpf(1) / 2, 30)


@pytest.mark.parametrize("alpha", [2, "inf"])
def test_distributions_equal_but_not_provably_so_give_an_absolute_enclosure_of_zero(alpha):
    # Report noisy max depends on the scores only through their differences, so moving every
    # score by 1 leaves the distribution of the index unchanged: D_α = 0 exactly.  The engine
    # cannot prove the two sums of integrals equal; it answers [0, u] with u ≤ 10^-dps instead
    # of failing to reach a relative width.
    m = exactdp.mechanism("noisy_max_exponential", eps=2)
    (point,) = exactdp.renyi_divergence(m, "0,0", "1,1", [alpha], dps=30)
    assert point.divergence.lower == 0
    assert 0 < point.divergence.upper <= mpmath.mpf(10) ** -30
