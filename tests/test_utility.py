"""Exact selection probabilities and expected FNR/SER (exactdp/exact/selection/).

References, each independent of the generating-polynomial integrals under test:

* Sparse Vector, given order: the sum over every ⊤/⊥ output with ⊤ at position i of the exact
  probability of that output (``exactdp.probability``, Lyu, Su & Li Eq. 5, certified);
* random order: the same, averaged over every permutation of the queries;
* ``em_top``: every ordered selection, with the exponential mechanism's sequential probabilities
  ``w_s / Σ_{remaining} w`` (mpmath at 40 digits);
* ``svt_retraversal`` with ``c = 1``: summing the traversals in closed form, query ``i`` is
  selected with probability ``∫ p_ρ(z) S_i Π_{j<i} F_j / (1 − Π_j F_j) dz`` (mpmath quadrature
  at 30 digits), and seeded simulation of the mechanism's run within 99.9 % binomial intervals.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import given, settings, strategies as st

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.backends import rounding_bounds
from exactdp.exact.backends.interval_arrays import ArbArrays, FloatIntervals
from exactdp.exact.selection import expected_utility, selection_probabilities
from exactdp.exact.selection.kinds import FLOAT_DIGITS

from .reference import binomial_interval

DPS = 12
#: The references' own accuracy: a ball may miss its reference by this much.
SLACK = mpmath.mpf(10) ** (-DPS - 3)


def outputs(n: int, c: int):
    """Every ⊤/⊥ output of a Sparse Vector with cutoff ``c`` on ``n`` queries."""
    for length in range(1, n + 1):
        for flags in itertools.product((False, True), repeat=length):
            tops = sum(flags)
            if tops > c or (tops == c and not flags[-1]) or (length < n and tops < c):
                continue
            yield flags


def brute_force_given(mech, queries, c):
    """``P_i`` as mpf from the exact probabilities of every output."""
    totals = [mpmath.mpf(0)] * len(queries)
    for flags in outputs(len(queries), c):
        text = ",".join("T" if flag else "F" for flag in flags)
        value = exactdp.probability(mech, queries, text, dps=DPS + 5).value
        for i, flag in enumerate(flags):
            if flag:
                totals[i] += value
    return totals


def brute_force_random(mech, queries, c):
    n = len(queries)
    totals = [mpmath.mpf(0)] * n
    permutations = list(itertools.permutations(range(n)))
    for order in permutations:
        given_order = brute_force_given(mech, [queries[k] for k in order], c)
        for position, k in enumerate(order):
            totals[k] += given_order[position] / len(permutations)
    return totals


def assert_encloses(balls, references, slack=SLACK, digits=DPS):
    """Each ball holds its reference (within ``slack``, the reference's own accuracy) and is
    narrower than ``10^{1 − digits}``."""
    for i, (ball, reference) in enumerate(zip(balls, references)):
        low, high = mpmath.mpf(ball.lower()._mpf_), mpmath.mpf(ball.upper()._mpf_)
        assert low - slack <= reference <= high + slack, (i, ball, reference)
        assert high - low < mpmath.mpf(10) ** (-digits + 1), (i, ball)


SPARSE_VECTOR_CASES = [
    ("svt1", dict(eps=1, c=1), [Fraction(1, 2), 0, 1]),
    ("svt1", dict(eps=2, c=2, T=Fraction(1, 2)), [1, 0, Fraction(3, 4)]),
    ("svt4", dict(eps=1, c=2), [0, 1, 0]),
    # an integer-valued threshold noise: a sum over the integers instead of an integral
    ("svt_discrete", dict(c=2, T=1), [1, 0, 2]),
    ("svt_discrete", dict(c=1, threshold_scale=3), [2, 2, -1]),
    ("svt7", dict(c=2, monotone=True), [2, 0, 1]),
    ("statdp.SVT", dict(N=1), [1, 1, 0]),
    ("svt2", dict(eps=1, c=2), [1, 0, 2]),
]


@pytest.mark.parametrize("name, params, queries", SPARSE_VECTOR_CASES)
def test_sparse_vector_given_order_equals_the_sum_over_outputs(name, params, queries):
    mech = exactdp.mechanism(name, **params)
    c = mech.cutoff
    with mpmath.workdps(DPS + 10):
        assert_encloses(selection_probabilities(mech, queries, digits=DPS),
                        brute_force_given(mech, queries, c))


def counting_leading(monkeypatch) -> list:
    """Record the number of leading values each time a node's integrands are cut off."""
    from exactdp.exact.selection import given_order
    from exactdp.exact.backends.vector_quadrature import Leading

    cuts = []

    def counting(values, rest, size):
        cuts.append(len(values))
        return Leading(values, rest, size)

    monkeypatch.setattr(given_order, "Leading", counting)
    return cuts


@pytest.mark.parametrize("digits, in_arb", [(6, False), (DPS, True)], ids=["doubles", "arb"])
def test_redrawn_threshold_equals_the_sum_over_outputs(digits, in_arb, monkeypatch):
    # Alg. 2 with c = 3 where the first queries (answers −60, query noise Lap(3/2)) almost
    # never pass: the sum over every output, within the digits asked; at 6 digits the
    # a-priori rounding bound of the chain in doubles fits, at DPS it does not and the chain
    # runs in Arb balls
    from exactdp.exact.selection import redrawn_threshold

    calls, in_blocks = [], redrawn_threshold.chain_in_blocks

    def recording(*args, **kwargs):
        calls.append(args)
        return in_blocks(*args, **kwargs)

    monkeypatch.setattr(redrawn_threshold, "chain_in_blocks", recording)
    mech = exactdp.mechanism("svt2", eps=8, c=3)
    queries = [-60, -60, 3, 2, 4, 3, 1]
    with mpmath.workdps(DPS + 10):
        assert_encloses(selection_probabilities(mech, queries, digits=digits),
                        brute_force_given(mech, queries, 3), digits=digits)
    assert bool(calls) == in_arb


def test_redrawn_threshold_in_doubles_holds_the_arb_chain(monkeypatch):
    # 120 Zipf-like answers (1000/i, rounded), c = 4, threshold between the 4th and 5th: the
    # chain in doubles (node values from the closed forms) against the same chain in Arb balls
    # on the same rule; each ball of the doubles holds the Arb ball's midpoint and is at most a
    # tenth wider
    from exactdp.exact.selection import redrawn_threshold

    queries = [round(1000 / i) for i in range(1, 121)]
    mech = exactdp.mechanism("svt2", eps=1, c=4, T=225)
    lifted = []
    original = redrawn_threshold.PassProbabilities.distinct_doubles

    def recording(laws, nodes):
        lifted.append(original(laws, nodes))
        return lifted[-1]

    monkeypatch.setattr(redrawn_threshold.PassProbabilities, "distinct_doubles", recording)
    quick = selection_probabilities(mech, queries, digits=6)
    assert lifted and lifted[0] is not None
    monkeypatch.setattr(rounding_bounds, "DOUBLE_SHARE", 0)
    careful = selection_probabilities(mech, queries, digits=6)
    for fast, slow in zip(quick, careful):
        assert fast.contains(slow.mid()) and fast.rad() <= 1.1 * slow.rad() + 1e-15


def test_node_values_in_doubles_hold_the_balls():
    # the doubles of w p_ρ S and F from the closed forms lie within their relative error (a
    # few units of 2^−53 at 80 bits) of the Arb balls of the same nodes (distinct_values), on
    # 40 nodes over the range
    from flint import ctx

    from exactdp.exact.selection.pass_probabilities import PassProbabilities

    mech = exactdp.mechanism("svt2", eps=1, c=4, T=225)
    queries = [round(1000 / i) for i in range(1, 121)]
    with ctx.workprec(80):
        laws = PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold,
                                 queries, arb(10) ** -8)
        low, high = laws.cuts[0], laws.cuts[-1]
        points = [low + (high - low) * Fraction(2 * j + 1, 80) for j in range(40)]
        nodes = [(arb(z.numerator) / z.denominator, arb(1) / 40, z) for z in points]
        passing, failing, error, dropped, _ = laws.distinct_doubles(nodes)
        assert dropped == 0 and error < 1e-14
        for j, (z, weight, middle) in enumerate(nodes):
            density, passes, fails = laws.distinct_values(z, middle)
            for k, (s, f) in enumerate(zip(passes, fails)):
                for ball, value in ((weight * density * s, passing[k, j]), (f, failing[k, j])):
                    assert abs(ball - value) <= error * value + ball.rad()


