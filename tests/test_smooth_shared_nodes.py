"""Gaussian Sparse Vector with a cutoff of 1, every output at once on shared Gauss–Legendre nodes
(backends/smooth_shared_nodes.py): the ellipse bounds against mpmath's complex erfc, each
output's enclosure against its own certified probability, and the sizes the 12-query cap used
to refuse."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

import exactdp
from exactdp.exact.backends import shared_nodes, smooth_shared_nodes
from exactdp.exact.divergences.output_pairs import certified_balls
from exactdp.exact.form.threshold import build_output_integral
from exactdp.exact.probability import evaluate
from exactdp.sequences import Runs, as_queries
from tests.conftest import _ends, assert_encloses, ellipse_boundary

#: Bits at which the balls' ends are read (``arb.lower()`` rounds to flint's precision).
PRECISION = 300


def _gaussian_svt(sigma1=2, sigma2=4):
    return exactdp.mechanism("svt_gaussian", c=1, sigma1=sigma1, sigma2=sigma2)


def _integrand(mech, shifts, k, z):
    """Output k's integrand p(z)·Π_{i<k} F(z − s_i)·S(z − s_k) at a complex z, by mpmath."""
    sigma1, sigma2 = (mpmath.mpf(law.scale.numerator) / law.scale.denominator
                      for law in (mech.threshold_noise, mech.query_noise))
    value = mpmath.exp(-z ** 2 / (2 * sigma1 ** 2)) / (sigma1 * mpmath.sqrt(2 * mpmath.pi))
    for i, s in enumerate(shifts[:k + 1]):
        u = (z - mpmath.mpf(s.numerator) / s.denominator) / (sigma2 * mpmath.sqrt(2))
        value *= mpmath.erfc(-u) / 2 if i < k else mpmath.erfc(u) / 2
    return value


@pytest.mark.parametrize("rho", [2.0, 16.0])
def test_the_ellipse_bounds_hold(rho):
    # On the Bernstein ellipse of every piece, the integrand of every output (mpmath's complex
    # erfc at 16 points of its boundary) stays below e^{log M}: the tangent and flat-side
    # bounds of backends/off_axis.py summed over the queries.
    mech = _gaussian_svt()
    shifts = [Fraction(q) for q in (0, 3, -2, 3, 1)]
    cuts = sorted({Fraction(0)} | set(shifts))
    pieces = shared_nodes._pieces(cuts, Fraction(2), Fraction(12))
    geometry = shared_nodes.SparseVectorLayout(mech.threshold_noise, mech.query_noise, shifts,
                                               pieces)
    bounds = smooth_shared_nodes._LogBounds(geometry)
    middle, half = geometry.middle, geometry.half
    every = np.full(len(pieces), len(shifts))
    log_bound = bounds(*shared_nodes._ellipse(middle, half, rho), every)
    with mpmath.workdps(30):
        for p, z in ellipse_boundary(geometry, rho):
            for k in range(len(shifts) + 1):
                modulus = abs(_integrand(mech, shifts, k, z))
                assert modulus == 0 or mpmath.log(modulus) <= log_bound[k, p], (p, z, k)


@pytest.mark.parametrize("queries", ["0,1,2,-1", "1,1,0,1,0", "-3,5"])
def test_each_output_within_its_own_certified_probability(queries):
    # Each shared ball encloses the output's certified probability computed on its own
    # (method="certified", another quadrature: Gauss–Legendre between the peak-aware
    # breakpoints), 30 digits wide; the balls of all outputs sum to a ball holding 1.
    mech = _gaussian_svt()
    d = as_queries(queries)
    balls = smooth_shared_nodes.first_top_probabilities(mech, [Fraction(q) for q in d.expand()],
                                                        30)
    n = len(d)
    outputs = [[False] * k + [True] for k in range(n)] + [[False] * n]
    for output, ball in zip(outputs, balls):
        alone = _ends(exactdp.probability(mech, d, Runs.from_items(output),
                                          method="certified"))
        with ctx.workprec(PRECISION):
            low, high = _ends(ball)
            assert low <= alone[0] and alone[1] <= high
            assert_encloses(ball, sum(alone) / 2, 30, slack=alone[1] - alone[0])
    with ctx.workprec(PRECISION):
        low, high = _ends(sum(balls, arb(0)))
    assert low <= 1 <= high and high - low <= Fraction(1, 10 ** 29)


