"""The one rigorous bound on a cut-off tail of a log-concave integrand: the tangent bound.

The certified and the estimating back-ends integrate ``e^{g}`` between two cut-off points ``x``
and bound what lies beyond them.  ``g`` is concave (the laws are log-concave: their densities,
CDFs and survival functions), so it lies below its tangent at ``x``,
``g(z) ≤ g(x) + g'(x)(z − x)``, and beyond ``x`` on the side where ``g`` decreases

    ``∫_x^∞ e^{g(z) − s} dz ≤ e^{g(x) − s} ∫_0^∞ e^{g'(x) t} dt = e^{g(x) − s}/|g'(x)|``

(and its mirror on the left), with ``s`` the log scale factored out of the integral (Boyd and
Vandenberghe, *Convex Optimization*, Cambridge University Press, 2004, §3.1.3: a differentiable
concave function lies below each of its tangents).
"""

from __future__ import annotations

from flint import arb

from ...errors import PrecisionError


def tangent_tail_bound(log_value: arb, outward_slope: arb, log_scale: arb) -> arb:
    """An upper bound, as an exact ball, on ``∫ e^{g − log_scale}`` beyond a cut-off point ``x``:
    ``e^{g(x) − log_scale}/|g'(x)|`` (module docstring).

    Parameters
    ----------
    log_value : arb
        ``g(x)``.
    outward_slope : arb
        The slope of ``g`` at ``x`` away from the integrated range (``g'(x)`` for the right tail,
        ``−g'(x)`` for the left one): negative, else the bound does not hold.
    log_scale : arb
        The log of the scale factored out of the integral.

    Raises
    ------
    PrecisionError
        If ``g`` does not certainly decrease beyond ``x`` or the bound is not finite.
    """
    if not outward_slope < 0:
        raise PrecisionError(f"tail bound: the log integrand does not decrease beyond the "
                             f"cut-off point (slope {outward_slope})")
    bound = ((log_value - log_scale).exp() / -outward_slope).upper()
    if not bound.is_finite():
        raise PrecisionError("tail bound of the integrand is not finite")
    return bound
