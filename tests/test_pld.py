"""The privacy-loss distribution of a pair (``exactdp.privacy_loss_distribution``,
``exactdp pld``) and its pessimistic ``dp_accounting`` form (``exactdp.to_dp_accounting``).

References are independent of the code under test: each output's probability computed on its own
by ``exactdp.probability`` (not the shared enumeration), its loss ``ln(p1/p2)`` in mpmath; exact
rational distributions; Balle & Wang's Gaussian profile (ICML 2018, Theorem 8) in mpmath; and
exactdp's certified δ(ε), which the pessimistic ``dp_accounting`` object must never undercut.
"""

import importlib.util
import json
import math
import sys
from fractions import Fraction

import mpmath
import pytest
from flint import arb

import exactdp
from exactdp.accounting import MISSING, _float_down, _float_up
from exactdp.cli import main
from exactdp.errors import InputError, MethodUnavailableError
from exactdp.exact.losses.privacy_loss import possible_outputs
from .conftest import assert_encloses
from .test_profile import gaussian_release


def reference_atoms(mech, d1, d2, outputs):
    """``[(ln(p1/p2), p1)]`` of each output from ``exactdp.probability`` at 50 digits."""
    atoms = []
    for output in outputs:
        p1, p2 = (exactdp.probability(mech, d, output, dps=50).value for d in (d1, d2))
        atoms.append((mpmath.log(p1) - mpmath.log(p2), p1))
    return sorted(atoms)


def test_svt_losses_and_probabilities_match_each_output_on_its_own():
    mech = exactdp.mechanism("svt1", eps=1)
    d1, d2 = [0, 0], [1, 1]
    pld = exactdp.privacy_loss_distribution(mech, d1, d2, dps=25)
    with mpmath.workdps(50):
        outputs = [list(output) for output in possible_outputs(mech, 2)]
        reference = reference_atoms(mech, d1, d2, outputs)
        assert len(pld.losses) == len(reference) == 3     # ⊤, ⊥⊤, ⊥⊥: three distinct losses
        for loss, probability, (true_loss, true_probability) in zip(pld.losses,
                                                                    pld.probabilities,
                                                                    reference):
            assert_encloses(loss, true_loss, 25, absolute=True)
            assert_encloses(probability, true_probability, 25)
    assert pld.infinity_mass.upper == 0


def test_outputs_with_equal_losses_are_one_atom():
    # the queries before the last are equal on d1 and d2: ⊤ at the first three has loss 0
    mech = exactdp.mechanism("svt1", eps=1)
    d1, d2 = [0, 0, 0, 0], [0, 0, 0, 1]
    pld = exactdp.privacy_loss_distribution(mech, d1, d2, dps=25)
    with mpmath.workdps(50):
        first = [["T"], ["F", "T"], ["F", "F", "T"]]
        mass = sum(exactdp.probability(mech, d1, output, dps=50).value for output in first)
        zero, = [position for position, loss in enumerate(pld.losses)
                 if loss.lower <= 0 <= loss.upper]
        assert_encloses(pld.losses[zero], 0, 25, absolute=True)
        assert_encloses(pld.probabilities[zero], mass, 25)
    assert len(pld.losses) == 3


def test_outputs_only_d1_produces_are_the_infinite_mass():
    # GPTT with ε2 = ∞ compares each query with the threshold without noise: some outputs
    # have probability exactly 0 on d2
    mech = exactdp.mechanism("gptt", eps2="inf")
    d1, d2 = [0, 1], [1, 0]
    pld = exactdp.privacy_loss_distribution(mech, d1, d2, dps=25)
    with mpmath.workdps(50):
        infinite = mpmath.mpf(0)
        for output in possible_outputs(mech, 2):
            p1, p2 = (exactdp.probability(mech, d, list(output), dps=50) for d in (d1, d2))
            if p2.is_zero:
                infinite += p1.value
        assert infinite > 0
        assert_encloses(pld.infinity_mass, infinite, 25)