def test_the_divergences_answer_past_twelve_queries():
    # 13 queries, one past the old cap: the profile from the shared nodes equals, within both
    # enclosures, δ(ε) = Σ max(0, p1 − e^ε p2) over the outputs' certified probabilities each
    # computed on its own (output_pairs.certified_balls, the path the cap used to force).
    mech = _gaussian_svt()
    d1, d2 = as_queries("0*6,1*7"), as_queries("1*6,2*7")
    eps = Fraction(1, 2)
    (profile,) = exactdp.privacy_profile(mech, d1, d2, [eps])
    outputs = [(False,) * k + (True,) for k in range(13)] + [(False,) * 13]
    sides = [certified_balls(mech, {output: build_output_integral(mech, d,
                                                                  Runs.from_items(output))
                                    for output in outputs}, evaluate, 30) for d in (d1, d2)]
    with ctx.workprec(PRECISION):
        factor = (arb(eps.numerator) / eps.denominator).exp()
        reference = sum(((p1 - factor * p2).nonnegative_part()
                         for p1, p2 in zip(sides[0].values(), sides[1].values())), arb(0))
        low, high = _ends(reference)
    assert high - low < Fraction(1, 10 ** 28) * low
    assert_encloses(profile.delta, (low + high) / 2, 30, slack=high - low)


@pytest.mark.parametrize("name, moves, outputs, checked", [
    ("svt_gaussian", (1, 1), 41, ("T", "F*20,T", "F*40")),
    ("noisy_max_gaussian", (-1, 1), 40, ("0", "1")),
])
def test_max_loss_on_forty_distinct_queries(name, moves, outputs, checked):
    # 40 distinct queries (the cap was 12), moved by ±1 alternately (noisy max; every index at
    # once, backends/noisy_max_nodes.py) or all up by 1 (SVT): the largest |loss| is at least
    # that of a few outputs, each from two certified probabilities computed on their own, and
    # the shared balls of each input sum to 1.
    mech = exactdp.mechanism(name, sigma=2) if name.startswith("noisy") else _gaussian_svt()
    d1 = [Fraction(i, 10) for i in range(40)]
    d2 = [q + moves[i % 2] for i, q in enumerate(d1)]
    result = exactdp.max_privacy_loss(mech, d1, d2)
    assert result.outputs == outputs
    for output in checked:
        alone = exactdp.privacy_loss(mech, d1, d2, output, method="certified")
        assert abs(result.loss.log_ratio_upper) >= abs(alone.log_ratio_lower)
    with mpmath.workdps(40):
        assert abs(result.total1 - 1) < mpmath.mpf(10) ** -25
        assert abs(result.total2 - 1) < mpmath.mpf(10) ** -25


def test_runs_of_equal_queries_and_the_limit():
    # A run of 1000 equal queries reuses its factors at the nodes (one erfc per node); the
    # first and last outputs agree with their certified probabilities (past the shared
    # nodes' limit the profile and the largest loss go run by run, tests/test_runs.py, and
    # the Rényi divergences by blocks, tests/test_renyi_runs.py).
    mech = _gaussian_svt()
    balls = smooth_shared_nodes.first_top_probabilities(mech, [Fraction(0)] * 1000, 20)
    for output, ball in ((Runs.from_items([True]), balls[0]),
                         (Runs.from_runs([(False, 1000)]), balls[-1])):
        alone = _ends(exactdp.probability(mech, "0*1000", output, dps=20, method="certified"))
        with ctx.workprec(PRECISION):
            assert_encloses(ball, sum(alone) / 2, 20, slack=alone[1] - alone[0])


def test_the_gaussian_double_precision_logs():
    # Gaussian.float_log (normal_doubles.py, which the bounds sum) against mpmath's logs of
    # erfc and the density at 50 digits, and their derivatives by mpmath.diff, to 1e-12
    # relative, from the far left tail (log F ≈ −5.6·10^10) to the far right, on both sides
    # of normal_doubles.TAIL (t = ±26 at x = ±110.3: C library's erfc below, Arb's U above).
    from exactdp.noise import Gaussian, Kind
    law = Gaussian(Fraction(3))
    points = np.array([-1e6, -600.0, -110.5, -110.0, -40.0, -3.0, 0.0, 0.5, 7.0, 90.0, 110.0,
                       110.5])
    with mpmath.workdps(50):
        sigma = mpmath.mpf(3)

        def log_tail(t):
            """``log(½ erfc(t))``, by ``log1p`` where it is near 0."""
            return (mpmath.log(mpmath.erfc(t) / 2) if t >= 0
                    else mpmath.log1p(-mpmath.erfc(-t) / 2))

        functions = {
            Kind.CDF: lambda x: log_tail(-x / (sigma * mpmath.sqrt(2))),
            Kind.SF: lambda x: log_tail(x / (sigma * mpmath.sqrt(2))),
            Kind.PDF: lambda x: -x ** 2 / (2 * sigma ** 2)
            - mpmath.log(sigma * mpmath.sqrt(2 * mpmath.pi))}
        for kind, function in functions.items():
            values, slopes = law.float_log(kind, points)
            for x, value, slope in zip(points, values, slopes):
                for computed, exact in ((value, function(mpmath.mpf(x))),
                                        (slope, mpmath.diff(function, mpmath.mpf(x)))):
                    assert abs(computed - exact) <= 1e-12 * (abs(exact) + 1e-300), (kind, x)
