"""Gauss–Legendre quadrature, piece by piece between kinks, of a piecewise exponential integral,
with the log integrand evaluated in ball arithmetic from power series
(``backends/piece_series.py``); docs/engine.md §4.

1. Geometry, in double precision (it only places points): the log integrand ``g`` is concave
   (log-concave laws), so its peak ``z*`` is found by bisection on the sign of ``g'``, and the
   points ``z_L < z* < z_R`` where ``g`` has fallen by ``D = (dps + 10)·ln 10`` (or a bound of
   the domain, whichever comes first) by bisection on ``g``.
2. Rigorous tails: concavity gives ``∫_{z_R}^∞ e^{g} ≤ e^{g(z_R)}/|g'(z_R)|`` (and its mirror at
   ``z_L``), evaluated in ball arithmetic at the exact points found.
3. ``[z_L, z_R]`` is cut at every kink inside it and subdivided until, on each sub-piece of width
   ``h``, ``τ = max(h·max|g'|, (h·|Δg'|)^{1/2}) ≤`` :data:`STEP` (``g'`` is monotone, so its
   extremes are at the ends) and ``h`` is at most the distance to the nearest zero of a factor
   on its ``1 − e^{…}`` side (where ``log g`` is singular).  On each sub-piece the integrand is
   analytic and integrated by Gauss–Legendre rules of orders ``N`` and ``N + 2``
   (:func:`gauss_order`; nodes and weights are flint's rigorous Legendre roots).
4. Error: the higher-order sum is returned; its error bound adds the balls' radii (rounding and
   series truncation, rigorous), the two tails (rigorous) and the difference of the two rules on
   every piece — the estimate of the lower-order rule's error, hence a conservative estimate of
   the higher-order one.  If the total exceeds ``10^{−dps−1}`` of the value, the pieces are
   halved and the integral recomputed (at most :data:`ROUNDS` times).  This is the
   ``"estimate"`` method (:func:`integrate_pieces`).
5. The certified rule (:func:`log_integral_certified`) bounds each piece's error instead: the
   integrand is entire on the piece's formula, so the ``n``-point rule errs by at most
   ``h·(64/15)·M·ρ^{2−2n}/(ρ² − 1)`` for ``|f| ≤ M`` on the Bernstein ellipse ``E_ρ``
   (``backends/gauss_legendre.py``), and ``M`` follows from real values only:
   ``log|f(x + iy)| ≤ g(x) + (y²/2)|g''(x)|`` (each factor ``1 − u e^{iφ}`` has
   ``|·|² = (1 − u)² + 2u(1 − cos φ)``), with ``g(x) ≤ g(m) + |g'(m)|·|x − m|`` (concavity) and
   ``|g''|`` at most its sum at the two ends of the ellipse's real extent (each term is monotone).
   Each piece then gets the fewest nodes whose bound fits its share of the tolerance
   (``backends/node_planner.py``); the sum plus the ball ``[0, Σ bounds + tails]`` is an
   enclosure.

The cost is ``O(n)`` pieces times ``O(N)`` nodes times ``O(K)`` per node (``K`` the series
length, about the accuracy in bits), plus ``O(n·K)`` to build the series: near-linear in the
number of distinct factors, independent of their powers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
from flint import arb

from ...errors import PrecisionError
from .gauss_legendre import error_bound, legendre_rule
from .node_planner import plan
from ..form.integral_form import Integral
from ...precision import (ESTIMATE_GOAL_GUARD_DIGITS, ROUNDING_GUARD_DIGITS, digits_of_bits,
                         to_arb, working_bits)
from . import peak_search
from .piece_series import PiecewiseExponential, flint_context
from .tail_bound import tangent_tail_bound

#: Largest ``τ`` (``h·max|g'|``, :func:`_subdivide`) of a sub-piece.
STEP = 1.0
#: Bernstein ellipse parameter of the certified rule: each node gains ``2·log10 ρ`` ≈ 1.2 digits,
#: and the ellipse reaches ``(ρ + ρ^{−1})/2`` ≈ 2.1 half-widths from the piece's middle.
RHO = Fraction(4)
#: Precision of the ellipse bounds (they need only a few correct bits of ``log M``).
BOUND_BITS = 64
#: Most halvings of a bisection of the geometry (double precision resolves the point sooner
#: unless it is near 0).
BISECTION_STEPS = 200
#: Subdivision rounds (each halves every piece); the last one's error bound is returned, and
#: the caller raises PrecisionError if it exceeds ``10^{−dps}``.
ROUNDS = 4


def gauss_order(tau: float, reach: float, dps: int) -> int:
    """The lower of the two Gauss–Legendre orders on a sub-piece: the smallest ``N`` whose
    predicted relative error is below ``10^{−dps−10}`` in two models (both are rough, hence the
    margin; the rule of order ``N + 2`` checks it) —

    * an entire integrand ``e^{g}``: ``τ^{2N} (N!)^4 / ((2N + 1)((2N)!)^3)`` (the rule's error term
      ``h^{2N+1} (N!)^4 f^{(2N)} / ((2N + 1)((2N)!)^3)``, Abramowitz & Stegun 25.4.30, with
      ``f^{(2N)} ≈ (g')^{2N} f`` and ``τ = h·max|g'|``);
    * the zeros of the factors, at ``reach`` piece widths from the piece: ``ρ^{−2N}`` for the
      Bernstein ellipse through them, ``ρ = d + (d² − 1)^{1/2}``, ``d = 1 + 2·reach`` (Trefethen,
      *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3).
    """
    target = (dps + 10) * math.log(10)
    d = 1 + 2 * reach
    rho = d + math.sqrt(d * d - 1)
    order = max(3, math.ceil(target / (2 * math.log(rho))))
    while tau > 0 and (2 * order * math.log(tau) + 4 * math.lgamma(order + 1)
                       - math.log(2 * order + 1) - 3 * math.lgamma(2 * order + 1)) > -target:
        order += 1
    return order


def _subdivide(g: PiecewiseExponential, points: list, step: float) -> list:
    """Pieces ``(a, b, τ, reach)`` between the points, each split until ``τ ≤ step`` and its
    width is at most ``step`` times the distance to the nearest zero of a factor (module
    docstring, item 3): uniformly where ``|g'|`` varies by at most a factor 2 across the piece and
    the nearest zero is at least half its width away, otherwise by bisection (which grades the
    pieces geometrically towards a zero).

    ``τ = max(h·max|g'|, (h·|Δg'|)^{1/2})`` measures how far the integrand is from a constant on
    the piece through its slope and its curvature (``h²|g''|``); ``reach`` is the distance to
    the nearest zero in piece widths (:func:`gauss_order`).
    """
    slopes = dict(zip(points, _abs_slopes(g, points)))
    pieces, pending = [], list(zip(points, points[1:]))

    def distance(a, b):
        return max(g.zero_distance(a, b), 1e-300)

    while pending:
        split = []
        for a, b in pending:
            h, sa, sb = float(b - a), slopes[a], slopes[b]
            tau = max(h * max(sa, sb), math.sqrt(h * abs(sb - sa)))
            gap = distance(float(a), float(b))
            parts = max(1, math.ceil(tau / step), math.ceil(h / (gap * step)))
            if parts == 1:
                pieces.append((a, b, tau, gap / h))
            elif gap >= h / 2 and (max(sa, sb) <= 2 * min(sa, sb) or parts <= 2):
                width = (b - a) / parts
                pieces.extend((a + i * width, a + (i + 1) * width, tau / parts, gap * parts / h)
                              for i in range(parts))
            else:
                split.append((a, b))
        middles = [(a + b) / 2 for a, b in split]
        slopes.update(zip(middles, _abs_slopes(g, middles)))
        pending = [piece for (a, b), m in zip(split, middles) for piece in ((a, m), (m, b))]
    return sorted(pieces)


def _abs_slopes(g: PiecewiseExponential, points: list) -> list:
    """``|g'|`` at the points in double precision (0 where it is not finite: such a point is a
    bound where the integrand vanishes, never a cut-off point)."""
    if not points:
        return []
    return [abs(s) if math.isfinite(s) else 0.0 for s in g.slope_float([float(p) for p in points])]


def _tail(g: PiecewiseExponential, point: Fraction, direction: int, reference: arb) -> arb:
    """Upper bound on the integral of ``e^{g − reference}`` beyond ``point`` on the side
    ``direction`` (−1 left, +1 right; :func:`~.tail_bound.tangent_tail_bound`)."""
    evaluated = g.value_and_slope(point)
    if evaluated is None:  # the integrand vanishes at the point (and beyond it)
        return arb(0)
    value, slope = evaluated
    return tangent_tail_bound(value, slope * direction, reference)


def _to_mpf(x: arb):
    return mpmath.mpf(x.mid()._mpf_)


def _layout(g: PiecewiseExponential, integral: Integral, drop: float):
    """The points that cut ``[z_L, z_R]`` (the peak, the kinks between, the cut-off points or
    the bounds), the log integrand at the peak as the reference ``e^{g*}`` factored out, and the
    two tails' rigorous bound relative to it (module docstring, items 1–2)."""
    lower = -math.inf if integral.lower is None else float(integral.lower)
    upper = math.inf if integral.upper is None else float(integral.upper)
    scale = float(g.scale)
    # (the slope at a finite bound is its limit from inside the domain, at the next float)
    peak = peak_search.find_peak(lambda z: g.slope_float(z)[0] > 0, lower, upper, g.kinks,
                                 scale, steps=BISECTION_STEPS,
                                 inward=lambda bound, side: math.nextafter(bound, side * math.inf))
    peak_float = g.value_float(peak)
    points, tail_points = {Fraction(peak)}, []
    for direction, bound, exact_bound in ((-1, lower, integral.lower),
                                          (1, upper, integral.upper)):
        cut = peak_search.level_point(g.value_float, peak, peak_float - drop, direction, bound,
                                      scale, steps=BISECTION_STEPS)
        if cut is None:
            points.add(exact_bound)
        else:
            points.add(Fraction(cut))
            tail_points.append((Fraction(cut), direction))
    low, high = min(points), max(points)
    points.update(k for k in g.kinks if low < k < high)
    reference = arb(g.value_and_slope(Fraction(peak))[0].mid())
    tails = arb(0)
    for point, direction in tail_points:
        tails += _tail(g, point, direction, reference)
    return sorted(points), reference, tails


