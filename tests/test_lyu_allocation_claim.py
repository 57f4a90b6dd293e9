"""``lyu-allocation``: SVT-S's budget allocations on Zipf workloads (Lyu, Su & Li §4.3, §6).

The exact expected FNR and SER themselves are checked against brute force and simulation in
``tests/test_utility.py``; here the workloads, the allocations, and the claim's verdict and
records.  The claim evaluates the paper's workload of 10,000 items at c = 25, 50, 100 and 300
(minutes); the tests evaluate it with 1,000 items at c = 10 in its place.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from exactdp.claims import CONFIRMED, claim_ids, get_claim
from exactdp.claims.lyu_allocation import (CUTOFFS, EPS, ITEMS, OPTIMUM_WIDTH, PAPER_CUTOFFS,
                                           PAPER_ITEMS, RECOMMENDED, RECORDS_PER_ITEM,
                                           allocations, evaluate_allocation, middle_threshold,
                                           named_allocations, optimum_bracket, svt_s, zipf_counts)

CLAIM = "lyu-allocation"
#: The paper's workload in the tests: fewer items, one cutoff.
TEST_ITEMS, TEST_CUTOFFS = 1000, (10,)


def test_zipf_counts_follow_the_harmonic_normalisation():
    # reference: mpmath's harmonic number H_200, independent of the Fraction sum in the module
    counts = zipf_counts(200, 20_000)
    harmonic = mpmath.harmonic(200)
    for i in (1, 2, 7, 200):
        assert counts[i - 1] == int(mpmath.nint(mpmath.mpf(20_000) / (i * harmonic)))
    assert counts == sorted(counts, reverse=True)
    assert abs(sum(counts) - 20_000) <= 100  # rounding moves each count by at most 1/2


def test_threshold_lies_between_the_cth_and_next_count():
    counts = [5, 9, 7, 9, 1]
    assert middle_threshold(counts, 2) == Fraction(8)   # 9, 9 | 7: between 9 and 7
    assert middle_threshold(counts, 1) == Fraction(9)   # tie: 9 and 9


def test_allocations_are_distinct_and_the_budgets_sum_to_eps():
    for c in CUTOFFS:
        ratios = [ratio for _, ratio in allocations(c)]
        assert len(set(ratios)) == len(ratios)
        labels = dict(allocations(c))
        assert abs(float(labels[RECOMMENDED]) - c ** (2 / 3)) <= 5e-4
        mech = svt_s(c, labels[RECOMMENDED], Fraction(10))
        assert mech.threshold_noise.scale == 1 / (EPS / (1 + labels[RECOMMENDED]))
    assert ("1:c", Fraction(2)) in allocations(2) and ("1:2", Fraction(2)) not in allocations(2)


def test_claim_follows_zhu_and_wang_in_the_catalogue():
    ids = claim_ids()
    assert ids.count(CLAIM) == 1 and ids.index(CLAIM) == ids.index("zhuwang-gaussian-svt") + 1


def test_the_claim_evaluates_the_papers_workload():
    # Lyu, Su & Li §6: 10,000 items, one million records, c up to 300
    assert PAPER_ITEMS * RECORDS_PER_ITEM == 1_000_000 and max(PAPER_CUTOFFS) == 300
    assert get_claim(CLAIM).evaluate.__defaults__ == (PAPER_ITEMS, PAPER_CUTOFFS)
    assert "over 10000 items (the paper's)" in get_claim(CLAIM).family
    assert [label for label, _ in named_allocations(300)] == ["1:1", "1:3", "1:c", RECOMMENDED]


@pytest.fixture(scope="module")
def result():
    return evaluate_allocation(lambda: None, TEST_ITEMS, TEST_CUTOFFS)


def test_claim_is_confirmed_and_certified(result):
    assert result.verdict == CONFIRMED and result.certified
    assert "1:c^(2/3)'s FNR and SER lie below" in result.detail
    assert f"({TEST_ITEMS} items, {RECORDS_PER_ITEM * TEST_ITEMS} records)" in result.detail


def test_points_are_parsable_and_recommended_beats_one_to_one(result):
    points = json.loads(json.dumps(result.points))
    assert len(points) == (sum(len(allocations(c)) + 1 for c in CUTOFFS)  # + the optimum
                           + 4 * len(TEST_CUTOFFS))
    assert {(p["items"], p["size"]) for p in points} == (
        {(ITEMS, c) for c in CUTOFFS} | {(TEST_ITEMS, c) for c in TEST_CUTOFFS})
    for point in points:
        for field in ("fnr", "fnr_lower", "fnr_upper", "ser", "ser_lower", "ser_upper"):
            Decimal(point[field])
            assert 0 <= float(point[field]) <= 1
    by = {(p["items"], p["size"], p["allocation"]): p for p in points}
    for items, c in [(ITEMS, c) for c in CUTOFFS] + [(TEST_ITEMS, c) for c in TEST_CUTOFFS]:
        assert (Decimal(by[items, c, RECOMMENDED]["fnr_upper"])
                < Decimal(by[items, c, "1:1"]["fnr_lower"]))


def test_optimum_is_bracketed_between_higher_values(result):
    for point in result.points:
        if point["allocation"] == "optimum":
            low, best, high = (Fraction(point[k]) for k in ("ratio_low", "ratio", "ratio_high"))
            assert low < best < high and (high - low) / best <= OPTIMUM_WIDTH


class _Rates:
    """A stand-in for a Utility: only its FNR."""

    def __init__(self, fnr):
        self.fnr = fnr


def test_golden_section_brackets_the_minimum_of_a_known_function():
    # E[FNR] replaced by (r − 1.3)² + 0.1 in balls, whose only minimum is at r = 1.3
    def utility_of(ratio):
        return _Rates((arb(ratio.numerator) / ratio.denominator - arb("1.3")) ** 2 + arb("0.1"))

    tried = {r: utility_of(r) for r in (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(8))}
    low, best, high, evaluated = optimum_bracket(utility_of, tried)
    assert low < Fraction(13, 10) < high and (high - low) / best <= OPTIMUM_WIDTH
    assert len(evaluated) > len(tried)
    # a minimum at an end of the ratios tried is not bracketed
    assert optimum_bracket(utility_of, {r: utility_of(r) for r in (Fraction(2), Fraction(8),
                                                                   Fraction(32))}) is None

