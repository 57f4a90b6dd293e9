"""``exactdp search``: the exact worst case over StatDP's patterns, random pairs and a local search.

Reference values: the true privacy of each variant (Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3;
Chen & Machanavajjhala 2015 (arXiv:1508.07306)), CheckDP's appendix D (Wang, Ding, Kifer & Zhang,
CCS 2020 (arXiv:2008.07485)), and the closed forms derived in
the tests below.
"""

import json
import shlex
from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.sampling.inputs import HALF_HALF_VERSIONS, STATDP_PATTERNS
from exactdp.search import SearchResult, Witness, input_space, search
from exactdp.sequences import as_output, as_queries


def test_patterns_reproduce_statdp_table_1_at_length_5():
    # Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (arXiv:1805.10277), Table 1 (D1, D2 samples of
    # length 5)
    table = {name: (first(5), second(5)) for name, first, second in STATDP_PATTERNS}
    assert table["one above"] == ([1] * 5, [2, 1, 1, 1, 1])
    assert table["one below rest above"] == ([1] * 5, [0, 2, 2, 2, 2])
    # "half half" follows StatDP's code (generate_databases: 2^⌊n/2⌋ 0^⌈n/2⌉); the table
    # prints [0, 0, 0, 2, 2]
    assert table["half half"] == ([1] * 5, [2, 2, 0, 0, 0])
    assert HALF_HALF_VERSIONS["paper table"](5) == [0, 0, 0, 2, 2]
    assert table["x shape"] == ([1, 1, 0, 0, 0], [0, 0, 1, 1, 1])


def test_input_space_neighbours():
    all_differ = input_space(exactdp.mechanism("svt1"))
    assert all_differ.allows((0, 0), (1, -1))
    assert not all_differ.allows((0, 0), (2, 0))
    assert not input_space(exactdp.mechanism("histogram")).allows((0, 0), (1, 1))
    assert not input_space(exactdp.mechanism("svt7", monotone=True)).allows((0, 0), (1, -1))
    assert input_space(exactdp.mechanism("svt1", T=2)).origin == 2


def test_svt4_reaches_1_6_eps_within_length_8():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2: svt4 is (1+6c)ε/4 = 1.75ε-DP (tight)
    # at c = 1; the search must find ≥ 1.6ε.
    result = search(exactdp.mechanism("svt4", eps=1), max_length=8, seed=0, max_evaluations=60,
                    budget=120)
    loss = result.witness.loss
    assert result.verdict == "violation"
    assert 1.6 <= loss.log_ratio <= 1.75
    assert len(result.witness.d1) <= 8
    # the witness is exact: recomputed independently with privacy_loss (two methods)
    again = exactdp.privacy_loss(exactdp.mechanism("svt4", eps=1), result.witness.d1,
                                 result.witness.d2, result.witness.output)
    assert abs(again.log_ratio - loss.log_ratio) < 1e-20


def test_local_search_beats_the_patterns():
    # At length ≤ 4 StatDP's best pattern (x shape) gives ln ratio 1.436 for svt4 and Lyu's
    # tightness family (0^3, 1) vs (1^3, 0) gives 1.603 (the svt4-tight claim at k = 3, checked by
    # independent quadrature in test_claims_lyu); the local search goes beyond both towards the
    # supremum 7/4.
    pattern = exactdp.max_privacy_loss(exactdp.mechanism("svt4"), [1, 1, 0, 0], [0, 0, 1, 1])
    assert abs(abs(pattern.loss.log_ratio) - mpmath.mpf("1.43630463453007")) < 1e-12
    result = search(exactdp.mechanism("svt4"), max_length=4, seed=0, max_evaluations=150,
                    budget=120)
    assert 1.65 < result.witness.loss.log_ratio <= 1.75


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_svt1_never_exceeds_eps(seed):
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Thm 2: svt1 is ε-DP, so no pair and no output may
    # exceed ε.
    result = search(exactdp.mechanism("svt1", eps=1), max_length=5, seed=seed,
                    max_evaluations=150, budget=120)
    assert result.verdict == "within claim"
    assert 0 < result.witness.loss.log_ratio <= 1


def test_bad_smart_sum_infinite_loss_and_cli_recheck(capsys):
    # CheckDP appendix D.4: the block end releases the exact block sum (probability 1 vs 0).
    result = search(exactdp.mechanism("bad_smart_sum", M=3), max_length=6, seed=0)
    assert result.witness.loss.log_ratio == mpmath.inf
    assert result.stopped_by == "infinite loss" and result.verdict == "violation"
    record = result.record()
    rechecked = _recheck(record, capsys)
    assert (rechecked["log_ratio"], rechecked["p2"]) == ("inf", "0")
    # the same violation as an event: probability 1 under D1, exactly 0 under D2
    assert record["event_log_ratio"] == "inf"
    assert main(shlex.split(record["event_recheck"])[1:] + ["--json"]) == 0
    event = json.loads(capsys.readouterr().out)
    assert (event["p1"], event["p2"]) == ("1.0", "0")


