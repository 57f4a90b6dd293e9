"""Privacy profiles δ(ε) = sup_E P[M(d1) ∈ E] − e^ε P[M(d2) ∈ E] (``exactdp.privacy_profile``
and ``exactdp profile``).

References are independent of the code under test: the published closed forms (Balle & Wang,
ICML 2018, Theorem 8, with mpmath's ``ncdf``; the Laplace profile derived below) at 60 digits,
and brute-force sums over the outputs of each output's probability from
``exactdp.probability`` (one output at a time, not the shared enumeration of the profile).
"""

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError, MethodUnavailableError
from .conftest import assert_encloses


def gaussian_release(prng, queries, sigma=1):
    return queries[0] + prng.normal(scale=sigma)


def laplace_release(prng, queries, b=1):
    return queries[0] + prng.laplace(scale=b)


def laplace_coin(prng, queries, b=1):
    return queries[0] + prng.laplace(scale=b) > 0


def two_released_numbers(prng, queries, b=1):
    return queries[0] + prng.laplace(scale=b), queries[0] + prng.laplace(scale=b)


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def balle_wang_delta(eps, sigma, shift):
    """Balle & Wang, "Improving the Gaussian Mechanism for Differential Privacy: Analytical
    Calibration and Optimal Denoising", ICML 2018, Theorem 8:
    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)."""
    eps, sigma, shift = _mpf(eps), _mpf(sigma), _mpf(shift)
    return (mpmath.ncdf(shift / (2 * sigma) - eps * sigma / shift)
            - mpmath.exp(eps) * mpmath.ncdf(-shift / (2 * sigma) - eps * sigma / shift))


def laplace_delta(eps, b):
    """Laplace mechanism, shift Δ = 1, scale b: δ(ε) = 1 − e^{(ε − 1/b)/2} for 0 ≤ ε ≤ 1/b, else 0.

    Derivation: with M(d1) = 1 + η, M(d2) = η, η ~ Lap(b), the log ratio
    L(x) = (|x| − |x − 1|)/b is −1/b for x ≤ 0, (2x − 1)/b on [0, 1] and 1/b for x ≥ 1, so for
    ε < 1/b the set {L > ε} is x > t = (εb + 1)/2 ∈ [1/2, 1), and
    δ = P[1 + η > t] − e^ε P[η > t] = (1 − ½e^{(t−1)/b}) − e^ε ½e^{−t/b}; both exponents are
    (ε − 1/b)/2 after substituting t, so δ = 1 − e^{(ε − 1/b)/2} (the (ε, δ) curve of the Laplace
    mechanism, e.g. Balle, Barthe & Gaboardi, NeurIPS 2018, Section 3)."""
    eps, b = _mpf(eps), _mpf(b)
    return 1 - mpmath.exp((eps - 1 / b) / 2) if eps < 1 / b else mpmath.mpf(0)


def brute_force_delta(mech, d1, d2, outputs, eps):
    """Σ_a max(0, p1(a) − e^ε p2(a)) over ``outputs``, each probability from
    ``exactdp.probability`` at 50 digits on its own."""
    total = mpmath.mpf(0)
    for output in outputs:
        p1, p2 = (exactdp.probability(mech, d, output, dps=50).value for d in (d1, d2))
        total += max(mpmath.mpf(0), p1 - mpmath.exp(_mpf(eps)) * p2)
    return total


@pytest.mark.parametrize("sigma", ["0.5", "1", "3"])
@pytest.mark.parametrize("shift", [1, 2])
def test_gaussian_release_matches_balle_wang_theorem_8(sigma, shift):
    mech = exactdp.program(gaussian_release, sigma=sigma)
    eps_list = ["0", "0.1", "1", "2.5"]
    with mpmath.workdps(60):
        for point in exactdp.privacy_profile(mech, [shift], [0], eps_list, dps=30,
                                             allow_any_pair=True):
            assert_encloses(point.delta, balle_wang_delta(point.eps, sigma, shift), 30)
            width = point.delta.upper - point.delta.lower
            assert width <= mpmath.mpf(10) ** -29 * point.delta.value


def test_gaussian_profile_far_tail_is_certified_not_underflowed():
    mech = exactdp.program(gaussian_release, sigma=2)
    point, = exactdp.privacy_profile(mech, [1], [0], [30], dps=20)
    with mpmath.workdps(1200):  # δ ≈ 3e-780: beyond any float, Balle & Wang again
        assert_encloses(point.delta, balle_wang_delta(30, 2, 1), 20)
    assert point.delta.value > 0


@pytest.mark.parametrize("b", ["0.5", "1", "4"])
def test_laplace_release_matches_its_closed_profile(b):
    mech = exactdp.program(laplace_release, b=b)
    eps_list = [0, "0.25", "1", "1.9", 2, 3]
    with mpmath.workdps(60):
        for point in exactdp.privacy_profile(mech, [1], [0], eps_list, dps=30):
            reference = laplace_delta(point.eps, b)
            assert_encloses(point.delta, reference, 30)
            if reference == 0:  # ε ≥ 1/b: decided exactly, not a tiny enclosure
                assert point.delta.upper == 0


