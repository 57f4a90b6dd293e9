"""Gaussian Sparse Vector (cutoff 1) at many positions of long runs of equal queries
(backends/run_positions.py): the ellipse bounds against mpmath's complex erfc, integer positions
against their own certified integral forms and the full enumeration, non-integer positions and
several runs against mpmath.quad with the integrand written out, and the positions refused."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

import exactdp
from exactdp.errors import InputError
from exactdp.exact.backends import off_axis, run_positions, shared_nodes, smooth_shared_nodes
from exactdp.exact.divergences.threshold_runs import RunProbabilities
from exactdp.sequences import as_queries, to_fraction
from tests.conftest import _ends, assert_encloses, ellipse_boundary

#: Bits at which the balls' ends are read (``arb.lower()`` rounds to flint's precision).
PRECISION = 300
SIGMA1, SIGMA2 = 2, 4


def _mech():
    return exactdp.mechanism("svt_gaussian", c=1, sigma1=SIGMA1, sigma2=SIGMA2)


def _mp(value: Fraction):
    return mpmath.mpf(value.numerator) / value.denominator


def _log_integrand(runs, j, t, prefix, z):
    """``log(p(z)·Π_{r<j} F(z − s_r)^{len_r}·F(z − s_j)^t·S(z − s_j))`` (no ``S`` for a
    prefix) by mpmath at a real or complex ``z``, ``p`` the N(0, σ1²) density and ``F``, ``S``
    the N(0, σ2²) CDF and survival function (``erfc``), the threshold 0 (``s_r = q_r``)."""
    sigma1, sigma2 = mpmath.mpf(SIGMA1), mpmath.mpf(SIGMA2)
    total = -z ** 2 / (2 * sigma1 ** 2) - mpmath.log(sigma1 * mpmath.sqrt(2 * mpmath.pi))

    def log_cdf(x):
        return mpmath.log(mpmath.erfc(-x / (sigma2 * mpmath.sqrt(2))) / 2)

    for shift, length in runs[:j]:
        total += length * log_cdf(z - _mp(shift))
    shift = _mp(runs[j][0])
    total += _mp(t) * log_cdf(z - shift)
    if not prefix:
        total += mpmath.log(mpmath.erfc((z - shift) / (sigma2 * mpmath.sqrt(2))) / 2)
    return total


def _quad(queries: str, position: Fraction, prefix: bool):
    """``(value, error)`` as exact rationals: the position's integral by ``mpmath.quad``
    (tanh-sinh) at 60 digits, split at every 4 units over [−64, 64] (the integrand beyond is
    below 10^{−200} of it)."""
    runs = [(Fraction(value), count) for value, count in as_queries(queries)]
    start = 0
    for j, (_, count) in enumerate(runs):
        if position < start + count or j == len(runs) - 1:
            break
        start += count
    with mpmath.workdps(60):
        value, error = mpmath.quad(
            lambda z: mpmath.exp(_log_integrand(runs, j, position - start, prefix, z)),
            list(range(-64, 65, 4)), error=True)
        return to_fraction(value, "integral"), to_fraction(error, "error")


def test_the_ellipse_bounds_hold():
    # On the Bernstein ellipses (ρ = 2, 16) of every piece, each position's integrand (mpmath's
    # complex erfc at 16 points of the boundary, |F^t| = |F|^t) stays below e^{log M}, for
    # integer and fractional exponents, short and long runs; where a fractional power's bound
    # is finite its F has no zero on the extent (|S| < 1 there, or the extent lies left of s).
    mech = _mech()
    queries = as_queries("0*3,2*400,-1*5000")
    runs = [(Fraction(value), count) for value, count in queries]
    positions = [0, 2, Fraction(5, 2), 3, Fraction(403, 3), 402, 403, Fraction(9000, 7), 5402]
    for prefix in (False, True):
        located = run_positions._located(runs, positions, prefix)
        cuts = sorted({Fraction(0)} | {s for s, _ in runs})
        pieces = shared_nodes._pieces(cuts, Fraction(2), Fraction(24))
        geometry = run_positions._PositionLayout(mech, runs, located, prefix, pieces)
        bounds = run_positions._PositionBounds(geometry)
        every = np.full(len(pieces), len(located) - 1)
        for rho in (2.0, 16.0):
            log_bound = bounds(*shared_nodes._ellipse(geometry.middle, geometry.half, rho),
                               every)
            with mpmath.workdps(30):
                for p, z in ellipse_boundary(geometry, rho):
                    for k, (j, t) in enumerate(located):
                        if log_bound[k, p] == np.inf:
                            continue
                        log_modulus = mpmath.re(_log_integrand(runs, j, t, prefix, z))
                        assert log_modulus <= log_bound[k, p], (prefix, rho, p, z, k)


@pytest.mark.parametrize("kind", ["F", "S"])
def test_the_decay_bound_holds(kind):
    # off_axis.decay_log_bound of a Gaussian's F (flat right of 0) or S (flat left of 0) over
    # extents [a, b] × [−h, h] of several sizes and places, against log|F(w)| or log|S(w)| by
    # mpmath's complex erfc on a 9 × 9 grid of each extent (its corners and edges included):
    # the bound holds everywhere, and on the real segment it is within 10% of −T_near.
    from exactdp.noise import Gaussian, Kind
    sigma = 4
    law = Gaussian(Fraction(sigma))
    growth = float(law.off_axis_growth())
    sign = 1 if kind == "F" else -1   # F is flat at x > 0, S at x < 0
    complement = Kind.SF if kind == "F" else Kind.CDF
    checked = 0
    with mpmath.workdps(30):
        for a, b, h in ((2.0, 4.0, 0.5), (9.0, 12.0, 1.5), (10.0, 10.5, 0.2), (5.0, 13.0, 3.0),
                        (-1.0, 3.0, 1.0), (14.0, 30.0, 6.0), (8.0, 16.0, 0.0)):
            start, stop = (a, b) if sign > 0 else (-b, -a)
            near, far = (stop, start) if sign > 0 else (start, stop)
            log_near, slope_near = law.float_log(complement, np.array([near]))
            log_far, _ = law.float_log(complement, np.array([far]))
            bound, _ = off_axis.decay_log_bound(log_near, log_far, np.abs(slope_near),
                                                max(abs(start), abs(stop)), growth, h)
            if not np.isfinite(bound[0]):
                continue
            for x in np.linspace(start, stop, 9):
                for y in np.linspace(-h, h, 9):
                    u = mpmath.mpc(x, y) / (sigma * mpmath.sqrt(2))
                    value = mpmath.erfc(-u if kind == "F" else u) / 2
                    assert mpmath.log(abs(value)) <= bound[0], (a, b, h, x, y)
                    checked += 1
            if h == 0:
                assert bound[0] <= -0.9 * np.exp(log_near[0])
    assert checked >= 5 * 81


def test_fractional_powers_only_on_ellipses_free_of_zeros():
    # F(w − s)^t with t not an integer is analytic only off the zeros of F: wherever the bound
    # of such a position is finite, no zero of F(w − s_j) = ½ erfc(−(w − s_j)/(σ√2)) lies
    # inside the ellipse (the first six zeros of erfc in the upper half-plane and their
    # conjugates, by mpmath.findroot from the values of Fettis, Caslin and Cramer, "Complex
    # zeros of the error function and of the complementary error function", Math. Comp. 27
    # (1973), 401–407; a point is inside when its distances to the foci c ± h sum below
    # (ρ + 1/ρ)·h), while integer powers keep every ellipse.
    mech = _mech()
    runs = [(Fraction(0), 10), (Fraction(3), 10 ** 6)]
    located = run_positions._located(runs, [Fraction(1, 2), 5, Fraction(100001, 10), 12], True)
    pieces = shared_nodes._pieces([Fraction(0), Fraction(3)], Fraction(2), Fraction(24))
    geometry = run_positions._PositionLayout(mech, runs, located, True, pieces)
    bounds = run_positions._PositionBounds(geometry)
    every = np.full(len(pieces), len(located) - 1)
    with mpmath.workdps(20):
        roots = [mpmath.findroot(mpmath.erfc, mpmath.mpc(guess)) for guess in
                 (-1.3548 + 1.9915j, -2.1770 + 2.6911j, -2.7844 + 3.2353j, -3.2874 + 3.6973j,
                  -3.7275 + 4.1108j, -4.1226 + 4.4875j)]
        roots += [mpmath.conj(root) for root in roots]
        scale = SIGMA2 * mpmath.sqrt(2)
        refused = 0
        for rho in (2.0, 16.0, 64.0):
            log_bound = bounds(*shared_nodes._ellipse(geometry.middle, geometry.half, rho),
                               every)
            for k, (j, t) in enumerate(located):
                zeros = [_mp(runs[j][0]) - scale * root for root in roots]
                for p, (c, h) in enumerate(zip(geometry.middle, geometry.half)):
                    inside = any(abs(w - (c - h)) + abs(w - (c + h)) < (rho + 1 / rho) * h
                                 for w in zeros)
                    if t.denominator == 1:
                        assert log_bound[k, p] < np.inf
                    elif inside:
                        assert log_bound[k, p] == np.inf, (rho, k, p)
                        refused += 1
    assert refused > 0


@pytest.mark.parametrize("threshold", [0, Fraction(3, 2)])
@pytest.mark.parametrize("prefix", [False, True])
def test_integer_positions_against_their_own_forms(prefix, threshold):
    # Each ball overlaps the position's certified integral form (RunProbabilities: one form
    # each, another quadrature) and is at most 10^{−30} wide, at the first, inner and last
    # positions of both runs (and n for a prefix), with the threshold 0 and 3/2.
    mech = exactdp.mechanism("svt_gaussian", c=1, sigma1=SIGMA1, sigma2=SIGMA2, T=threshold)
    queries = as_queries("0*300,1*200")
    positions = [0, 1, 299, 300, 301, 499] + ([500] if prefix else [])
    balls = run_positions.probabilities_at(mech, queries, positions, 30, prefix)
    forms = RunProbabilities(mech, queries, queries)
    for position, ball in zip(positions, balls):
        alone = (forms.prefix if prefix else forms.top)(0, position, 30)
        with ctx.workprec(PRECISION):
            low, high = _ends(alone)
            assert_encloses(ball, (low + high) / 2, 30, slack=(high - low) / 2)


@pytest.mark.parametrize("queries, positions", [
    ("0*300,1*200", [Fraction(1, 3), Fraction(599, 2), Fraction(301, 1), Fraction(4991, 10)]),
    ("-1*7,2*50,0*1000", [Fraction(7, 2), Fraction(10), Fraction(563, 4), Fraction(1056)]),
])
@pytest.mark.parametrize("prefix", [False, True])
def test_positions_against_quadrature(queries, positions, prefix):
    # Non-integer and integer positions in every run, against mpmath.quad at 60 digits of the
    # integrand written out (_log_integrand), to 40 digits.
    balls = run_positions.probabilities_at(_mech(), as_queries(queries), positions, 40, prefix)
    for position, ball in zip(positions, balls):
        value, error = _quad(queries, position, prefix)
        assert error < Fraction(1, 10 ** 50) * value
        with ctx.workprec(PRECISION):
            assert_encloses(ball, value, 40, slack=error)


def test_every_position_of_a_small_input_against_the_enumeration():
    # Every k of 10 queries in three runs against the outputs of the full enumeration
    # (smooth_shared_nodes.first_top_probabilities): P(k) = Pr[⊥ᵏ⊤], and
    # A(k) = Σ_{i ≥ k} Pr[⊥ⁱ⊤] + Pr[⊥ⁿ], the outputs that begin with k answers ⊥.
    mech = _mech()
    queries = as_queries("0*5,1*3,-1*2")
    outputs = smooth_shared_nodes.first_top_probabilities(
        mech, [Fraction(q) for q in queries.expand()], 30)
    tops = run_positions.probabilities_at(mech, queries, range(10), 30, False)
    prefixes = run_positions.probabilities_at(mech, queries, range(11), 30, True)
    with ctx.workprec(PRECISION):
        for k in range(11):
            references = [outputs[k]] if k < 10 else []
            references.append(sum(outputs[k:], arb(0)))
            for ball, reference in zip(tops[k:] if k < 10 else [], references[:1]):
                low, high = _ends(reference)
                assert_encloses(ball, (low + high) / 2, 30, slack=(high - low) / 2)
            low, high = _ends(references[-1])
            assert_encloses(prefixes[k], (low + high) / 2, 29, slack=(high - low) / 2)
    assert _ends(prefixes[0]) == (1, 1)


def test_mass_beyond_the_first_pieces():
    # A narrow threshold noise (σ1 = 1) and a wide query noise (σ2 = 10): at κ = 10^5 of
    # 0*1000000 the integrand's mass lies near z = 45, beyond the first pieces' reach (16);
    # the reach is doubled before any piece is split (else the steep edge of F^κ is halved
    # without end), and the balls overlap the positions' certified forms.
    mech = exactdp.mechanism("svt_gaussian", c=1, sigma1=1, sigma2=10)
    queries = as_queries("0*1000000")
    positions = [1000, 100000, 999999]
    balls = run_positions.probabilities_at(mech, queries, positions, 30, False)
    forms = RunProbabilities(mech, queries, queries)
    for position, ball in zip(positions, balls):
        with ctx.workprec(PRECISION):
            low, high = _ends(forms.top(0, position, 30))
            assert_encloses(ball, (low + high) / 2, 30, slack=(high - low) / 2)


def test_decreasing_along_a_run_and_long_runs():
    # P(κ) decreases in κ along a run (F^t·S, F < 1), certified on the balls, over a run of
    # 10^6 queries and one of 10^12, at integer and non-integer positions.
    mech = _mech()
    for length in (10 ** 6, 10 ** 12):
        positions = sorted({Fraction(int(x)) for x in np.geomspace(1, length - 1, 40)}
                           | {Fraction(length - 1, 2), Fraction(0)})
        balls = run_positions.probabilities_at(mech, as_queries(f"0*{length}"), positions, 30,
                                               False)
        for left, right in zip(balls, balls[1:]):
            assert right < left


@pytest.mark.parametrize("position, prefix, message", [
    (-1, False, r"position must lie in \[0, 500\) \(the queries' length 500\), got -1"),
    (500, False, r"position must lie in \[0, 500\) .*got 500"),
    (Fraction(1001, 2), True, r"position must lie in \[0, 500\] .*got 1001/2"),
    ("x", True, r"position must be a number, got 'x'"),
])
def test_bad_positions(position, prefix, message):
    with pytest.raises(InputError, match=message) as raised:
        run_positions.probabilities_at(_mech(), as_queries("0*300,1*200"), [3, position], 30,
                                       prefix)
    assert "\n" not in str(raised.value)
