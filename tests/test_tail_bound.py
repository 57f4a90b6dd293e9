"""The tangent bound on a cut-off tail of a log-concave integrand."""

import math

import pytest
from flint import arb

from exactdp.errors import PrecisionError
from exactdp.exact.backends.tail_bound import tangent_tail_bound


def test_the_tangent_bound_is_exact_for_an_exponential_tail():
    # g(z) = −z: ∫_0^∞ e^{−z} dz = 1 = e^{g(0)}/|g'(0)|
    assert tangent_tail_bound(arb(0), arb(-1), arb(0)) == 1


def test_the_tangent_bound_holds_above_a_gaussian_tail():
    # g(z) = −z²/2 beyond z = 1 (right tail, slope −1), log scale 0: the tail is √(π/2)·erfc(1/√2)
    tail = math.sqrt(math.pi / 2) * math.erfc(1 / math.sqrt(2))
    bound = tangent_tail_bound(arb(-0.5), arb(-1), arb(0))
    assert tail < float(bound) < 0.61
    # the log scale divides the bound
    assert float(tangent_tail_bound(arb(-0.5), arb(-1), arb(-0.5))) == pytest.approx(1)


def test_a_log_integrand_rising_beyond_the_point_has_no_tangent_bound():
    with pytest.raises(PrecisionError, match="does not decrease"):
        tangent_tail_bound(arb(0), arb(1), arb(0))
    with pytest.raises(PrecisionError, match="does not decrease"):
        tangent_tail_bound(arb(0), arb(0, 1), arb(0))