def test_the_profile_is_symmetric_in_the_direction_of_the_shift():
    mech = exactdp.program(laplace_release, b=1)
    up = exactdp.privacy_profile(mech, [0], [1], ["0.5"])
    down = exactdp.privacy_profile(mech, [1], [0], ["0.5"])
    assert up[0].delta == down[0].delta


@pytest.mark.parametrize("name, params, d1, d2", [
    ("svt1", {"eps": 1}, [0, 0, 1], [1, 1, 0]),
    ("svt1", {"eps": "0.5", "c": 2}, [0, 1, 0], [1, 0, 1]),
    ("svt2", {"eps": 1, "c": 2}, [0, 0, 1], [1, 1, 0]),   # threshold redrawn: one at a time
    ("svt5", {"eps": 1}, [0, 0], [1, 1]),
])
def test_threshold_mechanisms_match_the_brute_force_sum(name, params, d1, d2):
    mech = exactdp.mechanism(name, **params)
    outputs = [list(output) for output in
               exactdp.exact.losses.privacy_loss.possible_outputs(mech, len(d1))]
    eps_list = ["0", "0.2", "0.7", "1.5"]
    points = exactdp.privacy_profile(mech, d1, d2, eps_list, dps=25)
    with mpmath.workdps(50):
        for point in points:
            assert_encloses(point.delta, brute_force_delta(mech, d1, d2, outputs, point.eps), 25,
                            absolute=True)


def test_noisy_max_index_outputs_match_the_brute_force_sum():
    mech = exactdp.mechanism("noisy_max_laplace", eps=1)
    d1, d2 = [0, 1, 1], [1, 0, 1]
    with mpmath.workdps(50):
        for point in exactdp.privacy_profile(mech, d1, d2, [0, "0.3"], dps=25):
            reference = brute_force_delta(mech, d1, d2, [[0], [1], [2]], point.eps)
            assert_encloses(point.delta, reference, 25, absolute=True)


def test_program_with_boolean_outputs_matches_the_laplace_survival_function():
    # P[q + Lap(1) > 0] = 1 − ½e^{−q} for q ≥ 0, ½e^{q} for q < 0
    mech = exactdp.program(laplace_coin, b=1)
    with mpmath.workdps(50):
        true1, true2 = 1 - mpmath.exp(-1) / 2, mpmath.mpf(1) / 2
        for point in exactdp.privacy_profile(mech, [1], [0], [0, "0.2"], dps=25):
            factor = mpmath.exp(_mpf(point.eps))
            reference = (max(0, true1 - factor * true2)
                         + max(0, (1 - true1) - factor * (1 - true2)))
            assert_encloses(point.delta, reference, 25, absolute=True)


def test_profile_at_zero_is_the_total_variation_and_decreases():
    mech = exactdp.mechanism("svt1", eps=1)
    d1, d2 = [0] * 5, [1] * 5
    points = exactdp.privacy_profile(mech, d1, d2, [Fraction(k, 10) for k in range(12)])
    deltas = [point.delta.value for point in points]
    assert all(a >= b for a, b in zip(deltas, deltas[1:]))
    outputs = [list(o) for o in exactdp.exact.losses.privacy_loss.possible_outputs(mech, 5)]
    with mpmath.workdps(50):
        total_variation = sum(abs(exactdp.probability(mech, d1, o, dps=50).value
                                  - exactdp.probability(mech, d2, o, dps=50).value)
                              for o in outputs) / 2
    assert_encloses(points[0].delta, total_variation, 30, absolute=True)
    # beyond the largest privacy loss no output has p1 > e^ε p2: exactly 0
    largest = exactdp.max_privacy_loss(mech, d1, d2).loss.log_ratio
    beyond, = exactdp.privacy_profile(mech, d1, d2, [mpmath.ceil(largest * 10) / 10])
    assert beyond.delta.upper == 0


@settings(max_examples=10, deadline=None)
@given(st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=16),
       st.fractions(min_value=0, max_value=3, max_denominator=16))
def test_gaussian_profile_hypothesis(sigma, eps):
    mech = exactdp.program(gaussian_release, sigma=str(float(sigma)))
    point, = exactdp.privacy_profile(mech, [1], [0], [eps], dps=20)
    with mpmath.workdps(50):
        assert_encloses(point.delta, balle_wang_delta(eps, Fraction(str(float(sigma))), 1), 20)


@pytest.mark.parametrize("eps_list, message", [
    ([], "must not be empty"), ([-1], "at least 0"), ([float("inf")], "finite"),
    (["nan"], "finite"), (["x"], "must be a number"),
])
def test_bad_eps_is_one_input_error(eps_list, message):
    with pytest.raises(InputError, match=message):
        exactdp.privacy_profile(exactdp.mechanism("svt1"), [0], [1], eps_list)


