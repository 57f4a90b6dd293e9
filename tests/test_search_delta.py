"""``exactdp search MECH --delta D``: the search for pairs with ``δ(ε) > D``.

References: the witness's ``δ(ε)`` re-summed in the test by brute force over the outputs, from
each output's certified probability (``exactdp.probability``, one output at a time, not the
profile's shared enumeration), in mpmath interval arithmetic; Lyu, Su & Li, PVLDB 2017
(arXiv:1603.01699), Thm 2 (svt1 is ε-DP, so ``δ(ε) = 0`` on every pair).
"""

import json
import shlex
from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.cli import main
from exactdp.delta_search import search_delta
from exactdp.errors import InputError


def cutoff_one_outputs(n):
    """Every output of a Sparse Vector variant with cutoff 1 on ``n`` queries: ⊥^k ⊤ (k < n)
    and ⊥^n."""
    return [[False] * k + [True] for k in range(n)] + [[False] * n]


def brute_force_delta(mech, d1, d2, eps):
    """``Σ_a max(0, p1(a) − e^ε p2(a))`` enclosed in ``(lower, upper)`` (mpmath interval
    arithmetic), each ``p(a)`` the certified enclosure ``[lower, upper]`` of
    ``exactdp.probability`` at 30 digits."""
    with mpmath.workdps(40):
        factor = mpmath.iv.exp(mpmath.iv.mpf(eps.numerator) / eps.denominator)
        total = mpmath.iv.mpf(0)
        for output in cutoff_one_outputs(len(d1)):
            p1, p2 = (exactdp.probability(mech, d, output, dps=30, method="certified")
                      for d in (d1, d2))
            term = (mpmath.iv.mpf([p1.lower, p1.upper])
                    - factor * mpmath.iv.mpf([p2.lower, p2.upper]))
            total += mpmath.iv.mpf([max(term.a, 0), max(term.b, 0)])
        return tuple(mpmath.mpf(end._mpi_[0]) for end in (total.a, total.b))


def test_svt_gaussian_violation_rechecked_by_brute_force():
    # Gaussian noise gives no pure ε-DP: at ε = 1/4 the pair (0, 1) vs (1, 0) has δ ≈ 0.039
    mech = exactdp.mechanism("svt_gaussian")
    eps, claimed = Fraction(1, 4), Fraction(1, 100)
    result = search_delta(mech, claimed, eps, max_length=3, max_evaluations=10)
    witness = result.witness
    assert result.verdict == "violation" and result.first_violation is not None
    d1, d2 = witness.d1.expand(), witness.d2.expand()
    low, high = brute_force_delta(mech, d1, d2, eps)
    assert low > mpmath.mpf(claimed.numerator) / claimed.denominator
    # the two enclosures (each about 1e-15 wide) must meet
    assert witness.delta.lower <= high and low <= witness.delta.upper
    assert witness.delta.upper - witness.delta.lower < mpmath.mpf("1e-14")
    # oriented: the reverse direction has the smaller δ
    assert brute_force_delta(mech, d2, d1, eps)[0] <= witness.delta.upper


def test_svt1_at_its_claimed_eps_has_delta_exactly_zero():
    result = search_delta(exactdp.mechanism("svt1", eps=1), 0, max_length=3, max_evaluations=20)
    delta = result.witness.delta
    assert (delta.value, delta.lower, delta.upper) == (0, 0, 0)
    assert result.verdict == "within" and result.first_violation is None
    assert result.evaluations == 20


def test_same_seed_same_witness():
    # at ε = 0, δ is the total variation distance: positive on every pair whose outputs differ,
    # so the pairs' scores differ and the witness depends on the candidates' order
    def run(seed):
        return search_delta(exactdp.mechanism("svt1"), Fraction(1, 10), 0, max_length=4,
                            max_evaluations=40, seed=seed).record()

    first = run(3)
    assert mpmath.mpf(first["delta_lower"]) > 0
    assert run(3) == first


@pytest.mark.parametrize("arguments, message", [
    (["svt1", "--delta", "1"], "delta must be in [0, 1), got delta=1"),
    (["svt1", "--delta", "-0.1"], "delta must be in [0, 1), got delta=-0.1"),
    (["svt1", "--delta", "x"], "delta must be a number, got 'x'"),
    (["svt1", "--delta", "0", "--eps", "-1"], "eps must be at least 0, got eps=-1"),
    (["svt1", "--eps", "1"], "--eps=1 needs --delta"),
    (["svt_gaussian", "--delta", "0.01"], "svt_gaussian claims no ε"),
])
def test_bad_inputs_exit_2_with_one_line(arguments, message, capsys):
    assert main(["search", *arguments, "--max-length", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_unsupported_mechanism_gets_the_profiles_refusal():
    mech = exactdp.mechanism("svt3")
    with pytest.raises(InputError) as profile:
        exactdp.privacy_profile(mech, [0, 0], [1, 1], [1])
    with pytest.raises(InputError) as searched:
        search_delta(mech, 0, max_length=2)
    assert str(searched.value) == str(profile.value)


def test_cli_json_rechecks_with_exactdp_profile(capsys):
    assert main(["search", "svt1", "--delta", "0.01", "--eps", "0.5", "--max-length", "2",
                 "--evaluations", "6", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["eps"] == "0.5" and record["claimed_delta"] == "0.01"
    command = shlex.split(record["recheck"])
    assert command[:2] == ["exactdp", "profile"]
    arguments = command[1:]
    assert main([*arguments, "--dps", "15", "--json"]) == 0
    profile, = json.loads(capsys.readouterr().out)
    assert (profile["delta"], profile["lower"], profile["upper"]) == (
        record["delta"], record["delta_lower"], record["delta_upper"])