def test_given_order_sweeps_cut_off_agree_with_the_whole_sweep(monkeypatch):
    # 42 queries: the sweeps stop where Pr[fewer than c before i] is negligible, and agree
    # with the same computation never cut off
    from exactdp.exact.selection import given_order

    mech = exactdp.mechanism("svt1", eps=2, c=3)
    queries = [3, 2, 4, 3, 1, 5] * 7
    cuts = counting_leading(monkeypatch)
    cut = selection_probabilities(mech, queries, digits=DPS)
    assert cuts
    monkeypatch.setattr(given_order, "NEGLIGIBLE", 0)
    whole = selection_probabilities(mech, queries, digits=DPS)
    for a, b in zip(cut, whole):
        assert a.overlaps(b) and a.rad() < 10.0 ** -DPS and b.rad() < 10.0 ** -DPS


def test_given_order_skips_the_sweep_where_few_queries_pass(monkeypatch):
    # threshold 12, four answers 30…60 and 56 answers 1…5: on the pieces right of the kinks
    # at 30…60 (where the threshold noise is high) c = 20 passing queries among all 60 are
    # provably unlikely (Markov: below 10^−17 on two of them), and every Pr[fewer than 20
    # before i pass] is taken as [1 − that bound, 1] without a sweep; the same as sweeping
    from exactdp.exact.selection import given_order

    bounds = []
    original = given_order.at_least_bound

    def recording(*args):
        bounds.append(original(*args))
        return bounds[-1]

    monkeypatch.setattr(given_order, "at_least_bound", recording)
    mech = exactdp.mechanism("svt7", eps1=Fraction(1, 5), eps2=2, eps3=0, c=20, T=12,
                             monotone=True)
    queries = [60, 50, 40, 30] + [3, 2, 4, 3, 1, 5, 2, 3] * 7
    skipped = selection_probabilities(mech, queries, digits=DPS)
    assert sum(b < 1e-17 for b in bounds) >= 2
    monkeypatch.setattr(given_order, "NEGLIGIBLE", 0)
    swept = selection_probabilities(mech, queries, digits=DPS)
    for a, b in zip(skipped, swept):
        assert a.overlaps(b) and a.rad() < 10.0 ** -DPS


def test_given_order_leaves_out_kinks_no_integrand_needs(monkeypatch):
    # 30 queries that nearly always pass, then four low answers: at the four kinks of the low
    # answers' query noise, Pr[fewer than 2 of the first 30 pass] is provably negligible, so
    # they fall inside pieces where only the first 30 integrands are integrated (the others
    # bounded by the piece's probability times that bound); the same as never leaving them out
    from exactdp.exact.selection import given_order

    merged = []
    original = given_order.merged_cuts

    def recording(laws, c, negligible):
        cuts, limits = original(laws, c, negligible)
        merged.append((len(laws.cuts), len(cuts), [first for first, _ in limits]))
        return cuts, limits

    monkeypatch.setattr(given_order, "merged_cuts", recording)
    mech = exactdp.mechanism("svt1", eps=2, c=2)
    queries = [10] * 30 + [1, 2, 3, 4]
    left_out = selection_probabilities(mech, queries, digits=DPS)
    (before, after, firsts), = merged
    assert after == before - 3 and 30 in firsts  # the low answers' kinks in one piece
    monkeypatch.setattr(given_order, "NEGLIGIBLE", 0)
    kept = selection_probabilities(mech, queries, digits=DPS)
    assert merged[-1][:2] == (before, before)
    for a, b in zip(left_out, kept):
        assert a.overlaps(b) and a.rad() < 10.0 ** -DPS


@pytest.mark.parametrize("name, params, queries", SPARSE_VECTOR_CASES[:5])
def test_sparse_vector_random_order_equals_the_average_over_permutations(name, params, queries):
    mech = exactdp.mechanism(name, **params)
    with mpmath.workdps(DPS + 10):
        assert_encloses(selection_probabilities(mech, queries, "random", digits=DPS),
                        brute_force_random(mech, queries, mech.cutoff))


def test_gaussian_sparse_vector_given_order():
    mech = exactdp.mechanism("svt_gaussian", c=1)
    queries = [1, 0]
    with mpmath.workdps(DPS + 10):
        assert_encloses(selection_probabilities(mech, queries, digits=DPS),
                        brute_force_given(mech, queries, 1))


def brute_force_em(queries, c, eps, monotone=False):
    """The exponential mechanism ``c`` times without replacement, every ordered selection."""
    n = len(queries)
    weights = [mpmath.exp(mpmath.mpf(eps) * q / ((1 if monotone else 2) * c)) for q in queries]
    totals = [mpmath.mpf(0)] * n
    for chosen in itertools.permutations(range(n), c):
        probability, remaining = mpmath.mpf(1), set(range(n))
        for k in chosen:
            probability *= weights[k] / sum(weights[j] for j in remaining)
            remaining.remove(k)
        for k in chosen:
            totals[k] += probability
    return totals


@pytest.mark.parametrize("queries, c, eps, monotone", [
    ([2, 0, 1], 1, 1, False), ([3, 1, 1, 0], 2, 2, False), ([0, 1, 2], 2, 1, True),
])
def test_em_top_equals_the_sequential_exponential_mechanism(queries, c, eps, monotone):
    mech = exactdp.mechanism("em_top", eps=eps, c=c, monotone=monotone)
    with mpmath.workdps(40):
        reference = brute_force_em(queries, c, eps, monotone)
    for order in ("given", "random"):
        assert_encloses(selection_probabilities(mech, queries, order, digits=DPS), reference)


def retraversal_reference(mech, queries):
    """``c = 1``: ``∫ p_ρ(z) S_i Π_{j<i} F_j / (1 − Π_j F_j) dz`` (module docstring)."""
    b_rho, b_nu = (mpmath.mpf(law.scale.numerator) / law.scale.denominator
                   for law in (mech.threshold_noise, mech.query_noise))
    threshold = mpmath.mpf(mech.threshold.numerator) / mech.threshold.denominator

    def sf(x):  # the Laplace survival function, 1 − F
        return 1 - mpmath.exp(x / b_nu) / 2 if x < 0 else mpmath.exp(-x / b_nu) / 2

    def integrand(i, z):
        passes = [sf(threshold + z - q) for q in queries]
        all_fail = -mpmath.expm1(mpmath.fsum(mpmath.log1p(-s) for s in passes))
        return (mpmath.exp(-abs(z) / b_rho) / (2 * b_rho) * passes[i]
                * mpmath.fprod(1 - s for s in passes[:i]) / all_fail)

    # beyond ±100 b_ρ the density is below e^{-100}, far below the digits compared
    points = sorted({mpmath.mpf(0)} | {mpmath.mpf(q) - threshold for q in queries})
    ends = [-100 * b_rho, *points, 100 * b_rho]
    return [mpmath.quad(lambda z, i=i: integrand(i, z), ends) for i in range(len(queries))]


@pytest.mark.parametrize("digits", [FLOAT_DIGITS, DPS], ids=["float", "arb"])
def test_retraversal_with_one_selection_equals_the_geometric_series(digits):
    # at most FLOAT_DIGITS digits the traversals run in double-precision intervals
    assert DPS > FLOAT_DIGITS
    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=1, T=-1)
    queries = [1, 0, 2]
    with mpmath.workdps(DPS + 6):
        reference = retraversal_reference(mech, queries)
    assert_encloses(selection_probabilities(mech, queries, digits=digits), reference,
                    digits=digits)


def test_retraversal_with_passive_queries_equals_the_geometric_series(monkeypatch):
    # c = 1, the threshold far above the low answers and the top query needing up to tens of
    # traversals: the low answers are passive, and the enclosures must still hold the closed
    # form
    from exactdp.exact.selection import retraversal

    seen = []
    passive_answers = retraversal.passive_answers

    def counted_passive(*args):
        chosen, own = passive_answers(*args)
        seen.append(len(chosen))
        return chosen, own
    monkeypatch.setattr(retraversal, "passive_answers", counted_passive)
    mech = exactdp.mechanism("svt_retraversal", eps1=4, eps2=1, c=1, T=8)
    queries = [-16, 8, -16, -16, 6, -16, -16]
    with mpmath.workdps(20):
        reference = retraversal_reference(mech, queries)
    assert_encloses(selection_probabilities(mech, queries, digits=4), reference, digits=4)
    assert max(seen) > 0


def test_retraversal_passive_queries_agree_with_all_active(monkeypatch):
    # c = 2: with passive queries (the low answers) and with every query active (PASSIVE = 0
    # leaves no room for any), the enclosures must overlap and the passive ones hold the
    # others' midpoints within their radius
    from exactdp.exact.selection import retraversal

    mech = exactdp.mechanism("svt_retraversal", eps1=4, eps2=2, c=2, T=7)
    queries = [-16, 8, -16, 7, -16, -16, 5, -16]
    passive = selection_probabilities(mech, queries, digits=5)
    monkeypatch.setattr(retraversal, "PASSIVE", 0.0)
    active = selection_probabilities(mech, queries, digits=5)
    for quick, full in zip(passive, active):
        assert quick.overlaps(full) and quick.contains(full.mid())
        assert float(quick.rad()) < 1e-5