def integrate_pieces(integral: Integral, dps: int):
    """``∫ p_hub Π factors`` by piecewise Gauss–Legendre with an estimated error (module
    docstring): the ``"estimate"`` method.

    Returns
    -------
    (log_scale, results)
        As :func:`~exactdp.exact.backends.peak_quadrature.integrate`: ``I = exp(log_scale) ·
        scaled`` for each
        ``(scaled, error)`` of ``results``, here the ``N + 2``-point and the ``N``-point rules,
        each error bound including their difference, the balls' radii and the tails.
    """
    # ball arithmetic tracks every rounding, so a few guard digits suffice (plus the digits of
    # the largest log the integrand sums, which the absolute accuracy of g needs)
    accuracy = working_bits(dps, guard=ESTIMATE_GOAL_GUARD_DIGITS)
    bits = working_bits(dps, integral.magnitude, ROUNDING_GUARD_DIGITS)
    with flint_context(bits), mpmath.workdps(digits_of_bits(bits)):
        g = PiecewiseExponential(integral)
        points, reference, tails = _layout(g, integral, (dps + 10) * math.log(10))
        step = STEP
        for _ in range(ROUNDS):
            pieces = _subdivide(g, points, step)
            high_sum, low_sum, difference = _sum_rules(g, pieces, dps, bits, accuracy,
                                                       reference)
            error = difference + arb(high_sum.rad()) + arb(low_sum.rad()) + tails
            if error < high_sum * arb(10) ** (-(dps + 1)):
                break
            step /= 2
        error_mpf = _to_mpf(arb(error.upper()))
        return (_to_mpf(reference),
                [(_to_mpf(high_sum), error_mpf), (_to_mpf(low_sum), error_mpf)])