@pytest.mark.parametrize("mech, queries, message", [
    (exactdp.mechanism("svt3"), 2, "releases numbers"),
    (exactdp.mechanism("noisy_max_laplace_value"), 2, "releases the largest noisy value"),
    (exactdp.program(two_released_numbers), 1, "one number q"),
    (exactdp.mechanism("partial_sum"), 1, "divergences are computed for ⊤/⊥ outputs"),
])
def test_what_is_not_covered_is_refused_in_one_line(mech, queries, message):
    with pytest.raises((InputError, MethodUnavailableError), match=message):
        exactdp.privacy_profile(mech, [0] * queries, [1] * queries, [1])


def test_cli_profile_json_records_hold_their_printed_values(capsys):
    assert main(["profile", "svt1", "--d1", "0,0", "--d2", "1,1", "--eps", "0,0.1,2",
                 "--dps", "12", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [record["eps"] for record in records] == ["0", "0.1", "2"]
    for record in records:
        assert set(record) == {"eps", "delta", "lower", "upper"}
        assert mpmath.mpf(record["lower"]) <= mpmath.mpf(record["delta"]) \
            <= mpmath.mpf(record["upper"])
    assert records[2]["delta"] == "0"


def test_cli_profile_plot(tmp_path, capsys):
    path = tmp_path / "profile.png"
    assert main(["profile", "svt1", "--d1", "0", "--d2", "1",
                 "--eps", "0,0.2,0.4", "--plot", str(path)]) == 0
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert "privacy profile" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--eps", "-0.5"], "eps must be at least 0"),
    (["--eps", "inf"], "eps must be finite"),
    (["--eps", ""], "--eps must be a comma-separated list"),
    (["--eps", "1,,2"], "--eps must be a comma-separated list"),
    (["--eps", "1", "--plot", "/no/such/folder/p.png"], "folder of --plot"),
    (["--eps", "1", "--plot", "p.txt"], "--plot must be a .png file"),
])
def test_cli_profile_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["profile", "svt1", "--d1", "0", "--d2", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_gaussian_scale_must_be_positive(capsys):
    assert main(["profile", "svt_gaussian", "--param", "sigma1=0", "--d1", "0", "--d2", "1",
                 "--eps", "1"]) == 2
    assert "sigma1 must be positive" in capsys.readouterr().err


@pytest.mark.parametrize("name, params, d1, d2, b", [
    ("histogram", {"eps": "0.5"}, [0, 3, 5], [1, 3, 5], 2),        # b = Δ/ε
    ("histogram", {"eps": 2}, [4, 3], [4, 2], "0.5"),
    ("statdp.histogram_eps", {"eps": 3}, [0, 3], [1, 7], 3),       # first bin only, b = ε
])
def test_laplace_histograms_are_the_laplace_profile_of_the_differing_bin(name, params, d1, d2,
                                                                         b):
    # the other bins are i.i.d. on both inputs: the joint density ratio is the differing bin's
    mech = exactdp.mechanism(name, **params)
    with mpmath.workdps(60):
        for point in exactdp.privacy_profile(mech, d1, d2, [0, "0.3", 1, 2], dps=30,
                                             allow_any_pair=True):
            assert_encloses(point.delta, laplace_delta(point.eps, b), 30)


def test_histograms_differing_in_two_bins_are_refused():
    with pytest.raises(MethodUnavailableError, match="2 bins differ"):
        exactdp.privacy_profile(exactdp.mechanism("histogram"), [0, 0], [1, 1], [1],
                                allow_any_pair=True)


def test_a_zero_delta_is_decided_from_the_screens_digits(monkeypatch):
    """svt1 is ε-DP (Lyu, Su & Li, Theorem 2): at ``ε = 2`` every output's ``p1`` is below
    ``e^ε·p2`` with probabilities to ``SCREEN_DIGITS`` digits, and δ is exactly 0 without
    more; at ``ε = 0`` δ is positive, and the probabilities are computed to ``dps +
    PART_GUARD_DIGITS`` digits as well, giving the δ computed without the screen (and a profile
    of several ``ε`` is computed without it)."""
    from exactdp.exact.divergences import profile
    from exactdp.precision import PART_GUARD_DIGITS
    asked = []
    original = profile.complete_pairs
    monkeypatch.setattr(profile, "complete_pairs",
                        lambda mech, d1, d2, dps: asked.append(dps) or original(mech, d1, d2, dps))
    mech = exactdp.mechanism("svt1", eps=1)
    zero, = exactdp.privacy_profile(mech, [0, 0], [1, 1], [2], dps=12)
    assert zero.delta.value == zero.delta.upper == 0 and asked == [profile.SCREEN_DIGITS]
    asked.clear()
    positive, = exactdp.privacy_profile(mech, [0, 0], [1, 1], [0], dps=12)
    assert positive.delta.lower > 0 and asked == [profile.SCREEN_DIGITS, 12 + PART_GUARD_DIGITS]
    asked.clear()   # several ε: not screened
    curve = exactdp.privacy_profile(mech, [0, 0], [1, 1], [0, 2], dps=12)
    assert curve == [positive, zero] and asked == [12 + PART_GUARD_DIGITS]
    monkeypatch.setattr(profile, "SCREEN_DIGITS", 10 ** 6)
    assert exactdp.privacy_profile(mech, [0, 0], [1, 1], [0], dps=12)[0] == positive
