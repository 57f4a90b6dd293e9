"""Gaussian Report Noisy Max, every index at once on shared Gauss–Legendre nodes
(backends/noisy_max_nodes.py): the ellipse bounds against mpmath's complex erfc, each index's
enclosure against its own certified probability, and the sizes the 12-query cap used to
refuse."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

import exactdp
from exactdp.errors import InputError
from exactdp.exact.backends import noisy_max_nodes, shared_nodes
from tests.conftest import _ends, assert_encloses, ellipse_boundary

#: Bits at which the balls' ends are read (``arb.lower()`` rounds to flint's precision).
PRECISION = 300


def _mpf(fraction: Fraction):
    return mpmath.mpf(fraction.numerator) / fraction.denominator


@pytest.mark.parametrize("rho", [2.0, 16.0])
def test_the_ellipse_bounds_hold(rho):
    # On the Bernstein ellipse of every piece, each distinct answer's integrand
    # p(x − v)·F(x − v)^{c_v − 1}·Π_{u≠v} F(x − u)^{c_u} (mpmath's complex erfc at 16 points
    # of its boundary) stays below e^{log M}.
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    answers = [Fraction(q) for q in (0, 3, -2, 3, 1)]
    values = sorted(set(answers))
    counts = {v: answers.count(v) for v in values}
    pieces = shared_nodes._pieces(values, Fraction(2), Fraction(12))
    geometry = noisy_max_nodes._Geometry(mech.noise, values, counts, pieces)
    bounds = noisy_max_nodes._LogBounds(geometry)
    middle, half = geometry.middle, geometry.half
    log_bound = bounds(*shared_nodes._ellipse(middle, half, rho),
                       np.full(len(pieces), len(values) - 1))
    sigma = mpmath.mpf(2)
    with mpmath.workdps(30):
        for p, x in ellipse_boundary(geometry, rho):
            for k, v in enumerate(values):
                value = (mpmath.exp(-(x - _mpf(v)) ** 2 / (2 * sigma ** 2))
                         / (sigma * mpmath.sqrt(2 * mpmath.pi)))
                for u in values:
                    power = counts[u] - (u == v)
                    value *= (mpmath.erfc(-(x - _mpf(u)) / (sigma * mpmath.sqrt(2)))
                              / 2) ** power
                assert mpmath.log(abs(value)) <= log_bound[k, p], (p, x, k)


@pytest.mark.parametrize("queries", [[0, 1, 2, -1], [1, 1, 0, 3, 1], [-4, 4]])
def test_each_index_within_its_own_certified_probability(queries):
    # Each shared ball encloses the index's certified probability computed on its own (the
    # integral over the winner's noise, form/noisy_max.py, by the certified back-end), 30 digits
    # wide; the balls of all indices sum to a ball holding 1.
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    by_answer = noisy_max_nodes.answer_probabilities(
        mech, {Fraction(q): queries.count(q) for q in queries}, 30)
    balls = [by_answer[Fraction(q)] for q in queries]
    for index, ball in enumerate(balls):
        alone = _ends(exactdp.probability(mech, queries, index, method="certified"))
        with ctx.workprec(PRECISION):
            assert_encloses(ball, sum(alone) / 2, 30, slack=alone[1] - alone[0])
    with ctx.workprec(PRECISION):
        low, high = _ends(sum(balls, arb(0)))
    assert low <= 1 <= high and high - low <= Fraction(1, 10 ** 29)


def test_the_limits():
    # Gaussian noise: the shared nodes' 1000 classes of equal (d1_i, d2_i) answers; a law
    # without them (Laplace): 12
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    d1 = list(range(1001))
    with pytest.raises(InputError, match="at most 1000 classes of equal .* for noisy_max_gaus"):
        exactdp.renyi_divergence(mech, d1, [q + 1 for q in d1], 2)
    with pytest.raises(InputError, match="at most 12 classes of equal .* for noisy_max_laplace"):
        exactdp.renyi_divergence(exactdp.mechanism("noisy_max_laplace"), list(range(13)),
                                 list(range(1, 14)), 2)
