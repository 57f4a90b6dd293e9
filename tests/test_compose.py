"""δ(ε) of the K-fold composition of a pair (``privacy_profile(..., compositions=K)``,
``exactdp profile --compose K``).

References are independent of the code under test: brute-force sums over every tuple of K
outputs, ``Σ max(0, Π p1 − e^ε Π p2)``, in mpmath from each output's probability computed on
its own by ``exactdp.probability`` (not the shared enumeration, not the loss atoms), or from
exact rational distributions; and Balle & Wang's closed form (ICML 2018, Theorem 8) with mpmath's
``ncdf`` at the shift ``√K·Δ``.
"""

import itertools
import json
from fractions import Fraction

import mpmath
import pytest
from flint import arb, fmpq

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError, MethodUnavailableError
from exactdp.exact.backends.piece_series import flint_context
from exactdp.exact.divergences.composition import composed_delta
from exactdp.exact.divergences.loss_distribution import loss_atoms
from exactdp.exact.divergences.output_pairs import OutputPair, complete_pairs
from exactdp.exact.losses.privacy_loss import neighbouring_pair, possible_outputs
from exactdp.precision import Enclosure
from .conftest import assert_encloses
from .test_profile import _mpf, gaussian_release, laplace_coin, laplace_release


def brute_force_composed_delta(p1, p2, compositions, eps):
    """Σ over every tuple of ``compositions`` outputs of max(0, Π p1 − e^ε Π p2)."""
    factor = mpmath.exp(_mpf(eps))
    total = mpmath.mpf(0)
    for tuple_ in itertools.product(range(len(p1)), repeat=compositions):
        one = mpmath.fprod(p1[a] for a in tuple_)
        two = mpmath.fprod(p2[a] for a in tuple_)
        total += max(mpmath.mpf(0), one - factor * two)
    return total


def output_probabilities(mech, d, outputs):
    """Each output's probability on its own, ``exactdp.probability`` at 50 digits."""
    return [exactdp.probability(mech, d, output, dps=50).value for output in outputs]


@pytest.mark.parametrize("name, params, d1, d2", [
    ("svt1", {"eps": 1}, [0, 0, 1], [1, 1, 0]),
    ("svt1", {"eps": "0.5", "c": 2}, [0, 1, 0], [1, 0, 1]),
    ("svt1", {"eps": 1}, [0, 0, 0, 0], [0, 0, 0, 1]),  # three outputs share the loss 0
    ("svt5", {"eps": 1}, [0, 0], [1, 1]),
    ("gptt", {"eps2": "inf"}, [0, 1], [1, 0]),   # outputs only d1 produces: infinite losses
])
@pytest.mark.parametrize("compositions", [2, 3])
def test_threshold_composition_matches_the_brute_force_over_tuples(name, params, d1, d2,
                                                                   compositions):
    mech = exactdp.mechanism(name, **params)
    outputs = [list(output) for output in possible_outputs(mech, len(d1))]
    eps_list = ["0", "0.2", "0.7", "1.5"]
    points = exactdp.privacy_profile(mech, d1, d2, eps_list, dps=25, compositions=compositions)
    with mpmath.workdps(50):
        p1, p2 = (output_probabilities(mech, d, outputs) for d in (d1, d2))
        for point in points:
            reference = brute_force_composed_delta(p1, p2, compositions, point.eps)
            assert_encloses(point.delta, reference, 25, absolute=True)


def test_noisy_max_index_composition_matches_the_brute_force():
    mech = exactdp.mechanism("noisy_max_laplace", eps=1)
    d1, d2 = [0, 1, 1], [1, 0, 1]
    with mpmath.workdps(50):
        p1, p2 = (output_probabilities(mech, d, [[0], [1], [2]]) for d in (d1, d2))
        for point in exactdp.privacy_profile(mech, d1, d2, [0, "0.3"], dps=25, compositions=3):
            assert_encloses(point.delta, brute_force_composed_delta(p1, p2, 3, point.eps), 25,
                            absolute=True)


def test_a_composed_loss_exactly_at_eps_is_enclosed():
    # P[1 + Lap(1) > 0] = 1 − ½e^{−1}, P[Lap(1) > 0] = ½: the output False has loss exactly 1,
    # so two runs have composed losses exactly 2 = ε and 1 − ln(…) + 1: a ball straddling ε.
    mech = exactdp.program(laplace_coin, b=1)
    with mpmath.workdps(50):
        true1, true2 = 1 - mpmath.exp(-1) / 2, mpmath.mpf(1) / 2
        p2, p1 = [true1, 1 - true1], [true2, 1 - true2]   # d1 = [0], d2 = [1]
        for point in exactdp.privacy_profile(mech, [0], [1], [0, 1, 2], dps=25, compositions=2):
            assert_encloses(point.delta, brute_force_composed_delta(p1, p2, 2, point.eps), 25,
                            absolute=True)


def test_many_compositions_of_a_coin_match_the_binomial_sum():
    # P[q + Lap(4) > 0] is ½ for q = 0 and 1 − ½e^{−1/4} for q = 1; K runs are summarised by
    # their number k of True outcomes: Σ_k C(K, k)·max(0, p^k (1−p)^{K−k} − e^ε q^k (1−q)^{K−k})
    mech = exactdp.program(laplace_coin, b=4)
    compositions = 400
    with mpmath.workdps(60):
        p, q = mpmath.mpf(1) / 2, 1 - mpmath.exp(mpmath.mpf(-1) / 4) / 2
        for point in exactdp.privacy_profile(mech, [0], [1], [0, 1, 3], dps=25,
                                             compositions=compositions):
            factor = mpmath.exp(_mpf(point.eps))
            reference = mpmath.fsum(
                mpmath.binomial(compositions, k) * max(
                    0, p ** k * (1 - p) ** (compositions - k)
                    - factor * q ** k * (1 - q) ** (compositions - k))
                for k in range(compositions + 1))
            assert_encloses(point.delta, reference, 25, absolute=True)


