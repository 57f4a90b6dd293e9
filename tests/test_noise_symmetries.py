"""Integrals equal by a symmetry of their noises (``exact/form/noise_symmetries.py``):
exchanging noises of one law, reflecting them all; their keys, and the value one takes from
another (``certified.log_several_noises``, ``certified.log_integral``).

References: ``mpmath.quad`` (its error estimate as slack) of ``p(c)·Φ(c)·(1 − Φ(c + 1))`` for
``Pr[a < c < b − 1]`` with ``a, b, c ~ N(0, 1)`` independent, of ``p(c)·Φ(c − 1)·(1 − Φ(c))``
for ``Pr[a + 1 < c < b]``, and of the one-hub integrals written out.
"""

from fractions import Fraction

import mpmath
import pytest
from flint import ctx

from exactdp.exact.backends.certified import (log_constant, log_integral, log_several_noises,
                                              shared_constants, shared_integrals)
from exactdp.exact.form.integral_form import Factor, Integral
from exactdp.exact.form.noise_symmetries import group_key, integral_key
from exactdp.exact.form.nested_integral import (Branch, HubPair, HubTriple, Leaf,
                                                NestedIntegral)
from exactdp.noise import Gaussian, Gumbel, Kind, Laplace
from tests.conftest import assert_encloses

ONE = Gaussian(Fraction(1))
ZERO, UNIT = Fraction(0), Fraction(1)


def hub_pair(inner_lowers=(), inner_uppers=(), leaf_lowers=(), leaf_uppers=(), law=ONE,
             leaf_law=ONE) -> HubPair:
    """Hubs ``z₁`` (no bound of its own) and ``z₂`` (bounds ``(α, β)``: ``α + βz₁``) and one
    leaf (bounds ``(α, β₁, β₂)``)."""
    return HubPair(Branch(law), Branch(law, lowers=inner_lowers, uppers=inner_uppers),
                   (Leaf(leaf_law, lowers=leaf_lowers, uppers=leaf_uppers),))


#: ``Pr[z₁ < c < z₂]`` with ``z₂ > z₁``: k-Min-Max's noise inside the range.
BETWEEN = hub_pair(inner_lowers=((ZERO, UNIT),), leaf_lowers=((ZERO, UNIT, ZERO),),
                   leaf_uppers=((ZERO, ZERO, UNIT),))
#: ``Pr[z₁ < z₂ < c]``, ``c > z₁`` given too (implied by the others).
ABOVE_BOTH = hub_pair(inner_lowers=((ZERO, UNIT),),
                      leaf_lowers=((ZERO, ZERO, UNIT), (ZERO, UNIT, ZERO)))


def test_exchanged_noises_and_implied_bounds_share_a_key():
    """``Pr[a < c < b]`` and ``Pr[a < b < c]`` (one implied bound more) are the same integral
    once ``b`` and ``c`` are exchanged; so is a chain ``a < b < c`` written as a tree."""
    chain = NestedIntegral(Branch(ONE, children=(
        Branch(ONE, lowers=((ZERO, UNIT),), children=(Branch(ONE, lowers=((ZERO, UNIT),)),)),)))
    assert group_key(BETWEEN) == group_key(ABOVE_BOTH) == group_key(chain)


def test_a_chain_of_four_has_one_key_as_three_hubs_and_as_a_tree():
    """``Pr[a < b < c < d]`` as hubs ``a``, ``b``, ``c`` with the leaf ``d``, and as a chain
    of nested messages; and ``d`` below ``c`` instead is another integral."""
    def triple(leaf_lowers=(), leaf_uppers=()):
        return HubTriple(Branch(ONE), Branch(ONE, lowers=((ZERO, UNIT),)),
                         Leaf(ONE, lowers=((ZERO, ZERO, UNIT),)),
                         (Leaf(ONE, lowers=leaf_lowers, uppers=leaf_uppers),))
    chain = NestedIntegral(Branch(ONE, children=(Branch(ONE, lowers=((ZERO, UNIT),), children=(
        Branch(ONE, lowers=((ZERO, UNIT),), children=(Branch(ONE, lowers=((ZERO, UNIT),)),)),
    )),)))
    above = triple(leaf_lowers=((ZERO, ZERO, ZERO, UNIT),))
    assert group_key(above) == group_key(chain)
    assert group_key(triple(leaf_uppers=((ZERO, ZERO, ZERO, UNIT),))) != group_key(chain)


def test_other_regions_and_laws_have_other_keys():
    """A shifted bound, a leaf of another law, a free inner hub are other integrals (the leaf
    below both hubs is not: ``Pr[c < a < b] = Pr[a < c < b]``)."""
    shifted = hub_pair(inner_lowers=((ZERO, UNIT),), leaf_lowers=((UNIT, UNIT, ZERO),),
                       leaf_uppers=((ZERO, ZERO, UNIT),))
    other_law = hub_pair(inner_lowers=((ZERO, UNIT),), leaf_lowers=((ZERO, UNIT, ZERO),),
                         leaf_uppers=((ZERO, ZERO, UNIT),), leaf_law=Gaussian(Fraction(2)))
    laplace = hub_pair(inner_lowers=((ZERO, UNIT),), leaf_lowers=((ZERO, UNIT, ZERO),),
                       leaf_uppers=((ZERO, ZERO, UNIT),), leaf_law=Laplace(Fraction(1)))
    free = hub_pair(leaf_uppers=((ZERO, UNIT, ZERO),))
    keys = [group_key(integral) for integral in (BETWEEN, shifted, other_law, laplace, free)]
    assert len(set(keys)) == len(keys)
    below = hub_pair(inner_lowers=((ZERO, UNIT),), leaf_uppers=((ZERO, UNIT, ZERO),))
    assert group_key(below) == group_key(BETWEEN)


