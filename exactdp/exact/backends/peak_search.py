"""The peak and the level points of a concave log integrand, by bracketing and bisection.

For a concave ``g`` (the log of a log-concave integrand) the slope ``g'`` is non-increasing, so
"``g'(z) > 0``" holds left of the maximiser ``z*`` and fails right of it, and
"``g(z) > g(z*) − D``" holds on an interval around ``z*`` and fails outside it: each is found
by bisection on the one sign change of a predicate, once a point on each side of it is known
(:func:`first_integer` bisects a predicate of integers the same way).
Such a point is found by :func:`bracket`, stepping away by doubling steps (``s, 2s, 4s, …``
from the start: the number of steps grows with the log of the distance).

The functions are generic over the number type: the callers pass ``mpf`` (the estimate's
breakpoints, at the working precision) or ``float`` (the geometry of the piecewise Gauss–Legendre
rule).  A bisection stops within ``tolerance``, after ``steps`` halvings, or where the
precision cannot split the interval any further, whichever comes first.
"""

from __future__ import annotations

from typing import Callable

import mpmath


def bisect(holds: Callable, inside, outside, tolerance=0, steps: int | None = None):
    """The last point from ``inside`` towards ``outside`` where ``holds`` is true, to within
    ``tolerance`` (``holds(inside)`` is true, ``holds(outside)`` false, and it changes once
    between), or as near as ``steps`` halvings or the precision of the numbers resolve (a
    tolerance of ``1e-45`` at a point 25 from 0 is finer than 30 digits resolve)."""
    step = 0
    while abs(outside - inside) > tolerance and (steps is None or step < steps):
        middle = (inside + outside) / 2
        if middle == inside or middle == outside:
            break
        if holds(middle):
            inside = middle
        else:
            outside = middle
        step += 1
    return inside


def first_integer(holds: Callable[[int], bool], low: int, high: int) -> int:
    """The integer in ``(low, high]`` where ``holds`` changes, by bisection on the integers:
    ``holds`` is taken false at ``low`` and true at ``high`` (neither is evaluated); where it
    changes once in between, the first integer at which it holds."""
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def bracket(holds: Callable, start, step, direction: int, bound=None):
    """The first of the points ``start, start + d·s, start + 3d·s, start + 7d·s, …`` (each
    step twice the one before; ``d = direction``, ``s = step``) where ``holds`` is false.

    With a ``bound``, the walk stops at the first point at or beyond it: the answer is then
    ``bound`` where ``holds(bound)`` is false, and ``None`` where it is true (the predicate holds
    up to the bound)."""
    point, width = start, step
    while holds(point):
        if bound is not None and (point - bound) * direction >= 0:
            break
        point, width = point + direction * width, width * 2
    if bound is not None and (point - bound) * direction >= 0:
        return None if holds(bound) else bound
    return point


def _finite(x) -> bool:
    return mpmath.isfinite(x)


def find_peak(rising: Callable, lower, upper, anchors: list, scale, tolerance=0,
              steps: int | None = None, inward: Callable | None = None):
    """The maximiser of a concave function on ``[lower, upper]`` (``±inf`` allowed), from the
    sign of its slope: ``rising(z)`` is ``g'(z) > 0``.

    Parameters
    ----------
    rising : callable
    lower, upper : numbers
        The domain's bounds.
    anchors : list
        Points inside the domain (the kinks) the search starts from, beyond the outermost by
        ``scale``; if empty, the domain's middle, its finite bound, or 0.
    scale : number
        The first step of :func:`bracket` on an unbounded side.
    tolerance, steps
        When the bisection stops (:func:`bisect`).
    inward : callable, optional
        ``inward(bound, direction)`` → the point at which ``rising`` is asked at a finite bound
        (e.g. the next float inside the domain, for a slope that is a limit from inside there);
        the bound itself by default.
    """
    if not anchors:
        anchors = [(lower + upper) / 2 if _finite(lower + upper)
                   else lower if _finite(lower) else upper if _finite(upper) else 0 * scale]
    at = inward or (lambda bound, direction: bound)
    if _finite(lower):
        left = lower
        if not rising(at(lower, 1)):
            return left
    else:
        left = bracket(lambda z: not rising(z), min(anchors) - scale, scale, -1)
    if _finite(upper):
        right = upper
        if rising(at(upper, -1)):
            return right
    else:
        right = bracket(rising, max(anchors) + scale, scale, 1)
    return bisect(rising, left, right, tolerance, steps)


def level_point(value: Callable, peak, level, direction: int, bound, scale, tolerance=0,
                steps: int | None = None, slack=None):
    """The point beyond ``peak`` in ``direction`` (−1 left, +1 right) where the concave
    ``value`` falls to ``level``, or ``None`` if it is still above it at the domain's ``bound``
    (``±inf`` allowed).

    The point is bracketed from ``peak + direction·scale`` (:func:`bracket`) and bisected
    (:func:`bisect`, within ``tolerance`` or ``steps``).  With ``slack``, a point still more
    than ``slack`` above the level is bisected further (near a bound where ``value → −∞``, e.g.
    ``log(z − a)``, a point within the tolerance may be far above the level) until it is within
    it or the precision stops.
    """
    above = lambda z: value(z) > level  # noqa: E731
    far = bracket(above, peak + direction * scale, scale, direction,
                  bound if _finite(bound) else None)
    if far is None:
        return None
    point = bisect(above, peak, far, tolerance, steps)
    if slack is not None:
        while value(point) > level + slack:
            middle = (point + far) / 2
            if middle == point or middle == far:
                break
            point, far = (middle, far) if above(middle) else (point, middle)
    return point