def _balls(values):
    return [arb(fmpq(value.numerator, value.denominator)) for value in values]


def test_composition_with_an_infinite_loss_matches_exact_rationals():
    # P = (1/2, 1/4, 1/4), Q = (1/4, 3/4, 0): losses ln 2, ln(1/3), +∞ (mass 1/4)
    p1 = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    p2 = [Fraction(1, 4), Fraction(3, 4), Fraction(0)]
    with flint_context(200):
        atoms = loss_atoms([OutputPair(*pair) for pair in zip(_balls(p1), _balls(p2))], 200)
    assert len(atoms.losses) == 2 and atoms.masses[0].contains(arb(fmpq(1, 4)))  # ln(1/3)
    assert atoms.infinity_mass == arb(fmpq(1, 4))  # exact: the one output with p2 = 0
    with mpmath.workdps(60):
        for compositions in (1, 2, 4):
            for eps in (Fraction(0), Fraction(1, 2), Fraction(3)):
                reference = brute_force_composed_delta([_mpf(p) for p in p1],
                                                       [_mpf(p) for p in p2], compositions, eps)
                with flint_context(200):
                    delta = Enclosure.of_ball(composed_delta(atoms, eps, compositions))
                assert_encloses(delta, reference, 40, absolute=True)


def balle_wang_delta(eps, sigma, shift):
    """Balle & Wang, ICML 2018, Theorem 8: δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)
    (``shift`` an mpf: the composed shift √K·Δ is irrational)."""
    eps, sigma = _mpf(eps), _mpf(sigma)
    return (mpmath.ncdf(shift / (2 * sigma) - eps * sigma / shift)
            - mpmath.exp(eps) * mpmath.ncdf(-shift / (2 * sigma) - eps * sigma / shift))


@pytest.mark.parametrize("sigma", ["0.5", "2"])
@pytest.mark.parametrize("compositions", [2, 3, 100])
def test_gaussian_composition_is_the_shift_by_root_k_delta(sigma, compositions):
    mech = exactdp.program(gaussian_release, sigma=sigma)
    with mpmath.workdps(60):
        shift = mpmath.sqrt(compositions)   # Δ = 1
        for point in exactdp.privacy_profile(mech, [1], [0], ["0", "0.5", "3"], dps=30,
                                             compositions=compositions):
            assert_encloses(point.delta, balle_wang_delta(point.eps, sigma, shift), 30)


def test_four_gaussian_runs_are_one_run_of_twice_the_shift():
    mech = exactdp.program(gaussian_release, sigma=1)
    four = exactdp.privacy_profile(mech, [1], [0], ["0.5"], compositions=4)[0].delta
    double = exactdp.privacy_profile(mech, [2], [0], ["0.5"], allow_any_pair=True)[0].delta
    assert four.lower <= double.upper and double.lower <= four.upper


@pytest.mark.parametrize("d1, d2", [([0, 0, 1], [1, 1, 0]), ([0, 0, 0, 0], [0, 0, 0, 1])])
def test_the_loss_atoms_at_one_run_give_the_sum_over_outputs(d1, d2):
    # K = 1 through the grouped atoms, m_∞ + Σ_j P_j (1 − e^{ε − ℓ_j})₊, against the profile's
    # own sum over outputs Σ_a max(0, p1 − e^ε p2): two formulas, one number
    mech = exactdp.mechanism("svt1", eps=1)
    pairs = complete_pairs(mech, *neighbouring_pair(mech, d1, d2, False), 40)
    with flint_context(200):
        atoms = loss_atoms(pairs, 200)
        for point in exactdp.privacy_profile(mech, d1, d2, [0, "0.1", "0.3"], dps=30):
            delta = Enclosure.of_ball(composed_delta(atoms, point.eps, 1))
            assert_encloses(delta, point.delta.value, 30, absolute=True)


def test_a_laplace_release_is_not_composed():
    with pytest.raises(MethodUnavailableError, match="Gaussian releases only"):
        exactdp.privacy_profile(exactdp.program(laplace_release), [1], [0], [0], compositions=2)


@pytest.mark.parametrize("compositions", [0, -2, "2.5", "x", 1.5, True, None])
def test_bad_number_of_compositions_is_one_input_error(compositions):
    with pytest.raises(InputError, match="compose must be a (positive integer|number)"):
        exactdp.privacy_profile(exactdp.mechanism("svt1"), [0], [1], [0],
                                compositions=compositions)


@pytest.mark.parametrize("value", ["0", "-1", "2.5", "many"])
def test_cli_bad_compose_exits_2_with_one_line(value, capsys):
    code = main(["profile", "svt1", "--d1", "0", "--d2", "1", "--eps", "0",
                 "--compose", value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "compose must be" in err and value in err


def test_cli_compose_json_matches_the_library(capsys):
    assert main(["profile", "svt1", "--d1", "0*6", "--d2", "0*5,1", "--eps", "0,0.5",
                 "--compose", "50", "--dps", "15", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    points = exactdp.privacy_profile(exactdp.mechanism("svt1"), [0] * 6, [0] * 5 + [1],
                                     [0, "0.5"], dps=15, compositions=50)
    for record, point in zip(records, points):
        assert mpmath.mpf(record["lower"]) <= point.delta.value <= mpmath.mpf(record["upper"])
    assert [record["eps"] for record in records] == ["0", "0.5"]
