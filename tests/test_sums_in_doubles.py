"""The selection sums in doubles with their a-priori rounding bounds (docs/mathematics.md §12.5):
against the same sums in exact rationals, against the Arb balls of the same computation, and
the Arb path taken where the bound does not fit the digits asked."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

import exactdp
from exactdp.exact.backends import rounding_bounds
from exactdp.exact.selection import given_order, selection_probabilities
from exactdp.exact.selection.fewer_in_doubles import fewer_before_in_doubles, sweep_bounds

from .test_utility import DPS, assert_encloses, brute_force_given


def test_enclosures_hold_the_bound_computed_in_balls():
    # the balls v ± (θv + η) of doubles from 0 to 1, subnormal ones among them, hold both ends
    # v(1 ± θ) ± η computed in Arb, and are at most a millionth of θv + η wider (and a few
    # units of the subnormal doubles, which carry the radius near 2^−1060)
    values = np.array([0.0, 2.0 ** -1070, 1e-300, 1 / 3, 0.7, 1.0])
    theta, eta = arb(2) ** -40 / 3, arb(2) ** -1060 / 7
    balls = rounding_bounds.enclosures(values, theta, eta)
    with ctx.workprec(300):  # the ends exactly
        for value, ball in zip(values.tolist(), balls):
            bound = theta * value + eta
            assert ball.contains(value + bound) and ball.contains(value - bound)
            assert ball.rad() <= bound * (1 + arb(10) ** -6) + arb(2) ** -1068


def exact_fewer_before(passes: list, c: int) -> list:
    """``Σ_{m<c} [x^m] Π_{j<i}(1 − S_j + S_j x)`` for every ``i``, the prefix products expanded
    in exact rationals."""
    prefix, sums = [Fraction(1)], []
    for s in passes:
        sums.append(sum(prefix[:c]))
        shifted = [Fraction(0)] + prefix
        prefix = [(1 - s) * a + s * b for a, b in zip(prefix + [Fraction(0)], shifted)][:c]
    return sums


@pytest.mark.parametrize("c, numerators, stops", [(1, (1, 9), False), (3, (28, 44), True),
                                                  (40, (6, 20), False)])
def test_sweep_in_doubles_holds_the_exact_rational_sums(c, numerators, stops):
    # 150 queries (five blocks) passing with dyadic probabilities S_j = k/64, doubles without
    # error: every ĥ_i lies within θĥ_i + η of the sum expanded in exact rationals, ĥ_i = 1
    # for i < c, and where the sweep stops (c = 3, S near 1/2: the sum falls below 10^−12
    # after 42 queries) every later exact sum is at most ĥ_stop(1 + θ) + η
    low, high = numerators
    passes = [Fraction(low + (7 * j) % (high - low + 1), 64) for j in range(150)]
    exact = exact_fewer_before(passes, c)
    doubles = np.array([float(s) for s in passes])
    theta, eta = sweep_bounds(150, c, arb(0))
    assert theta < 1e-12
    swept, stop = fewer_before_in_doubles(doubles, 1 - doubles, np.arange(150), c, 1e-12, 150)
    assert (stop is not None) == stops and (len(swept) < 150) == stops
    assert (swept[:c] == 1).all()
    balls = [arb(reference.numerator) / reference.denominator for reference in exact]
    for value, reference in zip(swept.tolist(), balls):
        assert abs(reference - value) <= theta * value + eta
    if stops:
        assert stop <= 1e-12 and exact[len(swept)] > 0
        assert all(reference <= arb(stop) * (1 + theta) + eta for reference in balls[len(swept):])


def recording_sweeps(monkeypatch) -> list:
    """Whether each call of the given-order integrands in doubles returned values."""
    taken, original = [], given_order.integrands_in_doubles

    def recording(*args):
        result = original(*args)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(given_order, "integrands_in_doubles", recording)
    return taken


ZIPF_LIKE = [round(1000 / i) for i in range(1, 121)]


@pytest.mark.parametrize("name, params, queries", [
    ("svt1", dict(eps=1, c=4, T=225), ZIPF_LIKE),
    ("svt7", dict(eps1=Fraction(1, 2), eps2=Fraction(1, 2), eps3=0, c=4, T=225, monotone=True),
     ZIPF_LIKE),
    # where the threshold noise is high, 20 passing queries are provably unlikely: no sweep,
    # the integrands p_ρ S_i (1 ± that bound) in doubles
    ("svt7", dict(eps1=Fraction(1, 5), eps2=2, eps3=0, c=20, T=12, monotone=True),
     [60, 50, 40, 30] + [3, 2, 4, 3, 1, 5, 2, 3] * 7)], ids=["svt1", "svt7", "few-pass"])
def test_given_order_in_doubles_holds_the_arb_sweep(name, params, queries, monkeypatch):
    # 120 Zipf-like answers (1000/i, rounded), c = 4, threshold between the 4th and 5th, and a
    # workload where few queries pass, at 6 digits: the integrands in doubles against the
    # same integrals in Arb balls (every sum in doubles turned off); each ball of the doubles
    # holds the Arb ball's midpoint and is at most a hundredth wider
    mech = exactdp.mechanism(name, **params)
    taken = recording_sweeps(monkeypatch)
    quick = selection_probabilities(mech, queries, digits=6)
    assert any(taken)
    monkeypatch.setattr(rounding_bounds, "DOUBLE_SHARE", 0)
    careful = selection_probabilities(mech, queries, digits=6)
    for fast, slow in zip(quick, careful):
        assert fast.contains(slow.mid()) and fast.rad() <= 1.01 * slow.rad() + 1e-15


@pytest.mark.parametrize("digits, in_doubles", [(6, True), (15, False)], ids=["doubles", "arb"])
def test_given_order_sweep_equals_the_sum_over_outputs(digits, in_doubles, monkeypatch):
    # 7 queries, c = 2: the sum over every output, within the digits asked; at 6 digits the
    # bound on the sweep's rounding in doubles fits, at 15 it does not (about 10^−14 for
    # one block of 32 queries) and the sweep runs in Arb balls
    taken = recording_sweeps(monkeypatch)
    mech = exactdp.mechanism("svt1", eps=2, c=2, T=Fraction(5, 2))
    queries = [3, 2, 4, 3, 1, 5, 2]
    with mpmath.workdps(DPS + 10):
        assert_encloses(selection_probabilities(mech, queries, digits=digits),
                        brute_force_given(mech, queries, 2), digits=min(digits, DPS))
    assert taken and all(taken) == in_doubles and any(taken) == in_doubles