def test_retraversal_settled_traversals_agree_with_the_recurrence(monkeypatch):
    # c = 40 of 400 queries, about 4 passing per traversal: the traversals well before and
    # well after the 40th pass are settled (Q taken as 1 or 0); with none settled (SETTLED = 0)
    # every one runs the recurrence, and the enclosures must overlap
    from exactdp.exact.selection import retraversal

    notes = []
    mech = exactdp.mechanism("svt_retraversal", eps1=1, eps2=1, c=40, T=315)
    queries = [0, 3, 1, 1, 2] * 80
    settled = selection_probabilities(mech, queries, digits=2,
                                      progress=lambda done, note="": notes.append(note))
    assert any(note.endswith("settled") and not note.endswith(" 0 settled") for note in notes)
    monkeypatch.setattr(retraversal, "SETTLED", 0.0)
    recurred = selection_probabilities(mech, queries, digits=2)
    for quick, full in zip(settled, recurred):
        assert quick.overlaps(full) and float(quick.rad()) < 1e-3


def test_retraversal_in_double_intervals_agrees_with_arb_balls():
    # c = 2, the threshold amid the answers: the double-precision enclosures (6 digits) must
    # hold the Arb ones' midpoints (one digit beyond FLOAT_DIGITS) and be as narrow
    # as asked
    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=2, T=1)
    queries = [0, 3, 1, 1, 2]
    fast = selection_probabilities(mech, queries, digits=6)
    slow = selection_probabilities(mech, queries, digits=FLOAT_DIGITS + 1)
    for quick, careful in zip(fast, slow):
        assert quick.contains(careful.mid())
        assert float(quick.rad()) < 1e-6


def simulate_retraversal(mech, queries, runs, rng):
    """Run the mechanism: one threshold, traversals with fresh noise until c are selected."""
    b_rho, b_nu = float(mech.threshold_noise.scale), float(mech.query_noise.scale)
    counts = np.zeros(len(queries))
    for _ in range(runs):
        threshold = float(mech.threshold) + rng.laplace(0, b_rho)
        selected = []
        while len(selected) < mech.c:
            for i, q in enumerate(queries):
                if i not in selected and q + rng.laplace(0, b_nu) >= threshold:
                    selected.append(i)
                    if len(selected) == mech.c:
                        break
        counts[selected] += 1
    return counts


def test_retraversal_agrees_with_simulation():
    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=2, T=0)
    queries = [3, 0, 1, 2]
    exact = selection_probabilities(mech, queries, digits=6)
    runs = 20_000
    counts = simulate_retraversal(mech, queries, runs, np.random.default_rng(20170601))
    for ball, count in zip(exact, counts):
        low, high = binomial_interval(count, runs)
        assert low <= float(ball.mid()) <= high


def test_sparse_vector_random_order_agrees_with_simulation():
    # an independent sampler: numpy's permutation, Laplace noise, the cutoff
    mech = exactdp.mechanism("svt1", eps=1, c=2)
    queries = [2, 0, 1, 1, 3]
    exact = selection_probabilities(mech, queries, "random", digits=6)
    rng, runs = np.random.default_rng(1603), 40_000
    counts = np.zeros(len(queries))
    for _ in range(runs):
        threshold = rng.laplace(0, float(mech.threshold_scale))
        passed = 0
        for i in rng.permutation(len(queries)):
            if queries[i] + rng.laplace(0, float(mech.query_scale)) >= threshold:
                counts[i] += 1
                passed += 1
                if passed == 2:
                    break
    for ball, count in zip(exact, counts):
        low, high = binomial_interval(count, runs)
        assert low <= float(ball.mid()) <= high


#: scores are counts (Lyu §6): non-negative, so SER lies in [0, 1]
QUERY_VECTORS = st.lists(st.integers(0, 4), min_size=2, max_size=5)


@settings(max_examples=12, deadline=None)
@given(queries=QUERY_VECTORS, c=st.integers(1, 3), order=st.sampled_from(["given", "random"]),
       name=st.sampled_from(["svt1", "em_top"]))
def test_fnr_and_ser_are_rates_and_at_most_c_are_selected(queries, c, order, name):
    c = min(c, len(queries))
    result = expected_utility(exactdp.mechanism(name, c=c), queries, order, digits=8)
    total = sum(result.selection, arb(0))
    assert total.lower() <= c
    assert all(p.upper() >= 0 and p.lower() <= 1 for p in result.selection)
    assert result.fnr.upper() >= 0 and result.fnr.lower() <= 1
    if result.ser is not None:
        assert result.ser.upper() >= 0 and result.ser.lower() <= 1
    if name == "em_top":  # the exponential mechanism always selects exactly c
        assert total.overlaps(arb(c))


def test_the_top_c_breaks_ties_by_the_lower_index():
    result = expected_utility(exactdp.mechanism("svt1", c=2), [1, 2, 1, 1], digits=6)
    assert result.top == (0, 1)


@pytest.mark.parametrize("name, params, order, message", [
    ("svt1", dict(c=3), "given", "the cutoff c=3 exceeds the number of queries (2)"),
    ("svt5", {}, "given", "needs a selection mechanism with a cutoff"),
    ("svt3", {}, "given", "releases numbers"),
    ("svt2", {}, "random", "redraws its threshold after each ⊤: it is modelled in the given "
     "order only"),
    ("noisy_max_laplace", {}, "given", "needs a selection mechanism with a cutoff"),
    ("svt1", {}, "sideways", "order must be given or random, got 'sideways'"),
    ("svt_retraversal", {}, "random", "given order only"),
])
def test_bad_input_is_one_clear_error(name, params, order, message):
    with pytest.raises(InputError, match=re.escape(message)):
        selection_probabilities(exactdp.mechanism(name, **params), [1, 0], order, digits=5)