def test_bad_partial_sum_is_two_eps():
    # CheckDP appendix D.3: Lap(1/(2ε)) makes PartialSum 2ε-DP, not ε-DP; the sup is attained.
    result = search(exactdp.mechanism("bad_partial_sum", eps=Fraction(1, 2)), max_length=5,
                    max_evaluations=30)
    assert result.verdict == "violation"
    assert abs(result.witness.loss.log_ratio - 1) < 1e-25
    # the tail event attains the same ratio e^{2ε} (CheckDP's claim of a 2ε mechanism)
    assert abs(result.witness.event_loss.log_ratio - 1) < 1e-25
    correct = search(exactdp.mechanism("partial_sum", eps=Fraction(1, 2)), max_length=5,
                     max_evaluations=30)
    assert correct.verdict == "within claim"
    assert abs(correct.witness.loss.log_ratio - Fraction(1, 2)) < 1e-25


def test_svt5_structural_zero():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2 (Thm 3.5): svt5 has an output with
    # probability 0 on a neighbour.
    result = search(exactdp.mechanism("svt5"), max_length=3)
    assert result.witness.loss.log_ratio == mpmath.inf
    assert result.witness.loss.p2.is_zero


@pytest.mark.parametrize("name", ["svt6", "gap_svt"])
def test_same_seed_same_witness(name):
    # gap_svt also exercises the value optimisation (grid, then scipy's bounded Brent refinement)
    first, second = (search(exactdp.mechanism(name), max_length=4, seed=5, max_evaluations=25,
                            budget=120).record() for _ in range(2))
    assert first == second
    assert first["stopped_by"] == "evaluations" and first["evaluations"] == 25


def _recheck(record, capsys) -> dict:
    """Run the record's ``exactdp loss`` command and return its JSON answer."""
    assert main(shlex.split(record["recheck"])[1:] + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name, length, evaluations, per_query", [
    # b_ν = 4N/ε = 4 (CheckDP's BadGapSVT, N = 1) and 2c/ε = 2 (Lyu Alg. 3, c = 1)
    ("bad_gap_svt", 3, 24, mpmath.mpf(1) / 4),
    ("bad_gap_svt", 5, 40, mpmath.mpf(1) / 4),
    ("svt3", 3, 24, mpmath.mpf(1) / 2),
])
def test_released_noisy_value_loss_grows_with_the_length(name, length, evaluations, per_query,
                                                         capsys):
    # BadGapSVT's ln ratio grows like mε/(4N) (D = (0^m, 0), D' = (1^m, 0), a = (⊥^m, 0); Wang,
    # Ding, Kifer & Zhang, CCS 2020 (arXiv:2008.07485),
    # appendix D); Alg. 3's like mε/2 (Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Appendix 9.1).
    # Independent computation: for an output
    # (⊥^{n−1}, v) with v below every query, z ≤ v − T keeps every factor F(z − q_i) in its
    # exponential branch ½e^{(z − q_i)/b_ν}, and p_ν(v − q_n) = e^{(v − q_n)/b_ν}/(2b_ν); so when
    # all n queries move up by Δ = 1 the density ratio is e^{n/b_ν} exactly, m = n − 1 ⊥'s plus
    # the released query.  The search must reach it at length n.
    result = search(exactdp.mechanism(name), max_length=length, seed=0,
                    max_evaluations=evaluations, budget=120)
    loss = result.witness.loss.log_ratio
    assert loss >= (length - 1) * per_query  # the family above with m = n − 1
    assert abs(loss - length * per_query) < 1e-25
    assert result.verdict == ("violation" if loss > 1 else "within claim")
    assert abs(mpmath.mpf(_recheck(result.record(), capsys)["log_ratio"]) - loss) < 1e-25


def test_recheck_command_accepts_values_starting_with_a_minus(capsys):
    # "--d1 -1,0" would make argparse read "-1,0" as an option: the record spells "--d1=-1,0"
    mech = exactdp.mechanism("noisy_max_laplace_value")
    d1, d2, output = as_queries("-1,0"), as_queries("0,1"), as_output("-4/3")
    witness = Witness(d1, d2, output, exactdp.privacy_loss(mech, d1, d2, "-4/3"))
    record = SearchResult(mech, witness, mech.claimed_eps, 1, "evaluations", 0.0, None).record()
    assert "--d1=-1,0" in record["recheck"] and "--output=-4/3" in record["recheck"]
    # below every answer the ratio is e^{Σ_j (d2_j − d1_j)/b} = e^{2/2} (b = 2Δ/ε = 2; see
    # test_bad_noisy_max_exceeds_eps)
    assert _recheck(record, capsys)["log_ratio"] == "1.0"