def test_the_probabilities_sum_to_one_and_the_losses_increase():
    pld = exactdp.privacy_loss_distribution(exactdp.mechanism("noisy_max_laplace", eps=1),
                                            [0, 1, 1], [1, 0, 1], dps=20)
    total = sum(probability.value for probability in pld.probabilities)
    assert abs(total - 1) < mpmath.mpf(10) ** -18
    assert all(a.upper < b.lower for a, b in zip(pld.losses, pld.losses[1:]))


def test_a_released_number_is_refused():
    with pytest.raises(MethodUnavailableError, match="infinitely many losses"):
        exactdp.privacy_loss_distribution(exactdp.program(gaussian_release), [1], [0])


def test_cli_json_keys_and_values(capsys):
    assert main(["pld", "svt1", "--d1", "0,0", "--d2", "1,1", "--dps", "15", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record) == ["losses", "losses_lower", "losses_upper", "probabilities",
                            "probabilities_lower", "probabilities_upper", "infinity_mass",
                            "infinity_mass_lower", "infinity_mass_upper"]
    assert len({len(record[key]) for key in record if not key.startswith("infinity")}) == 1
    assert record["infinity_mass"] == "0"
    pld = exactdp.privacy_loss_distribution(exactdp.mechanism("svt1"), [0, 0], [1, 1], dps=15)
    for name, values in (("losses", pld.losses), ("probabilities", pld.probabilities)):
        for lower, upper, value in zip(record[f"{name}_lower"], record[f"{name}_upper"],
                                       values):
            assert mpmath.mpf(lower) <= value.lower and value.upper <= mpmath.mpf(upper)


def test_cli_table_and_errors(capsys):
    assert main(["pld", "svt1", "--d1", "0", "--d2", "1", "--dps", "8"]) == 0
    out = capsys.readouterr().out
    assert "losses_enclosure" in out and "infinity_mass" in out
    assert main(["pld", "svt1", "--d1", "0", "--d2", "3"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


#: The tests that need the optional dp-accounting (the test extra installs it).
needs_dp_accounting = pytest.mark.skipif(importlib.util.find_spec("dp_accounting") is None,
                                         reason="dp-accounting is not installed")


@needs_dp_accounting
@pytest.mark.parametrize("d1, d2", [([0, 0], [1, 1]), ([0] * 6, [0] * 5 + [1]),
                                    ([1, 0, 1], [0, 1, 0])])
def test_dp_accounting_delta_is_at_least_the_exact_delta(d1, d2):
    mech = exactdp.mechanism("svt1", eps=1)
    pld = exactdp.to_dp_accounting(mech, d1, d2)
    eps_list = [0, "0.05", "0.2", "0.4", 1]
    remove, add = (exactdp.privacy_profile(mech, one, two, eps_list)   # the two directions
                   for one, two in ((d1, d2), (d2, d1)))
    for forward, backward in zip(remove, add):
        exact = max(forward.delta.upper, backward.delta.upper)
        bound = pld.get_delta_for_epsilon(float(forward.eps))
        assert exact <= bound <= exact + 0.01   # pessimistic, and not vacuous


@needs_dp_accounting
@pytest.mark.parametrize("compositions", [2, 10])
def test_composed_dp_accounting_delta_is_at_least_the_exact_composition(compositions):
    mech = exactdp.mechanism("svt1", eps=1)
    d1, d2 = [0, 0, 0], [1, 1, 1]
    composed = exactdp.to_dp_accounting(mech, d1, d2).self_compose(compositions)
    for point in exactdp.privacy_profile(mech, d1, d2, [0, "0.3", 1], dps=20,
                                         compositions=compositions):
        bound = composed.get_delta_for_epsilon(float(point.eps))
        assert point.delta.upper <= bound <= point.delta.upper + 0.01


@needs_dp_accounting
def test_the_grid_rounds_every_loss_up():
    mech = exactdp.mechanism("svt1", eps=1)
    step = 0.01
    pld = exactdp.to_dp_accounting(mech, [0, 0], [1, 1], value_discretization_interval=step)
    exact = exactdp.privacy_loss_distribution(mech, [0, 0], [1, 1])
    expected = {math.ceil(float(loss.upper) / step): float(probability.value)
                for loss, probability in zip(exact.losses, exact.probabilities)}
    # the largest loss ℓ, rounded up to k·h, keeps its probability p: at ε = (k − 1)·h the δ
    # has at least p·(1 − e^{ε − kh}) (a loss rounded down to ε or below would give 0 there)
    top = max(expected)
    eps = (top - 1) * step
    assert pld.get_delta_for_epsilon(eps) >= expected[top] * -math.expm1(eps - top * step)


@needs_dp_accounting
def test_gaussian_release_uses_the_pessimistic_gaussian_pld():
    mech = exactdp.program(gaussian_release, sigma=2)
    pld = exactdp.to_dp_accounting(mech, [1], [0])
    with mpmath.workdps(40):
        for eps in (0.0, 0.5, 1.0):
            reference = (mpmath.ncdf(mpmath.mpf(1) / 4 - 2 * mpmath.mpf(eps))
                         - mpmath.exp(eps) * mpmath.ncdf(-mpmath.mpf(1) / 4 - 2 * mpmath.mpf(eps)))
            bound = pld.get_delta_for_epsilon(eps)
            assert reference <= bound <= reference + 1e-3


@needs_dp_accounting
def test_discrete_gaussian_release_uses_the_pessimistic_discrete_gaussian_pld():
    mech = exactdp.mechanism("count_discrete_gaussian", sigma=2)
    pld = exactdp.to_dp_accounting(mech, [0], [1])
    with mpmath.workdps(40):
        # δ(ε) = Σ_k max(0, p(k) − e^ε p(k − 1)) summed over |k| ≤ 200 (the rest < 10^{-2000})
        weights = {k: mpmath.exp(-mpmath.mpf(k * k) / 8) for k in range(-200, 201)}
        total = mpmath.fsum(weights.values())
        for eps in (0.0, 0.5, 1.0):
            reference = mpmath.fsum(max(0, weights[k] - mpmath.exp(eps) * weights.get(k - 1, 0))
                                    for k in weights) / total
            bound = pld.get_delta_for_epsilon(eps)
            assert reference <= bound <= reference + 1e-3
    with pytest.raises(MethodUnavailableError, match="disjoint"):
        exactdp.to_dp_accounting(mech, [0], [Fraction(1, 2)], allow_any_pair=True)
    with pytest.raises(MethodUnavailableError, match="not a double"):
        exactdp.to_dp_accounting(exactdp.mechanism("count_discrete_gaussian", sigma=0.7), [0], [1])


@needs_dp_accounting
def test_bad_interval_is_one_input_error():
    for value in (0, -1e-4, float("nan"), "x"):
        with pytest.raises(InputError, match="value_discretization_interval"):
            exactdp.to_dp_accounting(exactdp.mechanism("svt1"), [0], [1],
                                     value_discretization_interval=value)


def test_missing_dp_accounting_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    with pytest.raises(ImportError) as error:
        exactdp.to_dp_accounting(exactdp.mechanism("svt1"), [0], [1])
    assert str(error.value) == MISSING and 'pip install "exactdp[accounting]"' in MISSING


def test_directed_rounding_to_doubles():
    third = Fraction(1, 3)
    assert Fraction(_float_down(third)) < third < Fraction(_float_up(third))
    assert math.nextafter(_float_down(third), 1) == _float_up(third)
    assert _float_up(Fraction(1, 2)) == _float_down(Fraction(1, 2)) == 0.5
    tiny = arb(2) ** -1100                         # below every double but 0
    assert _float_up(tiny) == math.ulp(0.0)
    assert _float_up(arb(0)) == 0.0
    ball_end = (arb(1) / 3).upper()
    assert arb(_float_up(ball_end)) >= ball_end
