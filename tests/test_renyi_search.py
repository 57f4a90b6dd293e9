"""The worst-pair search for the Rényi divergence: the grid, both directions from one
computation, and ``exactdp search MECH --alpha A``.

References: ``renyi_divergence`` of each direction computed separately (the engine's single-pair
path); Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Thm 2 (svt1 is ε-DP, so ``D_∞ ≤ ε``).
"""

import json
import shlex

import pytest

import exactdp
from exactdp.cli import main
from exactdp.exact.divergences.renyi import renyi_both_ways, renyi_divergence
from exactdp.renyi_search import grid_pairs, score_pairs, search_renyi, worst

GAUSSIAN_SVT = exactdp.mechanism("svt_gaussian", sigma1=1, sigma2=2, c=1)


def test_grid_has_every_unordered_pair_once():
    pairs = grid_pairs(GAUSSIAN_SVT, 3)
    # 2^3 levels × 2^3 moves = 64 ordered pairs, of which the 8 with d2 = 1 − d1 (both in
    # {0, 1}^3) are the reverse of another: 64 − 4 = 60
    assert len(pairs) == 60
    keys = {frozenset(pair) for pair in pairs}
    assert len(keys) == 60
    assert all(abs(a - b) == 1 for d1, d2 in pairs for a, b in zip(d1, d2))


def test_grid_keeps_non_negative_pairs_only_when_asked():
    pairs = grid_pairs(GAUSSIAN_SVT, 3, lowest=0)
    assert pairs and all(min(d1 + d2) >= 0 for d1, d2 in pairs)
    # coordinate by coordinate: (0, 1), (1, 0), (1, 2) are allowed, (0, −1) is not: 3^3 ordered,
    # minus the reversed duplicates (the 2^3 − 0 patterns over {(0, 1), (1, 0)}: 4 pairs)
    assert len(pairs) == 27 - 4


@pytest.mark.parametrize("d1, d2", [([0, 0, 1], [1, 1, 0]), ([0], [1])])
def test_both_ways_agree_with_each_direction_alone(d1, d2):
    alphas = [2, 5, "inf"]
    forward, backward = renyi_both_ways(GAUSSIAN_SVT, d1, d2, alphas, dps=20)
    assert forward == renyi_divergence(GAUSSIAN_SVT, d1, d2, alphas, dps=20)
    assert backward == renyi_divergence(GAUSSIAN_SVT, d2, d1, alphas, dps=20)


def gaussian_release(prng, queries, sigma=2):
    return queries[0] + prng.normal(scale=sigma)


def test_location_shift_is_the_same_both_ways():
    program = exactdp.program(gaussian_release)
    forward, backward = renyi_both_ways(program, [0], [1], [3])
    assert forward == backward == renyi_divergence(program, [0], [1], [3])


def test_worst_scored_pair_is_the_largest_of_its_pairs():
    scored = score_pairs(GAUSSIAN_SVT, [2], grid_pairs(GAUSSIAN_SVT, 1), dps=15)
    assert len(scored) == 6                                   # 3 pairs, both directions
    best = worst(scored, 0)
    assert all(best.at(0).lower >= pair.at(0).lower for pair in scored)


def test_svt1_stays_within_its_eps():
    # svt1 (ε = 1) is ε-DP (Lyu et al. Thm 2), so D_∞ ≤ 1 on every pair
    result = search_renyi(exactdp.mechanism("svt1", eps=1), "inf", max_length=3,
                          max_evaluations=15)
    assert 0 < result.witness.divergence.upper <= 1 and result.evaluations == 15


@pytest.mark.parametrize("arguments, message", [
    (["svt_gaussian", "--alpha", "1"], "alpha must be greater than 1 (or inf), got alpha=1"),
    (["svt_gaussian", "--alpha", "x"], "alpha must be a number, got 'x'"),
    (["svt_gaussian", "--alpha", "2", "--delta", "0.1"], "takes neither --delta nor --eps"),
    (["svt_gaussian", "--alpha", "2", "--eps", "1"], "takes neither --delta nor --eps"),
])
def test_bad_inputs_exit_2_with_one_line(arguments, message, capsys):
    assert main(["search", *arguments, "--max-length", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_cli_json_rechecks_with_exactdp_renyi(capsys):
    assert main(["search", "svt_gaussian", "--param", "c=1", "--alpha", "3", "--max-length", "2",
                 "--evaluations", "6", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["alpha"] == "3" and record["evaluations"] == 6
    command = shlex.split(record["recheck"])
    assert command[:2] == ["exactdp", "renyi"]
    assert main([*command[1:], "--dps", "15", "--json"]) == 0
    point, = json.loads(capsys.readouterr().out)
    assert (point["divergence"], point["lower"], point["upper"]) == (
        record["divergence"], record["divergence_lower"], record["divergence_upper"])
