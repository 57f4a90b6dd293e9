"""Rényi divergences of cutoff-1 Sparse Vector run by run (``divergences/renyi_runs.py``): the
block sums against the enumeration of every output (an independent path: each output's
probability certified on its own or on shared nodes), with the enumeration's limit and the first
block lowered so that blocks, rules and their bounds are exercised on inputs the enumeration
still reaches."""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

import exactdp
from exactdp.exact.backends.discrete_rules import discrete_rule
from exactdp.exact.divergences import renyi_runs
from exactdp.exact.divergences.renyi import pair_divergence, renyi_divergence
from exactdp.sequences import Runs
from tests.conftest import assert_encloses

DIGITS = 20


def _runs(text):
    return Runs.from_runs([(Fraction(value), int(count)) for value, count in
                           (part.split("*") for part in text.split(","))])


@pytest.mark.parametrize("name, d1, d2, first_block", [
    ("svt_gaussian", "0*1000", "1*1000", 256),           # one run; rules on rational nodes
    ("svt_gaussian", "0*500,1*500", "1*500,0*500", 192),  # two runs, the second from t = 0
])
def test_blocks_against_the_enumeration(monkeypatch, name, d1, d2, first_block):
    mech = exactdp.mechanism(name)
    one, two = _runs(d1), _runs(d2)
    monkeypatch.setattr(renyi_runs, "FIRST_BLOCK", first_block)
    rules = []
    monkeypatch.setattr(renyi_runs, "discrete_rule",
                        lambda *args: rules.append(args) or discrete_rule(*args))
    divergence = renyi_runs.run_divergence(mech, one, two, DIGITS, 60)
    reference = pair_divergence(mech, one, two, DIGITS + 5)   # every output enumerated
    for alpha in (Fraction(2), Fraction(3, 2), Fraction(7), "inf"):
        alpha = float("inf") if alpha == "inf" else alpha
        expected = reference(alpha)
        assert_encloses(divergence(alpha), expected.value, DIGITS, slack=expected.error)
    assert len(rules) >= 3     # blocks were summed by rules, not output by output


def test_absolute_width_for_nearly_equal_inputs(monkeypatch):
    # a shift of 10^-6: D_2 ≈ 10^-13, asked to an absolute width 10^-20
    mech = exactdp.mechanism("svt_gaussian")
    one, two = _runs("0*600"), _runs("1/1000000*600")
    monkeypatch.setattr(renyi_runs, "FIRST_BLOCK", 128)
    divergence = renyi_runs.run_divergence(mech, one, two, DIGITS, 40)
    expected = pair_divergence(mech, one, two, DIGITS + 5,
                               allow_any_pair=True)(Fraction(2), DIGITS + 3, absolute=True)
    assert_encloses(divergence(Fraction(2), DIGITS, absolute=True), expected.value, DIGITS,
                    absolute=True, slack=expected.error)


def test_beyond_the_enumeration_through_the_public_function():
    # 1100 queries: past the enumeration's 1000; D_α of the first 1000 queries' outputs is a
    # coarsening of these (data processing), so it is a lower bound, and D_∞ is the largest
    # loss that max_privacy_loss certifies on its own path
    mech = exactdp.mechanism("svt_gaussian")
    point = renyi_divergence(mech, "0*1100", "1*1100", [2, "inf"], 12)
    shorter = renyi_divergence(mech, "0*1000", "1*1000", [2], 12)[0].divergence
    assert point[0].divergence.lower >= shorter.upper
    largest = exactdp.max_privacy_loss(mech, "0*1100", "1*1100", 12).loss
    assert largest.log_ratio > 0     # the larger |ln(p1/p2)| is on d1's side: it is D_∞
    assert_encloses(point[1].divergence, largest.log_ratio, 12, slack=largest.error)


def test_laplace_beyond_the_enumeration_is_refused_in_one_line():
    # the rules need thousands of probabilities, on shared nodes only for Gaussian noise
    with pytest.raises(exactdp.InputError, match="at most .* got 1100 .1000 for svt1"):
        renyi_divergence(exactdp.mechanism("svt1"), "0*1100", "1*1100", [2], 12)


def test_cli_json_on_a_long_run():
    result = subprocess.run(
        [sys.executable, "-m", "exactdp", "renyi", "svt_gaussian", "--d1", "0*1100",
         "--d2", "1*1100", "--alpha", "2", "--dps", "8", "--json"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert Fraction(row["lower"]) <= Fraction(row["divergence"]) <= Fraction(row["upper"])
    assert Fraction(row["upper"]) - Fraction(row["lower"]) <= Fraction(2, 10 ** 8) * Fraction(
        row["divergence"])


def test_equal_long_inputs_give_an_exact_zero():
    # one distribution: every D_α is 0 exactly, without summing 10^6 outputs
    points = renyi_divergence(exactdp.mechanism("svt_gaussian"), "0*1000000", "0*1000000",
                              [2, "inf"], 30)
    assert all(point.divergence.lower == point.divergence.upper == 0 for point in points)