def log_integral_certified(integral: Integral, goal: int) -> arb:
    """``log ∫ p_hub Π factors`` as a ball: piecewise Gauss–Legendre with the rigorous error
    bound of each piece (module docstring, item 5), at flint's current precision, aiming at a
    relative accuracy ``2^{−goal}``.

    Raises
    ------
    PrecisionError
        If a piece's bound cannot be made finite (the caller falls back to ``acb.integral``).
    """
    bits = flint.ctx.prec
    accuracy = goal + 10
    with mpmath.workprec(bits):
        g = PiecewiseExponential(integral)
        points, reference, tails = _layout(g, integral, (goal + 20) * math.log(2))
        pieces = _subdivide(g, points, STEP)
        rhos, log_moduli = _ellipse_bounds(g, pieces, reference)
        guess = math.fsum(float(b - a) * math.exp(min(float(m[1]), 700.0))
                          for (a, b, _, _), m in zip(pieces, log_moduli))
        budget = math.log(guess / len(pieces)) - (goal + 2) * math.log(2)
        planned = plan(np.array([float((b - a) / 2) for a, b, _, _ in pieces]),
                       lambda _: np.array([float(m.upper()) for m, _ in log_moduli]), budget,
                       [np.array([float(rho) for rho in rhos])]).orders
        orders, nodes, rules, halves = [], [], [], []
        for (a, b, _, _), planned_order in zip(pieces, planned):
            half = (b - a) / 2
            order = int(planned_order)
            rule = legendre_rule(order, bits)
            middle, half_ball = to_arb((a + b) / 2), to_arb(half)
            orders.append(order)
            rules.append(rule)
            halves.append(half_ball)
            nodes.append([middle + half_ball * x for x, _ in rule])
        logs = g.log_values([(a, b) for a, b, _, _ in pieces], nodes, accuracy)
        total = arb(0, tails.upper())  # the tails, non-negative: a ball covering [0, tails]
        for rule, half, values, order, rho, (log_modulus, _) in zip(
                rules, halves, logs, orders, rhos, log_moduli):
            total += half * sum((w * (v - reference).exp() for (_, w), v in zip(rule, values)),
                                arb(0))
            bound = error_bound(log_modulus.exp(), to_arb(rho), order, half)
            total += arb(0, bound.upper())
        if not total > 0:
            raise PrecisionError("the piecewise Gauss–Legendre enclosure of an integral "
                                 "contains zero")
        return reference + total.log()


