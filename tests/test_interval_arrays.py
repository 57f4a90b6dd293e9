"""Elementwise interval arithmetic (exactdp/exact/backends/interval_arrays.py).

Reference: every operation is recomputed exactly in rationals (``fractions.Fraction`` of the
doubles' exact values) at the endpoints of the operand intervals; the double-precision result
must enclose it, and the Arb-ball arrays must give balls containing it.  Inputs include values
near 1 (where ``1 − x`` cancels), subnormal and underflowing products.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx
from hypothesis import given, settings, strategies as st

from exactdp.exact.backends.interval_arrays import ArbArrays, FloatIntervals
from tests.conftest import assert_encloses

FLOATS = FloatIntervals()
UNIT = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 1 - 2 ** -53, 2 ** -1074,
                                                   1e-300, 1e-170, 0.5]))


def encloses(interval, exact: Fraction) -> None:
    """A double interval holds ``exact`` and is at most ``2·10^{-14}`` wide (a few ulps of the
    values here, all at most 8 in magnitude)."""
    assert_encloses(tuple(interval), exact, 14, absolute=True)


def exactly(x: arb) -> Fraction:
    """An exact Arb value (a midpoint or an endpoint) as a rational."""
    mantissa, exponent = x.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def point(values: list) -> np.ndarray:
    """Degenerate intervals ``[v, v]`` (shape ``(2, len(values))``)."""
    return np.array([values, values], dtype=float)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(UNIT, UNIT, UNIT, UNIT), min_size=1, max_size=8))
def test_float_operations_enclose_the_exact_rational_results(rows):
    a, x, b, y = (point(list(column)) for column in zip(*rows))
    results = {
        "mul": (FLOATS.mul(a, x), [p * q for p, q in zip(*(map(Fraction, v[0]) for v in (a, x)))]),
        "add": (FLOATS.add(a, x), [p + q for p, q in zip(*(map(Fraction, v[0]) for v in (a, x)))]),
        "mul_add": (FLOATS.mul_add(a, x, b, y),
                    [Fraction(p) * Fraction(q) + Fraction(r) * Fraction(s)
                     for p, q, r, s in zip(a[0], x[0], b[0], y[0])]),
        "one_minus": (FLOATS.one_minus(a), [1 - Fraction(p) for p in a[0]]),
    }
    for _name, (interval, exact) in results.items():
        for k, value in enumerate(exact):
            encloses(interval[:, k], value)
    exact_total = sum((Fraction(p) * Fraction(q) for p, q in zip(a[0], x[0])), Fraction(0))
    encloses(FLOATS.dot(a[:, :, None], x[:, :, None])[:, 0], exact_total)
    encloses(FLOATS.total(a, -1), sum(map(Fraction, a[0]), Fraction(0)))
    running = FLOATS.running_total(a)
    for k in range(len(rows)):
        encloses(running[:, k], sum(map(Fraction, a[0][:k + 1]), Fraction(0)))


def test_operations_on_intervals_take_the_endpoints():
    # [0.25, 0.5]·[0.5, 1] ⊂ [0.125, 0.5]; 1 − [0.25, 0.5] = [0.5, 0.75]; widened by a few ulps
    x, y = np.array([0.25, 0.5]), np.array([0.5, 1.0])
    product, complement = FLOATS.mul(x, y), FLOATS.one_minus(x)
    assert product[0] <= 0.125 and product[1] >= 0.5
    assert 0.125 - product[0] < 1e-15 and product[1] - 0.5 < 1e-15
    assert complement[0] <= 0.5 and complement[1] >= 0.75
    assert 0.5 - complement[0] < 1e-15 and complement[1] - 0.75 < 1e-15


def test_an_underflowing_product_keeps_a_positive_upper_end():
    # 1e-200·1e-200 rounds to 0 in doubles; the enclosure must still hold 1e-400
    product = FLOATS.mul(point([1e-200]), point([1e-200]))
    assert product[0, 0] == 0 and product[1, 0] > 0


def test_lifted_balls_enclose_the_balls():
    with ctx.workprec(200):
        balls = [arb(1) / 3, arb("1e-400"), 1 - arb(2) ** -80, arb("0.5", "1e-30")]
        lifted = FLOATS.lift(balls)
        for k, ball in enumerate(balls):
            assert Fraction(lifted[0, k]) <= exactly(ball.lower())
            assert Fraction(lifted[1, k]) >= exactly(ball.upper())
        back = FLOATS.balls(lifted)
        assert all(b.contains(ball) for b, ball in zip(back, balls))


@pytest.mark.parametrize("arithmetic", [FloatIntervals(), ArbArrays()], ids=["float", "arb"])
def test_both_arithmetics_agree_on_a_recurrence(arithmetic):
    # a Poisson-binomial prefix, as in the retraversal: p ← F·p + (1 − F)·shift(p), three steps
    fails = [Fraction(1, 3), Fraction(3, 4), Fraction(1, 10)]
    exact = [Fraction(1), Fraction(0), Fraction(0), Fraction(0)]
    for f in fails:
        exact = [f * exact[0]] + [f * exact[m] + (1 - f) * exact[m - 1] for m in range(1, 4)]
    with ctx.workprec(100):
        lifted = arithmetic.lift([arb(f.numerator) / f.denominator for f in fails])
        prefix = arithmetic.constant(0, (4,))
        prefix[..., 0] = 1
        zero = arithmetic.constant(0, (1,))
        passing = arithmetic.one_minus(lifted)
        for i in range(3):
            shifted = np.concatenate((zero, prefix[..., :-1]), axis=-1)  # times y
            prefix = arithmetic.mul_add(lifted[..., i, None], prefix, passing[..., i, None],
                                        shifted)
        for ball, value in zip(arithmetic.balls(prefix), exact):
            assert_encloses(ball, value, 14, absolute=True)
