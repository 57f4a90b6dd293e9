"""``lyu-allocation``: SVT-S's budget allocations on a scaled Zipf workload (Lyu, Su & Li §4.3, §6).

The exact expected FNR and SER themselves are checked against brute force and simulation in
``tests/test_utility.py``; here the workload, the allocations, and the claim's verdict and records.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest

from exactdp.claims import CONFIRMED, claim_ids, get_claim
from exactdp.claims.lyu_allocation import (CUTOFFS, EPS, RECOMMENDED, allocations,
                                           middle_threshold, svt_s, zipf_counts)

CLAIM = "lyu-allocation"


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


@pytest.fixture(scope="module")
def result():
    return get_claim(CLAIM).evaluate(lambda: None)


def test_claim_is_confirmed_and_certified(result):
    assert result.verdict == CONFIRMED and result.certified
    assert "1:c^(2/3)'s FNR and SER lie below" in result.detail


def test_points_are_parsable_and_recommended_beats_one_to_one(result):
    points = json.loads(json.dumps(result.points))
    assert len(points) == sum(len(allocations(c)) for c in CUTOFFS)
    for point in points:
        for field in ("fnr", "fnr_lower", "fnr_upper", "ser", "ser_lower", "ser_upper"):
            Decimal(point[field])
            assert 0 <= float(point[field]) <= 1
    by = {(p["size"], p["allocation"]): p for p in points}
    for c in CUTOFFS:
        assert Decimal(by[c, RECOMMENDED]["fnr_upper"]) < Decimal(by[c, "1:1"]["fnr_lower"])
