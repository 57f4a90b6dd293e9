"""Gauss–Legendre quadrature, piece by piece between kinks, of a piecewise exponential integral,
with the log integrand evaluated in ball arithmetic from power series (``piece_series.py``).

1. Geometry, in double precision (it only places points): the log integrand ``g`` is concave
   (log-concave laws), so its peak ``z*`` is found by bisection on the sign of ``g'``, and the
   points ``z_L < z* < z_R`` where ``g`` has fallen by ``D = (working digits + 5)·ln 10`` (or a
   bound of the domain, whichever comes first) by bisection on ``g``.
2. Rigorous tails: concavity gives ``∫_{z_R}^∞ e^{g} ≤ e^{g(z_R)}/|g'(z_R)|`` (and its mirror at
   ``z_L``), evaluated in ball arithmetic at the exact points found.
3. ``[z_L, z_R]`` is cut at every kink inside it and subdivided until, on each sub-piece of width
   ``h``, ``h·max|g'| ≤`` :data:`STEP` (``g'`` is monotone, so its largest modulus is at an end)
   and ``h`` is at most half the smallest noise scale.  On each sub-piece the integrand is an
   entire function of slowly varying logarithm, integrated by Gauss–Legendre rules of two orders
   ``N`` and ``N + 4`` (nodes and weights are flint's rigorous Legendre roots).
4. Error: the higher-order sum is returned; its error bound adds the balls' radii (rounding and
   series truncation, rigorous), the two tails (rigorous) and the difference of the two rules on
   every piece — the estimate of the lower-order rule's error, hence a conservative estimate of
   the higher-order one.  If the total exceeds ``10^{−dps−3}`` of the value, the pieces are
   halved and the integral recomputed.

The cost is ``O(n)`` pieces times ``O(N)`` nodes times ``O(K)`` per node (``K`` the series
length, about the working precision in bits), plus ``O(n·K)`` to build the series: near-linear
in the number of distinct factors, independent of their powers.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
from flint import arb

from ..errors import PrecisionError
from ..precision import working_dps
from .integral_form import Integral
from .piece_series import PiecewiseExponential, flint_context, to_arb

#: Largest ``h·max|g'|`` on a sub-piece (the integrand changes by at most ``e^{STEP}`` on it).
STEP = 1.0
#: Subdivision rounds (each halves every piece) before giving up with a PrecisionError.
ROUNDS = 4


def gauss_order(dps: int) -> int:
    """The lower of the two Gauss–Legendre orders: the rule's error on a sub-piece
    (``h·|g'| ≤ 1``) is about ``10^{−3N}``."""
    return max(8, (dps + 8) // 3 + 2)


@functools.lru_cache(maxsize=32)
def _legendre(order: int, bits: int):
    """Nodes and weights of the ``order``-point Gauss–Legendre rule on ``[−1, 1]``."""
    with flint_context(bits):
        return [arb.legendre_p_root(order, k, weight=True) for k in range(order)]


def _bisect_float(predicate, inside: float, outside: float) -> float:
    """The last point from ``inside`` towards ``outside`` where ``predicate`` holds, to double
    precision."""
    for _ in range(200):
        middle = (inside + outside) / 2
        if middle in (inside, outside):
            break
        if predicate(middle):
            inside = middle
        else:
            outside = middle
    return inside


def _peak(g: PiecewiseExponential, lower: float, upper: float) -> float:
    """The maximiser of the concave ``g`` on ``[lower, upper]`` (double precision)."""
    rising = lambda z: g.slope_float(z)[0] > 0  # noqa: E731
    scale = float(g.scale)
    if math.isfinite(lower):
        left = lower
        if not rising(math.nextafter(left, math.inf)):  # the limit from inside the domain
            return left
    else:
        left, width = float(g.kinks[0]) - scale, scale
        while not rising(left):
            left, width = left - width, width * 2
    if math.isfinite(upper):
        right = upper
        if rising(math.nextafter(right, -math.inf)):
            return right
    else:
        right, width = float(g.kinks[-1]) + scale, scale
        while rising(right):
            right, width = right + width, width * 2
    return _bisect_float(rising, left, right)


def _cut_point(g: PiecewiseExponential, peak: float, level: float, direction: int,
               bound: float):
    """The point beyond ``peak`` in ``direction`` where ``g`` falls below ``level``; ``None`` if
    the bound comes first."""
    above = lambda z: g.value_float(z) > level  # noqa: E731
    width = float(g.scale)
    far = peak + direction * width
    while above(far):
        if math.isfinite(bound) and (far - bound) * direction >= 0:
            break
        width *= 2
        far = peak + direction * width
    if math.isfinite(bound) and (far - bound) * direction >= 0:
        if above(math.nextafter(bound, peak)):  # the limit from inside the domain
            return None
        far = bound
    return _bisect_float(above, peak, far)


def _subdivide(g: PiecewiseExponential, points: list, step: float) -> list:
    """Pieces ``(a, b)`` between the points, each split until small enough (module docstring,
    item 3): uniformly where ``|g'|`` varies by at most a factor 2 across the piece, otherwise by
    bisection (which grades the pieces geometrically towards a point where ``g → −∞``)."""
    limit = float(g.smallest_scale) / 2
    slopes = dict(zip(points, _abs_slopes(g, points)))
    pieces, pending = [], list(zip(points, points[1:]))
    while pending:
        split = []
        for a, b in pending:
            h, sa, sb = float(b - a), slopes[a], slopes[b]
            parts = max(1, math.ceil(max(h * max(sa, sb), h * abs(sb - sa)) / step),
                        math.ceil(h / limit))
            if parts == 1:
                pieces.append((a, b))
            elif max(sa, sb) <= 2 * min(sa, sb) or parts <= 2:
                width = (b - a) / parts
                pieces.extend((a + i * width, a + (i + 1) * width) for i in range(parts))
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


def _tail(g: PiecewiseExponential, point: Fraction, reference: arb) -> arb:
    """Upper bound on the integral of ``e^{g − reference}`` beyond ``point`` (concavity)."""
    evaluated = g.value_and_slope(point)
    if evaluated is None:  # the integrand vanishes at the point (and beyond it)
        return arb(0)
    value, slope = evaluated
    bound = (value - reference).exp() / abs(slope)
    if not bound.is_finite():
        raise PrecisionError("tail bound of the integrand is not finite")
    return arb(bound.upper())


def _to_mpf(x: arb):
    return mpmath.mpf(x.mid()._mpf_)


def integrate_pieces(integral: Integral, dps: int):
    """``∫ p_hub Π factors`` by piecewise Gauss–Legendre (module docstring).

    Returns
    -------
    (log_scale, results)
        As :func:`~exactdp.exact.quadrature.integrate`: ``I = exp(log_scale) · scaled`` for each
        ``(scaled, error)`` of ``results``, here the ``N + 4``-point and the ``N``-point rules,
        each error bound including their difference, the balls' radii and the tails.
    """
    digits = working_dps(dps, integral.magnitude)
    bits = int(digits * math.log2(10)) + 8
    with flint_context(bits), mpmath.workdps(digits):
        g = PiecewiseExponential(integral)
        lower = -math.inf if integral.lower is None else float(integral.lower)
        upper = math.inf if integral.upper is None else float(integral.upper)
        peak = _peak(g, lower, upper)
        peak_float = g.value_float(peak)
        drop = (digits + 5) * math.log(10)
        points, tail_points = {Fraction(peak)}, []
        for direction, bound, exact_bound in ((-1, lower, integral.lower),
                                              (1, upper, integral.upper)):
            cut = _cut_point(g, peak, peak_float - drop, direction, bound)
            if cut is None:
                points.add(exact_bound)
            else:
                points.add(Fraction(cut))
                tail_points.append(Fraction(cut))
        low, high = min(points), max(points)
        points.update(k for k in g.kinks if low < k < high)
        points = sorted(points)
        reference = arb(g.value_and_slope(Fraction(peak))[0].mid())
        tails = arb(0)
        for point in tail_points:
            tails += _tail(g, point, reference)
        order = gauss_order(dps)
        rules = (_legendre(order + 4, bits), _legendre(order, bits))
        step = STEP
        for _ in range(ROUNDS):
            pieces = _subdivide(g, points, step)
            high_sum, low_sum, difference = _sum_rules(g, pieces, rules, reference)
            error = difference + arb(high_sum.rad()) + arb(low_sum.rad()) + tails
            if error < high_sum * mpmath.mpf(10) ** (-(dps + 3)):
                break
            step /= 2
        error_mpf = _to_mpf(arb(error.upper()))
        return (_to_mpf(reference),
                [(_to_mpf(high_sum), error_mpf), (_to_mpf(low_sum), error_mpf)])


def _sum_rules(g: PiecewiseExponential, pieces, rules, reference: arb):
    """Both rules summed over the pieces, and the sum over pieces of their difference."""
    nodes, halves = [], []
    for a, b in pieces:
        middle, half = to_arb((a + b) / 2), to_arb((b - a) / 2)
        halves.append(half)
        nodes.append([middle + half * x for rule in rules for x, _ in rule])
    logs = g.log_values(pieces, nodes)
    high_order = len(rules[0])
    high_sum, low_sum, difference = arb(0), arb(0), arb(0)
    for half, values in zip(halves, logs):
        integrand = [(v - reference).exp() for v in values]
        high = half * sum((w * f for (_, w), f in zip(rules[0], integrand[:high_order])), arb(0))
        low = half * sum((w * f for (_, w), f in zip(rules[1], integrand[high_order:])), arb(0))
        high_sum += high
        low_sum += low
        difference += arb(abs(high - low).upper())
    return high_sum, low_sum, difference