def exit_code(arguments) -> int:
    """The command's exit code (argparse's usage errors exit through SystemExit)."""
    try:
        return main(arguments)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("arguments, message", [
    (["svt1", "--queries", "1,2", "--order", "sideways"], "--order must be given or random"),
    (["svt1", "--queries", "1,2", "--param", "c=3"], "the cutoff c=3 exceeds"),
    (["svt1", "--queries", "1,2", "--param", "c=1.5"], "c must be a positive integer"),
    (["svt1", "--queries", "1,2", "--param", "c=0"], "c must be a positive integer"),
    (["svt6", "--queries", "1,2"], "needs a selection mechanism with a cutoff"),
    (["svt7", "--queries", "1,2", "--param", "eps3=1"], "releases numbers"),
    (["svt1", "--queries", "@/nonexistent/queries.txt"], "cannot read the queries file"),
    (["svt1", "--queries", "1,2", "--simulate", "0"], "--simulate must be a positive number"),
    (["em_top", "--queries", "1*1000", "--simulate", "100000"], "use at most 20,000 runs"),
    (["svt1", "--queries", "1,2", "--jobs", "0"], "--jobs must be a positive integer"),
])
def test_cli_bad_input_exits_2_with_one_line(arguments, message, capsys):
    assert exit_code(["utility", *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_simulated_runs_beside_the_exact_values_are_seeded(capsys):
    arguments = ["utility", "em_top", "--param", "c=2", "--queries", "5,4,3,2,1", "--digits", "8",
                 "--simulate", "2000", "--seed", "5", "--json"]
    assert main(arguments) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(arguments) == 0
    assert json.loads(capsys.readouterr().out) == first
    simulated = first["simulated"]
    assert simulated["runs"] == 2000 and simulated["seed"] == 5
    for measure in ("fnr", "ser"):
        mean, sd = float(simulated[f"{measure}_mean"]), float(simulated[f"{measure}_sd"])
        # 2000 independent runs: their mean lies within 4 standard errors of the expectation
        assert abs(mean - float(first[measure])) <= 4 * sd / math.sqrt(2000)
    assert main(arguments[:-3] + ["--seed", "6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["simulated"] != simulated


def test_cli_jobs_print_what_one_process_prints():
    # SVT-S in the given order on 60 distinct answers: two forked workers, the same JSON (the
    # command in a fresh interpreter, which forks: earlier tests leave threads in this one)
    import subprocess
    import sys

    arguments = [sys.executable, "-m", "exactdp", "utility", "svt7", "--param", "eps1=0.5",
                 "--param", "eps2=1", "--param", "monotone=true", "--param", "c=4",
                 "--param", "T=30", "--queries", ",".join(str(k) for k in range(60)),
                 "--digits", "12", "--json"]
    printed = [json.loads(subprocess.run(arguments + ["--jobs", jobs], capture_output=True,
                                         text=True, timeout=300, check=True).stdout)
               for jobs in ("1", "2")]
    assert printed[0] == printed[1] and float(printed[0]["fnr"]) > 0


def test_queries_file_one_number_per_line(tmp_path, capsys):
    good = tmp_path / "scores.txt"
    good.write_text("3\n1\n\n2\n", encoding="utf-8")
    assert main(["utility", "svt1", "--queries", f"@{good}", "--digits", "6"]) == 0
    from_file = capsys.readouterr().out
    assert main(["utility", "svt1", "--queries", "3,1,2", "--digits", "6"]) == 0
    assert capsys.readouterr().out == from_file
    assert main(["prob", "svt1", "--queries", f"@{good}", "--output", "T"]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.txt"
    bad.write_text("3\n1\nthree\n", encoding="utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    for path, message in ((bad, "line 3: not a number: 'three'"), (empty, "holds no number")):
        assert exit_code(["loss", "svt1", "--d1", f"@{path}", "--d2", "1,1,1", "--output",
                          "T"]) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1


def test_utility_only_mechanisms_are_refused_by_other_commands(capsys):
    assert main(["prob", "em_top", "--queries", "1,0", "--output", "T"]) == 2
    assert "known to `exactdp utility` only" in capsys.readouterr().err


def test_vector_quadrature_encloses_known_integrals():
    # ∫_0^3 e^{z} = e^3 − 1, ∫_0^3 cos(5z) = sin(15)/5, ∫_0^3 e^{−z²} = (√π/2)·erf 3: closed
    # forms of entire integrands (the rule's ellipses may reach any distance from the piece)
    from flint import acb, ctx

    from exactdp.exact.backends.vector_quadrature import integrate_vector

    def evaluate(z, _middle):
        return [z.exp(), (5 * z).cos(), (-z * z).exp()]

    def bound(z, _middle):
        return max(abs(v).upper() for v in evaluate(acb(z), None))

    with ctx.workprec(120):
        results = integrate_vector(evaluate, lambda z, m: arb(bound(z, m)),
                                   [Fraction(0), Fraction(1), Fraction(3)], arb(0),
                                   arb(10) ** -25)
        exact = [arb(3).exp() - 1, arb(15).sin() / 5, arb.pi().sqrt() / 2 * arb(3).erf()]
        for result, value in zip(results, exact):
            assert result.overlaps(value) and result.rad() < 1e-24


def test_vector_quadrature_encloses_integrands_given_by_their_leading_values():
    # ∫_0^2 e^{−iz} dz = (1 − e^{−2i})/i (i ≥ 1; 2 for i = 0) for i < 30; at a node z only
    # the f_i above 10^−12 are given, the later ones (decreasing in i) enclosed by
    # [0, e^{−kz}]: each result still encloses its integral, and those never cut off are as
    # accurate as the full vector's
    from flint import acb, ctx

    from exactdp.exact.backends.vector_quadrature import Leading, integrate_vector

    size = 30

    def full(z, _middle):
        return [(-i * z).exp() for i in range(size)]

    def leading(z, middle):
        values = full(z, middle)
        k = next((i for i, v in enumerate(values) if v < 1e-12), size)
        return Leading(values[:k], arb(0, values[k].upper()) if k < size else arb(0), size)

    def bound(z, _middle):
        return arb(max(abs(v).upper() for v in full(acb(z), None)))

    with ctx.workprec(120):
        cuts, tolerance = [Fraction(0), Fraction(2)], arb(10) ** -20
        cut = integrate_vector(leading, bound, cuts, arb(0), tolerance)
        whole = integrate_vector(full, bound, cuts, arb(0), tolerance)
        exact = [arb(2)] + [(1 - (-2 * arb(i)).exp()) / i for i in range(1, size)]
        assert len(cut) == size
        for i, (a, b, value) in enumerate(zip(cut, whole, exact)):
            assert a.overlaps(value) and b.overlaps(value)
            assert a.rad() < 1e-11 and (i > 6 or a.rad() < 1e-19)
        assert cut[-1].rad() > 1e-16 > whole[-1].rad()  # the later ones were cut off


def test_closed_form_bound_exceeds_the_product_at_every_point_of_the_ball(monkeypatch):
    # |p_ρ(z)|·max_j |S_j|·Π_j(|F_j| + |S_j|)^{n_j} (the generic bound, here at exact points)
    # lies below the closed-form bound of a narrow complex ball containing them (rz spans at
    # most 1/64; the query noise's rate is 1/12), and not far below on the narrowest; on a wider
    # ball the smaller of the two bounds (still above the product at its points), on one
    # reaching so far left that a·|w| ≥ 1 the generic bound itself
    from flint import acb, ctx

    from exactdp.exact.selection import pass_probabilities
    from exactdp.exact.selection.generating import largest_modulus
    from exactdp.precision import to_arb

    mech = exactdp.mechanism("svt1", eps=1, c=3, T=5)
    queries = [0, 1, 1, 2, 4, 4, 4, 7, 9, 12]
    products = []
    generic_product = pass_probabilities.product_bound
    monkeypatch.setattr(pass_probabilities, "product_bound",
                        lambda *args: products.append(1) or generic_product(*args))
    with ctx.workprec(100):
        laws = pass_probabilities.PassProbabilities(
            mech.threshold_noise, mech.query_noise, mech.threshold,
            [Fraction(q) for q in queries], arb(10) ** -12)

        def product(point, middle):
            density, passes, fails = laws.distinct_values(point, middle)
            return (abs(density) * largest_modulus(passes)
                    * generic_product(passes, fails, laws.counts))

        def ball(middle, x, y, radius):
            centre = acb(to_arb(middle) + x, y)
            return centre, acb(arb(centre.real.mid(), radius), arb(centre.imag.mid(), radius))

        for a, b in zip(laws.cuts, laws.cuts[1:]):
            middle = (a + b) / 2
            for x, y, radius in ((0, 0.3, 0.01), (0.2, 2, 0.04), (-0.3, 5, 0.04)):
                centre, covering = ball(middle, x, y, radius)
                bound = laws.bound(covering, middle)
                for dx in (-radius, 0, radius):
                    for dy in (-radius, 0, radius):
                        point = acb(centre.real.mid() + dx, centre.imag.mid() + dy)
                        assert product(point, middle) < arb(bound.upper())
                if radius == 0.01:
                    assert bound < 1.1 * product(centre, middle)
            assert not products  # the closed form throughout
            centre, wide = ball(middle, 0, 1, 0.5)
            bound = laws.bound(wide, middle)
            assert products and bound.upper() <= product(wide, middle).upper()
            for dx in (-0.5, 0, 0.5):
                for dy in (-0.5, 0, 0.5):
                    point = acb(centre.real.mid() + dx, centre.imag.mid() + dy)
                    assert product(point, middle) < arb(bound.upper())
            products.clear()
        far = acb(to_arb(laws.cuts[-2]) - 40, 1)
        middle = (laws.cuts[-2] + laws.cuts[-1]) / 2
        generic = product(far, middle)
        assert laws.bound(far, middle).mid() == generic.mid() and generic > 1 and products


def _balls_on_every_piece(c: int):
    """``(laws, middle, y, ball, points)`` for ``svt1`` (ε = 1, cutoff ``c``, T = 5; Laplace
    query noise of scale ``4c``) on 40 queries sharing ten answers: on every piece, balls at
    ``Im z = 1, 8, 25`` (radius 0.01) and 3 (radius 0.5), each with its centre, corners and
    edge midpoints, at 100 bits."""
    from flint import acb, ctx

    from exactdp.exact.selection.pass_probabilities import PassProbabilities
    from exactdp.precision import to_arb

    mech = exactdp.mechanism("svt1", eps=1, c=c, T=5)
    queries = [Fraction(q) for q in [9, 12, 3, 7, 15, 11, 8, 10, 6, 13] * 4]
    with ctx.workprec(100):
        laws = PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold,
                                 queries, arb(10) ** -12)
        for a, b in zip(laws.cuts, laws.cuts[1:]):
            middle = (a + b) / 2
            for y, radius in ((1, 0.01), (8, 0.01), (25, 0.01), (3, 0.5)):
                real = to_arb(middle).mid()
                points = [acb(real + dx, y + dy) for dx in (-radius, 0, radius)
                          for dy in (-radius, 0, radius)]
                yield laws, middle, y, acb(arb(real, radius), arb(y, radius)), points


def test_given_order_bound_exceeds_every_integrand_on_the_ball():
    # |p_ρ(z)·S_i(z)·Σ_{m<c} [x^m] Π_{j<i}(F_j(z) + S_j(z) x)| for every query i, from the
    # expanded polynomial (acb_poly) at points of complex balls, lies below the bound given the
    # cutoff (Cauchy's estimate on |x| = r) — up to Im z = 25, an angle of 1.25 in the query
    # noise's exponent —, within a factor of 3 of the largest at Im z = 8 on every piece where
    # many of the 40 queries pass (μ ≫ c), and there well below the bound for every selection
    # integrand (a quarter of it)
    from flint import acb, acb_poly

    c, sharper = 5, 0
    for laws, middle, y, ball, points in _balls_on_every_piece(c):
        bound = arb(laws.bound(ball, middle, cutoff=c).upper())
        largest = arb(0)
        for point in points:
            density, passes, fails = laws(point, middle)
            prefix = acb_poly([1])
            for s, f in zip(passes, fails):
                head = abs(density * s * sum(prefix.coeffs()[:c], acb(0)))
                assert head < bound
                largest = max(largest, arb(head.upper()))
                prefix *= acb_poly([f, s])
        if y == 8 and -5 < middle < 10:
            assert bound < 3 * largest
            sharper += bound < laws.bound(ball, middle).upper() / 4
    assert sharper >= 5


def test_random_order_bound_exceeds_the_integral_over_t():
    # |p_ρ(z) S_k(z) ∫_0^1 Π_{j≠k}(F_j + S_j t) dt| for every answer k, the product expanded
    # (acb_poly) and integrated exactly, at points of complex balls, lies below the random
    # order's closed-form bound — up to Im z = 25, an angle of 1.25 in the query noise's
    # exponent —; at Im z = 8 it is within a factor of 2 of the largest on every piece, and
    # where many of the 40 queries pass (z < 10) the product for every selection integrand is
    # 40 times the largest or more
    from flint import acb_poly

    checked = 0
    for laws, middle, y, ball, points in _balls_on_every_piece(5):
        bound = arb(laws.reciprocal_bound(ball, middle).upper())
        largest = arb(0)
        for point in points:
            density, passes, fails = laws.distinct_values(point, middle)
            for k in range(len(passes)):
                product = acb_poly([1])
                for j, (s, f, count) in enumerate(zip(passes, fails, laws.counts)):
                    product *= acb_poly([f, s]) ** (count - (j == k))
                value = abs(density * passes[k] * product.integral()(1))
                assert value < bound
                largest = max(largest, arb(value.upper()))
        if y == 8:
            assert bound < 2 * largest
            if middle < 10:
                assert laws.bound(ball, middle) > 40 * largest
                checked += 1
    assert checked >= 10


def test_closed_form_log_generating_encloses_the_direct_logarithm():
    # log G(1 − s) = Σ_k n_k log(F_k + S_k (1 − s)) from the pass probabilities themselves,
    # against the closed-form series (power sums of the answers' constants on each side of the
    # kink) within its bound, at points of [−reach, reach], on every piece; Laplace query noise
    # (rate 1/12), answers on both sides of the kink on the middle pieces
    from flint import ctx

    from exactdp.exact.selection.pass_probabilities import PassProbabilities
    from exactdp.precision import to_arb

    mech = exactdp.mechanism("svt1", eps=1, c=3, T=5)
    queries = [0, 1, 1, 2, 4, 4, 4, 7, 9, 12, 30, 30]
    with ctx.workprec(150):
        laws = PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold,
                                 [Fraction(q) for q in queries], arb(10) ** -12)
        reach, budget = arb(1) / 16, arb(10) ** -35
        both_sides = 0
        for a, b in zip(laws.cuts, laws.cuts[1:]):
            middle = (a + b) / 2
            z = to_arb(middle)
            left = laws.functions(middle)[3]
            if 0 < left < len(laws.counts):
                both_sides, beside_kink = both_sides + 1, (z, middle)
            _, passes, fails = laws.distinct_values(z, middle)
            logarithm, rest = laws.log_generating(z, middle, passes, reach, budget)
            assert rest <= budget
            for s in (-reach, -reach / 3, arb(0), reach / 2, reach):
                direct = sum((count * (f + p * (1 - s)).log()
                              for p, f, count in zip(passes, fails, laws.counts)), arb(0))
                series = logarithm(s)
                assert (series + arb(0, rest.upper())).overlaps(direct)
                assert series.rad() < 1e-30
        assert both_sides >= 3
        # where the series would converge too slowly (S_k near 1/2 beside the kink and
        # |s| up to 9/10): no closed form offered
        z, middle = beside_kink
        passes = laws.distinct_values(z, middle)[1]
        assert laws.log_generating(z, middle, passes, arb(9) / 10, budget) is None


@pytest.mark.parametrize("count, c", [(1, 5), (128, 40), (129, 40), (500, 300), (300, 301)])
def test_truncated_powers_are_the_binomial_expansion(count, c):
    # (F + S y)^n truncated at degree c against the binomial coefficients in exact rationals,
    # on both sides of the size where the terms are taken one by one
    from flint import ctx, fmpq

    from exactdp.exact.selection.generating import truncated_power

    with ctx.workprec(150):
        power = truncated_power(arb(97) / 100, arb(3) / 100, count, c).coeffs()
    assert len(power) == min(count + 1, c)
    for m, term in enumerate(power):
        exact = math.comb(count, m) * fmpq(97, 100) ** (count - m) * fmpq(3, 100) ** m
        with ctx.workprec(150):
            assert term.overlaps(arb(exact.p) / arb(exact.q))
            assert term.rad() <= 1e-40 * abs(term.mid())


def test_a_costlier_evaluation_climbs_to_larger_ellipses_and_back():
    # ∫_0^{13/4} cos(5z) dz = sin(65/4)/5 on the pieces [3, 13/4] (integrated first) and
    # [0, 3]: when a node costs 4 bounds the short piece climbs to a larger ellipse (fewer
    # nodes), and the long one, starting there, descends again to the rule it had before
    from collections import Counter

    from flint import acb, ctx

    from exactdp.exact.backends.vector_quadrature import integrate_vector

    nodes = {}

    def integrate(evaluation_cost):
        count = nodes[evaluation_cost] = Counter()

        def evaluate(z, middle):
            count[middle] += 1
            return [(5 * z).cos()]

        def bound(z, _middle):
            return arb(abs((5 * acb(z)).cos()).upper())

        (result,) = integrate_vector(evaluate, bound, [Fraction(0), Fraction(3), Fraction(13, 4)],
                                     arb(0), arb(10) ** -25, evaluation_cost=evaluation_cost)
        return result

    with ctx.workprec(120):
        exact = (arb(65) / 4).sin() / 5
        for cost in (1, 4):
            result = integrate(cost)
            assert result.overlaps(exact) and result.rad() < 1e-24
    short, long = Fraction(25, 8), Fraction(3, 2)
    assert nodes[4][short] < nodes[1][short] and nodes[4][long] == nodes[1][long]


def test_vector_quadrature_of_an_integrand_zero_on_a_piece():
    # max(0, z)² written piece by piece: exactly zero on [−1, 0] (a zero bound on its ellipses),
    # z² on [0, 2]: the integral is 8/3 exactly
    from flint import ctx

    from exactdp.exact.backends.vector_quadrature import integrate_vector

    def evaluate(z, middle):
        return [z * z if middle > 0 else arb(0)]

    def bound(z, middle):
        return arb(abs(z * z).upper()) if middle > 0 else arb(0)

    with ctx.workprec(120):
        (result,) = integrate_vector(evaluate, bound, [Fraction(-1), Fraction(0), Fraction(2)],
                                     arb(0), arb(10) ** -20)
        assert result.overlaps(arb(8) / 3) and result.rad() < 1e-19


def test_mean_reciprocal_with_fewer_nodes_than_the_degree():
    # ∫_0^1 Π_{j≠i}(F_j + S_j t) dt against the exact integral of the expanded polynomial
    # (arb_poly's product and antiderivative); 120 factors in groups of equal answers, so the
    # rule uses far fewer than the 60 nodes that would make it exact
    from flint import arb_poly, ctx

    from exactdp.exact.selection.random_position import mean_reciprocal

    rng = np.random.default_rng(11)
    drawn = [int(k) for k in rng.integers(1, 200, size=120)]
    distinct = sorted(set(drawn))
    counts = [drawn.count(k) for k in distinct]
    assert max(counts) > 1  # some answers are shared
    with ctx.workprec(200):
        passes = [arb(k) / 1000 for k in distinct]
        fails = [1 - s for s in passes]
        results = mean_reciprocal(passes, fails, counts, arb(10) ** -30)
        for i in (0, counts.index(max(counts)), len(distinct) - 1):
            poly = arb_poly([1])
            for j, (s, f, count) in enumerate(zip(passes, fails, counts)):
                poly *= arb_poly([f, s]) ** (count - 1 if j == i else count)
            exact = poly.integral()(1)
            assert results[i].overlaps(exact) and results[i].rad() < 1e-29

def check_weighted_others(drawn: list, c: int, target: arb) -> None:
    """``weighted_others`` on queries with the answers ``drawn``, each passing with probability
    ``answer/1000``, weights ``1 − c/(m + 1)`` as in a random order, at 150 bits: each result
    encloses ``Σ_m w_m [y^m] G(y)/(F_k + S_k y)`` to within 10^{−25}, ``G`` expanded exactly in
    rationals (fmpq_poly)."""
    from flint import ctx, fmpq, fmpq_poly

    from exactdp.exact.selection.generating import weighted_others

    distinct = sorted(set(drawn))
    counts = [drawn.count(k) for k in distinct]
    weights = [fmpq(1) - fmpq(c, m + 1) for m in range(c)]
    with ctx.workprec(150):
        passes = [arb(k) / 1000 for k in distinct]
        fails = [1 - s for s in passes]
        results = weighted_others(passes, fails, counts,
                                  [arb(w.p) / arb(w.q) for w in weights], target)
    for k in range(len(distinct)):
        poly = fmpq_poly([1])
        for j, (answer, count) in enumerate(zip(distinct, counts)):
            poly *= fmpq_poly([fmpq(1000 - answer, 1000), fmpq(answer, 1000)]) ** (
                count - 1 if j == k else count)
        coefficients = poly.coeffs() + [fmpq(0)] * c
        exact = sum((w * coefficients[m] for m, w in enumerate(weights)), fmpq(0))
        assert results[k].overlaps(arb(exact.p) / arb(exact.q)) and results[k].rad() < 1e-25


@pytest.mark.parametrize("target, swept", [("1e-25", "some likely"), ("0", "all")])
def test_weighted_others_equals_the_exact_leave_one_out_sums(target, swept, monkeypatch):
    # Σ_{m<c} w_m [y^m] G(y)/(F_k + S_k y) against the same sum over the exactly expanded
    # polynomial in rationals (fmpq_poly).  150 queries pass with probability at most 0.2 and
    # seven with 0.6–0.999: for the likeliest the evaluation at −S_k/F_k loses its accuracy,
    # so those groups are swept exactly; a target of 0 sends every group, the unlikely ones
    # too, to the sweep.
    from exactdp.exact.selection import generating

    rng = np.random.default_rng(13)
    drawn = [int(k) for k in rng.integers(1, 200, size=150)] + [600, 700, 800, 900, 950, 990,
                                                                999]
    swept_groups = []
    sweep = generating.weighted_around

    def recording(before, *rest):
        swept_groups.append(len(before))
        return sweep(before, *rest)

    monkeypatch.setattr(generating, "weighted_around", recording)
    check_weighted_others(drawn, 25, arb(target))
    if swept == "all":
        assert swept_groups == [len(set(drawn))]
    else:
        assert len(swept_groups) == 1 and 1 <= swept_groups[0] < 7


def test_weighted_others_leaves_out_negligible_high_degrees(monkeypatch):
    # 100 queries passing with probability at most 0.1 (about 5 in all) and c = 80: the terms
    # of degree 60 or so and above are provably below 10^{−25}, so the sums are taken to that
    # degree only, and they still enclose the same sums over the exactly expanded polynomial in
    # rationals
    from exactdp.exact.selection import generating

    rng = np.random.default_rng(14)
    degrees = []
    sums = generating.weighted_sums

    def recording(passes, fails, counts, weights, target):
        degrees.append(len(weights))
        return sums(passes, fails, counts, weights, target)

    monkeypatch.setattr(generating, "weighted_sums", recording)
    check_weighted_others([int(k) for k in rng.integers(1, 100, size=100)], 80, arb(10) ** -25)
    assert len(degrees) == 1 and 40 < degrees[0] < 80


def test_mean_reciprocal_leaves_out_anegligible_start():
    # 400 queries passing with probability 0.6–0.99: Π(F_j + S_j t) is negligible away from
    # t = 1, so the rule integrates [t_0, 1] only and bounds the rest by G(t_0); checked
    # against the exact integral of the expanded polynomial (arb_poly's product and
    # antiderivative)
    from flint import arb_poly, ctx

    from exactdp.exact.selection.random_position import mean_reciprocal, negligible_start

    rng = np.random.default_rng(12)
    drawn = [int(k) for k in rng.integers(600, 990, size=400)]
    distinct = sorted(set(drawn))
    counts = [drawn.count(k) for k in distinct]
    with ctx.workprec(200):
        passes = [arb(k) / 1000 for k in distinct]
        fails = [1 - s for s in passes]
        target = arb(10) ** -30
        start = negligible_start(passes, counts, target / 4)
        left_out = arb(1)
        for s, f, count in zip(passes, fails, counts):
            left_out *= (f + s * start) ** count
        assert start > arb(1) / 2 and left_out <= target / 4
        results = mean_reciprocal(passes, fails, counts, target)
        for i in (0, len(distinct) // 2, len(distinct) - 1):
            poly = arb_poly([1])
            for j, (s, f, count) in enumerate(zip(passes, fails, counts)):
                poly *= arb_poly([f, s]) ** (count - 1 if j == i else count)
            exact = poly.integral()(1)
            assert results[i].overlaps(exact) and results[i].rad() < 1e-29


@pytest.mark.parametrize("name, order", [("svt1", "random"), ("em_top", "given")])
def test_negligible_first_terms_are_dropped_within_their_bound(name, order, monkeypatch):
    # 48 queries sharing 4 answers, c = 2: at low thresholds nearly all pass, so Pr[fewer than c
    # others pass] is negligible there and those pieces drop it (with its bound); for em_top, at
    # high scores Pr[at least c others exceed] is negligible and those pieces integrate the
    # density alone; the result must enclose the same values as the computation that keeps
    # every term
    from exactdp.exact.selection import exponential_top, random_order

    kind = random_order if order == "random" else exponential_top
    mech = exactdp.mechanism(name, eps=2, c=2)
    queries = [k % 4 for k in range(48)]
    splits = {}
    pieces = kind.negligible_pieces

    def spy(*args):
        result = pieces(*args)
        splits.setdefault(args[2].__name__, []).append(result[0])
        return result

    monkeypatch.setattr(kind, "negligible_pieces", spy)
    dropped = selection_probabilities(mech, queries, order, digits=12)
    assert max(splits["fewer_than_bound"]) > 0
    if name == "em_top":  # at high scores fewer than c others exceed: the density alone
        assert max(splits["at_least_bound"]) > 0
        monkeypatch.setattr(kind, "at_least_bound", lambda *args: arb(1))
    monkeypatch.setattr(kind, "fewer_than_bound", lambda *args: arb(1))
    kept = selection_probabilities(mech, queries, order, digits=12)
    for a, b in zip(dropped, kept):
        assert a.overlaps(b) and a.rad() < 1e-12
    assert dropped[0].overlaps(dropped[4])  # equal answers, equal probabilities


@pytest.mark.parametrize("c, probability, stops", [(2, 9, True), (5, 2, False), (40, 5, False)])
def test_fewer_before_equals_the_expanded_prefix_products(c, probability, stops):
    # Pr[fewer than c of the first i queries pass] from the expanded prefix product (arb_poly),
    # over several blocks; with every query passing with probability about 0.9 and c = 2 it
    # falls below 1e-20 after about 25 queries, and every later one is enclosed by [0, that
    # value]
    from flint import arb_poly, ctx

    from exactdp.exact.selection.generating import fewer_before

    with ctx.workprec(150):
        passes = [arb(probability) / 10 + arb(k) / 1000 for k in range(60)]
        fails = [1 - s for s in passes]
        results, rest = fewer_before(passes, fails, list(range(60)), c, arb(10) ** -20)
        assert (len(results) < 60) == stops and (rest.upper() > 0) == stops
        prefix = arb_poly([1])
        for i, (s, f) in enumerate(zip(passes, fails)):
            exact = sum(prefix.coeffs()[:c], arb(0))
            if i < len(results):
                assert results[i].overlaps(exact) and results[i].rad() < 1e-20
            else:
                assert rest.contains(exact) and rest.upper() <= 1e-20
            prefix *= arb_poly([f, s])


@pytest.mark.parametrize("name, scale, cutoffs", [("fewer_than_bound", 10, (1, 3, 6)),
                                                  ("at_least_bound", 100, (2, 4, 10))])
def test_tail_bounds_bound_the_exact_probability(name, scale, cutoffs):
    # Pr[fewer than c of the others pass] (its bound where many pass) and Pr[at least c of the
    # others pass] (where few do: μ = 1.34 < c, so the bound is below 1) from the expanded
    # generating polynomial (arb_poly)
    from flint import arb_poly

    from exactdp.exact.selection import generating

    passes = [arb(k) / scale for k in (9, 7, 5, 8)]
    fails = [1 - s for s in passes]
    counts = [5, 3, 4, 6]
    for c in cutoffs:
        bound = getattr(generating, name)(passes, fails, counts, c)
        assert name == "fewer_than_bound" or bound < 1
        for i in range(len(counts)):
            poly = arb_poly([1])
            for j, (s, f, count) in enumerate(zip(passes, fails, counts)):
                poly *= arb_poly([f, s]) ** (count - 1 if j == i else count)
            terms = poly.coeffs()
            exact = sum(terms[:c] if name == "fewer_than_bound" else terms[c:], arb(0))
            assert exact < bound


@pytest.mark.parametrize("markov", [True, False], ids=["markov", "exact"])
@pytest.mark.parametrize("c", [1, 2, 3])
@pytest.mark.parametrize("traversals", [1, 3, 12])
def test_dropped_traversals_bound_holds(c, traversals, markov):
    # four queries (answers with multiplicities 1, 2, 1) failing with F in (0.3, 0.9): the
    # terms after R traversals, Σ_{r>R} S_i F_i^{r−1} Q_{i,r}, from the definition summed to
    # 400 traversals (the rest below 0.9^400 < 1e-18), must lie below the bound, Markov's
    # (taken when within `enough`) or Pr[M ≤ c − 1] summed from G_R's coefficients; with
    # c = 1 both are Π_j F_j^R, exactly what one query drops
    from flint import acb
    from exactdp.exact.selection.retraversal import dropped_bound

    distinct = [arb("0.3"), arb("0.75"), arb("0.9")]
    counts = [1, 2, 1]
    fails = [acb(distinct[k]) for k in (0, 1, 1, 2)]
    whole, kept = retraversal_sum(fails, c, 400), retraversal_sum(fails, c, traversals)
    dropped = max(float((a - b).real.upper()) for a, b in zip(whole, kept)) + 1e-18
    bound = dropped_bound(distinct, counts, c, traversals, arb(1 if markov else 0))
    assert dropped <= float(bound)
    if c == 1:
        exact = (arb("0.3") * arb("0.75") ** 2 * arb("0.9")) ** traversals
        assert float(exact.lower()) <= float(bound) <= float(exact.upper()) * (1 + 1e-12)
    elif not markov:  # at most Pr[M ≤ c − 1], by brute force over which queries passed
        passed = [1 - f.real ** traversals for f in fails]
        fewer = sum((math.prod(float(p.mid()) if bit else 1 - float(p.mid())
                               for p, bit in zip(passed, bits))
                     for bits in itertools.product((0, 1), repeat=4) if sum(bits) < c), 0.0)
        assert float(bound) <= fewer * (1 + 1e-12)


def test_traversals_per_cell_stop_where_each_cell_allows():
    # three cells with one query each, c = 1, so the terms dropped after R traversals are
    # F^R exactly (no other query), times the cell's probability; one traversal everywhere
    # would drop 0.9·0.5 + 0.01·0.98 + 1e-12·0.98, far above the target: then each cell above
    # its share (half the target over three cells) gets the least R within it, and all are
    # capped at the least R with the sum within the target, in exact rationals
    from exactdp.exact.selection.retraversal import traversals_per_cell

    fails = [[arb("0.5")], [arb("0.98")], [arb("0.98")]]
    masses = [arb("0.9"), arb("0.01"), arb("1e-12")]
    target = arb("1e-6")
    per_cell, total = traversals_per_cell(fails, masses, [1], 1, target)
    share = Fraction(1, 6 * 10 ** 6)
    cells = ((Fraction(9, 10), Fraction(1, 2)), (Fraction(1, 100), Fraction(49, 50)))
    own = [next(r for r in range(1, 5000) if m * f ** r <= share) for m, f in cells]
    assert own == [23, 545]

    def dropped(cap):
        return (sum(m * f ** min(r, cap) for (m, f), r in zip(cells, own))
                + Fraction(1, 10 ** 12) * Fraction(49, 50))
    cap = next(r for r in range(1, 546) if dropped(r) <= Fraction(1, 10 ** 6))
    assert cap < 545 and per_cell == [min(23, cap), cap, 1]
    exact = (arb("0.9") * arb("0.5") ** per_cell[0] + arb("0.01") * arb("0.98") ** per_cell[1]
             + arb("1e-12") * arb("0.98"))
    assert exact.lower() <= total.upper() and total <= target
    # a target that one traversal everywhere meets: R = 1 everywhere
    assert traversals_per_cell(fails, masses, [1], 1, arb("0.5"))[0] == [1, 1, 1]


def test_retraversal_refuses_past_the_traversal_cap():
    # a threshold 300 above the answers, noise scale 1: a query passes with probability about
    # e^{-300}/2 per traversal, so the dropped terms stay near 1 for far more traversals
    from exactdp.errors import PrecisionError

    mech = exactdp.mechanism("svt_retraversal", eps1=1, eps2=1, c=1, T=300)
    with pytest.raises(PrecisionError, match="retraversal needs more than"):
        selection_probabilities(mech, [0, 1], digits=3)


@pytest.mark.parametrize("raised", [2, 6])
def test_retraversal_first_traversal_by_the_sweep_agrees_with_the_recurrence(raised,
                                                                             monkeypatch):
    # the threshold above every answer (most runs need several traversals): the first
    # traversal integrated by the given-order sweep, the rest by the recurrence, against every
    # traversal by the recurrence; both must overlap, and hold a seeded simulation's 99.9 %
    # binomial interval
    from exactdp.exact.selection import retraversal

    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=2, T=raised)
    queries = [3, 0, 1, 2, 1]
    swept = selection_probabilities(mech, queries, digits=4)
    monkeypatch.setattr(retraversal, "SWEPT_TRAVERSALS", 0)
    recurred = selection_probabilities(mech, queries, digits=4)
    runs = 20_000
    counts = simulate_retraversal(mech, queries, runs, np.random.default_rng(raised))
    for a, b, count in zip(swept, recurred, counts):
        assert a.overlaps(b) and float(a.rad()) < 1e-4
        low, high = binomial_interval(count, runs)
        assert low <= float(a.mid()) <= high


def test_retraversal_reports_the_traversals_it_models_before_its_quadrature():
    # the traversals first, then the pieces of both integrals (the first traversal's and the
    # later ones'), counted on from one to the other
    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=2, T=1)
    calls = []
    selection_probabilities(mech, [3, 0, 1, 2], digits=6,
                            progress=lambda done, note="": calls.append((done, note)))
    notes = [note for done, note in calls if note]
    assert re.fullmatch(r"traversals modelled: \d+", calls[0][1])
    assert int(calls[0][1].split(": ")[1]) > 1  # so both integrals ran
    assert all(done == 0 for done, note in calls if note)
    assert [done for done, note in calls if not note] == list(range(1, len(calls) - len(notes) + 1))


def test_progress_estimates_the_time_left_from_the_costs(monkeypatch):
    # three steps costing 10, 30 and 60 (reproduce's claims differ a hundredfold): after the
    # cheap one, 10 s for a tenth of the work leaves about 90 s, not the 20 s two steps of three
    # would suggest
    import io

    import exactdp.progress as progress

    now = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.0)
    stream = io.StringIO()
    with progress.Progress(3, "reproducing", "claim", stream=stream, work=100) as bar:
        now[0] = 10.0
        bar.update(note="cheap done", work=10)
    lines = stream.getvalue().splitlines()
    assert lines[1] == "reproducing: 1/3 claims, 0:10 elapsed, about 1:30 left; cheap done"

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    now[0], terminal = 0.0, Terminal()
    with progress.Progress(3, "reproducing", "claim", stream=terminal, work=100) as bar:
        now[0] = 10.0
        bar.update(note="cheap done", work=10)
        bar.bar.refresh()  # tqdm redraws at most every 0.1 s of its own clock
    drawn = terminal.getvalue().split("\r")
    assert any("reproducing: 1/3 claims" in line and "cheap done, about 1:30 left" in line
               for line in drawn)


def test_progress_lines_of_work_of_unknown_size_show_no_total(monkeypatch):
    # the utility command's bar does not know its number of pieces in advance (total 0)
    import io

    import exactdp.progress as progress

    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.0)
    stream = io.StringIO()
    with progress.Progress(0, "selection integrals", "piece", stream=stream) as bar:
        bar.update(0, "traversals modelled: 5")
        bar.update(1)
    lines = stream.getvalue().splitlines()
    assert lines[1].endswith("; traversals modelled: 5")
    assert lines[2].startswith("selection integrals: 1 pieces,")
    assert not any("/0" in line or "left" in line for line in lines)


def retraversal_sum(fails: list, c: int, traversals: int) -> list:
    """``Σ_{r≤R} S_i F_i^{r−1} Q_{i,r}`` for each ``i`` (``S = 1 − F``, complex balls), from
    the definition: ``Q_{i,r}`` the coefficients below ``c`` of the product of every other
    query's ``F_j^{r_j} + (1 − F_j^{r_j}) y`` (``r_j = r`` before ``i``, ``r − 1`` after)."""
    from flint import acb
    n, sums = len(fails), []
    for i in range(n):
        total = acb(0)
        for r in range(1, traversals + 1):
            poly = [acb(1)]
            for j in range(n):
                if j == i:
                    continue
                u = fails[j] ** (r if j < i else r - 1)
                poly = [(poly[m] if m < len(poly) else 0) * u
                        + ((1 - u) * poly[m - 1] if m >= 1 else 0) for m in range(len(poly) + 1)]
            total += (1 - fails[i]) * fails[i] ** (r - 1) * sum(poly[:c], acb(0))
        sums.append(total)
    return sums


@pytest.mark.parametrize("arithmetic", [ArbArrays(), FloatIntervals()], ids=["arb", "float"])
@pytest.mark.parametrize("traversals", [1, 3, 40])
@pytest.mark.parametrize("blocks", [512, 6])
def test_retraversal_bound_holds_on_complex_points(arithmetic, traversals, blocks, monkeypatch):
    # fails F_j off the real line (|F| + |1 − F| > 1), c = 2: the bound must exceed every
    # |Σ_r S_i F_i^{r−1} Q_{i,r}|; on the real line (F + S = 1) within a modest factor of it;
    # with 6 blocks, 40 traversals fall into blocks of up to 13
    from flint import acb
    from exactdp.exact.selection import retraversal
    monkeypatch.setattr(retraversal, "BOUND_BLOCKS", blocks)
    rng = np.random.default_rng(5)
    for imaginary in (0.0, 0.05, 0.3, 1.0):
        fails = [acb(float(x), imaginary * float(y))
                 for x, y in zip(rng.uniform(0.2, 0.95, 4), rng.uniform(-1, 1, 4))]
        exact = retraversal_sum(fails, 2, traversals)
        bound = retraversal.traversal_bound(arithmetic, [1 - f for f in fails], fails, [1] * 4,
                                            traversals)
        largest = max(abs(x).upper() for x in exact)
        assert largest <= bound
        if imaginary == 0:
            assert bound <= 8 * traversals * largest


def test_retraversal_falls_back_to_arb_balls_where_doubles_are_too_wide(monkeypatch):
    # plain doubles refused (their a-priori bound made unusable) and double-precision intervals
    # made useless (every node value ± 1): the probabilities must still come out to the digits
    # asked for, from Arb balls
    from exactdp.exact.selection import retraversal

    mech = exactdp.mechanism("svt_retraversal", eps1=2, eps2=1, c=2, T=0)
    queries = [3, 0, 1, 2]
    honest = selection_probabilities(mech, queries, digits=6)
    widened = FloatIntervals.balls
    monkeypatch.setattr(retraversal, "doubles_error", lambda *args: (None, None))
    monkeypatch.setattr(FloatIntervals, "balls",
                        staticmethod(lambda x: [b + arb(0, 1) for b in widened(x)]))
    fallen_back = selection_probabilities(mech, queries, digits=6)
    for a, b in zip(honest, fallen_back):
        assert a.overlaps(b) and float(b.rad()) < 1e-6


def test_retraversal_chunks_of_any_size_give_the_same_probabilities(monkeypatch):
    # the columns (node, traversal) in chunks of at most 3 (the memory bound CHUNK_ENTRIES at
    # its smallest useful value for these 4 queries and c = 2) against the default chunks of up
    # to 4096: each column is computed on its own, so the enclosures must overlap
    from exactdp.exact.selection import retraversal
    from exactdp.exact.selection.retraversal import largest_chunk

    # the kept functionals (2·√n + 2 of c entries) stay within the bound at the paper's scale
    assert (2 * 100 + 2) * 300 * largest_chunk(10_000, 300) <= retraversal.CHUNK_ENTRIES
    assert largest_chunk(200, 6) == retraversal.TRAVERSAL_CHUNK
    mech = exactdp.mechanism("svt_retraversal", eps1=1, eps2=1, c=2, T=1)
    queries = [3, 0, 1, 2]
    whole = selection_probabilities(mech, queries, digits=6)
    monkeypatch.setattr(retraversal, "CHUNK_ENTRIES", 3 * 4 * len(queries))
    assert largest_chunk(len(queries), 2) == 3
    chunked = selection_probabilities(mech, queries, digits=6)
    for a, b in zip(whole, chunked):
        assert a.overlaps(b) and float(b.rad()) < 1e-6


WORKER_CASES = [
    ("svt1", dict(eps=1, c=3), "given"),
    ("svt1", dict(eps=1, c=3), "random"),
    ("em_top", dict(eps=1, c=3), "given"),
    ("svt_retraversal", dict(eps1=2, eps2=1, c=3, T=20), "given"),
    ("svt2", dict(eps=1, c=3), "given"),
]

#: Run in a fresh interpreter: forked workers need a process running one thread, and earlier
#: tests (a Dask cluster) leave threads behind.
WORKER_SCRIPT = """
import json, sys
import exactdp
from exactdp.exact.selection import selection_probabilities
from exactdp.workers import will_fork
report = []
for name, params, order in json.loads(sys.argv[1]):
    mech = exactdp.mechanism(name, **params)
    queries = [(7 * k) % 41 for k in range(40)]
    calls = []
    alone = selection_probabilities(mech, queries, order, digits=10)
    forked = will_fork(2)
    both = selection_probabilities(mech, queries, order, digits=10, jobs=2,
                                   progress=lambda done, note="": calls.append((done, note)))
    same = all(a.mid() == b.mid() and a.rad() == b.rad() for a, b in zip(alone, both))
    report.append(dict(forked=forked, same=same, calls=calls))
print(json.dumps(report))
"""


def test_worker_processes_give_the_same_balls():
    # 40 distinct answers: dozens of pieces, their rules searched in groups and their nodes
    # evaluated in parts by two forked workers (svt2: its rule, then its chain's matrix products
    # in two threads); the same balls as in one process
    import subprocess
    import sys

    from exactdp.exact.backends.vector_quadrature import GROUP_PIECES

    finished = subprocess.run([sys.executable, "-c", WORKER_SCRIPT, json.dumps(WORKER_CASES)],
                              capture_output=True, text=True, timeout=600, check=True)
    for (name, _, _), case in zip(WORKER_CASES, json.loads(finished.stdout)):
        assert case["forked"] and case["same"]
        planned = [note for _, note in case["calls"] if note.startswith("pieces planned")]
        assert len(planned) >= 2 and int(planned[-1].split()[-1]) > GROUP_PIECES
        if name != "svt2":  # svt2's rule only: its chain sums over the nodes in this process
            counted = [done for done, note in case["calls"] if not note]  # after each part
            assert counted == sorted(counted) and counted[-1] >= int(planned[-1].split()[-1])


#: Run in a fresh interpreter (as :data:`WORKER_SCRIPT`): Sparse Vector with retraversal whose
#: later traversals run in plain doubles and in double intervals, in one process and in two.
RETRAVERSAL_WORKER_SCRIPT = """
import json
import exactdp
from exactdp.exact.selection import retraversal, selection_probabilities
from exactdp.workers import will_fork
mech = exactdp.mechanism("svt_retraversal", eps1=1, eps2=1, c=40, T=315)
queries = [0, 3, 1, 1, 2] * 80
report = []
for doubles in (True, False):
    if not doubles:
        retraversal.doubles_error = lambda *args: (None, None)
    notes = []
    alone = selection_probabilities(mech, queries, digits=2)
    both = selection_probabilities(mech, queries, digits=2, jobs=2,
                                   progress=lambda done, note="": notes.append(note))
    same = all(a.mid() == b.mid() and a.rad() == b.rad() for a, b in zip(alone, both))
    chunks = [note for note in notes if note.startswith("traversal chunks")]
    report.append(dict(forked=will_fork(2), same=same, chunks=chunks))
print(json.dumps(report))
"""


def test_retraversal_later_traversals_in_worker_processes_give_the_same_balls():
    # the later traversals' chunks in two forked workers (their results cross as numpy arrays
    # and doubles): the same balls as in one process, in plain doubles and in intervals
    import subprocess
    import sys

    finished = subprocess.run([sys.executable, "-c", RETRAVERSAL_WORKER_SCRIPT],
                              capture_output=True, text=True, timeout=600, check=True)
    for case in json.loads(finished.stdout):
        assert case["forked"] and case["same"] and case["chunks"]


def test_pieces_in_turn_count_each_quadrature_after_the_ones_before():
    # two quadratures of 3 and 2 pieces, with a note between: the pieces come out as 1 … 5
    from exactdp.exact.selection.kinds import PiecesInTurn

    calls = []
    in_turn = PiecesInTurn(lambda done, note="": calls.append((done, note)))
    first = in_turn.next()
    for done in (1, 2, 3):
        first(done)
    second = in_turn.next()
    second(0, note="pieces planned: 2")
    second(1)
    second(2)
    assert calls == [(1, ""), (2, ""), (3, ""), (0, "pieces planned: 2"), (4, ""), (5, "")]
    assert PiecesInTurn(None).next() is None
