"""Certified box events on the noisy sums (``sum_event_probability(..., method="certified")``).

Independent references, written here:

* the Laplace density ``e^{−|x|/b}/(2b)`` and CDF, and the density of a sum of two standard
  Laplace variables ``(1 + |t|)e^{−|t|}/4`` (by hand: the convolution of two Laplace densities),
  integrated by mpmath quadrature at 60 digits, split at every kink;
* closed forms by hand: ``Pr[η > x] = e^{−x/b}/2`` far in the tail;
* exact zeros and ones of deterministic coordinates (CheckDP's BadSmartSum), decided exactly.

The within-block outputs of SmartSum (M larger than the number of queries) are the prefix sums of
the queries plus the running sum of Lap(1/ε) noises (Wang, Ding, Kifer & Zhang, "CheckDP", CCS
2020, Figure 17).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.errors import InputError
from exactdp.events import Interval
from exactdp.exact.event_probability.sums import sum_event_probability
from exactdp.precision import CertifiedProbability

DPS = 30
#: Interval ends drawn on a grid of quarters (``None``: infinite).
ENDS = st.one_of(st.none(), st.integers(-16, 16).map(lambda k: Fraction(k, 4)))
QUERIES = st.lists(st.integers(-4, 4).map(lambda k: Fraction(k, 2)), min_size=3, max_size=3)


def mp(x):
    """A Fraction (or int) as an mpf at the current precision; ``±inf`` for ``None`` ends."""
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def ends(interval: Interval):
    return (-mpmath.inf if interval.low is None else mp(interval.low),
            mpmath.inf if interval.high is None else mp(interval.high))


def laplace_pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def laplace_cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def two_laplace_pdf(x, b):
    """Density of the sum of two Lap(b) noises: ``(1 + |t|)e^{−|t|}/(4b)``, ``t = x/b``."""
    t = abs(x) / b
    return (1 + t) * mpmath.exp(-t) / (4 * b)


DENSITIES = {1: laplace_pdf, 2: two_laplace_pdf}


def mass(interval: Interval, density, b):
    """``∫_interval density`` at the current precision, split at 0: ``(value, error estimate)``."""
    low, high = ends(interval)
    if low >= high:
        return mpmath.mpf(0), mpmath.mpf(0)
    nodes = [low] + ([mpmath.mpf(0)] if low < 0 < high else []) + [high]
    return mpmath.quad(lambda x: density(x, b), nodes, error=True)


def box_reference(first_terms: int, first: Interval, second: Interval, b):
    """``Pr[W ∈ first, W + η ∈ second]`` for ``W`` a sum of ``first_terms`` Lap(b) noises and
    ``η`` one more, by 60-digit quadrature of ``f_W(x)·(F(high − x) − F(low − x))`` split at
    ``0`` and the ends of ``second``: ``(value, error estimate)``."""
    density = DENSITIES[first_terms]
    low, high = ends(first)
    second_low, second_high = ends(second)
    if low >= high or second_low >= second_high:
        return mpmath.mpf(0), mpmath.mpf(0)

    def inner(x):
        return density(x, b) * (laplace_cdf(second_high - x, b) - laplace_cdf(second_low - x, b))

    kinks = {mpmath.mpf(0), second_low, second_high}
    nodes = [low] + sorted(k for k in kinks if low < k < high) + [high]
    return mpmath.quad(inner, nodes, error=True)


def shifted(interval: Interval, shift: Fraction) -> Interval:
    """``interval − shift`` (the constraint on the accumulated noise)."""
    return Interval(None if interval.low is None else interval.low - shift,
                    None if interval.high is None else interval.high - shift,
                    interval.low_closed, interval.high_closed)


def encloses(result, reference, reference_error) -> bool:
    """``reference`` inside the enclosure, widened by the reference's own error (mpmath's
    estimate, times 10, at least ``10^{−50}`` relative): far below the enclosure's width of
    ``10^{−DPS}``, so a wrong enclosure still fails."""
    margin = max(10 * reference_error, abs(reference) * mpmath.mpf(10) ** -50)
    with mpmath.workdps(200):
        return result.lower - margin <= reference <= result.upper + margin


@st.composite
def intervals(draw):
    low, high = draw(ENDS), draw(ENDS)
    if low is not None and high is not None and low > high:
        low, high = high, low
    return Interval(low, high, draw(st.booleans()) and low is not None,
                    draw(st.booleans()) and high is not None)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(queries=QUERIES, first=intervals(), second=intervals(),
       first_position=st.sampled_from([0, 1]), eps=st.sampled_from([Fraction(1, 2), 1, 2]))
def test_two_coordinates_of_one_running_sum_enclose_the_quadrature(queries, first, second,
                                                                   first_position, eps):
    # SmartSum with M = 4 on 3 queries: out_j = q_0 + … + q_j + η_0 + … + η_j, one segment.
    mech = exactdp.mechanism("smart_sum", eps=eps, M=4)
    prefix = [sum(queries[:j + 1]) for j in range(3)]
    result = sum_event_probability(mech, queries, {first_position: first,
                                                   first_position + 1: second}, DPS,
                                   method="certified")
    assert isinstance(result, CertifiedProbability)
    with mpmath.workdps(60):
        reference, error = box_reference(first_position + 1,
                                         shifted(first, prefix[first_position]),
                                         shifted(second, prefix[first_position + 1]),
                                         1 / mp(eps))
    if reference == 0:
        assert result.is_zero and result.upper == 0
        return
    assert encloses(result, reference, error)
    assert result.relative_width <= mpmath.mpf(10) ** -DPS


@settings(max_examples=10, deadline=None, derandomize=True)
@given(queries=QUERIES, interval=intervals(), position=st.sampled_from([0, 1]))
def test_one_coordinate_encloses_the_quadrature(queries, interval, position):
    mech = exactdp.mechanism("smart_sum", M=4)
    prefix = sum(queries[:position + 1])
    result = sum_event_probability(mech, queries, {position: interval}, DPS, method="auto")
    with mpmath.workdps(60):
        reference, error = mass(shifted(interval, prefix), DENSITIES[position + 1], 1)
    if reference == 0:
        assert result.is_zero
        return
    assert encloses(result, reference, error)


def test_three_noises_enclose_the_convolution():
    # out2 of SmartSum (M = 4) on q = 0 carries η0 + η1 + η2: Pr[W_3 ∈ (−1/2, 3)] as the
    # two-noise density against one more Laplace CDF, and Pr[W_3 > 3] likewise.
    mech = exactdp.mechanism("smart_sum", M=4)
    for interval in (Interval(Fraction(-1, 2), Fraction(3)), Interval(Fraction(3), None)):
        result = sum_event_probability(mech, [0, 0, 0], {2: interval}, DPS, method="certified")
        with mpmath.workdps(60):
            reference, error = box_reference(2, Interval(), interval, 1)
        assert encloses(result, reference, error)


def test_far_tails_are_certified():
    # PartialSum (b = 1) on q = (1, 2): Pr[o ≥ 203] = e^{−200}/2 by hand, far below doubles.
    result = sum_event_probability(exactdp.mechanism("partial_sum"), [1, 2],
                                   {0: Interval(Fraction(203), None, True)}, DPS)
    with mpmath.workdps(60):
        assert encloses(result, mpmath.exp(-200) / 2, 0)
    # two coordinates deep in the left tail, below the doubles' range: the integral's infinite
    # end is cut rigorously
    mech = exactdp.mechanism("smart_sum", M=3)
    first, second = Interval(None, Fraction(-400)), Interval(None, Fraction(-800))
    result = sum_event_probability(mech, [0, 0], {0: first, 1: second}, DPS)
    with mpmath.workdps(60):
        reference, error = box_reference(1, first, second, 1)
        assert reference < mpmath.mpf(10) ** -330
    assert encloses(result, reference, error)


POINT = Interval(Fraction(1, 3), Fraction(1, 3), True, True)


@pytest.mark.parametrize("name, constraints, expected", [
    # BadSmartSum, M = 2, q = 0: out1 = q0 + q1 exactly (CheckDP's η1 := 0)
    ("bad_smart_sum", {1: Interval(Fraction(0), Fraction(0), True, True)}, 1),
    ("bad_smart_sum", {1: Interval(None, Fraction(0))}, 0),
    ("bad_smart_sum", {1: Interval(Fraction(0), Fraction(1))}, 0),
    # a continuous coordinate never hits a point, whatever the other coordinate of its sum
    ("bad_smart_sum", {0: POINT}, 0),
    ("smart_sum", {0: POINT, 1: Interval(None, Fraction(1))}, 0),
    ("smart_sum", {0: Interval(None, Fraction(1)), 1: POINT}, 0),
])
def test_exact_zeros_and_ones(name, constraints, expected):
    mech = exactdp.mechanism(name, M=2 if name == "bad_smart_sum" else 3)
    for method in ("certified", "estimate"):
        result = sum_event_probability(mech, [0, 0, 0], constraints, DPS, method=method)
        assert result.value == expected and result.error == 0
        if method == "certified" and expected == 1:
            assert result.lower == result.upper == 1


def test_half_from_a_deterministic_coordinate_and_a_symmetric_one():
    # out1 = 0 exactly and out0 = η0 < 0: probability 1/2, enclosed
    result = sum_event_probability(exactdp.mechanism("bad_smart_sum", M=2), [0, 0, 0],
                                   {1: Interval(Fraction(0), Fraction(0), True, True),
                                    0: Interval(None, Fraction(0))}, DPS)
    assert result.lower <= mpmath.mpf(1) / 2 <= result.upper


def test_estimate_lies_in_the_enclosure():
    mech = exactdp.mechanism("smart_sum", M=3)
    constraints = {0: Interval(None, Fraction(1)), 1: Interval(Fraction(0), Fraction(2), True)}
    certified = sum_event_probability(mech, [0, 0], constraints, 20, method="certified")
    estimate = sum_event_probability(mech, [0, 0], constraints, 20, method="estimate")
    assert not isinstance(estimate, CertifiedProbability)
    assert certified.method == "certified integral"
    assert encloses(certified, estimate.value, estimate.error)


def test_unknown_method_is_an_input_error():
    with pytest.raises(InputError, match="method=.fast."):
        sum_event_probability(exactdp.mechanism("partial_sum"), [1], {0: Interval()}, DPS,
                              method="fast")
