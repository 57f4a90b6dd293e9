"""The one enclosure assertion (``tests/conftest.py``) fails where it must: an enclosure that
misses the reference, and one that holds it but is too wide (``[0, ∞]`` above all)."""

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from tests.conftest import assert_encloses

THIRD = Fraction(1, 3)


def test_a_narrow_enclosure_of_the_reference_passes():
    with ctx.workprec(200):
        assert_encloses(arb(1) / 3, THIRD, 50)
    assert_encloses((mpmath.mpf("0.3333"), mpmath.mpf("0.3334")), THIRD, 3)
    assert_encloses((0, 0), 0, 30)
    assert_encloses((mpmath.inf, mpmath.inf), mpmath.inf, 30)


@pytest.mark.parametrize("enclosure", [(0, mpmath.inf), (0, 1), (Fraction(1, 4), Fraction(1, 2))])
def test_a_wide_enclosure_fails_though_it_holds_the_reference(enclosure):
    with pytest.raises(AssertionError, match="wide"):
        assert_encloses(enclosure, THIRD, 10)


def test_a_narrow_enclosure_that_misses_the_reference_fails():
    with pytest.raises(AssertionError, match="outside"):
        assert_encloses((THIRD + Fraction(1, 10 ** 20), THIRD + Fraction(2, 10 ** 20)), THIRD, 10)


def test_slack_widens_containment_only():
    near = (THIRD + Fraction(1, 10 ** 12), THIRD + Fraction(2, 10 ** 12))
    assert_encloses(near, THIRD, 10, slack=Fraction(1, 10 ** 11))
    with pytest.raises(AssertionError, match="wide"):
        assert_encloses((THIRD, THIRD + Fraction(1, 10 ** 5)), THIRD, 10, slack=1)


def test_a_zero_or_infinite_reference_needs_an_exact_enclosure():
    with pytest.raises(AssertionError, match="wide"):
        assert_encloses((0, Fraction(1, 10 ** 40)), 0, 30)
    assert_encloses((0, Fraction(1, 10 ** 40)), 0, 30, absolute=True)
    with pytest.raises(AssertionError):
        assert_encloses((mpmath.mpf(10) ** 100, mpmath.inf), mpmath.inf, 30)