def test_bad_noisy_max_exceeds_eps(capsys):
    # BadNoisyMax (Wang, Ding, Kifer & Zhang, CCS 2020 (arXiv:2008.07485)): its loss reaches nε/2 on
    # n all-differ queries.  Independent
    # computation: below every answer the density of the maximum of q_j + Lap(b), b = 2Δ/ε, is
    # Σ_i p(v − q_i)Π_{j≠i}F(v − q_j) = n·2^{−n}·b^{−1}·e^{Σ_j (v − q_j)/b}, so moving all n
    # queries by Δ gives the ratio e^{nΔ/b} = e^{nε/2}: 3/2 at n = 3.
    result = search(exactdp.mechanism("noisy_max_laplace_value"), max_length=3, seed=0,
                    max_evaluations=24)
    assert result.verdict == "violation"
    assert abs(result.witness.loss.log_ratio - mpmath.mpf(3) / 2) < 1e-25
    assert abs(mpmath.mpf(_recheck(result.record(), capsys)["log_ratio"]) - 1.5) < 1e-25
    # exponential noise: the maximum is never below the largest answer, so a value between the
    # two inputs' largest answers has density exactly 0 under one of them
    exponential = search(exactdp.mechanism("noisy_max_exponential_value"), max_length=2)
    assert exponential.witness.loss.log_ratio == mpmath.inf
    assert exponential.witness.loss.p2.is_zero and exponential.stopped_by == "infinite loss"


@pytest.mark.parametrize("name, length, evaluations", [
    ("gap_svt", 5, 40), ("num_svt", 4, 24), ("noisy_max_laplace", 4, 24),
    ("statdp.noisy_max_v2a", 3, 16), ("histogram", 4, 40), ("statdp.histogram", 3, 20),
])
def test_correct_released_value_and_noisy_max_mechanisms_stay_within_eps(name, length,
                                                                         evaluations):
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Thm 2 / CheckDP appendix D / Dwork & Roth, "The
    # Algorithmic Foundations of
    # Differential Privacy", 2014, §3.3: all ε-DP, so no pair and no output
    # (or released value) may exceed ε.
    result = search(exactdp.mechanism(name, eps=1), max_length=length, seed=0,
                    max_evaluations=evaluations, budget=120)
    assert result.verdict == "within claim"
    # (noisy max with exponential noise reaches exactly ε: allow the loss's own error bound; a
    # float 1 + 1e-25 would be 1.0)
    assert 0 < result.witness.loss.log_ratio
    assert result.witness.loss.log_ratio - 1 <= result.witness.loss.error


def test_histogram_losses_are_exact():
    # One bin moves by Δ: the density ratio p_b(0)/p_b(Δ) = e^{Δ/b}; b = Δ/ε gives ε exactly
    # (Dwork & Roth §3.3), StatDP's b = ε gives Δ/ε = 2 at ε = 0.5 (Ding, Wang, Wang, Zhang &
    # Kifer, CCS 2018 (arXiv:1805.10277), Alg. 10: 1/ε0).
    assert abs(search(exactdp.mechanism("histogram", eps=Fraction(1, 2)), max_length=3,
                      max_evaluations=10).witness.loss.log_ratio - Fraction(1, 2)) < 1e-25
    wrong = search(exactdp.mechanism("histogram_eps", eps=Fraction(1, 2)), max_length=3,
                   max_evaluations=10)
    assert wrong.verdict == "violation" and abs(wrong.witness.loss.log_ratio - 2) < 1e-25


def test_cli_json_record(capsys):
    assert main(["search", "bad_partial_sum", "--max-length", "3", "--evaluations", "5",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert {"d1", "d2", "output", "log_ratio", "claimed", "verdict"} <= set(record)
    assert (record["log_ratio"], record["claimed"], record["verdict"]) == ("2.0", "1", "violation")


def test_bad_arguments():
    with pytest.raises(InputError, match="max_length must be a positive integer, got max_length=0"):
        search(exactdp.mechanism("svt1"), max_length=0)
    with pytest.raises(InputError, match="budget must be a positive number of seconds"):
        search(exactdp.mechanism("svt1"), budget=-1)
    with pytest.raises(InputError, match="needs a mechanism description, got object"):
        search(object())


def test_small_space_is_exhausted():
    # one query, one-differ: d1 ∈ origin + {−1, 0, 1, 2}, d2 = d1 ± 1 — only 5 unordered pairs
    result = search(exactdp.mechanism("partial_sum"), max_length=1)
    assert (result.stopped_by, result.evaluations) == ("exhausted", 5)
