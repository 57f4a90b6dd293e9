"""The peak and level search (``exactdp.exact.backends.peak_search``), in double precision,
in mpmath and in exact rationals, on ``g(z) = −(z − 3)²/2``: its peak is 3 and it falls by
``D`` at ``3 ± √(2D)`` (closed form)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from exactdp.exact.backends.peak_search import bisect, bracket, find_peak, level_point


def _g(z):
    return -(z - 3) ** 2 / 2


def _rising(z):
    return 3 - z > 0


def test_the_peak_in_double_precision_is_found_to_the_last_bit():
    peak = find_peak(_rising, -math.inf, math.inf, [-40.0], 1.0, steps=200)
    assert abs(peak - 3) <= 4 * math.ulp(3.0)


def test_the_peak_in_mpmath_is_found_within_the_tolerance():
    with mpmath.workdps(40):
        peak = find_peak(_rising, -mpmath.inf, mpmath.inf, [], mpmath.mpf(1),
                         mpmath.mpf("1e-30"))
        assert abs(peak - 3) <= mpmath.mpf("1e-30")


def test_a_peak_beyond_a_bound_is_the_bound():
    assert find_peak(_rising, 5.0, math.inf, [6.0], 1.0, steps=200) == 5.0
    assert find_peak(_rising, -math.inf, Fraction(1), [], Fraction(1), steps=10) == 1


def test_the_level_points_in_both_directions():
    with mpmath.workdps(40):
        for direction in (-1, 1):
            point = level_point(_g, mpmath.mpf(3), mpmath.mpf(-8), direction,
                                direction * mpmath.inf, mpmath.mpf(1), mpmath.mpf("1e-30"))
            assert abs(point - (3 + 4 * direction)) <= mpmath.mpf("1e-29")


def test_a_level_beyond_the_bound_gives_none_and_one_before_it_the_point():
    # g falls by 8 at 7; a bound at 6 comes first, one at 9 does not
    assert level_point(_g, 3.0, -8.0, 1, 6.0, 1.0, steps=200) is None
    point = level_point(_g, 3.0, -8.0, 1, 9.0, 1.0, steps=200)
    assert abs(point - 7) <= 8 * math.ulp(7.0)


def test_bracket_steps_by_doubling_steps():
    seen = []

    def below_100(z):
        seen.append(z)
        return z < 100

    assert bracket(below_100, Fraction(1), Fraction(2), 1) == 127
    assert seen == [1, 3, 7, 15, 31, 63, 127]
    assert bracket(below_100, Fraction(1), Fraction(2), 1, bound=Fraction(50)) is None
    assert bracket(below_100, Fraction(1), Fraction(2), 1, bound=Fraction(120)) == 120


def test_bisection_of_exact_rationals_stops_after_its_steps():
    # exact rationals never stop splitting: the number of halvings ends it
    point = bisect(lambda z: z * z < 2, Fraction(1), Fraction(2), steps=30)
    assert point * point < 2 and 2 - point * point < Fraction(6, 2 ** 30)