def test_bounds_that_are_not_differences_keep_their_own_key():
    """A bound ``z₂ > 2z₁`` is no difference bound, and an empty region (``z₂ > z₁ + 1`` and
    ``z₂ < z₁``) has no closure: each integral is its own key."""
    scaled = hub_pair(inner_lowers=((ZERO, Fraction(2)),))
    empty = hub_pair(inner_lowers=((UNIT, UNIT),), inner_uppers=((ZERO, UNIT),))
    assert group_key(scaled) is scaled and group_key(empty) is empty


#: Two groups of one key, exchanged or reflected, and the bounds ``(l, u)`` of their
#: ``Pr[a + l < c < b − u]``: ``Pr[a < c < b − 1]`` as hubs ``a``, ``b`` with the leaf ``c`` and
#: as hubs ``c``, ``b`` with the leaf ``a``; ``Pr[a + 1 < c < b]`` (hubs ``a < b``) and its
#: reflection ``Pr[b' < c' < a' − 1]`` (hubs ``a' > b'``).
TWINS = [(hub_pair(inner_lowers=((UNIT, UNIT),), leaf_lowers=((ZERO, UNIT, ZERO),),
                   leaf_uppers=((-UNIT, ZERO, UNIT),)),
          hub_pair(inner_lowers=((UNIT, UNIT),), leaf_uppers=((ZERO, UNIT, ZERO),)), 0, 1),
         (hub_pair(inner_lowers=((ZERO, UNIT),), leaf_lowers=((UNIT, UNIT, ZERO),),
                   leaf_uppers=((ZERO, ZERO, UNIT),)),
          hub_pair(inner_uppers=((ZERO, UNIT),), leaf_lowers=((ZERO, ZERO, UNIT),),
                   leaf_uppers=((-UNIT, UNIT, ZERO),)), 1, 0)]


@pytest.mark.parametrize("first, second, low, high", TWINS)
def test_a_group_takes_the_value_of_its_twin(first, second, low, high):
    """Two groups of one key (:data:`TWINS`; the second takes the first's value within
    ``shared_integrals``) both enclose
    ``Pr[a + l < c < b − u] = ∫ p(c)·Φ(c − l)·(1 − Φ(c + u)) dc``."""
    assert group_key(first) == group_key(second)
    with mpmath.workdps(30):
        expected, error = mpmath.quad(lambda c: mpmath.npdf(c) * mpmath.ncdf(c - low)
                                      * (1 - mpmath.ncdf(c + high)),
                                      [-mpmath.inf, 0, mpmath.inf], error=True)
    with shared_integrals():
        for integral in (first, second):
            with ctx.workprec(90):
                log_value, _ = log_several_noises(integral, 60)
                assert_encloses(log_value.exp(), expected, 15, slack=error)


def test_a_one_hub_integral_takes_the_value_of_its_reflection():
    """``∫_{−∞}^{2} p(z)·Φ(z − 1)·(1 − Φ(z)) dz`` and its reflection
    ``∫_{−2}^{∞} p(z)·(1 − Φ(z + 1))·Φ(z) dz``: one key, each enclosing its own
    ``mpmath.quad`` (the second with the first's value, within ``shared_integrals``); a Gumbel
    hub (not symmetric) keeps its own key."""
    own = Integral(ONE, (Factor(ONE, Kind.CDF, UNIT, 1), Factor(ONE, Kind.SF, ZERO, 1)),
                   upper=Fraction(2))
    reflected = Integral(ONE, (Factor(ONE, Kind.SF, -UNIT, 1), Factor(ONE, Kind.CDF, ZERO, 1)),
                         lower=Fraction(-2))
    assert integral_key(own) == integral_key(reflected)
    gumbel = Integral(Gumbel(UNIT), own.factors, upper=Fraction(2))
    assert integral_key(gumbel) is gumbel
    with mpmath.workdps(30):
        references = [mpmath.quad(lambda z: mpmath.npdf(z) * mpmath.ncdf(z - 1)
                                  * (1 - mpmath.ncdf(z)), [-mpmath.inf, 0, 2], error=True),
                      mpmath.quad(lambda z: mpmath.npdf(z) * (1 - mpmath.ncdf(z + 1))
                                  * mpmath.ncdf(z), [-2, 0, mpmath.inf], error=True)]
    with shared_integrals():
        for integral, (expected, error) in zip((own, reflected), references):
            with ctx.workprec(90):
                log_value, _ = log_integral(integral, 60)
                assert_encloses(log_value.exp(), expected, 15, slack=error)


def test_a_shared_constant_is_the_ball_computed_anew_at_its_precision():
    # log S(1/3) of N(0, 2²) = log(½ erfc(1/(6√2))) (mpmath at 50 digits): within
    # shared_constants the ball of one precision is computed once, and it is the very ball
    # computed outside; another precision computes its own
    law, point = Gaussian(Fraction(2)), Fraction(1, 3)
    with mpmath.workdps(50):
        reference = mpmath.log(mpmath.erfc(1 / (6 * mpmath.sqrt(2))) / 2)
    with ctx.workprec(120):
        fresh = log_constant(law, Kind.SF, point)
        with shared_constants():
            first = log_constant(law, Kind.SF, point)
            assert log_constant(law, Kind.SF, point) is first
            with ctx.workprec(200):
                finer = log_constant(law, Kind.SF, point)
    assert first.mid() == fresh.mid() and first.rad() == fresh.rad()
    assert finer.rad() < first.rad()
    for ball in (first, finer):
        assert ball.lower() <= reference <= ball.upper()
