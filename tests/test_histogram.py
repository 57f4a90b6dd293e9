"""The Laplace histogram and StatDP's Lap(ε) bug (Ding, Wang, Wang, Zhang & Kifer, CCS 2018
(arXiv:1805.10277), Algorithms 9–10)."""

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

import exactdp
from exactdp.errors import InputError
from exactdp.exact.event_probability.rules import event_probability
from exactdp.events import parse_event, view_of


def test_density_is_a_product_of_laplace_densities():
    mech = exactdp.mechanism("histogram", eps=0.5)  # Lap(2) per bin
    p = exactdp.probability(mech, [1, 2], "0,3")
    # by hand: e^{-1/2}/4 · e^{-1/2}/4
    assert float(p.value) == pytest.approx(math.exp(-1) / 16, rel=1e-15)
    first = exactdp.probability(exactdp.mechanism("statdp.histogram", eps=0.5), [1, 2], "0")
    assert float(first.value) == pytest.approx(math.exp(-0.5) / 4, rel=1e-15)


@pytest.mark.parametrize("eps", [0.2, 0.7, 1.5])
def test_lap_eps_bug_has_loss_one_over_eps(eps):
    # Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (arXiv:1805.10277), on Alg. 10 (Fig. 3): "the
    # incorrect
    # variant satisfies 1/ε0-differential privacy".  The event
    # (−inf, a) with a ≤ 1 has ln(F_ε(a − 1)/F_ε(a − 2)) = 1/ε exactly.
    mech = exactdp.mechanism("statdp.histogram_eps", eps=eps)
    view = view_of(mech, [1] * 5)
    event = parse_event("value in (-inf, 0.5)", view)
    p1, p2 = (event_probability(mech, d, event) for d in ([1] * 5, [2] + [1] * 4))
    with mpmath.workdps(30):
        assert abs(p1.log_value - p2.log_value - 1 / mpmath.mpf(eps)) < 1e-13


def test_interval_event_on_a_bin():
    mech = exactdp.mechanism("histogram", eps=1)
    view = view_of(mech, [0, 0, 0])
    p = event_probability(mech, [0, 3, 0], parse_event("bin2 in (2, 4)", view))
    # F(1) − F(−1) for Lap(1): 1 − e^{−1}
    assert float(p.value) == pytest.approx(1 - math.exp(-1), rel=1e-14)


def test_sampler_matches_exact():
    mech = exactdp.mechanism("histogram", eps=1)
    values = exactdp.sample(mech, [0, 3], 20_000, np.random.default_rng(2)).values
    assert values.shape == (20_000, 2)
    low, high = binom.interval(0.999, 20_000, 1 - math.exp(-1))
    assert low <= np.count_nonzero((values[:, 1] > 2) & (values[:, 1] < 4)) <= high


def test_bad_output():
    with pytest.raises(InputError, match="2 number"):
        exactdp.probability(exactdp.mechanism("histogram"), [0, 1], "T,1")
