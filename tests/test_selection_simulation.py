"""Simulated runs of selection mechanisms and their rates (exactdp/sampling/selection.py).

References, each independent of the simulation:

* the exact selection probabilities of ``exactdp/exact/selection/`` (certified integrals,
  checked against brute-force sums over outputs in tests/test_utility.py): the seeded frequencies of
  20,000 runs lie in their 99.9 % Wilson intervals;
* random order where the exact engine models the given order only (``svt2``,
  ``svt_retraversal``): the given-order probabilities averaged over every permutation of the
  queries (in a uniformly random order each permutation is equally likely);
* the mean FNR and SER of the runs: Hoeffding's bound around the exact expectations;
* the rates of hand-made selections: computed by hand in the comments.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

import exactdp
from exactdp.errors import InputError
from exactdp.mechanisms.description import ThresholdMechanism
from exactdp.sampling import selection
from exactdp.sampling.selection import run_rates, simulate_selection
from exactdp.exact.selection import expected_utility, selection_probabilities

from .reference import binomial_interval

RUNS = 20_000
SEED = 20170601
SVT_S = ("svt7", dict(eps1=1, eps2=2, eps3=0, c=2, T=1, monotone=True))
SVT2 = ("svt2", dict(eps=2, c=2, T=1))
EM_TOP = ("em_top", dict(eps=2, c=2))
RETRAVERSAL = ("svt_retraversal", dict(eps1=2, eps2=1, c=2, T=1))
QUERIES = [2, 0, 1, 3, 1]


def simulate(case, queries, order, runs=RUNS, seed=SEED):
    name, params = case
    mech = exactdp.mechanism(name, **params)
    return mech, simulate_selection(mech, queries, runs, np.random.default_rng(seed), order)


def assert_within_wilson_intervals(selected, exact):
    for i, (ball, count) in enumerate(zip(exact, selected.sum(axis=0))):
        low, high = binomial_interval(int(count), selected.shape[0])
        assert low <= float(ball.mid()) <= high, (i, ball, int(count))


def assert_selection_sizes(mech, selected):
    sizes = selected.sum(axis=1)
    if isinstance(mech, ThresholdMechanism):  # Sparse Vector stops at c, or at the last query
        assert sizes.max() <= mech.cutoff
    else:  # em_top and retraversal always select exactly c
        assert np.all(sizes == mech.c)


@pytest.mark.parametrize("case, queries, order", [
    (SVT_S, QUERIES, "given"), (SVT_S, QUERIES, "random"), (SVT2, QUERIES, "given"),
    (EM_TOP, QUERIES, "given"), (EM_TOP, QUERIES, "random"), (RETRAVERSAL, [3, 0, 1, 2], "given"),
], ids=["svt7-given", "svt7-random", "svt2-given", "em_top-given", "em_top-random",
        "svt_retraversal-given"])
def test_frequencies_lie_in_the_wilson_intervals_of_the_exact_probabilities(case, queries, order):
    mech, selected = simulate(case, queries, order)
    assert selected.shape == (RUNS, len(queries)) and selected.dtype == bool
    assert_selection_sizes(mech, selected)
    assert_within_wilson_intervals(selected,
                                   selection_probabilities(mech, queries, order, digits=6))


def averaged_over_permutations(mech, queries):
    """``P_i`` in a uniformly random order: the given-order probabilities of every permutation,
    averaged (each permutation has probability ``1/n!``)."""
    permutations = list(itertools.permutations(range(len(queries))))
    totals = [0] * len(queries)
    for permutation in permutations:
        given = selection_probabilities(mech, [queries[k] for k in permutation], digits=6)
        for position, k in enumerate(permutation):
            totals[k] += given[position] / len(permutations)
    return totals


@pytest.mark.parametrize("case", [SVT2, RETRAVERSAL], ids=lambda case: case[0])
def test_random_order_is_the_average_over_permutations(case):
    queries = [3, 0, 1, 2]
    mech, selected = simulate(case, queries, "random")
    assert_selection_sizes(mech, selected)
    assert_within_wilson_intervals(selected, averaged_over_permutations(mech, queries))


@pytest.mark.parametrize("case, order", [(SVT_S, "random"), (RETRAVERSAL, "given")],
                         ids=["svt7-random", "svt_retraversal"])
def test_mean_rates_lie_within_hoeffding_bounds_of_the_exact_expectations(case, order):
    # With non-negative answers each run's FNR and SER lie in [0, 1], so by Hoeffding's
    # inequality Pr[|mean − E| ≥ t] ≤ 2e^{−2·runs·t²}: t for a level of 10^{-3}.
    queries = [3, 0, 1, 2]
    mech, selected = simulate(case, queries, order)
    exact = expected_utility(mech, queries, order, digits=6)
    fnr, ser = run_rates(selected, queries, 2)
    t = math.sqrt(math.log(2 / 1e-3) / (2 * RUNS))
    assert abs(fnr.mean() - float(exact.fnr.mid())) <= t
    assert abs(ser.mean() - float(exact.ser.mid())) <= t


def test_run_rates_of_hand_made_selections():
    # answers 5, 3, 0, 2 and c = 2: top c = {0, 1}, Σ_top = 8;
    # FNR = 1 − |selected ∩ {0, 1}|/2, SER = 1 − Σ_selected q/8
    selected = np.array([[1, 1, 0, 0],   # the top: FNR 0, SER 1 − 8/8 = 0
                         [0, 0, 1, 1],   # neither: FNR 1, SER 1 − 2/8 = 0.75
                         [1, 0, 0, 1],   # one: FNR 1/2, SER 1 − 7/8 = 0.125
                         [0, 1, 0, 0],   # one, fewer than c: FNR 1/2, SER 1 − 3/8 = 0.625
                         [0, 0, 0, 0]],  # none: FNR 1, SER 1
                        dtype=bool)
    fnr, ser = run_rates(selected, [5, 3, 0, 2], 2)
    assert fnr.tolist() == [0, 1, 0.5, 0.5, 1]
    assert ser.tolist() == [0, 0.75, 0.125, 0.625, 1]


def test_run_rates_break_ties_by_the_lower_index():
    # answers 1, 3, 1, 1 and c = 2: top c = {1, 0} (of the tied 1's the lowest index), Σ_top = 4
    selected = np.array([[0, 1, 0, 1],   # FNR 1 − 1/2 = 0.5, SER 1 − 4/4 = 0
                         [0, 0, 1, 1]],  # FNR 1, SER 1 − 2/4 = 0.5
                        dtype=bool)
    fnr, ser = run_rates(selected, "1,3,1*2", 2)
    assert fnr.tolist() == [0.5, 1] and ser.tolist() == [0, 0.5]


def test_run_rates_without_a_positive_top_score_have_no_ser():
    fnr, ser = run_rates(np.array([[False, False, True]]), [0, -1, 0], 1)
    assert fnr.tolist() == [1] and ser is None


@pytest.mark.parametrize("case, order", [
    (SVT_S, "given"), (SVT_S, "random"), (SVT2, "random"), (EM_TOP, "given"),
    (RETRAVERSAL, "given"), (RETRAVERSAL, "random"),
], ids=["svt7-given", "svt7-random", "svt2-random", "em_top", "svt_retraversal-given",
        "svt_retraversal-random"])
def test_the_same_seed_gives_the_same_runs(case, order):
    _, first = simulate(case, QUERIES, order, runs=500, seed=5)
    _, second = simulate(case, QUERIES, order, runs=500, seed=5)
    assert np.array_equal(first, second)


def test_em_top_ignores_the_order():
    _, given = simulate(EM_TOP, QUERIES, "given", runs=500, seed=5)
    _, random = simulate(EM_TOP, QUERIES, "random", runs=500, seed=5)
    assert np.array_equal(given, random)


@pytest.mark.parametrize("name, params, runs, order, message", [
    ("svt1", {}, 10, "sideways", "order must be given or random, got 'sideways'"),
    ("svt1", {}, 0, "given", "runs must be a positive integer, got 0"),
    ("em_top", {}, 2.5, "given", "runs must be a positive integer, got 2.5"),
    ("svt1", dict(c=3), 10, "given", "the cutoff c=3 exceeds the number of queries (2)"),
    ("svt_retraversal", dict(c=3), 10, "random", "the cutoff c=3 exceeds the number of queries"),
    ("svt5", {}, 10, "given", "needs a selection mechanism with a cutoff c"),
    ("noisy_max_laplace", {}, 10, "given", "needs a selection mechanism with a cutoff c"),
])
def test_bad_input_is_one_clear_error(name, params, runs, order, message):
    mech = exactdp.mechanism(name, **params)
    with pytest.raises(InputError, match=re.escape(message)):
        simulate_selection(mech, [1, 0], runs, np.random.default_rng(0), order)


@pytest.mark.parametrize("selected, c, message", [
    (np.zeros((2, 3), dtype=bool), 1, "selected must have one column per query (2), got shape "
     "(2, 3)"),
    (np.zeros((2, 2), dtype=bool), 3, "the cutoff c=3 exceeds the number of queries (2)"),
    (np.zeros((2, 2), dtype=bool), 0, "the cutoff c must be a positive integer, got 0"),
])
def test_run_rates_bad_input_is_one_clear_error(selected, c, message):
    with pytest.raises(InputError, match=re.escape(message)):
        run_rates(selected, [1, 0], c)


def test_retraversal_refuses_after_the_traversal_cap(monkeypatch):
    # a threshold 1000 above the answers: a query passes with probability below e^{-400}
    monkeypatch.setattr(selection, "SIMULATED_TRAVERSALS", 3)
    mech = exactdp.mechanism("svt_retraversal", eps1=1, eps2=1, c=1, T=1000)
    with pytest.raises(InputError, match=re.escape("10 of 10 runs selected fewer than c=1 "
                                                   "queries in 3 traversals")):
        simulate_selection(mech, [0, 1], 10, np.random.default_rng(0))