def _ellipse_bounds(g: PiecewiseExponential, pieces, reference: arb):
    """For each piece, the Bernstein ellipse parameter ``ρ`` and a bound on
    ``log |e^{g − reference}|`` on the ellipse (module docstring, item 5), with the log
    integrand at the piece's middle (for the budget)."""
    rhos = [_ellipse_parameter(reach) for _, _, _, reach in pieces]
    extents, nodes = [], []
    for (a, b, _, _), rho in zip(pieces, rhos):
        middle, half = (a + b) / 2, (b - a) / 2
        reach = (rho + 1 / rho) / 2 * half
        extents.append((middle - reach, middle + reach))
        nodes.append([to_arb(middle), to_arb(middle - reach), to_arb(middle + reach)])
    with flint_context(BOUND_BITS):
        values, slopes, curvatures = g.log_values(extents, nodes, BOUND_BITS // 2,
                                                  derivatives=(0, 1, 2))
        bounds = []
        for (a, b, _, _), rho, value, slope, curvature in zip(pieces, rhos, values, slopes,
                                                               curvatures):
            half = to_arb((b - a) / 2)
            rho_ball = to_arb(rho)
            major = (rho_ball + 1 / rho_ball) / 2 * half
            minor = (rho_ball - 1 / rho_ball) / 2 * half
            log_modulus = (value[0] - reference + abs(slope[0]) * major
                           + minor * minor / 2 * (abs(curvature[1]) + abs(curvature[2])))
            if not log_modulus.is_finite():
                raise PrecisionError("the ellipse bound of a Gauss–Legendre piece is not "
                                     "finite")
            bounds.append((arb(log_modulus.upper()), value[0] - reference))
    return rhos, bounds


def _ellipse_parameter(reach: float) -> Fraction:
    """:data:`RHO`, or a smaller ``ρ`` whose ellipse stays at most three quarters of the way
    to the nearest zero of a factor, ``reach`` piece widths away (its real semi-axis
    ``(ρ + ρ^{−1})/2`` half-widths)."""
    largest = 1 + 1.5 * reach
    for rho in (RHO, Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(9, 8)):
        if (rho + 1 / rho) / 2 <= largest:
            return rho
    raise PrecisionError("a Gauss–Legendre piece lies too close to a zero of its integrand")


def _sum_rules(g: PiecewiseExponential, pieces, dps: int, bits: int, accuracy: int,
               reference: arb):
    """The rules of orders ``N + 2`` and ``N`` (:func:`gauss_order`) summed over the pieces,
    and the sum over pieces of their difference."""
    nodes, halves, rules = [], [], []
    for a, b, tau, reach in pieces:
        order = gauss_order(tau, reach, dps)
        rule = (legendre_rule(order + 2, bits), legendre_rule(order, bits))
        middle, half = to_arb((a + b) / 2), to_arb((b - a) / 2)
        halves.append(half)
        rules.append(rule)
        nodes.append([middle + half * x for r in rule for x, _ in r])
    logs = g.log_values([(a, b) for a, b, _, _ in pieces], nodes, accuracy)
    high_sum, low_sum, difference = arb(0), arb(0), arb(0)
    for half, (high_rule, low_rule), values in zip(halves, rules, logs):
        integrand = [(v - reference).exp() for v in values]
        split = len(high_rule)
        high = half * sum((w * f for (_, w), f in zip(high_rule, integrand[:split])), arb(0))
        low = half * sum((w * f for (_, w), f in zip(low_rule, integrand[split:])), arb(0))
        high_sum += high
        low_sum += low
        difference += arb(abs(high - low).upper())
    return high_sum, low_sum, difference
