"""Peak-aware tanh-sinh (or Gauss–Legendre) quadrature of an integral of the integral form.

Plain tanh-sinh on the pieces between kinks silently loses digits when large powers concentrate
the mass in a narrow peak far from the kinks (``mpmath.quad`` at 30 digits is wrong in the 7th
digit for Chen & Machanavajjhala's GPTT family at t = 100; see docs/engine.md).  Here the log
integrand ``g`` is concave (``log_integrand``), so:

1. the peak ``z*`` is found by bisection on the sign of the non-increasing ``g'``;
2. on each side, bisection finds the points where ``g`` has dropped by 1, 4, 16, … and finally by
   ``D = (working digits + 5)·ln 10``; these, the kinks and ``z*`` are the breakpoints (both
   searches: ``backends/peak_search.py``, at the working precision);
3. ``e^{g(z) − g(z*)}`` is integrated between the outer points.  Concavity gives a rigorous bound on
   each cut-off tail: ``∫_{z_R}^∞ e^{g} ≤ e^{g(z_R)} / |g'(z_R)|``.

The value is returned scaled, ``I = e^{g(z*)} · scaled``, so results far below 1e-308 are fine.
"""

from __future__ import annotations

import mpmath
from mpmath import mpf

from ...precision import unit_roundoff, working_dps
from ..form.integral_form import Integral
from ..form.log_integrand import LogIntegrand
from . import peak_search

#: Drops of ``g`` below its peak at which breakpoints are placed (before the final cut-off).
LEVELS = (1, 4, 16, 64, 256, 1024)
#: Breakpoints need not be precise: bisection stops at this fraction of the integrand's scale.
_BISECTION_TOLERANCE = mpf("1e-9")


def working_digits(integral: Integral, dps: int) -> int:
    """Digits needed to evaluate ``g`` so that ``e^g`` keeps ``dps`` digits: the log integrand
    grows like the total power, so its absolute error does too."""
    return working_dps(dps, integral.magnitude)


def find_peak(g: LogIntegrand) -> mpf:
    """The maximiser of the concave ``g`` on ``[lower, upper]`` (``peak_search.find_peak``)."""
    return peak_search.find_peak(lambda z: g.slope(z) > 0, g.lower, g.upper, g.kinks, g.scale,
                                 _BISECTION_TOLERANCE * g.scale)


def breakpoints(g: LogIntegrand, peak: mpf, peak_value: mpf, cutoff_drop: mpf,
                levels=LEVELS):
    """Breakpoints for the quadrature (at the drops ``levels`` below the cut-off one) and the
    rigorous bound on the two cut-off tails (relative to ``e^{g(z*)}``)."""
    points = {peak}
    tail = mpf(0)
    drops = [mpf(level) for level in levels if level < cutoff_drop] + [cutoff_drop]
    for direction, bound in ((-1, g.lower), (1, g.upper)):
        for drop in drops:
            # (bisected on until within one unit of the level: near a bound where g → −∞ a
            # point within the tolerance may sit far above it)
            point = peak_search.level_point(g, peak, peak_value - drop, direction, bound,
                                            g.scale, _BISECTION_TOLERANCE * g.scale, slack=1)
            if point is None:  # the constraint bound comes first: integrate up to it
                points.add(bound)
                break
            points.add(point)
        else:  # cut off at the last level point; concavity bounds the tail beyond it
            tail += mpmath.exp(g(point) - peak_value) / abs(g.slope(point))
    low, high = min(points), max(points)
    points.update(k for k in g.kinks if low < k < high)
    return sorted(points), tail


def integrate_log_concave(g, rules=("tanh-sinh",)):
    """``∫ e^{g}`` for any concave ``g``, at the current working precision, by each rule.

    Parameters
    ----------
    g : log-concave integrand
        Callable ``g(z)`` with ``g.slope(z)`` (right derivative), bounds ``g.lower``,
        ``g.upper`` (``±inf`` allowed), ``g.kinks`` (points inside where ``g`` is not smooth),
        a length scale ``g.scale`` (the step of the peak and level searches) and
        ``g.magnitude(z)``, the sum of the absolute values of
        the rounded terms ``g`` adds up (its rounding error is at most that many units of the
        working precision).  :class:`~exactdp.exact.form.log_integrand.LogIntegrand` is one.
    rules : sequence of {"tanh-sinh", "gauss-legendre"}
        mpmath's quadrature rules, each applied on the same breakpoints.

    Returns
    -------
    (log_scale, results)
        ``∫ e^{g} = exp(log_scale) · scaled`` for each ``(scaled, error)`` of ``results`` (one per
        rule); ``error`` is mpmath's estimate summed over the sub-intervals, the rigorous tail
        bound, and the rounding of ``g`` at the working precision (the magnitude of its terms
        times the unit roundoff).
    """
    peak = find_peak(g)
    peak_value = g(peak)
    cutoff_drop = (mpmath.mp.dps + 5) * mpmath.ln10
    points, tail = breakpoints(g, peak, peak_value, cutoff_drop)
    # g sums rounded terms: e^g inherits their absolute error as a relative one, which mpmath's
    # convergence estimate cannot see.  |log F| and |log S| are convex, so the magnitude of the
    # terms is largest at the outer breakpoints (or the peak, for density terms); a bound where
    # g → −inf is skipped, as e^g·|g| → 0 there.  Each term is rounded a few times.
    magnitude = max(m for m in (g.magnitude(x) for x in (points[0], peak, points[-1]))
                    if mpmath.isfinite(m))
    rounding_relative = 8 * (magnitude + 10) * unit_roundoff()
    results = []
    for rule in rules:
        value, error = mpmath.quad(lambda z: mpmath.exp(g(z) - peak_value), points,
                                   method=rule, error=True)
        results.append((+value, error + tail + value * rounding_relative))
    return +peak_value, results


def integrate(integral: Integral, dps: int, rules=("tanh-sinh",)):
    """Evaluate an integral of the integral form by peak-aware quadrature.

    Parameters
    ----------
    integral : Integral
        Must not be empty (``integral.is_empty`` is handled by the caller).
    dps : int
        Requested significant digits; the work is done with more (:func:`working_digits`).
    rules : sequence of {"tanh-sinh", "gauss-legendre"}

    Returns
    -------
    (log_scale, results)
        As :func:`integrate_log_concave`: ``I = exp(log_scale) · scaled`` for each
        ``(scaled, error)`` in ``results``.
    """
    with mpmath.workdps(working_digits(integral, dps)):
        return integrate_log_concave(LogIntegrand(integral), rules)
